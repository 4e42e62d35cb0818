"""Findings from what the recorder aggregated: the messages and the data each kind carries."""
from __future__ import annotations

from ..ir.ops import WORKGROUP
from .findings import ADVISORY, Finding, lane_text, where
from .races import AccessLog

_WHAT = {"read": "read", "write": "write", "atomic": "atomic update"}
_SPACE = {"global": "array", "shared": "shared array", "local": "local array",
          "constant": "constant table", "fragment": "MMA fragment"}


def _array_text(array: str, space: str, aliases: dict) -> str:
    also = aliases.get(array)
    text = f"{_SPACE.get(space, 'array')} '{array}'"
    return f"{text} (the same memory as {', '.join(map(repr, also))})" if also else text


def races(kernel: str, log: AccessLog, buffers: dict, keep: int, aliases: dict) -> list:
    """One finding per (array, pair of source locations); shared arrays of every workgroup and
    the read and write of one `a[i] += 1` are merged into it."""
    merged: dict[tuple, list] = {}
    for pair in log.races(keep):
        info = buffers.get(pair.buffer)
        array = info.name if info is not None else f"buffer {pair.buffer}"
        space = info.space if info is not None else "global"
        (sa, ka), (sb, kb) = log.site_of(pair.a), log.site_of(pair.b)
        if (where(sb), kb) < (where(sa), ka):
            (sa, ka), (sb, kb) = (sb, kb), (sa, ka)
            pair_w = [(w.index, w.lane_b, w.lane_a, w.epoch) for w in pair.witnesses]
        else:
            pair_w = [(w.index, w.lane_a, w.lane_b, w.epoch) for w in pair.witnesses]
        key = (array, where(sa), where(sb))
        merged.setdefault(key, []).append((space, sa, ka, sb, kb, pair, pair_w))
    return [_race(kernel, key[0], entries, keep, aliases) for key, entries in merged.items()]


def _hint(ka: str, kb: str, same_site: bool, within: bool, across: bool) -> str:
    """How the two accesses are unordered, and the usual fix."""
    if across and not within:
        how = ("in different workgroups: global memory is not ordered between workgroups "
               "within a launch")
    elif across:
        how = "in one workgroup with no barrier between them, and across workgroups"
    else:
        how = "in the same workgroup with no barrier between them"
    if "atomic" in (ka, kb):
        fix = "make every access to the element atomic, or order them by a barrier or a launch"
    elif same_site or (across and ka == kb == "write"):
        fix = "use an atomic (tack.atomic_add) or give each lane its own element"
    elif across:
        fix = "split the kernel into two launches at this point"
    else:
        fix = "put a tack.barrier() between the two accesses"
    return f"{how}: {fix}"


