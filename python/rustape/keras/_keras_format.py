"""Keras 3's own files: `.keras` (a zip of `config.json`, `metadata.json` and
`model.weights.h5`) and `.weights.h5`, read and written in Keras's layout.

The weights file is HDF5 (read and written with `h5py`, the library Keras itself uses: the
optional extra `rustape[h5]`). Keras stores a layer's own variables at
`<path>/vars/<i>` (trainable first), where `<path>` follows its object tree: a model's layers
under `layers/<snake_case class name>` (`dense`, `dense_1`, ...), a layer's sublayers under
their attribute names (`cell`, `forward_layer`, `_query_dense`, ...), the optimizer's
variables under `optimizer/vars/<i>`. `keras_layout` walks a rustape model the same way.

Nothing in a file runs: classes are looked up by name (rustape's Keras classes, registered
ones, `custom_objects`), a `Lambda` layer (Python bytecode in Keras's config) is refused,
HDF5 links to other files and external or virtual datasets are refused, and a dataset is read
only once its shape equals the variable's.
"""

from __future__ import annotations

import functools
import inspect
import io
import json
import re
from typing import Any

import numpy as np

from .. import _rustape as _rt

#: The largest config a file may hold (a config is small; a huge one is not a model).
MAX_CONFIG_BYTES = 64 * 2**20
#: The most HDF5 objects (groups and datasets) a weights file may hold.
MAX_H5_OBJECTS = 1_000_000
#: Keras's keys that rustape's classes do not take and that change nothing it computes.
_IGNORED_KEYS = frozenset(
    {
        "ema_momentum",
        "ema_overwrite_frequency",
        "loss_scale_factor",
        "gradient_accumulation_steps",
        "steps_per_execution",
        "jit_compile",
        "run_eagerly",
        "auto_scale_loss",
        "seed",
        "unroll",
        "renorm_momentum",
    }
)


def h5py_module() -> Any:
    """`h5py`, or an ImportError saying how to install it."""
    try:
        # h5py ships no type information (and is an optional extra).
        import h5py  # type: ignore[import-untyped, import-not-found, unused-ignore]
    except ImportError as e:
        raise ImportError(
            "reading and writing Keras's HDF5 files (.keras, .weights.h5) needs h5py: "
            "pip install rustape[h5]"
        ) from e
    return h5py


# -- HDF5 -------------------------------------------------------------------------------------


class WeightStore:
    """The datasets of a Keras weights file by path (`layers/dense/vars/0`), unread until
    `take` checks a dataset's shape against the variable it goes to."""

    def __init__(self, source: Any, what: str) -> None:
        h5py = h5py_module()
        self.what = what
        try:
            self.file = h5py.File(source, "r")
        except OSError as e:
            raise ValueError(f"{what}: not an HDF5 file ({e})") from None
        self.datasets: dict[str, Any] = {}
        stack: list[tuple[str, Any]] = [("", self.file)]
        count = 0
        while stack:
            prefix, group = stack.pop()
            for name in group:
                count += 1
                if count > MAX_H5_OBJECTS:
                    raise ValueError(f"{what}: over {MAX_H5_OBJECTS} objects in the HDF5 file")
                path = f"{prefix}{name}"
                link = group.get(name, getlink=True)
                if type(link).__name__ != "HardLink":
                    raise ValueError(
                        f"{what}: {path!r} is a link ({type(link).__name__}); a Keras weights "
                        "file holds only groups and datasets"
                    )
                obj = group[name]
                if isinstance(obj, h5py.Group):
                    stack.append((f"{path}/", obj))
                elif isinstance(obj, h5py.Dataset):
                    if obj.is_virtual or obj.external:
                        raise ValueError(f"{what}: {path!r} reads another file's data")
                    self.datasets[path] = obj
        self.used: set[str] = set()

    def close(self) -> None:
        self.file.close()

    def __contains__(self, path: str) -> bool:
        return path in self.datasets

    def take(self, path: str, variable: Any) -> np.ndarray:
        """The dataset at `path` as an array of `variable`'s shape and dtype."""
        if path not in self.datasets:
            raise ValueError(f"{self.what}: no weights at {path!r} for variable {variable.name}")
        ds = self.datasets[path]
        if tuple(ds.shape) != tuple(variable.shape):
            raise ValueError(
                f"{self.what}: {path!r} has shape {list(ds.shape)}, variable {variable.name} "
                f"{list(variable.shape)}"
            )
        if ds.dtype.kind not in "biuf" or ds.attrs.get("dtype") == "bfloat16":
            raise ValueError(f"{self.what}: {path!r} has dtype {ds.dtype}, not a number type")
        self.used.add(path)
        return np.asarray(ds[()]).astype(np.dtype(variable.dtype.name))

    def unused(self, prefixes: tuple[str, ...]) -> list[str]:
        """Datasets under `prefixes` nothing took (a seed generator's state aside)."""
        return sorted(
            p
            for p in self.datasets
            if p not in self.used
            and p.startswith(prefixes)
            and "seed_generator" not in p.split("/")
        )


