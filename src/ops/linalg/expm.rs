//! `expm`: the matrix exponential by scaling and squaring with Padé approximants (Higham 2005,
//! TensorFlow's choice of degree per matrix), differentiated exactly through the block-matrix
//! identity `expm([[A^T, G], [0, A^T]]) = [[e^{A^T}, L(A^T, G)], [0, e^{A^T}]]`, whose corner is
//! the gradient (the adjoint of the Fréchet derivative). The VJP calls `expm` itself, so every
//! order differentiates.
use super::matrices::{
    check_square_float, holds_empty_matrices, map_matrices, matrix_t, per_matrix_rows, tensor_of,
};
use super::solve::{lu_factor, lu_solve};
use crate::error::Result;
use crate::ops::{broadcast_to, concat, slice_axis};
use crate::tape::record_batched;
use crate::tensor::Tensor;

/// Row-major `n x n` product.
fn mm(a: &[f64], b: &[f64], n: usize) -> Vec<f64> {
    let mut out = vec![0.0; n * n];
    for i in 0..n {
        for k in 0..n {
            let x = a[i * n + k];
            if x != 0.0 {
                for j in 0..n {
                    out[i * n + j] += x * b[k * n + j];
                }
            }
        }
    }
    out
}

/// `sum_k c_k P_k` plus `c_i I`, for matrices `P_k` (row-major `n x n`).
fn combine(terms: &[(f64, &[f64])], identity: f64, n: usize) -> Vec<f64> {
    let mut out = vec![0.0; n * n];
    for (c, p) in terms {
        for (o, x) in out.iter_mut().zip(p.iter()) {
            *o += c * x;
        }
    }
    for i in 0..n {
        out[i * n + i] += identity;
    }
    out
}

/// `(U, V)` of the Padé approximant of degree `degree` (3, 5, 7, 9 or 13):
/// `expm(A) ≈ (V - U)^-1 (V + U)`, with TensorFlow's coefficients.
fn pade(a: &[f64], n: usize, degree: usize) -> (Vec<f64>, Vec<f64>) {
    let a2 = mm(a, a, n);
    if degree == 13 {
        let b = [
            64764752532480000.0,
            32382376266240000.0,
            7771770303897600.0,
            1187353796428800.0,
            129060195264000.0,
            10559470521600.0,
            670442572800.0,
            33522128640.0,
            1323241920.0,
            40840800.0,
            960960.0,
            16380.0,
            182.0,
        ];
        let a4 = mm(&a2, &a2, n);
        let a6 = mm(&a4, &a2, n);
        let inner_u = combine(&[(1.0, &a6), (b[11], &a4), (b[9], &a2)], 0.0, n);
        let tmp_u = combine(
            &[
                (1.0, &mm(&a6, &inner_u, n)),
                (b[7], &a6),
                (b[5], &a4),
                (b[3], &a2),
            ],
            b[1],
            n,
        );
        let u = mm(a, &tmp_u, n);
        let tmp_v = combine(&[(b[12], &a6), (b[10], &a4), (b[8], &a2)], 0.0, n);
        let v = combine(
            &[
                (1.0, &mm(&a6, &tmp_v, n)),
                (b[6], &a6),
                (b[4], &a4),
                (b[2], &a2),
            ],
            b[0],
            n,
        );
        return (u, v);
    }
    let b: &[f64] = match degree {
        3 => &[120.0, 60.0, 12.0],
        5 => &[30240.0, 15120.0, 3360.0, 420.0, 30.0],
        7 => &[
            17297280.0, 8648640.0, 1995840.0, 277200.0, 25200.0, 1512.0, 56.0,
        ],
        _ => &[
            17643225600.0,
            8821612800.0,
            2075673600.0,
            302702400.0,
            30270240.0,
            2162160.0,
            110880.0,
            3960.0,
            90.0,
        ],
    };
    // Powers A^2, A^4, ... up to A^(degree - 1).
    let mut powers = vec![a2];
    while 2 * powers.len() < degree - 1 {
        let next = mm(&powers[powers.len() - 1], &powers[0], n);
        powers.push(next);
    }
    let odd: Vec<(f64, &[f64])> = powers
        .iter()
        .enumerate()
        .map(|(i, p)| {
            (
                if 2 * i + 3 == degree {
                    1.0
                } else {
                    b[2 * i + 3]
                },
                p.as_slice(),
            )
        })
        .collect();
    let u = mm(a, &combine(&odd, b[1], n), n);
    let even: Vec<(f64, &[f64])> = powers
        .iter()
        .enumerate()
        .map(|(i, p)| (b[2 * i + 2], p.as_slice()))
        .collect();
    (u, combine(&even, b[0], n))
}

