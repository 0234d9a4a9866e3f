//! The rules that look at a whole variable at once: Lamb (a per-variable trust ratio of norms)
//! and Adafactor (factored second moments: row and column means of the squared gradient for
//! variables of rank 2 or more, and RMS-based step sizes). Each follows Keras 3's
//! `update_step` operation by operation; reductions sum in their own order, so float32 results
//! agree with TensorFlow's to a few units in the last place rather than bit for bit.
use super::rules::{cast, finite, py};
use super::update::{sum_of_squares, Prep};
use crate::dtype::{DType, Float};
use crate::error::{Error, Result};
use crate::tensor::Element;
use crate::variable::Variable;

/// Lamb: Adam's moments, each variable's step scaled by the ratio of its norm to the norm of
/// the Adam update (Yang et al. 2019).
#[derive(Clone, Debug, PartialEq)]
pub struct Lamb {
    /// Decay of the first moment.
    pub beta_1: f64,
    /// Decay of the second moment.
    pub beta_2: f64,
    /// Added to the root of the corrected second moment.
    pub epsilon: f64,
}

impl Default for Lamb {
    fn default() -> Lamb {
        Lamb {
            beta_1: 0.9,
            beta_2: 0.999,
            epsilon: 1e-7,
        }
    }
}

/// Adafactor (Shazeer & Stern 2018) as Keras 3 writes it: variables of rank 2 or more keep row
/// and column means of the squared gradient over their last two axes instead of a full second
/// moment; every variable's step is `max(epsilon_2, rms(variable)) * min(lr, 1/sqrt(t))`.
#[derive(Clone, Debug, PartialEq)]
pub struct Adafactor {
    /// The second moment's decay is `1 - t^beta_2_decay` at step `t`.
    pub beta_2_decay: f64,
    /// Added to each squared gradient.
    pub epsilon_1: f64,
    /// The smallest relative step size.
    pub epsilon_2: f64,
    /// Updates whose RMS exceeds this are scaled down to it.
    pub clip_threshold: f64,
    /// Keras's switch to cap a constant learning rate by `1/sqrt(t)` (its step size caps every
    /// rate that way anyway, so the switch changes no number).
    pub relative_step: bool,
}

impl Default for Adafactor {
    fn default() -> Adafactor {
        Adafactor {
            beta_2_decay: -0.8,
            epsilon_1: 1e-30,
            epsilon_2: 1e-3,
            clip_threshold: 1.0,
            relative_step: true,
        }
    }
}

impl Lamb {
    pub(crate) fn hyperparameters(&self) -> Vec<(&'static str, f64)> {
        vec![
            ("beta_1", self.beta_1),
            ("beta_2", self.beta_2),
            ("epsilon", self.epsilon),
        ]
    }
}

impl Adafactor {
    pub(crate) fn hyperparameters(&self) -> Vec<(&'static str, f64)> {
        vec![
            ("beta_2_decay", self.beta_2_decay),
            ("epsilon_1", self.epsilon_1),
            ("epsilon_2", self.epsilon_2),
            ("clip_threshold", self.clip_threshold),
        ]
    }

    /// ValueError for a non-positive `clip_threshold` (Keras divides by it).
    pub(crate) fn validate(&self) -> Result<()> {
        for (name, value) in self.hyperparameters() {
            finite("Adafactor", name, value)?;
        }
        if self.clip_threshold <= 0.0 {
            return Err(Error::value(
                "Adafactor",
                format!(
                    "Argument `clip_threshold` must be positive. Received: clip_threshold={}",
                    self.clip_threshold
                ),
            ));
        }
        Ok(())
    }
}

/// How one of Adafactor's slots of a variable of `shape` and `dtype` is made: its shape and
/// dtype, and whether its name is the variable's own (Keras names `r` and `c` after the
/// variable). Variables of rank below 2 get int32 scalar placeholders for `r` and `c`, as in
/// Keras.
pub(crate) fn adafactor_slot(kind: &str, shape: &[usize], dtype: DType) -> (Vec<usize>, DType) {
    let rank = shape.len();
    match kind {
        "r" | "c" if rank < 2 => (vec![], DType::I32),
        "r" => (shape[..rank - 1].to_vec(), dtype),
        "c" => {
            let mut s = shape[..rank - 2].to_vec();
            s.push(shape[rank - 1]);
            (s, dtype)
        }
        _ => (shape.to_vec(), dtype),
    }
}

