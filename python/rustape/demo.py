"""`python -m rustape.demo`: the TensorFlow guide's GradientTape examples, run on rustape
(`tf.` replaced by `rt.`), each printed beside the value TensorFlow documents, and the guide's
pictures drawn from rustape's numbers.

    python -m rustape.demo [--out DIR] [--no-plots]

The pictures (PNG, in DIR, `./rustape-demo` by default; matplotlib is the `demo` extra:
`pip install 'rustape[demo]'`):

- `sigmoid.png`: the sigmoid and its derivative, from the Jacobian with respect to a scalar;
- `hessian.png`: the Hessian of the Newton's-method example, as a heat map;
- `batch_jacobian.png`: the Jacobian's `(batch, batch)` slices laid out as patches (diagonal:
  what `batch_jacobian` relies on);
- `tape_graph.png`: the graph a small tape recorded (`tape.to_dot()`, drawn by Graphviz's `dot`
  when it is installed; else only `tape_graph.dot` is written).

Exits with status 1 if any value differs from the documented one.
"""

from __future__ import annotations

import argparse
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any, Callable

import numpy as np

import rustape as rt


def _first_order():
    x = rt.constant(3.0)
    with rt.GradientTape() as g:
        g.watch(x)
        y = x * x
    return g.gradient(y, x)  # Will compute to 6.0


def _second_order():
    x = rt.constant(3.0)
    with rt.GradientTape() as g:
        g.watch(x)
        with rt.GradientTape() as gg:
            gg.watch(x)
            y = x * x
        dy_dx = gg.gradient(y, x)  # Will compute to 6.0
    d2y_dx2 = g.gradient(dy_dx, x)  # Will compute to 2.0
    return [dy_dx, d2y_dx2]


def _persistent():
    x = rt.constant(3.0)
    with rt.GradientTape(persistent=True) as g:
        g.watch(x)
        y = x * x
        z = y * y
    dz_dx = g.gradient(z, x)  # 108.0 (4*x^3 at x = 3)
    dy_dx = g.gradient(y, x)  # 6.0
    return [dz_dx, dy_dx]


def _jacobian():
    with rt.GradientTape() as g:
        x = rt.constant([1.0, 2.0])
        g.watch(x)
        y = x * x
    return g.jacobian(y, x)


def _batch_jacobian():
    with rt.GradientTape() as g:
        x = rt.constant([[1.0, 2.0], [3.0, 4.0]], dtype=rt.float32)
        g.watch(x)
        y = x * x
    return g.batch_jacobian(y, x)


def _stop_recording():
    x = rt.Variable(2.0)
    y = rt.Variable(3.0)
    with rt.GradientTape() as t:
        x_sq = x * x
        with t.stop_recording():
            y_sq = y * y
        z = x_sq + y_sq
    grad = t.gradient(z, {"x": x, "y": y})
    return [grad["x"], grad["y"]]


def _reset():
    x = rt.Variable(2.0)
    y = rt.Variable(3.0)
    with rt.GradientTape() as t:
        y_sq = y * y
        t.reset()
        z = x * x + y_sq
    grad = t.gradient(z, {"x": x, "y": y})
    return [grad["x"], grad["y"]]


def _stop_gradient():
    x = rt.Variable(2.0)
    y = rt.Variable(3.0)
    with rt.GradientTape() as t:
        y_sq = y**2
        z = x**2 + rt.stop_gradient(y_sq)
    grad = t.gradient(z, {"x": x, "y": y})
    return [grad["x"], grad["y"]]


@rt.custom_gradient
def clip_gradients(y):
    def backward(dy):
        return rt.clip_by_norm(dy, 0.5)

    return y, backward


def _clip_gradients():
    v = rt.Variable(2.0)
    with rt.GradientTape() as t:
        output = clip_gradients(v * v)
    return t.gradient(output, v)  # calls "backward", which clips 4 to 2


def _multiple_tapes():
    x0 = rt.constant(0.0)
    x1 = rt.constant(0.0)
    with rt.GradientTape() as tape0, rt.GradientTape() as tape1:
        tape0.watch(x0)
        tape1.watch(x1)
        y0 = rt.math.sin(x0)
        y1 = rt.nn.sigmoid(x1)
        y = y0 + y1
        ys = rt.reduce_sum(y)
    return [tape0.gradient(ys, x0), tape1.gradient(ys, x1)]


