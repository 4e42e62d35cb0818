"""Nested objects of the same device class are not recursion (the check keys
on the function and the object it is bound to); an object that holds itself is a TypeError
(docs/language.md, "Device classes: `@tack.device_class`")."""
import numpy as np
import pytest
import tack


@tack.device_class
class Counting:
    def __init__(self, n):
        self.n = n

    @tack.func
    def get(self, i):
        return i


@tack.device_class
class Permuted:
    def __init__(self, ids, inner):
        self.ids = ids
        self.inner = inner

    @tack.func
    def get(self, i):
        return self.inner.get(self.ids[i])


@tack.device_class
class Looping:
    def __init__(self):
        self.other = None

    @tack.func
    def get(self, i):
        return self.get(i)  # real recursion: the same function on the same object


@tack.kernel
def gather(p, out):
    for i in range(out.shape[0]):
        out[i] = p.get(i)


IDS = np.array([1, 2, 3, 4, 5, 6, 7, 8, 9, 0], dtype=np.int32)


def test_nested_objects_of_the_same_class(engine):
    ids, out = tack.array(IDS), tack.zeros(10, tack.i32)
    gather(Permuted(ids, Permuted(ids, Counting(10))), out)
    assert out.numpy().tolist() == IDS[IDS].tolist()
    gather(Permuted(ids, Permuted(ids, Permuted(ids, Counting(10)))), out)
    assert out.numpy().tolist() == IDS[IDS[IDS]].tolist()


def test_recursion_on_one_object_is_still_rejected():
    with pytest.raises(tack.UnsupportedSyntaxError, match="recursive call of device function "
                                                          "'get'") as e:
        gather(Looping(), tack.zeros(2, tack.i32))
    assert "return self.get(i)" in str(e.value)


def test_object_holding_itself_is_a_type_error():
    ids = tack.array(IDS)
    p = Permuted(ids, None)
    p.inner = p
    with pytest.raises(TypeError, match=r"Kernel 'gather': a Permuted object holds itself "
                                        r"\(through \.inner\)"):
        gather(p, tack.zeros(10, tack.i32))
    a, b = Permuted(ids, None), Permuted(ids, None)
    a.inner, b.inner = b, a
    with pytest.raises(TypeError, match=r"holds itself \(through \.inner\.inner\)"):
        gather(a, tack.zeros(10, tack.i32))
