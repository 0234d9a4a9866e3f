"""What TensorFlow 2.21 does for the tape semantics rustape must match (issue 10): variables
as targets, watched_variables after a gradient and after reset, identity-like ops, pruning of
disconnected custom gradients, batch_jacobian's rank checks, Keras-style containers, and the
messages of its warnings.

Run with TensorFlow's own venv: `python tests/reference/gen_tape_semantics.py`; writes
`tape_semantics.json` beside itself. Each case records values (nested lists, None where TF
returns None), exception type names, or message texts.
"""

from __future__ import annotations

import json
import os
import warnings
from typing import Any

import numpy as np
import tensorflow as tf

HERE = os.path.dirname(os.path.abspath(__file__))
OUT: dict[str, Any] = {}


def value(t: Any) -> Any:
    """A TF result as JSON: None, a number or nested lists."""
    if t is None:
        return None
    if isinstance(t, (list, tuple)):
        return [value(x) for x in t]
    if isinstance(t, dict):
        return {k: value(v) for k, v in t.items()}
    return np.asarray(t).tolist()


def outcome(f: Any) -> Any:
    """`{"value": ...}` or `{"error": type name, "message": text}`."""
    try:
        return {"value": value(f())}
    except Exception as e:  # noqa: BLE001 - the type is what is recorded
        return {"error": type(e).__name__, "message": str(e)}


# -- variables as targets ----------------------------------------------------------------------


def variables_as_targets() -> None:
    v = tf.Variable(2.0)
    w = tf.Variable(3.0)
    m = tf.Variable([[1.0, 2.0], [3.0, 4.0]])

    with tf.GradientTape() as tape:
        pass
    OUT["gradient_v_v_empty_tape"] = outcome(lambda: tape.gradient(v, v))

    with tf.GradientTape() as tape:
        _ = v * 2.0
    OUT["gradient_v_v_w"] = outcome(lambda: tape.gradient(v, [v, w]))

    with tf.GradientTape() as tape:
        _ = m * 2.0
    OUT["gradient_matrix_variable_itself"] = outcome(lambda: tape.gradient(m, m))

    vs = [tf.Variable(1.0), tf.Variable(5.0), tf.Variable(3.0)]
    with tf.GradientTape() as tape:
        f = max(vs)
    OUT["gradient_python_max_of_variables"] = outcome(lambda: tape.gradient(f, vs))

    with tf.GradientTape() as tape:
        _ = v + w
    OUT["gradient_unrelated_variables"] = outcome(lambda: tape.gradient(w, v))
    with tf.GradientTape() as tape:
        _ = v + w
    OUT["gradient_unrelated_variables_zero"] = outcome(
        lambda: tape.gradient(w, v, unconnected_gradients=tf.UnconnectedGradients.ZERO)
    )

    with tf.GradientTape(watch_accessed_variables=False) as tape:
        _ = v * 2.0
    OUT["gradient_v_v_not_watched"] = outcome(lambda: tape.gradient(v, v))

    with tf.GradientTape() as tape:
        pass
    OUT["gradient_v_v_output_gradients"] = outcome(
        lambda: tape.gradient(v, v, output_gradients=tf.constant(5.0))
    )

    with tf.GradientTape(persistent=True) as tape:
        y = v * 3.0
    OUT["gradient_v_and_y_of_v"] = outcome(lambda: tape.gradient([v, y], v))
    OUT["gradient_dict_target_variable"] = outcome(lambda: tape.gradient({"a": v, "b": y}, [v, w]))
    OUT["jacobian_variable_itself"] = outcome(lambda: tape.jacobian(m, m))


# -- watched_variables ---------------------------------------------------------------------------


