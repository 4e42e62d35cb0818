"""A stand-in for juliacall's Julia module, for the Julia engine's tests without Julia: it answers
the few `seval` strings the engine sends and records the sources and launches. The fixtures
`fresh_session` and `fake` (tests/julia/conftest.py) install it."""


_PROBE = "b -> TackRuntime.tk_half_probe(b, "  # the engine's half probe, `...(b, Float16)`


class FakeJulia:
    """Answers the few `seval` strings the engine sends; records sources and launches."""

    def __init__(self, packages=("CUDA",), functional=True, f64=True):
        self.packages, self.functional, self.f64 = set(packages), functional, f64
        self.recent = True  # the GPU package is at least MIN_VERSIONS' version
        self.half = {}  # (backend, half type) → TackRuntime.tk_half_probe's answer ("" runs)
        self.ka_version = "0.9.39"  # TackRuntime.tk_ka_version()
        self.subgroups = {}  # backend → TackRuntime.tk_subgroups's answer ("" when absent)
        self.evals, self.launches = [], []

    def seval(self, code: str):
        self.evals.append(code)
        if code.startswith("Base.find_package"):
            return code.split('"')[1] in self.packages
        if code.endswith(".functional()"):
            return self.functional
        if code == "TackRuntime.tk_ka_version()":
            return self.ka_version
        if code == "TackRuntime.tk_subgroups":
            return lambda backend: self.subgroups.get(backend, "")
        if code.startswith("Base.pkgversion"):
            return self.recent
        if code.startswith("string(Base.pkgversion"):
            return "1.5.0"
        if code == "TackRuntime.launch!":
            return lambda *a: self.launches.append(a)
        if code == "KernelAbstractions.supports_float64":
            return lambda backend: self.f64
        if code.startswith(_PROBE):
            half_type = code[len(_PROBE):-1]
            return lambda backend: self.half.get((backend, half_type), "")
        if code.endswith("()"):  # a backend constructor
            return f"<{code}>"
        if code.startswith("tk_"):
            return f"<fn {code}>"
        return None
