//! cholesky, triangular_solve, cholesky_solve, logdet, det, slogdet, qr, eigh, svd, lstsq,
//! pinv, expm, band_part and the diagonal ops: defining properties of the values (products
//! that rebuild the input, orthonormality, triangles), TensorFlow's behaviour on singular,
//! non-positive-definite, empty and non-finite inputs, and errors that name the op, shapes
//! and dtypes. Gradients are in linalg_factor_gradients.rs; TensorFlow's own numbers in
//! linalg_reference.rs.
mod support;

use rustape::ops::{self, *};
use rustape::{DType, ErrorKind, Tensor};
use support::linalg::{matrix_t, rand64, spd, well_conditioned};
use support::{assert_close, gradients, t64};

fn identity_close(q_t_q: &Tensor, n: usize, batch: &[usize]) {
    assert_close(
        &q_t_q.to_f64_vec(),
        &eye(n, None, batch, DType::F64).unwrap().to_f64_vec(),
        1e-12,
    );
}

fn is_zero_outside(x: &Tensor, keep: impl Fn(usize, usize) -> bool) {
    let s = x.shape();
    let (m, n) = (s[s.len() - 2], s[s.len() - 1]);
    for (i, v) in x.to_f64_vec().iter().enumerate() {
        let (r, c) = ((i / n) % m, i % n);
        if !keep(r, c) {
            assert_eq!(*v, 0.0, "element ({r}, {c}) should be zero");
        }
    }
}

#[test]
fn cholesky_rebuilds_the_matrix_and_reads_the_lower_triangle() {
    let a = spd(&[2], 4, 1);
    let l = cholesky(&a).unwrap();
    is_zero_outside(&l, |r, c| r >= c);
    let back = matmul(&l, &l, false, true).unwrap();
    assert_close(&back.to_f64_vec(), &a.to_f64_vec(), 1e-12);
    // The upper triangle is never read.
    let garbage = add(&a, &band_part(&rand64(&[2, 4, 4], 9), 0, -1).unwrap()).unwrap();
    let garbage = matrix_set_diag(&garbage, &matrix_diag_part(&a, 0).unwrap(), 0).unwrap();
    assert_eq!(cholesky(&garbage).unwrap().to_f64_vec(), l.to_f64_vec());
    // Not positive definite: NaN, as TensorFlow's CPU kernel.
    let bad = cholesky(&t64(&[1.0, 2.0, 2.0, 1.0], &[2, 2])).unwrap();
    assert!(bad.to_f64_vec().iter().all(|v| v.is_nan()));
    let f32_ = cholesky(&ops::cast(&a, DType::F32).unwrap()).unwrap();
    assert_eq!(f32_.dtype(), DType::F32);
    assert_close(&f32_.to_f64_vec(), &l.to_f64_vec(), 1e-6);
    assert_eq!(
        cholesky(&Tensor::zeros(&[0, 0], DType::F32))
            .unwrap()
            .shape(),
        &[0, 0]
    );
}

#[test]
fn triangular_solve_every_flag_and_broadcast() {
    // Lower triangular, 2 added on the diagonal to keep it well conditioned.
    let two = multiply(
        &eye(3, None, &[], DType::F64).unwrap(),
        &Tensor::scalar(2.0f64),
    )
    .unwrap();
    let low = add(&band_part(&rand64(&[3, 3], 2), -1, 0).unwrap(), &two).unwrap();
    let b = rand64(&[2, 3, 2], 3);
    for (lower, adjoint) in [(true, false), (true, true), (false, false), (false, true)] {
        let t = if lower {
            low.clone()
        } else {
            matrix_t(&low).unwrap()
        };
        // Garbage in the triangle that is not read.
        let noisy = if lower {
            add(&t, &band_part(&rand64(&[3, 3], 4), 0, -1).unwrap()).unwrap()
        } else {
            add(&t, &band_part(&rand64(&[3, 3], 4), -1, 0).unwrap()).unwrap()
        };
        let noisy = matrix_set_diag(&noisy, &matrix_diag_part(&t, 0).unwrap(), 0).unwrap();
        let x = triangular_solve(&noisy, &b, lower, adjoint).unwrap();
        assert_eq!(x.shape(), &[2, 3, 2]);
        let back = matmul(&t, &x, adjoint, false).unwrap();
        assert_close(&back.to_f64_vec(), &b.to_f64_vec(), 1e-12);
    }
    // A zero on the diagonal: inf, as TensorFlow.
    let singular = t64(&[1.0, 0.0, 2.0, 0.0], &[2, 2]);
    let x = triangular_solve(&singular, &t64(&[1.0, 1.0], &[2, 1]), true, false).unwrap();
    assert!(x.to_f64_vec()[1].is_infinite());
}

