"""What each engine can run, checked on the typed IR before any pass or renderer sees it, so a
kernel is rejected for what it contains (even in a branch that constant folding would remove).

A device answers what its engine can run (`device.capabilities`, from runtime.registry, known
before the engine starts); the checks here read it and never name an engine."""
from __future__ import annotations

from .errors import CapabilityError, TackValueError
from .ir import nodes as N
from .ir.nodes import Expr, KernelIR
from .ir.ops import (
    ATOMIC,
    LAZY,
    MBARRIER_OPS,
    WARP_COLLECTIVES,
    WARP_OPS,
    WGMMA_OPS,
    WORKGROUP,
    WORKGROUP_OPS,
    Op,
    public_name,
)
from .ir.walk import iter_exprs, iter_stmts, stmt_exprs, stmt_roots


def workgroup_features(k: KernelIR) -> list[str]:
    """The workgroup primitives a kernel uses, by their public names."""
    found = set()
    if any(s.space == "shared" for s in k.scratch.values()):
        found.add("shared")
    for st in iter_stmts(k.body):
        if isinstance(st, N.Barrier):
            found.add("barrier")
        for x in stmt_exprs(st):
            if x.op in WORKGROUP_OPS:
                found.add(public_name(x))
    return sorted(found)


def supports_workgroups(device) -> bool:
    """Whether `device`'s engine runs workgroups: GPU devices, and every device of the Julia
    engine (KernelAbstractions runs `@localmem`, `@synchronize`, `@index(Local)` on its CPU
    backend too)."""
    return device is not None and device.capabilities.workgroups


def library_math(device) -> bool:
    """Whether `device`'s engine takes the library's float32 math functions for the builtins
    (passes/libmath.py); without a device (tack.check, tack.inspect of the IR alone) it does, as
    the simulator."""
    return device is None or device.capabilities.library_math


def check(k: KernelIR, device) -> None:
    """Raise `CapabilityError` (a NotImplementedError) for what `device` cannot run."""
    if device is not None:
        check_atomic_widths(k, device.capabilities, _device_name(device))
        check_local(k, device)
    if device is None or supports_workgroups(device):
        check_uniform_participation(k)
        if device is not None:
            check_warps(k, device)
            check_wgmma(k, device)
            check_mbarriers(k, device)
        return
    reject_workgroups(k, workgroup_features(k), device)


def warp_collectives(k: KernelIR) -> list[Expr]:
    """The warp collectives (`tack.shfl`, `tack.warp_sum`, ...) of `k`, in statement order."""
    return [x for st in iter_stmts(k.body) for x in stmt_exprs(st) if x.op in WARP_COLLECTIVES]


def check_warps(k: KernelIR, device) -> None:
    """Refuse warp operations on an engine without warps (docs/language.md, "Warps")."""
    if device.capabilities.warps:
        return
    used = [x for st in iter_stmts(k.body) for x in stmt_exprs(st) if x.op in WARP_OPS]
    if used:
        raise CapabilityError.at(
            used[0].loc, f"kernel '{k.name}': tack.{public_name(used[0])} is a warp "
            f"operation, which the {_device_name(device)} engine does not run",
            hint="run warp operations on an engine with warps (device.capabilities.warps), or "
                 "write the exchange with tack.shared and tack.barrier")


# The least NVIDIA compute capability of each operation that needs one, and where that is
# said: the CUDA engine refuses a kernel with one of them for an older device before it renders
# (`check_arch`), naming the operation and the device's architecture.
_CP_ASYNC = ("https://docs.nvidia.com/cuda/parallel-thread-execution/"
             "#data-movement-and-conversion-instructions-cp-async")
_MBARRIER = ("https://docs.nvidia.com/cuda/parallel-thread-execution/"
             "#parallel-synchronization-and-communication-instructions-mbarrier")
