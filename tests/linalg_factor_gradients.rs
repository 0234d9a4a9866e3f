//! Gradients of the factorisations and matrix functions against central finite differences
//! in float64, first and second order (nested tapes), and their vectorised Jacobians against
//! the row-by-row ones (`check_vectorized`: every VJP takes batched cotangents), plus
//! `batch_jacobian` through a batch of matrices. Inputs of ops that read one triangle of a
//! symmetric matrix (cholesky, logdet, eigh) are symmetrised first, as TensorFlow's gradients
//! are those with respect to a symmetric input.
mod support;

use rustape::ops::*;
use rustape::testing::check_vectorized;
use rustape::{DType, Result, Source, Tape, Tensor, Unconnected};
use support::check;
use support::linalg::{lower, matrix_t, rand64, spd, sym, well_conditioned};

fn vectorized(f: &dyn Fn(&[Tensor]) -> Result<Tensor>, inputs: &[Tensor]) {
    // A single matrix couples its rows, so batch_jacobian (which check_vectorized runs when
    // output and input share their first axis) rightly refuses it: give the output a leading
    // axis of 1 there. Batches of matrices run batch_jacobian too.
    let single = inputs.len() == 1 && inputs[0].ndim() == 2;
    let lifted = |x: &[Tensor]| -> Result<Tensor> { reshape(&f(x)?, &[1, -1]) };
    let f: &dyn Fn(&[Tensor]) -> Result<Tensor> = if single { &lifted } else { f };
    if let Err(e) = check_vectorized(f, inputs, 1e-10) {
        let shapes: Vec<&[usize]> = inputs.iter().map(|t| t.shape()).collect();
        panic!("inputs of shapes {shapes:?}: {e}");
    }
}

/// Both checks.
fn both(f: &dyn Fn(&[Tensor]) -> Result<Tensor>, inputs: &[Tensor]) {
    check(f, inputs);
    vectorized(f, inputs);
}

/// Several outputs flattened into one vector (gradcheck takes one output).
fn flat(parts: &[Tensor]) -> Result<Tensor> {
    let flat: Vec<Tensor> = parts
        .iter()
        .map(|p| reshape(p, &[-1]))
        .collect::<Result<_>>()?;
    concat(&flat, 0)
}

#[test]
fn cholesky_and_logdet_gradients() {
    both(&|x: &[Tensor]| cholesky(&sym(&x[0])?), &[spd(&[], 3, 1)]);
    both(&|x: &[Tensor]| cholesky(&sym(&x[0])?), &[spd(&[2], 3, 2)]);
    both(&|x: &[Tensor]| logdet(&sym(&x[0])?), &[spd(&[2], 3, 3)]);
}

#[test]
fn triangular_solve_gradients_every_flag() {
    for (lower_, adjoint) in [(true, false), (true, true), (false, false), (false, true)] {
        let t = if lower_ {
            lower(&[], 3, 4)
        } else {
            matrix_t(&lower(&[], 3, 4)).unwrap()
        };
        both(
            &move |x: &[Tensor]| triangular_solve(&x[0], &x[1], lower_, adjoint),
            &[t.clone(), rand64(&[3, 2], 5)],
        );
    }
    // Broadcast batch axes on either side.
    both(
        &|x: &[Tensor]| triangular_solve(&x[0], &x[1], true, false),
        &[lower(&[2], 3, 6), rand64(&[3, 1], 7)],
    );
    both(
        &|x: &[Tensor]| triangular_solve(&x[0], &x[1], true, true),
        &[lower(&[], 3, 8), rand64(&[2, 3, 2], 9)],
    );
    both(
        &|x: &[Tensor]| cholesky_solve(&x[0], &x[1]),
        &[lower(&[], 3, 10), rand64(&[3, 2], 11)],
    );
}