#[test]
fn cholesky_solve_and_logdet() {
    let a = spd(&[2], 3, 5);
    let b = rand64(&[2, 3, 2], 6);
    let x = cholesky_solve(&cholesky(&a).unwrap(), &b).unwrap();
    assert_close(&x.to_f64_vec(), &solve(&a, &b).unwrap().to_f64_vec(), 1e-12);
    let (sign, log_abs) = slogdet(&a).unwrap();
    assert_eq!(sign.to_f64_vec(), vec![1.0, 1.0]);
    assert_close(
        &logdet(&a).unwrap().to_f64_vec(),
        &log_abs.to_f64_vec(),
        1e-12,
    );
    assert!(logdet(&t64(&[1.0, 2.0, 2.0, 1.0], &[2, 2]))
        .unwrap()
        .item()
        .unwrap()
        .is_nan());
}

#[test]
fn det_and_slogdet_values_singular_and_empty() {
    let a = t64(&[2.0, 1.0, 1.0, 3.0], &[2, 2]);
    assert_close(&det(&a).unwrap().to_f64_vec(), &[5.0], 1e-14);
    // A permutation (odd) and a negative determinant.
    let p = t64(&[0.0, 1.0, 0.0, 1.0, 0.0, 0.0, 0.0, 0.0, 3.0], &[3, 3]);
    assert_close(&det(&p).unwrap().to_f64_vec(), &[-3.0], 1e-14);
    let (s, l) = slogdet(&p).unwrap();
    assert_eq!(s.to_f64_vec(), vec![-1.0]);
    assert_close(&l.to_f64_vec(), &[3f64.ln()], 1e-14);
    let batch = well_conditioned(&[3], 4, 2);
    let (s, l) = slogdet(&batch).unwrap();
    let d = det(&batch).unwrap();
    assert_eq!(d.shape(), &[3]);
    for ((d, s), l) in d
        .to_f64_vec()
        .iter()
        .zip(s.to_f64_vec())
        .zip(l.to_f64_vec())
    {
        assert!((d - s * l.exp()).abs() < 1e-10 * d.abs());
    }
    // Singular: 0 and (0, -inf); the gradient needs the inverse and raises, as TensorFlow's.
    let singular = t64(&[1.0, 2.0, 2.0, 4.0], &[2, 2]);
    assert_eq!(det(&singular).unwrap().item().unwrap(), 0.0);
    let (s, l) = slogdet(&singular).unwrap();
    assert_eq!(
        (s.item().unwrap(), l.item().unwrap()),
        (0.0, f64::NEG_INFINITY)
    );
    let e = gradients(&|x: &[Tensor]| det(&x[0]), std::slice::from_ref(&singular)).unwrap_err();
    assert_eq!((e.kind, e.op.as_str()), (ErrorKind::Value, "inv"));
    assert!(e.message.contains("not invertible"), "{}", e.message);
    // Empty matrices: 1 and (1, 0).
    assert_eq!(
        det(&Tensor::zeros(&[2, 0, 0], DType::F32))
            .unwrap()
            .to_f64_vec(),
        vec![1.0, 1.0]
    );
    let (s, l) = slogdet(&Tensor::zeros(&[0, 0], DType::F64)).unwrap();
    assert_eq!((s.item().unwrap(), l.item().unwrap()), (1.0, 0.0));
}

