//! rustape::optim with hostile numbers: NaN, infinite or float32-overflowing hyperparameters,
//! options, learning rates and schedule arguments are ValueErrors naming the argument, and a
//! step count at int64's maximum stops before any variable changes (never a wrapped count).
use rustape::optim::{
    Adam, CosineDecay, ExponentialDecay, InverseTimeDecay, Lion, Optimizer, Options,
    PiecewiseConstantDecay, PolynomialDecay, RmsProp, Sgd,
};
use rustape::{ErrorKind, Tensor, Variable};

const HOSTILE: [f64; 4] = [f64::NAN, f64::INFINITY, f64::NEG_INFINITY, 1e300];

fn value_error_naming<T: std::fmt::Debug>(result: rustape::Result<T>, argument: &str) {
    let error = result.expect_err("a hostile number was accepted");
    assert_eq!(error.kind, ErrorKind::Value, "{error}");
    assert!(
        error.to_string().contains(argument),
        "{argument} not in {error}"
    );
}

#[test]
fn hyperparameters_must_be_finite() {
    for bad in HOSTILE {
        value_error_naming(
            Optimizer::new(
                Adam {
                    beta_1: bad,
                    ..Adam::default()
                },
                0.1,
            ),
            "beta_1",
        );
        value_error_naming(
            Optimizer::new(
                RmsProp {
                    epsilon: bad,
                    ..RmsProp::default()
                },
                0.1,
            ),
            "epsilon",
        );
        value_error_naming(
            Optimizer::new(
                Lion {
                    beta_2: bad,
                    ..Lion::default()
                },
                0.1,
            ),
            "beta_2",
        );
        value_error_naming(Optimizer::new(Sgd::default(), bad), "learning_rate");
    }
}

#[test]
fn options_must_be_finite() {
    for bad in HOSTILE {
        for (name, options) in [
            (
                "clipnorm",
                Options {
                    clipnorm: Some(bad),
                    ..Options::default()
                },
            ),
            (
                "weight_decay",
                Options {
                    weight_decay: Some(bad),
                    ..Options::default()
                },
            ),
            (
                "global_clipnorm",
                Options {
                    global_clipnorm: Some(bad),
                    ..Options::default()
                },
            ),
        ] {
            let opt = Optimizer::new(Sgd::default(), 0.1).unwrap();
            value_error_naming(opt.with_options(options), name);
        }
    }
    // Keras's own values stay valid: a clipping of 0 or less is off, a negative rate ascends.
    let opt = Optimizer::new(Sgd::default(), -0.5).unwrap();
    opt.with_options(Options {
        clipnorm: Some(-1.0),
        ..Options::default()
    })
    .unwrap();
}

#[test]
fn learning_rates_set_or_given_per_step_must_be_finite() {
    let w = Variable::new(Tensor::from_vec(vec![1.0f32], &[1]).unwrap(), true, None);
    let mut opt = Optimizer::new(Sgd::default(), 0.1).unwrap();
    value_error_naming(opt.set_learning_rate(f64::NAN), "learning_rate");
    let grad = Tensor::from_vec(vec![1.0f32], &[1]).unwrap();
    value_error_naming(
        opt.apply_gradients_with_rate(&[Some(grad.clone())], std::slice::from_ref(&w), 1e300),
        "learning_rate",
    );
    assert_eq!(w.peek().to_f64_vec(), vec![1.0]);
    opt.set_learning_rate(0.5).unwrap();
    opt.apply_gradients(&[Some(grad)], std::slice::from_ref(&w))
        .unwrap();
    assert_eq!(w.peek().to_f64_vec(), vec![0.5]);
}

#[test]
fn a_step_count_at_int64_max_changes_nothing() {
    let w = Variable::new(
        Tensor::from_vec(vec![1.0f32, 2.0], &[2]).unwrap(),
        true,
        None,
    );
    let mut opt = Optimizer::new(Adam::default(), 0.1).unwrap();
    opt.iterations_variable()
        .assign(&Tensor::scalar(i64::MAX))
        .unwrap();
    let grad = Tensor::from_vec(vec![1.0f32, 1.0], &[2]).unwrap();
    value_error_naming(
        opt.apply_gradients(&[Some(grad)], std::slice::from_ref(&w)),
        "iterations",
    );
    assert_eq!(w.peek().to_f64_vec(), vec![1.0, 2.0]);
    assert_eq!(opt.iterations(), i64::MAX);
}

#[test]
fn schedule_arguments_must_be_finite() {
    for bad in HOSTILE {
        value_error_naming(ExponentialDecay::new(0.1, bad, 0.5, false), "decay_steps");
        value_error_naming(
            ExponentialDecay::new(bad, 10.0, 0.5, false),
            "initial_learning_rate",
        );
        value_error_naming(InverseTimeDecay::new(0.1, 10.0, bad, false), "decay_rate");
        value_error_naming(PolynomialDecay::new(0.1, 10.0, 0.0, bad, false), "power");
        value_error_naming(CosineDecay::new(0.1, 10.0, bad, None, 0.0), "alpha");
        value_error_naming(
            CosineDecay::new(0.1, 10.0, 0.0, Some(bad), 5.0),
            "warmup_target",
        );
        value_error_naming(
            CosineDecay::new(0.1, 10.0, 0.0, Some(1.0), bad),
            "warmup_steps",
        );
        value_error_naming(
            PiecewiseConstantDecay::new(vec![3], vec![0.1, bad]),
            "values",
        );
    }
    value_error_naming(
        CosineDecay::new(0.1, 10.0, 0.0, Some(1.0), -1.0),
        "warmup_steps",
    );
    value_error_naming(ExponentialDecay::new(0.1, 0.0, 0.5, false), "decay_steps");
}
