"""The race analysis on hand-made traces (python/tack/check/races.py): barrier epochs decide the
order, never the order the accesses were recorded in."""
import numpy as np
import pytest
from tack.check.races import AccessLog
from tack.runtime.sim.trace import Site

W = 256
A, B, C = Site("k.py", 10, 5), Site("k.py", 11, 5), Site("k.py", 12, 5)


def arr(*v):
    return np.array(v, np.int64)


def acc(log, kind, lanes, index, epoch=0, buffer=0, space="shared", site=A):
    lanes = np.asarray(lanes, np.int64)
    log.add(kind, buffer, space, lanes, np.asarray(index, np.int64),
            np.broadcast_to(np.int64(epoch), lanes.shape), site)


def test_write_then_other_lane_reads_in_one_epoch_is_a_race():
    log = AccessLog()
    acc(log, "write", np.arange(W), np.arange(W), site=A)
    acc(log, "read", np.arange(W), (np.arange(W) + 1) % W, site=B)
    (r,) = log.races()
    assert log.site_of(r.a) == (A, "write") and log.site_of(r.b) == (B, "read")
    assert r.count == W
    w = r.witnesses[0]
    assert w.index == 0 and w.lane_a == 0 and w.lane_b == W - 1 and w.epoch == 0


def test_a_barrier_between_orders_them():
    log = AccessLog()
    acc(log, "write", np.arange(W), np.arange(W), epoch=0, site=A)
    acc(log, "read", np.arange(W), (np.arange(W) + 1) % W, epoch=1, site=B)
    assert log.races() == []


def test_recording_order_does_not_matter():
    """The read is recorded before the write (the simulator ran it first): still a race."""
    log = AccessLog()
    acc(log, "read", np.arange(W), (np.arange(W) + 1) % W, site=B)
    acc(log, "write", np.arange(W), np.arange(W), site=A)
    (r,) = log.races()
    assert {log.site_of(r.a)[1], log.site_of(r.b)[1]} == {"read", "write"}


def test_same_lane_is_program_order():
    log = AccessLog()
    acc(log, "write", np.arange(W), np.arange(W), site=A)
    acc(log, "read", np.arange(W), np.arange(W), site=B)
    acc(log, "write", np.arange(W), np.arange(W), site=C)
    assert log.races() == []


def test_reads_never_race():
    log = AccessLog()
    acc(log, "read", np.arange(W), np.zeros(W), site=A)
    acc(log, "read", np.arange(W), np.zeros(W), site=B)
    assert log.races() == []


def test_write_write_at_one_site():
    log = AccessLog()
    acc(log, "write", np.arange(W), np.zeros(W), site=A)
    (r,) = log.races()
    assert r.a == r.b and r.count == 1
    assert r.witnesses[0].lane_a != r.witnesses[0].lane_b


def test_atomics_do_not_race_with_atomics_but_do_with_plain_accesses():
    log = AccessLog()
    acc(log, "atomic", np.arange(W), np.zeros(W), site=A)
    assert log.races() == []
    acc(log, "write", arr(7), arr(0), site=B)
    acc(log, "read", arr(7), arr(0), site=C)
    pairs = {(log.site_of(r.a), log.site_of(r.b)) for r in log.races()}
    assert pairs == {((A, "atomic"), (B, "write")), ((A, "atomic"), (C, "read"))}


def test_global_memory_races_across_workgroups_whatever_the_epochs():
    log = AccessLog()
    n = 4 * W
    acc(log, "write", np.arange(n), np.arange(n), epoch=0, buffer=3, space="global", site=A)
    acc(log, "read", np.arange(n), (np.arange(n) + W) % n, epoch=1, buffer=3, space="global",
        site=B)
    (r,) = log.races()
    assert r.count == n and r.buffer == 3
    w = r.witnesses[0]
    assert w.epoch is None and w.lane_a // W != w.lane_b // W


def test_global_memory_inside_one_workgroup_is_ordered_by_its_barriers():
    log = AccessLog()
    n = 4 * W
    nb = (np.arange(n) // W) * W + (np.arange(n) + 1) % W  # a neighbour in the own group
    acc(log, "write", np.arange(n), np.arange(n), epoch=0, space="global", site=A)
    acc(log, "read", np.arange(n), nb, epoch=1, space="global", site=B)
    assert log.races() == []
    acc(log, "read", np.arange(n), nb, epoch=0, space="global", site=C)
    (r,) = log.races()
    assert log.site_of(r.b) == (C, "read") and r.witnesses[0].epoch == 0


def test_shared_buffers_of_different_groups_are_different_buffers():
    log = AccessLog()
    acc(log, "write", arr(0), arr(0), buffer=1, site=A)
    acc(log, "write", arr(W), arr(0), buffer=2, site=A)
    assert log.races() == []


def test_aliasing_is_one_buffer():
    """The same array passed as `src` and `dst`: lane i writes element i+1, lane i+1 reads it."""
    log = AccessLog()
    lanes = np.arange(100)
    acc(log, "read", lanes, lanes, space="global", site=A)
    acc(log, "write", lanes, lanes + 1, space="global", site=B)
    (r,) = log.races()
    assert r.count == 99
    w = r.witnesses[0]
    assert w.index == 1 and w.lane_a == 1 and w.lane_b == 0


def test_local_memory_never_races():
    log = AccessLog()
    acc(log, "write", np.arange(W), np.zeros(W), space="local", site=A)
    assert log.races() == []


def test_witnesses_are_few_and_the_count_is_per_element():
    log = AccessLog()
    n = 1 << 14
    acc(log, "read", np.arange(n), np.arange(n) % 16, space="global", site=A)
    acc(log, "write", np.arange(n), np.arange(n) % 16, space="global", site=A)
    pairs = log.races(witnesses=2)
    assert {(log.site_of(r.a)[1], log.site_of(r.b)[1]) for r in pairs} == {
        ("read", "write"), ("write", "write")}
    assert all(r.count == 16 and len(r.witnesses) == 2 for r in pairs)


@pytest.mark.parametrize("chunks", [1, 7])
def test_compaction_keeps_the_answer(monkeypatch, chunks):
    from tack.check import races

    monkeypatch.setattr(races, "_COMPACT_AT", 300)
    log = AccessLog()
    lanes = np.arange(W)
    for c in range(chunks):
        acc(log, "read", lanes, np.zeros(W), epoch=c, site=A)
    acc(log, "write", arr(5), arr(0), epoch=chunks - 1, site=B)
    (r,) = log.races()
    assert r.count == 1 and r.witnesses[0].epoch == chunks - 1
    assert r.witnesses[0].lane_b == 5 and r.witnesses[0].lane_a != 5


def test_single_lane_pairs_in_one_group_only_when_lanes_differ():
    log = AccessLog()
    acc(log, "write", arr(3), arr(9), site=A)
    acc(log, "read", arr(3), arr(9), site=B)
    assert log.races() == []
    acc(log, "read", arr(4), arr(9), site=B)
    (r,) = log.races()
    assert (r.witnesses[0].lane_a, r.witnesses[0].lane_b) == (3, 4)
