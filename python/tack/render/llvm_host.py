"""The host CPU as an LLVM target, and the O3 pipeline (`optimize`) the CPU engine and
`tack.inspect(..., mode="optimized")` run."""
from __future__ import annotations

import functools

import llvmlite.binding as llvm


@functools.cache
def _init_native() -> None:
    llvm.initialize_native_target()
    llvm.initialize_native_asmprinter()
    llvm.initialize_native_asmparser()


def host_target_machine(opt: int = 3, jit: bool = False) -> llvm.TargetMachine:
    """A target machine for this CPU with all its features (AVX2/AVX-512 where present)."""
    _init_native()
    target = llvm.Target.from_triple(llvm.get_process_triple())
    return target.create_target_machine(cpu=llvm.get_host_cpu_name(),
                                        features=llvm.get_host_cpu_features().flatten(),
                                        opt=opt, jit=jit, codemodel="jitdefault" if jit else
                                        "default")


def optimize_module(mod: llvm.ModuleRef, tm: llvm.TargetMachine | None = None) -> llvm.ModuleRef:
    tm = tm or host_target_machine()
    mod.triple = tm.triple
    mod.data_layout = str(tm.target_data)
    mod.verify()
    pto = llvm.create_pipeline_tuning_options(speed_level=3)
    for knob in ("loop_vectorization", "slp_vectorization", "loop_unrolling", "loop_interleaving"):
        setattr(pto, knob, True)
    pb = llvm.create_pass_builder(tm, pto)
    pb.getModulePassManager().run(mod, pb)
    return mod


def optimize(llvm_ir: str) -> str:
    """LLVM IR text → O3-optimized text for the host CPU (loop and SLP vectorization on)."""
    _init_native()
    return str(optimize_module(llvm.parse_assembly(llvm_ir)))