#[test]
fn qr_is_orthonormal_triangular_and_rebuilds_every_shape() {
    for (shape, full) in [
        (vec![5, 3], false),
        (vec![5, 3], true),
        (vec![3, 3], false),
        (vec![2, 3, 5], false),
        (vec![2, 3, 5], true),
    ] {
        let a = rand64(&shape, 7);
        let (q, r) = qr(&a, full).unwrap();
        let (m, n) = (shape[shape.len() - 2], shape[shape.len() - 1]);
        let k = if full { m } else { m.min(n) };
        assert_eq!(q.shape()[q.ndim() - 2..], [m, k]);
        assert_eq!(r.shape()[r.ndim() - 2..], [k, n]);
        is_zero_outside(&r, |row, col| row <= col);
        identity_close(
            &matmul(&q, &q, true, false).unwrap(),
            k,
            &shape[..shape.len() - 2],
        );
        let back = matmul(&q, &r, false, false).unwrap();
        assert_close(&back.to_f64_vec(), &a.to_f64_vec(), 1e-12);
    }
    // A column already reduced (zero below the pivot) takes no reflection: its sign is kept.
    let (q, r) = qr(&t64(&[2.0, 1.0, 0.0, 3.0], &[2, 2]), false).unwrap();
    assert_close(&r.to_f64_vec(), &[2.0, 1.0, 0.0, 3.0], 1e-15);
    assert_close(&q.to_f64_vec(), &[1.0, 0.0, 0.0, 1.0], 1e-15);
    let (q, r) = qr(&Tensor::zeros(&[0, 3], DType::F32), false).unwrap();
    assert_eq!((q.shape(), r.shape()), (&[0usize, 0][..], &[0usize, 3][..]));
}

#[test]
fn eigh_rebuilds_with_ascending_values_and_a_sign_convention() {
    let a = spd(&[2], 5, 11);
    let (e, v) = eigh(&a).unwrap();
    assert_eq!(
        (e.shape(), v.shape()),
        (&[2usize, 5][..], &[2usize, 5, 5][..])
    );
    for pair in e.to_f64_vec().chunks(5) {
        assert!(pair.windows(2).all(|w| w[0] <= w[1]), "{pair:?}");
    }
    identity_close(&matmul(&v, &v, true, false).unwrap(), 5, &[2]);
    let scaled = multiply(&v, &expand_dims(&e, -2).unwrap()).unwrap();
    let back = matmul(&scaled, &v, false, true).unwrap();
    assert_close(&back.to_f64_vec(), &a.to_f64_vec(), 1e-12);
    // Each eigenvector's largest entry is positive.
    let vs = v.to_f64_vec();
    for b in 0..2 {
        for j in 0..5 {
            let col: Vec<f64> = (0..5).map(|i| vs[b * 25 + i * 5 + j]).collect();
            let big = col
                .iter()
                .copied()
                .fold(0.0f64, |m, x| if x.abs() > m.abs() { x } else { m });
            assert!(big > 0.0, "{col:?}");
        }
    }
    // A larger matrix, and repeated eigenvalues (the identity).
    let big = spd(&[], 40, 12);
    let (e, v) = eigh(&big).unwrap();
    let back = matmul(
        &multiply(&v, &expand_dims(&e, -2).unwrap()).unwrap(),
        &v,
        false,
        true,
    )
    .unwrap();
    assert_close(&back.to_f64_vec(), &big.to_f64_vec(), 1e-11);
    let (e, _) = eigh(&eye(3, None, &[], DType::F64).unwrap()).unwrap();
    assert_eq!(e.to_f64_vec(), vec![1.0; 3]);
    // Zero, diagonal, 1 x 1, and repeated eigenvalue pairs.
    let (e, v) = eigh(&Tensor::zeros(&[3, 3], DType::F64)).unwrap();
    assert_eq!(e.to_f64_vec(), vec![0.0; 3]);
    identity_close(&matmul(&v, &v, true, false).unwrap(), 3, &[]);
    let (e, v) = eigh(&t64(
        &[3.0, 0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 2.0],
        &[3, 3],
    ))
    .unwrap();
    assert_eq!(e.to_f64_vec(), vec![1.0, 2.0, 3.0]);
    assert_close(
        &v.to_f64_vec(),
        &[0.0, 0.0, 1.0, 1.0, 0.0, 0.0, 0.0, 1.0, 0.0],
        1e-15,
    );
    let (e, v) = eigh(&t64(&[5.0], &[1, 1])).unwrap();
    assert_eq!((e.to_f64_vec(), v.to_f64_vec()), (vec![5.0], vec![1.0]));
    let (q, _) = qr(&rand64(&[5, 5], 14), false).unwrap();
    let pairs = t64(&[1.0, 1.0, 2.0, 2.0, 3.0], &[5]);
    let a = matmul(&multiply(&q, &pairs).unwrap(), &q, false, true).unwrap();
    let (e, v) = eigh(&a).unwrap();
    assert_close(&e.to_f64_vec(), &pairs.to_f64_vec(), 1e-13);
    identity_close(&matmul(&v, &v, true, false).unwrap(), 5, &[]);
    let back = matmul(&multiply(&v, &e).unwrap(), &v, false, true).unwrap();
    assert_close(&back.to_f64_vec(), &a.to_f64_vec(), 1e-13);
    assert_eq!(eigvalsh(&big).unwrap().shape(), &[40]);
    // NaN: an error, as TensorFlow.
    let e = eigh(&t64(&[f64::NAN, 0.0, 0.0, 1.0], &[2, 2])).unwrap_err();
    assert_eq!((e.kind, e.op.as_str()), (ErrorKind::Value, "eigh"));
}

