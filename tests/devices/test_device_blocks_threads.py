"""`with tack.device(...)` blocks are per thread, and a block that ends on another thread (a
generator suspended inside it, closed or resumed there) ends the block it began and changes no
other block of either thread. Before, `__exit__` popped the exiting thread's innermost block:
the other thread lost its own block (and later raised IndexError), the entering thread kept the
generator's device for good."""
from __future__ import annotations

import contextlib
import threading

import pytest
import tack

A, B, C = tack.device("sim:1"), tack.device("sim:2"), tack.device("cpu", num_threads=1)


def _default() -> tack.Device:
    return tack.default_device()


def _in_thread(fn):
    out, errors = {}, []

    def run():
        try:
            fn(out)
        except BaseException as exc:  # noqa: BLE001 - reported below
            errors.append(exc)

    t = threading.Thread(target=run)
    t.start()
    t.join()
    if errors:
        raise errors[0]
    return out


def _blocks(dev):
    with dev:
        yield _default()
        yield _default()


def test_a_generator_closed_on_another_thread_ends_only_its_own_block():
    before = _default()
    with C:
        g = _blocks(A)
        assert next(g) is A and _default() is A  # suspended inside its block, on this thread

        def other(out):
            with B:
                out["inside"] = _default()
                g.close()  # the generator's block ends here, on this thread
                out["after close"] = _default()
            out["after"] = _default()

        out = _in_thread(other)
        assert out == {"inside": B, "after close": B, "after": before}
        assert _default() is C  # the generator's block ended where it began
    assert _default() is before


def test_a_generator_resumed_and_finished_on_another_thread():
    before = _default()
    g = _blocks(A)
    assert next(g) is A

    def other(out):
        with B:
            out["resumed"] = next(g)  # runs on this thread: this thread's block is innermost
            with pytest.raises(StopIteration):
                next(g)  # the generator's block exits here
            out["after"] = _default()

    out = _in_thread(other)
    assert out == {"resumed": B, "after": B}
    assert _default() is before


def test_threads_keep_their_own_blocks_while_others_enter_and_exit():
    barrier = threading.Barrier(4)
    seen = []

    def worker(dev):
        def run(out):
            for _ in range(200):
                with dev:
                    barrier.wait() if _ == 0 else None
                    seen.append(_default() is dev)
                    with C:
                        seen.append(_default() is C)
                    seen.append(_default() is dev)
        return run

    threads = [threading.Thread(target=_in_thread, args=(worker(d),)) for d in (A, B, C, A)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert len(seen) == 4 * 200 * 3 and all(seen)


def test_the_same_device_nested_and_through_an_exit_stack():
    before = _default()
    with A:
        with A:
            assert _default() is A
        assert _default() is A
        with contextlib.ExitStack() as st:
            st.enter_context(B)
            assert _default() is B
        assert _default() is A
    assert _default() is before


def test_an_exit_without_a_block_is_a_clear_error():
    with pytest.raises(RuntimeError, match="no open block of this device"):
        A.__exit__(None, None, None)
