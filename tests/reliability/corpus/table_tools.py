"""Tack's own tools given bad input: the harness (`tack.testing.test`, its records and
`python -m tack.testing`) and `python -m tack.check`.

A wrong request is refused before any work, as a TackError (the command lines: exit status 2),
never a traceback after the run; a records folder holding something that is not a record is
read around, never blocked on. Each row's setup writes what it needs into a fresh temporary
folder `tmp`."""
from __future__ import annotations

from .case import Case

# A row's check starts by removing the row's folder.
_CLEAN = "import shutil\nshutil.rmtree(tmp)\n"

# A subject that counts its calls, its reference, and a folder to put files in.
_SUBJECT = '''
import tempfile
import tack.testing
tmp = tempfile.mkdtemp(prefix="tack-tools-")
calls = []
def subject(x):
    calls.append(1)
    return x * 2
def ref(x):
    return x * 2
def test(**kw):
    return tack.testing.test(subject, reference=ref, signature="(n)->(n)", baseline=False,
                             progress=False, **kw)
'''

# tack.testing.test's keywords that must be refused before the subject runs:
# (label, keywords, expected class, words of the message).
_TEST_REFUSALS = [
    ("dtype-unknown", "dtypes='floatx'", "ValueError", ("'floatx'",)),
    ("dtype-among-good", "dtypes=('float32', 'no-such')", "ValueError", ("'no-such'",)),
    ("dtype-kernel-complex", None, "ValueError", ("complex64",)),
    ("records-dir-is-file", "records_dir=os.path.join(tmp, 'afile')", "ValueError",
     ("is a file",)),
    ("records-dir-under-file", "records_dir=os.path.join(tmp, 'afile', 'below')", "ValueError",
     ("records folder",)),
    ("subject-syntax-error", "subject_file='def f(:\\n'", "ValueError", ("mod.py:1:",)),
    ("subject-import-error", "subject_file='import no_such_module_here\\n'", "ValueError",
     ("ModuleNotFoundError",)),
    ("subject-raises-at-import", "subject_file='1 / 0\\n'", "ValueError",
     ("ZeroDivisionError",)),
    ("subject-not-callable", "subject_file='f = 5\\n'", "TypeError", ("must be callable",)),
]


def _testing_refusals() -> list[Case]:
    out = []
    for label, kw, cls, words in _TEST_REFUSALS:
        setup = _SUBJECT + "open(os.path.join(tmp, 'afile'), 'w').close()\n"
        if kw is None:  # a kernel subject on a dtype Tack arrays do not hold
            setup += ("@tack.kernel\ndef twice(x, out):\n    for i in range(x.shape[0]):\n"
                      "        out[i] = x[i] * 2\n")
            call = ("tack.testing.test(twice, reference=ref, signature='(n)->(n)', "
                    "dtypes='complex64', baseline=False, progress=False, records_dir=False)")
        elif kw.startswith("subject_file="):
            setup += (f"path = os.path.join(tmp, 'mod.py')\nwith open(path, 'w') as f:\n"
                      f"    f.write({kw.partition('=')[2]})\n")
            call = ("tack.testing.test(path + '::f', reference=ref, signature='(n)->(n)', "
                    "baseline=False, progress=False, records_dir=False)")
        else:
            call = f"test({kw}{'' if 'records_dir' in kw else ', records_dir=False'})"
        out.append(Case(f"tools/testing/{label}", call, cls, setup, mentions=words,
                        check=f"{_CLEAN}assert not calls, 'the subject ran before the refusal'",
                        quick=label == "records-dir-is-file",
                        note="refused before the run, as a TackValueError"))
    return out


# Records folders holding entries that are not records: (label, setup making `bad` in `runs`).
_NOT_RECORDS = [
    ("fifo", "os.mkfifo(bad)"),  # open() would wait for a writer forever
    ("folder", "os.mkdir(bad)"),
    ("dangling-link", "os.symlink(os.path.join(tmp, 'nowhere'), bad)"),
    ("truncated", "put(b'{')"),
    ("not-an-object", "put(b'[1, 2]')"),
    ("not-utf8", "put(b'\\xff\\xfe{')"),
    ("deeply-nested", "put(b'[' * 100000 + b']' * 100000)"),
    ("wrong-type-name", "put(dict(good, name=5))"),
    ("wrong-type-created", "put(dict(good, created='yesterday'))"),
    ("wrong-type-environment", "put(dict(good, environment=[]))"),
    ("wrong-type-cases", "put(dict(good, cases=[3]))"),
    ("wrong-type-nested", "put(dict(good, cases=[dict(good['cases'][0], passed='yes')]))"),
    ("missing-field", "put({k: v for k, v in good.items() if k != 'tier'})"),
]


