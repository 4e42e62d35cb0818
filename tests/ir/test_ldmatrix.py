"""`ldmatrix` against the PTX ISA, without a GPU: the elements each lane receives, modelled here
from the ISA's description of the instruction
(https://docs.nvidia.com/cuda/parallel-thread-execution/#warp-level-matrix-instructions-ldmatrix:
lanes 8j..8j+7 give the addresses of the eight 16-byte rows of matrix j; lane T receives, of
each matrix, row T / 4 and its elements 2 (T % 4) and 2 (T % 4) + 1, or with `.trans` the
elements at rows 2 (T % 4) and 2 (T % 4) + 1 of column T / 4 of the matrix as stored), for the
row addresses ir/mma.py's `LDMATRIX` gives each lane and its register/half order, must be the
elements ir/mma.py's fragment layout (the `mma.sync` tables, which the simulator and the plain
loads follow) puts there, for every lane and element. And the typed IR's address operand of a
fragment load (what the PTX renderer hands `ldmatrix`) is that row for every lane, evaluated by
the IR's own op semantics."""
import pytest
import tack
from tack.compiler import specialize
from tack.ir import nodes as N
from tack.ir.mma import LDMATRIX, LDMATRIX_ALIGN, VARIANTS
from tack.ir.ops import Op
from tack.ir.semantics import evaluate
from tack.ir.walk import iter_stmts
from tack.passes.divisibility import divisor, local_divisors

LANES = range(tack.WARP_SIZE)