/// The constants of one step of a whole-variable rule, in the variable's dtype.
#[derive(Clone, Copy, Debug)]
pub(crate) enum Layerwise<T> {
    Lamb {
        lr: T,
        keep_1: T,
        keep_2: T,
        one_minus_beta_1_power: T,
        one_minus_beta_2_power: T,
        epsilon: T,
    },
    Adafactor {
        rho_t: T,
        epsilon_1: T,
        epsilon_2: T,
        beta_2_t: T,
        clip_threshold: T,
    },
}

impl<T: Float + Element> Layerwise<T> {
    /// Lamb's constants at step `step` (0-based) with learning rate `lr`.
    pub(crate) fn lamb(l: &Lamb, lr: f64, step: i64) -> Layerwise<T> {
        let local_step: T = py(step as f64 + 1.0);
        Layerwise::Lamb {
            lr: py(lr),
            keep_1: py(1.0 - l.beta_1),
            keep_2: py(1.0 - l.beta_2),
            one_minus_beta_1_power: T::one() - cast::<T>(l.beta_1).powf(local_step),
            one_minus_beta_2_power: T::one() - cast::<T>(l.beta_2).powf(local_step),
            epsilon: py(l.epsilon),
        }
    }

    /// Adafactor's constants at step `step` (0-based) with learning rate `lr`.
    pub(crate) fn adafactor(a: &Adafactor, lr: f64, step: i64) -> Layerwise<T> {
        let local_step: T = py(step as f64 + 1.0);
        let lr: T = py(lr);
        let cap = T::one() / local_step.sqrt();
        // `ops.minimum`: Eigen's `b < a ? b : a`.
        let rho_t = if cap < lr { cap } else { lr };
        Layerwise::Adafactor {
            rho_t,
            epsilon_1: py(a.epsilon_1),
            epsilon_2: cast(a.epsilon_2),
            beta_2_t: T::one() - local_step.powf(py(a.beta_2_decay)),
            clip_threshold: py(a.clip_threshold),
        }
    }

    /// Updates `w` (decayed already) from the prepared gradient `g`. `slots` are Lamb's
    /// `[momentum, velocity]`, or Adafactor's `[r, c, velocity]` for a variable of rank 2 or
    /// more (`shape`) and `[velocity]` below.
    pub(crate) fn run(&self, shape: &[usize], w: &mut [T], g: &[T], slots: &mut [&mut [T]]) {
        let n = w.len();
        let g = &g[..n];
        match *self {
            Layerwise::Lamb {
                lr,
                keep_1,
                keep_2,
                one_minus_beta_1_power,
                one_minus_beta_2_power,
                epsilon,
            } => {
                let [m, v] = slots else {
                    unreachable!("Lamb has two slots")
                };
                let (m, v) = (&mut m[..n], &mut v[..n]);
                let mut update = vec![T::zero(); n];
                for i in 0..n {
                    m[i] = m[i] + (g[i] - m[i]) * keep_1;
                    v[i] = v[i] + (g[i] * g[i] - v[i]) * keep_2;
                    let m_hat = m[i] / one_minus_beta_1_power;
                    update[i] = m_hat / ((v[i] / one_minus_beta_2_power).sqrt() + epsilon);
                }
                let w_norm = sum_of_squares(w).sqrt();
                let u_norm = sum_of_squares(&update).sqrt();
                let ratio = if w_norm > T::zero() && u_norm > T::zero() {
                    w_norm / u_norm
                } else {
                    T::one()
                };
                let scale = ratio * lr;
                for i in 0..n {
                    w[i] = w[i] - scale * update[i];
                }
            }
            Layerwise::Adafactor {
                rho_t,
                epsilon_1,
                epsilon_2,
                beta_2_t,
                clip_threshold,
            } => {
                let count: T = py(n as f64);
                let rms_w = (sum_of_squares(w) / count).sqrt();
                // `ops.maximum`: Eigen's `a < b ? b : a`.
                let alpha = if epsilon_2 < rms_w { rms_w } else { epsilon_2 } * rho_t;
                let keep = T::one() - beta_2_t;
                let square: Vec<T> = g.iter().map(|&x| x * x + epsilon_1).collect();
                let v = match slots {
                    [r, c, v] => {
                        factored(shape, beta_2_t, keep, &square, r, c, &mut v[..n]);
                        v
                    }
                    [v] => {
                        let v = &mut v[..n];
                        for i in 0..n {
                            v[i] = beta_2_t * v[i] + keep * square[i];
                        }
                        v
                    }
                    _ => unreachable!("Adafactor has one or three slots"),
                };
                let u: Vec<T> = g
                    .iter()
                    .zip(v.iter())
                    .map(|(&x, &s)| x / s.sqrt())
                    .collect();
                let ratio = (sum_of_squares(&u) / count).sqrt() / clip_threshold;
                let denominator = if T::one() < ratio { ratio } else { T::one() };
                for i in 0..n {
                    w[i] = w[i] - alpha * (u[i] / denominator);
                }
            }
        }
    }
}

