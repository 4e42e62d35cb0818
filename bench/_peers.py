"""Peer implementations for bench/cpu.py: NumPy, Numba, Taichi and Warp.

Every peer is imported lazily (a missing package is reported, not fatal). Each peer exposes
`prepare(name, inp) -> (run, result)`: `run()` executes the benchmark once and returns when the
work is finished (it synchronizes); `result()` returns the output as a NumPy array. All peers run
the same algorithm as the Tack kernels in bench/cpu.py, in float32, on the same input arrays:

  saxpy      out[i] = a * x[i] + y[i]
  stencil    out[i, j] = 0.2 * (a[i, j] + a[i-1, j] + a[i+1, j] + a[i, j-1] + a[i, j+1]), interior
  nbody      acc[i] = sum_j m[j] * d_ij / (|d_ij|^2 + eps2)^(3/2), d_ij = p[j] - p[i]
  softmax    one row per parallel iteration: max, then sum of exp (stored), then scale by 1/sum
  transform  out[i] = sqrt(abs(x[i]))

`launch()` returns a zero-argument callable that runs `transform` on 1-element arrays (one
launch plus synchronization) for the host-overhead measurement.
"""

import numpy as np

F32 = np.float32


class NotApplicable(Exception):
    """A peer variant that exists for some benchmarks only (its rows are left out)."""


# ----------------------------------------------------------------------------------------------
# NumPy (vectorized array expressions, float32; not parallel)
# ----------------------------------------------------------------------------------------------
class NumPyPeer:
    label = "numpy"
    note = "array expressions, single-threaded"

    def prepare(self, name, inp):
        if name == "saxpy":
            a, x, y = F32(inp["a"]), inp["x"], inp["y"]
            out = np.zeros_like(x)

            def run():
                np.multiply(x, a, out=out)
                np.add(out, y, out=out)
        elif name == "stencil":
            a = inp["a"]
            out = np.zeros_like(a)
            c = F32(0.2)
            tmp = np.empty_like(a[1:-1, 1:-1])

            def run():
                o = out[1:-1, 1:-1]
                np.add(a[1:-1, 1:-1], a[:-2, 1:-1], out=tmp)
                np.add(tmp, a[2:, 1:-1], out=tmp)
                np.add(tmp, a[1:-1, :-2], out=tmp)
                np.add(tmp, a[1:-1, 2:], out=tmp)
                np.multiply(tmp, c, out=o)
        elif name == "nbody":
            pos, m, eps2 = inp["pos"], inp["mass"], F32(inp["eps2"])
            out = np.zeros_like(pos)

            def run():
                nbody_numpy(pos, m, eps2, out)
        elif name == "softmax":
            x = inp["x"]
            out = np.zeros_like(x)

            def run():
                mx = x.max(axis=1, keepdims=True)
                np.subtract(x, mx, out=out)
                np.exp(out, out=out)
                s = out.sum(axis=1, keepdims=True)
                np.multiply(out, F32(1.0) / s, out=out)
        elif name == "transform":
            x = inp["x"]
            out = np.zeros_like(x)

            def run():
                np.abs(x, out=out)
                np.sqrt(out, out=out)
        else:
            raise KeyError(name)
        return run, lambda: out.copy()

    def launch(self):
        x = np.full(1, -4.0, F32)
        out = np.zeros(1, F32)

        def run():
            np.abs(x, out=out)
            np.sqrt(out, out=out)
        return run


def nbody_numpy(pos, m, eps2, out, block=256):
    """Blocked all-pairs in the dtype of `pos` (float32 here, float64 for the reference)."""
    n = pos.shape[0]
    px, py, pz = pos[:, 0], pos[:, 1], pos[:, 2]
    for i0 in range(0, n, block):
        i1 = min(n, i0 + block)
        dx = px[None, :] - px[i0:i1, None]
        dy = py[None, :] - py[i0:i1, None]
        dz = pz[None, :] - pz[i0:i1, None]
        r2 = dx * dx + dy * dy + dz * dz + eps2
        inv = 1 / np.sqrt(r2)
        s = m[None, :] * (inv * inv * inv)
        out[i0:i1, 0] = (dx * s).sum(axis=1)
        out[i0:i1, 1] = (dy * s).sum(axis=1)
        out[i0:i1, 2] = (dz * s).sum(axis=1)
    return out


# ----------------------------------------------------------------------------------------------
# Numba: @njit(parallel=True) with prange
# ----------------------------------------------------------------------------------------------
_NUMBA_CACHE: dict = {}


