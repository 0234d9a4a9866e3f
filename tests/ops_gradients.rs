//! The table-driven gradient check of the scan, sort, segment, scatter, rearranging, special
//! (Bessel included), activation, cross-entropy and contraction ops: every case is gradchecked
//! in float64 (first and second order, against central finite differences), alone and between
//! nonlinearities, and its vectorised Jacobian must equal the row-by-row one
//! (`check_vectorized`; the batch Jacobian too where the case keeps batch rows apart).
use rustape::ops::*;
use rustape::testing::{analytic_gradient, check_vectorized, gradcheck, pseudo_random, Tolerance};
use rustape::{DType, Result, Tensor};

type F = Box<dyn Fn(&[Tensor]) -> Result<Tensor>>;

/// One case: a name, the function, its float64 inputs, and whether it keeps batch rows apart
/// (then `check_vectorized` also takes the batch Jacobian of the one-input form).
struct Case {
    name: &'static str,
    f: F,
    inputs: Vec<Tensor>,
    keeps_rows: bool,
}

fn t(values: &[f64], shape: &[usize]) -> Tensor {
    Tensor::from_vec(values.to_vec(), shape).unwrap()
}

fn v(values: &[f64]) -> Tensor {
    t(values, &[values.len()])
}

fn ints(values: &[i64], shape: &[usize]) -> Tensor {
    Tensor::from_vec(values.to_vec(), shape).unwrap()
}

/// Values in [-1, 1) of `shape`, none near zero: both signs.
fn signed(shape: &[usize], seed: u64) -> Tensor {
    let p = pseudo_random(shape, seed);
    multiply(
        &subtract(&p, &Tensor::scalar(1.0f64)).unwrap(),
        &Tensor::scalar(2.0f64),
    )
    .unwrap()
}

/// `t + 0.2 t sin(t)`: keeps shape, rows and (for the inputs here) domains, and makes every
/// cotangent row different.
fn nl(t: &Tensor) -> Result<Tensor> {
    add(
        &multiply(&multiply(t, &sin(t)?)?, &Tensor::scalar(0.2f64))?,
        t,
    )
}

fn case(name: &'static str, inputs: Vec<Tensor>, keeps_rows: bool, f: F) -> Case {
    Case {
        name,
        f,
        inputs,
        keeps_rows,
    }
}

fn unary(name: &'static str, x: Tensor, op: fn(&Tensor) -> Result<Tensor>) -> Case {
    case(name, vec![x], true, Box::new(move |xs| op(&xs[0])))
}

fn binary(
    name: &'static str,
    a: Tensor,
    b: Tensor,
    op: fn(&Tensor, &Tensor) -> Result<Tensor>,
) -> Case {
    case(
        name,
        vec![a, b],
        true,
        Box::new(move |xs| op(&xs[0], &xs[1])),
    )
}

