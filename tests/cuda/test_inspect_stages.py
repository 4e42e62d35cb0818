"""The CUDA engine's "resources" and "sass" stages (runtime.cuda.inspect, toolchain.sass) driven by
a stand-in driver and stand-in tools: no GPU needed, so this runs everywhere. A real disassembly
runs where ptxas and cuobjdump/nvdisasm are installed (the CUDA toolkit, or the NVIDIA wheels)."""
import ctypes
import json
import re
import subprocess
import sys
import types
from types import SimpleNamespace

import pytest
from tack.errors import TackRuntimeError
from tack.runtime.cuda import inspect as cuda_inspect
from tack.toolchain import sass

from tests.cuda.ptx_sample import PTX

H100 = {"CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_MULTIPROCESSOR": 2048,
        "CU_DEVICE_ATTRIBUTE_MAX_REGISTERS_PER_MULTIPROCESSOR": 65536,
        "CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_MULTIPROCESSOR": 233472,
        "CU_DEVICE_ATTRIBUTE_RESERVED_SHARED_MEMORY_PER_BLOCK": 1024,
        "CU_DEVICE_ATTRIBUTE_MAX_BLOCKS_PER_MULTIPROCESSOR": 32}


class FakeDriver:
    """The few cuda-bindings driver calls runtime.cuda.inspect makes, each returning the
    bindings' tuple (CUresult first) and recorded in `calls`."""

    def __init__(self, function_attrs, blocks, image=b"\x7fELF cubin", fail_add=0):
        names = [n for _, n in cuda_inspect.FUNCTION_ATTRIBUTES]
        self.CUfunction_attribute = SimpleNamespace(**{n: n for n in names})
        self.CUdevice_attribute = SimpleNamespace(**{n: n for n in H100})
        self.CUjitInputType = SimpleNamespace(CU_JIT_INPUT_PTX="ptx-input")
        self.function_attrs, self.blocks, self.fail_add = function_attrs, blocks, fail_add
        self._image = ctypes.create_string_buffer(image, len(image))
        self.calls = []

    def cuFuncGetAttribute(self, attr, fn):
        self.calls.append(("attr", attr, fn))
        return 0, self.function_attrs[attr]

    def cuDeviceGetAttribute(self, attr, dev):
        return 0, H100[attr]

    def cuOccupancyMaxActiveBlocksPerMultiprocessor(self, fn, block, smem):
        self.calls.append(("occupancy", fn, block, smem))
        return 0, self.blocks

    def cuLinkCreate(self, n, opts, vals):
        self.calls.append(("create", n, opts, vals))
        return 0, "state"

    def cuLinkAddData(self, state, kind, data, size, name, n, opts, vals):
        self.calls.append(("add", state, kind, data, size, name, n, opts, vals))
        return (self.fail_add,)

    def cuLinkComplete(self, state):
        self.calls.append(("complete", state))
        return 0, ctypes.addressof(self._image), len(self._image.raw)

    def cuLinkDestroy(self, state):
        self.calls.append(("destroy", state))
        return (0,)


class FakeEngine:
    """CUDAEngine.call's contract: the result after the CUresult, errors raised."""

    arch, name, device = "sm_90", "NVIDIA H100", "dev0"

    def call(self, fn, *args, what=None):
        res = fn(*args)
        if res[0]:
            raise TackRuntimeError(f"CUDABackend: {what}: CUDA error {res[0]}")
        return res[1] if len(res) == 2 else res


def kernel(max_registers=None, shared_bytes=0):
    return SimpleNamespace(engine=FakeEngine(), entry="tack_k", name="k", function="fn",
                           per_thread=1, max_registers=max_registers, ptx=PTX,
                           shared_bytes=shared_bytes)


def attrs(regs, shared=0, local=0):
    return {"CU_FUNC_ATTRIBUTE_NUM_REGS": regs, "CU_FUNC_ATTRIBUTE_LOCAL_SIZE_BYTES": local,
            "CU_FUNC_ATTRIBUTE_SHARED_SIZE_BYTES": shared,
            "CU_FUNC_ATTRIBUTE_CONST_SIZE_BYTES": 0,
            "CU_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK": 1024,
            "CU_FUNC_ATTRIBUTE_PTX_VERSION": 78, "CU_FUNC_ATTRIBUTE_BINARY_VERSION": 90}