#[test]
fn det_and_slogdet_gradients() {
    both(&|x: &[Tensor]| det(&x[0]), &[well_conditioned(&[], 3, 12)]);
    both(&|x: &[Tensor]| det(&x[0]), &[well_conditioned(&[2], 3, 13)]);
    both(
        &|x: &[Tensor]| Ok(slogdet(&x[0])?.1),
        &[rand64(&[2, 3, 3], 14)],
    );
}

#[test]
fn qr_gradients_deep_square_wide() {
    for shape in [vec![4, 3], vec![3, 3], vec![3, 5], vec![2, 4, 3]] {
        let f = |x: &[Tensor]| {
            let (q, r) = qr(&x[0], false)?;
            flat(&[q, r])
        };
        both(&f, &[rand64(&shape, 15)]);
        // One output at a time (the other's gradient is absent, not zero-filled by the caller).
        both(
            &|x: &[Tensor]| Ok(qr(&x[0], false)?.0),
            &[rand64(&shape, 16)],
        );
        both(
            &|x: &[Tensor]| Ok(qr(&x[0], false)?.1),
            &[rand64(&shape, 17)],
        );
    }
    // Wide with full matrices (q is square either way).
    both(
        &|x: &[Tensor]| Ok(qr(&x[0], true)?.1),
        &[rand64(&[2, 4], 18)],
    );
}

#[test]
fn eigh_gradients() {
    // Eigenvector signs are fixed by a convention that holds under small perturbations, so the
    // vectors themselves are checked, not only sign-invariant functions of them.
    let f = |x: &[Tensor]| {
        let (e, v) = eigh(&sym(&x[0])?)?;
        flat(&[e, v])
    };
    both(&f, &[spd(&[], 4, 19)]);
    both(&f, &[rand64(&[2, 3, 3], 20)]);
    both(
        &|x: &[Tensor]| eigvalsh(&sym(&x[0])?),
        &[rand64(&[3, 3], 21)],
    );
}

#[test]
fn eigh_gradient_with_repeated_eigenvalues_is_finite() {
    // TensorFlow's Lorentz broadening: for the identity the eigenvalue gradient is exact and
    // the eigenvector term vanishes instead of dividing by zero.
    let x = eye(3, None, &[], DType::F64).unwrap();
    let tape = Tape::new(false, true);
    let loss = {
        let _recording = tape.enter().unwrap();
        tape.watch(&x);
        let (e, v) = eigh(&x).unwrap();
        add(
            &reduce_sum(&e, None, false).unwrap(),
            &reduce_sum(&square(&v).unwrap(), None, false).unwrap(),
        )
        .unwrap()
    };
    let g = tape
        .gradient(&[loss], &[Source::from(&x)], None, Unconnected::Zero)
        .unwrap();
    let g = g[0].as_ref().unwrap().to_f64_vec();
    assert_eq!(g, eye(3, None, &[], DType::F64).unwrap().to_f64_vec());
}

#[test]
fn svd_gradients_every_shape() {
    for shape in [vec![4, 3], vec![3, 5], vec![3, 3], vec![2, 3, 2]] {
        let f = |x: &[Tensor]| {
            let (s, u, v) = svd(&x[0], false)?;
            flat(&[s, u, v])
        };
        both(&f, &[rand64(&shape, 22)]);
        both(&|x: &[Tensor]| svd_values(&x[0]), &[rand64(&shape, 23)]);
    }
    // Full matrices where TensorFlow defines the gradient: |m - n| <= 1.
    for shape in [vec![4, 3], vec![3, 4], vec![3, 3]] {
        let f = |x: &[Tensor]| {
            let (s, u, v) = svd(&x[0], true)?;
            flat(&[s, u, v])
        };
        both(&f, &[rand64(&shape, 24)]);
    }
}

