"""Hostile arguments to the Keras-style API (optimizers, schedules, layers, losses, metrics,
Model.fit / evaluate / predict) and empty batches of matrices in rt.linalg: every one is a
value or a ValueError / TypeError naming the class (or method) and the argument, never an
OverflowError, a NaN that trains silently, a hang, or memory sized by what a parameter allows.

Where Keras 3 accepts a value (NaN or infinite hyperparameters, which train every weight to
NaN), rustape is stricter and says why; where Keras refuses one, rustape refuses it too.
"""

from __future__ import annotations

import math
import os
import subprocess
import sys
import textwrap
from typing import Any

import numpy as np
import pytest
import rustape as rt

O = rt.keras.optimizers
S = O.schedules
L = rt.keras.layers

# Numbers no hyperparameter may be: too large for a float, NaN, infinite, beyond float32.
NON_FINITE = [10**400, float("nan"), float("inf"), -float("inf"), 1e300]
# Things that are not numbers at all.
NOT_NUMBERS = ["x", [1.0], object()]

OPTIMIZER_ARGUMENTS = {
    "SGD": ["learning_rate", "momentum"],
    "Adam": ["learning_rate", "beta_1", "beta_2", "epsilon"],
    "AdamW": ["learning_rate", "weight_decay", "beta_1", "beta_2", "epsilon"],
    "RMSprop": ["learning_rate", "rho", "momentum", "epsilon"],
    "Adagrad": ["learning_rate", "initial_accumulator_value", "epsilon"],
    "Adadelta": ["learning_rate", "rho", "epsilon"],
    "Nadam": ["learning_rate", "beta_1", "beta_2", "epsilon"],
    "Adamax": ["learning_rate", "beta_1", "beta_2", "epsilon"],
    "Lion": ["learning_rate", "beta_1", "beta_2"],
}
SHARED_OPTIONS = ["clipnorm", "clipvalue", "global_clipnorm", "weight_decay"]


def _raises_naming(error: type, words: list[str], make: Any, *args: Any, **kwargs: Any) -> None:
    with pytest.raises(error) as info:
        make(*args, **kwargs)
    text = str(info.value)
    for word in words:
        assert word in text, f"{word!r} not in the message {text!r}"


@pytest.mark.parametrize(
    ("name", "argument"),
    [(n, a) for n, args in OPTIMIZER_ARGUMENTS.items() for a in args + SHARED_OPTIONS],
)
def test_optimizer_refuses_non_finite_and_non_numbers(name: str, argument: str) -> None:
    cls = getattr(O, name)
    for value in NON_FINITE:
        _raises_naming(ValueError, [argument], cls, **{argument: value})
    for value in NOT_NUMBERS:
        with pytest.raises((ValueError, TypeError)) as info:
            cls(**{argument: value})
        assert argument in str(info.value)


@pytest.mark.parametrize("name", sorted(OPTIMIZER_ARGUMENTS))
def test_optimizer_names_itself(name: str) -> None:
    cls = getattr(O, name)
    for argument in OPTIMIZER_ARGUMENTS[name] + SHARED_OPTIONS:
        _raises_naming(ValueError, [name, argument], cls, **{argument: float("nan")})


def test_optimizer_values_keras_accepts_still_work() -> None:
    # Keras takes a negative rate (ascent), clipnorm <= 0 (no clipping) and ints for floats.
    w = rt.Variable([1.0])
    O.SGD(learning_rate=-1.0).apply_gradients([(rt.constant([1.0]), w)])
    assert w.numpy().tolist() == [2.0]
    O.Adam(learning_rate=1, clipnorm=-1).apply_gradients([(rt.constant([1.0]), w)])
    assert np.isfinite(w.numpy()).all()


def test_learning_rate_setter_and_callable_rates_are_checked() -> None:
    opt = O.SGD(0.1)
    with pytest.raises(ValueError, match="learning_rate"):
        opt.learning_rate = 10**400
    with pytest.raises(ValueError, match="learning_rate"):
        opt.learning_rate = float("nan")
    assert math.isclose(float(opt.learning_rate), 0.1, rel_tol=1e-6)
    w = rt.Variable([1.0])
    bad = O.SGD(learning_rate=lambda: float("inf"))
    with pytest.raises(ValueError, match="learning_rate"):
        bad.apply_gradients([(rt.constant([1.0]), w)])
    assert w.numpy().tolist() == [1.0]


