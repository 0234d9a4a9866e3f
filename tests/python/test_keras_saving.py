"""Whole-model files (`Model.save`, `rt.keras.models.load_model`): every kind of model comes
back with the same outputs, a compiled one resumes training exactly (the optimizer's state is
saved), layer configs round-trip, and a file can name only known classes and functions and
holds no pickles."""

from __future__ import annotations

import io
import json
import zipfile
from pathlib import Path
from typing import Any

import numpy as np
import pytest
import rustape as rt

L = rt.keras.layers
RNG = np.random.default_rng(3)


def _same_outputs(model: Any, loaded: Any, x: Any) -> None:
    np.testing.assert_array_equal(np.asarray(loaded(x).numpy()), np.asarray(model(x).numpy()))


def test_compiled_sequential_resumes_training_exactly(tmp_path: Path) -> None:
    x = RNG.normal(size=(16, 5)).astype(np.float32)
    y = x.sum(1, keepdims=True)

    def make() -> Any:
        model = rt.keras.Sequential(
            [
                rt.keras.Input(shape=(5,)),
                L.Dense(8, activation="relu", kernel_regularizer=rt.keras.regularizers.L2(1e-3)),
                L.BatchNormalization(),
                L.Dense(1, kernel_constraint=rt.keras.constraints.MaxNorm(2.0)),
            ]
        )
        model.compile(
            optimizer=rt.keras.optimizers.Adam(
                rt.keras.optimizers.schedules.ExponentialDecay(0.01, 10, 0.9)
            ),
            loss="mse",
            metrics=["mae", rt.keras.metrics.RootMeanSquaredError()],
        )
        return model

    model = make()
    model.fit(x, y, epochs=2, batch_size=4, shuffle=False, verbose=0)
    path = tmp_path / "model.keras"
    model.save(path)
    loaded = rt.keras.models.load_model(path)
    _same_outputs(model, loaded, x)
    assert loaded.optimizer.iterations.numpy() == model.optimizer.iterations.numpy() == 8
    # The same next epochs, bit for bit: weights, Adam's moments and the schedule's step.
    before = model.fit(x, y, epochs=2, batch_size=4, shuffle=False, verbose=0).history
    after = loaded.fit(x, y, epochs=2, batch_size=4, shuffle=False, verbose=0).history
    assert before == after
    for a, b in zip(model.get_weights(), loaded.get_weights()):
        np.testing.assert_array_equal(a, b)
    # Without compile=True the model predicts and has no optimizer state.
    plain = rt.keras.models.load_model(path, compile=False)
    assert not getattr(plain, "compiled", False)


def test_functional_models_with_shared_layers_and_several_inputs(tmp_path: Path) -> None:
    tokens = rt.keras.Input(shape=(6,), dtype="int32", name="tokens")
    extra = rt.keras.Input(shape=(3,), name="extra")
    embedded = L.Embedding(10, 4, mask_zero=True)(tokens)
    encoded = L.Bidirectional(L.LSTM(3, return_sequences=True))(embedded)
    attended = L.MultiHeadAttention(num_heads=2, key_dim=2)(encoded, encoded)
    pooled = L.GlobalAveragePooling1D()(attended)
    shared = L.Dense(3, activation="tanh")
    merged = L.Concatenate()(
        [shared(pooled[:, :3] if False else L.Dense(3)(pooled)), shared(extra)]
    )
    outputs = {
        "score": L.Dense(1, name="score")(merged),
        "probs": L.Dense(2, activation="softmax")(merged),
    }
    model = rt.keras.Model(inputs={"tokens": tokens, "extra": extra}, outputs=outputs)
    path = tmp_path / "functional.keras"
    model.save(path)
    loaded = rt.keras.models.load_model(path)
    x = {
        "tokens": np.array([[1, 2, 3, 0, 0, 0], [4, 5, 6, 7, 8, 9]], np.int32),
        "extra": RNG.normal(size=(2, 3)).astype(np.float32),
    }
    ours, theirs = model(x), loaded(x)
    for key in ("score", "probs"):
        np.testing.assert_array_equal(theirs[key].numpy(), ours[key].numpy())
    assert [w.shape for w in loaded.weights] == [w.shape for w in model.weights]


