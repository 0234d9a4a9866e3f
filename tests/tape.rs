//! The tape engine: the seed examples, nesting, persistence, variables, jacobians, errors.
use rustape::ops::{add, multiply, reduce_sum, sin};
use rustape::testing::{gradcheck, Tolerance};
use rustape::{ErrorKind, Tape, Tensor, Unconnected, Variable};

mod support;
use support::*;

fn value(t: &Option<Tensor>) -> Vec<f64> {
    t.as_ref().expect("a gradient").to_f64_vec()
}

#[test]
fn square_at_three_is_six() {
    let x = Tensor::scalar(3.0f32);
    let g = Tape::new(false, true);
    let y = {
        let _r = g.enter().unwrap();
        g.watch(&x);
        multiply(&x, &x).unwrap()
    };
    assert_eq!(value(&tape_gradient(&g, &y, &x)), vec![6.0]);
}

#[test]
fn nested_tapes_give_the_second_derivative() {
    let x = Tensor::scalar(3.0f32);
    let g = Tape::new(false, true);
    let dy_dx = {
        let _r = g.enter().unwrap();
        g.watch(&x);
        let gg = Tape::new(false, true);
        let y = {
            let _r = gg.enter().unwrap();
            gg.watch(&x);
            multiply(&x, &x).unwrap()
        };
        tape_gradient(&gg, &y, &x).unwrap()
    };
    assert_eq!(dy_dx.to_f64_vec(), vec![6.0]);
    assert_eq!(value(&tape_gradient(&g, &dy_dx, &x)), vec![2.0]);
}

#[test]
fn persistent_tape_allows_several_gradients() {
    let x = Tensor::scalar(3.0f32);
    let g = Tape::new(true, true);
    let (y, z) = {
        let _r = g.enter().unwrap();
        g.watch(&x);
        let y = multiply(&x, &x).unwrap();
        let z = multiply(&y, &y).unwrap();
        (y, z)
    };
    assert_eq!(value(&tape_gradient(&g, &z, &x)), vec![108.0]);
    assert_eq!(value(&tape_gradient(&g, &y, &x)), vec![6.0]);
}

#[test]
fn non_persistent_tape_refuses_a_second_gradient() {
    let x = Tensor::scalar(3.0f32);
    let g = Tape::new(false, true);
    let y = {
        let _r = g.enter().unwrap();
        g.watch(&x);
        multiply(&x, &x).unwrap()
    };
    tape_gradient(&g, &y, &x);
    let err = g
        .gradient(&[y], &[(&x).into()], None, Unconnected::None)
        .unwrap_err();
    assert_eq!(err.kind, ErrorKind::Tape);
}

#[test]
fn variable_gradient_sums_over_reads_and_ignores_later_assign() {
    let v = Variable::new(Tensor::scalar(2.0f64), true, None);
    let tape = Tape::new(false, true);
    let y = {
        let _r = tape.enter().unwrap();
        let a = v.value();
        v.assign(&Tensor::scalar(100.0f64)).unwrap();
        let b = v.value();
        multiply(&a, &b).unwrap() // d/dv (a*b) with a=2, b=100: b + a
    };
    assert_eq!(value(&tape_gradient(&tape, &y, &v)), vec![102.0]);
    assert_eq!(tape.watched_variables().len(), 1);
}

#[test]
fn unwatched_and_unconnected_sources() {
    let x = Tensor::scalar(1.0f64);
    let other = Tensor::scalar(5.0f64);
    let tape = Tape::new(true, true);
    let y = {
        let _r = tape.enter().unwrap();
        tape.watch(&x);
        sin(&x).unwrap()
    };
    assert!(tape_gradient(&tape, &y, &other).is_none());
    let zero = tape
        .gradient(&[y], &[(&other).into()], None, Unconnected::Zero)
        .unwrap();
    assert_eq!(value(&zero[0]), vec![0.0]);
}

#[test]
fn jacobian_and_batch_jacobian_match_the_docs() {
    let x = Tensor::from_vec(vec![1.0f32, 2.0], &[2]).unwrap();
    let g = Tape::new(false, true);
    let y = {
        let _r = g.enter().unwrap();
        g.watch(&x);
        multiply(&x, &x).unwrap()
    };
    let j = g
        .jacobian(&y, &[(&x).into()], Unconnected::None)
        .unwrap()
        .pop()
        .unwrap()
        .unwrap();
    assert_eq!(j.shape(), &[2, 2]);
    assert_eq!(j.to_f64_vec(), vec![2.0, 0.0, 0.0, 4.0]);

    let x = Tensor::from_vec(vec![1.0f32, 2.0, 3.0, 4.0], &[2, 2]).unwrap();
    let g = Tape::new(false, true);
    let y = {
        let _r = g.enter().unwrap();
        g.watch(&x);
        multiply(&x, &x).unwrap()
    };
    let bj = g
        .batch_jacobian(&y, &(&x).into(), Unconnected::None)
        .unwrap()
        .unwrap();
    assert_eq!(bj.shape(), &[2, 2, 2]);
    assert_eq!(
        bj.to_f64_vec(),
        vec![2.0, 0.0, 0.0, 4.0, 6.0, 0.0, 0.0, 8.0]
    );
}

