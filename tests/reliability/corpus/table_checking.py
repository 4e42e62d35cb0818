"""The checker (`tack.check`, `python -m tack.check`, `TACK_CHECK`): what it must refuse as a
normal call or a GPU would, its settings, and where its barrier findings say lanes diverged.

- read-only memory: each way a kernel may write a parameter, under `tack.check` and under a
  checking session, refused with the normal call's error before anything is written;
- `TACK_CHECK` values and `tack.check` options: a misspelt kind or a non-bool option refused
  with the accepted values, the accepted spellings taken;
- scratch memory no GPU gives a launch (shared per workgroup, local per lane), refused at the
  declaration before the simulator allocates it, the limits themselves accepted;
- barrier findings for lanes that left by `break`, `continue` or an early `return`, or whose
  loop condition ended: the finding names the `if` (or loop) where they diverged;
- a launch of 2^30 lanes: the simulator's bookkeeping before the first chunk stays small."""
from __future__ import annotations

from .case import Case

_KINDS = "races, barriers, pipelines, bounds, uninitialized"

# Ways a kernel may write its parameter `w` (reading `r`): (label, loop body). Each kernel is
# `def k(r, w, out)` over `range(r.shape[0])`.
_WRITES = [
    ("store", "w[i] = r[i]"),
    ("augassign", "w[i] += r[i]"),
    ("atomic-add", "tack.atomic_add(w, i, r[i])"),
    ("conditional", "if r[i] > 100.0:\n            w[i] = 0.0"),
    ("func", "put(w, i, r[i])"),
]

_READ_ONLY = '''
@tack.func
def put(a, i, v):
    a[i] = v

@tack.kernel
def k(r, w, out):
    for i in range(r.shape[0]):
        out[i] = r[i]
        {body}

src = np.arange(8, dtype=np.float32)
src.flags.writeable = False
ro = tack.from_dlpack(src)
out = tack.zeros(8, tack.f32)
r = tack.ones(8, tack.f32)
try:
    k(r, ro, out)
except ValueError as e:
    normal = str(e)
'''

# The error must be the normal call's, word for word.
_SAME = "assert str(exc) == normal, (str(exc), normal)"


def _read_only() -> list[Case]:
    out = []
    for label, body in _WRITES:
        # The kernel writes `out` before `w`: the refusal must come before the run, not from
        # the simulated store into `w`.
        setup = _READ_ONLY.replace("{body}", body)
        out.append(Case(f"checking/read-only/check/{label}", "tack.check(k, r, ro, out)",
                        "ValueError", setup, mentions=("'k'", "'w'", "read-only"),
                        unchanged=("src", "out"), check=_SAME, quick=label == "store",
                        note="tack.check simulated a store into read-only memory on a copy "
                             "and reported clean"))
        out.append(Case(f"checking/read-only/session/{label}",
                        "from tack.check import session as S\nS.install(S.Session())\n"
                        "try:\n    k(r, ro, out)\nfinally:\n    S.uninstall()",
                        "ValueError", setup, mentions=("'k'", "'w'", "read-only"),
                        unchanged=("src", "out"), check=_SAME, quick=label == "store",
                        note="under TACK_CHECK the simulated store raised NumPy's ValueError "
                             "after the other outputs were written"))
    # Reading read-only memory is fine, checked or not.
    out.append(Case("checking/read-only/check/read", "rep = tack.check(k, ro, r, out)", None,
                    _READ_ONLY.replace("{body}", "w[i] = r[i] + 1.0"), unchanged=("src",),
                    check="assert rep.verdict == 'clean'\n"
                          "assert (rep.outputs['w'] == np.arange(8) + 1).all()"))
    out.append(Case("checking/read-only/cli", _CLI_CALL, None, _CLI_SETUP, check=_CLI_CHECK,
                    isolate=True, timeout=180,
                    note="python -m tack.check: the program sees the normal refusal, exit 0"))
    return out