#[test]
fn svd_rebuilds_every_shape_with_descending_values() {
    for (shape, full) in [
        (vec![5, 3], false),
        (vec![3, 5], false),
        (vec![2, 4, 4], false),
        (vec![5, 3], true),
        (vec![3, 5], true),
        (vec![30, 20], false),
    ] {
        let a = rand64(&shape, 13);
        let (s, u, v) = svd(&a, full).unwrap();
        let (m, n) = (shape[shape.len() - 2], shape[shape.len() - 1]);
        let k = m.min(n);
        let batch = &shape[..shape.len() - 2];
        let (uc, vc) = if full { (m, n) } else { (k, k) };
        assert_eq!(u.shape()[u.ndim() - 2..], [m, uc]);
        assert_eq!(v.shape()[v.ndim() - 2..], [n, vc]);
        for row in s.to_f64_vec().chunks(k) {
            assert!(row.windows(2).all(|w| w[0] >= w[1]), "{row:?}");
        }
        identity_close(&matmul(&u, &u, true, false).unwrap(), uc, batch);
        identity_close(&matmul(&v, &v, true, false).unwrap(), vc, batch);
        let u1 = slice_axis(&u, u.ndim() - 1, 0, k).unwrap();
        let v1 = slice_axis(&v, v.ndim() - 1, 0, k).unwrap();
        let us = multiply(&u1, &expand_dims(&s, -2).unwrap()).unwrap();
        let back = matmul(&us, &v1, false, true).unwrap();
        assert_close(&back.to_f64_vec(), &a.to_f64_vec(), 1e-12);
        let values = svd_values(&a).unwrap();
        assert_close(&values.to_f64_vec(), &s.to_f64_vec(), 1e-14);
    }
    // Rank-deficient and zero matrices still give orthonormal u.
    let rank_one = t64(&[1.0, 2.0, 2.0, 4.0, 3.0, 6.0], &[3, 2]);
    let (s, u, _) = svd(&rank_one, true).unwrap();
    assert!(s.to_f64_vec()[1].abs() < 1e-12);
    identity_close(&matmul(&u, &u, true, false).unwrap(), 3, &[]);
    let (s, u, v) = svd(&Tensor::zeros(&[2, 3], DType::F64), false).unwrap();
    assert_eq!(s.to_f64_vec(), vec![0.0, 0.0]);
    identity_close(&matmul(&u, &u, true, false).unwrap(), 2, &[]);
    identity_close(&matmul(&v, &v, true, false).unwrap(), 2, &[]);
    // NaN in, NaN out (TensorFlow's behaviour).
    let (s, _, _) = svd(&t64(&[f64::NAN, 0.0, 0.0, 1.0], &[2, 2]), false).unwrap();
    assert!(s.to_f64_vec().iter().all(|v| v.is_nan()));
}

