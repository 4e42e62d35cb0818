"""The shared corpus on the simulator bit for bit against the CPU engine on every integer output
(floats: within the case's documented tolerance); tests/exec/test_corpus.py runs it on every
engine, the simulator's included, against the corpus references."""
import numpy as np
import pytest
import tack

from tests.kernels.corpus import CASES, run_case


def _ids(cases):
    return [f"{c.name}-{n}" for c in cases for n in c.sizes]


@pytest.mark.parametrize("case,n", [(c, n) for c in CASES for n in c.sizes], ids=_ids(CASES))
def test_integer_outputs_equal_the_cpu_engine(case, n):
    tack.set_default_device("cpu", num_threads=1)
    cpu, _ = run_case(case, n)
    tack.set_default_device("sim")
    sim, _ = run_case(case, n)
    for k, got in sim.items():
        if got.dtype.kind in "iub":
            np.testing.assert_array_equal(got, cpu[k])
        else:
            np.testing.assert_allclose(got, cpu[k], rtol=max(case.rtol, 1e-5),
                                       atol=max(case.atol, 1e-6), equal_nan=True)
