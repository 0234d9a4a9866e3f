//! The update rules: each algorithm's hyperparameters (Keras 3's defaults), its slots, and its
//! per-element update written in the order of Keras's formulas, so that float32 rounding agrees
//! step for step.
//!
//! Keras mixes two kinds of constants, and the difference shows in the last bit: a Python number
//! combined with another Python number is computed in double and rounded once (`1 - beta_1` in
//! Adam), while a constant cast to the variable's dtype first is computed in that dtype
//! (`1 - beta_1` in Nadam and Lion). [`py`] marks the first kind; plain arithmetic on `T` the
//! second. A hyperparameter Keras passes through `ops.cast` is converted to a float32 tensor
//! first ([`cast`]): it differs from [`py`] only for float64 variables.
use super::ftrl::{Ftrl, FtrlStep};
pub use super::hyperparameters::{
    Adadelta, Adagrad, Adam, AdamW, Adamax, Lion, Nadam, RmsProp, Sgd,
};
use super::layerwise::{Adafactor, Lamb};
use super::muon::Muon;
use crate::dtype::Float;
use crate::error::{Error, Result};

/// A Python number as Keras hands it to a tensor op: rounded to the variable's dtype.
pub(crate) fn py<T: Float>(x: f64) -> T {
    <T as num_traits::FromPrimitive>::from_f64(x).unwrap_or_else(T::nan)
}

/// A Python number through Keras's `ops.cast(x, dtype)` (`tf.cast` makes it a float32 tensor
/// first): rounded to float32, then to the variable's dtype.
pub(crate) fn cast<T: Float>(x: f64) -> T {
    py(x as f32 as f64)
}

/// One of the update rules, with its hyperparameters.
#[derive(Clone, Debug, PartialEq)]
pub enum Algorithm {
    /// [`Sgd`].
    Sgd(Sgd),
    /// [`Adam`].
    Adam(Adam),
    /// [`AdamW`].
    AdamW(AdamW),
    /// [`RmsProp`].
    RmsProp(RmsProp),
    /// [`Adagrad`].
    Adagrad(Adagrad),
    /// [`Adadelta`].
    Adadelta(Adadelta),
    /// [`Nadam`].
    Nadam(Nadam),
    /// [`Adamax`].
    Adamax(Adamax),
    /// [`Lion`].
    Lion(Lion),
    /// [`Ftrl`].
    Ftrl(Ftrl),
    /// [`Lamb`].
    Lamb(Lamb),
    /// [`Adafactor`].
    Adafactor(Adafactor),
    /// [`Muon`].
    Muon(Muon),
}

macro_rules! from_rule {
    ($($t:ident),*) => {$(
        impl From<$t> for Algorithm {
            fn from(rule: $t) -> Algorithm {
                Algorithm::$t(rule)
            }
        }
    )*};
}
from_rule!(
    Sgd, Adam, AdamW, RmsProp, Adagrad, Adadelta, Nadam, Adamax, Lion, Ftrl, Lamb, Adafactor, Muon
);

/// ValueError unless `value` is finite as float32 (the precision of every update): Keras takes
/// NaN and infinities and trains to NaN; rustape refuses them where they are given.
pub(crate) fn finite(op: &str, name: &str, value: f64) -> Result<()> {
    if value.is_finite() && (value as f32).is_finite() {
        Ok(())
    } else {
        Err(Error::value(
            op,
            format!(
                "Argument `{name}` must be a finite number (within float32's range). \
                 Received: {name}={value}"
            ),
        ))
    }
}

fn in_unit(op: &str, name: &str, value: f64) -> Result<()> {
    if (0.0..=1.0).contains(&value) {
        Ok(())
    } else {
        Err(Error::value(
            op,
            format!("Argument `{name}` must be a float between [0, 1]. Received: {name}={value}"),
        ))
    }
}

