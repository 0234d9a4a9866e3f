"""Every differentiable op's gradient against central finite differences in float64, first and
second order (conftest.check_gradients: NumPy differences around rustape's forward pass), and
the forward values against NumPy."""

import glob as _glob
import importlib as _importlib
import os as _os

import numpy as np
import pytest
import rustape as rt
from conftest import check_gradients, f64
from rustape._export import table as _binding_table

rng = np.random.default_rng(12345)


def _u(*shape, lo=-1.0, hi=1.0):
    return rng.uniform(lo, hi, size=shape)


def _away_from_zero(*shape):
    x = rng.uniform(0.3, 1.5, size=shape)
    return x * rng.choice([-1.0, 1.0], size=shape)


def _distinct(*shape):
    n = int(np.prod(shape))
    return (rng.permutation(n).reshape(shape) * 0.37 - 1.0) + rng.uniform(0, 0.01, size=shape)


A23 = _u(2, 3)
B23 = _u(2, 3)
POS23 = rng.uniform(0.5, 2.0, size=(2, 3))
SQ = _u(3, 3) + 3 * np.eye(3)
LABELS = rng.uniform(size=(2, 3))

CASES = {
    # elementwise unary
    "negative": (lambda x: rt.negative(x), [A23]),
    "abs": (lambda x: rt.abs(x), [_away_from_zero(2, 3)]),
    "sign": (lambda x: rt.sign(x) * x, [_away_from_zero(2, 3)]),
    "sqrt": (lambda x: rt.sqrt(x), [POS23]),
    "square": (lambda x: rt.square(x), [A23]),
    "exp": (lambda x: rt.exp(x), [A23]),
    "log": (lambda x: rt.log(x), [POS23]),
    "log1p": (lambda x: rt.log1p(x), [rng.uniform(-0.5, 2.0, size=(2, 3))]),
    "sin": (lambda x: rt.sin(x), [A23]),
    "cos": (lambda x: rt.cos(x), [A23]),
    "tan": (lambda x: rt.tan(x), [A23]),
    "tanh": (lambda x: rt.tanh(x), [A23]),
    "sigmoid": (lambda x: rt.sigmoid(x), [A23 * 3]),
    "relu": (lambda x: rt.nn.relu(x) * x, [_away_from_zero(2, 3)]),
    "elu": (lambda x: rt.nn.elu(x), [_away_from_zero(2, 3)]),
    "softplus": (lambda x: rt.nn.softplus(x), [A23 * 3]),
    # elementwise binary, with broadcasting
    "add": (lambda a, b: rt.add(a, b) * a, [A23, _u(3)]),
    "subtract": (lambda a, b: rt.subtract(a, b) * b, [_u(2, 1), _u(1, 3)]),
    "multiply": (lambda a, b: rt.multiply(a, b), [A23, _u(1, 3)]),
    "divide": (lambda a, b: rt.divide(a, b), [A23, rng.uniform(0.5, 2.0, size=(2, 1))]),
    "pow": (lambda a, b: rt.pow(a, b), [POS23, _u(3)]),
    "pow_scalar_exponent": (lambda a: a**3.0, [A23]),
    "maximum": (lambda a, b: rt.maximum(a, b), [A23, A23 + _away_from_zero(2, 3) * 0.5]),
    "minimum": (lambda a, b: rt.minimum(a, b), [A23, A23 + _away_from_zero(2, 3) * 0.5]),
    "where": (
        lambda a, b: rt.where(
            rt.constant([[True, False, True], [False, True, True]]), a * b, a - b
        ),
        [A23, B23],
    ),
    "where_broadcast": (
        lambda a, b: rt.where(rt.constant([True, False, True]), a, b),
        [A23, _u(1, 3)],
    ),
    "clip_by_value": (
        lambda x: rt.clip_by_value(x, -0.5, 0.5) * x,
        [np.array([[-0.9, -0.2, 0.1], [0.3, 0.7, -0.6]])],
    ),
    "floormod": (
        lambda a, b: rt.floormod(a, b),
        [np.array([[1.3, -2.5, 3.1]]), np.array([[0.7, 0.9, -1.1]])],
    ),
    "squared_difference": (lambda a, b: rt.math.squared_difference(a, b), [A23, B23]),
    "operators": (
        lambda a, b: (a + b) * (a - b) / (b * b + 1.0) + (-a) ** 2 + 2.0 * a - 1.0 / (a * a + 1.0),
        [A23, B23],
    ),
    # reductions
    "reduce_sum_all": (lambda x: rt.reduce_sum(x * x), [A23]),
    "reduce_sum_axis": (lambda x: rt.reduce_sum(x * x, axis=1), [A23]),
    "reduce_sum_keepdims": (lambda x: rt.reduce_sum(x * x, axis=0, keepdims=True) * x, [A23]),
    "reduce_sum_tuple": (lambda x: rt.reduce_sum(x * x, axis=(0, 2)), [_u(2, 3, 2)]),
    "reduce_sum_negative_axis": (lambda x: rt.reduce_sum(x * x, axis=-1), [A23]),
    "reduce_mean": (lambda x: rt.reduce_mean(x * x, axis=0), [A23]),
    "reduce_max": (lambda x: rt.reduce_max(x * x, axis=1), [_distinct(2, 3)]),
    "reduce_min": (lambda x: rt.reduce_min(x, axis=0) * rt.reduce_min(x), [_distinct(2, 3)]),
    "reduce_prod": (lambda x: rt.reduce_prod(x, axis=1), [_away_from_zero(2, 3)]),
    "reduce_prod_all": (lambda x: rt.reduce_prod(x), [_away_from_zero(2, 2)]),
    "reduce_logsumexp": (lambda x: rt.reduce_logsumexp(x, axis=1), [A23 * 3]),
    "norm": (lambda x: rt.norm(x), [A23]),
    "norm_axis": (lambda x: rt.norm(x, axis=1), [A23]),
    "softmax": (lambda x: rt.nn.softmax(x), [A23 * 2]),
    "softmax_axis0": (lambda x: rt.nn.softmax(x, axis=0), [A23 * 2]),
    "log_softmax": (lambda x: rt.nn.log_softmax(x), [A23 * 2]),
    "clip_by_norm_clipped": (lambda x: rt.clip_by_norm(x, 0.5), [A23 * 2]),
    "clip_by_norm_unclipped": (lambda x: rt.clip_by_norm(x, 100.0) * x, [A23]),
    "clip_by_norm_axes": (lambda x: rt.clip_by_norm(x, 0.5, axes=[1]), [A23 * 2]),
    "moments_mean": (lambda x: rt.nn.moments(x, axes=[0])[0] * 2.0, [A23]),
    "moments_variance": (lambda x: rt.nn.moments(x, axes=[0, 1])[1], [A23]),
    "batch_normalization": (
        lambda x, m, v, o, s: rt.nn.batch_normalization(x, m, v, o, s, 1e-3),
        [A23, _u(3), rng.uniform(0.5, 1.5, size=3), _u(3), _u(3)],
    ),
    # shape
    "reshape": (
        lambda x: rt.reshape(x, [3, 2]) * rt.constant([[1.0, 2.0]], dtype=rt.float64),
        [A23],
    ),
    "reshape_minus_one": (lambda x: rt.reshape(x * x, [-1]), [A23]),
    "transpose": (lambda x: rt.transpose(x) * rt.constant([[1.0, 2.0]], dtype=rt.float64), [A23]),
    "transpose_perm": (lambda x: rt.transpose(x * x, [2, 0, 1]), [_u(2, 3, 2)]),
    "expand_dims": (lambda x: rt.expand_dims(x, 1) * x[:, None, :], [A23]),
    "squeeze": (lambda x: rt.squeeze(x * x, axis=1), [_u(2, 1, 3)]),
    "concat": (lambda a, b: rt.concat([a, b * b, a], axis=0), [A23, _u(1, 3)]),
    "concat_axis1": (lambda a, b: rt.concat([a * b, b], axis=-1), [A23, B23]),
    "stack": (lambda a, b: rt.stack([a, a * b], axis=1), [A23, B23]),
    "unstack": (lambda x: rt.unstack(x)[0] * rt.unstack(x)[1], [A23]),
    "pad": (lambda x: rt.pad(x * x, [[1, 0], [0, 2]]), [A23]),
    "tile": (lambda x: rt.tile(x, [2, 1]) * rt.tile(x, [2, 1]), [A23]),
    "broadcast_to": (
        lambda x: (
            rt.broadcast_to(x, [2, 2, 3])
            * rt.constant(np.arange(12.0).reshape(2, 2, 3), dtype=rt.float64)
        ),
        [_u(1, 3)],
    ),
    "gather": (lambda x: rt.gather(x, [2, 0, 2]) * rt.gather(x, [1, 1, 0]), [_u(3)]),
    "gather_axis": (lambda x: rt.gather(x, [1, 1], axis=1), [A23]),
    "getitem": (
        lambda x: x[1:, ::-1] * x[0, None, :] + x[1:, 0:1] + x[..., -1][None, :],
        [_u(3, 3)],
    ),
    # linear algebra
    "matmul": (lambda a, b: rt.matmul(a, b), [A23, _u(3, 4)]),
    "matmul_transpose_flags": (
        lambda a, b: rt.matmul(a, b, transpose_a=True, transpose_b=True),
        [_u(3, 2), _u(4, 3)],
    ),
    "matmul_batched_broadcast": (lambda a, b: rt.matmul(a, b), [_u(2, 2, 3), _u(3, 2)]),
    "matmul_operator": (lambda a, b: (a @ b) @ b, [_u(3, 3), _u(3, 3)]),
    "matvec": (lambda a, v: rt.linalg.matvec(a, v), [A23, _u(3)]),
    "einsum_matmul": (lambda a, b: rt.einsum("ij,jk->ik", a, b), [A23, _u(3, 2)]),
    "einsum_diag": (lambda j: rt.einsum("bxby->bxy", j), [_u(2, 3, 2, 2)]),
    "einsum_outer": (lambda a, b: rt.einsum("i,j->ij", a, b), [_u(3), _u(2)]),
    "einsum_trace": (lambda a: rt.einsum("ii->", a * a), [_u(3, 3)]),
    "einsum_batch": (lambda a, b: rt.einsum("bij,bjk->bik", a, b), [_u(2, 2, 3), _u(2, 3, 2)]),
    "solve": (lambda a, b: rt.linalg.solve(a, b), [SQ, _u(3, 2)]),
    "inv": (lambda a: rt.linalg.inv(a), [SQ]),
    "eye_times": (lambda a: a * rt.eye(3, dtype=rt.float64), [SQ]),
    # compositions in Python (rt.math / rt.nn)
    "add_n": (lambda a, b: rt.add_n([a, b, a * b]), [A23, B23]),
    "rsqrt": (lambda x: rt.math.rsqrt(x), [POS23]),
    "reduce_variance": (lambda x: rt.math.reduce_variance(x, axis=0), [A23]),
    "reduce_std": (lambda x: rt.math.reduce_std(x, axis=1), [A23]),
    "l2_normalize": (lambda x: rt.math.l2_normalize(x, axis=1), [A23]),
    "leaky_relu": (lambda x: rt.nn.leaky_relu(x) * x, [_away_from_zero(2, 3)]),
    "sigmoid_xent": (
        lambda x: rt.nn.sigmoid_cross_entropy_with_logits(labels=f64(LABELS), logits=x),
        [A23 * 3],
    ),
    "softmax_xent": (
        lambda x: rt.nn.softmax_cross_entropy_with_logits(
            labels=rt.constant([[0.2, 0.3, 0.5], [1.0, 0.0, 0.0]], dtype=rt.float64), logits=x
        ),
        [A23],
    ),
    "trace": (lambda a: rt.linalg.trace(a * a), [_u(2, 3, 3)]),
    "tensordot": (lambda a, b: rt.linalg.tensordot(a, b, axes=1), [A23, _u(3, 2)]),
}