#[test]
fn lstsq_and_pinv() {
    let a = rand64(&[6, 3], 21);
    let b = rand64(&[6, 2], 22);
    let x = lstsq(&a, &b, 0.0, true).unwrap();
    // The normal equations hold: A^T (A x - b) = 0.
    let residual = subtract(&matmul(&a, &x, false, false).unwrap(), &b).unwrap();
    let normal = matmul(&a, &residual, true, false).unwrap();
    assert_close(&normal.to_f64_vec(), &[0.0; 6], 1e-12);
    let slow = lstsq(&a, &b, 0.0, false).unwrap();
    assert_close(&slow.to_f64_vec(), &x.to_f64_vec(), 1e-12);
    // Underdetermined: the minimum-norm solution solves exactly.
    let w = rand64(&[2, 4], 23);
    let rhs = rand64(&[2, 1], 24);
    let x = lstsq(&w, &rhs, 0.0, true).unwrap();
    assert_close(
        &matmul(&w, &x, false, false).unwrap().to_f64_vec(),
        &rhs.to_f64_vec(),
        1e-12,
    );
    let p = pinv(&w, None).unwrap();
    assert_close(
        &matmul(&p, &rhs, false, false).unwrap().to_f64_vec(),
        &x.to_f64_vec(),
        1e-12,
    );
    // pinv of an invertible matrix is its inverse; A pinv(A) A = A for a rank-deficient one.
    let sq = well_conditioned(&[], 3, 25);
    assert_close(
        &pinv(&sq, None).unwrap().to_f64_vec(),
        &inv(&sq).unwrap().to_f64_vec(),
        1e-12,
    );
    let r = t64(&[1.0, 2.0, 3.0, 2.0, 4.0, 6.0, 1.0, 1.0, 1.0], &[3, 3]);
    let p = pinv(&r, None).unwrap();
    let back = matmul(&matmul(&r, &p, false, false).unwrap(), &r, false, false).unwrap();
    assert_close(&back.to_f64_vec(), &r.to_f64_vec(), 1e-12);
    let e = lstsq(&a, &rand64(&[5, 1], 1), 0.0, true).unwrap_err();
    assert_eq!((e.kind, e.op.as_str()), (ErrorKind::Shape, "lstsq"));
    assert!(
        e.message.contains("[6, 3]") && e.message.contains("[5, 1]"),
        "{}",
        e.message
    );
}

