"""Reference values for CTC from TensorFlow 2.21 / Keras 3: `tf.nn.ctc_loss` (dense labels) with
its gradient, `tf.nn.ctc_greedy_decoder`, `tf.nn.ctc_beam_search_decoder`, `keras.ops.ctc_loss`,
`keras.ops.ctc_decode`, `keras.losses.CTC` and a small Keras model trained with the "ctc" loss.
Run with TensorFlow's Python; writes ctc.npz beside this file (read by
tests/python/test_ctc_reference.py).

Loss case `loss{i}_*`: `labels`, `logits`, `label_length`, `logit_length`, `w` (the upstream
weights: the gradient is that of `sum(w * loss)`), `loss`, `grad`, and the options `time_major`,
`blank` (`blank_index`, with `-99` for None). Decoded paths are stored as
`tf.sparse.to_dense(decoded, default_value=-1)`.
"""

from __future__ import annotations

import os

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")

import keras
import numpy as np
import tensorflow as tf

rng = np.random.default_rng(20261125)
out: dict[str, np.ndarray] = {}


def labels_for(batch: int, width: int, classes: int, blank: int, lengths: np.ndarray) -> np.ndarray:
    """Random labels (never the blank), padded with the blank past each length."""
    choices = np.array([c for c in range(classes) if c != blank])
    lab = rng.choice(choices, size=(batch, width)).astype(np.int32)
    for b, n in enumerate(lengths):
        lab[b, n:] = blank
    return lab


# (batch, frames, classes, max_label, time_major, blank_index)
LOSS_CASES = [
    (1, 5, 3, 2, True, None),
    (3, 8, 5, 3, True, None),
    (4, 12, 6, 4, False, None),
    (2, 10, 4, 3, True, 3),
    (3, 9, 5, 3, False, 2),
    (2, 7, 4, 2, True, -1),
    (5, 20, 8, 6, False, None),
    (2, 6, 3, 0, True, None),
]
for i, (batch, frames, classes, width, time_major, blank) in enumerate(LOSS_CASES):
    blank_at = 0 if blank is None else blank % classes
    label_length = rng.integers(0, width + 1, size=batch).astype(np.int32)
    label_length[0] = width
    labels = labels_for(batch, width, classes, blank_at, label_length)
    # Enough frames for every label and the blanks between repeats; some examples shorter.
    need = np.array(
        [
            n + sum(labels[b, k] == labels[b, k - 1] for k in range(1, n))
            for b, n in enumerate(label_length)
        ]
    )
    logit_length = np.array([rng.integers(max(int(n), 1), frames + 1) for n in need], np.int32)
    logit_length[0] = frames
    shape = (frames, batch, classes) if time_major else (batch, frames, classes)
    logits = rng.normal(size=shape).astype(np.float32)
    w = rng.uniform(0.5, 1.5, size=batch).astype(np.float32)
    x = tf.constant(logits)
    with tf.GradientTape() as tape:
        tape.watch(x)
        loss = tf.nn.ctc_loss(
            labels,
            x,
            label_length,
            logit_length,
            logits_time_major=time_major,
            blank_index=blank,
        )
        total = tf.reduce_sum(loss * w)
    grad = tape.gradient(total, x)
    key = f"loss{i}_"
    out[key + "labels"] = labels
    out[key + "logits"] = logits
    out[key + "label_length"] = label_length
    out[key + "logit_length"] = logit_length
    out[key + "w"] = w
    out[key + "loss"] = loss.numpy()
    out[key + "grad"] = grad.numpy()
    out[key + "time_major"] = np.array(time_major)
    out[key + "blank"] = np.array(-99 if blank is None else blank)

# Repeated labels: "1 1" and "2 2 2" need blanks between the repeats.
labels = np.array([[1, 1, 0], [2, 2, 2]], np.int32)
logits = rng.normal(size=(7, 2, 3)).astype(np.float32)
x = tf.constant(logits)
with tf.GradientTape() as tape:
    tape.watch(x)
    loss = tf.nn.ctc_loss(labels, x, [2, 3], [5, 7])
out["repeat_labels"] = labels
out["repeat_logits"] = logits
out["repeat_loss"] = loss.numpy()
out["repeat_grad"] = tape.gradient(loss, x).numpy()