# Forward cases of ops with no gradient: {name: (fn, [inputs], numpy_reference[, tolerances])}
# (most are in cases_core.py).
FORWARD: dict = {}


@pytest.mark.parametrize("name", sorted(CASES))
def test_gradient_matches_finite_differences(name):
    f, inputs = CASES[name]
    check_gradients(f, inputs, second_order=True)


# A subset through the engine's own gradcheck (rt.test.gradcheck), which must agree.
@pytest.mark.parametrize(
    "name",
    ["sin", "multiply", "matmul", "softmax", "reduce_max", "solve", "getitem", "einsum_diag"],
)
def test_rt_test_gradcheck(name):
    f, inputs = CASES[name]
    assert rt.test.gradcheck(f, inputs) is True


def test_rt_test_gradcheck_catches_a_wrong_gradient():
    @rt.custom_gradient
    def wrong_sin(x):
        return rt.sin(x), lambda dy: dy * rt.sin(x)  # should be cos

    with pytest.raises((AssertionError, ValueError, RuntimeError)):
        rt.test.gradcheck(lambda x: wrong_sin(x), [np.array([0.3, 0.6])])


def test_cast_gradient():
    x = f64([0.5, 0.25, -1.0])
    with rt.GradientTape() as tape:
        tape.watch(x)
        y = rt.cast(x, rt.float32) * rt.constant([1.0, 2.0, 3.0])
    g = tape.gradient(y, x)
    assert g.dtype == rt.float64
    np.testing.assert_array_equal(g.numpy(), [1.0, 2.0, 3.0])


