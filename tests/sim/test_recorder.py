"""What the simulator tells a recorder (runtime/sim/trace.py): accesses with barrier epochs,
bad indices, uninitialized reads, diverged barriers; and what a plain launch raises."""
import numpy as np
import pytest
import tack
from tack.call import signature
from tack.compiler import typecheck
from tack.passes.pipeline import lower
from tack.runtime.sim.engine import SimEngine
from tack.runtime.sim.trace import Recorder


class Log(Recorder):
    def __init__(self):
        self.events = []

    def launch(self, name, n, groups, buffers):
        self.buffers = buffers
        self.events.append(("launch", name, n, groups))

    def access(self, kind, buffer, space, lanes, index, epoch, site):
        self.events.append(("access", kind, buffer, space, lanes.copy(), index.copy(),
                            epoch.copy(), site))

    def bounds(self, buffer, space, lanes, index, extent, site):
        self.events.append(("bounds", buffer, space, lanes.copy(), index.copy(), extent, site))

    def uninitialized(self, buffer, space, lanes, index, site):
        self.events.append(("uninit", buffer, space, lanes.copy(), index.copy(), site))

    def barrier(self, site, group, arrived, expected, diverged_at):
        self.events.append(("barrier", site, group, arrived.copy(), expected.copy(),
                            diverged_at))

    def finish(self):
        self.events.append(("finish",))

    def of(self, kind):
        return [e for e in self.events if e[0] == kind]


@pytest.fixture(autouse=True)
def sim():
    tack.set_default_device("sim")


def run(kernel, args, n, **kw):
    """Specialize without the static workgroup contract and run on the simulator."""
    pk = kernel.parse_for(args)
    specs = signature.specs(kernel.name, pk.params, signature.expand(pk.paths, args))
    kir = lower(typecheck(kernel, pk, specs))
    values = [a._host if isinstance(a, tack.Array) else a for a in args]
    log = Log()
    SimEngine().run(kir, values, n, log, **kw)
    return log


@tack.kernel
def half_barrier(out, n):
    for i in range(n):
        s = tack.shared(tack.f32, 256)
        tid = tack.thread_id()
        if tid < 128:
            s[tid] = 1.0
            tack.barrier()
        out[i] = s[tid]


def test_a_barrier_under_a_lane_branch_is_reported_with_the_branch():
    log = run(half_barrier, [tack.zeros(512), 512], 512)
    found = log.of("barrier")
    assert [e[2] for e in found] == [0, 1]
    _, site, _, arrived, expected, split = found[0]
    assert site.line == half_barrier.fn.__code__.co_firstlineno + 7
    assert split.branch.line == site.line - 2 and split.how == "branch"
    np.testing.assert_array_equal(arrived, np.arange(128))
    np.testing.assert_array_equal(expected, np.arange(256))
    # lanes 128.. read shared elements nobody wrote
    uninit = log.of("uninit")
    assert sorted(np.concatenate([e[3] for e in uninit]).tolist()) == \
        [t for t in range(512) if t % 256 >= 128]
    assert log.events[-1] == ("finish",)


def test_the_static_contract_still_refuses_it_for_a_launch():
    with pytest.raises(ValueError, match="uniform workgroup participation"):
        half_barrier(tack.zeros(512), 512)


@tack.kernel
def staged(x, out, n):
    for i in range(n):
        s = tack.shared(tack.f32, 256)
        tid = tack.thread_id()
        s[tid] = x[i]
        tack.barrier()
        out[i] = s[255 - tid]


def test_accesses_carry_epochs_buffers_and_lanes():
    x = tack.array(np.arange(512, dtype=np.float32))
    log = run(staged, [x, tack.zeros(512), 512], 512)
    acc = log.of("access")
    kinds = [(e[1], e[3]) for e in acc]
    assert ("read", "global") in kinds and ("write", "shared") in kinds
    shared_writes = [e for e in acc if e[1] == "write" and e[3] == "shared"]
    shared_reads = [e for e in acc if e[1] == "read" and e[3] == "shared"]
    assert {e[2] for e in shared_writes} == {e[2] for e in shared_reads}
    assert len({e[2] for e in shared_writes}) == 2  # one buffer per workgroup
    assert all((e[6] == 0).all() for e in shared_writes)
    assert all((e[6] == 1).all() for e in shared_reads)
    infos = log.buffers
    assert {i.space for i in infos.values()} == {"global", "shared"}
    assert not log.of("barrier") and not log.of("bounds")


@tack.kernel
def off_by_one(out, n):
    for i in range(n):
        s = tack.shared(tack.f32, 256)
        tid = tack.thread_id()
        s[tid + 1] = 1.0
        tack.barrier()
        out[i] = s[tid]


def test_bad_shared_index_is_reported_and_skipped():
    log = run(off_by_one, [tack.zeros(256), 256], 256)
    (b,) = log.of("bounds")
    assert b[2] == "shared" and b[3].tolist() == [255] and b[4].tolist() == [256]
    assert b[5] == 256


def test_a_plain_launch_raises_for_a_bad_index():
    with pytest.raises(IndexError, match=r"index 256 is outside \[0, 256\)"):
        off_by_one(tack.zeros(256), 256)


