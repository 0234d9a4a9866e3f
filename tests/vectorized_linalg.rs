//! Vectorised Jacobians through the linear-algebra ops: one backward sweep with a batch axis of
//! seeds must give exactly what row-by-row sweeps give (`check_vectorized`, float64, which also
//! fails naming any op on the path that is not batchable). Covers matmul (every transpose
//! combination, batched and broadcast shapes, the folded dense-layer path), matvec, solve,
//! inv, diagonal_part / diagonal_embed, a Hessian by nested tapes, and einsum. Also the matmul
//! kernel's paths for a shared operand against a batched one (one GEMM with the batch as rows
//! or columns, or one GEMM per row / column of the batch), against a triple loop.
mod support;

use ndarray::{ArrayD, IxDyn};
use rustape::ops::{
    self, diagonal_embed, diagonal_part, einsum, inv, matmul, matvec, solve, solve_adjoint,
};
use rustape::testing::check_vectorized;
use rustape::{DType, Data, Result, Source, Tape, Tensor, Unconnected};
use support::assert_close;
use support::linalg::{naive_matmul, rand64, well_conditioned};

/// The vectorised Jacobian of `f` at `inputs` equals the row-by-row one (to 1e-12).
fn vectorized(f: &dyn Fn(&[Tensor]) -> Result<Tensor>, inputs: &[Tensor]) {
    if let Err(e) = check_vectorized(f, inputs, 1e-12) {
        let shapes: Vec<&[usize]> = inputs.iter().map(|t| t.shape()).collect();
        panic!("inputs of shapes {shapes:?}: {e}");
    }
}

/// `shape` with its last two axes swapped when `transposed`.
fn maybe_t(shape: &[usize], transposed: bool) -> Vec<usize> {
    let mut s = shape.to_vec();
    let r = s.len();
    if transposed {
        s.swap(r - 2, r - 1);
    }
    s
}

const TRANSPOSES: [(bool, bool); 4] = [(false, false), (true, false), (false, true), (true, true)];

// ---------------------------------------------------------------------------------------------
// matmul
// ---------------------------------------------------------------------------------------------

#[test]
fn matmul_every_transpose_combination() {
    for (seed, (ta, tb)) in TRANSPOSES.into_iter().enumerate() {
        let seed = 10 * seed as u64;
        let a = rand64(&maybe_t(&[3, 4], ta), seed + 1);
        let b = rand64(&maybe_t(&[4, 2], tb), seed + 2);
        let f = move |x: &[Tensor]| matmul(&x[0], &x[1], ta, tb);
        vectorized(&f, &[a.clone(), b.clone()]);
        // One operand at a time (with `a` untransposed, [3, 4] -> [3, 2] also runs the batch
        // Jacobian: its rows stay apart).
        vectorized(
            &|x: &[Tensor]| matmul(&x[0], &b, ta, tb),
            std::slice::from_ref(&a),
        );
        vectorized(
            &|x: &[Tensor]| matmul(&a, &x[0], ta, tb),
            std::slice::from_ref(&b),
        );
    }
}

#[test]
fn matmul_batched_and_broadcast_shapes() {
    let cases: &[(&[usize], &[usize])] = &[
        (&[2, 3, 4], &[2, 4, 5]),    // batched, same batch
        (&[2, 1, 3, 4], &[5, 4, 6]), // broadcast both ways
        (&[1, 3, 4], &[3, 4, 2]),    // a broadcast along the batch
        (&[3, 3, 4], &[4, 2]),       // dense layer: b shared (the folded VJP)
        (&[2, 2, 3, 4], &[4, 1]),    // dense layer, two batch axes, one column
        (&[3, 4], &[2, 2, 4, 5]),    // a shared
        (&[3, 4], &[3, 4, 1]),       // a shared, one column
    ];
    for (seed, &(sa, sb)) in cases.iter().enumerate() {
        for (ta, tb) in TRANSPOSES {
            let seed = 10 * seed as u64;
            let a = rand64(&maybe_t(sa, ta), seed + 1);
            let b = rand64(&maybe_t(sb, tb), seed + 2);
            let f = move |x: &[Tensor]| matmul(&x[0], &x[1], ta, tb);
            vectorized(&f, &[a, b]);
        }
    }
}