def test_iterations_at_int64_max_is_a_value_error_and_changes_nothing() -> None:
    w = rt.Variable([1.0, 2.0])
    opt = O.Adam(0.1)
    opt.build([w])
    opt.iterations.assign(2**63 - 1)
    with pytest.raises(ValueError, match="iterations"):
        opt.apply_gradients([(rt.constant([1.0, 1.0]), w)])
    assert w.numpy().tolist() == [1.0, 2.0]
    assert int(opt.iterations.numpy()) == 2**63 - 1


SCHEDULES = {
    "ExponentialDecay": (
        lambda **k: S.ExponentialDecay(
            **{"initial_learning_rate": 0.1, "decay_steps": 10, "decay_rate": 0.5, **k}
        ),
        ["initial_learning_rate", "decay_steps", "decay_rate"],
    ),
    "InverseTimeDecay": (
        lambda **k: S.InverseTimeDecay(
            **{"initial_learning_rate": 0.1, "decay_steps": 10, "decay_rate": 0.5, **k}
        ),
        ["initial_learning_rate", "decay_steps", "decay_rate"],
    ),
    "PolynomialDecay": (
        lambda **k: S.PolynomialDecay(**{"initial_learning_rate": 0.1, "decay_steps": 10, **k}),
        ["initial_learning_rate", "decay_steps", "end_learning_rate", "power"],
    ),
    "CosineDecay": (
        lambda **k: S.CosineDecay(
            **{"initial_learning_rate": 0.1, "decay_steps": 10, "warmup_target": 0.2, **k}
        ),
        ["initial_learning_rate", "decay_steps", "alpha", "warmup_target", "warmup_steps"],
    ),
}


@pytest.mark.parametrize("name", sorted(SCHEDULES))
def test_schedules_refuse_non_finite_arguments(name: str) -> None:
    make, arguments = SCHEDULES[name]
    for argument in arguments:
        for value in NON_FINITE:
            _raises_naming(ValueError, [argument], make, **{argument: value})
        with pytest.raises((ValueError, TypeError), match=argument):
            make(**{argument: "x"})
    # Keras's own rule: decay_steps > 0.
    for steps in (0, -1, -0.5):
        _raises_naming(ValueError, ["decay_steps"], make, decay_steps=steps)
    assert np.isfinite(float(make()(3)))


def test_schedule_steps_and_piecewise_arguments() -> None:
    s = S.ExponentialDecay(0.1, 10, 0.5)
    for step in (2**70, -(2**70)):
        _raises_naming(ValueError, ["ExponentialDecay", "step"], s, step)
    with pytest.raises(ValueError, match="step"):
        s(1.5)
    with pytest.raises(TypeError, match="step"):
        s("x")
    assert math.isclose(float(s(rt.constant(10))), 0.05, rel_tol=1e-6)
    with pytest.raises(ValueError, match="step"):
        S.PiecewiseConstantDecay([2**70], [1.0, 0.5])
    with pytest.raises(ValueError, match="values"):
        S.PiecewiseConstantDecay([5], [float("nan"), 0.5])
    with pytest.raises(ValueError, match="values"):
        S.PiecewiseConstantDecay([5], [1e400, 0.5])


