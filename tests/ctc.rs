//! CTC: the loss against analytic values, its gradient against finite differences (first
//! order; the second derivative in the logits is a clear error, in the upstream gradient it
//! works), the vectorised Jacobian, the decoders on small cases. TensorFlow's values are in
//! tests/python/test_ctc_reference.py.
mod support;
use support::*;

use rustape::ops::{self, ctc_beam_search_decoder, ctc_greedy_decoder, ctc_loss};
use rustape::testing::{check_vectorized, gradcheck, pseudo_random, Tolerance};
use rustape::{Source, Tape, Tensor, Unconnected};

fn labels() -> (Tensor, Tensor, Tensor) {
    // Example 0: "1 2 2" (a repeat), example 1: "3" of a width-3 row.
    (
        i32s(&[1, 2, 2, 3, 0, 0], &[2, 3]),
        i32s(&[3, 1], &[2]),
        i32s(&[6, 4], &[2]),
    )
}

#[test]
fn uniform_logits_count_the_alignments() {
    // 3 frames, 3 classes, label "1": alignments 1bb, b1b, bb1, 11b, b11, 111 -> 6 of 27.
    let x = Tensor::zeros(&[3, 1, 3], rustape::DType::F64);
    let loss = ctc_loss(&i32s(&[1], &[1, 1]), &x, &vi32(&[1]), &vi32(&[3]), true, 0).unwrap();
    assert_close(&values(&loss), &[-(6.0f64 / 27.0).ln()], 1e-12);
    // "1 1" in 3 frames needs the blank between: only 1b1 -> 1 of 27.
    let loss = ctc_loss(
        &i32s(&[1, 1], &[1, 2]),
        &x,
        &vi32(&[2]),
        &vi32(&[3]),
        true,
        0,
    )
    .unwrap();
    assert_close(&values(&loss), &[27.0f64.ln()], 1e-12);
}

#[test]
fn gradient_matches_finite_differences() {
    let (lab, lab_len, logit_len) = labels();
    for time_major in [true, false] {
        let shape = if time_major { [6, 2, 4] } else { [2, 6, 4] };
        let x = pseudo_random(&shape, 3);
        let f = |xs: &[Tensor]| ctc_loss(&lab, &xs[0], &lab_len, &logit_len, time_major, 0);
        gradcheck(&f, std::slice::from_ref(&x), false, Tolerance::default()).unwrap();
        check_vectorized(&f, std::slice::from_ref(&x), 1e-10).unwrap();
    }
    // Blank last, labels 0..2.
    let x = pseudo_random(&[5, 2, 4], 5);
    let lab = i32s(&[0, 2, 1, 1], &[2, 2]);
    let f = |xs: &[Tensor]| ctc_loss(&lab, &xs[0], &vi32(&[2, 2]), &vi32(&[5, 4]), true, -1);
    gradcheck(&f, std::slice::from_ref(&x), false, Tolerance::default()).unwrap();
}

#[test]
fn second_derivative_in_logits_is_an_error_in_upstream_gradient_works() {
    let (lab, lab_len, logit_len) = labels();
    let x = pseudo_random(&[6, 2, 4], 7);
    let outer = Tape::new(false, true);
    let err = {
        let _rec = outer.enter().unwrap();
        outer.watch(&x);
        let g = gradient(&|x| ctc_loss(&lab, x, &lab_len, &logit_len, true, 0), &x).unwrap();
        let s = ops::reduce_sum(&ops::multiply(&g, &g).unwrap(), None, false).unwrap();
        drop(_rec);
        outer
            .gradient(&[s], &[Source::from(&x)], None, Unconnected::None)
            .expect_err("a second derivative must be refused")
    };
    assert!(err.to_string().contains("second derivative"), "{err}");
    // d/d(dy) of dy * grad is grad: through output_gradients.
    let dy = v64(&[0.5, 2.0]);
    let tape = Tape::new(true, true);
    let (loss, g) = {
        let _rec = tape.enter().unwrap();
        tape.watch(&x);
        tape.watch(&dy);
        let inner = Tape::new(false, true);
        let loss = {
            let _r = inner.enter().unwrap();
            inner.watch(&x);
            ctc_loss(&lab, &x, &lab_len, &logit_len, true, 0).unwrap()
        };
        let g = inner
            .gradient(
                std::slice::from_ref(&loss),
                &[Source::from(&x)],
                Some(&[Some(dy.clone())]),
                Unconnected::None,
            )
            .unwrap()
            .pop()
            .unwrap()
            .unwrap();
        (loss, ops::reduce_sum(&g, None, false).unwrap())
    };
    let _ = loss;
    let ddy = tape_gradient(&tape, &g, &dy).unwrap();
    // sum over frames and classes of softmax - posterior is 0 per frame: d/d(dy) is 0.
    assert_close(&values(&ddy), &[0.0, 0.0], 1e-12);
}

