"""The simulator engine: `tack.set_default_device("sim")` runs kernels on NumPy with the GPU
execution model (docs/design/008-simulator.md).

It executes the final KernelIR, the IR every renderer prints, lane-vectorized: the launch runs
in chunks of whole workgroups (`ir.ops.WORKGROUP` lanes each), every statement once per chunk
over the lanes that are active. Arrays are host memory (the caller's NumPy buffers, used in
place). `SimEngine.run` is the entry point for checkers: it takes a `trace.Recorder` that hears
of every access, bad index, uninitialized read and diverged barrier. A plain launch (no
checker) raises after the run: TackIndexError for an index outside its array (as debug mode
does on the other engines) and TackValueError for a diverged barrier (as the static workgroup
contract does).
"""
from __future__ import annotations

import numpy as np

from ...capabilities import has_collectives
from ...errors import TackIndexError, TackValueError
from ...ir.nodes import KernelIR
from ...ir.ops import WORKGROUP
from ...ir.printer import kernel_str
from ..base import Engine, Launchable
from ..host import HostMemory, check_count, host_array, host_scalar
from ..registry import SIM
from .executor import Executor, exits
from .mbarriers import Deadlock
from .memory import Memory, check_limits
from .printing import emit
from .trace import NO_RECORDER, Recorder, Site

CHUNK = 1 << 18  # lanes simulated at once (whole workgroups): bounds the locals' memory


class SimEngine(HostMemory, Engine):
    """Runs final KernelIR on NumPy; arrays are host memory; launches return finished."""

    capabilities = SIM.capabilities["sim"]
    stages = SIM.stages

    def __init__(self, index: int = 0, sm: int = 80):
        self.index = index  # "sim:1": several simulated devices in one process
        self.compiled = 0  # kernels compiled for this device (each device has its own)
        # The GPU generation whose library kernels tack.ops takes here: 80, the warp-MMA ones
        # (ops/matmul_mma.py), or 90, the Hopper warpgroup-MMA ones (ops/matmul_wgmma.py);
        # `tack.device("sim", sm=90)`. The simulator runs either; the choice is the op's.
        self.sm = sm

    @classmethod
    def create(cls, arch: str, options: dict) -> SimEngine:
        return cls(options.get("index", 0), options.get("sm", 80))

    def runs_wgmma(self) -> bool:
        return self.sm >= 90

    def compile(self, kir: KernelIR) -> SimKernel:
        self.compiled += 1
        return SimKernel(kir)

    def sync(self) -> None:
        """Nothing is queued: every launch returns finished."""

    def stage(self, kir: KernelIR, name: str) -> str:
        if name not in self.stages:
            raise TackValueError(f"the sim engine has no stage {name!r}; it has {self.stages}")
        return kernel_str(kir)  # "source" too: the simulator executes the final IR itself

    def run(self, kir: KernelIR, values: list, n: int, recorder: Recorder = NO_RECORDER,
            uninitialized=()) -> None:
        """Run `kir` for launch indices [0, n), telling `recorder` what happens. `values` are in
        `kir.params` order (arrays as NumPy arrays, written in place); `uninitialized` names the
        array parameters whose reads before a write in this launch are reported."""
        SimKernel(kir).run(values, n, recorder, uninitialized)


class SimKernel(Launchable):
    """One specialization: the IR and what is precomputed about its statements."""

    def __init__(self, kir: KernelIR):
        check_limits(kir)  # what no GPU launches is refused here too, before any allocation
        self.kir = kir
        self.may_exit: dict[int, bool] = {}
        exits(kir.body, self.may_exit)
        # collectives (barriers, warp collectives): lanes note how they leave, for the findings
        self.barriers = has_collectives(kir)

    def launch(self, values: list, n: int) -> None:
        strict = Strict(self.kir.name)
        self.run(values, n, strict, ())
        strict.raise_first()

    def run(self, values: list, n: int, recorder: Recorder, uninitialized) -> None:
        kir = self.kir
        check_count(kir.name, kir.params, values)
        params = {}
        for p, v in zip(kir.params, values):
            if p.kind == "array":
                host_array(kir.name, p, v)
            else:
                params[p.name] = host_scalar(kir.name, p, v)
        n = int(n)
        memory = Memory(kir, values, max(n, 0), recorder, set(uninitialized))
        recorder.launch(kir.name, max(n, 0), memory.groups, memory.infos)
        ex = Executor(kir, params, memory, recorder, self.may_exit, self.barriers)
        try:
            with np.errstate(all="ignore"):  # integers wrap and floats overflow silently
                for base in range(0, n, CHUNK):
                    lanes = min(CHUNK, n - base)
                    memory.new_chunk(lanes, -(-lanes // WORKGROUP))
                    ex.prints = []
                    ex.run_chunk(base, lanes)
                    emit(ex.prints)
        except Deadlock as exc:  # lanes wait for what never comes: the launch stops there
            emit(ex.prints)
            recorder.deadlock(exc)
        except NotImplementedError:  # beyond the model: what was seen up to there still counts
            recorder.finish()
            raise
        recorder.finish()


class Strict(Recorder):
    """A plain launch's recorder: keeps the first bad index and the first diverged barrier."""

    def __init__(self, kernel: str):
        self.kernel = kernel
        self.first_bounds: str | None = None
        self.skipped = 0
        self.first_barrier: str | None = None

    def bounds(self, buffer, space, lanes, index, extent, site) -> None:
        self.skipped += len(lanes)
        if self.first_bounds is None:
            self.first_bounds = (f"Kernel '{self.kernel}': an access at {site} (launch index "
                                 f"{int(lanes[0])}): index {int(index[0])} is outside [0, "
                                 f"{extent}) of a {space} array. The access was skipped.")

    def barrier(self, site: Site, group, arrived, expected, diverged_at) -> None:
        if self.first_barrier is None:
            why = f"; the others parted at {diverged_at}" if diverged_at is not None else ""
            self.first_barrier = (
                f"Kernel '{self.kernel}': barrier at {site} requires uniform workgroup "
                f"participation: {len(arrived)} of the {len(expected)} lanes of workgroup "
                f"{group} reached it{why}.")

    def warp(self, site: Site, what, group, warp, arrived, expected, diverged_at) -> None:
        if self.first_barrier is None:
            why = f"; the others parted at {diverged_at}" if diverged_at is not None else ""
            self.first_barrier = (
                f"Kernel '{self.kernel}': {what} at {site} is a warp collective: {len(arrived)} "
                f"of the {len(expected)} lanes of warp {warp} of workgroup {group} executed "
                f"it{why}.")

    def raise_first(self) -> None:
        if self.first_barrier is not None:
            raise TackValueError(self.first_barrier)
        if self.first_bounds is not None:
            more = self.skipped - 1
            tail = f"\n{more} more out-of-bounds accesses were skipped too." if more else ""
            raise TackIndexError(self.first_bounds + tail)
