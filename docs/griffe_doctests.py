"""A griffe extension for the API reference: the `>>>` examples of a docstring (and the output
lines after them) become `pycon` code blocks, so they render as code, not as Markdown."""

from __future__ import annotations

from typing import Any

import griffe


def fence_examples(text: str) -> str:
    """`text` with each run of doctest lines (a `>>>` line, its `...` continuations and its
    output, up to a blank line) between ```` ```pycon ```` fences."""
    out: list[str] = []
    in_example = False
    for line in text.split("\n"):
        stripped = line.strip()
        if not in_example and stripped.startswith(">>>"):
            indent = line[: len(line) - len(line.lstrip())]
            out.append(f"{indent}```pycon")
            in_example = True
        elif in_example and not stripped:
            out.append(f"{indent}```")
            in_example = False
        out.append(line)
    if in_example:
        out.append(f"{indent}```")
    return "\n".join(out)


class DoctestFences(griffe.Extension):
    """Fences the examples of every docstring griffe reads."""

    def _fence(self, obj: griffe.Object) -> None:
        if obj.docstring is not None and ">>>" in obj.docstring.value:
            obj.docstring.value = fence_examples(obj.docstring.value)

    def on_instance(self, *, obj: griffe.Object, **kwargs: Any) -> None:
        self._fence(obj)
