"""Builds the namespaces (`rt`, `rt.math`, `rt.nn`, ...) from the extension and `_ops`."""
from __future__ import annotations

from typing import Any, Dict, Iterable, List

from . import _ops
from . import _rustape as _rt


def export(namespace: Dict[str, Any], names: Iterable[str]) -> List[str]:
    """Puts each name into `namespace`: the extension's function when it has one (native),
    else the Python composition from `_ops`. A name neither provides is left out, so `rt.X`
    raises AttributeError rather than the import failing. Returns the names exported."""
    done = []
    for name in names:
        if hasattr(_rt, name):
            namespace[name] = getattr(_rt, name)
        elif name in _ops.__all__:
            namespace[name] = getattr(_ops, name)
        else:
            continue
        done.append(name)
    return done
