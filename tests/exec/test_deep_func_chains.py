"""A chain of nested @tack.func calls (f299 calls f298 ... calls f0) compiles and runs, however
long: inlining recurses through the parser, so a long chain moves to a fresh stack when its
thread's frames run short (frontend/depth.py), and the IR it builds nests statements as deep as
the chain (an early return adds an `if` per function), which the later steps handle on a deep
stack. Before, about 110 functions were an "internal compiler error" (RecursionError)."""
import importlib.util

import numpy as np
import pytest
import tack

N = 300


def chain_module(tmp_path, n: int, early_return: bool):
    """A module of n device functions, each calling the previous one, and a kernel calling the
    last: `out[i] = a[i] + n` (the early return never fires on these inputs)."""
    lines = ["import tack", "", "", "@tack.func", "def f0(x):", "    return x + 1.0", ""]
    for k in range(1, n):
        lines += ["", "@tack.func", f"def f{k}(x):"]
        if early_return:
            lines += ["    if x > 1.0e30:", "        return x"]
        lines += [f"    return f{k - 1}(x) + 1.0", ""]
    lines += ["", "@tack.kernel", "def k(a, out):", "    for i in range(a.shape[0]):",
              f"        out[i] = f{n - 1}(a[i])", ""]
    path = tmp_path / f"chain_{n}_{int(early_return)}.py"
    path.write_text("\n".join(lines))
    spec = importlib.util.spec_from_file_location(path.stem, path)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


@pytest.mark.parametrize("early_return", [False, True], ids=["plain", "early_return"])
def test_chain_of_300_device_functions(tmp_path, early_return):
    tack.set_default_device("cpu")
    mod = chain_module(tmp_path, N, early_return)
    a = np.array([0.0, 1.5, -4.0, 7.0, 2.0], np.float32)
    out = tack.zeros(5)
    mod.k(tack.array(a), out)
    np.testing.assert_array_equal(out.numpy(), a + np.float32(N))


def test_chain_on_the_simulator(tmp_path):
    tack.set_default_device("sim")
    mod = chain_module(tmp_path, N, False)
    out = tack.zeros(3)
    mod.k(tack.array(np.array([1.0, 2.0, 3.0], np.float32)), out)
    assert out.numpy().tolist() == [1.0 + N, 2.0 + N, 3.0 + N]
