//! Learning-rate schedules: Keras 3's, computed in float32 in Keras's order of operations.
use std::fmt::Debug;

use super::rules::finite;
use crate::error::{Error, Result};

/// A learning rate that depends on the optimizer's step.
pub trait Schedule: Send + Sync + Debug {
    /// The rate at `step` (the optimizer's `iterations` before the update), as float32.
    fn rate(&self, step: i64) -> f32;
}

fn positive_steps(schedule: &str, decay_steps: f64) -> Result<()> {
    finite(schedule, "decay_steps", decay_steps)?;
    if decay_steps > 0.0 {
        Ok(())
    } else {
        Err(Error::value(
            schedule,
            format!("Argument `decay_steps` must be > 0. Received: decay_steps={decay_steps}"),
        ))
    }
}

/// `initial_learning_rate * decay_rate ^ (step / decay_steps)` (the exponent floored when
/// `staircase`).
#[derive(Clone, Debug, PartialEq)]
pub struct ExponentialDecay {
    initial_learning_rate: f64,
    decay_steps: f64,
    decay_rate: f64,
    staircase: bool,
}

impl ExponentialDecay {
    /// ValueError unless `decay_steps > 0`.
    pub fn new(
        initial_learning_rate: f64,
        decay_steps: f64,
        decay_rate: f64,
        staircase: bool,
    ) -> Result<ExponentialDecay> {
        positive_steps("ExponentialDecay", decay_steps)?;
        finite(
            "ExponentialDecay",
            "initial_learning_rate",
            initial_learning_rate,
        )?;
        finite("ExponentialDecay", "decay_rate", decay_rate)?;
        Ok(ExponentialDecay {
            initial_learning_rate,
            decay_steps,
            decay_rate,
            staircase,
        })
    }
}

impl Schedule for ExponentialDecay {
    fn rate(&self, step: i64) -> f32 {
        let mut p = step as f32 / self.decay_steps as f32;
        if self.staircase {
            p = p.floor();
        }
        self.initial_learning_rate as f32 * (self.decay_rate as f32).powf(p)
    }
}

/// `values[0]` up to and including `boundaries[0]`, `values[i + 1]` after `boundaries[i]`.
#[derive(Clone, Debug, PartialEq)]
pub struct PiecewiseConstantDecay {
    boundaries: Vec<i64>,
    values: Vec<f64>,
}

impl PiecewiseConstantDecay {
    /// ValueError unless there is one more value than boundaries.
    pub fn new(boundaries: Vec<i64>, values: Vec<f64>) -> Result<PiecewiseConstantDecay> {
        if boundaries.len() + 1 != values.len() {
            return Err(Error::value(
                "PiecewiseConstantDecay",
                format!(
                    "The length of boundaries should be 1 less than the length of values. \
                     Received: boundaries={boundaries:?} of length {}, and values={values:?} of \
                     length {}.",
                    boundaries.len(),
                    values.len()
                ),
            ));
        }
        for &value in &values {
            finite("PiecewiseConstantDecay", "values", value)?;
        }
        Ok(PiecewiseConstantDecay { boundaries, values })
    }
}

impl Schedule for PiecewiseConstantDecay {
    fn rate(&self, step: i64) -> f32 {
        let k = self.boundaries.iter().take_while(|&&b| step > b).count();
        self.values[k] as f32
    }
}

/// `initial_learning_rate / (1 + decay_rate * step / decay_steps)` (the quotient floored when
/// `staircase`).
#[derive(Clone, Debug, PartialEq)]
pub struct InverseTimeDecay {
    initial_learning_rate: f64,
    decay_steps: f64,
    decay_rate: f64,
    staircase: bool,
}

