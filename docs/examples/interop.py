"""Interoperability: Tack arrays to and from NumPy, PyTorch and CuPy, and Tack kernels in Julia.

    python docs/examples/interop.py --arch cpu --check
    python docs/examples/interop.py --arch cuda --check

A Tack kernel can be dropped into existing array code without copies:
- NumPy: `tack.array(x)` copies in and `a.numpy()` copies out; on host devices (cpu, sim)
  `np.from_dlpack(a)` and `tack.from_dlpack(x)` share the memory instead (DLPack).
- PyTorch: `torch.from_dlpack(a)` and `tack.from_dlpack(t)` share memory, on the CPU and on CUDA;
  on CUDA `torch.as_tensor(a, device="cuda")` also reads `__cuda_array_interface__`.
- CuPy (CUDA only): `cupy.asarray(a)` (`__cuda_array_interface__`), `cupy.from_dlpack(a)` and
  `tack.from_dlpack(c)`. A consumer sees Tack's queued launches finished without `tack.sync()`.
- Julia: `tack.inspect(kernel, *args, engine="julia")` gives the kernel as KernelAbstractions.jl
  source; with `--arch julia` (juliacall installed, docs/julia.md) every section runs its kernel
  through juliacall, and Julia code (`juliacall.Main`) reads the result.
Every exchange is checked by value and, where the protocol shares memory, by a write through one
side that the other sees. A library that is not installed is reported and skipped.
"""
from __future__ import annotations

import importlib.util
import sys

import numpy as np
import tack
from _tutorial import Clock, check, main, parser, passed, pyplot, save


@tack.kernel
def smooth(x, out):
    """A 3-point moving average, the "Tack kernel inside existing code" of every section."""
    for i in range(x.shape[0]):
        lo = max(i - 1, 0)
        hi = min(i + 1, x.shape[0] - 1)
        out[i] = (x[lo] + x[i] + x[hi]) / 3.0


def smooth_ref(x: np.ndarray) -> np.ndarray:
    p = np.r_[x[:1], x, x[-1:]].astype(np.float64)
    return (p[:-2] + p[1:-1] + p[2:]) / 3.0


def shares(a: tack.Array, view_write, what: str, wait=None) -> None:
    """A write through the other library's view (`view_write(value)`) shows up in `a` (after
    `wait()`: the other library's queued work finished, as its users would wait for it)."""
    view_write(7.5)
    if wait is not None:
        wait()
    tack.sync()
    check(a[0] == 7.5, f"{what}: a write through the view is not seen by the Tack array")


def with_numpy(host: np.ndarray, on_host: bool) -> None:
    x, out = tack.array(host), tack.empty(host.shape)
    smooth(x, out)
    check(np.allclose(out.numpy(), smooth_ref(host), rtol=1e-6, atol=1e-6), "numpy: values")
    if on_host:
        view = np.from_dlpack(out)  # zero-copy on host devices
        shares(out, lambda v: view.__setitem__(0, v), "np.from_dlpack")
        mine = host.copy()
        wrapped = tack.from_dlpack(mine)
        mine[0] = 7.5
        check(wrapped[0] == 7.5, "tack.from_dlpack(numpy) does not share memory")
    passed("numpy: tack.array/.numpy() copies" + (", DLPack both ways shares" if on_host else ""))


