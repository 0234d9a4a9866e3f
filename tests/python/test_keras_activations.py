"""rt.keras.activations against Keras 3 (tests/reference/gen_activations.py): every function
and keyword variant, values and gradients in float32 and float64 (kinks included), `Dense`
layers by activation name, `get` / `serialize` / `deserialize`; gradients also against
float64 central differences away from the kinks."""

from __future__ import annotations

import math
import os
import sys

import numpy as np
import pytest
import rustape as rt

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "reference"))
import gen_activations as gen

REF = np.load(os.path.join(HERE, "..", "reference", "activations.npz"), allow_pickle=False)
A = rt.keras.activations
TOLERANCE = {"float32": {"rtol": 2e-6, "atol": 2e-6}, "float64": {"rtol": 1e-12, "atol": 1e-12}}


def _call(name, x, kwargs):
    return getattr(A, name)(x, **kwargs)


# TensorFlow's float64 GELU is off by up to 7e-6 (relative) in the tails (its float64 erfc
# and tanh); rustape's is exact to 1e-13 (test_gelu_float64_is_exact), so TF's numbers are
# only met to 1e-5 there.
LOOSER = {("gelu", "float64"): {"rtol": 1e-5, "atol": 1e-12}}


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("key", sorted(gen.CASES))
def test_values_and_gradients_match_keras(key, dtype):
    name, kwargs = gen.CASES[key]
    tolerance = LOOSER.get((name, dtype), TOLERANCE[dtype])
    x = rt.Variable(gen.X.astype(dtype))
    with rt.GradientTape() as tape:
        y = _call(name, x, kwargs)
        if name == "linear":
            y = y * 1.0
        w = rt.constant(gen.WEIGHTS[: y.shape[0], : y.shape[1]].astype(dtype))
        total = rt.reduce_sum(y * w)
    assert y.dtype.name == dtype
    np.testing.assert_allclose(y.numpy(), REF[f"{key}/{dtype}/y"], **tolerance)
    np.testing.assert_allclose(
        tape.gradient(total, x).numpy(), REF[f"{key}/{dtype}/grad"], **tolerance
    )


@pytest.mark.parametrize("approximate", [False, True])
def test_gelu_float64_is_exact(approximate):
    x = gen.X.ravel()
    c = math.sqrt(2 / math.pi)
    exact = [
        0.5 * v * (1 + math.tanh(c * (v + 0.044715 * v**3))) if approximate
        else 0.5 * v * math.erfc(-v / math.sqrt(2))
        for v in x
    ]
    got = A.gelu(rt.constant(x), approximate=approximate).numpy()
    np.testing.assert_allclose(got, exact, rtol=1e-12, atol=1e-300)


# Points away from every kink (0, +-0.5, +-1, +-3, +-6 and the thresholds of the variants).
SMOOTH_X = np.array([[-4.3, -2.2, -0.8, -0.3, 0.2, 0.7], [1.3, 2.1, 3.7, 4.4, 5.5, 6.6]])
NO_SECOND = {"relu", "leaky_relu", "relu6", "soft_shrink", "sparse_plus", "hard_tanh",
             "hard_shrink", "threshold", "hard_sigmoid", "sparse_sigmoid", "hard_silu",
             "hard_swish", "sparsemax", "elu", "selu", "celu"}


@pytest.mark.parametrize("key", sorted(gen.CASES))
def test_gradients_match_central_differences(key):
    name, kwargs = gen.CASES[key]
    assert rt.test.gradcheck(
        lambda x: rt.reduce_sum(_call(name, x, kwargs) * gen.WEIGHTS[:2, : 6 if name != "glu" or kwargs else 3]),
        [SMOOTH_X],
        second_order=name not in NO_SECOND,
    )


@pytest.mark.parametrize("name", gen.DENSE_NAMES)
def test_dense_layers_take_every_activation_name(name):
    layer = rt.keras.layers.Dense(6, activation=name)
    layer(gen.DENSE_X)
    layer.kernel.assign(REF[f"dense/{name}/kernel"])
    layer.bias.assign(REF[f"dense/{name}/bias"])
    np.testing.assert_allclose(layer(gen.DENSE_X).numpy(), REF[f"dense/{name}/y"], rtol=2e-6,
                               atol=2e-6)


def test_get_serialize_and_deserialize():
    assert A.get(None) is A.linear
    assert A.get("swish") is A.silu and A.get("hard_swish") is A.hard_silu
    assert A.get(A.gelu) is A.gelu
    assert A.serialize(A.gelu) == "gelu" and A.serialize(A.swish) == "silu"
    assert A.deserialize("mish") is A.mish
    assert A.deserialize(rt.keras.saving.serialize_keras_object(A.selu)) is A.selu
    with pytest.raises(ValueError, match="Could not interpret activation"):
        A.get("no_such_activation")
    with pytest.raises(ValueError, match="Could not interpret activation"):
        A.get(3)


def test_a_model_with_new_activations_saves_and_loads(tmp_path):
    model = rt.keras.Sequential([
        rt.keras.Input((5,)),
        rt.keras.layers.Dense(4, activation="gelu"),
        rt.keras.layers.Dense(3, activation=A.mish),
        rt.keras.layers.Activation("log_softmax"),
    ])
    path = str(tmp_path / "m.keras")
    model.save(path)
    again = rt.keras.models.load_model(path)
    np.testing.assert_array_equal(again(gen.DENSE_X).numpy(), model(gen.DENSE_X).numpy())
