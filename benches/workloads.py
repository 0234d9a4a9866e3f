"""The workloads of benches/compare.py (issues 3, 4 and 15), one function each.

Each `wN(P, quick)` takes the imported peers (`{"torch": torch, "jax": jax, "tf": tf}`, any
subset) and returns `{column: callable}`; a callable's result is checked against rustape's
before timing (a `(callable, False)` pair is timed unchecked). rustape's API mirrors
TensorFlow's, so the tape code is written once and run with m = rt and m = tf.
"""
import math

import numpy as np

import rustape as rt

F32 = np.float32
RNG = np.random.default_rng(0)


def rand(*shape, scale=1.0):
    return (RNG.standard_normal(shape) * scale).astype(F32)


def tapes(P, fn, *arrays):
    """`fn(m, *constants)` for m = rt and, when installed, m = tf."""
    out = {}
    for col, m in [("rustape", rt)] + ([("tf", P["tf"])] if "tf" in P else []):
        out[col] = lambda m=m, args=[m.constant(a) for a in arrays]: fn(m, *args)
    return out


def jax_pair(P, f, *args):
    """jax eagerly (jit off) and compiled (jit on); both wait for the result (jax dispatches
    asynchronously)."""
    jax = P["jax"]
    fj = jax.jit(f)
    return {"jax": lambda: jax.block_until_ready(f(*args)),
            "jax jit": lambda: jax.block_until_ready(fj(*args))}


def w1(P, q):
    n = 250

    def tape_fn(m):
        x = m.constant(0.5)
        with m.GradientTape() as t:
            t.watch(x)
            y = x
            for _ in range(n):
                y = y * 1.0001 + 0.5
                y = m.math.sin(y)
                y = y * x
        return t.gradient(y, x)

    def py_fn():  # the floor: a pure-Python float loop, no derivatives
        x = y = 0.5
        for _ in range(n):
            y = math.sin(y * 1.0001 + 0.5) * x
        return y

    out = tapes(P, tape_fn)
    out["python floats (no grad)"] = (py_fn, False)
    if "torch" in P:
        torch = P["torch"]

        def torch_fn():
            x = torch.tensor(0.5, requires_grad=True)
            y = x
            for _ in range(n):
                y = torch.sin(y * 1.0001 + 0.5) * x
            return torch.autograd.grad(y, x)[0]
        out["torch"] = torch_fn
    if "jax" in P:
        jax = P["jax"]

        def f(x):
            y = x
            for _ in range(n):
                y = jax.numpy.sin(y * 1.0001 + 0.5) * x
            return y
        out.update(jax_pair(P, jax.grad(f), np.float32(0.5)))
    return out


def w2(P, q):
    sizes = [784, 512, 512, 10]
    x, yt = rand(256, 784), rand(256, 10)
    params = []
    for a, b in zip(sizes, sizes[1:]):
        params += [rand(a, b, scale=(2.0 / a) ** 0.5), rand(b, scale=0.1)]

    def tape_fn(m, vs, x, yt):
        with m.GradientTape() as t:
            h = x
            for i in range(0, 6, 2):
                h = m.matmul(h, vs[i]) + vs[i + 1]
                if i < 4:
                    h = m.nn.relu(h)
            loss = m.reduce_mean(m.square(h - yt))
        return t.gradient(loss, vs)

    def np_fn():  # hand-written backprop: 3 + 5 matmuls, the floor for this step
        W1, b1, W2, b2, W3, b3 = params
        h1 = np.maximum(x @ W1 + b1, 0)
        h2 = np.maximum(h1 @ W2 + b2, 0)
        d = (2.0 / yt.size) * (h2 @ W3 + b3 - yt)
        dh2 = (d @ W3.T) * (h2 > 0)
        dh1 = (dh2 @ W2.T) * (h1 > 0)
        return [x.T @ dh1, dh1.sum(0), h1.T @ dh2, dh2.sum(0), h2.T @ d, d.sum(0)]

    out = {"rustape": lambda v=[rt.Variable(p) for p in params]: tape_fn(rt, v, x, yt)}
    if "tf" in P:
        tf = P["tf"]
        out["tf"] = lambda v=[tf.Variable(p) for p in params]: tape_fn(tf, v, x, yt)
    out["numpy (hand backprop)"] = np_fn
    if "torch" in P:
        torch = P["torch"]
        tv = [torch.tensor(p, requires_grad=True) for p in params]
        tx, ty = torch.tensor(x), torch.tensor(yt)

        def torch_fn():
            h = tx
            for i in range(0, 6, 2):
                h = h @ tv[i] + tv[i + 1]
                if i < 4:
                    h = torch.relu(h)
            return torch.autograd.grad(((h - ty) ** 2).mean(), tv)
        out["torch"] = torch_fn
    if "jax" in P:
        jax = P["jax"]

        def loss(ps):
            h = x
            for i in range(0, 6, 2):
                h = h @ ps[i] + ps[i + 1]
                if i < 4:
                    h = jax.nn.relu(h)
            return jax.numpy.mean((h - yt) ** 2)
        out.update(jax_pair(P, jax.grad(loss), [jax.numpy.asarray(p) for p in params]))
    return out


