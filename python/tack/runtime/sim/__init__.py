"""The simulator engine: runs the final KernelIR lane-vectorized with NumPy (docs/design/008-simulator.md)."""
