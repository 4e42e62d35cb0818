"""Planted pipeline bugs: kernels with one misuse of asynchronous copies each, and their fixed
twins (docs/checking.md, "Pipelines"). Each bug kernel marks the source lines its finding must
name with `# @1`, `# @2` (and `# @3` for the wait of a wait with the wrong count);
tests/check/test_planted_async.py runs every case through `tack.check`. `shift` picks which
lane reads the element another lane copied (t + shift within the workgroup), so one kernel
puts the reader after, before or far from the copier in the simulator's lane order."""
from __future__ import annotations

import inspect
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np
import tack

N = 512  # two workgroups
NT = 4  # tiles per workgroup in the double-buffered kernels


@tack.kernel
def missing_wait(x, out, shift):
    for i in range(out.shape[0]):
        buf = tack.shared(tack.f32, 256)
        tid = tack.thread_id()
        tack.async_copy(buf, tid, x, i)  # @2
        tack.async_commit()
        tack.barrier()
        out[i] = buf[(tid + shift) % 256]  # @1


@tack.kernel
def missing_wait_fixed(x, out, shift):
    for i in range(out.shape[0]):
        buf = tack.shared(tack.f32, 256)
        tid = tack.thread_id()
        tack.async_copy(buf, tid, x, i)
        tack.async_commit()
        tack.async_wait(0)
        tack.barrier()
        out[i] = buf[(tid + shift) % 256]


@tack.kernel
def missing_barrier_after_wait(x, out, shift):
    for i in range(out.shape[0]):
        buf = tack.shared(tack.f32, 256)
        tid = tack.thread_id()
        tack.async_copy(buf, tid, x, i)  # @2
        tack.async_commit()
        tack.async_wait(0)
        out[i] = buf[(tid + shift) % 256]  # @1


@tack.kernel
def own_copy_read_early(x, out, shift):
    for i in range(out.shape[0]):
        buf = tack.shared(tack.f32, 256)
        tid = tack.thread_id()
        buf[tid] = 0.0
        tack.async_copy(buf, tid, x, i)  # @2
        tack.async_commit()
        v = buf[tid]  # @1
        tack.async_wait(0)
        out[i] = v + buf[tid] * shift


@tack.kernel
def own_copy_read_early_fixed(x, out, shift):
    for i in range(out.shape[0]):
        buf = tack.shared(tack.f32, 256)
        tid = tack.thread_id()
        buf[tid] = 0.0
        tack.async_copy(buf, tid, x, i)
        tack.async_commit()
        tack.async_wait(0)
        v = buf[tid]
        out[i] = v + buf[tid] * shift


@tack.kernel
def wrong_wait_count(x, out, shift):
    for g in range(out.shape[0]):
        buf = tack.shared(tack.f32, 512)
        tid = tack.thread_id()
        base = (g // 256) * 4 * 256
        tack.async_copy(buf, tid, x, base + tid)
        tack.async_commit()
        acc = 0.0
        for k in range(4):
            cur = (k % 2) * 256
            if k + 1 < 4:
                tack.async_copy(buf, 256 - cur + tid, x, base + (k + 1) * 256 + tid)  # @2
            tack.async_commit()
            tack.async_wait(2)  # @3
            tack.barrier()
            acc += buf[cur + (tid + shift) % 256]  # @1
            tack.barrier()
        out[g] = acc


@tack.kernel
def wrong_wait_count_fixed(x, out, shift):
    for g in range(out.shape[0]):
        buf = tack.shared(tack.f32, 512)
        tid = tack.thread_id()
        base = (g // 256) * 4 * 256
        tack.async_copy(buf, tid, x, base + tid)
        tack.async_commit()
        acc = 0.0
        for k in range(4):
            cur = (k % 2) * 256
            if k + 1 < 4:
                tack.async_copy(buf, 256 - cur + tid, x, base + (k + 1) * 256 + tid)
            tack.async_commit()
            tack.async_wait(1)
            tack.barrier()
            acc += buf[cur + (tid + shift) % 256]
            tack.barrier()
        out[g] = acc


@tack.kernel
def refill_while_reading(x, out, shift):
    for g in range(out.shape[0]):
        buf = tack.shared(tack.f32, 512)
        tid = tack.thread_id()
        base = (g // 256) * 4 * 256
        tack.async_copy(buf, tid, x, base + tid)
        tack.async_commit()
        acc = 0.0
        for k in range(4):
            cur = (k % 2) * 256
            if k + 1 < 4:
                tack.async_copy(buf, 256 - cur + tid, x, base + (k + 1) * 256 + tid)  # @1
            tack.async_commit()
            tack.async_wait(1)
            tack.barrier()
            acc += buf[cur + (tid + shift) % 256]  # @2
        out[g] = acc


def _x(n):
    return tack.array(np.arange(n, dtype=np.float32) + 1.0)


@dataclass(frozen=True)
class Case:
    """One planted pipeline bug: the problem its finding names (check/pipelines.py), both
    kernels and their arguments for a given `shift`."""

    name: str
    problem: str  # "unwaited" | "wrong-wait" | "overwrite"
    bug: tack.Kernel
    fixed: tack.Kernel
    args: Callable[[int], tuple]
    # whether a lane that reads only its own copy (shift 0) has the bug too: without a barrier
    # or with a missing barrier, not when its own wait came first
    own: bool = False

    def lines(self) -> tuple[str, set[int]]:
        src, first = inspect.getsourcelines(self.bug.fn)
        marked = {first + k for k, line in enumerate(src) if "# @" in line}
        return inspect.getsourcefile(self.bug.fn), marked


def _one(shift):
    return _x(N), tack.zeros(N), shift


def _tiles(shift):
    return _x(N * NT), tack.zeros(N), shift


CASES = (
    Case("missing_wait", "unwaited", missing_wait, missing_wait_fixed, _one, own=True),
    Case("missing_barrier_after_wait", "unwaited", missing_barrier_after_wait,
         missing_wait_fixed, _one),
    Case("own_copy_read_early", "unwaited", own_copy_read_early, own_copy_read_early_fixed,
         _one, own=True),
    Case("wrong_wait_count", "wrong-wait", wrong_wait_count, wrong_wait_count_fixed, _tiles,
         own=True),
    Case("refill_while_reading", "overwrite", refill_while_reading, wrong_wait_count_fixed,
         _tiles),
)