def test_non_differentiable_ops_give_none():
    # TensorFlow registers no gradient for Round, Floor and FloorDiv: the gradient is None.
    x = f64([1.3, -2.6])
    with rt.GradientTape(persistent=True) as tape:
        tape.watch(x)
        r = rt.round(x)
        fl = rt.floor(x)
        fd = rt.floordiv(x, 0.7)
    assert tape.gradient(r, x) is None
    assert tape.gradient(fl, x) is None
    assert tape.gradient(fd, x) is None


def test_sign_gradient_is_zero():
    x = f64([1.3, -2.6])
    with rt.GradientTape() as tape:
        tape.watch(x)
        y = rt.sign(x)
    g = tape.gradient(y, x, unconnected_gradients="zero")
    np.testing.assert_array_equal(g.numpy(), [0.0, 0.0])


def test_comparisons_and_argmax_are_not_differentiable():
    x = f64([1.0, 3.0, 2.0])
    with rt.GradientTape() as tape:
        tape.watch(x)
        c = rt.cast(rt.greater(x, 1.5), rt.float64) * 1.0
        i = rt.argmax(x)
    assert int(i) == 1
    assert tape.gradient(c, x) is None


# -- forward values against NumPy ----------------------------------------------------------------

UNARY = {
    "negative": np.negative,
    "abs": np.abs,
    "sign": np.sign,
    "square": np.square,
    "exp": np.exp,
    "sin": np.sin,
    "cos": np.cos,
    "tan": np.tan,
    "tanh": np.tanh,
    "round": np.round,
    "floor": np.floor,
}