def _race(kernel, array, entries, keep, aliases) -> Finding:
    space, sa, ka, sb, kb, _, wit = entries[0]
    per_buffer: dict[int, int] = {}
    witnesses = []
    within = across = False
    for *_, pair, pw in entries:
        per_buffer[pair.buffer] = max(per_buffer.get(pair.buffer, 0), pair.count)
        witnesses += [w for w in pw if len(witnesses) < keep]
        within, across = within or pair.within, across or pair.across
    count = sum(per_buffer.values())
    index, ta, tb, _ = wit[0]
    how = _hint(ka, kb, sa == sb, within, across)
    if aliases.get(array):
        how += " (or pass separate arrays)"
    msg = (f"race on {_array_text(array, space, aliases)}, element {index}: {_WHAT[ka]} at "
           f"{sa} by {lane_text(ta)} and {_WHAT[kb]} at {sb} by {lane_text(tb)}, {how} "
           f"({count} element{'s' * (count != 1)} affected)")
    lanes = []
    for _, a, b, _ in witnesses:
        lanes += [a, b]
    return Finding("race", msg, (where(sa), where(sb)), array, index, tuple(lanes), count,
                   kernel=kernel, witnesses=tuple(
                       {"index": i, "lanes": [a, b], "workgroups": [a // WORKGROUP,
                                                                    b // WORKGROUP],
                        "epoch": e, "access": [ka, kb]} for i, a, b, e in witnesses))


def pipeline(kernel, c, array: str) -> Finding:
    """An access to shared memory that an asynchronous copy may overwrite (check/pipelines.py):
    the copy refilling a buffer still in use, a wait with the wrong count, or no wait."""
    index, copier, other = c.witnesses[0]
    count = c.count
    what = _WHAT[c.kind]
    tail = f" ({count} element{'s' * (count != 1)} affected)"
    if c.what == "overwrite":
        msg = (f"the asynchronous copy at {c.copy} by {lane_text(copier)} refills element "
               f"{index} of shared array '{array}' while {lane_text(other)} may still {what} "
               f"it at {c.access}: no tack.barrier() between that {what} and the copy, so the "
               "copy may land first: put a tack.barrier() after the last use of the buffer and "
               "before the copy that refills it" + tail)
        locs = (where(c.copy), where(c.access))
    elif c.what == "wrong-wait":
        w = c.wait
        msg = (f"{what} of element {index} of shared array '{array}' at {c.access} by "
               f"{lane_text(other)} depends on the asynchronous copy at {c.copy} by "
               f"{lane_text(copier)}, which the tack.async_wait({w.pending}) at {w.site} left "
               f"pending: {c.needed} group{'s were' if c.needed != 1 else ' was'} committed "
               f"after the copy's, so tack.async_wait({c.needed}) is the wait that covers it "
               "(the read sees the old contents until the copy lands)" + tail)
        locs = (where(c.access), where(c.copy), where(w.site))
    else:
        own = copier == other
        how = ("no tack.async_wait covering its group came between them on that lane"
               if own else "the copying lane must wait for it (tack.async_wait) and a "
               "tack.barrier() must follow that wait before another lane uses the element")
        msg = (f"{what} of element {index} of shared array '{array}' at {c.access} by "
               f"{lane_text(other)} while the asynchronous copy at {c.copy} by "
               f"{lane_text(copier)} into it may not have landed: {how} (the read sees the old "
               "contents until the copy lands)" + tail)
        locs = (where(c.access), where(c.copy))
    lanes = []
    for _, a, b in c.witnesses:
        lanes += [a, b]
    return Finding("pipeline", msg, locs, array, index, tuple(lanes), count, kernel=kernel,
                   witnesses=tuple({"index": i, "lanes": [a, b], "problem": c.what,
                                    "access": c.kind} for i, a, b in c.witnesses))


def bounds(kernel, site, array, space, seen, decl, aliases) -> Finding:
    """Like debug mode: the smallest index past the end, else the negative one closest to 0."""
    index = seen.past_end if seen.past_end is not None else seen.negative
    msg = (f"{_array_text(array, space, aliases)} indexed at {site} with index {index}, outside "
           f"[0, {seen.extent}) (by {lane_text(seen.lanes[0])}; {seen.count} out-of-bounds "
           "access" + "es" * (seen.count != 1) + "); the access was skipped (a load gives 0)")
    locs = (where(site),) + ((where(decl),) if decl is not None else ())
    return Finding("bounds", msg, locs, array, index, tuple(seen.lanes), seen.count,
                   kernel=kernel, extent=seen.extent, witnesses=tuple(
                       {"index": i, "lanes": [t]} for i, t in zip(seen.indices, seen.lanes)))


def uninitialized(kernel, site, array, space, seen, decl, aliases) -> Finding:
    count = len(seen.elements)
    decl_text = f" (declared at {decl})" if decl is not None else ""
    msg = (f"{_array_text(array, space, aliases)}{decl_text} read at {site} before any write to "
           f"element {seen.indices[0]} in this launch, by {lane_text(seen.lanes[0])} "
           f"({count} element{'s' * (count != 1)} read uninitialized; the read gave 0 here, "
           "garbage on a GPU)")
    locs = (where(site),) + ((where(decl),) if decl is not None else ())
    return Finding("uninitialized", msg, locs, array, seen.indices[0], tuple(seen.lanes),
                   count, kernel=kernel, witnesses=tuple(
                       {"index": i, "lanes": [t]} for i, t in zip(seen.indices, seen.lanes)))


def _lanes_text(ts: list[int]) -> str:
    ids = [t % WORKGROUP for t in ts]
    if ids and ids == list(range(ids[0], ids[0] + len(ids))):
        return f"lanes {ids[0]}..{ids[-1]}" if len(ids) > 1 else f"lane {ids[0]}"
    shown = ", ".join(map(str, ids[:8]))
    return f"lanes {shown}{', ...' if len(ids) > 8 else ''}"


def barrier(kernel, site, split, d, keep) -> Finding:
    """`split` (a trace.Split or None): where the first missing lane parted from the others;
    its `if`, the `break`/`continue` taken and the loop left follow the barrier in the
    locations, and `diverged` holds them by role."""
    g = d.groups[0]
    groups = len(set(d.groups))
    why = f"; the lanes diverged at {split}" if split is not None else ""
    if d.warp is not None:
        what, w = d.warp
        msg = (f"warp collective tack.{what} at {site} executed by {len(d.arrived)} of the "
               f"{d.live} lanes of warp {w} of workgroup {g} ({_lanes_text(d.missing)} did not; "
               f"{groups} workgroup{'s' * (groups != 1)} like this){why}. On a GPU its result "
               "is undefined (a shuffle reads an inactive lane, a vote or reduction misses "
               "lanes): every lane of a warp must execute each warp collective "
               "(docs/language.md, \"Warps\")")
    else:
        msg = (f"barrier at {site} reached by {len(d.arrived)} of the {d.live} live lanes of "
               f"workgroup {g} ({_lanes_text(d.missing)} did not arrive; {groups} "
               f"workgroup{'s' * (groups != 1)} like this){why}. On a GPU this deadlocks or "
               "corrupts shared memory: every lane of a group must reach each barrier "
               "(docs/language.md, \"Workgroup contract\")")
    diverged = None
    locs = (where(site),)
    if split is not None:
        parts = {"branch": split.branch, "statement": split.statement, "loop": split.loop}
        diverged = {"how": split.how} | {k: where(v) if v is not None else None
                                         for k, v in parts.items()}
        locs += tuple(dict.fromkeys(where(v) for v in parts.values() if v is not None))
    lanes = tuple(d.missing[:keep] + d.arrived[:keep])
    return Finding("barrier", msg, locs, None, None, lanes, groups, kernel=kernel,
                   witnesses=({"workgroup": g, "arrived": d.arrived[:keep],
                               "missing": d.missing[:keep]},), diverged=diverged)


def refused(kernel, exc) -> Finding:
    """The static workgroup contract's refusal (capabilities.check_uniform_participation), as an
    advisory finding: Tack refuses the kernel for a normal launch. When the run diverged at that
    barrier too, the run's finding replaces this one (check/run.py)."""
    culprit = getattr(exc, "culprit", None)
    locs = tuple(where(x) for x in (exc.loc, culprit) if x is not None)
    under = f" at {culprit}" if culprit is not None else ""
    msg = (f"the workgroup contract refuses this kernel for a normal launch: the barrier at "
           f"{exc.loc} is under lane-dependent control flow{under} (a ValueError at launch). In "
           "this run every lane reached it; move the barrier out of lane-dependent control flow "
           "(docs/language.md, \"Workgroup contract\")")
    return Finding("barrier", msg, locs, kernel=kernel, severity=ADVISORY)


def partial_group(kernel, n: int, site) -> Finding:
    msg = (f"a launch of {n} iterations leaves a partial workgroup of {n % WORKGROUP} lanes, "
           f"but the kernel has barriers: a normal launch is refused (complete {WORKGROUP}-lane "
           "groups are required; pad the data)")
    return Finding("barrier", msg, (where(site),) if site is not None else (), kernel=kernel,
                   lanes=(n - n % WORKGROUP,), count=1)
