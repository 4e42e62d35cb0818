"""Name resolution: what a name or attribute chain in a kernel denotes.

Resolved statically, in Python's order: parameters and locals (a name assigned anywhere in the
function) stay `Op.VAR`; a device-class argument is an `ObjRef` whose attributes are constants,
scalar or array parameters, `@tack.func` methods or nested objects; any other free name is looked
up in the function's closure, then its globals, then the kernel builtins (`sqrt`, `range`,
`print`, ...) and Python's builtins. What a free name finds must be compile-time: a
`tack.constant`, a `math` constant, a dtype, an intrinsic or a device function.
"""
from __future__ import annotations

import ast
import builtins as py_builtins
import math

from ... import dtypes as dt
from ...builtins.host import MATH_CONSTANTS
from ...builtins.registry import BARE
from ...constants import Constant
from ...errors import TackValueError
from ...ir.nodes import Expr
from ...ir.ops import Op
from ..inline import Func, ObjRef
from ..objects import expanded_name

UNSET = object()  # `_resolve`: the node is a value computed in the kernel, not a host object
MISSING = object()  # `_resolve(quiet=True)`: no such name or attribute
COMPONENTS = {"x": 0, "y": 1, "z": 2, "w": 3}  # v.x, v.y, ... of a vector


class BuiltinName:
    """A kernel builtin used unqualified (`sqrt`), with no binding in the function's namespace."""

    def __init__(self, name: str):
        self.name = name