@pytest.mark.parametrize("name", sorted(UNARY))
def test_unary_values(name):
    x = np.array([[-1.7, -0.5, 0.0], [0.4, 1.5, 2.5]])
    np.testing.assert_allclose(getattr(rt, name)(f64(x)).numpy(), UNARY[name](x), rtol=1e-12)


def test_misc_values():
    x = np.array([[-1.7, -0.5, 0.2], [0.4, 1.5, 2.5]])
    t = f64(x)
    np.testing.assert_allclose(rt.sqrt(f64(np.abs(x))).numpy(), np.sqrt(np.abs(x)))
    np.testing.assert_allclose(rt.log(f64(np.abs(x))).numpy(), np.log(np.abs(x)))
    np.testing.assert_allclose(rt.log1p(f64(np.abs(x))).numpy(), np.log1p(np.abs(x)))
    np.testing.assert_allclose(rt.sigmoid(t).numpy(), 1 / (1 + np.exp(-x)))
    np.testing.assert_allclose(rt.nn.relu(t).numpy(), np.maximum(x, 0))
    np.testing.assert_allclose(rt.nn.elu(t).numpy(), np.where(x > 0, x, np.expm1(x)))
    np.testing.assert_allclose(rt.nn.softplus(t).numpy(), np.log1p(np.exp(x)))
    np.testing.assert_allclose(rt.reduce_logsumexp(t, axis=1).numpy(), np.log(np.exp(x).sum(1)))
    np.testing.assert_allclose(
        rt.nn.softmax(t).numpy(), np.exp(x) / np.exp(x).sum(1, keepdims=True)
    )
    np.testing.assert_allclose(
        rt.nn.log_softmax(t).numpy(), x - np.log(np.exp(x).sum(1, keepdims=True))
    )
    np.testing.assert_allclose(rt.norm(t).numpy(), np.linalg.norm(x))
    np.testing.assert_allclose(rt.reduce_prod(t, axis=0).numpy(), x.prod(0))
    np.testing.assert_allclose(rt.floordiv(t, 0.7).numpy(), np.floor_divide(x, 0.7))
    np.testing.assert_allclose(rt.floormod(t, 0.7).numpy(), np.mod(x, 0.7))
    np.testing.assert_allclose(rt.clip_by_value(t, -1.0, 1.0).numpy(), np.clip(x, -1, 1))
    n = np.linalg.norm(x)
    np.testing.assert_allclose(rt.clip_by_norm(t, 1.0).numpy(), x / n)
    m, v = rt.nn.moments(t, axes=[0])
    np.testing.assert_allclose(m.numpy(), x.mean(0))
    np.testing.assert_allclose(v.numpy(), x.var(0))
    assert int(rt.argmax(t, axis=1)[1]) == 2 and int(rt.argmin(t, axis=1)[0]) == 0
    np.testing.assert_array_equal(rt.argmax(t, axis=0).numpy(), [1, 1, 1])