fn elementwise_cases() -> Vec<Case> {
    let unit = t(&[-0.7, -0.2, 0.3, 0.8, 0.55, -0.45], &[3, 2]);
    let wide = t(&[-2.2, -0.6, 0.4, 1.3, 2.6, -1.1], &[3, 2]);
    let above_one = t(&[1.2, 1.7, 2.5, 3.3, 4.1, 1.05], &[3, 2]);
    let gamma_args = t(&[0.3, 1.7, 4.2, 12.5, -0.4, -2.7], &[3, 2]);
    let positive = t(&[0.4, 1.3, 2.2, 0.9, 3.1, 1.7], &[3, 2]);
    vec![
        unary("asin", unit.clone(), asin),
        unary("acos", unit.clone(), acos),
        unary("atan", wide.clone(), atan),
        unary("sinh", wide.clone(), sinh),
        unary("cosh", wide.clone(), cosh),
        unary("asinh", wide.clone(), asinh),
        unary("acosh", above_one, acosh),
        unary("atanh", unit.clone(), atanh),
        unary("expm1", wide.clone(), expm1),
        unary("erf", wide.clone(), erf),
        unary("erfc", wide.clone(), erfc),
        unary("lgamma", gamma_args.clone(), lgamma),
        unary("digamma", gamma_args.clone(), digamma),
        unary("bessel_i0", wide.clone(), bessel_i0),
        unary("bessel_i0e", wide.clone(), bessel_i0e),
        unary("bessel_i1", wide.clone(), bessel_i1),
        unary("bessel_i1e", wide.clone(), bessel_i1e),
        unary(
            "bessel_i0e (asymptotic)",
            t(&[-30.0, 21.0, 45.0, -22.5], &[2, 2]),
            bessel_i0e,
        ),
        unary(
            "bessel_i1e (asymptotic)",
            t(&[-30.0, 21.0, 45.0, -22.5], &[2, 2]),
            bessel_i1e,
        ),
        case(
            "polygamma(2)",
            vec![gamma_args],
            true,
            Box::new(|xs| polygamma(2, &xs[0])),
        ),
        unary("log_sigmoid", wide.clone(), log_sigmoid),
        unary("softsign", wide.clone(), softsign),
        unary("selu", wide.clone(), selu),
        case(
            "gelu exact",
            vec![wide.clone()],
            true,
            Box::new(|xs| gelu(&xs[0], false)),
        ),
        case(
            "gelu tanh",
            vec![wide.clone()],
            true,
            Box::new(|xs| gelu(&xs[0], true)),
        ),
        binary("atan2", wide.clone(), positive.clone(), atan2),
        binary("atan2 broadcast", wide.clone(), v(&[0.8, -1.3]), atan2),
        binary("xlogy", wide.clone(), positive.clone(), xlogy),
        binary("xdivy", wide.clone(), positive.clone(), xdivy),
        binary(
            "divide_no_nan",
            wide.clone(),
            positive.clone(),
            divide_no_nan,
        ),
        binary(
            "divide_no_nan broadcast",
            wide.clone(),
            v(&[0.7, -1.9]),
            divide_no_nan,
        ),
        case(
            "scalar_mul",
            vec![Tensor::scalar(1.7f64), wide.clone()],
            false,
            Box::new(|xs| scalar_mul(&xs[0], &xs[1])),
        ),
        case(
            "sigmoid_cross_entropy_with_logits",
            vec![pseudo_random(&[3, 2], 3), wide.clone()],
            true,
            Box::new(|xs| sigmoid_cross_entropy_with_logits(&xs[0], &xs[1])),
        ),
    ]
}

fn reduction_cases() -> Vec<Case> {
    let x = signed(&[3, 4], 11);
    let probabilities = {
        let p = pseudo_random(&[3, 4], 12);
        divide(&p, &reduce_sum(&p, Some(&[-1]), true).unwrap()).unwrap()
    };
    vec![
        case(
            "reduce_euclidean_norm axis 1",
            vec![x.clone()],
            true,
            Box::new(|xs| reduce_euclidean_norm(&xs[0], Some(&[1]), false)),
        ),
        case(
            "reduce_euclidean_norm all",
            vec![x.clone()],
            false,
            Box::new(|xs| reduce_euclidean_norm(&xs[0], None, true)),
        ),
        case(
            "softmax_cross_entropy_with_logits",
            vec![probabilities.clone(), x.clone()],
            true,
            Box::new(|xs| softmax_cross_entropy_with_logits(&xs[0], &xs[1], -1)),
        ),
        case(
            "softmax_cross_entropy_with_logits axis 0",
            vec![pseudo_random(&[3, 4], 5), x.clone()],
            false,
            Box::new(|xs| softmax_cross_entropy_with_logits(&xs[0], &xs[1], 0)),
        ),
        case(
            "sparse_softmax_cross_entropy_with_logits",
            vec![x.clone()],
            true,
            Box::new(|xs| {
                sparse_softmax_cross_entropy_with_logits(&ints(&[3, 0, 2], &[3]), &xs[0])
            }),
        ),
        case(
            "tensordot",
            vec![signed(&[3, 2, 4], 13), signed(&[4, 2, 5], 14)],
            false,
            Box::new(|xs| tensordot(&xs[0], &xs[1], &[1, 2], &[1, 0])),
        ),
        case(
            "tensordot n=1",
            vec![signed(&[3, 4], 15), signed(&[4, 2], 16)],
            false,
            Box::new(|xs| tensordot_n(&xs[0], &xs[1], 1)),
        ),
        case(
            "diag_part",
            vec![signed(&[2, 3, 4], 17)],
            true,
            Box::new(|xs| diag_part(&xs[0])),
        ),
        case(
            "trace",
            vec![signed(&[2, 3, 3], 18)],
            true,
            Box::new(|xs| trace(&xs[0])),
        ),
    ]
}