#[test]
fn matmul_batch_jacobian_through_batched_operands() {
    // Single sources whose rows stay apart: the batch Jacobian is checked too.
    let w = rand64(&[4, 2], 1);
    let wt = rand64(&[2, 4], 2);
    let x = rand64(&[3, 5, 4], 3);
    vectorized(
        &|t: &[Tensor]| matmul(&t[0], &w, false, false),
        std::slice::from_ref(&x),
    );
    vectorized(&|t: &[Tensor]| matmul(&t[0], &wt, false, true), &[x]);
    let b = rand64(&[3, 4, 2], 4);
    vectorized(
        &|t: &[Tensor]| matmul(&t[0], &b, false, false),
        &[rand64(&[3, 2, 4], 5)],
    );
    vectorized(
        &|t: &[Tensor]| matmul(&b, &t[0], true, false),
        &[rand64(&[3, 4, 6], 6)],
    );
}

#[test]
fn x_at_w_and_w_at_x() {
    let (x, w) = (rand64(&[5, 3], 1), rand64(&[3, 4], 2));
    vectorized(
        &|t: &[Tensor]| matmul(&t[0], &w, false, false),
        std::slice::from_ref(&x),
    );
    vectorized(
        &|t: &[Tensor]| matmul(&x, &t[0], false, false),
        std::slice::from_ref(&w),
    );
    vectorized(&|t: &[Tensor]| matmul(&t[0], &t[1], false, false), &[x, w]);

    let (w, x) = (rand64(&[4, 3], 3), rand64(&[3, 2], 4));
    vectorized(
        &|t: &[Tensor]| matmul(&w, &t[0], false, false),
        std::slice::from_ref(&x),
    );
    vectorized(
        &|t: &[Tensor]| matmul(&t[0], &x, false, false),
        std::slice::from_ref(&w),
    );
    vectorized(&|t: &[Tensor]| matmul(&t[0], &t[1], false, false), &[w, x]);
}

#[test]
fn tanh_of_w_at_x_with_respect_to_x_and_w() {
    let (w, x) = (rand64(&[6, 5], 1), rand64(&[5, 1], 2));
    let layer = |w: &Tensor, x: &Tensor| ops::tanh(&matmul(w, x, false, false)?);
    vectorized(&|t: &[Tensor]| layer(&w, &t[0]), std::slice::from_ref(&x));
    vectorized(&|t: &[Tensor]| layer(&t[0], &x), std::slice::from_ref(&w));
    vectorized(&|t: &[Tensor]| layer(&t[0], &t[1]), &[w, x]);
    // Wider: the VJP's `W^T @ dy` with dy [rows, 48, 1] is one GEMM with the rows as columns.
    let w = ops::multiply(&rand64(&[48, 64], 3), &Tensor::scalar(0.2)).unwrap();
    vectorized(&|t: &[Tensor]| layer(&w, &t[0]), &[rand64(&[64, 1], 4)]);
}

#[test]
fn matvec_vectorizes() {
    let (a, x) = (rand64(&[4, 3], 1), rand64(&[3], 2));
    vectorized(
        &|t: &[Tensor]| matvec(&t[0], &t[1], false),
        &[a.clone(), x.clone()],
    );
    vectorized(&|t: &[Tensor]| matvec(&a, &t[0], false), &[x]);
    let xt = rand64(&[4], 3);
    vectorized(&|t: &[Tensor]| matvec(&t[0], &t[1], true), &[a, xt]);
    // Batched: [2, 4, 3] times [2, 3] (rows stay apart for either source alone).
    let (a, x) = (rand64(&[2, 4, 3], 4), rand64(&[2, 3], 5));
    vectorized(
        &|t: &[Tensor]| matvec(&t[0], &t[1], false),
        &[a.clone(), x.clone()],
    );
    vectorized(
        &|t: &[Tensor]| matvec(&a, &t[0], false),
        std::slice::from_ref(&x),
    );
    vectorized(&|t: &[Tensor]| matvec(&t[0], &x, false), &[a]);
}

// ---------------------------------------------------------------------------------------------
// solve, inv
// ---------------------------------------------------------------------------------------------

