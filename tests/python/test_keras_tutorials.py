"""TensorFlow's custom-training-loop guides and tutorials, ported with `tf.` -> `rt.` on small
synthetic arrays instead of downloaded datasets: each must train (its loss falls) as it does in
TensorFlow.

Ported: "Custom training: walkthrough", "Writing a training loop from scratch", "Adversarial
example using FGSM", the GAN training step of "Deep Convolutional GAN" (dense generator and
discriminator: convolutional layers live in rt.keras.layers' own tests), and a
physics-informed network (second derivatives through nested tapes inside a training step).
"""

from __future__ import annotations

from typing import Any

import numpy as np
import rustape as rt

keras = rt.keras


def blobs(n: int, classes: int, features: int, seed: int) -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(seed)
    centres = rng.normal(size=(classes, features)) * 5
    labels = rng.integers(0, classes, size=n)
    x = centres[labels] + rng.normal(size=(n, features))
    return x.astype(np.float32), labels.astype(np.int32)


def test_custom_training_walkthrough() -> None:
    # tensorflow.org/tutorials/customization/custom_training_walkthrough (Iris: 4 features,
    # 3 classes), with the tutorial's model, loss, grad() and loop.
    rt.random.set_seed(0)
    features, labels = blobs(120, 3, 4, seed=0)
    model = keras.Sequential(
        [
            keras.Input(shape=(4,)),
            keras.layers.Dense(10, activation=rt.nn.relu),
            keras.layers.Dense(10, activation=rt.nn.relu),
            keras.layers.Dense(3),
        ]
    )
    loss_object = keras.losses.SparseCategoricalCrossentropy(from_logits=True)

    def loss(model: Any, x: Any, y: Any, training: bool) -> Any:
        y_ = model(x, training=training)
        return loss_object(y_true=y, y_pred=y_)

    def grad(model: Any, inputs: Any, targets: Any) -> Any:
        with rt.GradientTape() as tape:
            loss_value = loss(model, inputs, targets, training=True)
        return loss_value, tape.gradient(loss_value, model.trainable_variables)

    optimizer = keras.optimizers.SGD(learning_rate=0.01)
    train_loss_results, train_accuracy_results = [], []
    for epoch in range(100):
        epoch_loss_avg = keras.metrics.Mean()
        epoch_accuracy = keras.metrics.SparseCategoricalAccuracy()
        for start in range(0, 120, 32):
            x, y = features[start : start + 32], labels[start : start + 32]
            loss_value, grads = grad(model, x, y)
            optimizer.apply_gradients(zip(grads, model.trainable_variables))
            epoch_loss_avg.update_state(loss_value)
            epoch_accuracy.update_state(y, model(x, training=True))
        train_loss_results.append(float(epoch_loss_avg.result()))
        train_accuracy_results.append(float(epoch_accuracy.result()))
    assert train_loss_results[-1] < 0.5 * train_loss_results[0]
    assert train_accuracy_results[-1] > 0.9
    test_accuracy = keras.metrics.Accuracy()
    logits = model(features, training=False)
    prediction = rt.argmax(logits, axis=1, output_type=rt.int32)
    test_accuracy(prediction, labels)
    assert float(test_accuracy.result()) > 0.9


def test_training_loop_from_scratch() -> None:
    # keras.io/guides/writing_a_custom_training_loop_in_tensorflow: functional model, train_step
    # and test_step with metrics, on 784-feature synthetic "digits".
    rt.random.set_seed(0)
    x_train, y_train = blobs(512, 10, 784, seed=1)
    x_val, y_val = x_train[-128:], y_train[-128:]
    inputs = keras.Input(shape=(784,), name="digits")
    x1 = keras.layers.Dense(64, activation="relu")(inputs)
    x2 = keras.layers.Dense(64, activation="relu")(x1)
    outputs = keras.layers.Dense(10, name="predictions")(x2)
    model = keras.Model(inputs=inputs, outputs=outputs)
    optimizer = keras.optimizers.Adam(learning_rate=1e-3)
    loss_fn = keras.losses.SparseCategoricalCrossentropy(from_logits=True)
    train_acc_metric = keras.metrics.SparseCategoricalAccuracy()
    val_acc_metric = keras.metrics.SparseCategoricalAccuracy()

    def train_step(x: Any, y: Any) -> Any:
        with rt.GradientTape() as tape:
            logits = model(x, training=True)
            loss_value = loss_fn(y, logits)
        grads = tape.gradient(loss_value, model.trainable_weights)
        optimizer.apply_gradients(zip(grads, model.trainable_weights))
        train_acc_metric.update_state(y, logits)
        return loss_value

    def test_step(x: Any, y: Any) -> None:
        val_logits = model(x, training=False)
        val_acc_metric.update_state(y, val_logits)

    first = last = None
    for epoch in range(3):
        for start in range(0, 384, 64):
            loss_value = float(train_step(x_train[start : start + 64], y_train[start : start + 64]))
            first = loss_value if first is None else first
            last = loss_value
        train_acc_metric.reset_state()
        test_step(x_val, y_val)
    assert last is not None and first is not None and last < 0.2 * first
    assert float(val_acc_metric.result()) > 0.9


