"""Keras 3's NumPy-style `keras.ops` beyond the basic set (cbrt, hypot, diff, kron, median,
nan-reductions, ...) on the TensorFlow 2.21 backend: each case's results (values and dtypes)
and the gradient of a weighted sum of the float results, as in gen_keras_ops.py. The cases
are listed here (`cases()`), so the test runs the same calls on `rt.keras.ops`. Run with
TensorFlow's venv (see README.md); writes keras_ops_numpy.npz beside this file.
"""

from __future__ import annotations

import os
from typing import Any

import numpy as np
from gen_keras_ops import arguments, flatten

_rng = np.random.default_rng(11)
A = _rng.normal(size=(2, 3)).astype(np.float32)
B = _rng.normal(size=(2, 3)).astype(np.float32)
D = _rng.normal(size=(2, 3)).astype(np.float64)
E = _rng.normal(size=(2, 3)).astype(np.float64)
P = (np.abs(_rng.normal(size=(2, 3))) + 0.2).astype(np.float32)  # positive
M = _rng.normal(size=(3, 4)).astype(np.float32)
T = _rng.normal(size=(2, 3, 4)).astype(np.float32)
V = _rng.normal(size=(5,)).astype(np.float32)
W = _rng.normal(size=(5,)).astype(np.float64)
C3 = _rng.normal(size=(4, 3)).astype(np.float32)
I = np.array([[3, -1, 4], [1, -5, 9]], dtype=np.int32)
J = np.array([[2, 7, -1], [8, 2, 8]], dtype=np.int32)
K = np.array([[2, 3, 1], [4, 2, 3]], dtype=np.int32)  # positive
L64 = np.array([5, -1, 4], dtype=np.int64)
BOOL = np.array([[True, False, True], [False, False, True]])
# Special values: signed zeros, infinities, NaN.
SPECIAL = np.array([-0.0, 0.0, np.inf, -np.inf, np.nan, -2.5, 1.0], dtype=np.float32)
SPECIAL2 = np.array([1.0, np.nan, np.nan, 3.0, np.nan, -1.0, 0.0], dtype=np.float32)
NANS = np.array([[1.0, np.nan, 3.0, -2.0], [np.nan, 5.0, 0.5, 4.0]], dtype=np.float32)
NANS64 = NANS.astype(np.float64)

_UNARY_FLOAT = (
    "cbrt",
    "deg2rad",
    "rad2deg",
    "exp2",
    "fabs",
    "sinc",
)
_UNARY_PREDICATE = ("isneginf", "isposinf", "isreal", "signbit")
_BINARY_FLOAT = ("fmax", "fmin", "hypot", "logaddexp2", "heaviside")


def cases() -> list[tuple[str, str, tuple[Any, ...], dict[str, Any]]]:
    """(case id, `keras.ops` name, positional arguments, keyword arguments)."""
    out: list[tuple[str, str, tuple[Any, ...], dict[str, Any]]] = []
    for name in _UNARY_FLOAT:
        out += [
            (f"{name}_f32", name, (A,), {}),
            (f"{name}_f64", name, (D,), {}),
            (f"{name}_i32", name, (I,), {}),
        ]
    out += [("cbrt_i64", "cbrt", (L64,), {}), ("deg2rad_i64", "deg2rad", (L64,), {})]
    for name in _UNARY_PREDICATE:
        out += [
            (f"{name}_special", name, (SPECIAL,), {}),
            (f"{name}_i32", name, (I,), {}),
        ]
    out.append(("sinc_zero", "sinc", (np.array([0.0, 1.0, -0.5], np.float32),), {}))
    for name in _BINARY_FLOAT:
        out += [
            (f"{name}_f32", name, (A, B), {}),
            (f"{name}_f64", name, (D, E), {}),
            (f"{name}_i32", name, (I, J), {}),
            (f"{name}_mixed", name, (I, D), {}),
        ]
    out += [
        ("fmax_nan", "fmax", (SPECIAL, SPECIAL2), {}),
        ("fmin_nan", "fmin", (SPECIAL, SPECIAL2), {}),
        ("heaviside_zero", "heaviside", (np.array([-1.0, 0.0, 2.0], np.float32), 0.5), {}),
        ("hypot_zero", "hypot", (np.zeros(3, np.float32), np.zeros(3, np.float32)), {}),
        ("logaddexp2_big", "logaddexp2", (np.array([100.0, -100.0], np.float32), 99.0), {}),
        ("fmod_i32", "fmod", (I, K), {}),
        ("fmod_f32", "fmod", (A, P), {}),
        ("fmod_f64", "fmod", (D, np.full((1, 3), 0.7)), {}),
        ("ldexp_f32", "ldexp", (A, J), {}),
        ("ldexp_f64", "ldexp", (D, J), {}),
        ("ldexp_i32", "ldexp", (I, K), {}),
    ]
    out += _array_cases()
    out += _statistics_cases()
    out += _indexing_cases()
    out += _core_cases()
    return out