/// Adafactor's factored second moment of a variable of `shape` (rank >= 2): `r` (the mean of
/// the squares over the last axis), `c` (over the second last) and their outer product
/// `v = r / mean(r) * c` over the last two axes.
fn factored<T: Float>(
    shape: &[usize],
    beta: T,
    keep: T,
    square: &[T],
    r: &mut [T],
    c: &mut [T],
    v: &mut [T],
) {
    let rank = shape.len();
    let (rows, cols) = (shape[rank - 2], shape[rank - 1]);
    let outer: usize = shape[..rank - 2].iter().product();
    let (rows_t, cols_t): (T, T) = (py(rows as f64), py(cols as f64));
    for o in 0..outer {
        let block = &square[o * rows * cols..(o + 1) * rows * cols];
        let r = &mut r[o * rows..(o + 1) * rows];
        let c = &mut c[o * cols..(o + 1) * cols];
        for (i, r_i) in r.iter_mut().enumerate() {
            let sum = block[i * cols..(i + 1) * cols]
                .iter()
                .fold(T::zero(), |s, &x| s + x);
            *r_i = beta * *r_i + keep * (sum / cols_t);
        }
        for (j, c_j) in c.iter_mut().enumerate() {
            let sum = (0..rows).fold(T::zero(), |s, i| s + block[i * cols + j]);
            *c_j = beta * *c_j + keep * (sum / rows_t);
        }
        let r_mean = r.iter().fold(T::zero(), |s, &x| s + x) / rows_t;
        let v = &mut v[o * rows * cols..(o + 1) * rows * cols];
        for i in 0..rows {
            let scaled = r[i] / r_mean;
            for j in 0..cols {
                v[i * cols + j] = scaled * c[j];
            }
        }
    }
}