/// The exponential of the row-major `n x n` matrix `a` (NaN when `a` is not finite).
fn expm_kernel(a: &[f64], n: usize) -> Vec<f64> {
    let l1 = (0..n)
        .map(|j| (0..n).map(|i| a[i * n + j].abs()).sum::<f64>())
        .fold(0.0, f64::max);
    if !l1.is_finite() {
        return vec![f64::NAN; n * n];
    }
    let thresholds = [
        (1.495585217958292e-2, 3),
        (2.539_398_330_063_23e-1, 5),
        (9.504178996162932e-1, 7),
        (2.097847961257068e0, 9),
    ];
    let (degree, squarings) = match thresholds.iter().find(|(t, _)| l1 < *t) {
        Some(&(_, d)) => (d, 0),
        // Higham's ceil(log2(norm / theta_13)) squarings, so the scaled norm is at most
        // theta_13. (TensorFlow takes the floor, which leaves norms up to twice theta_13 and
        // errors near 1e-9 at norm 10: `expm` of a rotation by 10 radians.)
        None => (13, ((l1 / 5.371920351148152).log2().ceil().max(0.0)) as i32),
    };
    let scale = 2f64.powi(-squarings);
    let scaled: Vec<f64> = a.iter().map(|x| x * scale).collect();
    let (u, v) = pade(&scaled, n, degree);
    let mut denominator: Vec<f64> = v.iter().zip(&u).map(|(v, u)| v - u).collect();
    let numerator: Vec<f64> = v.iter().zip(&u).map(|(v, u)| v + u).collect();
    let Some(perm) = lu_factor(&mut denominator, n) else {
        return vec![f64::NAN; n * n];
    };
    let mut result = vec![0.0; n * n];
    lu_solve(&denominator, &perm, n, n, &numerator, &mut result);
    for _ in 0..squarings {
        result = mm(&result, &result, n);
    }
    result
}

/// The matrix exponential of each matrix of `x` (`[..., M, M]`), as `tf.linalg.expm`: scaling
/// and squaring with a Padé approximant of degree 3 to 13 chosen per matrix by its 1-norm
/// (TensorFlow's thresholds), scaled until the norm is below Padé 13's bound as Higham
/// prescribes (TensorFlow scales one halving less, and loses digits for norms above ~5.4). A
/// matrix holding NaN or inf gives NaN.
pub fn expm(x: &Tensor) -> Result<Tensor> {
    let op = "expm";
    let n = check_square_float(op, x)?;
    let y = if holds_empty_matrices(x) {
        Tensor::zeros(x.shape(), x.dtype())
    } else {
        let values = map_matrices("expm", x, 20 * n * n * n, |_, a| Ok(expm_kernel(a, n)))?;
        tensor_of(values.concat(), x.shape(), x.dtype())?
    };
    let rows = per_matrix_rows(0, x.ndim());
    record_batched(op, &[x], &y, &[x], rows, true, move |s, dy, _batch| {
        // expm([[A^T, G], [0, A^T]]) holds the gradient in its top-right block.
        let at = broadcast_to(&matrix_t(&s[0])?, dy.shape())?;
        let zeros = Tensor::zeros(dy.shape(), dy.dtype());
        let r = dy.ndim();
        let block = concat(
            &[
                concat(&[at.clone(), dy.clone()], -1)?,
                concat(&[zeros, at], -1)?,
            ],
            -2,
        )?;
        let e = expm(&block)?;
        let top = slice_axis(&e, r - 2, 0, n)?;
        Ok(crate::grads![Some(slice_axis(&top, r - 1, n, 2 * n)?)])
    });
    Ok(y)
}
