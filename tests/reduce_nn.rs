//! nn ops (src/ops/nn.rs): softmax, log_softmax, clip_by_norm, moments, batch_normalization.
//! Values against hand computation, gradients against finite differences (first and second
//! order), float32 against float64 for every reduction and nn op, and the dtype errors.
use rustape::ops::{
    batch_normalization, cast, clip_by_norm, log_softmax, moments, multiply, norm,
    reduce_logsumexp, reduce_max, reduce_mean, reduce_min, reduce_prod, reduce_sum, softmax,
    NormOrd,
};
use rustape::testing::{gradcheck, pseudo_random, Tolerance};
use rustape::{DType, ErrorKind, Result, Tensor};

mod support;
use support::reduce::*;
use support::*;

// ---------------------------------------------------------------- softmax, log_softmax

#[test]
fn softmax_values_and_rows_sum_to_one() {
    let x = t64(&[1.0, 2.0, 3.0, 0.0, 0.0, 0.0], &[2, 3]);
    let z = 1f64.exp() + 2f64.exp() + 3f64.exp();
    let expected = [
        1f64.exp() / z,
        2f64.exp() / z,
        3f64.exp() / z,
        1.0 / 3.0,
        1.0 / 3.0,
        1.0 / 3.0,
    ];
    let s = softmax(&x, -1).unwrap();
    assert_close_labelled(&values(&s), &expected, 1e-15, "softmax");
    let ls = log_softmax(&x, 1).unwrap();
    assert_close_labelled(&values(&ls), &expected.map(f64::ln), 1e-15, "log_softmax");
    for axis in [0, 1, 2, -1] {
        let x = input();
        let s = softmax(&x, axis).unwrap();
        assert_eq!(s.shape(), x.shape());
        let sums = values(&reduce_sum(&s, Some(&[axis]), false).unwrap());
        assert_close_labelled(&sums, &vec![1.0; sums.len()], 1e-15, "rows sum to 1");
        let from_log = values(&log_softmax(&x, axis).unwrap())
            .into_iter()
            .map(f64::exp)
            .collect::<Vec<_>>();
        assert_close_labelled(&from_log, &values(&s), 1e-15, "exp(log_softmax) = softmax");
    }
    // Stable for large logits; log_softmax keeps precision where softmax underflows.
    let big = t64(&[1000.0, 1001.0, -1000.0], &[3]);
    let s = values(&softmax(&big, 0).unwrap());
    let e = 1f64.exp();
    assert_close_labelled(
        &s,
        &[1.0 / (1.0 + e), e / (1.0 + e), 0.0],
        1e-15,
        "big softmax",
    );
    let ls = values(&log_softmax(&big, 0).unwrap());
    let l = (-1f64).exp().ln_1p();
    assert_close_labelled(&ls, &[-1.0 - l, -l, -2001.0 - l], 1e-15, "big log_softmax");
    // float32 stays float32 and stable.
    let s32 = softmax(&t32(&[100.0, 100.0], &[2]), 0).unwrap();
    assert_eq!((s32.dtype(), values(&s32)), (DType::F32, vec![0.5, 0.5]));
}

#[test]
fn softmax_gradients() {
    let x = input();
    for axis in [0, 1, -1, -2] {
        let f = |xs: &[Tensor]| softmax(&xs[0], axis);
        gradcheck(&f, std::slice::from_ref(&x), true, Tolerance::default())
            .unwrap_or_else(|e| panic!("softmax axis {axis}: {e}"));
        let f = |xs: &[Tensor]| log_softmax(&xs[0], axis);
        gradcheck(&f, std::slice::from_ref(&x), true, Tolerance::default())
            .unwrap_or_else(|e| panic!("log_softmax axis {axis}: {e}"));
    }
    // Hand check: d softmax_0 / dx = s0 (e0 - s).
    let v = t64(&[0.5, -1.0, 2.0], &[3]);
    let s = values(&softmax(&v, 0).unwrap());
    let e0 = one_hot(3, 0, &[3]);
    let g = gradient(
        &|x| reduce_sum(&multiply(&softmax(x, 0)?, &e0)?, None, false),
        &v,
    )
    .unwrap();
    assert_close_labelled(
        &values(&g),
        &[s[0] * (1.0 - s[0]), -s[0] * s[1], -s[0] * s[2]],
        1e-15,
        "d softmax",
    );
    // The gradient of a sum of a softmax is zero; of a sum of log_softmax, 1 - n * s.
    let g = gradient(&|x| log_softmax(x, 0), &v).unwrap();
    assert_close_labelled(
        &values(&g),
        &[1.0 - 3.0 * s[0], 1.0 - 3.0 * s[1], 1.0 - 3.0 * s[2]],
        1e-15,
        "d log_softmax",
    );
}

