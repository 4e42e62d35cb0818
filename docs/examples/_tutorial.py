"""What every tutorial shares: its command line, the backend started as asked, timing, checks.

Each tutorial (`heat.py`, `dye.py`, ...) takes the same options:

    --arch {cpu,cuda,sim,julia}   the backend; it starts as asked or the script exits non-zero
    --check                       small inputs, verified against independent references
    --output file.png             draw the result (matplotlib: the plot extra, '.[plot]')
    --size N                      the problem size (grid side, particles, bodies)

and ends by printing one `timing:` line (the first call, which includes compiling unless the disk
cache has the kernel, and the median warm call) that `validate.py` reads.
"""
from __future__ import annotations

import argparse
import importlib.util
import sys
import time

import numpy as np
import tack

ARCHES = ("cpu", "cuda", "sim", "julia")


class CheckFailed(AssertionError):
    """A --check comparison that did not hold."""


class NotAvailable(RuntimeError):
    """The backend asked for cannot start here."""


def parser(doc: str, size: int, check_size: int) -> argparse.ArgumentParser:
    """The tutorials' shared options; `size` is the default size, `check_size` the one --check
    uses unless --size is given."""
    ap = argparse.ArgumentParser(description=doc.strip().splitlines()[0])
    ap.add_argument("--arch", default="cpu", choices=ARCHES, help="the backend (default cpu)")
    ap.add_argument("--check", action="store_true", help="small inputs, checked independently")
    ap.add_argument("--output", metavar="FILE.png", help="draw the result with matplotlib")
    ap.add_argument("--size", type=int, default=None,
                    help=f"problem size (default {size}, {check_size} with --check)")
    ap.set_defaults(default_size=size, check_size=check_size)
    return ap


def parse(ap: argparse.ArgumentParser, argv=None) -> argparse.Namespace:
    args = ap.parse_args(argv)
    if args.size is None:
        args.size = args.check_size if args.check else args.default_size
    return args


def start(arch: str) -> tack.Device:
    """Select and start `arch` exactly; no fallback to another backend."""
    if arch == "julia":
        # The Julia engine needs juliacall; selecting it is lazy, so ask for the module first.
        if not _importable("juliacall"):
            raise NotAvailable("julia: not available (juliacall is not installed: "
                               "pip install '.[julia]' in a clone of Tack, see docs/julia.md)")
        return tack.set_default_device("cpu", engine="julia")
    try:
        return tack.set_default_device(arch)
    except (tack.TackError, ImportError, OSError) as exc:
        raise NotAvailable(f"{arch}: not available ({exc})") from exc


def _importable(module: str) -> bool:
    """Whether `import module` would find it (a module already imported counts, also a stand-in
    that a test put in sys.modules), without importing it."""
    if module in sys.modules:
        return sys.modules[module] is not None
    return importlib.util.find_spec(module) is not None


def check(ok, message: str) -> None:
    """Raise CheckFailed with `message` unless `ok`."""
    if not ok:
        raise CheckFailed(message)


def close(actual, expected, what: str, rtol: float, atol: float) -> None:
    """`actual` within rtol/atol of `expected`, reporting the worst element otherwise."""
    actual, expected = np.asarray(actual, np.float64), np.asarray(expected, np.float64)
    check(actual.shape == expected.shape, f"{what}: shape {actual.shape} != {expected.shape}")
    err = np.abs(actual - expected) - (atol + rtol * np.abs(expected))
    if err.size and not (err <= 0).all():
        k = np.unravel_index(np.nanargmax(np.where(np.isnan(err), np.inf, err)), err.shape)
        raise CheckFailed(f"{what}: element {tuple(int(i) for i in k)} is {actual[k]!r}, "
                          f"expected {expected[k]!r} (rtol={rtol}, atol={atol})")
    print(f"  ok  {what}")


def passed(what: str) -> None:
    print(f"  ok  {what}")


class Clock:
    """Times calls of one step: the first separately, then the warm ones (each synchronized)."""

    def __init__(self):
        self.first = None
        self.warm = []

    def __call__(self, step, *args):
        start_time = time.perf_counter()
        result = step(*args)
        tack.sync()
        elapsed = time.perf_counter() - start_time
        if self.first is None:
            self.first = elapsed
        else:
            self.warm.append(elapsed)
        return result

    def report(self) -> str:
        first = (self.first or 0.0) * 1e3
        warm = float(np.median(self.warm)) * 1e3 if self.warm else float("nan")
        return f"timing: first call {first:.2f} ms, warm {warm:.3f} ms (median of {len(self.warm)})"


def pyplot():
    """matplotlib's pyplot without a display, or NotAvailable naming the extra."""
    if importlib.util.find_spec("matplotlib") is None:
        raise NotAvailable("--output needs matplotlib: pip install '.[plot]' in a clone of Tack")
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    return plt


DPI = 144  # a 4-inch figure is 576 px: fine lines and single cells show on the page


def save(fig, path: str, colors: int = 256) -> None:
    """Write `fig` as a PNG at DPI with an adaptive palette of `colors` colours, optimized: a half
    to a third of the size of matplotlib's RGBA file, with no visible change to these plots."""
    import io

    from PIL import Image  # matplotlib's own dependency

    buffer = io.BytesIO()
    fig.savefig(buffer, format="png", dpi=DPI, bbox_inches="tight", facecolor="white")
    image = Image.open(buffer).convert("RGB")
    image.quantize(colors, method=Image.Quantize.MEDIANCUT, dither=Image.Dither.NONE).save(
        path, optimize=True)


def main(run, ap: argparse.ArgumentParser, argv=None) -> int:
    """Parse, start the backend, call `run(args, clock)`; exit 0, 1 (a check failed) or 2 (the
    backend or matplotlib is not available)."""
    args = parse(ap, argv)
    try:
        dev = start(args.arch)
        print(f"Backend: {args.arch} ({dev.name}, {dev.engine_name} engine), size {args.size}"
              + (", checking" if args.check else ""))
        clock = Clock()
        run(args, clock)
    except NotAvailable as exc:
        print(exc, file=sys.stderr)
        return 2
    except CheckFailed as exc:
        print(f"CHECK FAILED: {exc}", file=sys.stderr)
        return 1
    print(clock.report())
    if args.check:
        print("check passed")
    if args.output:
        print(f"wrote {args.output}")
    return 0