def write_weights(target: Any, entries: list[tuple[str, Any]]) -> None:
    """Writes `(path, variable)` pairs as Keras's HDF5 weights file to `target`."""
    h5py = h5py_module()
    with h5py.File(target, "w") as f:
        for path, variable in entries:
            group_path, _, name = path.rpartition("/")
            group = f.require_group(group_path)
            group[name] = np.asarray(variable.numpy())


# -- Keras's layout --------------------------------------------------------------------------


def _snake(name: str) -> str:
    name = re.sub(r"\W+", "", name)
    name = re.sub("(.)([A-Z][a-z]+)", r"\1_\2", name)
    return re.sub("([a-z])([A-Z])", r"\1_\2", name).lower()


def _name_key(name: str) -> str:
    return f"~{name}" if name.startswith("_") else name


def _base_keys() -> frozenset[str]:
    from .layers.base import Layer
    from .models import Model

    keys = set(Layer().__dict__) | set(Model().__dict__)
    keys |= {"optimizer", "loss", "_loss_tracker", "_compile_metrics", "_compile_arguments"}
    return frozenset(keys)


def _children(obj: Any, base: frozenset[str]) -> list[tuple[str, Any]]:
    """A layer's attributes that may hold layers, in Keras's order (public names sorted,
    then private ones), named as Keras's layer names them."""
    from .models import Model, Sequential

    if isinstance(obj, Sequential):
        return [("layers", obj.layers)]
    if isinstance(obj, Model) and obj._functional is not None:
        return [("layers", keras_functional_order(obj))]
    named = []
    for key, value in vars(obj).items():
        if key in base or key.startswith("__"):
            continue
        named.append((key, value))
    if isinstance(obj, Model):
        named.append(("layers", obj.layers))
    named.sort(key=lambda kv: _name_key(kv[0]))
    return named


def keras_functional_order(model: Any) -> list[Any]:
    """A functional model's layers in Keras's order (`Functional.layers`, which names their
    weights' groups): by depth from the inputs, ties in the order a depth-first walk from the
    outputs first meets them."""
    from .functional import _flatten

    inputs, outputs, _ = model._functional
    input_ids = {id(x) for x in _flatten(inputs)}
    index: dict[int, int] = {}
    layers: dict[int, Any] = {}
    finished: set[int] = set()
    order: list[Any] = []  # nodes, each after the nodes it reads
    for tensor in _flatten(outputs):
        # (tensor, expanded): a node is appended once all the nodes it reads are.
        stack: list[tuple[Any, bool]] = [(tensor, False)]
        while stack:
            x, expanded = stack.pop()
            node = getattr(x, "node", None)
            if node is None or id(x) in input_ids:
                continue
            if expanded:
                if id(node) not in finished:
                    finished.add(id(node))
                    order.append(node)
                continue
            if id(node) in finished:
                continue
            if id(node.layer) not in index:
                index[id(node.layer)] = len(index)
                layers[id(node.layer)] = node.layer
            stack.append((x, True))
            stack.extend((t, False) for t in reversed(node.symbols()))
    node_depth: dict[int, int] = {}
    layer_depth: dict[int, int] = {}
    for node in reversed(order):
        depth = max(node_depth.setdefault(id(node), 0), layer_depth.get(id(node.layer), 0))
        layer_depth[id(node.layer)] = depth
        node_depth[id(node)] = depth
        for t in node.symbols():
            parent = getattr(t, "node", None)
            if parent is not None and id(t) not in input_ids:
                node_depth[id(parent)] = max(depth + 1, node_depth.get(id(parent), 0))
    return sorted(layers.values(), key=lambda la: (-layer_depth[id(la)], index[id(la)]))