fn scan_and_sort_cases() -> Vec<Case> {
    let x = signed(&[3, 4], 21);
    let with_zeros = t(
        &[0.5, 0.0, 1.3, -0.7, 1.1, 0.9, 0.0, 0.0, -1.2, 0.8, 1.4, 0.6],
        &[3, 4],
    );
    let mut cases = vec![];
    for (exclusive, reverse) in [(false, false), (true, false), (false, true), (true, true)] {
        cases.push(case(
            "cumsum axis 1",
            vec![x.clone()],
            true,
            Box::new(move |xs| cumsum(&xs[0], 1, exclusive, reverse)),
        ));
        cases.push(case(
            "cumsum axis 0",
            vec![x.clone()],
            false,
            Box::new(move |xs| cumsum(&xs[0], 0, exclusive, reverse)),
        ));
        cases.push(case(
            "cumprod axis 1",
            vec![x.clone()],
            true,
            Box::new(move |xs| cumprod(&xs[0], -1, exclusive, reverse)),
        ));
        cases.push(case(
            "cumprod with zeros",
            vec![with_zeros.clone()],
            true,
            Box::new(move |xs| cumprod(&xs[0], 1, exclusive, reverse)),
        ));
        cases.push(case(
            "cumprod with zeros axis 0",
            vec![with_zeros.clone()],
            false,
            Box::new(move |xs| cumprod(&xs[0], 0, exclusive, reverse)),
        ));
    }
    cases.extend([
        case(
            "top_k",
            vec![x.clone()],
            true,
            Box::new(|xs| Ok(top_k(&xs[0], 2)?.0)),
        ),
        case(
            "top_k 1-d",
            vec![v(&[0.3, -1.2, 2.5, 0.9, 1.7])],
            false,
            Box::new(|xs| Ok(top_k(&xs[0], 3)?.0)),
        ),
        case(
            "sort",
            vec![x.clone()],
            true,
            Box::new(|xs| sort(&xs[0], -1, false)),
        ),
        case(
            "sort descending axis 0",
            vec![x.clone()],
            false,
            Box::new(|xs| sort(&xs[0], 0, true)),
        ),
    ]);
    cases
}

fn rearranging_cases() -> Vec<Case> {
    let x = signed(&[3, 4], 31);
    let x3 = signed(&[3, 2, 4], 32);
    vec![
        case(
            "split axis 1",
            vec![x.clone()],
            true,
            Box::new(|xs| {
                let parts = split(&xs[0], &[1, -1, 2], 1)?;
                concat(&[multiply(&parts[2], &parts[2])?, parts[0].clone()], 1)
            }),
        ),
        case(
            "split axis 0, one part unused",
            vec![x.clone()],
            false,
            Box::new(|xs| {
                let parts = split_evenly(&xs[0], 3, 0)?;
                multiply(&parts[0], &sin(&parts[2])?)
            }),
        ),
        case(
            "reverse",
            vec![x3.clone()],
            true,
            Box::new(|xs| reverse(&xs[0], &[1, -1])),
        ),
        case(
            "reverse axis 0",
            vec![x3.clone()],
            false,
            Box::new(|xs| reverse(&xs[0], &[0])),
        ),
        case(
            "roll",
            vec![x3.clone()],
            true,
            Box::new(|xs| roll(&xs[0], &[1, -3, 2], &[2, 1, 2])),
        ),
        case(
            "roll axis 0",
            vec![x3.clone()],
            false,
            Box::new(|xs| roll(&xs[0], &[1], &[0])),
        ),
        case(
            "repeat axis 1",
            vec![x.clone()],
            true,
            Box::new(|xs| repeat(&xs[0], &[2, 0, 1, 3], Some(1))),
        ),
        case(
            "repeat flat",
            vec![x.clone()],
            false,
            Box::new(|xs| repeat(&xs[0], &[2], None)),
        ),
        case(
            "meshgrid xy",
            vec![v(&[0.3, -0.8, 1.1]), v(&[0.5, 1.9])],
            false,
            Box::new(|xs| {
                let g = meshgrid(xs, true)?;
                multiply(&g[0], &sin(&g[1])?)
            }),
        ),
        case(
            "meshgrid ij",
            vec![v(&[0.3, -0.8, 1.1]), v(&[0.5, 1.9])],
            false,
            Box::new(|xs| {
                let g = meshgrid(xs, false)?;
                multiply(&g[0], &exp(&g[1])?)
            }),
        ),
        case(
            "boolean_mask axis 1",
            vec![x.clone()],
            true,
            Box::new(|xs| {
                let mask = Tensor::from_vec(vec![true, false, true, true], &[4])?;
                boolean_mask(&xs[0], &mask, 1)
            }),
        ),
        case(
            "boolean_mask 2-d mask",
            vec![x.clone()],
            false,
            Box::new(|xs| {
                let mask = Tensor::from_vec((0..12).map(|i| i % 3 != 1).collect(), &[3, 4])?;
                boolean_mask(&xs[0], &mask, 0)
            }),
        ),
    ]
}

