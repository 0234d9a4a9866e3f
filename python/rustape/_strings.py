"""`rt.RaggedTensor` (rows of different lengths: values plus row splits) and the `rt.strings`
functions whose result is ragged (`split`, `bytes_split`, `unicode_split`, `ngrams`). The
string kernels are Rust (src/ops/strings.rs); this file only regroups their pieces."""

from __future__ import annotations

from typing import Any

import numpy as np

from . import _rustape as _rt
from ._export import export
from ._shape import TensorShape

__all__ = ["RaggedTensor"]


class RaggedTensor:
    """A 2-D tensor whose rows have different lengths, as TensorFlow's `tf.RaggedTensor`
    with one ragged dimension: `values` (a 1-D tensor, every row's items in order) and
    `row_splits` (int64, `nrows + 1` offsets: row `i` is `values[row_splits[i]:row_splits[i+1]]`).

    >>> import rustape as rt
    >>> r = rt.RaggedTensor.from_row_splits(rt.constant([1, 2, 3]), [0, 2, 2, 3])
    >>> r.to_list()
    [[1, 2], [], [3]]
    >>> r.to_tensor().numpy().tolist()
    [[1, 2], [0, 0], [3, 0]]
    """

    def __init__(self, values: Any, row_splits: Any) -> None:
        self.values = _rt.convert_to_tensor(values)
        self.row_splits = _rt.cast(_rt.convert_to_tensor(row_splits), _rt.int64)
        splits = self.row_splits.numpy()
        if self.values.shape.rank != 1 or splits.ndim != 1 or splits.size == 0:
            raise ValueError(
                "RaggedTensor: values must be 1-D and row_splits a non-empty 1-D tensor, got "
                f"shapes {tuple(self.values.shape)} and {splits.shape}"
            )
        if splits[0] != 0 or splits[-1] != self.values.shape[0] or np.any(np.diff(splits) < 0):
            raise ValueError(
                "RaggedTensor: row_splits must start at 0, never decrease and end at "
                f"len(values) = {self.values.shape[0]}, got {splits.tolist()}"
            )

    @classmethod
    def from_row_splits(cls, values: Any, row_splits: Any) -> RaggedTensor:
        """The ragged tensor with rows `values[row_splits[i]:row_splits[i + 1]]`.

        >>> import rustape as rt
        >>> rt.RaggedTensor.from_row_splits(["a", "b"], [0, 1, 2]).to_list()
        [[b'a'], [b'b']]
        """
        return cls(values, row_splits)

    @classmethod
    def from_row_lengths(cls, values: Any, row_lengths: Any) -> RaggedTensor:
        """The ragged tensor whose row `i` holds the next `row_lengths[i]` values.

        >>> import rustape as rt
        >>> rt.RaggedTensor.from_row_lengths([1, 2, 3], [1, 2]).to_list()
        [[1], [2, 3]]
        """
        lengths = np.asarray(_rt.convert_to_tensor(row_lengths).numpy(), dtype=np.int64)
        return cls(values, np.concatenate([[0], np.cumsum(lengths)]).astype(np.int64))

    @property
    def dtype(self) -> Any:
        """The dtype of the values.

        >>> import rustape as rt
        >>> rt.strings.split(["a b", "c"]).dtype
        rt.string
        """
        return self.values.dtype

    @property
    def shape(self) -> TensorShape:
        """`(nrows, None)`: the second dimension is ragged.

        >>> import rustape as rt
        >>> rt.strings.split(["a b", "c"]).shape.as_list()
        [2, None]
        """
        return TensorShape((self.nrows(), None))

    @property
    def ndim(self) -> int:
        """2.

        >>> import rustape as rt
        >>> rt.strings.split(["a"]).ndim
        2
        """
        return 2

    def nrows(self) -> int:
        """How many rows.

        >>> import rustape as rt
        >>> rt.strings.split(["a", "b c", ""]).nrows()
        3
        """
        return int(self.row_splits.shape[0]) - 1

    def row_lengths(self) -> Any:
        """Each row's length (int64).

        >>> import rustape as rt
        >>> rt.strings.split(["a", "b c", ""]).row_lengths().numpy()
        array([1, 2, 0])
        """
        return self.row_splits[1:] - self.row_splits[:-1]

    def __len__(self) -> int:
        return self.nrows()

    def __getitem__(self, index: Any) -> Any:
        if isinstance(index, (int, np.integer)):
            n = self.nrows()
            i = int(index) + n if index < 0 else int(index)
            if not 0 <= i < n:
                raise IndexError(f"RaggedTensor: row {index} out of range for {n} rows")
            splits = self.row_splits.numpy()
            return self.values[int(splits[i]) : int(splits[i + 1])]
        if isinstance(index, slice):
            rows = range(*index.indices(self.nrows()))
            splits = self.row_splits.numpy()
            pieces = [np.arange(splits[i], splits[i + 1]) for i in rows]
            take = np.concatenate(pieces).astype(np.int64) if pieces else np.zeros(0, np.int64)
            lengths = [splits[i + 1] - splits[i] for i in rows]
            return RaggedTensor.from_row_lengths(_rt.gather(self.values, take), lengths)
        raise TypeError(f"RaggedTensor: rows are indexed by an int or a slice, got {index!r}")

    def to_list(self) -> list[list[Any]]:
        """The rows as Python lists (strings as `bytes`).

        >>> import rustape as rt
        >>> rt.strings.split(["a b", ""]).to_list()
        [[b'a', b'b'], []]
        """
        values = self.values.numpy().tolist()
        splits = self.row_splits.numpy().tolist()
        return [values[splits[i] : splits[i + 1]] for i in range(len(splits) - 1)]

    def to_tensor(self, default_value: Any = None, shape: Any = None) -> Any:
        """A dense `[nrows, longest row]` tensor, short rows padded with `default_value`
        (`""` for strings, 0 otherwise); `shape=[rows, cols]` crops or pads to that size
        (`None` keeps a dimension).

        >>> import rustape as rt
        >>> rt.strings.split(["a b", "c"]).to_tensor().numpy().tolist()
        [[b'a', b'b'], [b'c', b'']]
        """
        splits = self.row_splits.numpy()
        lengths = np.diff(splits)
        rows = self.nrows()
        cols = int(lengths.max()) if rows else 0
        if shape is not None:
            want = list(shape)
            rows = rows if want[0] is None else int(want[0])
            cols = cols if want[1] is None else int(want[1])
        is_string = self.values.dtype == _rt.string
        if default_value is None:
            default_value = b"" if is_string else 0
        flat = np.full(rows * cols, 0, dtype=np.int64)
        valid = np.zeros(rows * cols, dtype=bool)
        for i in range(min(rows, self.nrows())):
            k = min(int(lengths[i]), cols)
            flat[i * cols : i * cols + k] = np.arange(splits[i], splits[i] + k)
            valid[i * cols : i * cols + k] = True
        fill = _rt.fill([rows * cols], _rt.constant(default_value, dtype=self.values.dtype))
        if self.values.shape[0] == 0:
            dense = fill
        else:
            dense = _rt.where(valid, _rt.gather(self.values, flat), fill)
        return _rt.reshape(dense, [rows, cols])

    def numpy(self) -> Any:
        """An object array of each row's NumPy array (TensorFlow's form).

        >>> import rustape as rt
        >>> [r.tolist() for r in rt.strings.split(["a b", "c"]).numpy()]
        [[b'a', b'b'], [b'c']]
        """
        values = self.values.numpy()
        splits = self.row_splits.numpy()
        out = np.empty(self.nrows(), dtype=object)
        for i in range(self.nrows()):
            out[i] = values[splits[i] : splits[i + 1]]
        return out

    def __repr__(self) -> str:
        return f"<rt.RaggedTensor {self.to_list()!r}>"


