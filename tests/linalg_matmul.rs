//! matmul, matvec and eye: values against plain loops (broadcasting, transposes, strided
//! layouts, the parallel and batched kernel paths, integers, empty matrices), errors, and
//! gradients (first and second order) against finite differences and the closed form.
mod support;

use ndarray::{ArrayD, IxDyn};
use rustape::ops::{self, eye, matmul, matvec};
use rustape::{DType, Data, ErrorKind, Tape, Tensor, Unconnected};
use support::linalg::{naive_matmul, rand64};
use support::{assert_close, check};

// ---------------------------------------------------------------------------------------------
// matmul
// ---------------------------------------------------------------------------------------------

#[test]
fn matmul_matches_a_triple_loop_with_broadcasting_and_transposes() {
    let cases: &[(&[usize], &[usize])] = &[
        (&[3, 4], &[4, 5]),
        (&[2, 1, 3, 4], &[5, 4, 6]),
        (&[5, 4, 6], &[2, 1, 6, 3]),
        (&[1, 3, 4], &[7, 4, 2]),
        (&[3, 3, 4], &[4, 2]),    // shared right operand: one tall GEMM
        (&[3, 4], &[2, 2, 4, 5]), // shared left operand
        (&[1, 1], &[1, 1]),
        (&[6, 1], &[1, 7]),
    ];
    for (seed, &(sa, sb)) in cases.iter().enumerate() {
        for (ta, tb) in [(false, false), (true, false), (false, true), (true, true)] {
            let mut sa = sa.to_vec();
            let mut sb = sb.to_vec();
            let (ra, rb) = (sa.len(), sb.len());
            if ta {
                sa.swap(ra - 2, ra - 1);
            }
            if tb {
                sb.swap(rb - 2, rb - 1);
            }
            let a = rand64(&sa, 2 * seed as u64 + 1);
            let b = rand64(&sb, 2 * seed as u64 + 2);
            let (want, shape) = naive_matmul(&a.to_f64_vec(), &sa, &b.to_f64_vec(), &sb, ta, tb);
            let y = matmul(&a, &b, ta, tb).unwrap();
            assert_eq!(y.shape(), &shape[..], "{sa:?} {sb:?} {ta} {tb}");
            assert_close(&y.to_f64_vec(), &want, 1e-12);
            let (a32, b32) = (
                ops::cast(&a, DType::F32).unwrap(),
                ops::cast(&b, DType::F32).unwrap(),
            );
            let y32 = matmul(&a32, &b32, ta, tb).unwrap();
            assert_eq!(y32.dtype(), DType::F32);
            assert_close(&y32.to_f64_vec(), &want, 1e-5);
        }
    }
}

#[test]
fn matmul_example_shape_from_the_brief() {
    let y = matmul(
        &Tensor::ones(&[2, 1, 3, 4], DType::F32),
        &Tensor::ones(&[5, 4, 6], DType::F32),
        false,
        false,
    )
    .unwrap();
    assert_eq!(y.shape(), &[2, 5, 3, 6]);
    assert!(y.to_f64_vec().iter().all(|&v| v == 4.0));
}

#[test]
fn matmul_of_tensors_built_from_strided_and_reversed_arrays() {
    // A transposed (column-major) array and a reversed one: tensors store them row-major.
    let base = ArrayD::from_shape_vec(IxDyn(&[4, 3]), (0..12).map(|v| v as f64).collect()).unwrap();
    let at = Tensor::new(Data::from(base.clone().reversed_axes())); // [3, 4], column-major
    let mut rev = base.clone();
    rev.invert_axis(ndarray::Axis(0)); // negative row stride
    let rev = Tensor::new(Data::from(rev));
    let b = rand64(&[4, 5], 9);
    let y = matmul(&at, &b, false, false).unwrap();
    let (want, _) = naive_matmul(
        &at.to_f64_vec(),
        &[3, 4],
        &b.to_f64_vec(),
        &[4, 5],
        false,
        false,
    );
    assert_close(&y.to_f64_vec(), &want, 1e-12);
    let y = matmul(&rev, &rand64(&[3, 2], 4), false, false).unwrap();
    let (want, _) = naive_matmul(
        &rev.to_f64_vec(),
        &[4, 3],
        &rand64(&[3, 2], 4).to_f64_vec(),
        &[3, 2],
        false,
        false,
    );
    assert_close(&y.to_f64_vec(), &want, 1e-12);
}

