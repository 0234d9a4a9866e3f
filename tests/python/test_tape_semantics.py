"""The tape semantics of TensorFlow 2.21 that a ported program relies on, against what TF
itself did (tests/reference/gen_tape_semantics.py -> tape_semantics.json): variables as
targets, watched_variables after a gradient and after reset, identity-like ops making new
tensors, pruning of what no source reaches, batch_jacobian's rank checks, Keras-style
containers, and the messages. Where rustape deliberately differs, the test says so.
"""

from __future__ import annotations

import json
import pathlib
import warnings
from typing import Any

import numpy as np
import pytest
import rustape as rt

REF = json.loads(
    (pathlib.Path(__file__).parents[1] / "reference" / "tape_semantics.json").read_text()
)


def as_json(x: Any) -> Any:
    """A result in the generator's form: None, numbers, nested lists."""
    if x is None:
        return None
    if isinstance(x, (list, tuple)):
        return [as_json(v) for v in x]
    if isinstance(x, dict):
        return {k: as_json(v) for k, v in x.items()}
    return np.asarray(x).tolist()


def outcome(f: Any) -> dict[str, Any]:
    try:
        return {"value": as_json(f())}
    except Exception as e:  # noqa: BLE001 - the type is what is compared
        return {"error": type(e).__name__, "message": str(e)}


def assert_outcome(name: str, got: dict[str, Any]) -> None:
    want = REF[name]
    if "error" in want:
        assert got.get("error") == want["error"], (name, got, want)
    else:
        assert "value" in got, (name, got)
        np.testing.assert_equal(got["value"], want["value"], err_msg=name)


# -- variables as targets ----------------------------------------------------------------------


def test_a_variable_is_a_target_as_in_tensorflow() -> None:
    v = rt.Variable(2.0)
    w = rt.Variable(3.0)
    m = rt.Variable([[1.0, 2.0], [3.0, 4.0]])

    with rt.GradientTape() as tape:
        pass
    assert_outcome("gradient_v_v_empty_tape", outcome(lambda: tape.gradient(v, v)))

    with rt.GradientTape() as tape:
        _ = v * 2.0
    assert_outcome("gradient_v_v_w", outcome(lambda: tape.gradient(v, [v, w])))

    with rt.GradientTape() as tape:
        _ = m * 2.0
    assert_outcome("gradient_matrix_variable_itself", outcome(lambda: tape.gradient(m, m)))

    vs = [rt.Variable(1.0), rt.Variable(5.0), rt.Variable(3.0)]
    with rt.GradientTape() as tape:
        f = max(vs)
    assert_outcome("gradient_python_max_of_variables", outcome(lambda: tape.gradient(f, vs)))

    with rt.GradientTape() as tape:
        _ = v + w
    assert_outcome("gradient_unrelated_variables", outcome(lambda: tape.gradient(w, v)))
    with rt.GradientTape() as tape:
        _ = v + w
    assert_outcome(
        "gradient_unrelated_variables_zero",
        outcome(lambda: tape.gradient(w, v, unconnected_gradients=rt.UnconnectedGradients.ZERO)),
    )

    with rt.GradientTape(watch_accessed_variables=False) as tape:
        _ = v * 2.0
    assert_outcome("gradient_v_v_not_watched", outcome(lambda: tape.gradient(v, v)))

    with rt.GradientTape() as tape:
        pass
    assert_outcome(
        "gradient_v_v_output_gradients",
        outcome(lambda: tape.gradient(v, v, output_gradients=rt.constant(5.0))),
    )

    with rt.GradientTape(persistent=True) as tape:
        y = v * 3.0
    assert_outcome("gradient_v_and_y_of_v", outcome(lambda: tape.gradient([v, y], v)))
    assert_outcome(
        "gradient_dict_target_variable", outcome(lambda: tape.gradient({"a": v, "b": y}, [v, w]))
    )
    assert_outcome("jacobian_variable_itself", outcome(lambda: tape.jacobian(m, m)))


def test_a_variable_target_gradient_is_a_fresh_tensor() -> None:
    v = rt.Variable([1.0, 2.0])
    with rt.GradientTape() as tape:
        pass
    g = tape.gradient(v, v)
    assert isinstance(g, rt.Tensor) and g.dtype == rt.float32
    np.testing.assert_array_equal(g.numpy(), [1.0, 1.0])
    v.assign([5.0, 6.0])
    np.testing.assert_array_equal(g.numpy(), [1.0, 1.0])