# Decoders: inputs [max_time, batch, classes].
for i, (frames, batch, classes) in enumerate([(6, 3, 4), (10, 2, 5), (1, 2, 3)]):
    inputs = rng.normal(size=(frames, batch, classes)).astype(np.float32)
    # Make repeats likely: copy some frames onto the next.
    for t in range(1, frames, 2):
        inputs[t] = inputs[t - 1] + 0.01 * rng.normal(size=(batch, classes)).astype(np.float32)
    seq = rng.integers(0, frames + 1, size=batch).astype(np.int32)
    seq[0] = frames
    out[f"dec{i}_inputs"] = inputs
    out[f"dec{i}_seq"] = seq
    for merge in (True, False):
        for blank in (None, 0):
            (d,), lp = tf.nn.ctc_greedy_decoder(
                inputs, seq, merge_repeated=merge, blank_index=blank
            )
            tag = f"dec{i}_greedy_{int(merge)}_{'none' if blank is None else blank}"
            out[tag + "_decoded"] = tf.sparse.to_dense(d, default_value=-1).numpy()
            out[tag + "_logp"] = lp.numpy()
    for beam, top in [(1, 1), (3, 2), (10, 3)]:
        decoded, lp = tf.nn.ctc_beam_search_decoder(inputs, seq, beam_width=beam, top_paths=top)
        tag = f"dec{i}_beam_{beam}_{top}"
        for k, d in enumerate(decoded):
            out[f"{tag}_decoded{k}"] = tf.sparse.to_dense(d, default_value=-1).numpy()
        out[tag + "_logp"] = lp.numpy()

# keras.ops: batch-major logits, mask index 0.
target = np.array([[1, 2, 2, 0], [3, 1, 0, 0], [2, 0, 0, 0]], np.int32)
output = rng.normal(size=(3, 9, 4)).astype(np.float32)
out["kops_target"] = target
out["kops_output"] = output
out["kops_loss"] = keras.ops.convert_to_numpy(
    keras.ops.ctc_loss(target, output, np.array([3, 2, 1]), np.array([9, 7, 5]))
)
for strategy, kwargs in [
    ("greedy", {}),
    ("greedy_nomerge", {"merge_repeated": False}),
    ("beam_search", {"beam_width": 5, "top_paths": 2}),
    ("beam_search_mask2", {"beam_width": 5, "top_paths": 3, "mask_index": 2}),
]:
    decoded, scores = keras.ops.ctc_decode(
        output,
        np.array([9, 7, 5]),
        strategy=strategy.split("_no")[0].replace("_mask2", ""),
        **kwargs,
    )
    out[f"kops_decode_{strategy}"] = keras.ops.convert_to_numpy(decoded)
    out[f"kops_decode_{strategy}_scores"] = keras.ops.convert_to_numpy(scores)
out["kloss_ctc"] = keras.ops.convert_to_numpy(keras.losses.CTC()(target, output))
out["kloss_ctc_fn"] = keras.ops.convert_to_numpy(keras.losses.ctc(target, output))

# A small model trained with the "ctc" loss: Dense(16, tanh) -> Dense(5) per frame.
frames, feats, classes, n = 10, 4, 5, 32
xs = rng.normal(size=(n, frames, feats)).astype(np.float32)
ys = np.zeros((n, 3), np.int32)
for b in range(n):
    k = rng.integers(1, 4)
    ys[b, :k] = rng.integers(1, classes, size=k)
model = keras.Sequential(
    [
        keras.Input((frames, feats)),
        keras.layers.Dense(16, activation="tanh"),
        keras.layers.Dense(classes),
    ]
)
weights = [rng.normal(scale=0.5, size=w.shape).astype(np.float32) for w in model.get_weights()]
model.set_weights(weights)
model.compile(optimizer=keras.optimizers.Adam(0.01), loss="ctc")
hist = model.fit(xs, ys, batch_size=8, epochs=3, shuffle=False, verbose=0)
out["fit_x"] = xs
out["fit_y"] = ys
for k, w in enumerate(weights):
    out[f"fit_w{k}"] = w
out["fit_losses"] = np.array(hist.history["loss"], np.float32)
out["fit_pred"] = model.predict(xs[:4], verbose=0)

np.savez_compressed(os.path.join(os.path.dirname(os.path.abspath(__file__)), "ctc.npz"), **out)
print(f"wrote {len(out)} arrays")