MIN_SM = {
    Op.ASYNC_COPY: (80, _CP_ASYNC),
    Op.ASYNC_COMMIT: (80, _CP_ASYNC + "-commit-group"),
    Op.ASYNC_WAIT: (80, _CP_ASYNC + "-wait-group"),
    Op.MBARRIER_INIT: (80, _MBARRIER + "-init"),
    Op.MBARRIER_ARRIVE: (80, _MBARRIER + "-arrive"),
    Op.MBARRIER_WAIT: (80, _MBARRIER + "-test-wait-try-wait"),
    Op.MBARRIER_ARRIVE_TX: (90, _MBARRIER + "-expect-tx-operation"),
    Op.ASYNC_BULK_COPY: (90, _CP_ASYNC + "-bulk"),
    Op.ASYNC_TENSOR_COPY: (90, _CP_ASYNC + "-bulk-tensor"),
}
# The least PTX ISA version (×10) whose instructions an operation's rendering spells: the parity
# waits arrived in PTX ISA 7.1 (`mbarrier.test_wait.parity`, sm_80; `try_wait.parity` 7.8, sm_90),
# `mbarrier.arrive.expect_tx`, `cp.async.bulk` and `cp.async.bulk.tensor` in 8.0 (the pages of
# MIN_SM).
MIN_PTX = {Op.MBARRIER_WAIT: 71, Op.MBARRIER_ARRIVE_TX: 80, Op.ASYNC_BULK_COPY: 80,
           Op.ASYNC_TENSOR_COPY: 80}
# The PTX ISA LLVM's NVPTX back end emits for a target on its own (its least for that sm).
_LLVM_PTX = {80: 70, 86: 71, 87: 74, 89: 78, 90: 78}


def ptx_isa(k: KernelIR, arch: str) -> int | None:
    """The PTX ISA version (×10) `k` needs for `arch` when that is above what LLVM emits for
    it on its own (`MIN_PTX`), else None."""
    found = max((MIN_PTX[x.op] for st in iter_stmts(k.body) for x in stmt_exprs(st)
                 if x.op in MIN_PTX), default=None)
    sm = sm_number(arch) or 0
    own = _LLVM_PTX.get(sm, 78 if sm >= 90 else 70)
    return found if found is not None and found > own else None


def check_mbarriers(k: KernelIR, device) -> None:
    """Refuse transaction barriers and bulk copies on an engine that does not run them
    (docs/language.md, "Transaction barriers"), before anything compiles."""
    if device.capabilities.mbarriers:
        return
    used = [x for st in iter_stmts(k.body) for x in stmt_exprs(st) if x.op in MBARRIER_OPS]
    if used:
        raise CapabilityError.at(
            used[0].loc, f"kernel '{k.name}': tack.{public_name(used[0])} is a transaction "
            f"barrier operation, which the {_device_name(device)} engine does not run",
            hint="run it on CUDA (sm_80, sm_90 for bulk and tensor copies) or the simulator, or pipeline "
                 "with tack.async_copy / async_commit / async_wait and tack.barrier()")


# Lowerings that an architecture makes faster, not possible: the PTX renderer takes one from
# its compute capability on (render/llvm/ptx_warps.py) and keeps the portable form below it,
# with the same bits either way. `tack.warp_sum`/`warp_min`/`warp_max` of i32 and u32 are one
# `redux.sync` (integers: any order gives the same result) instead of five shuffle steps. A
# conversion of f32 to bf16 is one `cvt.rn.bf16.f32` (round to nearest even, subnormals kept,
# overflow to inf: the rule's bits; a NaN stays a NaN, whose payload the rule leaves open)
# instead of the integer rounding (render/llvm/half.py), seven instructions.
_REDUX = ("https://docs.nvidia.com/cuda/parallel-thread-execution/"
          "#parallel-synchronization-and-communication-instructions-redux-sync")
_CVT = "https://docs.nvidia.com/cuda/parallel-thread-execution/#data-movement-and-conversion-instructions-cvt"
SM_LOWERINGS = {"redux.sync": (80, _REDUX), "cvt.rn.bf16.f32": (80, _CVT)}


def sm_number(arch: str) -> int | None:
    """80 for "sm_80" (90 for "sm_90a"); None for a name that is not an sm_NN architecture."""
    digits = arch[3:].rstrip("abf") if arch.startswith("sm_") else ""
    return int(digits) if digits.isdigit() else None


def check_arch(k: KernelIR, arch: str) -> None:
    """Refuse an operation that `arch` (an NVIDIA sm_NN name) lacks (`MIN_SM`), before the
    kernel renders or loads."""
    sm = sm_number(arch)
    if sm is None:
        return
    x = uses_wgmma(k)
    if x is not None and arch not in WGMMA_ARCHS:
        raise CapabilityError.at(
            x.loc, f"kernel '{k.name}': tack.{public_name(x)} is the warpgroup MMA (wgmma), "
            f"which only sm_90a GPUs (H100, H200) run (PTX ISA, {_WGMMA_DOC}); this device is "
            f"{arch}", hint="run it on an H100 or H200, or use the warp MMA (tack.mma)")
    for st in iter_stmts(k.body):
        for x in stmt_exprs(st):
            need = MIN_SM.get(x.op)
            if need is not None and sm < need[0]:
                raise CapabilityError.at(
                    x.loc, f"kernel '{k.name}': tack.{x.op.name.lower()} needs an NVIDIA GPU of "
                    f"compute capability {need[0] // 10}.{need[0] % 10} or later (sm_{need[0]}; "
                    f"PTX ISA, {need[1]}); this device is {arch}",
                    hint="run it on a newer GPU, or copy with plain loads and stores "
                         "(buf[j] = a[i]) and a tack.barrier()")