def numba_kernels(fastmath: bool):
    """The Numba kernels (compiled lazily at their first call), one set per fastmath flag."""
    if fastmath in _NUMBA_CACHE:
        return _NUMBA_CACHE[fastmath]
    import numba
    from numba import njit, prange

    one = F32(1.0)
    fifth = F32(0.2)
    zero = F32(0.0)
    opts = {"parallel": True, "fastmath": fastmath}

    @njit(**opts)
    def saxpy(a, x, y, out):
        for i in prange(x.shape[0]):
            out[i] = a * x[i] + y[i]

    @njit(**opts)
    def stencil(a, out):
        n, m = a.shape
        for i in prange(1, n - 1):
            for j in range(1, m - 1):
                out[i, j] = fifth * (a[i, j] + a[i - 1, j] + a[i + 1, j] + a[i, j - 1]
                                     + a[i, j + 1])

    @njit(**opts)
    def nbody(pos, mass, eps2, acc):
        n = pos.shape[0]
        for i in prange(n):
            xi = pos[i, 0]
            yi = pos[i, 1]
            zi = pos[i, 2]
            ax = zero
            ay = zero
            az = zero
            for j in range(n):
                dx = pos[j, 0] - xi
                dy = pos[j, 1] - yi
                dz = pos[j, 2] - zi
                r2 = dx * dx + dy * dy + dz * dz + eps2
                inv = one / np.sqrt(r2)
                s = mass[j] * inv * inv * inv
                ax += dx * s
                ay += dy * s
                az += dz * s
            acc[i, 0] = ax
            acc[i, 1] = ay
            acc[i, 2] = az

    @njit(**opts)
    def softmax(x, out):
        n, m = x.shape
        for i in prange(n):
            mx = x[i, 0]
            for j in range(1, m):
                mx = max(mx, x[i, j])
            s = zero
            for j in range(m):
                e = np.exp(x[i, j] - mx)
                out[i, j] = e
                s += e
            inv = one / s
            for j in range(m):
                out[i, j] = out[i, j] * inv

    @njit(**opts)
    def transform(x, out):
        for i in prange(x.shape[0]):
            out[i] = np.sqrt(np.abs(x[i]))

    ks = {"saxpy": saxpy, "stencil": stencil, "nbody": nbody, "softmax": softmax,
          "transform": transform, "numba": numba}
    _NUMBA_CACHE[fastmath] = ks
    return ks


class NumbaPeer:
    def __init__(self, fastmath=False, threads=None):
        import numba

        self.fastmath = fastmath
        self.label = "numba-fm" if fastmath else "numba"
        if threads:
            numba.set_num_threads(min(threads, numba.config.NUMBA_NUM_THREADS))
        self.k = numba_kernels(fastmath)
        self.note = (f"njit(parallel=True, fastmath={fastmath}), prange; "
                     f"{numba.get_num_threads()} threads")

    def prepare(self, name, inp):
        k = self.k[name]
        if name == "saxpy":
            a, x, y = F32(inp["a"]), inp["x"], inp["y"]
            out = np.zeros_like(x)
            args = (a, x, y, out)
        elif name == "stencil":
            out = np.zeros_like(inp["a"])
            args = (inp["a"], out)
        elif name == "nbody":
            out = np.zeros_like(inp["pos"])
            args = (inp["pos"], inp["mass"], F32(inp["eps2"]), out)
        elif name in ("softmax", "transform"):
            out = np.zeros_like(inp["x"])
            args = (inp["x"], out)
        else:
            raise KeyError(name)
        return (lambda: k(*args)), (lambda: out.copy())

    def launch(self):
        x = np.full(1, -4.0, F32)
        out = np.zeros(1, F32)
        k = self.k["transform"]
        k(x, out)
        return lambda: k(x, out)


# ----------------------------------------------------------------------------------------------
# Taichi (CPU backend; NumPy arrays passed as ti.types.ndarray, used in place)
# ----------------------------------------------------------------------------------------------
def taichi_init(threads=None, offline_cache=True):
    import taichi as ti

    kw = {"arch": ti.cpu, "log_level": ti.WARN, "offline_cache": offline_cache}
    if threads:
        kw["cpu_max_num_threads"] = threads
    ti.init(**kw)
    return ti


