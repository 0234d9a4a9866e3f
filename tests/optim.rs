//! rustape::optim: update rules against hand-computed float32 steps, the optimizer's
//! bookkeeping (None gradients, unknown variables, iterations, slots) and the schedules.
//! Keras's own trajectories are compared in tests/python/test_keras_optimizers.py.
use rustape::optim::{
    Adam, CosineDecay, ExponentialDecay, Lion, Optimizer, Options, PiecewiseConstantDecay,
    PolynomialDecay, Schedule, Sgd,
};
use rustape::{ops, ErrorKind, Tensor, Variable};

mod support;
use support::*;

fn var(values: &[f32]) -> Variable {
    Variable::new(
        Tensor::from_vec(values.to_vec(), &[values.len()]).unwrap(),
        true,
        Some("w"),
    )
}

fn vec32(v: &Variable) -> Vec<f32> {
    v.peek().to_f64_vec().iter().map(|&x| x as f32).collect()
}

#[test]
fn sgd_momentum_matches_the_formula_in_float32() {
    let w = var(&[1.0, -2.0, 0.5]);
    let mut opt = Optimizer::new(
        Sgd {
            momentum: 0.9,
            nesterov: false,
        },
        0.1,
    )
    .unwrap();
    let (lr, mu) = (0.1f32, 0.9f32);
    let mut expect = vec32(&w);
    let mut m = [0.0f32; 3];
    for step in 0..5 {
        let g: Vec<f32> = expect.iter().map(|x| x * 0.5 + step as f32).collect();
        opt.apply_gradients(&[Some(v32(&g))], std::slice::from_ref(&w))
            .unwrap();
        for i in 0..3 {
            m[i] = m[i] * mu - g[i] * lr;
            expect[i] += m[i];
        }
        assert_eq!(vec32(&w), expect, "step {step}");
    }
    assert_eq!(opt.iterations(), 5);
}

#[test]
fn adam_first_step_moves_by_the_learning_rate() {
    let w = var(&[1.0, -2.0]);
    let mut opt = Optimizer::new(Adam::default(), 0.01).unwrap();
    opt.apply_gradients(&[Some(v32(&[3.0, -0.25]))], std::slice::from_ref(&w))
        .unwrap();
    assert_close(&values(&w.peek()), &[0.99, -1.99], 1e-6);
    let m = opt.slot(&w, "momentum").unwrap();
    assert_eq!(vec32(&m), vec![0.3f32 * 1.0, -0.025]);
}

#[test]
fn none_gradients_skip_their_variable_and_all_none_is_an_error() {
    let (a, b) = (var(&[1.0]), var(&[2.0]));
    let vars = [a.clone(), b.clone()];
    let mut opt = Optimizer::new(Sgd::default(), 0.5).unwrap();
    opt.apply_gradients(&[Some(v32(&[1.0])), None], &vars)
        .unwrap();
    assert_eq!((vec32(&a), vec32(&b)), (vec![0.5], vec![2.0]));
    let err = opt.apply_gradients(&[None, None], &vars).unwrap_err();
    assert_eq!(err.kind, ErrorKind::Value);
    assert!(err.message.contains("No gradients"), "{err}");
    assert_eq!(opt.iterations(), 1);
}

#[test]
fn bad_input_is_an_error_naming_the_variable() {
    let w = var(&[1.0, 2.0]);
    let mut opt = Optimizer::new(Adam::default(), 0.1).unwrap();
    let err = opt
        .apply_gradients(&[Some(v32(&[1.0]))], std::slice::from_ref(&w))
        .unwrap_err();
    assert_eq!(err.kind, ErrorKind::Shape);
    assert!(err.message.contains("'w:0'"), "{err}");
    opt.build(std::slice::from_ref(&w)).unwrap();
    let other = var(&[0.0]);
    let err = opt
        .apply_gradients(&[Some(v32(&[1.0]))], std::slice::from_ref(&other))
        .unwrap_err();
    assert!(err.message.contains("Unknown variable"), "{err}");
    let both = Options {
        clipnorm: Some(1.0),
        clipvalue: Some(1.0),
        ..Options::default()
    };
    let err = Optimizer::new(Adam::default(), 0.1)
        .unwrap()
        .with_options(both)
        .unwrap_err();
    assert_eq!(err.kind, ErrorKind::Value);
    assert!(Optimizer::new(
        Lion {
            beta_1: 0.0,
            beta_2: 0.9
        },
        0.1
    )
    .is_err());
}