def _square_plus_one(row: Any) -> Any:
    return row * row + 1.0


def _core_cases() -> list[tuple[str, str, tuple[Any, ...], dict[str, Any]]]:
    """Item access, complex views, space/depth blocks and vectorized_map."""
    z = (D + 1j * E).astype(np.complex128)
    images = np.random.default_rng(5).normal(size=(2, 4, 6, 8)).astype(np.float32)
    return [
        ("get_item", "get_item", (T, (1, slice(None, 2), -1)), {}),
        ("get_item_newaxis", "get_item", (M, (None, Ellipsis, slice(1, None, 2))), {}),
        ("get_item_int", "get_item", (I, 1), {}),
        ("polar", "polar", (P, A), {}),
        ("polar_f64", "polar", (D, E), {}),
        ("view_as_real", "view_as_real", (z,), {}),
        ("view_as_complex", "view_as_complex", (C3[:, :2].copy(),), {}),
        ("view_as_complex_f64", "view_as_complex", (T[..., :2].astype(np.float64),), {}),
        ("depth_to_space", "depth_to_space", (images, 2), {}),
        ("depth_to_space_first", "depth_to_space", (images, 2), {"data_format": "channels_first"}),
        ("space_to_depth", "space_to_depth", (images, 2), {}),
        (
            "space_to_depth_first",
            "space_to_depth",
            (images.transpose(0, 3, 1, 2).copy(), 2),
            {"data_format": "channels_first"},
        ),
        ("vectorized_map", "vectorized_map", (_square_plus_one, M), {}),
    ]


def _indexing_cases() -> list[tuple[str, str, tuple[Any, ...], dict[str, Any]]]:
    """Slicing, scattering, segments, classes, windows, correlations and cross products."""
    idx2 = np.array([[0, 1], [2, 3], [0, 1]], np.int32)
    rows = np.array([[1], [0]], np.int32)
    scores = np.array(
        [[0.1, 0.5, 0.4, 0.5], [0.3, 0.2, 0.9, 0.0], [1.0, 1.0, 1.0, 1.0]], np.float32
    )
    return [
        ("slice", "slice", (T, (0, 1, 1), (2, 2, 3)), {}),
        ("slice_to_end", "slice", (M, (1, 2), (-1, -1)), {}),
        ("slice_i32", "slice", (I, (1, 0), (1, 2)), {}),
        ("slice_update", "slice_update", (M, (1, 1), A), {}),
        ("slice_update_f64", "slice_update", (np.zeros((3, 4)), (0, 2), D[:, :2]), {}),
        ("scatter", "scatter", (idx2, np.array([1.0, 2.0, 3.0], np.float32), (3, 4)), {}),
        ("scatter_rows", "scatter", (rows, A[:, :2], (3, 2)), {}),
        ("scatter_update", "scatter_update", (M, idx2[:2], np.array([7.0, 8.0], np.float32)), {}),
        ("scatter_update_rows", "scatter_update", (M, rows, T[0, :2].copy()), {}),
        ("scatter_update_add", "scatter_update", (M, idx2, V[:3]), {"reduction": "add"}),
        ("scatter_update_max", "scatter_update", (M, idx2, V[:3]), {"reduction": "max"}),
        ("scatter_update_min", "scatter_update", (M, idx2, V[:3]), {"reduction": "min"}),
        ("scatter_update_mul", "scatter_update", (M, idx2, V[:3]), {"reduction": "mul"}),
        ("unravel_index", "unravel_index", (np.array([0, 5, 11, 7], np.int32), (3, 4)), {}),
        ("unravel_index_3d", "unravel_index", (np.array([23, 6], np.int64), (2, 3, 4)), {}),
        ("segment_max", "segment_max", (C3, np.array([0, 0, 2, 2], np.int32)), {}),
        ("segment_max_n", "segment_max", (V, np.array([1, 1, 0, 3, 0], np.int32), 4), {}),
        (
            "segment_max_sorted",
            "segment_max",
            (W, np.array([0, 0, 1, 1, 1], np.int32)),
            {"sorted": True},
        ),
        ("segment_min", "segment_min", (C3, np.array([0, 0, 2, 2], np.int32)), {}),
        ("segment_min_n", "segment_min", (V, np.array([1, 1, 0, 3, 0], np.int32), 4), {}),
        ("multi_hot", "multi_hot", (np.array([[1, 3], [0, 0], [2, 1]], np.int32), 4), {}),
        ("multi_hot_1d", "multi_hot", (np.array([1, 3], np.int32), 5), {"dtype": "int32"}),
        ("in_top_k", "in_top_k", (np.array([1, 2, 0], np.int32), scores, 1), {}),
        ("in_top_k_2", "in_top_k", (np.array([2, 0, 3], np.int32), scores, 2), {}),
        ("extract_sequences", "extract_sequences", (V, 2, 1), {}),
        ("extract_sequences_2d", "extract_sequences", (M, 3, 1), {}),
        ("extract_sequences_i32", "extract_sequences", (I, 2, 2), {}),
        ("correlate", "correlate", (V, W[:3].astype(np.float32)), {}),
        ("correlate_full", "correlate", (V, np.array([1.0, -1.0], np.float32)), {"mode": "full"}),
        (
            "correlate_same",
            "correlate",
            (V, np.array([0.5, 1.0, 2.0, 1.0], np.float32)),
            {"mode": "same"},
        ),
        ("correlate_same_odd", "correlate", (W, W[:3]), {"mode": "same"}),
        (
            "correlate_i32",
            "correlate",
            (np.array([1, 2, 3], np.int32), np.array([1, 1], np.int32)),
            {},
        ),
        ("corrcoef", "corrcoef", (M,), {}),
        ("corrcoef_f64", "corrcoef", (D,), {}),
        ("corrcoef_i32", "corrcoef", (np.array([[1, 2, 4], [3, 1, 0]], np.int32),), {}),
        ("cross", "cross", (C3, C3[::-1].copy()), {}),
        ("cross_2d", "cross", (A[:, :2].copy(), B[:, :2].copy()), {}),
        ("cross_2_3", "cross", (A[:, :2].copy(), B), {}),
        ("cross_axis0", "cross", (M[:, :2].copy(), M[:, 2:].copy() + 1), {"axis": 0}),
        ("cross_f64", "cross", (D, E), {}),
        ("cross_i32", "cross", (I, J), {}),
    ]


