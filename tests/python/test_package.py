"""The package surface: names at the top level and in the submodules, as TensorFlow has them,
plus the TF names the seed examples use (rt.keras, rt.Module, rt.function, rt.saved_model)."""

import subprocess
import sys

import numpy as np
import pytest
import rustape as rt

TOP_LEVEL = [
    "constant",
    "convert_to_tensor",
    "cast",
    "stop_gradient",
    "Tensor",
    "Variable",
    "GradientTape",
    "UnconnectedGradients",
    "custom_gradient",
    "float32",
    "float64",
    "int32",
    "int64",
    "bool",
    "add",
    "subtract",
    "multiply",
    "divide",
    "pow",
    "negative",
    "abs",
    "sign",
    "sqrt",
    "square",
    "exp",
    "sin",
    "cos",
    "tan",
    "tanh",
    "sigmoid",
    "maximum",
    "minimum",
    "where",
    "clip_by_value",
    "round",
    "floor",
    "equal",
    "not_equal",
    "less",
    "less_equal",
    "greater",
    "greater_equal",
    "logical_and",
    "logical_or",
    "logical_not",
    "reduce_sum",
    "reduce_mean",
    "reduce_max",
    "reduce_min",
    "reduce_prod",
    "reduce_logsumexp",
    "argmax",
    "argmin",
    "norm",
    "clip_by_norm",
    "reshape",
    "transpose",
    "expand_dims",
    "squeeze",
    "concat",
    "stack",
    "unstack",
    "pad",
    "tile",
    "broadcast_to",
    "gather",
    "one_hot",
    "matmul",
    "einsum",
    "eye",
    "zeros",
    "ones",
    "zeros_like",
    "ones_like",
    "fill",
    "linspace",
    "range",
    "identity",
    "add_n",
    "math",
    "nn",
    "linalg",
    "random",
    "layers",
    "keras",
    "test",
    "nest",
    "Module",
    "function",
    "TensorSpec",
    "saved_model",
]

SUBMODULES = {
    "math": "add subtract multiply divide pow negative abs sign sqrt square exp log log1p sin cos tan tanh sigmoid softplus maximum minimum round floor floordiv floormod equal not_equal less less_equal greater greater_equal logical_and logical_or logical_not reduce_sum reduce_mean reduce_max reduce_min reduce_prod reduce_logsumexp argmax argmin softmax log_softmax",
    "nn": "relu elu sigmoid tanh softplus softmax log_softmax moments batch_normalization leaky_relu l2_loss",
    "linalg": "matmul matvec einsum eye solve inv norm",
    "random": "normal uniform set_seed truncated_normal",
    "layers": "Dense BatchNormalization",
}


@pytest.mark.parametrize("name", TOP_LEVEL)
def test_top_level_name(name):
    assert hasattr(rt, name), f"rt.{name} is missing"


@pytest.mark.parametrize(
    "module, name", [(m, n) for m, names in SUBMODULES.items() for n in names.split()]
)
def test_submodule_name(module, name):
    assert hasattr(getattr(rt, module), name), f"rt.{module}.{name} is missing"


def test_all_and_version():
    assert isinstance(rt.__version__, str) and rt.__version__
    for name in rt.__all__:
        assert hasattr(rt, name), name
    assert "GradientTape" in rt.__all__


def test_module_variables_and_function():
    class Model(rt.Module):
        def __init__(self):
            super().__init__()
            self.dense = rt.layers.Dense(2)
            self.scale = rt.Variable(2.0)
            self.frozen = rt.Variable(1.0, trainable=False)

        @rt.function
        def __call__(self, x):
            return self.dense(x) * self.scale

    m = Model()
    assert m.name == "model"
    y = m(rt.ones([1, 3]))
    assert y.shape == (1, 2)
    assert len(m.variables) == 4
    assert len(m.trainable_variables) == 3
    with rt.GradientTape() as tape:
        loss = rt.reduce_sum(m(rt.ones([1, 3])))
    grads = tape.gradient(loss, m.trainable_variables)
    assert all(g is not None for g in grads)


class Holder(rt.Module):
    def __init__(self):
        super().__init__()
        self.v = rt.Variable([1.0, 2.0], name="v")
        self.c = rt.constant([3.0], dtype=rt.float64)


def test_saved_model_round_trip(tmp_path):
    rt.saved_model.save(Holder(), str(tmp_path / "m"))
    loaded = rt.saved_model.load(str(tmp_path / "m"))
    np.testing.assert_array_equal(loaded.v.numpy(), [1.0, 2.0])
    assert loaded.v.name == "v:0" and loaded.v.trainable
    assert loaded.c.dtype == rt.float64
    with pytest.raises(OSError):
        rt.saved_model.load(str(tmp_path / "missing"))


def test_tensor_spec():
    spec = rt.TensorSpec(None)
    assert spec.dtype == rt.float32 and spec.shape is None
    assert rt.TensorSpec([None, 2]).is_compatible_with(rt.ones([5, 2]))
    assert not rt.TensorSpec([None, 2]).is_compatible_with(rt.ones([5, 3]))


def test_demo_runs():
    out = subprocess.run(
        [sys.executable, "-m", "rustape.demo"],
        check=False,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert out.returncode == 0, out.stderr
    assert "MISMATCH" not in out.stdout, out.stdout
    assert "108" in out.stdout
