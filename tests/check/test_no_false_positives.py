"""Correct kernels are clean under `tack.check`: the shared corpus, the workgroup kernels of the
GPU tests (block reductions, shared-memory reversal, the tiled n-body, atomics) and the library's
block reductions; and the outputs in the report match the references."""
import inspect

import numpy as np
import pytest
import tack

from tests.kernels.corpus import CASES, WORKGROUP_CASES, _nbody_ref, host_view
from tests.kernels.workgroups import (
    block_reduce,
    compact,
    extremes,
    histogram,
    nbody_tiled,
    reverse_in_block,
)


def _outputs_match(case, report, host):
    names = list(inspect.signature(case.kernel.fn).parameters)
    for key, want in case.expect(host).items():
        if isinstance(key, int):
            np.testing.assert_allclose(report.outputs[names[key]], want, rtol=case.rtol,
                                       atol=case.atol)


@pytest.mark.parametrize("case", CASES + WORKGROUP_CASES, ids=lambda c: c.name)
def test_the_shared_corpus_is_clean(case):
    n = case.sizes[1]
    made = case.make(np.random.default_rng(0), n)
    host = [host_view(a) for a in made]
    args = [tack.array(a) if isinstance(a, np.ndarray) else a for a in made]
    report = tack.check(case.kernel, *args)
    assert report.verdict == "clean", report.text()
    _outputs_match(case, report, host)


def test_workgroup_kernels_are_clean():
    rng = np.random.default_rng(1)
    h = rng.normal(size=256 * 3).astype(np.float32)
    r = tack.check(block_reduce, tack.array(h), tack.zeros(3), len(h)).require_clean()
    np.testing.assert_allclose(r.outputs["partial_sums"], h.reshape(3, 256).sum(1), rtol=1e-5,
                               atol=1e-5)
    r = tack.check(reverse_in_block, tack.array(h), tack.zeros(len(h)), len(h)).require_clean()
    np.testing.assert_array_equal(r.outputs["out"], h.reshape(3, 256)[:, ::-1].reshape(-1))
    vals = rng.uniform(0, 1, 1000).astype(np.float32)
    tack.check(histogram, tack.array(vals), tack.zeros(10, tack.i32), 1000).require_clean()
    signed = rng.normal(size=700).astype(np.float32)
    tack.check(compact, tack.array(signed), tack.zeros(700), tack.zeros(1, tack.i32),
               700).require_clean()
    tack.check(extremes, tack.array(signed), tack.full(1, np.inf), tack.full(1, -np.inf),
               tack.zeros(700)).require_clean()


def test_the_tiled_nbody_is_clean_and_right():
    n = 512
    g = np.random.default_rng(2)
    pos = np.c_[g.normal(size=(n, 3)), g.uniform(0.5, 1, n)].astype(np.float32)
    r = tack.check(nbody_tiled, tack.array(pos), tack.zeros((n, 3)), n, 0.01).require_clean()
    np.testing.assert_allclose(r.outputs["acc"], _nbody_ref(pos, 0.01), rtol=2e-3, atol=2e-3)


@tack.kernel
def sums_per_group(x, out, n):
    for i in range(n):
        s = tack.block_sum(x[i])
        m = tack.block_max(x[i])
        if tack.thread_id() == 0:
            out[i // 256] = s + m


def test_the_library_block_reductions_are_clean():
    h = np.random.default_rng(3).normal(size=512).astype(np.float32)
    r = tack.check(sums_per_group, tack.array(h), tack.zeros(2), 512).require_clean()
    want = h.reshape(2, 256).sum(1) + h.reshape(2, 256).max(1)
    np.testing.assert_allclose(r.outputs["out"], want, rtol=1e-5, atol=1e-5)