#[test]
fn solve_vectorizes() {
    let a = well_conditioned(&[], 4, 1);
    let rhs = rand64(&[4, 2], 2);
    for adjoint in [false, true] {
        let f = move |t: &[Tensor]| solve_adjoint(&t[0], &t[1], adjoint);
        vectorized(&f, &[a.clone(), rhs.clone()]);
    }
    vectorized(
        &|t: &[Tensor]| solve(&t[0], &t[1]),
        &[a.clone(), rand64(&[4, 1], 3)],
    );
    // Batched systems; a matrix broadcast over a batch of right-hand sides, and the reverse.
    let cases: &[(&[usize], &[usize])] = &[(&[2], &[2]), (&[], &[3]), (&[3], &[]), (&[2, 1], &[3])];
    for (seed, &(ba, bb)) in cases.iter().enumerate() {
        let seed = 10 * seed as u64;
        let a = well_conditioned(ba, 3, seed + 4);
        let rhs = rand64(&[bb, &[3, 2]].concat(), seed + 5);
        for adjoint in [false, true] {
            let f = move |t: &[Tensor]| solve_adjoint(&t[0], &t[1], adjoint);
            vectorized(&f, &[a.clone(), rhs.clone()]);
        }
    }
    // Single sources of a batch of systems: the batch Jacobian is checked too.
    let (a, rhs) = (well_conditioned(&[3], 3, 40), rand64(&[3, 3, 2], 41));
    vectorized(&|t: &[Tensor]| solve(&a, &t[0]), std::slice::from_ref(&rhs));
    vectorized(&|t: &[Tensor]| solve(&t[0], &rhs), &[a]);
}

#[test]
fn inv_vectorizes() {
    // A single matrix mixes its rows, so keep the output's first axis off the source's.
    let c = rand64(&[2, 4], 1);
    vectorized(
        &|t: &[Tensor]| matmul(&c, &inv(&t[0])?, false, false),
        &[well_conditioned(&[], 4, 2)],
    );
    vectorized(&|t: &[Tensor]| inv(&t[0]), &[well_conditioned(&[2], 3, 3)]);
    vectorized(
        &|t: &[Tensor]| inv(&t[0]),
        &[well_conditioned(&[2, 2], 3, 4)],
    );
}

// ---------------------------------------------------------------------------------------------
// diagonal_part, diagonal_embed
// ---------------------------------------------------------------------------------------------

#[test]
fn diagonal_part_and_embed_vectorize() {
    let parts: &[(&[usize], &[usize])] = &[
        (&[3, 3], &[0, 0]),
        (&[2, 3, 3], &[0, 1, 1]),
        (&[3, 2, 2], &[1, 0, 0]),
        (&[2, 2, 2], &[0, 0, 0]),
        (&[2, 3, 2, 3], &[0, 1, 0, 1]),
    ];
    for (seed, &(shape, map)) in parts.iter().enumerate() {
        let x = rand64(shape, seed as u64 + 1);
        vectorized(&|t: &[Tensor]| diagonal_part(&t[0], map), &[x]);
        let diag = diagonal_part(&rand64(shape, 0), map).unwrap();
        let d = rand64(diag.shape(), seed as u64 + 11);
        vectorized(&|t: &[Tensor]| diagonal_embed(&t[0], map, shape), &[d]);
    }
    // Through both, and into a product.
    let x = rand64(&[3, 4, 4], 30);
    let f = |t: &[Tensor]| {
        let d = diagonal_part(&t[0], &[0, 1, 1])?;
        let e = diagonal_embed(&ops::tanh(&d)?, &[0, 1, 1], &[3, 4, 4])?;
        matmul(&e, &t[0], false, false)
    };
    vectorized(&f, &[x]);
}

// ---------------------------------------------------------------------------------------------
// A Hessian by nested tapes (the W5 path): the Jacobian of a gradient
// ---------------------------------------------------------------------------------------------

/// The gradient of sum(tanh(X @ w)^2) with respect to `w`, by an inner tape that an outer
/// tape (the one `check_vectorized` records on) sees run.
fn tanh_square_gradient(x: &Tensor, w: &Tensor) -> Result<Tensor> {
    let tape = Tape::new(false, true);
    let y = {
        let _recording = tape.enter()?;
        tape.watch(w);
        ops::reduce_sum(
            &ops::square(&ops::tanh(&matmul(x, w, false, false)?)?)?,
            None,
            false,
        )?
    };
    let grads = tape.gradient(&[y], &[Source::from(w)], None, Unconnected::Zero)?;
    Ok(grads
        .into_iter()
        .next()
        .flatten()
        .unwrap_or_else(|| w.zeros_like()))
}

