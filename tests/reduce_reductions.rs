//! Reductions (src/ops/reduce.rs): sum, mean, max, min, prod, logsumexp, norm, argmax and
//! argmin. Values against hand computation, gradients against finite differences (first and
//! second order), TensorFlow's conventions, and the axis errors.
use rustape::ops::{
    argmax, argmin, clip_by_norm, log_softmax, multiply, norm, reduce_logsumexp, reduce_max,
    reduce_mean, reduce_min, reduce_prod, reduce_sum, softmax, NormOrd,
};
use rustape::testing::{gradcheck, Tolerance};
use rustape::{DType, ErrorKind, Tape, Tensor, Unconnected};

mod support;
use support::reduce::*;
use support::*;

// ---------------------------------------------------------------- shapes and values

#[test]
fn reductions_give_the_shapes_of_tensorflow() {
    let x = input();
    type Case<'a> = (Option<&'a [isize]>, &'a [usize], &'a [usize]);
    let cases: [Case; 6] = [
        (None, &[], &[1, 1, 1]),
        (Some(&[1]), &[2, 4], &[2, 1, 4]),
        (Some(&[-1]), &[2, 3], &[2, 3, 1]),
        (Some(&[0, 2]), &[3], &[1, 3, 1]),
        (Some(&[-3, -1]), &[3], &[1, 3, 1]),
        (Some(&[]), &[2, 3, 4], &[2, 3, 4]),
    ];
    let ops: [Op; 6] = [
        reduce_sum,
        reduce_mean,
        reduce_max,
        reduce_min,
        reduce_prod,
        reduce_logsumexp,
    ];
    for (i, op) in ops.iter().enumerate() {
        for (axes, plain, kept) in cases {
            assert_eq!(
                op(&x, axes, false).unwrap().shape(),
                plain,
                "op {i}, axes {axes:?}"
            );
            assert_eq!(
                op(&x, axes, true).unwrap().shape(),
                kept,
                "op {i}, axes {axes:?}, keepdims"
            );
        }
    }
}

#[test]
fn sum_mean_max_min_prod_values() {
    let x = m23();
    assert_eq!(values(&reduce_sum(&x, None, false).unwrap()), vec![21.0]);
    assert_eq!(
        values(&reduce_sum(&x, Some(&[0]), false).unwrap()),
        vec![5.0, 7.0, 9.0]
    );
    assert_eq!(values(&reduce_mean(&x, None, false).unwrap()), vec![3.5]);
    assert_eq!(
        values(&reduce_mean(&x, Some(&[0]), false).unwrap()),
        vec![2.5, 3.5, 4.5]
    );
    assert_eq!(
        values(&reduce_mean(&x, Some(&[-1]), true).unwrap()),
        vec![2.0, 5.0]
    );
    assert_eq!(values(&reduce_max(&x, None, false).unwrap()), vec![6.0]);
    assert_eq!(
        values(&reduce_max(&x, Some(&[1]), false).unwrap()),
        vec![3.0, 6.0]
    );
    assert_eq!(
        values(&reduce_min(&x, Some(&[0]), false).unwrap()),
        vec![1.0, 2.0, 3.0]
    );
    assert_eq!(
        values(&reduce_min(&x, Some(&[0, 1]), false).unwrap()),
        vec![1.0]
    );
    assert_eq!(values(&reduce_prod(&x, None, false).unwrap()), vec![720.0]);
    assert_eq!(
        values(&reduce_prod(&x, Some(&[1]), false).unwrap()),
        vec![6.0, 120.0]
    );
    assert_eq!(
        values(&reduce_prod(&x, Some(&[-2]), true).unwrap()),
        vec![4.0, 10.0, 18.0]
    );
    // An axis named twice is an error (as in TensorFlow); an empty axis list reduces nothing.
    let err = reduce_sum(&x, Some(&[1, -1]), false).unwrap_err();
    assert_eq!(
        (err.kind, err.op.as_str()),
        (ErrorKind::Value, "reduce_sum")
    );
    assert_eq!(
        values(&reduce_max(&x, Some(&[]), false).unwrap()),
        values(&x)
    );
}

