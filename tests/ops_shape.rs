//! Shape ops and creation ops: values written out by hand (NumPy / TensorFlow semantics),
//! first- and second-order gradchecks in float64, and the errors.
use rustape::ops::{
    concat, fill, gather, linspace, multiply, one_hot, ones_like, pad, pad_axis, range, reduce_sum,
    scatter_add_to, sin, slice_axis, squeeze, stack, strided_slice, strided_slice_grad, tile,
    transpose, unstack, zeros_like, PadMode, SliceItem,
};
use rustape::testing::{gradcheck, pseudo_random, Tolerance};
use rustape::{DType, Error, ErrorKind, Result, Tape, Tensor, Unconnected};

use SliceItem::{Ellipsis, Index, NewAxis};

/// `0, 1, ..., n - 1` in float64, shaped.
fn arange(shape: &[usize]) -> Tensor {
    let n: usize = shape.iter().product();
    Tensor::from_vec((0..n).map(|v| v as f64).collect(), shape).unwrap()
}

fn f64s(values: &[f64], shape: &[usize]) -> Tensor {
    Tensor::from_vec(values.to_vec(), shape).unwrap()
}

fn i32s(values: &[i32], shape: &[usize]) -> Tensor {
    Tensor::from_vec(values.to_vec(), shape).unwrap()
}

fn assert_tensor(t: &Tensor, shape: &[usize], values: &[f64]) {
    assert_eq!(t.shape(), shape, "shape of {t:?}");
    assert_eq!(t.to_f64_vec(), values, "values of {t:?}");
}

fn assert_close(t: &Tensor, shape: &[usize], values: &[f64]) {
    assert_eq!(t.shape(), shape, "shape of {t:?}");
    for (a, b) in t.to_f64_vec().iter().zip(values) {
        assert!(
            (a - b).abs() <= 1e-12 * (1.0 + b.abs()),
            "{t:?} vs {values:?}"
        );
    }
    assert_eq!(t.size(), values.len());
}

/// d sum(f(x)) / dx.
fn grad_of_sum(f: impl Fn(&Tensor) -> Result<Tensor>, x: &Tensor) -> Tensor {
    let tape = Tape::new(false, true);
    let y = {
        let _r = tape.enter().unwrap();
        tape.watch(x);
        reduce_sum(&f(x).unwrap(), None, false).unwrap()
    };
    tape.gradient(&[y], &[x.into()], None, Unconnected::Zero)
        .unwrap()
        .pop()
        .unwrap()
        .unwrap()
}

/// `y * sin(y)`: a nonlinearity after the op, so the second-order check goes through the
/// op's VJP (a linear op alone has a zero second derivative that needs no VJP of the VJP).
fn curved(y: Tensor) -> Result<Tensor> {
    multiply(&y, &sin(&y)?)
}

fn check(f: &dyn Fn(&[Tensor]) -> Result<Tensor>, inputs: &[Tensor]) {
    gradcheck(f, inputs, true, Tolerance::default()).unwrap();
}

fn assert_err(
    result: Result<impl std::fmt::Debug>,
    kind: ErrorKind,
    op: &str,
    needles: &[&str],
) -> Error {
    let err = result.expect_err("expected an error");
    assert_eq!(err.kind, kind, "{err}");
    assert_eq!(err.op, op, "{err}");
    for needle in needles {
        assert!(
            err.message.contains(needle),
            "{err:?} should mention {needle:?}"
        );
    }
    err
}

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
    let w = f64s(&[1., 2., 3., 4., 5., 6.], &[3, 2]);
    let g = grad_of_sum(|x| multiply(&transpose(x, None)?, &w), &x);
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
    let g = grad_of_sum(
        |x| {
            let parts = unstack(x, 0)?;
            rustape::ops::add(
                &multiply(&parts[0], &Tensor::scalar(2.0f64))?,
                &multiply(&parts[2], &Tensor::scalar(3.0f64))?,
            )
        },
        &arange(&[3, 2]),
    );
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

