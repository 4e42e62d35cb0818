"""The planted-bug corpus: kernels with one known bug each, and their fixed twins.

Each bug kernel marks the source lines its finding must name with `# @1` and `# @2` (both on one
line when one statement is both accesses, as in `bins[b] += 1`). `tests/check/test_planted.py`
runs every case through `tack.check`; `tests/cuda/test_sanitizer_corpus.py` runs the same cases
on a GPU under compute-sanitizer, to compare what each tool finds.
"""
from __future__ import annotations

import inspect
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np
import tack

from tests.check import planted_mma as mma
from tests.check import planted_wgmma as wgmma

N = 512  # two workgroups


def _x(n=N):
    return tack.array(np.arange(n, dtype=np.float32) + 1.0)


@tack.kernel
def missing_barrier(x, out, n):
    for i in range(n):
        buf = tack.shared(tack.f32, 256)
        tid = tack.thread_id()
        buf[tid] = x[i]  # @1
        out[i] = buf[255 - tid]  # @2


@tack.kernel
def missing_barrier_fixed(x, out, n):
    for i in range(n):
        buf = tack.shared(tack.f32, 256)
        tid = tack.thread_id()
        buf[tid] = x[i]
        tack.barrier()
        out[i] = buf[255 - tid]


@tack.kernel
def write_after_read(x, out, n):
    for i in range(n):
        buf = tack.shared(tack.f32, 256)
        tid = tack.thread_id()
        buf[tid] = x[i]
        tack.barrier()
        v = buf[(tid + 1) % 256]  # @1
        buf[tid] = v * 2.0  # @2
        tack.barrier()
        out[i] = buf[tid]


@tack.kernel
def write_after_read_fixed(x, out, n):
    for i in range(n):
        buf = tack.shared(tack.f32, 256)
        tid = tack.thread_id()
        buf[tid] = x[i]
        tack.barrier()
        v = buf[(tid + 1) % 256]
        tack.barrier()
        buf[tid] = v * 2.0
        tack.barrier()
        out[i] = buf[tid]


@tack.kernel
def barrier_in_branch(x, out, n):
    for i in range(n):
        buf = tack.shared(tack.f32, 256)
        tid = tack.thread_id()
        buf[tid] = x[i]
        if tid < 128:  # @2
            tack.barrier()  # @1
            out[i] = buf[255 - tid]


@tack.kernel
def barrier_in_branch_fixed(x, out, n):
    for i in range(n):
        buf = tack.shared(tack.f32, 256)
        tid = tack.thread_id()
        buf[tid] = x[i]
        tack.barrier()
        if tid < 128:
            out[i] = buf[255 - tid]


@tack.kernel
def barrier_in_lane_loop(x, out, n):
    for i in range(n):
        tid = tack.thread_id()
        acc = 0.0
        for k in range(tid % 4):  # @2
            acc += x[i] * k
            tack.barrier()  # @1
        out[i] = acc


@tack.kernel
def barrier_in_lane_loop_fixed(x, out, n):
    for i in range(n):
        tid = tack.thread_id()
        acc = 0.0
        for k in range(4):
            if k < tid % 4:
                acc += x[i] * k
            tack.barrier()
        out[i] = acc


@tack.kernel
def global_across_groups(x, tmp, out, n):
    for i in range(n):
        tmp[i] = x[i] * 2.0  # @1
        tack.barrier()
        out[i] = tmp[(i + 256) % n]  # @2


@tack.kernel
def global_across_groups_fixed(x, tmp, out, n):
    for i in range(n):
        tid = tack.thread_id()
        tmp[i] = x[i] * 2.0
        tack.barrier()
        out[i] = tmp[i - tid + (tid + 1) % 256]  # a neighbour in the lane's own workgroup


@tack.kernel
def histogram(data, bins, n):
    for i in range(n):
        b = data[i]
        bins[b] += 1  # @1 @2


@tack.kernel
def histogram_fixed(data, bins, n):
    for i in range(n):
        b = data[i]
        tack.atomic_add(bins, b, 1)


@tack.kernel
def atomic_and_plain(x, total, n):
    for i in range(n):
        if i == 0:
            total[0] = x[0]  # @1
        else:
            tack.atomic_add(total, 0, x[i])  # @2


@tack.kernel
def atomic_and_plain_fixed(x, total, n):
    for i in range(n):
        tack.atomic_add(total, 0, x[i])


