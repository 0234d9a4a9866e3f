"""The namespaces (`rt`, `rt.math`, `rt.nn`, ...) filled from one table.

The extension's rows come from its binding tables (src/python/bindings.rs), published as
`_rustape._bindings`; the Python compositions in `_ops.py` add theirs with `@export`. A namespace
module calls `fill(globals(), "<namespace>")`; nothing else lists the ops.
"""

from __future__ import annotations

from typing import Any, Callable, TypeVar

from . import _rustape

_F = TypeVar("_F", bound=Callable[..., Any])

#: Rows of the Python compositions: (namespace, exported name) -> the function.
_PYTHON: dict[tuple[str, str], Callable[..., Any]] = {}


def export(*namespaces: str, name: str = "") -> Callable[[_F], _F]:
    """Declares the namespaces a Python composition appears in (`"rt"`, `"math"`, ...), under
    `name` when given, else its own name. Returns the function unchanged.

    >>> from rustape._export import export
    >>> @export()  # in no namespace
    ... def twice(x):
    ...     return x * 2
    >>> twice(3)
    6
    """

    def declare(f: _F) -> _F:
        exported = name or f.__name__
        for ns in namespaces:
            if (ns, exported) in _PYTHON:
                raise RuntimeError(f"rustape: two Python functions export {exported!r} in {ns!r}")
            _PYTHON[(ns, exported)] = f
        return f

    return declare


def table() -> dict[str, dict[str, Any]]:
    """Every namespace's names and objects: the extension's rows, then the compositions'
    (a name both declare in one namespace is an error: one op, one place).

    >>> import rustape as rt
    >>> from rustape._export import table
    >>> table()["math"]["sin"] is rt.math.sin
    True
    """
    from . import _ops, _ops_array, _ops_lu, _ops_math, _ops_nn, _strings  # noqa: F401  (@export rows)

    namespaces: dict[str, dict[str, Any]] = {}
    for extension_name, exports in _rustape._bindings:
        for ns, exported in exports:
            namespaces.setdefault(ns, {})[exported] = getattr(_rustape, extension_name)
    for (ns, exported), f in _PYTHON.items():
        names = namespaces.setdefault(ns, {})
        if exported in names:
            raise RuntimeError(
                f"rustape: {ns}.{exported} is bound twice, by the extension and by _ops.{f.__name__}"
            )
        names[exported] = f
    return namespaces


def fill(namespace: dict[str, Any], name: str) -> list[str]:
    """Puts namespace `name`'s objects (`"rt"`, `"math"`, ...) into the module dict
    `namespace`; returns their names, sorted (for `__all__`).

    >>> from rustape._export import fill
    >>> scope = {}
    >>> "normal" in fill(scope, "random") and "normal" in scope
    True
    """
    names = table().get(name, {})
    namespace.update(names)
    return sorted(names)