def w3(P, q):
    W, x = rand(256, 256, scale=1 / 16), rand(256, 1)

    def tape_fn(m, W, x):
        with m.GradientTape() as t:
            t.watch(x)
            y = m.math.tanh(m.matmul(W, x))
        return t.jacobian(y, x)

    out = tapes(P, tape_fn, W, x)
    if "torch" in P:
        torch = P["torch"]
        tW, tx = torch.tensor(W), torch.tensor(x)
        jac = torch.func.jacrev(lambda v: torch.tanh(tW @ v))
        out["torch"] = lambda: jac(tx)
    if "jax" in P:
        out.update(jax_pair(P, P["jax"].jacrev(lambda v: P["jax"].numpy.tanh(W @ v)), x))
    return out


def w4_tape(m, x, L1, L2):
    with m.GradientTape() as t:
        t.watch(x)
        y = m.nn.elu(m.matmul(m.nn.elu(m.matmul(x, L1)), L2))
    return t.batch_jacobian(y, x)


def w4(P, q):
    x, L1, L2 = rand(512, 64), rand(64, 128, scale=1 / 8), rand(128, 32, scale=1 / 11)
    out = tapes(P, w4_tape, x, L1, L2)
    if "torch" in P:
        torch = P["torch"]
        F = torch.nn.functional
        tx, t1, t2 = torch.tensor(x), torch.tensor(L1), torch.tensor(L2)
        bj = torch.func.vmap(torch.func.jacrev(lambda row: F.elu(F.elu(row @ t1) @ t2)))
        out["torch"] = lambda: bj(tx)
    if "jax" in P:
        jax = P["jax"]
        out.update(jax_pair(P, jax.vmap(jax.jacrev(
            lambda row: jax.nn.elu(jax.nn.elu(row @ L1) @ L2))), x))
    return out


def w5(P, q, use_hessian=False):
    X, w = rand(64, 200, scale=1 / 14), rand(200, 1)

    def tape_fn(m, X, w):  # the TF guide's Hessian: nested tapes + jacobian
        with m.GradientTape() as t2:
            t2.watch(w)
            with m.GradientTape() as t1:
                t1.watch(w)
                y = m.reduce_sum(m.square(m.math.tanh(m.matmul(X, w))))
            g = t1.gradient(y, w)
        return m.reshape(t2.jacobian(g, w), [200, 200])

    def rt_hessian(X, w):
        with rt.GradientTape() as t:
            t.watch(w)
            y = rt.reduce_sum(rt.square(rt.math.tanh(rt.matmul(X, w))))
        return rt.reshape(t.hessian(y, w), [200, 200])

    if use_hessian:  # rustape only: TensorFlow has no tape.hessian
        out = {"rustape": lambda a=(rt.constant(X), rt.constant(w)): rt_hessian(*a)}
    else:
        out = tapes(P, tape_fn, X, w)
    if "torch" in P:
        torch = P["torch"]
        tX, tw = torch.tensor(X), torch.tensor(w)
        h = torch.func.hessian(lambda v: (torch.tanh(tX @ v) ** 2).sum())
        out["torch"] = lambda: h(tw).reshape(200, 200)
    if "jax" in P:
        jax = P["jax"]
        out.update(jax_pair(P, jax.hessian(lambda v: (jax.numpy.tanh(X @ v) ** 2).sum()), w))
    return out


def mlp_params(sizes, seed_scale=1.0):
    """Weights [a, b] (Glorot-like scale) and biases [b] for the layer sizes."""
    params = []
    for a, b in zip(sizes, sizes[1:]):
        params += [rand(a, b, scale=seed_scale / a ** 0.5), rand(b, scale=0.1)]
    return params


