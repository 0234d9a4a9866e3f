"""The Python functions of the scan, sort, segment, scatter, rearranging, special-function,
activation, cross-entropy and contraction ops against TensorFlow 2.21's stored values and
gradients (tests/reference/ops.json, written by gen_ops.py), called the way TensorFlow code
calls them; plus their errors."""

import json
import pathlib
from collections.abc import Callable
from typing import Any

import numpy as np
import pytest
import rustape as rt

DATA = json.loads((pathlib.Path(__file__).parents[1] / "reference" / "ops.json").read_text())


def _array(v: dict[str, Any]) -> np.ndarray:
    values = [float(x) if isinstance(x, str) else x for x in v["values"]]
    return np.array(values, dtype=v["dtype"]).reshape(v["shape"])


def _call(op: str, p: dict[str, Any], x: list[Any]) -> Any:
    if op == "gelu_tanh":
        return rt.nn.gelu(x[0], approximate=True)
    calls: dict[str, Callable[..., Any]] = {
        "asin": rt.asin,
        "acos": rt.acos,
        "atan": rt.atan,
        "sinh": rt.sinh,
        "cosh": rt.cosh,
        "asinh": rt.asinh,
        "acosh": rt.acosh,
        "atanh": rt.atanh,
        "expm1": rt.math.expm1,
        "erf": rt.math.erf,
        "erfc": rt.math.erfc,
        "lgamma": rt.math.lgamma,
        "digamma": rt.math.digamma,
        "log_sigmoid": rt.math.log_sigmoid,
        "softsign": rt.nn.softsign,
        "selu": rt.nn.selu,
        "gelu": rt.nn.gelu,
        "is_nan": rt.math.is_nan,
        "is_inf": rt.math.is_inf,
        "is_finite": rt.math.is_finite,
        "atan2": rt.math.atan2,
        "xlogy": rt.math.xlogy,
        "xdivy": rt.math.xdivy,
        "divide_no_nan": rt.math.divide_no_nan,
        "scalar_mul": rt.math.scalar_mul,
        "diag_part": rt.linalg.diag_part,
        "trace": rt.linalg.trace,
        "where": rt.where,
        "segment_sum": rt.math.segment_sum,
        "tensor_scatter_nd_add": rt.tensor_scatter_nd_add,
        "tensor_scatter_nd_update": rt.tensor_scatter_nd_update,
        "sparse_softmax_cross_entropy_with_logits": lambda z, lg: (
            rt.nn.sparse_softmax_cross_entropy_with_logits(labels=z, logits=lg)
        ),
        "sigmoid_cross_entropy_with_logits": lambda z, lg: rt.nn.sigmoid_cross_entropy_with_logits(
            labels=z, logits=lg
        ),
    }
    if op in calls:
        return calls[op](*x)
    if op.startswith("reduce_"):
        return getattr(rt.math, op)(x[0], axis=p.get("axis"), keepdims=p.get("keepdims", False))
    if op == "softmax_cross_entropy_with_logits":
        return rt.nn.softmax_cross_entropy_with_logits(labels=x[0], logits=x[1], axis=p["axis"])
    if op in ("cumsum", "cumprod"):
        return getattr(rt.math, op)(
            x[0],
            axis=p["axis"],
            exclusive=p.get("exclusive", False),
            reverse=p.get("reverse", False),
        )
    if op == "top_k":
        return list(rt.math.top_k(x[0], k=p["k"]))
    if op in ("sort", "argsort"):
        direction = "DESCENDING" if p["descending"] else "ASCENDING"
        return getattr(rt, op)(x[0], axis=p["axis"], direction=direction)
    if op.startswith("unsorted_segment_"):
        return getattr(rt.math, op)(x[0], x[1], p["num_segments"])
    if op == "gather":
        return rt.gather(x[0], x[1], axis=p["axis"], batch_dims=p["batch_dims"])
    if op == "gather_nd":
        return rt.gather_nd(x[0], x[1], batch_dims=p["batch_dims"])
    if op == "scatter_nd":
        return rt.scatter_nd(x[0], x[1], p["shape"])
    if op == "split":
        return rt.split(x[0], p["num"] if "num" in p else p["sizes"], axis=p["axis"])
    if op == "reverse":
        return rt.reverse(x[0], p["axis"])
    if op == "roll":
        return rt.roll(x[0], shift=p["shift"], axis=p["axis"])
    if op == "repeat":
        repeats = p["repeats"][0] if len(p["repeats"]) == 1 else p["repeats"]
        return rt.repeat(x[0], repeats, axis=p["axis"])
    if op == "meshgrid":
        return rt.meshgrid(*x, indexing=p["indexing"])
    if op == "boolean_mask":
        return rt.boolean_mask(x[0], x[1], axis=p["axis"])
    if op == "tensordot":
        axes = p["n"] if "n" in p else [p["axes_a"], p["axes_b"]]
        return rt.tensordot(x[0], x[1], axes=axes)
    raise AssertionError(f"no call for {op}")