#[test]
fn matmul_large_and_batched_paths_agree_with_the_loop() {
    // Large enough for the parallel GEMM, and many small matrices for the batch-parallel path.
    for (sa, sb) in [
        (vec![130, 120], vec![120, 110]),
        (vec![64, 9, 10], vec![64, 10, 11]),
        (vec![2, 100, 100], vec![2, 100, 100]),
        // Split into row or column blocks (over 2^25 multiply-adds: split even with parked
        // helpers), the last block ending in a partial 16-wide tile.
        (vec![37, 520], vec![520, 1800]),
        (vec![1000, 300], vec![300, 120]),
    ] {
        let a = rand64(&sa, 3);
        let b = rand64(&sb, 4);
        let (want, shape) = naive_matmul(&a.to_f64_vec(), &sa, &b.to_f64_vec(), &sb, false, false);
        let y = matmul(&a, &b, false, false).unwrap();
        assert_eq!(y.shape(), &shape[..]);
        assert_close(&y.to_f64_vec(), &want, 1e-10);
    }
}

#[test]
fn matmul_of_integers_and_of_empty_matrices() {
    let a = Tensor::from_vec(vec![1i32, 2, 3, 4, 5, 6], &[2, 3]).unwrap();
    let b = Tensor::from_vec(vec![1i32, 0, 0, 1, 1, 1], &[3, 2]).unwrap();
    let y = matmul(&a, &b, false, false).unwrap();
    assert_eq!(y.dtype(), DType::I32);
    assert_eq!(y.to_f64_vec(), vec![4.0, 5.0, 10.0, 11.0]);
    let y = matmul(
        &Tensor::ones(&[2, 0], DType::F32),
        &Tensor::ones(&[0, 3], DType::F32),
        false,
        false,
    )
    .unwrap();
    assert_eq!(y.shape(), &[2, 3]);
    assert_eq!(y.to_f64_vec(), vec![0.0; 6]);
    let y = matmul(
        &Tensor::ones(&[0, 4], DType::F64),
        &Tensor::ones(&[4, 3], DType::F64),
        false,
        false,
    )
    .unwrap();
    assert_eq!(y.shape(), &[0, 3]);
}

#[test]
fn matmul_errors_name_the_op_and_both_shapes() {
    let a = Tensor::ones(&[2, 3], DType::F32);
    let b = Tensor::ones(&[4, 5], DType::F32);
    let e = matmul(&a, &b, false, false).unwrap_err();
    assert_eq!(e.kind, ErrorKind::Shape);
    assert_eq!(e.op, "matmul");
    assert!(
        e.message.contains("[2, 3]") && e.message.contains("[4, 5]"),
        "{}",
        e.message
    );

    let e = matmul(
        &Tensor::ones(&[2, 2, 3], DType::F32),
        &Tensor::ones(&[3, 3, 4], DType::F32),
        false,
        false,
    )
    .unwrap_err();
    assert_eq!(e.kind, ErrorKind::Shape);
    assert!(
        e.message.contains("[2, 2, 3]") && e.message.contains("[3, 3, 4]"),
        "{}",
        e.message
    );

    let e = matmul(
        &Tensor::ones(&[3], DType::F32),
        &Tensor::ones(&[3, 4], DType::F32),
        false,
        false,
    )
    .unwrap_err();
    assert_eq!(e.kind, ErrorKind::Shape);
    assert!(
        e.message.contains("[3]") && e.message.contains("[3, 4]"),
        "{}",
        e.message
    );

    let e = matmul(
        &Tensor::ones(&[2, 2], DType::F32),
        &Tensor::ones(&[2, 2], DType::F64),
        false,
        false,
    )
    .unwrap_err();
    assert_eq!(e.kind, ErrorKind::DType);
    assert!(
        e.message.contains("float32") && e.message.contains("float64"),
        "{}",
        e.message
    );

    let e = matmul(
        &Tensor::ones(&[2, 2], DType::Bool),
        &Tensor::ones(&[2, 2], DType::Bool),
        false,
        false,
    )
    .unwrap_err();
    assert_eq!(e.kind, ErrorKind::DType);
}

#[test]
fn matmul_gradients_first_and_second_order() {
    let f = |ta: bool, tb: bool| move |xs: &[Tensor]| matmul(&xs[0], &xs[1], ta, tb);
    check(&f(false, false), &[rand64(&[3, 4], 1), rand64(&[4, 2], 2)]);
    check(
        &f(false, false),
        &[rand64(&[2, 1, 3, 4], 3), rand64(&[3, 4, 2], 4)],
    ); // batch broadcasting
    check(
        &f(true, false),
        &[rand64(&[2, 4, 3], 5), rand64(&[4, 2], 6)],
    );
    check(
        &f(false, true),
        &[rand64(&[2, 3, 4], 7), rand64(&[2, 4], 8)],
    ); // batched a, unbatched b
    check(
        &f(false, false),
        &[rand64(&[2, 3, 4], 7), rand64(&[4, 2], 8)],
    );
    check(
        &f(true, true),
        &[rand64(&[1, 4, 3], 9), rand64(&[2, 2, 4], 10)],
    );
    check(
        &f(false, false),
        &[rand64(&[3, 4], 11), rand64(&[2, 4, 2], 12)],
    ); // unbatched a
}

