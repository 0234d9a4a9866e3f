"""A random-model fuzzer for rustape's Keras layer: layers, models, training and weights.

Each case builds a random stack of layers (dense, convolutional, pooling, recurrent,
normalisation, reshaping, merging through a functional model) with constructor arguments that
are usually sensible and sometimes hostile (zero, negative, huge and non-integer sizes, NaN and
infinite rates, wrong types), then does random things with it: calls it on random inputs
(shapes with zero and odd dimensions, every dtype, NaN and infinities, empty batches) under
tapes and takes gradients; compiles it with a random optimizer (hostile hyperparameters
included) and loss; fits it with random batch sizes, epochs and validation splits; evaluates
and predicts; saves its weights and loads them back (and into a different model).

Every outcome must be a value or a documented exception (ValueError, TypeError, IndexError,
RuntimeError other than "internal error", MemoryError); anything else fails, as do values that
are silently wrong: a gradient whose shape or dtype is not its variable's, `predict` differing
from calling the model, a history whose length is not the number of epochs run, weights that
do not survive a save and a load. Cases run in batches, each in a subprocess with a memory cap
and a timeout (the machinery of fuzz_ops.py); a failure prints the seed and the case.

    python tests/fuzz/fuzz_models.py --seconds 600           # a long local run
    python tests/fuzz/fuzz_models.py --seed 3 --case 17      # replay one case, verbosely

CI runs a fixed number of cases (tests/python/test_fuzz.py).
"""

from __future__ import annotations

import math
import os
import random
import sys
import tempfile
from typing import Any, Callable

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import fuzz_ops  # the shared subprocess machinery, beside this file
from fuzz_ops import attempt, check

CASES_PER_BATCH = 100

# Hostile values for any constructor argument.
HOSTILE = [
    0,
    -1,
    -3,
    2**31,
    2**62,
    2**70,
    -(2**70),
    1.5,
    1e400,
    -1e400,
    float("nan"),
    "x",
    None,
    True,
    (),
    (0, 0),
    (2**62, 1),
    [1, -1],
]