#[test]
fn hessian_by_nested_tapes_vectorizes() {
    let (x, w) = (rand64(&[6, 5], 1), rand64(&[5, 1], 2));
    // The Hessian in `w` and the mixed second derivative in `X`, one vectorised sweep each row
    // block. (With `w` the only source, `[5, 1] -> [5, 1]` would also ask check_vectorized for
    // a batch Jacobian, which `X @ w` refuses: it mixes the rows of `w`.)
    vectorized(
        &|t: &[Tensor]| tanh_square_gradient(&t[1], &t[0]),
        &[w.clone(), x.clone()],
    );
    // `w` alone, read as a row so that only the Jacobian applies: the Hessian itself.
    let f = |t: &[Tensor]| ops::reshape(&tanh_square_gradient(&x, &t[0])?, &[1, 5]);
    vectorized(&f, &[w]);
}

// ---------------------------------------------------------------------------------------------
// einsum: no node of its own; a composite of transpose, reshape, reduce_sum, diagonal_part and
// matmul, so it is batchable because all of those are.
// ---------------------------------------------------------------------------------------------

#[test]
fn einsum_vectorizes() {
    let cases: &[(&str, &[&[usize]])] = &[
        ("ij,jk->ik", &[&[3, 4], &[4, 2]]),
        ("bij,bjk->bik", &[&[2, 3, 4], &[2, 4, 2]]),
        ("bi,ij->bj", &[&[3, 4], &[4, 2]]),
        ("ij->ji", &[&[2, 3]]),
        ("ii->i", &[&[3, 3]]),
        ("ii->", &[&[3, 3]]),
        ("bxby->bxy", &[&[2, 3, 2, 4]]),
        ("i,i->", &[&[4], &[4]]),
        ("...ij,...jk->...ik", &[&[2, 3, 4], &[4, 2]]),
    ];
    for (seed, &(equation, shapes)) in cases.iter().enumerate() {
        let inputs: Vec<Tensor> = shapes
            .iter()
            .enumerate()
            .map(|(i, s)| rand64(s, 10 * seed as u64 + i as u64))
            .collect();
        vectorized(&|t: &[Tensor]| einsum(equation, t), &inputs);
    }
}

// ---------------------------------------------------------------------------------------------
// The kernel: a shared operand against a batched one
// ---------------------------------------------------------------------------------------------

/// `matmul(a, b, ta, tb)` equals the triple loop, in float64 and float32.
fn matches_triple_loop(a: &Tensor, b: &Tensor, ta: bool, tb: bool) {
    let (sa, sb) = (a.shape().to_vec(), b.shape().to_vec());
    let (want, shape) = naive_matmul(&a.to_f64_vec(), &sa, &b.to_f64_vec(), &sb, ta, tb);
    let y = matmul(a, b, ta, tb).unwrap();
    assert_eq!(y.shape(), &shape[..], "{sa:?} {sb:?} {ta} {tb}");
    assert_close(&y.to_f64_vec(), &want, 1e-12);
    let (a32, b32) = (
        ops::cast(a, DType::F32).unwrap(),
        ops::cast(b, DType::F32).unwrap(),
    );
    assert_close(
        &matmul(&a32, &b32, ta, tb).unwrap().to_f64_vec(),
        &want,
        1e-5,
    );
}

/// Small integers as float64 (exact in both float dtypes and as integers).
fn small_ints(shape: &[usize], seed: u64) -> Tensor {
    let v: Vec<f64> = rand64(shape, seed)
        .to_f64_vec()
        .iter()
        .map(|x| (x * 4.0).round())
        .collect();
    Tensor::from_vec(v, shape).unwrap()
}

#[test]
fn shared_operand_against_a_batch_matches_a_triple_loop() {
    // Shapes before transposition; the batch comes from the batched operand, or both.
    let cases: &[(&[usize], &[usize])] = &[
        (&[4, 3], &[5, 3, 1]), // shared left, one column: the batch is the GEMM's columns
        (&[1, 3], &[5, 3, 4]), // shared left, one row
        (&[4, 3], &[5, 3, 2]), // shared left: one GEMM per column
        (&[4, 3], &[2, 3, 3, 2]), // two batch axes
        (&[1, 4, 3], &[6, 3, 2]), // left broadcast along the batch
        (&[5, 1, 3], &[3, 2]), // shared right, one row: the batch is the GEMM's rows
        (&[5, 4, 3], &[3, 2]), // shared right
        (&[2, 3, 4, 3], &[1, 3, 2]), // shared right, broadcast
        (&[7, 1], &[3, 1, 4]), // k = 1
    ];
    for (seed, &(sa, sb)) in cases.iter().enumerate() {
        for (ta, tb) in TRANSPOSES {
            let seed = 10 * seed as u64;
            let a = rand64(&maybe_t(sa, ta), seed + 1);
            let b = rand64(&maybe_t(sb, tb), seed + 2);
            matches_triple_loop(&a, &b, ta, tb);
            let (ai, bi) = (
                small_ints(a.shape(), seed + 3),
                small_ints(b.shape(), seed + 4),
            );
            let (want, _) = naive_matmul(
                &ai.to_f64_vec(),
                ai.shape(),
                &bi.to_f64_vec(),
                bi.shape(),
                ta,
                tb,
            );
            for dtype in [DType::I32, DType::I64] {
                let (x, y) = (
                    ops::cast(&ai, dtype).unwrap(),
                    ops::cast(&bi, dtype).unwrap(),
                );
                let got = matmul(&x, &y, ta, tb).unwrap();
                assert_eq!(got.dtype(), dtype);
                assert_eq!(got.to_f64_vec(), want, "{sa:?} {sb:?} {ta} {tb} {dtype:?}");
            }
        }
    }
}