#[test]
fn reductions_keep_the_dtype_and_integer_mean_truncates_like_tensorflow() {
    let i = Tensor::from_vec(vec![1i32, 2, -1, -2, 7, 0], &[3, 2]).unwrap();
    let mean = reduce_mean(&i, Some(&[1]), false).unwrap();
    assert_eq!(mean.dtype(), DType::I32);
    assert_eq!(values(&mean), vec![1.0, -1.0, 3.0]);
    assert_eq!(values(&reduce_mean(&i, None, false).unwrap()), vec![1.0]); // 7 / 6
    let l = Tensor::from_vec(vec![3i64, -5, 2], &[3]).unwrap();
    assert_eq!(reduce_max(&l, None, false).unwrap().dtype(), DType::I64);
    assert_eq!(values(&reduce_max(&l, None, false).unwrap()), vec![3.0]);
    assert_eq!(values(&reduce_min(&l, None, false).unwrap()), vec![-5.0]);
    assert_eq!(values(&reduce_prod(&l, None, false).unwrap()), vec![-30.0]);
    assert_eq!(values(&reduce_sum(&l, None, false).unwrap()), vec![0.0]);
    // Integer overflow wraps as in TensorFlow instead of panicking.
    let big = Tensor::from_vec(vec![i32::MAX, 1], &[2]).unwrap();
    assert_eq!(
        values(&reduce_sum(&big, None, false).unwrap()),
        vec![i32::MIN as f64]
    );
    assert_eq!(
        values(&reduce_prod(&big, None, false).unwrap()),
        vec![i32::MAX as f64]
    );
    let x32 = t32(&[1.0, 2.0], &[2]);
    assert_eq!(reduce_mean(&x32, None, false).unwrap().dtype(), DType::F32);
    // Bool is not numeric.
    let b = Tensor::from_vec(vec![true, false], &[2]).unwrap();
    assert_eq!(
        reduce_sum(&b, None, false).unwrap_err().kind,
        ErrorKind::DType
    );
    assert_eq!(reduce_max(&b, None, false).unwrap_err().op, "reduce_max");
}

#[test]
fn empty_reductions_follow_tensorflow() {
    let e = t64(&[], &[0, 3]);
    assert_eq!(
        values(&reduce_sum(&e, Some(&[0]), false).unwrap()),
        vec![0.0; 3]
    );
    assert_eq!(
        values(&reduce_prod(&e, Some(&[0]), false).unwrap()),
        vec![1.0; 3]
    );
    assert_eq!(
        values(&reduce_max(&e, Some(&[0]), false).unwrap()),
        vec![f64::NEG_INFINITY; 3]
    );
    assert_eq!(
        values(&reduce_min(&e, Some(&[0]), false).unwrap()),
        vec![f64::INFINITY; 3]
    );
    assert!(values(&reduce_mean(&e, Some(&[0]), false).unwrap())
        .iter()
        .all(|v| v.is_nan()));
    assert_eq!(
        values(&reduce_logsumexp(&e, Some(&[0]), false).unwrap()),
        vec![f64::NEG_INFINITY; 3]
    );
    assert_eq!(reduce_sum(&e, Some(&[1]), false).unwrap().shape(), &[0]);
    let ei = Tensor::from_vec(Vec::<i32>::new(), &[0]).unwrap();
    assert_eq!(
        values(&reduce_max(&ei, None, false).unwrap()),
        vec![i32::MIN as f64]
    );
    assert_eq!(values(&reduce_mean(&ei, None, false).unwrap()), vec![0.0]);
}

#[test]
fn max_and_min_propagate_nan() {
    let x = t64(&[1.0, f64::NAN, 3.0, 2.0, 0.0, -1.0], &[2, 3]);
    let max = values(&reduce_max(&x, Some(&[1]), false).unwrap());
    assert!(max[0].is_nan());
    assert_eq!(max[1], 2.0);
    let min = values(&reduce_min(&x, Some(&[1]), false).unwrap());
    assert!(min[0].is_nan());
    assert_eq!(min[1], -1.0);
}

// ---------------------------------------------------------------- gradients of the reductions