// ---------------------------------------------------------------- pad

#[test]
fn pad_values_match_the_tensorflow_docs() {
    let t = f64s(&[1., 2., 3., 4., 5., 6.], &[2, 3]);
    let p = [(1, 1), (2, 2)];
    #[rustfmt::skip]
    let constant = [
        0., 0., 0., 0., 0., 0., 0.,
        0., 0., 1., 2., 3., 0., 0.,
        0., 0., 4., 5., 6., 0., 0.,
        0., 0., 0., 0., 0., 0., 0.,
    ];
    assert_tensor(
        &pad(&t, &p, PadMode::Constant, 0.0).unwrap(),
        &[4, 7],
        &constant,
    );
    #[rustfmt::skip]
    let reflect = [
        6., 5., 4., 5., 6., 5., 4.,
        3., 2., 1., 2., 3., 2., 1.,
        6., 5., 4., 5., 6., 5., 4.,
        3., 2., 1., 2., 3., 2., 1.,
    ];
    assert_tensor(
        &pad(&t, &p, PadMode::Reflect, 0.0).unwrap(),
        &[4, 7],
        &reflect,
    );
    #[rustfmt::skip]
    let symmetric = [
        2., 1., 1., 2., 3., 3., 2.,
        2., 1., 1., 2., 3., 3., 2.,
        5., 4., 4., 5., 6., 6., 5.,
        5., 4., 4., 5., 6., 6., 5.,
    ];
    assert_tensor(
        &pad(&t, &p, PadMode::Symmetric, 0.0).unwrap(),
        &[4, 7],
        &symmetric,
    );
}

#[test]
fn pad_constant_value_and_dtypes() {
    let t = i32s(&[1, 2, 3], &[3]);
    let y = pad(&t, &[(2, 1)], PadMode::Constant, 7.0).unwrap();
    assert_eq!(y.dtype(), DType::I32);
    assert_tensor(&y, &[6], &[7., 7., 1., 2., 3., 7.]);
    let y = pad(&t, &[(0, 2)], PadMode::Reflect, 0.0).unwrap();
    assert_tensor(&y, &[5], &[1., 2., 3., 2., 1.]);
    let y = pad(&t, &[(3, 3)], PadMode::Symmetric, 0.0).unwrap();
    assert_tensor(&y, &[9], &[3., 2., 1., 1., 2., 3., 3., 2., 1.]);
    let x = Tensor::from_vec(vec![1.5f32, -2.0], &[2, 1]).unwrap();
    let y = pad(&x, &[(0, 1), (1, 0)], PadMode::Constant, -1.0).unwrap();
    assert_eq!(y.dtype(), DType::F32);
    assert_tensor(&y, &[3, 2], &[-1., 1.5, -1., -2., -1., -1.]);
}

#[test]
fn pad_gradients() {
    // Each input element's gradient counts how often it appears in the padded result.
    let x = f64s(&[1., 2., 3.], &[3]);
    // [3, 2, 1, 2, 3, 2, 1]
    assert_tensor(
        &grad_of_sum(|x| pad(x, &[(2, 2)], PadMode::Reflect, 0.0), &x),
        &[3],
        &[2., 3., 2.],
    );
    // [2, 1, 1, 2, 3, 3, 2]
    assert_tensor(
        &grad_of_sum(|x| pad(x, &[(2, 2)], PadMode::Symmetric, 0.0), &x),
        &[3],
        &[2., 3., 2.],
    );
    assert_tensor(
        &grad_of_sum(|x| pad(x, &[(2, 2)], PadMode::Constant, 5.0), &x),
        &[3],
        &[1., 1., 1.],
    );

    let x = pseudo_random(&[3, 4], 4);
    check(
        &|xs| curved(pad(&xs[0], &[(1, 0), (2, 3)], PadMode::Constant, 0.5)?),
        std::slice::from_ref(&x),
    );
    check(
        &|xs| curved(pad(&xs[0], &[(2, 1), (0, 3)], PadMode::Reflect, 0.0)?),
        std::slice::from_ref(&x),
    );
    check(
        &|xs| curved(pad(&xs[0], &[(3, 1), (4, 2)], PadMode::Symmetric, 0.0)?),
        &[x],
    );
}

