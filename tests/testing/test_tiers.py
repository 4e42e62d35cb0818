"""Shape tiers from a gufunc signature, and the inputs generated for each case."""
import numpy as np
import pytest
import tack
from tack.testing.harness import inputs
from tack.testing.harness.gufunc import parse
from tack.testing.harness.tiers import Case, cases, parse_label


def test_signature_names_literals_and_shapes():
    sig = parse("(m,3),(3,n)->(m,n)")
    assert sig.names == ("m", "n")
    assert sig.inputs == (("m", 3), (3, "n")) and sig.outputs == (("m", "n"),)
    assert sig.shapes((5, 7)) == ([(5, 3), (3, 7)], [(5, 7)])
    assert parse("(),()->()").names == ()


@pytest.mark.parametrize("bad", ["(n)(n)", "(n)->(k)", "(n,?)->(n)", "n->n", "(n)->(n)->(n)",
                                 "(n-1)->(n)"])
def test_bad_signatures_are_refused_with_the_reason(bad):
    with pytest.raises(tack.TackValueError, match="signature"):
        parse(bad)


def sizes(sig, tier="fast"):
    return [c.dims for c in cases(parse(sig), tier)]


def test_fast_1d_covers_every_bug_class():
    cs = cases(parse("(n),(n)->(n)"), "fast")
    contiguous = {c.dims[0] for c in cs if c.layout == "contiguous"}
    assert {255, 256, 257, 1023, 1024, 1025} <= contiguous  # tile boundaries
    assert 1 in contiguous  # size 1
    assert {7, 31, 4099, 65537} <= contiguous  # primes
    assert {"strided", "reversed"} <= {c.layout for c in cs}  # views
    assert "transposed" not in {c.layout for c in cs}  # a 1-D input has no transpose
    assert 12 <= len(cs) <= 20


def test_fast_2d_covers_every_bug_class_and_pairs():
    cs = cases(parse("(m,n)->(m)"), "fast")
    dims = [c.dims for c in cs]
    assert (1, 64) in dims and (64, 1) in dims  # size 1 in each dimension alone
    assert (1025, 64) in dims and (64, 1025) in dims  # past the tile in each dimension
    assert {d for c in dims for d in c} >= {255, 256, 257, 1023, 1024, 1025}
    assert max(max(d) / min(d) for d in dims) >= 1000  # extreme aspect ratios
    assert (2, 4099) in dims and (4099, 2) in dims
    assert (257, 1023) in dims  # two awkward dimensions at once
    assert all(d in (7, 31) for d in dims[[c.dims for c in cs].index((7, 31))])  # primes
    assert {c.layout for c in cs} == {"contiguous", "strided", "reversed", "transposed"}
    assert 14 <= len(cs) <= 20


def test_tiers_have_their_sizes_and_no_duplicates():
    for sig in ("(n)->(n)", "(m,n)->(m,n)", "(m,k),(k,n)->(m,n)"):
        for tier in ("fast", "exhaustive", "canonical"):
            cs = cases(parse(sig), tier)
            assert len(set(cs)) == len(cs)
        assert 50 <= len(cases(parse(sig), "exhaustive")) <= 70
        assert set(cases(parse(sig), "fast")) <= set(cases(parse(sig), "exhaustive"))


def test_canonical_is_three_aligned_contiguous_shapes():
    for sig, k in (("(n)->(n)", 1), ("(m,n)->(m)", 2), ("(m,k),(k,n)->(m,n)", 3)):
        cs = cases(parse(sig), "canonical")
        assert len(cs) == 3 and all(c.layout == "contiguous" for c in cs)
        assert [c.size() for c in cs] == [1 << 16, 1 << 20, 1 << 22]
        assert all(d & (d - 1) == 0 and len(c.dims) == k for c in cs for d in c.dims)


def test_cases_respect_the_element_budget():
    for c in cases(parse("(b,m,k),(b,k,n)->(b,m,n)"), "fast"):
        assert c.size() <= 1 << 22


def test_labels_round_trip():
    sig = parse("(m,n)->(m)")
    for c in cases(sig, "exhaustive"):
        assert parse_label(c.label, sig) == (c, None)
    assert parse_label("257x31-strided-float64", sig) == (Case((257, 31), "strided"), "float64")
    for bad in ("257-strided", "257x31-sideways", "axb-strided", "257x31"):
        with pytest.raises(tack.TackValueError):
            parse_label(bad, sig)


def test_inputs_are_deterministic_from_the_seed():
    sig = parse("(m,n),(n)->(m)")
    case = Case((31, 257))
    a = inputs.make(sig, case, "float32", seed=3)
    b = inputs.make(sig, case, "float32", seed=3)
    c = inputs.make(sig, case, "float32", seed=4)
    assert all(np.array_equal(x, y) for x, y in zip(a, b))
    assert not np.array_equal(a[0], c[0])
    assert not np.array_equal(a[0][:, 0], a[1][:31])  # operands are drawn independently


@pytest.mark.parametrize("layout,check", [
    ("strided", lambda v: not v.flags.c_contiguous and all(s > 0 for s in v.strides)),
    ("reversed", lambda v: all(s < 0 for s in v.strides)),
    ("transposed", lambda v: v.flags.f_contiguous and not v.flags.c_contiguous),
])
def test_views_hold_the_values_of_the_contiguous_twin(layout, check):
    sig = parse("(m,n),(n)->(m)")
    plain = inputs.make(sig, Case((31, 257)), "float64", seed=0)
    views = inputs.make(sig, Case((31, 257), layout), "float64", seed=0)
    assert check(views[0])
    for p, v in zip(plain, views):
        assert v.shape == p.shape and np.array_equal(v, p)


def test_float_inputs_mix_signs_zeros_and_large_values_but_no_nan():
    v = inputs.values(np.random.default_rng(0), (20000,), np.float32)
    assert np.isfinite(v).all()
    assert (v < 0).mean() > 0.05 and (v == 0).mean() > 0.02 and (v > 1000).mean() > 0.01
    assert (v > 0).mean() > 0.75  # mostly positive: a sum of them does not cancel
    s = v.astype(np.float64)
    assert s.sum() > 0.5 * np.abs(s).sum()


@pytest.mark.parametrize("dtype", ["int8", "uint8", "int32", "uint32", "int64", "uint64"])
def test_integer_inputs_stay_where_int64_arithmetic_is_exact(dtype):
    v = inputs.values(np.random.default_rng(1), (5000,), dtype)
    assert v.dtype == np.dtype(dtype)
    assert (v == 0).any() and (v >= min(np.iinfo(dtype).max, 2**62 - 1) // 2).any()
    if np.dtype(dtype).kind == "i":
        assert (v < 0).any()
    assert int(v.max()) < 1 << 62


def test_fill_values():
    assert np.isnan(inputs.fill_value("float32"))
    assert inputs.fill_value("int16") == -32768 and inputs.fill_value("uint8") == 255