#[test]
fn an_update_is_not_recorded_and_leaves_held_values_alone() {
    let w = var(&[1.0, 2.0, 3.0, 4.0, 5.0, 6.0]);
    let before = w.peek();
    let mut opt = Optimizer::new(Sgd::default(), 1.0).unwrap();
    let tape = rustape::Tape::new(false, true);
    let _rec = tape.enter().unwrap();
    let g = ops::multiply(&w.value(), &v32(&[1.0; 6])).unwrap();
    opt.apply_gradients(&[Some(g)], std::slice::from_ref(&w))
        .unwrap();
    // A tensor read before the update keeps its value (the buffer was copied, not changed).
    assert_eq!(before.to_f64_vec(), vec![1.0, 2.0, 3.0, 4.0, 5.0, 6.0]);
    assert_eq!(vec32(&w), vec![0.0; 6]);
    assert_eq!(tape.len(), 2, "only the read and the multiply are recorded");
}

#[test]
fn clipping_options() {
    let w = var(&[0.0, 0.0]);
    let mut opt = Optimizer::new(Sgd::default(), 1.0)
        .unwrap()
        .with_options(Options {
            clipnorm: Some(1.0),
            ..Options::default()
        })
        .unwrap();
    opt.apply_gradients(&[Some(v32(&[3.0, 4.0]))], std::slice::from_ref(&w))
        .unwrap();
    assert_eq!(vec32(&w), vec![-0.6, -0.8]);
    let w = var(&[0.0, 0.0]);
    let mut opt = Optimizer::new(Sgd::default(), 1.0)
        .unwrap()
        .with_options(Options {
            clipvalue: Some(0.5),
            ..Options::default()
        })
        .unwrap();
    opt.apply_gradients(&[Some(v32(&[3.0, -0.25]))], std::slice::from_ref(&w))
        .unwrap();
    assert_eq!(vec32(&w), vec![-0.5, 0.25]);
}

#[test]
fn large_variables_update_in_parallel_chunks_like_small_ones() {
    let n = 100_003;
    let values: Vec<f32> = (0..n).map(|i| (i as f32 * 0.37).sin()).collect();
    let grads: Vec<f32> = (0..n).map(|i| (i as f32 * 0.11).cos()).collect();
    let big = var(&values);
    let mut opt = Optimizer::new(Adam::default(), 0.1).unwrap();
    opt.apply_gradients(&[Some(v32(&grads))], std::slice::from_ref(&big))
        .unwrap();
    let got = vec32(&big);
    for i in [0, 1, 4095, 32768, 65537, n - 1] {
        let small = var(&values[i..i + 1]);
        let mut one = Optimizer::new(Adam::default(), 0.1).unwrap();
        one.apply_gradients(&[Some(v32(&grads[i..i + 1]))], std::slice::from_ref(&small))
            .unwrap();
        assert_eq!(got[i], vec32(&small)[0], "element {i}");
    }
}

#[test]
fn schedules() {
    let e = ExponentialDecay::new(0.1, 10.0, 0.5, false).unwrap();
    assert_eq!(e.rate(0), 0.1);
    assert!((e.rate(10) - 0.05).abs() < 1e-8);
    let p = PiecewiseConstantDecay::new(vec![3, 10], vec![1.0, 0.5, 0.25]).unwrap();
    let rates: Vec<f32> = [0, 3, 4, 10, 11].iter().map(|&s| p.rate(s)).collect();
    assert_eq!(rates, vec![1.0, 1.0, 0.5, 0.5, 0.25]);
    assert!(PiecewiseConstantDecay::new(vec![3], vec![1.0]).is_err());
    let c = CosineDecay::new(1.0, 10.0, 0.0, None, 0.0).unwrap();
    assert!((c.rate(5) - 0.5).abs() < 1e-6 && c.rate(20).abs() < 1e-6);
    let poly = PolynomialDecay::new(1.0, 10.0, 0.0, 1.0, false).unwrap();
    assert!((poly.rate(5) - 0.5).abs() < 1e-6);
    assert!(PolynomialDecay::new(1.0, 0.0, 0.0, 1.0, false).is_err());
    let w = var(&[0.0]);
    let mut opt = Optimizer::new(Sgd::default(), p).unwrap();
    for _ in 0..5 {
        opt.apply_gradients(&[Some(v32(&[1.0]))], std::slice::from_ref(&w))
            .unwrap();
    }
    // Steps 0-3 at 1.0, step 4 at 0.5.
    assert_eq!(vec32(&w), vec![-4.5]);
}

#[test]
fn minimize_records_the_loss_and_applies_its_gradient() {
    let w = var(&[3.0]);
    let mut opt = Optimizer::new(Sgd::default(), 0.25).unwrap();
    let loss = opt
        .minimize(
            || ops::multiply(&w.value(), &w.value()),
            std::slice::from_ref(&w),
        )
        .unwrap();
    assert_eq!(loss.item().unwrap(), 9.0);
    assert_eq!(vec32(&w), vec![1.5]);
}
