"""Planted transaction-barrier bugs: kernels with one misuse of `tack.mbarriers` and bulk or
tensor copies each, and their fixed twins (docs/checking.md, "Transaction barriers"). Each bug kernel marks the
source lines its finding must name with `# @1`, `# @2`, ...; tests/check/test_planted_mbarriers.py
runs every case through `tack.check`. `shift` picks which lane reads the element the copying
lane brought in (t + shift within the workgroup), so one kernel puts the reader after, before or
far from the copier in the simulator's lane order."""
from __future__ import annotations

import inspect
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np
import tack

from tests.kernels import async_copies as A
from tests.kernels import mbarriers as M

N = 512  # two workgroups
NT = tack.constant(4)  # tiles per workgroup in the looping kernels
TILE = tack.constant(256 * 4)  # bytes of one 256-element f32 tile


@tack.kernel
def use_before_init(x, out, shift):
    for i in range(out.shape[0]):
        buf = tack.shared(tack.f32, 256)
        bar = tack.mbarriers(1)
        tid = tack.thread_id()
        if tid == 0:
            tack.mbarrier_init(bar[0], 1)  # @2
            tack.mbarrier_arrive_tx(bar[0], TILE)
            tack.async_bulk_copy(buf, 0, x, i, 256, bar[0])
        tack.mbarrier_wait(bar[0], 0)  # @1
        out[i] = buf[(tid + shift) % 256]


@tack.kernel
def one_tile(x, out, shift):
    for i in range(out.shape[0]):
        buf = tack.shared(tack.f32, 256)
        bar = tack.mbarriers(1)
        tid = tack.thread_id()
        if tid == 0:
            tack.mbarrier_init(bar[0], 1)
        tack.barrier()
        if tid == 0:
            tack.mbarrier_arrive_tx(bar[0], TILE)
            tack.async_bulk_copy(buf, 0, x, i, 256, bar[0])
        tack.mbarrier_wait(bar[0], 0)
        out[i] = buf[(tid + shift) % 256]


@tack.kernel
def init_on_every_lane(x, out, shift):
    for i in range(out.shape[0]):
        buf = tack.shared(tack.f32, 256)
        bar = tack.mbarriers(1)
        tid = tack.thread_id()
        tack.mbarrier_init(bar[0], 1)  # @1
        tack.barrier()
        if tid == 0:
            tack.mbarrier_arrive_tx(bar[0], TILE)
            tack.async_bulk_copy(buf, 0, x, i, 256, bar[0])
        tack.mbarrier_wait(bar[0], 0)
        out[i] = buf[(tid + shift) % 256]


@tack.kernel
def missing_wait(x, out, shift):
    for i in range(out.shape[0]):
        buf = tack.shared(tack.f32, 256)
        bar = tack.mbarriers(1)
        tid = tack.thread_id()
        if tid == 0:
            tack.mbarrier_init(bar[0], 1)
        tack.barrier()
        if tid == 0:
            tack.mbarrier_arrive_tx(bar[0], TILE)
            tack.async_bulk_copy(buf, 0, x, i, 256, bar[0])  # @2
        tack.barrier()
        out[i] = buf[(tid + shift) % 256]  # @1


@tack.kernel
def short_byte_count(x, out, shift):
    for i in range(out.shape[0]):
        buf = tack.shared(tack.f32, 256)
        bar = tack.mbarriers(1)
        tid = tack.thread_id()
        if tid == 0:
            tack.mbarrier_init(bar[0], 1)
        tack.barrier()
        if tid == 0:
            tack.mbarrier_arrive_tx(bar[0], 512)  # @2
            tack.async_bulk_copy(buf, 0, x, i, 128, bar[0])
            tack.async_bulk_copy(buf, 128, x, i + 128, 128, bar[0])
        tack.mbarrier_wait(bar[0], 0)  # @1
        out[i] = buf[(tid + shift) % 256]


