"""rustape beside PyTorch, JAX, TensorFlow and NumPy on the workloads of issues 3, 4 and 15.

    python benches/compare.py [--quick] [--json out.json] [--only W1,W6] [--peers torch,jax]

Every peer that imports is measured in the same run (pip install -r benches/requirements-peers.txt).
Each peer's result is first checked against rustape's (allclose), then every framework is timed
in blocks of repeated calls, in two passes (in order, then reversed); the table shows medians
(time.perf_counter) and the ratio rustape / peer measured in the same process. The CPU time that
other processes used meanwhile is reported: the machine is small and shared.
Thread scaling (1 vs 2 rayon threads), W4's peak memory and W6 memory run in child processes, so
that RAYON_NUM_THREADS takes effect and RSS growth is not hidden by memory freed earlier.
"""
import argparse
import importlib
import json
import math
import os
import platform
import statistics
import subprocess
import sys
import time
import warnings

import numpy as np

import rustape as rt

F32 = np.float32
RNG = np.random.default_rng(0)


def rand(*shape, scale=1.0):
    return (RNG.standard_normal(shape) * scale).astype(F32)


def import_peers(names):
    warnings.simplefilter("ignore", FutureWarning)  # torch.jit deprecation notes inside torch.func
    os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")
    peers = {}
    for name in names:
        try:
            peers[name] = importlib.import_module({"tf": "tensorflow"}.get(name, name))
        except ImportError as e:
            print(f"# {name}: not installed ({e})", file=sys.stderr)
    return peers


def np_of(x):
    if isinstance(x, (list, tuple)):
        return [np_of(v) for v in x]
    return np.asarray(x.numpy() if hasattr(x, "numpy") and not isinstance(x, np.ndarray) else x)


# -- workloads ---------------------------------------------------------------------------------
# Each returns {column: callable}; a callable's result is checked against rustape's before timing
# (a (callable, False) pair is timed unchecked). rustape's API mirrors TensorFlow's, so the tape
# code is written once and run with m = rt and m = tf.

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


def w7_tape(m, vs, X, f):
    with m.GradientTape() as t3:
        with m.GradientTape() as t2:
            t2.watch(X)
            with m.GradientTape() as t1:
                t1.watch(X)
                u = mlp(m, vs, X, m.math.tanh)
            g = t1.gradient(u, X)
        lap = m.linalg.trace(t2.batch_jacobian(g, X))
        loss = m.reduce_mean(m.square(lap - f))
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


# -- measurement ------------------------------------------------------------------------------

def check(name, col, ref, got):
    ref, got = np_of(ref), np_of(got)
    if not isinstance(ref, list):
        ref, got = [ref], [got]
    tol = dict(rtol=2e-3, atol=2e-4)
    assert len(ref) == len(got), f"{name}/{col}: {len(got)} results, rustape has {len(ref)}"
    for r, g in zip(ref, got):
        g = np.asarray(g, dtype=np.float64).reshape(np.shape(r))
        if not np.allclose(g, r, **tol):
            err = np.max(np.abs(g - r))
            raise AssertionError(f"{name}: {col} differs from rustape (max abs err {err:.3g})")