#[test]
fn pad_errors() {
    let t = arange(&[2, 3]);
    assert_err(
        pad(&t, &[(1, 1)], PadMode::Constant, 0.0),
        ErrorKind::Shape,
        "pad",
        &["1 pairs", "[2, 3]"],
    );
    assert_err(
        pad(&t, &[(0, 0), (3, 0)], PadMode::Reflect, 0.0),
        ErrorKind::Value,
        "pad",
        &["axis 1", "size 3", "(3, 0)"],
    );
    assert_err(
        pad(&t, &[(0, 3), (0, 0)], PadMode::Symmetric, 0.0),
        ErrorKind::Value,
        "pad",
        &["axis 0", "size 2"],
    );
    // Symmetric allows the full size, reflect one less.
    assert!(pad(&t, &[(2, 2), (3, 3)], PadMode::Symmetric, 0.0).is_ok());
    assert!(pad(&t, &[(1, 1), (2, 2)], PadMode::Reflect, 0.0).is_ok());
}

// ---------------------------------------------------------------- tile

#[test]
fn tile_values() {
    let x = f64s(&[1., 2., 3., 4.], &[2, 2]);
    #[rustfmt::skip]
    let expected = [
        1., 2., 1., 2., 1., 2.,
        3., 4., 3., 4., 3., 4.,
        1., 2., 1., 2., 1., 2.,
        3., 4., 3., 4., 3., 4.,
    ];
    assert_tensor(&tile(&x, &[2, 3]).unwrap(), &[4, 6], &expected);
    assert_tensor(
        &tile(&f64s(&[1., 2.], &[2]), &[3]).unwrap(),
        &[6],
        &[1., 2., 1., 2., 1., 2.],
    );
    assert_tensor(&tile(&x, &[0, 1]).unwrap(), &[0, 2], &[]);
    let xi = i32s(&[5, 6], &[2, 1]);
    assert_tensor(&tile(&xi, &[1, 2]).unwrap(), &[2, 2], &[5., 5., 6., 6.]);
}