def _rows(values: Any, splits: Any, input: Any) -> Any:
    """A split's pieces as `input`'s shape asks: dense for a scalar, ragged for a vector."""
    rank = _rt.convert_to_tensor(input).shape.rank
    if rank == 0:
        return values
    if rank != 1:
        raise ValueError(f"split: input must be a scalar or a vector, got rank {rank}")
    return RaggedTensor(values, splits)


@export("strings")
def split(input: Any, sep: Any = None, maxsplit: int = -1, name: Any = None) -> Any:
    """Splits each string on `sep` (runs of whitespace when None, empty pieces dropped): a
    scalar gives a 1-D tensor, a vector a `RaggedTensor` with one row per string.

    >>> import rustape as rt
    >>> rt.strings.split("hello  world").numpy().tolist()
    [b'hello', b'world']
    >>> rt.strings.split(["a,b", "c"], sep=",").to_list()
    [[b'a', b'b'], [b'c']]
    """
    values, splits = _rt.strings_split_rows(input, sep, maxsplit)
    return _rows(values, splits, input)


@export("strings")
def bytes_split(input: Any, name: Any = None) -> Any:
    """Each string as its bytes (a 1-D tensor for a scalar, a `RaggedTensor` for a vector).

    >>> import rustape as rt
    >>> rt.strings.bytes_split("abc").numpy().tolist()
    [b'a', b'b', b'c']
    """
    values, splits = _rt.strings_bytes_split_rows(input)
    return _rows(values, splits, input)


@export("strings")
def unicode_split(input: Any, input_encoding: str = "UTF-8", name: Any = None) -> Any:
    """Each UTF-8 string as its characters (a 1-D tensor for a scalar, a `RaggedTensor` for a
    vector); only `input_encoding="UTF-8"` is supported.

    >>> import rustape as rt
    >>> rt.strings.unicode_split("hé").numpy().tolist()
    [b'h', b'\\xc3\\xa9']
    """
    if not isinstance(input_encoding, str):
        raise TypeError(f"unicode_split: input_encoding must be a str, got {input_encoding!r}")
    if input_encoding.upper().replace("-", "") != "UTF8":
        raise ValueError(f"unicode_split: only UTF-8 is supported, got {input_encoding!r}")
    values, splits = _rt.strings_unicode_split_rows(input)
    return _rows(values, splits, input)
