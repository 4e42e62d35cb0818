"""The 2-D heat equation of heat.py split into row blocks, one per MPI rank, halo rows exchanged
with Sendrecv every step (docs/scale-out.md).

    mpiexec -n 4 python docs/examples/heat_mpi.py --check
    mpiexec -n 2 python docs/examples/heat_mpi.py --arch cuda --size 8192 --steps 200 --baseline

Rank r owns the global rows [lo, hi) and holds rows [lo - 1, hi + 1) clipped to the grid: one
halo row from each neighbour. heat.py's kernel runs unchanged on that block: it writes 0 on the
block's first and last rows, which is the Dirichlet boundary on the first and last rank and a
halo row (replaced by the next exchange) elsewhere, so every owned row is computed exactly as
the single-process run computes it. Each rank runs on `cuda:<local rank>` when GPUs are present
(--arch auto or cuda), else on the CPU.

Halo rows go to MPI without copies: a Tack array is a DLPack producer (on the CPU and on CUDA),
which mpi4py reads directly, and an MPI subarray datatype picks the row. On a GPU that needs a
CUDA-aware MPI (MPIX_Query_cuda_support, or TACK_MPI_CUDA_AWARE=1); without one (or with
--halos staged), the two edge rows are packed by a kernel, staged through the host and unpacked.

--check gathers the field on rank 0 and compares it bit for bit with heat.py's single-process
run of the same grid on the same device; --baseline also times that run and prints the scaling
efficiency t(1 rank) / (ranks * t(ranks)).
"""
from __future__ import annotations

import argparse
import ctypes
import os
import sys
import time

import numpy as np
import tack

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from heat import heat_step, initial  # the shared kernel and initial field

try:
    from mpi4py import MPI
except ImportError:  # pragma: no cover - the message is the point
    sys.exit("heat_mpi.py needs mpi4py and an MPI library: pip install '.[mpi]' in a clone of Tack")


@tack.kernel
def pack_row(u, row, edge):
    """Row `row` of `u` into `edge` (the staged exchange)."""
    for j in range(u.shape[1]):
        edge[j] = u[row, j]


@tack.kernel
def unpack_row(edge, u, row):
    for j in range(u.shape[1]):
        u[row, j] = edge[j]


def rows_of(rank: int, size: int, n: int) -> tuple[int, int]:
    """The global rows [lo, hi) rank `rank` owns: n rows split as evenly as possible."""
    base, extra = divmod(n, size)
    lo = rank * base + min(rank, extra)
    return lo, lo + base + (rank < extra)


def cuda_aware() -> bool:
    """Whether the MPI library reads GPU memory (MPIX_Query_cuda_support, MPICH and Open MPI)."""
    if os.environ.get("TACK_MPI_CUDA_AWARE"):
        return os.environ["TACK_MPI_CUDA_AWARE"] not in ("0", "no")
    try:
        query = ctypes.CDLL(None).MPIX_Query_cuda_support
    except AttributeError:  # the library does not say: assume not
        return False
    query.restype = ctypes.c_int
    return bool(query())


def pick_device(arch: str, comm) -> tack.Device:
    """cuda:<local rank> (modulo the GPUs of the node) when GPUs are present, else the CPU."""
    local = comm.Split_type(MPI.COMM_TYPE_SHARED).rank
    gpus = [d for d in tack.devices() if d.arch == "cuda"] if arch != "cpu" else []
    if arch == "cuda" and not gpus:
        sys.exit("--arch cuda: no CUDA GPU (or cuda-bindings) here")
    dev = gpus[local % len(gpus)] if gpus else tack.device("cpu")
    return tack.set_default_device(dev)


