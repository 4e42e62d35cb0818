"""Typing rules of the transaction barriers and bulk copies (`tack.mbarrier_init`,
`tack.mbarrier_arrive`, `tack.mbarrier_arrive_tx`, `tack.mbarrier_wait`,
`tack.async_bulk_copy`, `tack.async_tensor_copy`): ir/ops.py, "Transaction barriers", gives
their meaning (ir/tma.py the tensor copies' limits);
docs/pipelines.md walks through a kernel that uses them.

The limits are PTX's (https://docs.nvidia.com/cuda/parallel-thread-execution/
#parallel-synchronization-and-communication-instructions-mbarrier-contents): an expected arrival
count in [1, 2^20 - 1], a transaction count of at most 2^20 - 1 bytes, and a bulk copy of a
multiple of 16 bytes (#data-movement-and-conversion-instructions-cp-async-bulk). A literal
outside them is refused here; a value known only at run time, where it runs (the simulator
raises; tack.check reports)."""
from __future__ import annotations

from ... import dtypes as dt
from ...errors import TackValueError
from ...ir import tma
from ...ir.nodes import Expr, KernelIR
from ...ir.ops import Op
from ...ir.walk import iter_stmts, stmt_exprs
from ...passes import divisibility

MAX_COUNT = (1 << 20) - 1  # the largest expected arrival count and transaction count
BULK_BYTES = 16  # a bulk copy's size and both its addresses are multiples of this