// ---------------------------------------------------------------- clip_by_norm

#[test]
fn clip_by_norm_values() {
    // The TensorFlow guide's example, without the custom gradient around it.
    let clipped = clip_by_norm(&Tensor::scalar(4.0f32), &Tensor::scalar(0.5f32), None).unwrap();
    assert_eq!((clipped.dtype(), values(&clipped)), (DType::F32, vec![0.5]));
    let v = t64(&[3.0, 4.0], &[2]);
    assert_close_labelled(
        &values(&clip_by_norm(&v, &s64(2.0), None).unwrap()),
        &[1.2, 1.6],
        1e-15,
        "clipped",
    );
    assert_eq!(
        values(&clip_by_norm(&v, &s64(5.0), None).unwrap()),
        vec![3.0, 4.0]
    );
    assert_eq!(
        values(&clip_by_norm(&v, &s64(10.0), None).unwrap()),
        vec![3.0, 4.0]
    );
    // Per-row norms: [3, 4] is clipped to norm 1, [0.6, 0.8] has norm 1 already.
    let m = t64(&[3.0, 4.0, 0.6, 0.8, 0.0, 0.0], &[3, 2]);
    let c = clip_by_norm(&m, &s64(1.0), Some(&[1])).unwrap();
    assert_close_labelled(&values(&c), &[0.6, 0.8, 0.6, 0.8, 0.0, 0.0], 1e-15, "rows");
    // A zero tensor stays zero, and its gradient is finite (1 / clip_norm... = 1 here).
    let zero = t64(&[0.0, 0.0], &[2]);
    assert_eq!(
        values(&clip_by_norm(&zero, &s64(1.0), None).unwrap()),
        vec![0.0, 0.0]
    );
    let g = gradient(&|x| clip_by_norm(x, &s64(1.0), None), &zero).unwrap();
    assert_eq!(values(&g), vec![1.0, 1.0]);
    // Above the threshold the gradient is clip * (I / n - x x^T / n^3); summed over outputs.
    let g = gradient(&|x| clip_by_norm(x, &s64(2.0), None), &v).unwrap();
    let expected = [
        2.0 * (1.0 / 5.0 - 3.0 * 7.0 / 125.0),
        2.0 * (1.0 / 5.0 - 4.0 * 7.0 / 125.0),
    ];
    assert_close_labelled(&values(&g), &expected, 1e-15, "d clip");
    // Errors name the op.
    let err = clip_by_norm(&v, &Tensor::scalar(1.0f32), None).unwrap_err();
    assert_eq!(
        (err.kind, err.op.as_str()),
        (ErrorKind::DType, "clip_by_norm")
    );
    let err = clip_by_norm(&v, &t64(&[1.0, 2.0, 3.0], &[3]), None).unwrap_err();
    assert_eq!(
        (err.kind, err.op.as_str()),
        (ErrorKind::Shape, "clip_by_norm")
    );
}

#[test]
fn gradcheck_clip_by_norm() {
    let x = multiply(&input(), &s64(2.0)).unwrap(); // norms of rows ~ 2, of the whole ~ 10
    for axes in [
        None,
        Some(&[1isize][..]),
        Some(&[-1][..]),
        Some(&[0, 2][..]),
    ] {
        for clip in [0.5, 3.0, 100.0] {
            let f = |xs: &[Tensor]| clip_by_norm(&xs[0], &xs[1], axes);
            gradcheck(&f, &[x.clone(), s64(clip)], true, Tolerance::default())
                .unwrap_or_else(|e| panic!("axes {axes:?}, clip {clip}: {e}"));
        }
    }
}

// ---------------------------------------------------------------- moments, batch_normalization