def taichi_kernels(ti, only=None):
    nd1 = ti.types.ndarray(dtype=ti.f32, ndim=1)
    nd2 = ti.types.ndarray(dtype=ti.f32, ndim=2)
    ks = {}

    @ti.kernel
    def transform(x: nd1, out: nd1):
        for i in range(x.shape[0]):
            out[i] = ti.sqrt(ti.abs(x[i]))

    ks["transform"] = transform
    if only == "transform":
        return ks

    @ti.kernel
    def saxpy(a: ti.f32, x: nd1, y: nd1, out: nd1):
        for i in range(x.shape[0]):
            out[i] = a * x[i] + y[i]

    @ti.kernel
    def stencil(a: nd2, out: nd2):
        for i in range(1, a.shape[0] - 1):
            for j in range(1, a.shape[1] - 1):
                out[i, j] = 0.2 * (a[i, j] + a[i - 1, j] + a[i + 1, j] + a[i, j - 1]
                                   + a[i, j + 1])

    @ti.kernel
    def nbody(pos: nd2, mass: nd1, eps2: ti.f32, acc: nd2):
        for i in range(pos.shape[0]):
            xi = pos[i, 0]
            yi = pos[i, 1]
            zi = pos[i, 2]
            ax = 0.0
            ay = 0.0
            az = 0.0
            for j in range(pos.shape[0]):
                dx = pos[j, 0] - xi
                dy = pos[j, 1] - yi
                dz = pos[j, 2] - zi
                r2 = dx * dx + dy * dy + dz * dz + eps2
                inv = 1.0 / ti.sqrt(r2)
                s = mass[j] * inv * inv * inv
                ax += dx * s
                ay += dy * s
                az += dz * s
            acc[i, 0] = ax
            acc[i, 1] = ay
            acc[i, 2] = az

    @ti.kernel
    def softmax(x: nd2, out: nd2):
        for i in range(x.shape[0]):
            mx = x[i, 0]
            for j in range(1, x.shape[1]):
                mx = ti.max(mx, x[i, j])
            s = 0.0
            for j in range(x.shape[1]):
                e = ti.exp(x[i, j] - mx)
                out[i, j] = e
                s += e
            inv = 1.0 / s
            for j in range(x.shape[1]):
                out[i, j] = out[i, j] * inv

    ks.update(saxpy=saxpy, stencil=stencil, nbody=nbody, softmax=softmax)
    return ks


class TaichiPeer:
    label = "taichi"

    def __init__(self, threads=None):
        self.ti = taichi_init(threads)
        self.k = taichi_kernels(self.ti)
        self.note = ("ti.cpu, default fast_math=True, NumPy arrays as ndarray args"
                     + (f", cpu_max_num_threads={threads}" if threads else ""))

    def prepare(self, name, inp):
        k, sync = self.k[name], self.ti.sync
        if name == "saxpy":
            out = np.zeros_like(inp["x"])
            args = (float(inp["a"]), inp["x"], inp["y"], out)
        elif name == "stencil":
            out = np.zeros_like(inp["a"])
            args = (inp["a"], out)
        elif name == "nbody":
            out = np.zeros_like(inp["pos"])
            args = (inp["pos"], inp["mass"], float(inp["eps2"]), out)
        elif name in ("softmax", "transform"):
            out = np.zeros_like(inp["x"])
            args = (inp["x"], out)
        else:
            raise KeyError(name)

        def run():
            k(*args)
            sync()
        return run, lambda: out.copy()

    def launch(self):
        x = np.full(1, -4.0, F32)
        out = np.zeros(1, F32)
        k, sync = self.k["transform"], self.ti.sync

        def run():
            k(x, out)
            sync()
        return run


class TaichiSoAPeer:
    """Taichi's idiomatic n-body: SoA `ti.field`s and a Vector accumulator (n-body only). Shows
    what Taichi reaches with its own data structures; the `taichi` row uses the common layout."""

    label = "taichi-soa"
    note = "n-body only: SoA ti.field positions, ti.Vector accumulator (fast_math default)"

    def __init__(self, ti):
        self.ti = ti

    def prepare(self, name, inp):
        if name != "nbody":
            raise NotApplicable(name)
        ti = self.ti
        pos, n = inp["pos"], inp["pos"].shape[0]
        px, py, pz, m = (ti.field(ti.f32, n) for _ in range(4))
        acc = ti.Vector.field(3, ti.f32, n)
        for f, v in ((px, pos[:, 0]), (py, pos[:, 1]), (pz, pos[:, 2]), (m, inp["mass"])):
            f.from_numpy(np.ascontiguousarray(v))

        @ti.kernel
        def nbody(eps2: ti.f32):
            for i in range(n):
                xi, yi, zi = px[i], py[i], pz[i]
                a = ti.Vector([0.0, 0.0, 0.0])
                for j in range(n):
                    d = ti.Vector([px[j] - xi, py[j] - yi, pz[j] - zi])
                    r2 = d.dot(d) + eps2
                    inv = 1.0 / ti.sqrt(r2)
                    a += d * (m[j] * inv * inv * inv)
                acc[i] = a

        eps2 = float(inp["eps2"])

        def run():
            nbody(eps2)
            ti.sync()
        return run, acc.to_numpy

    def launch(self):
        raise NotApplicable("launch")