@tack.kernel
def aliased(a, b, n):
    for i in range(n):
        b[i + 1] = a[i]


def test_an_array_passed_twice_is_one_buffer():
    x = tack.zeros(9)
    log = run(aliased, [x, x, 8], 8)
    acc = log.of("access")
    assert {e[2] for e in acc} == {0} and len(log.buffers) == 1


def test_uninitialized_global_reads_are_reported_when_asked():
    x = tack.zeros(9)
    log = run(aliased, [x, tack.zeros(9), 8], 8, uninitialized={"a"})
    (u,) = log.of("uninit")
    assert u[3].tolist() == list(range(8))


@tack.kernel
def local_uninit(out, n):
    for i in range(n):
        buf = tack.local_array(tack.i32, 4)
        buf[0] = i
        out[i] = buf[0] + buf[i % 4]


def test_uninitialized_local_reads_per_lane():
    log = run(local_uninit, [tack.zeros(8, tack.i32), 8], 8)
    lanes = sorted(np.concatenate([e[3] for e in log.of("uninit")]).tolist())
    assert lanes == [t for t in range(8) if t % 4]


@tack.kernel
def prints(x, n):
    for i in range(n):
        if i % 2 == 0:
            print("even", i, x[i])
        print("all", i)


def test_print_lines_come_in_launch_order(capfd):
    prints(tack.array(np.array([0.5, 1, 2, 3], np.float32)), 4)
    out = capfd.readouterr().out.splitlines()
    assert out == ["even 0 0.5", "all 0", "all 1", "even 2 2", "all 2", "all 3"]


@tack.kernel
def loops(out, n):
    for i in range(n):
        total = 0
        for j in range(i):
            if j == 5:
                break
            if j % 2 == 1:
                continue
            total += j
        k = 0
        while True:
            k += 1
            if k >= i:
                break
        if i == 3:
            continue
        out[i] = total * 100 + k


def test_break_continue_and_early_exit():
    out = tack.full(10, -1, tack.i32)
    loops(out, 10)
    ref = [sum(j for j in range(min(i, 5)) if j % 2 == 0) * 100 + max(i, 1) for i in range(10)]
    ref[3] = -1
    np.testing.assert_array_equal(out.numpy(), ref)


def test_debug_mode_reports_like_the_cpu_engine():
    @tack.kernel
    def shifted(x, out):
        for i in range(x.shape[0]):
            out[i] = x[i + 1]

    tack.set_debug(True)
    with pytest.raises(IndexError, match=r"index 4 of dimension 0 is outside \[0, 4\)"):
        shifted(tack.zeros(4), tack.zeros(4))


def test_inspect_shows_the_final_ir():
    text = tack.inspect(staged, tack.zeros(256), tack.zeros(256), 256, mode="source")
    assert "barrier()" in text and "shared s" in text


@tack.kernel
def lane_trip_count(out, n):
    for i in range(n):
        tid = tack.thread_id()
        k = 0
        while k < tid % 3:
            tack.barrier()
            k += 1
        out[i] = k


def test_a_barrier_in_a_loop_with_lane_dependent_trips_is_reported_with_the_loop():
    log = run(lane_trip_count, [tack.zeros(256, tack.i32), 256], 256)
    found = log.of("barrier")
    assert len(found) == 2  # iteration 1: lanes with tid % 3 >= 1; iteration 2: == 2
    first_line = lane_trip_count.fn.__code__.co_firstlineno
    # the while (+0: the decorator), whose condition ended the missing lanes' trips
    assert all(e[5].branch.line == first_line + 5 and e[5].how == "loop" for e in found)
    assert len(found[0][3]) == sum(1 for t in range(256) if t % 3 >= 1)
    assert len(found[1][3]) == sum(1 for t in range(256) if t % 3 == 2)


def test_a_plain_sim_launch_raises_for_a_diverged_barrier():
    args = [tack.zeros(256, tack.i32), 256]
    pk = lane_trip_count.parse_for(args)
    specs = signature.specs("lane_trip_count", pk.params, signature.expand(pk.paths, args))
    k = SimEngine().compile(lower(typecheck(lane_trip_count, pk, specs)))
    with pytest.raises(ValueError, match="170 of the 256 lanes of workgroup 0 reached it; "
                                         "the others parted at the loop at .*its condition or "
                                         "trip count differs by lane"):
        k.launch([args[0]._host, 256], 256)


@tack.kernel
def leave_early(out, n):
    for i in range(n):
        tid = tack.thread_id()
        for k in range(3):
            if tid >= 100 and k == 1:
                break
            tack.barrier()
        out[i] = tid


def test_lanes_that_broke_out_are_reported_with_the_break_and_its_branch():
    log = run(leave_early, [tack.zeros(256, tack.i32), 256], 256)
    found = log.of("barrier")  # k == 1 and k == 2: lanes 0..99 arrive
    assert len(found) == 2 and found[0][5] == found[1][5]
    e = found[0]
    split, first = e[5], leave_early.fn.__code__.co_firstlineno
    assert len(e[3]) == 100 and split.how == "break"
    assert (split.branch.line, split.statement.line, split.loop.line) == (
        first + 5, first + 6, first + 4)
    assert f"the `break` at {split.statement} under the branch at {split.branch}" in str(split)