impl InverseTimeDecay {
    /// ValueError unless `decay_steps > 0`.
    pub fn new(
        initial_learning_rate: f64,
        decay_steps: f64,
        decay_rate: f64,
        staircase: bool,
    ) -> Result<InverseTimeDecay> {
        positive_steps("InverseTimeDecay", decay_steps)?;
        finite(
            "InverseTimeDecay",
            "initial_learning_rate",
            initial_learning_rate,
        )?;
        finite("InverseTimeDecay", "decay_rate", decay_rate)?;
        Ok(InverseTimeDecay {
            initial_learning_rate,
            decay_steps,
            decay_rate,
            staircase,
        })
    }
}

impl Schedule for InverseTimeDecay {
    fn rate(&self, step: i64) -> f32 {
        let mut p = step as f32 / self.decay_steps as f32;
        if self.staircase {
            p = p.floor();
        }
        self.initial_learning_rate as f32 / (1.0 + self.decay_rate as f32 * p)
    }
}

/// `(initial - end) * (1 - step / decay_steps) ^ power + end`, the step held at `decay_steps`
/// (or, with `cycle`, `decay_steps` stretched to the next multiple above the step).
#[derive(Clone, Debug, PartialEq)]
pub struct PolynomialDecay {
    initial_learning_rate: f64,
    decay_steps: f64,
    end_learning_rate: f64,
    power: f64,
    cycle: bool,
}

impl PolynomialDecay {
    /// ValueError unless `decay_steps > 0`.
    pub fn new(
        initial_learning_rate: f64,
        decay_steps: f64,
        end_learning_rate: f64,
        power: f64,
        cycle: bool,
    ) -> Result<PolynomialDecay> {
        positive_steps("PolynomialDecay", decay_steps)?;
        finite(
            "PolynomialDecay",
            "initial_learning_rate",
            initial_learning_rate,
        )?;
        finite("PolynomialDecay", "end_learning_rate", end_learning_rate)?;
        finite("PolynomialDecay", "power", power)?;
        Ok(PolynomialDecay {
            initial_learning_rate,
            decay_steps,
            end_learning_rate,
            power,
            cycle,
        })
    }
}

impl Schedule for PolynomialDecay {
    fn rate(&self, step: i64) -> f32 {
        let (initial, end) = (
            self.initial_learning_rate as f32,
            self.end_learning_rate as f32,
        );
        let mut step = step as f32;
        let mut decay_steps = self.decay_steps as f32;
        if self.cycle {
            let multiplier = if step == 0.0 {
                1.0
            } else {
                (step / decay_steps).ceil()
            };
            decay_steps *= multiplier;
        } else {
            step = step.min(decay_steps);
        }
        let p = step / decay_steps;
        (initial - end) * (1.0 - p).powf(self.power as f32) + end
    }
}

/// Cosine decay from the initial rate (or from `warmup_target` after a linear warmup of
/// `warmup_steps`) to `alpha` times it over `decay_steps`.
#[derive(Clone, Debug, PartialEq)]
pub struct CosineDecay {
    initial_learning_rate: f64,
    decay_steps: f64,
    alpha: f64,
    warmup_target: Option<f64>,
    warmup_steps: f64,
}

impl CosineDecay {
    /// ValueError unless `decay_steps > 0`.
    pub fn new(
        initial_learning_rate: f64,
        decay_steps: f64,
        alpha: f64,
        warmup_target: Option<f64>,
        warmup_steps: f64,
    ) -> Result<CosineDecay> {
        positive_steps("CosineDecay", decay_steps)?;
        finite(
            "CosineDecay",
            "initial_learning_rate",
            initial_learning_rate,
        )?;
        finite("CosineDecay", "alpha", alpha)?;
        if let Some(target) = warmup_target {
            finite("CosineDecay", "warmup_target", target)?;
        }
        finite("CosineDecay", "warmup_steps", warmup_steps)?;
        if warmup_steps < 0.0 {
            return Err(Error::value(
                "CosineDecay",
                format!(
                    "Argument `warmup_steps` must be >= 0. Received: warmup_steps={warmup_steps}"
                ),
            ));
        }
        Ok(CosineDecay {
            initial_learning_rate,
            decay_steps,
            alpha,
            warmup_target,
            warmup_steps,
        })
    }