#[test]
fn expm_of_known_matrices() {
    // Diagonal, nilpotent and rotation generators, at small and large norms.
    let d = t64(&[1.0, 0.0, 0.0, -2.0], &[2, 2]);
    assert_close(
        &expm(&d).unwrap().to_f64_vec(),
        &[1f64.exp(), 0.0, 0.0, (-2f64).exp()],
        1e-14,
    );
    let nil = t64(&[0.0, 3.0, 0.0, 0.0], &[2, 2]);
    assert_close(
        &expm(&nil).unwrap().to_f64_vec(),
        &[1.0, 3.0, 0.0, 1.0],
        1e-14,
    );
    for theta in [1e-3, 0.5, 2.0, 10.0, 40.0] {
        let g = t64(&[0.0, -theta, theta, 0.0], &[2, 2]);
        let (c, s) = (f64::cos(theta), f64::sin(theta));
        assert_close(&expm(&g).unwrap().to_f64_vec(), &[c, -s, s, c], 1e-12);
    }
    let batch = multiply(&rand64(&[3, 4, 4], 31), &Tensor::scalar(4.0f64)).unwrap();
    let e = expm(&batch).unwrap();
    let minus = expm(&negative(&batch).unwrap()).unwrap();
    identity_close(&matmul(&e, &minus, false, false).unwrap(), 4, &[3]);
    assert_eq!(
        expm(&Tensor::zeros(&[0, 0], DType::F32)).unwrap().shape(),
        &[0, 0]
    );
    let inf = expm(&t64(&[f64::INFINITY, 0.0, 0.0, 1.0], &[2, 2])).unwrap();
    assert!(inf.to_f64_vec().iter().all(|v| v.is_nan()));
}

#[test]
fn band_and_diagonal_ops() {
    let x = t64(&(0..12).map(f64::from).collect::<Vec<_>>(), &[3, 4]);
    let b = band_part(&x, 1, 0).unwrap();
    assert_eq!(
        b.to_f64_vec(),
        vec![0., 0., 0., 0., 4., 5., 0., 0., 0., 9., 10., 0.]
    );
    assert_eq!(
        band_part(&x, 0, 0).unwrap().to_f64_vec(),
        vec![0., 0., 0., 0., 0., 5., 0., 0., 0., 0., 10., 0.]
    );
    assert_eq!(band_part(&x, -1, -1).unwrap().to_f64_vec(), x.to_f64_vec());
    assert_eq!(
        matrix_diag_part(&x, -1).unwrap().to_f64_vec(),
        vec![4.0, 9.0]
    );
    assert_eq!(
        matrix_diag_part(&x, 2).unwrap().to_f64_vec(),
        vec![2.0, 7.0]
    );
    let d = matrix_diag(&t64(&[1.0, 2.0], &[2]), -1, Some(3), Some(4), 9.0).unwrap();
    assert_eq!(
        d.to_f64_vec(),
        vec![9., 9., 9., 9., 1., 9., 9., 9., 9., 2., 9., 9.]
    );
    let d = matrix_diag(&t64(&[1.0, 2.0], &[2]), 1, None, None, 0.0).unwrap();
    assert_eq!(d.shape(), &[3, 3]);
    assert_eq!(
        matrix_diag(&t64(&[1.0, 2.0], &[2]), 1, Some(4), None, 0.0)
            .unwrap()
            .shape(),
        &[4, 3]
    );
    let s = matrix_set_diag(
        &Tensor::zeros(&[2, 3], DType::F64),
        &t64(&[1.0, 2.0], &[2]),
        1,
    )
    .unwrap();
    assert_eq!(s.to_f64_vec(), vec![0., 1., 0., 0., 0., 2.]);
    // Integer tensors work (no gradient), as in TensorFlow.
    let i = band_part(&Tensor::ones(&[2, 2], DType::I32), 0, 0).unwrap();
    assert_eq!(i.dtype(), DType::I32);
    // Errors name the op and the shapes.
    let e = matrix_set_diag(
        &Tensor::zeros(&[2, 3], DType::F32),
        &Tensor::zeros(&[3], DType::F32),
        0,
    )
    .unwrap_err();
    assert_eq!((e.kind, e.op.as_str()), (ErrorKind::Shape, "set_diag"));
    assert!(
        e.message.contains("[2, 3]") && e.message.contains("[3]"),
        "{}",
        e.message
    );
    let e = matrix_diag_part(&x, 4).unwrap_err();
    assert_eq!((e.kind, e.op.as_str()), (ErrorKind::Value, "diag_part"));
    let e = band_part(&x, 4, 0).unwrap_err();
    assert_eq!((e.kind, e.op.as_str()), (ErrorKind::Value, "band_part"));
    let e = band_part(&t64(&[1.0], &[1]), 0, 0).unwrap_err();
    assert_eq!(e.kind, ErrorKind::Shape);
    let e = matrix_diag(&Tensor::scalar(1.0f64), 0, None, None, 0.0).unwrap_err();
    assert_eq!((e.kind, e.op.as_str()), (ErrorKind::Shape, "diag"));
}

