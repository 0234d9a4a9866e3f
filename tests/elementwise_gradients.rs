//! Elementwise ops: TensorFlow's gradient rules (ties, kinks and domain edges), float64
//! gradchecks of first and second order, and float32 against float64.
use rustape::ops::*;
use rustape::{DType, Tape, Tensor, Unconnected};

mod support;
use support::elementwise::*;
use support::*;

// ------------------------------------------------------------------------------------------
// Gradcheck, float64, first and second order

#[test]
fn gradcheck_unary_ops() {
    let mixed = v64(&[-1.7, -0.3, 0.4, 1.2, 2.2]);
    let positive = t64(&[0.3, 1.1, 2.5, 4.0], &[2, 2]);
    let away_from_zero = v64(&[-1.5, -0.2, 0.3, 1.4]);
    let cases: Vec<(&str, Unary, Tensor)> = vec![
        ("negative", negative, mixed.clone()),
        ("abs", abs, away_from_zero.clone()),
        ("sign", sign, away_from_zero.clone()),
        ("square", square, mixed.clone()),
        ("sqrt", sqrt, positive.clone()),
        ("exp", exp, mixed.clone()),
        ("log", log, positive.clone()),
        ("log1p", log1p, v64(&[-0.5, 0.2, 3.0])),
        ("sin", sin, mixed.clone()),
        ("cos", cos, mixed.clone()),
        ("tan", tan, v64(&[-1.0, -0.2, 0.5, 1.1])),
        ("tanh", tanh, mixed.clone()),
        ("sigmoid", sigmoid, v64(&[-6.0, -1.7, 0.4, 2.2, 6.0])),
        ("relu", relu, away_from_zero.clone()),
        ("elu", elu, away_from_zero.clone()),
        ("softplus", softplus, v64(&[-30.0, -2.0, 0.1, 3.0, 30.0])),
    ];
    for (name, op, x) in cases {
        check_labelled(&|xs| op(&xs[0]), std::slice::from_ref(&x), name);
        // Times its input: the incoming gradient then depends on x too, as in real graphs.
        check_labelled(&|xs| multiply(&op(&xs[0])?, &xs[0]), &[x], name);
    }
}

#[test]
fn gradcheck_binary_ops_with_broadcasting() {
    let a = t64(&[-1.3, 0.7, 2.1, -0.4, 1.6, 0.9], &[2, 3]);
    let b = v64(&[0.8, -1.9, 1.3]);
    let col = t64(&[1.4, -0.6], &[2, 1]);
    let cases: Vec<(&str, Binary)> = vec![
        ("add", add),
        ("subtract", subtract),
        ("multiply", multiply),
        ("divide", divide),
        ("maximum", maximum),
        ("minimum", minimum),
    ];
    for (name, op) in cases {
        check_labelled(&|xs| op(&xs[0], &xs[1]), &[a.clone(), b.clone()], name);
        check_labelled(&|xs| op(&xs[0], &xs[1]), &[b.clone(), a.clone()], name);
        check_labelled(&|xs| op(&xs[0], &xs[1]), &[col.clone(), b.clone()], name);
        check_labelled(
            &|xs| op(&xs[0], &xs[1]),
            &[a.clone(), Tensor::scalar(0.55f64)],
            name,
        );
        // Both operands again after the op: second derivatives with every term non-zero.
        check_labelled(
            &|xs| multiply(&op(&xs[0], &xs[1])?, &multiply(&xs[0], &xs[1])?),
            &[a.clone(), b.clone()],
            name,
        );
    }
}

#[test]
fn gradcheck_pow() {
    let base = t64(&[0.4, 1.3, 2.2, 0.9, 3.1, 1.7], &[2, 3]);
    let exponent = v64(&[-1.3, 0.5, 2.2]);
    let f = |xs: &[Tensor]| pow(&xs[0], &xs[1]);
    check_labelled(&f, &[base.clone(), exponent.clone()], "pow");
    check_labelled(&f, &[v64(&[1.3, 0.5, 2.2]), base.clone()], "pow");
    check_labelled(&f, &[base.clone(), Tensor::scalar(3.0f64)], "pow");
    check_labelled(
        &|xs| pow(&multiply(&xs[0], &xs[1])?, &xs[1]),
        &[base, v64(&[1.3, 0.5, 2.2])],
        "pow",
    );
}

