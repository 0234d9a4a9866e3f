//! Gradient accumulation: when several paths reach one tensor, the sweep adds their
//! cotangents into a buffer that nothing else holds instead of allocating the sum. These tests
//! use tensors larger than the 4 inline elements (the in-place path) and larger than the
//! parallel threshold, and check the numbers against analytic values and that no tensor a
//! caller can see changes.
use rustape::ops::{add, multiply, reduce_sum, sin};
use rustape::{Source, Tape, Tensor, Unconnected};

mod support;
use support::*;

fn ramp(n: usize) -> Tensor {
    Tensor::from_vec((0..n).map(|i| (i as f64) * 1e-3 - 0.2).collect(), &[n]).unwrap()
}

/// `sum(x * 1 + x * 2 + ... + x * 8)`, whose gradient is 36 everywhere.
fn fan_out_sum(x: &Tensor) -> Tensor {
    let mut total = multiply(x, &Tensor::scalar(1.0f64)).unwrap();
    for k in 2..=8 {
        total = add(&total, &multiply(x, &Tensor::scalar(k as f64)).unwrap()).unwrap();
    }
    reduce_sum(&total, None, false).unwrap()
}

#[test]
fn fan_out_sums_every_path_small_and_parallel_sizes() {
    for n in [5, 1000, 300_000] {
        let x = ramp(n);
        let tape = Tape::new(false, true);
        let loss = {
            let _on = tape.enter().unwrap();
            tape.watch(&x);
            fan_out_sum(&x)
        };
        let g = tape_gradient(&tape, &loss, &x).unwrap();
        assert!(values(&g).iter().all(|&v| v == 36.0), "n = {n}");
    }
}

#[test]
fn output_gradients_and_inputs_are_not_written() {
    // y = x + x passes the caller's seed to both operands: the sum must be a new tensor.
    let n = 64;
    let x = ramp(n);
    let seed = ramp(n);
    let before = values(&seed);
    let tape = Tape::new(true, true);
    let y = {
        let _on = tape.enter().unwrap();
        tape.watch(&x);
        add(&x, &x).unwrap()
    };
    // The seed is the caller's output gradient.
    let seeded_gradient = || {
        let seeds = [Some(seed.clone())];
        tape.gradient(
            std::slice::from_ref(&y),
            &[Source::from(&x)],
            Some(&seeds),
            Unconnected::None,
        )
        .unwrap()
        .remove(0)
        .unwrap()
    };
    let g = seeded_gradient();
    assert_eq!(values(&seed), before);
    assert_eq!(values(&x), values(&ramp(n)));
    let want: Vec<f64> = before.iter().map(|s| 2.0 * s).collect();
    assert_eq!(values(&g), want);
    // A second gradient from the persistent tape sees the same seed and gives the same result.
    let again = seeded_gradient();
    assert_eq!(values(&again), want);
}

#[test]
fn gradients_of_intermediates_returned_beside_sources_stay_intact() {
    // h feeds three terms; its own gradient is returned, and x's accumulates through it.
    let n = 50;
    let x = ramp(n);
    let tape = Tape::new(false, true);
    let (h, loss) = {
        let _on = tape.enter().unwrap();
        tape.watch(&x);
        let h = multiply(&x, &Tensor::scalar(3.0f64)).unwrap();
        let terms = add(&add(&h, &h).unwrap(), &multiply(&h, &x).unwrap()).unwrap();
        (h.clone(), reduce_sum(&terms, None, false).unwrap())
    };
    let grads = tape
        .gradient(
            &[loss],
            &[Source::from(&h), Source::from(&x)],
            None,
            Unconnected::None,
        )
        .unwrap();
    let xs = values(&x);
    // d/dh = 2 + x; d/dx = 3 (2 + x) + h = 6 + 3x + 3x.
    let dh: Vec<f64> = xs.iter().map(|v| 2.0 + v).collect();
    let dx: Vec<f64> = xs.iter().map(|v| 6.0 + 6.0 * v).collect();
    for (got, want) in [(&grads[0], dh), (&grads[1], dx)] {
        let got = values(got.as_ref().unwrap());
        for (g, w) in got.iter().zip(&want) {
            assert!((g - w).abs() < 1e-12, "{g} vs {w}");
        }
    }
}

#[test]
fn accumulation_under_a_recording_tape_is_recorded_for_second_order() {
    // y = sum(x sin(x) + x^2 + x): dy/dx = sin x + x cos x + 2x + 1, d2 = 2 cos x - x sin x + 2.
    let n = 40;
    let x = ramp(n);
    let outer = Tape::new(false, true);
    let (first, first_sum) = {
        let _o = outer.enter().unwrap();
        outer.watch(&x);
        let inner = Tape::new(false, true);
        let y = {
            let _i = inner.enter().unwrap();
            inner.watch(&x);
            let terms = add(
                &add(
                    &multiply(&x, &sin(&x).unwrap()).unwrap(),
                    &multiply(&x, &x).unwrap(),
                )
                .unwrap(),
                &x,
            )
            .unwrap();
            reduce_sum(&terms, None, false).unwrap()
        };
        let first = tape_gradient(&inner, &y, &x).unwrap();
        let sum = reduce_sum(&first, None, false).unwrap();
        (first, sum)
    };
    let second = tape_gradient(&outer, &first_sum, &x).unwrap();
    for ((v, d1), d2) in values(&x).iter().zip(values(&first)).zip(values(&second)) {
        let want1 = v.sin() + v * v.cos() + 2.0 * v + 1.0;
        let want2 = 2.0 * v.cos() - v * v.sin() + 2.0;
        assert!((d1 - want1).abs() < 1e-12 && (d2 - want2).abs() < 1e-12);
    }
}

#[test]
fn jacobian_rows_accumulate_on_worker_threads() {
    // y = x * x + x: the Jacobian is diagonal, 2x + 1.
    let n = 300;
    let x = ramp(n);
    let tape = Tape::new(false, true);
    let y = {
        let _on = tape.enter().unwrap();
        tape.watch(&x);
        add(&multiply(&x, &x).unwrap(), &x).unwrap()
    };
    let jac = tape
        .jacobian(&y, &[Source::from(&x)], Unconnected::None)
        .unwrap()
        .remove(0)
        .unwrap();
    let (xs, j) = (values(&x), values(&jac));
    for r in 0..n {
        for c in 0..n {
            let want = if r == c { 2.0 * xs[r] + 1.0 } else { 0.0 };
            assert!((j[r * n + c] - want).abs() < 1e-12, "row {r}, column {c}");
        }
    }
}
