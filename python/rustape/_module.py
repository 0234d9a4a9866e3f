"""`rt.Module`, `rt.function`, `rt.TensorSpec`: enough of TensorFlow's names that programs
using them run on rustape. rustape executes eagerly: `rt.function` returns the function
unchanged (there is no graph to trace), `input_signature` is accepted and not enforced.
"""

from __future__ import annotations

import re
from typing import Any, Callable

from . import _rustape as _rt

__all__ = ["Module", "TensorSpec", "function"]


def _camel_to_snake(name: str) -> str:
    s = re.sub(r"(.)([A-Z][a-z]+)", r"\1_\2", name)
    return re.sub(r"([a-z0-9])([A-Z])", r"\1_\2", s).lower()


class TensorSpec:
    """Describes a tensor: `shape` (None for any), `dtype`, `name`.

    >>> spec = rt.TensorSpec([None, 3], rt.float32)
    >>> spec.is_compatible_with(rt.zeros([5, 3]))
    True
    """

    def __init__(self, shape: Any = None, dtype: Any = None, name: str | None = None) -> None:
        self.shape = None if shape is None else tuple(shape)
        self.dtype = _rt.float32 if dtype is None else dtype
        self.name = name

    def is_compatible_with(self, value: Any) -> bool:
        """Whether `value`'s shape and dtype fit this spec (None matches any dimension)."""
        shape = tuple(getattr(value, "shape", ()))
        if getattr(value, "dtype", self.dtype) != self.dtype:
            return False
        if self.shape is None:
            return True
        return len(shape) == len(self.shape) and all(
            a is None or a == b for a, b in zip(self.shape, shape)
        )

    def __repr__(self) -> str:
        return f"TensorSpec(shape={self.shape}, dtype={self.dtype!r}, name={self.name!r})"

    def __eq__(self, other: object) -> bool:
        return (
            isinstance(other, TensorSpec)
            and (self.shape, self.name) == (other.shape, other.name)
            and self.dtype == other.dtype
        )

    def __hash__(self) -> int:
        return hash((self.shape, self.name))


def function(
    func: Callable | None = None,
    input_signature: Any = None,
    autograph: bool = True,
    jit_compile: Any = None,
    reduce_retracing: bool = False,
    **kwargs: Any,
) -> Any:
    """`tf.function`: rustape runs eagerly, so this returns `func` itself (usable as
    `@rt.function` or `@rt.function(input_signature=[...])`).

    >>> @rt.function
    ... def f(x):
    ...     return x * x
    >>> float(f(rt.constant(3.0)))
    9.0
    """
    if func is None:
        return lambda f: f
    return func


class Module:
    """`tf.Module`: a named container whose `variables` / `trainable_variables` /
    `submodules` are found by walking its attributes (lists, tuples and dicts included).

    >>> class Scale(rt.Module):
    ...     def __init__(self):
    ...         super().__init__()
    ...         self.w = rt.Variable(2.0)
    ...     def __call__(self, x):
    ...         return self.w * x
    >>> m = Scale()
    >>> float(m(3.0)), len(m.trainable_variables)
    (6.0, 1)
    """

    def __init__(self, name: str | None = None) -> None:
        self._name = name if name is not None else _camel_to_snake(type(self).__name__)

    @property
    def name(self) -> str:
        """The module's name (its class name in snake case unless given)."""
        return getattr(self, "_name", _camel_to_snake(type(self).__name__))

    def _walk(self) -> list[Any]:
        """Every object reachable from the attributes, depth first, each once."""
        seen = {id(self)}
        out: list[Any] = []
        stack = [v for k, v in sorted(vars(self).items(), key=lambda kv: kv[0], reverse=True)]
        while stack:
            obj = stack.pop()
            if id(obj) in seen:
                continue
            seen.add(id(obj))
            out.append(obj)
            if isinstance(obj, dict):
                stack.extend(obj[k] for k in sorted(obj, key=str, reverse=True))
            elif isinstance(obj, (list, tuple)):
                stack.extend(reversed(obj))
            elif isinstance(obj, Module) or hasattr(obj, "trainable_variables"):
                if isinstance(obj, Module):
                    stack.extend(
                        v for k, v in sorted(vars(obj).items(), key=lambda kv: kv[0], reverse=True)
                    )
                else:
                    stack.extend(reversed(list(getattr(obj, "variables", []))))
        return out

    @property
    def variables(self) -> tuple:
        """Every variable of this module and its submodules, in attribute order."""
        return tuple(o for o in self._walk() if isinstance(o, _rt.Variable))

    @property
    def trainable_variables(self) -> tuple:
        """The trainable variables of this module and its submodules."""
        return tuple(v for v in self.variables if v.trainable)

    @property
    def non_trainable_variables(self) -> tuple:
        """The variables of this module and its submodules that are not trainable."""
        return tuple(v for v in self.variables if not v.trainable)

    @property
    def submodules(self) -> tuple:
        """Every module held by this one, at any depth."""
        return tuple(o for o in self._walk() if isinstance(o, Module))
