"""rt.vectorized_map: one run of fn on the whole batch when the tape proves the rows stayed
apart, the loop over rows otherwise (with the reason), the same numbers either way, gradients
through both, and TensorFlow's stored values (tests/reference/gen_vectorized_map.py)."""

from __future__ import annotations

import warnings
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
import pytest
import rustape as rt
from conftest import check_gradients
from rustape import _vmap

REFERENCE = np.load(
    Path(__file__).parents[1] / "reference" / "vectorized_map.npz", allow_pickle=False
)
RNG = np.random.default_rng(7)
X = RNG.normal(size=(6, 3))
W = RNG.normal(size=(3, 4))
MATS = RNG.normal(size=(6, 2, 3))


def _path_of(call: Callable[[], Any]) -> tuple[Any, str]:
    """The result of `call` (one vectorized_map) and the path it took."""
    before = dict(_vmap.PATHS)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        result = call()
    taken = [k for k, n in _vmap.PATHS.items() if n != before.get(k, 0)]
    assert len(taken) == 1, taken
    return result, taken[0]


def _loop(fn: Callable, elems: Any) -> Any:
    flat = [_vmap._as_tensor(x) for x in rt.nest.flatten(elems)]
    return _vmap.loop(fn, elems, flat, int(flat[0].shape[0]))


def _assert_same(a: Any, b: Any, rtol: float = 1e-12) -> None:
    rt.nest.assert_same_structure(a, b)
    for p, q in zip(rt.nest.flatten(a), rt.nest.flatten(b)):
        assert (p is None) == (q is None)
        if p is not None:
            assert tuple(p.shape) == tuple(q.shape) and p.dtype == q.dtype
            np.testing.assert_allclose(p.numpy(), q.numpy(), rtol=rtol, atol=rtol)


def _tape_inside(r: rt.Tensor) -> rt.Tensor:
    with rt.GradientTape() as t:
        t.watch(r)
        y = rt.reduce_sum(rt.sin(r) * r)
    return t.gradient(y, r)


def _hessian_diagonal_inside(r: rt.Tensor) -> rt.Tensor:
    with rt.GradientTape() as outer:
        outer.watch(r)
        with rt.GradientTape() as inner:
            inner.watch(r)
            y = rt.reduce_sum(rt.exp(r) * r)
        g = inner.gradient(y, r)
    return outer.gradient(g, r)


def _w() -> rt.Tensor:
    return rt.constant(W)


VECTORISED: dict[str, tuple[Callable, Callable[[], Any]]] = {
    "elementwise": (lambda r: rt.sin(r) * r + 1.0, lambda: rt.constant(X)),
    "matvec": (lambda r: rt.linalg.matvec(_w(), r, transpose_a=True), lambda: rt.constant(X)),
    "row_matmul": (lambda r: rt.matmul(r[rt.newaxis], _w())[0], lambda: rt.constant(X)),
    "batched_matmul": (
        lambda a: rt.matmul(a, a, transpose_b=True),
        lambda: rt.constant(MATS),
    ),
    "inner_reduction": (lambda a: rt.reduce_mean(rt.exp(a), axis=-1), lambda: rt.constant(MATS)),
    "row_sum": (lambda r: rt.reduce_sum(r * r, axis=-1), lambda: rt.constant(X)),
    "softmax": (lambda r: rt.nn.softmax(r * 2.0), lambda: rt.constant(X)),
    "mlp": (
        lambda r: rt.tanh(rt.linalg.matvec(_w(), rt.nn.relu(r), transpose_a=True)),
        lambda: rt.constant(X),
    ),
    "nested": (
        lambda t: {"sum": t[0] + t[1]["b"], "more": (t[0] * 2.0, rt.exp(t[1]["b"]))},
        lambda: (rt.constant(X), {"b": rt.constant(X[::-1].copy())}),
    ),
    "tape_inside": (_tape_inside, lambda: rt.constant(X)),
    "second_order_inside": (_hessian_diagonal_inside, lambda: rt.constant(X)),
    "scalar_rows": (lambda s: s * s + 1.0, lambda: rt.constant(X[:, 0].copy())),
    "one_row": (lambda r: rt.nn.softmax(r), lambda: rt.constant(X[:1])),
    "float32": (lambda r: rt.nn.softmax(r) * r, lambda: rt.constant(X, rt.float32)),
}


