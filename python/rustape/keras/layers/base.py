"""The base `Layer`: lazy build on first call, weights (its own and those of the layers it
holds), losses, and the call protocol.

The interface other layers build on (Keras 3's):

- `__init__(name=None, dtype=None, trainable=True, **kwargs)`: `input_shape=`, `input_dim=` or
  `batch_input_shape=` build the layer as soon as its constructor returns.
- `build(input_shape)` creates the weights with `add_weight`; `call(inputs, ...)` computes.
  `__call__` converts the input, builds on the first call, passes `training=` to a `call` that
  takes it (the enclosing layer's value when not given), and collects `add_loss` losses.
- `weights` / `variables`, `trainable_weights` / `trainable_variables`,
  `non_trainable_weights` / `non_trainable_variables`: the layer's own variables, then those of
  every layer it holds in attributes, lists, tuples and dicts (nested to any depth), in the
  order they were assigned. `losses`: the losses of the last call, its layers' included, then
  the penalties of the trainable weights that have a regularizer (computed when read).
- `activity_regularizer`: a regularizer of the outputs, divided by the batch size (Keras's),
  added to `losses` at each call.
- Masks (Keras's): a layer whose `call` takes `mask` gets the mask attached to its input; a
  layer that `supports_masking` attaches `compute_mask(inputs, mask)` to its output (by
  default the input's mask, passed on). Overriding `compute_mask` means support.
"""

from __future__ import annotations

import functools
import inspect
import threading
import warnings
from collections.abc import Iterator
from typing import Any

import numpy as np

from ... import _rustape as _rt
from .. import constraints, regularizers
from .._masking import mask_of, set_keras_mask
from .._util import _as_dtype, _snake, _unique_name
from ..initializers import get_initializer

__all__ = ["Layer"]

#: Constructor arguments that give the input's shape (Keras's): the layer builds at once.
_SHAPE_ARGUMENTS = ("input_shape", "input_dim", "batch_input_shape", "batch_size")

_calls = threading.local()


def _take_input_shape(kwargs: dict[str, Any], own: frozenset[str]) -> tuple[Any, ...] | None:
    """Removes the shape arguments from `kwargs`; the full input shape they give, if any.

    A constructor naming one of them itself (`Embedding(input_dim, ...)`) keeps it (`own`).
    """
    given = {k: kwargs.pop(k) for k in _SHAPE_ARGUMENTS if k in kwargs and k not in own}
    batch = given.get("batch_size")
    if given.get("batch_input_shape") is not None:
        return tuple(given["batch_input_shape"])
    if given.get("input_shape") is not None:
        return (batch, *tuple(given["input_shape"]))
    if given.get("input_dim") is not None:
        return (batch, int(given["input_dim"]))
    return None


def _arguments(init: Any, layer: Any, args: tuple[Any, ...], kwargs: dict[str, Any]) -> Any:
    """The constructor arguments by name (`**kwargs` merged in), or None when they do not
    bind (the constructor then raises its own error)."""
    try:
        bound = inspect.signature(init).bind(layer, *args, **kwargs)
    except TypeError:
        return None
    out: dict[str, Any] = {}
    for name, value in list(bound.arguments.items())[1:]:
        kind = bound.signature.parameters[name].kind
        if kind is inspect.Parameter.VAR_KEYWORD:
            out.update(value)
        elif kind is inspect.Parameter.VAR_POSITIONAL:
            if value:
                out[f"*{name}"] = list(value)
        else:
            out[name] = value
    return out


def _accepts_keyword(cls: type, name: str) -> bool:
    try:
        params = inspect.signature(cls).parameters.values()
    except (TypeError, ValueError):
        return False
    return any(p.name == name or p.kind is p.VAR_KEYWORD for p in params)


def _training_stack() -> list[Any]:
    stack = getattr(_calls, "training", None)
    if stack is None:
        stack = _calls.training = []
    return stack


_signatures: dict[Any, tuple[inspect.Parameter, ...]] = {}