#[test]
fn errors_name_the_op_the_shapes_and_the_dtypes() {
    let rect = rand64(&[2, 3], 1);
    type Unary = fn(&Tensor) -> rustape::Result<Tensor>;
    let square_ops: [(&str, Unary); 7] = [
        ("cholesky", cholesky),
        ("det", det),
        ("slogdet", |x| slogdet(x).map(|p| p.1)),
        ("eigh", |x| eigh(x).map(|p| p.0)),
        ("expm", expm),
        ("logdet", logdet),
        ("eigh", eigvalsh),
    ];
    for (name, f) in square_ops {
        let e = f(&rect).unwrap_err();
        assert_eq!((e.kind, e.op.as_str()), (ErrorKind::Shape, name));
        assert!(e.message.contains("[2, 3]"), "{name}: {}", e.message);
        let e = f(&Tensor::ones(&[2, 2], DType::I32)).unwrap_err();
        assert_eq!((e.kind, e.op.as_str()), (ErrorKind::DType, name));
        assert!(e.message.contains("int32"), "{name}: {}", e.message);
        let e = f(&rand64(&[3], 1)).unwrap_err();
        assert_eq!(e.kind, ErrorKind::Shape, "{name}");
    }
    for (name, e) in [
        ("qr", qr(&rand64(&[3], 1), false).map(|p| p.0).unwrap_err()),
        (
            "svd",
            svd(&Tensor::ones(&[2, 2], DType::I64), false)
                .map(|p| p.0)
                .unwrap_err(),
        ),
        ("pinv", pinv(&rand64(&[4], 1), None).unwrap_err()),
    ] {
        assert_eq!(e.op, name);
    }
    let e = triangular_solve(&rand64(&[3, 3], 1), &rand64(&[2, 1], 2), true, false).unwrap_err();
    assert_eq!(
        (e.kind, e.op.as_str()),
        (ErrorKind::Shape, "triangular_solve")
    );
    assert!(
        e.message.contains("[3, 3]") && e.message.contains("[2, 1]"),
        "{}",
        e.message
    );
    let e =
        triangular_solve(&rand64(&[2, 3, 3], 1), &rand64(&[4, 3, 1], 2), true, false).unwrap_err();
    assert_eq!(e.kind, ErrorKind::Shape);
    let e = triangular_solve(
        &rand64(&[2, 2], 1),
        &ops::cast(&rand64(&[2, 1], 2), DType::F32).unwrap(),
        true,
        false,
    )
    .unwrap_err();
    assert_eq!(
        (e.kind, e.op.as_str()),
        (ErrorKind::DType, "triangular_solve")
    );
    let e = lstsq(
        &rand64(&[4, 2], 1),
        &ops::cast(&rand64(&[4, 1], 2), DType::F32).unwrap(),
        0.0,
        true,
    )
    .unwrap_err();
    assert_eq!((e.kind, e.op.as_str()), (ErrorKind::DType, "lstsq"));
    // Gradients TensorFlow does not define raise, naming the op.
    let e = gradients(
        &|x: &[Tensor]| qr(&x[0], true).map(|p| p.1),
        &[rand64(&[4, 3], 3)],
    )
    .unwrap_err();
    assert_eq!((e.kind, e.op.as_str()), (ErrorKind::Value, "qr"));
    assert!(e.message.contains("full_matrices"), "{}", e.message);
    let e = gradients(
        &|x: &[Tensor]| svd(&x[0], true).map(|p| p.1),
        &[rand64(&[5, 3], 3)],
    )
    .unwrap_err();
    assert_eq!((e.kind, e.op.as_str()), (ErrorKind::Value, "svd"));
}
