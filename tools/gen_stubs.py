"""Writes the package's type stubs from the built extension and its binding table.

    python -m tools.gen_stubs           # (re)writes python/rustape/*.pyi
    python -m tools.gen_stubs --check   # exits 1 naming every stub that is out of date

Where each part comes from:
- which functions exist, in which namespace, under which name, and their parameters' names,
  kinds and defaults: the built extension (`rustape._rustape._bindings` and each function's
  runtime signature) and the `@export` rows of `_ops.py`;
- the parameters' types: PARAMETER_TYPES, by parameter name, and FUNCTION_TYPES for a
  parameter or a return that differs in one function (a function returns a `Tensor` unless
  FUNCTION_TYPES says otherwise). A parameter name neither knows stops the generator, naming
  it: add its type there;
- the classes: tools/stubs/classes.pyi, typed by hand;
- `python/rustape/__init__.pyi` and one stub per namespace (`math.pyi`, ...): re-exports of the
  namespace's rows, plus (for `rt`) the package's own Python names.

`python -m mypy.stubtest rustape` checks the result against the runtime (.ci/run).
"""

from __future__ import annotations

import argparse
import inspect
import re
import sys
import types
from pathlib import Path
from typing import Any, Callable

ROOT = Path(__file__).resolve().parent.parent
PACKAGE = ROOT / "python" / "rustape"
CLASSES = Path(__file__).resolve().parent / "stubs" / "classes.pyi"
#: ruff's line length: longer imports and signatures are wrapped.
LINE_LENGTH = 88

