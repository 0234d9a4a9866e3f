//! Indexing ops: pad, gather, scatter_add_to, strided_slice and strided_slice_grad. Values
//! written out by hand (NumPy / TensorFlow semantics), first- and second-order gradchecks in
//! float64, and the errors.
use rustape::ops::{
    gather, pad, scatter_add_to, strided_slice, strided_slice_grad, PadMode, SliceItem,
};
use rustape::testing::pseudo_random;
use rustape::{DType, ErrorKind, Tensor};

mod support;
use support::shape::*;
use support::*;
use SliceItem::{Ellipsis, Index, NewAxis};

// ---------------------------------------------------------------- pad

#[test]
fn pad_values_match_the_tensorflow_docs() {
    let t = t64(&[1., 2., 3., 4., 5., 6.], &[2, 3]);
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
    let x = t64(&[1., 2., 3.], &[3]);
    // [3, 2, 1, 2, 3, 2, 1]
    assert_tensor(
        &gradient(&|x| pad(x, &[(2, 2)], PadMode::Reflect, 0.0), &x).unwrap(),
        &[3],
        &[2., 3., 2.],
    );
    // [2, 1, 1, 2, 3, 3, 2]
    assert_tensor(
        &gradient(&|x| pad(x, &[(2, 2)], PadMode::Symmetric, 0.0), &x).unwrap(),
        &[3],
        &[2., 3., 2.],
    );
    assert_tensor(
        &gradient(&|x| pad(x, &[(2, 2)], PadMode::Constant, 5.0), &x).unwrap(),
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

// ---------------------------------------------------------------- gather / scatter_add_to

#[test]
fn gather_values() {
    let p = t64(&[1., 2., 3., 4., 5., 6.], &[3, 2]);
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
    let p = t64(&[1., 2., 3., 4., 5., 6.], &[2, 3]);
    let y = gather(&p, &i32s(&[2, 0, 1, 1], &[2, 2]), 1, 1).unwrap();
    assert_tensor(&y, &[2, 2], &[3., 1., 5., 5.]);
    // Integer params.
    let y = gather(&i32s(&[7, 8, 9], &[3]), &i32s(&[2, 2, 0], &[3]), 0, 0).unwrap();
    assert_tensor(&y, &[3], &[9., 9., 7.]);
}

#[test]
fn scatter_add_to_values() {
    let updates = t64(&[1., 2., 3., 4., 5., 6.], &[3, 2]);
    let y = scatter_add_to(&updates, &i32s(&[2, 0, 2], &[3]), 0, 0, &[3, 2]).unwrap();
    assert_tensor(&y, &[3, 2], &[3., 4., 0., 0., 6., 8.]);
    let y = scatter_add_to(&updates, &i32s(&[1, 1], &[2]), 1, 0, &[2, 3]);
    assert_err(y, ErrorKind::Shape, "scatter_add_to", &["[3, 2]", "[2, 3]"]);
    let updates = t64(&[1., 2., 3., 4.], &[2, 2]);
    let y = scatter_add_to(&updates, &i32s(&[1, 1, 0, 2], &[2, 2]), 1, 1, &[2, 3]).unwrap();
    assert_tensor(&y, &[2, 3], &[0., 3., 0., 3., 0., 4.]);
}

#[test]
fn gather_gradients() {
    let p = arange(&[3, 2]);
    let g = gradient(&|p| gather(p, &i32s(&[2, 0, 2], &[3]), 0, 0), &p).unwrap();
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
        gather(&p, &t64(&[0.], &[1]), 0, 0),
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
    let g = gradient(
        &|x| strided_slice(x, &[SliceItem::all(), r(None, None, -2), Index(1)]),
        &x,
    )
    .unwrap();
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
    let dy = t64(&[1., 2.], &[2]);
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
            &t64(&[1., 2., 3.], &[3]),
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

#[test]
fn gathers_and_sorts_with_huge_counts_of_empty_lanes_return_at_once() {
    // 2^40 lanes of length 0 (and the transpose): no element, so no pass over the lanes.
    let huge = 1usize << 40;
    for shape in [[0, huge], [huge, 0]] {
        let x = rustape::ops::zeros(&shape, rustape::DType::F32).unwrap();
        for axis in [0, 1] {
            let sorted = rustape::ops::sort(&x, axis, false).unwrap();
            assert_eq!(sorted.shape(), &shape);
        }
        let indices = rustape::ops::zeros(&shape, rustape::DType::I32).unwrap();
        let gathered = rustape::ops::gather(&x, &indices, 1, 1).unwrap();
        assert_eq!(gathered.shape(), &shape);
    }
}
