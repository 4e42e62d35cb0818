"""The group's number `t // 256` (t the launch index of a plain `range(n)`, or any positive
multiple of 256 as the divisor) is uniform over a workgroup (docs/language.md, "Workgroup
contract"), so a collective may sit in a loop whose trip count depends on it (a causal
attention workgroup stops at its diagonal), while `t // 128`, a reassigned index and the start or
step forms of the parallel loop stay lane-varying and are refused."""
import numpy as np
import pytest
import tack
from tack import capabilities
from tack.call import signature
from tack.compiler import specialize, typecheck
from tack.devices import make_device

GPU = make_device("cuda")  # capability checks only: no engine is started


@tack.kernel
def per_group(x, out, n, s):
    for i in range(n):
        g = i // 256
        acc = 0.0
        for j in range(g * s + 1):  # a trip count of the group's number: uniform
            acc += tack.block_sum(x[i] + j)
        out[i] = acc


@tack.kernel
def per_two_groups(x, out, n):
    for i in range(n):
        if i // 512 == 1:  # the same for the two groups of each 512 lanes
            out[i] = tack.block_sum(x[i])


@tack.kernel
def per_half_group(x, out, n):
    for i in range(n):
        for j in range(i // 128):
            out[i] = tack.block_sum(x[i])


@tack.kernel
def reassigned(x, out, n):
    for i in range(n):
        g = i
        if x[i] > 0.0:
            g = i + 1
        for j in range(g // 256):
            out[i] = tack.block_sum(x[i])


@tack.kernel
def shifted(x, out, n):
    for i in range(1, n):
        for j in range(i // 256):
            out[i] = tack.block_sum(x[i])


@pytest.mark.engines("sim", "cuda",
                     reason="a block_sum in the loop: the CPU engine refuses workgroup collectives")
def test_a_loop_over_the_group_number_runs(engine):
    x = np.arange(768, dtype=np.float32) % 5
    out = tack.zeros(768)
    per_group(tack.array(x), out, 768, 2)
    for g in range(3):
        block = x[256 * g:256 * g + 256].astype(np.float64)
        want = sum(block.sum() + 256 * j for j in range(2 * g + 1))
        np.testing.assert_allclose(out.numpy()[256 * g:256 * g + 256], want, rtol=1e-6)
    out = tack.zeros(768)
    per_two_groups(tack.array(x), out, 768)  # lanes 512 ... 767: i // 512 == 1
    np.testing.assert_allclose(out.numpy()[512:], x[512:].sum(), rtol=1e-6)
    assert not out.numpy()[:512].any()


@pytest.mark.parametrize("kernel", [per_half_group, reassigned, shifted],
                         ids=["divided-by-128", "reassigned", "start-form"])
def test_other_divisions_stay_lane_varying(kernel):
    with pytest.raises(ValueError, match="requires uniform workgroup participation"):
        specialize(kernel, (tack.zeros(512), tack.zeros(512), 512), GPU)


def test_multiples_of_256_are_uniform():
    """Accepted, and the local holding the group's number is not lane-varying."""
    specialize(per_two_groups, (tack.zeros(1024), tack.zeros(1024), 1024), GPU)
    args = (tack.zeros(512), tack.zeros(512), 512, 3)
    pk = per_group.parse_for(args)
    specs = signature.specs(per_group.name, pk.params, signature.expand(pk.paths, args))
    varying = capabilities._varying_locals(typecheck(per_group, pk, specs))
    assert "g" not in varying and "i" in varying, varying
