"""Fixtures of the execution tests: a private disk-cache directory (tests/exec/disk_cache.py holds
the cache tests' other helpers)."""
import pytest
import tack
from tack import cache


@pytest.fixture
def cdir(tmp_path, monkeypatch):
    """A private cache directory for this test, cache on (whatever the caller's environment)."""
    d = tmp_path / "cache"
    monkeypatch.setenv("TACK_CACHE_DIR", str(d))
    for var in ("TACK_CACHE", "TACK_CACHE_SIZE", "TACK_CPU_LOADER",
                *cache.config._MPI_SIZE_VARS):
        monkeypatch.delenv(var, raising=False)
    tack.set_default_device("cpu")
    return d
