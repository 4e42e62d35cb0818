"""Tier 3: the shared corpus (tests/kernels/corpus.py) on every engine against independent
references, each case's id naming its engine (`test_case[sim-block_reduce-1021]`): the native CPU
engine on one thread and on a pool of two (the workgroup cases excepted: the CPU runs no
workgroups), the simulator, a GPU (skipped without one; elementwise kernels also at sizes around
the 256-thread block) and Julia where it is installed (the Julia tier's extra kernels too,
tests/julia/extra_kernels.py). `--engines` narrows the run as for the `engine` fixture."""
import numpy as np
import pytest
import tack

from tests import engines
from tests.julia.extra_kernels import EXTRA_CASES
from tests.kernels.corpus import CASES, WORKGROUP_CASES, assert_matches, run_case

AWKWARD = (255, 256, 257, 65537)  # around the GPU's 256-thread block, on the GPU
ELEMENTWISE = {"transform", "saxpy", "int_divmod", "float_divmod", "wrap_u8", "chained_select",
               "math_builtins", "bit_ops", "casts_and_pow", "stepped_launch", "collatz_steps"}
# Known disagreements of an engine with the references, each a strict xfail until fixed:
# {(engine, case name, n): why}. None left: `ndrange_2d` at n = 40 was one on Julia until
# multiply-adds fused by one rule on every engine (docs/language.md, "Integer and float rules").
KNOWN: dict = {}


def _runs(engine: str):
    """(variant, case, n) of each run on `engine`; variant: the CPU's thread count."""
    cases = CASES + ([] if engine == "cpu" else WORKGROUP_CASES) + \
        (EXTRA_CASES if engine == "julia" else [])
    for variant in ((1, 2) if engine == "cpu" else (None,)):
        for c in cases:
            extra = AWKWARD if engine == "cuda" and c.name in ELEMENTWISE else ()
            for n in c.sizes + extra:
                yield variant, c, n


def pytest_generate_tests(metafunc):
    if "corpus_run" not in metafunc.fixturenames:
        return
    params = []
    for p in engines.params(metafunc.config):
        (engine,) = p.values
        for threads, case, n in _runs(engine):
            where = f"{engine}-threads{threads}" if threads else engine
            bug = KNOWN.get((engine, case.name, n))
            marks = [*p.marks, *([pytest.mark.xfail(strict=True, reason=bug)] if bug else [])]
            params.append(pytest.param((engine, threads, case, n), marks=marks,
                                       id=f"{where}-{case.name}-{n}"))
    metafunc.parametrize("corpus_run", params)


def test_case(corpus_run, request):
    engine, threads, case, n = corpus_run
    engines.select(engine, request)
    if threads:
        tack.set_default_device("cpu", num_threads=threads)
    # the GPU's runs draw their data from n, so its awkward sizes see other values
    actual, expected = run_case(case, n, seed=n if engine == "cuda" else 0)
    assert_matches(case, actual, expected)


def test_seed_transform_as_written():
    # The user's-guide example "Compare a complete calculation", verbatim (it was the first
    # example of docs/examples/validate.py before the tutorials replaced them).
    tack.set_default_device("cpu")
    rng = np.random.default_rng(42)
    host_x = rng.normal(size=32).astype(np.float32)
    x = tack.array(host_x)
    out = tack.empty(host_x.shape)

    @tack.kernel
    def transform(x, out):
        for i in range(x.shape[0]):
            out[i] = sqrt(abs(x[i]))  # noqa: F821 - a kernel builtin

    transform(x, out)
    actual = out.numpy()
    expected = np.sqrt(np.abs(host_x))
    assert np.isfinite(actual).all()
    np.testing.assert_allclose(actual, expected, rtol=2e-6, atol=1e-7)


def test_empty_launch_runs_nothing():
    tack.set_default_device("cpu")
    out = tack.array(np.full(4, 7, np.int32))
    from tests.kernels.corpus import stepped_launch

    stepped_launch(out, 3, 3)
    stepped_launch(out, 5, 1)
    np.testing.assert_array_equal(out.numpy(), np.full(4, 7))