_CLI_SETUP = '''
import subprocess, sys, tempfile
script = tempfile.NamedTemporaryFile("w", suffix=".py", delete=False)
script.write("""
import numpy as np, tack
@tack.kernel
def k(out, w):
    for i in range(out.shape[0]):
        out[i] = 2.0
        w[i] = 1.0
src = np.arange(8, dtype=np.float32)
src.flags.writeable = False
out = tack.zeros(8)
try:
    k(out, tack.from_dlpack(src))
except tack.TackValueError as e:
    print("refused", float(out.numpy().sum()), "'w'" in str(e))
""")
script.close()
'''
_CLI_CALL = ("p = subprocess.run([sys.executable, '-m', 'tack.check', script.name], "
             "capture_output=True, text=True, check=False)\nos.unlink(script.name)")
_CLI_CHECK = ("assert p.returncode == 0, p.stderr\n"
              "assert 'refused 0.0 True' in p.stdout, (p.stdout, p.stderr)")


# TACK_CHECK values: (label, value, the kinds it checks or None when it must be refused).
_ALL = ("barrier", "bounds", "pipeline", "race", "uninitialized")
_ENV = [
    ("misspelt", "raecs", None),
    ("one-misspelt", "races,raecs", None),
    ("semicolon", "race;bounds", None),
    ("only-commas", ",", None),
    ("word", "everything", None),
    ("one", "1", _ALL),
    ("all", "ALL", _ALL),
    ("options", "races,bounds", ("bounds", "race")),
    ("kinds", "barrier, uninitialized", ("barrier", "uninitialized")),
    ("trailing-comma", "races,", ("race",)),
    ("none", "none", ()),
]


def _env() -> list[Case]:
    out = []
    for label, value, kinds in _ENV:
        setup = f"os.environ['TACK_CHECK'] = {value!r}\nfrom tack.check import session as S\n"
        call = "s = S.install_from_env()"
        if kinds is None:
            out.append(Case(f"checking/env/{label}", call, "ValueError", setup,
                            mentions=("TACK_CHECK", repr(value), _KINDS), isolate=True,
                            quick=label == "misspelt",
                            note="TACK_CHECK=raecs left every kind unchecked, silently"))
        else:
            check = f"assert sorted(s.kinds) == {sorted(kinds)!r}, s.kinds\nS.uninstall()"
            out.append(Case(f"checking/env/{label}", call, None, setup, check=check,
                            isolate=True, note="an accepted TACK_CHECK spelling"))
    for value in ("0", "off", ""):
        out.append(Case(f"checking/env/off-{value or 'empty'}", "s = S.install_from_env()", None,
                        f"os.environ['TACK_CHECK'] = {value!r}\n"
                        "from tack.check import session as S\n",
                        check="assert s is None", isolate=True))
    out.append(Case("checking/env/at-import",
                    "p = subprocess.run([sys.executable, '-c', 'import tack'], env=env, "
                    "capture_output=True, text=True, check=False)", None,
                    "import subprocess, sys\nenv = dict(os.environ, TACK_CHECK='raecs')\n",
                    check="assert p.returncode == 1 and 'TackValueError' in p.stderr\n"
                          "assert \"'raecs' is not a kind\" in p.stderr, p.stderr",
                    isolate=True, note="a program run with a misspelt TACK_CHECK stops at "
                                       "import tack instead of running unchecked"))
    return out


_MISSING_BARRIER = '''
@tack.kernel
def k(x, out, n):
    for i in range(n):
        buf = tack.shared(tack.f32, 256)
        tid = tack.thread_id()
        buf[tid] = x[i]
        out[i] = buf[255 - tid]
x = tack.array(np.arange(512, dtype=np.float32))
out = tack.zeros(512)
'''

# Option values that are not True or False: (label, expression).
_OPTIONS = [("no", "'no'"), ("false-str", "'False'"), ("zero", "0"), ("one", "1"),
            ("none", "None"), ("list", "[]")]


