"""The `keras.ops` calls checked against Keras 3: (case id, function name, positional
arguments, keyword arguments). Arguments are NumPy arrays, Python numbers, tuples and strings,
so the same case runs on Keras (gen_keras_ops.py) and on `rt.keras.ops` (the test). A value
`("list", [...])` stands for a Python list of those arrays (concatenate, stack)."""

from __future__ import annotations

from typing import Any

import numpy as np

_rng = np.random.default_rng(7)
A = _rng.normal(size=(2, 3)).astype(np.float32)
B = _rng.normal(size=(2, 3)).astype(np.float32)
P = (np.abs(_rng.normal(size=(2, 3))) + 0.2).astype(np.float32)  # positive
U = (_rng.uniform(-0.9, 0.9, size=(2, 3))).astype(np.float32)  # inside (-1, 1)
G = (_rng.uniform(1.1, 3.0, size=(2, 3))).astype(np.float32)  # above 1
V = _rng.normal(size=(3,)).astype(np.float32)
M = _rng.normal(size=(3, 4)).astype(np.float32)
T = _rng.normal(size=(2, 3, 4)).astype(np.float32)
S = _rng.normal(size=(3, 3)).astype(np.float32)
D = _rng.normal(size=(2, 3)).astype(np.float64)
I = np.array([[3, -1, 4], [1, -5, 9]], dtype=np.int32)
J = np.array([[2, 7, -1], [8, 2, 8]], dtype=np.int32)
L64 = np.array([5, 1, 4], dtype=np.int64)
BOOL = np.array([[True, False, True], [False, False, True]])
BOOL2 = np.array([[True, True, False], [False, True, True]])
LABELS = np.array([2, 0, 1], dtype=np.int32)

UNARY = (
    "abs",
    "absolute",
    "negative",
    "exp",
    "expm1",
    "sin",
    "cos",
    "tan",
    "sinh",
    "cosh",
    "tanh",
    "arctan",
    "arcsinh",
    "sign",
    "floor",
    "ceil",
    "round",
    "square",
    "sigmoid",
    "relu",
    "relu6",
    "elu",
    "selu",
    "silu",
    "swish",
    "softplus",
    "softsign",
    "log_sigmoid",
    "leaky_relu",
    "hard_sigmoid",
    "erf",
    "isnan",
    "isinf",
    "isfinite",
    "stop_gradient",
    "copy",
    "ravel",
    "trunc",
)
POSITIVE = ("log", "log1p", "log2", "log10", "sqrt", "rsqrt", "reciprocal")
BINARY = (
    "add",
    "subtract",
    "multiply",
    "divide",
    "true_divide",
    "maximum",
    "minimum",
    "arctan2",
    "equal",
    "not_equal",
    "less",
    "less_equal",
    "greater",
    "greater_equal",
    "logaddexp",
    "divide_no_nan",
)
REDUCTIONS = ("sum", "mean", "max", "min", "amax", "amin", "prod", "std", "var", "logsumexp")