@pytest.mark.parametrize("name", sorted(VECTORISED))
def test_vectorised_result_equals_the_loop(name: str) -> None:
    fn, make = VECTORISED[name]
    result, path = _path_of(lambda: rt.vectorized_map(fn, make()))
    assert path == "vectorized"
    _assert_same(result, _loop(fn, make()), rtol=1e-5 if name == "float32" else 1e-12)


def test_loop_invariant_outputs_are_repeated_as_in_tensorflow() -> None:
    v = rt.Variable([1.0, 2.0])
    x = rt.constant(X)
    (c, var, num), path = _path_of(
        lambda: rt.vectorized_map(lambda r: (rt.constant([3.0, 4.0]), v * 1.0, 5.0), x)
    )
    assert path == "vectorized"
    np.testing.assert_array_equal(c.numpy(), np.tile([3.0, 4.0], (6, 1)))
    np.testing.assert_array_equal(var.numpy(), np.tile([1.0, 2.0], (6, 1)))
    np.testing.assert_array_equal(num.numpy(), np.full(6, 5.0, np.float32))
    with rt.GradientTape() as tape:
        y, path = _path_of(lambda: rt.vectorized_map(lambda r: v * 2.0, x))
    assert path == "vectorized"
    np.testing.assert_array_equal(tape.gradient(y, v).numpy(), [12.0, 12.0])


def test_none_outputs_stay_none() -> None:
    (none, y), path = _path_of(lambda: rt.vectorized_map(lambda r: (None, r * 2.0), rt.constant(X)))
    assert path == "vectorized" and none is None
    np.testing.assert_array_equal(y.numpy(), X * 2.0)


def test_an_empty_batch_gives_empty_outputs_of_the_row_shape() -> None:
    # TensorFlow: shape [0] + the output shape of one row (it traces fn for it).
    empty = rt.zeros([0, 3], rt.float64)
    y, path = _path_of(lambda: rt.vectorized_map(lambda r: r * 2.0, empty))
    assert path == "vectorized" and y.shape == (0, 3) and y.dtype == rt.float64
    s = rt.vectorized_map(lambda r: rt.reduce_sum(r), empty)
    assert s.shape == (0,)
    pair = rt.vectorized_map(lambda r: {"a": r[:2], "b": rt.linalg.matvec(_w(), r, True)}, empty)
    assert pair["a"].shape == (0, 2) and pair["b"].shape == (0, 4)


def test_the_result_is_differentiable_like_the_loop() -> None:
    def through(fn: Callable) -> Callable:
        return lambda x: rt.vectorized_map(fn, x)

    for name in ["mlp", "softmax", "tape_inside", "inner_reduction", "batched_matmul"]:
        fn, make = VECTORISED[name]
        x = make().numpy()
        _, path = _path_of(lambda fn=fn, x=x: rt.vectorized_map(fn, rt.constant(x)))
        assert path == "vectorized"
        check_gradients(through(fn), [x])


def test_gradients_through_nested_elems_and_a_shared_weight() -> None:
    w = rt.Variable(W)
    x = rt.constant(X)
    with rt.GradientTape(persistent=True) as tape:
        tape.watch(x)
        y = rt.vectorized_map(lambda t: rt.linalg.matvec(w, t[0] * t[1], True), (x, x))
        loss = rt.reduce_sum(rt.sin(y))
    gx, gw = tape.gradient(loss, [x, w])
    with rt.GradientTape(persistent=True) as tape:
        tape.watch(x)
        loss = rt.reduce_sum(rt.sin(rt.matmul(x * x, w)))
    ex, ew = tape.gradient(loss, [x, w])
    np.testing.assert_allclose(gx.numpy(), ex.numpy(), rtol=1e-12)
    np.testing.assert_allclose(gw.numpy(), ew.numpy(), rtol=1e-12)


def _shared_weight_gradient(r: rt.Tensor) -> rt.Tensor:
    v = rt.constant([0.5, -1.0, 2.0], rt.float64)
    with rt.GradientTape() as t:
        t.watch(v)
        y = rt.reduce_sum(r * v) ** 2
    return t.gradient(y, v)


