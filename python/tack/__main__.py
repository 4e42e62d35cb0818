"""`python -m tack`: the version and a report of this system as Tack sees it — engines and
devices present, LLVM and llvmlite, the CUDA driver and GPUs, Julia and juliacall, the cache
folder and the TACK_* settings — for bug reports and for "why does this not run here?"
(like `numba -s`). Nothing is compiled or launched; a part that cannot be read says why.

    python -m tack             the report
    python -m tack --json      the same, as JSON
    python -m tack --version   the version alone
"""
from __future__ import annotations

import argparse
import importlib.metadata
import importlib.util
import json
import os
import platform
import shutil
import sys

import tack
from tack.cache import config as cache
from tack.runtime import registry


def _version_of(dist: str) -> str | None:
    try:
        return importlib.metadata.version(dist)
    except importlib.metadata.PackageNotFoundError:
        return None


def _python() -> dict:
    return {"python": sys.version.split()[0], "implementation": platform.python_implementation(),
            "platform": platform.platform(), "machine": platform.machine(),
            "numpy": _version_of("numpy"), "cpu_count": os.cpu_count()}


def _cpu() -> dict:
    from tack.runtime.cpu.engine import default_num_threads
    from tack.toolchain.llvm_host import live_host_info

    out: dict = {"llvmlite": _version_of("llvmlite")}
    try:
        info = live_host_info()
    except Exception as exc:  # noqa: BLE001 - a report says what it could not read
        return {**out, "error": f"{type(exc).__name__}: {exc}"}
    feats = sorted(f[1:] for f in info["features"].split(",") if f.startswith("+"))
    vector = [f for f in ("sse4.2", "avx", "avx2", "fma", "avx512f", "avx512bw", "avx512vl",
                          "neon", "sve", "sve2") if f in feats]
    try:
        threads: int | str = default_num_threads()
    except tack.TackError as exc:
        threads = str(exc)
    return {**out, "llvm": info["llvm"], "triple": info["triple"], "cpu": info["cpu"],
            "vector_features": vector, "threads": threads}


def _cuda() -> dict:
    if not registry.NATIVE_CUDA.importable():
        return {"available": False,
                "why": "cuda-bindings is not installed (pip install '.[cuda]' from a clone)"}
    out: dict = {"cuda_bindings": _version_of("cuda-bindings") or _version_of("cuda-python")}
    try:
        from cuda.bindings import driver as drv

        if drv.cuInit(0)[0] != drv.CUresult.CUDA_SUCCESS:
            return {**out, "available": False, "why": "cuInit failed: no driver or no GPU"}
        _, version = drv.cuDriverGetVersion()
        out["driver_cuda_version"] = f"{version // 1000}.{version % 1000 // 10}"
        _, count = drv.cuDeviceGetCount()
        gpus = []
        for k in range(int(count)):
            _, dev = drv.cuDeviceGet(k)
            _, name = drv.cuDeviceGetName(256, dev)
            attr = drv.CUdevice_attribute
            major = drv.cuDeviceGetAttribute(
                attr.CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR, dev)[1]
            minor = drv.cuDeviceGetAttribute(
                attr.CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR, dev)[1]
            sms = drv.cuDeviceGetAttribute(attr.CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT, dev)[1]
            mem = drv.cuDeviceTotalMem(dev)[1]
            label = name.split(b"\0")[0].decode() if isinstance(name, bytes) else str(name)
            gpus.append({"device": f"cuda:{k}", "name": label, "arch": f"sm_{major}{minor}",
                         "sms": int(sms), "memory_gib": round(int(mem) / 2**30, 1)})
        return {**out, "available": bool(gpus), "gpus": gpus}
    except Exception as exc:  # noqa: BLE001 - a report says what it could not read
        return {**out, "available": False, "why": f"{type(exc).__name__}: {exc}"}


def _julia() -> dict:
    out: dict = {"juliacall": _version_of("juliacall"),
                 "julia_on_path": shutil.which("julia")}
    if out["juliacall"] is None:
        out["why"] = "juliacall is not installed (pip install '.[julia]' from a clone); " \
                     "kernels still render to KernelAbstractions.jl (tack.inspect)"
    return out


def _cache() -> dict:
    try:
        folder = cache.directory(create=False)
    except Exception as exc:  # noqa: BLE001 - a report says what it could not read
        return {"error": f"{type(exc).__name__}: {exc}"}
    size = 0
    if folder and os.path.isdir(folder):
        for root, _, files in os.walk(folder):
            for name in files:
                try:
                    size += os.lstat(os.path.join(root, name)).st_size
                except OSError:
                    pass
    return {"folder": folder, "enabled": cache.enabled(), "size_mib": round(size / 2**20, 1)}


def report() -> dict:
    """Everything `python -m tack` prints, as data."""
    settings = {k: v for k, v in sorted(os.environ.items()) if k.startswith("TACK_")}
    return {"tack": tack.__version__, "system": _python(), "cpu_engine": _cpu(),
            "simulator": {"available": True}, "cuda_engine": _cuda(), "julia_engine": _julia(),
            "engines": list(registry.engine_names()), "cache": _cache(), "settings": settings}


def _print(rep: dict) -> None:
    print(f"Tack {rep['tack']}")
    for section in ("system", "cpu_engine", "simulator", "cuda_engine", "julia_engine", "cache",
                    "settings"):
        print(f"\n{section.replace('_', ' ')}:")
        items = rep[section]
        if not items:
            print("  (none)")
        for key, value in items.items():
            if key == "gpus":
                for gpu in value:
                    print(f"  {gpu['device']}: {gpu['name']}, {gpu['arch']}, {gpu['sms']} SMs, "
                          f"{gpu['memory_gib']} GiB")
                continue
            if isinstance(value, list):
                value = ", ".join(map(str, value)) or "-"
            print(f"  {key}: {'-' if value is None else value}")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m tack",
                                     description="Tack's version and a report of this system.")
    parser.add_argument("--version", action="version", version=f"tack {tack.__version__}")
    parser.add_argument("--json", action="store_true", help="print the report as JSON")
    args = parser.parse_args(argv)
    rep = report()
    if args.json:
        print(json.dumps(rep, indent=2))
    else:
        _print(rep)
    return 0


if __name__ == "__main__":
    sys.exit(main())