#[test]
fn matmul_gradient_matches_the_closed_form() {
    let a = rand64(&[3, 4], 1);
    let b = rand64(&[4, 2], 2);
    let tape = Tape::new(true, true);
    let y = {
        let _r = tape.enter().unwrap();
        tape.watch(&a);
        tape.watch(&b);
        matmul(&a, &b, false, false).unwrap()
    };
    let g = tape
        .gradient(&[y], &[(&a).into(), (&b).into()], None, Unconnected::None)
        .unwrap();
    let ones = Tensor::ones(&[3, 2], DType::F64);
    let (ga, _) = naive_matmul(
        &ones.to_f64_vec(),
        &[3, 2],
        &b.to_f64_vec(),
        &[4, 2],
        false,
        true,
    );
    let (gb, _) = naive_matmul(
        &a.to_f64_vec(),
        &[3, 4],
        &ones.to_f64_vec(),
        &[3, 2],
        true,
        false,
    );
    assert_close(&g[0].as_ref().unwrap().to_f64_vec(), &ga, 1e-12);
    assert_close(&g[1].as_ref().unwrap().to_f64_vec(), &gb, 1e-12);
}

// ---------------------------------------------------------------------------------------------
// matvec, eye
// ---------------------------------------------------------------------------------------------

#[test]
fn matvec_values_and_gradients() {
    let a = rand64(&[2, 3, 4], 1);
    let x = rand64(&[4], 2);
    let y = matvec(&a, &x, false).unwrap();
    assert_eq!(y.shape(), &[2, 3]);
    let (want, _) = naive_matmul(
        &a.to_f64_vec(),
        &[2, 3, 4],
        &x.to_f64_vec(),
        &[4, 1],
        false,
        false,
    );
    assert_close(&y.to_f64_vec(), &want, 1e-12);
    let yt = matvec(&a, &rand64(&[2, 3], 3), true).unwrap();
    assert_eq!(yt.shape(), &[2, 4]);

    check(
        &|xs: &[Tensor]| matvec(&xs[0], &xs[1], false),
        &[rand64(&[2, 3, 4], 1), rand64(&[4], 2)],
    );
    check(
        &|xs: &[Tensor]| matvec(&xs[0], &xs[1], true),
        &[rand64(&[3, 4], 3), rand64(&[2, 3], 4)],
    );

    let e = matvec(&a, &rand64(&[3], 5), false).unwrap_err();
    assert_eq!((e.kind, e.op.as_str()), (ErrorKind::Shape, "matvec"));
    assert!(
        e.message.contains("[2, 3, 4]") && e.message.contains("[3]"),
        "{}",
        e.message
    );
}

#[test]
fn eye_builds_batched_rectangular_identities() {
    let i = eye(2, Some(3), &[2], DType::F32).unwrap();
    assert_eq!(i.shape(), &[2, 2, 3]);
    assert_eq!(i.dtype(), DType::F32);
    assert_eq!(
        i.to_f64_vec(),
        vec![1., 0., 0., 0., 1., 0., 1., 0., 0., 0., 1., 0.]
    );
    let i = eye(3, None, &[], DType::I64).unwrap();
    assert_eq!(i.to_f64_vec(), vec![1., 0., 0., 0., 1., 0., 0., 0., 1.]);
    assert_eq!(eye(0, None, &[], DType::F64).unwrap().shape(), &[0, 0]);
}

#[test]
fn matmul_gradients_with_empty_dimensions() {
    // Inner dimension 0 (a zero product) and a batched left operand with no rows.
    for (sa, sb) in [
        (vec![2, 3, 0], vec![0, 4]),
        (vec![2, 0, 3], vec![3, 4]),
        (vec![0, 3], vec![2, 3, 4]),
    ] {
        let a = Tensor::zeros(&sa, DType::F64);
        let b = Tensor::ones(&sb, DType::F64);
        let tape = Tape::new(false, true);
        let y = {
            let _r = tape.enter().unwrap();
            tape.watch(&a);
            tape.watch(&b);
            matmul(&a, &b, false, false).unwrap()
        };
        let g = tape
            .gradient(&[y], &[(&a).into(), (&b).into()], None, Unconnected::Zero)
            .unwrap();
        assert_eq!(g[0].as_ref().unwrap().shape(), &sa[..]);
        assert_eq!(g[1].as_ref().unwrap().shape(), &sb[..]);
        assert!(g[1]
            .as_ref()
            .unwrap()
            .to_f64_vec()
            .iter()
            .all(|&v| v == 0.0));
    }
}
