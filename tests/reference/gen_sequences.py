"""Keras 3's masked sequence models (TensorFlow 2.21) with fixed weights: recurrent layers
given a mask (or the one `Embedding(mask_zero=True)` attaches), `Bidirectional` in each merge
mode, `TimeDistributed`, masked `GlobalAveragePooling1D` and `MultiHeadAttention`; outputs
and gradients; and the text-classification tutorial's model (Embedding with mask_zero,
stacked Bidirectional LSTMs) trained with `fit`.

`run(keras, lib)` is imported by the test and runs the same code on rustape (`lib` is
tensorflow or rustape). Run with TensorFlow's venv (see README.md); writes sequences.npz
beside this file.
"""

from __future__ import annotations

import os
from typing import Any

import numpy as np

VOCAB = 12


def _tokens(batch: int = 3, steps: int = 6) -> np.ndarray:
    """Padded token ids: right padding, a full row, left padding."""
    rng = np.random.default_rng(41)
    tokens = rng.integers(1, VOCAB, size=(batch, steps)).astype(np.int32)
    tokens[0, 4:] = 0
    if batch > 2:
        tokens[2, :2] = 0
    return tokens


def _weights(seed: int, shape: tuple[int, ...]) -> np.ndarray:
    return np.random.default_rng(seed).normal(size=shape).astype(np.float32)


def _layer(keras: Any, name: str) -> Any:
    L = keras.layers
    if name == "lstm_mask":
        return L.LSTM(4, return_sequences=True)
    if name == "lstm_last":
        return L.LSTM(4)
    if name == "gru_backwards":
        return L.GRU(3, go_backwards=True, return_sequences=True)
    if name == "simple_zero_output":
        return L.SimpleRNN(3, return_sequences=True, zero_output_for_mask=True)
    if name == "bi_concat":
        return L.Bidirectional(L.LSTM(3, return_sequences=True))
    if name == "bi_sum_last":
        return L.Bidirectional(L.GRU(3), merge_mode="sum")
    if name == "bi_ave_state":
        return L.Bidirectional(L.LSTM(2, return_state=True), merge_mode="ave")
    if name == "bi_mul":
        return L.Bidirectional(L.SimpleRNN(3, return_sequences=True), merge_mode="mul")
    if name == "time_dense":
        return L.TimeDistributed(L.Dense(3, activation="tanh"))
    return L.GlobalAveragePooling1D()


#: Layers run on an embedding of `_tokens()` whose mask they receive.
MASKED = (
    "lstm_mask",
    "lstm_last",
    "gru_backwards",
    "simple_zero_output",
    "bi_concat",
    "bi_sum_last",
    "bi_ave_state",
    "bi_mul",
    "time_dense",
    "average",
)


def _masked(keras: Any, lib: Any, name: str) -> dict[str, np.ndarray]:
    embedding = keras.layers.Embedding(VOCAB, 4, mask_zero=True)
    layer = _layer(keras, name)
    tokens = _tokens()
    embedding.build(tokens.shape)
    rng = np.random.default_rng(43)
    table = (rng.normal(size=(VOCAB, 4)) * 0.6).astype(np.float32)
    embedding.set_weights([table])
    x = embedding(tokens)
    layer.build(tuple(x.shape))
    weights = [(rng.normal(size=tuple(w.shape)) * 0.5).astype(np.float32) for w in layer.weights]
    layer.set_weights(weights)
    with lib.GradientTape() as tape:
        x = embedding(tokens)
        result = layer(x)
        outs = list(result) if isinstance(result, (list, tuple)) else [result]
        loss = lib.add_n(
            [lib.reduce_sum(o * _weights(47 + k, tuple(o.shape))) for k, o in enumerate(outs)]
        )
    grads = tape.gradient(loss, [embedding.embeddings, *layer.trainable_weights])
    out = {f"{name}/out{k}": np.asarray(o) for k, o in enumerate(outs)}
    out[f"{name}/dtable"] = np.asarray(lib.convert_to_tensor(grads[0]))
    for k, g in enumerate(grads[1:]):
        out[f"{name}/dw{k}"] = np.asarray(g)
    return out


def _attention(keras: Any, lib: Any) -> dict[str, np.ndarray]:
    """Self-attention over an embedding with mask_zero: the padding masks come from it."""
    embedding = keras.layers.Embedding(VOCAB, 4, mask_zero=True)
    mha = keras.layers.MultiHeadAttention(num_heads=2, key_dim=2)
    tokens = _tokens()
    embedding.build(tokens.shape)
    rng = np.random.default_rng(53)
    embedding.set_weights([(rng.normal(size=(VOCAB, 4)) * 0.6).astype(np.float32)])
    x = embedding(tokens)
    mha.build(tuple(x.shape), tuple(x.shape))
    mha.set_weights(
        [(rng.normal(size=tuple(w.shape)) * 0.5).astype(np.float32) for w in mha.weights]
    )
    y, scores = mha(x, x, return_attention_scores=True)
    pooled = keras.layers.GlobalAveragePooling1D()(y)
    return {
        "attention/y": np.asarray(y),
        "attention/scores": np.asarray(scores),
        "attention/pooled": np.asarray(pooled),
    }