def test_resources_report_the_drivers_numbers_and_the_occupancy():
    drv = FakeDriver(attrs(40, shared=4096, local=16), blocks=6)
    res = cuda_inspect.resources(kernel(max_registers=40), drv)
    assert res["kernel"] == "tack_k" and res["arch"] == "sm_90" and res["device"] == "NVIDIA H100"
    assert (res["registers"], res["max_registers"], res["local_bytes"], res["shared_bytes"]) == \
        (40, 40, 16, 4096)
    assert res["max_threads_per_block"] == 1024 and res["binary_version"] == 90
    assert res["blocks_per_sm"] == 6 and res["occupancy"] == 6 * 256 / 2048
    assert res["limits"] == {"threads": 8, "registers": 6, "shared_memory": 45, "blocks": 32}
    assert res["limited_by"] == ["registers"]
    assert ("occupancy", "fn", 256, 0) in drv.calls  # the function as loaded, 256-thread blocks
    text = cuda_inspect.resources_text(kernel(), drv)
    assert json.loads(text)["registers"] == 40 and text.endswith("}\n")


def test_resources_count_the_dynamic_shared_memory():
    """A kernel with shared arrays past 48 KiB (render/llvm/ptx_shared.py) requests them at
    launch: the occupancy query and the shared-memory limit count them (128 KiB: one block)."""
    drv = FakeDriver(attrs(114), blocks=1)
    res = cuda_inspect.resources(kernel(shared_bytes=128 * 1024), drv)
    assert res["dynamic_shared_bytes"] == 128 * 1024 and res["shared_bytes"] == 0
    assert ("occupancy", "fn", 256, 128 * 1024) in drv.calls
    assert res["limits"]["shared_memory"] == 1 and "shared_memory" in res["limited_by"]


@pytest.mark.parametrize("regs, shared, limits", [
    (33, 0, {"threads": 8, "registers": 6, "shared_memory": None, "blocks": 32}),  # 33 -> 40
    (32, 0, {"threads": 8, "registers": 8, "shared_memory": None, "blocks": 32}),
    (0, 0, {"threads": 8, "registers": None, "shared_memory": None, "blocks": 32}),
    (16, 48 * 1024, {"threads": 8, "registers": 16, "shared_memory": 4, "blocks": 32}),
])
def test_occupancy_limits_per_resource(regs, shared, limits):
    dev = {k: H100[n] for k, n in cuda_inspect.DEVICE_ATTRIBUTES}
    assert cuda_inspect.occupancy_limits(regs, shared, dev) == limits


def test_cubin_links_the_ptx_as_loaded_and_frees_the_link_state():
    drv = FakeDriver({}, 0, image=b"\x7fELF\0cubin")
    assert cuda_inspect.cubin(kernel(), drv) == b"\x7fELF\0cubin"
    create, add, complete, destroy = drv.calls
    assert create == ("create", 0, [], [])
    assert complete == ("complete", "state") and destroy == ("destroy", "state")
    _, state, kind, data, size, name, *_ = add
    assert (state, kind, name, size) == ("state", "ptx-input", b"tack_k", len(data))
    assert data == PTX.encode() + b"\0"  # NUL-terminated, no budget
    drv = FakeDriver({}, 0)
    cuda_inspect.cubin(kernel(max_registers=40), drv)
    assert b"\n.maxnreg 40\n" in drv.calls[1][3]  # the `.maxnreg` the launch loads with
    assert cuda_inspect.loaded_ptx(kernel(max_registers=40)).count(".maxnreg 40") == 1


def test_cubin_frees_the_link_state_when_linking_fails():
    drv = FakeDriver({}, 0, fail_add=218)  # CUDA_ERROR_INVALID_PTX
    with pytest.raises(TackRuntimeError, match=r"linking kernel 'k' \(cuLinkAddData\)"):
        cuda_inspect.cubin(kernel(), drv)
    assert drv.calls[-1] == ("destroy", "state")


# ---- the disassembler -------------------------------------------------------------------------
def _tool(folder, name, body):
    path = folder / name
    path.write_text(f"#!{sys.executable}\nimport sys\n{body}\n")
    path.chmod(0o755)
    return path


@pytest.fixture
def no_toolkit(monkeypatch, tmp_path):
    """Nothing but tmp_path/bin on PATH, no toolkit or wheels to fall back on."""
    (tmp_path / "bin").mkdir()
    monkeypatch.setenv("PATH", str(tmp_path / "bin"))
    monkeypatch.setenv("CUDA_HOME", str(tmp_path / "none"))
    monkeypatch.delenv("CUDA_PATH", raising=False)
    monkeypatch.setattr(sass, "DEFAULT_ROOT", str(tmp_path / "none"))
    monkeypatch.setattr(sass, "package_dirs", list)
    return tmp_path / "bin"


def test_no_disassembler_names_both_tools(no_toolkit):
    with pytest.raises(sass.MissingToolError, match="cuobjdump or nvdisasm.*PATH"):
        sass.disassemble(b"cubin", "tack_k")
    assert isinstance(sass.MissingToolError("x"), TackRuntimeError)