#[test]
fn gradcheck_sum_mean_max_min_prod_logsumexp() {
    let x = input();
    let ops: [(&str, Op); 6] = [
        ("reduce_sum", reduce_sum),
        ("reduce_mean", reduce_mean),
        ("reduce_max", reduce_max),
        ("reduce_min", reduce_min),
        ("reduce_prod", reduce_prod),
        ("reduce_logsumexp", reduce_logsumexp),
    ];
    for (name, op) in ops {
        eprintln!("gradcheck {name}");
        gradcheck_reduction(op, &x);
    }
}

#[test]
fn mean_gradient_is_one_over_the_count() {
    let x = m23();
    let g = gradient(&|x| reduce_mean(x, Some(&[1]), false), &x).unwrap();
    assert_close_labelled(&values(&g), &[1.0 / 3.0; 6], 1e-15, "d mean");
    let g = gradient(&|x| reduce_mean(x, None, true), &x).unwrap();
    assert_close_labelled(&values(&g), &[1.0 / 6.0; 6], 1e-15, "d mean all");
}

#[test]
fn max_and_min_split_the_gradient_between_ties_like_tensorflow() {
    // tf.reduce_max([1, 3, 3, 2]): gradient [0, 0.5, 0.5, 0].
    let x = t64(&[1.0, 3.0, 3.0, 2.0], &[4]);
    assert_eq!(
        values(&gradient(&|x| reduce_max(x, None, false), &x).unwrap()),
        vec![0.0, 0.5, 0.5, 0.0]
    );
    // Three-way tie for the minimum, per row, with an upstream gradient of 3 on the second row.
    let x = t64(&[5.0, 5.0, 5.0, 4.0, 1.0, 1.0, 2.0, 9.0], &[2, 4]);
    let w = t64(&[1.0, 3.0], &[2]);
    let g = gradient(&|x| multiply(&reduce_min(x, Some(&[1]), false)?, &w), &x).unwrap();
    assert_eq!(values(&g), vec![0.0, 0.0, 0.0, 1.0, 1.5, 1.5, 0.0, 0.0]);
    let g = gradient(&|x| reduce_max(x, Some(&[1]), true), &x).unwrap();
    assert_close_labelled(
        &values(&g),
        &[1.0 / 3.0, 1.0 / 3.0, 1.0 / 3.0, 0.0, 0.0, 0.0, 0.0, 1.0],
        1e-15,
        "ties",
    );
    // Along axis 0 with keepdims, ties across rows.
    let x = t64(&[2.0, 7.0, 2.0, 1.0], &[2, 2]);
    let g = gradient(&|x| reduce_max(x, Some(&[0]), true), &x).unwrap();
    assert_eq!(values(&g), vec![0.5, 1.0, 0.5, 0.0]);
    // Second derivatives vanish (piecewise linear), ties included.
    let h = hessian(
        &|x| reduce_max(x, None, false),
        &t64(&[1.0, 3.0, 3.0], &[3]),
    );
    assert_eq!(h, vec![0.0; 9]);
}

#[test]
fn prod_gradient_without_zeros_is_y_over_x() {
    let x = t64(&[2.0, 3.0, 4.0], &[3]);
    let g = gradient(&|x| reduce_prod(x, None, false), &x).unwrap();
    assert_close_labelled(&values(&g), &[12.0, 8.0, 6.0], 1e-15, "d prod");
    // Hessian: H_ij = prod of the elements other than i and j; zero diagonal.
    let h = hessian(&|x| reduce_prod(x, None, false), &x);
    assert_close_labelled(
        &h,
        &[0.0, 4.0, 3.0, 4.0, 0.0, 2.0, 3.0, 2.0, 0.0],
        1e-14,
        "hessian of prod",
    );
}

#[test]
fn prod_gradient_with_one_zero() {
    let x = t64(&[2.0, 0.0, 3.0], &[3]);
    let g = gradient(&|x| reduce_prod(x, None, false), &x).unwrap();
    assert_eq!(values(&g), vec![0.0, 6.0, 0.0]);
    let h = hessian(&|x| reduce_prod(x, None, false), &x);
    assert_eq!(h, vec![0.0, 3.0, 0.0, 3.0, 0.0, 2.0, 0.0, 2.0, 0.0]);
    // Negative zero is a zero too.
    let x = t64(&[2.0, -0.0, 3.0], &[3]);
    assert_eq!(
        values(&gradient(&|x| reduce_prod(x, None, false), &x).unwrap()),
        vec![-0.0, 6.0, 0.0]
    );
}

