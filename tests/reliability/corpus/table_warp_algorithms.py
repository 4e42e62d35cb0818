"""tack.algorithms' warp steps (docs/algorithms.md, "Paths per engine") and `redux.sync`
(docs/language.md, "Warps"): each row is a result that the warp shuffles must give as the
shared-memory steps did, on the simulator (the engine whose warps model CUDA's), at the sizes
where a warp or a workgroup is cut (33, 4097, 20011 elements), against NumPy and Python ints;
the engines that must keep the shared-memory steps; the PTX that must take `redux.sync` and the
PTX that must not; bad input refused before any launch, as before."""
from __future__ import annotations

from .case import Case

_SETUP = '''
from tack import algorithms as A
tack.set_default_device("sim")
rng = np.random.default_rng(7)
def ints(n, dt=np.int32):
    info = np.iinfo(dt)
    return rng.integers(info.min, info.max, n, dtype=dt, endpoint=True)
'''

_PTX = '''
from tack.compiler import specialize
from tack.toolchain.nvptx import compile_ptx
tack.set_default_device("cpu")
@tack.kernel
def red(x, a, b, c, n):
    for i in range(n):
        a[i] = tack.warp_sum(x[i])
        b[i] = tack.warp_min(x[i])
        c[i] = tack.warp_max(x[i])
def ptx(dtype, arch):
    z = [tack.zeros(256, dtype) for _ in range(4)]
    return compile_ptx(specialize(red, [*z, 256]), arch).ptx
'''


def _result(name: str, call: str, check: str, note: str = "", quick: bool = False) -> Case:
    return Case(f"warpalg/{name}", call, None, _SETUP, check=check, note=note, quick=quick)


def _cases() -> list[Case]:
    return [
        _result("sum-of-ints-across-warps",
                "x = ints(4097); got = tack.array(x).sum()",
                "assert got == float(sum(int(v) for v in x)), got",
                "a workgroup's lanes combined by warp butterflies, then the eight warp results",
                quick=True),
        _result("min-max-keep-the-signed-zero",
                "x = np.zeros(33, np.float32); x[20] = -0.0; a = tack.array(x)",
                "assert np.signbit(a.min()) and not np.signbit(a.max())",
                "nan_min/nan_max through shfl_xor: the zero rule holds whichever lane holds it"),
        _result("nan-wins-through-the-butterfly",
                "x = np.ones(20011, np.float32); x[-1] = np.nan; a = tack.array(x)",
                "assert np.isnan(a.min()) and np.isnan(a.max()) and np.isnan(a.sum())"),
        _result("scan-of-ints-two-pass",
                "x = ints(20011); d = tack.zeros(20011, tack.i32); "
                "t = A.inclusive_scan(tack.array(x), d)",
                "assert (d.numpy() == np.cumsum(x, dtype=np.int32)).all() and "
                "t == int(np.sum(x, dtype=np.int32))",
                "tiles' lane totals scanned by warp shuffles (tiles.warp_inclusive)", quick=True),
        _result("scan-of-ints-look-back",
                "x = ints(20011, np.uint32); d = tack.zeros(20011, tack.u32)\n"
                "with A.tuning(scan='look_back'):\n    A.exclusive_scan(tack.array(x), d)",
                "w = np.zeros(20011, np.uint32); w[1:] = np.cumsum(x, dtype=np.uint32)[:-1]; "
                "assert (d.numpy() == w).all()",
                "the look-back's block scan by warp 0 (lookback.warp_pair_scan)"),
        _result("argsort-across-tiles",
                "x = ints(2049); p = A.argsort(tack.array(x))",
                "assert (p.numpy() == np.argsort(x, kind='stable')).all()",
                "the radix ranking's lane totals scanned by warp shuffles", quick=True),
        _result("shared-steps-forced-give-the-same-integers",
                "x = ints(4097); d = tack.zeros(4097, tack.i32)\n"
                "with A.tuning(warps=False):\n    t = A.inclusive_scan(tack.array(x), d); "
                "s = tack.array(x).sum(); p = A.argsort(tack.array(x))",
                "assert (d.numpy() == np.cumsum(x, dtype=np.int32)).all() and "
                "s == float(x.astype(np.int64).sum()) and "
                "(p.numpy() == np.argsort(x, kind='stable')).all()",
                "the Julia engine's steps, run on the simulator"),
        Case("warpalg/julia-keeps-the-shared-memory-steps",
             "caps = [tack.device(a, engine='julia').capabilities.register_warps "
             "for a in ('cpu', 'cuda')]", None, "",
             check="assert caps == [False, False] and "
                   "tack.device('cuda').capabilities.register_warps and "
                   "tack.device('sim').capabilities.register_warps",
             note="Julia's warps are shared-memory exchanges: slower than the steps they would "
                  "replace"),
        Case("warpalg/redux-sync-for-i32-from-sm-80", "text = ptx(tack.i32, 'sm_80')", None,
             _PTX, check="assert 'redux.sync.add.s32' in text and 'redux.sync.min.s32' in text "
                         "and 'shfl.sync' not in text", quick=True),
        Case("warpalg/no-redux-before-sm-80", "text = ptx(tack.u32, 'sm_75')", None, _PTX,
             check="assert 'redux' not in text and 'shfl.sync.bfly' in text",
             note="redux.sync is sm_80 and later: older targets keep the butterfly"),
        Case("warpalg/no-redux-for-floats-or-64-bit", "t = [ptx(d, 'sm_90') for d in "
             "(tack.f32, tack.i64, tack.u16)]", None, _PTX,
             check="assert all('redux' not in x and 'shfl.sync.bfly' in x for x in t)",
             note="no redux.sync form gives the butterfly's bits for them"),
        Case("warpalg/float-keys-refused-before-launch", "A.argsort(tack.zeros(300))",
             "tack.TackTypeError", _SETUP, mentions=("argsort", "keys")),
    ]


CASES = _cases()
