"""The argument kinds of call/signature.py, written once, give the general path's key and the
prebuilt path's guard: over a table of awkward values, the key follows the documented rules
(docs/language.md, "Kernels and calls", re-stated here as an independent reference), and the
guard built for any one value admits exactly the values of the same key that the general path
would launch unchanged."""
import numpy as np
import pytest
import tack
from tack.call import signature
from tack.devices import default_device


def reference_key(v):
    """The rules as the docs state them; None: no key (the call is not cached)."""
    if isinstance(v, tack.Array):
        return (v.dtype, v.ndim) + (("read-only",) if v.readonly else ())
    if isinstance(v, (bool, np.bool_)):
        return tack.i32
    if isinstance(v, (int, np.integer)):
        i = int(v)
        if -2**31 <= i < 2**31:
            return tack.i32
        if -2**63 <= i < 2**63:
            return tack.i64
        return tack.u64 if 0 <= i < 2**64 else None
    if isinstance(v, (float, np.floating)):
        return "float"
    return None


def values():
    ro = np.zeros(3, np.float32)
    ro.flags.writeable = False
    out = [0, 1, -1, 2**31 - 1, 2**31, -2**31, -2**31 - 1, 2**63 - 1, 2**63, 2**64 - 1, 2**64,
           -2**63 - 1, True, False, np.int8(-3), np.int32(7), np.int64(2**40), np.uint32(2**32 - 1),
           np.uint64(2**64 - 1), np.bool_(True), 0.5, float("nan"), float("-inf"),
           np.float32(1.5), np.float64(-2.5), tack.zeros(3), tack.zeros(3, tack.f64),
           tack.zeros((2, 5), tack.i32), tack.zeros(1, tack.u8), tack.from_dlpack(ro),
           tack.empty(3), "text", None, [1.0], np.zeros(2, np.float32)]
    return out


def test_the_key_follows_the_documented_rules():
    for v in values():
        assert signature.key((v,)) == (None if reference_key(v) is None else
                                       (reference_key(v),)), repr(v)
    assert signature.key(values()) is None  # one argument without a key: no key at all


def test_a_guard_admits_exactly_the_values_of_its_key():
    dev = default_device()
    vals = values()
    for a in vals:
        if reference_key(a) is None:
            continue
        env = {"dev": dev}
        cond, launch = signature.guard("v", a, 0, env, pointers=True)
        holds = eval(f"lambda v: {cond}", env)  # the generated path's own text
        for b in vals:
            warm = not isinstance(b, tack.Array) or (b._device is dev and not b._unwritten)
            want = reference_key(b) == reference_key(a) and reference_key(b) is not None and warm
            assert bool(holds(b)) == want, (a, b, cond)
        assert launch == ("v._ptr" if isinstance(a, tack.Array) else "v")


@tack.kernel
def scale(out, x, a):
    for i in range(out.shape[0]):
        out[i] = x[i] * a


@pytest.mark.parametrize("a", [2, 2.0, np.float32(2), np.int64(2), True, 2**40])
def test_warm_calls_with_each_scalar_kind_agree_with_numpy(a):
    x = tack.array(np.arange(7, dtype=np.float32))
    out = tack.zeros(7)
    for b in (a, 3, 0.5, a):  # the prebuilt path of `a`'s variant meets the other kinds
        for _ in range(3):
            scale(out, x, b)
        np.testing.assert_allclose(out.numpy(), np.arange(7) * float(b), rtol=1e-6)
