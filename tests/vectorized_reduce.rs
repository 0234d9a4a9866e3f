//! Reductions and nn ops take batched cotangents: the vectorised Jacobian (one sweep, the seeds
//! stacked on a leading axis) equals the row-by-row one, for `jacobian` and, when the output
//! keeps the input's first dimension, for `batch_jacobian`.
//!
//! Inputs are `[2, 3, 4]`: a reduction over axis 0 never leaves a first dimension of 2, so the
//! batch Jacobian is only taken where the rows stay apart (it refuses ops that mix them).
use rustape::ops::*;
use rustape::testing::{analytic_gradient, check_vectorized, pseudo_random};
use rustape::{Result, Tensor};

type Reduction = fn(&Tensor, Option<&[isize]>, bool) -> Result<Tensor>;
type Function = Box<dyn Fn(&[Tensor]) -> Result<Tensor>>;

/// None, single, negative and tuple axes (mixed signs, all of them, none of them).
const AXES: [Option<&[isize]>; 9] = [
    None,
    Some(&[0]),
    Some(&[1]),
    Some(&[-1]),
    Some(&[0, 2]),
    Some(&[-3, -1]),
    Some(&[1, -1]),
    Some(&[0, 1, 2]),
    Some(&[]),
];

/// Whether a reduction over `axes` of a rank-3 tensor folds its rows (axis 0) together.
fn mixes_rows(axes: Option<&[isize]>) -> bool {
    axes.is_none_or(|a| a.iter().any(|&ax| ax == 0 || ax == -3))
}

/// A gradient keeps the input's shape, so the batch Jacobian would be taken of it; where the
/// rows mix (which `batch_jacobian` refuses) it is flattened so that only `jacobian` is.
fn flat_if(mixes: bool, g: Tensor) -> Result<Tensor> {
    if mixes {
        reshape(&g, &[-1])
    } else {
        Ok(g)
    }
}

fn check(what: &str, f: &dyn Fn(&[Tensor]) -> Result<Tensor>, inputs: &[Tensor]) {
    check_vectorized(f, inputs, 1e-12).unwrap_or_else(|e| panic!("{what}: {e}"));
}

/// Values in [-0.5, 0.5): both signs (abs, norms), none zero.
fn signed(seed: u64) -> Tensor {
    subtract(&pseudo_random(&[2, 3, 4], seed), &Tensor::scalar(1.0f64)).unwrap()
}

/// Small integers with many ties along every axis (max/min split the gradient between them).
fn tied() -> Tensor {
    let values: Vec<f64> = (0..24).map(|i| ((i * 7) % 5) as f64 - 2.0).collect();
    Tensor::from_vec(values, &[2, 3, 4]).unwrap()
}

/// Positive values with zeros: one in some reduction groups, two or three in others.
fn with_zeros() -> Tensor {
    let mut values = pseudo_random(&[2, 3, 4], 11).to_f64_vec();
    for i in [0, 4, 5, 9, 13, 17, 23] {
        values[i] = 0.0;
    }
    Tensor::from_vec(values, &[2, 3, 4]).unwrap()
}

