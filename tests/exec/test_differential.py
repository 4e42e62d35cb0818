"""Differential tests: random well-typed kernels run on the CPU engine against the independent
reference of `tack.testing.oracle` (the kernels' own Python source, executed serially with the
contract's scalar rules).

Profiles (environment variable HYPOTHESIS_PROFILE): "ci" (default; derandomized, so every run
draws the same 400 kernels, about a minute on two cores) and "dev" (many more, random kernels; a
failure prints the kernel's source, the size and the data seed, which reproduce it).
Integers compare exactly; floats within the oracle's running error bound (0 where no product or
libm call is involved); iterations whose control flow hinges on a rounding-sensitive decision are
skipped (see the oracle's docstring).

A sample is also compiled for the host CPU and for a baseline ISA (`llvm_host.cpu_target`) and the
two compared bit for bit on integer results: a backend miscompile that only one instruction set
shows (docs/design/002-cpu-engine.md, "Vector shifts by out-of-range constants") fails here on
any CPU the suite runs on.
"""
import os
import platform

import numpy as np
import pytest
import tack
from hypothesis import HealthCheck, Phase, given, note, reject, settings
from hypothesis import strategies as st
from tack.testing.kernelgen import HypothesisChoices, KernelGen, RandomChoices
from tack.testing.oracle import OutsideDomain, reference
from tack.testing.shapes import noncontiguous
from tack.toolchain import llvm_host

_HEALTH = [HealthCheck.too_slow, HealthCheck.data_too_large, HealthCheck.filter_too_much]
_PHASES = [Phase.explicit, Phase.reuse, Phase.generate, Phase.target, Phase.shrink]  # no explain
PROFILES = {
    "ci": {"max_examples": 400, "derandomize": True, "deadline": None, "database": None,
           "suppress_health_check": _HEALTH, "print_blob": True, "phases": _PHASES},
    "dev": {"max_examples": 4000, "derandomize": False, "deadline": None,
            "suppress_health_check": _HEALTH, "print_blob": True, "phases": _PHASES},
}
for _name, _kw in PROFILES.items():
    settings.register_profile(f"tack-differential-{_name}", **_kw)
PROFILE = os.environ.get("HYPOTHESIS_PROFILE", "ci")
SETTINGS = settings(**PROFILES.get(PROFILE, PROFILES["ci"]))


@pytest.fixture(scope="module", autouse=True)
def cpu():
    tack.set_default_device("cpu")
    yield


def run_one(spec, n: int, seed: int, noncontig: bool = False, kern=None):
    """Run one generated kernel on Tack and on the reference; return the mismatches."""
    args = spec.make_args(n, seed)
    kern = kern or spec.load()
    ref = reference(kern, *args)
    made = {}  # an aliased pair is one NumPy array, so one tack array too

    def to_tack(a):
        if id(a) not in made:
            made[id(a)] = tack.array(noncontiguous(a, "strided") if noncontig and a.ndim else a)
        return made[id(a)]

    targs = [to_tack(a) if isinstance(a, np.ndarray) else a for a in args]
    kern(*targs)
    return ref, ref.mismatches([targs[p] for p in ref.positions], rows_of_tainted=True)


@SETTINGS
@given(data=st.data())
def test_random_kernels_agree_with_reference(data):
    spec = KernelGen(HypothesisChoices(data)).generate()
    n = data.draw(st.sampled_from([1, 7, 31, 0, 2, 257]), label="n")
    seed = data.draw(st.integers(0, 2 ** 16), label="data seed")
    noncontig = data.draw(st.booleans(), label="non-contiguous inputs")
    n2 = data.draw(st.sampled_from([7, 1, 31]), label="n of a second call")
    note(spec.source)
    if spec.alias:
        note(f"arguments {spec.alias} are one array")
    kern = spec.load()
    try:
        ref, bad = run_one(spec, n, seed, noncontig, kern)
        # the same kernel object again: cached specializations must serve (or re-bake) new sizes
        _, bad2 = run_one(spec, n2, seed + 1, False, kern)
    except OutsideDomain:  # the generator keeps kernels in the portable domain; rarely it cannot
        reject()
    note(f"{ref.iterations} iterations, {len(ref.tainted)} tainted")
    assert not bad, f"kernel disagrees with the reference (n={n}, seed={seed}):\n{spec.source}" \
                    + "\n".join(bad)
    assert not bad2, f"second call disagrees (n={n2}, seed={seed + 1}):\n{spec.source}" \
                     + "\n".join(bad2)


