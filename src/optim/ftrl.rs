//! FTRL ("Follow The Regularized Leader", McMahan et al. 2013) as Keras 3 writes it: an
//! accumulator of squared gradients and a linear term per element, with online L1/L2 and
//! shrinkage L2 regularization.
use super::rules::{finite, py};
use crate::dtype::Float;
use crate::error::{Error, Result};

/// FTRL's hyperparameters (Keras 3's defaults).
#[derive(Clone, Debug, PartialEq)]
pub struct Ftrl {
    /// How the rate falls with the accumulated squares (`<= 0`; 0 keeps it fixed).
    pub learning_rate_power: f64,
    /// The accumulators' starting value (`>= 0`).
    pub initial_accumulator_value: f64,
    /// L1 regularization strength (`>= 0`).
    pub l1_regularization_strength: f64,
    /// L2 (stabilization) regularization strength (`>= 0`).
    pub l2_regularization_strength: f64,
    /// L2 shrinkage (magnitude penalty added to the gradient) strength (`>= 0`).
    pub l2_shrinkage_regularization_strength: f64,
    /// The paper's beta.
    pub beta: f64,
}

impl Default for Ftrl {
    fn default() -> Ftrl {
        Ftrl {
            learning_rate_power: -0.5,
            initial_accumulator_value: 0.1,
            l1_regularization_strength: 0.0,
            l2_regularization_strength: 0.0,
            l2_shrinkage_regularization_strength: 0.0,
            beta: 0.0,
        }
    }
}

impl Ftrl {
    /// Every numeric hyperparameter, by Keras's argument name.
    pub(crate) fn hyperparameters(&self) -> Vec<(&'static str, f64)> {
        vec![
            ("learning_rate_power", self.learning_rate_power),
            ("initial_accumulator_value", self.initial_accumulator_value),
            (
                "l1_regularization_strength",
                self.l1_regularization_strength,
            ),
            (
                "l2_regularization_strength",
                self.l2_regularization_strength,
            ),
            (
                "l2_shrinkage_regularization_strength",
                self.l2_shrinkage_regularization_strength,
            ),
            ("beta", self.beta),
        ]
    }

    /// Keras's checks: finite values, `learning_rate_power <= 0`, the rest `>= 0` (beta aside).
    pub(crate) fn validate(&self) -> Result<()> {
        for (name, value) in self.hyperparameters() {
            finite("Ftrl", name, value)?;
        }
        if self.learning_rate_power > 0.0 {
            return Err(Error::value(
                "Ftrl",
                format!(
                    "`learning_rate_power` needs to be negative or zero. Received: \
                     learning_rate_power={}.",
                    self.learning_rate_power
                ),
            ));
        }
        for (name, value) in self.hyperparameters() {
            if name != "learning_rate_power" && name != "beta" && value < 0.0 {
                return Err(Error::value(
                    "Ftrl",
                    format!("`{name}` needs to be positive or zero. Received: {name}={value}."),
                ));
            }
        }
        Ok(())
    }

    /// The constants of one step for a variable of dtype `T` with learning rate `lr`.
    pub(crate) fn prepare<T: Float>(&self, lr: T) -> FtrlStep<T> {
        let two: T = py(2.0);
        // Keras: `l2 + beta / (2.0 * lr)` with `lr` a tensor of the variable's dtype.
        let l2_reg = py::<T>(self.l2_regularization_strength) + py::<T>(self.beta) / (two * lr);
        FtrlStep {
            lr,
            power: py(-self.learning_rate_power),
            l1: py(self.l1_regularization_strength),
            shrinkage: py(2.0 * self.l2_shrinkage_regularization_strength),
            two_l2: two * l2_reg,
        }
    }
}

/// FTRL's constants for one variable and one step.
#[derive(Clone, Copy, Debug)]
pub(crate) struct FtrlStep<T> {
    lr: T,
    /// `-learning_rate_power`.
    power: T,
    l1: T,
    /// `2 * l2_shrinkage_regularization_strength`.
    shrinkage: T,
    /// `2 * (l2 + beta / (2 * lr))`.
    two_l2: T,
}

impl<T: Float> FtrlStep<T> {
    /// Updates the elements of `w` with gradient `g`, accumulators `acc` and linear terms `lin`
    /// (one length), in the order of Keras's `update_step`.
    pub(crate) fn run(&self, w: &mut [T], g: &[T], acc: &mut [T], lin: &mut [T]) {
        let n = w.len();
        let (g, acc, lin) = (&g[..n], &mut acc[..n], &mut lin[..n]);
        let FtrlStep {
            lr,
            power,
            l1,
            shrinkage,
            two_l2,
        } = *self;
        for i in 0..n {
            let grad_to_use = g[i] + shrinkage * w[i];
            let new_acc = acc[i] + g[i] * g[i];
            let new_pow = new_acc.powf(power);
            lin[i] = lin[i] + (grad_to_use - ((new_pow - acc[i].powf(power)) / lr) * w[i]);
            let quadratic = new_pow / lr + two_l2;
            // `clip(linear, -l1, l1)`: minimum first, then maximum, as tf.clip_by_value.
            let upper = if l1 < lin[i] { l1 } else { lin[i] };
            let clipped = if upper < -l1 { -l1 } else { upper };
            w[i] = (clipped - lin[i]) / quadratic;
            acc[i] = new_acc;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn one_step_without_regularization_follows_the_paper() {
        // n = 0.1 + g^2, sigma = (sqrt(n) - sqrt(0.1)) / lr, z = g - sigma * w,
        // w = -z / (sqrt(n) / lr) since |z| > l1 = 0.
        let step = Ftrl::default().prepare::<f64>(0.5);
        let (mut w, g, mut acc, mut lin) = ([1.5], [0.8], [0.1], [0.0]);
        step.run(&mut w, &g, &mut acc, &mut lin);
        let n: f64 = 0.1 + 0.64;
        let z = 0.8 - (n.sqrt() - 0.1f64.sqrt()) / 0.5 * 1.5;
        assert!((lin[0] - z).abs() < 1e-15);
        assert!((acc[0] - n).abs() < 1e-15);
        assert!((w[0] - (-z / (n.sqrt() / 0.5))).abs() < 1e-15);
    }

    #[test]
    fn l1_zeroes_small_linear_terms() {
        let ftrl = Ftrl {
            l1_regularization_strength: 10.0,
            ..Ftrl::default()
        };
        let step = ftrl.prepare::<f32>(0.1);
        let (mut w, g, mut acc, mut lin) = ([0.3f32, -0.2], [0.5, -0.1], [0.1, 0.1], [0.0, 0.0]);
        step.run(&mut w, &g, &mut acc, &mut lin);
        assert_eq!(w, [0.0, 0.0]);
    }

    #[test]
    fn bad_arguments_name_ftrl_and_the_argument() {
        for bad in [
            Ftrl {
                learning_rate_power: 0.5,
                ..Ftrl::default()
            },
            Ftrl {
                initial_accumulator_value: -1.0,
                ..Ftrl::default()
            },
            Ftrl {
                l2_shrinkage_regularization_strength: -0.1,
                ..Ftrl::default()
            },
            Ftrl {
                beta: f64::NAN,
                ..Ftrl::default()
            },
        ] {
            let message = bad.validate().unwrap_err().to_string();
            assert!(message.contains("Ftrl"), "{message}");
        }
    }
}
