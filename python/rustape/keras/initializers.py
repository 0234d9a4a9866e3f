"""`rt.keras.initializers`: weight initializers with Keras 3's names, arguments and defaults.

An initializer is called as `init(shape, dtype=None)`. With `seed=` an int, every call gives the
same values (as Keras's seeded initializers do); without, the initializer takes a seed from
Python's `random` when made (Keras's rule), so `keras.utils.set_random_seed` makes a whole
model repeatable. The values are Keras 3's (TensorFlow backend) bit for bit.

>>> import rustape as rt
>>> init = rt.keras.initializers.GlorotUniform(seed=1)
>>> bool((init((3, 2)).numpy() == init((3, 2)).numpy()).all())
True
"""

from __future__ import annotations

import math
from typing import Any, Callable

import numpy as np

from .. import _rustape as _rt
from ._util import _as_dtype, check_number

__all__ = [
    "Constant",
    "GlorotNormal",
    "GlorotUniform",
    "HeNormal",
    "HeUniform",
    "Identity",
    "IdentityInitializer",
    "Initializer",
    "LecunNormal",
    "LecunUniform",
    "Ones",
    "Orthogonal",
    "OrthogonalInitializer",
    "RandomNormal",
    "RandomUniform",
    "TruncatedNormal",
    "VarianceScaling",
    "Zeros",
    "constant",
    "deserialize",
    "get",
    "get_initializer",
    "glorot_normal",
    "glorot_uniform",
    "he_normal",
    "he_uniform",
    "identity",
    "lecun_normal",
    "lecun_uniform",
    "ones",
    "orthogonal",
    "random_normal",
    "random_uniform",
    "serialize",
    "truncated_normal",
    "variance_scaling",
    "zeros",
]


def _fans(shape: tuple[int, ...]) -> tuple[int, int]:
    """Keras's `compute_fans`: the receptive field multiplies both fans of a convolution kernel."""
    if len(shape) < 1:
        return 1, 1
    if len(shape) == 1:
        return shape[0], shape[0]
    if len(shape) == 2:
        return shape[0], shape[1]
    receptive = 1
    for d in shape[:-2]:
        receptive *= d
    return shape[-2] * receptive, shape[-1] * receptive


class Initializer:
    """Base class: `init(shape, dtype=None)` returns a tensor of that shape.

    >>> class Halves(Initializer):
    ...     def __call__(self, shape, dtype=None):
    ...         return rt.fill(list(shape), 0.5)
    >>> import rustape as rt
    >>> Halves()((2,)).numpy().tolist()
    [0.5, 0.5]
    """

    def __call__(self, shape: Any, dtype: Any = None) -> Any:
        raise NotImplementedError

    def get_config(self) -> dict[str, Any]:
        """The constructor arguments."""
        return {}

    @classmethod
    def from_config(cls, config: dict[str, Any]) -> Initializer:
        """An initializer from `get_config()`'s dict."""
        return cls(**config)

    def __repr__(self) -> str:
        args = ", ".join(f"{k}={v!r}" for k, v in self.get_config().items())
        return f"{type(self).__name__}({args})"


class _Random(Initializer):
    """Draws through `rt.keras.random` with `seed`: an int (the same values at every call), a
    `SeedGenerator`, or None (an int from Python's `random` taken now, Keras's rule, so
    `keras.utils.set_random_seed` makes a whole model repeatable)."""

    def __init__(self, seed: Any = None) -> None:
        from .random import SeedGenerator, _make_default_seed

        self._init_seed = seed
        if seed is None:
            seed = _make_default_seed()
        elif not isinstance(seed, SeedGenerator):
            if isinstance(seed, bool) or not isinstance(seed, int):
                raise ValueError(
                    f"{type(self).__name__}: `seed` must be an int, a SeedGenerator or None, "
                    f"got {seed!r}"
                )
            seed = check_number(type(self).__name__, "seed", seed, integer=True)
        self.seed = seed

    def _draw(self, shape: tuple[int, ...], dtype: Any, kind: str, a: float, b: float) -> Any:
        """`kind`: "uniform" in [a, b), "normal" (mean a, stddev b), "truncated" (within 2
        stddevs)."""
        from . import random as _krandom

        if kind == "uniform":
            return _krandom.uniform(shape, minval=a, maxval=b, dtype=dtype, seed=self.seed)
        if kind == "normal":
            return _krandom.normal(shape, mean=a, stddev=b, dtype=dtype, seed=self.seed)
        return _krandom.truncated_normal(shape, mean=a, stddev=b, dtype=dtype, seed=self.seed)

    def get_config(self) -> dict[str, Any]:
        return {"seed": self._init_seed}


