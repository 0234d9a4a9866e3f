"""Boston housing prices: 506 districts, 13 features each (Keras's
`keras.datasets.boston_housing`)."""

from __future__ import annotations

from typing import Any

from ._common import fetch, read_npz, shuffled_split

__all__ = ["load_data"]


def load_data(path: str = "boston_housing.npz", test_split: float = 0.2, seed: int = 113) -> Any:
    """`(x_train, y_train), (x_test, y_test)`: features [N, 13] and median values in k$,
    shuffled with NumPy's `RandomState(seed)`, the last `test_split` for testing.

    >>> import rustape as rt
    >>> rt.keras.datasets.boston_housing.load_data(test_split=1.0)
    Traceback (most recent call last):
    ValueError: test_split must be in [0, 1), got 1.0
    """
    if not 0 <= test_split < 1:
        raise ValueError(f"test_split must be in [0, 1), got {test_split}")
    arrays = read_npz(fetch(path, "boston_housing.npz"))
    return shuffled_split(arrays["x"], arrays["y"], test_split, seed)
