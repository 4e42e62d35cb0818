#!/usr/bin/env python
"""CPU benchmark: Tack's native CPU engine against NumPy, Numba, Taichi and Warp, in one process.

    PYTHONPATH=python python bench/cpu.py                 # full sizes (takes minutes on 2 cores)
    PYTHONPATH=python python bench/cpu.py --quick         # small sizes: a CI smoke test
    PYTHONPATH=python python bench/cpu.py --only nbody --threads 2 --peers tack,numba

Benchmarks (float32; each implementation runs the same algorithm, see bench/_peers.py):
  saxpy      out = a*x + y, 2**24 elements                  GB/s  (12 bytes/element)
  stencil    2-D 5-point, 4096 x 4096, interior only        GB/s  (8 bytes/interior cell)
  nbody      all-pairs, 8192 bodies, softened               GFLOP/s (20 flop/interaction)
  softmax    row softmax, 4096 x 1024, one row per parallel iteration   GB/s (8 bytes/element)
  transform  out = sqrt(abs(x)), 2**24 elements             GB/s  (8 bytes/element)
Byte counts are the compulsory traffic (each input read once, each output written once).

Procedure per benchmark: every implementation is called once (compiles) and verified against a
float64 NumPy reference (a mismatch is reported loudly and makes the exit status 1), warmed up, and
its per-call time estimated; then all are timed in --rounds interleaved rounds (each round runs
every implementation in turn, the order rotating, so a burst of load from another process is
shared among them), N calls each in all (N adapts to a ~2 s budget, 5-50, unless --runs is
given); every timed call ends with the engine's synchronization (tack.sync(), ti.sync(),
wp.synchronize_device()). Results are verified again after timing. The table gives the median and
the minimum per call, and how much CPU other processes used meanwhile (from /proc/stat; "NOISY"
above 10% of a core). Then:
  * warm host cost of one launch: `transform` on 1-element arrays, launch + synchronize, in
    --launch-rounds interleaved rounds of one 2000-call block per implementation.
  * cold first call of `transform` (1024 elements): --cold-rounds rounds of one fresh process per
    engine, alternating: Tack with TACK_CACHE=off and from a filled disk cache, Taichi with
    offline_cache=False, Warp with an empty kernel cache, Numba compiling afresh (no cache=True).
    The package is byte-compiled first and PYTHONDONTWRITEBYTECODE cleared for the children, so
    they import cached bytecode as an installed package does. Import/init time is reported
    separately.
Ratios (bench/_stats.py) are per round, peer time / Tack time: the median and interquartile range
over the rounds, and a verdict only where that range lies on one side of 1.0. The summary gives,
per row, Tack's ratio to the best peer; n-body has a strict row (tack vs numba, numpy, warp) and a
fast-math row (tack-fm: fastmath=True with rsqrt, tack-soa-fm: the same on SoA arrays, vs
numba-fm, taichi and taichi-soa).
Peers that cannot be imported are skipped with a note. Numba is reported twice: fastmath=False
("numba", the reference for Tack's targets) and fastmath=True ("numba-fm"). Taichi runs with its
default fast_math=True. Warp's CPU backend runs each launch on one thread.
"""
from __future__ import annotations

import argparse
import importlib.util
import json
import os
import platform
import resource
import subprocess
import sys
import tempfile
import time
import traceback

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
sys.path.insert(0, HERE)
from _stats import bytecode_env, fmt_ratio, ratio_stats

if importlib.util.find_spec("tack") is None:  # not on PYTHONPATH: use this checkout's
    sys.path.insert(0, os.path.join(ROOT, "python"))

import numpy as np

_t0 = time.perf_counter()
import tack

TACK_IMPORT_S = time.perf_counter() - _t0

F32 = np.float32
perf = time.perf_counter


# ----------------------------------------------------------------------------------------------
# Tack kernels
# ----------------------------------------------------------------------------------------------
@tack.kernel
def saxpy(a, x, y, out):
    for i in range(x.shape[0]):
        out[i] = a * x[i] + y[i]


@tack.kernel
def stencil(a, out):
    for i in range(1, a.shape[0] - 1):
        for j in range(1, a.shape[1] - 1):
            out[i, j] = 0.2 * (a[i, j] + a[i - 1, j] + a[i + 1, j] + a[i, j - 1] + a[i, j + 1])


@tack.kernel
def nbody(pos, mass, eps2, acc):
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
            inv = 1.0 / sqrt(r2)  # noqa: F821 (a Tack builtin)
            s = mass[j] * inv * inv * inv
            ax += dx * s
            ay += dy * s
            az += dz * s
        acc[i, 0] = ax
        acc[i, 1] = ay
        acc[i, 2] = az


@tack.kernel(fastmath=True)
def nbody_fm(pos, mass, eps2, acc):
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
            inv = rsqrt(dx * dx + dy * dy + dz * dz + eps2)  # noqa: F821 (a Tack builtin)
            s = mass[j] * inv * inv * inv
            ax += dx * s
            ay += dy * s
            az += dz * s
        acc[i, 0] = ax
        acc[i, 1] = ay
        acc[i, 2] = az


