//! How a tape finds where an input came from: a tensor's producer hint names a node on the
//! first tape that recorded it; every other tape (nested tapes, a reset tape, a Hessian's copy)
//! must still resolve it correctly, by id. Gradients here are checked against analytic values.
use rustape::ops::{add, multiply, sin};
use rustape::{Source, Tape, Tensor, Unconnected};

mod support;
use support::*;

fn scalar(v: f64) -> Tensor {
    Tensor::scalar(v)
}

/// The gradient of `y` with respect to `x` as a number.
fn grad(tape: &Tape, y: &Tensor, x: impl Into<Source>) -> Option<f64> {
    tape_gradient(tape, y, x).map(|g| g.item().unwrap())
}

#[test]
fn nested_tapes_recording_the_same_op_at_different_indices() {
    let x = scalar(0.7);
    let outer = Tape::new(true, true);
    let _o = outer.enter().unwrap();
    outer.watch(&x);
    // The outer tape records two ops before the inner one starts: indices differ.
    let a = sin(&x).unwrap();
    let b = multiply(&a, &x).unwrap();
    let inner = Tape::new(true, true);
    let _i = inner.enter().unwrap();
    inner.watch(&x);
    let y = multiply(&b, &x).unwrap(); // recorded at index 2 (outer) and 0 (inner)
    let z = add(&y, &sin(&y).unwrap()).unwrap();
    // z = y + sin(y), y = sin(x) x^2 on the outer tape; on the inner one b is a constant.
    let (xv, av) = (0.7f64, 0.7f64.sin());
    let yv = av * xv * xv;
    let dy_outer = 0.7f64.cos() * xv * xv + 2.0 * av * xv;
    let dy_inner = av * xv;
    let outer_expected = (1.0 + yv.cos()) * dy_outer;
    let inner_expected = (1.0 + yv.cos()) * dy_inner;
    assert!((grad(&inner, &z, &x).unwrap() - inner_expected).abs() < 1e-12);
    assert!((grad(&outer, &z, &x).unwrap() - outer_expected).abs() < 1e-12);
}

#[test]
fn a_reset_tape_treats_earlier_outputs_as_constants() {
    let x = scalar(0.3);
    let tape = Tape::new(true, true);
    let _r = tape.enter().unwrap();
    tape.watch(&x);
    let y = sin(&x).unwrap(); // node 0 before the reset
    tape.reset();
    tape.watch(&x);
    let z = multiply(&y, &x).unwrap(); // node 0 after it: y's hint must not resolve
    assert!((grad(&tape, &z, &x).unwrap() - 0.3f64.sin()).abs() < 1e-15);
    // y is an input of z's node (as in TensorFlow), but nothing recorded connects it to x.
    assert_eq!(grad(&tape, &z, &y), Some(0.3));
}

#[test]
fn gradient_with_respect_to_an_intermediate() {
    let x = scalar(1.5);
    let tape = Tape::new(true, true);
    let _r = tape.enter().unwrap();
    tape.watch(&x);
    let y = multiply(&x, &scalar(2.0)).unwrap();
    let z = multiply(&y, &y).unwrap();
    assert_eq!(grad(&tape, &z, &y), Some(2.0 * 3.0));
    assert_eq!(grad(&tape, &z, &x), Some(8.0 * 1.5));
    // Both at once: the intermediate's gradient is kept and still flows on to x.
    let both = tape
        .gradient(
            std::slice::from_ref(&z),
            &[Source::from(&y), Source::from(&x)],
            None,
            Unconnected::None,
        )
        .unwrap();
    assert_eq!(both[0].as_ref().unwrap().item().unwrap(), 6.0);
    assert_eq!(both[1].as_ref().unwrap().item().unwrap(), 12.0);
}

