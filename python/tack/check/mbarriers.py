"""Findings about transaction barriers and bulk copies: what the simulator saw
(runtime/sim/mbarriers.py, one `BarrierEvent` per misuse) as `pipeline` findings with their
source lines and witnesses, and a deadlock as a `barrier` finding (docs/checking.md,
"Transaction barriers").

The events are decided by happens-before in the simulator, not by the order it ran the lanes
in: a lane's own order, the phases its waits observed, the arrivals made after an access, and
the workgroup barriers (epochs) that publish a wait to the other lanes."""
from __future__ import annotations

from ..runtime.sim.mbarriers import deadlock_text
from ..runtime.sim.trace import BarrierEvent
from .findings import Finding, lane_text, where


def _locations(ev: BarrierEvent) -> tuple:
    return tuple(where(x) for x in (ev.site, *ev.other))


def message(ev: BarrierEvent) -> str:
    """The message of a `pipeline` finding about a transaction barrier or a bulk copy."""
    d = ev.detail or {}
    lane = lane_text(ev.lanes[0])
    many = f" ({ev.count} lanes)" if ev.count > 1 else ""
    return _MESSAGES[ev.what](ev, d, lane, many)


def _uninitialized(ev, d, lane, many) -> str:
    op = f"tack.{d.get('op', 'mbarrier_wait')}"
    if d.get("never"):
        return (f"{op} at {ev.site} by {lane}{many} uses barrier '{ev.barrier}', which no "
                "tack.mbarrier_init has initialized: initialize it (on one lane) and put a "
                "tack.barrier() between the initialization and its first use")
    return (f"{op} at {ev.site} by {lane}{many} uses barrier '{ev.barrier}' initialized at "
            f"{ev.other[0]} by {lane_text(d['by'])} with no tack.barrier() between: the "
            "use may come first: put a tack.barrier() after the initialization")


def _reinitialized(ev, d, lane, many) -> str:
    if d.get("together"):
        return (f"tack.mbarrier_init at {ev.site} initializes barrier '{ev.barrier}' on "
                f"{d['lanes']} lanes at once ({lane} and {lane_text(ev.lanes[1])}): "
                "initialize each barrier on one lane (if tack.thread_id() == 0)")
    return (f"tack.mbarrier_init at {ev.site} by {lane} initializes barrier '{ev.barrier}' "
            f"again (first at {ev.other[0]} by {lane_text(ev.lanes[1])}): a barrier is "
            "initialized once per launch; its phases carry on from there")


def _wrong_count(ev, d, lane, many) -> str:
    if "bytes" in d:
        return (f"the bulk copies completing on phase {d['phase']} of barrier "
                f"'{ev.barrier}' (waited for at {ev.site}) delivered {d['bytes']} bytes more "
                f"than tack.mbarrier_arrive_tx at {ev.other[0]} expected: the phase may "
                "complete before all of them land, and the rest count against the next "
                "one: expect the bytes of every copy on the phase (count × element size)")
    if d.get("early") is not None:
        return (f"{lane}{many} arrives at {ev.site} on barrier '{ev.barrier}' while its "
                f"phase {d['phase']} has all its {d['expected']} expected arrivals and waits "
                f"only for {d['early']} bytes of bulk copies in flight: the arrival counts "
                f"toward phase {d['phase']} or {d['phase'] + 1} depending on when they land "
                f"(initialized at {ev.other[0]}): order it after phase {d['phase']} "
                "(a tack.mbarrier_wait for it on this lane, or on the lanes this lane waits "
                "for)")
    return (f"{d['together']} lanes arrive at {ev.site} on barrier '{ev.barrier}' together "
            f"({lane} and {lane_text(ev.lanes[-1])} among them), more than the "
            f"{d['expected']} arrivals per phase it was initialized to expect at "
            f"{ev.other[0]}: a phase completes on some of them and the others count "
            "toward the next, in whatever order they come: initialize it with the number of "
            "lanes that arrive per phase")


def _wrong_parity(ev, d, lane, many) -> str:
    if d["how"] == "again":
        return (f"tack.mbarrier_wait at {ev.site} by {lane}{many} waits on barrier "
                f"'{ev.barrier}' with parity {d['parity']}, which names phase "
                f"{d['next'] - 1}, already waited for by this lane: the wait returns at "
                f"once (or, once the barrier has moved two phases on, waits for a later one); "
                f"the lane's next phase is {d['next']}, parity {d['next'] % 2}")
    return (f"tack.mbarrier_wait at {ev.site} by {lane}{many} on barrier '{ev.barrier}' "
            f"observed phase {d['observed']} while the lane's next phase was {d['next']}: "
            "phases of one parity are a round apart, so which of them a wait means depends "
            "on timing: wait for every phase in turn")


def _unwaited(ev, d, lane, many) -> str:
    what = "read" if d.get("kind") == "read" else "write"
    return (f"{what} of element {ev.index} of shared array '{ev.array}' at {ev.site} by "
            f"{lane} while the bulk copy at {ev.other[0]} by {lane_text(ev.lanes[1])} into "
            f"it may not have landed: this lane has not waited for the phase of barrier "
            f"'{ev.barrier}' the copy completes on (tack.mbarrier_wait), nor does a "
            "tack.barrier() separate it from another lane's wait (it sees the old contents "
            f"until the copy lands; {ev.count} access(es))")


def _overwrite(ev, d, lane, many) -> str:
    return (f"the bulk copy at {ev.site} by {lane} refills element {ev.index} of shared "
            f"array '{ev.array}' while {lane_text(ev.lanes[1])} may still use it at "
            f"{ev.other[0]}: neither a tack.barrier() nor an arrival of that lane on a phase "
            "the copying lane waited for separates them: release the buffer (each reader "
            "arrives on an 'empty' barrier the copying lane waits for) before refilling it")


def _in_flight(ev, d, lane, many) -> str:
    return (f"the bulk copy at {ev.site} by {lane}{many} into '{ev.array}' on barrier "
            f"'{ev.barrier}' was still in flight when its workgroup finished: no wait "
            "covered its phase; wait for it before the kernel ends")


# BarrierEvent.what -> its message
_MESSAGES = {"uninitialized": _uninitialized, "reinitialized": _reinitialized,
             "wrong-count": _wrong_count, "wrong-parity": _wrong_parity, "unwaited": _unwaited,
             "overwrite": _overwrite, "in-flight": _in_flight}


def finding(kernel: str, ev: BarrierEvent) -> Finding:
    lanes = ev.lanes
    if ev.what == "deadlock":
        return Finding("barrier", deadlock_text(kernel, ev), _locations(ev),
                       ev.barrier.split("[")[0], None,
                       lanes, ev.count, kernel=kernel,
                       witnesses=({"problem": "deadlock", "lanes": list(lanes),
                                   **{k: v for k, v in ev.detail.items()
                                      if isinstance(v, int)}},))
    array = ev.array or ev.barrier.split("[")[0]  # one finding for the barriers of a declaration
    return Finding("pipeline", message(ev), _locations(ev), array, ev.index,
                   lanes, ev.count, kernel=kernel,
                   witnesses=({"problem": ev.what, "barrier": ev.barrier,
                               "lanes": list(lanes)},))