@tack.kernel
def off_by_one_shared(x, out, n):
    for i in range(n):
        buf = tack.shared(tack.f32, 256)  # @2
        tid = tack.thread_id()
        buf[tid + 1] = x[i]  # @1
        tack.barrier()
        out[i] = buf[255 - tid]


@tack.kernel
def off_by_one_shared_fixed(x, out, n):
    for i in range(n):
        buf = tack.shared(tack.f32, 256)
        tid = tack.thread_id()
        buf[(tid + 1) % 256] = x[i]
        tack.barrier()
        out[i] = buf[255 - tid]


@tack.kernel
def uninitialized_shared(x, out, n):
    for i in range(n):
        buf = tack.shared(tack.f32, 256)  # @2
        tid = tack.thread_id()
        if tid < 128:
            buf[tid] = x[i]
        tack.barrier()
        out[i] = buf[255 - tid]  # @1


@tack.kernel
def uninitialized_shared_fixed(x, out, n):
    for i in range(n):
        buf = tack.shared(tack.f32, 256)
        tid = tack.thread_id()
        buf[tid] = x[i]
        tack.barrier()
        out[i] = buf[255 - tid]


@tack.kernel
def uninitialized_local(x, out, n):
    for i in range(n):
        tmp = tack.local_array(tack.f32, 4)  # @2
        for k in range(3):
            tmp[k] = x[i] * k
        s = 0.0
        for k in range(4):
            s += tmp[k]  # @1
        out[i] = s


@tack.kernel
def uninitialized_local_fixed(x, out, n):
    for i in range(n):
        tmp = tack.local_array(tack.f32, 4)
        for k in range(4):
            tmp[k] = x[i] * k
        s = 0.0
        for k in range(4):
            s += tmp[k]
        out[i] = s


@tack.kernel
def shift(src, dst, n):
    for i in range(n):
        v = src[i]  # @1
        dst[i + 1] = v  # @2


@tack.kernel
def benign_race(x, out, n):
    for i in range(n):
        scale = tack.shared(tack.f32, 1)
        scale[0] = 2.0  # @1 @2
        tack.barrier()
        out[i] = x[i] * scale[0]


@tack.kernel
def benign_race_fixed(x, out, n):
    for i in range(n):
        scale = tack.shared(tack.f32, 1)
        if tack.thread_id() == 0:
            scale[0] = 2.0
        tack.barrier()
        out[i] = x[i] * scale[0]


@tack.kernel
def accumulate_into_empty(x, out, n):
    for i in range(n):
        out[i] += x[i]  # @1 @2


@tack.kernel
def accumulate_into_empty_fixed(x, out, n):
    for i in range(n):
        out[i] = x[i]


@tack.kernel
def stencil_off_by_one(x, out, n):
    for i in range(n):
        out[i] = x[i] + x[i + 1]  # @1 @2


@tack.kernel
def stencil_off_by_one_fixed(x, out, n):
    for i in range(n):
        out[i] = x[i] + x[min(i + 1, n - 1)]


@dataclass(frozen=True)
class Case:
    """One planted bug: the kind `tack.check` must report, and both kernels with their args."""

    name: str
    kind: str
    bug: tack.Kernel
    fixed: tack.Kernel
    args: Callable[[], tuple]  # fresh arguments for the bug kernel
    fixed_args: Callable[[], tuple] | None = None  # for the twin (default: `args`)
    sanitizer: str = ""  # the compute-sanitizer tool meant to catch it ("" : none is)

    def lines(self) -> tuple[str, set[int]]:
        """The file and the marked lines of the bug kernel."""
        src, first = inspect.getsourcelines(self.bug.fn)
        marked = {first + k for k, line in enumerate(src) if "# @1" in line or "# @2" in line}
        return inspect.getsourcefile(self.bug.fn), marked


def _hist_args():
    data = tack.array((np.arange(N) * 7 % 16).astype(np.int32))
    return data, tack.zeros(16, tack.i32), N


def _shift_alias():
    a = _x(N + 1)
    return a, a, N