@tack.kernel(fastmath=True)
def nbody_soa_fm(px, py, pz, mass, eps2, ax_out, ay_out, az_out):
    for i in range(px.shape[0]):
        xi = px[i]
        yi = py[i]
        zi = pz[i]
        ax = 0.0
        ay = 0.0
        az = 0.0
        for j in range(px.shape[0]):
            dx = px[j] - xi
            dy = py[j] - yi
            dz = pz[j] - zi
            inv = rsqrt(dx * dx + dy * dy + dz * dz + eps2)  # noqa: F821 (a Tack builtin)
            s = mass[j] * inv * inv * inv
            ax += dx * s
            ay += dy * s
            az += dz * s
        ax_out[i] = ax
        ay_out[i] = ay
        az_out[i] = az


@tack.kernel
def softmax(x, out):
    for i in range(x.shape[0]):
        mx = x[i, 0]
        for j in range(1, x.shape[1]):
            mx = max(mx, x[i, j])
        s = 0.0
        for j in range(x.shape[1]):
            e = exp(x[i, j] - mx)  # noqa: F821 (a Tack builtin)
            out[i, j] = e
            s += e
        inv = 1.0 / s
        for j in range(x.shape[1]):
            out[i, j] = out[i, j] * inv


@tack.kernel
def transform(x, out):
    for i in range(x.shape[0]):
        out[i] = sqrt(abs(x[i]))  # noqa: F821 (a Tack builtin)


TACK_KERNELS = {"saxpy": saxpy, "stencil": stencil, "nbody": nbody, "softmax": softmax,
                "transform": transform}
FAST_MATH = {"tack-fm", "tack-soa-fm", "numba-fm", "taichi", "taichi-soa"}  # n-body fast-math row


class TackPeer:
    label = "tack"

    def __init__(self, threads=None):
        self.note = "native CPU engine" + (f", num_threads={threads}" if threads else "")

    @staticmethod
    def args(name, inp):
        """The Tack arguments of benchmark `name` and its output array."""
        if name == "saxpy":
            out = tack.zeros(inp["x"].shape)
            return (float(inp["a"]), tack.array(inp["x"]), tack.array(inp["y"]), out), out
        if name == "stencil":
            out = tack.zeros(inp["a"].shape)
            return (tack.array(inp["a"]), out), out
        if name == "nbody":
            out = tack.zeros(inp["pos"].shape)
            return (tack.array(inp["pos"]), tack.array(inp["mass"]), float(inp["eps2"]), out), out
        out = tack.zeros(inp["x"].shape)
        return (tack.array(inp["x"]), out), out

    def prepare(self, name, inp):
        k = TACK_KERNELS[name]
        args, out = self.args(name, inp)
        sync = tack.sync

        def run():
            k(*args)
            sync()
        return run, out.numpy

    def launch(self):
        x = tack.array(np.full(1, -4.0, F32))
        out = tack.zeros(1)
        sync = tack.sync

        def run():
            transform(x, out)
            sync()
        return run


class TackNbodyPeer:
    """Tack's fast-math n-body rows (n-body only): `fastmath=True` with `rsqrt`, on the common
    (n, 3) layout ("tack-fm") and on SoA arrays beside Taichi's SoA fields ("tack-soa-fm")."""

    def __init__(self, soa: bool):
        self.soa = soa
        self.label = "tack-soa-fm" if soa else "tack-fm"
        self.note = ("n-body only: fastmath=True, rsqrt, " + ("SoA arrays px, py, pz, acc x/y/z"
                                                             if soa else "(n, 3) arrays"))

    def prepare(self, name, inp):
        if name != "nbody":
            raise _peers_mod().NotApplicable(name)
        pos, sync = inp["pos"], tack.sync
        if not self.soa:
            out = tack.zeros(pos.shape)
            args = (tack.array(pos), tack.array(inp["mass"]), float(inp["eps2"]), out)
            k, result = nbody_fm, out.numpy
        else:
            cols = [tack.array(np.ascontiguousarray(pos[:, c])) for c in range(3)]
            outs = [tack.zeros(pos.shape[0]) for _ in range(3)]
            args = (*cols, tack.array(inp["mass"]), float(inp["eps2"]), *outs)
            k = nbody_soa_fm

            def result():
                return np.stack([o.numpy() for o in outs], axis=1)

        def run():
            k(*args)
            sync()
        return run, result

    def launch(self):
        raise _peers_mod().NotApplicable("launch")


def _peers_mod():
    import _peers

    return _peers


# ----------------------------------------------------------------------------------------------
# Benchmarks: inputs, float64 references, metrics, tolerances
# ----------------------------------------------------------------------------------------------
NAMES = ("saxpy", "stencil", "nbody", "softmax", "transform")
SIZES = {
    "full": {"saxpy": 1 << 24, "stencil": 4096, "nbody": 8192, "softmax": (4096, 1024),
             "transform": 1 << 24},
    "quick": {"saxpy": 1 << 16, "stencil": 256, "nbody": 512, "softmax": (256, 128),
              "transform": 1 << 16},
}


