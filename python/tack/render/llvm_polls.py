"""The CPU engine's renderer: LLVMRenderer plus the Ctrl-C polls that passes/polls.py places.

A kernel with polled loops exports `@tack_sigints_<entry>`, a pointer the engine sets to the
process's SIGINT count once the code is mapped (runtime/cpu_interrupt.py); until then it points
at a constant 0, so such code is still safe to run. The entry reads the count once (`sig0`) and
passes the body two more parameters: where `sig0` is and a flag. A poll that finds the count
moved sets the flag and returns from the body; the entry then stops its loop over t. A poll
reads all three from memory, so that they take no register in the loops around it.

A polled `for` is strip-mined: an outer loop takes `strip` iterations at a time and polls
between two strips, the inner loop runs them as the plain loop would (countable, so it still
vectorizes), and `break` leaves both. A polled `for` without polled loops inside is rendered
twice: the plain loop for a trip count that fits one strip, the strips otherwise, out of line
(on a CSR row loop of 1-3 iterations, strips alone made the kernel 1.3-1.8x slower). A polled `while` counts down from `strip` at the top of
each iteration (where `continue` arrives too) and polls when the count reaches 0. A kernel
without polled loops renders exactly as LLVMRenderer renders it.
"""
from __future__ import annotations

from llvmlite import ir

from ..ir.nodes import For, KernelIR, While
from ..ir.walk import iter_stmts
from ..passes.polls import LAUNCH, poll_plan, sigints_symbol
from .llvm import I64, LLVMRenderer, entry_name
from .llvm_support import loop_id

I1 = ir.IntType(1)
UNLIKELY = (1, 1 << 20)  # branch weights: taken, not taken


