//! The hyperparameters of the per-element rules (Keras 3's defaults); their updates are in
//! `rules.rs`.

/// Stochastic gradient descent, with momentum and Nesterov momentum.
#[derive(Clone, Debug, PartialEq)]
pub struct Sgd {
    /// The momentum factor in `[0, 1]`; 0 keeps no momentum slot.
    pub momentum: f64,
    /// Nesterov momentum.
    pub nesterov: bool,
}

impl Default for Sgd {
    fn default() -> Sgd {
        Sgd {
            momentum: 0.0,
            nesterov: false,
        }
    }
}

/// Adam, with the AMSGrad variant.
#[derive(Clone, Debug, PartialEq)]
pub struct Adam {
    /// Decay of the first moment.
    pub beta_1: f64,
    /// Decay of the second moment.
    pub beta_2: f64,
    /// Added to the root of the second moment.
    pub epsilon: f64,
    /// Use the running maximum of the second moment (AMSGrad).
    pub amsgrad: bool,
}

impl Default for Adam {
    fn default() -> Adam {
        Adam {
            beta_1: 0.9,
            beta_2: 0.999,
            epsilon: 1e-7,
            amsgrad: false,
        }
    }
}

/// AdamW: Adam with decoupled weight decay (the optimizer's `weight_decay` option, 0.004 unless
/// set otherwise).
#[derive(Clone, Debug, PartialEq)]
pub struct AdamW {
    /// Adam's hyperparameters.
    pub adam: Adam,
    /// The weight decay the optimizer starts with.
    pub weight_decay: f64,
}

impl Default for AdamW {
    fn default() -> AdamW {
        AdamW {
            adam: Adam::default(),
            weight_decay: 0.004,
        }
    }
}

/// RMSprop, with momentum and the centered variant.
#[derive(Clone, Debug, PartialEq)]
pub struct RmsProp {
    /// Decay of the mean square.
    pub rho: f64,
    /// Momentum factor; 0 keeps no momentum slot.
    pub momentum: f64,
    /// Added to the mean square under the root.
    pub epsilon: f64,
    /// Divide by the variance (mean square minus squared mean) instead of the mean square.
    pub centered: bool,
}

impl Default for RmsProp {
    fn default() -> RmsProp {
        RmsProp {
            rho: 0.9,
            momentum: 0.0,
            epsilon: 1e-7,
            centered: false,
        }
    }
}

/// Adagrad.
#[derive(Clone, Debug, PartialEq)]
pub struct Adagrad {
    /// The accumulators' starting value.
    pub initial_accumulator_value: f64,
    /// Added to the accumulator under the root.
    pub epsilon: f64,
}

impl Default for Adagrad {
    fn default() -> Adagrad {
        Adagrad {
            initial_accumulator_value: 0.1,
            epsilon: 1e-7,
        }
    }
}

/// Adadelta.
#[derive(Clone, Debug, PartialEq)]
pub struct Adadelta {
    /// Decay of both running averages.
    pub rho: f64,
    /// Added under both roots.
    pub epsilon: f64,
}

impl Default for Adadelta {
    fn default() -> Adadelta {
        Adadelta {
            rho: 0.95,
            epsilon: 1e-7,
        }
    }
}

/// Nadam (Adam with Nesterov momentum and Keras's momentum schedule).
#[derive(Clone, Debug, PartialEq)]
pub struct Nadam {
    /// Decay of the first moment.
    pub beta_1: f64,
    /// Decay of the second moment.
    pub beta_2: f64,
    /// Added to the root of the second moment.
    pub epsilon: f64,
}

impl Default for Nadam {
    fn default() -> Nadam {
        Nadam {
            beta_1: 0.9,
            beta_2: 0.999,
            epsilon: 1e-7,
        }
    }
}

/// Adamax (Adam with the infinity norm).
#[derive(Clone, Debug, PartialEq)]
pub struct Adamax {
    /// Decay of the first moment.
    pub beta_1: f64,
    /// Decay of the infinity norm.
    pub beta_2: f64,
    /// Added to the norm.
    pub epsilon: f64,
}

impl Default for Adamax {
    fn default() -> Adamax {
        Adamax {
            beta_1: 0.9,
            beta_2: 0.999,
            epsilon: 1e-7,
        }
    }
}

/// Lion (the sign of an interpolated momentum).
#[derive(Clone, Debug, PartialEq)]
pub struct Lion {
    /// Interpolation between momentum and gradient for the update's sign.
    pub beta_1: f64,
    /// Decay of the momentum.
    pub beta_2: f64,
}

impl Default for Lion {
    fn default() -> Lion {
        Lion {
            beta_1: 0.9,
            beta_2: 0.99,
        }
    }
}