#[test]
fn moments_values() {
    let x = m23();
    let (mean, var) = moments(&x, &[0], false).unwrap();
    assert_eq!(values(&mean), vec![2.5, 3.5, 4.5]);
    assert_eq!(values(&var), vec![2.25, 2.25, 2.25]);
    let (mean, var) = moments(&x, &[-1], true).unwrap();
    assert_eq!(
        (mean.shape(), var.shape()),
        (&[2usize, 1][..], &[2usize, 1][..])
    );
    assert_eq!(values(&mean), vec![2.0, 5.0]);
    assert_close_labelled(&values(&var), &[2.0 / 3.0, 2.0 / 3.0], 1e-15, "var");
    let (mean, var) = moments(&x, &[0, 1], false).unwrap();
    assert_eq!(mean.shape(), &[] as &[usize]);
    assert_eq!(values(&mean), vec![3.5]);
    assert_close_labelled(&values(&var), &[35.0 / 12.0], 1e-15, "var all");
    assert_axis_error(moments(&x, &[2], false).map(|m| m.0), "moments", 2);
}

#[test]
fn gradcheck_moments() {
    let x = input();
    for axes in [&[0isize][..], &[-1], &[0, 2], &[0, 1, 2]] {
        for keepdims in [false, true] {
            let mean = |xs: &[Tensor]| Ok(moments(&xs[0], axes, keepdims)?.0);
            let var = |xs: &[Tensor]| Ok(moments(&xs[0], axes, keepdims)?.1);
            gradcheck(&mean, std::slice::from_ref(&x), true, Tolerance::default()).unwrap();
            gradcheck(&var, std::slice::from_ref(&x), true, Tolerance::default())
                .unwrap_or_else(|e| panic!("variance, axes {axes:?}, keepdims {keepdims}: {e}"));
        }
    }
    // The Hessian of the variance of n values is 2/n (I - 1/n): exact, unlike TensorFlow's
    // stop_gradient(mean) formulation (which gives 2/n I).
    let v = t64(&[1.0, 4.0, 2.0], &[3]);
    let h = hessian(&|x| Ok(moments(x, &[0], false)?.1), &v);
    let d = 2.0 / 3.0 * (1.0 - 1.0 / 3.0);
    let o = -2.0 / 9.0;
    assert_close_labelled(
        &h,
        &[d, o, o, o, d, o, o, o, d],
        1e-14,
        "hessian of the variance",
    );
}

#[test]
fn batch_normalization_values_and_gradients() {
    let x = m23();
    let (mean, var) = moments(&x, &[0], false).unwrap();
    let offset = t64(&[0.0, 1.0, -1.0], &[3]);
    let scale = t64(&[1.0, 2.0, 0.5], &[3]);
    let eps = 1e-3;
    let y = batch_normalization(&x, &mean, &var, Some(&offset), Some(&scale), eps).unwrap();
    let sd = (2.25f64 + eps).sqrt();
    let expected: Vec<f64> = (0..6)
        .map(|i| {
            let (xv, j) = (values(&x)[i], i % 3);
            (xv - [2.5, 3.5, 4.5][j]) * [1.0, 2.0, 0.5][j] / sd + [0.0, 1.0, -1.0][j]
        })
        .collect();
    assert_close_labelled(&values(&y), &expected, 1e-14, "batch_normalization");
    let plain = batch_normalization(&x, &mean, &var, None, None, 0.0).unwrap();
    assert_close_labelled(
        &values(&plain),
        &[-1.0, -1.0, -1.0, 1.0, 1.0, 1.0],
        1e-15,
        "no offset, no scale",
    );
    // Gradients with respect to every input, first and second order.
    let f = |xs: &[Tensor]| {
        batch_normalization(&xs[0], &xs[1], &xs[2], Some(&xs[3]), Some(&xs[4]), eps)
    };
    gradcheck(
        &f,
        &[
            input(),
            pseudo_random(&[4], 2),
            pseudo_random(&[4], 3),
            pseudo_random(&[4], 4),
            pseudo_random(&[1, 4], 5),
        ],
        true,
        Tolerance::default(),
    )
    .unwrap();
    // Training-mode composite: normalise by the batch's own moments.
    let g = |xs: &[Tensor]| {
        let (m, v) = moments(&xs[0], &[0], true)?;
        batch_normalization(&xs[0], &m, &v, Some(&xs[1]), Some(&xs[2]), eps)
    };
    gradcheck(
        &g,
        &[
            pseudo_random(&[5, 3], 8),
            pseudo_random(&[3], 9),
            pseudo_random(&[3], 10),
        ],
        true,
        Tolerance::default(),
    )
    .unwrap();
    let err = batch_normalization(&x, &mean, &Tensor::scalar(1.0f32), None, None, eps).unwrap_err();
    assert_eq!(
        (err.kind, err.op.as_str()),
        (ErrorKind::DType, "batch_normalization")
    );
    let err = batch_normalization(&x, &t64(&[1.0, 2.0], &[2]), &var, None, None, eps).unwrap_err();
    assert_eq!(
        (err.kind, err.op.as_str()),
        (ErrorKind::Shape, "batch_normalization")
    );
}