fn indexing_cases() -> Vec<Case> {
    let x = signed(&[3, 4], 41);
    let x3 = signed(&[3, 4, 2], 42);
    let distinct = t(
        &[
            0.3, -1.2, 2.5, 0.9, 1.7, -0.4, 0.1, 1.1, -2.0, 0.6, 1.4, -0.8,
        ],
        &[4, 3],
    );
    vec![
        case(
            "gather batch_dims 1",
            vec![x3.clone()],
            true,
            Box::new(|xs| gather(&xs[0], &ints(&[0, 3, 3, 1, 2, 0], &[3, 2]), 1, 1)),
        ),
        case(
            "gather_nd",
            vec![x3.clone()],
            false,
            Box::new(|xs| gather_nd(&xs[0], &ints(&[0, 1, 2, 3, 0, 1], &[3, 2]), 0)),
        ),
        case(
            "gather_nd batch_dims 1",
            vec![x3.clone()],
            true,
            Box::new(|xs| gather_nd(&xs[0], &ints(&[1, 0, 3, 1, 2, 1], &[3, 1, 2]), 1)),
        ),
        case(
            "scatter_nd",
            vec![signed(&[4, 2], 43)],
            false,
            Box::new(|xs| scatter_nd(&ints(&[1, 3, 1, 0], &[4, 1]), &xs[0], &[5, 2])),
        ),
        case(
            "tensor_scatter_nd_add",
            vec![x.clone(), signed(&[2, 4], 44)],
            false,
            Box::new(|xs| tensor_scatter_nd_add(&xs[0], &ints(&[2, 0], &[2, 1]), &xs[1])),
        ),
        case(
            "tensor_scatter_nd_update",
            vec![x.clone(), signed(&[3], 45)],
            false,
            Box::new(|xs| {
                tensor_scatter_nd_update(&xs[0], &ints(&[2, 1, 0, 3, 2, 1], &[3, 2]), &xs[1])
            }),
        ),
        case(
            "unsorted_segment_sum",
            vec![x.clone()],
            false,
            Box::new(|xs| unsorted_segment_sum(&xs[0], &ints(&[1, -1, 1], &[3]), 3)),
        ),
        case(
            "unsorted_segment_sum 2-d ids",
            vec![x.clone()],
            false,
            Box::new(|xs| {
                unsorted_segment_sum(
                    &xs[0],
                    &ints(&[0, 2, 1, 0, 2, 2, -1, 1, 0, 0, 1, 2], &[3, 4]),
                    3,
                )
            }),
        ),
        case(
            "unsorted_segment_mean",
            vec![x.clone()],
            false,
            Box::new(|xs| unsorted_segment_mean(&xs[0], &ints(&[2, 0, 2], &[3]), 4)),
        ),
        case(
            "unsorted_segment_max",
            vec![distinct.clone()],
            false,
            Box::new(|xs| unsorted_segment_max(&xs[0], &ints(&[1, 0, 1, 1], &[4]), 2)),
        ),
        case(
            "segment_sum",
            vec![x.clone()],
            false,
            Box::new(|xs| segment_sum(&xs[0], &ints(&[0, 0, 2], &[3]))),
        ),
    ]
}

