"""Checksum-valid cache entries that Tack did not write for this kernel (tack.call.records, the
CPU loader): a variant or spec record of kernel `k0` re-encoded under `k1`'s key must not make
`k1` run `k0`'s code, a record's `written` flags must not lift the refusal of read-only memory,
and an object whose symbols, sections or relocations point outside themselves is refused before
anything of it runs. Each run is a fresh process over one cache directory."""
from __future__ import annotations

import numpy as np
import pytest

from tests.reliability.corpus import forged_objects as F
from tests.reliability.corpus import forged_records as R

X = np.arange(16, dtype=np.float32)


def test_another_kernels_variant_record_under_this_key_is_refused(tmp_path):
    r = R.variant_of_another_kernel(tmp_path)
    assert r["k1"] == (X * 3).tolist(), "k1 ran k0's code"
    assert r["records"]["variants"] == 0
    assert R.run(tmp_path, "k1")["records"]["variants"] == 1  # the record was written again


def test_another_kernels_spec_record_under_this_key_is_refused(tmp_path):
    r = R.spec_of_another_kernel(tmp_path)
    assert r["k1"] == (X * 3).tolist() and r["records"]["specs"] == 0


def test_forged_written_flags_do_not_lift_the_read_only_refusal(tmp_path):
    r = R.written_flags_cleared(tmp_path)
    assert r["read-only"] == "refused" and r["read-only data"] == [0.0] * 16


# ---- objects whose fields point outside themselves --------------------------------------------
@pytest.mark.parametrize("fault", F.FAULTS)
def test_a_forged_object_is_refused_by_the_loader(fault):
    """The loader (toolchain/elf.py, objload.py) raises LoadError: nothing of the object runs.
    Before, a symbol value past its section was called (SIGSEGV)."""
    from tack.toolchain import objload

    if not objload.supported():
        pytest.skip("ElfImage maps Linux x86-64 objects only")
    obj, symbols = F.sample_object()
    with pytest.raises(objload.LoadError):
        image = objload.ElfImage(F.forge(obj, fault))
        image.check(symbols, symbols[1:])  # (a function, then a data word)


@pytest.mark.parametrize("fault", ["symbol-past-section", "function-as-data"])
def test_a_forged_kernel_object_in_the_cache_is_compiled_again(fault):
    """End to end: the kernel's checksum-valid cpu/ entry forged, a fresh process recompiles
    it (no crash, the right result) and repairs the entry."""
    from tests.reliability.corpus import cache_faults as C

    ctx = C.prepare("kernel", "readwrite")
    try:
        F.apply(ctx, fault)
        C.verify(ctx, C.consume(ctx), "recompiled")
    finally:
        C.cleanup(ctx)