# (layer, argument, sane keyword arguments) for the layers' numeric constructor arguments.
LAYER_ARGUMENTS: list[tuple[str, str, dict[str, Any]]] = [
    ("Dense", "units", {"units": 2}),
    ("Dropout", "rate", {"rate": 0.5}),
    ("Dropout", "seed", {"rate": 0.5}),
    ("Embedding", "input_dim", {"input_dim": 4, "output_dim": 2}),
    ("Embedding", "output_dim", {"input_dim": 4, "output_dim": 2}),
    ("Conv1D", "filters", {"filters": 2, "kernel_size": 1}),
    ("Conv1D", "kernel_size", {"filters": 2, "kernel_size": 1}),
    ("Conv1D", "strides", {"filters": 2, "kernel_size": 1}),
    ("Conv1D", "dilation_rate", {"filters": 2, "kernel_size": 1}),
    ("Conv2D", "kernel_size", {"filters": 2, "kernel_size": 1}),
    ("Conv2D", "groups", {"filters": 2, "kernel_size": 1}),
    ("Conv2DTranspose", "strides", {"filters": 2, "kernel_size": 1}),
    ("DepthwiseConv2D", "depth_multiplier", {"kernel_size": 1}),
    ("MaxPooling1D", "pool_size", {}),
    ("MaxPooling2D", "strides", {}),
    ("AveragePooling2D", "pool_size", {"pool_size": 2}),
    ("UpSampling2D", "size", {}),
    ("ZeroPadding2D", "padding", {}),
    ("Reshape", "target_shape", {"target_shape": (2,)}),
    ("BatchNormalization", "momentum", {}),
    ("BatchNormalization", "epsilon", {}),
    ("BatchNormalization", "axis", {}),
    ("LayerNormalization", "epsilon", {}),
    ("LeakyReLU", "negative_slope", {}),
    ("ReLU", "max_value", {}),
    ("ReLU", "negative_slope", {}),
    ("ReLU", "threshold", {}),
    ("ELU", "alpha", {}),
    ("UpSampling1D", "size", {}),
    ("ZeroPadding1D", "padding", {}),
    ("Cropping1D", "cropping", {}),
    ("Cropping2D", "cropping", {}),
    ("RepeatVector", "n", {"n": 2}),
    ("Concatenate", "axis", {}),
    ("SimpleRNN", "units", {"units": 2}),
    ("LSTM", "dropout", {"units": 2}),
    ("GRU", "recurrent_dropout", {"units": 2}),
]
# Hostile for every numeric argument; integers beyond int64 and fractions for integer ones.
HOSTILE = [10**400, float("nan"), float("inf"), "x", object()]
HOSTILE_INTEGERS = [2**70, -(2**70), 1.5]
FLOAT_ARGUMENTS = {
    "rate",
    "momentum",
    "epsilon",
    "negative_slope",
    "dropout",
    "recurrent_dropout",
    "max_value",
    "threshold",
    "alpha",
}


@pytest.mark.parametrize(("layer", "argument", "sane"), LAYER_ARGUMENTS)
def test_layer_constructors_refuse_hostile_numbers(
    layer: str, argument: str, sane: dict[str, Any]
) -> None:
    cls = getattr(L, layer)
    cls(**sane)
    hostile = HOSTILE + ([] if argument in FLOAT_ARGUMENTS else HOSTILE_INTEGERS)
    for value in hostile:
        if argument in ("target_shape",):
            value = (value,)
        with pytest.raises((ValueError, TypeError)) as info:
            cls(**{**sane, argument: value})
        assert argument in str(info.value), str(info.value)