def _own_variables(layer: Any) -> list[Any]:
    own = layer._own_variables()
    return [v for v in own if v.trainable] + [v for v in own if not v.trainable]


def keras_layout(model: Any) -> list[tuple[str, Any]]:
    """Every variable of `model` with its path in Keras's weights file, in Keras's order."""
    from .layers.base import Layer
    from .layers.rnn import _RNN

    base = _base_keys()
    out: list[tuple[str, Any]] = []
    visited: set[int] = set()
    # (path, object, is_container), popped from the end.
    stack: list[tuple[str, Any, bool]] = [("", model, False)]
    while stack:
        path, obj, container = stack.pop()

        def join(name: str, path: str = path) -> str:
            return f"{path}/{name}" if path else name

        if container:
            used: dict[str, int] = {}
            pending = []
            items = list(obj.values()) if isinstance(obj, dict) else list(obj)
            for item in items:
                if isinstance(item, Layer):
                    stem = _snake(type(item).__name__)
                elif isinstance(item, (list, tuple, dict)):
                    stem = "container"
                else:
                    continue
                if stem in used:
                    used[stem] += 1
                    name = f"{stem}_{used[stem]}"
                else:
                    used[stem] = 0
                    name = stem
                pending.append((join(name), item, not isinstance(item, Layer)))
            stack.extend(reversed(pending))
            continue
        if id(obj) in visited:
            continue
        visited.add(id(obj))
        own = _own_variables(obj)
        vars_path = join("cell/vars") if isinstance(obj, _RNN) else join("vars")
        out.extend((f"{vars_path}/{i}", v) for i, v in enumerate(own))
        pending = []
        for name, child in _children(obj, base):
            if isinstance(child, Layer):
                pending.append((join(name), child, False))
            elif isinstance(child, (list, tuple, dict)) and _holds_layer(child):
                pending.append((join(name), child, True))
        stack.extend(reversed(pending))
    return out


def _holds_layer(container: Any) -> bool:
    from .layers.base import Layer

    stack = [container]
    seen: set[int] = set()
    while stack:
        item = stack.pop()
        if isinstance(item, Layer):
            return True
        if id(item) in seen:
            continue
        seen.add(id(item))
        if isinstance(item, dict):
            stack.extend(item.values())
        elif isinstance(item, (list, tuple)):
            stack.extend(item)
    return False


def optimizer_layout(model: Any) -> list[tuple[str, Any]]:
    """The optimizer's variables (iterations, learning rate, slots) at Keras's paths."""
    optimizer = getattr(model, "optimizer", None)
    if optimizer is None or not optimizer.built:
        return []
    return [(f"optimizer/vars/{i}", v) for i, v in enumerate(optimizer.variables)]


def load_weights_from(store: WeightStore, model: Any, optimizer: bool) -> None:
    """Assigns every variable of `model` (and its optimizer's, when asked) from `store`."""
    pairs = keras_layout(model)
    arrays = [store.take(path, v) for path, v in pairs]
    unused = store.unused(("layers/", "vars/"))
    if unused:
        raise ValueError(
            f"{store.what}: the file has weights the model does not: {', '.join(unused[:8])}"
        )
    opt_pairs: list[tuple[str, Any]] = []
    opt_arrays: list[np.ndarray] = []
    if optimizer and any(p.startswith("optimizer/") for p in store.datasets):
        opt = model.optimizer
        if not opt.built:
            opt.build(model.trainable_variables)
        opt_pairs = optimizer_layout(model)
        opt_arrays = [store.take(path, v) for path, v in opt_pairs]
        left = store.unused(("optimizer/",))
        if left:
            raise ValueError(
                f"{store.what}: the file's optimizer has {len(left)} more variables than "
                f"{type(opt).__name__} built for this model"
            )
    for (_, v), a in zip(pairs + opt_pairs, arrays + opt_arrays):
        v.assign(a)


# -- Keras's configs -> rustape objects --------------------------------------------------------


