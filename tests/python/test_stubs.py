"""The committed type stubs (python/rustape/*.pyi) are what `python -m tools.gen_stubs` writes
from the extension as built now: an op added or changed without regenerating them fails here."""

import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

from tools import gen_stubs


@pytest.mark.parametrize(
    "path, text", sorted(gen_stubs.stubs().items()), ids=lambda v: getattr(v, "name", "")
)
def test_stub_is_up_to_date(path, text):
    assert path.exists(), f"{path.name} is missing: run python -m tools.gen_stubs"
    assert path.read_text() == text, f"{path.name} is out of date: run python -m tools.gen_stubs"


def test_every_namespace_has_a_stub():
    import rustape

    # The stubs sit beside the modules: in the source tree, or in site-packages when the
    # tests run against an installed wheel (as CI's do).
    roots = (gen_stubs.PACKAGE, Path(rustape.__file__).resolve().parent)

    def relative(p):
        root = next(r for r in roots if p.resolve().is_relative_to(r))
        return p.resolve().relative_to(root).as_posix()

    names = {relative(p) for p in gen_stubs.stubs()}
    assert {
        "_rustape.pyi",
        "__init__.pyi",
        "math/__init__.pyi",
        "math/special.pyi",
        "nn.pyi",
        "linalg.pyi",
        "random.pyi",
    } <= names


def test_a_parameter_of_unknown_type_stops_the_generator():
    def frobnicate(x, wobble=None):
        pass

    with pytest.raises(
        gen_stubs.UnknownParameter, match="'wobble' of 'frobnicate'.*PARAMETER_TYPES"
    ):
        gen_stubs.function_stub("frobnicate", frobnicate)


def test_signatures_come_from_the_runtime():
    from rustape import _rustape

    assert gen_stubs.function_stub("reduce_sum", _rustape.reduce_sum) == (
        "def reduce_sum(\n    input_tensor: TensorLike,\n    axis: Axis = None,\n    keepdims: bool = False,\n"
        "    name: str | None = None,\n) -> Tensor: ..."
    )
    assert gen_stubs.function_stub("einsum", _rustape.einsum) == (
        "def einsum(equation: str, *inputs: TensorLike, name: str | None = None) -> Tensor: ..."
    )
