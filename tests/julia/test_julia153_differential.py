"""Tier (c) of the Julia 1.5.3 tier: generated kernels (tack.testing.kernelgen) on Tack's Julia
engine against the native CPU engine and the oracle: integers bit for bit, floats within twice
the oracle's bound (tests/julia/julia153/differential.py). CI runs this slice; the long run is
`python -m tests.julia.julia153.differential --count 1000 --seed 1`."""
import pytest

from tests.julia.julia153.differential import Tally, run

SLICE = 60  # kernels; about 40 s on one core


@pytest.mark.julia
def test_generated_kernels_agree_on_julia153(_julia153_session):
    lines = []
    tally = run(SLICE, seed=7, tally=Tally(), log=lines.append)
    assert tally.compared >= SLICE * 0.9, tally.line()
    assert not tally.mismatches, tally.line() + "\n" + "\n".join(lines)


def test_a_wrong_julia_result_is_reported(monkeypatch):
    """The comparison is not vacuous: a perturbed element of the 'Julia' results is reported
    against the oracle and against the native engine (both runs native here, no Julia needed)."""
    import tack
    from tack.testing.kernelgen import KernelGen, RandomChoices

    from tests.julia.julia153 import differential as d

    real = d._run

    def perturbed(kern, args, engine):
        out = real(kern, args, "native")
        if engine == "julia":
            for a in out:
                if isinstance(a, tack.Array) and a.size:
                    tack.copyto(a, a.numpy() + a.numpy().dtype.type(1))
        return out

    monkeypatch.setattr(d, "_run", perturbed)
    spec = KernelGen(RandomChoices(3)).generate()
    bad = d.compare_one(spec, 7, 0)
    assert bad and any(m.startswith("vs oracle") for m in bad)
    assert any(m.startswith("vs native") for m in bad)
