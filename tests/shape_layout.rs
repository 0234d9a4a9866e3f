//! Layout ops: transpose, squeeze, unstack, tile, concat, stack, slice_axis and pad_axis.
//! Values written out by hand (NumPy / TensorFlow semantics), first- and second-order
//! gradchecks in float64, and the errors.
use rustape::ops::{
    concat, multiply, pad_axis, slice_axis, squeeze, stack, tile, transpose, unstack,
};
use rustape::testing::pseudo_random;
use rustape::{DType, ErrorKind, Tensor};

mod support;
use support::shape::*;
use support::*;

// ---------------------------------------------------------------- transpose

#[test]
fn transpose_values() {
    let x = arange(&[2, 3]);
    assert_tensor(
        &transpose(&x, None).unwrap(),
        &[3, 2],
        &[0., 3., 1., 4., 2., 5.],
    );
    // y[i, j, k] = x[j, k, i] for perm [2, 0, 1].
    let x = arange(&[2, 2, 3]);
    let y = transpose(&x, Some(&[2, 0, 1])).unwrap();
    assert_tensor(
        &y,
        &[3, 2, 2],
        &[0., 3., 6., 9., 1., 4., 7., 10., 2., 5., 8., 11.],
    );
    // None reverses every axis: y[i, j, k] = x[k, j, i].
    let y = transpose(&x, None).unwrap();
    assert_tensor(
        &y,
        &[3, 2, 2],
        &[0., 6., 3., 9., 1., 7., 4., 10., 2., 8., 5., 11.],
    );
    // Integer tensors transpose too.
    let xi = i32s(&[1, 2, 3, 4, 5, 6], &[2, 3]);
    let yi = transpose(&xi, Some(&[1, 0])).unwrap();
    assert_eq!(yi.dtype(), DType::I32);
    assert_tensor(&yi, &[3, 2], &[1., 4., 2., 5., 3., 6.]);
}

#[test]
fn transpose_gradients() {
    let x = pseudo_random(&[2, 3, 4], 1);
    check(
        &|xs| curved(transpose(&xs[0], Some(&[2, 0, 1]))?),
        std::slice::from_ref(&x),
    );
    check(
        &|xs| curved(transpose(&xs[0], Some(&[1, 2, 0]))?),
        std::slice::from_ref(&x),
    );
    check(&|xs| curved(transpose(&xs[0], None)?), &[x]);
    // The gradient of sum(transpose(x) * w) is transpose(w) with the inverse permutation.
    let x = arange(&[2, 3]);
    let w = t64(&[1., 2., 3., 4., 5., 6.], &[3, 2]);
    let g = gradient(&|x| multiply(&transpose(x, None)?, &w), &x).unwrap();
    assert_tensor(&g, &[2, 3], &[1., 3., 5., 2., 4., 6.]);
}

#[test]
fn transpose_errors() {
    let x = arange(&[2, 3, 4]);
    assert_err(
        transpose(&x, Some(&[0, 1])),
        ErrorKind::Value,
        "transpose",
        &["[0, 1]", "[2, 3, 4]"],
    );
    assert_err(
        transpose(&x, Some(&[0, 1, 1])),
        ErrorKind::Value,
        "transpose",
        &["[0, 1, 1]"],
    );
    assert_err(
        transpose(&x, Some(&[0, 1, 3])),
        ErrorKind::Value,
        "transpose",
        &["[0, 1, 3]"],
    );
}

// ---------------------------------------------------------------- squeeze

#[test]
fn squeeze_values() {
    let x = arange(&[1, 3, 1, 2]);
    assert_tensor(
        &squeeze(&x, None).unwrap(),
        &[3, 2],
        &[0., 1., 2., 3., 4., 5.],
    );
    assert_tensor(
        &squeeze(&x, Some(&[-2])).unwrap(),
        &[1, 3, 2],
        &[0., 1., 2., 3., 4., 5.],
    );
    assert_tensor(
        &squeeze(&x, Some(&[0, 2])).unwrap(),
        &[3, 2],
        &[0., 1., 2., 3., 4., 5.],
    );
    assert_tensor(&squeeze(&arange(&[1, 1]), None).unwrap(), &[], &[0.]);
}

#[test]
fn squeeze_gradients() {
    let x = pseudo_random(&[1, 3, 1, 2], 2);
    check(
        &|xs| curved(squeeze(&xs[0], None)?),
        std::slice::from_ref(&x),
    );
    check(&|xs| curved(squeeze(&xs[0], Some(&[2]))?), &[x]);
}