class Zeros(Initializer):
    """All zeros.

    >>> Zeros()((2,)).numpy().tolist()
    [0.0, 0.0]
    """

    def __call__(self, shape: Any, dtype: Any = None) -> Any:
        return _rt.zeros(list(shape), dtype=_as_dtype(dtype))


class Ones(Initializer):
    """All ones.

    >>> Ones()((2,)).numpy().tolist()
    [1.0, 1.0]
    """

    def __call__(self, shape: Any, dtype: Any = None) -> Any:
        return _rt.ones(list(shape), dtype=_as_dtype(dtype))


class Constant(Initializer):
    """Every element `value`.

    >>> Constant(3.0)((2,)).numpy().tolist()
    [3.0, 3.0]
    """

    def __init__(self, value: float = 0.0) -> None:
        self.value = value

    def __call__(self, shape: Any, dtype: Any = None) -> Any:
        return _rt.fill(list(shape), _rt.constant(self.value, dtype=_as_dtype(dtype)))

    def get_config(self) -> dict[str, Any]:
        return {"value": self.value}


class RandomNormal(_Random):
    """Normal with `mean` (0) and `stddev` (0.05).

    >>> bool(RandomNormal(seed=0)((1000,)).numpy().std() < 0.06)
    True
    """

    def __init__(self, mean: float = 0.0, stddev: float = 0.05, seed: int | None = None) -> None:
        super().__init__(seed)
        owner = type(self).__name__
        self.mean = check_number(owner, "mean", mean)
        self.stddev = check_number(owner, "stddev", stddev, low=0.0)

    def __call__(self, shape: Any, dtype: Any = None) -> Any:
        return self._draw(tuple(shape), _as_dtype(dtype), "normal", self.mean, self.stddev)

    def get_config(self) -> dict[str, Any]:
        return {"mean": self.mean, "stddev": self.stddev, "seed": self._init_seed}


class RandomUniform(_Random):
    """Uniform in `[minval, maxval)` (-0.05, 0.05).

    >>> float(abs(RandomUniform(seed=0)((100,)).numpy()).max()) <= 0.05
    True
    """

    def __init__(
        self, minval: float = -0.05, maxval: float = 0.05, seed: int | None = None
    ) -> None:
        super().__init__(seed)
        self.minval = check_number("RandomUniform", "minval", minval)
        self.maxval = check_number("RandomUniform", "maxval", maxval)

    def __call__(self, shape: Any, dtype: Any = None) -> Any:
        return self._draw(tuple(shape), _as_dtype(dtype), "uniform", self.minval, self.maxval)

    def get_config(self) -> dict[str, Any]:
        return {"minval": self.minval, "maxval": self.maxval, "seed": self._init_seed}


class TruncatedNormal(_Random):
    """Normal with `mean` (0) and `stddev` (0.05), redrawn beyond two standard deviations.

    >>> float(abs(TruncatedNormal(seed=0)((1000,)).numpy()).max()) <= 0.1
    True
    """

    def __init__(self, mean: float = 0.0, stddev: float = 0.05, seed: int | None = None) -> None:
        super().__init__(seed)
        owner = type(self).__name__
        self.mean = check_number(owner, "mean", mean)
        self.stddev = check_number(owner, "stddev", stddev, low=0.0)

    def __call__(self, shape: Any, dtype: Any = None) -> Any:
        return self._draw(tuple(shape), _as_dtype(dtype), "truncated", self.mean, self.stddev)

    def get_config(self) -> dict[str, Any]:
        return {"mean": self.mean, "stddev": self.stddev, "seed": self._init_seed}


