"""Running corpus cases: in this process, or each in a fresh subprocess, and judging the result."""
from __future__ import annotations

import builtins
import dataclasses
import json
import linecache
import os
import subprocess
import sys
import time
import traceback

import numpy as np
import tack
from tack.devices import _global as _settings  # the process-wide settings run_here restores

from .case import OUTCOMES, Case, Result

# the repository, which holds this corpus (tests/ is not part of the installed package)
_ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(
    os.path.abspath(__file__)))))
RESULT_MARK = "@@tack-reliability-result@@ "  # the child's last stdout line starts with this


def resolve(dotted: str) -> type:
    """The exception class a row names: a builtin (`TypeError`), or one of Tack's
    (`UnsupportedSyntaxError`, `tack.TackTypeError`)."""
    name = dotted.removeprefix("tack.")
    found = getattr(builtins, name, None) if name == dotted else None
    return found if isinstance(found, type) else getattr(tack, name)


def _exec(source: str, filename: str, ns: dict) -> None:
    """Run `source` as if from a file: kernels need their source (`inspect.getsource`), which
    finds it through linecache (an entry without a modification time is never evicted)."""
    lines = source.splitlines(keepends=True)
    linecache.cache[filename] = (len(source), None, lines, filename)
    exec(compile(source, filename, "exec"), ns)  # noqa: S102 - the corpus's own rows


def _snapshot(value):
    if isinstance(value, tack.Array):
        return value.numpy().copy()
    return np.array(value, copy=True)


def _same(a, b) -> bool:
    return a.shape == b.shape and a.dtype == b.dtype and a.tobytes() == b.tobytes()


def _judge(case: Case, exc: BaseException | None) -> tuple[str, str]:
    """The outcome of a call that raised `exc` (None: it returned)."""
    if case.expect is None:
        if exc is None:
            return "ok", ""
        return "wrong-class", f"expected success, got {type(exc).__name__}: {_first_line(exc)}"
    if exc is None:
        return "no-error", f"expected {case.expect}, nothing raised"
    said = f"{type(exc).__name__}: {_first_line(exc)}"
    if not isinstance(exc, resolve(case.expect)):
        return "wrong-class", f"expected {case.expect}, got {said}"
    if case.tack_error and not isinstance(exc, tack.TackError):
        return "not-tack-error", said
    if case.position and getattr(exc, "loc", None) is None:
        return "no-position", said
    missing = [w for w in case.mentions if w not in str(exc)]
    if missing:
        return "no-mention", f"message lacks {missing}: {said}"
    return "ok", said


def _first_line(exc: BaseException) -> str:
    text = str(exc).strip()
    return text.splitlines()[0][:200] if text else ""


def run_here(case: Case) -> Result:
    """Run `case` in this process (whatever `case.isolate` says). Tack's process-wide settings
    (default device, debug mode) are restored afterwards, so rows do not leak into each other."""
    saved = dict(_settings)
    try:
        return _run_here(case)
    finally:
        _settings.clear()
        _settings.update(saved)


def _run_here(case: Case) -> Result:
    t0 = time.perf_counter()
    ns = {"tack": tack, "np": np, "os": os, "__name__": f"reliability_{abs(hash(case.name))}"}
    try:
        _exec(case.setup, f"<reliability {case.name} setup>", ns)
        before = {n: _snapshot(ns[n]) for n in case.unchanged}
    except Exception:  # noqa: BLE001 - any failure here means the row is broken, not Tack
        last = traceback.format_exc(limit=-1).strip().splitlines()[-1]
        return Result(case.name, "setup-error", last, time.perf_counter() - t0)
    exc = None
    try:
        _exec(case.call, f"<reliability {case.name} call>", ns)
    except BaseException as e:  # judged below: the runner itself must survive it
        if isinstance(e, KeyboardInterrupt) and case.expect != "KeyboardInterrupt":
            raise
        exc = e
    outcome, detail = _judge(case, exc)
    if outcome == "ok":
        changed = [n for n in case.unchanged if not _same(before[n], _snapshot(ns[n]))]
        if changed:
            outcome, detail = "changed", f"written: {changed}; {detail}"
    if outcome == "ok" and case.check:
        ns["exc"] = exc
        try:
            _exec(case.check, f"<reliability {case.name} check>", ns)
        except AssertionError as e:
            outcome, detail = "check-failed", str(e) or "assertion failed"
        except Exception as e:  # noqa: BLE001 - a post-condition that cannot even run fails
            outcome, detail = "check-failed", f"{type(e).__name__}: {e}"
    return Result(case.name, outcome, detail, time.perf_counter() - t0)