def with_torch(host: np.ndarray, cuda: bool) -> None:
    if importlib.util.find_spec("torch") is None:
        print("  --  torch is not installed: skipped")
        return
    import torch

    x, out = tack.array(host), tack.empty(host.shape)
    smooth(x, out)  # queued on CUDA; torch's stream waits for it
    t = torch.from_dlpack(out)
    check(t.is_cuda == cuda, f"torch tensor on the wrong device: {t.device}")
    check(np.allclose(t.cpu().numpy(), smooth_ref(host), rtol=1e-6, atol=1e-6), "torch: values")
    wait = torch.cuda.synchronize if cuda else None
    shares(out, lambda v: t.__setitem__(0, v), "torch.from_dlpack", wait)
    src = torch.arange(len(host), dtype=torch.float32, device="cuda" if cuda else "cpu")
    back = tack.empty(host.shape)
    smooth(tack.from_dlpack(src), back)
    check(np.allclose(back.numpy(), smooth_ref(np.arange(len(host))), rtol=1e-6), "torch->tack")
    if cuda:
        t2 = torch.as_tensor(out, device="cuda")  # __cuda_array_interface__
        check(t2.data_ptr() == t.data_ptr(), "torch.as_tensor copied")
    passed("torch: DLPack both ways shares memory" + (", and __cuda_array_interface__" * cuda))


def with_cupy(host: np.ndarray) -> None:
    if importlib.util.find_spec("cupy") is None:
        print("  --  cupy is not installed: skipped")
        return
    import cupy

    x, out = tack.array(host), tack.empty(host.shape)
    smooth(x, out)
    c = cupy.asarray(out)  # __cuda_array_interface__, no copy
    check(np.allclose(cupy.asnumpy(c), smooth_ref(host), rtol=1e-6, atol=1e-6), "cupy: values")
    shares(out, lambda v: c.__setitem__(0, v), "cupy.asarray", cupy.cuda.Device().synchronize)
    check(cupy.from_dlpack(out).data.ptr == c.data.ptr, "cupy.from_dlpack copied")
    src = cupy.arange(len(host), dtype=cupy.float32)
    back = tack.empty(host.shape)
    smooth(tack.from_dlpack(src), back)
    check(np.allclose(back.numpy(), smooth_ref(np.arange(len(host))), rtol=1e-6), "cupy->tack")
    passed("cupy: __cuda_array_interface__ and DLPack both ways share memory")


def with_julia(host: np.ndarray, arch: str) -> None:
    # inspect renders for the default device's arch, which the Julia engine must target: the
    # simulator is not one of its arches, so render there as for the CPU.
    dev = tack.default_device()
    if arch == "sim":
        tack.set_default_device("cpu")
    x, out = tack.array(host), tack.empty(host.shape)
    source = tack.inspect(smooth, x, out, engine="julia")
    tack.set_default_device(dev.arch, engine=dev.engine_name)
    check("@kernel function" in source, "no KernelAbstractions kernel in the Julia rendering")
    passed(f"julia: smooth as KernelAbstractions.jl source ({len(source.splitlines())} lines)")
    if arch == "julia":
        smooth(x, out)  # through juliacall, on KernelAbstractions' CPU backend
        import juliacall  # imported here: Julia runs, the engine started it

        module = juliacall.newmodule("TackInterop")
        total = float(module.seval("x -> sum(Float64, x)")(out.numpy()))  # Julia reads it
        check(abs(total - smooth_ref(host).sum()) <= 1e-4 * np.abs(host).sum(), "julia: sum")
        passed("julia: the kernel ran through juliacall and Julia code summed its result")
    else:
        print("  --  run with --arch julia to call the kernels through juliacall")


def run(args, clock: Clock) -> None:
    host = np.random.default_rng(5).normal(size=args.size).astype(np.float32)
    dev = tack.default_device()
    x, out = tack.array(host), tack.empty(host.shape)
    for _ in range(5):
        clock(smooth, x, out)
    with_numpy(host, on_host=dev.is_host)
    with_torch(host, cuda=args.arch == "cuda")
    if args.arch == "cuda":
        with_cupy(host)
    with_julia(host, args.arch)
    if args.output:
        plt = pyplot()
        fig, ax = plt.subplots(figsize=(5, 3))
        ax.plot(host[:200], lw=0.8, label="x")
        ax.plot(out.numpy()[:200], lw=1.5, label="smooth(x)")
        ax.legend()
        save(fig, args.output)


def cli(argv=None) -> int:
    return main(run, parser(__doc__, size=1 << 20, check_size=1000), argv)


if __name__ == "__main__":
    sys.exit(cli())