#: A parameter's type, by its name (the same name means the same kind of argument everywhere).
PARAMETER_TYPES: dict[str, str] = {
    # tensors
    **dict.fromkeys(
        [
            "x",
            "y",
            "a",
            "b",
            "t",
            "input",
            "input_tensor",
            "tensor",
            "features",
            "logits",
            "value",
            "condition",
            "clip_value_min",
            "clip_value_max",
            "clip_norm",
            "params",
            "indices",
            "matrix",
            "rhs",
            "mean",
            "variance",
            "offset",
            "scale",
            "on_value",
            "off_value",
            "start",
            "stop",
            "limit",
            "delta",
            "shift",
            "inputs",
            "real",
            "imag",
            "x1",
            "x2",
        ],
        "TensorLike",
    ),
    "values": "Sequence[TensorLike]",
    # dtypes, axes, shapes
    **dict.fromkeys(["dtype", "dtype_hint", "output_type", "type_value"], "DTypeLike"),
    **dict.fromkeys(["axis", "axes"], "Axis"),
    **dict.fromkeys(["shape", "dims", "multiples", "batch_shape"], "Shape"),
    "perm": "Sequence[int] | None",
    "paddings": "Sequence[Sequence[int]] | TensorLike",
    # flags
    **dict.fromkeys(
        [
            "keepdims",
            "conjugate",
            "transpose_a",
            "transpose_b",
            "adjoint_a",
            "adjoint_b",
            "adjoint",
            "second_order",
        ],
        "bool",
    ),
    "validate_indices": "bool | None",
    # numbers
    **dict.fromkeys(
        ["num", "depth", "num_rows", "num_columns", "batch_dims", "num_samples"], "int"
    ),
    **dict.fromkeys(
        ["stddev", "minval", "maxval", "variance_epsilon", "eps", "atol", "rtol"], "float"
    ),
    "constant_values": "float | TensorLike",
    # convolution, pooling and layer ops (rt.nn)
    **dict.fromkeys(
        [
            "filters",
            "filter",
            "bias",
            "ids",
            "z",
            "c_prev",
            "x_proj",
            "h_proj",
            "h_prev",
            "recurrent_kernel",
            "h0",
            "c0",
        ],
        "TensorLike",
    ),
    **dict.fromkeys(["strides", "stride", "ksize"], "int | Sequence[int]"),
    "dilations": "int | Sequence[int] | None",
    "padding": "str | Sequence[Sequence[int]] | None",
    "data_format": "str | None",
    "output_shape": "Shape",
    "noise_shape": "Shape | None",
    "rate": "float",
    "max_norm": "float | None",
    "seed": "int | None",
    "alg": "str | None",
    **dict.fromkeys(
        ["scalar", "data", "segment_ids", "updates", "mask", "labels", "repeats", "num_segments"],
        "TensorLike",
    ),
    "num_or_size_splits": "int | Sequence[int]",
    **dict.fromkeys(["exclusive", "reverse", "sorted", "stable", "approximate"], "bool"),
    "k": "int",
    "index_type": "DTypeLike",
    "direction": "str",
    "indexing": "str",
    "args": "TensorLike",
    "padding_value": "float",
    "align": "str | None",
    "ord": "str | float | None",
    # linear algebra
    **dict.fromkeys(["chol", "diagonal"], "TensorLike"),
    **dict.fromkeys(["lower", "full_matrices", "compute_uv", "fast", "validate_args"], "bool"),
    **dict.fromkeys(["num_lower", "num_upper", "num_cols"], "int"),
    "l2_regularizer": "float",
    "rcond": "float | None",
    # strings
    "name": "str | None",
    # DLPack and configuration
    "copy": "bool | None",
    "device": "Any",
    "n": "int",
    "mode": "str",
    "equation": "str",
    # images
    **dict.fromkeys(["images", "grads"], "TensorLike"),
    **dict.fromkeys(["size", "image_size"], "TensorLike | Sequence[int]"),
    # bounding boxes
    **dict.fromkeys(["boxes", "scores", "overlaps"], "TensorLike"),
    **dict.fromkeys(
        ["max_output_size", "max_output_size_per_class", "max_total_size"], "int | TensorLike"
    ),
    **dict.fromkeys(
        ["iou_threshold", "score_threshold", "overlap_threshold", "soft_nms_sigma"],
        "float | None",
    ),
    "colors": "TensorLike | None",
    "tile_size": "int | None",
    **dict.fromkeys(
        [
            "pad_to_max_output_size",
            "sorted_input",
            "canonicalized_coordinates",
            "pad_per_class",
            "clip_boxes",
        ],
        "bool",
    ),
    # signal
    "fft_length": "TensorLike | Sequence[int] | None",
    "method": "str",
    **dict.fromkeys(["preserve_aspect_ratio", "antialias"], "bool"),
    "transform": "TensorLike",
    **dict.fromkeys(["interpolation", "fill_mode"], "str"),
    "fill_value": "float | None",
    # integer ops
    "kth": "int",
    # strings
    **dict.fromkeys(["encoding", "unit", "pattern", "rewrite"], "str | bytes | None"),
    **dict.fromkeys(["separator", "sep"], "str | bytes | None"),
    **dict.fromkeys(["pos", "len", "num_buckets"], "int"),
    **dict.fromkeys(["maxsplit", "precision"], "int | None"),
    "replace_global": "bool",
    "out_type": "DTypeLike | None",
}

