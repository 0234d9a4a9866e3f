"""tests/typing/api_usage.py at runtime: the calls `mypy --strict` accepts work, and each call
it must reject (its `# type: ignore[...]` lines) fails here too, so the stubs and the
extension agree on what is wrong."""

import importlib.util
from pathlib import Path

import pytest

_spec = importlib.util.spec_from_file_location(
    "api_usage", Path(__file__).resolve().parent.parent / "typing" / "api_usage.py"
)
api_usage = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(api_usage)


@pytest.mark.parametrize("call", api_usage.RIGHT, ids=lambda f: f.__name__)
def test_typed_uses_run(call):
    assert call() is not None


@pytest.mark.parametrize("k", range(len(api_usage.WRONG)))
def test_calls_mypy_rejects_fail_at_runtime(k):
    with pytest.raises((TypeError, ValueError)):
        api_usage.WRONG[k]()