#[test]
fn prod_gradient_with_two_zeros() {
    let x = t64(&[0.0, 2.0, 0.0, 3.0], &[4]);
    let f = |x: &Tensor| reduce_prod(x, None, false);
    let g = gradient(&f, &x).unwrap();
    assert_eq!(values(&g), vec![0.0; 4]);
    // Only the pair of zeros has a nonzero mixed derivative: 2 * 3.
    let mut expected = vec![0.0; 16];
    expected[2] = 6.0; // (0, 2)
    expected[8] = 6.0; // (2, 0)
    assert_eq!(hessian(&f, &x), expected);
    // Third order: d3/dx0 dx2 dxk = the product of the elements other than 0, 2, k.
    let e0 = one_hot(4, 0, &[4]);
    let e2 = one_hot(4, 2, &[4]);
    let g1 = |x: &Tensor| reduce_sum(&multiply(&gradient(&f, x)?, &e0)?, None, false);
    let g2 = |x: &Tensor| reduce_sum(&multiply(&gradient(&g1, x)?, &e2)?, None, false);
    assert_eq!(
        values(&gradient(&g2, &x).unwrap()),
        vec![0.0, 3.0, 0.0, 2.0]
    );
}

#[test]
fn prod_gradient_with_zeros_in_some_groups_only() {
    // Rows: one zero, no zero, two zeros, three zeros.
    #[rustfmt::skip]
    let x = t64(&[
        1.5, 0.0, -2.0,
        0.5, 3.0, 2.0,
        0.0, 4.0, 0.0,
        0.0, 0.0, 0.0,
    ], &[4, 3]);
    let g = gradient(&|x| reduce_prod(x, Some(&[1]), false), &x).unwrap();
    assert_eq!(
        values(&g),
        vec![0.0, -3.0, 0.0, 6.0, 1.0, 1.5, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0]
    );
    let g = gradient(&|x| reduce_prod(x, Some(&[0]), true), &x).unwrap();
    // Columns: [1.5, .5, 0, 0], [0, 3, 4, 0], [-2, 2, 0, 0]: each has at least two zeros.
    assert_eq!(values(&g), vec![0.0; 12]);
    // Finite differences of a multilinear product are exact, so gradcheck holds at the zeros
    // too, to second order, for every axis choice.
    for axes in [
        None,
        Some(&[1isize][..]),
        Some(&[-2][..]),
        Some(&[0, 1][..]),
    ] {
        for keepdims in [false, true] {
            let f = |xs: &[Tensor]| reduce_prod(&xs[0], axes, keepdims);
            gradcheck(&f, std::slice::from_ref(&x), true, Tolerance::default())
                .unwrap_or_else(|e| panic!("axes {axes:?}, keepdims {keepdims}: {e}"));
        }
    }
}

#[test]
fn prod_third_order_with_three_zeros() {
    // prod(x) with x = [0, 0, 0, 5]: d3 / dx0 dx1 dx2 = 5, and that is the only nonzero one
    // among the mixed third derivatives of the three zeros.
    let x = t64(&[0.0, 0.0, 0.0, 5.0], &[4]);
    let f = |x: &Tensor| reduce_prod(x, None, false);
    let e0 = one_hot(4, 0, &[4]);
    let e1 = one_hot(4, 1, &[4]);
    let g1 = |x: &Tensor| reduce_sum(&multiply(&gradient(&f, x)?, &e0)?, None, false);
    let g2 = |x: &Tensor| reduce_sum(&multiply(&gradient(&g1, x)?, &e1)?, None, false);
    assert_eq!(
        values(&gradient(&g2, &x).unwrap()),
        vec![0.0, 0.0, 5.0, 0.0]
    );
    assert_eq!(values(&gradient(&f, &x).unwrap()), vec![0.0; 4]);
    assert_eq!(hessian(&f, &x), vec![0.0; 16]);
}