#[test]
fn squeeze_errors() {
    let x = arange(&[1, 3, 1, 2]);
    assert_err(
        squeeze(&x, Some(&[1])),
        ErrorKind::Shape,
        "squeeze",
        &["axis 1", "[1, 3, 1, 2]", "3"],
    );
    assert_err(
        squeeze(&x, Some(&[4])),
        ErrorKind::Value,
        "squeeze",
        &["axis 4"],
    );
}

// ---------------------------------------------------------------- unstack

#[test]
fn unstack_values() {
    let x = arange(&[2, 3]);
    let rows = unstack(&x, 0).unwrap();
    assert_eq!(rows.len(), 2);
    assert_tensor(&rows[0], &[3], &[0., 1., 2.]);
    assert_tensor(&rows[1], &[3], &[3., 4., 5.]);
    let cols = unstack(&x, -1).unwrap();
    assert_eq!(cols.len(), 3);
    assert_tensor(&cols[0], &[2], &[0., 3.]);
    assert_tensor(&cols[1], &[2], &[1., 4.]);
    assert_tensor(&cols[2], &[2], &[2., 5.]);
    assert!(unstack(&arange(&[0, 2]), 0).unwrap().is_empty());
    let xi = i32s(&[1, 2, 3, 4], &[2, 2]);
    assert_tensor(&unstack(&xi, 1).unwrap()[1], &[2], &[2., 4.]);
}

#[test]
fn unstack_gradients() {
    let x = pseudo_random(&[2, 3, 2], 3);
    // Part 1 is unused: its gradient is None and becomes zeros in the stacked gradient.
    check(
        &|xs| {
            let parts = unstack(&xs[0], 1)?;
            curved(multiply(&parts[0], &parts[2])?)
        },
        std::slice::from_ref(&x),
    );
    check(&|xs| curved(stack(&unstack(&xs[0], -1)?, 0)?), &[x]);
    // d/dx sum(parts[0] * 2 + parts[2] * 3) along axis 0: rows 0 and 2 get 2 and 3, row 1 zeros.
    let g = gradient(
        &|x| {
            let parts = unstack(x, 0)?;
            rustape::ops::add(
                &multiply(&parts[0], &Tensor::scalar(2.0f64))?,
                &multiply(&parts[2], &Tensor::scalar(3.0f64))?,
            )
        },
        &arange(&[3, 2]),
    )
    .unwrap();
    assert_tensor(&g, &[3, 2], &[2., 2., 0., 0., 3., 3.]);
}

#[test]
fn unstack_errors() {
    assert_err(
        unstack(&Tensor::scalar(1.0f64), 0),
        ErrorKind::Shape,
        "unstack",
        &["scalar"],
    );
    assert_err(
        unstack(&arange(&[2, 3]), 2),
        ErrorKind::Value,
        "unstack",
        &["axis 2", "rank 2"],
    );
}

// ---------------------------------------------------------------- tile

#[test]
fn tile_values() {
    let x = t64(&[1., 2., 3., 4.], &[2, 2]);
    #[rustfmt::skip]
    let expected = [
        1., 2., 1., 2., 1., 2.,
        3., 4., 3., 4., 3., 4.,
        1., 2., 1., 2., 1., 2.,
        3., 4., 3., 4., 3., 4.,
    ];
    assert_tensor(&tile(&x, &[2, 3]).unwrap(), &[4, 6], &expected);
    assert_tensor(
        &tile(&t64(&[1., 2.], &[2]), &[3]).unwrap(),
        &[6],
        &[1., 2., 1., 2., 1., 2.],
    );
    assert_tensor(&tile(&x, &[0, 1]).unwrap(), &[0, 2], &[]);
    let xi = i32s(&[5, 6], &[2, 1]);
    assert_tensor(&tile(&xi, &[1, 2]).unwrap(), &[2, 2], &[5., 5., 6., 6.]);
}

#[test]
fn tile_gradients() {
    let x = t64(&[1., 2., 3., 4.], &[2, 2]);
    assert_tensor(
        &gradient(&|x| tile(x, &[2, 3]), &x).unwrap(),
        &[2, 2],
        &[6., 6., 6., 6.],
    );
    check(
        &|xs| curved(tile(&xs[0], &[3, 2])?),
        &[pseudo_random(&[2, 3], 5)],
    );
    check(
        &|xs| curved(tile(&xs[0], &[1, 4, 2])?),
        &[pseudo_random(&[2, 1, 3], 6)],
    );
}

