"""The native CUDA engine (engine.py) and its pieces: the driver bindings, the caching allocator,
the PTX cache, kernels and their launch, occupancy, inspection, DLPack and mapped readback.

See docs/design/004-cuda-engine.md.
"""
