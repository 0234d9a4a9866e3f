"""Keras 3's CTC ops (`keras.ops.ctc_loss`, `keras.ops.ctc_decode`) over `rt.nn.ctc_loss` and
the `rt.nn` decoders, with the TensorFlow backend's argument handling: batch-major logits, the
mask (blank) index, decoded paths as dense `(paths, batch, max_length)` padded with `-1`."""

from __future__ import annotations

from typing import Any

from ... import _rustape as _rt
from ... import nn as _nn
from ._core import tensor

__all__ = ["ctc_decode", "ctc_loss"]


def _float(x: Any) -> Any:
    x = tensor(x)
    if not x.dtype.is_floating:
        x = _rt.cast(x, _rt.float32)
    return x


def ctc_loss(
    target: Any, output: Any, target_length: Any, output_length: Any, mask_index: int = 0
) -> Any:
    """`keras.ops.ctc_loss`: the CTC loss per example of integer `target` `(batch, max_length)`
    under logits `output` `(batch, max_length, num_classes)`; `mask_index` is the blank.

    float64 logits are computed in float64 (Keras's TensorFlow backend rounds them to float32
    first).

    >>> from rustape.keras import ops
    >>> loss = ops.ctc_loss([[1]], rt.zeros([1, 3, 3]), [1], [3])
    >>> round(float(loss[0]), 4)
    1.5041
    """
    target = _rt.cast(tensor(target), _rt.int32)
    output = _float(output)
    return _nn.ctc_loss(
        target,
        output,
        label_length=target_length,
        logit_length=output_length,
        logits_time_major=False,
        blank_index=mask_index,
    )


def _dense(paths: list[Any], batch: int, steps: int) -> Any:
    """Decoded `[batch, width]` paths (`-1` padded) as int32 `(paths, batch, steps)`."""
    rows = []
    for p in paths:
        p = _rt.cast(p, _rt.int32)
        width = int(p.shape[1])
        if width < steps:
            p = _rt.pad(p, [[0, 0], [0, steps - width]], constant_values=-1)
        rows.append(p)
    if not rows:
        return _rt.zeros([0, batch, steps], _rt.int32)
    return _rt.stack(rows, axis=0)


def ctc_decode(
    inputs: Any,
    sequence_lengths: Any,
    strategy: str = "greedy",
    beam_width: int = 100,
    top_paths: int = 1,
    merge_repeated: bool = True,
    mask_index: int | None = 0,
) -> tuple[Any, Any]:
    """`keras.ops.ctc_decode`: decodes logits `inputs` `(batch, max_length, num_classes)`.

    Returns the decoded classes, int32 `(1 or top_paths, batch, max_length)` padded with `-1`,
    and the scores: `(batch, 1)` minus the summed best logits for `"greedy"`, `(batch,
    top_paths)` log-probabilities for `"beam_search"` (TensorFlow's).

    >>> from rustape.keras import ops
    >>> x = rt.math.log(rt.constant([[[0.1, 0.8, 0.1], [0.8, 0.1, 0.1], [0.1, 0.1, 0.8]]]))
    >>> decoded, scores = ops.ctc_decode(x, [3])
    >>> decoded.numpy().tolist()
    [[[1, 2, -1]]]
    """
    x = _float(inputs)
    if x.ndim != 3:
        raise ValueError(
            "keras.ops.ctc_decode: inputs must have shape (batch, max_length, num_classes), "
            f"got {list(x.shape)}"
        )
    batch, steps, classes = (int(d) for d in x.shape)
    x = _rt.transpose(x, [1, 0, 2])
    lengths = _rt.cast(tensor(sequence_lengths), _rt.int32)
    if strategy == "greedy":
        decoded, scores = _nn.ctc_greedy_decoder(
            x, lengths, merge_repeated=merge_repeated, blank_index=mask_index
        )
        return _dense(decoded, batch, steps), scores
    if strategy == "beam_search":
        blank = None
        if mask_index is not None:
            blank = int(mask_index) + classes if int(mask_index) < 0 else int(mask_index)
            if not 0 <= blank < classes:
                raise ValueError(
                    f"keras.ops.ctc_decode: mask_index {mask_index} is outside [-{classes}, "
                    f"{classes}) for {classes} classes"
                )
            # The blank moves to the last class, where the beam search expects it.
            x = _rt.concat(
                [x[..., :blank], x[..., blank + 1 :], x[..., blank : blank + 1]], axis=-1
            )
        decoded, scores = _nn.ctc_beam_search_decoder(
            x, lengths, beam_width=beam_width, top_paths=top_paths
        )
        dense = _dense(decoded, batch, steps)
        if blank is not None:
            dense = _rt.where(dense >= blank, dense + 1, dense)
        return dense, scores
    raise ValueError(
        f"Invalid strategy {strategy}. Supported values are 'greedy' and 'beam_search'."
    )
