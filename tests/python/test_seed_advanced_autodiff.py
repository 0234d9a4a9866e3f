"""The code examples of TensorFlow's "Advanced automatic differentiation" guide (seed 004), with
`tf.` replaced by `rt.`, checked against the values the guide documents (and, where it only
shows shapes, against independent computations of the numbers)."""

import numpy as np
import pytest
import rustape as rt


def _plt():
    import matplotlib as mpl

    mpl.use("Agg")
    import matplotlib.pyplot as plt

    return plt


# -- Controlling gradient recording --------------------------------------------------------------


def test_stop_recording():
    x = rt.Variable(2.0)
    y = rt.Variable(3.0)

    with rt.GradientTape() as t:
        x_sq = x * x
        with t.stop_recording():
            y_sq = y * y
        z = x_sq + y_sq

    grad = t.gradient(z, {"x": x, "y": y})

    print("dz/dx:", grad["x"])  # 2*x => 4
    print("dz/dy:", grad["y"])
    assert grad["x"].numpy() == 4.0
    assert grad["y"] is None
    assert set(grad) == {"x", "y"}


def test_reset():
    x = rt.Variable(2.0)
    y = rt.Variable(3.0)
    reset = True

    with rt.GradientTape() as t:
        y_sq = y * y
        if reset:
            # Throw out all the tape recorded so far.
            t.reset()
        z = x * x + y_sq

    grad = t.gradient(z, {"x": x, "y": y})

    print("dz/dx:", grad["x"])  # 2*x => 4
    print("dz/dy:", grad["y"])
    assert grad["x"].numpy() == 4.0
    assert grad["y"] is None


def test_stop_gradient():
    x = rt.Variable(2.0)
    y = rt.Variable(3.0)

    with rt.GradientTape() as t:
        y_sq = y**2
        z = x**2 + rt.stop_gradient(y_sq)

    grad = t.gradient(z, {"x": x, "y": y})

    print("dz/dx:", grad["x"])  # 2*x => 4
    print("dz/dy:", grad["y"])
    assert grad["x"].numpy() == 4.0
    assert grad["y"] is None


# -- Custom gradients -----------------------------------------------------------------------------


# Establish an identity operation, but clip during the gradient pass.
@rt.custom_gradient
def clip_gradients(y):
    def backward(dy):
        return rt.clip_by_norm(dy, 0.5)

    return y, backward


def test_clip_gradients():
    v = rt.Variable(2.0)
    with rt.GradientTape() as t:
        output = clip_gradients(v * v)
    g = t.gradient(output, v)
    print(g)  # calls "backward", which clips 4 to 2
    assert g.numpy() == 2.0
    assert output.numpy() == 4.0


class MyModule(rt.Module):
    @rt.function(input_signature=[rt.TensorSpec(None)])
    def call_custom_grad(self, x):
        return clip_gradients(x)