CASES = (
    Case("missing_barrier", "race", missing_barrier, missing_barrier_fixed,
         lambda: (_x(), tack.zeros(N), N), sanitizer="racecheck"),
    Case("write_after_read", "race", write_after_read, write_after_read_fixed,
         lambda: (_x(), tack.zeros(N), N), sanitizer="racecheck"),
    Case("barrier_in_branch", "barrier", barrier_in_branch, barrier_in_branch_fixed,
         lambda: (_x(), tack.zeros(N), N), sanitizer="synccheck"),
    Case("barrier_in_lane_loop", "barrier", barrier_in_lane_loop, barrier_in_lane_loop_fixed,
         lambda: (_x(), tack.zeros(N), N), sanitizer="synccheck"),
    Case("global_across_groups", "race", global_across_groups, global_across_groups_fixed,
         lambda: (_x(), tack.zeros(N), tack.zeros(N), N), sanitizer="racecheck"),
    Case("histogram", "race", histogram, histogram_fixed, _hist_args, sanitizer="racecheck"),
    Case("atomic_and_plain", "race", atomic_and_plain, atomic_and_plain_fixed,
         lambda: (_x(), tack.zeros(1), N), sanitizer="racecheck"),
    Case("off_by_one_shared", "bounds", off_by_one_shared, off_by_one_shared_fixed,
         lambda: (_x(), tack.zeros(N), N), sanitizer="memcheck"),
    Case("uninitialized_shared", "uninitialized", uninitialized_shared,
         uninitialized_shared_fixed, lambda: (_x(), tack.zeros(N), N), sanitizer="initcheck"),
    Case("uninitialized_local", "uninitialized", uninitialized_local, uninitialized_local_fixed,
         lambda: (_x(), tack.zeros(N), N), sanitizer="initcheck"),
    Case("aliased_arguments", "race", shift, shift, _shift_alias,
         lambda: (_x(N + 1), tack.zeros(N + 1), N), sanitizer="racecheck"),
    Case("benign_race", "race", benign_race, benign_race_fixed,
         lambda: (_x(), tack.zeros(N), N), sanitizer="racecheck"),
    Case("accumulate_into_empty", "uninitialized", accumulate_into_empty,
         accumulate_into_empty_fixed, lambda: (_x(), tack.empty(N), N),
         sanitizer="initcheck"),
    Case("stencil_off_by_one", "bounds", stencil_off_by_one, stencil_off_by_one_fixed,
         lambda: (_x(), tack.zeros(N), N), sanitizer="memcheck"),
    # matrix multiply-accumulate (tests/check/planted_mma.py)
    Case("mma_missing_barrier", "race", mma.mma_missing_barrier, mma.mma_missing_barrier_fixed,
         mma.args, sanitizer="racecheck"),
    Case("mma_in_lane_branch", "barrier", mma.mma_in_lane_branch, mma.mma_in_lane_branch_fixed,
         mma.args),
    Case("fragment_load_in_lane_branch", "barrier", mma.fragment_load_in_lane_branch,
         mma.fragment_load_in_lane_branch_fixed, mma.args),
    Case("mma_uninitialized_accumulator", "uninitialized", mma.mma_uninitialized_accumulator,
         mma.mma_uninitialized_accumulator_fixed, mma.args, sanitizer="initcheck"),
    Case("accumulator_unassigned_on_a_path", "uninitialized",
         mma.accumulator_unassigned_on_a_path, mma.accumulator_unassigned_on_a_path_fixed,
         mma.args),
    # warpgroup MMA (tests/check/planted_wgmma.py)
    Case("wgmma_store_before_wait", "pipeline", wgmma.wgmma_store_before_wait,
         wgmma.wgmma_store_before_wait_fixed, wgmma.args),
    Case("wgmma_wait_too_short", "pipeline", wgmma.wgmma_wait_too_short,
         wgmma.wgmma_wait_too_short_fixed, wgmma.args),
    Case("wgmma_tile_restaged_in_flight", "pipeline", wgmma.wgmma_tile_restaged_in_flight,
         wgmma.wgmma_tile_restaged_in_flight_fixed, wgmma.args),
    Case("wgmma_missing_barrier", "race", wgmma.wgmma_missing_barrier,
         wgmma.wgmma_missing_barrier_fixed, wgmma.args),
    Case("wgmma_partial_warpgroup", "barrier", wgmma.wgmma_partial_warpgroup,
         wgmma.wgmma_partial_warpgroup_fixed, wgmma.args),
    Case("wgmma_tile_misplaced", "uninitialized", wgmma.wgmma_tile_misplaced,
         wgmma.wgmma_tile_misplaced_fixed, wgmma.wide_args),
)
