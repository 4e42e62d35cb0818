"""The facts tests/sigint_state.py rests on, so that a change upstream shows here and not as a
Ctrl-C test that hangs: an execnet popen worker (pytest-xdist's) keeps the SIGINT state of the
process that started it, ignored and blocked included; a Python child of an ignoring parent
leaves SIGINT ignored; a POSIX shell's asynchronous list starts with SIGINT ignored; and
TERMINAL_SIGINT gives a child Ctrl-C back from any of these."""
import subprocess
import sys
import textwrap

import pytest

from tests.sigint_state import TERMINAL_SIGINT

pytestmark = pytest.mark.skipif(not sys.platform.startswith("linux"),
                                reason="POSIX signal masks and /proc")

# What a process reports of its SIGINT: Python's handler, and whether the signal is blocked.
REPORT = ("import signal\n"
          "print(repr(signal.getsignal(signal.SIGINT)), "
          "signal.SIGINT in signal.pthread_sigmask(signal.SIG_BLOCK, []))\n")

# The launcher's SIGINT state, set before anything is started from it.
STATES = {
    "terminal": ("signal.pthread_sigmask(signal.SIG_UNBLOCK, [signal.SIGINT])\n"
                 "signal.signal(signal.SIGINT, signal.default_int_handler)\n"),
    "ignored-blocked": ("signal.signal(signal.SIGINT, signal.SIG_IGN)\n"
                        "signal.pthread_sigmask(signal.SIG_BLOCK, [signal.SIGINT])\n"),
}
SEEN = {"terminal": "<built-in function default_int_handler> False",
        "ignored-blocked": "<Handlers.SIG_IGN: 1> True"}


def _python(code: str) -> str:
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120,
                       check=False)
    assert r.returncode == 0, r.stderr[-3000:]
    return r.stdout.strip()


@pytest.mark.parametrize("state", list(STATES))
def test_an_xdist_worker_keeps_the_sigint_state_it_was_started_with(state):
    """pytest-xdist starts its workers as execnet popen gateways in the main_thread_only
    execution model (xdist/workermanage.py); the gateway is a plain subprocess.Popen, so the
    worker's SIGINT is its starter's, neither reset nor ignored by the bootstrap."""
    pytest.importorskip("execnet")
    remote = ("import signal; channel.send((repr(signal.getsignal(signal.SIGINT)), "
              "signal.SIGINT in signal.pthread_sigmask(signal.SIG_BLOCK, [])))")
    code = "import signal\n" + STATES[state] + textwrap.dedent(f"""
        import execnet
        gw = execnet.makegateway("execmodel=main_thread_only//popen")
        print(*gw.remote_exec({remote!r}).receive())
        gw.exit()
        """)
    assert _python(code) == SEEN[state]


@pytest.mark.parametrize("state", list(STATES))
def test_a_python_child_keeps_its_parents_sigint_state(state):
    """An ignored SIGINT stays ignored through exec (subprocess restores only SIGPIPE, SIGXFZ
    and SIGXFSZ) and Python then installs no KeyboardInterrupt handler; a blocked one stays
    blocked (the mask is inherited)."""
    code = ("import signal, subprocess, sys\n" + STATES[state]
            + f"subprocess.run([sys.executable, '-c', {REPORT!r}], check=True)\n")
    assert _python(code) == SEEN[state]


def test_a_shell_starts_an_asynchronous_list_with_sigint_ignored():
    """POSIX: without job control, `cmd &` inherits SIGINT and SIGQUIT ignored: a test run
    started that way has Ctrl-C off in every worker and child."""
    code = ("import signal, subprocess, sys\n" + STATES["terminal"]
            + f"subprocess.run(['sh', '-c', sys.executable + ' -c \"$0\" & wait', {REPORT!r}],"
            " check=True)\n")
    assert _python(code) == "<Handlers.SIG_IGN: 1> False"


def test_terminal_sigint_gives_a_child_ctrl_c_back():
    """From a parent that ignores and blocks SIGINT, a child that starts with TERMINAL_SIGINT
    gets a KeyboardInterrupt from a SIGINT sent to it."""
    child = TERMINAL_SIGINT + textwrap.dedent("""
        import os, signal, time
        try:
            os.kill(os.getpid(), signal.SIGINT)
            time.sleep(30)
            print("no KeyboardInterrupt")
        except KeyboardInterrupt:
            print("KeyboardInterrupt")
        """)
    code = ("import signal, subprocess, sys\n" + STATES["ignored-blocked"]
            + f"subprocess.run([sys.executable, '-c', {child!r}], check=True)\n")
    assert _python(code) == "KeyboardInterrupt"