def measure(name, fns, quick):
    """({column: median seconds}, {column: (median process CPU, median main-thread CPU) per
    call}). Each callable is called once (warm-up, and its result checked against rustape's);
    then two passes, in order and in reverse order, each running every column in a block: one
    untimed call (lets the previous framework's spinning threads settle) and timed calls until
    half the repetitions or half the time budget is used. Process CPU minus main-thread CPU is
    what the framework's other threads used (working, or spinning while waiting for work)."""
    budget, reps = (1.0, 6) if quick else (8.0, 40)
    calls, times, cpus, ref = {}, {}, {}, None
    for col, spec in fns.items():
        fn, compare = spec if isinstance(spec, tuple) else (spec, True)
        t0 = time.perf_counter()
        result = fn()
        first = time.perf_counter() - t0
        if col == "rustape":
            ref = result
        elif compare:
            check(name, col, ref, result)
        del result
        calls[col], times[col], cpus[col] = fn, [], []
        if first > budget:  # slow: one timed call per pass, no settling call
            calls[col] = (fn, 1)
    for order in (list(calls), list(calls)[::-1]):
        for col in order:
            fn, n = calls[col] if isinstance(calls[col], tuple) else (calls[col], reps // 2)
            if n > 1:
                fn()
            spent, done = 0.0, 0
            while done < n and (done < 2 or spent < budget / 2):
                c0, m0, t0 = time.process_time(), time.thread_time(), time.perf_counter()
                fn()
                dt = time.perf_counter() - t0
                cpus[col].append((time.process_time() - c0, time.thread_time() - m0))
                times[col].append(dt)
                spent, done = spent + dt, done + 1
    med = {c: statistics.median(v) for c, v in times.items()}
    cpu = {c: tuple(statistics.median(x[i] for x in v) for i in (0, 1)) for c, v in cpus.items()}
    return med, cpu


def fmt_t(s):
    return f"{s * 1e3:.3f} ms" if s < 1 else f"{s:.2f} s"


def rss_bytes():
    with open("/proc/self/statm") as f:
        return int(f.read().split()[1]) * os.sysconf("SC_PAGE_SIZE")


def cpu_seconds():
    """(CPU seconds used by the whole machine, by this process) so far, from /proc."""
    tick = os.sysconf("SC_CLK_TCK")
    with open("/proc/stat") as f:
        fields = [int(v) for v in f.readline().split()[1:]]
    with open("/proc/self/stat") as f:
        own = f.read().rsplit(")", 1)[1].split()
    busy = sum(fields) - fields[3] - fields[4]  # all but idle and iowait
    return busy / tick, (int(own[11]) + int(own[12])) / tick


def child_memory(fw, n):
    """W6 recording only, in a fresh process: tape bytes per op and RSS growth per op."""
    mod = import_peers([fw])[fw] if fw != "rustape" else None
    w6_record(fw, mod, 1000)  # warm up the allocator and the framework's caches
    before = rss_bytes()
    t, s, y = w6_record(fw, mod, n)
    grown = rss_bytes() - before
    out = {"ops": 2 * n, "rss_per_op": grown / (2 * n)}
    if fw == "rustape":
        out.update(ops=len(t), nbytes=t.nbytes, rss_per_op=grown / len(t),
                   saved_per_op=t.nbytes / len(t), beyond_saved_per_op=(grown - t.nbytes) / len(t))
    return out


def peak_growth(fn):
    """fn() and the growth of peak RSS (VmHWM, reset through /proc/self/clear_refs) while it ran."""
    def hwm():
        with open("/proc/self/status") as f:
            return next(int(line.split()[1]) * 1024 for line in f if line.startswith("VmHWM:"))

    with open("/proc/self/clear_refs", "w") as f:
        f.write("5")  # the peak RSS restarts from the current RSS
    before = hwm()
    out = fn()
    return out, hwm() - before


def nbytes(results):
    return sum(int(np.prod(r.shape)) * 4 for r in (results if isinstance(results, list)
                                                   else [results]))


def child_peak_memory(name):
    """Peak memory in a fresh process (issues 3 and 15): the growth of peak RSS during the
    Jacobian (W4, W9) or the whole step (W7), against its result plus the bytes the tapes saved
    (W7: the outermost tape, which holds everything the inner ones recorded)."""
    rt.constant(1.0) * 2.0  # the extension's pages: not the workload's
    if name == "W4":
        x, L1, L2 = rand(512, 64), rand(64, 128, scale=1 / 8), rand(128, 32, scale=1 / 11)
        x, L1, L2 = rt.constant(x), rt.constant(L1), rt.constant(L2)
        w4_tape(rt, x[:8], L1, L2)  # rayon's threads, code pages, allocator arenas: not W4's
        with rt.GradientTape() as t:
            t.watch(x)
            y = rt.nn.elu(rt.matmul(rt.nn.elu(rt.matmul(x, L1)), L2))
        tape = t.nbytes
        result, grown = peak_growth(lambda: t.batch_jacobian(y, x))
    elif name == "W9":
        params, x, labels = w9_data()
        vs, x, labels = [rt.Variable(p) for p in params], rt.constant(x), rt.constant(labels)
        w9_tape(rt, vs, x[:2], labels[:2])
        with rt.GradientTape() as t:
            losses = rt.nn.softmax_cross_entropy_with_logits(
                labels=labels, logits=mlp(rt, vs, x, rt.nn.relu))
        tape = t.nbytes
        result, grown = peak_growth(lambda: t.jacobian(losses, vs))
    else:
        params, X, f = w7_data()
        vs, X, f = [rt.Variable(p) for p in params], rt.constant(X), rt.constant(f)
        w7_tape(rt, vs, X[:8], f[:8])
        tapes = []

        def step():
            with rt.GradientTape() as t3:
                with rt.GradientTape() as t2:
                    t2.watch(X)
                    with rt.GradientTape() as t1:
                        t1.watch(X)
                        u = mlp(rt, vs, X, rt.math.tanh)
                    g = t1.gradient(u, X)
                lap = rt.linalg.trace(t2.batch_jacobian(g, X))
                loss = rt.reduce_mean(rt.square(lap - f))
            tapes.append(t3.nbytes)
            return t3.gradient(loss, vs[:-1])
        result, grown = peak_growth(step)
        tape = tapes[0]
    size = nbytes(result)
    return {"peak_growth": grown, "result": size, "tape": tape, "ratio": grown / (size + tape)}


def child_threads(quick, peers):
    """The rayon-parallel workloads at RAYON_NUM_THREADS threads (run under 1 and 2). Beside
    rustape, when installed: torch at as many threads, and for the elementwise ops torch writing
    into a warm buffer (`out=`), the machine's ceiling for a streaming kernel (no allocation, no
    page faults): a multiply of 4M float32 moves 48 MB, so it scales only as far as memory
    bandwidth does."""
    threads = int(os.environ.get("RAYON_NUM_THREADS", "1"))
    P = import_peers(peers)
    if "torch" in P:
        P["torch"].set_num_threads(threads)
    res = {"time": {}, "cpu": {}}
    for name in THREADED:
        fns = {c: f for c, f in WORKLOADS[name][1](P, quick).items() if c in ("rustape", "torch")}
        if name in ("tanh4M", "mul4M") and "torch" in P:
            fns["torch out="] = (torch_into(P["torch"], name), False)
        res["time"][name], res["cpu"][name] = measure(name, fns, quick)
    return res


# The workloads run at 1 and 2 threads (W4 and W7 also for CPU per call: goal <= 1.15x; W2,
# the MLP's forward and backward GEMMs, shows what the second core gives a training step).
THREADED = ("W2", "W4", "W7", "tanh4M", "mul4M", "matmul")


def torch_into(torch, name):
    """torch's tanh or multiply of 4M float32 into a preallocated output."""
    a, b = torch.tensor(rand(1 << 22)), torch.tensor(rand(1 << 22))
    out = torch.empty_like(a)
    if name == "tanh4M":
        return lambda: torch.tanh(a, out=out)
    return lambda: torch.mul(a, b, out=out)


def child_group(group, names, quick):
    """rustape beside one group of peers: "base" (torch, numpy, Python floats), "jax" or "tf"."""
    P = import_peers(["torch"] if group == "base+torch" else [group] if group != "base" else [])
    res, cpu, wall, used = {}, {}, time.perf_counter(), cpu_seconds()
    for name in names:
        fns = {c: f for c, f in WORKLOADS[name][1](P, quick).items()
               if c == "rustape" or group.startswith("base") or c.split()[0] == group}
        if len(fns) > 1 or group.startswith("base"):
            res[name], cpu[name] = med, _ = measure(name, fns, quick)
            print(f"{group:10} {name:7} " + " | ".join(f"{c} {fmt_t(t)}" for c, t in med.items()),
                  file=sys.stderr, flush=True)
    used = [b - a for a, b in zip(used, cpu_seconds())]
    others = max(0.0, used[0] - used[1]) / (time.perf_counter() - wall)
    return {"versions": versions(P), "medians": res, "cpu": cpu, "others_cores": others,
            "loadavg": os.getloadavg()[0]}


def run_child(args, env_extra=None):
    env = dict(os.environ, **(env_extra or {}))
    cmd = [sys.executable, os.path.abspath(__file__)] + args
    p = subprocess.run(cmd, env=env, stdout=subprocess.PIPE, text=True, check=True)
    return json.loads(p.stdout.strip().splitlines()[-1])


def versions(P):
    v = {"python": platform.python_version(), "numpy": np.__version__,
         "rustape": getattr(rt, "__version__", "?")}
    for name, mod in P.items():
        v[name] = mod.__version__
    return v


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--quick", action="store_true", help="short budgets; W6 with 20,000 ops")
    ap.add_argument("--json", metavar="PATH", help="write all numbers to PATH")
    ap.add_argument("--only", help="comma-separated workloads (" + ",".join(WORKLOADS) + ")")
    ap.add_argument("--peers", default="torch,jax,tf", help="peers to try (default torch,jax,tf)")
    ap.add_argument("--no-extras", action="store_true", help="skip thread scaling and W6 memory")
    ap.add_argument("--child", help=argparse.SUPPRESS)
    a = ap.parse_args()
    names = a.only.split(",") if a.only else list(WORKLOADS)
    q = ["--quick"] if a.quick else []
    if a.child:
        kind, _, arg = a.child.partition(":")
        if kind == "memory":
            res = child_memory(arg, w6_n(a.quick))
        elif kind == "peak":
            res = child_peak_memory(arg)
        elif kind == "threads":
            res = child_threads(a.quick, [p for p in a.peers.split(",") if p == "torch"])
        else:
            res = child_group(arg, names, a.quick)
        print(json.dumps(res))
        return
    peers = [p for p in a.peers.split(",") if p]
    # One process per group of peers: TensorFlow's LLVM and torch.func's cannot share a process,
    # and XLA's and torch's thread pools slow each other down. Ratios are taken against the
    # rustape median measured in the same process; the rustape column is the first process's.
    groups = ["base+torch" if "torch" in peers else "base"] + [p for p in peers if p != "torch"]
    results, ratios, vers, rt_by_group, others, cpu = {}, {}, {}, {}, {}, {}
    load = [os.getloadavg()[0]]  # the machine is shared: say how busy it was
    for g in groups:
        out = run_child(["--child", "run:" + g, "--only", ",".join(names)] + q)
        vers.update(out["versions"])
        others[g] = out["others_cores"]
        load.append(out["loadavg"])
        for name, med in out["medians"].items():
            base = med.pop("rustape")
            rt_by_group.setdefault(name, {})[g] = base
            results.setdefault(name, {"rustape": base}).update(med)
            ratios.setdefault(name, {}).update({c: base / t for c, t in med.items()})
            cpu.setdefault(name, {}).update(out["cpu"][name])

    print("\n# " + "  ".join(f"{k} {v}" for k, v in vers.items()))
    print(f"# {os.cpu_count()} CPUs; 1-minute load average before and after each process: "
          + ", ".join(f"{v:.2f}" for v in load))
    print("# CPU used by other processes meanwhile (cores): " +
          ", ".join(f"{g} {c:.2f}" for g, c in others.items()) +
          ("  ** DISTURBED: treat these numbers with care **" if max(others.values()) > 0.1 else ""))
    print("\n## medians, and ratio rustape / peer in the same process (< 1: rustape faster)")
    cols = sorted({c for m in results.values() for c in m if c != "rustape"},
                  key=lambda c: (c not in ("torch", "numpy"), c))
    print("| workload | rustape | " + " | ".join(cols) + " |")
    print("|---" * (len(cols) + 2) + "|")
    for name, med in results.items():
        title = WORKLOADS[name][0].replace("200,000", f"{w6_n(a.quick):,}")
        cells = [f"{fmt_t(med[c])} ({ratios[name][c]:.3g}x)" if c in med else "" for c in cols]
        print(f"| {name} {title} | {fmt_t(med['rustape'])} | " + " | ".join(cells) + " |")

    print("\n## CPU per call (medians): process CPU / main thread's CPU; the difference is what "
          "other threads of the process used (working, or spinning while they wait)")
    ccols = ["rustape"] + cols
    print("| workload | " + " | ".join(ccols) + " |")
    print("|---" * (len(ccols) + 1) + "|")
    for name, by_col in cpu.items():
        cells = [f"{fmt_t(by_col[c][0])} / {fmt_t(by_col[c][1])}" if c in by_col else ""
                 for c in ccols]
        print(f"| {name} | " + " | ".join(cells) + " |")

    goals = {}
    print("\n## goals")
    for name, targets in GOALS.items():
        for peer, goal in targets:
            if peer in ratios.get(name, {}):
                ratio = ratios[name][peer]
                goals[f"{name}/{peer}"] = {"goal": goal, "ratio": ratio, "met": ratio <= goal}
                print(f"{name}: rustape/{peer} = {ratio:.3g} (goal <= {goal}): " +
                      ("MET" if ratio <= goal else f"not met, {ratio / goal:.3g}x away"))

    extra = {}
    if not a.no_extras:
        # 1 and 2 threads alternate three times (fresh processes). Each pair gives a ratio; the
        # headline is the median pair, because this machine's second vCPU is sometimes slow for
        # seconds at a time (a pair then shows ~1x for every framework alike).
        pairs = [[run_child(["--child", "threads", "--peers", a.peers] + q,
                            {"RAYON_NUM_THREADS": str(t)})
                  for t in (1, 2)] for _ in range(1 if a.quick else 3)]
        extra["threads"] = {"runs": pairs}
        print("\n## 1 vs 2 threads: 1-thread / 2-thread time per alternating pair, median pair "
              "first (goal: rustape's W4 and large elementwise >= 1.8x)")
        for w in pairs[0][0]["time"]:
            cells = []
            for c in pairs[0][0]["time"][w]:
                rs = sorted((p[0]["time"][w][c] / p[1]["time"][w][c], p[0]["time"][w][c],
                             p[1]["time"][w][c]) for p in pairs)
                r, one, two = rs[len(rs) // 2]
                cells.append(f"{c} {fmt_t(one)} -> {fmt_t(two)}: {r:.2f}x (pairs "
                             + ", ".join(f"{x[0]:.2f}" for x in rs) + ")")
            print(f"{w}: " + " | ".join(cells))
        print("\n## 2-thread / 1-thread process CPU per call, per pair, median pair first "
              "(goal: rustape's W4 and W7 <= 1.15x)")
        for w in ("W2", "W4", "W7"):
            cells = []
            for c in pairs[0][0]["cpu"].get(w, {}):
                rs = sorted((p[1]["cpu"][w][c][0] / p[0]["cpu"][w][c][0], p[0]["cpu"][w][c][0],
                             p[1]["cpu"][w][c][0]) for p in pairs)
                r, one, two = rs[len(rs) // 2]
                cells.append(f"{c} {fmt_t(one)} -> {fmt_t(two)}: {r:.2f}x (pairs "
                             + ", ".join(f"{x[0]:.2f}" for x in rs) + ")")
            if cells:
                print(f"{w}: " + " | ".join(cells))
        extra["peak_memory"] = {}
        print("\n## peak memory (fresh process each): peak RSS growth against the result plus "
              "the tape's saved tensors (goals: W4 <= 2, W7 and W9 <= 1.5)")
        mib = 1 << 20
        for w in ("W4", "W7", "W9"):
            if w in names:
                m = run_child(["--child", "peak:" + w])
                extra["peak_memory"][w] = m
                print(f"{w}: peak RSS growth {m['peak_growth'] / mib:.2f} MiB; result "
                      f"{m['result'] / mib:.2f} MiB, tape {m['tape'] / mib:.2f} MiB: "
                      f"{m['ratio']:.2f}x (result + tape)")
        print(f"\n## W6 memory ({w6_n(a.quick):,} iterations recorded, fresh process each)")
        extra["memory"] = {}
        for fw in ["rustape"] + [p for p in ("torch", "tf") if p in peers]:
            try:
                m = run_child(["--child", "memory:" + fw] + q)
            except (subprocess.CalledProcessError, KeyError):
                continue
            extra["memory"][fw] = m
            line = f"{fw}: {m['ops']:,} ops, RSS growth {m['rss_per_op']:.0f} B/op"
            if fw == "rustape":
                line += (f"; tape.nbytes {m['saved_per_op']:.1f} B/op of saved data; "
                         f"beyond saved data {m['beyond_saved_per_op']:.0f} B/op (goal <= 150)")
            print(line)
    if a.json:
        with open(a.json, "w") as f:
            json.dump({"versions": vers, "quick": a.quick, "medians_s": results, "ratios": ratios,
                       "rustape_by_process": rt_by_group, "goals": goals, "loadavg": load,
                       "other_processes_cores": others, "cpu_s": cpu,
                       **extra}, f, indent=1)


if __name__ == "__main__":
    main()