def run_isolated(case: Case) -> Result:
    """Run `case` in a fresh interpreter (`--child`, the row as JSON on stdin); a signal or a
    hang is an outcome."""
    t0 = time.perf_counter()
    env = dict(os.environ)
    env.update(dict(case.env))
    env["PYTHONPATH"] = os.pathsep.join([_ROOT, *filter(None, [env.get("PYTHONPATH")])])
    cmd = [sys.executable, "-m", "tests.reliability.corpus", "--child"]
    try:
        proc = subprocess.run(cmd, check=False, env=env, capture_output=True, text=True,
                              timeout=case.timeout, input=json.dumps(dataclasses.asdict(case)))
    except subprocess.TimeoutExpired as e:  # what it printed before it hung says where
        said = " | ".join(_tail(x) for x in (e.stdout, e.stderr) if _tail(x))
        return Result(case.name, "timeout", f"past {case.timeout:g} s" + (f": {said}" if said
                                                                           else ""),
                      time.perf_counter() - t0)
    for line in reversed(proc.stdout.splitlines()):
        if line.startswith(RESULT_MARK):
            data = json.loads(line[len(RESULT_MARK):])
            return Result(case.name, data["outcome"], data["detail"], time.perf_counter() - t0)
    tail = (proc.stderr.strip().splitlines() or [""])[-1][:200]
    how = f"signal {-proc.returncode}" if proc.returncode < 0 else f"exit {proc.returncode}"
    return Result(case.name, "crash", f"{how}: {tail}", time.perf_counter() - t0)


def _tail(out, n: int = 1500) -> str:
    """The end of a hung child's output (bytes or text), on one line."""
    if not out:
        return ""
    text = out.decode(errors="replace") if isinstance(out, bytes) else out
    return " / ".join(text.strip().splitlines())[-n:]


def run_case(case: Case, isolate: bool | None = None) -> Result:
    """Run one case: in a subprocess when it asks for one (or `isolate` is True)."""
    if isolate if isolate is not None else case.subprocess:
        return run_isolated(case)
    return run_here(case)


def run(cases, isolate: bool | None = None, progress=None) -> list[Result]:
    """Run every case in order; `progress(result)` is called after each."""
    results = []
    for case in cases:
        r = run_case(case, isolate)
        results.append(r)
        if progress is not None:
            progress(r)
    return results


def counts(results) -> dict[str, int]:
    """Results per outcome, in OUTCOMES order, zeros left out."""
    tally = {o: 0 for o in OUTCOMES}
    for r in results:
        tally[r.outcome] += 1
    return {o: n for o, n in tally.items() if n}


def summary(results) -> str:
    """`N cases: ok 390, wrong-class 3, ...` and one line per case that did not pass."""
    results = list(results)
    head = f"{len(results)} cases: " + ", ".join(f"{o} {n}" for o, n in counts(results).items())
    bad = [f"  {r.outcome:14} {r.name}: {r.detail}" for r in results if not r.passed]
    return "\n".join([head, *bad])


def child_main() -> int:
    """`--child`: run the case read as JSON from stdin; print its result as the marked line."""
    fields = json.load(sys.stdin)
    for name in ("mentions", "unchanged", "tags"):
        fields[name] = tuple(fields[name])
    fields["env"] = tuple(tuple(kv) for kv in fields["env"])
    r = run_here(Case(**fields))
    sys.stdout.flush()
    print(RESULT_MARK + json.dumps({"outcome": r.outcome, "detail": r.detail}), flush=True)
    return 0
