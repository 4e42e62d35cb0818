"""`tack.testing.test`: correctness over a shape tier, then timing, then a stored record."""
from __future__ import annotations

import operator
import sys
from dataclasses import dataclass
from datetime import UTC, datetime

import numpy as np

from ...devices import default_device
from ...dtypes import bf16, from_numpy, is_bfloat16
from ...errors import TackTypeError, TackValueError
from . import inputs, records, repro, subjects, tiers
from .compare import compare
from .environment import environment
from .gufunc import parse
from .progress import Bar
from .records import CaseResult, Failure, MinimalCase, Record
from .timed import compare_timing
from .tolerances import tolerance


@dataclass
class Run:
    """One call's settings, checked and normalized."""

    subject: object
    reference: object
    sig: object
    tier: tiers.Tier
    dtypes: tuple[str, ...]
    seed: int
    name: str
    op_class: str | None
    fused_ops: tuple[str, ...]
    override: tuple[float, float] | None
    baseline: object
    spelled: tuple[str, str]  # (subject, reference) as a repro line writes them
    options: dict  # the keywords a repro line repeats


def _dtype_name(d) -> str:
    """A real NumPy dtype's name (`"float32"`), from a name, a dtype or a scalar type."""
    try:
        t = np.dtype(bf16.np if d == "bfloat16" else d)  # ml_dtypes' type, not NumPy's own
    except TypeError:  # NumPy's "data type 'floatx' not understood": a bad value, not type
        raise TackValueError(f"{d!r} is not a dtype: name one as NumPy does, e.g. 'float32' "
                             "or 'int64'") from None
    if t.kind not in "iuf" and not is_bfloat16(t):
        raise TackValueError(f"dtypes: {t.name} is not an integer or floating dtype")
    return t.name


def _dtypes(dtypes, kernel: bool) -> tuple[str, ...]:
    one = isinstance(dtypes, (str, np.dtype, type))
    try:
        given = (dtypes,) if one else tuple(dtypes)
    except TypeError:
        raise TackTypeError(f"dtypes must be a dtype name or a sequence of them, got "
                            f"{dtypes!r}") from None
    names = tuple(_dtype_name(d) for d in given)
    if not names:
        raise TackValueError("dtypes is empty: name at least one, e.g. ('float32',)")
    for d in names:
        if kernel:
            try:
                from_numpy(d)
            except TypeError:
                raise TackValueError(f"A @tack.kernel subject cannot be tested on {d}: the "
                                     "harness tests kernels on Tack's dtypes (int8 .. uint64, "
                                     "float16, bfloat16, float32, float64)") from None
    return names


def _seed(seed) -> int:
    """An int in [0, 2**32): the inputs draw from its 32 bits, so no two seeds give the same."""
    if isinstance(seed, (bool, np.bool_)):
        raise TackTypeError(f"seed must be an integer, got {seed!r}")
    try:
        value = operator.index(seed)
    except TypeError:
        raise TackTypeError(f"seed must be an integer, got {seed!r}") from None
    if not 0 <= value < 2 ** 32:
        raise TackValueError(f"seed must be in [0, 2**32), got {value}")
    return value


def _run(subject, reference, signature, tier, dtypes, seed, name, op_class, fused_ops,
         tolerance_override, baseline) -> Run:
    spelled = (repro.spell(subject), repro.spell(reference, "reference"))
    subject = subjects.load(subject) if isinstance(subject, str) else subject
    reference = subjects.load(reference) if isinstance(reference, str) else reference
    if isinstance(baseline, str):
        baseline = subjects.load(baseline)
    for role, obj in (("subject", subject), ("reference", reference), ("baseline", baseline)):
        if not callable(obj) and not (role == "baseline" and obj in (None, False)):
            raise TackTypeError(f"The {role} must be callable (a function or a @tack.kernel), "
                                f"got {type(obj).__name__}")
    fused = (fused_ops,) if isinstance(fused_ops, str) else tuple(fused_ops or ())
    tolerance("float32", op_class, fused, tolerance_override)  # rejects a bad class or pair now
    options = {k: v for k, v in (("op_class", op_class), ("fused_ops", fused),
                                 ("tolerance_override", tolerance_override), ("name", name))
               if v not in (None, ())}
    return Run(subject, reference, parse(signature), tiers.as_tier(tier),
               _dtypes(dtypes, subjects.is_kernel(subject)), _seed(seed),
               name or subjects.name_of(subject), op_class, fused,
               tuple(tolerance_override) if tolerance_override is not None else None,
               baseline, spelled, options)


def _failure(run: Run, case, dtype, message, mismatches=(), error=None) -> Failure:
    return Failure(f"{case.label}-{dtype}", dtype, run.seed, dict(zip(run.sig.names, case.dims)),
                   case.layout, message, list(mismatches), error)