# ----------------------------------------------------------------------------------------------
# Warp (CPU device; Warp runs CPU launches on one thread)
# ----------------------------------------------------------------------------------------------
def warp_init(cache_dir=None):
    import warp as wp

    wp.config.log_level = getattr(wp, "LOG_WARNING", 30)
    if cache_dir is not None:
        wp.config.kernel_cache_dir = cache_dir
    wp.init()
    return wp


def warp_kernels(wp, only=None):
    f32 = wp.float32
    a1 = wp.array(dtype=f32)
    a2 = wp.array2d(dtype=f32)
    ks = {}

    @wp.kernel(module="unique")
    def transform(x: a1, out: a1):
        i = wp.tid()
        out[i] = wp.sqrt(wp.abs(x[i]))

    ks["transform"] = transform
    if only == "transform":
        return ks

    @wp.kernel(module="unique")
    def saxpy(a: f32, x: a1, y: a1, out: a1):
        i = wp.tid()
        out[i] = a * x[i] + y[i]

    @wp.kernel(module="unique")
    def stencil(a: a2, out: a2):
        i = wp.tid() + 1
        for j in range(1, a.shape[1] - 1):
            out[i, j] = f32(0.2) * (a[i, j] + a[i - 1, j] + a[i + 1, j] + a[i, j - 1]
                                    + a[i, j + 1])

    @wp.kernel(module="unique")
    def nbody(pos: a2, mass: a1, eps2: f32, acc: a2):
        i = wp.tid()
        xi = pos[i, 0]
        yi = pos[i, 1]
        zi = pos[i, 2]
        ax = f32(0.0)
        ay = f32(0.0)
        az = f32(0.0)
        for j in range(pos.shape[0]):
            dx = pos[j, 0] - xi
            dy = pos[j, 1] - yi
            dz = pos[j, 2] - zi
            r2 = dx * dx + dy * dy + dz * dz + eps2
            inv = f32(1.0) / wp.sqrt(r2)
            s = mass[j] * inv * inv * inv
            ax += dx * s
            ay += dy * s
            az += dz * s
        acc[i, 0] = ax
        acc[i, 1] = ay
        acc[i, 2] = az

    @wp.kernel(module="unique")
    def softmax(x: a2, out: a2):
        i = wp.tid()
        m = x.shape[1]
        mx = x[i, 0]
        for j in range(1, m):
            mx = wp.max(mx, x[i, j])
        s = f32(0.0)
        for j in range(m):
            e = wp.exp(x[i, j] - mx)
            out[i, j] = e
            s += e
        inv = f32(1.0) / s
        for j in range(m):
            out[i, j] = out[i, j] * inv

    ks.update(saxpy=saxpy, stencil=stencil, nbody=nbody, softmax=softmax)
    return ks


class WarpPeer:
    label = "warp"

    def __init__(self):
        self.wp = warp_init()
        self.k = warp_kernels(self.wp)
        self.note = "device='cpu' (Warp runs CPU kernels on one thread)"

    def _arr(self, a):
        return self.wp.array(a, dtype=self.wp.float32, device="cpu")

    def prepare(self, name, inp):
        wp = self.wp
        k = self.k[name]
        if name == "saxpy":
            x = self._arr(inp["x"])
            out = self._arr(np.zeros_like(inp["x"]))
            dim, args = x.shape[0], [F32(inp["a"]), x, self._arr(inp["y"]), out]
        elif name == "stencil":
            a = self._arr(inp["a"])
            out = self._arr(np.zeros_like(inp["a"]))
            dim, args = a.shape[0] - 2, [a, out]
        elif name == "nbody":
            pos = self._arr(inp["pos"])
            out = self._arr(np.zeros_like(inp["pos"]))
            dim, args = pos.shape[0], [pos, self._arr(inp["mass"]), F32(inp["eps2"]), out]
        elif name in ("softmax", "transform"):
            x = self._arr(inp["x"])
            out = self._arr(np.zeros_like(inp["x"]))
            dim, args = x.shape[0], [x, out]
        else:
            raise KeyError(name)

        def run():
            wp.launch(k, dim=dim, inputs=args, device="cpu")
            wp.synchronize_device("cpu")
        return run, lambda: out.numpy().copy()

    def launch(self):
        wp = self.wp
        x = self._arr(np.full(1, -4.0, F32))
        out = self._arr(np.zeros(1, F32))
        k = self.k["transform"]

        def run():
            wp.launch(k, dim=1, inputs=[x, out], device="cpu")
            wp.synchronize_device("cpu")
        return run