def _accepted(cls: Any) -> tuple[set[str], bool]:
    """The keyword arguments `cls`'s constructors name, and whether `cls` is the user's (which
    takes whatever its config holds)."""
    from .layers.base import Layer

    if not cls.__module__.startswith("rustape."):
        return set(), True
    names: set[str] = set()
    open_ended = False
    for klass in cls.__mro__:
        init = klass.__dict__.get("__init__")
        if init is None or klass is object:
            continue
        init = inspect.unwrap(init)
        for p in inspect.signature(init).parameters.values():
            if p.kind in (p.POSITIONAL_OR_KEYWORD, p.KEYWORD_ONLY):
                names.add(p.name)
            elif p.kind == p.VAR_KEYWORD:
                open_ended = True
    names.discard("self")
    # A layer's **kwargs end in Layer.__init__, which refuses unknown names; another class's
    # (a loss wrapping a function) passes them on.
    return names, open_ended and not issubclass(cls, Layer)


def _construct(cls: Any, config: dict[str, Any], what: str) -> Any:
    if not isinstance(cls, type):
        return cls(**config)
    accepted, anything = _accepted(cls)
    if not anything:
        kept = {}
        for key, value in config.items():
            if key in accepted:
                kept[key] = value
            elif value is None or value is False or key in _IGNORED_KEYS:
                continue
            else:
                raise ValueError(
                    f"load_model: {what}: rustape's {cls.__name__} has no argument {key!r} "
                    f"(the file sets it to {value!r})"
                )
        config = kept
    if hasattr(cls, "from_config"):
        return cls.from_config(config)
    return cls(**config)