def runs_mma(device) -> bool:
    """Whether library ops should take their tensor-core (`tack.mma`) kernels on `device`: its
    capabilities say `tensor_cores` and its engine's device runs them (`Engine.runs_mma`: a
    CUDA GPU of compute capability 8.0 or newer, which `check_mma_arch` would not refuse)."""
    caps = device.capabilities
    if not (caps.tensor_cores and caps.warps and caps.workgroups):
        return False
    return device.engine.runs_mma()


def runs_wgmma(device) -> bool:
    """Whether library ops should take their warpgroup-MMA (`tack.wgmma`) kernels on `device`
    (ops/matmul_wgmma.py): `runs_mma`, its capabilities say `wgmma`, and its engine's device
    asks for them (`Engine.runs_wgmma`: a CUDA GPU of sm_90, the simulator made with
    `tack.device("sim", sm=90)`)."""
    return device.capabilities.wgmma and runs_mma(device) and device.engine.runs_wgmma()


# The warpgroup MMA (`wgmma`) exists on sm_90a only: an architecture-specific feature that
# later GPUs (sm_100 and on) do not run (PTX ISA, "Asynchronous Warpgroup Level Matrix
# Multiply-Accumulate Instructions", "Target ISA notes").
WGMMA_ARCHS = ("sm_90", "sm_90a")
_WGMMA_DOC = ("https://docs.nvidia.com/cuda/parallel-thread-execution/"
              "#asynchronous-warpgroup-level-matrix-instructions")


def uses_wgmma(k: KernelIR) -> Expr | None:
    """The kernel's first warpgroup MMA statement, if it has one."""
    return next((x for st in iter_stmts(k.body) for x in stmt_exprs(st) if x.op in WGMMA_OPS),
                None)


def ptx_target(k: KernelIR, arch: str) -> str:
    """The PTX target for `k` on `arch`: sm_90a where a kernel uses the warpgroup MMA."""
    return "sm_90a" if arch == "sm_90" and uses_wgmma(k) is not None else arch


def check_wgmma(k: KernelIR, device) -> None:
    """Refuse the warpgroup MMA on an engine that does not run it (`capabilities.wgmma`)."""
    if device.capabilities.wgmma:
        return
    x = uses_wgmma(k)
    if x is not None:
        raise CapabilityError.at(
            x.loc, f"kernel '{k.name}': tack.{public_name(x)} is the warpgroup MMA, which the "
            f"{_device_name(device)} engine does not run",
            hint="run it on an H100/H200 (sm_90), the simulator or the Julia engine, or use "
                 "the warp MMA (tack.mma)")


def check_mma_arch(k: KernelIR, cc: tuple[int, int], where: str) -> None:
    """Refuse `tack.mma` for a CUDA device older than sm_80: `mma.sync`'s m16n8k16 and m16n8k8
    shapes (docs/language.md, "Matrix multiply-accumulate") need Ampere or newer."""
    if tuple(cc) >= (8, 0):
        return
    used = [x for st in iter_stmts(k.body) for x in stmt_exprs(st) if x.op is Op.MMA]
    if used:
        raise CapabilityError.at(
            used[0].loc, f"kernel '{k.name}': tack.mma needs tensor cores with mma.sync's "
            f"m16n8k16 and m16n8k8 shapes (sm_80 or newer); {where} is sm_{cc[0]}{cc[1]}",
            hint="run it on an Ampere or newer GPU, or on the simulator")


def _device_name(device) -> str:
    return f"{getattr(device, 'engine_name', 'native')}:{getattr(device, 'arch', device)}"