def _parameters(call: Any) -> tuple[inspect.Parameter, ...]:
    """`call`'s parameters (looked up once per function)."""
    if call not in _signatures:
        try:
            _signatures[call] = tuple(inspect.signature(call).parameters.values())
        except (TypeError, ValueError):
            _signatures[call] = ()
    return _signatures[call]


def _takes_training(call: Any) -> bool:
    """Whether `call` names a `training` parameter (it then gets the enclosing mode)."""
    return any(p.name == "training" for p in _parameters(call))


def _takes_mask(call: Any) -> bool:
    return any(p.name == "mask" for p in _parameters(call))


def _takes_keywords(call: Any) -> bool:
    """Whether `call` takes `**kwargs` (an explicit `training=` is passed on to it)."""
    return any(p.kind is inspect.Parameter.VAR_KEYWORD for p in _parameters(call))


def _is_tensor_list(x: Any) -> bool:
    """A list or tuple of tensors or variables: the inputs of a layer that takes several."""
    return (
        isinstance(x, (list, tuple))
        and len(x) > 0
        and all(isinstance(v, (_rt.Tensor, _rt.Variable)) for v in x)
    )


def _shape_of(inputs: Any) -> Any:
    """The shape `build` gets: a tuple, or a list of tuples for several inputs."""
    if isinstance(inputs, list):
        return [tuple(v.shape) for v in inputs]
    return tuple(inputs.shape)


def _symbolic(inputs: Any) -> bool:
    if getattr(inputs, "_keras_symbolic", False):
        return True
    return isinstance(inputs, (list, tuple)) and any(
        getattr(x, "_keras_symbolic", False) for x in inputs
    )