#: Where one function differs from PARAMETER_TYPES: `"function.parameter"` for a parameter,
#: `"function"` for its return type (default `Tensor`).
FUNCTION_TYPES: dict[str, str] = {
    # the stateless random ops take a seed pair
    **{
        f"{name}.seed": "Sequence[int] | TensorLike"
        for name in (
            "stateless_normal",
            "stateless_truncated_normal",
            "stateless_uniform",
            "stateless_categorical",
            "random_split",
            "fold_in",
            "stateless_gamma",
        )
    },
    "fold_in.data": "int | TensorLike",
    **{
        f"{f}.{a}": "float | TensorLike"
        for f in ("random_gamma", "stateless_gamma")
        for a in ("alpha", "beta")
    },
    "philox_draw.kind": "str",
    "philox_draw.state": "Sequence[int]",
    "philox_draw.a": "float | None",
    "philox_draw.b": "float | None",
    "image_adjust_saturation.saturation_factor": "float | TensorLike",
    "image_separable_filter.taps_h": "Sequence[float] | TensorLike",
    "image_separable_filter.taps_w": "Sequence[float] | TensorLike",
    "image_separable_filter.adjoint": "bool",
    # returns
    "as_dtype": "DType",
    "moments": "tuple[Tensor, Tensor]",
    "lstm_cell": "tuple[Tensor, Tensor]",
    "lstm_sequence": "tuple[Tensor, Tensor]",
    "unstack": "list[Tensor]",
    **dict.fromkeys(
        ["strings_split_rows", "strings_bytes_split_rows", "strings_unicode_split_rows"],
        "tuple[Tensor, Tensor]",
    ),
    "set_seed": "None",
    "set_num_threads": "None",
    "get_num_threads": "int",
    "to_dlpack": "Any",
    "record_custom_gradient": "list[Tensor]",
    "gradcheck": "bool",
    "pause_all_tapes": "None",
    "resume_all_tapes": "None",
    "any_tape_recording": "bool",
    "begin_variable_watch": "None",
    "end_variable_watch": "list[Variable]",
    "top_k": "tuple[Tensor, Tensor]",
    "unique": "tuple[Tensor, Tensor]",
    "unique_with_counts": "tuple[Tensor, Tensor, Tensor]",
    "unique_slices": "tuple[Tensor, Tensor, Tensor, Tensor]",
    "non_max_suppression_with_scores": "tuple[Tensor, Tensor]",
    "non_max_suppression_padded": "tuple[Tensor, Tensor]",
    "combined_non_max_suppression": "Any",
    # searching and counting
    "searchsorted.sorted_sequence": "TensorLike",
    "searchsorted.values": "TensorLike",
    "searchsorted.side": "str",
    "searchsorted.out_type": "DTypeLike",
    "bincount.arr": "TensorLike",
    "bincount.weights": "TensorLike | None",
    "bincount.minlength": "int | None",
    "bincount.maxlength": "int | None",
    "bincount.axis": "int | None",
    "bincount.binary_output": "bool",
    **{f"{n}.out_idx": "DTypeLike" for n in ("unique", "unique_with_counts")},
    "unique_slices.axis": "int",
    # CTC
    **{f"ctc_loss.{n}": "TensorLike" for n in ("label_length", "logit_length")},
    "ctc_loss.logits_time_major": "bool",
    "ctc_loss.unique": "Any",
    "ctc_loss.blank_index": "int | None",
    **{
        f"{n}.sequence_length": "TensorLike"
        for n in ("ctc_greedy_decoder", "ctc_beam_search_decoder")
    },
    "ctc_greedy_decoder.merge_repeated": "bool",
    "ctc_greedy_decoder.blank_index": "int | None",
    "ctc_greedy_decoder": "tuple[list[Tensor], Tensor]",
    "ctc_beam_search_decoder.beam_width": "int",
    "ctc_beam_search_decoder.top_paths": "int",
    "ctc_beam_search_decoder": "tuple[list[Tensor], Tensor]",
    "checkpoint_read_bundle": "list[tuple[str, int, list[int], Any]]",
    "checkpoint_read_bundle.prefix": "str",
    "checkpoint_write_bundle": "None",
    "checkpoint_write_bundle.prefix": "str",
    "checkpoint_write_bundle.rows": "list[Any]",
    "checkpoint_decode_graph": "list[Any]",
    "checkpoint_decode_graph.data": "bytes",
    "checkpoint_encode_graph": "bytes",
    "checkpoint_encode_graph.nodes": "list[Any]",
    "quantile_summary_update": "tuple[list[float], list[float]]",
    "quantile_summary_update.values": "Sequence[float]",
    "quantile_summary_update.weights": "Sequence[float]",
    "quantile_summary_update.data": "TensorLike",
    "quantile_summary_update.epsilon": "float",
    "quantile_bin_boundaries": "list[float]",
    "quantile_bin_boundaries.values": "Sequence[float]",
    "quantile_bin_boundaries.weights": "Sequence[float]",
    "quantile_bin_boundaries.num_bins": "int",
    **{
        f"{n}.{p}": t
        for n in ("histogram_fixed_width", "histogram_fixed_width_bins")
        for p, t in (("values", "TensorLike"), ("value_range", "TensorLike"), ("nbins", "int"))
    },
    "split": "list[Tensor]",
    "meshgrid": "list[Tensor]",
    "slogdet": "tuple[Tensor, Tensor]",
    "qr": "tuple[Tensor, Tensor]",
    "eigh": "tuple[Tensor, Tensor]",
    "lu": "tuple[Tensor, Tensor]",
    "lu.output_idx_type": "DTypeLike",
    "svd": "Tensor | tuple[Tensor, Tensor, Tensor]",
    # parameters
    "metric_values.metric": "str",
    "metric_values.y_true": "TensorLike",
    "metric_values.y_pred": "TensorLike",
    "metric_values.threshold": "float | None",
    "metric_values.k": "int | None",
    "set_num_threads.n": "int",
    "from_dlpack.x": "Any",
    "sort.values": "TensorLike",
    "argsort.values": "TensorLike",
    "cumsum.axis": "int",
    "cumprod.axis": "int",
    "split.axis": "int",
    "sort.axis": "int",
    "argsort.axis": "int",
    "softmax_cross_entropy_with_logits.axis": "int",
    "tensordot.axes": "int | Sequence[Sequence[int]]",
    "diag_part.k": "int",
    "diag.num_rows": "int | None",
    "diag.num_cols": "int | None",
    "polygamma.a": "TensorLike",
    "record_custom_gradient.name": "str",
    "record_custom_gradient.inputs": "Sequence[Tensor]",
    "record_custom_gradient.outputs": "Sequence[Tensor]",
    "record_custom_gradient.grad_fn": "Callable[[list[Tensor | None]], Sequence[TensorLike | None]]",
    "gradcheck.f": "Callable[[list[Tensor]], Tensor]",
    "gradcheck.inputs": "Sequence[Tensor]",
    "random_normal.mean": "float",
    "set_seed.seed": "int",
    "concat.axis": "int",
    "expand_dims.axis": "int",
    "stack.axis": "int",
    "unstack.axis": "int",
    "unstack.num": "int | None",
    "linspace.axis": "int",
    "one_hot.axis": "int | None",
    "gather.axis": "int | None",
    "softmax.axis": "int | None",
    "log_softmax.axis": "int | None",
    "argmax.axis": "int | None",
    "argmin.axis": "int | None",
    "moments.axes": "int | Sequence[int]",
    "batch_normalization.offset": "TensorLike | None",
    "batch_normalization.scale": "TensorLike | None",
    "batch_normalization.variance_epsilon": "float",
}

