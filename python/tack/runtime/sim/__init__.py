"""The simulator engine: the final KernelIR run lane-vectorized with NumPy.

See docs/design/008-simulator.md.
"""
