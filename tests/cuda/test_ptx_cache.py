"""The CUDA engine keeps PTX in the disk cache (no GPU needed: only the compile path runs)."""
import pytest
import tack
from tack.compiler import specialize
from tack.runtime.cuda import cache as tc


@tack.kernel
def scale(x, out, a):
    for i in range(x.shape[0]):
        out[i] = x[i] * a + 1.0


def test_second_compile_is_a_cache_hit(monkeypatch, tmp_path):
    monkeypatch.setenv("TACK_CACHE_DIR", str(tmp_path))
    kir = specialize(scale, (tack.zeros(4), tack.zeros(4), 2.0))
    first = tc.cached_ptx(kir, "sm_90")
    assert ".visible .entry" in first.ptx

    def no_compile(*a, **k):
        raise AssertionError("compiled again instead of loading the cached PTX")

    monkeypatch.setattr(tc, "compile_ptx", no_compile)
    again = tc.cached_ptx(specialize(scale, (tack.zeros(9), tack.zeros(9), 3.0)), "sm_90")
    assert again.ptx == first.ptx and again.name == first.name
    assert again.per_thread == first.per_thread
    with pytest.raises(AssertionError):  # another target is another entry
        tc.cached_ptx(kir, "sm_80")
    monkeypatch.setenv("TACK_CACHE", "off")
    with pytest.raises(AssertionError):  # TACK_CACHE=off compiles
        tc.cached_ptx(kir, "sm_90")