#[test]
fn gradcheck_floormod() {
    let a = t64(&[5.3, -2.7, 7.9, -6.1, 1.4, 3.3], &[2, 3]);
    let b = v64(&[2.1, -1.6, 3.7]);
    let f = |xs: &[Tensor]| floormod(&xs[0], &xs[1]);
    check_labelled(&f, &[a.clone(), b.clone()], "floormod");
    check_labelled(
        &|xs| multiply(&floormod(&xs[0], &xs[1])?, &xs[1]),
        &[a, b],
        "floormod",
    );
}

#[test]
fn gradcheck_where() {
    let cond = bools(&[true, false], &[2, 1]);
    let x = v64(&[0.3, -1.2, 2.5]);
    let y = t64(&[1.1, 0.6, -0.8, 2.0, -1.4, 0.2], &[2, 3]);
    let f = |xs: &[Tensor]| {
        let w = where_(&cond, &xs[0], &xs[1])?;
        multiply(&w, &w)
    };
    check_labelled(&f, &[x.clone(), y.clone()], "where");
    check_labelled(&f, &[x, Tensor::scalar(0.7f64)], "where");
}

#[test]
fn gradcheck_clip_by_value() {
    let t = t64(&[-2.0, -0.5, 0.3, 1.7, 0.9, -1.1], &[2, 3]);
    let lo = v64(&[-1.0, -0.7, -1.2]);
    let hi = Tensor::scalar(1.0f64);
    let f = |xs: &[Tensor]| {
        let c = clip_by_value(&xs[0], &xs[1], &xs[2])?;
        multiply(&c, &c)
    };
    check_labelled(&f, &[t, lo, hi], "clip_by_value");
}

#[test]
fn third_order_through_nested_tapes() {
    // d^3/dx^3 tanh(x) = -2 (1 - t^2)(1 - 3 t^2), t = tanh(x).
    let x = Tensor::scalar(0.6f64);
    let t3 = Tape::new(false, true);
    let d2 = {
        let _r3 = t3.enter().unwrap();
        t3.watch(&x);
        let t2 = Tape::new(false, true);
        let d1 = {
            let _r2 = t2.enter().unwrap();
            t2.watch(&x);
            let t1 = Tape::new(false, true);
            let y = {
                let _r1 = t1.enter().unwrap();
                t1.watch(&x);
                tanh(&x).unwrap()
            };
            t1.gradient(&[y], &[(&x).into()], None, Unconnected::None)
                .unwrap()
                .pop()
                .unwrap()
                .unwrap()
        };
        t2.gradient(&[d1], &[(&x).into()], None, Unconnected::None)
            .unwrap()
            .pop()
            .unwrap()
            .unwrap()
    };
    let d3 = t3
        .gradient(&[d2], &[(&x).into()], None, Unconnected::None)
        .unwrap()
        .pop()
        .unwrap()
        .unwrap();
    let t = 0.6f64.tanh();
    assert_close(
        &d3.to_f64_vec(),
        &[-2.0 * (1.0 - t * t) * (1.0 - 3.0 * t * t)],
        1e-12,
    );
}

// ------------------------------------------------------------------------------------------
// TensorFlow's gradient rules at ties, kinks and domain edges

#[test]
fn maximum_and_minimum_give_ties_to_the_first_operand() {
    let x = v64(&[1.0, 2.0, 3.0]);
    let y = v64(&[1.0, 0.0, 5.0]);
    assert_eq!(
        grad_values(&|xs| maximum(&xs[0], &xs[1]), &[x.clone(), y.clone()]),
        vec![vec![1.0, 1.0, 0.0], vec![0.0, 0.0, 1.0]]
    );
    assert_eq!(
        grad_values(&|xs| minimum(&xs[0], &xs[1]), &[x.clone(), y.clone()]),
        vec![vec![1.0, 0.0, 1.0], vec![0.0, 1.0, 0.0]]
    );
    // Broadcast operand: its gradient is summed over the elements it wins.
    let m = t64(&[1.0, 2.0, 3.0, 4.0, 2.0, 0.0], &[2, 3]);
    let g = grad_values(&|xs| maximum(&xs[0], &xs[1]), &[m, Tensor::scalar(2.0f64)]);
    assert_eq!(g, vec![vec![0.0, 1.0, 1.0, 1.0, 1.0, 0.0], vec![2.0]]);
}

