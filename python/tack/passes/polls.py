"""Which loops of a CPU kernel poll for Ctrl-C, and how often: a launch index whose loop runs for
minutes would otherwise hold its native call (and the pool's chunk) until it ends.

A polled loop reads the process's SIGINT count every `strip` iterations and the launch index
returns when it moved (render/llvm/polls.py lowers it; runtime/cpu/interrupt.py says what the
call then raises). Work is counted in iterations of innermost bodies: a loop's work is its trip
count times its body's work, and a body's work is 1 plus the work of the loops in it. A loop is
polled unless its trip count is a compile-time constant and its whole work is at most
POLL_WORK, so short loops (a 3x3 stencil, a vector's components) keep exactly their code; a
polled loop polls every POLL_WORK // body-work iterations, so about POLL_WORK iterations of
innermost bodies run between two polls of a nest. A `while` never has a known trip count; a
`for` with `tack.unroll("full")` is never polled (full unrolling needs the plain loop).

The polls of one entry call share one budget of work (render/llvm/polls.py): each polled loop
charges it for the iterations it runs, the launch loop (the entry's loop over t, key LAUNCH)
for each index's work, and a poll comes whenever it is spent. A strip alone would not do: the
strip of a loop starts again at each run, so a runtime loop of 45,000 steps per index (under its
strip of 65,536) never polled at all over a million indices. The launch loop of a kernel
without polled loops is charged too when its body does at least LAUNCH_WORK per index (a
constant loop of a few thousand iterations would otherwise run unpolled for the whole serial
launch); a lighter body keeps the plain loop, which vectorizes, and its launches stop between
chunks.
"""
from __future__ import annotations

from ..ir import nodes as N
from ..ir.nodes import KernelIR
from ..ir.ops import Op
from ..ir.walk import blocks

POLL_WORK = 1 << 16  # innermost iterations between polls: well under 10 ms of work, most often
LAUNCH_WORK = 256  # a body that does this much work per launch index gets a polled launch loop
LAUNCH = 0  # the launch loop's key in a plan (no statement has id 0)


def sigints_symbol(entry: str) -> str:
    """The pointer to the SIGINT count that the object code of a kernel with polls exports
    (under its entry's name): the engine sets it once the code is mapped."""
    return f"tack_sigints_{entry}"


def poll_plan(kir: KernelIR) -> dict[int, int]:
    """id(loop statement) -> its strip (iterations between two polls) for every polled loop of
    `kir`'s body, and LAUNCH -> the launch loop's strip where it polls; empty when the kernel
    has no polled loop (its code is then the same as without polls)."""
    plan: dict[int, int] = {}
    work = _work(kir.body, plan)
    if plan or work >= LAUNCH_WORK:
        plan[LAUNCH] = max(1, POLL_WORK // work)
    return plan


def _trip(s: N.For) -> int | None:
    """The trip count of a final-IR `for` (unit step), if both bounds are constants."""
    if s.start.op is Op.CONST and s.stop.op is Op.CONST:
        return max(0, int(s.stop.arg) - int(s.start.arg))
    return None


def _work(body: list[N.Stmt], plan: dict[int, int]) -> int:
    """The work of one pass through `body` (capped at POLL_WORK + 1), recording the polled loops
    inside it. A loop of unknown trip count adds one pass through its body: it charges the
    budget for the rest itself."""
    total = 1
    for s in body:
        if isinstance(s, (N.For, N.While)):
            inner = _work(s.body, plan)
            trip = _trip(s) if isinstance(s, N.For) else None
            if isinstance(s, N.For) and s.unroll == "full":
                trip = trip if trip is not None else 1
            elif trip is None or trip * inner > POLL_WORK:
                plan[id(s)] = max(1, POLL_WORK // inner)
            total += inner if trip is None else trip * inner
        elif s.BLOCKS:  # an If: its longer arm counts
            total += max(_work(b, plan) - 1 for b in blocks(s))
        total = min(total, POLL_WORK + 1)  # (the later statements' loops still get planned)
    return total
