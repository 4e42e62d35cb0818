"""Errors Tack raises on purpose reach the caller without the compiler's frames; bugs in Tack and
`TACK_TRACEBACK=full` keep them (docs/debugging.md, "Exceptions")."""
import os
import subprocess
import sys
import textwrap

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

PROGRAMS = {
    "decorator": """
        import tack
        def k(a):
            for i in range(a.shape[0]):
                a[i] = 1.0
        exec("def made(a):\\n    pass")
        tack.kernel(made)  # no source to read: refused at the decoration, from the user's line
    """,
    "call": """
        import tack
        @tack.kernel
        def k(a):
            for i in range(a.shape[0]):
                a[i] = [x for x in range(3)]
        k(tack.zeros(4))
    """,
    "inspect": """
        import tack
        @tack.kernel
        def k(a):
            for i in range(a.shape[0]):
                a[i] = undefined_name + 1.0
        tack.inspect(k, tack.zeros(4))
    """,
    "argument": """
        import tack
        @tack.kernel
        def k(a):
            for i in range(a.shape[0]):
                a[i] = 1.0
        k(tack.zeros(4), tack.zeros(4))
    """,
    "second signature": """
        import tack
        @tack.kernel
        def k(a, b):
            for i in range(a.shape[0]):
                a[i] = b[i] + 1.0
        for _ in range(3):
            k(tack.zeros(4), tack.zeros(4))   # a prebuilt call path exists after this
        k(tack.zeros(4), 2.0)  # a new signature, through the prebuilt path's miss: b[i] of a float
    """,
}


def traceback_of(program, full=False):
    env = dict(os.environ, PYTHONPATH=os.path.join(ROOT, "python"))
    env.pop("TACK_TRACEBACK", None)
    if full:
        env["TACK_TRACEBACK"] = "full"
    path = os.path.join(os.environ.get("TMPDIR", "/tmp"), f"tb_{os.getpid()}_{hash(program)}.py")
    with open(path, "w") as f:
        f.write(textwrap.dedent(program))
    try:
        run = subprocess.run([sys.executable, path], check=False, capture_output=True, text=True, env=env,
                             timeout=120)
    finally:
        os.unlink(path)
    assert run.returncode == 1, run.stderr
    return run.stderr


def internal_frames(stderr):
    return [line for line in stderr.splitlines()
            if line.strip().startswith("File ") and os.sep + "tack" + os.sep in line]


@pytest.mark.parametrize("name", sorted(PROGRAMS))
def test_an_error_on_purpose_shows_the_callers_frame_not_the_compilers(name):
    err = traceback_of(PROGRAMS[name])
    frames = internal_frames(err)
    assert len(frames) <= 1, err  # the public entry point's own raise, nothing below it
    assert "tb_" in err  # the user's frame
    assert any(line.startswith("tack.errors.") for line in err.splitlines()), err
    assert "During handling" not in err, err  # a cause may be shown (what failed), frameless


def test_full_tracebacks_on_request():
    err = traceback_of(PROGRAMS["call"], full=True)
    assert len(internal_frames(err)) > 5, err


def test_a_bug_in_tack_keeps_its_frames(monkeypatch):
    import tack
    from tack.errors import InternalCompilerError
    from tack.frontend.parser import Parser

    def boom(self, node):
        raise KeyError("boom")

    monkeypatch.setattr(Parser, "expr_BinOp", boom)

    @tack.kernel
    def k(a):
        for i in range(a.shape[0]):
            a[i] = a[i] + 1.0

    with pytest.raises(InternalCompilerError) as ei:
        k(tack.zeros(4))
    frames = [f for f in ei.traceback if os.sep + "tack" + os.sep in str(f.path)]
    assert len(frames) > 3
    assert type(ei.value.__cause__) is KeyError