def check_atomic_widths(k: KernelIR, caps, where: str) -> None:
    """Refuse an atomic on a dtype narrower or wider than the engine's atomics
    (`caps.atomic_min_bits`..`caps.atomic_bits`), naming the dtype and `where` it was to run."""
    for st in iter_stmts(k.body):
        for x in stmt_exprs(st):
            bits = x.dtype.bits if x.op in ATOMIC and x.dtype is not None else None
            if bits and not caps.atomic_min_bits <= bits <= caps.atomic_bits:
                raise CapabilityError.at(
                    x.loc, f"kernel '{k.name}': an atomic on the {x.dtype.name} array "
                    f"'{x.arg}' needs {bits}-bit atomics, which {where} lacks (it has "
                    f"{caps.atomic_min_bits}- to {caps.atomic_bits}-bit ones)",
                    hint="use an i32/u32 (or i64 where supported) array for the counts")


def local_bytes(k: KernelIR) -> int:
    """The bytes of `tack.local_array` storage one iteration of `k` holds."""
    return sum(sc.size * sc.dtype.itemsize for sc in k.scratch.values() if sc.space == "local")


def _size(n: int) -> str:
    for unit, shift in (("GiB", 30), ("MiB", 20), ("KiB", 10)):
        if n >= 1 << shift:
            return f"{n / (1 << shift):.4g} {unit}"
    return f"{n} bytes"


def check_local(k: KernelIR, device) -> None:
    """`check_local_bytes` against `device`'s engine."""
    check_local_bytes(k, device.capabilities, f"the {_device_name(device)} engine")


def check_local_bytes(k: KernelIR, caps, where: str) -> None:
    """Refuse a kernel whose local arrays hold more than `caps.local_bytes` per iteration (the
    engine's documented limit: docs/language.md, "Scratch storage"), naming size and limit."""
    total = local_bytes(k)
    if total > caps.local_bytes:
        big = max((sc for sc in k.scratch.values() if sc.space == "local"),
                  key=lambda sc: sc.size * sc.dtype.itemsize)
        raise CapabilityError.at(
            big.loc or k.loc, f"kernel '{k.name}': its local arrays hold {_size(total)} "
            f"({total} bytes) per iteration, more than {where} allows ({_size(caps.local_bytes)}"
            f", {caps.local_bytes} bytes)",
            hint="keep large per-iteration data in an array argument (one slice per "
                 "iteration), or split the work")


def reject_workgroups(k: KernelIR, used: list[str], device) -> None:
    """Raise for a device without workgroups if `used` (workgroup_features of the typed IR of
    `k`) is not empty."""
    if used and not supports_workgroups(device):
        raise CapabilityError(
            f"CPU backend does not support workgroup execution required by {', '.join(used)} "
            f"(kernel '{k.name}' at {k.loc}). Workgroup primitives need a GPU device; for scratch "
            "storage private to each iteration use tack.local_array or tack.local_array_like, "
            "which work on every device.", loc=k.loc)


# ---- the workgroup contract (docs/language.md, "Workgroup contract") ---------------------------
_VARYING_OPS = frozenset({Op.LAUNCH, Op.THREAD_ID, Op.LOAD, Op.ATOMIC_ADD, Op.ATOMIC_MIN,
                          Op.ATOMIC_MAX}) | WARP_OPS


def has_collectives(k: KernelIR) -> bool:
    """Barriers (block reductions contain them) and warp collectives: every lane of a group must
    take part."""
    return any(isinstance(st, N.Barrier) for st in iter_stmts(k.body)) or bool(
        warp_collectives(k))


def _launch_locals(k: KernelIR) -> frozenset[str]:
    """Locals every assignment of which is the launch index t (the parallel loop's variable of
    a plain `range(n)`, also converted to a narrower integer)."""
    launch, other = set(), set()
    for st in iter_stmts(k.body):
        if isinstance(st, N.Assign):
            v = st.value
            if v.op is Op.CAST and v.dtype.is_int:
                v = v.args[0]
            (launch if v.op is Op.LAUNCH else other).add(st.name)
    return frozenset(launch - other)


def _group_number(e, launch: frozenset[str]) -> bool:
    """`t // c` of the launch index t, c a positive multiple of the workgroup size: the same on
    every lane of a group, whose launch indices are 256g ... 256g + 255 (docs/language.md,
    "Workgroup contract"; an integer conversion of t wraps by a multiple of 256 too)."""
    if e.op is not Op.FLOORDIV or len(e.args) != 2:
        return False
    t, c = e.args
    return (c.op is Op.CONST and type(c.arg) is int and c.arg > 0 and c.arg % WORKGROUP == 0
            and (t.op is Op.LAUNCH or (t.op is Op.VAR and t.arg in launch)))


