"""The host record (toolchain/llvm_host.py, docs/design/005-disk-cache.md "The host record"): an
entry whose payload has four lines but is not what LLVM reports (random bytes sometimes split
into four non-empty lines) is not taken as the host's target."""
from __future__ import annotations

from tack import cache
from tack.toolchain import llvm_host


def test_four_lines_of_garbage_are_not_host_info(monkeypatch, tmp_path):
    monkeypatch.setenv("TACK_CACHE_DIR", str(tmp_path / "cache"))
    monkeypatch.delenv("TACK_CACHE", raising=False)
    for name, value in (("_host", None), ("_host_key", None), ("_confirmed", False)):
        monkeypatch.setattr(llvm_host, name, value)
    fp = llvm_host.host_fingerprint()
    if fp is None:  # no /proc/cpuinfo: the host info always comes from LLVM
        return
    key = cache.make_key("host", fp)
    assert cache.store("host", key, b"\xe9\x01\n\xff\xfe\x7f\nabc\x00\n\x8f junk")
    info = llvm_host.host_info()
    assert info == llvm_host.live_host_info()  # asked LLVM, and recorded what it said
    monkeypatch.setattr(llvm_host, "_host", None)
    assert llvm_host.host_info() == info