#[test]
fn a_million_op_chain_records_and_differentiates_without_recursion() {
    let x = Tensor::scalar(1.0f64);
    let tape = Tape::new(false, true);
    let one = Tensor::scalar(1e-9f64);
    let y = {
        let _r = tape.enter().unwrap();
        tape.watch(&x);
        let mut y = x.clone();
        for _ in 0..1_000_000 {
            y = add(&y, &one).unwrap();
        }
        y
    };
    assert_eq!(tape.len(), 1_000_000);
    assert_eq!(value(&tape_gradient(&tape, &y, &x)), vec![1.0]);
}

#[test]
fn gradcheck_first_and_second_order() {
    let a = rustape::testing::pseudo_random(&[3, 2], 1);
    let b = rustape::testing::pseudo_random(&[2], 2);
    let f = |xs: &[Tensor]| {
        let p = multiply(&xs[0], &sin(&xs[1])?)?;
        reduce_sum(&multiply(&p, &p)?, Some(&[0]), false)
    };
    gradcheck(&f, &[a, b], true, Tolerance::default()).unwrap();
}

#[test]
fn stop_recording_pauses_only_inside_the_block_and_errors_outside() {
    let x = Variable::new(Tensor::scalar(2.0f64), true, None);
    let y = Variable::new(Tensor::scalar(3.0f64), true, None);
    let t = Tape::new(false, true);
    assert_eq!(t.stop_recording().err().unwrap().kind, ErrorKind::Tape);
    let z = {
        let _r = t.enter().unwrap();
        let x_sq = multiply(&x.value(), &x.value()).unwrap();
        let y_sq = {
            let _paused = t.stop_recording().unwrap();
            multiply(&y.value(), &y.value()).unwrap()
        };
        add(&x_sq, &y_sq).unwrap()
    };
    let g = t
        .gradient(&[z], &[(&x).into(), (&y).into()], None, Unconnected::None)
        .unwrap();
    assert_eq!(value(&g[0]), vec![4.0]);
    assert!(g[1].is_none());
}

#[test]
fn reset_forgets_what_was_recorded() {
    let x = Variable::new(Tensor::scalar(2.0f64), true, None);
    let y = Variable::new(Tensor::scalar(3.0f64), true, None);
    let t = Tape::new(false, true);
    let z = {
        let _r = t.enter().unwrap();
        let y_sq = multiply(&y.value(), &y.value()).unwrap();
        t.reset();
        assert!(t.is_empty());
        add(&multiply(&x.value(), &x.value()).unwrap(), &y_sq).unwrap()
    };
    let g = t
        .gradient(&[z], &[(&x).into(), (&y).into()], None, Unconnected::None)
        .unwrap();
    assert_eq!(value(&g[0]), vec![4.0]);
    assert!(g[1].is_none());
}

#[test]
fn several_tapes_each_record_what_they_watch() {
    let x0 = Tensor::scalar(0.0f32);
    let x1 = Tensor::scalar(0.0f32);
    let (t0, t1) = (Tape::new(false, true), Tape::new(false, true));
    let ys = {
        let _a = t0.enter().unwrap();
        let _b = t1.enter().unwrap();
        t0.watch(&x0);
        t1.watch(&x1);
        add(&sin(&x0).unwrap(), &multiply(&x1, &x1).unwrap()).unwrap()
    };
    assert_eq!(value(&tape_gradient(&t0, &ys, &x0)), vec![1.0]);
    assert_eq!(t1.len(), 2); // multiply and add: sin(x0) is not on t1
    assert_eq!(value(&tape_gradient(&t1, &ys, &x1)), vec![0.0]);
}

#[test]
fn tapes_exit_in_any_order_and_cannot_be_entered_twice() {
    let x = Tensor::scalar(1.0f64);
    let (a, b) = (Tape::new(true, true), Tape::new(true, true));
    a.push().unwrap();
    assert_eq!(a.push().unwrap_err().kind, ErrorKind::Tape);
    b.push().unwrap();
    a.watch(&x);
    b.watch(&x);
    a.exit(); // out of order
    let y = sin(&x).unwrap();
    b.exit();
    assert!(a.is_empty());
    assert_eq!(b.len(), 1);
    let _ = y;
    assert!(!rustape::tape::any_tape_recording());
}