def test_cuobjdump_is_preferred_and_gets_the_cubin(no_toolkit):
    _tool(no_toolkit, "nvdisasm", "print('nvdisasm')")
    assert sass.disassemble(b"x", "tack_k").strip() == "nvdisasm"
    _tool(no_toolkit, "cuobjdump", "print(sys.argv[1], open(sys.argv[2], 'rb').read(), "
                                   "sys.argv[2].endswith('tack_k.cubin'))")
    assert sass.disassemble(b"\x7fELF", "tack_k").strip() == "-sass b'\\x7fELF' True"


def test_a_failing_disassembler_reports_its_output(no_toolkit):
    _tool(no_toolkit, "cuobjdump", "sys.stderr.write('bad cubin'); sys.exit(3)")
    with pytest.raises(TackRuntimeError, match=r"could not disassemble kernel 'tack_k' \(exit "
                                               r"status 3\): bad cubin"):
        sass.disassemble(b"x", "tack_k")


def test_the_wheels_bin_folder_is_searched(no_toolkit, tmp_path, monkeypatch):
    wheel_bin = tmp_path / "site" / "nvidia" / "cu13" / "bin"
    wheel_bin.mkdir(parents=True)
    tool = _tool(wheel_bin, "nvdisasm", "print('from the wheel')")
    monkeypatch.setattr(sass, "package_dirs", lambda: [str(tmp_path / "site")])
    assert sass.find_tool("nvdisasm") == str(tool) and sass.find_tool("cuobjdump") is None


# ---- a real disassembly, where the toolkit's programs are installed -----------------------------
def test_a_real_cubin_disassembles_to_sass_with_the_kernels_name(tmp_path):
    """PTX of a Tack kernel, assembled by ptxas (what the driver's linker runs), disassembled:
    the SASS names the entry and holds its fused multiply-add."""
    ptxas = sass.find_tool("ptxas")
    try:
        sass.disassembler()
    except sass.MissingToolError:
        ptxas = None
    if ptxas is None:
        pytest.skip("ptxas and cuobjdump/nvdisasm are not installed")
    import tack
    from tack.compiler import specialize
    from tack.devices import make_device
    from tack.toolchain.nvptx import compile_ptx

    from tests.kernels.corpus import saxpy

    x = tack.zeros(8)
    kir = specialize(saxpy, (2.0, x, x, tack.zeros(8)), make_device("cuda"))
    built = compile_ptx(kir, "sm_90")
    (tmp_path / "k.ptx").write_text(built.ptx)
    subprocess.run([ptxas, "-arch=sm_90", str(tmp_path / "k.ptx"), "-o", str(tmp_path / "k.o")],
                   capture_output=True, check=True)
    text = sass.disassemble((tmp_path / "k.o").read_bytes(), built.name)
    assert "tack_saxpy" in text and re.search(r"\bFFMA\b", text), text


def test_the_cuda_engine_stage_dispatches_and_unloads(monkeypatch):
    """CUDAEngine.stage: resources and sass of the kernel loaded as a launch loads it, unloaded
    afterwards; the disassembler is looked for before anything is loaded."""
    pytest.importorskip("cuda.bindings", reason="tack.runtime.cuda imports cuda-bindings")
    from tack.runtime.cuda import engine as cuda

    eng = object.__new__(cuda.CUDAEngine)
    loaded, unloaded = [], []
    monkeypatch.setattr(eng, "compile", lambda kir: loaded.append(kir) or
                        SimpleNamespace(module=f"module{len(loaded)}", entry="tack_k"),
                        raising=False)
    monkeypatch.setattr(cuda, "drv", types.SimpleNamespace(cuModuleUnload=unloaded.append))
    monkeypatch.setattr(cuda.cuda_inspect, "resources_text", lambda k, drv: "{}\n")
    monkeypatch.setattr(cuda.cuda_inspect, "cubin", lambda k, drv: b"cubin")
    monkeypatch.setattr(cuda, "disassemble", lambda data, entry: f"sass {data} {entry}")
    monkeypatch.setattr(cuda, "disassembler", lambda: ("cuobjdump", ("-sass",)))
    assert eng.stage("kir", "resources") == "{}\n"
    assert eng.stage("kir", "sass") == "sass b'cubin' tack_k"
    assert loaded == ["kir", "kir"] and unloaded == ["module1", "module2"]

    def missing():
        raise sass.MissingToolError("no disassembler")

    monkeypatch.setattr(cuda, "disassembler", missing)
    with pytest.raises(sass.MissingToolError):
        eng.stage("kir", "sass")
    assert len(loaded) == 2  # nothing loaded for it
    with pytest.raises(ValueError, match="no stage 'optimized'"):
        eng.stage("kir", "optimized")