FALLBACKS: dict[str, tuple[Callable, Callable[[], Any], str]] = {
    "reads_the_batch_size": (lambda r: r * r.shape[0], lambda: rt.constant(X), "differs"),
    "builds_from_the_shape": (
        lambda r: r[..., 0] + rt.zeros([r.shape[0]], rt.float64),
        lambda: rt.constant(X),
        "has shape [6] for the batch of 6 rows but [3] for one row",
    ),
    "range_of_the_length": (
        lambda r: r * rt.cast(rt.reduce_sum(rt.range(r.shape[0])), rt.float64),
        lambda: rt.constant(X),
        "differs",
    ),
    "full_reduction": (lambda r: r * rt.reduce_sum(r), lambda: rt.constant(X), "meet in"),
    "mixes_rows": (lambda r: r - rt.reduce_mean(r), lambda: rt.constant(X), "meet in"),
    "first_row_on_the_batch": (lambda r: r * r[0], lambda: rt.constant(X), "meet in"),
    "reduces_everything": (lambda r: rt.reduce_sum(r), lambda: rt.constant(X), "depends on"),
    "integer_elems": (lambda r: r * 2, lambda: rt.constant([[1, 2], [3, 4]]), "non-floating"),
    "integer_output": (
        lambda r: rt.argmax(r, axis=-1),
        lambda: rt.constant(X),
        "not computed from the elems",
    ),
    "random": (
        lambda r: r + rt.random.normal([3], dtype=rt.float64),
        lambda: rt.constant(X),
        "random op",
    ),
    "shared_weight_gradient": (_shared_weight_gradient, lambda: rt.constant(X), "shape"),
    "structure_by_rank": (
        lambda r: [r, r] if len(r.shape) == 2 else [r],
        lambda: rt.constant(X),
        "different structure",
    ),
    "none_on_the_batch_only": (
        lambda r: r if len(r.shape) == 1 else None,
        lambda: rt.constant(X),
        "None for the whole batch or for one row only",
    ),
    "dtype_by_rank": (
        lambda r: rt.cast(r, rt.float32) if len(r.shape) == 2 else r,
        lambda: rt.constant(X),
        "has dtype rt.float32 for the whole batch but rt.float64 for one row",
    ),
    "rank_dependent": (
        lambda a: rt.matmul(a, rt.transpose(a)),
        lambda: rt.constant(MATS),
        "fn raised ValueError",
    ),
}


@pytest.mark.parametrize("name", sorted(FALLBACKS))
def test_every_fallback_reason_loops_warns_or_raises(name: str) -> None:
    fn, make, reason = FALLBACKS[name]
    with pytest.warns(UserWarning, match="using a loop over the") as record:
        y = rt.vectorized_map(fn, make())
    assert reason in str(record[0].message)
    assert record[0].filename == __file__  # the warning points at the caller
    if name != "random":
        _assert_same(y, _loop(fn, make()))
    else:
        # Each row draws its own numbers, as in the loop.
        assert not np.allclose(y.numpy()[0] - X[0], y.numpy()[1] - X[1])
    _, path = _path_of(lambda: rt.vectorized_map(fn, make(), warn=False))
    assert path == "loop"
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        rt.vectorized_map(fn, make(), warn=False)
    with pytest.raises(ValueError, match=f"fallback_to_while_loop is False.*|.*{reason}") as err:
        rt.vectorized_map(fn, make(), fallback_to_while_loop=False)
    assert reason in str(err.value) and "vectorized_map" in str(err.value)


def test_variable_elems_are_read_like_the_loop_reads_them() -> None:
    v = rt.Variable(X)
    with rt.GradientTape() as tape:
        y, path = _path_of(lambda: rt.vectorized_map(lambda r: rt.sin(r) * r, v))
        loss = rt.reduce_sum(y)
    assert path == "vectorized"
    np.testing.assert_allclose(tape.gradient(loss, v).numpy(), np.cos(X) * X + np.sin(X))


def test_the_shared_weight_gradient_is_per_row_as_in_tensorflow() -> None:
    y = rt.vectorized_map(_shared_weight_gradient, rt.constant(X), warn=False)
    v = np.array([0.5, -1.0, 2.0])
    np.testing.assert_allclose(y.numpy(), 2.0 * (X @ v)[:, None] * X, rtol=1e-12)