def mlp(m, ps, h, act):
    """Dense layers `h @ W + b`, `act` between them (not after the last)."""
    for i in range(0, len(ps), 2):
        h = m.matmul(h, ps[i]) + ps[i + 1] if m is not None else h @ ps[i] + ps[i + 1]
        if i < len(ps) - 2:
            h = act(h)
    return h


# W7: a physics-informed network. u(x, y) is an MLP 2-64-64-64-1 (tanh) on 1,024 points; its
# Laplacian per point comes from nested tapes (the gradient with respect to the points, then
# the batch Jacobian of that gradient, traced); the loss is the residual of the Poisson
# equation lap u = sin x sin y, and the step is its gradient with respect to every parameter.
W7_SIZES = [2, 64, 64, 64, 1]


def w7_data():
    params = mlp_params(W7_SIZES)
    X = (RNG.uniform(0.0, np.pi, (1024, 2))).astype(F32)
    f = (np.sin(X[:, 0]) * np.sin(X[:, 1])).astype(F32)
    return params, X, f


def w7_tape(m, vs, X, f, recorded=None):
    """W7's step; `recorded(tape)`, when given, sees the outermost tape before its gradient."""
    with m.GradientTape() as t3:
        with m.GradientTape() as t2:
            t2.watch(X)
            with m.GradientTape() as t1:
                t1.watch(X)
                u = mlp(m, vs, X, m.math.tanh)
            g = t1.gradient(u, X)
        lap = m.linalg.trace(t2.batch_jacobian(g, X))
        loss = m.reduce_mean(m.square(lap - f))
    if recorded is not None:
        recorded(t3)
    return t3.gradient(loss, vs[:-1])  # the last bias does not reach the Laplacian


def w7(P, q):
    params, X, f = w7_data()
    out = {"rustape": lambda v=[rt.Variable(p) for p in params], a=(rt.constant(X), rt.constant(f)):
           w7_tape(rt, v, *a)}
    if "tf" in P:
        tf = P["tf"]
        out["tf"] = lambda v=[tf.Variable(p) for p in params], a=(tf.constant(X), tf.constant(f)): \
            w7_tape(tf, v, *a)
    if "torch" in P:
        torch = P["torch"]
        tv = [torch.tensor(p, requires_grad=True) for p in params]
        tX, tf_ = torch.tensor(X), torch.tensor(f)

        def torch_fn():  # autograd.grad(create_graph=True): the gradient, then each diagonal
            x = tX.detach().requires_grad_()
            u = mlp(None, tv, x, torch.tanh)
            g = torch.autograd.grad(u.sum(), x, create_graph=True)[0]
            lap = sum(torch.autograd.grad(g[:, d].sum(), x, create_graph=True)[0][:, d]
                      for d in range(2))
            return torch.autograd.grad(((lap - tf_) ** 2).mean(), tv[:-1])
        out["torch"] = torch_fn
        tfn = torch.func

        def u_point(ps, x):
            return mlp(None, ps, x[None], torch.tanh)[0, 0]

        def loss(ps):
            hess = tfn.vmap(tfn.hessian(u_point, argnums=1), (None, 0))(ps, tX)
            lap = hess.diagonal(dim1=-2, dim2=-1).sum(-1)
            return ((lap - tf_) ** 2).mean()
        step = tfn.grad(loss)
        tp = [p.detach() for p in tv]
        out["torch.func"] = lambda: step(tp)[:-1]
    if "jax" in P:
        jax = P["jax"]
        jnp = jax.numpy

        def u_point(ps, x):
            return mlp(None, ps, x[None], jnp.tanh)[0, 0]

        def loss(ps):
            hess = jax.vmap(jax.hessian(u_point, argnums=1), (None, 0))(ps, X)
            lap = jnp.trace(hess, axis1=-2, axis2=-1)
            return jnp.mean((lap - f) ** 2)
        out.update(jax_pair(P, lambda ps: jax.grad(loss)(ps)[:-1],
                            [jnp.asarray(p) for p in params]))
    return out


# W8: a tanh RNN through time (BPTT): T = 50 steps, batch 32, input 64, hidden 128; the loss is
# mean(h_T^2) plus the mean over steps of a linear readout of h_t; gradient with respect to the
# input weights, the recurrent weights, the bias and the readout.
W8_T = 50