def make_inputs(name, size, seed=1234):
    rng = np.random.default_rng(seed)
    if name == "saxpy":
        n = size
        inp = {"a": 2.5, "x": rng.standard_normal(n, F32), "y": rng.standard_normal(n, F32)}
        return inp, f"n={n}", 12.0 * n, "GB/s"
    if name == "stencil":
        n = size
        inp = {"a": rng.standard_normal((n, n), F32)}
        return inp, f"{n}x{n} (interior {n - 2}x{n - 2})", 8.0 * (n - 2) ** 2, "GB/s"
    if name == "nbody":
        n = size
        pos = rng.uniform(-1.0, 1.0, (n, 3)).astype(F32)
        mass = rng.uniform(0.5, 1.5, n).astype(F32) / F32(n)
        inp = {"pos": pos, "mass": mass, "eps2": 0.01}
        return inp, f"n={n} bodies, eps2=0.01", 20.0 * n * n, "GFLOP/s"
    if name == "softmax":
        r, c = size
        inp = {"x": (rng.standard_normal((r, c), F32) * F32(2.0))}
        return inp, f"{r}x{c}", 8.0 * r * c, "GB/s"
    if name == "transform":
        n = size
        inp = {"x": rng.standard_normal(n, F32)}
        return inp, f"n={n}", 8.0 * n, "GB/s"
    raise KeyError(name)


def reference(name, inp):
    """The float64 NumPy result (from the float32 inputs)."""
    if name == "saxpy":
        return inp["a"] * inp["x"].astype(np.float64) + inp["y"]
    if name == "stencil":
        a = inp["a"].astype(np.float64)
        out = np.zeros_like(a)
        out[1:-1, 1:-1] = 0.2 * (a[1:-1, 1:-1] + a[:-2, 1:-1] + a[2:, 1:-1] + a[1:-1, :-2]
                                 + a[1:-1, 2:])
        return out
    if name == "nbody":
        from _peers import nbody_numpy

        pos = inp["pos"].astype(np.float64)
        return nbody_numpy(pos, inp["mass"].astype(np.float64), inp["eps2"], np.zeros_like(pos))
    if name == "softmax":
        x = inp["x"].astype(np.float64)
        e = np.exp(x - x.max(axis=1, keepdims=True))
        return e / e.sum(axis=1, keepdims=True)
    if name == "transform":
        return np.sqrt(np.abs(inp["x"].astype(np.float64)))
    raise KeyError(name)


def check(name, actual, ref):
    """None if `actual` agrees with the float64 reference, else a description of the worst miss."""
    actual = np.asarray(actual)
    if actual.shape != ref.shape:
        return f"shape {actual.shape}, expected {ref.shape}"
    if not np.isfinite(actual).all():
        bad = np.argwhere(~np.isfinite(actual))[0]
        return f"non-finite value at {tuple(bad)}: {actual[tuple(bad)]}"
    scale = float(np.abs(ref).max()) or 1.0
    rtol, atol = {
        "saxpy": (2e-6, 1e-6),
        "stencil": (1e-5, 1e-6),
        # f32 sums of n terms that partly cancel: absolute tolerance relative to the largest
        "nbody": (1e-3, 2e-4 * scale),
        "softmax": (2e-5, 1e-9),
        "transform": (2e-6, 1e-7),  # the seed's tolerances
    }[name]
    err = np.abs(actual.astype(np.float64) - ref)
    bad = err > atol + rtol * np.abs(ref)
    if bad.any():
        idx = np.unravel_index(np.argmax(err - (atol + rtol * np.abs(ref))), ref.shape)
        return (f"{int(bad.sum())} of {ref.size} elements outside rtol={rtol:g}, atol={atol:g}; "
                f"worst at {tuple(int(i) for i in idx)}: got {actual[idx]!r}, "
                f"expected {ref[idx]!r}")
    return None


# ----------------------------------------------------------------------------------------------
# Timing
# ----------------------------------------------------------------------------------------------
def settle(seconds=0.2):
    """Let the previous engine's spinning workers go to sleep before timing the next one."""
    time.sleep(seconds)