@pytest.mark.parametrize(
    ("make", "argument"),
    [
        (lambda: L.Dense(0), "units"),
        (lambda: L.Dense(-1), "units"),
        (lambda: L.Dense(1.5), "units"),
        (lambda: L.Dropout(1.5), "rate"),
        (lambda: L.Dropout(-0.1), "rate"),
        (lambda: L.Conv2D(2, 0), "kernel_size"),
        (lambda: L.Conv2D(2, 1, strides=0), "strides"),
        (lambda: L.Conv1D(2, (1, 1)), "kernel_size"),
        (lambda: L.Conv2D(2, 2**31), "kernel_size"),
        (lambda: L.MaxPooling2D(0), "pool_size"),
        (lambda: L.MaxPooling2D(2, strides=-1), "strides"),
        (lambda: L.ZeroPadding2D(-1), "padding"),
        (lambda: L.ZeroPadding2D(((1, 2), (3, 2**40))), "padding"),
        (lambda: L.Reshape((-2,)), "target_shape"),
        (lambda: L.LeakyReLU(-1.0), "negative_slope"),
        (lambda: L.LayerNormalization(epsilon=-1.0), "epsilon"),
        (lambda: L.Embedding(0, 2), "input_dim"),
        (lambda: L.ReLU(max_value=-1.0), "max_value"),
        (lambda: L.ReLU(threshold=-0.5), "threshold"),
        (lambda: L.Permute((1, 1)), "dims"),
        (lambda: L.Cropping1D(-1), "cropping"),
        (lambda: L.Cropping2D((1, 2, 3)), "cropping"),
        (lambda: L.Cropping1D(2)(np.ones((2, 4, 3), np.float32)), "cropping"),
        (lambda: L.RepeatVector(2)(np.ones((2, 4, 3), np.float32)), "rank 2"),
        (lambda: L.Permute((2, 1))(np.ones((2, 4), np.float32)), "rank 3"),
        (lambda: L.PReLU(shared_axes=[3])(np.ones((2, 4), np.float32)), "shared axis 3"),
        (lambda: L.Softmax()(np.ones((2, 4), np.float32), mask=np.ones((3, 4))), "mask"),
    ],
)
def test_layer_constructors_refuse_out_of_range(make: Any, argument: str) -> None:
    with pytest.raises(ValueError) as info:
        make()
    assert argument in str(info.value), str(info.value)


def test_layer_arguments_keras_takes_still_work() -> None:
    assert L.Dense(2.0).units == 2  # a whole float, as Keras's int(units)
    assert L.Conv2D(2, [1, 2], strides=(1, 1)).kernel_size == (1, 2)
    assert L.ZeroPadding2D((1, 2)).padding == ((1, 1), (2, 2))
    assert L.ZeroPadding2D(((1, 2), (3, 4))).padding == ((1, 2), (3, 4))
    assert L.LSTM(2, dropout=1.5).dropout == 1.0  # Keras clips rates into [0, 1]
    assert L.Dropout(np.float32(0.25)).rate == 0.25
    y = L.Dropout(0.5, noise_shape=(None, 1), seed=3)(np.ones([4, 3], "float32"), training=True)
    assert y.shape == (4, 3)


def _model() -> Any:
    model = rt.keras.Sequential([rt.keras.Input(shape=(2,)), L.Dense(1)])
    model.compile(optimizer=O.SGD(0.01), loss="mse")
    return model


@pytest.mark.parametrize(
    ("call", "argument"),
    [
        (lambda m, x, y: m.fit(x, y, batch_size=0), "batch_size"),
        (lambda m, x, y: m.fit(x, y, batch_size=2**70), "batch_size"),
        (lambda m, x, y: m.fit(x, y, batch_size=1.5), "batch_size"),
        (lambda m, x, y: m.fit(x, y, epochs=-1), "epochs"),
        (lambda m, x, y: m.fit(x, y, epochs=2**70), "epochs"),
        (lambda m, x, y: m.fit(x, y, validation_split=1.0), "validation_split"),
        (lambda m, x, y: m.fit(x, y, validation_split=float("nan")), "validation_split"),
        (lambda m, x, y: m.fit(x, y[:3]), "samples"),
        (lambda m, x, y: m.evaluate(x, y, batch_size=-1), "batch_size"),
        (lambda m, x, y: m.evaluate(x[:2], y), "samples"),
        (lambda m, x, y: m.predict(x, batch_size=0), "batch_size"),
        (lambda m, x, y: m.predict(np.float32(1.0)), "batch axis"),
    ],
)
def test_model_methods_refuse_hostile_arguments(call: Any, argument: str) -> None:
    x = np.ones([4, 2], "float32")
    y = np.ones([4, 1], "float32")
    with pytest.raises(ValueError) as info:
        call(_model(), x, y)
    assert argument in str(info.value), str(info.value)