class VarianceScaling(_Random):
    """Samples scaled by the fans: variance `scale / n` with `n` the fan in, out or their mean
    (`mode`), from a truncated normal, a normal or a uniform (`distribution`).

    >>> w = VarianceScaling(scale=2.0, mode="fan_in", distribution="uniform", seed=0)((50, 10))
    >>> float(abs(w.numpy()).max()) <= (6 / 50) ** 0.5
    True
    """

    def __init__(
        self,
        scale: float = 1.0,
        mode: str = "fan_in",
        distribution: str = "truncated_normal",
        seed: int | None = None,
    ) -> None:
        super().__init__(seed)
        scale = check_number(type(self).__name__, "scale", scale)
        if scale <= 0.0:
            raise ValueError(f"Argument `scale` must be positive float. Received: scale={scale}")
        if mode not in ("fan_in", "fan_out", "fan_avg"):
            raise ValueError(
                f"Invalid `mode` argument: {mode}. Expected one of: fan_in, fan_out, fan_avg"
            )
        distribution = distribution.lower()
        if distribution == "normal":
            distribution = "truncated_normal"
        if distribution not in ("uniform", "truncated_normal", "untruncated_normal"):
            raise ValueError(
                f"Invalid `distribution` argument: {distribution}. Expected one of: uniform, "
                "truncated_normal, untruncated_normal"
            )
        self.scale, self.mode, self.distribution = scale, mode, distribution

    def __call__(self, shape: Any, dtype: Any = None) -> Any:
        shape = tuple(int(d) for d in shape)
        fan_in, fan_out = _fans(shape)
        n = {"fan_in": fan_in, "fan_out": fan_out, "fan_avg": (fan_in + fan_out) / 2.0}[self.mode]
        variance = self.scale / max(1.0, n)
        dtype = _as_dtype(dtype)
        if self.distribution == "truncated_normal":
            # The standard deviation of a unit normal truncated at two standard deviations.
            stddev = math.sqrt(variance) / 0.87962566103423978
            return self._draw(shape, dtype, "truncated", 0.0, stddev)
        if self.distribution == "untruncated_normal":
            return self._draw(shape, dtype, "normal", 0.0, math.sqrt(variance))
        limit = math.sqrt(3.0 * variance)
        return self._draw(shape, dtype, "uniform", -limit, limit)

    def get_config(self) -> dict[str, Any]:
        return {
            "scale": self.scale,
            "mode": self.mode,
            "distribution": self.distribution,
            "seed": self._init_seed,
        }


def _scaling(name: str, scale: float, mode: str, distribution: str, doc: str) -> type:
    def __init__(self: Any, seed: int | None = None) -> None:
        VarianceScaling.__init__(self, scale=scale, mode=mode, distribution=distribution, seed=seed)

    def get_config(self: Any) -> dict[str, Any]:
        """The constructor arguments (only `seed`: the scaling is fixed by the class)."""
        return {"seed": self._init_seed}

    cls = type(
        name, (VarianceScaling,), {"__init__": __init__, "get_config": get_config, "__doc__": doc}
    )
    cls.__qualname__ = name
    return cls


GlorotUniform = _scaling(
    "GlorotUniform",
    1.0,
    "fan_avg",
    "uniform",
    """Uniform within
    `sqrt(6 / (fan_in + fan_out))`.

    >>> float(abs(GlorotUniform(seed=0)((4, 2)).numpy()).max()) <= 1.0
    True
    """,
)
GlorotNormal = _scaling(
    "GlorotNormal",
    1.0,
    "fan_avg",
    "truncated_normal",
    """Truncated normal,
    stddev `sqrt(2 / (fan_in + fan_out))`.

    >>> GlorotNormal(seed=0)((4, 2)).shape
    (4, 2)
    """,
)
HeUniform = _scaling(
    "HeUniform",
    2.0,
    "fan_in",
    "uniform",
    """Uniform within `sqrt(6 / fan_in)`.

    >>> float(abs(HeUniform(seed=0)((6, 2)).numpy()).max()) <= 1.0
    True
    """,
)
HeNormal = _scaling(
    "HeNormal",
    2.0,
    "fan_in",
    "truncated_normal",
    """Truncated normal, stddev
    `sqrt(2 / fan_in)`.

    >>> HeNormal(seed=0)((6, 2)).shape
    (6, 2)
    """,
)
LecunUniform = _scaling(
    "LecunUniform",
    1.0,
    "fan_in",
    "uniform",
    """Uniform within
    `sqrt(3 / fan_in)`.

    >>> float(abs(LecunUniform(seed=0)((3, 2)).numpy()).max()) <= 1.0
    True
    """,
)
LecunNormal = _scaling(
    "LecunNormal",
    1.0,
    "fan_in",
    "truncated_normal",
    """Truncated normal,
    stddev `sqrt(1 / fan_in)`.

    >>> LecunNormal(seed=0)((3, 2)).shape
    (3, 2)
    """,
)


class Identity(Initializer):
    """`gain` times the identity matrix (2-d shapes only).

    >>> Identity(gain=2.0)((2, 2)).numpy().tolist()
    [[2.0, 0.0], [0.0, 2.0]]
    """

    def __init__(self, gain: float = 1.0) -> None:
        self.gain = check_number("Identity", "gain", gain)

    def __call__(self, shape: Any, dtype: Any = None) -> Any:
        shape = tuple(int(d) for d in shape)
        if len(shape) != 2:
            raise ValueError(
                f"Identity matrix initializer can only be used for 2D matrices. Received: "
                f"shape={shape} of rank {len(shape)}."
            )
        dtype = _as_dtype(dtype)
        eye = np.eye(shape[0], shape[1], dtype=np.dtype(dtype.name)) * self.gain
        return _rt.constant(eye, dtype=dtype)

    def get_config(self) -> dict[str, Any]:
        return {"gain": self.gain}