def w8_data():
    xs = [rand(32, 64) for _ in range(W8_T)]
    params = [rand(64, 128, scale=1 / 8), rand(128, 128, scale=1 / 12), rand(128, scale=0.1),
              rand(128, 1, scale=1 / 11)]
    return xs, params


def w8_loss(m, ps, xs, h0, tanh, mean):
    W, U, b, R = ps
    h, readout = h0, 0.0
    for x in xs:
        h = tanh((m.matmul(x, W) + m.matmul(h, U) if m is not None else x @ W + h @ U) + b)
        readout = readout + mean(m.matmul(h, R) if m is not None else h @ R)
    return mean(h * h) + readout / len(xs)


def w8(P, q):
    xs, params = w8_data()
    h0 = np.zeros((32, 128), F32)

    def tape_fn(m, vs, xs, h0):
        with m.GradientTape() as t:
            loss = w8_loss(m, vs, xs, h0, m.math.tanh, m.reduce_mean)
        return t.gradient(loss, vs)

    out = {}
    for col, m in [("rustape", rt)] + ([("tf", P["tf"])] if "tf" in P else []):
        out[col] = lambda m=m, v=[m.Variable(p) for p in params], a=(
            [m.constant(x) for x in xs], m.constant(h0)): tape_fn(m, v, *a)
    if "torch" in P:
        torch = P["torch"]
        tv = [torch.tensor(p, requires_grad=True) for p in params]
        txs, th0 = [torch.tensor(x) for x in xs], torch.tensor(h0)
        out["torch"] = lambda: torch.autograd.grad(
            w8_loss(None, tv, txs, th0, torch.tanh, torch.mean), tv)
    if "jax" in P:
        jax = P["jax"]
        jnp = jax.numpy
        jxs, jh0 = [jnp.asarray(x) for x in xs], jnp.asarray(h0)
        out.update(jax_pair(P, jax.grad(lambda ps: w8_loss(None, ps, jxs, jh0, jnp.tanh,
                                                           jnp.mean)),
                            [jnp.asarray(p) for p in params]))
    return out


# W9: per-example gradients. An MLP 784-128-10 (relu) on a batch of 256, softmax cross-entropy
# per example; the Jacobian of the 256 losses with respect to every parameter, [256, *shape]
# each (104 MB in all).
W9_SIZES = [784, 128, 10]


def w9_data():
    params = mlp_params(W9_SIZES)
    x = rand(256, 784)
    labels = np.eye(10, dtype=F32)[RNG.integers(0, 10, 256)]
    return params, x, labels


def w9_tape(m, vs, x, labels):
    with m.GradientTape() as t:
        logits = mlp(m, vs, x, m.nn.relu)
        losses = m.nn.softmax_cross_entropy_with_logits(labels=labels, logits=logits)
    return t.jacobian(losses, vs)


def w9(P, q):
    params, x, labels = w9_data()
    out = {"rustape": lambda v=[rt.Variable(p) for p in params],
           a=(rt.constant(x), rt.constant(labels)): w9_tape(rt, v, *a)}
    if "tf" in P:
        tf = P["tf"]
        out["tf"] = lambda v=[tf.Variable(p) for p in params], a=(
            tf.constant(x), tf.constant(labels)): w9_tape(tf, v, *a)
    if "torch" in P:
        torch = P["torch"]
        F = torch.nn.functional
        tv = [torch.tensor(p, requires_grad=True) for p in params]
        tx, ty = torch.tensor(x), torch.tensor(labels)
        seeds = torch.eye(256)

        def torch_fn():  # the eager Jacobian: one vectorised backward over 256 seeds
            losses = F.cross_entropy(mlp(None, tv, tx, torch.relu), ty, reduction="none")
            return torch.autograd.grad(losses, tv, seeds, is_grads_batched=True)
        out["torch"] = torch_fn
        tfn = torch.func

        def loss_one(ps, xi, yi):
            return F.cross_entropy(mlp(None, ps, xi[None], torch.relu), yi[None])
        per_example = tfn.vmap(tfn.grad(loss_one), (None, 0, 0))
        tp = [p.detach() for p in tv]
        out["torch.func"] = lambda: per_example(tp, tx, ty)
    if "jax" in P:
        jax = P["jax"]
        jnp = jax.numpy

        def loss_one(ps, xi, yi):
            logits = mlp(None, ps, xi[None], jax.nn.relu)[0]
            return -jnp.sum(yi * jax.nn.log_softmax(logits))
        per_example = jax.vmap(jax.grad(loss_one), (None, 0, 0))
        out.update(jax_pair(P, per_example, [jnp.asarray(p) for p in params], x, labels))
    return out


