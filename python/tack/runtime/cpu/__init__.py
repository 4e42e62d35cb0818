"""The native CPU engine (engine.py) and its pieces: the native caller, the thread pool and its
LLVM IR, Ctrl-C handling, launch records, symbols, thread counts and timing.

See docs/design/002-cpu-engine.md.
"""