def check(run: Run, case, dtype: str) -> Failure | None:
    """Run one case against the reference; None when every output is within tolerance."""
    data = inputs.make(run.sig, case, dtype, run.seed)
    _, out_shapes = run.sig.shapes(case.dims)
    label = f"{case.label}-{dtype}"
    expected = subjects.run_reference(run.reference, data, len(out_shapes), label)
    try:
        actual = subjects.run(run.subject, data, out_shapes, dtype)
    except subjects.ResultError as exc:
        return _failure(run, case, dtype, str(exc))
    except Exception as exc:  # noqa: BLE001 - any error of the subject fails its case, recorded
        text = f"{type(exc).__name__}: {exc}"
        return _failure(run, case, dtype, f"the subject raised {text}", error=text)
    atol, rtol = tolerance(dtype, run.op_class, run.fused_ops, run.override)
    fill = inputs.fill_value(dtype) if subjects.is_kernel(run.subject) else None
    found = [compare(a, e, dtype, atol, rtol, k, fill)
             for k, (a, e) in enumerate(zip(actual, expected))]
    found = [m for m in found if m is not None]
    if not found:
        return None
    return _failure(run, case, dtype, "; ".join(m.message for m in found), found)


def _minimal(run: Run, failed: list[tuple]) -> MinimalCase | None:
    """The smallest failing case observed: fewest elements, contiguous first, dtype order."""
    if not failed:
        return None
    case, dtype, failure = min(failed, key=lambda f: (f[0].sort_key(), run.dtypes.index(f[1])))
    line = repro.line(run.spelled[0], run.spelled[1], run.sig.text, case.label, dtype, run.seed,
                      run.options)
    return MinimalCase(failure.label, run.seed, line, dtype, failure.dims, case.layout)


def _correctness(run: Run, cases: list, bar: Bar) -> tuple[list, list[CaseResult]]:
    bar.phase("correctness", len(cases) * len(run.dtypes))
    failed, results = [], []
    for dtype in run.dtypes:
        for case in cases:
            t0 = datetime.now(UTC)
            failure = check(run, case, dtype)
            seconds = (datetime.now(UTC) - t0).total_seconds()
            results.append(CaseResult(f"{case.label}-{dtype}", dtype, failure is None, seconds))
            if failure is not None:
                failed.append((case, dtype, failure))
            bar.step(f"{case.label}-{dtype}", "ok" if failure is None else "FAIL")
    return failed, results


def _subject_file(obj) -> str | None:
    module, _ = repro.located(obj)
    return getattr(sys.modules.get(module or ""), "__file__", None)


def test(subject, reference, signature, tier="fast", dtypes=("float32",), seed=0, name=None,
         op_class=None, fused_ops=(), tolerance_override=None, baseline=None, records_dir=None,
         progress=None, shape=None) -> Record:
    """Check `subject` against `reference` on every case of `tier`, time it on the CANONICAL
    tier if every case passed, and return (and store) the record.

    `subject` is a callable on NumPy arrays returning an array or a tuple of them, or a
    `@tack.kernel` (called as `kernel(*inputs, *outputs)`); `reference` is NumPy code run on
    float64 (integer: int64) copies on the CPU. Either may be given as `'file.py::name'`.
    `signature` is a gufunc signature naming every dimension (`"(m,n),(n)->(m)"`).
    `shape='1025-contiguous'` (a label from a failure) runs that one case with `seed` and does
    not time; `baseline=False` turns timing off; `records_dir=False` writes no record.
    docs/testing.md describes the tiers, the tolerance table and the record.
    """
    run = _run(subject, reference, signature, tier, dtypes, seed, name, op_class, fused_ops,
               tolerance_override, baseline)
    if records_dir is not False:
        records.folder_for_writing(records_dir)  # a wrong folder is said now, not after the run
    if shape is not None:
        case, dtype = tiers.parse_label(shape, run.sig)
        cases, run.dtypes = [case], ((np.dtype(dtype).name,) if dtype else run.dtypes)
    else:
        cases = tiers.cases(run.sig, run.tier)
    bar = Bar(progress)
    try:
        failed, results = _correctness(run, cases, bar)
        comparison = None
        if not failed and shape is None and baseline is not False:
            comparison = compare_timing(run, bar)
    finally:
        bar.close()
    record = Record(
        run.name, not failed, len(results), len(failed), _minimal(run, failed),
        [f for _, _, f in failed], comparison,
        environment(default_device(), _subject_file(run.subject)), None, run.sig.text,
        "single case" if shape is not None else run.tier.value, list(run.dtypes), run.seed,
        run.op_class, list(run.fused_ops),
        {d: list(tolerance(d, run.op_class, run.fused_ops, run.override)) for d in run.dtypes},
        results, datetime.now(UTC).isoformat(timespec="microseconds"), run.spelled[0],
        "kernel" if subjects.is_kernel(run.subject) else "callable")
    if records_dir is not False:
        records.write(record, records_dir)
    bar.say(record.summary())
    return record


test.__test__ = False  # a function named `test`: pytest must not collect it where it is imported
