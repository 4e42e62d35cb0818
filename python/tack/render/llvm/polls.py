"""The CPU engine's renderer: LLVMRenderer plus the Ctrl-C polls that passes/polls.py places.

A kernel with polled loops exports `@tack_sigints_<entry>`, a pointer the engine sets to the
process's SIGINT count once the code is mapped (runtime/cpu/interrupt.py); until then it points
at a constant 0, so such code is still safe to run. The entry takes the launch's count as its
parameter `sig0`, read by whoever started the launch (the C caller, the pool's caller or the
engine) before the launch began: an entry that read the count itself would count a SIGINT that
came between the launch's start and its own as the baseline, and run on to its end. The entry
passes the body three more parameters: where `sig0` is, a flag, and the budget. A poll that
finds the count moved sets the flag and returns from the body; the entry then stops its loop
over t. A poll reads `sig0` and the count from memory, so that they take no register in the
loops around it.

The budget is the work (passes/polls.py: innermost iterations) left until the next poll, one
counter for the whole entry call: every polled loop charges it for the iterations it runs (a
`while` per iteration, a `for` per strip, its iterations times the work of one), the loop over t
charges each index's work, and whoever finds it spent polls and refills it to POLL_WORK. So the
polls come every POLL_WORK or so of work however the work is split, also when each run of a loop
is short (a runtime loop of 45,000 steps per index, under a strip, for a million indices). The
budget is a plain local of the entry (a register once the body is inlined); only the polls
themselves read memory.

A polled `for` is strip-mined: an outer loop takes at most what the budget allows at a time
(at least one iteration) and charges it, polling first when it is spent; the inner loop runs the
strip as the plain loop would (countable, so it still vectorizes), and `break` leaves both. A
polled `for` without polled loops inside is rendered twice: the plain loop, taken when its whole
trip count fits the budget (charged once), and the strips otherwise, out of line (on a CSR row
loop of 1-3 iterations, strips alone made the kernel 1.3-1.8x slower). A polled `while` charges
the budget at the top of each iteration (where `continue` arrives too). A kernel without polled
loops or a polled loop over t renders exactly as LLVMRenderer renders it.
"""
from __future__ import annotations

from llvmlite import ir

from ...ir.nodes import For, KernelIR, While
from ...ir.walk import iter_stmts
from ...passes.polls import LAUNCH, POLL_WORK, poll_plan, sigints_symbol
from .printer import I64, LLVMRenderer, entry_name

I1 = ir.IntType(1)
UNLIKELY = (1, 1 << 20)  # branch weights: taken, not taken