#[test]
fn clip_by_value_gradients_match_tensorflow_at_the_bounds() {
    let t = v64(&[-2.0, -1.0, 0.0, 1.0, 2.0]);
    let g = grad_values(
        &|xs| clip_by_value(&xs[0], &xs[1], &xs[2]),
        &[t, Tensor::scalar(-1.0f64), Tensor::scalar(1.0f64)],
    );
    assert_eq!(g, vec![vec![0.0, 1.0, 1.0, 1.0, 0.0], vec![1.0], vec![1.0]]);
}

#[test]
fn pow_gradients_at_zero_and_negative_bases() {
    let a = v64(&[0.0, -2.0, 3.0, 2.0]);
    let b = v64(&[2.0, 2.0, 2.0, 0.5]);
    let g = grad_values(&|xs| pow(&xs[0], &xs[1]), &[a, b]);
    assert_close(&g[0], &[0.0, -4.0, 6.0, 0.5 / 2f64.sqrt()], 1e-15);
    assert_close(
        &g[1],
        &[0.0, 0.0, 9.0 * 3f64.ln(), 2f64.sqrt() * 2f64.ln()],
        1e-15,
    );
}

#[test]
fn gradients_at_kinks_follow_tensorflow() {
    let x = v64(&[-1.0, 0.0, 1.0]);
    let g = |op: Unary| grad_values(&|xs| op(&xs[0]), std::slice::from_ref(&x)).remove(0);
    assert_eq!(g(relu), vec![0.0, 0.0, 1.0]);
    assert_eq!(g(abs), vec![-1.0, 0.0, 1.0]);
    assert_close(&g(elu), &[(-1f64).exp(), 1.0, 1.0], 1e-15);
    // sign has a zero gradient, not None.
    assert_eq!(g(sign), vec![0.0, 0.0, 0.0]);
}

#[test]
fn floormod_gradient() {
    let a = v64(&[7.0, -7.0, 7.5]);
    let b = v64(&[2.0, 2.0, -2.0]);
    let g = grad_values(&|xs| floormod(&xs[0], &xs[1]), &[a, b]);
    assert_eq!(g, vec![vec![1.0, 1.0, 1.0], vec![-3.0, 4.0, 4.0]]);
}

#[test]
fn non_differentiable_ops_are_not_recorded() {
    let x = v64(&[0.4, 1.6]);
    let y = v64(&[1.5, 0.5]);
    let cases: Vec<(&str, Boxed)> = vec![
        ("round", Box::new(|xs| round(&xs[0]))),
        ("floor", Box::new(|xs| floor(&xs[0]))),
        ("floordiv", Box::new(|xs| floordiv(&xs[0], &xs[1]))),
        (
            "less",
            Box::new(|xs| cast(&less(&xs[0], &xs[1])?, DType::F64)),
        ),
        (
            "equal",
            Box::new(|xs| cast(&equal(&xs[0], &xs[1])?, DType::F64)),
        ),
        (
            "where_indices",
            Box::new(|xs| cast(&where_indices(&greater(&xs[0], &xs[1])?)?, DType::F64)),
        ),
    ];
    for (name, f) in cases {
        let tape = Tape::new(false, true);
        let out = {
            let _r = tape.enter().unwrap();
            tape.watch(&x);
            tape.watch(&y);
            f(&[x.clone(), y.clone()]).unwrap()
        };
        assert!(tape.is_empty(), "{name} recorded {} nodes", tape.len());
        let g = tape
            .gradient(&[out], &[(&x).into(), (&y).into()], None, Unconnected::None)
            .unwrap();
        assert!(g.iter().all(Option::is_none), "{name}");
    }
}

