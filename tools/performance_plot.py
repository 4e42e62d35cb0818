"""Draw docs/performance.md's figures from docs/performance/data.json.

    python tools/performance_plot.py            # rewrite docs/performance/*.png
    python tools/performance_plot.py --check    # exit 1 if a PNG was drawn from other data

Each PNG carries, as a PNG text chunk, the SHA-256 of the data section it was drawn from
(`Source`), so tests/examples/test_performance_page.py can tell a stale figure from a current one
without comparing pixels (which change with matplotlib's version and fonts). Needs matplotlib
(`pip install '.[plot]'`); draws with the Agg backend.
"""
from __future__ import annotations

import argparse
import hashlib
import json
import struct
import sys
import zlib
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
DATA = ROOT / "docs" / "performance" / "data.json"
FIGURES = {"gpu_bandwidth": "gpu-bandwidth.png", "cpu_ratios": "cpu-ratios.png"}
TACK, PEER, FASTER, SLOWER = "#1f77b4", "#b0b0b0", "#2a9d54", "#d1495b"


def load(path: Path = DATA) -> dict:
    return json.loads(path.read_text())


def digest(section: dict) -> str:
    """The fingerprint of one figure's data: key order and spacing do not matter."""
    text = json.dumps(section, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    return "sha256:" + hashlib.sha256(text.encode()).hexdigest()


def peer_gbps(row: dict) -> float:
    """The peer's rate: given, or its time's (bytes / time, as the page computes Tack's)."""
    if "peer_gbps" in row:
        return float(row["peer_gbps"])
    return row["bytes"] / (row["peer_ms"] * 1e-3) / 1e9


def draw_gpu_bandwidth(section: dict, path: Path) -> None:
    import matplotlib.pyplot as plt

    rows = section["rows"]
    limit = section["limit"]
    fig, ax = plt.subplots(figsize=(8.0, 0.42 * len(rows) + 1.4), dpi=100)
    h = 0.38
    for k, row in enumerate(rows):
        y = len(rows) - 1 - k
        peer = peer_gbps(row)
        ax.barh(y + h / 2, row["tack_gbps"], h, color=TACK, label="Tack" if k == 0 else None)
        ax.barh(y - h / 2, peer, h, color=PEER, label="peer" if k == 0 else None)
        ax.text(row["tack_gbps"] + 30, y + h / 2, f"{row['tack_gbps']:.0f}", va="center",
                fontsize=7)
        ax.text(peer + 30, y - h / 2, f"{peer:.0f} ({row['peer']})", va="center", fontsize=7,
                color="#555555")
    ax.axvline(limit["gbps"], color="black", linestyle="--", linewidth=1)
    ax.text(limit["gbps"] - 40, len(rows) - 0.45, f"{limit['label']}: {limit['gbps']} GB/s",
            ha="right", va="bottom", fontsize=7)
    ax.set_yticks(range(len(rows)), [r["label"] for r in reversed(rows)], fontsize=8)
    ax.set_xlim(0, limit["gbps"] * 1.32)
    ax.set_ylim(-0.7, len(rows) + 0.1)
    ax.set_xlabel("GB/s of compulsory traffic (higher is better)", fontsize=8)
    ax.tick_params(axis="x", labelsize=8)
    ax.set_title(section["title"], fontsize=9)
    ax.legend(loc="lower right", fontsize=7, frameon=False)
    ax.spines[["top", "right"]].set_visible(False)
    _save(fig, path, section)


def draw_cpu_ratios(section: dict, path: Path) -> None:
    import matplotlib.pyplot as plt

    rows = section["rows"]
    fig, ax = plt.subplots(figsize=(8.0, 0.36 * len(rows) + 1.4), dpi=100)
    for k, row in enumerate(rows):
        y = len(rows) - 1 - k
        r = row["ratio"]
        color = FASTER if r >= 1 else SLOWER
        ax.plot([1, r], [y, y], color=color, linewidth=3, solid_capstyle="butt")
        if "q25" in row:
            ax.errorbar(r, y, xerr=[[r - row["q25"]], [row["q75"] - r]], fmt="o", color="black",
                        markersize=3, capsize=3, linewidth=1)
        else:
            ax.plot(r, y, "o", color="black", markersize=3, markerfacecolor="white")
        ax.text(max(1.0, r, row.get("q75", r)) * 1.03, y, f"{r:.2f}× vs {row['peer']}",
                va="center", fontsize=7)
    ax.axvline(1.0, color="black", linewidth=1)
    ax.set_xscale("log")
    ticks = [0.5, 0.75, 1, 1.5, 2, 3, 4]
    ax.set_xticks(ticks, [f"{t:g}×" for t in ticks], fontsize=8)
    ax.minorticks_off()
    ax.set_xlim(0.5, 6.5)
    ax.set_yticks(range(len(rows)), [r["label"] for r in reversed(rows)], fontsize=8)
    ax.set_xlabel("peer time / Tack time (right of 1: Tack faster); bars: interquartile range "
                  "over interleaved rounds; open dots: no range recorded", fontsize=7)
    ax.set_title(section["title"], fontsize=9)
    ax.spines[["top", "right"]].set_visible(False)
    _save(fig, path, section)


DRAW = {"gpu_bandwidth": draw_gpu_bandwidth, "cpu_ratios": draw_cpu_ratios}


def _save(fig, path: Path, section: dict) -> None:
    import matplotlib.pyplot as plt

    fig.tight_layout()
    # No "Software" chunk (it names matplotlib's version); the data's digest instead.
    fig.savefig(path, format="png", metadata={"Software": None, "Source": digest(section)})
    plt.close(fig)


def png_text(path: Path) -> dict[str, str]:
    """The tEXt chunks of a PNG file (keyword -> text)."""
    data = Path(path).read_bytes()
    if data[:8] != b"\x89PNG\r\n\x1a\n":
        raise ValueError(f"{path} is not a PNG file")
    out, pos = {}, 8
    while pos + 8 <= len(data):
        length, kind = struct.unpack(">I4s", data[pos:pos + 8])
        body = data[pos + 8:pos + 8 + length]
        if kind == b"tEXt":
            key, _, value = body.partition(b"\0")
            out[key.decode("latin-1")] = value.decode("latin-1")
        elif kind == b"zTXt":
            key, _, rest = body.partition(b"\0")
            out[key.decode("latin-1")] = zlib.decompress(rest[1:]).decode("latin-1")
        pos += 12 + length
    return out


def stale(data: dict, folder: Path) -> list[str]:
    """The figures in `folder` missing or drawn from data other than `data`'s."""
    bad = []
    for key, name in FIGURES.items():
        path = folder / name
        if not path.exists() or png_text(path).get("Source") != digest(data[key]):
            bad.append(name)
    return bad


def draw_all(data: dict, folder: Path) -> list[Path]:
    import matplotlib

    matplotlib.use("Agg")
    folder.mkdir(parents=True, exist_ok=True)
    paths = []
    for key, name in FIGURES.items():
        DRAW[key](data[key], folder / name)
        paths.append(folder / name)
    return paths


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--check", action="store_true", help="only check that the PNGs are current")
    ap.add_argument("--out", type=Path, default=DATA.parent, help="folder of the PNGs")
    args = ap.parse_args(argv)
    data = load()
    if args.check:
        bad = stale(data, args.out)
        if bad:
            print(f"stale: {', '.join(bad)}: run python tools/performance_plot.py",
                  file=sys.stderr)
        return 1 if bad else 0
    for path in draw_all(data, args.out):
        print(path.relative_to(ROOT) if path.is_relative_to(ROOT) else path)
    return 0


if __name__ == "__main__":
    sys.exit(main())
