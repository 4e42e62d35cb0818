"""Language and API features on the GPU: the CPU tests of tests/exec (evaluation order, weak
floats, matrix stores, launch bounds, nested objects, imports, unpacking, conditional calls,
the prologue `if`, mask logic, debug mode in device functions, host arrays, capabilities), run
with CUDA as the default device against the same expected values."""
import numpy as np
import pytest
import tack

from tests.cuda import gpu

pytestmark = [*gpu.MARKS, pytest.mark.usefixtures("cuda_device")]


def test_language_features_on_cuda():
    from tests.exec import test_eval_order as eo
    from tests.exec import test_ifexp_calls as ic
    from tests.exec import test_launch_bounds as lb
    from tests.exec import test_mask_logic as ml
    from tests.exec import test_matrix_store as ms
    from tests.exec import test_nested_objects as no
    from tests.exec import test_prologue_if as pi
    from tests.exec import test_submodule_imports as im
    from tests.exec import test_unpack as up
    from tests.exec import test_weak_floats as wf

    eo.test_evaluation_order_of_side_effects()
    wf.test_weak_floats_through_bindings_f64()
    wf.test_weak_floats_through_bindings_f32()
    wf.test_weak_conditional_evaluates_its_condition_once_in_place()
    ms.test_matrix_element_store_at_runtime_index()
    lb.test_constant_as_launch_bound()
    lb.test_object_attribute_as_launch_bound_in_kernel_method()
    no.test_nested_objects_of_the_same_class()
    im.test_from_tack_math_and_random_import()
    up.test_tuple_unpacking_of_a_vector()
    ic.test_device_call_in_conditional_expression()
    ic.test_device_call_arms_of_vectors_and_weak_floats()
    pi.test_prologue_if_assigns_locals()
    ml.test_mask_and_or_not_chained()


def test_debug_mode_names_device_function_on_cuda():
    from tests.exec import test_debug_device_function as df

    tack.set_debug(True)
    try:
        df.test_debug_index_error_names_device_function(None)
    finally:
        tack.set_debug(False)


def test_host_arrays_on_cuda():
    from tests.exec import test_host_arrays as ha

    ha.test_host_element_reads()
    ha.test_host_writes_and_iteration_are_refused()
    ha.test_fill_reshape_copy()
    ha.test_astype_follows_kernel_conversions()
    ha.test_ones_arange_concat()
    a = tack.array(np.arange(6, dtype=np.float32).reshape(2, 3))
    assert a.device.arch == "cuda" and a[1, 2] == 5.0


def test_cuda_capabilities_and_selection():
    dev = tack.default_device()
    assert dev.name == "cuda" and dev.supports_workgroups and dev.supports_f64
    assert tack.f64 in dev.supported_atomic_dtypes
    assert dev._engine is not None  # selection started the engine


def test_barrier_under_varying_if_on_cuda():
    from tests.exec.test_cpu_rejections import varying_barrier

    with pytest.raises(ValueError, match="requires uniform workgroup participation"):
        varying_barrier(tack.zeros(256, tack.f32))
