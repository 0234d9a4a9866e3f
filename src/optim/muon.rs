//! Muon (Keras 3's `Muon`): a matrix steps along its momentum made nearly orthogonal by
//! Newton–Schulz iterations (its singular values pushed towards 1), scaled by
//! `sqrt(max(rows, cols)) * rms_rate` (Liu et al. 2025); every variable that is not a matrix,
//! and every matrix the caller names (embeddings, the output layer), takes an AdamW step.
//! Each step follows Keras's `update_step` operation by operation; the products run through
//! rustape's matmul, so float32 results agree with TensorFlow's to a few units in the last
//! place rather than bit for bit.
use super::rules::{py, Prepared};
use super::update::Prep;
use crate::dtype::Float;
use crate::error::{Error, Result};
use crate::ops;
use crate::tape::without_recording;
use crate::tensor::{Element, Tensor};
use crate::variable::Variable;

/// Muon's hyperparameters, with Keras 3's defaults.
#[derive(Clone, Debug, PartialEq)]
pub struct Muon {
    /// Decay of the AdamW step's first moment.
    pub adam_beta_1: f64,
    /// Decay of the AdamW step's second moment.
    pub adam_beta_2: f64,
    /// Added to the root of the AdamW step's second moment.
    pub epsilon: f64,
    /// Weight decay of the variables that take the AdamW step (the optimizer's own
    /// `weight_decay` applies to the matrices that take the Muon step).
    pub adam_weight_decay: Option<f64>,
    /// The AdamW step's learning rate is the optimizer's times this.
    pub adam_lr_ratio: f64,
    /// Momentum of the Muon step.
    pub momentum: f64,
    /// Nesterov momentum for the Muon step.
    pub nesterov: bool,
    /// Newton–Schulz iterations per step.
    pub ns_steps: usize,
    /// The quintic iteration's coefficients: `x <- a x + (b A + c A A) x` with `A = x x^T`.
    pub muon_a: f64,
    /// See [`Muon::muon_a`].
    pub muon_b: f64,
    /// See [`Muon::muon_a`].
    pub muon_c: f64,
    /// The Muon step is scaled by `sqrt(max(rows, cols)) * rms_rate`; `None` leaves it as is.
    pub rms_rate: Option<f64>,
}

impl Default for Muon {
    fn default() -> Muon {
        Muon {
            adam_beta_1: 0.9,
            adam_beta_2: 0.999,
            epsilon: 1e-7,
            adam_weight_decay: Some(0.004),
            adam_lr_ratio: 1.0,
            momentum: 0.95,
            nesterov: true,
            ns_steps: 5,
            muon_a: 3.4445,
            muon_b: -4.7750,
            muon_c: 2.0315,
            rms_rate: Some(0.2),
        }
    }
}

/// Keras's default `weight_decay` of Muon (for the matrices it steps itself).
pub const MUON_WEIGHT_DECAY: f64 = 0.004;

impl Muon {
    pub(crate) fn hyperparameters(&self) -> Vec<(&'static str, f64)> {
        let mut h = vec![
            ("adam_beta_1", self.adam_beta_1),
            ("adam_beta_2", self.adam_beta_2),
            ("epsilon", self.epsilon),
            ("adam_lr_ratio", self.adam_lr_ratio),
            ("momentum", self.momentum),
            ("ns_steps", self.ns_steps as f64),
            ("muon_a", self.muon_a),
            ("muon_b", self.muon_b),
            ("muon_c", self.muon_c),
        ];
        h.extend(self.adam_weight_decay.map(|d| ("adam_weight_decay", d)));
        h.extend(self.rms_rate.map(|r| ("rms_rate", r)));
        h
    }

    /// Whether a variable of `shape` takes the AdamW step whatever the caller says: every
    /// variable that is not a matrix.
    pub fn adamw_by_shape(shape: &[usize]) -> bool {
        shape.len() != 2
    }

    /// The AdamW step's constants (Keras's `_adamw_update_step`, Adam's arithmetic) for dtype
    /// `T` at step `step` (0-based) with the optimizer's learning rate `lr`.
    pub(crate) fn adamw_rule<T: Float>(&self, lr: f64, step: i64) -> Prepared<T> {
        // `learning_rate * adam_lr_ratio`: the float32 rate times a Python number.
        let lr = (lr as f32 * self.adam_lr_ratio as f32) as f64;
        let adam = crate::optim::Adam {
            beta_1: self.adam_beta_1,
            beta_2: self.adam_beta_2,
            epsilon: self.epsilon,
            amsgrad: false,
        };
        crate::optim::Algorithm::Adam(adam).prepare(lr, step, 1.0)
    }