class ModelProgram:
    """One random model and what is done with it, from one seeded generator."""

    def __init__(self, rt: Any, np: Any, rng: random.Random) -> None:
        self.rt, self.np, self.rng = rt, np, rng
        self.L = rt.keras.layers
        self.log: list[str] = []

    # -- values ----------------------------------------------------------------------------
    def hostile(self, sane: Any) -> Any:
        """Usually `sane`, sometimes a hostile value."""
        return self.rng.choice(HOSTILE) if self.rng.random() < 0.08 else sane

    def batch(self) -> int:
        return self.rng.choice([0, 1, 2, 3, 4, 5, 7])

    def array(self, shape: list[int], dtype: str | None = None) -> Any:
        np, rng = self.np, self.rng
        dtype = dtype or rng.choice(["float32"] * 6 + ["float64", "int32", "int64", "bool"])
        size = math.prod(shape)
        if dtype == "bool":
            return np.array([rng.random() < 0.5 for _ in range(size)], dtype=bool).reshape(shape)
        if dtype.startswith("int"):
            return np.array([rng.randrange(-1, 6) for _ in range(size)], dtype=dtype).reshape(shape)
        values = [rng.uniform(-2.0, 2.0) for _ in range(size)]
        if size and rng.random() < 0.1:
            values[rng.randrange(size)] = rng.choice([float("nan"), float("inf"), -float("inf")])
        return np.array(values, dtype=dtype).reshape(shape)

    # -- models ----------------------------------------------------------------------------
    def layer(self, rank: int) -> tuple[Any, int]:
        """A random layer for inputs of `rank` (batch axis included), and the rank it returns."""
        L, rng, h = self.L, self.rng, self.hostile
        small = lambda: h(rng.choice([1, 2, 3, 4]))
        act = lambda: h(rng.choice([None, "relu", "tanh", "sigmoid", "softmax", "linear"]))
        choices: list[tuple[str, Callable[[], Any], int]] = [
            ("Dense", lambda: L.Dense(small(), activation=act(), use_bias=h(True)), rank),
            ("Dropout", lambda: L.Dropout(h(rng.choice([0.0, 0.3, 1.0])), seed=h(1)), rank),
            ("Activation", lambda: L.Activation(h(rng.choice(["relu", "tanh", "softmax"]))), rank),
            ("LeakyReLU", lambda: L.LeakyReLU(h(0.2)), rank),
            ("LayerNormalization", lambda: L.LayerNormalization(axis=h(-1), epsilon=h(1e-3)), rank),
            (
                "BatchNormalization",
                lambda: L.BatchNormalization(axis=h(-1), momentum=h(0.9), epsilon=h(1e-3)),
                rank,
            ),
            ("Flatten", lambda: L.Flatten(), 2),
        ]
        if rank == 2:
            choices.append(("Reshape", lambda: L.Reshape(h((-1, 1))), 3))
        if rank == 3:
            k = lambda: h(rng.choice([1, 2, 3]))
            pad = lambda: h(rng.choice(["valid", "same", "causal"]))
            choices += [
                (
                    "Conv1D",
                    lambda: L.Conv1D(small(), k(), strides=k(), padding=pad(), dilation_rate=h(1)),
                    3,
                ),
                ("MaxPooling1D", lambda: L.MaxPooling1D(k(), strides=h(None), padding=pad()), 3),
                ("AveragePooling1D", lambda: L.AveragePooling1D(k(), padding=pad()), 3),
                ("GlobalAveragePooling1D", lambda: L.GlobalAveragePooling1D(), 2),
                ("GlobalMaxPooling1D", lambda: L.GlobalMaxPooling1D(), 2),
                (
                    "SimpleRNN",
                    lambda: L.SimpleRNN(small(), return_sequences=True, dropout=h(0.0)),
                    3,
                ),
                ("LSTM", lambda: L.LSTM(small(), return_sequences=False), 2),
                ("GRU", lambda: L.GRU(small(), return_sequences=True, recurrent_dropout=h(0.0)), 3),
            ]
        if rank == 4:
            k = lambda: h(rng.choice([1, 2, (1, 2)]))
            pad = lambda: h(rng.choice(["valid", "same"]))
            choices += [
                ("Conv2D", lambda: L.Conv2D(small(), k(), strides=k(), padding=pad()), 4),
                (
                    "DepthwiseConv2D",
                    lambda: L.DepthwiseConv2D(k(), depth_multiplier=small(), padding=pad()),
                    4,
                ),
                (
                    "Conv2DTranspose",
                    lambda: L.Conv2DTranspose(small(), k(), strides=k(), padding=pad()),
                    4,
                ),
                ("MaxPooling2D", lambda: L.MaxPooling2D(k(), padding=pad()), 4),
                ("AveragePooling2D", lambda: L.AveragePooling2D(k(), strides=h(None)), 4),
                ("UpSampling2D", lambda: L.UpSampling2D(h(2)), 4),
                ("ZeroPadding2D", lambda: L.ZeroPadding2D(h(rng.choice([1, (1, 0)]))), 4),
                ("GlobalAveragePooling2D", lambda: L.GlobalAveragePooling2D(), 2),
                ("GlobalMaxPooling2D", lambda: L.GlobalMaxPooling2D(keepdims=h(False)), 2),
            ]
        name, make, out_rank = rng.choice(choices)
        self.log.append(f"layer {name}")
        return make(), out_rank

    def model(self) -> tuple[Any, list[int]]:
        """A random model and the shape of one input sample."""
        rt, rng, L = self.rt, self.rng, self.L
        rank = rng.choice([2, 2, 3, 4])
        sample = [rng.choice([1, 2, 3, 4, 5]) for _ in range(rank - 1)]
        if rng.random() < 0.05:
            sample[rng.randrange(len(sample))] = 0
        layers: list[Any] = []
        current = rank
        if rank == 2 and rng.random() < 0.15:
            layers.append(L.Embedding(self.hostile(6), self.hostile(3)))
            self.log.append("layer Embedding")
            current = 3
        for _ in range(rng.randrange(1, 5)):
            layer, current = self.layer(current)
            layers.append(layer)
        if rng.random() < 0.2:
            # A functional model with a merge of two branches of the stack.
            inputs = rt.keras.Input(shape=tuple(sample))
            x = inputs
            for layer in layers:
                x = layer(x)
            branch = L.Dense(int(x.shape[-1]) if x.shape[-1] else 1)(x)
            merge = rng.choice(
                [
                    L.Add,
                    L.Multiply,
                    L.Subtract,
                    L.Average,
                    L.Maximum,
                    L.Minimum,
                    lambda: L.Concatenate(axis=self.hostile(-1)),
                ]
            )
            self.log.append("functional model with a merge")
            return rt.keras.Model(inputs, merge()([x, branch])), sample
        self.log.append(f"sequential model, input sample shape {sample}")
        if rng.random() < 0.5:
            return rt.keras.Sequential([rt.keras.Input(shape=tuple(sample)), *layers]), sample
        return rt.keras.Sequential(layers), sample

    # -- actions ---------------------------------------------------------------------------
    def call_under_tape(self, model: Any, x: Any) -> None:
        rt = self.rt
        training = self.rng.choice([True, False, None])
        persistent = self.rng.random() < 0.3
        self.log.append(f"call under a tape, training={training}, x {x.shape} {x.dtype}")
        with rt.GradientTape(persistent=persistent) as tape:
            y = model(x, training=training)
            loss = rt.reduce_sum(y)
        variables = model.trainable_variables
        grads = tape.gradient(loss, variables)
        for g, v in zip(grads, variables):
            if g is not None:
                check(
                    tuple(g.shape) == tuple(v.shape),
                    f"gradient of shape {g.shape} for variable {v.name} of shape {v.shape}",
                )
                check(
                    g.dtype == v.dtype,
                    f"gradient of dtype {g.dtype} for variable {v.name} of dtype {v.dtype}",
                )
        if persistent and variables and self.rng.random() < 0.3:
            jac = tape.jacobian(y, variables[0])
            # None: the output does not depend on the variable (an empty sequence, say).
            if jac is not None:
                check(
                    tuple(jac.shape) == tuple(y.shape) + tuple(variables[0].shape),
                    f"jacobian of shape {jac.shape} for output {y.shape} and variable "
                    f"{variables[0].shape}",
                )

    def compile(self, model: Any, output_shape: tuple[int, ...]) -> Any:
        rng, h, O = self.rng, self.hostile, self.rt.keras.optimizers
        name = rng.choice(
            ["SGD", "Adam", "AdamW", "RMSprop", "Adagrad", "Adadelta", "Nadam", "Adamax", "Lion"]
        )
        kwargs: dict[str, Any] = {"learning_rate": h(rng.choice([0.01, 0.1]))}
        for key in rng.sample(
            ["clipnorm", "clipvalue", "global_clipnorm", "weight_decay"], rng.choice([0, 0, 1, 2])
        ):
            kwargs[key] = h(rng.choice([0.5, 1.0]))
        if rng.random() < 0.2:
            schedules = O.schedules
            kwargs["learning_rate"] = rng.choice(
                [
                    lambda: schedules.ExponentialDecay(h(0.1), h(10), h(0.5)),
                    lambda: schedules.CosineDecay(h(0.1), h(10), warmup_steps=h(0)),
                    lambda: schedules.PiecewiseConstantDecay([h(1)], [0.1, h(0.01)]),
                ]
            )()
        self.log.append(f"optimizer {name}({kwargs})")
        optimizer = getattr(O, name)(**kwargs)
        loss = rng.choice(
            [
                "mse",
                "mae",
                "huber",
                "categorical_crossentropy",
                "sparse_categorical_crossentropy",
                "binary_crossentropy",
                "log_cosh",
            ]
        )
        metrics = rng.choice([[], ["accuracy"], ["mae"]])
        self.log.append(f"compile loss={loss} metrics={metrics}")
        model.compile(optimizer=optimizer, loss=loss, metrics=metrics)
        return loss

    def targets(self, loss: str, n: int, output_shape: tuple[int, ...]) -> Any:
        np = self.np
        if loss == "sparse_categorical_crossentropy":
            classes = output_shape[-1] if output_shape else 1
            shape = [n, *output_shape[:-1]]
            return np.array(
                [self.rng.randrange(max(classes, 1)) for _ in range(math.prod(shape))],
                dtype="int64",
            ).reshape(shape)
        y = self.array([n, *output_shape], dtype="float32")
        return np.abs(y) if loss in ("binary_crossentropy", "categorical_crossentropy") else y

    def train(self, model: Any, x: Any, output_shape: tuple[int, ...]) -> None:
        rng, h = self.rng, self.hostile
        loss = self.compile(model, output_shape)
        y = self.targets(loss, len(x), output_shape)
        if rng.random() < 0.1:
            y = y[: max(len(y) - 1, 0)]  # a length that does not match x
        epochs = rng.choice([0, 1, 2, 3])
        if rng.random() < 0.08:
            # Hostile, but never a count that is merely large: 2^62 epochs is a long run, not a
            # defect.
            epochs = rng.choice([-1, 2**70, 1.5, float("nan"), "x", None, True])
        batch_size = h(rng.choice([None, 1, 2, 3, 32]))
        kwargs: dict[str, Any] = {
            "epochs": epochs,
            "batch_size": batch_size,
            "shuffle": rng.random() < 0.5,
        }
        if rng.random() < 0.3:
            kwargs["validation_split"] = h(rng.choice([0.0, 0.25, 0.5]))
        elif rng.random() < 0.2:
            kwargs["validation_data"] = (x, y)
        self.log.append(f"fit({x.shape}, {y.shape}, {kwargs})")
        history = model.fit(x, y, **kwargs)
        for key, values in history.history.items():
            check(
                len(values) == epochs,
                f"history[{key!r}] has {len(values)} values after {epochs} epochs",
            )
        if rng.random() < 0.5:
            self.log.append(f"evaluate(batch_size={batch_size})")
            model.evaluate(x, y, batch_size=batch_size)

    def predict(self, model: Any, x: Any) -> None:
        np = self.np
        batch_size = self.hostile(self.rng.choice([None, 1, 2, 32]))
        self.log.append(f"predict({x.shape}, batch_size={batch_size})")
        predicted = model.predict(x, batch_size=batch_size)
        direct = np.asarray(model(x, training=False).numpy())
        check(
            predicted.shape == direct.shape,
            f"predict gives shape {predicted.shape}, calling the model {direct.shape}",
        )
        check(
            bool(np.allclose(predicted, direct, rtol=1e-4, atol=1e-5, equal_nan=True)),
            "predict differs from calling the model",
        )

    def save_and_load(self, model: Any, other: Any) -> None:
        np = self.np
        with tempfile.TemporaryDirectory() as tmp:
            path = os.path.join(tmp, "weights.npz")
            self.log.append("save_weights / load_weights")
            model.save_weights(path)
            before = [np.array(w) for w in model.get_weights()]
            for v in model.variables:
                v.assign(np.zeros(tuple(v.shape), dtype=v.dtype.name))
            model.load_weights(path)
            after = model.get_weights()
            check(len(before) == len(after), "a different number of weights after loading")
            for b, a in zip(before, after):
                check(
                    b.shape == a.shape and bool(np.array_equal(b, a, equal_nan=True)),
                    "weights changed by a save and a load",
                )
            if other is not None and self.rng.random() < 0.5:
                self.log.append("load_weights into another model")
                other.load_weights(path)

    def shapes(self, model: Any, x: Any) -> None:
        """Each layer's `compute_output_shape` against the shape it returns."""
        rt = self.rt
        if not isinstance(model, rt.keras.Sequential):
            return
        self.log.append("compute_output_shape layer by layer")
        y = rt.convert_to_tensor(x)
        for layer in model.layers:
            out = layer(y)
            if hasattr(layer, "compute_output_shape"):
                predicted = tuple(layer.compute_output_shape(tuple(y.shape)))
                actual = tuple(out.shape)
                check(
                    len(predicted) == len(actual)
                    and all(p is None or p == a for p, a in zip(predicted, actual)),
                    f"{type(layer).__name__}.compute_output_shape({tuple(y.shape)}) is "
                    f"{predicted}, its output {actual}",
                )
            y = out

    def saved_model(self, model: Any, x: Any) -> None:
        """A round trip through rt.saved_model computes what the model did."""
        np, rt = self.np, self.rt
        with tempfile.TemporaryDirectory() as tmp:
            path = os.path.join(tmp, "model")
            self.log.append("saved_model.save / load")
            rt.saved_model.save(model, path)
            loaded = rt.saved_model.load(path)
            before = np.asarray(model(x, training=False).numpy())
            after = np.asarray(loaded(x, training=False).numpy())
            check(
                before.shape == after.shape
                and bool(np.allclose(before, after, rtol=1e-6, atol=1e-6, equal_nan=True)),
                "a model loaded by rt.saved_model computes something else",
            )

    def hostile_weights(self, model: Any) -> None:
        """set_weights and load_weights with wrong counts, shapes, dtypes and files."""
        np, rng = self.np, self.rng
        weights = model.get_weights()
        kind = rng.choice(["drop", "extra", "shape", "dtype", "nan", "objects", "file"])
        self.log.append(f"hostile weights: {kind}")
        if kind == "drop":
            model.set_weights(weights[:-1])
        elif kind == "extra":
            model.set_weights([*weights, np.zeros(3)])
        elif kind == "shape" and weights:
            i = rng.randrange(len(weights))
            model.set_weights([*weights[:i], np.zeros((*weights[i].shape, 2)), *weights[i + 1 :]])
        elif kind == "dtype" and weights:
            model.set_weights(
                [w.astype(rng.choice(["int64", "bool", "complex64"])) for w in weights]
            )
        elif kind == "nan" and weights:
            model.set_weights([np.full_like(w, np.nan) for w in weights])
        elif kind == "objects":
            model.set_weights(
                [np.array([object()] * max(w.size, 1), dtype=object) for w in weights]
            )
        elif kind == "file":
            with tempfile.TemporaryDirectory() as tmp:
                path = os.path.join(tmp, "weights.npz")
                arrays = {f"{i:05d}:w": w for i, w in enumerate(weights)}
                if arrays and rng.random() < 0.5:
                    arrays[min(arrays)] = np.array([object()], dtype=object)
                else:
                    arrays["99999:extra"] = np.zeros(2)
                with open(path, "wb") as f:
                    np.savez(f, **arrays)
                model.load_weights(path)

    def another_model(self) -> Any:
        """Half the time a second built model (to load weights that are not its own), else
        None."""
        if self.rng.random() < 0.5:
            return None
        try:
            model, sample = self.model()
            model(self.array([1, *sample], dtype="float32"))
        except (ValueError, TypeError):
            return None
        return model

    def run(self) -> None:
        """The program, with the exceptions it documents allowed (`attempt`)."""
        attempt(self.steps)

    def steps(self) -> None:
        rng, np = self.rng, self.np
        model, sample = self.model()
        n = self.batch()
        x = self.array([n, *sample])
        if rng.random() < 0.1:
            x = self.array([n, *[rng.choice([0, 1, 6]) for _ in sample]])  # another shape
        if any(type(layer).__name__ == "Embedding" for layer in getattr(model, "layers", [])):
            x = np.array(
                [rng.randrange(-1, 7) for _ in range(math.prod([n, *sample]))], dtype="int32"
            ).reshape([n, *sample])
        self.log.append(f"input {x.shape} {x.dtype}")
        output_shape: list[tuple[int, ...]] = []

        def first_call() -> None:
            y = model(x)
            output_shape.append(tuple(int(d) for d in y.shape[1:]))

        attempt(first_call)
        actions = ["tape", "train", "predict", "save", "shapes", "saved_model", "hostile"]
        for action in rng.sample(actions, rng.randrange(1, len(actions) + 1)):
            if action == "tape":
                attempt(lambda: self.call_under_tape(model, x))
            elif action == "train" and output_shape:
                attempt(lambda: self.train(model, x, output_shape[0]))
            elif action == "predict":
                attempt(lambda: self.predict(model, x))
            elif action == "shapes":
                attempt(lambda: self.shapes(model, x))
            elif action == "saved_model" and model.built:
                attempt(lambda: self.saved_model(model, x))
            elif action == "hostile" and model.built:
                attempt(lambda: self.hostile_weights(model))
            elif action == "save" and model.built:
                attempt(lambda: self.save_and_load(model, self.another_model()))


def run_batch(seed: int, count: int, first: int, verbose: bool) -> int:
    """Runs cases `first .. first + count` of `seed` in this process (see fuzz_ops.run_programs)."""
    import warnings

    import numpy as np
    import rustape as rt

    warnings.simplefilter("ignore")

    def start(case: int, rng: random.Random) -> ModelProgram:
        rt.random.set_seed(case)
        return ModelProgram(rt, np, rng)

    return fuzz_ops.run_programs(seed, count, first, verbose, start)


def fuzz(
    seconds: float, seed: int, batch: int = CASES_PER_BATCH, max_cases: int | None = None
) -> dict[str, Any]:
    """Runs batches in capped subprocesses for about `seconds` and at most `max_cases` cases."""
    return fuzz_ops.fuzz(seconds, seed, batch=batch, max_cases=max_cases, script=__file__)


def main() -> int:
    return fuzz_ops.command_line(__doc__, 60.0, run_batch, fuzz)


if __name__ == "__main__":
    sys.exit(main())
