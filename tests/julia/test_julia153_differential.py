"""Tier (c) of the Julia 1.5.3 tier: generated kernels (tack.testing.kernelgen) on Tack's Julia
engine against the native CPU engine and the oracle: integers bit for bit, floats within twice
the oracle's bound (tack.testing.julia.differential). CI runs this slice; the long run is
`python -m tack.testing.julia.differential --count 1000 --seed 1`."""
import pytest
from tack.testing.julia.differential import Tally, run

SLICE = 60  # kernels; about 40 s on one core


@pytest.mark.julia
def test_generated_kernels_agree_on_julia153(_julia153_session):
    lines = []
    tally = run(SLICE, seed=7, tally=Tally(), log=lines.append)
    assert tally.compared >= SLICE * 0.9, tally.line()
    assert not tally.mismatches, tally.line() + "\n" + "\n".join(lines)
