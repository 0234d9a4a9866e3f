"""TensorFlow's custom-training-loop guides and tutorials, ported with `tf.` -> `rt.` on small
synthetic arrays instead of downloaded datasets: each must train (its loss falls) as it does in
TensorFlow.

Ported: "Custom training: walkthrough", "Writing a training loop from scratch", "Adversarial
example using FGSM", "Deep Convolutional GAN" (its training step on dense networks, and its
convolutional generator and discriminator as written), "Convolutional Variational
Autoencoder", and a physics-informed network (second derivatives through nested tapes inside a
training step). What does not port yet: docs/guide/porting.md.
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


def test_dcgan_convolutional_models() -> None:
    # tensorflow.org/tutorials/generative/dcgan as written: make_generator_model (Dense,
    # BatchNormalization, LeakyReLU, Reshape, three Conv2DTranspose, its output_shape asserts)
    # and make_discriminator_model (two strided Conv2D, Dropout, Flatten, Dense), the
    # tutorial's losses and train_step; 28x28 blobs stand in for MNIST.
    tf = rt  # the tutorial's code with tf. -> rt.
    layers = rt.keras.layers
    batch_size, noise_dim = 16, 100
    tf.random.set_seed(0)

    def make_generator_model() -> Any:
        model = tf.keras.Sequential()
        model.add(layers.Dense(7 * 7 * 256, use_bias=False, input_shape=(100,)))
        model.add(layers.BatchNormalization())
        model.add(layers.LeakyReLU())
        model.add(layers.Reshape((7, 7, 256)))
        assert model.output_shape == (None, 7, 7, 256)
        model.add(
            layers.Conv2DTranspose(128, (5, 5), strides=(1, 1), padding="same", use_bias=False)
        )
        assert model.output_shape == (None, 7, 7, 128)
        model.add(layers.BatchNormalization())
        model.add(layers.LeakyReLU())
        model.add(
            layers.Conv2DTranspose(64, (5, 5), strides=(2, 2), padding="same", use_bias=False)
        )
        assert model.output_shape == (None, 14, 14, 64)
        model.add(layers.BatchNormalization())
        model.add(layers.LeakyReLU())
        model.add(
            layers.Conv2DTranspose(
                1, (5, 5), strides=(2, 2), padding="same", use_bias=False, activation="tanh"
            )
        )
        assert model.output_shape == (None, 28, 28, 1)
        return model

    def make_discriminator_model() -> Any:
        model = tf.keras.Sequential()
        model.add(
            layers.Conv2D(64, (5, 5), strides=(2, 2), padding="same", input_shape=[28, 28, 1])
        )
        model.add(layers.LeakyReLU())
        model.add(layers.Dropout(0.3))
        model.add(layers.Conv2D(128, (5, 5), strides=(2, 2), padding="same"))
        model.add(layers.LeakyReLU())
        model.add(layers.Dropout(0.3))
        model.add(layers.Flatten())
        model.add(layers.Dense(1))
        return model

    generator = make_generator_model()
    generated_image = generator(tf.random.normal([1, 100]), training=False)
    assert generated_image.shape == (1, 28, 28, 1)
    discriminator = make_discriminator_model()
    assert discriminator(generated_image).shape == (1, 1)
    cross_entropy = tf.keras.losses.BinaryCrossentropy(from_logits=True)

    def discriminator_loss(real_output: Any, fake_output: Any) -> Any:
        real_loss = cross_entropy(tf.ones_like(real_output), real_output)
        fake_loss = cross_entropy(tf.zeros_like(fake_output), fake_output)
        return real_loss + fake_loss

    def generator_loss(fake_output: Any) -> Any:
        return cross_entropy(tf.ones_like(fake_output), fake_output)

    generator_optimizer = tf.keras.optimizers.Adam(1e-4)
    discriminator_optimizer = tf.keras.optimizers.Adam(1e-4)

    @tf.function
    def train_step(images: Any) -> tuple[Any, Any]:
        noise = tf.random.normal([batch_size, noise_dim])
        with tf.GradientTape() as gen_tape, tf.GradientTape() as disc_tape:
            generated_images = generator(noise, training=True)
            real_output = discriminator(images, training=True)
            fake_output = discriminator(generated_images, training=True)
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
        return gen_loss, disc_loss

    rng = np.random.default_rng(0)
    yy, xx = np.mgrid[0:28, 0:28]
    disc_losses = []
    for _ in range(10):
        cy, cx = rng.uniform(8, 20, (2, batch_size, 1, 1))
        images = (np.exp(-((yy - cy) ** 2 + (xx - cx) ** 2) / 20.0) * 2 - 1)[..., None]
        gen_loss, disc_loss = train_step(images.astype(np.float32))
        assert np.isfinite(float(gen_loss))
        disc_losses.append(float(disc_loss))
    # log(4) at the start (it cannot tell real from generated); the discriminator learns.
    assert abs(disc_losses[0] - np.log(4.0)) < 0.1
    assert disc_losses[-1] < 0.9 * disc_losses[0]


def test_convolutional_vae() -> None:
    # tensorflow.org/tutorials/generative/cvae as written (the CVAE model with InputLayer,
    # Conv2D and Conv2DTranspose stacks, tf.split, the reparameterisation, log_normal_pdf,
    # sigmoid cross-entropy and the train_step), on 28x28 binary blobs; learning rate 1e-3
    # instead of 1e-4 so that 25 steps show the fall.
    tf = rt
    tf.random.set_seed(0)

    class CVAE(tf.keras.Model):  # type: ignore[misc, name-defined]
        def __init__(self, latent_dim: int) -> None:
            super().__init__()
            self.latent_dim = latent_dim
            self.encoder = tf.keras.Sequential(
                [
                    tf.keras.layers.InputLayer(input_shape=(28, 28, 1)),
                    tf.keras.layers.Conv2D(
                        filters=32, kernel_size=3, strides=(2, 2), activation="relu"
                    ),
                    tf.keras.layers.Conv2D(
                        filters=64, kernel_size=3, strides=(2, 2), activation="relu"
                    ),
                    tf.keras.layers.Flatten(),
                    tf.keras.layers.Dense(latent_dim + latent_dim),
                ]
            )
            self.decoder = tf.keras.Sequential(
                [
                    tf.keras.layers.InputLayer(input_shape=(latent_dim,)),
                    tf.keras.layers.Dense(units=7 * 7 * 32, activation=tf.nn.relu),
                    tf.keras.layers.Reshape(target_shape=(7, 7, 32)),
                    tf.keras.layers.Conv2DTranspose(
                        filters=64, kernel_size=3, strides=2, padding="same", activation="relu"
                    ),
                    tf.keras.layers.Conv2DTranspose(
                        filters=32, kernel_size=3, strides=2, padding="same", activation="relu"
                    ),
                    tf.keras.layers.Conv2DTranspose(
                        filters=1, kernel_size=3, strides=1, padding="same"
                    ),
                ]
            )

        @tf.function
        def sample(self, eps: Any = None) -> Any:
            if eps is None:
                eps = tf.random.normal(shape=(100, self.latent_dim))
            return self.decode(eps, apply_sigmoid=True)

        def encode(self, x: Any) -> Any:
            mean, logvar = tf.split(self.encoder(x), num_or_size_splits=2, axis=1)
            return mean, logvar

        def reparameterize(self, mean: Any, logvar: Any) -> Any:
            eps = tf.random.normal(shape=mean.shape)
            return eps * tf.exp(logvar * 0.5) + mean

        def decode(self, z: Any, apply_sigmoid: bool = False) -> Any:
            logits = self.decoder(z)
            if apply_sigmoid:
                probs = tf.sigmoid(logits)
                return probs
            return logits

    optimizer = tf.keras.optimizers.Adam(1e-3)

    def log_normal_pdf(sample: Any, mean: Any, logvar: Any, raxis: int = 1) -> Any:
        log2pi = tf.math.log(2.0 * np.pi)
        return tf.reduce_sum(
            -0.5 * ((sample - mean) ** 2.0 * tf.exp(-logvar) + logvar + log2pi), axis=raxis
        )

    def compute_loss(model: Any, x: Any) -> Any:
        mean, logvar = model.encode(x)
        z = model.reparameterize(mean, logvar)
        x_logit = model.decode(z)
        cross_ent = tf.nn.sigmoid_cross_entropy_with_logits(logits=x_logit, labels=x)
        logpx_z = -tf.reduce_sum(cross_ent, axis=[1, 2, 3])
        logpz = log_normal_pdf(z, 0.0, 0.0)
        logqz_x = log_normal_pdf(z, mean, logvar)
        return -tf.reduce_mean(logpx_z + logpz - logqz_x)

    @tf.function
    def train_step(model: Any, x: Any, optimizer: Any) -> Any:
        with tf.GradientTape() as tape:
            loss = compute_loss(model, x)
        gradients = tape.gradient(loss, model.trainable_variables)
        optimizer.apply_gradients(zip(gradients, model.trainable_variables))
        return loss

    rng = np.random.default_rng(0)
    yy, xx = np.mgrid[0:28, 0:28]
    cy, cx = rng.uniform(8, 20, (2, 64, 1, 1))
    images = (np.exp(-((yy - cy) ** 2 + (xx - cx) ** 2) / 20.0) > 0.5)[..., None]
    model = CVAE(2)
    losses = [float(train_step(model, images.astype(np.float32), optimizer)) for _ in range(25)]
    assert all(np.isfinite(losses))
    assert losses[-1] < 0.8 * losses[0]
    assert model.sample().shape == (100, 28, 28, 1)
    assert model.encoder.output_shape == (None, 4)
    assert model.decoder.input_shape == (None, 2)


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
