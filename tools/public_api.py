"""The package's public names, and how well their docstrings cover them.

    python -m tools.public_api            # docstring coverage; exits 1 under 100%
    python -m tools.public_api --list     # every public name, with what its docstring lacks

A public name is one a user reaches from `import rustape as rt` without an underscore: the
names in each public namespace's `__all__` (`rt`, `rt.math`, `rt.nn`, `rt.linalg`, `rt.random`,
`rt.keras` and its modules, `rt.config`, `rt.utils`, `rt.experimental.dlpack`, `rt.test`, ...:
every public module reachable from `rustape`, found at run time, so names and modules added
later are covered without a list to update) and the public methods and properties of the classes among them. Each needs a docstring; a
function or class (not a method) also needs a runnable example (a `>>>` line), which
tests/python/test_doctests.py runs.
"""

from __future__ import annotations

import argparse
import importlib
import inspect
import sys
from collections.abc import Iterator
from dataclasses import dataclass
from types import ModuleType
from typing import Any

#: Modules that are programs, not API: their interface is their command line (`--help`).
PROGRAMS = {"rustape.demo"}


@dataclass
class Name:
    """One public name: where it is reached, the object, and whether it needs an example."""

    path: str
    obj: Any
    needs_example: bool

    @property
    def doc(self) -> str:
        return inspect.getdoc(self.obj) or ""

    def problems(self) -> list[str]:
        doc = self.doc
        if not doc.strip():
            return ["no docstring"]
        if self.needs_example and ">>>" not in doc:
            return ["no example"]
        return []


def _is_public_module(name: str) -> bool:
    parts = name.split(".")
    return parts[0] == "rustape" and not any(p.startswith("_") for p in parts)


def _modules() -> Iterator[ModuleType]:
    """Every public namespace, found rather than listed (so a module added by anyone is
    covered the day it lands): `rustape`, then breadth-first the public modules each one
    exposes as an attribute or holds as a submodule (`rt.keras.optimizers.schedules`, ...)."""
    import pkgutil

    queue = ["rustape"]
    seen: set[str] = set()
    while queue:
        name = queue.pop(0)
        if name in seen or name in PROGRAMS:
            continue
        seen.add(name)
        module = importlib.import_module(name)  # a namespace failing to import is an error
        yield module
        children = [
            value.__name__
            for attr, value in sorted(vars(module).items())
            if not attr.startswith("_") and isinstance(value, ModuleType)
        ]
        children += [
            f"{name}.{info.name}" for info in pkgutil.iter_modules(getattr(module, "__path__", []))
        ]
        queue += [c for c in children if _is_public_module(c) and c not in seen]


def _defined_here(obj: Any) -> bool:
    """Whether `obj` is rustape's own (not an import such as `Path` or `Any`)."""
    owner = getattr(obj, "__module__", None) or ""
    return owner == "rustape" or owner.startswith("rustape.")


def _public(names: Any) -> list[str]:
    return sorted(n for n in names if not n.startswith("_"))


def _members(cls: type) -> Iterator[tuple[str, Any]]:
    """A class's own public methods and properties (inherited ones are the base's)."""
    for attr in _public(vars(cls)):
        raw = inspect.getattr_static(cls, attr)
        if isinstance(raw, (staticmethod, classmethod)):
            raw = raw.__func__
        described = callable(raw) or isinstance(raw, property) or inspect.isdatadescriptor(raw)
        if described and not isinstance(raw, type):
            yield attr, raw


def public_names() -> list[Name]:
    """Every public name once (an object reached from several namespaces is listed at the
    first), in namespace order."""
    seen: set[int] = set()
    out: list[Name] = []
    for module in _modules():
        exported = getattr(module, "__all__", None)
        names = _public(exported if exported is not None else vars(module))
        for attr in names:
            obj = getattr(module, attr)
            if isinstance(obj, ModuleType) or id(obj) in seen:
                continue
            if exported is None and not _defined_here(obj):
                continue  # without `__all__`, a module's imports are not its names
            if not (inspect.isclass(obj) or callable(obj)):
                continue  # dtypes, constants: documented with their namespace
            seen.add(id(obj))
            path = f"{module.__name__}.{attr}"
            out.append(Name(path, obj, needs_example=True))
            if inspect.isclass(obj):
                for member, raw in _members(obj):
                    if id(raw) in seen:
                        continue
                    seen.add(id(raw))
                    out.append(Name(f"{path}.{member}", raw, needs_example=False))
    return out


def coverage(names: list[Name]) -> tuple[int, int]:
    """(names whose docstring is complete, all names)."""
    return sum(not n.problems() for n in names), len(names)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--list", action="store_true", help="list every name and its problems")
    args = parser.parse_args(argv)
    names = public_names()
    done, total = coverage(names)
    for n in names:
        problems = n.problems()
        if problems or args.list:
            print(f"{n.path}: {', '.join(problems) or 'ok'}")
    examples = [n for n in names if n.needs_example]
    with_examples = sum(not n.problems() for n in examples)
    print(
        f"docstring coverage: {done}/{total} public names ({100 * done / max(total, 1):.1f}%); "
        f"functions and classes with a runnable example: {with_examples}/{len(examples)}"
    )
    return 0 if done == total else 1


if __name__ == "__main__":
    sys.exit(main())