@tack.kernel
def two_copies(x, out, shift):
    for i in range(out.shape[0]):
        buf = tack.shared(tack.f32, 256)
        bar = tack.mbarriers(1)
        tid = tack.thread_id()
        if tid == 0:
            tack.mbarrier_init(bar[0], 1)
        tack.barrier()
        if tid == 0:
            tack.mbarrier_arrive_tx(bar[0], TILE)
            tack.async_bulk_copy(buf, 0, x, i, 128, bar[0])
            tack.async_bulk_copy(buf, 128, x, i + 128, 128, bar[0])
        tack.mbarrier_wait(bar[0], 0)
        out[i] = buf[(tid + shift) % 256]


@tack.kernel
def arrivals_not_expected(x, out, shift):
    for i in range(out.shape[0]):
        buf = tack.shared(tack.f32, 256)
        bar = tack.mbarriers(1)
        tid = tack.thread_id()
        if tid == 0:
            tack.mbarrier_init(bar[0], 2)  # @2
        tack.barrier()
        if tid == 0:
            tack.mbarrier_arrive_tx(bar[0], TILE)  # @3
            tack.async_bulk_copy(buf, 0, x, i, 256, bar[0])
        tack.mbarrier_wait(bar[0], 0)  # @1
        out[i] = buf[(tid + shift) % 256]


@tack.kernel
def same_parity_each_tile(x, out, shift):
    for i in range(out.shape[0]):
        buf = tack.shared(tack.f32, 256)
        bar = tack.mbarriers(1)
        tid = tack.thread_id()
        if tid == 0:
            tack.mbarrier_init(bar[0], 1)
        tack.barrier()
        acc = 0.0
        for t in range(NT):
            if tid == 0:
                tack.mbarrier_arrive_tx(bar[0], TILE)
                tack.async_bulk_copy(buf, 0, x, (i - tid) * NT + t * 256, 256, bar[0])
            tack.mbarrier_wait(bar[0], 0)  # @1
            acc += buf[(tid + shift) % 256]
            tack.barrier()
        out[i] = acc


@tack.kernel
def tile_loop(x, out, shift):
    for i in range(out.shape[0]):
        buf = tack.shared(tack.f32, 256)
        bar = tack.mbarriers(1)
        tid = tack.thread_id()
        if tid == 0:
            tack.mbarrier_init(bar[0], 1)
        tack.barrier()
        acc = 0.0
        for t in range(NT):
            if tid == 0:
                tack.mbarrier_arrive_tx(bar[0], TILE)
                tack.async_bulk_copy(buf, 0, x, (i - tid) * NT + t * 256, 256, bar[0])
            tack.mbarrier_wait(bar[0], t)  # phase t: its parity alternates
            acc += buf[(tid + shift) % 256]
            tack.barrier()  # every lane is done with the tile before it is refilled
        out[i] = acc


@tack.kernel
def refill_while_reading(x, out, shift):
    for i in range(out.shape[0]):
        buf = tack.shared(tack.f32, 256)
        bar = tack.mbarriers(1)
        tid = tack.thread_id()
        if tid == 0:
            tack.mbarrier_init(bar[0], 1)
        tack.barrier()
        acc = 0.0
        for t in range(NT):
            if tid == 0:
                tack.mbarrier_arrive_tx(bar[0], TILE)
                tack.async_bulk_copy(buf, 0, x, (i - tid) * NT + t * 256, 256, bar[0])  # @1
            tack.mbarrier_wait(bar[0], t)
            acc += buf[(tid + shift) % 256]  # @2
        out[i] = acc


