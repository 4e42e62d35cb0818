"""Children that get Ctrl-C as a terminal gives it, whatever SIGINT state the test run started in.

Where the Ctrl-C tests' children lost Ctrl-C: not in the test run. No test, Tack module or
library changes SIGINT in a pytest-xdist worker (its SigIgn and SigBlk, watched before and after
each test of a `pytest -n 2` run, stay as the worker started), and execnet starts each worker
with a plain
`subprocess.Popen(args, stdout=PIPE, stdin=PIPE)`
(https://github.com/pytest-dev/execnet/blob/v2.1.2/src/execnet/gateway_io.py#L34), so the worker,
and every process it starts, keeps whatever state pytest itself was started with:

- ignored (SIG_IGN): a POSIX shell starts an asynchronous list (`cmd &`, `(cmd &)`, a script's
  background job) with SIGINT and SIGQUIT ignored when job control is off
  (https://pubs.opengroup.org/onlinepubs/9699919799/utilities/V3_chap02.html#tag_18_11); an
  ignored signal stays ignored through exec, `subprocess` resets only SIGPIPE, SIGXFZ and
  SIGXFSZ (https://docs.python.org/3/library/subprocess.html#subprocess.Popen, restore_signals),
  and Python installs its KeyboardInterrupt handler only "if the parent process has not changed
  it" (https://docs.python.org/3/library/signal.html#general-rules);
- blocked: the signal mask is inherited through fork and kept through exec
  (https://pubs.opengroup.org/onlinepubs/9699919799/functions/exec.html), so a launcher that
  blocks SIGINT blocks it for the whole tree; a SIGINT sent to a child then stays pending.

Either way Python, and Tack with it, leaves Ctrl-C off in the child and the test waits for a
KeyboardInterrupt that never comes. tests/test_sigint_state.py pins these facts (a change
upstream fails there, not as a hang here). A child script starts with TERMINAL_SIGINT: SIGINT
unblocked and handled by Python's default handler, as a terminal gives it.
"""
from __future__ import annotations

TERMINAL_SIGINT = ("import signal as _signal\n"
                   "_signal.pthread_sigmask(_signal.SIG_UNBLOCK, [_signal.SIGINT])\n"
                   "_signal.signal(_signal.SIGINT, _signal.default_int_handler)\n")