fn reductions() -> [(&'static str, Reduction); 6] {
    [
        ("reduce_sum", reduce_sum),
        ("reduce_mean", reduce_mean),
        ("reduce_max", reduce_max),
        ("reduce_min", reduce_min),
        ("reduce_prod", reduce_prod),
        ("reduce_logsumexp", reduce_logsumexp),
    ]
}

/// `op` alone, `op` times itself, and (keepdims, rows kept apart) `op` times its input.
fn check_reduction(name: &str, op: Reduction, x: &Tensor) {
    for axes in AXES {
        for keepdims in [false, true] {
            let what = format!("{name}, axes {axes:?}, keepdims {keepdims}");
            let plain = move |xs: &[Tensor]| op(&xs[0], axes, keepdims);
            check(&what, &plain, std::slice::from_ref(x));
            let squared = move |xs: &[Tensor]| {
                let y = op(&xs[0], axes, keepdims)?;
                multiply(&y, &y)
            };
            check(
                &format!("{what}, squared"),
                &squared,
                std::slice::from_ref(x),
            );
            if keepdims && !mixes_rows(axes) {
                let scaled = move |xs: &[Tensor]| multiply(&op(&xs[0], axes, keepdims)?, &xs[0]);
                check(
                    &format!("{what}, times x"),
                    &scaled,
                    std::slice::from_ref(x),
                );
            }
        }
    }
}

#[test]
fn reductions_vectorise_for_every_axes_choice() {
    let x = pseudo_random(&[2, 3, 4], 7);
    for (name, op) in reductions() {
        check_reduction(name, op, &x);
    }
}

#[test]
fn max_and_min_split_ties_when_vectorised() {
    let x = tied();
    check_reduction("reduce_max", reduce_max, &x);
    check_reduction("reduce_min", reduce_min, &x);
}

#[test]
fn reduce_prod_with_zeros_vectorises() {
    let x = with_zeros();
    check_reduction("reduce_prod", reduce_prod, &x);
    // The Jacobian of its gradient: the zero-handling path (where, products of the others) is
    // itself run with batched cotangents.
    for axes in AXES {
        let g = move |xs: &[Tensor]| {
            let loss = |ys: &[Tensor]| {
                let p = reduce_prod(&ys[0], axes, false)?;
                reduce_sum(&multiply(&p, &p)?, None, false)
            };
            flat_if(mixes_rows(axes), analytic_gradient(&loss, xs)?.remove(0))
        };
        check(
            &format!("gradient of reduce_prod, axes {axes:?}"),
            &g,
            std::slice::from_ref(&x),
        );
    }
}

#[test]
fn norms_vectorise() {
    let x = signed(3);
    let ords = [
        NormOrd::Euclidean,
        NormOrd::One,
        NormOrd::Inf,
        NormOrd::P(3.0),
        NormOrd::P(1.5),
    ];
    let vector_axes: [Option<&[isize]>; 4] = [None, Some(&[0]), Some(&[1]), Some(&[-1])];
    let matrix_axes: [Option<&[isize]>; 3] = [Some(&[0, 2]), Some(&[-1, -2]), Some(&[1, 2])];
    for ord in ords {
        for keepdims in [false, true] {
            let mut choices: Vec<Option<&[isize]>> = vector_axes.to_vec();
            if !matches!(ord, NormOrd::P(_)) {
                choices.extend(matrix_axes);
            }
            for axes in choices {
                let what = format!("norm {ord:?}, axes {axes:?}, keepdims {keepdims}");
                let f = move |xs: &[Tensor]| {
                    let n = norm(&xs[0], ord, axes, keepdims)?;
                    multiply(&n, &n)
                };
                check(&what, &f, std::slice::from_ref(&x));
            }
        }
    }
}

#[test]
fn softmax_and_log_softmax_vectorise_along_every_axis() {
    let x = signed(5);
    type Lane = fn(&Tensor, isize) -> Result<Tensor>;
    for (name, op) in [("softmax", softmax as Lane), ("log_softmax", log_softmax)] {
        for axis in [1, 2, -1, -2] {
            let f = move |xs: &[Tensor]| multiply(&op(&xs[0], axis)?, &xs[0]);
            check(
                &format!("{name}, axis {axis}, times x"),
                &f,
                std::slice::from_ref(&x),
            );
            let g = move |xs: &[Tensor]| {
                let y = op(&xs[0], axis)?;
                multiply(&y, &y)
            };
            check(
                &format!("{name}, axis {axis}, squared"),
                &g,
                std::slice::from_ref(&x),
            );
        }
        // Along axis 0 the rows mix: summed over axis 0 so that only `jacobian` is taken.
        for axis in [0, -3] {
            let f = move |xs: &[Tensor]| {
                reduce_sum(&multiply(&op(&xs[0], axis)?, &xs[0])?, Some(&[0]), false)
            };
            check(
                &format!("{name}, axis {axis}"),
                &f,
                std::slice::from_ref(&x),
            );
        }
    }
}

#[test]
fn compositions_vectorise() {
    let x = signed(9);
    let cases: Vec<(&str, Function)> = vec![
        (
            "reduce_sum(softmax(x) * x, axis 1)",
            Box::new(|xs: &[Tensor]| {
                reduce_sum(&multiply(&softmax(&xs[0], -1)?, &xs[0])?, Some(&[1]), false)
            }),
        ),
        (
            "log_softmax(x) - logsumexp(x) kept",
            Box::new(|xs: &[Tensor]| {
                let l = log_softmax(&xs[0], 1)?;
                multiply(
                    &subtract(&l, &reduce_logsumexp(&xs[0], Some(&[1]), true)?)?,
                    &l,
                )
            }),
        ),
        (
            "mean of max over prod",
            Box::new(|xs: &[Tensor]| {
                let m = reduce_max(&xs[0], Some(&[2]), true)?;
                let p = reduce_prod(&xs[0], Some(&[-1]), true)?;
                reduce_mean(
                    &divide(&multiply(&xs[0], &m)?, &add(&p, &Tensor::scalar(2.0f64))?)?,
                    Some(&[1, 2]),
                    false,
                )
            }),
        ),
        (
            "min(softmax) * norm",
            Box::new(|xs: &[Tensor]| {
                let s = reduce_min(&softmax(&xs[0], 2)?, Some(&[2]), false)?;
                multiply(&s, &norm(&xs[0], NormOrd::Euclidean, Some(&[2]), false)?)
            }),
        ),
    ];
    for (what, f) in &cases {
        check(what, f.as_ref(), std::slice::from_ref(&x));
    }
}

#[test]
fn clip_by_norm_vectorises() {
    let t = signed(13);
    // Clipping (small clip_norm) and not (large clip_norm); scalar and broadcast clip norms.
    let norms = [
        Tensor::scalar(0.3f64),
        Tensor::scalar(10.0f64),
        Tensor::from_vec(vec![0.2, 0.5, 3.0, 0.1], &[4]).unwrap(),
    ];
    let axes_choices: [Option<&[isize]>; 5] =
        [None, Some(&[0]), Some(&[1]), Some(&[-1]), Some(&[0, 2])];
    for c in &norms {
        for axes in axes_choices {
            let what = format!(
                "clip_by_norm, clip_norm {:?}, axes {axes:?}",
                c.to_f64_vec()
            );
            // Jacobians with respect to t and clip_norm.
            let f = move |xs: &[Tensor]| multiply(&clip_by_norm(&xs[0], &xs[1], axes)?, &xs[0]);
            check(&what, &f, &[t.clone(), c.clone()]);
            // And with respect to t alone (the batch Jacobian where the rows stay apart).
            let c = c.clone();
            let g = move |xs: &[Tensor]| {
                let y = clip_by_norm(&xs[0], &c, axes)?;
                let y = multiply(&y, &y)?;
                match axes {
                    Some(a) if !a.contains(&0) => Ok(y),
                    _ => reduce_sum(&y, Some(&[0]), false),
                }
            };
            check(&format!("{what}, t alone"), &g, std::slice::from_ref(&t));
        }
    }
}

#[test]
fn moments_vectorise() {
    let x = signed(17);
    let axes_choices: [&[isize]; 6] = [&[0], &[1], &[-1], &[0, 2], &[1, -1], &[0, 1, 2]];
    for axes in axes_choices {
        for keepdims in [false, true] {
            let what = format!("moments, axes {axes:?}, keepdims {keepdims}");
            let f = move |xs: &[Tensor]| {
                let (mean, variance) = moments(&xs[0], axes, keepdims)?;
                multiply(&add(&mean, &variance)?, &variance)
            };
            check(&what, &f, std::slice::from_ref(&x));
            let v =
                move |xs: &[Tensor]| moments(&xs[0], axes, keepdims).map(|(_, variance)| variance);
            check(&format!("{what}, variance"), &v, std::slice::from_ref(&x));
        }
    }
}

#[test]
fn batch_normalization_vectorises() {
    let x = signed(19);
    // Statistics of x itself, per row (axes 1, 2) so the batch Jacobian applies, and over the
    // batch (axis 0, then summed over it).
    let offset = pseudo_random(&[4], 23);
    let scale = pseudo_random(&[4], 29);
    for (axes, reduce_rows) in [
        (&[1isize, 2][..], false),
        (&[-1][..], false),
        (&[0][..], true),
    ] {
        for with_params in [false, true] {
            let (offset, scale) = (offset.clone(), scale.clone());
            let f = move |xs: &[Tensor]| {
                let (mean, variance) = moments(&xs[0], axes, true)?;
                let (o, s) = if with_params {
                    (Some(&offset), Some(&scale))
                } else {
                    (None, None)
                };
                let y = batch_normalization(&xs[0], &mean, &variance, o, s, 1e-3)?;
                let y = multiply(&y, &xs[0])?;
                if reduce_rows {
                    reduce_sum(&y, Some(&[0]), false)
                } else {
                    Ok(y)
                }
            };
            check(
                &format!("batch_normalization, axes {axes:?}, params {with_params}"),
                &f,
                std::slice::from_ref(&x),
            );
        }
    }
    // Jacobians with respect to every argument (broadcast parameters).
    let mean = pseudo_random(&[4], 31);
    let variance = pseudo_random(&[3, 4], 37);
    let f = |xs: &[Tensor]| {
        let y = batch_normalization(&xs[0], &xs[1], &xs[2], Some(&xs[3]), Some(&xs[4]), 1e-3)?;
        multiply(&y, &y)
    };
    check(
        "batch_normalization, every argument",
        &f,
        &[x, mean, variance, offset, scale],
    );
}

#[test]
fn jacobian_of_the_gradient_of_logsumexp_vectorises() {
    let x = signed(41);
    for axes in AXES {
        for keepdims in [false, true] {
            // The inner tape's backward ops are recorded by the outer one: they must be
            // batchable too.
            let g = move |xs: &[Tensor]| {
                let loss = |ys: &[Tensor]| {
                    let l = reduce_logsumexp(&ys[0], axes, keepdims)?;
                    reduce_sum(&multiply(&l, &l)?, None, false)
                };
                flat_if(mixes_rows(axes), analytic_gradient(&loss, xs)?.remove(0))
            };
            check(
                &format!("gradient of reduce_logsumexp, axes {axes:?}, keepdims {keepdims}"),
                &g,
                std::slice::from_ref(&x),
            );
        }
    }
    // And of the gradients of softmax, max and mean, the same way.
    let h = |xs: &[Tensor]| {
        let loss = |ys: &[Tensor]| {
            let s = softmax(&ys[0], 1)?;
            let m = reduce_max(&multiply(&s, &ys[0])?, Some(&[2]), true)?;
            reduce_mean(&multiply(&m, &log_softmax(&ys[0], -1)?)?, None, false)
        };
        flat_if(true, analytic_gradient(&loss, xs)?.remove(0))
    };
    check("gradient of softmax/max/mean", &h, std::slice::from_ref(&x));
}