def _statistics_cases() -> list[tuple[str, str, tuple[Any, ...], dict[str, Any]]]:
    """Quantiles and the NaN-ignoring reductions."""
    out: list[tuple[str, str, tuple[Any, ...], dict[str, Any]]] = []
    for method in ("linear", "lower", "higher", "nearest", "midpoint"):
        out += [
            (f"quantile_{method}", "quantile", (T, 0.3), {"axis": 2, "method": method}),
            (f"quantile_{method}_q", "quantile", (C3, [0.0, 0.4, 1.0]), {"method": method}),
        ]
    out += [
        ("quantile_axes_keep", "quantile", (T, [0.1, 0.9]), {"axis": (0, 2), "keepdims": True}),
        ("quantile_all_keep", "quantile", (M, 0.5), {"keepdims": True}),
        ("quantile_i32", "quantile", (I, 0.5), {"axis": 1}),
        ("quantile_f64", "quantile", (D, 0.35), {"axis": 0}),
        ("quantile_nan", "quantile", (NANS, 0.5), {"axis": 1}),
        ("percentile", "percentile", (M, 30), {"axis": 1}),
        ("percentile_q", "percentile", (T, [10, 50, 90]), {"axis": -1}),
        ("median", "median", (T,), {"axis": 1}),
        ("median_all", "median", (M,), {}),
        ("median_i32", "median", (I,), {"axis": 1, "keepdims": True}),
        ("median_f64", "median", (W,), {}),
        ("nanquantile", "nanquantile", (NANS, 0.3), {"axis": 1}),
        ("nanquantile_q", "nanquantile", (NANS64, [0.2, 0.5]), {}),
        ("nanquantile_lower", "nanquantile", (NANS, 0.6), {"axis": 1, "method": "lower"}),
        ("nanpercentile", "nanpercentile", (NANS, 75), {"axis": 1}),
        ("nanmedian", "nanmedian", (NANS,), {"axis": 1}),
        ("nanmedian_all", "nanmedian", (NANS64,), {}),
        ("nanmedian_keep", "nanmedian", (NANS,), {"axis": 0, "keepdims": True}),
    ]
    for name in ("nansum", "nanprod", "nanmean", "nanvar", "nanstd", "nanmax", "nanmin"):
        out += [
            (f"{name}_all", name, (NANS,), {}),
            (f"{name}_axis", name, (NANS,), {"axis": 1}),
            (f"{name}_f64_keep", name, (NANS64,), {"axis": 0, "keepdims": True}),
            (f"{name}_i32", name, (I,), {"axis": 0}),
        ]
    for name in ("nanargmax", "nanargmin"):
        out += [
            (f"{name}_all", name, (NANS,), {}),
            (f"{name}_axis", name, (NANS,), {"axis": 1}),
            (
                f"{name}_all_nan",
                name,
                (np.array([[np.nan, np.nan], [1.0, 2.0]], np.float32),),
                {"axis": 1},
            ),
            (f"{name}_i32", name, (I,), {"axis": 0}),
        ]
    for name in ("nancumsum", "nancumprod"):
        out += [
            (f"{name}_flat", name, (NANS,), {}),
            (f"{name}_axis", name, (NANS64,), {"axis": 1}),
            (f"{name}_i32", name, (I,), {"axis": 0}),
        ]
    out += [
        (
            "nanmax_all_nan",
            "nanmax",
            (np.array([[np.nan, np.nan], [1.0, 2.0]], np.float32),),
            {"axis": 1},
        ),
        (
            "nanmean_all_nan",
            "nanmean",
            (np.array([[np.nan, np.nan], [1.0, 2.0]], np.float32),),
            {"axis": 1},
        ),
    ]
    return out


