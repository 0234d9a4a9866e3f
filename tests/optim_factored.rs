//! rustape::optim's Ftrl, Lamb and Adafactor through the public `Optimizer`: hand-computed
//! first steps, Adafactor's factored slots by rank, float64 variables, and refused arguments.
//! Keras's own trajectories are compared in tests/python/test_keras_optimizers2.py.
use rustape::optim::{Adafactor, Ftrl, Lamb, Optimizer, Options};
use rustape::{DType, ErrorKind, Tensor, Variable};

mod support;
use support::*;

fn var64(values: &[f64], shape: &[usize], name: &str) -> Variable {
    Variable::new(
        Tensor::from_vec(values.to_vec(), shape).unwrap(),
        true,
        Some(name),
    )
}

#[test]
fn ftrl_first_step_in_float64() {
    let w = var64(&[1.0, -2.0], &[2], "w");
    let mut opt = Optimizer::new(Ftrl::default(), 0.5).unwrap();
    opt.apply_gradients(&[Some(v64(&[0.3, 0.4]))], std::slice::from_ref(&w))
        .unwrap();
    // The accumulator starts at 0.1 rounded to float32, as Keras's Constant initializer casts.
    let acc0 = 0.1f32 as f64;
    let want: Vec<f64> = [(1.0, 0.3), (-2.0, 0.4)]
        .iter()
        .map(|&(w0, g): &(f64, f64)| {
            let n = acc0 + g * g;
            let z = g - (n.sqrt() - acc0.sqrt()) / 0.5 * w0;
            -z / (n.sqrt() / 0.5)
        })
        .collect();
    assert_close(&values(&w.peek()), &want, 1e-14);
    let acc = opt.slot(&w, "accumulator").unwrap();
    assert_close(&values(&acc.peek()), &[acc0 + 0.09, acc0 + 0.16], 1e-15);
}

#[test]
fn lamb_trust_ratio_uses_each_variables_own_norm() {
    let a = var64(&[3.0, 4.0], &[2], "a");
    let b = var64(&[0.0, 0.0], &[2], "b");
    let mut opt = Optimizer::new(
        Lamb {
            epsilon: 0.0,
            ..Lamb::default()
        },
        0.1,
    )
    .unwrap();
    let g = v64(&[1.0, -1.0]);
    opt.apply_gradients(&[Some(g.clone()), Some(g)], &[a.clone(), b.clone()])
        .unwrap();
    // update = sign(g) at step 1; ratio |a| / |update| = 5 / sqrt(2) for a, 1 for b (|b| = 0).
    let lr = 0.1f32 as f64;
    let step = 5.0 / 2f64.sqrt() * lr;
    assert_close(&values(&a.peek()), &[3.0 - step, 4.0 + step], 1e-12);
    // For b the update's own size shows: m_hat = 0.1 g / (1 - 0.9 as float32), as Keras casts
    // beta_1 through float32 for its power, so about sign(g), not exactly.
    assert_close(&values(&b.peek()), &[-lr, lr], 1e-5);
}

#[test]
fn adafactor_slots_are_factored_for_rank_two_and_more() {
    let vars = [
        var64(&[0.5], &[], "s"),
        var64(&[1.0; 4], &[4], "v"),
        var64(&[1.0; 6], &[2, 3], "m"),
        Variable::new(Tensor::full(&[2, 3, 4], DType::F32, 1.0), true, Some("t")),
    ];
    let mut opt = Optimizer::new(Adafactor::default(), 0.01).unwrap();
    opt.build(&vars).unwrap();
    let shapes: Vec<(Vec<usize>, DType)> = opt
        .variables()
        .iter()
        .skip(2)
        .map(|v| (v.peek().shape().to_vec(), v.dtype()))
        .collect();
    let f64_ = DType::F64;
    assert_eq!(
        shapes,
        vec![
            (vec![], DType::I32),
            (vec![], DType::I32),
            (vec![], f64_),
            (vec![], DType::I32),
            (vec![], DType::I32),
            (vec![4], f64_),
            (vec![2], f64_),
            (vec![3], f64_),
            (vec![2, 3], f64_),
            (vec![2, 3], DType::F32),
            (vec![2, 4], DType::F32),
            (vec![2, 3, 4], DType::F32),
        ]
    );
    let grads: Vec<Option<Tensor>> = vars
        .iter()
        .map(|v| Some(Tensor::full(v.peek().shape(), v.dtype(), 2.0)))
        .collect();
    opt.apply_gradients(&grads, &vars).unwrap();
    // A constant gradient: v = g^2 everywhere, u = 1, rms(u) = 1, so each variable moves by
    // max(1e-3, rms(w)) * min(lr, 1) = rms(w) * lr.
    let lr = 0.01f32 as f64;
    assert_close(&values(&vars[0].peek()), &[0.5 - 0.5 * lr], 1e-12);
    assert_close(&values(&vars[2].peek()), &[1.0 - lr; 6], 1e-12);
    assert_close(&values(&vars[3].peek()), &[1.0 - lr; 24], 1e-6);
    // The int32 placeholders stay 0.
    assert_eq!(values(&opt.variables()[2].peek()), vec![0.0]);
}

#[test]
fn refused_arguments_name_the_optimizer() {
    let err = Optimizer::new(
        Ftrl {
            learning_rate_power: 1.0,
            ..Ftrl::default()
        },
        0.1,
    )
    .unwrap_err();
    assert_eq!(err.kind, ErrorKind::Value);
    assert!(err.to_string().contains("Ftrl") && err.to_string().contains("learning_rate_power"));
    let err = Optimizer::new(
        Adafactor {
            clip_threshold: -1.0,
            ..Adafactor::default()
        },
        0.1,
    )
    .unwrap_err();
    assert!(err.to_string().contains("clip_threshold"), "{err}");
    let err = Optimizer::new(
        Lamb {
            beta_1: f64::NAN,
            ..Lamb::default()
        },
        0.1,
    )
    .unwrap_err();
    assert!(err.to_string().contains("Lamb") && err.to_string().contains("beta_1"));
    let both = Options {
        clipnorm: Some(1.0),
        global_clipnorm: Some(1.0),
        ..Options::default()
    };
    assert!(Optimizer::new(Lamb::default(), 0.1)
        .unwrap()
        .with_options(both)
        .is_err());
}