    fn decay(&self, step: f32, decay_steps: f32, from: f32) -> f32 {
        let completed = step / decay_steps;
        let cosine = 0.5 * (1.0 + (std::f32::consts::PI * completed).cos());
        // `(1 - alpha)` is a Python number in Keras: computed in double, then rounded.
        let decayed = (1.0 - self.alpha) as f32 * cosine + self.alpha as f32;
        from * decayed
    }
}

impl Schedule for CosineDecay {
    fn rate(&self, step: i64) -> f32 {
        let initial = self.initial_learning_rate as f32;
        let decay_steps = self.decay_steps as f32;
        let step = step as f32;
        let Some(target) = self.warmup_target else {
            return self.decay(step.min(decay_steps), decay_steps, initial);
        };
        let (target, warmup_steps) = (target as f32, self.warmup_steps as f32);
        let step = step.min(decay_steps + warmup_steps);
        if step < warmup_steps {
            (target - initial) * (step / warmup_steps) + initial
        } else {
            self.decay(step - warmup_steps, decay_steps, target)
        }
    }
}

/// Cosine decay with warm restarts (SGDR, Loshchilov and Hutter): each period starts again
/// from the rate (times `m_mul` per restart) and is `t_mul` times longer than the one before;
/// the first lasts `first_decay_steps`. Keras 3's `CosineDecayRestarts`, in float32.
#[derive(Clone, Debug, PartialEq)]
pub struct CosineDecayRestarts {
    initial_learning_rate: f64,
    first_decay_steps: f64,
    t_mul: f64,
    m_mul: f64,
    alpha: f64,
}

impl CosineDecayRestarts {
    /// ValueError unless `first_decay_steps > 0` and every number is finite.
    pub fn new(
        initial_learning_rate: f64,
        first_decay_steps: f64,
        t_mul: f64,
        m_mul: f64,
        alpha: f64,
    ) -> Result<CosineDecayRestarts> {
        let owner = "CosineDecayRestarts";
        finite(owner, "first_decay_steps", first_decay_steps)?;
        if first_decay_steps <= 0.0 {
            return Err(Error::value(
                owner,
                format!(
                    "Argument `first_decay_steps` must be > 0. Received: \
                     first_decay_steps={first_decay_steps}"
                ),
            ));
        }
        finite(owner, "initial_learning_rate", initial_learning_rate)?;
        finite(owner, "t_mul", t_mul)?;
        finite(owner, "m_mul", m_mul)?;
        finite(owner, "alpha", alpha)?;
        Ok(CosineDecayRestarts {
            initial_learning_rate,
            first_decay_steps,
            t_mul,
            m_mul,
            alpha,
        })
    }
}

impl Schedule for CosineDecayRestarts {
    fn rate(&self, step: i64) -> f32 {
        let initial = self.initial_learning_rate as f32;
        let (t_mul, m_mul, alpha) = (self.t_mul as f32, self.m_mul as f32, self.alpha as f32);
        let mut fraction = step as f32 / self.first_decay_steps as f32;
        // Which period the step is in and how far into it (Keras's two branches).
        let restart = if t_mul == 1.0 {
            let restart = fraction.floor();
            fraction -= restart;
            restart
        } else {
            let restart = ((1.0 - fraction * (1.0 - t_mul)).ln() / t_mul.ln()).floor();
            let before = (1.0 - t_mul.powf(restart)) / (1.0 - t_mul);
            fraction = (fraction - before) / t_mul.powf(restart);
            restart
        };
        let cosine = 0.5 * m_mul.powf(restart) * (1.0 + (std::f32::consts::PI * fraction).cos());
        initial * ((1.0 - alpha) * cosine + alpha)
    }
}