# -- watched_variables ---------------------------------------------------------------------------


def test_watched_variables_after_a_gradient_and_after_reset() -> None:
    a = rt.Variable(1.0, name="a")
    b = rt.Variable(2.0, name="b")
    c = rt.Variable(3.0, name="c", trainable=False)

    def names(vs: Any) -> list[str]:
        return [x.name for x in vs]

    with rt.GradientTape() as tape:
        y = b * a + c
    assert names(tape.watched_variables()) == REF["watched_before_gradient"]
    tape.gradient(y, [a, b])
    assert names(tape.watched_variables()) == REF["watched_after_gradient"]

    with rt.GradientTape(persistent=True) as tape:
        y = a * b
        tape.reset()
        assert names(tape.watched_variables()) == REF["watched_after_reset"]
        z = b * 2.0
    assert names(tape.watched_variables()) == REF["watched_after_reset_and_reads"]
    assert_outcome("gradient_after_reset", outcome(lambda: tape.gradient(z, [a, b])))
    assert_outcome("gradient_before_reset_target", outcome(lambda: tape.gradient(y, [a, b])))

    with rt.GradientTape() as tape:
        y = a * a
    tape.gradient(y, a)
    assert_outcome("second_gradient_nonpersistent", outcome(lambda: tape.gradient(y, a)))

    p, q, r = rt.Variable(1.0, name="p"), rt.Variable(2.0, name="q"), rt.Variable(3.0, name="r")
    with rt.GradientTape() as tape:
        _ = r * q
        _ = p + r
        _ = q * 2.0
    assert names(tape.watched_variables()) == REF["watched_order_reads"]
    with rt.GradientTape(watch_accessed_variables=False) as tape:
        tape.watch([q, p])
        _ = r * 2.0
    assert names(tape.watched_variables()) == REF["watched_order_watch_calls"]


# -- identity-like ops make new tensors ------------------------------------------------------------

MAKERS = {
    "ellipsis": lambda x: x[...],
    "identity": rt.identity,
    "plus_zero": lambda x: x + 0,
    "times_one": lambda x: x * 1,
}


@pytest.mark.parametrize("name", sorted(MAKERS))
def test_identity_like_ops_make_new_tensors(name: str) -> None:
    make = MAKERS[name]
    x0 = rt.constant([1.0, 2.0, 3.0])
    with rt.GradientTape(persistent=True) as tape:
        x = rt.identity(x0)
        tape.watch(x)
        y = make(x)
        tape.watch(y)
        z = y * y + 3.0 * x
    assert (y is x) == REF[f"identity_like_{name}_is"]
    assert_outcome(f"identity_like_{name}", outcome(lambda: tape.gradient(z, [x, y])))


def test_slicing_everything_is_a_new_differentiable_tensor() -> None:
    x = rt.constant([[1.0, 2.0], [3.0, 4.0]])
    with rt.GradientTape() as tape:
        tape.watch(x)
        y = x[:]
        z = rt.reduce_sum(y * y)
    assert y is not x
    np.testing.assert_array_equal(tape.gradient(z, x).numpy(), 2 * x.numpy())


# -- nothing runs for a node no source reaches -----------------------------------------------------


def _counting_cube() -> tuple[Any, dict[str, int]]:
    calls = {"n": 0}

    @rt.custom_gradient
    def cube(x: Any) -> Any:
        def grad(dy: Any) -> Any:
            calls["n"] += 1
            return dy * 3.0 * x * x

        return x * x * x, grad

    return cube, calls


def test_a_custom_gradient_behind_stop_gradient_never_runs() -> None:
    cube, calls = _counting_cube()
    x = rt.constant(2.0)
    with rt.GradientTape() as tape:
        tape.watch(x)
        y = cube(rt.stop_gradient(x)) + x * x
    g = tape.gradient(y, x)
    want = REF["custom_gradient_behind_stop_gradient"]
    assert calls["n"] == want["calls"] == 0
    assert float(g) == want["gradient"]


