"""`tack.inspect`: the modes each engine shows, the errors for the others, and `outdir=` writing
every stage as files. Runs without a GPU: the CUDA kind is checked through a stand-in engine."""
import json
import warnings

import pytest
import tack
from tack.devices import make_device
from tack.runtime import registry
from tack.toolchain.sass import MissingToolError

from tests.kernels.corpus import saxpy
from tests.stand_in_engines import stand_in


def _args():
    """saxpy's arguments, host arrays whatever the current device (inspect types them only)."""
    x = tack.zeros(8, device="cpu")
    return 2.0, x, x, tack.zeros(8, device="cpu")


def test_outdir_writes_every_stage_of_the_cpu_engine(tmp_path):
    out = tmp_path / "stages" / "cpu"  # made, parents included
    paths = tack.inspect(saxpy, *_args(), outdir=out)
    assert list(paths) == list(make_device("cpu").stages) == ["ir", "source", "optimized"]
    assert {k: p.name for k, p in paths.items()} == {
        "ir": "saxpy.ir.txt", "source": "saxpy.ll", "optimized": "saxpy.opt.ll"}
    assert sorted(p.name for p in out.iterdir()) == sorted(p.name for p in paths.values())
    for mode, path in paths.items():
        assert path.parent == out and path.read_text() == tack.inspect(saxpy, *_args(), mode=mode)
    assert "define" in paths["source"].read_text()


def test_outdir_with_a_mode_writes_that_stage(tmp_path):
    paths = tack.inspect(saxpy, *_args(), mode="optimized", outdir=str(tmp_path))
    assert list(paths) == ["optimized"] and [p.name for p in tmp_path.iterdir()] == ["saxpy.opt.ll"]


def test_outdir_renders_julia_source_without_julia(tmp_path):
    paths = tack.inspect(saxpy, *_args(), engine="julia", outdir=tmp_path)
    assert {k: p.name for k, p in paths.items()} == {"ir": "saxpy.ir.txt", "source": "saxpy.jl"}
    assert "@kernel function" in paths["source"].read_text()


def test_the_default_mode_is_source():
    assert tack.inspect(saxpy, *_args()) == tack.inspect(saxpy, *_args(), mode="source")


def test_an_unknown_mode_lists_what_the_engine_shows():
    with pytest.raises(ValueError, match=r"Unknown inspect mode: 'ptx'\. The native engine for "
                                         r"'cpu' shows 'ir', 'source', 'optimized'\."):
        tack.inspect(saxpy, *_args(), mode="ptx")
    with pytest.raises(ValueError, match=r"The julia engine for 'cpu' shows 'ir', 'source'\."):
        tack.inspect(saxpy, *_args(), mode="ptx", engine="julia")


@pytest.mark.parametrize("mode", ["resources", "sass"])
def test_a_cuda_mode_on_the_cpu_names_the_engine_its_modes_and_where_it_is(mode):
    with pytest.raises(ValueError, match=f"inspect mode '{mode}' is not available on the native "
                                         "engine for 'cpu': it shows 'ir', 'source', 'optimized'; "
                                         f"'{mode}' is shown by the native engine for 'cuda'"):
        tack.inspect(saxpy, *_args(), mode=mode)
    with pytest.raises(ValueError, match="not available on the julia engine for 'cpu': it "
                                         "shows 'ir', 'source'"):
        tack.inspect(saxpy, *_args(), mode=mode, engine="julia")


def test_every_mode_is_some_engines_stage():
    assert set(registry.stage_names()) >= {"ir", "source", "optimized", "resources", "sass"}
    assert ("native", "cuda") in registry.shown_by("sass")
    assert ("native", "cpu") not in registry.shown_by("resources")
    kind = registry.NATIVE_CUDA
    assert kind.stages == ("ir", "source", "resources", "sass")
    assert [kind.file_name("k", s) for s in kind.stages] == [
        "k.ir.txt", "k.ptx", "k.resources.json", "k.sass"]
    assert registry.EngineKind("x", "m", "C", {}, ("ir", "trace")).file_name("k", "trace") == \
        "k.trace.txt"  # a kind that names no files: one per stage all the same