#[test]
fn tile_errors() {
    assert_err(
        tile(&arange(&[2, 3]), &[2]),
        ErrorKind::Shape,
        "tile",
        &["[2, 3]"],
    );
}

// ---------------------------------------------------------------- concat / stack

#[test]
fn concat_and_stack_values() {
    let a = t64(&[1., 2., 3., 4.], &[2, 2]);
    let b = t64(&[5., 6.], &[1, 2]);
    assert_tensor(
        &concat(&[a.clone(), b.clone()], 0).unwrap(),
        &[3, 2],
        &[1., 2., 3., 4., 5., 6.],
    );
    let c = t64(&[7., 8.], &[2, 1]);
    assert_tensor(
        &concat(&[a.clone(), c], -1).unwrap(),
        &[2, 3],
        &[1., 2., 7., 3., 4., 8.],
    );
    let d = t64(&[5., 6., 7., 8.], &[2, 2]);
    assert_tensor(
        &stack(&[a.clone(), d.clone()], 0).unwrap(),
        &[2, 2, 2],
        &[1., 2., 3., 4., 5., 6., 7., 8.],
    );
    assert_tensor(
        &stack(&[a.clone(), d.clone()], 1).unwrap(),
        &[2, 2, 2],
        &[1., 2., 5., 6., 3., 4., 7., 8.],
    );
    assert_tensor(
        &stack(&[a, d], -1).unwrap(),
        &[2, 2, 2],
        &[1., 5., 2., 6., 3., 7., 4., 8.],
    );
}

#[test]
fn concat_and_stack_gradients() {
    let (a, b) = (pseudo_random(&[2, 3], 15), pseudo_random(&[2, 2], 16));
    check(
        &|xs| curved(concat(&[xs[0].clone(), xs[1].clone(), xs[0].clone()], 1)?),
        &[a.clone(), b],
    );
    let c = pseudo_random(&[2, 3], 17);
    check(
        &|xs| curved(stack(&[xs[0].clone(), xs[1].clone()], 1)?),
        &[a.clone(), c.clone()],
    );
    check(
        &|xs| curved(stack(&[xs[1].clone(), xs[0].clone()], -1)?),
        &[a, c],
    );
}

#[test]
fn concat_and_stack_errors() {
    let a = arange(&[2, 2]);
    assert_err(
        concat(&[a.clone(), arange(&[3, 3])], 0),
        ErrorKind::Shape,
        "concat",
        &["[2, 2]", "[3, 3]"],
    );
    assert_err(concat(&[], 0), ErrorKind::Value, "concat", &[]);
    let f32s = Tensor::from_vec(vec![1.0f32; 4], &[2, 2]).unwrap();
    assert_err(
        concat(&[a.clone(), f32s.clone()], 0),
        ErrorKind::DType,
        "concat",
        &["float64", "float32"],
    );
    assert_err(
        stack(&[a.clone(), arange(&[2, 3])], 0),
        ErrorKind::Shape,
        "stack",
        &["[2, 2]", "[2, 3]"],
    );
    assert_err(
        stack(&[a.clone(), f32s], 0),
        ErrorKind::DType,
        "stack",
        &["float64", "float32"],
    );
    assert_err(
        stack(std::slice::from_ref(&a), 3),
        ErrorKind::Value,
        "stack",
        &["axis 3"],
    );
    assert_err(
        pad_axis(&a, 2, 1, 1),
        ErrorKind::Value,
        "pad_axis",
        &["axis 2", "[2, 2]"],
    );
    assert_err(
        slice_axis(&a, 0, 1, 3),
        ErrorKind::Value,
        "slice_axis",
        &["1..3", "[2, 2]"],
    );
}

#[test]
fn slice_axis_and_pad_axis() {
    let x = arange(&[2, 3]);
    assert_tensor(
        &slice_axis(&x, 1, 1, 3).unwrap(),
        &[2, 2],
        &[1., 2., 4., 5.],
    );
    assert_tensor(
        &pad_axis(&x, 0, 1, 0).unwrap(),
        &[3, 3],
        &[0., 0., 0., 0., 1., 2., 3., 4., 5.],
    );
    check(
        &|xs| curved(slice_axis(&xs[0], 1, 1, 3)?),
        &[pseudo_random(&[2, 3], 18)],
    );
    check(
        &|xs| curved(pad_axis(&xs[0], 1, 2, 1)?),
        &[pseudo_random(&[2, 3], 19)],
    );
}
