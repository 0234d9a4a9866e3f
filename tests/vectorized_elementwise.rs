//! Elementwise ops take batched cotangents: the vectorised Jacobian equals the row-by-row one.
use rustape::ops::*;
use rustape::testing::{check_vectorized, pseudo_random};
use rustape::{DType, Result, Tensor};

type Unary = fn(&Tensor) -> Result<Tensor>;

#[test]
fn unary_ops_vectorise() {
    let x = pseudo_random(&[3, 4], 1); // in [0.5, 1.5): inside every domain
    let ops: [(&str, Unary); 14] = [
        ("negative", negative),
        ("abs", abs),
        ("sign", sign),
        ("square", square),
        ("sqrt", sqrt),
        ("exp", exp),
        ("log", log),
        ("log1p", log1p),
        ("sin", sin),
        ("cos", cos),
        ("tan", tan),
        ("tanh", tanh),
        ("sigmoid", sigmoid),
        ("softplus", softplus),
    ];
    for (name, op) in ops {
        // Times x, so the path is not linear and the VJP's saved tensors matter.
        let f = move |xs: &[Tensor]| multiply(&op(&xs[0])?, &xs[0]);
        check_vectorized(&f, std::slice::from_ref(&x), 1e-12)
            .unwrap_or_else(|e| panic!("{name}: {e}"));
    }
    let shifted = subtract(&x, &Tensor::scalar(1.0f64)).unwrap(); // both signs: relu, elu kinks
    for (name, op) in [("relu", relu as Unary), ("elu", elu)] {
        let f = move |xs: &[Tensor]| multiply(&op(&xs[0])?, &xs[0]);
        check_vectorized(&f, std::slice::from_ref(&shifted), 1e-12)
            .unwrap_or_else(|e| panic!("{name}: {e}"));
    }
}

#[test]
fn binary_ops_vectorise_with_broadcasting() {
    type Binary = fn(&Tensor, &Tensor) -> Result<Tensor>;
    let ops: [(&str, Binary); 8] = [
        ("add", add),
        ("subtract", subtract),
        ("multiply", multiply),
        ("divide", divide),
        ("pow", pow),
        ("maximum", maximum),
        ("minimum", minimum),
        ("floormod", floormod),
    ];
    for (sa, sb) in [
        (vec![3, 4], vec![3, 4]),
        (vec![3, 4], vec![4]),
        (vec![3, 1], vec![1, 4]),
        (vec![], vec![2, 3]),
    ] {
        let a = pseudo_random(&sa, 2);
        let b = add(&pseudo_random(&sb, 3), &Tensor::scalar(0.25f64)).unwrap();
        for (name, op) in ops {
            let f = move |xs: &[Tensor]| multiply(&op(&xs[0], &xs[1])?, &xs[0]);
            check_vectorized(&f, &[a.clone(), b.clone()], 1e-12)
                .unwrap_or_else(|e| panic!("{name} {sa:?} {sb:?}: {e}"));
        }
    }
}

#[test]
fn selection_casts_and_second_order_vectorise() {
    let x = subtract(&pseudo_random(&[4, 3], 5), &Tensor::scalar(1.0f64)).unwrap();
    let f = |xs: &[Tensor]| {
        let positive = greater(&xs[0], &Tensor::scalar(0.0f64))?;
        let w = where_(&positive, &square(&xs[0])?, &sin(&xs[0])?)?;
        let c = clip_by_value(&w, &Tensor::scalar(-0.3f64), &Tensor::scalar(0.3f64))?;
        let back = cast(&cast(&c, DType::F32)?, DType::F64)?;
        multiply(&add(&back, &stop_gradient(&xs[0]))?, &xs[0])
    };
    check_vectorized(&f, std::slice::from_ref(&x), 1e-6).unwrap();
    // The Jacobian of a gradient: the backward ops of the inner tape vectorise too.
    let g = |xs: &[Tensor]| {
        let loss =
            |ys: &[Tensor]| reduce_sum(&multiply(&tanh(&ys[0])?, &sigmoid(&ys[0])?)?, None, false);
        Ok(rustape::testing::analytic_gradient(&loss, xs)?.remove(0))
    };
    check_vectorized(&g, &[x], 1e-12).unwrap();
}