class FakeCUDA:
    """What tack.inspect asks of the CUDA engine: `stage`. "sass" finds no disassembler."""

    def __init__(self, missing_tool=True):
        self.missing_tool, self.asked = missing_tool, []

    @classmethod
    def create(cls, arch, options):
        return cls()

    def stage(self, kir, name):
        self.asked.append(name)
        if name == "sass" and self.missing_tool:
            raise MissingToolError("inspect mode 'sass' needs cuobjdump or nvdisasm")
        if name == "resources":
            return json.dumps({"kernel": f"tack_{kir.name}", "registers": 16}) + "\n"
        return f"{name} of {kir.name}"


@pytest.fixture
def gpu():
    """The current device: a CUDA device whose engine is a FakeCUDA (the native CUDA engine's
    stages and file names, no GPU)."""
    with stand_in(FakeCUDA, "cuda", like=registry.NATIVE_CUDA) as dev:
        yield dev


def test_outdir_on_cuda_writes_ptx_resources_and_warns_without_sass(gpu, tmp_path):
    with pytest.warns(RuntimeWarning, match="stage 'sass' of kernel 'saxpy' not written: "
                                            "inspect mode 'sass' needs cuobjdump or nvdisasm"):
        paths = tack.inspect(saxpy, *_args(), outdir=tmp_path)
    assert {k: p.name for k, p in paths.items()} == {
        "ir": "saxpy.ir.txt", "source": "saxpy.ptx", "resources": "saxpy.resources.json"}
    assert json.loads(paths["resources"].read_text())["kernel"] == "tack_saxpy"
    assert paths["source"].read_text() == "source of saxpy"
    assert gpu.engine.asked == ["source", "resources", "sass"]  # "ir" needs no engine


def test_outdir_on_cuda_writes_sass_when_a_disassembler_is_found(gpu, tmp_path):
    gpu.engine.missing_tool = False
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        paths = tack.inspect(saxpy, *_args(), outdir=tmp_path)
    assert paths["sass"].name == "saxpy.sass" and paths["sass"].read_text() == "sass of saxpy"


def test_mode_sass_raises_the_missing_tool_error(gpu):
    with pytest.raises(RuntimeError, match="needs cuobjdump or nvdisasm"):
        tack.inspect(saxpy, *_args(), mode="sass")
    assert "registers" in json.loads(tack.inspect(saxpy, *_args(), mode="resources"))


def test_optimized_on_cuda_is_cpu_only_and_lists_the_cuda_modes(gpu):
    with pytest.raises(ValueError, match="'optimized' is CPU only: the cuda engine shows 'ir', "
                                         "'source', 'resources', 'sass'"):
        tack.inspect(saxpy, *_args(), mode="optimized")


@pytest.mark.parametrize("current", ["sim", ("cpu", "sim")])
def test_julia_source_renders_whatever_the_default_device(current):
    """The Julia engine does not target the simulator: inspect renders its text all the same
    (on the engine's first arch), the one it shows while the CPU is the default."""
    expected = tack.inspect(saxpy, *_args(), engine="julia")
    ir = tack.inspect(saxpy, *_args(), mode="ir", engine="julia")
    name, engine = (current, None) if isinstance(current, str) else current
    tack.set_default_device(name, engine=engine)
    assert tack.inspect(saxpy, *_args(), engine="julia") == expected
    assert tack.inspect(saxpy, *_args(), mode="ir", engine="julia") == ir
    assert "@kernel function" in expected
    with pytest.raises(ValueError, match="Unknown engine: 'nope'"):
        tack.inspect(saxpy, *_args(), engine="nope")