    /// The Muon step of the matrix `w` (`rows` x `cols`, decayed already) from the prepared
    /// gradient `g`, with its momentum `m` and the learning rate `lr`.
    pub(crate) fn step<T: Float + Element>(
        &self,
        rows: usize,
        cols: usize,
        w: &mut [T],
        g: &[T],
        m: &mut [T],
        lr: f64,
    ) -> Result<()> {
        // `m.assign_add(g + m * (momentum - 1))`.
        let keep: T = py(self.momentum - 1.0);
        for (m, &g) in m.iter_mut().zip(g) {
            *m = *m + (g + *m * keep);
        }
        let direction: Vec<T> = if self.nesterov {
            let momentum: T = py(self.momentum);
            g.iter()
                .zip(m.iter())
                .map(|(&g, &m)| g + momentum * m)
                .collect()
        } else {
            m.to_vec()
        };
        let update = self.orthogonalised(direction, rows, cols)?;
        let lr: T = py(lr);
        let scale = self.rms_rate.map(|rate| {
            let root: T = py::<T>(rows.max(cols) as f64).sqrt();
            (root, py::<T>(rate))
        });
        for (w, &u) in w.iter_mut().zip(update.iter()) {
            let step = lr * u;
            let step = match scale {
                Some((root, rate)) => step * root * rate,
                None => step,
            };
            *w = *w - step;
        }
        Ok(())
    }

    /// Keras's `zeropower_via_newtonschulz5`: `x` (`rows` x `cols`) divided by its Frobenius
    /// norm (+1e-7), then `ns_steps` quintic iterations, on the wide orientation.
    fn orthogonalised<T: Float + Element>(
        &self,
        x: Vec<T>,
        rows: usize,
        cols: usize,
    ) -> Result<Vec<T>> {
        let tall = rows > cols;
        without_recording(|| {
            let mut x = Tensor::from_vec(x, &[rows, cols])?;
            if tall {
                x = ops::transpose(&x, None)?;
            }
            let values = x.values::<T>().ok_or_else(dtype_changed)?.as_slice();
            let norm = super::update::sum_of_squares(values).sqrt();
            let scalar = |v: f64| Tensor::scalar(py::<T>(v));
            x = ops::divide(&x, &Tensor::scalar(norm + py::<T>(1e-7)))?;
            let (a, b, c) = (
                scalar(self.muon_a),
                scalar(self.muon_b),
                scalar(self.muon_c),
            );
            for _ in 0..self.ns_steps {
                let gram = ops::matmul(&x, &x, false, true)?;
                let mixed = ops::add(
                    &ops::multiply(&b, &gram)?,
                    &ops::matmul(&ops::multiply(&c, &gram)?, &gram, false, false)?,
                )?;
                x = ops::add(
                    &ops::multiply(&a, &x)?,
                    &ops::matmul(&mixed, &x, false, false)?,
                )?;
            }
            if tall {
                x = ops::transpose(&x, None)?;
            }
            let values = x.values::<T>().ok_or_else(dtype_changed)?;
            Ok(values.as_slice().to_vec())
        })
    }
}

/// Applies one Muon step to the matrix `var` and its momentum (`slots[0]`): the gradient `g`
/// prepared (clipped) by `prep`, then weight decay `(wd, lr)`, then the step.
pub(crate) fn update<T: Float + Element>(
    muon: &Muon,
    var: &Variable,
    slots: &[Variable],
    g: &[T],
    prep: &Prep<T>,
    decay: Option<(T, T)>,
    lr: f64,
) -> Result<()> {
    let mut grad = vec![T::zero(); g.len()];
    prep.apply(g, &mut grad);
    let shape = var.peek().shape().to_vec();
    let [rows, cols] = shape[..] else {
        unreachable!("Muon steps matrices only (the others take the AdamW step)")
    };
    let mut guards = vec![var.write_value(), slots[0].write_value()];
    super::update::with_elements::<T, _>(&mut guards, |slices| match slices {
        [w, m] => {
            if let Some((wd, lr)) = decay {
                for x in w.iter_mut() {
                    *x = *x - *x * wd * lr;
                }
            }
            muon.step(rows, cols, w, &grad, m, lr)
        }
        _ => unreachable!("a variable and its momentum"),
    })
    .unwrap_or_else(|| {
        Err(Error::dtype(
            "Optimizer.apply_gradients",
            format!(
                "variable '{}' or its momentum changed dtype (now {})",
                var.name(),
                var.dtype()
            ),
        ))
    })
}