def test_fgsm_adversarial_example() -> None:
    # tensorflow.org/tutorials/generative/adversarial_fgsm: the signed input gradient raises
    # the loss of a trained classifier.
    rt.random.set_seed(0)
    x, y = blobs(256, 3, 16, seed=2)
    model = keras.Sequential(
        [keras.Input(shape=(16,)), keras.layers.Dense(32, activation="relu"), keras.layers.Dense(3)]
    )
    opt = keras.optimizers.Adam(0.01)
    loss_object = keras.losses.SparseCategoricalCrossentropy(from_logits=True)
    for _ in range(60):
        with rt.GradientTape() as tape:
            loss = loss_object(y, model(x))
        grads = tape.gradient(loss, model.trainable_variables)
        opt.apply_gradients(zip(grads, model.trainable_variables))

    def create_adversarial_pattern(input_image: Any, input_label: Any) -> Any:
        with rt.GradientTape() as tape:
            tape.watch(input_image)
            prediction = model(input_image)
            loss = loss_object(input_label, prediction)
        gradient = tape.gradient(loss, input_image)
        return rt.sign(gradient)

    image = rt.constant(x[:64])
    perturbations = create_adversarial_pattern(image, y[:64])
    clean = float(loss_object(y[:64], model(image)))
    losses = [
        float(loss_object(y[:64], model(image + eps * perturbations))) for eps in (0.1, 0.5, 1.0)
    ]
    assert clean < losses[0] < losses[1] < losses[2]


def test_gan_training_step() -> None:
    # tensorflow.org/tutorials/generative/dcgan: the train_step with two tapes and two Adam
    # optimizers (dense networks on 2-d "images").
    rt.random.set_seed(0)
    rng = np.random.default_rng(3)
    real = (rng.normal(size=(256, 2)) * 0.3 + np.array([2.0, -1.0])).astype(np.float32)
    generator = keras.Sequential(
        [keras.Input(shape=(4,)), keras.layers.Dense(16, activation="relu"), keras.layers.Dense(2)]
    )
    discriminator = keras.Sequential(
        [keras.Input(shape=(2,)), keras.layers.Dense(16, activation="relu"), keras.layers.Dense(1)]
    )
    cross_entropy = keras.losses.BinaryCrossentropy(from_logits=True)

    def discriminator_loss(real_output: Any, fake_output: Any) -> Any:
        real_loss = cross_entropy(rt.ones_like(real_output), real_output)
        fake_loss = cross_entropy(rt.zeros_like(fake_output), fake_output)
        return real_loss + fake_loss

    def generator_loss(fake_output: Any) -> Any:
        return cross_entropy(rt.ones_like(fake_output), fake_output)

    generator_optimizer = keras.optimizers.Adam(1e-2)
    discriminator_optimizer = keras.optimizers.Adam(1e-2)

    def train_step(images: Any) -> tuple[float, float]:
        noise = rt.random.normal([64, 4])
        with rt.GradientTape() as gen_tape, rt.GradientTape() as disc_tape:
            generated = generator(noise, training=True)
            real_output = discriminator(images, training=True)
            fake_output = discriminator(generated, training=True)
            gen_loss = generator_loss(fake_output)
            disc_loss = discriminator_loss(real_output, fake_output)
        gradients_of_generator = gen_tape.gradient(gen_loss, generator.trainable_variables)
        gradients_of_discriminator = disc_tape.gradient(
            disc_loss, discriminator.trainable_variables
        )
        generator_optimizer.apply_gradients(
            zip(gradients_of_generator, generator.trainable_variables)
        )
        discriminator_optimizer.apply_gradients(
            zip(gradients_of_discriminator, discriminator.trainable_variables)
        )
        return float(gen_loss), float(disc_loss)

    start = float(rt.reduce_mean(rt.abs(generator(rt.random.normal([256, 4])) - real.mean(0))))
    for epoch in range(40):
        for b in range(0, 256, 64):
            g, d = train_step(real[b : b + 64])
            assert np.isfinite(g) and np.isfinite(d)
    end = float(rt.reduce_mean(rt.abs(generator(rt.random.normal([256, 4])) - real.mean(0))))
    assert end < 0.75 * start  # the generated points moved towards the data


def test_physics_informed_network() -> None:
    # A PINN for u'' = -pi^2 sin(pi x), u(0) = u(1) = 0 (solution sin(pi x)): the residual needs
    # second derivatives of the model with respect to its input, inside the training tape.
    rt.random.set_seed(0)
    model = keras.Sequential(
        [
            keras.Input(shape=(1,)),
            keras.layers.Dense(16, activation="tanh"),
            keras.layers.Dense(16, activation="tanh"),
            keras.layers.Dense(1),
        ]
    )
    opt = keras.optimizers.Adam(0.01)
    x = rt.constant(np.linspace(0, 1, 32, dtype=np.float32).reshape(-1, 1))
    boundary = rt.constant([[0.0], [1.0]])
    source = -(np.pi**2) * rt.sin(np.pi * x)
    losses = []
    for _ in range(150):
        with rt.GradientTape() as tape:
            with rt.GradientTape() as t2:
                t2.watch(x)
                with rt.GradientTape() as t1:
                    t1.watch(x)
                    u = model(x)
                u_x = t1.gradient(u, x)
            u_xx = t2.gradient(u_x, x)
            loss = rt.reduce_mean(rt.square(u_xx - source)) + 10.0 * rt.reduce_mean(
                rt.square(model(boundary))
            )
        grads = tape.gradient(loss, model.trainable_variables)
        opt.apply_gradients(zip(grads, model.trainable_variables))
        losses.append(float(loss))
    assert losses[-1] < 0.1 * losses[0]
