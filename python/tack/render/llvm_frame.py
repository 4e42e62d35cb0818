"""The heap frame of a CPU kernel's entry: where the local arrays that passes/frames.py keeps off
the stack live.

The entry (`void @tack_<name>(i64 begin, i64 end, ptr args)`) allocates the frame with `malloc`
before its loop over t, passes it to the body as one more parameter, and frees it after the
loop, so one frame serves every iteration of a call on its thread, as a stack frame would. If
`malloc` fails the entry runs no iteration and counts the failure in `@tack_nomem_<entry>`,
which the engine reads after the launch and turns into MemoryError (runtime/cpu.py).
"""
from __future__ import annotations

from llvmlite import ir

from ..passes.frames import nomem_symbol

I8P = ir.PointerType(ir.IntType(8))
I64 = ir.IntType(64)


class HeapFrame:
    """The heap frame's code in one entry function (`fn`) of module `module`."""

    def __init__(self, module: ir.Module, entry: str, size: int):
        self.module, self.size = module, size
        self.nomem = module.globals.get(nomem_symbol(entry))
        if self.nomem is None:
            self.nomem = ir.GlobalVariable(module, I64, nomem_symbol(entry))
            self.nomem.initializer = ir.Constant(I64, 0)
            self.nomem.align = 8
        self.malloc = _declare(module, "malloc", I8P, [I64])
        self.free = _declare(module, "free", ir.VoidType(), [I8P])

    def open(self, fn: ir.Function, b: ir.IRBuilder, loop: ir.Block, out: ir.Block):
        """At `b` (the way into the loop over t): allocate the frame, then go to `loop`, or
        count the failure and go to `out`. Returns the frame pointer."""
        frame = b.call(self.malloc, [ir.Constant(I64, self.size)], name="frame")
        failed = fn.append_basic_block("nomem")
        b.cbranch(b.icmp_unsigned("==", frame, ir.Constant(I8P, None)), failed, loop) \
            .set_weights((1, 1 << 20))
        with b.goto_block(failed):
            b.atomic_rmw("add", self.nomem, ir.Constant(I64, 1), "monotonic")
            b.branch(out)
        return frame

    def close(self, fn: ir.Function, frame, out: ir.Block) -> ir.Block:
        """A block that frees the frame and goes to `out`: where the loop over t exits."""
        leave = fn.append_basic_block("frame.free")
        b = ir.IRBuilder(leave)
        b.call(self.free, [frame])
        b.branch(out)
        return leave


def _declare(module: ir.Module, name: str, ret: ir.Type, args: list) -> ir.Function:
    fn = module.globals.get(name)
    if fn is None:
        fn = ir.Function(module, ir.FunctionType(ret, args), name=name)
        fn.attributes.add("nounwind")
    return fn