@tack.kernel
def matmul_empty_count(a, b, c):
    for g in range(c.shape[0] * c.shape[1]):
        As = tack.shared(tack.f32, 768)
        Bs = tack.shared(tack.f32, 768)
        full = tack.mbarriers(3)
        empty = tack.mbarriers(3)
        tid = tack.thread_id()
        tile = g // 256
        row0 = (tile // (c.shape[1] // 16)) * 16
        col0 = (tile % (c.shape[1] // 16)) * 16
        r = tid // 16
        q = tid % 16
        ktiles = a.shape[1] // 16
        if tid == 0:
            for s in range(3):
                tack.mbarrier_init(full[s], 1)
                tack.mbarrier_init(empty[s], 128)  # @2
        tack.barrier()
        acc = 0.0
        for t in range(-2, ktiles):
            nxt = t + 2
            if nxt < ktiles:
                s = nxt % 3
                if q == 0:
                    tack.mbarrier_wait(empty[s], nxt // 3 - 1)
                    if r == 0:
                        tack.mbarrier_arrive_tx(full[s], 2048)
                    tack.async_bulk_copy(As, s * 256 + r * 16, a, (row0 + r, nxt * 16), 16,
                                         full[s])
                    tack.async_bulk_copy(Bs, s * 256 + r * 16, b, (nxt * 16 + r, col0), 16,
                                         full[s])
            if t >= 0:
                s = t % 3
                tack.mbarrier_wait(full[s], t // 3)
                base = s * 256
                for k in range(16):
                    acc += As[base + r * 16 + k] * Bs[base + k * 16 + q]
                tack.mbarrier_arrive(empty[s])  # @1
        c[row0 + r, col0 + q] = acc


# The same protocol with tensor copies (tack.async_tensor_copy): workgroup g's 8 × 32 box of a
# (16, 32) array is the 256 elements a bulk copy of the flat array brings, row-major ("none").
@tack.kernel
def box_missing_wait(x, out, shift):
    for i in range(out.shape[0]):
        buf = tack.shared(tack.f32, 256)
        bar = tack.mbarriers(1)
        tid = tack.thread_id()
        if tid == 0:
            tack.mbarrier_init(bar[0], 1)
        tack.barrier()
        if tid == 0:
            tack.mbarrier_arrive_tx(bar[0], TILE)
            tack.async_tensor_copy(buf, 0, x, ((i - tid) // 32, 0), (8, 32), bar[0],  # @2
                                   "none")
        tack.barrier()
        out[i] = buf[(tid + shift) % 256]  # @1


@tack.kernel
def one_box(x, out, shift):
    for i in range(out.shape[0]):
        buf = tack.shared(tack.f32, 256)
        bar = tack.mbarriers(1)
        tid = tack.thread_id()
        if tid == 0:
            tack.mbarrier_init(bar[0], 1)
        tack.barrier()
        if tid == 0:
            tack.mbarrier_arrive_tx(bar[0], TILE)
            tack.async_tensor_copy(buf, 0, x, ((i - tid) // 32, 0), (8, 32), bar[0], "none")
        tack.mbarrier_wait(bar[0], 0)
        out[i] = buf[(tid + shift) % 256]


@tack.kernel
def box_short_byte_count(x, out, shift):
    for i in range(out.shape[0]):
        buf = tack.shared(tack.f32, 256)
        bar = tack.mbarriers(1)
        tid = tack.thread_id()
        if tid == 0:
            tack.mbarrier_init(bar[0], 1)
        tack.barrier()
        if tid == 0:
            tack.mbarrier_arrive_tx(bar[0], 512)  # @2
            tack.async_tensor_copy(buf, 0, x, ((i - tid) // 32, 0), (8, 32), bar[0], "none")
        tack.mbarrier_wait(bar[0], 0)  # @1
        out[i] = buf[(tid + shift) % 256]


@tack.kernel
def box_bytes_never_come(x, out, shift):
    for i in range(out.shape[0]):
        buf = tack.shared(tack.f32, 256)
        bar = tack.mbarriers(1)
        tid = tack.thread_id()
        if tid == 0:
            tack.mbarrier_init(bar[0], 1)  # @2
        tack.barrier()
        if tid == 0:
            tack.mbarrier_arrive_tx(bar[0], 2 * TILE)  # @3
            tack.async_tensor_copy(buf, 0, x, ((i - tid) // 32, 0), (8, 32), bar[0], "none")
        tack.mbarrier_wait(bar[0], 0)  # @1
        out[i] = buf[(tid + shift) % 256]


@tack.kernel
def box_refill_while_reading(x, out, shift):
    for i in range(out.shape[0]):
        buf = tack.shared(tack.f32, 256)
        bar = tack.mbarriers(1)
        tid = tack.thread_id()
        if tid == 0:
            tack.mbarrier_init(bar[0], 1)
        tack.barrier()
        acc = 0.0
        for t in range(NT):
            if tid == 0:
                tack.mbarrier_arrive_tx(bar[0], TILE)
                tack.async_tensor_copy(buf, 0, x, (((i - tid) * NT + t * 256) // 32, 0),  # @1
                                       (8, 32), bar[0], "none")
            tack.mbarrier_wait(bar[0], t)
            acc += buf[(tid + shift) % 256]  # @2
        out[i] = acc


@tack.kernel
def box_loop(x, out, shift):
    for i in range(out.shape[0]):
        buf = tack.shared(tack.f32, 256)
        bar = tack.mbarriers(1)
        tid = tack.thread_id()
        if tid == 0:
            tack.mbarrier_init(bar[0], 1)
        tack.barrier()
        acc = 0.0
        for t in range(NT):
            if tid == 0:
                tack.mbarrier_arrive_tx(bar[0], TILE)
                tack.async_tensor_copy(buf, 0, x, (((i - tid) * NT + t * 256) // 32, 0),
                                       (8, 32), bar[0], "none")
            tack.mbarrier_wait(bar[0], t)
            acc += buf[(tid + shift) % 256]
            tack.barrier()  # every lane is done with the tile before it is refilled
        out[i] = acc


def _x(n):
    return tack.array(np.arange(n, dtype=np.float32) + 1.0)


@dataclass(frozen=True)
class Case:
    """One planted bug: the kind and problem of its finding, both kernels and their arguments
    for a given `shift`."""

    name: str
    problem: str  # a BarrierEvent.what (runtime/sim/trace.py), or "deadlock"
    bug: tack.Kernel
    fixed: tack.Kernel
    args: Callable[[int], tuple]
    kind: str = "pipeline"

    def lines(self) -> tuple[str, set[int]]:
        src, first = inspect.getsourcelines(self.bug.fn)
        marked = {first + k for k, line in enumerate(src) if "# @" in line}
        return inspect.getsourcefile(self.bug.fn), marked


def _one(shift):
    return _x(N), tack.zeros(N), shift


def _tiles(shift):
    return _x(N * NT), tack.zeros(N), shift


def _box(shift):
    return _x(N).reshape(N // 32, 32), tack.zeros(N), shift


def _boxes(shift):
    return _x(N * NT).reshape(N * NT // 32, 32), tack.zeros(N), shift


def _matmul(shift):
    return A.matmul_args(m=16, n=32, k=96, seed=shift)


CASES = (
    Case("use_before_init", "uninitialized", use_before_init, one_tile, _one),
    Case("init_on_every_lane", "reinitialized", init_on_every_lane, one_tile, _one),
    Case("missing_wait", "unwaited", missing_wait, one_tile, _one),
    Case("short_byte_count", "wrong-count", short_byte_count, two_copies, _one),
    Case("arrivals_not_expected", "deadlock", arrivals_not_expected, one_tile, _one, "barrier"),
    Case("same_parity_each_tile", "wrong-parity", same_parity_each_tile, tile_loop, _tiles),
    Case("refill_while_reading", "overwrite", refill_while_reading, tile_loop, _tiles),
    Case("matmul_empty_count", "wrong-count", matmul_empty_count, M.matmul_bulk, _matmul),
    Case("box_missing_wait", "unwaited", box_missing_wait, one_box, _box),
    Case("box_short_byte_count", "wrong-count", box_short_byte_count, one_box, _box),
    Case("box_bytes_never_come", "deadlock", box_bytes_never_come, one_box, _box, "barrier"),
    Case("box_refill_while_reading", "overwrite", box_refill_while_reading, box_loop, _boxes),
)