#[test]
fn tile_gradients() {
    let x = f64s(&[1., 2., 3., 4.], &[2, 2]);
    assert_tensor(
        &grad_of_sum(|x| tile(x, &[2, 3]), &x),
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

// ---------------------------------------------------------------- gather / scatter_add_to

#[test]
fn gather_values() {
    let p = f64s(&[1., 2., 3., 4., 5., 6.], &[3, 2]);
    let y = gather(&p, &i32s(&[2, 0, 2], &[3]), 0, 0).unwrap();
    assert_tensor(&y, &[3, 2], &[5., 6., 1., 2., 5., 6.]);
    // 2-D indices along axis 1: shape params[:1] + [2, 2].
    let idx = Tensor::from_vec(vec![1i64, 0, 1, 1], &[2, 2]).unwrap();
    let y = gather(&p, &idx, 1, 0).unwrap();
    assert_tensor(
        &y,
        &[3, 2, 2],
        &[2., 1., 2., 2., 4., 3., 4., 4., 6., 5., 6., 6.],
    );
    let y = gather(&p, &idx, -1, 0).unwrap();
    assert_eq!(y.shape(), &[3, 2, 2]);
    // A scalar index drops the axis.
    assert_tensor(
        &gather(&p, &Tensor::scalar(1i32), 0, 0).unwrap(),
        &[2],
        &[3., 4.],
    );
    // batch_dims = 1: out[b, i] = params[b, indices[b, i]].
    let p = f64s(&[1., 2., 3., 4., 5., 6.], &[2, 3]);
    let y = gather(&p, &i32s(&[2, 0, 1, 1], &[2, 2]), 1, 1).unwrap();
    assert_tensor(&y, &[2, 2], &[3., 1., 5., 5.]);
    // Integer params.
    let y = gather(&i32s(&[7, 8, 9], &[3]), &i32s(&[2, 2, 0], &[3]), 0, 0).unwrap();
    assert_tensor(&y, &[3], &[9., 9., 7.]);
}

#[test]
fn scatter_add_to_values() {
    let updates = f64s(&[1., 2., 3., 4., 5., 6.], &[3, 2]);
    let y = scatter_add_to(&updates, &i32s(&[2, 0, 2], &[3]), 0, 0, &[3, 2]).unwrap();
    assert_tensor(&y, &[3, 2], &[3., 4., 0., 0., 6., 8.]);
    let y = scatter_add_to(&updates, &i32s(&[1, 1], &[2]), 1, 0, &[2, 3]);
    assert_err(y, ErrorKind::Shape, "scatter_add_to", &["[3, 2]", "[2, 3]"]);
    let updates = f64s(&[1., 2., 3., 4.], &[2, 2]);
    let y = scatter_add_to(&updates, &i32s(&[1, 1, 0, 2], &[2, 2]), 1, 1, &[2, 3]).unwrap();
    assert_tensor(&y, &[2, 3], &[0., 3., 0., 3., 0., 4.]);
}

#[test]
fn gather_gradients() {
    let p = arange(&[3, 2]);
    let g = grad_of_sum(|p| gather(p, &i32s(&[2, 0, 2], &[3]), 0, 0), &p);
    assert_tensor(&g, &[3, 2], &[1., 1., 0., 0., 2., 2.]);

    let repeated0 = i32s(&[2, 0, 2, 2, 1], &[5]);
    check(
        &|xs| curved(gather(&xs[0], &repeated0, 0, 0)?),
        &[pseudo_random(&[3, 2], 7)],
    );
    let repeated1 = Tensor::from_vec(vec![3i64, 0, 3, 1, 1, 3], &[2, 3]).unwrap();
    check(
        &|xs| curved(gather(&xs[0], &repeated1, 1, 0)?),
        &[pseudo_random(&[2, 4, 3], 8)],
    );
    let batched = i32s(&[1, 1, 0, 2, 2, 2], &[2, 3]);
    check(
        &|xs| curved(gather(&xs[0], &batched, 1, 1)?),
        &[pseudo_random(&[2, 3, 2], 9)],
    );
    // scatter_add_to's VJP is gather (and that one's is scatter_add_to again).
    check(
        &|xs| curved(scatter_add_to(&xs[0], &repeated0, 0, 0, &[3, 2])?),
        &[pseudo_random(&[5, 2], 10)],
    );
    check(
        &|xs| curved(scatter_add_to(&xs[0], &repeated1, 1, 0, &[2, 4, 3])?),
        &[pseudo_random(&[2, 2, 3, 3], 11)],
    );
}

#[test]
fn gather_errors() {
    let p = arange(&[3, 2]);
    assert_err(
        gather(&p, &i32s(&[0, 3], &[2]), 0, 0),
        ErrorKind::Value,
        "gather",
        &["indices[1] = 3", "[0, 3)", "[3, 2]"],
    );
    assert_err(
        gather(&p, &i32s(&[0, -1], &[2]), 0, 0),
        ErrorKind::Value,
        "gather",
        &["indices[1] = -1", "[0, 3)"],
    );
    let idx = i32s(&[0, 1, 2, 0], &[2, 2]);
    assert_err(
        gather(&p, &idx, 1, 0),
        ErrorKind::Value,
        "gather",
        &["indices[1, 0] = 2", "[0, 2)", "axis 1"],
    );
    assert_err(
        gather(&p, &f64s(&[0.], &[1]), 0, 0),
        ErrorKind::DType,
        "gather",
        &["float64"],
    );
    assert_err(
        gather(&p, &i32s(&[0], &[1]), 2, 0),
        ErrorKind::Value,
        "gather",
        &["axis 2"],
    );
    assert_err(
        gather(&p, &i32s(&[0, 1], &[2]), 1, 1),
        ErrorKind::Shape,
        "gather",
        &["[3, 2]", "[2]"],
    );
    assert_err(
        gather(&p, &i32s(&[0, 1, 0], &[3]), 0, 1),
        ErrorKind::Value,
        "gather",
        &["batch_dims"],
    );
}

// ---------------------------------------------------------------- strided_slice

fn r(start: Option<isize>, stop: Option<isize>, step: isize) -> SliceItem {
    SliceItem::Range { start, stop, step }
}

#[test]
fn strided_slice_one_axis_like_numpy() {
    let v = arange(&[10]);
    let s = |items: &[SliceItem]| strided_slice(&v, items).unwrap();
    assert_tensor(&s(&[r(Some(8), Some(2), -2)]), &[3], &[8., 6., 4.]);
    assert_tensor(&s(&[r(None, None, -3)]), &[4], &[9., 6., 3., 0.]);
    assert_tensor(&s(&[r(Some(-3), None, 1)]), &[3], &[7., 8., 9.]);
    assert_tensor(&s(&[r(Some(-100), Some(3), 1)]), &[3], &[0., 1., 2.]);
    assert_tensor(&s(&[r(Some(5), Some(5), 1)]), &[0], &[]);
    assert_tensor(
        &s(&[r(Some(2), Some(8), 1)]),
        &[6],
        &[2., 3., 4., 5., 6., 7.],
    );
    assert_tensor(&s(&[r(Some(1), Some(100), 4)]), &[3], &[1., 5., 9.]);
    assert_tensor(&s(&[r(Some(100), Some(-100), -4)]), &[3], &[9., 5., 1.]);
    assert_tensor(&s(&[r(Some(-2), Some(-8), -3)]), &[2], &[8., 5.]);
    assert_tensor(&s(&[r(Some(3), Some(7), -1)]), &[0], &[]);
    assert_tensor(
        &s(&[r(None, Some(-11), -1)]),
        &[10],
        &[9., 8., 7., 6., 5., 4., 3., 2., 1., 0.],
    );
    assert_tensor(&s(&[Index(-1)]), &[], &[9.]);
    assert_tensor(&s(&[NewAxis, r(Some(0), Some(2), 1)]), &[1, 2], &[0., 1.]);
    assert_tensor(&s(&[r(Some(0), Some(2), 1), NewAxis]), &[2, 1], &[0., 1.]);
}

#[test]
fn strided_slice_several_axes_like_numpy() {
    let x = arange(&[2, 3, 4]);
    let s = |items: &[SliceItem]| strided_slice(&x, items).unwrap();
    // x[1, ::-1, 1:3]
    assert_tensor(
        &s(&[Index(1), r(None, None, -1), r(Some(1), Some(3), 1)]),
        &[3, 2],
        &[21., 22., 17., 18., 13., 14.],
    );
    // x[..., None, -1]
    assert_tensor(
        &s(&[Ellipsis, NewAxis, Index(-1)]),
        &[2, 3, 1],
        &[3., 7., 11., 15., 19., 23.],
    );
    // x[None, 0, ..., ::-2]
    assert_tensor(
        &s(&[NewAxis, Index(0), Ellipsis, r(None, None, -2)]),
        &[1, 3, 2],
        &[3., 1., 7., 5., 11., 9.],
    );
    // x[:, -10:10, 5:]
    assert_tensor(
        &s(&[
            SliceItem::all(),
            r(Some(-10), Some(10), 1),
            r(Some(5), None, 1),
        ]),
        &[2, 3, 0],
        &[],
    );
    // x[0, 10:-10:-1, 0]
    assert_tensor(
        &s(&[Index(0), r(Some(10), Some(-10), -1), Index(0)]),
        &[3],
        &[8., 4., 0.],
    );
    // x[-1] and x[1, 2, 3]
    assert_tensor(
        &s(&[Index(-1)]),
        &[3, 4],
        &(12..24).map(|v| v as f64).collect::<Vec<_>>(),
    );
    assert_tensor(&s(&[Index(1), Index(2), Index(3)]), &[], &[23.]);
    // x[...] and x[:] are x; x[..., 1, :] and x[:, 1]
    assert_tensor(&s(&[Ellipsis]), &[2, 3, 4], &x.to_f64_vec());
    assert_tensor(&s(&[SliceItem::all()]), &[2, 3, 4], &x.to_f64_vec());
    let middle = [4., 5., 6., 7., 16., 17., 18., 19.];
    assert_tensor(
        &s(&[Ellipsis, Index(1), SliceItem::all()]),
        &[2, 4],
        &middle,
    );
    assert_tensor(&s(&[SliceItem::all(), Index(1)]), &[2, 4], &middle);
    // x[None, ..., None]: ellipsis covering every axis.
    assert_eq!(s(&[NewAxis, Ellipsis, NewAxis]).shape(), &[1, 2, 3, 4, 1]);
    // x[1, ..., 0, 2]: an ellipsis covering none.
    assert_tensor(&s(&[Index(1), Ellipsis, Index(0), Index(2)]), &[], &[14.]);
    // x[:, 1:2, ::3] keeps rank; SliceItem::range
    assert_tensor(
        &s(&[SliceItem::all(), SliceItem::range(1, 2), r(None, None, 3)]),
        &[2, 1, 2],
        &[4., 7., 16., 19.],
    );
    // Booleans and integers slice too.
    let b = Tensor::from_vec(vec![true, false, false], &[3]).unwrap();
    assert_tensor(
        &strided_slice(&b, &[r(None, None, -1)]).unwrap(),
        &[3],
        &[0., 0., 1.],
    );
}

#[test]
fn strided_slice_gradients() {
    let x = arange(&[2, 3, 4]);
    // x[:, ::-2, 1]: elements (b, 2, 1) and (b, 0, 1).
    let g = grad_of_sum(
        |x| strided_slice(x, &[SliceItem::all(), r(None, None, -2), Index(1)]),
        &x,
    );
    #[rustfmt::skip]
    let expected = [
        0., 1., 0., 0.,  0., 0., 0., 0.,  0., 1., 0., 0.,
        0., 1., 0., 0.,  0., 0., 0., 0.,  0., 1., 0., 0.,
    ];
    assert_tensor(&g, &[2, 3, 4], &expected);

    let x = pseudo_random(&[2, 3, 4], 12);
    check(
        &|xs| {
            curved(strided_slice(
                &xs[0],
                &[Index(-1), r(None, None, -1), r(Some(3), Some(0), -2)],
            )?)
        },
        std::slice::from_ref(&x),
    );
    check(
        &|xs| {
            curved(strided_slice(
                &xs[0],
                &[Ellipsis, NewAxis, r(Some(1), None, 2)],
            )?)
        },
        std::slice::from_ref(&x),
    );
    check(
        &|xs| {
            curved(strided_slice(
                &xs[0],
                &[NewAxis, Index(0), Ellipsis, Index(-2)],
            )?)
        },
        std::slice::from_ref(&x),
    );
    check(
        &|xs| {
            curved(strided_slice(
                &xs[0],
                &[r(Some(-1), Some(-3), -1), Ellipsis],
            )?)
        },
        &[x],
    );
}

#[test]
fn strided_slice_grad_places_dy_into_zeros() {
    let items = [Index(1), r(None, None, -2)];
    let dy = f64s(&[1., 2.], &[2]);
    let dx = strided_slice_grad(&dy, &[2, 3], &items).unwrap();
    assert_tensor(&dx, &[2, 3], &[0., 0., 0., 2., 0., 1.]);
    // Its VJP is strided_slice with the same items.
    check(
        &|xs| curved(strided_slice_grad(&xs[0], &[2, 3], &items)?),
        &[pseudo_random(&[2], 13)],
    );
    let items = [Ellipsis, NewAxis, r(Some(3), None, -2)];
    check(
        &|xs| curved(strided_slice_grad(&xs[0], &[2, 3, 4], &items)?),
        &[pseudo_random(&[2, 3, 1, 2], 14)],
    );
    assert_err(
        strided_slice_grad(
            &f64s(&[1., 2., 3.], &[3]),
            &[2, 3],
            &[Index(1), r(None, None, -2)],
        ),
        ErrorKind::Shape,
        "strided_slice_grad",
        &["[3]", "[2, 3]", "[2]"],
    );
}

#[test]
fn strided_slice_errors() {
    let x = arange(&[2, 3, 4]);
    assert_err(
        strided_slice(&x, &[Index(2)]),
        ErrorKind::Value,
        "strided_slice",
        &["index 2", "axis 0", "size 2", "[2, 3, 4]"],
    );
    assert_err(
        strided_slice(&x, &[Index(0), Index(0), Index(-5)]),
        ErrorKind::Value,
        "strided_slice",
        &["index -5", "axis 2", "size 4"],
    );
    assert_err(
        strided_slice(&x, &[Ellipsis, Index(0), Ellipsis]),
        ErrorKind::Value,
        "strided_slice",
        &["ellipsis"],
    );
    assert_err(
        strided_slice(&x, &[r(None, None, 0)]),
        ErrorKind::Value,
        "strided_slice",
        &["step", "zero"],
    );
    let four = [Index(0), Index(0), Index(0), Index(0)];
    assert_err(
        strided_slice(&x, &four),
        ErrorKind::Value,
        "strided_slice",
        &["too many indices", "[2, 3, 4]"],
    );
    assert_err(
        strided_slice(&Tensor::scalar(1.0f64), &[Index(0)]),
        ErrorKind::Value,
        "strided_slice",
        &["too many"],
    );
}

// ---------------------------------------------------------------- concat / stack

#[test]
fn concat_and_stack_values() {
    let a = f64s(&[1., 2., 3., 4.], &[2, 2]);
    let b = f64s(&[5., 6.], &[1, 2]);
    assert_tensor(
        &concat(&[a.clone(), b.clone()], 0).unwrap(),
        &[3, 2],
        &[1., 2., 3., 4., 5., 6.],
    );
    let c = f64s(&[7., 8.], &[2, 1]);
    assert_tensor(
        &concat(&[a.clone(), c], -1).unwrap(),
        &[2, 3],
        &[1., 2., 7., 3., 4., 8.],
    );
    let d = f64s(&[5., 6., 7., 8.], &[2, 2]);
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
        stack(&[a.clone()], 3),
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

// ---------------------------------------------------------------- creation

#[test]
fn fill_zeros_like_ones_like() {
    let t = fill(&[2, 3], 2.5, DType::F32);
    assert_eq!(t.dtype(), DType::F32);
    assert_tensor(&t, &[2, 3], &[2.5; 6]);
    assert_tensor(&fill(&[2], 3.9, DType::I32), &[2], &[3., 3.]);
    let z = zeros_like(&t);
    assert_eq!(z.dtype(), DType::F32);
    assert_tensor(&z, &[2, 3], &[0.; 6]);
    assert_tensor(&ones_like(&i32s(&[4, 5], &[2])), &[2], &[1., 1.]);
    assert_eq!(rustape::ops::zeros(&[0, 2], DType::I64).shape(), &[0, 2]);
    assert_tensor(&rustape::ops::ones(&[], DType::F64), &[], &[1.]);
}

#[test]
fn linspace_values() {
    assert_close(
        &linspace(0.0, 1.0, 5, DType::F64).unwrap(),
        &[5],
        &[0., 0.25, 0.5, 0.75, 1.],
    );
    assert_close(
        &linspace(10.0, 14.0, 3, DType::F32).unwrap(),
        &[3],
        &[10., 12., 14.],
    );
    assert_close(
        &linspace(1.0, -1.0, 3, DType::F64).unwrap(),
        &[3],
        &[1., 0., -1.],
    );
    assert_tensor(&linspace(3.0, 7.0, 1, DType::F64).unwrap(), &[1], &[3.]);
    assert_tensor(&linspace(3.0, 7.0, 0, DType::F64).unwrap(), &[0], &[]);
    let t = linspace(0.0, 0.3, 7, DType::F64).unwrap();
    assert_eq!(t.to_f64_vec()[6], 0.3, "the last point is stop exactly");
    assert_err(
        linspace(0.0, 1.0, 3, DType::I32),
        ErrorKind::DType,
        "linspace",
        &["int32"],
    );
}

#[test]
fn range_values() {
    assert_tensor(
        &range(3.0, 18.0, 3.0, DType::I32).unwrap(),
        &[5],
        &[3., 6., 9., 12., 15.],
    );
    assert_tensor(
        &range(0.0, 5.0, 1.0, DType::I64).unwrap(),
        &[5],
        &[0., 1., 2., 3., 4.],
    );
    assert_tensor(
        &range(10.0, 0.0, -3.0, DType::I32).unwrap(),
        &[4],
        &[10., 7., 4., 1.],
    );
    assert_tensor(
        &range(0.0, 1.0, 0.25, DType::F64).unwrap(),
        &[4],
        &[0., 0.25, 0.5, 0.75],
    );
    assert_tensor(
        &range(0.0, 1.1, 0.5, DType::F32).unwrap(),
        &[3],
        &[0., 0.5, 1.0],
    );
    assert_tensor(&range(3.0, 3.0, 1.0, DType::F32).unwrap(), &[0], &[]);
    assert_eq!(
        range(0.0, 3.0, 1.0, DType::F32).unwrap().dtype(),
        DType::F32
    );
    assert_err(
        range(0.0, 5.0, 0.0, DType::F32),
        ErrorKind::Value,
        "range",
        &["delta != 0"],
    );
    assert_err(
        range(0.0, 5.0, 0.5, DType::I32),
        ErrorKind::Value,
        "range",
        &["delta != 0"],
    );
    assert_err(
        range(5.0, 2.0, 1.0, DType::I32),
        ErrorKind::Value,
        "range",
        &["start <= limit", "5", "2"],
    );
    assert_err(
        range(2.0, 5.0, -1.0, DType::F64),
        ErrorKind::Value,
        "range",
        &["start >= limit"],
    );
    assert_err(
        range(0.0, 2.0, 1.0, DType::Bool),
        ErrorKind::DType,
        "range",
        &["bool"],
    );
}

#[test]
fn one_hot_values() {
    let y = one_hot(&i32s(&[0, 2, -1, 1, 3], &[5]), 3, DType::F32).unwrap();
    assert_eq!(y.dtype(), DType::F32);
    #[rustfmt::skip]
    let expected = [
        1., 0., 0.,
        0., 0., 1.,
        0., 0., 0.,
        0., 1., 0.,
        0., 0., 0.,
    ];
    assert_tensor(&y, &[5, 3], &expected);
    let idx = Tensor::from_vec(vec![1i64, 0, 0, 1], &[2, 2]).unwrap();
    assert_tensor(
        &one_hot(&idx, 2, DType::I32).unwrap(),
        &[2, 2, 2],
        &[0., 1., 1., 0., 1., 0., 0., 1.],
    );
    assert_err(
        one_hot(&f64s(&[1.], &[1]), 2, DType::F32),
        ErrorKind::DType,
        "one_hot",
        &["float64"],
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