#[test]
fn gradient_inside_its_own_persistent_context_is_recorded_for_higher_orders() {
    let x = Tensor::scalar(3.0f64);
    let t = Tape::new(true, true);
    let _r = t.enter().unwrap();
    t.watch(&x);
    let y = multiply(&multiply(&x, &x).unwrap(), &x).unwrap();
    let dy = tape_gradient(&t, &y, &x).unwrap(); // 3x^2 = 27, recorded on t itself
    let d2y = tape_gradient(&t, &dy, &x).unwrap(); // 6x = 18
    assert_eq!(dy.to_f64_vec(), vec![27.0]);
    assert_eq!(d2y.to_f64_vec(), vec![18.0]);
}

#[test]
fn output_gradients_seed_the_sweep_and_are_checked() {
    let x = Tensor::from_vec(vec![1.0f64, 2.0], &[2]).unwrap();
    let t = Tape::new(true, true);
    let y = {
        let _r = t.enter().unwrap();
        t.watch(&x);
        multiply(&x, &x).unwrap()
    };
    let seed = Tensor::from_vec(vec![10.0f64, 100.0], &[2]).unwrap();
    let g = t
        .gradient(
            std::slice::from_ref(&y),
            &[(&x).into()],
            Some(&[Some(seed)]),
            Unconnected::None,
        )
        .unwrap();
    assert_eq!(value(&g[0]), vec![20.0, 400.0]);
    let bad = Tensor::from_vec(vec![1.0f64, 2.0, 3.0], &[3]).unwrap();
    let err = t
        .gradient(&[y], &[(&x).into()], Some(&[Some(bad)]), Unconnected::None)
        .unwrap_err();
    assert_eq!(err.kind, ErrorKind::Shape);
    assert!(
        err.message.contains("[3]") && err.message.contains("[2]"),
        "{}",
        err.message
    );
}

#[test]
fn introspection_counts_ops_and_saved_bytes() {
    let x = Tensor::from_vec(vec![1.0f64; 1000], &[1000]).unwrap();
    let t = Tape::new(true, true);
    {
        let _r = t.enter().unwrap();
        t.watch(&x);
        let y = sin(&x).unwrap();
        let _ = multiply(&y, &x).unwrap();
    }
    assert_eq!(t.len(), 2);
    // sin saves x; multiply saves y and x again: x counted once.
    assert_eq!(t.nbytes(), 2 * 8000);
    assert!(t.summary().contains("multiply"));
    assert!(t.to_dot().starts_with("digraph"));
}

#[test]
fn non_persistent_tape_releases_saved_tensors_after_gradient() {
    let x = Tensor::from_vec(vec![1.0f64; 100], &[100]).unwrap();
    let t = Tape::new(false, true);
    let y = {
        let _r = t.enter().unwrap();
        t.watch(&x);
        sin(&x).unwrap()
    };
    assert!(t.nbytes() > 0);
    tape_gradient(&t, &y, &x);
    assert_eq!(t.nbytes(), 0);
}

#[test]
fn hessian_without_nesting_tapes() {
    // f(x, w) = sum(sin(x) * x * w): d2f/dx2 = diag(w * (2 cos x - x sin x)); f is linear in w.
    let xs = [0.3f64, -1.2, 2.0];
    let x = Tensor::from_vec(xs.to_vec(), &[3]).unwrap();
    let w = Tensor::from_vec(vec![1.5f64, 0.5, -2.0], &[3]).unwrap();
    let t = Tape::new(false, true);
    let f = {
        let _r = t.enter().unwrap();
        t.watch(&x);
        t.watch(&w);
        reduce_sum(
            &multiply(&multiply(&sin(&x).unwrap(), &x).unwrap(), &w).unwrap(),
            None,
            false,
        )
        .unwrap()
    };
    let h = t
        .hessian(&f, &[(&x).into(), (&w).into()], Unconnected::None)
        .unwrap();
    let hx = h[0].as_ref().unwrap();
    assert_eq!(hx.shape(), &[3, 3]);
    let got = hx.to_f64_vec();
    for i in 0..3 {
        for j in 0..3 {
            let want = if i == j {
                [1.5, 0.5, -2.0][i] * (2.0 * xs[i].cos() - xs[i] * xs[i].sin())
            } else {
                0.0
            };
            assert!(
                (got[i * 3 + j] - want).abs() < 1e-12,
                "H[{i},{j}] = {} want {want}",
                got[i * 3 + j]
            );
        }
    }
    assert_eq!(h[1].as_ref().unwrap().to_f64_vec(), vec![0.0; 9]);
}