def _masking(keras: Any, lib: Any) -> dict[str, np.ndarray]:
    """`Masking` over float sequences padded with zero vectors, into a GRU; and `Rescaling`
    of integer pixels."""
    rng = np.random.default_rng(73)
    x = rng.normal(size=(3, 5, 2)).astype(np.float32)
    x[0, 3:] = 0.0
    x[2, 0] = 0.0
    x[1, 2, 0] = 0.0  # one zero feature alone does not mask the step
    masking = keras.layers.Masking(mask_value=0.0)
    gru = keras.layers.GRU(3, return_sequences=True)
    gru.build((3, 5, 2))
    gru.set_weights(
        [(rng.normal(size=tuple(w.shape)) * 0.5).astype(np.float32) for w in gru.weights]
    )
    xv = lib.Variable(x)
    with lib.GradientTape() as tape:
        y = gru(masking(xv))
        loss = lib.reduce_sum(y * _weights(79, tuple(y.shape)))
    grads = tape.gradient(loss, [xv, *gru.trainable_weights])
    out = {"masking/y": np.asarray(y), "masking/dx": np.asarray(grads[0])}
    for k, g in enumerate(grads[1:]):
        out[f"masking/dw{k}"] = np.asarray(g)
    pixels = rng.integers(0, 256, size=(2, 3, 3, 3)).astype(np.uint8)
    scaled = keras.layers.Rescaling(1 / 127.5, offset=-1.0)(pixels)
    per_channel = keras.layers.Rescaling([0.5, 2.0, -1.0], offset=[1.0, 0.0, 3.0])(pixels)
    out["rescaling/scaled"] = np.asarray(scaled)
    out["rescaling/per_channel"] = np.asarray(per_channel)
    return out


def _classifier(keras: Any) -> dict[str, np.ndarray]:
    """The text-classification tutorial's model (stacked Bidirectional LSTMs over a masked
    embedding), small, trained with `fit`."""
    L = keras.layers
    model = keras.Sequential(
        [
            keras.Input(shape=(6,), dtype="int32"),
            L.Embedding(VOCAB, 5, mask_zero=True),
            L.Bidirectional(L.LSTM(4, return_sequences=True)),
            L.Bidirectional(L.LSTM(3)),
            L.Dense(4, activation="relu"),
            L.Dropout(0.0),
            L.Dense(1),
        ]
    )
    rng = np.random.default_rng(59)
    model.set_weights([(rng.normal(size=w.shape) * 0.4).astype(np.float32) for w in model.weights])
    tokens = rng.integers(1, VOCAB, size=(12, 6)).astype(np.int32)
    lengths = rng.integers(2, 7, size=12)
    for row, n in enumerate(lengths):
        tokens[row, n:] = 0
    labels = (tokens.sum(1) % 2).astype(np.float32)[:, None]
    # SGD, not the tutorial's Adam: Keras 3's TensorFlow backend updates Adam's second moment
    # from an embedding's IndexedSlices one slice at a time, so a token repeated in a batch
    # gets the sum of its squared slices instead of the square of its gradient (its JAX and
    # torch backends, tf.keras 2 and rustape use the gradient). SGD's update is linear in it.
    model.compile(
        optimizer=keras.optimizers.SGD(0.2, momentum=0.9),
        loss=keras.losses.BinaryCrossentropy(from_logits=True),
    )
    history = model.fit(tokens, labels, batch_size=4, epochs=2, shuffle=False, verbose=0)
    out = {"classifier/loss": np.array(history.history["loss"], np.float32)}
    out["classifier/predict"] = np.asarray(model.predict(tokens[:3], verbose=0))
    for k, w in enumerate(model.get_weights()):
        out[f"classifier/w{k}"] = np.asarray(w)
    return out


def run(keras: Any, lib: Any) -> dict[str, np.ndarray]:
    """Every array, computed with `keras` over `lib` (tensorflow or rustape)."""
    out: dict[str, np.ndarray] = {"tokens": _tokens()}
    for name in MASKED:
        out.update(_masked(keras, lib, name))
    out.update(_attention(keras, lib))
    out.update(_masking(keras, lib))
    out.update(_classifier(keras))
    return out


def main() -> None:
    import keras
    import tensorflow as tf

    out = run(keras, tf)
    path = os.path.join(os.path.dirname(os.path.abspath(__file__)), "sequences.npz")
    np.savez_compressed(path, **out)
    print(
        f"wrote {path}: {len(out)} arrays, tensorflow {tf.__version__}, keras {keras.__version__}"
    )


if __name__ == "__main__":
    main()