class PollingRenderer(LLVMRenderer):
    """Renders final KernelIR for the CPU engine, with the polls of `poll_plan(kir)`."""

    def render(self, kir: KernelIR) -> str:
        kir = self.rewrite(kir)  # first: the plan is keyed by the statements rendered
        self.polls = poll_plan(kir)
        self._interrupted = self._charge = None
        return super().render(kir)

    def _work(self, key) -> int:
        """The work of one iteration of polled loop `key` (or one launch index), as its strip
        in the plan says it."""
        return max(1, POLL_WORK // self.polls[key])

    def body_param_types(self, kir: KernelIR) -> list[ir.Type]:
        extra = [I64.as_pointer(), I1.as_pointer(), I64.as_pointer()] if self.polls else []
        return super().body_param_types(kir) + extra

    def emit_entry(self, kir: KernelIR, body: ir.Function) -> ir.Function:
        """LLVMRenderer's entry, with the budget, that charges each launch index's work and
        stops once the body was interrupted or a poll of its own finds a SIGINT."""
        if not self.polls:
            return super().emit_entry(kir, body)
        for arg, name in zip(body.args[-3:], ("sig0", "interrupted", "budget")):
            arg.name = name
        fn, b, vals = self.entry_function(kir)
        self._sigints_slot(kir)  # exported: the engine points it at the count
        # sig0 stays in memory (the polls are rare; registers are for the loops they sit in)
        sig0 = b.alloca(I64, name="sig0.slot")
        b.store_atomic(fn.args[3], sig0, "monotonic", 8)
        # an empty asm that takes sig0's address: the slot escapes, so LLVM keeps it in memory
        b.asm(ir.FunctionType(ir.VoidType(), [sig0.type]), "", "r", [sig0], True)
        flag = b.alloca(I1, name="interrupted")
        b.store(ir.Constant(I1, 0), flag)
        budget = b.alloca(I64, name="budget")
        b.store(ir.Constant(I64, POLL_WORK), budget)

        def each(t, args, leave, nxt):
            b.call(body, [t, *args, sig0, flag, budget])
            if any(key != LAUNCH for key in self.polls):  # the body polls: it may have stopped
                go = fn.append_basic_block("body.done")
                b.cbranch(b.load(flag), leave, go).set_weights(UNLIKELY)
                b.position_at_end(go)
            if LAUNCH in self.polls:  # charge the index; poll when the budget is spent
                left = b.sub(b.load(budget), ir.Constant(I64, self._work(LAUNCH)))
                b.store(left, budget)
                poll = fn.append_basic_block("t.poll")
                b.cbranch(b.icmp_signed("<=", left, ir.Constant(I64, 0)), poll, nxt) \
                    .set_weights(UNLIKELY)
                b.position_at_end(poll)
                b.store(ir.Constant(I64, POLL_WORK), budget)
                b.cbranch(self._moved(b, sig0), leave, nxt).set_weights(UNLIKELY)
            else:
                b.branch(nxt)
            b.position_at_end(nxt)
            return nxt

        return self.t_loop(fn, b, vals, each, ("next",))

    def _moved(self, b: ir.IRBuilder, sig0) -> ir.Value:
        """Whether the SIGINT count moved from the launch's `sig0`."""
        count = b.load_atomic(self._sigints_slot(self.kir), "monotonic", 8)
        return b.icmp_unsigned("!=", b.load_atomic(count, "monotonic", 8),
                               b.load_atomic(sig0, "monotonic", 8))

    def _sigints_slot(self, kir: KernelIR) -> ir.GlobalVariable:
        """The exported pointer to the SIGINT count (made on first use)."""
        name = sigints_symbol(entry_name(kir))
        slot = self.module.globals.get(name)
        if slot is None:
            never = ir.GlobalVariable(self.module, I64, f"{entry_name(kir)}.no_sigints")
            never.linkage, never.global_constant = "internal", True
            never.initializer = ir.Constant(I64, 0)
            slot = ir.GlobalVariable(self.module, I64.as_pointer(), name)
            slot.initializer = never
            slot.align = 8
        return slot

    # ---- the polls, in the body ----------------------------------------------------------------
    def poll(self) -> None:
        """If the SIGINT count differs from the launch's baseline: set the flag, return from the
        body. Otherwise go on with a full budget."""
        sig0, flag, budget = self.extra_args
        moved = self._moved(self.b, sig0)
        go = self.block("poll.go")
        if self._interrupted is None:
            self._interrupted = self.block("interrupted")
            with self.b.goto_block(self._interrupted):
                self.b.store(ir.Constant(I1, 1), flag)
                self.b.ret_void()
        self.b.cbranch(moved, self._interrupted, go).set_weights(UNLIKELY)
        self.b.position_at_end(go)
        self.b.store(ir.Constant(I64, POLL_WORK), budget)

    def charge(self, work) -> None:
        """Take `work` (an i64) off the budget; poll first if that would spend it."""
        budget = self.extra_args[2]
        left = self.b.sub(self.b.load(budget), work)
        poll, go = self.block("poll"), self.block("poll.skip")
        self.b.cbranch(self.b.icmp_signed("<=", left, ir.Constant(I64, 0)), poll, go) \
            .set_weights(UNLIKELY)
        self.b.position_at_end(go)
        self.b.store(left, budget)
        after = self.block("poll.done")
        self.b.branch(after)
        self.b.position_at_end(poll)
        self.poll()  # (refills the budget)
        self.b.branch(after)
        self.b.position_at_end(after)

    def while_(self, s: While) -> None:
        if id(s) in self.polls:  # loop_body, called at the top of the body, charges it
            self._charge = ir.Constant(I64, self._work(id(s)))
        super().while_(s)

    def loop_body(self, body, cont: ir.Block, brk: ir.Block) -> None:
        if self._charge is not None:
            work, self._charge = self._charge, None
            self.charge(work)
        super().loop_body(body, cont, brk)

    def for_(self, s: For) -> None:
        """A polled `for`: strips as the budget allows, charged to it (the rest as
        LLVMRenderer.for_: a hidden counter, `stop` evaluated once, `var` set per trip). A loop
        without polled loops inside also has a plain copy, taken when the whole trip count fits
        the budget: a short runtime-bound loop (a CSR row) then pays a division by a constant,
        a compare and the charge."""
        if id(s) not in self.polls:
            return super().for_(s)
        work = self._work(id(s))
        counter, stop, lt = self.for_counter(s)
        end = self.block("for.end")
        if any(id(x) in self.polls for x in iter_stmts(s.body)):  # no copy: it would copy them
            self._strips(s, counter, stop, work, lt, end)
        else:  # stop - i is the trip count, as unsigned; an empty range takes the strips
            plain, strips = self.block("for.plain"), self.block("for.long")
            budget = self.extra_args[2]
            left = _i64(self.b, self.b.sub(stop, self.b.load(counter)))
            room = self.b.load(budget)
            fits = self.b.icmp_unsigned("<=", left, self.b.udiv(room, ir.Constant(I64, work)))
            self.b.cbranch(fits, plain, strips).set_weights((1 << 20, 1))
            self.b.position_at_end(plain)  # (registers go to the plain copy first)
            self.b.store(self.b.sub(room, self.b.mul(left, ir.Constant(I64, work))), budget)
            self.for_trips(s, counter, lambda: stop, lt, end, end)
            self.b.position_at_end(strips)
            self._strips(s, counter, stop, work, lt, end)
        self.b.position_at_end(end)
        return None

    def _strips(self, s: For, counter, stop, work: int, lt, end: ir.Block) -> None:
        """Strips of `s` from `counter` to `stop`, each as long as the budget allows (at least
        one iteration, after a poll if it is spent) and charged to it; then to `end`."""
        budget, w = self.extra_args[2], ir.Constant(I64, work)
        limit = self.alloca(counter.type.pointee, f"{s.var}.strip")
        first, poll, go, more = (self.block(f"for.{n}") for n in ("strip", "poll", "go", "more"))
        self.b.cbranch(lt("<", self.b.load(counter), stop), first, end)
        self.b.position_at_end(more)  # a strip ran to its end: the next, if the loop goes on
        self.b.cbranch(lt("<", self.b.load(counter), stop), first, end)
        self.b.position_at_end(first)
        self.b.cbranch(self.b.icmp_signed("<", self.b.load(budget), w), poll, go) \
            .set_weights(UNLIKELY)
        self.b.position_at_end(poll)
        self.poll()  # (refills the budget: POLL_WORK >= work)
        self.b.branch(go)
        self.b.position_at_end(go)
        room = self.b.load(budget)
        i = self.b.load(counter)
        left = _i64(self.b, self.b.sub(stop, i))  # > 0: i is below stop
        take = self.b.select(self.b.icmp_unsigned("<", left, self.b.udiv(room, w)), left,
                             self.b.udiv(room, w))
        self.b.store(self.b.sub(room, self.b.mul(take, w)), budget)
        self.b.store(self.b.add(i, _narrow(self.b, take, i.type)), limit)  # no wrap: <= stop
        self.for_trips(s, counter, lambda: self.b.load(limit), lt, more, end)


def _i64(b: ir.IRBuilder, v: ir.Value) -> ir.Value:
    """An unsigned count of a loop counter's type as i64."""
    return v if v.type.width == 64 else b.zext(v, I64)


def _narrow(b: ir.IRBuilder, v: ir.Value, ty: ir.IntType) -> ir.Value:
    return v if ty.width == 64 else b.trunc(v, ty)