def test_custom_gradients_in_saved_model(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    model = MyModule()

    rt.saved_model.save(
        model, "saved_model", options=rt.saved_model.SaveOptions(experimental_custom_gradients=True)
    )

    # The loaded gradients will be the same as the above example.
    v = rt.Variable(2.0)
    loaded = rt.saved_model.load("saved_model")
    with rt.GradientTape() as t:
        output = loaded.call_custom_grad(v * v)
    g = t.gradient(output, v)
    print(g)
    assert g.numpy() == 2.0


# -- Multiple tapes -------------------------------------------------------------------------------


def test_multiple_tapes():
    x0 = rt.constant(0.0)
    x1 = rt.constant(0.0)

    with rt.GradientTape() as tape0, rt.GradientTape() as tape1:
        tape0.watch(x0)
        tape1.watch(x1)

        y0 = rt.math.sin(x0)
        y1 = rt.nn.sigmoid(x1)

        y = y0 + y1

        ys = rt.reduce_sum(y)

    assert tape0.gradient(ys, x0).numpy() == 1.0  # cos(x) => 1.0
    assert tape1.gradient(ys, x1).numpy() == 0.25  # sigmoid(x1)*(1-sigmoid(x1)) => 0.25


def test_higher_order_gradients():
    x = rt.Variable(1.0)  # Create a Tensorflow variable initialized to 1.0

    with rt.GradientTape() as t2:
        with rt.GradientTape() as t1:
            y = x * x * x

        # Compute the gradient inside the outer `t2` context manager
        # which means the gradient computation is differentiable as well.
        dy_dx = t1.gradient(y, x)
    d2y_dx2 = t2.gradient(dy_dx, x)

    print("dy_dx:", dy_dx.numpy())  # 3 * x**2 => 3.0
    print("d2y_dx2:", d2y_dx2.numpy())  # 6 * x => 6.0
    assert dy_dx.numpy() == 3.0
    assert d2y_dx2.numpy() == 6.0


def test_input_gradient_regularization(seeded):
    x = rt.random.normal([7, 5])

    layer = rt.keras.layers.Dense(10, activation=rt.nn.relu)

    with rt.GradientTape() as t2:
        # The inner tape only takes the gradient with respect to the input,
        # not the variables.
        with rt.GradientTape(watch_accessed_variables=False) as t1:
            t1.watch(x)
            y = layer(x)
            out = rt.reduce_sum(layer(x) ** 2)
        # 1. Calculate the input gradient.
        g1 = t1.gradient(out, x)
        # 2. Calculate the magnitude of the input gradient.
        g1_mag = rt.norm(g1)

    # 3. Calculate the gradient of the magnitude with respect to the model.
    dg1_mag = t2.gradient(g1_mag, layer.trainable_variables)

    assert [var.shape for var in dg1_mag] == [(5, 10), (10,)]
    assert y.shape == (7, 10)

    # The numbers, independently: g1 = 2 * (relu'(a) * relu(a)) @ K^T with a = xK + b.
    xs = x.numpy().astype(np.float64)
    K = layer.kernel.numpy().astype(np.float64)
    b = layer.bias.numpy().astype(np.float64)

    def g1_mag_np(K, b):
        a = xs @ K + b
        g = 2 * ((a > 0) * np.maximum(a, 0)) @ K.T
        return np.sqrt(np.sum(g**2))

    np.testing.assert_allclose(
        g1.numpy(), 2 * ((xs @ K + b > 0) * np.maximum(xs @ K + b, 0)) @ K.T, rtol=1e-4, atol=1e-5
    )
    np.testing.assert_allclose(float(g1_mag), g1_mag_np(K, b), rtol=1e-5)
    # d g1_mag / d b by central differences (float64 NumPy; relu kinks are away from 0 here).
    eps = 1e-6
    num_db = np.array(
        [
            (g1_mag_np(K, b + eps * np.eye(10)[i]) - g1_mag_np(K, b - eps * np.eye(10)[i]))
            / (2 * eps)
            for i in range(10)
        ]
    )
    np.testing.assert_allclose(dg1_mag[1].numpy(), num_db, rtol=1e-3, atol=1e-4)
    num_dK = np.zeros_like(K)
    for i in range(5):
        for j in range(10):
            e = np.zeros_like(K)
            e[i, j] = eps
            num_dK[i, j] = (g1_mag_np(K + e, b) - g1_mag_np(K - e, b)) / (2 * eps)
    np.testing.assert_allclose(dg1_mag[0].numpy(), num_dK, rtol=1e-3, atol=1e-4)


# -- Jacobians ------------------------------------------------------------------------------------


def test_jacobian_scalar_source():
    x = rt.linspace(-10.0, 10.0, 200 + 1)
    delta = rt.Variable(0.0)

    with rt.GradientTape() as tape:
        y = rt.nn.sigmoid(x + delta)

    dy_dx = tape.jacobian(y, delta)

    print(y.shape)
    print(dy_dx.shape)
    assert y.shape == (201,)
    assert dy_dx.shape == (201,)
    xs = np.linspace(-10.0, 10.0, 201)
    s = 1 / (1 + np.exp(-xs))
    np.testing.assert_allclose(y.numpy(), s, rtol=1e-5, atol=1e-7)
    np.testing.assert_allclose(dy_dx.numpy(), s * (1 - s), rtol=1e-4, atol=1e-7)


def test_jacobian_scalar_source_plot():
    plt = _plt()
    x = rt.linspace(-10.0, 10.0, 200 + 1)
    delta = rt.Variable(0.0)
    with rt.GradientTape() as tape:
        y = rt.nn.sigmoid(x + delta)
    dy_dx = tape.jacobian(y, delta)

    plt.plot(x.numpy(), y, label="y")
    plt.plot(x.numpy(), dy_dx, label="dy/dx")
    plt.legend()
    _ = plt.xlabel("x")
    plt.close("all")


def test_jacobian_tensor_source(seeded):
    x = rt.random.normal([7, 5])
    layer = rt.keras.layers.Dense(10, activation=rt.nn.relu)

    with rt.GradientTape(persistent=True) as tape:
        y = layer(x)

    assert y.shape == (7, 10)
    assert layer.kernel.shape == (5, 10)

    j = tape.jacobian(y, layer.kernel)
    assert j.shape == (7, 10, 5, 10)

    g = tape.gradient(y, layer.kernel)
    print("g.shape:", g.shape)
    assert g.shape == (5, 10)

    j_sum = rt.reduce_sum(j, axis=[0, 1])
    delta = rt.reduce_max(abs(g - j_sum)).numpy()
    assert delta < 1e-3
    print("delta:", delta)

    # The numbers: dy[b, u] / dK[i, v] = relu'(a[b, u]) * x[b, i] * (u == v).
    a = x.numpy() @ layer.kernel.numpy() + layer.bias.numpy()
    expected = np.einsum(
        "bu,bi,uv->buiv", (a > 0).astype(np.float32), x.numpy(), np.eye(10, dtype=np.float32)
    )
    np.testing.assert_allclose(j.numpy(), expected, rtol=1e-6, atol=1e-6)


def _hessian_example():
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
    return layer1, layer2, g, h


def test_hessian_example(seeded):
    layer1, _, g, h = _hessian_example()

    print(f"layer.kernel.shape: {layer1.kernel.shape}")
    print(f"h.shape: {h.shape}")
    assert layer1.kernel.shape == (5, 8)
    assert h.shape == (5, 8, 5, 8)

    n_params = rt.reduce_prod(layer1.kernel.shape)

    g_vec = rt.reshape(g, [n_params, 1])
    h_mat = rt.reshape(h, [n_params, n_params])
    assert int(n_params) == 40
    assert g_vec.shape == (40, 1)
    assert h_mat.shape == (40, 40)

    # The Hessian matrix should be symmetric.
    hm = h_mat.numpy()
    np.testing.assert_allclose(hm, hm.T, atol=1e-5)

    eps = 1e-3
    eye_eps = rt.eye(h_mat.shape[0]) * eps

    # X(k+1) = X(k) - (∇²f(X(k)))^-1 @ ∇f(X(k))
    # h_mat = ∇²f(X(k))
    # g_vec = ∇f(X(k))
    update = rt.linalg.solve(h_mat + eye_eps, g_vec)

    # Reshape the update and apply it to the variable.
    before = layer1.kernel.numpy().copy()
    _ = layer1.kernel.assign_sub(rt.reshape(update, layer1.kernel.shape))

    assert update.shape == (40, 1)
    np.testing.assert_allclose(
        (hm.astype(np.float64) + eps * np.eye(40)) @ update.numpy().astype(np.float64),
        g_vec.numpy(),
        rtol=1e-3,
        atol=1e-4,
    )
    np.testing.assert_allclose(
        layer1.kernel.numpy(), before - update.numpy().reshape(5, 8), rtol=1e-6, atol=1e-7
    )


def test_hessian_example_values_against_finite_differences(seeded):
    """h is the derivative of g: check h against central differences of g in the kernel."""
    rt.random.set_seed(7)
    x0 = rt.random.normal([7, 5], dtype=rt.float64)
    layer1 = rt.keras.layers.Dense(8, activation=rt.nn.relu, dtype=rt.float64)
    layer2 = rt.keras.layers.Dense(6, activation=rt.nn.relu, dtype=rt.float64)

    def grad_at(kernel_value):
        layer1.kernel.assign(rt.constant(kernel_value, dtype=rt.float64))
        with rt.GradientTape() as t1:
            loss = rt.reduce_mean(layer2(layer1(x0)) ** 2)
        return t1.gradient(loss, layer1.kernel).numpy()

    layer2(layer1(x0))  # build
    k0 = layer1.kernel.numpy().copy()
    with rt.GradientTape() as t2:
        with rt.GradientTape() as t1:
            loss = rt.reduce_mean(layer2(layer1(x0)) ** 2)
        g = t1.gradient(loss, layer1.kernel)
    h = t2.jacobian(g, layer1.kernel).numpy()
    eps = 1e-6
    for i in range(5):
        for j in range(8):
            e = np.zeros_like(k0)
            e[i, j] = eps
            col = (grad_at(k0 + e) - grad_at(k0 - e)) / (2 * eps)
            np.testing.assert_allclose(h[:, :, i, j], col, rtol=1e-4, atol=1e-6)
    layer1.kernel.assign(rt.constant(k0, dtype=rt.float64))


def test_hessian_example_plot(seeded):
    plt = _plt()
    layer1, _, _, h = _hessian_example()
    n_params = rt.reduce_prod(layer1.kernel.shape)
    h_mat = rt.reshape(h, [n_params, n_params])

    def imshow_zero_center(image, **kwargs):
        lim = rt.reduce_max(abs(image))
        plt.imshow(image, vmin=-lim, vmax=lim, cmap="seismic", **kwargs)
        plt.colorbar()

    imshow_zero_center(h_mat)
    plt.close("all")


def _batch_jacobian_setup():
    x = rt.random.normal([7, 5])
    layer1 = rt.keras.layers.Dense(8, activation=rt.nn.elu)
    layer2 = rt.keras.layers.Dense(6, activation=rt.nn.elu)

    with rt.GradientTape(persistent=True, watch_accessed_variables=False) as tape:
        tape.watch(x)
        y = layer1(x)
        y = layer2(y)
    return x, y, tape


def test_batch_jacobian_guide(seeded):
    x, y, tape = _batch_jacobian_setup()
    assert y.shape == (7, 6)

    j = tape.jacobian(y, x)
    assert j.shape == (7, 6, 7, 5)

    # every (batch, batch) slice is diagonal
    for o in range(6):
        for i in range(5):
            s = j[:, o, :, i].numpy()
            np.testing.assert_array_equal(s - np.diag(np.diag(s)), np.zeros((7, 7)))

    j_sum = rt.reduce_sum(j, axis=2)
    print(j_sum.shape)
    j_select = rt.einsum("bxby->bxy", j)
    print(j_select.shape)
    assert j_sum.shape == (7, 6, 5)
    assert j_select.shape == (7, 6, 5)
    np.testing.assert_allclose(j_select.numpy(), j_sum.numpy(), rtol=1e-6, atol=1e-7)

    jb = tape.batch_jacobian(y, x)
    assert jb.shape == (7, 6, 5)

    error = rt.reduce_max(abs(jb - j_sum))
    assert error < 1e-3
    print(error.numpy())

    jb_seq = tape.batch_jacobian(y, x, experimental_use_pfor=False)
    np.testing.assert_array_equal(jb_seq.numpy(), jb.numpy())


def test_batch_jacobian_guide_plots(seeded):
    plt = _plt()
    x, y, tape = _batch_jacobian_setup()
    j = tape.jacobian(y, x)

    def imshow_zero_center(image, **kwargs):
        lim = rt.reduce_max(abs(image))
        plt.imshow(image, vmin=-lim, vmax=lim, cmap="seismic", **kwargs)
        plt.colorbar()

    imshow_zero_center(j[:, 0, :, 0])
    _ = plt.title("A (batch, batch) slice")

    def plot_as_patches(j):
        # Reorder axes so the diagonals will each form a contiguous patch.
        j = rt.transpose(j, [1, 0, 3, 2])
        # Pad in between each patch.
        lim = rt.reduce_max(abs(j))
        j = rt.pad(j, [[0, 0], [1, 1], [0, 0], [1, 1]], constant_values=-lim)
        # Reshape to form a single image.
        s = j.shape
        j = rt.reshape(j, [s[0] * s[1], s[2] * s[3]])
        imshow_zero_center(j, extent=[-0.5, s[2] - 0.5, s[0] - 0.5, -0.5])
        return j

    patches = plot_as_patches(j)
    _ = plt.title("All (batch, batch) slices are diagonal")
    plt.close("all")

    # The patch image: (6 * 9, 5 * 9) with -lim on the padding.
    assert patches.shape == (6 * 9, 5 * 9)
    lim = float(rt.reduce_max(abs(j)))
    p = patches.numpy()
    assert np.all(p[0, :] == -lim)


def test_batch_jacobian_with_batch_norm(seeded):
    x = rt.random.normal([7, 5])
    layer1 = rt.keras.layers.Dense(8, activation=rt.nn.elu)
    bn = rt.keras.layers.BatchNormalization()
    layer2 = rt.keras.layers.Dense(6, activation=rt.nn.elu)

    with rt.GradientTape(persistent=True, watch_accessed_variables=False) as tape:
        tape.watch(x)
        y = layer1(x)
        y = bn(y, training=True)
        y = layer2(y)

    j = tape.jacobian(y, x)
    print(f"j.shape: {j.shape}")
    assert j.shape == (7, 6, 7, 5)
    # These slices are not diagonal: batch norm mixes the rows.
    s = j[:, 0, :, 0].numpy()
    assert np.abs(s - np.diag(np.diag(s))).max() > 1e-4

    # TensorFlow returns numbers of unclear meaning here; rustape refuses, naming the ops that
    # mix batch rows (batch normalisation's mean over the batch is the first of them).
    with pytest.raises(ValueError) as info:
        tape.batch_jacobian(y, x)
    msg = str(info.value)
    assert "mix" in msg and "batch rows" in msg and "'reduce_mean'" in msg, msg
