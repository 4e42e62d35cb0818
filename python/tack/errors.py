"""Tack's exception classes: one root, each subclass also the builtin the contract names."""
import os


class TackError(Exception):
    """Root of every error Tack raises on purpose.

    An error about a place in a kernel's source keeps that place as data in `.loc` (an
    `ir.nodes.Loc`: `file`, `line`, `col`, `end_line`, `end_col`) beside the formatted text, so
    tools can point at it without parsing the message; `.loc` is None otherwise."""

    def __init__(self, *args, loc=None):
        super().__init__(*args)
        self.loc = loc

    @classmethod
    def at(cls, loc, message: str, hint: str | None = None) -> "TackError":
        """The error for `message` at source position `loc`: formatted by `format_at`, with
        `.loc` set."""
        return cls(format_at(loc, message, hint), loc=loc)


class UnsupportedSyntaxError(TackError, NotImplementedError):
    """A Python construct that Tack's kernel language does not support."""


class CapabilityError(UnsupportedSyntaxError):
    """The kernel needs something the selected device does not offer (workgroups, f64, ...)."""


class TackTypeError(TackError, TypeError):
    pass


class KindError(TackTypeError, UnsupportedSyntaxError):
    """A value of the wrong kind for its place: a vector where one value is required, a
    device-class object (a texture) indexed or used as a value. A TypeError; also an
    UnsupportedSyntaxError, the class these were reported with before."""


class TackValueError(TackError, ValueError):
    pass


class TackNameError(TackError, NameError):
    pass


class TackIndexError(TackError, IndexError):
    pass


class TackRuntimeError(TackError, RuntimeError):
    pass


class TackBufferError(TackError, BufferError):
    """Memory that cannot be shared as asked (tack.from_dlpack, __dlpack__)."""


class IRVerificationError(TackError, RuntimeError):
    """An internal IR invariant failed: a bug in Tack, not in the kernel."""


class InternalCompilerError(TackError, RuntimeError):
    """An unexpected exception inside the compiler: a bug in Tack, reported at the kernel source
    position being compiled (`.loc`), with the original exception as its cause."""


class RenderError(TackError, NotImplementedError):
    """A renderer met an op it cannot spell for its target."""


def for_user(exc: BaseException) -> BaseException:
    """`exc` ready to be raised from a public entry point: an error Tack raised on purpose loses
    the compiler's internal frames (the user's frame, its message, position and hint are what
    tell them what to fix), as numba and Triton raise from the user's call site; a bug in Tack
    (`InternalCompilerError`, `IRVerificationError`, any foreign exception) keeps every frame.
    `TACK_TRACEBACK=full` keeps them all, for bug reports (docs/debugging.md)."""
    if not isinstance(exc, TackError) or isinstance(exc, (InternalCompilerError,
                                                          IRVerificationError)):
        return exc
    if os.environ.get("TACK_TRACEBACK", "").strip().lower() == "full":
        return exc
    exc.__suppress_context__ = True
    if exc.__cause__ is not None:  # kept (code may test it), printed without its frames
        exc.__cause__.__traceback__ = None
    return exc.with_traceback(None)


def format_at(loc, message: str, hint: str | None = None) -> str:
    """`file:line:col: message`, the source line and a caret span under the culprit."""
    if loc is None:
        return message
    text = f"{loc}: {message}"
    src = loc.source_line()
    if src is not None:
        width = max(1, (loc.end_col - loc.col) if loc.end_line == loc.line else len(src) - loc.col + 1)
        text += f"\n    {src}\n    {' ' * (loc.col - 1)}{'^' * width}"
    if hint:
        text += f"\nhint: {hint}"
    return text
