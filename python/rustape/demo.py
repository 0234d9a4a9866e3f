"""`python -m rustape.demo`: the TensorFlow documentation's GradientTape examples, run on
rustape (`tf.` replaced by `rt.`), each printed beside the value TensorFlow documents.

Exits with status 1 if any value differs from the documented one.
"""
from __future__ import annotations

import sys
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
        x = rt.constant([[1., 2.], [3., 4.]], dtype=rt.float32)
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
    grad = t.gradient(z, {'x': x, 'y': y})
    return [grad['x'], grad['y']]


def _reset():
    x = rt.Variable(2.0)
    y = rt.Variable(3.0)
    with rt.GradientTape() as t:
        y_sq = y * y
        t.reset()
        z = x * x + y_sq
    grad = t.gradient(z, {'x': x, 'y': y})
    return [grad['x'], grad['y']]


def _stop_gradient():
    x = rt.Variable(2.0)
    y = rt.Variable(3.0)
    with rt.GradientTape() as t:
        y_sq = y**2
        z = x**2 + rt.stop_gradient(y_sq)
    grad = t.gradient(z, {'x': x, 'y': y})
    return [grad['x'], grad['y']]


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
            out = rt.reduce_sum(layer(x)**2)
        g1 = t1.gradient(out, x)
        g1_mag = rt.norm(g1)
    dg1_mag = t2.gradient(g1_mag, layer.trainable_variables)
    return [var.shape for var in dg1_mag]


def _scalar_source():
    x = rt.linspace(-10.0, 10.0, 200+1)
    delta = rt.Variable(0.0)
    with rt.GradientTape() as tape:
        y = rt.nn.sigmoid(x+delta)
    dy_dx = tape.jacobian(y, delta)
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


def _hessian():
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
    eye_eps = rt.eye(h_mat.shape[0])*eps
    update = rt.linalg.solve(h_mat + eye_eps, g_vec)
    _ = layer1.kernel.assign_sub(rt.reshape(update, layer1.kernel.shape))
    return [layer1.kernel.shape, h.shape, update.shape]


def _batch_jacobian_guide():
    x = rt.random.normal([7, 5])
    layer1 = rt.keras.layers.Dense(8, activation=rt.nn.elu)
    layer2 = rt.keras.layers.Dense(6, activation=rt.nn.elu)
    with rt.GradientTape(persistent=True, watch_accessed_variables=False) as tape:
        tape.watch(x)
        y = layer1(x)
        y = layer2(y)
    j = tape.jacobian(y, x)
    j_sum = rt.reduce_sum(j, axis=2)
    j_select = rt.einsum('bxby->bxy', j)
    jb = tape.batch_jacobian(y, x)
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
    ("guide: input gradient regularisation shapes", _input_gradient_regularization, [(5, 10), (10,)]),
    ("guide: scalar source jacobian shapes", _scalar_source, [(201,), (201,)]),
    ("guide: tensor source jacobian shape, |g - j_sum| < 1e-3", _tensor_source, [(7, 10, 5, 10), True]),
    ("guide: Hessian and Newton step shapes", _hessian, [(5, 8), (5, 8, 5, 8), (40, 1)]),
    ("guide: batch jacobian shapes, |jb - j_sum| < 1e-3", _batch_jacobian_guide,
     [(7, 6, 7, 5), (7, 6, 5), (7, 6, 5), (7, 6, 5), True]),
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
        if all(isinstance(w, (int, float)) for w in want) and all(isinstance(g, (int, float)) for g in got):
            return bool(np.allclose(got, want))
        return all(_same(g, w) for g, w in zip(got, want))
    return bool(np.allclose(got, want))


def main() -> int:
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
        print(f"{title:<{width}}  rustape: {got!s:<40}  TF documents: {documented!s:<30}  {'ok' if ok else 'MISMATCH'}")
    print(f"\n{len(EXAMPLES) - failures} of {len(EXAMPLES)} examples give TensorFlow's documented values")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