#[test]
fn a_tensor_watched_after_use_gets_its_gradient_as_in_tensorflow() {
    let (a, b) = (scalar(3.0), scalar(2.0));
    let tape = Tape::new(true, true);
    let _r = tape.enter().unwrap();
    tape.watch(&a);
    let y = multiply(&a, &b).unwrap();
    tape.watch(&b);
    assert_eq!(grad(&tape, &y, &a), Some(2.0));
    assert_eq!(grad(&tape, &y, &b), Some(3.0));
}

#[test]
fn the_target_itself_as_source() {
    let x = scalar(0.5);
    let tape = Tape::new(true, true);
    let _r = tape.enter().unwrap();
    tape.watch(&x);
    let y = sin(&x).unwrap();
    assert_eq!(grad(&tape, &y, &y), Some(1.0));
    assert_eq!(grad(&tape, &x, &x), Some(1.0));
}

#[test]
fn hessian_of_a_tape_that_nests_inside_another() {
    // The Hessian's copy of the graph finds nodes by id, not by the tensors' hints.
    let x = Tensor::from_vec(vec![0.4, -1.1], &[2]).unwrap();
    let outer = Tape::new(true, true);
    let _o = outer.enter().unwrap();
    outer.watch(&x);
    let pad = sin(&x).unwrap(); // shifts the inner tape's indices against the outer's
    let inner = Tape::new(true, true);
    let _i = inner.enter().unwrap();
    inner.watch(&x);
    let s = sin(&x).unwrap();
    let y = rustape::ops::reduce_sum(&multiply(&s, &x).unwrap(), None, false).unwrap();
    let h = inner
        .hessian(&y, &[Source::from(&x)], Unconnected::None)
        .unwrap();
    let h = h[0].as_ref().unwrap().to_f64_vec();
    // d2/dx2 [x sin x] = 2 cos x - x sin x, on the diagonal.
    for (i, xv) in [0.4f64, -1.1].iter().enumerate() {
        let expected = 2.0 * xv.cos() - xv * xv.sin();
        assert!((h[i * 3] - expected).abs() < 1e-12, "{h:?}");
    }
    assert_eq!((h[1], h[2]), (0.0, 0.0));
    drop(pad);
}

#[test]
fn tapes_on_several_threads_share_an_input_and_its_producer_hints() {
    // Each thread records on its own tape from the same watched input; a tensor produced on
    // one thread's tape is then a plain (watched) input on another's.
    let x = Tensor::from_vec(vec![0.3, -0.7, 1.1], &[3]).unwrap();
    let y0 = {
        let tape = Tape::new(true, true);
        let _r = tape.enter().unwrap();
        tape.watch(&x);
        sin(&x).unwrap()
    };
    let handles: Vec<_> = (0..4)
        .map(|k| {
            let (x, y0) = (x.clone(), y0.clone());
            std::thread::spawn(move || {
                let tape = Tape::new(true, true);
                let _r = tape.enter().unwrap();
                tape.watch(&x);
                tape.watch(&y0);
                let mut y = multiply(&x, &y0).unwrap();
                for _ in 0..k {
                    y = multiply(&y, &x).unwrap();
                }
                let sum = rustape::ops::reduce_sum(&y, None, false).unwrap();
                let g = |s: &Tensor| {
                    tape.gradient(
                        std::slice::from_ref(&sum),
                        &[Source::from(s)],
                        None,
                        Unconnected::None,
                    )
                    .unwrap()
                    .remove(0)
                    .unwrap()
                    .to_f64_vec()
                };
                (k, g(&x), g(&y0))
            })
        })
        .collect();
    let xs = [0.3f64, -0.7, 1.1];
    for h in handles {
        let (k, dx, dy0) = h.join().unwrap();
        // sum(x^(k+1) * y0) with y0 a leaf on this tape.
        for i in 0..3 {
            let (xv, yv) = (xs[i], xs[i].sin());
            let p = (k + 1) as f64;
            assert!((dx[i] - p * xv.powi(k) * yv).abs() < 1e-12, "{k} {dx:?}");
            assert!((dy0[i] - xv.powi(k + 1)).abs() < 1e-12, "{k} {dy0:?}");
        }
    }
}