// ---------------------------------------------------------------- float32 against float64

#[test]
fn float32_matches_float64() {
    let x64 = input();
    let x32 = cast(&x64, DType::F32).unwrap();
    type F = Box<dyn Fn(&Tensor) -> Result<Tensor>>;
    let clip = |x: &Tensor| clip_by_norm(x, &cast(&s64(1.5), x.dtype())?, Some(&[-1]));
    let fs: Vec<(&str, F)> = vec![
        (
            "reduce_sum",
            Box::new(|x: &Tensor| reduce_sum(x, Some(&[1]), false)),
        ),
        (
            "reduce_mean",
            Box::new(|x: &Tensor| reduce_mean(x, Some(&[0, 2]), true)),
        ),
        (
            "reduce_max",
            Box::new(|x: &Tensor| reduce_max(x, Some(&[-1]), false)),
        ),
        (
            "reduce_min",
            Box::new(|x: &Tensor| reduce_min(x, None, false)),
        ),
        (
            "reduce_prod",
            Box::new(|x: &Tensor| reduce_prod(x, Some(&[2]), false)),
        ),
        (
            "reduce_logsumexp",
            Box::new(|x: &Tensor| reduce_logsumexp(x, Some(&[0, 1]), false)),
        ),
        (
            "norm",
            Box::new(|x: &Tensor| norm(x, NormOrd::Euclidean, Some(&[1]), false)),
        ),
        (
            "norm p",
            Box::new(|x: &Tensor| norm(x, NormOrd::P(3.0), None, false)),
        ),
        ("softmax", Box::new(|x: &Tensor| softmax(x, 1))),
        ("log_softmax", Box::new(|x: &Tensor| log_softmax(x, -1))),
        ("clip_by_norm", Box::new(clip)),
        (
            "moments",
            Box::new(|x: &Tensor| Ok(moments(x, &[0, 1], false)?.1)),
        ),
    ];
    for (name, f) in fs {
        let (y64, y32) = (f(&x64).unwrap(), f(&x32).unwrap());
        assert_eq!(y32.dtype(), DType::F32, "{name}");
        assert_eq!(y32.shape(), y64.shape(), "{name}");
        assert_close_labelled(&values(&y32), &values(&y64), 1e-5, name);
        let w = pseudo_random(y64.shape(), 3);
        let w32 = cast(&w, DType::F32).unwrap();
        let (g64, g32) = (
            gradient(&|x| multiply(&f(x)?, &w), &x64).unwrap(),
            gradient(&|x| multiply(&f(x)?, &w32), &x32).unwrap(),
        );
        assert_eq!(g32.dtype(), DType::F32, "{name}");
        assert_close_labelled(&values(&g32), &values(&g64), 1e-4, name);
    }
}

#[test]
fn integer_inputs_to_float_only_ops_are_dtype_errors() {
    let i = Tensor::from_vec(vec![1i32, 2], &[2]).unwrap();
    for (name, r) in [
        ("softmax", softmax(&i, 0)),
        ("log_softmax", log_softmax(&i, 0)),
        (
            "clip_by_norm",
            clip_by_norm(&i, &Tensor::scalar(1i32), None),
        ),
        (
            "batch_normalization",
            batch_normalization(&i, &i, &i, None, None, 0.0),
        ),
    ] {
        let err = r.unwrap_err();
        assert_eq!((err.kind, err.op.as_str()), (ErrorKind::DType, name));
    }
}