def test_fit_validation_split_and_empty_inputs() -> None:
    rt.random.set_seed(0)
    model = _model()
    x = np.arange(16, dtype="float32").reshape(8, 2) / 8
    y = x.sum(1, keepdims=True)
    history = model.fit(x, y, epochs=2, batch_size=None, validation_split=0.25)
    assert sorted(history.history) == ["loss", "val_loss"]
    assert len(history.history["loss"]) == 2
    expected = model.evaluate(x[6:], y[6:])
    assert math.isclose(history.history["val_loss"][-1], expected, rel_tol=1e-5)
    # An empty batch predicts an empty array of the output's shape.
    assert model.predict(np.zeros([0, 2], "float32")).shape == (0, 1)


LINALG_EMPTY = """
import time
import rustape as rt
x = rt.zeros([2**31, 0, 0])
start = time.process_time()
with rt.GradientTape(persistent=True) as tape:
    tape.watch(x)
    outs = {
        "svd": rt.linalg.svd(x, compute_uv=True),
        "svd_full": rt.linalg.svd(rt.zeros([2**31, 0, 0]), full_matrices=True, compute_uv=True),
        "qr": rt.linalg.qr(x),
        "eigh": rt.linalg.eigh(x),
        "cholesky": rt.linalg.cholesky(x),
        "expm": rt.linalg.expm(x),
    }
for name, value in outs.items():
    shapes = [tuple(v.shape) for v in (value if isinstance(value, (tuple, list)) else [value])]
    print(name, shapes)
g = tape.gradient(
    [rt.reduce_sum(v) for v in outs["svd"]], x, unconnected_gradients=rt.UnconnectedGradients.ZERO
)
print("svd_gradient", tuple(g.shape))
for name in ("det", "slogdet", "logdet"):
    try:
        getattr(rt.linalg, name)(x)
        print(name, "value")
    except MemoryError as e:
        print(name, "MemoryError")
n = 2**31
more = {
    "diag_part": rt.linalg.diag_part(x),
    "matrix_diag": rt.linalg.diag(rt.zeros([n, 0])),
    "solve_k0": rt.linalg.solve(rt.eye(2, batch_shape=[1]), rt.zeros([n, 2, 0])),
    "triangular_k0": rt.linalg.triangular_solve(rt.eye(2, batch_shape=[1]), rt.zeros([n, 2, 0])),
}
for name, value in more.items():
    print(name, [tuple(value.shape)])
try:
    # Operands of 4 MiB broadcasting to a 4 TiB result: refused before any allocation.
    rt.linalg.triangular_solve(rt.ones([2**20, 1, 1]), rt.ones([1, 1, 2**20]))
except MemoryError as e:
    print("triangular_broadcast", "MemoryError", "triangular_solve" in str(e))
print("cpu", time.process_time() - start)
"""


@pytest.mark.skipif(sys.platform == "win32", reason="the memory cap needs resource.setrlimit")
def test_linalg_of_a_huge_batch_of_empty_matrices_asks_for_no_memory() -> None:
    # 2^31 empty matrices hold nothing: the factorisations return empty results at once, with
    # no memory per matrix (under a 3 GiB cap, which a result per matrix would exceed 5-fold;
    # without the cap the kernel would grant it and kill the process for touching it). det
    # and slogdet have one value per matrix (8 GiB): a MemoryError naming the op. The same
    # for the diagonal ops and the solvers (no loop or index per empty matrix), and a
    # broadcast triangular solve whose result is far larger than its operands (an abort).
    cap = 3 << 30

    def limit() -> None:
        import resource

        resource.setrlimit(resource.RLIMIT_AS, (cap, cap))

    proc = subprocess.run(
        [sys.executable, "-c", textwrap.dedent(LINALG_EMPTY)],
        capture_output=True,
        text=True,
        timeout=120,
        preexec_fn=limit,
        check=False,
        env={**os.environ, "RAYON_NUM_THREADS": "1"},
    )
    assert proc.returncode == 0, proc.stderr[-3000:]
    lines = dict(line.split(" ", 1) for line in proc.stdout.splitlines())
    n = 2**31
    assert lines["svd"] == str([(n, 0), (n, 0, 0), (n, 0, 0)])
    assert lines["qr"] == str([(n, 0, 0), (n, 0, 0)])
    assert lines["eigh"] == str([(n, 0), (n, 0, 0)])
    assert lines["cholesky"] == str([(n, 0, 0)])
    assert lines["expm"] == str([(n, 0, 0)])
    assert lines["svd_gradient"] == str((n, 0, 0))
    for name in ("det", "slogdet", "logdet"):
        assert lines[name] == "MemoryError"
    assert lines["diag_part"] == str([(n, 0)])
    assert lines["matrix_diag"] == str([(n, 0, 0)])
    assert lines["solve_k0"] == str([(n, 2, 0)])
    assert lines["triangular_k0"] == str([(n, 2, 0)])
    assert lines["triangular_broadcast"] == "MemoryError True"
    assert float(lines["cpu"]) < 5.0