def test_linalg_values():
    a = rng.uniform(-1, 1, size=(3, 3)) + 3 * np.eye(3)
    b = rng.uniform(-1, 1, size=(3, 2))
    np.testing.assert_allclose(rt.linalg.solve(f64(a), f64(b)).numpy(), np.linalg.solve(a, b))
    np.testing.assert_allclose(rt.linalg.inv(f64(a)).numpy(), np.linalg.inv(a))
    np.testing.assert_allclose(rt.linalg.matvec(f64(a), f64(b[:, 0])).numpy(), a @ b[:, 0])
    np.testing.assert_allclose(rt.eye(3).numpy(), np.eye(3))
    assert rt.eye(3).dtype == rt.float32
    np.testing.assert_allclose(rt.eye(2, 3).numpy(), np.eye(2, 3))
    j = rng.uniform(size=(2, 3, 2, 4))
    np.testing.assert_allclose(rt.einsum("bxby->bxy", f64(j)).numpy(), np.einsum("bxby->bxy", j))
    np.testing.assert_allclose(rt.einsum("ij,jk->ik", f64(a), f64(b)).numpy(), a @ b)
    with pytest.raises(ValueError):
        rt.linalg.solve(f64(np.zeros((2, 2))), f64(np.ones((2, 1))))


def test_creation_values():
    np.testing.assert_array_equal(rt.zeros([2, 3]).numpy(), np.zeros((2, 3)))
    assert rt.zeros([2]).dtype == rt.float32
    assert rt.ones([2], dtype=rt.int32).dtype == rt.int32
    np.testing.assert_array_equal(rt.fill([2, 2], 7.0).numpy(), np.full((2, 2), 7.0))
    np.testing.assert_allclose(
        rt.linspace(-10.0, 10.0, 201).numpy(), np.linspace(-10, 10, 201), rtol=1e-6, atol=1e-6
    )
    np.testing.assert_array_equal(rt.range(5).numpy(), np.arange(5))
    assert rt.range(5).dtype == rt.int32
    np.testing.assert_allclose(rt.range(1.0, 2.0, 0.25).numpy(), [1.0, 1.25, 1.5, 1.75])
    np.testing.assert_array_equal(rt.one_hot([0, 2], 3).numpy(), [[1, 0, 0], [0, 0, 1]])
    t = rt.constant([[1.0, 2.0]])
    np.testing.assert_array_equal(rt.zeros_like(t).numpy(), [[0.0, 0.0]])
    np.testing.assert_array_equal(rt.ones_like(t).numpy(), [[1.0, 1.0]])
    np.testing.assert_array_equal(rt.reshape(t, rt.constant([2, 1])).numpy(), [[1.0], [2.0]])
    n = rt.reduce_prod((2, 1))
    np.testing.assert_array_equal(rt.reshape(t, [n, 1]).numpy(), [[1.0], [2.0]])