HEADER = '''\
"""Type stubs for the extension `rustape._rustape`.

Generated by `python -m tools.gen_stubs` from the extension's binding table: do not edit.
"""
import builtins
import sys
from collections.abc import Callable, Iterator, Sequence
from typing import Any, final

from numpy.typing import NDArray

from ._shape import TensorShape
from ._typing import Axis, DTypeLike, Shape, TensorLike
'''

NAMESPACE_HEADER = '''\
"""Type stubs for `{module}`: {what}.

Generated by `python -m tools.gen_stubs` from the binding table: do not edit.
"""
'''


class UnknownParameter(Exception):
    """A parameter whose type PARAMETER_TYPES and FUNCTION_TYPES do not give."""


def _default(value: Any) -> str:
    if isinstance(value, str):
        return '"' + value.replace("\\", "\\\\").replace('"', '\\"') + '"'
    return repr(value)


def _parameter_type(function: str, parameter: str) -> str:
    typ = FUNCTION_TYPES.get(f"{function}.{parameter}") or PARAMETER_TYPES.get(parameter)
    if typ is None:
        raise UnknownParameter(
            f"tools/gen_stubs.py: no type for parameter {parameter!r} of {function!r}: add it to "
            f"PARAMETER_TYPES (or FUNCTION_TYPES[{function + '.' + parameter!r}])"
        )
    return typ