def test_linalg_of_empty_matrices_keeps_its_values() -> None:
    # The direct results are what the kernels gave: identities where a full factor exists.
    s, u, v = rt.linalg.svd(rt.zeros([2, 0, 3]), full_matrices=True, compute_uv=True)
    assert s.shape == (2, 0) and u.shape == (2, 0, 0)
    np.testing.assert_array_equal(v.numpy(), np.broadcast_to(np.eye(3), (2, 3, 3)))
    s, u, v = rt.linalg.svd(rt.zeros([2, 3, 0], dtype=rt.float64), compute_uv=True)
    assert (s.shape, u.shape, v.shape) == ((2, 0), (2, 3, 0), (2, 0, 0))
    assert u.dtype == rt.float64
    q, r = rt.linalg.qr(rt.zeros([2, 3, 0]), full_matrices=True)
    np.testing.assert_array_equal(q.numpy(), np.broadcast_to(np.eye(3), (2, 3, 3)))
    assert r.shape == (2, 3, 0)
    q, r = rt.linalg.qr(rt.zeros([2, 3, 0]))
    assert (q.shape, r.shape) == ((2, 3, 0), (2, 0, 0))
    assert rt.linalg.det(rt.zeros([3, 0, 0])).numpy().tolist() == [1.0, 1.0, 1.0]
    sign, log = rt.linalg.slogdet(rt.zeros([3, 0, 0], dtype=rt.float64))
    assert sign.numpy().tolist() == [1.0] * 3 and log.numpy().tolist() == [0.0] * 3
    assert rt.linalg.det(rt.zeros([2, 0, 0], dtype=rt.complex64)).numpy().tolist() == [1, 1]
    x = rt.zeros([4, 0, 0])
    with rt.GradientTape() as tape:
        tape.watch(x)
        y = rt.reduce_sum(rt.linalg.det(x)) + rt.reduce_sum(rt.linalg.expm(x))
    assert tape.gradient(y, x).shape == (4, 0, 0)


def test_empty_numpy_arrays_with_any_strides_convert() -> None:
    # NumPy gives `np.array([]).reshape(0, 4)` strides (16, 4), which ndarray's views refuse:
    # that was an internal error in every op (and every layer) given an empty batch.
    for array in (
        np.array([], dtype="int32").reshape(0, 4),
        np.array([], dtype="float64").reshape(2, 0, 3),
        np.zeros((3, 4), "float32")[:0, ::-1],
    ):
        t = rt.convert_to_tensor(array)
        assert t.shape == array.shape and t.dtype.name == array.dtype.name
    assert L.Embedding(5, 2)(np.array([], dtype="int32").reshape(0, 4)).shape == (0, 4, 2)


@pytest.mark.parametrize("make", [L.BatchNormalization, L.LayerNormalization])
def test_normalization_refuses_inputs_of_another_size_than_it_was_built_for(make: Any) -> None:
    # A size of 1 broadcast against parameters of size 3 returned 3 columns, silently.
    layer = make()
    layer(np.ones([2, 3], "float32"))
    with pytest.raises(ValueError, match=r"built for size \(3,\)"):
        layer(np.ones([2, 1], "float32"))
    assert layer(np.ones([5, 3], "float32")).shape == (5, 3)


