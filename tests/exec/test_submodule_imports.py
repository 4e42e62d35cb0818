"""`tack.math` and `tack.random` are importable modules as well as attributes
(docs/language.md, "Shader helpers: `tack.math`" and "Random numbers")."""
import os
import subprocess
import sys

import numpy as np
import tack
from tack.math import clamp, mix
from tack.random import seed, uniform


@tack.kernel
def uses_imported(x, out, draws):
    for i in range(x.shape[0]):
        out[i] = mix(0.0, 2.0, clamp(x[i], 0.0, 1.0))
        s = seed(i, 7)
        u, s = uniform(s)
        draws[i] = u


def test_from_tack_math_and_random_import(engine):
    x = tack.array(np.array([-1.0, 0.25, 3.0], np.float32))
    out, draws = tack.zeros(3, tack.f32), tack.zeros(3, tack.f32)
    uses_imported(x, out, draws)
    assert out.numpy().tolist() == [0.0, 0.5, 2.0]
    states = tack.random.np_seed(np.arange(3), 7)
    want, _ = tack.random.np_uniform(states)
    np.testing.assert_array_equal(draws.numpy(), want)


def test_submodules_are_the_attributes():
    import tack.math as tm
    import tack.random as tr

    assert tm is tack.math and tr is tack.random


def test_submodule_import_in_a_fresh_interpreter():
    root = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    env = dict(os.environ, PYTHONPATH=os.path.join(root, "python"))
    code = ("from tack.math import clamp; from tack.random import seed; import tack.random; "
            "print(clamp.name, seed.name)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env,
                         check=True)
    assert out.stdout.split() == ["clamp", "seed"]
