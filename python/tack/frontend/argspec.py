"""What the typechecker knows of one kernel argument: its spec, never its value."""
from __future__ import annotations

from dataclasses import dataclass

from ..dtypes import DType


@dataclass(frozen=True)
class ArgSpec:
    kind: str  # 'array' | 'scalar'
    dtype: DType
    ndim: int = 0
    shape: tuple = ()
