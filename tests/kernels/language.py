"""Kernels of the language tests that other tests use too: a device class with a device function
and a class constant (Field), a kernel as a method of a device class (Mover), a kernel returning
a value (mean). tests/exec runs them; tests/check checks them."""
import tack


@tack.device_class
class Field:
    factor = 3

    def __init__(self, values, offset):
        self.values = values
        self.offset = offset

    @tack.func
    def value(self, i):
        return self.values[i] * self.factor + self.offset


@tack.kernel
def sample(f, out):
    for i in range(out.shape[0]):
        out[i] = f.value(i)


@tack.device_class
class Mover:
    def __init__(self, pos, vel):
        self.pos = pos
        self.vel = vel

    @tack.kernel
    def step(self, dt, n):
        for i in range(n):
            self.pos[i] = self.pos[i] + dt * self.vel[i]


@tack.kernel
def mean(x, acc) -> tack.f64:
    n = x.shape[0]
    for i in range(n):
        tack.atomic_add(acc, 0, x[i])
    return acc[0] / n