def _records() -> list[Case]:
    setup = (_SUBJECT + "import json\nruns = os.path.join(tmp, 'runs')\n"
             "good = test(records_dir=runs).to_dict()\n"
             "bad = os.path.join(runs, 'zz-bad.json')\n"
             "def put(data):\n    with open(bad, 'wb') as f:\n"
             "        f.write(data if isinstance(data, bytes) else json.dumps(data).encode())\n")
    call = ("from tack.testing.harness import load_all\n"
            "recs, skipped = load_all(runs)\n")
    check = (_CLEAN + "assert [r.name for r in recs] == ['subject'], recs\n"
             "assert len(skipped) == 1 and skipped[0].startswith('zz-bad.json: '), skipped\n")
    # The FIFO in a subprocess of its own: if the read blocks, the row times out instead of
    # hanging the run.
    return [Case(f"tools/records/{label}", call, None, setup + make + "\n", check=check,
                 isolate=label == "fifo", timeout=60, quick=label == "fifo",
                 note="a records folder is read around what is not a record")
            for label, make in _NOT_RECORDS]


# Command lines that are wrong: (label, module, arguments; {tmp} is the row's folder, {test}
# the start of a `test` command line that is right).
_TEST = "test {tmp}/m.py::f --reference {tmp}/m.py::f --signature (n)->(n)"
_COMMANDS = [
    ("testing-dtype", "tack.testing", "{test} --dtypes floatx"),
    ("testing-records-dir-file", "tack.testing", "{test} --records-dir {tmp}/m.py"),
    ("testing-syntax-error", "tack.testing", "{test} --baseline {tmp}/bad.py::f"),
    ("testing-last-zero", "tack.testing", "runs --last 0"),
    ("testing-runs-dir-file", "tack.testing", "runs --records-dir {tmp}/m.py"),
    ("check-witnesses-zero", "tack.check", "--witnesses 0 {tmp}/prog.py"),
    ("check-json-unwritable", "tack.check", "--json {tmp}/no/such/r.json {tmp}/prog.py"),
    ("check-json-folder", "tack.check", "--json {tmp} {tmp}/prog.py"),
    ("check-syntax-error", "tack.check", "{tmp}/bad.py"),
    ("check-missing-script", "tack.check", "{tmp}/missing.py"),
]


def _commands() -> list[Case]:
    # m.py's f and the program prog.py leave a file `*.ran` when they run
    setup = ("import contextlib, io, sys, tempfile\n"
             "tmp = tempfile.mkdtemp(prefix='tack-tools-')\n"
             "def put(name, text):\n"
             "    with open(os.path.join(tmp, name), 'w') as f:\n        f.write(text)\n"
             "ran = 'open(__file__ + \".ran\", \"w\").close()\\n'\n"
             "put('m.py', 'def f(x):\\n    ' + ran + '    return x\\n')\n"
             "put('prog.py', ran)\nput('bad.py', 'def f(:\\n')\n"
             "err = io.StringIO()\n")
    out = []
    for label, module, args in _COMMANDS:
        args = args.replace("{test}", _TEST)
        main = ("from tack.check.__main__ import main" if module == "tack.check" else
                "from tack.testing.harness.cli import main")
        # sys.path as it was afterwards: `test` puts the named files' folder on it
        call = (f"{main}\npath = list(sys.path)\nwith contextlib.redirect_stderr(err):\n"
                f"    try:\n        status = main({args!r}.format(tmp=tmp).split())\n"
                "    except SystemExit as exc:  # argparse's own refusals\n"
                "        status = exc.code\n    finally:\n        sys.path[:] = path\n")
        check = ("assert status == 2, (status, err.getvalue())\n"
                 "lines = err.getvalue().splitlines()\n"
                 "assert len(lines) == 1 and ': error: ' in lines[0], lines\n"
                 "ran = [f for f in os.listdir(tmp) if f.endswith('.ran')]\n"
                 + _CLEAN + "assert not ran, 'it ran'\n")
        out.append(Case(f"tools/cli/{label}", call, None, setup, check=check,
                        quick=label == "check-witnesses-zero",
                        note="a usage error: status 2, one line, nothing run"))
    return out


CASES: list[Case] = [*_testing_refusals(), *_records(), *_commands()]
