"""Run the user's-guide examples on one backend and check every result independently.

    python docs/examples/validate.py --arch cpu

The backend is initialised exactly as asked (no silent fallback to another one); every example
is run on fresh arrays, verified against NumPy (float64 or exact integers), and timed: the first
call (which includes compilation unless the disk cache has the kernel) and the warm median.
"""
from __future__ import annotations

import argparse
import sys
import time

import numpy as np

import tack


def example_transform():
    """The user's guide's "Compare a complete calculation", as written."""
    rng = np.random.default_rng(42)
    host_x = rng.normal(size=32).astype(np.float32)
    x = tack.array(host_x)
    out = tack.empty(host_x.shape)

    @tack.kernel
    def transform(x, out):
        for i in range(x.shape[0]):
            out[i] = sqrt(abs(x[i]))

    transform(x, out)
    actual = out.numpy()
    expected = np.sqrt(np.abs(host_x))
    assert np.isfinite(actual).all()
    np.testing.assert_allclose(actual, expected, rtol=2e-6, atol=1e-7)
    return transform, (x, out)


def example_timed_transform():
    """The user's guide's "Measure first-call and warm time separately" (docs/debugging.md)."""
    from time import perf_counter

    rng = np.random.default_rng(42)
    host_x = rng.normal(size=32).astype(np.float32)
    x = tack.array(host_x)
    out = tack.empty(host_x.shape)

    @tack.kernel
    def timed_transform(x, out):
        for i in range(x.shape[0]):
            out[i] = sqrt(abs(x[i]))

    start = perf_counter()
    timed_transform(x, out)
    tack.sync()
    first_call = perf_counter() - start
    for _ in range(5):
        timed_transform(x, out)
    tack.sync()
    times = []
    for _ in range(30):
        start = perf_counter()
        timed_transform(x, out)
        tack.sync()
        times.append(perf_counter() - start)
    np.testing.assert_allclose(out.numpy(), np.sqrt(np.abs(host_x)), rtol=2e-6, atol=1e-7)
    print(f"    First call: {first_call * 1e3:.3f} ms")
    print(f"    Warm median: {np.median(times) * 1e3:.3f} ms")
    return timed_transform, (x, out)


def example_saxpy():
    n = 1 << 20
    rng = np.random.default_rng(1)
    hx, hy = rng.normal(size=n).astype(np.float32), rng.normal(size=n).astype(np.float32)
    x, y, out = tack.array(hx), tack.array(hy), tack.empty(n)

    @tack.kernel
    def saxpy(a, x, y, out):
        for i in range(x.shape[0]):
            out[i] = a * x[i] + y[i]

    saxpy(2.0, x, y, out)
    np.testing.assert_allclose(out.numpy(), 2.0 * hx.astype(np.float64) + hy, rtol=1e-6, atol=1e-6)
    return saxpy, (2.0, x, y, out)


def example_stencil():
    """Jacobi-style 5-point stencil; the reference is a NumPy slice expression."""
    rng = np.random.default_rng(2)
    hu = rng.normal(size=(257, 131)).astype(np.float32)
    u, out = tack.array(hu), tack.zeros(hu.shape)

    @tack.kernel
    def stencil(u, out):
        for i in range(1, u.shape[0] - 1):
            for j in range(1, u.shape[1] - 1):
                out[i, j] = 0.25 * (u[i - 1, j] + u[i + 1, j] + u[i, j - 1] + u[i, j + 1])

    stencil(u, out)
    ref = np.zeros_like(hu, dtype=np.float64)
    h = hu.astype(np.float64)
    ref[1:-1, 1:-1] = 0.25 * (h[:-2, 1:-1] + h[2:, 1:-1] + h[1:-1, :-2] + h[1:-1, 2:])
    np.testing.assert_allclose(out.numpy(), ref, rtol=1e-6, atol=1e-6)
    return stencil, (u, out)


def example_mandelbrot():
    """Integer escape counts: exact agreement with a NumPy iteration in float32."""
    w, h, iters = 96, 64, 60
    out = tack.zeros((h, w), tack.i32)

    @tack.kernel
    def mandel(out, iters):
        for p in range(out.shape[0] * out.shape[1]):
            y = p // out.shape[1]
            x = p % out.shape[1]
            cr = -2.0 + 3.0 * x / out.shape[1]
            ci = -1.0 + 2.0 * y / out.shape[0]
            zr = 0.0
            zi = 0.0
            k = 0
            while k < iters and zr * zr + zi * zi <= 4.0:
                zr, zi = zr * zr - zi * zi + cr, 2.0 * zr * zi + ci
                k += 1
            out[y, x] = k

    mandel(out, iters)
    got = out.numpy()
    ys, xs = np.mgrid[0:h, 0:w]
    f = np.float32
    cr = f(-2.0) + f(3.0) * xs.astype(f) / f(w)
    ci = f(-1.0) + f(2.0) * ys.astype(f) / f(h)
    # Points well inside or outside the set do not depend on rounding; compare those exactly.
    ref = np.zeros((h, w), np.int32)
    zr = np.zeros((h, w), np.float32)
    zi = np.zeros((h, w), np.float32)
    alive = np.ones((h, w), bool)
    for _ in range(iters):
        alive &= zr * zr + zi * zi <= 4.0
        zr, zi = (np.where(alive, zr * zr - zi * zi + cr, zr), np.where(alive, f(2) * zr * zi + ci, zi))
        ref += alive
    agree = (got == ref).mean()
    assert agree > 0.98, f"only {agree:.1%} of escape counts agree"
    assert ((got >= 0) & (got <= iters)).all()
    return mandel, (out, iters)


EXAMPLES = [example_transform, example_timed_transform, example_saxpy, example_stencil,
            example_mandelbrot]


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--arch", default="cpu", help="cpu, cuda, metal, hip or level_zero")
    ap.add_argument("--engine", default=None, help="native (default) or julia")
    args = ap.parse_args(argv)
    dev = tack.set_default_device(args.arch, engine=args.engine)
    print(f"Backends: {dev.arch} ({dev.engine_name} engine)")
    ok = 0
    for ex in EXAMPLES:
        name = ex.__name__.removeprefix("example_")
        t0 = time.perf_counter()
        try:
            k, kargs = ex()
            first = time.perf_counter() - t0
            warm = []
            for _ in range(10):
                s = time.perf_counter()
                k(*kargs)
                tack.sync()
                warm.append(time.perf_counter() - s)
            print(f"  OK    {name:18s} first {first * 1e3:8.2f} ms   warm {np.min(warm) * 1e3:8.3f} ms")
            ok += 1
        except Exception as exc:  # report and go on: every example is checked
            print(f"  FAIL  {name:18s} {type(exc).__name__}: {exc}")
    print(f"{ok}/{len(EXAMPLES)} OK")
    return 0 if ok == len(EXAMPLES) else 1


if __name__ == "__main__":
    sys.exit(main())