@pytest.mark.parametrize("seed,n", [(1, 1025), (2, 4099), (3, 1025)])
def test_random_kernels_large_sizes(seed, n):
    """A few kernels over sizes that split into several uneven CPU chunks."""
    for k in range(2):
        spec = KernelGen(RandomChoices(seed * 1000 + k), max_depth=2, max_stmts=3).generate()
        try:
            _, bad = run_one(spec, n, seed)
        except OutsideDomain:
            continue
        assert not bad, spec.source + "\n".join(bad)


def test_generator_is_deterministic():
    a = KernelGen(RandomChoices(5)).generate().source
    b = KernelGen(RandomChoices(5)).generate().source
    strip = lambda s: s.split("def ", 1)[1].split("(", 1)[1]
    assert strip(a) == strip(b)


def test_generated_kernels_are_well_typed_and_in_domain():
    """The generator's own contract: the oracle accepts its kernels and rarely leaves the domain."""
    outside = 0
    for k in range(60):
        spec = KernelGen(RandomChoices(10_000 + k)).generate()
        try:
            reference(spec.load(), *spec.make_args(7, k))
        except OutsideDomain:
            outside += 1
    assert outside <= 3


# a baseline every CPU of the architecture runs; the host's own target is the other side
BASELINE_ISA = {"x86_64": "x86-64-v2", "amd64": "x86-64-v2", "aarch64": "generic"}


def _isa_run(spec, args, target: str | None) -> list:
    """The array arguments after one call of a freshly loaded kernel compiled for `target`
    (None: the host), as NumPy arrays in argument order."""
    made = {}  # an aliased pair is one NumPy array, so one tack array too
    for a in args:
        if isinstance(a, np.ndarray) and id(a) not in made:
            made[id(a)] = tack.array(a)
    targs = [made[id(a)] if isinstance(a, np.ndarray) else a for a in args]
    kern = spec.load()  # a new kernel object: nothing specialized for the other target
    if target is None:
        kern(*targs)
    else:
        with llvm_host.cpu_target(target):
            kern(*targs)
    return [t.numpy() if isinstance(t, tack.Array) else None for t in targs]


@pytest.mark.skipif(platform.machine().lower() not in BASELINE_ISA,
                    reason="no baseline ISA known for this architecture")
def test_host_and_baseline_isa_agree_bit_for_bit():
    """Kernels with cast rows (castrows.py: several outputs of mixed widths, cast chains of
    64-bit values), compiled for the host and for the baseline: every untainted integer element
    equal, and both sides within the reference's bounds."""
    baseline = BASELINE_ISA[platform.machine().lower()]
    checked = 0
    for k in range(36):
        spec = KernelGen(RandomChoices(70_000 + k), max_depth=2, max_stmts=2,
                         cast_rows=1.0).generate()
        args = spec.make_args(31, k)
        try:
            ref = reference(spec.load(), *args)
        except OutsideDomain:
            continue
        host, base = _isa_run(spec, args, None), _isa_run(spec, args, baseline)
        for side, got in (("host", host), (baseline, base)):
            bad = ref.mismatches([got[p] for p in ref.positions], rows_of_tainted=True)
            assert not bad, f"{side} disagrees with the reference:\n{spec.source}" + \
                "\n".join(bad)
        for name, p in zip(ref.names, ref.positions):
            h, b = host[p], base[p]
            if h.dtype.kind not in "iu":
                continue
            skip = np.zeros(h.shape[:1], bool)
            skip[[v for v in ref.tainted if 0 <= v < h.shape[0]]] = True
            diff = np.nonzero((h != b).reshape(h.shape[0], -1).any(axis=1) & ~skip)[0]
            assert not diff.size, (f"{name}: host and {baseline} differ in rows "
                                   f"{diff[:8].tolist()}:\n{spec.source}")
        checked += 1
    assert checked >= 30