def _higher_order():
    x = rt.Variable(1.0)
    with rt.GradientTape() as t2:
        with rt.GradientTape() as t1:
            y = x * x * x
        dy_dx = t1.gradient(y, x)
    d2y_dx2 = t2.gradient(dy_dx, x)
    return [dy_dx, d2y_dx2]


def _input_gradient_regularization():
    x = rt.random.normal([7, 5])
    layer = rt.keras.layers.Dense(10, activation=rt.nn.relu)
    with rt.GradientTape() as t2:
        with rt.GradientTape(watch_accessed_variables=False) as t1:
            t1.watch(x)
            y = layer(x)  # noqa: F841  (as in the guide)
            out = rt.reduce_sum(layer(x) ** 2)
        g1 = t1.gradient(out, x)
        g1_mag = rt.norm(g1)
    dg1_mag = t2.gradient(g1_mag, layer.trainable_variables)
    return [var.shape for var in dg1_mag]


def _sigmoid() -> tuple[Any, Any, Any]:
    x = rt.linspace(-10.0, 10.0, 200 + 1)
    delta = rt.Variable(0.0)
    with rt.GradientTape() as tape:
        y = rt.nn.sigmoid(x + delta)
    dy_dx = tape.jacobian(y, delta)
    return x, y, dy_dx


def _scalar_source():
    _, y, dy_dx = _sigmoid()
    return [y.shape, dy_dx.shape]


def _tensor_source():
    x = rt.random.normal([7, 5])
    layer = rt.keras.layers.Dense(10, activation=rt.nn.relu)
    with rt.GradientTape(persistent=True) as tape:
        y = layer(x)
    j = tape.jacobian(y, layer.kernel)
    g = tape.gradient(y, layer.kernel)
    j_sum = rt.reduce_sum(j, axis=[0, 1])
    delta = rt.reduce_max(abs(g - j_sum)).numpy()
    return [j.shape, bool(delta < 1e-3)]


def _newton() -> tuple[Any, Any, Any, Any]:
    x = rt.random.normal([7, 5])
    layer1 = rt.keras.layers.Dense(8, activation=rt.nn.relu)
    layer2 = rt.keras.layers.Dense(6, activation=rt.nn.relu)
    with rt.GradientTape() as t2:
        with rt.GradientTape() as t1:
            x = layer1(x)
            x = layer2(x)
            loss = rt.reduce_mean(x**2)
        g = t1.gradient(loss, layer1.kernel)
    h = t2.jacobian(g, layer1.kernel)
    n_params = rt.reduce_prod(layer1.kernel.shape)
    g_vec = rt.reshape(g, [n_params, 1])
    h_mat = rt.reshape(h, [n_params, n_params])
    eps = 1e-3
    eye_eps = rt.eye(h_mat.shape[0]) * eps
    update = rt.linalg.solve(h_mat + eye_eps, g_vec)
    _ = layer1.kernel.assign_sub(rt.reshape(update, layer1.kernel.shape))
    return layer1.kernel, h, h_mat, update


def _hessian():
    kernel, h, _, update = _newton()
    return [kernel.shape, h.shape, update.shape]


def _batch_jacobians() -> tuple[Any, Any]:
    x = rt.random.normal([7, 5])
    layer1 = rt.keras.layers.Dense(8, activation=rt.nn.elu)
    layer2 = rt.keras.layers.Dense(6, activation=rt.nn.elu)
    with rt.GradientTape(persistent=True, watch_accessed_variables=False) as tape:
        tape.watch(x)
        y = layer1(x)
        y = layer2(y)
    j = tape.jacobian(y, x)
    jb = tape.batch_jacobian(y, x)
    return j, jb


def _batch_jacobian_guide():
    j, jb = _batch_jacobians()
    j_sum = rt.reduce_sum(j, axis=2)
    j_select = rt.einsum("bxby->bxy", j)
    error = rt.reduce_max(abs(jb - j_sum))
    return [j.shape, j_sum.shape, j_select.shape, jb.shape, bool(error < 1e-3)]