def function_stub(name: str, f: Callable[..., Any]) -> str:
    """The stub line of extension function `name`, from its runtime signature."""
    signature = inspect.signature(f)
    parts: list[str] = []
    keyword_only_started = False
    for p in signature.parameters.values():
        typ = _parameter_type(name, p.name)
        if p.kind is p.VAR_POSITIONAL:
            parts.append(f"*{p.name}: {typ}")
            keyword_only_started = True
            continue
        if p.kind is p.KEYWORD_ONLY and not keyword_only_started:
            parts.append("*")
            keyword_only_started = True
        if p.default is p.empty:
            parts.append(f"{p.name}: {typ}")
        else:
            if p.default is None and not _admits_none(typ):
                typ = f"{typ} | None"
            parts.append(f"{p.name}: {typ} = {_default(p.default)}")
        if p.kind is p.POSITIONAL_ONLY and _last_positional_only(signature, p):
            parts.append("/")
    returns = FUNCTION_TYPES.get(name, "Tensor")
    line = f"def {name}({', '.join(parts)}) -> {returns}: ..."
    if len(line) <= LINE_LENGTH:
        return line
    return f"def {name}(\n" + "".join(f"    {part},\n" for part in parts) + f") -> {returns}: ..."


def _admits_none(typ: str) -> bool:
    return typ in ("DTypeLike", "Axis") or "None" in typ


def _last_positional_only(signature: inspect.Signature, p: inspect.Parameter) -> bool:
    names = [q.name for q in signature.parameters.values() if q.kind is q.POSITIONAL_ONLY]
    return bool(names) and names[-1] == p.name


def extension_stub() -> str:
    """`_rustape.pyi`: the classes (by hand), the dtypes and every function of the table."""
    from rustape import _rustape

    out = [HEADER]
    out.append(f"__all__ = {_list(_rustape.__all__)}\n")
    out.append("__version__: str")
    out.append("_bindings: tuple[tuple[str, tuple[tuple[str, str], ...]], ...]\n")
    classes = CLASSES.read_text().split("# -- classes --\n", 1)[1]
    out.append(_builtin_bool(classes.strip("\n")) + "\n")
    values, functions = [], []
    for name, _ in _rustape._bindings:
        obj = getattr(_rustape, name)
        if isinstance(obj, type) or name == "__version__":
            continue
        if isinstance(obj, _rustape.DType):
            values.append(f"{name}: DType")
        elif isinstance(obj, types.BuiltinFunctionType):
            functions.append(_builtin_bool(function_stub(name, obj)))
        else:
            raise TypeError(
                f"tools/gen_stubs.py: cannot write a stub for {name!r} ({type(obj).__name__})"
            )
    out.append("\n".join(values) + "\n")
    out.append("\n".join(functions))
    return "\n".join(out) + "\n"


def _builtin_bool(text: str) -> str:
    """`bool` in annotations as `builtins.bool`: the module's own `bool` is the dtype."""
    return re.sub(r"(?<![\w.])bool(?=[\],): ]|$)", "builtins.bool", text, flags=re.MULTILINE)


def _list(names: list[str]) -> str:
    """A `__all__` list, in the order ruff wants it (RUF022: isort-style)."""
    body = "".join(f'    "{n}",\n' for n in sorted(names, key=_isort_key))
    return "[\n" + body + "]"


def _isort_key(name: str) -> tuple[int, tuple[tuple[int, int, str], ...]]:
    if name.isupper() and len(name) > 1:
        kind = 0
    elif name[:1].isupper():
        kind = 1
    else:
        kind = 2
    return (kind, _natural(name))


def _natural(name: str) -> tuple[tuple[int, int, str], ...]:
    """Ruff's natural order: runs of digits compare as numbers (`complex64` before
    `complex128`), and before other characters."""
    return tuple(
        (0, int(run), "") if run.isdigit() else (1, 0, run) for run in re.findall(r"\d+|\D+", name)
    )