/// Applies one step of a whole-variable rule to `var` and its `slots`: the gradient `g`
/// prepared (clipped) by `prep`, then weight decay `(wd, lr)`, then the rule.
pub(crate) fn update<T: Float + Element>(
    rule: &Layerwise<T>,
    var: &Variable,
    slots: &[Variable],
    g: &[T],
    prep: &Prep<T>,
    decay: Option<(T, T)>,
) -> Result<()> {
    let mut grad = vec![T::zero(); g.len()];
    prep.apply(g, &mut grad);
    let shape = var.peek().shape().to_vec();
    // Adafactor's `r` and `c` of a variable of rank below 2 are int32 placeholders: left alone.
    let used: Vec<&Variable> = slots.iter().filter(|s| s.dtype() == T::DTYPE).collect();
    let mut guards = Vec::with_capacity(1 + used.len());
    guards.push(var.write_value());
    guards.extend(used.iter().map(|s| s.write_value()));
    super::update::with_elements::<T, _>(&mut guards, |slices| {
        if let Some((w, slots)) = slices.split_first_mut() {
            if let Some((wd, lr)) = decay {
                for x in w.iter_mut() {
                    *x = *x - *x * wd * lr;
                }
            }
            rule.run(&shape, w, &grad, slots);
        }
    })
    .ok_or_else(|| {
        Error::dtype(
            "Optimizer.apply_gradients",
            format!(
                "variable '{}' or one of its slots changed dtype (now {})",
                var.name(),
                var.dtype()
            ),
        )
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lamb_scales_each_variable_by_its_trust_ratio() {
        // Step 1: m_hat = g, v_hat = g^2, so update = g / (|g| + eps) = sign(g) (eps = 0);
        // ratio = |w| / |update| = 5 / sqrt(2); w -= ratio * lr * sign(g).
        let lamb = Lamb {
            epsilon: 0.0,
            ..Lamb::default()
        };
        let rule = Layerwise::<f64>::lamb(&lamb, 0.1, 0);
        let (mut w, g) = ([3.0, 4.0], [2.0, -0.5]);
        let (mut m, mut v) = ([0.0; 2], [0.0; 2]);
        rule.run(&[2], &mut w, &g, &mut [&mut m, &mut v]);
        let step = 5.0 / 2f64.sqrt() * 0.1;
        assert!((w[0] - (3.0 - step)).abs() < 1e-12, "{w:?}");
        assert!((w[1] - (4.0 + step)).abs() < 1e-12, "{w:?}");
    }

    #[test]
    fn adafactor_factors_a_matrix_into_row_and_column_means() {
        // Step 1: beta_2_t = 0, so r = row means, c = column means of g^2 (+ eps_1 = 0);
        // v = r / mean(r) * c; u = g / sqrt(v); rms(u) <= clip here (clip = 100).
        let a = Adafactor {
            epsilon_1: 0.0,
            clip_threshold: 100.0,
            ..Adafactor::default()
        };
        let rule = Layerwise::<f64>::adafactor(&a, 0.5, 0);
        let g = [1.0, 2.0, 3.0, 4.0];
        let mut w = [1.0, 1.0, 1.0, 1.0];
        let (mut r, mut c, mut v) = ([0.0; 2], [0.0; 2], [0.0; 4]);
        rule.run(&[2, 2], &mut w, &g, &mut [&mut r, &mut c, &mut v]);
        assert_eq!(r, [2.5, 12.5]);
        assert_eq!(c, [5.0, 10.0]);
        let mean_r = 7.5;
        let want_v = [
            2.5 / mean_r * 5.0,
            2.5 / mean_r * 10.0,
            12.5 / mean_r * 5.0,
            12.5 / mean_r * 10.0,
        ];
        for (got, want) in v.iter().zip(want_v) {
            assert!((got - want).abs() < 1e-12);
        }
        // alpha = max(1e-3, rms(w) = 1) * min(0.5, 1) = 0.5.
        for k in 0..4 {
            let want = 1.0 - 0.5 * g[k] / want_v[k].sqrt();
            assert!((w[k] - want).abs() < 1e-12, "{k}: {} vs {want}", w[k]);
        }
    }

    #[test]
    fn adafactor_clips_the_update_rms() {
        let a = Adafactor {
            clip_threshold: 0.5,
            ..Adafactor::default()
        };
        let rule = Layerwise::<f64>::adafactor(&a, 1.0, 0);
        // A vector: v = g^2 (+1e-30) at step 1, so u = sign(g) with rms 1, clipped to 0.5.
        let (mut w, g, mut v) = ([2.0, -2.0], [3.0, -1.0], [0.0; 2]);
        rule.run(&[2], &mut w, &g, &mut [&mut v]);
        // alpha = rms(w) = 2 times min(1, 1/sqrt(1)) = 2.
        assert!((w[0] - (2.0 - 2.0 * 0.5)).abs() < 1e-12, "{w:?}");
        assert!((w[1] - (-2.0 + 2.0 * 0.5)).abs() < 1e-12, "{w:?}");
    }

    #[test]
    fn adafactor_slot_shapes_follow_keras() {
        let f = DType::F32;
        assert_eq!(adafactor_slot("r", &[2, 3, 4], f), (vec![2, 3], f));
        assert_eq!(adafactor_slot("c", &[2, 3, 4], f), (vec![2, 4], f));
        assert_eq!(
            adafactor_slot("velocity", &[2, 3, 4], f),
            (vec![2, 3, 4], f)
        );
        assert_eq!(adafactor_slot("r", &[5], f), (vec![], DType::I32));
        assert_eq!(adafactor_slot("c", &[], f), (vec![], DType::I32));
    }
}