#[test]
fn logsumexp_values_and_stability() {
    let x = t64(&[1.0, 2.0, 3.0, 0.0, 0.0, 0.0], &[2, 3]);
    let expected0 = (1f64.exp() + 2f64.exp() + 3f64.exp()).ln();
    let expected1 = 3f64.ln();
    assert_close_labelled(
        &values(&reduce_logsumexp(&x, Some(&[1]), false).unwrap()),
        &[expected0, expected1],
        1e-15,
        "lse",
    );
    let all = (1f64.exp() + 2f64.exp() + 3f64.exp() + 3.0).ln();
    assert_close_labelled(
        &values(&reduce_logsumexp(&x, None, false).unwrap()),
        &[all],
        1e-15,
        "lse all",
    );
    // Large and very negative values do not overflow or underflow.
    let big = t64(&[1000.0, 1000.0, -1000.0, -1000.0], &[2, 2]);
    let lse = values(&reduce_logsumexp(&big, Some(&[-1]), true).unwrap());
    assert_close_labelled(
        &lse,
        &[1000.0 + 2f64.ln(), -1000.0 + 2f64.ln()],
        1e-15,
        "lse stable",
    );
    let g = gradient(&|x| reduce_logsumexp(x, Some(&[1]), false), &big).unwrap();
    assert_close_labelled(&values(&g), &[0.5; 4], 1e-15, "lse grad");
    // Infinite entries: the shift is taken as 0 (TensorFlow).
    let inf = t64(
        &[f64::NEG_INFINITY, f64::NEG_INFINITY, f64::INFINITY, 0.0],
        &[2, 2],
    );
    assert_eq!(
        values(&reduce_logsumexp(&inf, Some(&[1]), false).unwrap()),
        vec![f64::NEG_INFINITY, f64::INFINITY]
    );
    // Integers are rejected by name.
    let i = Tensor::from_vec(vec![1i32, 2], &[2]).unwrap();
    let err = reduce_logsumexp(&i, None, false).unwrap_err();
    assert_eq!(
        (err.kind, err.op.as_str()),
        (ErrorKind::DType, "reduce_logsumexp")
    );
}

#[test]
fn logsumexp_over_any_axes_matches_the_sum_of_exps() {
    // Axes that are not the trailing ones (the lanes are gathered into rows first) and an
    // empty reduction (log 0).
    let x = input();
    let xs = values(&x);
    let lse = values(&reduce_logsumexp(&x, Some(&[0, 2]), false).unwrap());
    let expected: Vec<f64> = (0..3)
        .map(|j| {
            let mut sum = 0.0;
            for i in 0..2 {
                for k in 0..4 {
                    sum += xs[i * 12 + j * 4 + k].exp();
                }
            }
            sum.ln()
        })
        .collect();
    assert_close_labelled(&lse, &expected, 1e-15, "lse over axes 0 and 2");
    let empty = Tensor::from_vec(Vec::<f64>::new(), &[2, 0]).unwrap();
    assert_eq!(
        values(&reduce_logsumexp(&empty, Some(&[1]), false).unwrap()),
        vec![f64::NEG_INFINITY; 2]
    );
}