def _array_cases() -> list[tuple[str, str, tuple[Any, ...], dict[str, Any]]]:
    """Building, joining, cutting and rearranging arrays."""
    return [
        ("append_flat", "append", (A, I), {}),
        ("append_axis0", "append", (D, A), {"axis": 0}),
        ("append_axis1_i32", "append", (I, J), {"axis": 1}),
        ("array_f32", "array", (A,), {}),
        ("array_cast", "array", (I,), {"dtype": "float64"}),
        ("empty", "empty", ((2, 3),), {}),
        ("empty_i32", "empty", ((3,),), {"dtype": "int32"}),
        ("empty_like", "empty_like", (I,), {}),
        ("empty_like_f64", "empty_like", (A,), {"dtype": "float64"}),
        ("hstack_2d", "hstack", (("list", [A, B]),), {}),
        ("hstack_1d_mixed", "hstack", (("list", [V, W]),), {}),
        ("vstack", "vstack", (("list", [A, B, D]),), {}),
        ("vstack_i32", "vstack", (("list", [I, J]),), {}),
        ("dstack_2d", "dstack", (("list", [A, B]),), {}),
        ("dstack_1d", "dstack", (("list", [V, V]),), {}),
        ("dstack_3d", "dstack", (("list", [T, T]),), {}),
        ("hsplit", "hsplit", (M, 2), {}),
        ("hsplit_idx", "hsplit", (M, [1, 3]), {}),
        ("hsplit_1d", "hsplit", (np.arange(6, dtype=np.float32), 3), {}),
        ("vsplit", "vsplit", (C3, 2), {}),
        ("dsplit", "dsplit", (T, [1]), {}),
        ("array_split", "array_split", (V, 3), {}),
        ("array_split_axis1", "array_split", (M, 3), {"axis": 1}),
        ("diagflat", "diagflat", (A,), {}),
        ("diagflat_k", "diagflat", (V, 2), {}),
        ("diagflat_neg_k_i32", "diagflat", (I, -1), {}),
        ("diff", "diff", (M,), {}),
        ("diff_n2_axis0", "diff", (C3,), {"n": 2, "axis": 0}),
        ("diff_i32", "diff", (I,), {}),
        ("diff_bool", "diff", (BOOL,), {}),
        ("diff_f64_n0", "diff", (D,), {"n": 0}),
        ("fliplr", "fliplr", (M,), {}),
        ("flipud", "flipud", (T,), {}),
        ("rot90", "rot90", (M,), {}),
        ("rot90_k2", "rot90", (M,), {"k": 2}),
        ("rot90_k3", "rot90", (T,), {"k": 3}),
        ("rot90_axes", "rot90", (T,), {"k": 1, "axes": (1, 2)}),
        ("rot90_neg", "rot90", (T,), {"k": -1, "axes": (2, 0)}),
        ("kron", "kron", (A, M), {}),
        ("kron_vec_mat_i32", "kron", (np.array([1, 2], np.int32), J), {}),
        ("kron_f64", "kron", (W, D), {}),
        ("vdot", "vdot", (A, B), {}),
        ("vdot_i32", "vdot", (I, J), {}),
        ("vdot_f64", "vdot", (D, A), {}),
        ("ptp", "ptp", (M,), {}),
        ("ptp_axis", "ptp", (T,), {"axis": 1}),
        ("ptp_keepdims_i32", "ptp", (I,), {"axis": 0, "keepdims": True}),
        ("trapezoid", "trapezoid", (M,), {}),
        ("trapezoid_dx", "trapezoid", (T,), {"dx": 0.5, "axis": 1}),
        ("trapezoid_x", "trapezoid", (M, np.array([0.0, 0.5, 2.0, 2.5], np.float32)), {}),
        ("trapezoid_i32", "trapezoid", (I,), {}),
        ("trapezoid_f64", "trapezoid", (D,), {"axis": 0}),
        ("vander", "vander", (V,), {}),
        ("vander_n_inc", "vander", (V,), {"N": 3, "increasing": True}),
        ("vander_i32", "vander", (np.array([1, -2, 3], np.int32),), {}),
        ("vander_f64", "vander", (W,), {"N": 4}),
        ("isin", "isin", (I, np.array([3, 9, -5], np.int32)), {}),
        ("isin_invert", "isin", (I, J), {"invert": True}),
        ("isin_float", "isin", (np.array([1.0, 2.5, 3.0], np.float32), np.array([2.5])), {}),
        ("logspace", "logspace", (0.0, 2.0, 5), {}),
        ("logspace_base2", "logspace", (1.0, 4.0, 4), {"base": 2, "endpoint": False}),
        ("geomspace", "geomspace", (1.0, 1000.0, 4), {}),
        ("geomspace_neg", "geomspace", (-2.0, -32.0, 5), {}),
        ("nonzero", "nonzero", (np.array([[0, 3, 0], [5, 0, 1]], np.int32),), {}),
        ("nonzero_float", "nonzero", (np.array([0.0, 1.5, -0.0, 2.0], np.float32),), {}),
        ("hamming", "hamming", (7,), {}),
        ("hamming_1", "hamming", (1,), {}),
        ("hanning", "hanning", (6,), {}),
        ("blackman", "blackman", (7,), {}),
        ("blackman_1", "blackman", (1,), {}),
        ("bartlett", "bartlett", (7,), {}),
        ("bartlett_6", "bartlett", (6,), {}),
        ("select", "select", (("list", [A > 0, B > 0]), ("list", [A, B]), -1.0), {}),
        ("select_i32", "select", (("list", [I > 2, J < 0]), ("list", [I, J])), {}),
    ]