def watched_variables() -> None:
    a = tf.Variable(1.0, name="a")
    b = tf.Variable(2.0, name="b")
    c = tf.Variable(3.0, name="c", trainable=False)

    def names(vs: Any) -> list[str]:
        return [x.name for x in vs]

    with tf.GradientTape() as tape:
        y = b * a + c
    OUT["watched_before_gradient"] = names(tape.watched_variables())
    tape.gradient(y, [a, b])
    OUT["watched_after_gradient"] = names(tape.watched_variables())

    with tf.GradientTape(persistent=True) as tape:
        y = a * b
        tape.reset()
        OUT["watched_after_reset"] = names(tape.watched_variables())
        z = b * 2.0
    OUT["watched_after_reset_and_reads"] = names(tape.watched_variables())
    OUT["gradient_after_reset"] = outcome(lambda: tape.gradient(z, [a, b]))
    OUT["gradient_before_reset_target"] = outcome(lambda: tape.gradient(y, [a, b]))

    with tf.GradientTape() as tape:
        y = a * a
    tape.gradient(y, a)
    OUT["second_gradient_nonpersistent"] = outcome(lambda: tape.gradient(y, a))

    # The order: TensorFlow's tape keeps watched variables in a set ordered by id (creation).
    p, q, r = tf.Variable(1.0, name="p"), tf.Variable(2.0, name="q"), tf.Variable(3.0, name="r")
    with tf.GradientTape() as tape:
        _ = r * q
        _ = p + r
        _ = q * 2.0
    OUT["watched_order_reads"] = names(tape.watched_variables())
    with tf.GradientTape(watch_accessed_variables=False) as tape:
        tape.watch([q, p])
        _ = r * 2.0
    OUT["watched_order_watch_calls"] = names(tape.watched_variables())


# -- identity-like ops make new tensors ------------------------------------------------------------


def identity_like() -> None:
    x0 = tf.constant([1.0, 2.0, 3.0])
    makers = {
        "ellipsis": lambda x: x[...],
        "identity": tf.identity,
        "plus_zero": lambda x: x + 0,
        "times_one": lambda x: x * 1,
    }
    for name, make in makers.items():
        with tf.GradientTape(persistent=True) as tape:
            x = tf.identity(x0)
            tape.watch(x)
            y = make(x)
            tape.watch(y)
            z = y * y + 3.0 * x
        OUT[f"identity_like_{name}"] = outcome(lambda: tape.gradient(z, [x, y]))  # noqa: B023
        OUT[f"identity_like_{name}_is"] = y is x


# -- nothing runs for a node no source reaches -----------------------------------------------------


def pruning() -> None:
    calls = {"n": 0}

    @tf.custom_gradient
    def cube(x: Any) -> Any:
        def grad(dy: Any) -> Any:
            calls["n"] += 1
            return dy * 3.0 * x * x

        return x * x * x, grad

    x = tf.constant(2.0)
    with tf.GradientTape() as tape:
        tape.watch(x)
        cut = cube(tf.stop_gradient(x))
        y = cut + x * x
    g = tape.gradient(y, x)
    OUT["custom_gradient_behind_stop_gradient"] = {"calls": calls["n"], "gradient": value(g)}

    calls["n"] = 0
    other = tf.constant(5.0)
    with tf.GradientTape() as tape:
        tape.watch([x, other])
        y = cube(other) + x
    g = tape.gradient(y, x)
    OUT["custom_gradient_not_on_path_to_source"] = {"calls": calls["n"], "gradient": value(g)}

    calls["n"] = 0
    with tf.GradientTape() as tape:
        tape.watch(x)
        y = cube(x)
    g = tape.gradient(y, x)
    OUT["custom_gradient_connected"] = {"calls": calls["n"], "gradient": value(g)}


# -- batch_jacobian's checks -----------------------------------------------------------------------


def batch_jacobian_checks() -> None:
    x = tf.constant(np.arange(6.0, dtype=np.float32).reshape(3, 2))
    v = tf.constant([1.0, 2.0, 3.0])
    with tf.GradientTape(persistent=True) as tape:
        tape.watch([x, v])
        rank1 = tf.reduce_sum(x * x, axis=1)
        rows = x * x
        of_v = v * v
    unrelated = tf.constant([1.0, 2.0, 3.0])
    OUT["batch_jacobian_rank1_target"] = outcome(lambda: tape.batch_jacobian(rank1, x))
    OUT["batch_jacobian_rank1_unconnected_target"] = outcome(
        lambda: tape.batch_jacobian(unrelated, x)
    )
    OUT["batch_jacobian_rank1_source"] = outcome(lambda: tape.batch_jacobian(rows, v))
    OUT["batch_jacobian_rank1_both"] = outcome(lambda: tape.batch_jacobian(of_v, v))
    OUT["batch_jacobian_first_dims_differ"] = outcome(
        lambda: tape.batch_jacobian(tf.reduce_sum(rows, axis=0, keepdims=True), x)
    )
    OUT["batch_jacobian_rows"] = outcome(lambda: tape.batch_jacobian(rows, x))


