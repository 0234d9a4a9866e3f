"""Entries of the table over every op (test_op_gradients.py) for CTC: `rt.nn.ctc_loss`'s
gradient (`CASES`, first order only: its second derivative in the logits is refused, which
test_ctc_reference.py checks, so it runs these cases itself) and the decoders against NumPy
(`FORWARD`: a best-path decoder, and for the beam search an exhaustive sum over every
alignment, which a beam wide enough must reproduce)."""

from __future__ import annotations

import itertools
from collections.abc import Callable
from typing import Any

import numpy as np
import rustape as rt

rng = np.random.default_rng(9090)

LABELS = np.array([[1, 2, 2], [3, 0, 0], [2, 1, 0]], np.int32)
LABEL_LENGTH = np.array([3, 1, 2], np.int32)
LOGIT_LENGTH = np.array([6, 4, 5], np.int32)


def _loss(time_major: bool, blank: int | None = None) -> Callable[[Any], Any]:
    labels = LABELS if blank is None else np.where(LABELS == 0, 1, LABELS - 1)

    def f(x: Any) -> Any:
        return rt.nn.ctc_loss(
            labels,
            x,
            label_length=LABEL_LENGTH,
            logit_length=LOGIT_LENGTH,
            logits_time_major=time_major,
            blank_index=blank,
        )

    return f


CASES: dict[str, tuple[Callable[..., Any], list[np.ndarray]]] = {
    "ctc_loss": (_loss(True), [rng.normal(size=(6, 3, 4))]),
    "ctc_loss_batch_major": (_loss(False), [rng.normal(size=(3, 6, 4))]),
    "ctc_loss_blank_last": (_loss(True, blank=-1), [rng.normal(size=(6, 3, 4))]),
}


def _greedy_numpy(x: np.ndarray, seq: np.ndarray) -> np.ndarray:
    blank = x.shape[2] - 1
    paths = []
    for b in range(x.shape[1]):
        best = np.argmax(x[: seq[b], b], axis=-1)
        path = [k for t, k in enumerate(best) if k != blank and (t == 0 or k != best[t - 1])]
        paths.append(path)
    width = max(len(p) for p in paths)
    return np.array([p + [-1] * (width - len(p)) for p in paths], np.int64)


def _best_labelling_numpy(x: np.ndarray, seq: np.ndarray) -> np.ndarray:
    """The label sequence of largest total probability, by summing over every alignment."""
    blank = x.shape[2] - 1
    paths = []
    for b in range(x.shape[1]):
        logp = x[: seq[b], b] - x[: seq[b], b].max(axis=-1, keepdims=True)
        totals: dict[tuple[int, ...], float] = {}
        for align in itertools.product(range(x.shape[2]), repeat=int(seq[b])):
            labels = tuple(
                k for t, k in enumerate(align) if k != blank and (t == 0 or k != align[t - 1])
            )
            p = np.exp(sum(logp[t, k] for t, k in enumerate(align)))
            totals[labels] = totals.get(labels, 0.0) + p
        paths.append(list(max(totals, key=lambda k: totals[k])))
    width = max(len(p) for p in paths)
    return np.array([p + [-1] * (width - len(p)) for p in paths], np.int64)


DECODE_X = rng.normal(size=(4, 2, 3)) * 2.0
DECODE_SEQ = np.array([4, 3], np.int32)

FORWARD: dict[str, tuple[Any, ...]] = {
    "ctc_greedy_decoder": (
        lambda x: rt.nn.ctc_greedy_decoder(x, DECODE_SEQ)[0][0],
        [DECODE_X],
        lambda x: _greedy_numpy(x, DECODE_SEQ),
    ),
    "ctc_beam_search_decoder": (
        lambda x: rt.nn.ctc_beam_search_decoder(x, DECODE_SEQ, beam_width=64)[0][0],
        [DECODE_X],
        lambda x: _best_labelling_numpy(x, DECODE_SEQ),
    ),
}