def main() -> None:
    import keras
    import tensorflow as tf

    out: dict[str, np.ndarray] = {}
    for case, name, args, kwargs in cases():
        fn = getattr(keras.ops, name)
        results = flatten(fn(*arguments(tf.constant, args), **kwargs))
        for k, r in enumerate(results):
            out[f"{case}/{k}"] = np.asarray(keras.ops.convert_to_numpy(r))
            kind = keras.backend.standardize_dtype(r.dtype)
            out[f"{case}/{k}/dtype"] = np.array(str(kind))
        # The gradient of sum(weights * result) w.r.t. each float input, where one exists.
        watched = [
            tf.constant(a) if isinstance(a, np.ndarray) and a.dtype.kind == "f" else None
            for a in args
        ]
        if not any(w is not None for w in watched):
            continue
        with tf.GradientTape() as tape:
            for w in watched:
                if w is not None:
                    tape.watch(w)
            real = tuple(w if w is not None else a for w, a in zip(watched, args))
            results = flatten(fn(*arguments(tf.constant, real), **kwargs))
            terms = []
            for k, r in enumerate(results):
                if r.dtype.is_floating:
                    weight = np.random.default_rng(k).normal(size=tuple(r.shape))
                    terms.append(tf.reduce_sum(r * weight.astype(r.dtype.as_numpy_dtype)))
            loss = tf.add_n(terms) if terms else None
        if loss is None:
            continue
        try:
            grads = tape.gradient(loss, [w for w in watched if w is not None])
        except LookupError:  # TensorFlow has no gradient for this op (slice_update)
            continue
        for k, g in enumerate(grads):
            if g is not None:
                out[f"{case}/grad{k}"] = np.asarray(tf.convert_to_tensor(g))
    path = os.path.join(os.path.dirname(os.path.abspath(__file__)), "keras_ops_numpy.npz")
    np.savez_compressed(path, **out)
    print(
        f"wrote {path}: {len(out)} arrays, tensorflow {tf.__version__}, keras {keras.__version__}"
    )


if __name__ == "__main__":
    main()