def test_random_is_seeded():
    rt.random.set_seed(3)
    a = rt.random.normal([100])
    b = rt.random.uniform([100], minval=-2.0, maxval=2.0)
    rt.random.set_seed(3)
    np.testing.assert_array_equal(rt.random.normal([100]).numpy(), a.numpy())
    np.testing.assert_array_equal(
        rt.random.uniform([100], minval=-2.0, maxval=2.0).numpy(), b.numpy()
    )
    assert a.dtype == rt.float32 and a.shape == (100,)
    assert abs(float(rt.reduce_mean(a))) < 0.5
    assert 0.5 < float(rt.math.reduce_std(a)) < 1.5
    assert float(rt.reduce_min(b)) >= -2.0 and float(rt.reduce_max(b)) < 2.0
    c = rt.random.normal([50000], mean=3.0, stddev=2.0, dtype=rt.float64)
    assert c.dtype == rt.float64
    assert abs(c.numpy().mean() - 3.0) < 0.05 and abs(c.numpy().std() - 2.0) < 0.05
    t = rt.random.truncated_normal([1000])
    assert np.all(np.abs(t.numpy()) <= 2.0)


def test_the_finite_difference_checker_catches_wrong_gradients():
    @rt.custom_gradient
    def wrong_sin(x):
        return rt.sin(x), lambda dy: dy * rt.sin(x)  # should be cos

    with pytest.raises(AssertionError, match="first-order"):
        check_gradients(lambda x: wrong_sin(x), [np.array([0.3, 0.6])])

    # A VJP with the right values whose computation the tapes cannot see (NumPy): first
    # order passes, second order must not.
    @rt.custom_gradient
    def opaque_sin(x):
        return rt.sin(x), lambda dy: dy * rt.constant(np.cos(x.numpy()), dtype=x.dtype)

    check_gradients(lambda x: opaque_sin(x), [np.array([0.3, 0.6])], second_order=False)
    with pytest.raises(AssertionError, match="second-order"):
        check_gradients(lambda x: opaque_sin(x), [np.array([0.3, 0.6])])


# -- the table over every op ---------------------------------------------------------------------
# Every op in the binding table (every function of `rt`, `rt.math`, `rt.nn`, ...) must have an
# entry: a gradient case (`CASES`: first and second order against finite differences, float64)
# or, for an op with no gradient, a forward case (`FORWARD`: values against NumPy). The tables
# are this file's and those of every tests/python/cases_*.py (each engineer adds theirs). Which
# ops an entry covers is traced: the public functions its function calls.

_HERE = _os.path.dirname(_os.path.abspath(__file__))

# Functions of the table that are not ops, each with why it needs no entry.
NOT_OPS = {
    "random.set_seed": "state, not a value (seeded results: test_random_is_seeded)",
    "random.get_global_generator": "state, not a value (test_random_stateless)",
    "random.set_global_generator": "state, not a value (test_random_stateless)",
    "rt.as_dtype": "names a dtype (test_api_contract)",
    "config.get_log_level": "a setting, not a value (test_interop)",
    "config.set_log_level": "a setting, not a value (test_interop)",
    "config.get_nonscalar_target_warning": "a setting, not a value (test_interop)",
    "config.set_nonscalar_target_warning": "a setting, not a value (test_interop)",
    "config.get_num_threads": "a setting, not a value (test_interop)",
    "config.set_num_threads": "a setting, not a value (test_interop)",
    "config.functions_run_eagerly": "a setting, not a value (test_config_devices)",
    "config.get_soft_device_placement": "a setting, not a value (test_config_devices)",
    "config.get_visible_devices": "a setting, not a value (test_config_devices)",
    "config.list_logical_devices": "a setting, not a value (test_config_devices)",
    "config.list_physical_devices": "a setting, not a value (test_config_devices)",
    "config.run_functions_eagerly": "a setting, not a value (test_config_devices)",
    "config.set_soft_device_placement": "a setting, not a value (test_config_devices)",
    "config.set_visible_devices": "a setting, not a value (test_config_devices)",
    "experimental.dlpack.from_dlpack": "memory sharing, not math (test_interop)",
    "experimental.dlpack.to_dlpack": "memory sharing, not math (test_interop)",
}


def _case_tables():
    """(file, CASES, FORWARD) of this file and of every cases_*.py."""
    tables = [("test_op_gradients", CASES, FORWARD)]
    for path in sorted(_glob.glob(_os.path.join(_HERE, "cases_*.py"))):
        module = _importlib.import_module(_os.path.basename(path)[:-3])
        tables.append(
            (module.__name__, getattr(module, "CASES", {}), getattr(module, "FORWARD", {}))
        )
    return tables