EXAMPLES: list[tuple[str, Callable[[], Any], Any]] = [
    ("API: dy/dx of x*x at 3", _first_order, 6.0),
    ("API: nested tapes, dy/dx and d2y/dx2", _second_order, [6.0, 2.0]),
    ("API: persistent tape, dz/dx and dy/dx", _persistent, [108.0, 6.0]),
    ("API: jacobian of x*x", _jacobian, [[2.0, 0.0], [0.0, 4.0]]),
    ("API: batch_jacobian of x*x", _batch_jacobian, [[[2, 0], [0, 4]], [[6, 0], [0, 8]]]),
    ("guide: stop_recording, dz/dx and dz/dy", _stop_recording, [4.0, None]),
    ("guide: reset, dz/dx and dz/dy", _reset, [4.0, None]),
    ("guide: stop_gradient, dz/dx and dz/dy", _stop_gradient, [4.0, None]),
    ("guide: custom_gradient clip_gradients", _clip_gradients, 2.0),
    ("guide: multiple tapes, cos(0) and sigmoid'(0)", _multiple_tapes, [1.0, 0.25]),
    ("guide: higher order, dy/dx and d2y/dx2", _higher_order, [3.0, 6.0]),
    (
        "guide: input gradient regularisation shapes",
        _input_gradient_regularization,
        [(5, 10), (10,)],
    ),
    ("guide: scalar source jacobian shapes", _scalar_source, [(201,), (201,)]),
    (
        "guide: tensor source jacobian shape, |g - j_sum| < 1e-3",
        _tensor_source,
        [(7, 10, 5, 10), True],
    ),
    ("guide: Hessian and Newton step shapes", _hessian, [(5, 8), (5, 8, 5, 8), (40, 1)]),
    (
        "guide: batch jacobian shapes, |jb - j_sum| < 1e-3",
        _batch_jacobian_guide,
        [(7, 6, 7, 5), (7, 6, 5), (7, 6, 5), (7, 6, 5), True],
    ),
]


def _plain(value: Any) -> Any:
    if isinstance(value, (rt.Tensor, rt.Variable)):
        return value.numpy().tolist()
    if isinstance(value, (list, tuple)) and not all(isinstance(v, int) for v in value):
        return [_plain(v) for v in value]
    return value


def _same(got: Any, want: Any) -> bool:
    if isinstance(want, tuple):
        return tuple(got) == want if isinstance(got, (tuple, list)) else False
    if want is None or isinstance(want, bool):
        return got is want or got == want
    if isinstance(want, list):
        if not isinstance(got, (list, tuple)) or len(got) != len(want):
            return False
        if all(isinstance(w, (int, float)) for w in want) and all(
            isinstance(g, (int, float)) for g in got
        ):
            return bool(np.allclose(got, want))
        return all(_same(g, w) for g, w in zip(got, want))
    return bool(np.allclose(got, want))


# -- the pictures ------------------------------------------------------------------------


def _imshow_zero_center(fig: Any, ax: Any, image: Any, **kwargs: Any) -> None:
    lim = float(rt.reduce_max(abs(image)))
    shown = ax.imshow(np.asarray(image), vmin=-lim, vmax=lim, cmap="seismic", **kwargs)
    fig.colorbar(shown, ax=ax)


def _plot_as_patches(fig: Any, ax: Any, j: Any) -> None:
    # Reorder axes so the diagonals will each form a contiguous patch.
    j = rt.transpose(j, [1, 0, 3, 2])
    # Pad in between each patch.
    lim = rt.reduce_max(abs(j))
    j = rt.pad(j, [[0, 0], [1, 1], [0, 0], [1, 1]], constant_values=-lim)
    # Reshape to form a single image.
    s = j.shape
    j = rt.reshape(j, [s[0] * s[1], s[2] * s[3]])
    _imshow_zero_center(fig, ax, j, extent=[-0.5, s[2] - 0.5, s[0] - 0.5, -0.5])


def _figure() -> tuple[Any, Any]:
    from matplotlib.figure import (
        Figure,  # the `demo` extra; no pyplot, no display needed
    )

    fig = Figure(figsize=(6.4, 4.8), dpi=100)
    return fig, fig.subplots()


def _sigmoid_picture(path: Path) -> None:
    x, y, dy_dx = _sigmoid()
    fig, ax = _figure()
    ax.plot(x.numpy(), y.numpy(), label="y")
    ax.plot(x.numpy(), dy_dx.numpy(), label="dy/dx")
    ax.legend()
    ax.set_xlabel("x")
    ax.set_title("sigmoid(x) and its derivative (tape.jacobian(y, delta))")
    fig.savefig(path)


def _hessian_picture(path: Path) -> None:
    _, _, h_mat, _ = _newton()
    fig, ax = _figure()
    _imshow_zero_center(fig, ax, h_mat)
    ax.set_title("The Hessian of the Newton's-method example (symmetric)")
    fig.savefig(path)


