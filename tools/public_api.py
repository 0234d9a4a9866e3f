"""The package's public names, and how well their docstrings cover them.

    python -m tools.public_api            # docstring coverage; exits 1 under 100%
    python -m tools.public_api --list     # every public name, with what its docstring lacks

A public name is one a user reaches from `import rustape as rt` without an underscore: the
names in each public namespace's `__all__` (`rt`, `rt.math`, `rt.nn`, `rt.linalg`, `rt.random`,
`rt.keras` and its modules, `rt.config`, `rt.utils`, `rt.experimental.dlpack`, `rt.test`, ...)
and the public methods and properties of the classes among them. Each needs a docstring; a
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

#: The public namespaces, as users import them.
NAMESPACES = [
    "rustape",
    "rustape.math",
    "rustape.nn",
    "rustape.linalg",
    "rustape.random",
    "rustape.config",
    "rustape.utils",
    "rustape.experimental",
    "rustape.experimental.dlpack",
    "rustape.test",
    "rustape.nest",
    "rustape.layers",
    "rustape.saved_model",
    "rustape.contrib",
    "rustape.contrib.eager",
    "rustape.keras",
    "rustape.keras.layers",
    "rustape.keras.activations",
    "rustape.keras.initializers",
    "rustape.keras.optimizers",
    "rustape.keras.losses",
    "rustape.keras.metrics",
]


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


def _modules() -> Iterator[ModuleType]:
    for name in NAMESPACES:
        try:
            yield importlib.import_module(name)
        except ModuleNotFoundError as e:
            if e.name != name:  # a namespace that exists but fails to import is an error
                raise


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