impl Algorithm {
    /// The Keras class of the optimizer, for messages.
    fn class_name(&self) -> &'static str {
        match self {
            Algorithm::Sgd(_) => "SGD",
            Algorithm::Adam(_) => "Adam",
            Algorithm::AdamW(_) => "AdamW",
            Algorithm::RmsProp(_) => "RMSprop",
            Algorithm::Adagrad(_) => "Adagrad",
            Algorithm::Adadelta(_) => "Adadelta",
            Algorithm::Nadam(_) => "Nadam",
            Algorithm::Adamax(_) => "Adamax",
            Algorithm::Lion(_) => "Lion",
            Algorithm::Ftrl(_) => "Ftrl",
            Algorithm::Lamb(_) => "Lamb",
            Algorithm::Adafactor(_) => "Adafactor",
            Algorithm::Muon(_) => "Muon",
        }
    }

    /// Every numeric hyperparameter, by Keras's argument name.
    fn hyperparameters(&self) -> Vec<(&'static str, f64)> {
        let adam = |a: &Adam| {
            vec![
                ("beta_1", a.beta_1),
                ("beta_2", a.beta_2),
                ("epsilon", a.epsilon),
            ]
        };
        match self {
            Algorithm::Sgd(s) => vec![("momentum", s.momentum)],
            Algorithm::Adam(a) => adam(a),
            Algorithm::AdamW(a) => {
                let mut h = adam(&a.adam);
                h.push(("weight_decay", a.weight_decay));
                h
            }
            Algorithm::RmsProp(r) => vec![
                ("rho", r.rho),
                ("momentum", r.momentum),
                ("epsilon", r.epsilon),
            ],
            Algorithm::Adagrad(a) => vec![
                ("initial_accumulator_value", a.initial_accumulator_value),
                ("epsilon", a.epsilon),
            ],
            Algorithm::Adadelta(a) => vec![("rho", a.rho), ("epsilon", a.epsilon)],
            Algorithm::Nadam(a) => vec![
                ("beta_1", a.beta_1),
                ("beta_2", a.beta_2),
                ("epsilon", a.epsilon),
            ],
            Algorithm::Adamax(a) => vec![
                ("beta_1", a.beta_1),
                ("beta_2", a.beta_2),
                ("epsilon", a.epsilon),
            ],
            Algorithm::Lion(l) => vec![("beta_1", l.beta_1), ("beta_2", l.beta_2)],
            Algorithm::Ftrl(f) => f.hyperparameters(),
            Algorithm::Lamb(l) => l.hyperparameters(),
            Algorithm::Adafactor(a) => a.hyperparameters(),
            Algorithm::Muon(m) => m.hyperparameters(),
        }
    }

    /// Keras's name of the optimizer (`"adam"`, `"SGD"`, ...), the prefix of its variables.
    pub fn name(&self) -> &'static str {
        match self {
            Algorithm::Sgd(_) => "SGD",
            Algorithm::Adam(_) => "adam",
            Algorithm::AdamW(_) => "adamw",
            Algorithm::RmsProp(_) => "rmsprop",
            Algorithm::Adagrad(_) => "adagrad",
            Algorithm::Adadelta(_) => "adadelta",
            Algorithm::Nadam(_) => "nadam",
            Algorithm::Adamax(_) => "adamax",
            Algorithm::Lion(_) => "lion",
            Algorithm::Ftrl(_) => "ftrl",
            Algorithm::Lamb(_) => "lamb",
            Algorithm::Adafactor(_) => "adafactor",
            Algorithm::Muon(_) => "muon",
        }
    }

    /// Keras's default learning rate for this optimizer.
    pub fn default_learning_rate(&self) -> f64 {
        match self {
            Algorithm::Sgd(_) => 0.01,
            _ => 0.001,
        }
    }

    /// ValueError for hyperparameters Keras refuses.
    pub fn validate(&self) -> Result<()> {
        let op = self.class_name();
        for (name, value) in self.hyperparameters() {
            finite(op, name, value)?;
        }
        match self {
            Algorithm::Sgd(s) => in_unit("SGD", "momentum", s.momentum),
            Algorithm::Lion(l) => {
                if l.beta_1 <= 0.0 || l.beta_1 > 1.0 {
                    return Err(Error::value(
                        "Lion",
                        format!(
                            "Argument `beta_1` must be in the [0, 1] range. Otherwise, the \
                             optimizer degenerates to SignSGD. Received: beta_1={}.",
                            l.beta_1
                        ),
                    ));
                }
                Ok(())
            }
            Algorithm::Ftrl(f) => f.validate(),
            Algorithm::Adafactor(a) => a.validate(),
            _ => Ok(()),
        }
    }

    /// The slots of each variable, in groups created together (a group's slots alternate per
    /// variable in Keras's list of optimizer variables; the groups follow one another).
    pub fn slot_groups(&self) -> Vec<&'static [&'static str]> {
        match self {
            Algorithm::Sgd(s) if s.momentum != 0.0 => vec![&["momentum"]],
            Algorithm::Sgd(_) => vec![],
            Algorithm::Adam(Adam { amsgrad, .. })
            | Algorithm::AdamW(AdamW {
                adam: Adam { amsgrad, .. },
                ..
            }) => {
                let mut groups: Vec<&'static [&'static str]> = vec![&["momentum", "velocity"]];
                if *amsgrad {
                    groups.push(&["velocity_hat"]);
                }
                groups
            }
            Algorithm::RmsProp(r) => {
                let mut groups: Vec<&'static [&'static str]> = vec![&["velocity"]];
                if r.momentum > 0.0 {
                    groups.push(&["momentum"]);
                }
                if r.centered {
                    groups.push(&["average_gradient"]);
                }
                groups
            }
            Algorithm::Adagrad(_) => vec![&["accumulator"]],
            Algorithm::Adadelta(_) => vec![&["accumulated_grad", "accumulated_delta_var"]],
            Algorithm::Nadam(_) | Algorithm::Lamb(_) => vec![&["momentum", "velocity"]],
            Algorithm::Adamax(_) => vec![&["momentum", "norm"]],
            Algorithm::Lion(_) => vec![&["momentum"]],
            Algorithm::Ftrl(_) => vec![&["accumulator", "linear"]],
            Algorithm::Adafactor(_) => vec![&["r", "c", "velocity"]],
            // Only the variables that take the AdamW step have a velocity.
            Algorithm::Muon(_) => vec![&["momentum", "velocity"]],
        }
    }

    /// The starting value of slot `slot`.
    pub fn slot_initial_value(&self, slot: &str) -> f64 {
        match self {
            Algorithm::Adagrad(a) => a.initial_accumulator_value,
            Algorithm::Ftrl(f) if slot == "accumulator" => f.initial_accumulator_value,
            _ => 0.0,
        }
    }

    /// Nadam's running product of momentum factors after step `step` (0-based), from its value
    /// before: `u_product * beta_1 * (1 - 0.5 * 0.96^(step + 1))` in the product's dtype.
    pub(crate) fn next_u_product<T: Float>(&self, u_product: T, step: i64) -> T {
        let Algorithm::Nadam(n) = self else {
            return u_product;
        };
        let power = py::<T>(0.96).powf(py(step as f64 + 1.0));
        u_product * py(n.beta_1) * (T::one() - py::<T>(0.5) * power)
    }

    /// The per-step constants for a variable of dtype `T` at step `step` (0-based: the
    /// optimizer's `iterations` before this update), with learning rate `lr` (a float32 value,
    /// cast to `T` as Keras casts it) and Nadam's product after this step's update.
    pub(crate) fn prepare<T: Float>(&self, lr: f64, step: i64, u_product: f64) -> Prepared<T> {
        let lr: T = py(lr);
        let local_step: T = py(step as f64 + 1.0);
        match self {
            Algorithm::Sgd(s) => Prepared::Sgd {
                lr,
                momentum: (s.momentum != 0.0).then(|| cast(s.momentum)),
                nesterov: s.nesterov,
            },
            Algorithm::Adam(a) | Algorithm::AdamW(AdamW { adam: a, .. }) => {
                let beta_1_power = cast::<T>(a.beta_1).powf(local_step);
                let beta_2_power = cast::<T>(a.beta_2).powf(local_step);
                Prepared::Adam {
                    keep_1: py(1.0 - a.beta_1),
                    keep_2: py(1.0 - a.beta_2),
                    alpha: lr * (T::one() - beta_2_power).sqrt() / (T::one() - beta_1_power),
                    epsilon: py(a.epsilon),
                    amsgrad: a.amsgrad,
                }
            }
            Algorithm::RmsProp(r) => Prepared::RmsProp {
                lr,
                rho: py(r.rho),
                keep: py(1.0 - r.rho),
                epsilon: py(r.epsilon),
                momentum: (r.momentum > 0.0).then(|| py(r.momentum)),
                centered: r.centered,
            },
            Algorithm::Adagrad(a) => Prepared::Adagrad {
                lr,
                epsilon: py(a.epsilon),
            },
            Algorithm::Adadelta(a) => Prepared::Adadelta {
                lr,
                rho: py(a.rho),
                keep: py(1.0 - a.rho),
                epsilon: py(a.epsilon),
            },
            Algorithm::Nadam(n) => {
                let beta_1: T = cast(n.beta_1);
                let beta_2: T = cast(n.beta_2);
                let decay: T = cast(0.96);
                let half: T = py(0.5);
                let u_t = beta_1 * (T::one() - half * decay.powf(local_step));
                let u_t_1 = beta_1 * (T::one() - half * decay.powf(local_step + T::one()));
                let u_product_t: T = py(u_product);
                let u_product_t_1 = u_product_t * u_t_1;
                Prepared::Nadam {
                    lr,
                    keep_1: T::one() - beta_1,
                    keep_2: T::one() - beta_2,
                    u_t_1,
                    one_minus_u_product_t_1: T::one() - u_product_t_1,
                    one_minus_u_t: T::one() - u_t,
                    one_minus_u_product_t: T::one() - u_product_t,
                    one_minus_beta_2_power: T::one() - beta_2.powf(local_step),
                    epsilon: py(n.epsilon),
                }
            }
            Algorithm::Adamax(a) => Prepared::Adamax {
                lr,
                keep_1: py(1.0 - a.beta_1),
                beta_2: py(a.beta_2),
                one_minus_beta_1_power: T::one() - cast::<T>(a.beta_1).powf(local_step),
                epsilon: py(a.epsilon),
            },
            Algorithm::Lion(l) => {
                let beta_1: T = cast(l.beta_1);
                let beta_2: T = cast(l.beta_2);
                Prepared::Lion {
                    lr,
                    beta_1,
                    keep_1: T::one() - beta_1,
                    beta_2,
                    keep_2: T::one() - beta_2,
                }
            }
            Algorithm::Ftrl(f) => Prepared::Ftrl(f.prepare(lr)),
            // Updated whole by `layerwise::update`, never element by element.
            Algorithm::Lamb(_) | Algorithm::Adafactor(_) | Algorithm::Muon(_) => {
                Prepared::Layerwise
            }
        }
    }
}