class PollingRenderer(LLVMRenderer):
    """Renders final KernelIR for the CPU engine, with the polls of `poll_plan(kir)`."""

    def render(self, kir: KernelIR) -> str:
        self.polls = poll_plan(kir)
        self._interrupted = self._countdown = None
        return super().render(kir)

    def body_param_types(self, kir: KernelIR) -> list[ir.Type]:
        extra = [I64.as_pointer(), I1.as_pointer()] if self.polls else []
        return super().body_param_types(kir) + extra

    def emit_entry(self, kir: KernelIR, body: ir.Function) -> ir.Function:
        """LLVMRenderer's entry, whose loop over t polls every `plan[LAUNCH]` indices and stops
        once the body was interrupted."""
        if not self.polls:
            return super().emit_entry(kir, body)
        for arg, name in zip(body.args[-2:], ("sig0", "interrupted")):
            arg.name = name
        fn, b, vals = self.entry_function(kir)
        begin, end, _ = fn.args
        # sig0 stays in memory (the polls are rare; registers are for the loops they sit in)
        sig0 = b.alloca(I64, name="sig0")
        now = b.load_atomic(b.load(self._sigints_slot(kir), align=8), "monotonic", 8)
        b.store_atomic(now, sig0, "monotonic", 8)
        # an empty asm that takes sig0's address: the slot escapes, so LLVM keeps it in memory
        b.asm(ir.FunctionType(ir.VoidType(), [sig0.type]), "", "r", [sig0], True)
        flag = b.alloca(I1, name="interrupted")
        b.store(ir.Constant(I1, 0), flag)
        strip = self.polls.get(LAUNCH, 0)
        countdown = b.alloca(I64, name="t.countdown")
        b.store(ir.Constant(I64, strip), countdown)
        loop, nxt, done = (fn.append_basic_block(n) for n in ("loop", "next", "done"))
        vals, way_in, leave = self.open_frame(fn, b, vals, loop, done)
        b.position_at_end(loop)
        t = b.phi(I64, name="t")
        b.call(body, [t, *vals, sig0, flag])
        if any(key != LAUNCH for key in self.polls):  # the body polls: it may have stopped
            go = fn.append_basic_block("body.done")
            b.cbranch(b.load(flag), leave, go).set_weights(UNLIKELY)
            b.position_at_end(go)
        if strip:  # every `strip` indices: stop if the SIGINT count moved
            left = b.sub(b.load(countdown), ir.Constant(I64, 1))
            b.store(left, countdown)
            poll = fn.append_basic_block("t.poll")
            br = b.cbranch(b.icmp_signed("==", left, ir.Constant(I64, 0)), poll, nxt)
            if strip > 1:
                br.set_weights(UNLIKELY)
            b.position_at_end(poll)
            b.store(ir.Constant(I64, strip), countdown)
            count = b.load_atomic(self._sigints_slot(kir), "monotonic", 8)
            moved = b.icmp_unsigned("!=", b.load_atomic(count, "monotonic", 8),
                                    b.load_atomic(sig0, "monotonic", 8))
            b.cbranch(moved, leave, nxt).set_weights(UNLIKELY)
        else:
            b.branch(nxt)
        b.position_at_end(nxt)
        t1 = b.add(t, ir.Constant(I64, 1), name="t.next")
        t.add_incoming(begin, way_in)
        t.add_incoming(t1, nxt)
        b.cbranch(b.icmp_signed("<", t1, end), loop, leave)
        b.position_at_end(done)
        b.ret_void()
        return fn

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
        """If the SIGINT count moved since the entry began: set the flag, return from the body."""
        sig0, flag = self.extra_args
        count = self.b.load_atomic(self._sigints_slot(self.kir), "monotonic", 8)
        now = self.b.load_atomic(count, "monotonic", 8)
        moved = self.b.icmp_unsigned("!=", now, self.b.load_atomic(sig0, "monotonic", 8))
        go = self.block("poll.go")
        if self._interrupted is None:
            self._interrupted = self.block("interrupted")
            with self.b.goto_block(self._interrupted):
                self.b.store(ir.Constant(I1, 1), flag)
                self.b.ret_void()
        self.b.cbranch(moved, self._interrupted, go).set_weights(UNLIKELY)
        self.b.position_at_end(go)

    def while_(self, s: While) -> None:
        strip = self.polls.get(id(s))
        if strip is not None:  # loop_body, called at the top of the body, counts down
            counter = self.alloca(I64, "poll.countdown")
            self.b.store(ir.Constant(I64, strip), counter)
            self._countdown = (counter, strip)
        super().while_(s)

    def loop_body(self, body, cont: ir.Block, brk: ir.Block) -> None:
        if self._countdown is not None:
            (counter, strip), self._countdown = self._countdown, None
            left = self.b.sub(self.b.load(counter), ir.Constant(I64, 1))
            self.b.store(left, counter)
            poll, go = self.block("poll"), self.block("poll.skip")
            self.b.cbranch(self.b.icmp_signed("==", left, ir.Constant(I64, 0)), poll, go) \
                .set_weights(UNLIKELY)
            self.b.position_at_end(poll)
            self.b.store(ir.Constant(I64, strip), counter)
            self.poll()
            self.b.branch(go)
            self.b.position_at_end(go)
        super().loop_body(body, cont, brk)

    def for_(self, s: For) -> None:
        """A polled `for`: strips of at most `strip` iterations with a poll between two (the
        rest as LLVMRenderer.for_: a hidden counter, `stop` evaluated once, `var` set per trip).
        A loop without polled loops inside also has a plain copy, taken when the trip count
        fits one strip: a short runtime-bound loop (a CSR row) then pays a compare or two."""
        strip = self.polls.get(id(s))
        if strip is None:
            return super().for_(s)
        dt = self.kir.locals[s.var]
        ty = self.ll_type(dt)
        strip = ir.Constant(ty, min(strip, (1 << (ty.width - 1)) - 1))
        counter = self.alloca(ty, f"{s.var}.i")
        self.b.store(self.expr(s.start), counter)
        stop = self.expr(s.stop)  # evaluated once, at entry
        lt = (self.b.icmp_signed if dt.is_signed else self.b.icmp_unsigned)
        end = self.block("for.end")
        if any(id(x) in self.polls for x in iter_stmts(s.body)):  # no copy: it would copy them
            self._strips(s, counter, stop, strip, lt, end)
        else:  # stop - i is the trip count, as unsigned; an empty loop takes the strips too
            plain, strips = self.block("for.plain"), self.block("for.long")
            left = self.b.sub(stop, self.b.load(counter))
            self.b.cbranch(self.b.icmp_unsigned(">", left, strip), strips, plain) \
                .set_weights(UNLIKELY)  # so registers go to the plain copy first
            self.b.position_at_end(plain)
            self._trips(s, counter, lambda: stop, lt, end, end)
            self.b.position_at_end(strips)
            self._strips(s, counter, stop, strip, lt, end)
        self.b.position_at_end(end)
        return None

    def _strips(self, s: For, counter, stop, strip, lt, end: ir.Block) -> None:
        """Strips of `s` from `counter` to `stop`, a poll between two; then to `end`."""
        ty = strip.type
        limit = self.alloca(ty, f"{s.var}.strip")
        more, poll, first = (self.block(f"for.{n}") for n in ("more", "poll", "strip"))
        self.b.cbranch(lt("<", self.b.load(counter), stop), first, end)
        self.b.position_at_end(more)  # a strip ran to its end: poll if the loop goes on
        self.b.cbranch(lt("<", self.b.load(counter), stop), poll, end)
        self.b.position_at_end(poll)
        self.poll()
        self.b.branch(first)
        self.b.position_at_end(first)
        i = self.b.load(counter)
        left = self.b.sub(stop, i)  # > 0, and i + strip cannot wrap when it is below stop
        self.b.store(self.b.select(self.b.icmp_unsigned(">", left, strip),
                                   self.b.add(i, strip), stop), limit)
        self._trips(s, counter, lambda: self.b.load(limit), lt, more, end)

    def _trips(self, s: For, counter, bound, lt, done: ir.Block, end: ir.Block) -> None:
        """The plain loop of `s` while `counter` < bound() (then to `done`; `break`: to `end`)."""
        head, body, latch = (self.block(f"for.{n}") for n in ("cond", "body", "inc"))
        self.b.branch(head)
        self.b.position_at_end(head)
        i = self.b.load(counter)
        self.b.cbranch(lt("<", i, bound()), body, done)
        self.b.position_at_end(body)
        self.b.store(i, self.slots[s.var])
        self.loop_body(s.body, latch, end)
        self.b.position_at_end(latch)
        i = self.b.load(counter)
        self.b.store(self.b.add(i, ir.Constant(i.type, 1)), counter)
        backedge = self.b.branch(head)
        if s.unroll is not None:  # LLVM reads a loop's hints from its latch's terminator
            backedge.set_metadata("llvm.loop", loop_id(self.module, s.unroll))