def w6_n(q):
    return 20_000 if q else 200_000


def w6_record(fw, mod, n):
    """Records the W6 chain; returns (tape or None, source, target)."""
    y0 = np.ones(16, F32)
    if fw == "torch":
        s = y = mod.tensor(y0, requires_grad=True)
        for _ in range(n):
            y = y * 0.99999 + 1e-6
        return None, s, y
    m = rt if fw == "rustape" else mod
    s = m.constant(y0)
    with m.GradientTape() as t:
        t.watch(s)
        y = s
        for _ in range(n):
            y = y * 0.99999 + 1e-6
    return t, s, y


def w6(P, q):
    n = w6_n(q)

    def run(fw, mod=None):
        def fn():
            t, s, y = w6_record(fw, mod, n)
            if fw == "torch":
                return mod.autograd.grad(y.sum(), s)[0]
            return t.gradient(y, s)
        return fn

    out = {"rustape": run("rustape")}
    for fw in ("torch", "tf"):
        if fw in P:
            out[fw] = run(fw, P[fw])
    # jax: eager jax.grad of a 200,000-op Python loop traces op by op (minutes), and jit would
    # compile a 200,000-op XLA graph; neither says anything about a tape, so it is left out.
    return out


def matmul(P, q):
    a, b = rand(512, 512), rand(512, 512)
    ra, rb = rt.constant(a), rt.constant(b)
    out = {"rustape": lambda: rt.matmul(ra, rb), "numpy": lambda: a @ b}
    if "torch" in P:
        ta, tb = P["torch"].tensor(a), P["torch"].tensor(b)
        out["torch"] = lambda: ta @ tb
    return out


def elementwise(op):
    def make(P, q):
        a, b = rand(1 << 22), rand(1 << 22)  # 4,194,304 float32 elements
        ra, rb = rt.constant(a), rt.constant(b)
        if op == "tanh":
            out = {"rustape": lambda: rt.math.tanh(ra), "numpy": lambda: np.tanh(a)}
        else:
            out = {"rustape": lambda: ra * rb, "numpy": lambda: a * b}
        if "torch" in P:
            ta, tb = P["torch"].tensor(a), P["torch"].tensor(b)
            out["torch"] = (lambda: P["torch"].tanh(ta)) if op == "tanh" else (lambda: ta * tb)
        return out
    return make


WORKLOADS = {
    "W1": ("scalar chain, 1,000 ops + gradient", w1),
    "W2": ("MLP step 256x784-512-512-10, 6 grads", w2),
    "W3": ("jacobian tanh(W@x), 256x256", w3),
    "W4": ("batch_jacobian elu MLP [512,32,64]", w4),
    "W5": ("Hessian 200x200, nested tapes", w5),
    "W5h": ("Hessian 200x200, rt tape.hessian", lambda P, q: w5(P, q, use_hessian=True)),
    "W6": ("chain of 200,000 ops on [16] + grad", w6),
    "W7": ("PINN: Laplacian by nested tapes, 1,024 points", w7),
    "W8": ("RNN BPTT, T=50, batch 32, 64-128", w8),
    "W9": ("per-example gradients, MLP 784-128-10, batch 256", w9),
    "matmul": ("matmul 512x512 float32", matmul),
    "tanh4M": ("tanh of 4M float32", elementwise("tanh")),
    "mul4M": ("multiply 4M x 4M float32", elementwise("mul")),
}
# Goals (issues 3, 4 and 15): workload -> [(peer column, ratio rustape / peer to reach)].
GOALS = {"W1": [("torch", 0.06)], "W2": [("torch", 1.0), ("jax jit", 0.8)],
         "W3": [("torch", 0.5)], "W4": [("torch", 0.55), ("jax jit", 0.8)],
         "W5": [("torch", 0.5)], "W5h": [("torch", 0.5)], "W6": [("torch", 0.04)],
         "W7": [("torch", 0.5), ("jax jit", 0.3)], "W8": [("jax jit", 0.8)],
         "W9": [("torch.func", 0.5)], "matmul": [("numpy", 1.2)]}