#[test]
fn logsumexp_rows_split_across_threads_equal_each_row_alone() {
    // [1120, 1000] float32 runs as row blocks on the engine's threads; every row's value is
    // the one it has alone, bit for bit.
    let (rows, width) = (1120, 1000);
    let data: Vec<f32> = (0..rows * width)
        .map(|i| ((i * 7919 % 1013) as f32 / 101.0 - 5.0) * if i % 3 == 0 { 30.0 } else { 1.0 })
        .collect();
    let x = Tensor::from_vec(data.clone(), &[rows, width]).unwrap();
    // float32 -> float64 is exact, so equal float64 values are equal float32 bits.
    let all = values(&reduce_logsumexp(&x, Some(&[1]), false).unwrap());
    for r in (0..rows).step_by(37) {
        let row = Tensor::from_vec(data[r * width..(r + 1) * width].to_vec(), &[width]).unwrap();
        let alone = values(&reduce_logsumexp(&row, None, false).unwrap());
        assert!(all[r].is_finite());
        assert_eq!(alone[0], all[r], "row {r}");
    }
    // Down the columns (axis 0: vectorised across columns, split by column groups), each
    // against a lone column and a float64 sum of exps.
    let down = values(&reduce_logsumexp(&x, Some(&[0]), false).unwrap());
    for c in (0..width).step_by(41) {
        let column: Vec<f32> = (0..rows).map(|r| data[r * width + c]).collect();
        let exact = {
            let max = column
                .iter()
                .fold(f64::NEG_INFINITY, |m, &v| m.max(v as f64));
            column
                .iter()
                .map(|&v| (v as f64 - max).exp())
                .sum::<f64>()
                .ln()
                + max
        };
        assert!(
            (down[c] - exact).abs() <= 1e-5 * exact.abs().max(1.0),
            "column {c}"
        );
        let column = Tensor::from_vec(column, &[rows, 1]).unwrap();
        let alone = values(&reduce_logsumexp(&column, Some(&[0]), false).unwrap());
        assert!(
            (alone[0] - down[c]).abs() <= 1e-5 * exact.abs().max(1.0),
            "column {c}"
        );
    }
}

#[test]
fn logsumexp_gradient_is_softmax() {
    let x = input();
    let g = gradient(&|x| reduce_logsumexp(x, Some(&[-1]), false), &x).unwrap();
    assert_close_labelled(
        &values(&g),
        &values(&softmax(&x, -1).unwrap()),
        1e-14,
        "d lse = softmax",
    );
}

// ---------------------------------------------------------------- norm

#[test]
fn vector_norms() {
    let v = t64(&[3.0, -4.0], &[2]);
    assert_eq!(
        values(&norm(&v, NormOrd::Euclidean, None, false).unwrap()),
        vec![5.0]
    );
    assert_eq!(
        values(&norm(&v, NormOrd::P(2.0), None, false).unwrap()),
        vec![5.0]
    );
    assert_eq!(
        values(&norm(&v, NormOrd::One, None, false).unwrap()),
        vec![7.0]
    );
    assert_eq!(
        values(&norm(&v, NormOrd::P(1.0), None, false).unwrap()),
        vec![7.0]
    );
    assert_eq!(
        values(&norm(&v, NormOrd::Inf, None, false).unwrap()),
        vec![4.0]
    );
    assert_eq!(
        values(&norm(&v, NormOrd::P(f64::INFINITY), None, false).unwrap()),
        vec![4.0]
    );
    assert_close_labelled(
        &values(&norm(&v, NormOrd::P(3.0), None, false).unwrap()),
        &[91f64.powf(1.0 / 3.0)],
        1e-15,
        "p=3",
    );
    assert_close_labelled(
        &values(&norm(&v, NormOrd::P(0.5), None, false).unwrap()),
        &[(3f64.sqrt() + 2.0).powi(2)],
        1e-14,
        "p=.5",
    );
    // axes None: the whole tensor is one vector (also a matrix), keepdims keeps the rank.
    let m = t64(&[1.0, -2.0, 3.0, 4.0], &[2, 2]);
    let n = norm(&m, NormOrd::Euclidean, None, true).unwrap();
    assert_eq!(n.shape(), &[1, 1]);
    assert_close_labelled(&values(&n), &[30f64.sqrt()], 1e-15, "fro");
    // One axis: vector norms along it.
    assert_close_labelled(
        &values(&norm(&m, NormOrd::Euclidean, Some(&[1]), false).unwrap()),
        &[5f64.sqrt(), 5.0],
        1e-15,
        "rows",
    );
    assert_eq!(
        values(&norm(&m, NormOrd::One, Some(&[-2]), false).unwrap()),
        vec![4.0, 6.0]
    );
    let inf = norm(&m, NormOrd::Inf, Some(&[0]), true).unwrap();
    assert_eq!(
        (inf.shape(), values(&inf)),
        (&[1usize, 2][..], vec![3.0, 4.0])
    );
}

