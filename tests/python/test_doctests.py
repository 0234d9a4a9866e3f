"""The examples in the documentation run and print what they say: every public name's docstring
(the extension's functions included, which pytest's own doctest collection cannot reach) and
the guide's pages (docs/*.md, docs/guide/*.md), with `rt` and `np` in scope. A name without
an example fails tools.public_api's coverage check (.ci/run), not this test."""

from __future__ import annotations

import builtins
import doctest
import inspect
import re
import sys
import warnings
from pathlib import Path

import numpy as np
import pytest
import rustape as rt

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

from tools.public_api import public_names

FLAGS = doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE
NAMES = [n for n in public_names() if ">>>" in n.doc]
PAGES = sorted((ROOT / "docs").glob("*.md")) + sorted((ROOT / "docs" / "guide").glob("*.md"))


def _run(test: doctest.DocTest) -> None:
    runner = doctest.DocTestRunner(optionflags=FLAGS)
    rt.random.set_seed(0)
    with warnings.catch_warnings():
        warnings.simplefilter("error", DeprecationWarning)
        runner.run(test, out=lambda text: _failures.append(text))
    failed = runner.summarize(verbose=False).failed
    if failed:
        report = "".join(_failures)
        _failures.clear()
        pytest.fail(f"{test.name}: {failed} example(s) failed\n{report}", pytrace=False)


_failures: list[str] = []


def test_there_are_examples() -> None:
    assert len(NAMES) > 100 and len(PAGES) >= 8


def _defining_module(path: str) -> object:
    """The module a dotted name lives in, for objects `inspect` cannot place (properties)."""
    parts = path.split(".")
    for end in range(len(parts) - 1, 0, -1):
        module = sys.modules.get(".".join(parts[:end]))
        if module is not None:
            return module
    return None


@pytest.mark.parametrize("name", NAMES, ids=[n.path for n in NAMES])
def test_docstring_examples(name) -> None:
    parser = doctest.DocTestParser()
    # As in the module's own doctests: its globals (so `SGD(...)` works in rt.keras.optimizers),
    # with `rt` and `np` on top, but never shadowing a builtin (`rt.round` is not `round`).
    module = inspect.getmodule(name.obj) or _defining_module(name.path)
    own = vars(module) if module is not None else {}
    globs = {k: v for k, v in own.items() if not hasattr(builtins, k)} | {"rt": rt, "np": np}
    test = parser.get_doctest(name.doc, globs, name.path, None, 0)
    _run(test)


@pytest.mark.parametrize("page", PAGES, ids=[p.name for p in PAGES])
def test_guide_pages(page: Path) -> None:
    # A code fence closes an example's expected output (a blank line, for doctest).
    text = re.sub(r"(?m)^```\w*$", "", page.read_text())
    parser = doctest.DocTestParser()
    test = parser.get_doctest(text, {"np": np}, page.name, str(page), 0)
    _run(test)
