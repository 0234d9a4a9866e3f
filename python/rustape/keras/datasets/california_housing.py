"""California housing prices: 20,640 block groups, 8 features each (Keras's
`keras.datasets.california_housing`)."""

from __future__ import annotations

from typing import Any

from ._common import fetch, read_npz, shuffled_split

__all__ = ["load_data"]


def load_data(
    version: str = "large",
    path: str = "california_housing.npz",
    test_split: float = 0.2,
    seed: int = 113,
) -> Any:
    """`(x_train, y_train), (x_test, y_test)`: features [N, 8] and median house values,
    all 20,640 rows (`version="large"`) or the first 600 (`"small"`), shuffled with NumPy's
    `RandomState(seed)`, the last `test_split` for testing.

    >>> import rustape as rt
    >>> rt.keras.datasets.california_housing.load_data(version="medium")
    Traceback (most recent call last):
    ValueError: california_housing.load_data: version must be "large" or "small", not 'medium'
    """
    if not 0 <= test_split < 1:
        raise ValueError(f"test_split must be in [0, 1), got {test_split}")
    if version not in ("large", "small"):
        raise ValueError(
            f'california_housing.load_data: version must be "large" or "small", not {version!r}'
        )
    arrays = read_npz(fetch(path, "california_housing.npz"))
    x, y = arrays["x"], arrays["y"]
    if version == "small":
        x, y = x[:600], y[:600]
    return shuffled_split(x, y, test_split, seed)