#[test]
fn matrix_norms_over_two_axes() {
    // [[1, -2], [3, 4]]: column sums 4, 6; row sums 3, 7; Frobenius sqrt(30).
    let m = t64(&[1.0, -2.0, 3.0, 4.0], &[2, 2]);
    assert_eq!(
        values(&norm(&m, NormOrd::One, Some(&[0, 1]), false).unwrap()),
        vec![6.0]
    );
    assert_eq!(
        values(&norm(&m, NormOrd::Inf, Some(&[0, 1]), false).unwrap()),
        vec![7.0]
    );
    // Swapping the axes transposes the matrix.
    assert_eq!(
        values(&norm(&m, NormOrd::One, Some(&[1, 0]), false).unwrap()),
        vec![7.0]
    );
    assert_eq!(
        values(&norm(&m, NormOrd::Inf, Some(&[-1, -2]), false).unwrap()),
        vec![6.0]
    );
    assert_close_labelled(
        &values(&norm(&m, NormOrd::Euclidean, Some(&[0, 1]), false).unwrap()),
        &[30f64.sqrt()],
        1e-15,
        "fro",
    );
    // Batched, keepdims.
    let b = t64(&[1.0, -2.0, 3.0, 4.0, 0.0, 1.0, 1.0, 0.0], &[2, 2, 2]);
    let n = norm(&b, NormOrd::One, Some(&[1, 2]), true).unwrap();
    assert_eq!(
        (n.shape(), values(&n)),
        (&[2usize, 1, 1][..], vec![6.0, 1.0])
    );
    let err = norm(&m, NormOrd::P(3.0), Some(&[0, 1]), false).unwrap_err();
    assert_eq!((err.kind, err.op.as_str()), (ErrorKind::Value, "norm"));
    let err = norm(&m, NormOrd::One, Some(&[1, -1]), false).unwrap_err();
    assert_eq!((err.kind, err.op.as_str()), (ErrorKind::Value, "norm"));
    let err = norm(&b, NormOrd::One, Some(&[0, 1, 2]), false).unwrap_err();
    assert_eq!((err.kind, err.op.as_str()), (ErrorKind::Value, "norm"));
    for p in [0.0, -1.0, f64::NAN] {
        assert_eq!(
            norm(&m, NormOrd::P(p), None, false).unwrap_err().kind,
            ErrorKind::Value,
            "p = {p}"
        );
    }
}

#[test]
fn gradcheck_norm() {
    let x = input(); // positive and distinct: every norm is differentiable here
    let signed = multiply(&x, &t64(&[1.0, -1.0, 1.0, -1.0], &[4])).unwrap();
    for ord in [
        NormOrd::Euclidean,
        NormOrd::One,
        NormOrd::Inf,
        NormOrd::P(3.0),
        NormOrd::P(1.5),
    ] {
        for axes in [
            None,
            Some(&[1isize][..]),
            Some(&[-1][..]),
            Some(&[0, 2][..]),
            Some(&[-1, -3][..]),
        ] {
            if matches!(ord, NormOrd::P(_)) && axes.is_some_and(|a| a.len() == 2) {
                continue;
            }
            for keepdims in [false, true] {
                let f = |xs: &[Tensor]| norm(&xs[0], ord, axes, keepdims);
                gradcheck(
                    &f,
                    std::slice::from_ref(&signed),
                    true,
                    Tolerance::default(),
                )
                .unwrap_or_else(|e| panic!("{ord:?}, axes {axes:?}, keepdims {keepdims}: {e}"));
            }
        }
    }
    // The Euclidean gradient is x / |x|.
    let v = t64(&[3.0, -4.0], &[2]);
    let g = gradient(&|x| norm(x, NormOrd::Euclidean, None, false), &v).unwrap();
    assert_close_labelled(&values(&g), &[0.6, -0.8], 1e-15, "d |x|");
}

#[test]
fn integer_norms_follow_tensorflow() {
    let i = Tensor::from_vec(vec![3i32, -4], &[2]).unwrap();
    let one = norm(&i, NormOrd::One, None, false).unwrap();
    assert_eq!((one.dtype(), values(&one)), (DType::I32, vec![7.0]));
    assert_eq!(
        values(&norm(&i, NormOrd::Inf, None, false).unwrap()),
        vec![4.0]
    );
    let err = norm(&i, NormOrd::Euclidean, None, false).unwrap_err();
    assert_eq!((err.kind, err.op.as_str()), (ErrorKind::DType, "norm"));
}