def _options() -> list[Case]:
    out = []
    for opt in ("races", "barriers", "bounds", "uninitialized"):
        for label, expr in _OPTIONS:
            out.append(Case(f"checking/option/{opt}-{label}",
                            f"tack.check(k, x, out, 512, {opt}={expr})", "ValueError",
                            _MISSING_BARRIER, mentions=(f"{opt}=", "True", "False"),
                            unchanged=("x", "out"), quick=(opt, label) == ("races", "no"),
                            note='races="no" was read as true'))
    out.append(Case("checking/option/numpy-bool", "r = tack.check(k, x, out, 512, "
                    "races=np.False_)", None, _MISSING_BARRIER,
                    check="assert r.verdict == 'clean' and 'race' not in r.checked"))
    return out


# Scratch declarations: (label, kernel body declaring the scratch, launch size, refused).
_SHARED_LIMIT, _LOCAL_LIMIT = 227 * 1024, 512 * 1024
_SCRATCH = [
    ("shared-8GiB", "s = tack.shared(tack.f64, 1 << 30)", 256, True),
    ("shared-2GiB-i8", "s = tack.shared(tack.i8, 2147483647)", 256, True),
    ("shared-one-over", f"s = tack.shared(tack.f32, {_SHARED_LIMIT // 4 + 1})", 256, True),
    ("shared-at-limit", f"s = tack.shared(tack.f32, {_SHARED_LIMIT // 4})", 256, False),
    ("shared-two-over", (f"s = tack.shared(tack.f32, {_SHARED_LIMIT // 8})\n"
                         f"        t = tack.shared(tack.f64, {_SHARED_LIMIT // 16 + 1})"),
     256, True),
    ("local-over", f"s = tack.local_array(tack.f64, {_LOCAL_LIMIT // 8 + 1})", 1, True),
    ("local-at-limit", f"s = tack.local_array(tack.f64, {_LOCAL_LIMIT // 8})", 1, False),
    ("local-1GiB", "s = tack.local_array(tack.f32, 1 << 28)", 1, True),
]


def _scratch_setup(body: str, n: int) -> str:
    use = ("tid = tack.thread_id()\n        s[tid] = 1.0\n        tack.barrier()\n"
           "        out[i] = s[255 - tid]" if "shared" in body else
           "s[0] = 1.0\n        out[i] = s[0]")
    return (f"@tack.kernel\ndef k(out, n):\n    for i in range(n):\n        {body}\n"
            f"        {use}\nout = tack.zeros({n})\n")


def _scratch() -> list[Case]:
    out = []
    ways = [("check", "r = tack.check(k, out, {n})", "assert r.verdict == 'clean', r.text()"),
            ("session", ("from tack.check import session as S\nS.install(S.Session())\n"
                         "try:\n    k(out, {n})\nfinally:\n    S.uninstall()"), ""),
            ("sim", "tack.set_default_device('sim')\nk(tack.zeros({n}), {n})", "")]
    for label, body, n, refused in _SCRATCH:
        for way, call, ok_check in ways:
            space = "shared" if label.startswith("shared") else "local"
            out.append(Case(
                f"checking/{space}-limit/{label}/{way}", call.format(n=n),
                # shared: the simulator's model of the largest GPU; local: every engine's
                # local_bytes capability, refused before compiling as on a normal call
                ("ValueError" if space == "shared" else "RuntimeError") if refused else None,
                _scratch_setup(body, n), position=refused,
                unchanged=("out",) if refused else (),
                mentions=(("'k'", "227 KiB", "docs.nvidia.com/cuda") if space == "shared" else
                          ("'k'", "512 KiB", "failed on sim")) if refused else (),
                check="" if refused else ok_check, quick=label == "shared-8GiB",
                timeout=120, note="an 8 GiB tack.shared array per workgroup was reported clean"))
    return out