class Orthogonal(_Random):
    """`gain` times a random orthogonal matrix (Keras 3's `Orthogonal`): the Q factor of a
    standard normal `[max(rows, cols), min(rows, cols)]` matrix (rows: the product of all
    but the last dimension), its columns' signs fixed by R's diagonal, transposed when wide,
    reshaped to `shape`.

    >>> q = Orthogonal(seed=0)((4, 4)).numpy()
    >>> bool(np.allclose(q @ q.T, np.eye(4), atol=1e-5))
    True
    """

    def __init__(self, gain: float = 1.0, seed: int | None = None) -> None:
        super().__init__(seed)
        self.gain = check_number("Orthogonal", "gain", gain)

    def __call__(self, shape: Any, dtype: Any = None) -> Any:
        shape = tuple(int(d) for d in shape)
        if len(shape) < 2:
            raise ValueError(
                "The tensor to initialize must be at least two-dimensional. Received: "
                f"shape={shape} of rank {len(shape)}."
            )
        dtype = _as_dtype(dtype)
        rows = int(np.prod(shape[:-1]))
        cols = shape[-1]
        # Keras draws in the dtype; the factorisation runs in float64.
        a = _rt.cast(
            self._draw((max(rows, cols), min(rows, cols)), dtype, "normal", 0.0, 1.0), _rt.float64
        )
        q, r = _rt.qr(a)
        q = q * _rt.sign(_rt.diag_part(r))
        if rows < cols:
            q = _rt.transpose(q)
        q = _rt.reshape(q * _rt.constant(self.gain, dtype=_rt.float64), list(shape))
        return _rt.cast(q, dtype)

    def get_config(self) -> dict[str, Any]:
        return {"gain": self.gain, "seed": self._init_seed}


# Keras's other names for the same classes.
IdentityInitializer = Identity
OrthogonalInitializer = Orthogonal
constant = Constant
glorot_normal = GlorotNormal
glorot_uniform = GlorotUniform
he_normal = HeNormal
he_uniform = HeUniform
identity = Identity
lecun_normal = LecunNormal
lecun_uniform = LecunUniform
ones = Ones
orthogonal = Orthogonal
random_normal = RandomNormal
random_uniform = RandomUniform
truncated_normal = TruncatedNormal
variance_scaling = VarianceScaling
zeros = Zeros

_BY_NAME: dict[str, type] = {
    "zeros": Zeros,
    "ones": Ones,
    "constant": Constant,
    "random_normal": RandomNormal,
    "random_uniform": RandomUniform,
    "truncated_normal": TruncatedNormal,
    "variance_scaling": VarianceScaling,
    "glorot_uniform": GlorotUniform,
    "glorot_normal": GlorotNormal,
    "he_uniform": HeUniform,
    "he_normal": HeNormal,
    "lecun_uniform": LecunUniform,
    "lecun_normal": LecunNormal,
    "identity": Identity,
    "orthogonal": Orthogonal,
    # Keras's short aliases.
    "uniform": RandomUniform,
    "normal": RandomNormal,
}


def get_initializer(initializer: Any) -> Callable[..., Any]:
    """A callable `init(shape, dtype)` from a Keras name ("glorot_uniform", "GlorotUniform"),
    an initializer class or instance, or any callable.

    >>> get_initializer("he_normal").__class__.__name__
    'HeNormal'
    """
    if isinstance(initializer, type) and issubclass(initializer, Initializer):
        return initializer()
    if callable(initializer):
        return initializer
    if isinstance(initializer, str):
        key = initializer if initializer in _BY_NAME else initializer.lower()
        for name, cls in _BY_NAME.items():
            if key in (name, cls.__name__.lower()):
                return cls()
    raise ValueError(
        f"Unknown initializer: {initializer!r}; expected a callable init(shape, dtype) or one of "
        f"{sorted(_BY_NAME)}"
    )


get = get_initializer


def serialize(initializer: Any) -> Any:
    """An initializer's config as JSON-able data (`{"class_name": ..., "config": ...}`).

    >>> serialize(Constant(0.5))
    {'class_name': 'Constant', 'config': {'value': 0.5}}
    """
    from .saving import serialize_keras_object

    return serialize_keras_object(initializer)


def deserialize(config: Any, custom_objects: dict[str, Any] | None = None) -> Any:
    """The initializer `serialize`'s data (or a Keras name) describes.

    >>> deserialize("he_normal").__class__.__name__
    'HeNormal'
    """
    if isinstance(config, str):
        return get_initializer(config)
    from .saving import deserialize_keras_object

    return deserialize_keras_object(config, custom_objects)