def _origins() -> dict[int, tuple[str, str]]:
    """Each table object's (module, name there), by `id`."""
    import importlib

    from rustape import _export, _rustape

    origins: dict[int, tuple[str, str]] = {}
    for name, _ in _rustape._bindings:
        origins[id(getattr(_rustape, name))] = ("rustape._rustape", name)
    for f in _export._PYTHON.values():
        # A composition's own module: `_ops` for the ops, `_config` for rt.config's settings.
        origins[id(f)] = (f.__module__, f.__name__)
        assert getattr(importlib.import_module(f.__module__), f.__name__) is f
    return origins


def namespace_stub(namespace: str) -> str:
    """The stub of one namespace module: its rows re-exported; for `rt`, the package's other
    public names too."""
    from rustape import _export

    module = _namespace_module(namespace)
    origins = _origins()
    rows = _export.table()[namespace]
    # Imports relative to the stub's own package (`rustape.experimental.dlpack` is two deep).
    depth = len(module.__name__.split(".")) - (0 if hasattr(module, "__path__") else 1)

    def relative(name: str) -> str:
        return "." * depth + name.removeprefix("rustape").lstrip(".")

    lines: list[str] = []
    for exported in sorted(rows):
        origin, name = origins[id(rows[exported])]
        lines.append(f"from {relative(origin)} import {name} as {exported}")
    extra: list[str] = []
    for exported in sorted(set(module.__all__) - set(rows)):
        obj = getattr(module, exported)
        if exported == "__version__":
            extra.append("__version__: str")
        elif obj is None:
            extra.append(f"{exported}: None")
        elif isinstance(obj, types.ModuleType):
            lines.append(f"from . import {exported} as {exported}")
        else:
            lines.append(f"from {relative(obj.__module__)} import {obj.__qualname__} as {exported}")
    doc = (module.__doc__ or "").strip().splitlines()[0].rstrip(".")
    what = doc.split(": ", 1)[-1] if namespace != "rt" else "the top-level names"
    text = NAMESPACE_HEADER.format(module=module.__name__, what=what)
    text += "\n".join(_wrap_import(line) for line in sorted(lines, key=_import_order)) + "\n"
    if extra:
        text += "\n" + "\n".join(extra) + "\n"
    text += f"\n__all__ = {_list(sorted(module.__all__))}\n"
    return text


def _namespace_module(namespace: str) -> types.ModuleType:
    """The module of a namespace: `rt` is the package, `math` is `rustape.math`, ..."""
    import importlib

    return importlib.import_module("rustape" if namespace == "rt" else f"rustape.{namespace}")


def _wrap_import(line: str) -> str:
    """An import longer than a line, in parentheses (as ruff's isort writes it)."""
    if len(line) <= LINE_LENGTH:
        return line
    head, names = line.split(" import ", 1)
    return f"{head} import (\n    {names},\n)"


def _import_order(line: str) -> tuple[str, tuple[tuple[int, int, str], ...]]:
    parts = line.split()
    return (parts[1], _natural(parts[3]))


def stubs() -> dict[Path, str]:
    """Every generated stub, by path."""
    from rustape import _export

    out = {PACKAGE / "_rustape.pyi": extension_stub()}
    for namespace in sorted(_export.table()):
        source = _namespace_module(namespace).__file__
        assert source is not None
        out[Path(source).with_suffix(".pyi")] = namespace_stub(namespace)
    return out


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument(
        "--check", action="store_true", help="fail if a stub is out of date; write nothing"
    )
    args = parser.parse_args(argv)
    try:
        wanted = stubs()
    except UnknownParameter as e:
        print(e, file=sys.stderr)
        return 2
    stale = [path for path, text in wanted.items() if not path.exists() or path.read_text() != text]
    if args.check:
        for path in stale:
            print(
                f"{path.relative_to(ROOT)} is out of date: run python -m tools.gen_stubs",
                file=sys.stderr,
            )
        return 1 if stale else 0
    for path in stale:
        path.write_text(wanted[path])
        print(f"wrote {path.relative_to(ROOT)}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