#[test]
fn where_gradient_masks_and_reduces() {
    let cond = bools(&[true, false, true], &[3]);
    let x = t64(&[1.0, 2.0, 3.0, 4.0, 5.0, 6.0], &[2, 3]);
    let y = Tensor::scalar(0.5f64);
    let g = grad_values(&|xs| where_(&cond, &xs[0], &xs[1]), &[x, y]);
    assert_eq!(g, vec![vec![1.0, 0.0, 1.0, 1.0, 0.0, 1.0], vec![2.0]]);
}

#[test]
fn cast_passes_gradients_between_float_dtypes() {
    let x = v64(&[1.0, 2.0]);
    let g = gradients(
        &|xs| multiply(&cast(&xs[0], DType::F32)?, &v32(&[3.0, 4.0])),
        &[x],
    )
    .unwrap();
    let g = g[0].as_ref().unwrap();
    assert_eq!(g.dtype(), DType::F64);
    assert_eq!(g.to_f64_vec(), vec![3.0, 4.0]);
}

// ------------------------------------------------------------------------------------------
// float32 against float64

#[test]
fn float32_forward_and_gradients_match_float64() {
    let xs = [-1.7f32, -0.3, 0.4, 1.2, 2.2];
    let pos = [0.3f32, 1.1, 2.5, 4.0];
    for (name, op) in unary_ops() {
        let inputs: &[f32] = if matches!(name, "sqrt" | "log") {
            &pos
        } else {
            &xs
        };
        let x32 = v32(inputs);
        let x64 = cast(&x32, DType::F64).unwrap();
        let y32 = op(&x32).unwrap();
        assert_eq!(y32.dtype(), DType::F32, "{name}");
        assert_close(&y32.to_f64_vec(), &op(&x64).unwrap().to_f64_vec(), 2e-6);
        let f = |xs: &[Tensor]| op(&xs[0]);
        let (g32, g64) = (
            gradients(&f, &[x32]).unwrap(),
            gradients(&f, &[x64]).unwrap(),
        );
        match (&g32[0], &g64[0]) {
            (Some(a), Some(b)) => {
                assert_eq!(a.dtype(), DType::F32, "{name}");
                assert_close(&a.to_f64_vec(), &b.to_f64_vec(), 2e-6);
            }
            (None, None) => assert!(matches!(name, "round" | "floor"), "{name} has no gradient"),
            _ => panic!("{name}: float32 and float64 disagree on whether there is a gradient"),
        }
    }
    let a32 = Tensor::from_vec(vec![0.4f32, 1.3, 2.2, 0.9, 3.1, 1.7], &[2, 3]).unwrap();
    let b32 = v32(&[1.3, 0.5, 2.2]);
    let (a64, b64) = (
        cast(&a32, DType::F64).unwrap(),
        cast(&b32, DType::F64).unwrap(),
    );
    for (name, op) in binary_ops() {
        let y32 = op(&a32, &b32).unwrap();
        let y64 = op(&a64, &b64).unwrap();
        assert_close(&y32.to_f64_vec(), &y64.to_f64_vec(), 2e-6);
        if y32.dtype() == DType::Bool {
            continue;
        }
        let f = |xs: &[Tensor]| op(&xs[0], &xs[1]);
        let (g32, g64) = (
            gradients(&f, &[a32.clone(), b32.clone()]).unwrap(),
            gradients(&f, &[a64.clone(), b64.clone()]).unwrap(),
        );
        for (i, (p, q)) in g32.iter().zip(&g64).enumerate() {
            match (p, q) {
                (Some(p), Some(q)) => {
                    assert_eq!(p.dtype(), DType::F32, "{name}");
                    assert_eq!(
                        p.shape(),
                        if i == 0 { a32.shape() } else { b32.shape() },
                        "{name}"
                    );
                    assert_close(&p.to_f64_vec(), &q.to_f64_vec(), 2e-6);
                }
                (None, None) => assert_eq!(name, "floordiv"),
                _ => panic!("{name}: float32 and float64 disagree on whether there is a gradient"),
            }
        }
    }
}