# Lanes leaving before a barrier: (label, kernel, the text of the line they diverged at, how).
_DIVERGE = [
    ("break", '''
@tack.kernel
def k(x, out, n):
    for i in range(n):
        acc = 0.0
        for j in range(4):
            if x[i] > 3.0 and j == 2:
                break
            acc += x[i]
            tack.barrier()
        out[i] = acc
''', "if x[i] > 3.0 and j == 2", "break"),
    ("continue", '''
@tack.kernel
def k(x, out, n):
    for i in range(n):
        acc = 0.0
        for j in range(4):
            if x[i] > 3.0 and j == 2:
                continue
            acc += x[i]
            tack.barrier()
        out[i] = acc
''', "if x[i] > 3.0 and j == 2", "continue"),
    ("continue-parallel-loop", '''
@tack.kernel
def k(x, out, n):
    for i in range(n):
        if x[i] > 3.0:
            continue
        tack.barrier()
        out[i] = x[i]
''', "if x[i] > 3.0", "exit"),
    ("nested-if-break", '''
@tack.kernel
def k(x, out, n):
    for i in range(n):
        for j in range(4):
            if x[i] > 3.0:
                if j == 1:
                    break
            tack.barrier()
        out[i] = x[i]
''', "if x[i] > 3.0", "break"),
    ("func-return", '''
@tack.func
def f(x, i):
    if x[i] > 3.0:
        return 0.0
    tack.barrier()
    return x[i]

@tack.kernel
def k(x, out, n):
    for i in range(n):
        out[i] = f(x, i)
''', "if x[i] > 3.0", "branch"),
    ("while-condition", '''
@tack.kernel
def k(x, out, n):
    for i in range(n):
        j = 0.0
        while j < x[i]:
            tack.barrier()
            j += 1.0
        out[i] = j
''', "while j < x[i]", "loop"),
]


def _diverged() -> list[Case]:
    out = []
    for label, src, line_text, how in _DIVERGE:
        setup = (src + "x = tack.array(np.arange(512, dtype=np.float32) % 7)\n"
                 "out = tack.zeros(512)\nimport linecache\n")
        check = f'''
(f,) = r.of_kind("barrier")
d = f.diverged
src = linecache.getline(d["branch"][0], d["branch"][1])
assert d["how"] == {how!r} and {line_text!r} in src, (d, src)
assert f.locations[1] == d["branch"] and {line_text!r} in r.text()
'''
        out.append(Case(f"checking/diverged/{label}", "r = tack.check(k, x, out, 512)", None,
                        setup, check=check, quick=label == "break",
                        note="a barrier finding for lanes that broke out of a loop cited the "
                             "loop, not the if/break where they diverged"))
    return out


_BIG_LAUNCH = '''
import tracemalloc
from tack.call import signature
from tack.check.recorder import CheckRecorder
from tack.compiler import typecheck
from tack.passes.pipeline import lower
from tack.runtime.sim.engine import SimEngine

@tack.kernel
def k(out, n):
    for i in range(n):
        s = tack.shared(tack.f32, 256)
        tid = tack.thread_id()
        if i < 512:
            s[tid] = 1.0
            tack.barrier()
            out[i] = s[255 - tid]

class Stop(Exception):
    pass

class FirstAccess(CheckRecorder):
    def access(self, *args):
        raise Stop

n = 1 << 30
out = tack.zeros(512)
pk = k.parse_for([out, n])
kir = lower(typecheck(k, pk, signature.specs("k", pk.params, [out, n])))
'''
_BIG_CALL = '''
tracemalloc.start()
try:
    SimEngine().run(kir, [out._host, n], n, FirstAccess("k", {"race", "barrier"}))
except Stop:
    pass
peak = tracemalloc.get_traced_memory()[1]
tracemalloc.stop()
'''


def _big_launch() -> list[Case]:
    return [Case("checking/launch/2^30-lanes-bookkeeping", _BIG_CALL, None, _BIG_LAUNCH,
                 check="assert peak < 16 << 20, f'{peak / 2**20:.0f} MiB before the first "
                       "access'", isolate=True, timeout=120,
                 note="the simulator made one record per workgroup of a shared array before "
                      "the first chunk: 772 MiB and 24 s for 2^30 lanes")]


CASES = _read_only() + _env() + _options() + _scratch() + _diverged() + _big_launch()