class KerasReader:
    """Turns Keras's serialized objects into rustape's."""

    def __init__(self, custom_objects: dict[str, Any] | None) -> None:
        from .saving import _classes

        self.custom_objects = custom_objects or {}
        self.known = _classes(custom_objects)

    def lookup(self, config: dict[str, Any]) -> Any:
        from .saving import _registered

        registered = config.get("registered_name")
        name = config.get("class_name")
        for key in (registered, name):
            if isinstance(key, str):
                if key in self.custom_objects:
                    return self.custom_objects[key]
                if key in _registered:
                    return _registered[key]
        module = config.get("module")
        if isinstance(name, str) and isinstance(module, str):
            # Keras names the module: a loss and a metric may share a class name.
            from .saving import _module_classes, _modules

            home = _modules().get(module)
            if home is not None and name in _module_classes(home):
                return _module_classes(home)[name]
        if isinstance(name, str) and name in self.known:
            return self.known[name]
        if name == "Orthogonal" and config.get("module") == "keras.initializers":
            return _orthogonal
        raise ValueError(
            f"load_model: unknown class {registered or name!r}: pass it in custom_objects, or "
            "register it with rt.keras.saving.register_keras_serializable()"
        )

    def value(self, config: Any) -> Any:
        """A config value: plain data, or a serialized Keras object rebuilt."""
        if isinstance(config, list):
            return [self.value(v) for v in config]
        if not isinstance(config, dict):
            return config
        if "class_name" not in config:
            return {k: self.value(v) for k, v in config.items()}
        name = config["class_name"]
        inner: Any = config.get("config")
        if name in ("DTypePolicy", "FloatDTypePolicy"):
            return str(inner["name"]) if isinstance(inner, dict) else inner
        if name in ("__tuple__", "__numpy__") and not (
            isinstance(inner, dict) and "value" in inner
        ):
            raise ValueError(f"load_model: a {name} in the config has no value: {config!r}")
        if name == "__tuple__":
            return tuple(self.value(inner["value"]))
        if name == "__numpy__":
            dtype = np.dtype(str(inner["dtype"]))
            if dtype.kind not in "biuf":
                raise ValueError(f"load_model: an array of dtype {dtype} in the config")
            return np.asarray(inner["value"], dtype=dtype)
        if name == "function":
            return self.function(config)
        if name == "Lambda":
            layer = inner.get("name") if isinstance(inner, dict) else None
            raise ValueError(
                f"load_model: layer {layer!r} is a Lambda layer: its function is "
                "Python bytecode in the file, and rustape runs no code from a file; rebuild "
                "the model in code and load the weights (model.load_weights)"
            )
        cls = self.lookup(config)
        from .models import Model

        if isinstance(cls, type) and issubclass(cls, Model):
            return self.model(cls, config)
        arguments = {k: self.value(v) for k, v in (inner or {}).items()}
        # Layers build when the rebuilt model calls them (or from the model's build_config).
        return _construct(cls, arguments, f"{name}")

    def function(self, config: dict[str, Any]) -> Any:
        from .saving import _function

        name = config.get("config")
        registered = config.get("registered_name")
        if isinstance(registered, str) and registered != "function":
            name = registered
        if type(name) is not str:
            raise ValueError(f"load_model: a function without a name in the config: {config}")
        module = str(config.get("module") or "")
        for candidate in (name, f"keras.activations.{name}", f"keras.losses.{name}"):
            try:
                return _function(candidate, self.custom_objects)
            except ValueError:
                continue
        raise ValueError(
            f"load_model: unknown function {name!r} (module {module!r}): pass it in custom_objects"
        )

    # -- models ---------------------------------------------------------------------------
    def model(self, cls: Any, config: dict[str, Any]) -> Any:
        from .models import Model, Sequential

        inner = config.get("config") or {}
        if cls is Sequential:
            model = self.sequential(inner)
        elif cls is Model or config.get("class_name") == "Functional":
            model = self.functional(inner)
        else:
            arguments = {k: self.value(v) for k, v in inner.items()}
            model = _construct(cls, arguments, str(config.get("class_name")))
        shape = (config.get("build_config") or {}).get("input_shape")
        if shape is not None and not model.variables:
            _call_on_zeros(model, shape, inner)
        return model

    def sequential(self, config: dict[str, Any]) -> Any:
        from .functional import Input
        from .models import Sequential

        model = Sequential(name=config.get("name"), trainable=config.get("trainable", True))
        for layer in config.get("layers", []):
            if layer.get("class_name") == "InputLayer":
                model.add(_input(layer["config"], Input))
            else:
                model.add(self.value(layer))
        return model

    def functional(self, config: dict[str, Any]) -> Any:
        from .functional import Input
        from .models import Model

        layers: dict[str, Any] = {}
        produced: dict[tuple[str, int], list[Any]] = {}
        pending: list[tuple[str, int, dict[str, Any]]] = []
        for entry in config.get("layers", []):
            name = str(entry.get("name") or entry["config"]["name"])
            if entry.get("class_name") == "InputLayer":
                produced[(name, 0)] = [_input(entry["config"], Input)]
                continue
            layers[name] = self.value(entry)
            for k, node in enumerate(entry.get("inbound_nodes", [])):
                pending.append((name, k, node))
        while pending:
            left = []
            for name, k, node in pending:
                try:
                    args = self.tensors(node.get("args", []), produced)
                    kwargs = self.tensors(node.get("kwargs", {}), produced)
                except KeyError:
                    left.append((name, k, node))
                    continue
                layer = layers[name]
                kwargs = _call_kwargs(layer, kwargs, name)
                out = layer(*args, **kwargs)
                produced[(name, k)] = _flat(out)
            if len(left) == len(pending):
                raise ValueError(
                    "load_model: the functional model's config has calls whose inputs no layer "
                    f"produces ({', '.join(n for n, _, _ in left[:5])})"
                )
            pending = left

        def ends(spec: Any) -> Any:
            if isinstance(spec, list) and len(spec) == 3 and isinstance(spec[0], str):
                return produced[(spec[0], int(spec[1]))][int(spec[2])]
            if isinstance(spec, dict):
                return {k: ends(v) for k, v in spec.items()}
            if isinstance(spec, list):
                return [ends(v) for v in spec]
            raise ValueError(f"load_model: cannot read the model's inputs/outputs: {spec!r}")

        inputs = ends(config["input_layers"])
        outputs = ends(config["output_layers"])
        return Model(
            inputs=_single(inputs),
            outputs=_single(outputs),
            name=config.get("name"),
            trainable=config.get("trainable", True),
        )

    def tensors(self, value: Any, produced: dict[tuple[str, int], list[Any]]) -> Any:
        """A call's arguments with Keras's tensor references replaced by the tensors."""
        if isinstance(value, dict) and value.get("class_name") == "__keras_tensor__":
            layer, node, index = value["config"]["keras_history"]
            return produced[(str(layer), int(node))][int(index)]
        if isinstance(value, list):
            return [self.tensors(v, produced) for v in value]
        if isinstance(value, dict) and "class_name" in value:
            return self.value(value)
        if isinstance(value, dict):
            return {k: self.tensors(v, produced) for k, v in value.items()}
        return value