def run_benchmark(name, size, peers, args, budget, failures):
    """Verify every implementation, then time them in interleaved rounds (each round runs every
    implementation in turn), so a burst of load from another process is shared among them."""
    import _peers

    inp, desc, amount, unit = make_inputs(name, size)
    ref = reference(name, inp)
    print(f"\n## {name}  ({desc}, float32; {unit} counts "
          f"{'20 flop/interaction' if unit == 'GFLOP/s' else 'compulsory bytes'})")
    rows, runs = {}, {}
    for p in peers:  # prepare, first call, verify, warm up, estimate the per-call time
        settle()
        row = {"impl": p.label}
        try:
            run, result = p.prepare(name, inp)
            t0 = perf()
            run()
            row["first_call_s"] = perf() - t0
            msg = check(name, result(), ref)
            if msg:
                raise AssertionError(f"WRONG RESULT: {msg}")
            for _ in range(3):
                run()
            t0 = perf()
            run()
            est = perf() - t0
            row["runs"] = args.runs or int(min(50, max(5, budget / max(est, 1e-9))))
            row["times"], row["round_med"] = [], []
            runs[p.label] = (run, result)
        except _peers.NotApplicable:
            continue
        except Exception as exc:  # noqa: BLE001 - report every failure, keep going
            row["error"] = f"{type(exc).__name__}: {exc}"
            failures.append(f"{name}/{p.label}: {row['error']}")
            if not isinstance(exc, AssertionError):
                row["traceback"] = traceback.format_exc(limit=4)
        rows[p.label] = row
    wait_quiet(args.wait_quiet)
    meter = CpuMeter()
    for r in range(args.rounds):
        order = list(runs.items())
        order = order[r % len(order):] + order[:r % len(order)]  # who goes first rotates
        for label, (run, _) in order:
            row = rows[label]
            k = -(-row["runs"] // args.rounds)  # this round's share
            settle(0.05)
            ts = []
            for _ in range(k):
                t0 = perf()
                run()
                ts.append(perf() - t0)
            row["times"] += ts
            row["round_med"].append(float(np.median(ts)))
    other = meter.other_busy()
    for label, (run, result) in runs.items():
        row = rows[label]
        msg = check(name, result(), ref)
        if msg:
            row["error"] = f"AssertionError: WRONG RESULT after timing: {msg}"
            failures.append(f"{name}/{label}: {row['error']}")
            continue
        ts = row.pop("times")
        row.update(median_s=float(np.median(ts)), min_s=float(np.min(ts)), runs=len(ts))
        row["rate"] = amount / row["median_s"] / 1e9
    runs.clear()
    print(f"   {'impl':11s} {'median':>12s} {'min':>12s} {'runs':>5s} {unit:>9s}   "
          f"tack speedup: median over rounds of (peer time / tack time)")
    tack_rounds = rows.get("tack", {}).get("round_med")
    for label, row in rows.items():
        if "error" in row:
            print(f"   {label:11s} FAILED  {row['error']}")
            continue
        ratio = ""
        if not label.startswith("tack") and tack_rounds:
            row["vs_tack"] = ratio_stats(tack_rounds, row["round_med"])
            row["tack_speedup"] = row["vs_tack"]["median"]
            ratio = fmt_ratio(row["vs_tack"])
        print(f"   {label:11s} {fmt_time(row['median_s']):>12s} {fmt_time(row['min_s']):>12s} "
              f"{row['runs']:5d} {row['rate']:9.2f}   {ratio}")
    if other is not None:
        print(f"   (other processes kept {other:.0%} of one core busy while this was timed"
              + ("; NOISY" if other > 0.1 else "") + ")")
    return {"desc": desc, "unit": unit, "amount": amount, "rows": rows, "other_busy": other}


def wait_quiet(limit_s, threshold=0.1, window=1.0, need=2):
    """Wait (at most limit_s) until other processes use < threshold of a core for `need`
    consecutive windows; say so when the machine stays busy."""
    if not limit_s:
        return True
    t_end, ok = perf() + limit_s, 0
    while perf() < t_end:
        m = CpuMeter()
        time.sleep(window)
        busy = m.other_busy()
        if busy is None:
            return True
        ok = ok + 1 if busy < threshold else 0
        if ok >= need:
            return True
    print(f"   (machine still busy after waiting {limit_s:g} s; timing anyway)")
    return False


class CpuMeter:
    """CPU time that processes other than this one used since creation (Linux /proc/stat)."""

    def __init__(self):
        self.t0, self.sys0, self.own0 = perf(), self._system_busy(), self._own()

    @staticmethod
    def _own():
        r = resource.getrusage(resource.RUSAGE_SELF)
        return r.ru_utime + r.ru_stime

    @staticmethod
    def _system_busy():
        try:
            with open("/proc/stat") as f:
                v = [int(x) for x in f.readline().split()[1:]]
        except (OSError, ValueError):
            return None
        idle = v[3] + (v[4] if len(v) > 4 else 0)
        return (sum(v[:8]) - idle) / os.sysconf("SC_CLK_TCK")

    def other_busy(self):
        """Average number of cores other processes kept busy (0.0 on a quiet machine)."""
        s1 = self._system_busy()
        if s1 is None or self.sys0 is None:
            return None
        wall = perf() - self.t0
        return max(0.0, (s1 - self.sys0) - (self._own() - self.own0)) / max(wall, 1e-9)



# ----------------------------------------------------------------------------------------------
# Peers
# ----------------------------------------------------------------------------------------------
ALL_PEERS = ("tack", "tack-fm", "tack-soa-fm", "numpy", "numba", "numba-fm", "taichi",
             "taichi-soa", "warp")


def make_peers(wanted, threads):
    import _peers

    peers, notes = [], []
    for label in wanted:
        try:
            if label == "tack":
                p = TackPeer(threads)
            elif label in ("tack-fm", "tack-soa-fm"):
                p = TackNbodyPeer(soa=label == "tack-soa-fm")
            elif label == "numpy":
                p = _peers.NumPyPeer()
            elif label in ("numba", "numba-fm"):
                p = _peers.NumbaPeer(fastmath=(label == "numba-fm"), threads=threads)
            elif label == "taichi":
                p = _peers.TaichiPeer(threads)
            elif label == "taichi-soa":
                p = _peers.TaichiSoAPeer(_peers.taichi_init(threads) if not any(
                    q.label == "taichi" for q in peers) else __import__("taichi"))
            elif label == "warp":
                p = _peers.WarpPeer()
            else:
                raise SystemExit(f"unknown peer {label!r}; choose from {', '.join(ALL_PEERS)}")
        except ImportError as exc:
            notes.append(f"{label}: skipped (not importable: {exc})")
            continue
        except Exception as exc:  # noqa: BLE001 - a peer that cannot start is skipped, loudly
            notes.append(f"{label}: skipped (failed to initialize: {type(exc).__name__}: {exc})")
            continue
        peers.append(p)
        notes.append(f"{label}: {p.note}")
    return peers, notes


# ----------------------------------------------------------------------------------------------
# Cold first call, in a child process
# ----------------------------------------------------------------------------------------------
def cold_child(engine):
    """Runs in a fresh process: time the first call of `transform` (compile + run)."""
    t_start = perf()
    n = 1024
    x = np.random.default_rng(7).standard_normal(n, F32)
    ref = np.sqrt(np.abs(x.astype(np.float64)))
    res = {"engine": engine}
    if engine.startswith("tack"):
        res["import_s"] = TACK_IMPORT_S
        xs, out = tack.array(x), tack.zeros(n)
        t0 = perf()
        transform(xs, out)
        tack.sync()
        res["first_s"] = perf() - t0
        t0 = perf()
        transform(xs, out)
        tack.sync()
        res["second_s"] = perf() - t0
        got = out.numpy()
    elif engine == "numba":
        t0 = perf()
        import _peers

        ks = _peers.numba_kernels(False)
        res["import_s"] = perf() - t0
        out = np.zeros_like(x)
        t0 = perf()
        ks["transform"](x, out)
        res["first_s"] = perf() - t0
        t0 = perf()
        ks["transform"](x, out)
        res["second_s"] = perf() - t0
        got = out
    elif engine == "taichi":
        t0 = perf()
        import _peers
        import taichi  # noqa: F401

        res["import_s"] = perf() - t0
        t0 = perf()
        ti = _peers.taichi_init(offline_cache=False)
        ks = _peers.taichi_kernels(ti, only="transform")
        res["init_s"] = perf() - t0
        out = np.zeros_like(x)
        t0 = perf()
        ks["transform"](x, out)
        ti.sync()
        res["first_s"] = perf() - t0
        t0 = perf()
        ks["transform"](x, out)
        ti.sync()
        res["second_s"] = perf() - t0
        got = out
    elif engine == "warp":
        t0 = perf()
        import _peers
        import warp  # noqa: F401

        res["import_s"] = perf() - t0
        t0 = perf()
        wp = _peers.warp_init(cache_dir=tempfile.mkdtemp(prefix="tack-bench-warp-"))
        wp.config.cache_kernels = False
        ks = _peers.warp_kernels(wp, only="transform")
        res["init_s"] = perf() - t0
        xs = wp.array(x, dtype=wp.float32, device="cpu")
        out = wp.zeros(n, dtype=wp.float32, device="cpu")
        t0 = perf()
        wp.launch(ks["transform"], dim=n, inputs=[xs, out], device="cpu")
        wp.synchronize_device("cpu")
        res["first_s"] = perf() - t0
        t0 = perf()
        wp.launch(ks["transform"], dim=n, inputs=[xs, out], device="cpu")
        wp.synchronize_device("cpu")
        res["second_s"] = perf() - t0
        got = out.numpy()
    else:
        raise SystemExit(f"unknown engine {engine!r}")
    res["check"] = check("transform", got, ref)
    res["process_s"] = perf() - t_start
    print("COLD " + json.dumps(res))


def run_cold(engine, env_extra, timeout=300, inherit=True):
    env = dict(os.environ) if inherit else {}
    env.update(env_extra)
    py = os.path.dirname(os.path.dirname(os.path.abspath(tack.__file__)))  # the same Tack
    env["PYTHONPATH"] = py + (os.pathsep + env["PYTHONPATH"] if env.get("PYTHONPATH") else "")
    cmd = [sys.executable, os.path.abspath(__file__), "--cold-child", engine]
    t0 = perf()
    p = subprocess.run(cmd, env=env, capture_output=True, text=True, timeout=timeout,
                       check=False)
    wall = perf() - t0
    for line in p.stdout.splitlines():
        if line.startswith("COLD "):
            r = json.loads(line[5:])
            r["subprocess_wall_s"] = wall
            return r
    tail = (p.stderr or p.stdout).strip().splitlines()[-3:]
    return {"engine": engine, "error": f"exit {p.returncode}: " + " | ".join(tail)}


# ----------------------------------------------------------------------------------------------
# Reporting helpers
# ----------------------------------------------------------------------------------------------
def fmt_time(s):
    if s is None:
        return "-"
    if s < 1e-3:
        return f"{s * 1e6:.2f} us"
    if s < 1:
        return f"{s * 1e3:.3f} ms"
    return f"{s:.3f} s"


def machine_info():
    model = "unknown"
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith("model name"):
                    model = line.split(":", 1)[1].strip()
                    break
    except OSError:
        model = platform.processor() or "unknown"
    vers = {"python": platform.python_version(), "numpy": np.__version__,
            "tack": getattr(tack, "__version__", "?")}
    for mod in ("numba", "llvmlite", "taichi", "warp"):
        try:
            m = __import__(mod)
            v = getattr(m, "__version__", None)
            vers[mod] = ".".join(map(str, v)) if isinstance(v, tuple) else str(v)
        except Exception:  # noqa: BLE001
            vers[mod] = "not installed"
    try:
        commit = subprocess.run(["git", "-C", ROOT, "rev-parse", "--short", "HEAD"], check=False,
                                capture_output=True, text=True).stdout.strip()
    except OSError:
        commit = "?"
    return {"nproc": os.cpu_count(), "affinity": len(os.sched_getaffinity(0)),
            "cpu": model, "versions": vers, "commit": commit, "platform": platform.platform()}


def inspect_tack(names, sizes):
    """Print, per Tack kernel, the vector types and calls in its optimized LLVM IR."""
    import re

    for name in names:
        inp, *_ = make_inputs(name, sizes[name])
        args, _ = TackPeer.args(name, inp)
        via = ""
        try:
            ir = tack.inspect(TACK_KERNELS[name], *args, mode="optimized")
        except Exception as exc:  # noqa: BLE001 - fall back to the engine's own pipeline
            try:
                from tack.compiler import specialize
                from tack.render.llvm.printer import render
                from tack.toolchain.llvm_host import optimize

                ir = optimize(render(specialize(TACK_KERNELS[name], args)))
                via = f"  [tack.inspect failed ({type(exc).__name__}: {exc}); used internals]"
            except Exception as exc2:  # noqa: BLE001
                print(f"  {name:10s} inspect failed: {type(exc).__name__}: {exc}; "
                      f"fallback: {type(exc2).__name__}: {exc2}")
                continue
        vec = sorted(set(re.findall(r"<(\d+) x (float|double|i32|i64)>", ir)),
                     key=lambda t: (t[1], int(t[0])))
        calls = sorted(set(re.findall(r"call [^@]*@([\w.]+)", ir)))
        print(f"  {name:10s} vector types: {', '.join(f'<{n} x {t}>' for n, t in vec) or 'none'}"
              f"; calls: {', '.join(calls) or 'none'}{via}")


# ----------------------------------------------------------------------------------------------
# Warm launch, cold first call and the summary: interleaved rounds, robust ratios (bench/_stats.py)
# ----------------------------------------------------------------------------------------------
def measure_launch(peers, args, results, failures):
    """Each round times one block of `per_block` launches of every peer in turn (the order
    rotates); a round's ratio compares blocks that ran back to back."""
    import _peers

    rounds, per_block = (3, 100) if args.quick else (args.launch_rounds, 2000)
    print(f"\n## warm launch cost: transform on 1-element arrays, launch + sync ({rounds} "
          f"interleaved rounds of one {per_block}-call block per implementation)")
    runs = {}
    for p in peers:
        try:
            run = p.launch()
            for _ in range(per_block):  # warm
                run()
            runs[p.label] = run
        except _peers.NotApplicable:
            continue
        except Exception as exc:  # noqa: BLE001
            failures.append(f"launch/{p.label}: {type(exc).__name__}: {exc}")
            print(f"   {p.label:11s} FAILED  {type(exc).__name__}: {exc}")
    wait_quiet(args.wait_quiet)
    meter = CpuMeter()
    blocks = {label: [] for label in runs}
    items = list(runs.items())
    for r in range(rounds):
        for label, run in items[r % len(items):] + items[:r % len(items)]:
            t0 = perf()
            for _ in range(per_block):
                run()
            blocks[label].append((perf() - t0) / per_block)
    other = meter.other_busy()
    tack_b = blocks.get("tack")
    for label, bs in blocks.items():
        row = {"impl": label, "median_s": float(np.median(bs)), "min_s": float(np.min(bs)),
               "calls": rounds * per_block, "rounds": bs}
        ratio = ""
        if label != "tack" and tack_b:
            row["vs_tack"] = ratio_stats(tack_b, bs)
            ratio = "tack speedup " + fmt_ratio(row["vs_tack"])
        results["launch"].append(row)
        print(f"   {label:11s} {fmt_time(row['median_s']):>10s}  (min {fmt_time(row['min_s'])})"
              f"   {ratio}")
    if other is not None:
        print(f"   (other processes kept {other:.0%} of one core busy meanwhile"
              + ("; NOISY" if other > 0.1 else "") + ")")
    results["launch_other_busy"] = other


def cold_plan(labels):
    plan = []
    if "tack" in labels:
        plan += [("tack", {"TACK_CACHE": "off"}, "tack (TACK_CACHE=off)"),
                 ("tack", {"TACK_CACHE": "on"}, "tack (from the disk cache)")]
    if "numba" in labels or "numba-fm" in labels:
        plan.append(("numba", {}, "numba (parallel=True)"))
    if "taichi" in labels:
        plan.append(("taichi", {}, "taichi (offline_cache=False)"))
    if "warp" in labels:
        plan.append(("warp", {}, "warp (empty kernel cache)"))
    return plan


def measure_cold(peers, args, results, failures):
    """Alternating fresh processes: each round starts one child per engine in turn."""
    rounds = 1 if args.quick else args.cold_rounds
    base, note = bytecode_env([os.path.dirname(os.path.abspath(tack.__file__)), HERE])
    print(f"\n## cold first call of transform (1024 elements), {rounds} rounds of one fresh "
          f"process per engine, alternating; import/init reported separately\n   ({note})")
    plan = cold_plan([p.label for p in peers])
    cache_dir = tempfile.mkdtemp(prefix="tack-bench-cache-")
    base = dict(base, TACK_CACHE_DIR=cache_dir)
    if args.threads:
        base["TACK_CPU_THREADS"] = str(args.threads)
    run_cold("tack", dict(base, TACK_CACHE="on"), inherit=False)  # fills the cache for the cached row
    got = {title: [] for _, _, title in plan}
    for r in range(rounds):
        for engine, env, title in plan[r % len(plan):] + plan[:r % len(plan)]:
            try:
                res = run_cold(engine, dict(base, **env), inherit=False)
            except Exception as exc:  # noqa: BLE001
                res = {"engine": engine, "error": f"{type(exc).__name__}: {exc}"}
            if "error" in res:
                failures.append(f"cold/{title}: {res['error']}")
            elif res.get("check"):
                failures.append(f"cold/{title}: WRONG RESULT: {res['check']}")
            got[title].append(res)
    tack_first = [r.get("first_s") for r in got.get("tack (TACK_CACHE=off)", [])]
    for _, _, title in plan:
        rs = [r for r in got[title] if "first_s" in r]
        if not rs:
            print(f"   {title:28s} FAILED  {got[title][-1].get('error') if got[title] else ''}")
            continue
        first = [r["first_s"] for r in rs]
        row = {"title": title, "first_s": float(np.median(first)), "first_all": first,
               "second_s": float(np.median([r["second_s"] for r in rs])),
               "import_s": float(np.median([r["import_s"] for r in rs]))}
        extra = f"import {fmt_time(row['import_s'])}"
        if "init_s" in rs[0]:
            row["init_s"] = float(np.median([r["init_s"] for r in rs]))
            extra += f", init {fmt_time(row['init_s'])}"
        ratio = ""
        if not title.startswith("tack") and tack_first:
            row["vs_tack"] = ratio_stats(tack_first, [r.get("first_s") for r in got[title]])
            ratio = "\n      tack (cache off) speedup " + fmt_ratio(row["vs_tack"])
        results["cold"].append(row)
        print(f"   {title:28s} first call {fmt_time(row['first_s']):>10s} "
              f"({fmt_time(min(first))}-{fmt_time(max(first))})  second "
              f"{fmt_time(row['second_s']):>9s}  ({extra}){ratio}")


def summary(results):
    """Per row, Tack's speed relative to the best peer (peer time / Tack time: >= 1.00 means
    Tack is at least as fast), so that a regression shows at a glance."""
    lines = []
    for name, b in results["benchmarks"].items():
        rows = {k: v for k, v in b["rows"].items() if "error" not in v}
        groups = [(name, "tack", [k for k in rows if not k.startswith("tack")])]
        if name == "nbody":
            groups = [("nbody strict", "tack",
                       [k for k in rows if not k.startswith("tack") and k not in FAST_MATH]),
                      ("nbody fast math", "tack-fm|tack-soa-fm",
                       [k for k in rows if k in FAST_MATH and not k.startswith("tack")])]
        for title, mine, others in groups:
            tacks = [k for k in mine.split("|") if k in rows]
            others = [k for k in others if k in rows]
            if not tacks or not others:
                continue
            me = min(tacks, key=lambda k: rows[k]["median_s"])
            best = min(others, key=lambda k: rows[k]["median_s"])
            st = ratio_stats(rows[me]["round_med"], rows[best]["round_med"])
            lines.append((title, me, best, st))
    launch = {r["impl"]: r for r in results["launch"]}
    if "tack" in launch and len(launch) > 1:
        best = min((k for k in launch if k != "tack"), key=lambda k: launch[k]["median_s"])
        lines.append(("warm launch", "tack", best, launch[best].get("vs_tack")))
    cold = {r["title"]: r for r in results["cold"]}
    peers = [k for k in cold if not k.startswith("tack") and "vs_tack" in cold[k]]
    if "tack (TACK_CACHE=off)" in cold and peers:
        best = min(peers, key=lambda k: cold[k]["first_s"])
        lines.append(("cold first call", "tack (cache off)", best.split(" ")[0],
                      cold[best]["vs_tack"]))
    if not lines:
        return
    print("\n## summary: Tack's speed relative to the best peer per row (>= 1.00: at least as "
          "fast)")
    for title, me, best, st in lines:
        print(f"   {title:16s} {me:17s} vs {best:11s} {fmt_ratio(st)}")
    results["summary"] = [{"row": t, "tack": m, "best_peer": b, "ratio": st}
                          for t, m, b, st in lines]


# ----------------------------------------------------------------------------------------------
# Main
# ----------------------------------------------------------------------------------------------
def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--quick", action="store_true", help="small sizes (CI smoke test)")
    ap.add_argument("--only", choices=(*NAMES, "launch", "cold"), action="append",
                    help="run only this benchmark, or only the warm-launch or cold-first-call "
                         "measurement (repeatable)")
    ap.add_argument("--threads", type=int, default=None,
                    help="worker threads for Tack (set_default_device('cpu', num_threads=N)), "
                         "Numba and Taichi")
    ap.add_argument("--peers", default=",".join(ALL_PEERS),
                    help=f"comma-separated implementations (default: {','.join(ALL_PEERS)})")
    ap.add_argument("--runs", type=int, default=None, help="timed calls per measurement "
                    "(default: adaptive, 5-50 within a ~2 s budget)")
    ap.add_argument("--rounds", type=int, default=None,
                    help="interleaved timing rounds (default 5; --quick: 2)")
    ap.add_argument("--wait-quiet", type=float, default=0, metavar="S",
                    help="before each measurement, wait up to S seconds for other processes to "
                         "leave the CPUs idle (for shared machines; default 0: don't wait)")
    ap.add_argument("--retry-noisy", type=int, default=0, metavar="K",
                    help="measure a benchmark up to K more times while other processes used "
                         "> 10%% of a core during it; keep the quietest attempt (default 0)")
    ap.add_argument("--no-cold", action="store_true", help="skip the cold first-call subprocesses")
    ap.add_argument("--no-launch", action="store_true", help="skip the launch-overhead measurement")
    ap.add_argument("--launch-rounds", type=int, default=30,
                    help="interleaved rounds of the warm-launch measurement (default 30)")
    ap.add_argument("--cold-rounds", type=int, default=7,
                    help="rounds of fresh processes for the cold first call (default 7)")
    ap.add_argument("--inspect", action="store_true",
                    help="also print vector types found in Tack's optimized LLVM IR per kernel")
    ap.add_argument("--json", metavar="PATH", help="also write all results as JSON to PATH")
    ap.add_argument("--cold-child", metavar="ENGINE", help=argparse.SUPPRESS)
    args = ap.parse_args(argv)
    if args.rounds is None:
        args.rounds = 2 if args.quick else 5

    if args.threads is not None and args.threads < 1:
        ap.error("--threads must be >= 1")
    if args.threads:
        tack.set_default_device("cpu", num_threads=args.threads)
    else:
        tack.set_default_device("cpu")
    if args.cold_child:
        cold_child(args.cold_child)
        return 0

    names = [n for n in args.only if n in NAMES] if args.only else list(NAMES)
    if args.only:
        args.no_launch = args.no_launch or "launch" not in args.only
        args.no_cold = args.no_cold or "cold" not in args.only
    sizes = SIZES["quick" if args.quick else "full"]
    budget = 0.02 if args.quick else 2.0
    wanted = [p.strip() for p in args.peers.split(",") if p.strip()]
    info = machine_info()
    results = {"machine": info, "argv": sys.argv[1:], "benchmarks": {}, "cold": [], "launch": [],
               "failures": []}
    print(f"# Tack CPU benchmark  (commit {info['commit']})")
    print(f"# CPU: {info['cpu']}; nproc={info['nproc']} (affinity {info['affinity']}); "
          f"threads={args.threads or 'default'}")
    print("# versions: " + ", ".join(f"{k} {v}" for k, v in info["versions"].items()))
    load0 = os.getloadavg()
    results["loadavg_start"] = load0
    print(f"# load average at start: {load0[0]:.2f} {load0[1]:.2f} {load0[2]:.2f}"
          + ("   (WARNING: other processes are using the CPU; timings will be noisy)"
             if load0[0] > 0.5 else ""))
    peers, notes = make_peers(wanted, args.threads)
    for n in notes:
        print(f"#   {n}")
    results["peer_notes"] = notes
    failures = results["failures"]

    for name in names:
        best = None
        for attempt in range(1 + args.retry_noisy):
            if attempt:
                print(f"   (noisy: measuring {name} again, attempt {attempt + 1})")
            res = run_benchmark(name, sizes[name], peers, args, budget, failures)
            res["attempt"] = attempt + 1
            if best is None or (res["other_busy"] or 0) < (best["other_busy"] or 0):
                best = res
            sys.stdout.flush()
            if (res["other_busy"] or 0) <= 0.1:
                break
        if best["attempt"] != res["attempt"]:
            print(f"   (kept attempt {best['attempt']}, the quietest)")
        results["benchmarks"][name] = best
    failures[:] = list(dict.fromkeys(failures))

    if not args.no_launch:
        measure_launch(peers, args, results, failures)
        sys.stdout.flush()
    if not args.no_cold:
        measure_cold(peers, args, results, failures)

    summary(results)
    if args.inspect and "tack" in wanted:
        print("\n## Tack optimized LLVM IR: vector types and calls per kernel")
        inspect_tack(names, sizes)

    load1 = os.getloadavg()
    results["loadavg_end"] = load1
    print(f"\n# load average at end: {load1[0]:.2f} {load1[1]:.2f} {load1[2]:.2f} "
          "(this process contributes up to the thread count)")
    if args.json:
        with open(args.json, "w") as f:
            json.dump(results, f, indent=1, default=str)
    if failures:
        print("\n" + "!" * 78)
        print(f"!! {len(failures)} FAILURE(S):")
        for f_ in failures:
            print(f"!!   {f_}")
        print("!" * 78)
        return 1
    print("\nall implementations verified against float64 NumPy references")
    return 0


if __name__ == "__main__":
    sys.exit(main())