def cases() -> list[tuple[str, str, tuple[Any, ...], dict[str, Any]]]:
    out: list[tuple[str, str, tuple[Any, ...], dict[str, Any]]] = []

    def add(case: str, name: str, *args: Any, **kwargs: Any) -> None:
        out.append((case, name, args, kwargs))

    for name in UNARY:
        add(name, name, A)
    add("gelu", "gelu", A)
    add("gelu_exact", "gelu", A, approximate=False)
    add("elu_alpha", "elu", A, alpha=0.5)
    add("leaky_relu_slope", "leaky_relu", A, negative_slope=0.1)
    for name in POSITIVE:
        add(name, name, P)
    add("arcsin", "arcsin", U)
    add("arccos", "arccos", U)
    add("arctanh", "arctanh", U)
    add("arccosh", "arccosh", G)
    add("abs_int", "abs", I)
    add("negative_int", "negative", I)
    add("square_int", "square", I)
    add("sign_int", "sign", I)
    add("sqrt_int", "sqrt", np.abs(I))
    add("exp_int", "exp", J)
    add("logical_not", "logical_not", BOOL)
    for name in BINARY:
        add(name, name, A, B)
    add("add_broadcast", "add", A, V)
    add("add_scalar", "add", A, 2)
    add("add_int_float", "add", I, A)
    add("add_int_scalar_float", "add", I, 0.5)
    add("add_int_int64", "add", I[0], L64)
    add("multiply_float64", "multiply", A, D)
    add("divide_int", "divide", I, J)
    add("subtract_scalar_left", "subtract", 1.0, A)
    add("power", "power", P, B)
    add("power_scalar", "power", A, 2)
    add("power_int", "power", np.abs(I), 2)
    add("floor_divide", "floor_divide", I, np.array([[2, 3, 2], [4, 3, 2]], np.int32))
    add("floor_divide_float", "floor_divide", A, 0.3)
    add("mod", "mod", I, 4)
    add("mod_float", "mod", A, 0.7)
    add("logical_and", "logical_and", BOOL, BOOL2)
    add("logical_or", "logical_or", BOOL, BOOL2)
    add("logical_xor", "logical_xor", BOOL, BOOL2)
    add("equal_int", "equal", I, J)
    for name in REDUCTIONS:
        add(name, name, T)
        add(f"{name}_axis", name, T, axis=1)
        add(f"{name}_axes_keepdims", name, T, axis=(0, 2), keepdims=True)
    add("sum_int", "sum", I)
    add("sum_bool", "sum", BOOL, axis=0)
    add("mean_int", "mean", I, axis=1)
    add("max_neg_axis", "max", T, axis=-1)
    add("all", "all", BOOL)
    add("all_axis", "all", BOOL, axis=0)
    add("any", "any", BOOL, axis=1, keepdims=True)
    add("argmax", "argmax", T)
    add("argmax_axis", "argmax", T, axis=1)
    add("argmax_keepdims", "argmax", T, axis=-1, keepdims=True)
    add("argmin_axis", "argmin", A, axis=0)
    add("cumsum", "cumsum", T, axis=1)
    add("cumsum_flat", "cumsum", A)
    add("cumprod", "cumprod", A, axis=1)
    add("count_nonzero", "count_nonzero", I)
    add("count_nonzero_axis", "count_nonzero", BOOL, axis=1)
    add("norm", "norm", A)
    add("norm_axis", "norm", A, axis=1)
    add("norm_ord1", "norm", A, ord=1, axis=-1, keepdims=True)
    add("reshape", "reshape", T, (4, -1))
    add("transpose", "transpose", T)
    add("transpose_axes", "transpose", T, (1, 0, 2))
    add("expand_dims", "expand_dims", A, 1)
    add("expand_dims_neg", "expand_dims", A, -1)
    add("squeeze", "squeeze", A[:1])
    add("squeeze_axis", "squeeze", A[:1, :, None], axis=-1)
    add("concatenate", "concatenate", ("list", [A, B]))
    add("concatenate_axis", "concatenate", ("list", [A, B, A]), axis=-1)
    add("stack", "stack", ("list", [A, B]))
    add("stack_axis", "stack", ("list", [A, B]), axis=2)
    add("tile", "tile", A, (2, 1))
    add("repeat", "repeat", A, 2, axis=1)
    add("repeat_flat", "repeat", A, 2)
    add("flip", "flip", T, axis=1)
    add("flip_all", "flip", A)
    add("roll", "roll", T, 2, axis=2)
    add("roll_flat", "roll", A, 1)
    add("broadcast_to", "broadcast_to", V, (2, 3))
    add("swapaxes", "swapaxes", T, 0, 2)
    add("moveaxis", "moveaxis", T, 0, -1)
    add("pad", "pad", A, ((1, 0), (2, 1)))
    add("pad_constant", "pad", A, ((0, 1), (1, 1)), constant_values=3.0)
    add("pad_reflect", "pad", A, ((0, 1), (1, 1)), mode="reflect")
    add("take", "take", M, np.array([2, 0], np.int32), axis=1)
    add("take_flat", "take", M, np.array([5, 0, 11], np.int32))
    add("take_along_axis", "take_along_axis", A, np.array([[2, 0], [1, 1]], np.int32), axis=1)
    add("where", "where", BOOL, A, B)
    add("where_scalar", "where", BOOL, A, 0.0)
    add("clip", "clip", A, -0.5, 0.5)
    add("clip_int", "clip", I, 0, 4)
    add("cast", "cast", A, "int32")
    add("cast_bool", "cast", I, "bool")
    add("cast_float64", "cast", I, "float64")
    add("matmul", "matmul", A, M)
    add("matmul_batched", "matmul", T, np.swapaxes(T, 1, 2))
    add("matmul_vector", "matmul", M.T, V)
    add("dot", "dot", A, M)
    add("dot_vectors", "dot", V, V)
    add("outer", "outer", V, V)
    add("inner", "inner", A, B)
    add("einsum", "einsum", "ij,jk->ik", A, M)
    add("tensordot", "tensordot", T, M.T, axes=1)
    add("tensordot_pairs", "tensordot", T, np.swapaxes(T, 0, 1), axes=((0, 1), (1, 0)))
    add("softmax", "softmax", T)
    add("softmax_axis", "softmax", T, axis=1)
    add("log_softmax", "log_softmax", T, axis=-1)
    add("one_hot", "one_hot", LABELS, 4)
    add("one_hot_axis", "one_hot", LABELS, 3, axis=0)
    add("sort", "sort", A)
    add("sort_axis", "sort", A, axis=0)
    add("argsort", "argsort", A, axis=-1)
    add("trace", "trace", S)
    add("diag", "diag", V)
    add("diag_of_matrix", "diag", S)
    add("diagonal", "diagonal", T, axis1=1, axis2=2)
    add("tril", "tril", S)
    add("triu", "triu", S, k=1)
    add("zeros", "zeros", (2, 3))
    add("ones_int", "ones", (2,), dtype="int32")
    add("full", "full", (2, 2), 1.5)
    add("zeros_like", "zeros_like", I)
    add("ones_like", "ones_like", A)
    add("full_like", "full_like", A, 7)
    add("eye", "eye", 3)
    add("eye_rect", "eye", 2, 3, k=1)
    add("identity", "identity", 3)
    add("arange", "arange", 5)
    add("arange_float", "arange", 0.0, 1.0, 0.25)
    add("arange_step", "arange", 2, 11, 3)
    add("linspace", "linspace", 0.0, 1.0, 5)
    add("tri", "tri", 3)
    add("shape", "shape", T)
    add("ndim", "ndim", T)
    add("size", "size", T)
    add("isclose", "isclose", A, A + 1e-7)
    add("allclose", "allclose", A, A + 1e-7)
    add("minimum_scalar", "minimum", A, 0.0)
    add("average", "average", T, axis=1)
    add("average_weights", "average", A, axis=1, weights=np.array([1.0, 2.0, 3.0], np.float32))
    add("moments", "moments", T, axes=(0, 1))
    add("normalize", "normalize", A)
    add("segment_sum", "segment_sum", A.T, np.array([0, 0, 1], np.int32), num_segments=2)
    add("top_k", "top_k", A, 2)
    add("split", "split", T, 2, axis=2)
    add("split_indices", "split", M, (1, 3), axis=1)
    add("unstack", "unstack", T, axis=1)
    add("meshgrid", "meshgrid", V, np.arange(2, dtype=np.float32))
    add("nan_to_num", "nan_to_num", np.array([np.nan, np.inf, -np.inf, 1.0], np.float32))
    add("square_float64", "square", D)
    add("mean_float64", "mean", D, axis=0)
    add("binary_crossentropy", "binary_crossentropy", np.round(np.abs(U)), np.abs(U) * 0.9)
    add(
        "categorical_crossentropy",
        "categorical_crossentropy",
        np.eye(3, dtype=np.float32),
        S,
        from_logits=True,
    )
    add(
        "sparse_categorical_crossentropy",
        "sparse_categorical_crossentropy",
        LABELS,
        S,
        from_logits=True,
    )
    return out
