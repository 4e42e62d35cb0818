"""Findings of the warpgroup MMA's protocol (docs/checking.md, "Warpgroup MMA"): what the
simulator reports as it runs (runtime/sim/wgmma.py) becomes `pipeline` findings, one per (problem,
access site, wgmma site), with a few witness lanes.

- `read`: an accumulator read (a store, a copy, arithmetic) before a `tack.wgmma_wait` covers
  the wgmma that writes it, or as the accumulator of a wgmma of another shape;
- `write`: an accumulator assigned while a wgmma may still write it;
- `overwrite`: an element of a shared tile a pending wgmma reads, written (a store, an
  atomic, an asynchronous copy landing) before the wait that covers the wgmma.
"""
from __future__ import annotations

import numpy as np

from .findings import Finding, lane_text, where


class WgmmaLog:
    """The reports of one launch, grouped per (problem, site, wgmma)."""

    def __init__(self):
        self.seen: dict[tuple, dict] = {}

    def add(self, what, site, issue, lanes, name, detail, short) -> None:
        key = (what, site, issue, name)
        got = self.seen.get(key)
        lanes = [int(t) for t in np.asarray(lanes).reshape(-1)]
        if got is None:
            self.seen[key] = {"lanes": lanes[:3], "count": len(lanes), "detail": detail,
                              "short": short}
        else:
            got["count"] += len(lanes)
            got["short"] = got["short"] or short

    def findings(self, kernel: str) -> list[Finding]:
        return [_finding(kernel, *key, **v) for key, v in self.seen.items()]


def _wait_text(short) -> str:
    if short is None:
        return ("no tack.wgmma_wait covering its group came between them: commit its group "
                "(tack.wgmma_commit) and wait for it (tack.wgmma_wait) first")
    site, n, needed = short
    return (f"the tack.wgmma_wait({n}) at {site} left it pending, and "
            f"tack.wgmma_wait({needed}) is the wait that covers it")


def _finding(kernel, what, site, issue, name, lanes, count, detail, short) -> Finding:
    lane = lane_text(lanes[0]) if lanes else "a lane"
    if what == "read":
        how = ("is used as the accumulator of a tack.wgmma of another shape"
               if detail != "read" else "is read")
        msg = (f"the warpgroup accumulator '{name}' {how} at {site} by {lane} before the "
               f"tack.wgmma at {issue} has delivered it: {_wait_text(short)} (until then the "
               "registers hold no defined value)")
        locs, array, index = (where(site), where(issue)), name, None
    elif what == "write":
        msg = (f"the warpgroup accumulator '{name}' is assigned at {site} by {lane} while the "
               f"tack.wgmma at {issue} may still write it: {_wait_text(short)}")
        locs, array, index = (where(site), where(issue)), name, None
    else:
        msg = (f"element {detail} of shared array '{name}' is written at {site} by {lane} "
               f"while the tack.wgmma at {issue}, which reads it, may still be in flight: the "
               "wgmma reads its tiles at any moment until the tack.wgmma_wait that covers its "
               f"group ({_wait_text(short)}); wait first, then a tack.barrier() before another "
               "lane restages the tile")
        locs, array, index = (where(site), where(issue)), name, int(detail)
    return Finding("pipeline", msg, locs, array, index, tuple(lanes), count, kernel=kernel,
                   witnesses=tuple({"lanes": [t], "problem": f"wgmma-{what}"} for t in lanes))