def test_a_custom_gradient_off_the_path_to_the_sources_never_runs() -> None:
    # TensorFlow runs this backward function (its gradient is not used); rustape prunes every
    # node that no source reaches, custom or not.
    cube, calls = _counting_cube()
    x = rt.constant(2.0)
    other = rt.constant(5.0)
    with rt.GradientTape() as tape:
        tape.watch([x, other])
        y = cube(other) + x
    g = tape.gradient(y, x)
    want = REF["custom_gradient_not_on_path_to_source"]
    assert want["calls"] == 1 and calls["n"] == 0
    assert float(g) == want["gradient"]

    cube, calls = _counting_cube()
    with rt.GradientTape() as tape:
        tape.watch(x)
        y = cube(x)
    g = tape.gradient(y, x)
    want = REF["custom_gradient_connected"]
    assert calls["n"] == want["calls"] and float(g) == want["gradient"]


def test_ops_behind_stop_gradient_are_not_differentiated() -> None:
    # A second-order check: the gradient of what stop_gradient cuts is None, not zeros.
    x = rt.constant([1.0, 2.0])
    with rt.GradientTape(persistent=True) as tape:
        tape.watch(x)
        cut = rt.sin(rt.stop_gradient(x)) * 3.0
        y = rt.reduce_sum(cut)
    assert tape.gradient(y, x) is None
    assert tape.gradient(y, cut) is not None
    with pytest.raises(ValueError, match="stop_gradient"):
        tape.gradient(y, x, unconnected_gradients="raise")


# -- batch_jacobian's checks -----------------------------------------------------------------------


def test_batch_jacobian_checks_ranks_like_tensorflow() -> None:
    x = rt.constant(np.arange(6.0, dtype=np.float32).reshape(3, 2))
    v = rt.constant([1.0, 2.0, 3.0])
    with rt.GradientTape(persistent=True) as tape:
        tape.watch([x, v])
        rank1 = rt.reduce_sum(x * x, axis=1)
        rows = x * x
        of_v = v * v
    unrelated = rt.constant([1.0, 2.0, 3.0])
    for name, target, source in [
        ("batch_jacobian_rank1_target", rank1, x),
        ("batch_jacobian_rank1_unconnected_target", unrelated, x),
        ("batch_jacobian_rank1_source", rows, v),
        ("batch_jacobian_rank1_both", of_v, v),
        ("batch_jacobian_first_dims_differ", rt.reduce_sum(rows, axis=0, keepdims=True), x),
        ("batch_jacobian_rows", rows, x),
    ]:
        got = outcome(lambda: tape.batch_jacobian(target, source))  # noqa: B023
        assert_outcome(name, got)
        if "error" in got and "rank" in REF[name]["message"]:
            assert "rank at least 2" in got["message"], got


# -- Keras-style containers ------------------------------------------------------------------------


class Block(rt.keras.layers.Layer):
    def __init__(self) -> None:
        super().__init__()
        layers = rt.keras.layers
        self.first = layers.Dense(3)
        self.stack = [layers.Dense(4), layers.Dense(2)]
        self.by_name = {"head": layers.Dense(1)}
        self.pair = (layers.Dense(2),)
        self.nested = [{"deep": [layers.Dense(2)]}]
        self.norm = layers.BatchNormalization()

    def call(self, x: Any, training: Any = None) -> Any:
        h = self.first(x)
        for layer in self.stack:
            h = layer(h)
        h = self.pair[0](h)
        h = self.nested[0]["deep"][0](h)
        h = self.norm(h, training=training)
        return self.by_name["head"](h)


def test_a_layer_reports_the_weights_of_the_layers_it_holds() -> None:
    block = Block()
    out = block(rt.ones([2, 5]), training=True)
    assert list(out.shape) == REF["container_output_shape"]
    for attr in (
        "weights",
        "trainable_weights",
        "non_trainable_weights",
        "variables",
        "trainable_variables",
    ):
        assert [list(w.shape) for w in getattr(block, attr)] == REF[f"container_{attr}"], attr
    # Training it trains every held layer: each trainable weight gets a gradient.
    with rt.GradientTape() as tape:
        loss = rt.reduce_sum(block(rt.ones([2, 5]), training=True) ** 2)
    grads = tape.gradient(loss, block.trainable_weights)
    assert all(g is not None for g in grads)
    block.trainable = False
    assert block.trainable_weights == [] and len(block.non_trainable_weights) == len(block.weights)


