"""The binding table (src/python/bindings.rs rows, `@export` rows in _ops.py) is the only list of
the ops: every row is exported where it says, every namespace holds exactly its rows, and nothing
in the extension or in _ops exists outside it."""

import importlib
import inspect

import pytest
import rustape as rt
from rustape import _export, _ops, _rustape

# What rt holds beyond the table: the Python side of the package (not ops).
PYTHON_TOP_LEVEL = {
    "GradientTape",
    "UnconnectedGradients",
    "custom_gradient",
    "Module",
    "TensorSpec",
    "function",
    "math",
    "nn",
    "linalg",
    "random",
    "image",
    "signal",
    "bitwise",
    "strings",
    "RaggedTensor",
    "layers",
    "keras",
    "data",
    "nest",
    "test",
    "train",
    "saved_model",
    "summary",
    "contrib",
    "config",
    "experimental",
    "utils",
    "__version__",
    # TensorFlow's control flow, run eagerly (_control_flow.py).
    "case",
    "cond",
    "foldl",
    "foldr",
    "map_fn",
    "scan",
    "switch_case",
    "while_loop",
    # Python names around the math (_compat.py) and `newaxis`.
    "device",
    "is_tensor",
    "newaxis",
    "numpy_function",
    "print",
    "py_function",
    "recompute_grad",
    "vectorized_map",
    # Graph-building names that mean nothing eagerly (_compat.py), TensorShape (_shape.py).
    "TensorShape",
    "control_dependencies",
    "executing_eagerly",
    "get_current_name_scope",
    "get_static_value",
    "group",
    "init_scope",
    "name_scope",
    "no_op",
    # TensorFlow's run-time checks and exception classes (debugging.py, errors.py).
    "debugging",
    "errors",
    "assert_equal",
    "assert_greater",
    "assert_less",
    "assert_rank",
}


# Plain-Python submodules of a namespace (rt.config.threading, rt.config.experimental).
SUBMODULES = {"config": {"experimental", "threading"}}


def _module(namespace):
    return rt if namespace == "rt" else importlib.import_module(f"rustape.{namespace}")


def _extension_rows():
    return [
        (name, ns, exported) for name, exports in _rustape._bindings for ns, exported in exports
    ]


def _python_rows():
    return [(f, ns, exported) for (ns, exported), f in _export._PYTHON.items()]


def test_the_table_is_not_empty():
    assert len(_rustape._bindings) > 80
    assert len(_export._PYTHON) > 20
    assert {ns for _, ns, _ in _extension_rows()} >= {"rt", "math", "nn", "linalg", "random"}


@pytest.mark.parametrize("name, namespace, exported", _extension_rows())
def test_every_extension_row_is_exported_where_it_says(name, namespace, exported):
    module = _module(namespace)
    assert getattr(module, exported) is getattr(_rustape, name), f"{namespace}.{exported}"
    assert exported in module.__all__


@pytest.mark.parametrize("f, namespace, exported", _python_rows())
def test_every_python_row_is_exported_where_it_says(f, namespace, exported):
    module = _module(namespace)
    assert getattr(module, exported) is f, f"{namespace}.{exported}"
    assert exported in module.__all__


def test_every_namespace_holds_exactly_its_rows():
    expected = {}
    for _, ns, exported in _extension_rows() + _python_rows():
        expected.setdefault(ns, set()).add(exported)
    for ns, names in expected.items():
        extra = PYTHON_TOP_LEVEL if ns == "rt" else SUBMODULES.get(ns, set())
        assert set(_module(ns).__all__) == names | extra, ns


def test_nothing_in_the_extension_is_outside_the_table():
    rows = {name for name, _ in _rustape._bindings}
    public = {n for n in dir(_rustape) if not n.startswith("_")} | {"__version__"}
    assert public == rows
    # pyo3 lists every object it added in the module's __all__
    assert set(_rustape.__all__) == rows


def test_every_public_composition_has_a_row():
    declared = set(_export._PYTHON.values())
    functions = [
        f
        for name, f in inspect.getmembers(_ops, inspect.isfunction)
        if f.__module__ == _ops.__name__ and not name.startswith("_")
    ]
    assert functions
    missing = [f.__name__ for f in functions if f not in declared]
    assert not missing, f"_ops functions in no namespace (add @export): {missing}"


def test_a_name_bound_twice_is_an_error():
    with pytest.raises(RuntimeError, match="two Python functions export 'add_n' in 'math'"):
        _export.export("math", name="add_n")(lambda inputs: inputs)
    _export._PYTHON[("math", "sin")] = _ops.add_n
    try:
        with pytest.raises(RuntimeError, match="math.sin is bound twice"):
            _export.table()
    finally:
        del _export._PYTHON[("math", "sin")]
    # ... and the table is whole again
    assert _export.table()["math"]["sin"] is rt.math.sin