def _ops():
    """id -> (function, its names `namespace.name`) for every callable of the binding table."""
    found = {}
    for namespace, names in _binding_table().items():
        for name, obj in names.items():
            if callable(obj) and not isinstance(obj, type):
                found.setdefault(id(obj), (obj, set()))[1].add(f"{namespace}.{name}")
    return found


def _modules():
    mods = {}
    for namespace in _binding_table():
        mods[namespace] = (
            rt if namespace == "rt" else _importlib.import_module(f"rustape.{namespace}")
        )
    return mods


def _traced(fn, inputs, ops):
    """The ids of the table's functions that `fn(*inputs)` calls directly."""
    called = set()
    patched = []
    for module in _modules().values():
        for name, obj in list(vars(module).items()):
            if id(obj) in ops:

                def spy(*args, __obj=obj, **kwargs):
                    called.add(id(__obj))
                    return __obj(*args, **kwargs)

                patched.append((module, name, obj))
                setattr(module, name, spy)
    try:
        if id(fn) in ops:
            called.add(id(fn))
        try:
            fn(*[f64(x) if isinstance(x, np.ndarray) else x for x in inputs])
        except Exception:  # noqa: BLE001, S110 - only the calls matter; the case's own test reports errors
            pass
    finally:
        for module, name, obj in patched:
            setattr(module, name, obj)
    return called


def test_every_op_in_the_binding_table_has_an_entry():
    ops = _ops()
    covered = set()
    for _, cases, forward in _case_tables():
        for entry in list(cases.values()) + list(forward.values()):
            covered |= _traced(entry[0], entry[1], ops)
    missing = sorted(
        min(names)
        for key, (_, names) in ops.items()
        if key not in covered and not names & set(NOT_OPS)
    )
    assert not missing, (
        f"{len(missing)} ops of the binding table have no entry (a CASES gradient case, or a "
        f"FORWARD case against NumPy for an op with no gradient) in test_op_gradients.py or a "
        f"tests/python/cases_*.py: {missing}"
    )


def _run_elsewhere(module: str) -> bool:
    """Whether a test file already runs `module`'s CASES (it imports from it)."""
    return any(
        f"from {module} import" in open(path).read()
        for path in _glob.glob(_os.path.join(_HERE, "test_*.py"))
    )


_ALL_CASES = [
    (f, name)
    for f, cases, _ in _case_tables()[1:]
    if not _run_elsewhere(f)
    for name in sorted(cases)
]
_ALL_FORWARD = [(f, name) for f, _, forward in _case_tables() for name in sorted(forward)]


@pytest.mark.parametrize("file, name", _ALL_CASES)
def test_case_files_gradients(file, name):
    f, inputs = dict(_case_tables_by_file())[file][0][name][:2]
    check_gradients(f, inputs, second_order=True)


@pytest.mark.parametrize("file, name", _ALL_FORWARD)
def test_forward_matches_numpy(file, name):
    entry = dict(_case_tables_by_file())[file][1][name]
    f, inputs, reference = entry[:3]
    tolerances = {"rtol": 1e-6, "atol": 1e-12, **(entry[3] if len(entry) > 3 else {})}
    got = f(*[rt.constant(x) if isinstance(x, np.ndarray) else x for x in inputs])
    want = np.asarray(reference(*inputs))
    got_np = np.asarray(got.numpy() if hasattr(got, "numpy") else got)
    assert got_np.shape == want.shape, f"{name}: shape {got_np.shape}, NumPy {want.shape}"
    if want.dtype.kind in "biuOS":  # O, S: string tensors (object arrays, bytes)
        assert got_np.dtype.kind == want.dtype.kind, (
            f"{name}: dtype {got_np.dtype}, NumPy {want.dtype}"
        )
        np.testing.assert_array_equal(got_np, want, err_msg=name)
    else:
        np.testing.assert_allclose(got_np, want, equal_nan=True, err_msg=name, **tolerances)


def _case_tables_by_file():
    return [(file, (cases, forward)) for file, cases, forward in _case_tables()]
