"""What the Julia engine's device-array tests run (tests/julia/test_julia153_device_arrays.py on
the Julia 1.5.3 tier, test_juliacall_device_arrays.py on a real GPU through juliacall)."""
import tack

# One of each kind the engine treats apart (hidden launch arguments, 2-D/3-D indexing, atomics,
# vectors, device classes, textures, workgroups and barriers); TACK_JULIA_DEVICE_CORPUS=all runs
# every corpus and extra kernel (about 1.5 minutes more; docs/julia.md records that run).
SAMPLE = ("saxpy", "stepped_launch", "sequential_sees_writes", "flat_index_2d", "ndrange_3d",
          "histogram", "atomic_extremes", "atomic_returns", "vec_geometry", "cell_average",
          "texture_sample", "iterate_plate", "block_reduce", "barrier_shapes")


@tack.kernel
def axpy(a, x, y):
    for i in range(x.shape[0]):
        y[i] = a * x[i] + y[i]