fn all_cases() -> Vec<Case> {
    let mut cases = elementwise_cases();
    cases.extend(reduction_cases());
    cases.extend(scan_and_sort_cases());
    cases.extend(rearranging_cases());
    cases.extend(indexing_cases());
    cases
}

fn gradchecks(cases: Vec<Case>) {
    for c in cases {
        let f = &c.f;
        gradcheck(f, &c.inputs, true, Tolerance::default())
            .unwrap_or_else(|e| panic!("gradcheck of {}: {e}", c.name));
        // Between nonlinearities: second derivatives with every term present.
        let wrapped = |xs: &[Tensor]| {
            let inner: Vec<Tensor> = xs.iter().map(nl).collect::<Result<_>>()?;
            nl(&f(&inner)?)
        };
        gradcheck(&wrapped, &c.inputs, true, Tolerance::default())
            .unwrap_or_else(|e| panic!("gradcheck of nl({}(nl(x))): {e}", c.name));
    }
}

#[test]
fn gradcheck_elementwise_and_reductions() {
    let mut cases = elementwise_cases();
    cases.extend(reduction_cases());
    gradchecks(cases);
}

#[test]
fn gradcheck_scans_and_sorts() {
    gradchecks(scan_and_sort_cases());
}

#[test]
fn gradcheck_rearranging_and_indexing() {
    let mut cases = rearranging_cases();
    cases.extend(indexing_cases());
    gradchecks(cases);
}

#[test]
fn vectorized_jacobians_equal_row_by_row() {
    for c in all_cases() {
        let f = &c.f;
        let wrapped = |xs: &[Tensor]| {
            let inner: Vec<Tensor> = xs.iter().map(nl).collect::<Result<_>>()?;
            let y = nl(&f(&inner)?)?;
            // A case that mixes rows gets a leading axis of 1: only `jacobian` is taken.
            if c.keeps_rows {
                Ok(y)
            } else {
                expand_dims(&y, 0)
            }
        };
        check_vectorized(&wrapped, &c.inputs, 1e-12)
            .unwrap_or_else(|e| panic!("check_vectorized of {}: {e}", c.name));
    }
}

/// `f`'s value and the gradients of `sum(f(x) * w)` at `xs`, as f64 vectors.
fn value_and_gradients(f: &F, xs: &[Tensor]) -> (Tensor, Vec<Vec<f64>>) {
    let y = f(xs).unwrap();
    let w = cast(&pseudo_random(y.shape(), 7), y.dtype()).unwrap();
    let loss = |xs: &[Tensor]| reduce_sum(&multiply(&f(xs)?, &w)?, None, false);
    let grads = analytic_gradient(&loss, xs).unwrap();
    (y, grads.iter().map(Tensor::to_f64_vec).collect())
}

#[test]
fn float32_agrees_with_float64() {
    for c in all_cases() {
        let narrow: Vec<Tensor> = c
            .inputs
            .iter()
            .map(|x| cast(x, DType::F32).unwrap())
            .collect();
        let (y64, g64) = value_and_gradients(&c.f, &c.inputs);
        let (y32, g32) = value_and_gradients(&c.f, &narrow);
        assert_eq!(
            y32.dtype(),
            DType::F32,
            "{}: float32 in, float32 out",
            c.name
        );
        let close = |what: &str, a: &[f64], b: &[f64]| {
            assert_eq!(a.len(), b.len(), "{}: {what}", c.name);
            for (i, (p, q)) in a.iter().zip(b).enumerate() {
                assert!(
                    (p - q).abs() <= 2e-4 * q.abs().max(1.0),
                    "{} {what}, element {i}: float32 {p}, float64 {q}",
                    c.name
                );
            }
        };
        close("value", &y32.to_f64_vec(), &y64.to_f64_vec());
        for (k, (a, b)) in g32.iter().zip(&g64).enumerate() {
            close(&format!("gradient {k}"), a, b);
        }
    }
}