def test_bad_elems_are_value_errors() -> None:
    with pytest.raises(ValueError, match="same first dimension"):
        rt.vectorized_map(lambda t: t[0], (rt.constant(X), rt.ones([2])))
    with pytest.raises(ValueError, match="same first dimension"):
        rt.vectorized_map(lambda t: t, rt.constant(1.0))
    with pytest.raises(ValueError, match="no tensors"):
        rt.vectorized_map(lambda t: t, [])


def test_the_engine_check_names_the_op_that_mixes_rows() -> None:
    tape = rt._rustape.Tape(persistent=True, watch_accessed_variables=False)
    x = rt.constant(X)
    tape.push()
    tape.watch(x)
    kept, mixed = x * 2.0, x - rt.reduce_mean(x, axis=0)
    tape.exit()
    assert tape.batch_rows([kept, mixed, rt.constant(1.0)], [x], 6) == [
        ("apart", None),
        ("entangled", "batch rows meet in 'reduce_mean'"),
        ("free", None),
    ]
    with pytest.raises(ValueError, match="5 rows"):
        tape.batch_rows([kept], [x], 5)


def _reference_fns() -> dict[str, tuple[Callable, str]]:
    """The functions of gen_vectorized_map.py in rustape, and the path each must take."""
    w, v = rt.constant(REFERENCE["params/w"]), rt.constant(REFERENCE["params/v"])

    def tape_inside(r: rt.Tensor) -> rt.Tensor:
        with rt.GradientTape() as t:
            t.watch(r)
            y = rt.reduce_sum(rt.sin(r) * r)
        return t.gradient(y, r)

    def shared_weight_gradient(r: rt.Tensor) -> rt.Tensor:
        with rt.GradientTape() as t:
            t.watch(v)
            y = rt.reduce_sum(r * v) ** 2
        return t.gradient(y, v)

    return {
        "mlp": (lambda r: rt.nn.relu(rt.linalg.matvec(w, r, transpose_a=True)), "vectorized"),
        "softmax": (lambda r: rt.nn.softmax(r * 2.0), "vectorized"),
        "gram": (lambda a: rt.matmul(a, a, transpose_b=True), "vectorized"),
        "inner_mean": (lambda a: rt.reduce_mean(rt.exp(a), axis=-1), "vectorized"),
        "tape_inside": (tape_inside, "vectorized"),
        "shared_weight_gradient": (shared_weight_gradient, "loop"),
        # A reduction over every axis also sums over the batch: the loop runs.
        "pair": (lambda t: t[0] * rt.reduce_sum(t[1]), "loop"),
        "constant": (lambda r: rt.constant([1.0, 2.0], rt.float64), "vectorized"),
        "empty": (lambda r: rt.reduce_sum(r), "vectorized"),
    }


REFERENCE_CASES = sorted({k.split("/")[0] for k in REFERENCE.files} - {"params"})


def test_every_reference_case_is_checked() -> None:
    assert REFERENCE_CASES == sorted(_reference_fns())


@pytest.mark.parametrize("name", REFERENCE_CASES)
def test_values_and_gradients_match_tensorflow(name: str) -> None:
    fn, expected_path = _reference_fns()[name]
    xs = [rt.constant(REFERENCE[k]) for k in sorted(REFERENCE.files) if k.startswith(f"{name}/x")]
    elems = xs[0] if len(xs) == 1 else tuple(xs)
    with rt.GradientTape() as tape:
        tape.watch(xs[0])
        y, path = _path_of(lambda: rt.vectorized_map(fn, elems))
        loss = rt.reduce_sum(y * rt.constant(REFERENCE[f"{name}/seed"]))
    assert path == expected_path
    np.testing.assert_allclose(y.numpy(), REFERENCE[f"{name}/y"], rtol=1e-12, atol=1e-12)
    g = tape.gradient(loss, xs[0])
    if f"{name}/grad" in REFERENCE.files:
        np.testing.assert_allclose(g.numpy(), REFERENCE[f"{name}/grad"], rtol=1e-10, atol=1e-12)
    else:
        assert g is None