class Block:
    """One rank's rows with their halos, and the exchange with the neighbours."""

    def __init__(self, comm, n: int, u0: np.ndarray, direct: bool):
        self.comm, rank, size = comm, comm.rank, comm.size
        self.lo, self.hi = rows_of(rank, size, n)
        self.first, self.last = max(self.lo - 1, 0), min(self.hi + 1, n)  # held rows
        self.up = rank - 1 if self.lo > 0 else MPI.PROC_NULL
        self.down = rank + 1 if self.hi < n else MPI.PROC_NULL
        self.u = tack.array(u0[self.first:self.last])
        self.v = tack.zeros(self.u.shape)
        rows = self.last - self.first
        self.own = (self.lo - self.first, self.hi - self.first)  # owned rows, locally
        self.direct = direct
        if direct:  # one MPI datatype per row it sends or receives: no copies
            def row(k):
                return MPI.FLOAT.Create_subarray([rows, n], [1, n], [k, 0]).Commit()
            self.types = [row(k) for k in (self.own[0], 0, self.own[1] - 1, rows - 1)]
        else:
            self.e0, self.e1 = tack.zeros(n), tack.zeros(n)

    def step(self) -> None:
        heat_step(self.u, self.v)
        self.u, self.v = self.v, self.u
        self.exchange()

    def exchange(self) -> None:
        """Our first owned row up and our last owned row down; halos back from each side."""
        tack.sync(self.u.device)  # MPI reads the memory now: the kernel must have finished
        if self.direct:
            send_up, recv_up, send_down, recv_down = self.types
            self.comm.Sendrecv([self.u, 1, send_up], self.up, 0, [self.u, 1, recv_down],
                               self.down, 0)
            self.comm.Sendrecv([self.u, 1, send_down], self.down, 1, [self.u, 1, recv_up],
                               self.up, 1)
            return
        u, (top, bottom) = self.u, self.own
        pack_row(u, top, self.e0)
        pack_row(u, bottom - 1, self.e1)
        out0, out1 = self.e0.numpy(), self.e1.numpy()  # staged through the host
        in0, in1 = np.zeros_like(out0), np.zeros_like(out1)
        self.comm.Sendrecv(out0, self.up, 0, in1, self.down, 0)
        self.comm.Sendrecv(out1, self.down, 1, in0, self.up, 1)
        if self.up != MPI.PROC_NULL:
            tack.copyto(self.e0, in0)
            unpack_row(self.e0, u, 0)
        if self.down != MPI.PROC_NULL:
            tack.copyto(self.e1, in1)
            unpack_row(self.e1, u, u.shape[0] - 1)

    def gather(self) -> np.ndarray | None:
        """The whole field on rank 0 (None elsewhere)."""
        mine = np.ascontiguousarray(self.u.numpy()[self.own[0]:self.own[1]])
        parts = self.comm.gather(mine, root=0)
        return np.concatenate(parts) if self.comm.rank == 0 else None


def single(u0: np.ndarray, steps: int) -> tuple[np.ndarray, float]:
    """heat.py's single-process run on this rank's device: the field and seconds per step."""
    u, v = tack.array(u0), tack.zeros(u0.shape)
    heat_step(u, v)  # compile and warm up outside the timing
    u, v = tack.array(u0), tack.zeros(u0.shape)
    tack.sync()
    t = time.perf_counter()
    for _ in range(steps):
        heat_step(u, v)
        u, v = v, u
    tack.sync()
    return u.numpy(), (time.perf_counter() - t) / max(steps, 1)


def run(args) -> int:
    comm = MPI.COMM_WORLD
    dev = pick_device(args.arch, comm)
    direct = {"direct": True, "staged": False}.get(args.halos)
    if direct is None:
        direct = dev.is_host or cuda_aware()
    n = args.size
    if comm.size > n:
        sys.exit(f"{comm.size} ranks need at least as many rows, got --size {n}")
    u0 = initial(n)
    block = Block(comm, n, u0, direct)
    warm = Block(comm, n, u0, direct)
    warm.step()  # compile the kernel on every rank outside the timing
    comm.Barrier()
    t = time.perf_counter()
    for _ in range(args.steps):
        block.step()
    tack.sync()
    comm.Barrier()
    per_step = (time.perf_counter() - t) / max(args.steps, 1)
    field = block.gather()
    ok = True
    if comm.rank == 0:
        how = "direct" if direct else "staged"
        print(f"{comm.size} rank(s) on {dev.name} ({how} halos): {n}x{n}, {args.steps} steps, "
              f"{per_step * 1e3:.3f} ms per step")
        if args.check or args.baseline:
            ref, t1 = single(u0, args.steps)
            if args.check:
                ok = np.array_equal(field, ref)
                print("check: the gathered field equals the single-process run bit for bit"
                      if ok else "check FAILED: the gathered field differs from heat.py's run")
            if args.baseline:
                eff = t1 / (comm.size * per_step)
                print(f"one device: {t1 * 1e3:.3f} ms per step; scaling efficiency {eff:.2f}")
    ok = comm.bcast(ok, root=0)
    return 0 if ok else 1


def cli(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.strip().splitlines()[0])
    ap.add_argument("--arch", default="auto", choices=("auto", "cpu", "cuda"))
    ap.add_argument("--size", type=int, default=None, help="grid side (default 512, 48 checked)")
    ap.add_argument("--steps", type=int, default=None, help="steps (default 100, 40 checked)")
    ap.add_argument("--check", action="store_true", help="compare with heat.py bit for bit")
    ap.add_argument("--baseline", action="store_true", help="time the one-device run too")
    ap.add_argument("--halos", default="auto", choices=("auto", "direct", "staged"),
                    help="auto: direct on the CPU or with a CUDA-aware MPI, else staged")
    args = ap.parse_args(argv)
    args.size = args.size or (48 if args.check else 512)
    args.steps = args.steps if args.steps is not None else (40 if args.check else 100)
    return run(args)


if __name__ == "__main__":
    sys.exit(cli())