def _orthogonal(gain: float = 1.0, seed: Any = None) -> Any:
    """Keras's `Orthogonal` initializer: rustape's `"orthogonal"` (its `seed` aside: the
    file's weights replace what it draws)."""
    if gain == 1.0:
        return "orthogonal"
    from .layers._init import orthogonal

    return functools.partial(orthogonal, gain=gain)


def _shape(shape: Any) -> Any:
    if isinstance(shape, list) and shape and isinstance(shape[0], list):
        return [tuple(s) for s in shape]
    return tuple(shape)


def _single(x: Any) -> Any:
    return x[0] if isinstance(x, list) and len(x) == 1 else x


def _flat(out: Any) -> list[Any]:
    from .functional import _flatten

    return list(_flatten(out))


def _input(config: dict[str, Any], make: Any) -> Any:
    shape = config.get("batch_shape") or config.get("batch_input_shape")
    if shape is None:
        raise ValueError(f"load_model: InputLayer {config.get('name')!r} has no batch_shape")
    if config.get("sparse") or config.get("ragged"):
        raise ValueError(f"load_model: InputLayer {config.get('name')!r}: sparse/ragged inputs")
    dtype = config.get("dtype")
    if isinstance(dtype, dict):
        dtype = (dtype.get("config") or {}).get("name")
    return make(batch_shape=tuple(shape), dtype=dtype, name=config.get("name"))


def _call_kwargs(layer: Any, kwargs: dict[str, Any], name: str) -> dict[str, Any]:
    """Keras's recorded call keywords that `layer.call` takes (None and False are dropped
    when it does not)."""
    from .functional import _accepts

    out = {}
    for key, value in kwargs.items():
        if _accepts(layer.call, key):
            if value is not None:
                out[key] = value
        elif value is not None and value is not False:
            raise ValueError(
                f"load_model: layer {name!r} is called with {key}={value!r}, which rustape's "
                f"{type(layer).__name__} does not take"
            )
    return out


def _call_on_zeros(model: Any, shape: Any, config: dict[str, Any]) -> None:
    def zeros(s: Any) -> Any:
        dims = [1 if d is None else int(d) for d in s]
        if dims:
            dims[0] = 1
        return _rt.zeros(dims)

    built = _shape(shape)
    model(zeros(built) if isinstance(built, tuple) else [zeros(s) for s in built])


# -- whole files -------------------------------------------------------------------------------


def read_keras_file(
    archive: Any, path: str, custom_objects: dict[str, Any] | None, compile: bool
) -> Any:
    """The model in a `.keras` zip Keras 3 wrote (`archive`: an open ZipFile)."""
    names = set(archive.namelist())
    if "model.weights.h5" not in names:
        raise ValueError(f"load_model: {path} has no model.weights.h5")
    info = archive.getinfo("config.json")
    if info.file_size > MAX_CONFIG_BYTES:
        raise ValueError(f"load_model: the config in {path} is over 64 MiB")
    try:
        config = json.loads(archive.read("config.json"))
    except ValueError as e:
        raise ValueError(f"load_model: {path}: config.json is not JSON ({e})") from None
    if not isinstance(config, dict) or "class_name" not in config:
        raise ValueError(f"load_model: {path}: config.json does not describe a Keras model")
    reader = KerasReader(custom_objects)
    model = reader.value(config)
    compile_config = config.get("compile_config")
    if compile and compile_config:
        model.compile(**compile_arguments(reader, compile_config))
    read_weights_member(archive, path, model, bool(compile and compile_config))
    return model


def read_weights_member(archive: Any, path: str, model: Any, optimizer: bool) -> None:
    """Assigns the model's (and, when asked, its optimizer's) variables from the zip's
    `model.weights.h5`."""
    store = WeightStore(io.BytesIO(archive.read("model.weights.h5")), f"load_model: {path}")
    try:
        load_weights_from(store, model, optimizer=optimizer)
    finally:
        store.close()


def compile_arguments(reader: KerasReader, config: dict[str, Any]) -> dict[str, Any]:
    """`compile`'s arguments from Keras's `compile_config`."""
    out: dict[str, Any] = {}
    for key in ("optimizer", "loss", "metrics", "weighted_metrics", "loss_weights"):
        value = config.get(key)
        if value is not None:
            out[key] = reader.value(value)
    return out