#[test]
fn lstsq_pinv_and_expm_gradients() {
    for fast in [true, false] {
        both(
            &move |x: &[Tensor]| lstsq(&x[0], &x[1], 0.0, fast),
            &[rand64(&[5, 3], 25), rand64(&[5, 2], 26)],
        );
        both(
            &move |x: &[Tensor]| lstsq(&x[0], &x[1], 0.0, fast),
            &[rand64(&[2, 4], 27), rand64(&[2, 1], 28)],
        );
    }
    both(
        &|x: &[Tensor]| lstsq(&x[0], &x[1], 0.3, true),
        &[rand64(&[2, 4, 3], 29), rand64(&[2, 4, 2], 30)],
    );
    both(&|x: &[Tensor]| pinv(&x[0], None), &[rand64(&[4, 3], 31)]);
    both(&|x: &[Tensor]| pinv(&x[0], None), &[rand64(&[2, 2, 3], 32)]);
    // Each Padé degree, and scaling and squaring.
    for scale in [0.005, 0.1, 0.3, 0.8, 4.0] {
        let a = multiply(&rand64(&[3, 3], 33), &Tensor::scalar(scale)).unwrap();
        both(&|x: &[Tensor]| expm(&x[0]), &[a]);
    }
    both(&|x: &[Tensor]| expm(&x[0]), &[rand64(&[2, 2, 2], 34)]);
}

#[test]
fn band_and_diagonal_gradients() {
    both(
        &|x: &[Tensor]| band_part(&x[0], 1, 0),
        &[rand64(&[2, 3, 4], 35)],
    );
    both(
        &|x: &[Tensor]| band_part(&x[0], -1, 2),
        &[rand64(&[4, 3], 36)],
    );
    both(
        &|x: &[Tensor]| matrix_diag(&x[0], 0, None, None, 0.0),
        &[rand64(&[2, 3], 37)],
    );
    both(
        &|x: &[Tensor]| matrix_diag(&x[0], -1, Some(3), Some(4), 5.0),
        &[rand64(&[2], 38)],
    );
    both(
        &|x: &[Tensor]| matrix_diag_part(&x[0], 1),
        &[rand64(&[2, 3, 4], 39)],
    );
    both(
        &|x: &[Tensor]| matrix_diag_part(&x[0], 0),
        &[rand64(&[3, 3], 40)],
    );
    both(
        &|x: &[Tensor]| matrix_set_diag(&x[0], &x[1], -1),
        &[rand64(&[2, 3, 4], 41), rand64(&[2, 2], 42)],
    );
}

#[test]
fn batch_jacobian_through_a_batch_of_matrices() {
    // Batch element i of each op's output depends on matrix i alone: batch_jacobian passes
    // (check_vectorized runs it whenever output and input share their first axis).
    let a = spd(&[3], 3, 43);
    vectorized(
        &|x: &[Tensor]| cholesky(&sym(&x[0])?),
        std::slice::from_ref(&a),
    );
    vectorized(&|x: &[Tensor]| det(&x[0]), std::slice::from_ref(&a));
    vectorized(&|x: &[Tensor]| Ok(eigh(&x[0])?.0), std::slice::from_ref(&a));
    vectorized(
        &|x: &[Tensor]| Ok(svd(&x[0], false)?.0),
        std::slice::from_ref(&a),
    );
    vectorized(
        &|x: &[Tensor]| Ok(qr(&x[0], false)?.1),
        std::slice::from_ref(&a),
    );
    vectorized(&|x: &[Tensor]| expm(&x[0]), std::slice::from_ref(&a));
    // A single matrix couples its rows: batch_jacobian refuses, naming the op.
    let m = spd(&[], 3, 44);
    let tape = Tape::new(true, true);
    let y = {
        let _recording = tape.enter().unwrap();
        tape.watch(&m);
        expm(&m).unwrap()
    };
    let e = tape
        .batch_jacobian(&y, &Source::from(&m), Unconnected::None)
        .unwrap_err();
    assert!(e.message.contains("expm"), "{}", e.message);
}
