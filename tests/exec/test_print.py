"""print inside kernels (docs/language.md, "print"): printf on the CPU, captured at the fd."""
import numpy as np
import pytest
import tack


@tack.kernel
def debug_kernel(data, n):
    for i in range(n):
        if i < 3:
            print("val:", data[i])


@tack.kernel
def many_types(out):
    for i in range(1):
        print("i8", tack.i8(-5), "u64", tack.u64(18446744073709551615), "f64", tack.f64(0.1),
              "100%", 1 < 2)  # noqa: PLR0133 - a comparison prints as 0/1
        out[0] = 1.0


@tack.kernel
def prints_vector(v):
    for i in range(v.shape[0]):
        print(v[i])


def test_seed_debug_kernel(capfd):
    tack.set_default_device("cpu", num_threads=1)
    debug_kernel(tack.array(np.array([1.5, -2.25, 3e10, 7], np.float32)), 4)
    out = capfd.readouterr().out.splitlines()
    assert out == ["val: 1.5", "val: -2.25", "val: 3e+10"]
    tack.set_default_device("cpu")


def test_formats(capfd):
    many_types(tack.zeros(1))
    assert capfd.readouterr().out == ("i8 -5 u64 18446744073709551615 f64 0.1 "
                                      "100% 1\n")


def test_vectors_cannot_be_printed():
    with pytest.raises(tack.UnsupportedSyntaxError, match="printed value"):
        prints_vector(tack.zeros(2, tack.vec3))