/// An algorithm's constants for one variable and one step.
#[derive(Clone, Copy, Debug)]
pub(crate) enum Prepared<T> {
    Sgd {
        lr: T,
        momentum: Option<T>,
        nesterov: bool,
    },
    Adam {
        keep_1: T,
        keep_2: T,
        alpha: T,
        epsilon: T,
        amsgrad: bool,
    },
    RmsProp {
        lr: T,
        rho: T,
        keep: T,
        epsilon: T,
        momentum: Option<T>,
        centered: bool,
    },
    Adagrad {
        lr: T,
        epsilon: T,
    },
    Adadelta {
        lr: T,
        rho: T,
        keep: T,
        epsilon: T,
    },
    Nadam {
        lr: T,
        keep_1: T,
        keep_2: T,
        u_t_1: T,
        one_minus_u_product_t_1: T,
        one_minus_u_t: T,
        one_minus_u_product_t: T,
        one_minus_beta_2_power: T,
        epsilon: T,
    },
    Adamax {
        lr: T,
        keep_1: T,
        beta_2: T,
        one_minus_beta_1_power: T,
        epsilon: T,
    },
    Lion {
        lr: T,
        beta_1: T,
        keep_1: T,
        beta_2: T,
        keep_2: T,
    },
    Ftrl(FtrlStep<T>),
    /// A rule of `layerwise` (no per-element update).
    Layerwise,
}

