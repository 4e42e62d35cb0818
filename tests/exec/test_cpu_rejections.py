"""On the CPU a barrier under a lane-dependent `if` gets the CPU's rejection
(workgroup primitives need a GPU), not the GPU's uniform-participation error; `view = tmp` is an
unsupported construct (docs/language.md, "Workgroup contract")."""
import pytest
import tack
from tack.devices import make_device


@tack.kernel
def varying_barrier(a):
    for i in range(a.shape[0]):
        if a[i] > 0.0:
            tack.barrier()


@tack.kernel
def alias_scratch(a):
    for i in range(a.shape[0]):
        tmp = tack.local_array(tack.f32, 4)
        view = tmp
        view[0] = 1.0
        a[i] = view[0]


@tack.func
def alias_in_func(buf):
    other = buf
    return other[0]


@tack.kernel
def alias_scratch_in_func(a):
    for i in range(a.shape[0]):
        tmp = tack.local_array(tack.f32, 4)
        tmp[0] = 1.0
        a[i] = alias_in_func(tmp)


def test_cpu_rejects_barrier_under_varying_if_as_cpu():
    with pytest.raises(RuntimeError, match=r"Kernel 'varying_barrier' failed on CPUBackend: CPU "
                                           r"backend does not support workgroup execution "
                                           r"required by barrier") as e:
        varying_barrier(tack.zeros(256, tack.f32))
    assert not isinstance(e.value, ValueError)
    assert e.value.loc.line == varying_barrier.source.tree.lineno + varying_barrier.source.first_line - 1


@pytest.mark.engines("sim", "cuda",
                     reason="the workgroup engines' rule; the CPU refuses barriers (the test "
                            "above)")
def test_workgroup_engine_refuses_barrier_under_varying_if(engine):
    with pytest.raises(ValueError, match="requires uniform workgroup participation"):
        varying_barrier(tack.zeros(256, tack.f32))


def test_gpu_device_still_applies_uniform_participation():
    """The same kernel checked against a GPU device (nothing runs) gets the GPU's rule."""
    from tack import compiler

    with pytest.raises(ValueError, match=r"barrier at .* requires uniform workgroup "
                                         r"participation: its condition"):
        compiler.specialize(varying_barrier, (tack.zeros(256, tack.f32),), make_device("cuda"))


@pytest.mark.parametrize("kernel, line_text, col", [
    (alias_scratch, "        view = tmp", 16),
    (alias_scratch_in_func, "    other = buf", 13),
])
def test_binding_a_scratch_array_is_unsupported(kernel, line_text, col):
    with pytest.raises(tack.UnsupportedSyntaxError,
                       match=r"binding another name to the scratch array '(tmp|buf)'") as e:
        kernel(tack.zeros(4, tack.f32))
    assert e.value.loc.source_line() == line_text
    assert e.value.loc.col == col