def isa_ldmatrix(count: int, trans: bool, rows: dict) -> list:
    """For each lane, its registers, each (low half, high half) as (row, column) of the tile:
    `rows[l]` is the tile position of the first element of the row lane l addresses."""
    out = []
    for t in LANES:
        regs = []
        for j in range(count):
            if trans:  # column t // 4 of the matrix as stored, rows 2 (t % 4) and the next
                halves = [rows[8 * j + 2 * (t % 4) + h] for h in (0, 1)]
                regs.append(tuple((r, c + t // 4) for r, c in halves))
            else:  # row t // 4, elements 2 (t % 4) and the next
                r, c = rows[8 * j + t // 4]
                regs.append(tuple((r, c + 2 * (t % 4) + h) for h in (0, 1)))
        out.append(regs)
    return out


@pytest.mark.parametrize("variant", ["m16n8k16.f16", "m16n8k16.bf16"])
@pytest.mark.parametrize("role", ["a", "b"])
def test_ldmatrix_gives_each_lane_its_fragment(variant, role):
    how = LDMATRIX[role]
    lay = getattr(VARIANTS[variant], role)
    got = isa_ldmatrix(how.count, how.trans, {t: how.row(t) for t in LANES})
    for t in LANES:
        for i in range(lay.size):
            reg, half = how.register(i)
            assert got[t][reg][half] == lay.coords(t, i), (role, t, i)
    # and the instruction's registers hold exactly the fragment: nothing left over
    assert 2 * how.count == lay.size


def test_the_isa_model_is_not_the_layout_under_another_name():
    """The model sees a wrong address rule: rows given in another order, or without .trans."""
    how = LDMATRIX["a"]
    lay = VARIANTS["m16n8k16.f16"].a
    swapped = isa_ldmatrix(4, False, {t: (t % 8 * 2 % 16, 8 * (t // 16)) for t in LANES})
    assert any(swapped[t][0][0] != lay.coords(t, 0) for t in LANES)
    plain = isa_ldmatrix(2, False, {t: LDMATRIX["b"].row(t) for t in LANES})
    b = VARIANTS["m16n8k16.f16"].b
    assert any(plain[t][0][0] != b.coords(t, 0) for t in LANES)
    assert how.register(3) == (1, 1)


@tack.kernel
def staged(A, D, n, row, col):
    for i in range(n):
        As = tack.shared(tack.f16, 64 * 40)
        Bs = tack.shared(tack.f16, 32 * 72)
        t = tack.thread_id()
        As[t] = A[t]
        Bs[t] = A[t]
        tack.barrier()
        a = tack.mma_load_a(As, 16, 8, 40)
        b = tack.mma_load_b(Bs, 16, 24, 72)
        tack.mma_store(tack.mma(a, b, tack.mma_zeros()), D, 0, 0)
        a2 = tack.mma_load_a(As, row, col, 40)  # a column not known to be a multiple of 8
        tack.mma_store(tack.mma(a2, b, tack.mma_zeros()), D, 0, 8)


def _kernel_ir():
    with tack.device("cpu"):  # specialization only
        return specialize(staged, [tack.zeros(256, tack.f16), tack.zeros((16, 16)), 256, 0, 0],
                          library_math=False)


def _lane_values(kir, e: N.Expr, lane: int, defs: dict):
    """The value of integer expression `e` on `lane` of warp 0 (straight-line definitions)."""
    if e.op is Op.CONST:
        return int(e.arg)
    if e.op in (Op.LANE_ID, Op.THREAD_ID, Op.LAUNCH):
        return lane
    if e.op is Op.VAR:
        return _lane_values(kir, defs[e.arg], lane, defs)
    args = [_lane_values(kir, a, lane, defs) for a in e.args]
    v = evaluate(e.op, e.dtype, args, e.args[0].dtype if e.args else None)
    assert v is not None, e
    return v


def test_the_typed_address_operand_is_the_ldmatrix_row():
    kir = _kernel_ir()
    defs = {s.name: s.value for s in iter_stmts(kir.body) if isinstance(s, N.Assign)}
    frags = [x for s in iter_stmts(kir.body) if isinstance(s, N.Assign)
             for x in [s.value] if x.op is Op.FRAGMENT]
    origins = {"As": (16, 8, 40), "Bs": (16, 24, 72)}
    seen = set()
    for f in frags[:12]:  # the first A and B loads: constant origins
        load, row, pos = f.args
        r0, c0, ld = origins[load.arg]
        how = LDMATRIX["a" if f.arg == "mma_load_a" else "b"]
        for lane in LANES:
            r, c = how.row(lane)
            assert _lane_values(kir, row, lane, defs) == (r0 + r) * ld + c0 + c
        seen.add((load.arg, int(pos.arg)))
    assert seen == {("As", i) for i in range(8)} | {("Bs", i) for i in range(4)}


def test_the_alignment_proof():
    """The constant origins' rows are multiples of 8 elements; the runtime column is not
    provably so, and its fragment takes the plain loads."""
    kir = _kernel_ir()
    env = local_divisors(kir)
    frags = [s.value for s in iter_stmts(kir.body) if isinstance(s, N.Assign)
             and s.value.op is Op.FRAGMENT]
    assert len(frags) == 8 + 4 + 8
    assert all(divisor(f.args[1], env) % LDMATRIX_ALIGN == 0 for f in frags[:12])
    assert all(divisor(f.args[1], env) % 2 for f in frags[12:])


def test_the_ptx_loads_the_aligned_fragments_with_ldmatrix():
    """The proven tiles: one `ldmatrix.x4` (A) and one `.x2.trans` (B) for the warp; the tile at
    a runtime column: the lanes' own 2-byte shared loads (8 of them for its A fragment)."""
    import re

    from tack.toolchain.nvptx import compile_ptx

    ptx = compile_ptx(_kernel_ir(), "sm_90").ptx
    assert len(re.findall(r"ldmatrix\.sync\.aligned\.m8n8\.x4\.shared\.b16 ", ptx)) == 1, ptx
    assert len(re.findall(r"ldmatrix\.sync\.aligned\.m8n8\.x2\.trans\.shared\.b16 ", ptx)) == 1
    assert len(re.findall(r"ld\.shared\.(b16|u16)", ptx)) == 8, ptx
    assert len(re.findall(r"mma\.sync", ptx)) == 2