class MbarrierRules:
    def barrier_index(self, name: str, index, e) -> Expr:
        """The i64 index of barrier `name[index]`, `name` a tack.mbarriers array."""
        sc = self.scratch_array(name, e)
        if not sc.barriers:
            raise self.type_error(e, f"tack.{e.op.name.lower()}() on '{name}', a "
                                     f"{'tack.shared' if sc.space == 'shared' else 'local'} "
                                     "array of data, not of barriers",
                                  f"declare the barriers with {name}_bars = tack.mbarriers(n)")
        return self.coerce(self.integer(self.expr(index), "a barrier index"), dt.i64)

    def _i32_operand(self, e, x, what: str, lo: int, hint: str) -> Expr:
        v = self.coerce(self.integer(self.expr(x), what), dt.i32)
        if v.op is Op.CONST and not lo <= v.arg <= MAX_COUNT:
            raise TackValueError.at(
                v.loc, self.message(v.loc, f"tack.{e.op.name.lower()}() with {what} {v.arg}: "
                                           f"it is in [{lo}, {MAX_COUNT}] (PTX's mbarrier "
                                           "limits)"), hint)
        return v

    def mbarrier_init(self, e: Expr) -> Expr:
        i = self.barrier_index(e.arg, e.args[0], e)
        count = self._i32_operand(e, e.args[1], "the expected arrival count", 1,
                                  "count the arrivals of one phase: the lanes that call "
                                  "tack.mbarrier_arrive or tack.mbarrier_arrive_tx on it")
        return Expr(Op.MBARRIER_INIT, dt.i32, (i, count), e.arg, e.loc)

    def mbarrier_arrive(self, e: Expr) -> Expr:
        return Expr(Op.MBARRIER_ARRIVE, dt.i32, (self.barrier_index(e.arg, e.args[0], e),),
                    e.arg, e.loc)

    def mbarrier_arrive_tx(self, e: Expr) -> Expr:
        i = self.barrier_index(e.arg, e.args[0], e)
        nbytes = self._i32_operand(e, e.args[1], "a transaction byte count", 0,
                                   "expect the bytes of the bulk copies that complete on this "
                                   "phase (count elements × element size each)")
        return Expr(Op.MBARRIER_ARRIVE_TX, dt.i32, (i, nbytes), e.arg, e.loc)

    def mbarrier_wait(self, e: Expr) -> Expr:
        """`phase` may be the phase number or its parity: only `phase & 1` reaches the
        hardware (PTX's try_wait.parity)."""
        i = self.barrier_index(e.arg, e.args[0], e)
        phase = self.coerce(self.integer(self.expr(e.args[1]), "the phase"), dt.i32)
        return Expr(Op.MBARRIER_WAIT, dt.i32, (i, phase), e.arg, e.loc)

    def async_bulk_copy(self, e: Expr) -> Expr:
        """Into a shared data array from an array parameter of one scalar dtype; `count`
        elements make a positive multiple of 16 bytes."""
        dst, src, count, bar = e.arg
        sc = self.scratch_array(dst, e)
        if sc.space != "shared":
            raise self.type_error(e, f"async_bulk_copy() into the local array '{dst}'",
                                  "bulk copies fill tack.shared arrays")
        spec = self._array(src, e)
        if not isinstance(spec.dtype, dt.DType) or spec.dtype is not sc.dtype:
            raise self.type_error(e, f"async_bulk_copy() from '{src}' ({spec.dtype!r} elements) "
                                     f"into '{dst}' ({sc.dtype.name} elements): the copy moves "
                                     "bits, so both arrays hold one dtype",
                                  f"declare '{dst}' with tack.shared_like({src}, size)")
        size = count * sc.dtype.itemsize
        if count < 1 or size % BULK_BYTES:
            step = max(1, BULK_BYTES // sc.dtype.itemsize)
            raise TackValueError.at(
                e.loc, self.message(e.loc, f"async_bulk_copy() of {count} {sc.dtype.name} "
                                           f"element(s) moves {size} bytes: a bulk copy moves "
                                           "a positive multiple of 16 bytes"),
                f"copy a multiple of {step} {sc.dtype.name} elements ({step}, {2 * step}, ...)")
        if size > MAX_COUNT:
            raise TackValueError.at(
                e.loc, self.message(e.loc, f"async_bulk_copy() of {size} bytes: a barrier's "
                                           f"transaction count holds at most {MAX_COUNT}"),
                "split the copy in several")
        j = self.scratch_index(dst, e.args[:1], e)
        i = self.indices(src, spec, e.args[1:-1], e)
        b = self.barrier_index(bar, e.args[-1], e)
        return Expr(Op.ASYNC_BULK_COPY, dt.i32, j + i + (b,), e.arg, e.loc)

    def copy_operands(self, e: Expr, what: str):
        """(shared array, source spec) of a copy into a shared data array from an array
        parameter of the same scalar dtype."""
        dst, src = e.arg[:2]
        sc = self.scratch_array(dst, e)
        if sc.space != "shared":
            raise self.type_error(e, f"{what}() into the local array '{dst}'",
                                  f"{what} fills tack.shared arrays")
        spec = self._array(src, e)
        if not isinstance(spec.dtype, dt.DType) or spec.dtype is not sc.dtype:
            raise self.type_error(e, f"{what}() from '{src}' ({spec.dtype!r} elements) "
                                     f"into '{dst}' ({sc.dtype.name} elements): the copy moves "
                                     "bits, so both arrays hold one dtype",
                                  f"declare '{dst}' with tack.shared_like({src}, size)")
        return sc, spec

    def async_tensor_copy(self, e: Expr) -> Expr:
        """A box of a 2-D array parameter into a shared data array of its dtype, within
        the tensor map's limits (ir/tma.py). Both extents of the array are baked into the
        specialization: the engine encodes the map from them before the launch."""
        dst, src, (rows, cols, layout), bar = e.arg
        sc, spec = self.copy_operands(e, "async_tensor_copy")
        item = sc.dtype.itemsize
        why = tma.box_problem(layout, item, rows, cols) or tma.array_problem(item, spec.shape)
        if why is not None:
            raise TackValueError.at(
                e.loc, self.message(e.loc, f"async_tensor_copy() of a {rows} × {cols} box of "
                                           f"'{src}' into '{dst}': {why}"),
                "a tensor copy moves a box of a 2-D array whose rows are a multiple of 16 "
                "bytes: rows of 128 bytes in the swizzle128 layout (docs/language.md, "
                "\"Transaction barriers\")")
        if rows * cols * item > MAX_COUNT:
            raise TackValueError.at(
                e.loc, self.message(e.loc, f"async_tensor_copy() of {rows * cols * item} "
                                           f"bytes: a barrier's transaction count holds at "
                                           f"most {MAX_COUNT}"), "copy a smaller box")
        self.baked.setdefault(src, set()).update((0, 1))
        j = self.scratch_index(dst, e.args[:1], e)
        at = tuple(self.coerce(self.integer(self.expr(x), "a box coordinate"), dt.i64)
                   for x in e.args[1:3])
        b = self.barrier_index(bar, e.args[-1], e)
        return Expr(Op.ASYNC_TENSOR_COPY, dt.i32, (self.coerce(j[0], dt.i64),) + at + (b,),
                    e.arg, e.loc)

    def tensor_copy_columns(self, k: KernelIR) -> None:
        """Every tensor copy's first column provably a multiple of 16 bytes (ir/tma.py,
        `COLUMN_BYTES`: a GPU stops a copy from any other column), by what
        passes/divisibility.py proves of the whole typed kernel: a constant, a multiple of a
        constant (`k * 8`, `(c // 8) * 8`), a local only ever assigned such values."""
        copies = [x for st in iter_stmts(k.body) for x in stmt_exprs(st)
                  if x.op is Op.ASYNC_TENSOR_COPY]
        if not copies:
            return
        env = divisibility.local_divisors(k)
        for x in copies:
            src = x.arg[1]
            item = k.param(src).dtype.itemsize
            need = max(tma.COLUMN_BYTES // item, 1)  # in elements
            col = x.args[2]
            if divisibility.divisor(col, env) % need:
                loc = col.loc or x.loc
                raise TackValueError.at(
                    loc, self.message(loc, f"async_tensor_copy() of '{src}' from a column not "
                                           f"known to be a multiple of {need} elements "
                                           f"({tma.COLUMN_BYTES} bytes of "
                                           f"{k.param(src).dtype.name})"),
                    f"a tensor copy's box starts at a {tma.COLUMN_BYTES}-byte boundary of its "
                    f"row (a GPU stops a copy from anywhere else): write the column as a "
                    f"multiple of {need}, e.g. c * {need} or (c // {need}) * {need}")