def _close(got: np.ndarray, want: np.ndarray, what: str, op: str) -> None:
    assert got.dtype == want.dtype, f"{what}: dtype {got.dtype} vs {want.dtype}"
    assert got.shape == want.shape, f"{what}: shape {got.shape} vs {want.shape}"
    if want.dtype.kind != "f":
        np.testing.assert_array_equal(got, want, err_msg=what)
        return
    # TensorFlow's float64 GELU is itself off by ~3e-8 (see tests/ops_reference.rs).
    tol = 3e-6 if want.dtype == np.float32 else (1e-7 if op.startswith("gelu") else 1e-9)
    np.testing.assert_allclose(got, want, rtol=tol, atol=tol, err_msg=what)


@pytest.mark.parametrize("n", range(len(DATA["cases"])))
def test_matches_tensorflow(n: int) -> None:
    case = DATA["cases"][n]
    op, p = case["op"], case["params"]
    what = f"case {n}: {op} {p}"
    inputs = [rt.constant(_array(v)) for v in case["inputs"]]
    floats = [t for t in inputs if t.dtype in (rt.float32, rt.float64)]
    with rt.GradientTape() as tape:
        tape.watch(floats)
        out = _call(op, p, inputs)
        outs = list(out) if isinstance(out, (list, tuple)) else [out]
        terms = [
            rt.reduce_sum(
                o * rt.cast(1.0 + 0.1 * np.arange(int(np.prod(o.shape))).reshape(o.shape), o.dtype)
            )
            for o in outs
            if o.dtype in (rt.float32, rt.float64)
        ]
        loss = rt.add_n(terms) if terms else None
    for k, (o, w) in enumerate(zip(outs, case["outputs"])):
        _close(o.numpy(), _array(w), f"{what} output {k}", op)
    if case["grads"] is None or loss is None:
        return
    grads = tape.gradient(loss, floats)
    for k, (g, w) in enumerate(zip(grads, case["grads"])):
        if w is None:
            assert g is None or not np.any(g.numpy()), f"{what}: TensorFlow has no gradient {k}"
        else:
            _close(g.numpy(), _array(w), f"{what} gradient {k}", op)


def test_errors_name_the_op() -> None:
    with pytest.raises(ValueError, match="gather_nd"):
        rt.gather_nd([[1.0, 2.0]], [[0, 5]])
    with pytest.raises(ValueError, match="sparse_softmax_cross_entropy_with_logits"):
        rt.nn.sparse_softmax_cross_entropy_with_logits([3], [[1.0, 2.0, 3.0]])
    with pytest.raises(ValueError, match="unsorted_segment_sum"):
        rt.math.unsorted_segment_sum([1.0, 2.0], [0, 5], 3)
    with pytest.raises(ValueError, match="segment_sum"):
        rt.math.segment_sum([1.0, 2.0], [1, 0])
    with pytest.raises(TypeError, match="is_nan"):
        rt.math.is_nan(rt.constant([1, 2]))
    with pytest.raises(ValueError, match="top_k"):
        rt.math.top_k([1.0, 2.0], k=3)
    with pytest.raises(ValueError, match="split"):
        rt.split([1.0, 2.0, 3.0], 2)
    with pytest.raises(ValueError, match="scalar_mul"):
        rt.scalar_mul([2.0], [1.0])
    with pytest.raises(ValueError, match="boolean_mask"):
        rt.boolean_mask([1.0, 2.0], [True])


def test_shuffle_is_seeded_and_not_differentiable() -> None:
    x = rt.constant(np.arange(20.0).reshape(10, 2))
    rt.random.set_seed(3)
    a = rt.random.shuffle(x)
    rt.random.set_seed(3)
    b = rt.random.shuffle(x)
    np.testing.assert_array_equal(a.numpy(), b.numpy())
    assert sorted(a.numpy()[:, 0].tolist()) == list(np.arange(0.0, 20.0, 2.0))
    with rt.GradientTape() as tape:
        tape.watch(x)
        y = rt.reduce_sum(rt.random.shuffle(x, seed=1))
    assert tape.gradient(y, x) is None