/// TensorFlow's `sign`: -1, 0 or 1 (NaN stays NaN).
fn sign<T: Float>(x: T) -> T {
    if x > T::zero() {
        T::one()
    } else if x < T::zero() {
        -T::one()
    } else {
        x
    }
}

/// `max(a, b)` as TensorFlow's `maximum` (`a < b ? b : a`).
fn max<T: Float>(a: T, b: T) -> T {
    if a < b {
        b
    } else {
        a
    }
}

impl<T: Float> Prepared<T> {
    /// Updates a run of elements: the variable `w`, its gradient `g` and its slots `s` (in the
    /// order of [`Algorithm::slot_groups`], flattened), all of one length.
    pub(crate) fn run(&self, w: &mut [T], g: &[T], s: &mut [&mut [T]]) {
        let n = w.len();
        let g = &g[..n];
        match *self {
            Prepared::Sgd {
                lr,
                momentum,
                nesterov,
            } => match (momentum, s) {
                (Some(mu), [m]) => {
                    let m = &mut m[..n];
                    for i in 0..n {
                        m[i] = m[i] * mu - g[i] * lr;
                        w[i] = if nesterov {
                            w[i] + (m[i] * mu - g[i] * lr)
                        } else {
                            w[i] + m[i]
                        };
                    }
                }
                _ => {
                    for i in 0..n {
                        w[i] = w[i] - g[i] * lr;
                    }
                }
            },
            Prepared::Adam {
                keep_1,
                keep_2,
                alpha,
                epsilon,
                amsgrad,
            } => match s {
                [m, v, vhat] if amsgrad => {
                    let (m, v, vhat) = (&mut m[..n], &mut v[..n], &mut vhat[..n]);
                    for i in 0..n {
                        m[i] = m[i] + (g[i] - m[i]) * keep_1;
                        v[i] = v[i] + (g[i] * g[i] - v[i]) * keep_2;
                        vhat[i] = max(vhat[i], v[i]);
                        w[i] = w[i] - (m[i] * alpha) / (vhat[i].sqrt() + epsilon);
                    }
                }
                [m, v, ..] => {
                    let (m, v) = (&mut m[..n], &mut v[..n]);
                    for i in 0..n {
                        m[i] = m[i] + (g[i] - m[i]) * keep_1;
                        v[i] = v[i] + (g[i] * g[i] - v[i]) * keep_2;
                        w[i] = w[i] - (m[i] * alpha) / (v[i].sqrt() + epsilon);
                    }
                }
                _ => unreachable!("Adam has its two slots"),
            },
            Prepared::RmsProp {
                lr,
                rho,
                keep,
                epsilon,
                momentum,
                centered,
            } => {
                let (vel, rest) = s.split_first_mut().expect("RMSprop has a velocity slot");
                let vel = &mut vel[..n];
                let (mut mom, mut avg) = (None, None);
                let mut rest = rest.iter_mut();
                if momentum.is_some() {
                    mom = rest.next();
                }
                if centered {
                    avg = rest.next();
                }
                for i in 0..n {
                    vel[i] = rho * vel[i] + keep * (g[i] * g[i]);
                    let denominator = match avg.as_deref_mut() {
                        Some(a) => {
                            a[i] = rho * a[i] + keep * g[i];
                            vel[i] - a[i] * a[i] + epsilon
                        }
                        None => vel[i] + epsilon,
                    };
                    let increment = (lr * g[i]) / denominator.sqrt();
                    match (momentum, mom.as_deref_mut()) {
                        (Some(mu), Some(m)) => {
                            m[i] = mu * m[i] + increment;
                            w[i] = w[i] - m[i];
                        }
                        _ => w[i] = w[i] - increment,
                    }
                }
            }
            Prepared::Adagrad { lr, epsilon } => {
                let [acc] = s else {
                    unreachable!("Adagrad has one slot")
                };
                let acc = &mut acc[..n];
                for i in 0..n {
                    acc[i] = acc[i] + g[i] * g[i];
                    w[i] = w[i] - (lr * g[i]) / (acc[i] + epsilon).sqrt();
                }
            }
            Prepared::Adadelta {
                lr,
                rho,
                keep,
                epsilon,
            } => {
                let [acc_g, acc_d] = s else {
                    unreachable!("Adadelta has two slots")
                };
                let (acc_g, acc_d) = (&mut acc_g[..n], &mut acc_d[..n]);
                for i in 0..n {
                    acc_g[i] = rho * acc_g[i] + keep * (g[i] * g[i]);
                    let delta =
                        -(((acc_d[i] + epsilon).sqrt() * g[i]) / (acc_g[i] + epsilon).sqrt());
                    acc_d[i] = rho * acc_d[i] + keep * (delta * delta);
                    w[i] = w[i] + lr * delta;
                }
            }
            Prepared::Nadam {
                lr,
                keep_1,
                keep_2,
                u_t_1,
                one_minus_u_product_t_1,
                one_minus_u_t,
                one_minus_u_product_t,
                one_minus_beta_2_power,
                epsilon,
            } => {
                let [m, v] = s else {
                    unreachable!("Nadam has two slots")
                };
                let (m, v) = (&mut m[..n], &mut v[..n]);
                for i in 0..n {
                    m[i] = m[i] + (g[i] - m[i]) * keep_1;
                    v[i] = v[i] + (g[i] * g[i] - v[i]) * keep_2;
                    let m_hat = (u_t_1 * m[i]) / one_minus_u_product_t_1
                        + (one_minus_u_t * g[i]) / one_minus_u_product_t;
                    let v_hat = v[i] / one_minus_beta_2_power;
                    w[i] = w[i] - (m_hat * lr) / (v_hat.sqrt() + epsilon);
                }
            }
            Prepared::Adamax {
                lr,
                keep_1,
                beta_2,
                one_minus_beta_1_power,
                epsilon,
            } => {
                let [m, u] = s else {
                    unreachable!("Adamax has two slots")
                };
                let (m, u) = (&mut m[..n], &mut u[..n]);
                for i in 0..n {
                    m[i] = m[i] + (g[i] - m[i]) * keep_1;
                    u[i] = max(beta_2 * u[i], g[i].abs());
                    w[i] = w[i] - (lr * m[i]) / (one_minus_beta_1_power * (u[i] + epsilon));
                }
            }
            Prepared::Lion {
                lr,
                beta_1,
                keep_1,
                beta_2,
                keep_2,
            } => {
                let [m] = s else {
                    unreachable!("Lion has one slot")
                };
                let m = &mut m[..n];
                for i in 0..n {
                    w[i] = w[i] - lr * sign(m[i] * beta_1 + g[i] * keep_1);
                    m[i] = m[i] * beta_2 + g[i] * keep_2;
                }
            }
            Prepared::Ftrl(step) => {
                let [acc, lin] = s else {
                    unreachable!("Ftrl has two slots")
                };
                step.run(w, g, acc, lin);
            }
            Prepared::Layerwise => {}
        }
    }
}
