"""Children that get Ctrl-C as a terminal gives it: a test runner's worker may hold SIGINT
ignored or blocked, and a child inherits both through exec (Python then leaves Ctrl-C off, and
a SIGINT sent to the child is lost). A child script starts with TERMINAL_SIGINT."""
from __future__ import annotations

TERMINAL_SIGINT = ("import signal as _signal\n"
                   "_signal.pthread_sigmask(_signal.SIG_UNBLOCK, [_signal.SIGINT])\n"
                   "_signal.signal(_signal.SIGINT, _signal.default_int_handler)\n")