#[test]
fn shared_operand_against_a_batch_of_any_layout() {
    // A batched operand whose batch matrices are not one stride apart (two batch axes laid out
    // in the other order), or are laid out column by column: the kernel must read them where
    // they are, whichever path it takes.
    let base = rand64(&[3, 2, 4, 5], 1).to_f64_vec();
    let swapped = ArrayD::from_shape_vec(IxDyn(&[3, 2, 4, 5]), base)
        .unwrap()
        .permuted_axes(IxDyn(&[1, 0, 2, 3]));
    let swapped = Tensor::new(Data::from(swapped)); // [2, 3, 4, 5]
    let column_major =
        ArrayD::from_shape_vec(IxDyn(&[5, 4, 6]), rand64(&[5, 4, 6], 2).to_f64_vec())
            .unwrap()
            .reversed_axes();
    let column_major = Tensor::new(Data::from(column_major)); // [6, 4, 5]
    let mut reversed =
        ArrayD::from_shape_vec(IxDyn(&[6, 4, 1]), rand64(&[6, 4, 1], 3).to_f64_vec()).unwrap();
    reversed.invert_axis(ndarray::Axis(0));
    let reversed = Tensor::new(Data::from(reversed)); // [6, 4, 1], batch backwards
    for batched in [&swapped, &column_major, &reversed] {
        let s = batched.shape().to_vec();
        let r = s.len();
        for (ta, tb) in TRANSPOSES {
            // Shared left: [m, k] against the batch read as [.., k, n].
            let (k, n) = if tb {
                (s[r - 1], s[r - 2])
            } else {
                (s[r - 2], s[r - 1])
            };
            let left = rand64(&maybe_t(&[3, k], ta), 4);
            matches_triple_loop(&left, batched, ta, tb);
            // Shared right: the batch read as [.., m, k] against [k, n].
            let k = if ta { s[r - 2] } else { s[r - 1] };
            let right = rand64(&maybe_t(&[k, n], tb), 5);
            matches_triple_loop(batched, &right, ta, tb);
        }
    }
}

#[test]
fn solve_factorises_a_broadcast_matrix_once_with_the_same_values() {
    // A matrix batch broadcast against the right-hand sides (each matrix factorised once and
    // reused) gives what the explicitly broadcast systems give.
    let cases: &[(&[usize], &[usize])] = &[
        (&[], &[4]),
        (&[2, 1], &[3]),
        (&[1, 3], &[2, 1]),
        (&[3], &[]),
    ];
    for (seed, &(ba, bb)) in cases.iter().enumerate() {
        let seed = 10 * seed as u64;
        let a = well_conditioned(ba, 3, seed + 1);
        let rhs = rand64(&[bb, &[3, 2]].concat(), seed + 2);
        let batch = ops::broadcast_shapes("test", ba, bb).unwrap();
        let full_a = ops::broadcast_to(&a, &[&batch[..], &[3, 3]].concat()).unwrap();
        let full_rhs = ops::broadcast_to(&rhs, &[&batch[..], &[3, 2]].concat()).unwrap();
        for adjoint in [false, true] {
            let got = solve_adjoint(&a, &rhs, adjoint).unwrap();
            let want = solve_adjoint(&full_a, &full_rhs, adjoint).unwrap();
            assert_eq!(got.shape(), want.shape());
            assert_close(&got.to_f64_vec(), &want.to_f64_vec(), 1e-12);
        }
    }
}
