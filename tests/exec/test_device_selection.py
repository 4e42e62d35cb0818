"""`tack.set_default_device` fails at selection, naming what is missing, when a
backend cannot run here; a rejected call changes nothing (docs/debugging.md, "Exceptions")."""
import importlib.util
import subprocess
import sys

import pytest
import tack
from tack.devices import default_device


def _installed(module: str) -> bool:
    try:
        return importlib.util.find_spec(module) is not None
    except (ImportError, ValueError):
        return False



@pytest.mark.parametrize("arch", ["metal", "hip", "level_zero"])
def test_native_engine_refuses_other_gpus_at_selection(arch):
    before = default_device()
    with pytest.raises(RuntimeError, match=rf"Cannot initialize '{arch}' backend: Tack's native "
                                           rf"engine does not target it; use set_default_device"
                                           rf"\('{arch}', engine='julia'\)"):
        tack.set_default_device(arch)
    assert default_device() is before


@pytest.mark.skipif(_installed("cuda.bindings"), reason="cuda-bindings is installed here")
def test_cuda_without_bindings_fails_at_selection():
    before = default_device()
    with pytest.raises(RuntimeError, match=r"Cannot initialize 'cuda' backend: missing dependency"
                                           r"\. Install the CUDA extra: pip install "
                                           r"'\.\[cuda\]' in a clone of Tack \(No module named "
                                           r"'cuda.bindings'\)"):
        tack.set_default_device("cuda")
    assert default_device() is before


def test_julia_engine_selects_without_julia():
    """Deliberately lazy: the Julia engine renders (tack.inspect) without juliacall, so selecting
    it checks nothing; its first compile reports what is missing."""
    # in a fresh process: devices keep their engine, and an earlier test in this process may
    # have started this one (on a stand-in juliacall)
    code = ("import tack; dev = tack.set_default_device('metal', engine='julia'); "
            "print(dev.arch, dev._engine is None)")
    got = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         timeout=120, check=True)
    assert got.stdout.split() == ["metal", "True"]


def test_probing_backends_in_a_try():
    """The portable pattern the issue asks for: the first backend that selects is used."""
    for name in ("metal", "hip", "cpu"):
        try:
            dev = tack.set_default_device(name)
            break
        except RuntimeError:
            continue
    assert dev.arch == "cpu" and default_device() is dev


def test_device_objects_still_answer_capabilities_without_starting():
    """Building a Device (not selecting it) starts nothing: capability checks against a GPU
    device need no GPU."""
    from tack.devices import make_device

    gpu = make_device("cuda")
    assert gpu.capabilities.workgroups and gpu._engine is None