def test_a_module_reports_the_weights_of_the_layers_it_holds() -> None:
    # TensorFlow 2.21's tf.Module does not see Keras 3 layers' variables (its lists are empty:
    # a model built that way silently trains nothing); rustape's Module reports them.
    class Holder(rt.Module):
        def __init__(self) -> None:
            super().__init__()
            self.layers = [rt.keras.layers.Dense(2), {"x": rt.keras.layers.Dense(3)}]

    holder = Holder()
    x = rt.ones([2, 5])
    holder.layers[0](x)
    holder.layers[1]["x"](x)
    assert REF["module_of_layers_variables"] == []
    assert sorted(list(v.shape) for v in holder.variables) == [[2], [3], [5, 2], [5, 3]]
    assert len(holder.trainable_variables) == 4


def test_dense_with_input_shape_builds_at_construction() -> None:
    # Keras 3 keeps `input_shape` for Sequential and builds on the first call
    # (REF["dense_input_shape_built"] is False); rustape builds at once, so the weights exist
    # before any call (and a call then gives the same shapes).
    assert REF["dense_input_shape_built"] is False
    dense = rt.keras.layers.Dense(4, input_shape=(3,))
    assert dense.built
    assert [list(w.shape) for w in dense.weights] == [[3, 4], [4]]
    assert dense(rt.ones([2, 3])).shape == (2, 4)
    assert rt.keras.layers.Dense(2, input_dim=5).kernel.shape == (5, 2)
    with pytest.raises(TypeError):
        rt.keras.layers.Dense(2, no_such_argument=1)


def test_add_weight_without_a_name_and_add_loss() -> None:
    class WithWeight(rt.keras.layers.Layer):
        def build(self, input_shape: Any) -> None:
            self.scale = self.add_weight(shape=(input_shape[-1],), initializer="ones")

        def call(self, x: Any) -> Any:
            self.add_loss(rt.reduce_sum(x) * 0.5)
            return x * self.scale

    ww = WithWeight()
    y = ww(rt.constant([[1.0, 2.0]]))
    want = REF["add_weight_without_name"]
    np.testing.assert_array_equal(y.numpy(), want["value"])
    assert [list(w.shape) for w in ww.weights] == want["weights"]
    assert [float(v) for v in ww.losses] == want["losses"]
    ww(rt.constant([[3.0, 4.0]]))
    assert [float(v) for v in ww.losses] == REF["losses_after_second_call"]

    class Outer(rt.keras.layers.Layer):
        def __init__(self) -> None:
            super().__init__()
            self.inner = WithWeight()

        def call(self, x: Any) -> Any:
            self.add_loss(rt.constant(1.0))
            return self.inner(x)

    outer = Outer()
    outer(rt.constant([[1.0, 2.0]]))
    assert [float(v) for v in outer.losses] == [1.0, 1.5]


def test_call_passes_training_through() -> None:
    class Mode(rt.keras.layers.Layer):
        def call(self, x: Any, training: Any = None) -> Any:
            return x * (2.0 if training else 1.0)

    mode = Mode()
    one = rt.constant([1.0])
    want = REF["call_training_passed"]
    assert mode(one, training=True).numpy().tolist() == want["true"]
    assert mode(one, training=False).numpy().tolist() == want["false"]
    assert mode(one).numpy().tolist() == want["default"]

    class Outer(rt.keras.layers.Layer):
        def __init__(self) -> None:
            super().__init__()
            self.mode = Mode()

        def call(self, x: Any) -> Any:  # no training argument: the inner layer gets the mode
            return self.mode(x)

    assert Outer()(one, training=True).numpy().tolist() == [2.0]
    assert Outer()(one).numpy().tolist() == [1.0]


# -- messages --------------------------------------------------------------------------------------


def test_messages_name_rustape_not_tensorflow() -> None:
    (want,) = REF["watch_integer_logged"]
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        with rt.GradientTape() as tape:
            tape.watch(rt.constant(1))
    messages = [str(w.message) for w in caught]
    assert messages == [want.replace("tf.", "rt.")]