# -- Keras-style containers ------------------------------------------------------------------------


def containers() -> None:
    keras = tf.keras
    layers = keras.layers

    class Block(layers.Layer):
        def __init__(self) -> None:
            super().__init__()
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

    block = Block()
    x = tf.constant(np.ones((2, 5), np.float32))
    out = block(x, training=True)
    OUT["container_output_shape"] = list(out.shape)
    for attr in (
        "weights",
        "trainable_weights",
        "non_trainable_weights",
        "variables",
        "trainable_variables",
    ):
        OUT[f"container_{attr}"] = [list(w.shape) for w in getattr(block, attr)]

    class Holder(tf.Module):
        def __init__(self) -> None:
            super().__init__()
            self.layers = [layers.Dense(2), {"x": layers.Dense(3)}]

    holder = Holder()
    holder.layers[0](x)
    holder.layers[1]["x"](x)
    OUT["module_of_layers_variables"] = sorted(list(v.shape) for v in holder.variables)
    OUT["module_of_layers_trainable_variables"] = sorted(
        list(v.shape) for v in holder.trainable_variables
    )

    dense = layers.Dense(4, input_shape=(3,))
    OUT["dense_input_shape_built"] = bool(dense.built)
    OUT["dense_input_shape_weights"] = [list(w.shape) for w in dense.weights]

    class WithWeight(layers.Layer):
        def build(self, input_shape: Any) -> None:
            self.scale = self.add_weight(shape=(input_shape[-1],), initializer="ones")

        def call(self, x: Any) -> Any:
            self.add_loss(tf.reduce_sum(x) * 0.5)
            return x * self.scale

    ww = WithWeight()
    y = ww(tf.constant([[1.0, 2.0]]))
    OUT["add_weight_without_name"] = {
        "value": value(y),
        "weights": [list(w.shape) for w in ww.weights],
        "losses": [float(l) for l in ww.losses],
    }
    ww(tf.constant([[3.0, 4.0]]))
    OUT["losses_after_second_call"] = [float(l) for l in ww.losses]

    class Mode(layers.Layer):
        def call(self, x: Any, training: Any = None) -> Any:
            return x * (2.0 if training else 1.0)

    mode = Mode()
    one = tf.constant([1.0])
    OUT["call_training_passed"] = {
        "true": value(mode(one, training=True)),
        "false": value(mode(one, training=False)),
        "default": value(mode(one)),
    }


# -- messages ----------------------------------------------------------------------------------------


def messages() -> None:
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        with tf.GradientTape() as tape:
            tape.watch(tf.constant(1))
    OUT["watch_integer_warning"] = [str(w.message) for w in caught]
    import logging

    records: list[str] = []

    class Keep(logging.Handler):
        def emit(self, record: logging.LogRecord) -> None:
            records.append(record.getMessage())

    handler = Keep()
    tf.get_logger().addHandler(handler)
    try:
        with tf.GradientTape() as tape:
            tape.watch(tf.constant(1))
    finally:
        tf.get_logger().removeHandler(handler)
    OUT["watch_integer_logged"] = records


def main() -> None:
    variables_as_targets()
    watched_variables()
    identity_like()
    pruning()
    batch_jacobian_checks()
    containers()
    messages()
    OUT["tensorflow_version"] = tf.__version__
    with open(os.path.join(HERE, "tape_semantics.json"), "w") as f:
        json.dump(OUT, f, indent=1, sort_keys=True)
        f.write("\n")


if __name__ == "__main__":
    main()