// ---------------------------------------------------------------- argmax / argmin

#[test]
fn argmax_and_argmin() {
    let x = t64(&[1.0, 9.0, 9.0, 4.0, -2.0, 4.0], &[2, 3]);
    let a = argmax(&x, 1).unwrap();
    assert_eq!(a.dtype(), DType::I64);
    assert_eq!(a.shape(), &[2]);
    assert_eq!(values(&a), vec![1.0, 0.0]); // ties: the first index
    assert_eq!(values(&argmin(&x, -1).unwrap()), vec![0.0, 1.0]);
    assert_eq!(values(&argmax(&x, 0).unwrap()), vec![1.0, 0.0, 0.0]);
    assert_eq!(values(&argmin(&x, -2).unwrap()), vec![0.0, 1.0, 1.0]);
    let i = Tensor::from_vec(vec![3i32, 8, -1], &[3]).unwrap();
    assert_eq!(values(&argmax(&i, 0).unwrap()), vec![1.0]);
    assert_eq!(values(&argmin(&i, 0).unwrap()), vec![2.0]);
    // NaN is never chosen; a lane of NaN gives 0 (TensorFlow's rule).
    let nan = t64(&[1.0, f64::NAN, 5.0], &[3]);
    assert_eq!(values(&argmax(&nan, 0).unwrap()), vec![2.0]);
    assert_eq!(values(&argmin(&nan, 0).unwrap()), vec![0.0]);
    let nans = t64(&[f64::NAN, f64::NAN], &[2]);
    assert_eq!(values(&argmax(&nans, 0).unwrap()), vec![0.0]);
    let err = argmax(&t64(&[], &[2, 0]), 1).unwrap_err();
    assert_eq!((err.kind, err.op.as_str()), (ErrorKind::Value, "argmax"));
    // Not differentiable: no gradient flows.
    let tape = Tape::new(false, true);
    let y = {
        let _r = tape.enter().unwrap();
        tape.watch(&x);
        argmax(&x, 1).unwrap()
    };
    assert!(tape
        .gradient(&[y], &[(&x).into()], None, Unconnected::None)
        .unwrap()[0]
        .is_none());
}

// ---------------------------------------------------------------- errors

#[test]
fn out_of_range_axes_are_value_errors_naming_the_op_and_the_rank() {
    let x = m23();
    let ops: [(&str, Op); 6] = [
        ("reduce_sum", reduce_sum),
        ("reduce_mean", reduce_mean),
        ("reduce_max", reduce_max),
        ("reduce_min", reduce_min),
        ("reduce_prod", reduce_prod),
        ("reduce_logsumexp", reduce_logsumexp),
    ];
    for (name, op) in ops {
        assert_axis_error(op(&x, Some(&[2]), false), name, 2);
        assert_axis_error(op(&x, Some(&[0, -3]), true), name, 2);
    }
    assert_axis_error(norm(&x, NormOrd::Euclidean, Some(&[2]), false), "norm", 2);
    assert_axis_error(norm(&x, NormOrd::One, Some(&[0, -3]), false), "norm", 2);
    assert_axis_error(argmax(&x, 2), "argmax", 2);
    assert_axis_error(argmin(&x, -3), "argmin", 2);
    assert_axis_error(argmax(&s64(1.0), 0), "argmax", 0);
    assert_axis_error(softmax(&x, 2), "softmax", 2);
    assert_axis_error(log_softmax(&x, -3), "log_softmax", 2);
    assert_axis_error(softmax(&s64(1.0), -1), "softmax", 0);
    assert_axis_error(clip_by_norm(&x, &s64(1.0), Some(&[5])), "clip_by_norm", 2);
    assert_axis_error(reduce_sum(&s64(1.0), Some(&[0]), false), "reduce_sum", 0);
    // A scalar reduces over no axes.
    assert_eq!(
        values(&reduce_prod(&s64(3.0), None, false).unwrap()),
        vec![3.0]
    );
}
