"""Every benchmark script still runs: each imports without running anything (and without a GPU),
and each one's `--quick` mode (small sizes, one round: a few seconds) runs on every engine present
and exits 0. A benchmark that rots silently (an engine hook renamed, an API changed, a check
that stopped holding) fails here rather than on the next full run on a GPU machine.

The scripts exit 1 when a result they check is wrong; peers that are not installed (torch, CuPy,
Numba, Taichi, Warp) are skipped by the scripts themselves."""
import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.cuda import gpu

ROOT = Path(__file__).resolve().parents[1]
BENCH = ROOT / "bench"
SCRIPTS = sorted(p.name for p in BENCH.glob("*.py") if not p.name.startswith("_"))

# Each script's quick runs: (arguments besides --quick, the engine it needs beyond the CPU's).
RUNS = {
    "algorithms.py": [([], None), (["--gpu"], "cuda")],
    "algorithms_phases.py": [(["--sim"], None), ([], "cuda")],
    "check.py": [([], None)],
    "compile_rss.py": [([], None)],
    "cpu.py": [([], None)],
    "cuda_alloc.py": [([], "cuda")],
    "exp_vector.py": [([], None)],
    "first_call.py": [([], None)],
    "first_call_phases.py": [([], None), (["--path", "typed"], None)],
    "gpu.py": [([], "cuda")],
    "half.py": [([], None)],
    "ops.py": [([], None), (["--gpu"], "cuda")],
    "polls.py": [([], None)],
    "sanitizer.py": [([], None)],
    "scan_variants.py": [(["--device", "sim"], None), ([], "cuda")],
    "sim.py": [([], None)],
}
QUICK = [(script, args, needs) for script, runs in RUNS.items() for args, needs in runs]


def _env() -> dict:
    # the checkout's Tack, and the repository root for `tests.kernels` (as the docs' commands)
    path = os.pathsep.join([str(ROOT / "python"), str(ROOT)])
    return dict(os.environ, PYTHONPATH=path, PYTHONDONTWRITEBYTECODE="1")


def test_every_bench_script_has_quick_runs():
    assert sorted(RUNS) == SCRIPTS, "a bench script without a --quick run here (or a stale one)"


def test_every_bench_module_imports_without_running():
    """Imported under another name than __main__, no script starts a benchmark, a device or a
    GPU library's work: the helpers (`_stats`, `_peers`) and scripts that others import
    (`algorithms`, `first_call`) must stay importable."""
    code = (
        "import importlib.util, sys\n"
        f"sys.path[:0] = [{str(BENCH)!r}]\n"
        "for path in sys.argv[1:]:\n"
        "    name = 'bench_' + path.rsplit('/', 1)[-1][:-3]\n"
        "    spec = importlib.util.spec_from_file_location(name, path)\n"
        "    spec.loader.exec_module(importlib.util.module_from_spec(spec))\n"
        "import tack\n"
        "started = [d for d in tack.devices.started() if d.arch != 'cpu']\n"
        "assert not started, f'importing started {started}'\n"
        "print('imported', len(sys.argv) - 1)\n")
    files = sorted(str(p) for p in BENCH.glob("*.py"))
    done = subprocess.run([sys.executable, "-c", code, *files], capture_output=True, text=True,
                          env=_env(), cwd=ROOT, timeout=300, check=False)
    assert done.returncode == 0, done.stderr[-3000:]
    assert f"imported {len(files)}" in done.stdout


@pytest.mark.parametrize("script, args, needs", QUICK,
                         ids=[" ".join([s, *a]) for s, a, _ in QUICK])
def test_quick_mode_runs(script, args, needs):
    if needs == "cuda" and gpu.unavailable():
        pytest.skip(f"{script} {' '.join(args)} needs a GPU: {gpu.unavailable()}")
    done = subprocess.run([sys.executable, str(BENCH / script), "--quick", *args],
                          capture_output=True, text=True, env=_env(), cwd=ROOT, timeout=600,
                          check=False)
    out = (done.stdout + done.stderr)[-4000:]
    assert done.returncode == 0, out
    assert "Traceback" not in done.stderr, out  # a row that failed and was only printed