@pytest.mark.parametrize(
    ("make", "argument"),
    [
        (lambda: rt.keras.losses.Huber(delta=10**400), "delta"),
        (lambda: rt.keras.losses.Huber(delta=float("nan")), "delta"),
        (lambda: rt.keras.losses.huber([0.0], [1.0], delta=10**400), "delta"),
        (lambda: rt.keras.losses.CategoricalCrossentropy(label_smoothing=1.5), "label_smoothing"),
        (
            lambda: rt.keras.losses.BinaryCrossentropy(label_smoothing=float("nan")),
            "label_smoothing",
        ),
        (
            lambda: rt.keras.losses.binary_crossentropy([1.0], [0.5], label_smoothing=10**400),
            "label_smoothing",
        ),
        (lambda: rt.keras.losses.BinaryCrossentropy(axis=2**70), "axis"),
        (lambda: rt.keras.losses.SparseCategoricalCrossentropy(ignore_class=1.5), "ignore_class"),
        (lambda: rt.keras.metrics.AUC(num_thresholds=2**40), "num_thresholds"),
        (lambda: rt.keras.metrics.AUC(num_thresholds=1), "num_thresholds"),
        (lambda: rt.keras.metrics.AUC(thresholds=[0.5, float("nan")]), "thresholds"),
        (lambda: rt.keras.metrics.AUC(multi_label=True, num_labels=2**70), "num_labels"),
        (lambda: rt.keras.metrics.TopKCategoricalAccuracy(k=2**70), "k"),
        (lambda: rt.keras.metrics.TopKCategoricalAccuracy(k=0), "k"),
        (lambda: rt.keras.metrics.BinaryAccuracy(threshold=10**400), "threshold"),
    ],
)
def test_loss_and_metric_arguments_are_checked(make: Any, argument: str) -> None:
    with pytest.raises((ValueError, TypeError)) as info:
        make()
    assert argument in str(info.value), str(info.value)


def test_exclude_from_weight_decay_names_must_be_regular_expressions() -> None:
    opt = O.AdamW(0.1)
    with pytest.raises(ValueError, match="regular expression"):
        opt.exclude_from_weight_decay(var_names=["("])
    with pytest.raises(TypeError, match="var_names"):
        opt.exclude_from_weight_decay(var_names=[3])
    opt.exclude_from_weight_decay(var_names=["bias"])


INITIALIZER_ARGUMENTS = [
    (rt.keras.initializers.RandomNormal, "mean"),
    (rt.keras.initializers.RandomNormal, "stddev"),
    (rt.keras.initializers.TruncatedNormal, "stddev"),
    (rt.keras.initializers.RandomUniform, "minval"),
    (rt.keras.initializers.RandomUniform, "maxval"),
    (rt.keras.initializers.VarianceScaling, "scale"),
    (rt.keras.initializers.Identity, "gain"),
]


@pytest.mark.parametrize(("make", "argument"), INITIALIZER_ARGUMENTS)
def test_initializer_arguments_are_checked(make: Any, argument: str) -> None:
    for bad in (math.nan, math.inf, 10**400, 1e300):
        with pytest.raises(ValueError, match=f"{make.__name__}.*`{argument}`"):
            make(**{argument: bad})
    with pytest.raises(TypeError, match=f"`{argument}`"):
        make(**{argument: "0.5"})
    # A sane value still draws finite weights of the asked shape.
    weights = make(**{argument: 0.5})((3, 3)).numpy()
    assert weights.shape == (3, 3) and np.isfinite(weights).all()


def test_initializer_seeds_are_checked() -> None:
    with pytest.raises(ValueError, match="RandomNormal.*`seed`"):
        rt.keras.initializers.RandomNormal(seed=2**80)
    with pytest.raises(ValueError, match="`stddev`"):
        rt.keras.initializers.RandomNormal(stddev=-1.0)
    a = rt.keras.initializers.GlorotUniform(seed=7)((4, 2)).numpy()
    b = rt.keras.initializers.GlorotUniform(seed=7)((4, 2)).numpy()
    np.testing.assert_array_equal(a, b)