class Names:
    """The name-resolution half of the parser."""

    def _is_local(self, name: str) -> bool:
        # A name assigned anywhere in the function is a local (Python's scoping rule).
        return name in self.local_names

    def local_name(self, node: ast.Name) -> str:
        """The IR name a local or parameter of this function is stored under."""
        ref = self.rename.get(node.id, node.id)
        if isinstance(ref, ObjRef):
            raise self.unsupported(node, f"assignment to device-class object '{node.id}'")
        return ref

    def expr_Name(self, node):  # x
        if node.id in self.rename:
            ref = self.rename[node.id]
            if isinstance(ref, ObjRef):
                raise self.kind_error(node, f"device-class object '{node.id}' (a "
                                            f"{ref.info.cls.__name__}) used as a value: it is "
                                            "not an array and cannot be indexed",
                                      "use its attributes or methods (a texture: t.sample(u, "
                                      "v, w)), or pass it to a @tack.func")
            if isinstance(ref, Func):  # a compile-time argument (of the kernel or a @tack.func)
                raise self.kind_error(node, f"device function '{ref.name}' (given for "
                                            f"'{node.id}') used as a value",
                                      f"call it, {node.id}(...), or pass it on to a @tack.func")
            return Expr(Op.VAR, None, (), ref, self.src.loc(node))
        if node.id in self.params or node.id in self.assigned or self._is_local(node.id):
            return Expr(Op.VAR, None, (), node.id, self.src.loc(node))
        return self._static(node, self._lookup(node))

    def expr_Attribute(self, node):  # math.pi, tack.constant values, obj.attr, v.x
        ref = self.objref(node.value)
        if ref is not None:
            return self.object_attr(ref, node)
        if node.attr in COMPONENTS and (self._resolve(node.value) is UNSET
                                        or _vector_constant(self._resolve(node.value))):
            loc = self.src.loc(node)
            k = Expr(Op.CONST, None, (), COMPONENTS[node.attr], loc)  # arg: a vector's only
            return Expr(Op.COMPONENT, None, (self.expr(node.value), k), node.attr, loc)
        obj = self._resolve(node)
        if obj is UNSET:
            raise self.unsupported(node, f"attribute '.{node.attr}'",
                                   "arrays offer .shape[k]; other attributes are not supported")
        if obj is math.pi or obj is math.e or obj is math.tau or obj is math.inf:
            return Expr(Op.CONST, None, (), float(obj), self.src.loc(node))
        return self._static(node, obj)

    # -- device-class objects -------------------------------------------------------------------
    def objref(self, node) -> ObjRef | None:
        """The device-class object a name or attribute chain denotes, if any."""
        if isinstance(node, ast.Name):
            ref = self.rename.get(node.id)
            return ref if isinstance(ref, ObjRef) else None
        if isinstance(node, ast.Attribute):
            base = self.objref(node.value)
            if base is not None and node.attr in base.info.objects:
                return ObjRef(base.path + (node.attr,), base.info.objects[node.attr])
        return None

    def object_param(self, ref: ObjRef, attr: str) -> str:
        """The kernel parameter an object's array or scalar attribute becomes."""
        path = ref.path + (attr,)
        name = expanded_name(path)
        self.root.extra.setdefault(name, path)
        return name

    def object_attr(self, ref: ObjRef, node: ast.Attribute) -> Expr:
        info, attr, loc = ref.info, node.attr, self.src.loc(node)
        if attr in info.constants:
            v = info.constants[attr]
            return Expr(Op.CONST, None, (), int(v) if isinstance(v, bool) else v, loc)
        if attr in info.scalars:
            return Expr(Op.VAR, None, (), self.object_param(ref, attr), loc)
        if attr in info.arrays:
            raise self.kind_error(node, f"array attribute '{attr}' used as a value",
                                   f"index it: {ast.unparse(node)}[i]")
        raise TackValueError.at(
            loc, f"{self.title}: {ast.unparse(node)} at line {loc.line}, column {loc.col} is "
                 f"neither a class constant, an instance scalar or array, nor a @tack.func "
                 f"method of {info.cls.__name__}")

    # -- arrays, aliases and device functions ---------------------------------------------------
    def array_name(self, node) -> str | None:
        """The IR name of the array (parameter, object attribute or scratch) `node` denotes."""
        if isinstance(node, ast.Name):
            ref = self.rename.get(node.id)
            if isinstance(ref, str):
                return ref
            if ref is None and (node.id in self.params or node.id in self.scratch_names):
                return node.id
            return None
        if isinstance(node, ast.Attribute):
            base = self.objref(node.value)
            if base is not None and node.attr in base.info.arrays:
                return self.object_param(base, node.attr)
        return None

    def alias_of(self, node):
        """What a call argument denotes without evaluating it: an object, an array or local's
        IR name (bound by reference), or None (evaluate it)."""
        ref = self.objref(node)
        if ref is not None:
            return ref
        if isinstance(node, ast.Name):
            if node.id in self.rename:
                return self.rename[node.id]
            if self is self.root and (node.id in self.params or node.id in self.local_names):
                return node.id
            return None
        if isinstance(node, ast.Attribute):
            base = self.objref(node.value)
            if base is not None and (node.attr in base.info.arrays
                                     or node.attr in base.info.scalars):
                return self.object_param(base, node.attr)
        return None

    def func_value(self, node) -> Func | None:
        """The device function a name denotes (a global, or a parameter bound to one)."""
        if isinstance(node, ast.Name) and isinstance(self.rename.get(node.id), Func):
            return self.rename[node.id]
        if isinstance(node, (ast.Name, ast.Attribute)) and self.objref(node) is None:
            obj = self._resolve(node, quiet=True)
            return obj if isinstance(obj, Func) else None
        return None

    def constant_length(self, node) -> int | None:
        """The number of entries (or rows) of the vector or table constant `node` names."""
        if not isinstance(node, (ast.Name, ast.Attribute)) or self.objref(node) is not None:
            return None
        obj = self._resolve(node, quiet=True)
        return len(obj) if isinstance(obj, tuple) and isinstance(obj, Constant) else None

    def table_subscript(self, node: ast.Subscript):
        """((its source text, the constant table), its index nodes in source order) when `node`
        indexes a constant table: `T[i]`, `T[i, j]` or `T[i][j]`; else (None, None)."""
        chain, base = [], node
        while isinstance(base, ast.Subscript):
            chain.append(base.slice)
            base = base.value
        if not isinstance(base, (ast.Name, ast.Attribute)) or self.objref(base) is not None:
            return None, None
        obj = self._resolve(base, quiet=True)
        if not _table_constant(obj):
            return None, None
        idx = []
        for sl in reversed(chain):
            elts = sl.elts if isinstance(sl, ast.Tuple) else [sl]
            if any(isinstance(e, ast.Slice) for e in elts):
                raise self.unsupported(sl, "slice of a constant table",
                                       "kernels index one entry at a time")
            idx += elts
        return (ast.unparse(base), obj), idx

    def _intrinsic(self, func: ast.expr) -> str | None:
        """The `__tack_intrinsic__` name of the tack function `func` denotes, if it is one."""
        return getattr(self._resolve(func, quiet=True), "__tack_intrinsic__", None)

    # -- host objects ---------------------------------------------------------------------------
    def _resolve(self, node, quiet: bool = False):
        """The host object an attribute chain or free name denotes, or UNSET for locals. A name
        or attribute that does not exist raises its error, or with `quiet` gives MISSING."""
        if isinstance(node, ast.Name):
            if (node.id in self.rename or node.id in self.params or node.id in self.assigned
                    or self._is_local(node.id)):
                return UNSET
            return self._lookup(node, quiet)
        if isinstance(node, ast.Attribute):
            base = self._resolve(node.value, quiet)
            if base is MISSING:
                return MISSING
            if base is UNSET or _vector_constant(base):  # a value: its components, methods
                return UNSET
            try:
                return getattr(base, node.attr)
            except AttributeError:
                if quiet:
                    return MISSING
                raise self.unsupported(node, f"unknown attribute '{node.attr}'") from None
        return UNSET

    def _lookup(self, node: ast.Name, quiet: bool = False):
        name = node.id
        for scope in (self.closure, self.globals):
            if name in scope:
                return scope[name]
        if name in BARE:  # the kernel builtins: sqrt, min, range, print, ...
            return BuiltinName(name)
        if hasattr(py_builtins, name):
            return getattr(py_builtins, name)
        if quiet:
            return MISSING
        raise self.name_error(node, name)

    def _static(self, node, obj) -> Expr:
        """A free name or attribute chain bound to a host object, as an expression."""
        loc = self.src.loc(node)
        if _table_constant(obj):
            shown = ast.unparse(node)
            raise self.unsupported(node, f"constant table '{shown}' used as a value",
                                   f"index it ({shown}[i]); a constant of more than 4 entries "
                                   "is a table, not a vector")
        if _vector_constant(obj):
            return Expr(Op.VECTOR, None, tuple(self._static(node, x) for x in obj), None, loc)
        if isinstance(obj, Constant):
            return Expr(Op.CONST, obj.dtype, (), obj.value, loc)
        if isinstance(obj, (int, float)) and not isinstance(obj, bool) and (
                isinstance(node, ast.Attribute) and obj in MATH_CONSTANTS.values()
                or isinstance(obj, float) and math.isnan(obj)):  # math.pi, a NaN constant
            return Expr(Op.CONST, None, (), obj, loc)
        if isinstance(obj, BuiltinName) or callable(obj) or isinstance(obj, dt.DType):
            raise self.unsupported(node, "a function used as a value", "call it")
        name = node.id if isinstance(node, ast.Name) else ast.unparse(node)
        raise self.name_error(node, name)


def _vector_constant(obj) -> bool:
    """A `tack.constant` holding a vector or matrix (a tuple of up to 4 components or rows)."""
    return isinstance(obj, tuple) and isinstance(obj, Constant) and not obj.is_table


def _table_constant(obj) -> bool:
    """A `tack.constant` table: a tuple of more than 4 entries, or rows (docs/language.md,
    "Constants")."""
    return isinstance(obj, tuple) and isinstance(obj, Constant) and obj.is_table


def class_member(cls, name: str):
    """A class attribute as written in the class body (staticmethod wrappers kept)."""
    for klass in cls.__mro__:
        if name in vars(klass):
            return vars(klass)[name]
    return None