class Layer:
    """Base class: lazy `build(input_shape)` on the first call, then `call(inputs, ...)`.

    Floating inputs are cast to the layer's dtype (float32 unless given), as Keras does. A layer
    holding other layers reports their weights too:

    >>> import rustape as rt
    >>> class Block(rt.keras.layers.Layer):
    ...     def __init__(self):
    ...         super().__init__()
    ...         self.parts = [rt.keras.layers.Dense(3), {"out": rt.keras.layers.Dense(1)}]
    ...     def call(self, x):
    ...         return self.parts[1]["out"](self.parts[0](x))
    >>> block = Block()
    >>> _ = block(rt.ones([2, 4]))
    >>> [tuple(w.shape) for w in block.weights]
    [(4, 3), (3,), (3, 1), (1,)]
    """

    #: Whether the layer passes a mask on (`compute_mask`); Keras's layers that keep the
    #: timesteps (Dense, Dropout, activations, normalisations) set it.
    supports_masking = False

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        if "compute_mask" in cls.__dict__ and "supports_masking" not in cls.__dict__:
            cls.supports_masking = True
        build = cls.__dict__.get("build")
        if build is not None:

            @functools.wraps(build)
            def built(self: Layer, *args: Any, **kwargs: Any) -> None:
                # As Keras does: a layer is built once its `build` returns, however it was
                # called (a second call would make its weights again).
                build(self, *args, **kwargs)
                self.built = True

            cls.build = built  # type: ignore[method-assign]
        init = cls.__dict__.get("__init__")
        if init is None:
            return

        own = frozenset(inspect.signature(init).parameters)

        @functools.wraps(init)
        def __init__(self: Layer, *args: Any, **kwargs: Any) -> None:
            # The shape arguments are the base class's: a subclass's constructor never sees
            # them, and the layer builds once the outermost constructor has returned.
            depth = self.__dict__.get("_init_depth", 0)
            if depth == 0:
                # The outermost constructor's arguments are the layer's config (get_config).
                self.__dict__["_init_arguments"] = _arguments(init, self, args, kwargs)
            shape = _take_input_shape(kwargs, own)
            # Every Keras layer takes `trainable`: set here unless the constructor names it.
            trainable = kwargs.pop("trainable", None) if "trainable" not in own else None
            self.__dict__["_init_depth"] = depth + 1
            try:
                init(self, *args, **kwargs)
            finally:
                self.__dict__["_init_depth"] = depth
            if trainable is not None:
                self.trainable = bool(trainable)
            if shape is not None:
                self.__dict__["_pending_shape"] = shape
            if depth == 0:
                self._build_pending()

        cls.__init__ = __init__  # type: ignore[method-assign]

    def __init__(
        self,
        name: str | None = None,
        dtype: Any = None,
        trainable: bool = True,
        activity_regularizer: Any = None,
        **kwargs: Any,
    ) -> None:
        shape = _take_input_shape(kwargs, frozenset())
        if kwargs:
            raise TypeError(
                f"{type(self).__name__} got unexpected keyword arguments: {sorted(kwargs)}"
            )
        self.name = name if name is not None else _unique_name(_snake(type(self).__name__))
        self.dtype = _as_dtype(dtype)
        self.trainable = trainable
        self.built = False
        self._variables: list[Any] = []
        self._losses: list[Any] = []
        self._regularizers: list[tuple[Any, Any]] = []
        self.activity_regularizer = regularizers.get(activity_regularizer)
        if shape is not None:
            self.__dict__["_pending_shape"] = shape
        if type(self) is Layer:
            self._build_pending()

    def _build_pending(self) -> None:
        shape = self.__dict__.pop("_pending_shape", None)
        if shape is not None:
            # A Sequential starts with an Input of this shape when this layer comes first.
            self.__dict__["_input_shape_arg"] = shape
        if shape is not None and not self.built:
            self.build(shape)
            self.built = True

    # -- weights ---------------------------------------------------------------------------------
    def add_weight(
        self,
        *args: Any,
        shape: Any = None,
        initializer: Any = None,
        dtype: Any = None,
        trainable: bool = True,
        name: str | None = None,
        regularizer: Any = None,
        constraint: Any = None,
        **options: Any,
    ) -> Any:
        """A new variable of the layer: Keras 3's `add_weight(shape, initializer, dtype,
        trainable, regularizer, constraint, ..., name)`, or positionally
        `add_weight(name, shape, initializer)`. Without an initializer, float weights start
        Glorot-uniform (Keras's default). A regularizer's penalty of the weight joins `losses`;
        the optimizers apply a constraint after each update.

        >>> import rustape as rt
        >>> layer = rt.keras.layers.Layer()
        >>> w = layer.add_weight(shape=(2,), initializer="ones")
        >>> w.numpy().tolist(), len(layer.weights)
        ([1.0, 1.0], 1)
        """
        positional: list[Any] = list(args)
        if positional and isinstance(positional[0], str):
            # The older order: name, shape, initializer, trainable.
            keys = ["name", "shape", "initializer", "trainable"]
        else:
            keys = ["shape", "initializer", "dtype", "trainable"]
        given = dict(zip(keys, positional))
        if len(positional) > len(keys):
            raise TypeError(f"add_weight takes at most {len(keys)} positional arguments")
        shape = given.get("shape", shape)
        initializer = given.get("initializer", initializer)
        dtype = given.get("dtype", dtype)
        trainable = bool(given.get("trainable", trainable))
        name = given.get("name", name)
        dtype = self.dtype if dtype is None else _as_dtype(dtype)
        shape = () if shape is None else tuple(int(d) for d in shape)
        if initializer is None:
            initializer = "glorot_uniform" if dtype.is_floating else "zeros"
        value = get_initializer(initializer)(shape, dtype)
        if value.dtype != dtype:
            value = _rt.cast(value, dtype)
        label = name if name is not None else f"variable_{len(self._variables)}"
        var = _rt.Variable(value, trainable=trainable, name=f"{self.name}/{label}")
        self._variables.append(var)
        regularizer = regularizers.get(regularizer)
        if regularizer is not None:
            self.__dict__.setdefault("_regularizers", []).append((var, regularizer))
        constraints.attach(var, constraints.get(constraint))
        return var

    def _held(self) -> Iterator[Any]:
        """The layers and variables this layer holds, in the order they were assigned:
        attributes, and the items of lists, tuples and dicts in them, nested to any depth
        (each once; a held layer's own contents are its own)."""
        seen = {id(self)}
        stack = list(reversed(list(vars(self).values())))
        while stack:
            obj = stack.pop()
            if id(obj) in seen:
                continue
            seen.add(id(obj))
            if isinstance(obj, (Layer, _rt.Variable)):
                yield obj
            elif isinstance(obj, dict):
                stack.extend(reversed(list(obj.values())))
            elif isinstance(obj, (list, tuple)):
                stack.extend(reversed(obj))

    def _sublayers(self) -> Iterator[Layer]:
        """The layers this one holds (see `_held`)."""
        return (obj for obj in self._held() if isinstance(obj, Layer))

    def _own_variables(self) -> list[Any]:
        """`add_weight`'s variables, then variables held in attributes (see `_held`)."""
        own = list(self._variables)
        known = {id(v) for v in own}
        for v in self._held():
            if isinstance(v, _rt.Variable) and id(v) not in known:
                known.add(id(v))
                own.append(v)
        return own

    def _collect(self, trainable: bool | None) -> list[Any]:
        """Own variables then the held layers', once each: all of them (`None`), or the
        trainable (`True`) or non-trainable (`False`) ones as Keras counts them (a layer with
        `trainable=False` makes all of its variables non-trainable)."""
        out: list[Any] = []
        seen: set[int] = set()

        def add(vs: list[Any]) -> None:
            for v in vs:
                if id(v) not in seen:
                    seen.add(id(v))
                    out.append(v)

        own = self._own_variables()
        if trainable is None:
            add([v for v in own if v.trainable] + [v for v in own if not v.trainable])
        elif trainable:
            add([v for v in own if v.trainable and self.trainable])
        else:
            add([v for v in own if not (v.trainable and self.trainable)])
        for layer in self._sublayers():
            if trainable is None:
                add(layer.weights)
            elif trainable:
                add(layer.trainable_weights if self.trainable else [])
            else:
                add(layer.weights if not self.trainable else layer.non_trainable_weights)
        return out

    @property
    def weights(self) -> list[Any]:
        """Every variable: the layer's own (trainable first), then its layers' ([] before
        the first call unless built at construction)."""
        return self._collect(None)

    @property
    def variables(self) -> list[Any]:
        """The same as `weights`."""
        return self.weights

    @property
    def trainable_weights(self) -> list[Any]:
        """The trainable variables: the layer's own, then its layers' (none if not trainable)."""
        return self._collect(True)

    @property
    def trainable_variables(self) -> list[Any]:
        """The same as `trainable_weights`."""
        return self.trainable_weights

    @property
    def non_trainable_weights(self) -> list[Any]:
        """The variables that are not trainable (a batch norm's moving statistics; all of them if the layer is not trainable)."""
        return self._collect(False)

    @property
    def non_trainable_variables(self) -> list[Any]:
        """The same as `non_trainable_weights`."""
        return self.non_trainable_weights

    def get_weights(self) -> list[Any]:
        """Every weight's value as a NumPy array, in `weights` order."""
        return [np.array(v.numpy()) for v in self.weights]

    def set_weights(self, weights: Any) -> None:
        """Assigns `weights` (arrays in `weights` order; their shapes must match).

        >>> import rustape as rt
        >>> dense = rt.keras.layers.Dense(1, input_shape=(2,))
        >>> dense.set_weights([[[1.0], [2.0]], [0.5]])
        >>> dense(rt.constant([[1.0, 1.0]])).numpy().tolist()
        [[3.5]]
        """
        variables = self.weights
        arrays = [np.asarray(w) for w in weights]
        if len(arrays) != len(variables):
            raise ValueError(
                f"Layer {self.name}: set_weights got {len(arrays)} arrays for {len(variables)} weights"
            )
        for v, w in zip(variables, arrays):
            if tuple(w.shape) != tuple(v.shape):
                raise ValueError(
                    f"Layer {self.name}: weight {v.name} has shape {tuple(v.shape)}, the array "
                    f"given {tuple(w.shape)}"
                )
            v.assign(w.astype(np.dtype(v.dtype.name)))

    # -- losses ------------------------------------------------------------------------------------
    def add_loss(self, loss: Any) -> None:
        """Adds a loss (a tensor) to `losses`; call it inside `call`.

        >>> import rustape as rt
        >>> class Penalised(rt.keras.layers.Layer):
        ...     def call(self, x):
        ...         self.add_loss(rt.reduce_sum(x) * 0.5)
        ...         return x
        >>> layer = Penalised()
        >>> _ = layer(rt.constant([[1.0, 2.0]]))
        >>> [float(l) for l in layer.losses]
        [1.5]
        """
        if not isinstance(loss, _rt.Tensor):
            loss = _rt.convert_to_tensor(loss)
        self.__dict__.setdefault("_losses", []).append(loss)

    @property
    def losses(self) -> list[Any]:
        """The losses added during the last call, this layer's then its layers', then the
        regularizers' penalties of the trainable weights (computed now, so a tape recording
        around the read differentiates them).

        >>> import rustape as rt
        >>> layer = rt.keras.layers.Dense(
        ...     1, kernel_initializer="ones", kernel_regularizer=rt.keras.regularizers.L1(0.5))
        >>> _ = layer(rt.ones([1, 4]))
        >>> [float(l) for l in layer.losses]
        [2.0]
        """
        out = self._added_losses()
        trainable = {id(v) for v in self.trainable_weights}
        for layer in [self, *self._all_sublayers()]:
            for var, regularizer in layer.__dict__.get("_regularizers", []):
                if id(var) in trainable:
                    trainable.discard(id(var))
                    out.append(regularizer(var))
        return out

    def _added_losses(self) -> list[Any]:
        """The `add_loss` losses of the last call, this layer's then its layers'."""
        out = list(self.__dict__.get("_losses", []))
        for layer in self._sublayers():
            out.extend(layer._added_losses())
        return out

    def _all_sublayers(self) -> list[Layer]:
        """Every layer held at any depth, each once, in `_held` order."""
        found: list[Layer] = []
        seen: set[int] = set()
        stack = list(reversed(list(self._sublayers())))
        while stack:
            layer = stack.pop()
            if id(layer) in seen:
                continue
            seen.add(id(layer))
            found.append(layer)
            stack.extend(reversed(list(layer._sublayers())))
        return found

    def _clear_losses(self) -> None:
        self.__dict__["_losses"] = []
        for layer in self._sublayers():
            layer._clear_losses()

    # -- calling -----------------------------------------------------------------------------------
    def get_config(self) -> dict[str, Any]:
        """The arguments the layer was constructed with, by name, with its `name`, `dtype`
        and `trainable` (Keras's config: `type(layer).from_config(config)` makes the same
        layer, unbuilt).

        >>> import rustape as rt
        >>> config = rt.keras.layers.Dense(3, activation="relu").get_config()
        >>> config["units"], config["activation"], config["name"].startswith("dense")
        (3, 'relu', True)
        """
        arguments = self.__dict__.get("_init_arguments")
        if arguments is None or any(k.startswith("*") for k in arguments):
            raise NotImplementedError(
                f"{type(self).__name__}.get_config: the layer's constructor arguments are not "
                "known (positional *args); override get_config"
            )
        config = dict(arguments)
        cls = type(self)
        for key, value in (("name", self.name), ("trainable", self.trainable)):
            if _accepts_keyword(cls, key):
                config[key] = value
        if _accepts_keyword(cls, "dtype"):
            config["dtype"] = str(self.dtype.name)
        return config

    @classmethod
    def from_config(cls, config: dict[str, Any]) -> Any:
        """The layer `get_config()`'s dict describes (unbuilt).

        >>> import rustape as rt
        >>> dense = rt.keras.layers.Dense(3)
        >>> rt.keras.layers.Dense.from_config(dense.get_config()).units
        3
        """
        return cls(**config)

    def build(self, input_shape: Any) -> None:
        """Creates the layer's variables for inputs of `input_shape` (called on the first call)."""
        self.built = True

    def call(self, inputs: Any, **kwargs: Any) -> Any:
        """The layer's computation (subclasses override it; `__call__` builds, then calls it)."""
        raise NotImplementedError

    def _convert_input(self, x: Any) -> Any:
        if _is_tensor_list(x):  # several inputs (merging layers): each converted
            return [self._convert_input(v) for v in x]
        if isinstance(x, _rt.Variable):
            x = x.value()
        elif not isinstance(x, _rt.Tensor):
            x = _rt.convert_to_tensor(x)
        if x.dtype.is_floating and x.dtype != self.dtype:
            x = _rt.cast(x, self.dtype)
        return x

    def __call__(self, inputs: Any, *args: Any, **kwargs: Any) -> Any:
        if _symbolic(inputs):
            # rt.keras.Input's symbolic tensors: the functional API (models.py) records the call.
            from ..functional import symbolic_call

            return symbolic_call(self, inputs, *args, **kwargs)
        previous_mask = kwargs.get("mask")
        if previous_mask is None:
            previous_mask = mask_of(inputs)
            if previous_mask is not None and _takes_mask(type(self).call):
                kwargs["mask"] = previous_mask
        inputs = self._convert_input(inputs)
        if not self.built:
            self.build(_shape_of(inputs))
            self.built = True
        stack = _training_stack()
        explicit = "training" in kwargs
        training = kwargs.pop("training", None)
        if training is None and stack:
            training = stack[-1]  # the enclosing layer's mode
        takes = _takes_training(type(self).call)
        if training is not None and (takes or (explicit and _takes_keywords(type(self).call))):
            kwargs["training"] = training
        outermost = not stack
        if outermost:
            self._clear_losses()
        stack.append(training)
        try:
            outputs = self.call(inputs, *args, **kwargs)
        finally:
            stack.pop()
        regularizer = getattr(self, "activity_regularizer", None)
        if regularizer is not None:
            self._add_activity_losses(regularizer, outputs)
        if self.supports_masking:
            self._attach_masks(outputs, self.compute_mask(inputs, previous_mask))
        elif previous_mask is not None:
            warnings.warn(
                f"Layer '{self.name}' (of type {type(self).__name__}) was passed an input with "
                "a mask attached to it. However, this layer does not support masking and will "
                "therefore destroy the mask information. Downstream layers will not see the "
                "mask.",
                stacklevel=2,
            )
        return outputs

    def compute_mask(self, inputs: Any, previous_mask: Any) -> Any:
        """The mask of the outputs: the input's, passed on (layers that change the timesteps
        override it).

        >>> import rustape as rt
        >>> rt.keras.layers.Dense(2).compute_mask(None, rt.constant([True, False])).numpy()
        array([ True, False])
        """
        return previous_mask

    @staticmethod
    def _attach_masks(outputs: Any, masks: Any) -> None:
        if isinstance(outputs, (list, tuple)):
            if not isinstance(masks, (list, tuple)):
                masks = [masks] + [None] * (len(outputs) - 1)
            for out, mask in zip(outputs, masks):
                set_keras_mask(out, mask)
        else:
            set_keras_mask(outputs, masks)

    def _add_activity_losses(self, regularizer: Any, outputs: Any) -> None:
        """Keras's activity penalty: the regularizer of each output tensor, divided by its
        batch size (its first dimension; a scalar output's penalty as is)."""
        stack = [outputs]
        while stack:
            out = stack.pop()
            if isinstance(out, (list, tuple)):
                stack.extend(reversed(out))
            elif isinstance(out, dict):
                stack.extend(reversed(list(out.values())))
            elif isinstance(out, _rt.Tensor):
                loss = regularizer(out)
                if len(out.shape) > 0:
                    batch = _rt.cast(out.shape[0], loss.dtype)
                    loss = _rt.divide_no_nan(loss, batch)
                self.add_loss(loss)

    def __repr__(self) -> str:
        return f"<rt.layers.{type(self).__name__} name={self.name!r} built={self.built}>"