#[test]
fn infeasible_and_empty_and_bad_labels() {
    let x = pseudo_random(&[2, 1, 3], 1);
    // "1 1" needs 3 frames.
    let l = ctc_loss(
        &i32s(&[1, 1], &[1, 2]),
        &x,
        &vi32(&[2]),
        &vi32(&[2]),
        true,
        0,
    )
    .unwrap();
    assert_eq!(values(&l), vec![f64::INFINITY]);
    let empty = Tensor::zeros(&[4, 0, 3], rustape::DType::F32);
    let l = ctc_loss(&i32s(&[], &[0, 2]), &empty, &vi32(&[]), &vi32(&[]), true, 0).unwrap();
    assert_eq!(l.shape(), &[0]);
    for (bad, what) in [(-1, "labels[0, 0]"), (3, "labels[0, 0]"), (0, "blank")] {
        let e = ctc_loss(
            &i32s(&[bad], &[1, 1]),
            &x,
            &vi32(&[1]),
            &vi32(&[2]),
            true,
            0,
        )
        .unwrap_err()
        .to_string();
        assert!(e.contains(what), "{e}");
    }
    let e = ctc_loss(&i32s(&[1], &[1, 1]), &x, &vi32(&[1]), &vi32(&[9]), true, 0)
        .unwrap_err()
        .to_string();
    assert!(e.contains("logit_length[0] = 9"), "{e}");
}

#[test]
fn greedy_and_beam_decoders() {
    // frames: 1 1 blank 1 0 (blank last of 3 classes).
    let p = [
        [0.1, 0.8, 0.1],
        [0.1, 0.7, 0.2],
        [0.1, 0.1, 0.8],
        [0.2, 0.7, 0.1],
        [0.6, 0.3, 0.1],
    ];
    let flat: Vec<f64> = p.iter().flatten().map(|v: &f64| v.ln()).collect();
    let x = t64(&flat, &[5, 1, 3]);
    let (d, score) = ctc_greedy_decoder(&x, &vi32(&[5]), true, -1).unwrap();
    assert_eq!(values(&d), vec![1.0, 1.0, 0.0]);
    let best: f64 = p
        .iter()
        .map(|r| r.iter().cloned().fold(0.0, f64::max).ln())
        .sum();
    assert_close(&values(&score), &[-best], 1e-12);
    let (d, _) = ctc_greedy_decoder(&x, &vi32(&[5]), false, -1).unwrap();
    assert_eq!(values(&d), vec![1.0, 1.0, 1.0, 0.0]);
    let (paths, logp) = ctc_beam_search_decoder(&x, &vi32(&[5]), 10, 2, false).unwrap();
    assert_eq!(paths.len(), 2);
    assert_eq!(logp.shape(), &[1, 2]);
    let l = values(&logp);
    assert!(l[0] >= l[1]);
    let e = ctc_beam_search_decoder(&x, &vi32(&[0]), 4, 2, false).unwrap_err();
    assert!(e.to_string().contains("top_paths"), "{e}");
}