def _batch_jacobian_picture(path: Path) -> None:
    j, _ = _batch_jacobians()
    fig, ax = _figure()
    _plot_as_patches(fig, ax, j)
    ax.set_title("All (batch, batch) slices are diagonal")
    fig.savefig(path)


def _graph_picture(directory: Path) -> list[Path]:
    """The recorded graph of a small tape: the .dot file, and its PNG when `dot` exists."""
    x = rt.constant(3.0)
    with rt.GradientTape() as tape:
        tape.watch(x)
        y = rt.math.sin(x) * x + x**2
    dot_path = directory / "tape_graph.dot"
    dot_path.write_text(tape.to_dot())
    written = [dot_path]
    dot = shutil.which("dot")
    if dot is not None:
        png = directory / "tape_graph.png"
        subprocess.run([dot, "-Tpng", str(dot_path), "-o", str(png)], check=True, timeout=60)
        written.append(png)
    del y
    return written


def write_pictures(directory: Path) -> list[Path]:
    """Draws the guide's pictures from rustape's numbers into `directory` (created if needed);
    returns the files written. Needs matplotlib (`pip install 'rustape[demo]'`).

    >>> import tempfile, pathlib
    >>> from rustape.demo import write_pictures
    >>> with tempfile.TemporaryDirectory() as d:
    ...     names = sorted(p.name for p in write_pictures(pathlib.Path(d)))
    >>> names[:3]
    ['batch_jacobian.png', 'hessian.png', 'sigmoid.png']
    """
    directory.mkdir(parents=True, exist_ok=True)
    written = []
    for name, draw in [
        ("sigmoid.png", _sigmoid_picture),
        ("hessian.png", _hessian_picture),
        ("batch_jacobian.png", _batch_jacobian_picture),
    ]:
        draw(directory / name)
        written.append(directory / name)
    return written + _graph_picture(directory)


def _arguments(argv: list[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(
        prog="python -m rustape.demo",
        description="Runs the TensorFlow guide's GradientTape examples on rustape, prints each "
        "beside the value TensorFlow documents, and draws the guide's pictures as PNG.",
    )
    parser.add_argument(
        "--out",
        type=Path,
        default=Path("rustape-demo"),
        metavar="DIR",
        help="where the pictures go (default: ./rustape-demo)",
    )
    parser.add_argument("--no-plots", action="store_true", help="only the examples, no pictures")
    return parser.parse_args(argv)


def main(argv: list[str] | None = None) -> int:
    """Runs the demo (`argv`: its command-line arguments); returns the exit status, 1 if a
    value differs from TensorFlow's documented one (or a picture could not be drawn).

    >>> from rustape.demo import main
    >>> main(["--no-plots"])  # doctest: +ELLIPSIS
    rustape ...
    16 of 16 examples give TensorFlow's documented values
    0
    """
    args = _arguments(argv)
    rt.random.set_seed(0)
    print(f"rustape {rt.__version__}: TensorFlow's documented GradientTape examples\n")
    width = max(len(title) for title, _, _ in EXAMPLES)
    failures = 0
    for title, fn, documented in EXAMPLES:
        try:
            got = _plain(fn())
            ok = _same(got, documented)
        except Exception as e:  # noqa: BLE001  (report it and go on with the other examples)
            got, ok = f"{type(e).__name__}: {e}", False
        failures += not ok
        print(
            f"{title:<{width}}  rustape: {got!s:<40}  TF documents: {documented!s:<30}  {'ok' if ok else 'MISMATCH'}"
        )
    print(
        f"\n{len(EXAMPLES) - failures} of {len(EXAMPLES)} examples give TensorFlow's documented values"
    )
    if args.no_plots:
        return 1 if failures else 0
    try:
        import matplotlib  # noqa: F401
    except ImportError:
        print("\nNo pictures: matplotlib is not installed (pip install 'rustape[demo]').")
        return 1
    rt.random.set_seed(0)
    written = write_pictures(args.out)
    print(f"\nThe guide's pictures, drawn from rustape's numbers, are in {args.out.resolve()}:")
    for path in written:
        print(f"  {path.name}")
    if not any(p.name == "tape_graph.png" for p in written):
        print(
            "  (Graphviz's `dot` is not installed: render tape_graph.dot with it to see the graph)"
        )
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