fn dtype_changed() -> Error {
    Error::dtype("Muon", "the momentum changed dtype during the step")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn newton_schulz_pushes_singular_values_towards_one() {
        // diag(3, 1) / |.| has singular values 0.949 and 0.316; the quintic iteration maps
        // each s to a s + b s^3 + c s^5 and after five steps both lie near 1 (within ~0.3,
        // the iteration's designed band), with the orthogonal factors unchanged.
        let muon = Muon::default();
        let x = muon
            .orthogonalised(vec![3.0f64, 0.0, 0.0, 1.0], 2, 2)
            .unwrap();
        assert_eq!((x[1], x[2]), (0.0, 0.0));
        let norm = 10f64.sqrt() + 1e-7;
        let mut s = [3.0 / norm, 1.0 / norm];
        for _ in 0..5 {
            for v in s.iter_mut() {
                *v = 3.4445 * *v - 4.7750 * v.powi(3) + 2.0315 * v.powi(5);
            }
        }
        // Computed in the same order as the products: equal to rounding.
        assert!(
            (x[0] - s[0]).abs() < 1e-12 && (x[3] - s[1]).abs() < 1e-12,
            "{x:?}"
        );
        assert!(
            x[0] > 0.6 && x[0] < 1.3 && x[3] > 0.6 && x[3] < 1.3,
            "{x:?}"
        );
    }

    #[test]
    fn a_tall_matrix_is_orthogonalised_on_its_transpose() {
        let muon = Muon::default();
        let wide = muon
            .orthogonalised(vec![1.0f64, 2.0, 3.0, 4.0, 5.0, 6.0], 2, 3)
            .unwrap();
        let tall = muon
            .orthogonalised(vec![1.0f64, 4.0, 2.0, 5.0, 3.0, 6.0], 3, 2)
            .unwrap();
        for i in 0..2 {
            for j in 0..3 {
                assert!((wide[i * 3 + j] - tall[j * 2 + i]).abs() < 1e-12);
            }
        }
    }

    #[test]
    fn the_step_moves_by_the_scaled_orthogonalised_momentum() {
        // One step from zero momentum, no Nesterov: m = g, update = NS(g); with g a multiple
        // of the identity NS gives s I for the scalar s of the iteration from 1/sqrt(2).
        let muon = Muon {
            nesterov: false,
            ..Muon::default()
        };
        let mut w = vec![1.0f64, 0.0, 0.0, 1.0];
        let g = [2.0, 0.0, 0.0, 2.0];
        let mut m = vec![0.0; 4];
        muon.step(2, 2, &mut w, &g, &mut m, 0.1).unwrap();
        assert_eq!(m, g.to_vec());
        let mut s = 2.0 / (8f64.sqrt() + 1e-7);
        for _ in 0..5 {
            s = 3.4445 * s - 4.7750 * s.powi(3) + 2.0315 * s.powi(5);
        }
        let want = 1.0 - 0.1 * s * 2f64.sqrt() * 0.2;
        assert!(
            (w[0] - want).abs() < 1e-12 && (w[3] - want).abs() < 1e-12,
            "{w:?}"
        );
        assert_eq!((w[1], w[2]), (0.0, 0.0));
    }

    #[test]
    fn matrices_keep_no_velocity_unless_they_take_the_adamw_step() {
        use crate::optim::Optimizer;
        let var = |shape: &[usize], name| {
            Variable::new(
                Tensor::full(shape, crate::dtype::DType::F32, 1.0),
                true,
                Some(name),
            )
        };
        let (bias, kernel, head) = (
            var(&[3], "bias"),
            var(&[3, 2], "kernel"),
            var(&[2, 1], "head"),
        );
        let mut opt = Optimizer::new(Muon::default(), 0.01).unwrap();
        opt.use_adamw_for(std::slice::from_ref(&head)).unwrap();
        opt.build(&[bias.clone(), kernel.clone(), head.clone()])
            .unwrap();
        assert!(opt.slot(&bias, "velocity").is_some());
        assert!(opt.slot(&kernel, "velocity").is_none());
        assert!(opt.slot(&kernel, "momentum").is_some());
        assert!(opt.slot(&head, "velocity").is_some());
        // iterations, learning rate, then per variable its momentum and any velocity.
        assert_eq!(opt.variables().len(), 2 + 2 + 1 + 2);
        assert!(opt.use_adamw_for(&[kernel]).is_err());
    }
}