def _varies(e, varying: set[str], launch: frozenset[str] = frozenset()) -> bool:
    """Whether `e` may differ between the lanes of a group (given the lane-varying locals and
    the locals holding the launch index, whose `// 256` is the group's number)."""
    todo = [] if e is None else [e]
    while todo:  # a walk without recursion: expressions may nest deeper than Python's stack
        x = todo.pop()
        if _group_number(x, launch):
            continue
        if x.op in _VARYING_OPS or (x.op is Op.VAR and x.arg in varying):
            return True
        todo.extend(a for a in x.args if isinstance(a, Expr))
    return False


def _varying_locals(k: KernelIR) -> set[str]:
    """Locals whose value may differ between the lanes of a group, proved conservatively."""
    varying: set[str] = set()
    launch = _launch_locals(k)

    def vary(e) -> bool:
        return _varies(e, varying, launch)

    def walk(body, ctrl: bool) -> None:
        for st in body:
            if isinstance(st, N.Assign) and (ctrl or vary(st.value)):
                varying.add(st.name)
            elif isinstance(st, N.If):
                c = ctrl or vary(st.cond)
                walk(st.then, c)
                walk(st.orelse, c)
            elif isinstance(st, N.While):
                walk(st.body, ctrl or vary(st.cond))
            elif isinstance(st, N.For):
                c = ctrl or vary(st.start) or vary(st.stop) or vary(st.step)
                if c:
                    varying.add(st.var)
                walk(st.body, c)

    while True:
        before = len(varying)
        walk(k.body, False)
        if len(varying) == before:
            return varying


def check_uniform_participation(k: KernelIR) -> None:
    """Reject a barrier or warp collective that not every lane of a group may reach (a
    lane-varying branch, loop, conditional expression or `and`/`or`, or an earlier lane-varying
    break/continue)."""
    varying = _varying_locals(k)
    launch = _launch_locals(k)

    def vary(e) -> bool:
        return _varies(e, varying, launch)

    def fail(barrier, culprit, why):
        what = "barrier" if isinstance(barrier, N.Barrier) else (
            f"warp collective tack.{public_name(barrier)}")
        err = TackValueError(
            f"Kernel '{k.name}': {what} at {barrier.loc} requires uniform workgroup "
            f"participation: {why} at {culprit.loc} depends on lane-varying values (lane ids, "
            "array loads or values computed from them). Scalar arguments may control collective "
            "branches and loops; to reduce a subset, let every lane contribute the identity "
            "(e.g. tack.block_sum(x if x > 0.0 else 0.0)).", loc=barrier.loc)
        err.culprit = culprit.loc  # both positions as data (tack.check reports them)
        raise err

    def walk(body, culprit, why) -> object:
        """Returns the statement after which lanes may have left (a varying exit), or None."""
        exited = None
        for st in body:
            for x, lazy in _collectives(st, vary):
                if lazy is not None:
                    fail(x, lazy, "the condition of the conditional expression or and/or")
                if culprit is not None:
                    fail(x, culprit, why)
                if exited is not None:
                    fail(x, exited, "an earlier break/continue")
            if isinstance(st, N.Barrier):
                if culprit is not None:
                    fail(st, culprit, why)
                if exited is not None:
                    fail(st, exited, "an earlier break/continue")
            elif isinstance(st, (N.Break, N.Continue)) and culprit is not None:
                exited = exited or st
            elif isinstance(st, N.If):
                c, w = (st, "its condition") if culprit is None and vary(st.cond) else (culprit,
                                                                                     why)
                exited = walk(st.then, c, w) or walk(st.orelse, c, w) or exited
            elif isinstance(st, (N.While, N.For)):
                cond = st.cond if isinstance(st, N.While) else None
                v = vary(cond) or (isinstance(st, N.For) and (vary(st.start) or vary(st.stop)))
                c, w = (st, "the loop's condition") if culprit is None and v else (culprit, why)
                walk(st.body, c, w)  # lanes that left the loop early rejoin after it
        return exited

    walk(k.body, None, "")


def _collectives(st, vary):
    """(collective, culprit) for each warp collective among `st`'s own expressions: culprit is
    the lane-varying `a if c else b`, `and` or `or` whose lazy arm holds it (some lanes reach it
    and others not), else None."""
    for root in stmt_roots(st):
        for x in iter_exprs(root):
            if x.op in WARP_COLLECTIVES:
                yield x, None
            elif x.op in LAZY and vary(x.args[0]):
                for a in x.args[1:]:
                    for y in iter_exprs(a):
                        if y.op in WARP_COLLECTIVES:
                            yield y, x
