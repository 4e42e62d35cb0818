"""The CPU kernel's entry function (LLVMRenderer's part, a mixin like bits.BitRendering)
and its heap frame, where the local arrays that passes/frames.py keeps off the stack live.

CPU entry ABI (what `runtime.cpu.engine` calls; see docs/design/002-cpu-engine.md):

    void @tack_<name>(i64 %t_begin, i64 %t_end, i8* %args, i64 %sig0)

runs the kernel body once for each launch index t in [t_begin, t_end) (`Op.LAUNCH` is t). `args`
points at one 8-byte slot per `KernelIR.params` entry, in order: an array's slot holds its data
pointer; a scalar's slot holds its value as the dtype's C type, stored at the slot's first byte.
`sig0` is the launch's SIGINT count, which a kernel with Ctrl-C polls compares the count with
(render/llvm/polls.py); the others ignore it.

A kernel with large local arrays (passes/frames.py) has a heap frame: the entry allocates it
with `malloc` before its loop over t, passes it to the body as one more parameter, and frees it after the
loop, so one frame serves every iteration of a call on its thread, as a stack frame would. If
`malloc` fails the entry runs no iteration and counts the failure in `@tack_nomem_<entry>`,
which the engine reads after the launch and turns into MemoryError (runtime/cpu/engine.py).
"""
from __future__ import annotations

from llvmlite import ir

from ...ir.nodes import KernelIR
from ...passes.frames import heap_layout, nomem_symbol

I8P = ir.PointerType(ir.IntType(8))
I64 = ir.IntType(64)


def entry_name(kir: KernelIR) -> str:
    return f"tack_{kir.name}"


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


class CPUEntry:
    """LLVMRenderer's CPU entry and heap frame."""

    heap_frames = True  # the CPU entry's; PTX keeps local arrays in local memory

    def emit_entry(self, kir: KernelIR, body: ir.Function) -> ir.Function:
        """CPU ABI: unpack the 8-byte argument slots once, then loop t over [t_begin, t_end)."""
        fn, b, vals = self.entry_function(kir)

        def each(t, args, leave):
            b.call(body, [t, *args])
            return b.block

        return self.t_loop(fn, b, vals, each)

    def t_loop(self, fn: ir.Function, b: ir.IRBuilder, vals: list, each,
               between: tuple = ()) -> ir.Function:
        """The entry's loop over t in [t_begin, t_end), then `ret`: `each(t, args, leave,
        *blocks)` emits one index's work (args: the body's arguments after t; leave: where a
        stop goes; blocks: new blocks named `between`, placed between the loop's and `done`)
        and returns the block it ends in, where t is stepped."""
        begin, end = fn.args[:2]
        loop = fn.append_basic_block("loop")
        blocks = [fn.append_basic_block(n) for n in between]
        done = fn.append_basic_block("done")
        args, way_in, leave = self.open_frame(fn, b, vals, loop, done)
        b.position_at_end(loop)
        t = b.phi(I64, name="t")
        last = each(t, args, leave, *blocks)
        nxt = b.add(t, ir.Constant(I64, 1), name="t.next")
        t.add_incoming(begin, way_in)
        t.add_incoming(nxt, last)
        b.cbranch(b.icmp_signed("<", nxt, end), loop, leave)
        b.position_at_end(done)
        b.ret_void()
        return fn

    def entry_function(self, kir: KernelIR) -> tuple[ir.Function, ir.IRBuilder, list]:
        """The CPU entry function, `void (i64 t_begin, i64 t_end, ptr args, i64 sig0)`, a
        builder in its entry block and the parameters' values. `sig0` is the launch's SIGINT
        count, read by whoever started the launch before anything of it ran (the polls of
        render/llvm/polls.py stop once the count differs; other kernels ignore it)."""
        i8p = ir.PointerType(ir.IntType(8))
        fn = ir.Function(self.module, ir.FunctionType(ir.VoidType(), [I64, I64, i8p, I64]),
                         name=entry_name(kir))
        fn.attributes.add("nounwind")
        begin, end, args, sig0 = fn.args
        begin.name, end.name, args.name, sig0.name = "t_begin", "t_end", "args", "sig0"
        b = ir.IRBuilder(fn.append_basic_block("entry"))
        vals = []
        for j, p in enumerate(kir.params):
            ty = self.param_type(p)
            slot = b.bitcast(b.gep(args, [ir.Constant(I64, 8 * j)]), ir.PointerType(ty))
            vals.append(b.load(slot, name=p.name, align=8))
        return fn, b, vals

    def plan_frame(self, kir: KernelIR) -> None:
        self.heap, self.frame_size = heap_layout(kir) if self.heap_frames else ({}, 0)

    def frame_param(self) -> list:
        """The body's parameter for the frame, if it has one."""
        return [I8P] if self.heap else []

    def bind_frame(self, values, n: int) -> int:
        """Take the frame from the body's parameter `values[n]` if it has one; the index of
        the parameters after it."""
        self.frame = values[n] if self.heap else None
        if self.heap:
            self.frame.name = "frame"
            self.frame.add_attribute("noalias")
        return n + bool(self.heap)

    def heap_array(self, sc) -> ir.Value:
        """A pointer to element 0 of local array `sc`, in the frame."""
        at = self.allocas.gep(self.frame, [ir.Constant(I64, self.heap[sc.name])], inbounds=True)
        return self.allocas.bitcast(at, self.ll_type(sc.dtype).as_pointer(), name=f"{sc.name}.0")

    def open_frame(self, fn: ir.Function, b: ir.IRBuilder, vals: list, loop: ir.Block,
                   done: ir.Block) -> tuple[list, ir.Block, ir.Block]:
        """From the entry block (`b`): go to `loop` if t_begin < t_end, else to `done`, with the
        heap frame allocated on the way in if the kernel has one. Returns the body's arguments
        after t, the block the loop is entered from, and the block it leaves to (which frees
        the frame)."""
        begin, end = fn.args[:2]
        if not self.heap:
            b.cbranch(b.icmp_signed("<", begin, end), loop, done)
            return vals, fn.blocks[0], done
        start = fn.append_basic_block("frame")
        b.cbranch(b.icmp_signed("<", begin, end), start, done)
        b.position_at_end(start)
        heap = HeapFrame(self.module, entry_name(self.kir), self.frame_size)
        frame = heap.open(fn, b, loop, done)
        return vals + [frame], start, heap.close(fn, frame, done)
