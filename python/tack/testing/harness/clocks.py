"""GPU clock samples through NVML, so that a timing taken while the clocks moved is not believed.

NVML comes from the optional `nvidia-ml-py` package (module `pynvml`). Without it, or on a device
that is not an NVIDIA GPU, nothing is sampled and the record says why; the stability tier then
rests on the spread alone.
"""
from __future__ import annotations

MOVED = 0.02  # clocks "moved" when the SM clock samples differ by more than 2 % of the highest


class ClockWatch:
    """SM clock samples (MHz) taken between timed blocks."""

    def __init__(self, read=None, reason: str = ""):
        self.read, self.reason, self.samples = read, reason, []

    def sample(self) -> None:
        if self.read is not None:
            self.samples.append(int(self.read()))

    def moved(self) -> bool:
        s = self.samples
        return bool(s) and max(s) - min(s) > MOVED * max(s)

    def as_dict(self) -> dict:
        return {"checked": self.read is not None, "reason": self.reason,
                "samples_mhz": list(self.samples), "moved": self.moved()}


def watch(device) -> ClockWatch:
    """A watch on `device`'s SM clock, or one that samples nothing and says why."""
    if device.arch != "cuda":
        return ClockWatch(None, f"not checked: {device!r} is not an NVIDIA GPU")
    try:
        import pynvml  # optional (nvidia-ml-py), loaded only when timing on an NVIDIA GPU
    except ImportError:
        return ClockWatch(None, "not checked: NVML unavailable (pip install nvidia-ml-py)")
    try:
        pynvml.nvmlInit()
        # NVML numbers GPUs in PCI order, as CUDA does under CUDA_DEVICE_ORDER=PCI_BUS_ID.
        handle = pynvml.nvmlDeviceGetHandleByIndex(device.options.get("index", 0))

        def read():
            return pynvml.nvmlDeviceGetClockInfo(handle, pynvml.NVML_CLOCK_SM)

        read()
    except pynvml.NVMLError as exc:
        return ClockWatch(None, f"not checked: NVML failed ({exc})")
    return ClockWatch(read, "NVML SM clock, sampled before timing and after every block")