def test_sequential_without_input_and_nested_models(tmp_path: Path) -> None:
    inner = rt.keras.Sequential(
        [L.Conv2D(4, 3, padding="same", activation="relu"), L.MaxPooling2D()]
    )
    model = rt.keras.Sequential([inner, L.Flatten(), L.Dropout(0.5), L.Dense(2)])
    x = RNG.normal(size=(2, 8, 8, 1)).astype(np.float32)
    model(x)  # built by its first call: the file records that call's shapes
    model.save(tmp_path / "lazy.keras")
    _same_outputs(model, rt.keras.models.load_model(tmp_path / "lazy.keras"), x)


class Scale(rt.keras.layers.Layer):
    """A custom layer with constructor arguments and no get_config of its own."""

    def __init__(self, factor: float, width: int, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.factor, self.width = factor, width

    def build(self, input_shape: Any) -> None:
        self.w = self.add_weight(shape=(input_shape[-1], self.width), initializer="ones")

    def call(self, x: Any) -> Any:
        return self.factor * rt.matmul(x, self.w)


class Net(rt.keras.Model):
    def __init__(self, hidden: int = 4, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.body = L.Dense(hidden, activation=rt.nn.relu)
        self.head = Scale(0.5, 2)

    def call(self, x: Any) -> Any:
        return self.head(self.body(x))


def test_custom_layers_and_subclassed_models(tmp_path: Path) -> None:
    net = Net(hidden=3)
    x = RNG.normal(size=(2, 5)).astype(np.float32)
    net(x)
    path = tmp_path / "net.keras"
    net.save(path)
    with pytest.raises(ValueError, match="unknown class 'Net'.*custom_objects"):
        rt.keras.models.load_model(path)
    loaded = rt.keras.models.load_model(path, custom_objects={"Net": Net, "Scale": Scale})
    _same_outputs(net, loaded, x)
    assert loaded.body.units == 3 and loaded.head.factor == 0.5
    # A registered class needs no custom_objects.
    registered = rt.keras.saving.register_keras_serializable(package="tests")(Scale)
    model = rt.keras.Sequential([rt.keras.Input(shape=(5,)), registered(2.0, 3)])
    model.save(tmp_path / "registered.keras")
    _same_outputs(model, rt.keras.models.load_model(tmp_path / "registered.keras"), x)


def test_every_layer_config_round_trips() -> None:
    arguments: dict[str, tuple[Any, ...]] = {
        "Dense": (2,), "Conv1D": (2, 3), "Conv2D": (2, 3), "Conv2DTranspose": (2, 3), "Conv1DTranspose": (2, 3),
        "DepthwiseConv2D": (3,), "SeparableConv2D": (2, 3), "Dropout": (0.1,),
        "DepthwiseConv1D": (3,), "SeparableConv1D": (2, 3),
        "Embedding": (5, 2), "LSTM": (2,), "GRU": (2,), "SimpleRNN": (2,), "LSTMCell": (2,),
        "GRUCell": (2,), "SimpleRNNCell": (2,), "Reshape": ((2,),), "Permute": ((1,),),
        "RepeatVector": (2,), "Activation": ("relu",), "Lambda": (rt.nn.relu,),
        "MultiHeadAttention": (2, 2), "GroupQueryAttention": (2, 4, 2), "CategoryEncoding": (3,),
        "EinsumDense": ("ab,bc->ac", (3,)),
        "GaussianNoise": (0.1,), "GaussianDropout": (0.1,), "SpatialDropout1D": (0.1,),
        "SpatialDropout2D": (0.1,), "SpatialDropout3D": (0.1,), "AlphaDropout": (0.1,),
        "GroupNormalization": (1,), "Bidirectional": (L.LSTM(2),),
        "TimeDistributed": (L.Dense(2),), "RNN": (L.GRUCell(2),),
        "StackedRNNCells": ([L.GRUCell(2)],), "Dot": (1,), "Rescaling": (0.5,),
        "AveragePooling1D": (2,), "AveragePooling2D": (2,), "Resizing": (3, 4), "CenterCrop": (3, 4),
        "Conv3D": (2, 3), "Conv3DTranspose": (2, 3), "AveragePooling3D": (2,),
        "Discretization": ([0.0, 1.0],),
        "RandomRotation": (0.2,), "RandomZoom": (0.2,), "RandomTranslation": (0.1, 0.1),
        "RandomCrop": (3, 4), "RandomContrast": (0.2,), "RandomBrightness": (0.2,),
        "RandomHue": (0.2,), "RandomSaturation": (0.5,), "RandomPosterization": (4,),
        "RandomColorDegeneration": (0.5,), "RandomSharpness": (0.5,),
        "Equalization": ((0, 1), 64), "RandomErasing": (0.5, (0.1, 0.2)),
        "MelSpectrogram": (64, 32), "STFTSpectrogram": ("magnitude", 32, 16),
        "AdaptiveAveragePooling1D": (2,), "AdaptiveAveragePooling2D": (2,),
        "AdaptiveAveragePooling3D": (2,), "AdaptiveMaxPooling1D": (2,),
        "AdaptiveMaxPooling2D": ((2, 3),), "AdaptiveMaxPooling3D": (2,),
    }  # fmt: skip
    checked = 0
    for name in L.__all__:
        cls = getattr(L, name)
        if not isinstance(cls, type) or not issubclass(cls, L.Layer):
            continue
        if name in ("Layer", "InputLayer") or cls.__name__ != name:
            continue  # an alias (MaxPool2D) is checked under the class's own name
        layer = cls(*arguments.get(name, ()), trainable=False, dtype="float64")
        config = json.loads(json.dumps(rt.keras.saving.serialize_keras_object(layer)))
        again = rt.keras.saving.deserialize_keras_object(config)
        assert type(again) is cls and again.name == layer.name
        assert again.trainable is False and again.dtype == rt.float64, name
        assert rt.keras.saving.serialize_keras_object(again) == config, name
        checked += 1
    assert checked >= 60


def test_checkpoint_saves_whole_models(tmp_path: Path) -> None:
    model = rt.keras.Sequential([rt.keras.Input(shape=(2,)), L.Dense(1)])
    model.compile(optimizer="sgd", loss="mse")
    x = np.ones((4, 2), np.float32)
    callback = rt.keras.callbacks.ModelCheckpoint(str(tmp_path / "m-{epoch}.keras"))
    model.fit(x, x[:, :1], epochs=2, verbose=0, callbacks=[callback])
    loaded = rt.keras.models.load_model(tmp_path / "m-2.keras")
    _same_outputs(model, loaded, x)


def _rewrite(
    path: Path,
    out: Path,
    config: Any = None,
    members: dict[str, bytes] | None = None,
    member: str = "rustape.json",
) -> None:
    with zipfile.ZipFile(path) as source, zipfile.ZipFile(out, "w") as target:
        for name in source.namelist():
            data = source.read(name)
            if name == member and config is not None:
                data = json.dumps(config).encode()
            target.writestr(name, data)
        for name, data in (members or {}).items():
            target.writestr(name, data)


def test_files_name_only_known_classes_and_hold_no_pickles(tmp_path: Path) -> None:
    model = rt.keras.Sequential([rt.keras.Input(shape=(2,)), L.Dense(1, activation="relu")])
    path = tmp_path / "m.keras"
    model.save(path)
    # rustape's own config (beside Keras's config.json, which test_keras_files.py covers).
    config = json.loads(zipfile.ZipFile(path).read("rustape.json"))
    layer = config["model"]["config"]["layers"][0]

    layer["class_name"] = "os.system"
    _rewrite(path, tmp_path / "class.keras", config)
    with pytest.raises(ValueError, match="unknown class 'os.system'"):
        rt.keras.models.load_model(tmp_path / "class.keras")

    layer["class_name"] = "Dense"
    layer["config"]["activation"] = {"class_name": "__function__", "config": {"name": "os.system"}}
    _rewrite(path, tmp_path / "function.keras", config)
    with pytest.raises(ValueError, match="unknown function 'os.system'"):
        rt.keras.models.load_model(tmp_path / "function.keras")

    buffer = io.BytesIO()
    np.savez(buffer, **{"00000": np.array([{"a": 1}], dtype=object), "00001": np.zeros(1)})
    with zipfile.ZipFile(path) as source, zipfile.ZipFile(tmp_path / "pickle.keras", "w") as out:
        out.writestr("config.json", source.read("rustape.json"))
        out.writestr("model.weights.npz", buffer.getvalue())
    with pytest.raises(ValueError, match="pickle"):
        rt.keras.models.load_model(tmp_path / "pickle.keras")


def test_saving_errors(tmp_path: Path) -> None:
    model = rt.keras.Sequential([rt.keras.Input(shape=(2,)), L.Dense(1)])
    with pytest.raises(ValueError, match=r"must end in \.keras"):
        model.save(tmp_path / "model.h5")
    model.save(tmp_path / "m.keras")
    with pytest.raises(FileExistsError):
        model.save(tmp_path / "m.keras", overwrite=False)
    (tmp_path / "text.keras").write_text("not a zip")
    with pytest.raises(ValueError, match=r"not a \.keras file \(a zip\)"):
        rt.keras.models.load_model(tmp_path / "text.keras")
    with zipfile.ZipFile(tmp_path / "keras3.keras", "w") as keras_file:
        keras_file.writestr("config.json", "{}")
        keras_file.writestr("model.weights.h5", b"\x89HDF")
    with pytest.raises(ValueError, match="config.json does not describe a Keras model"):
        rt.keras.models.load_model(tmp_path / "keras3.keras")
    lambda_model = rt.keras.Sequential([rt.keras.Input(shape=(2,)), L.Lambda(lambda t: 2 * t)])
    with pytest.raises(ValueError, match="cannot save the function '<lambda>'"):
        lambda_model.save(tmp_path / "lambda.keras")


class _Interrupt(rt.keras.callbacks.Callback):
    def __init__(self, at_epoch: int) -> None:
        super().__init__()
        self.at_epoch = at_epoch

    def on_epoch_begin(self, epoch: int, logs: Any = None) -> None:
        if epoch == self.at_epoch:
            raise RuntimeError("interrupted")


def test_backup_and_restore_resumes_an_interrupted_fit_exactly(tmp_path: Path) -> None:
    x = RNG.normal(size=(12, 3)).astype(np.float32)
    y = x @ np.array([[1.0], [-2.0], [0.5]], np.float32)

    def make() -> Any:
        rt.keras.utils.set_random_seed(5)  # Keras's rule: Python's `random` seeds the weights
        model = rt.keras.Sequential([rt.keras.Input(shape=(3,)), L.Dense(4, "tanh"), L.Dense(1)])
        model.compile(optimizer=rt.keras.optimizers.Adam(0.05), loss="mse")
        return model

    whole = make()
    expected = whole.fit(x, y, batch_size=4, epochs=5, shuffle=False).history["loss"]
    backup_dir = tmp_path / "backup"
    first = make()
    backup = rt.keras.callbacks.BackupAndRestore(backup_dir)
    with pytest.raises(RuntimeError, match="interrupted"):
        first.fit(x, y, batch_size=4, epochs=5, shuffle=False, callbacks=[backup, _Interrupt(3)])
    assert (backup_dir / "latest.weights.npz").exists()
    # A new process would make a new model: it resumes from the backup at epoch 3.
    second = make()
    backup = rt.keras.callbacks.BackupAndRestore(backup_dir)
    resumed = second.fit(x, y, batch_size=4, epochs=5, shuffle=False, callbacks=[backup])
    assert resumed.history["loss"] == expected[3:]
    for a, b in zip(whole.get_weights(), second.get_weights()):
        np.testing.assert_array_equal(a, b)
    assert not backup_dir.exists()  # removed once training ended normally


def test_backup_every_few_batches_records_the_epoch_in_progress(tmp_path: Path) -> None:
    # As Keras: a backup taken between epochs' ends holds the epoch still running, which a
    # resumed fit starts again.
    model = rt.keras.Sequential([rt.keras.Input(shape=(1,)), L.Dense(1)])
    model.compile(optimizer="sgd", loss="mse")
    backup = rt.keras.callbacks.BackupAndRestore(tmp_path / "b", save_freq=2)
    with pytest.raises(RuntimeError, match="interrupted"):
        model.fit(
            np.ones((12, 1)),
            np.ones((12, 1)),
            batch_size=4,
            epochs=3,
            callbacks=[backup, _Interrupt(2)],
        )
    metadata = json.loads((tmp_path / "b" / "training_metadata.json").read_text())
    assert metadata == {"epoch": 1, "batch": 2}
    seen: list[int] = []
    resume = rt.keras.callbacks.LambdaCallback(on_epoch_begin=lambda e, logs: seen.append(e))
    model.fit(
        np.ones((12, 1)),
        np.ones((12, 1)),
        batch_size=4,
        epochs=3,
        callbacks=[rt.keras.callbacks.BackupAndRestore(tmp_path / "b", save_freq=2), resume],
    )
    assert seen == [1, 2]


def test_backup_and_restore_errors(tmp_path: Path) -> None:
    with pytest.raises(ValueError, match="Empty `backup_dir`"):
        rt.keras.callbacks.BackupAndRestore("")
    with pytest.raises(ValueError, match="save_freq"):
        rt.keras.callbacks.BackupAndRestore(tmp_path, save_freq=0)
    (tmp_path / "b").mkdir()
    (tmp_path / "b" / "training_metadata.json").write_text('{"epoch": "x"}')
    model = rt.keras.Sequential([rt.keras.Input(shape=(1,)), L.Dense(1)])
    model.compile(optimizer="sgd", loss="mse")
    with pytest.raises(ValueError, match="no valid `epoch`"):
        model.fit(
            np.ones((2, 1)),
            np.ones((2, 1)),
            callbacks=[rt.keras.callbacks.BackupAndRestore(tmp_path / "b")],
        )


def test_a_class_name_two_modules_share_loads_as_the_saved_class(tmp_path: Path) -> None:
    # MeanSquaredError is a loss and a metric, Identity a layer and an initializer: the
    # config names the module, so each comes back as what was saved.
    model = rt.keras.Sequential(
        [
            rt.keras.Input(shape=(2,)),
            L.Dense(2, kernel_initializer=rt.keras.initializers.Identity()),
            L.Identity(),
        ]
    )
    model.compile(
        optimizer="sgd",
        loss=rt.keras.losses.MeanSquaredError(),
        metrics=[rt.keras.metrics.MeanSquaredError()],
    )
    x = np.ones((4, 2), np.float32)
    model.fit(x, x, epochs=1, verbose=0)
    model.save(tmp_path / "m.keras")
    loaded = rt.keras.models.load_model(tmp_path / "m.keras")
    assert type(loaded.loss) is rt.keras.losses.MeanSquaredError
    assert [type(layer) for layer in loaded.layers] == [L.Dense, L.Identity]
    assert type(loaded.layers[0].kernel_initializer) is rt.keras.initializers.Identity
    _same_outputs(model, loaded, x)
