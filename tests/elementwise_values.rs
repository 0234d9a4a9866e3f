//! Elementwise ops: forward values (NumPy/TensorFlow edge cases included), comparisons, logic,
//! selection, and the errors.
use rustape::ops::*;
use rustape::{DType, ErrorKind, Tensor};

mod support;
use support::elementwise::*;
use support::*;

// ------------------------------------------------------------------------------------------
// Forward values

#[test]
fn unary_forward_matches_std() {
    let xs = [-2.7, -1.5, -0.3, 0.25, 0.5, 1.0, 2.5, 3.9];
    let positive = [0.01, 0.25, 0.5, 1.0, 2.5, 3.9, 100.0];
    for (name, op) in unary_ops() {
        let inputs: &[f64] = if matches!(name, "sqrt" | "log") {
            &positive
        } else {
            &xs
        };
        let expected: Vec<f64> = inputs.iter().map(|&v| reference(name, v)).collect();
        let y = op(&v64(inputs)).unwrap();
        assert_eq!(y.dtype(), DType::F64, "{name}");
        assert_eq!(y.shape(), &[inputs.len()], "{name}");
        assert_close(&y.to_f64_vec(), &expected, 1e-14);
    }
}

#[test]
fn hand_computed_values() {
    let x = v64(&[-1.0, 0.0, 1.0]);
    assert_close(
        &sigmoid(&x).unwrap().to_f64_vec(),
        &[0.2689414213699951, 0.5, 0.7310585786300049],
        1e-15,
    );
    assert_close(
        &softplus(&x).unwrap().to_f64_vec(),
        &[
            0.31326168751822286,
            std::f64::consts::LN_2,
            1.3132616875182228,
        ],
        1e-15,
    );
    assert_close(
        &elu(&x).unwrap().to_f64_vec(),
        &[-0.6321205588285577, 0.0, 1.0],
        1e-15,
    );
    assert_close(
        &tanh(&x).unwrap().to_f64_vec(),
        &[-0.7615941559557649, 0.0, 0.7615941559557649],
        1e-15,
    );
    assert_same(&relu(&x).unwrap(), &[0.0, 0.0, 1.0]);
    assert_same(&square(&v64(&[-3.0, 0.5])).unwrap(), &[9.0, 0.25]);
    assert_same(
        &pow(&v64(&[2.0, 9.0, 4.0]), &v64(&[10.0, 0.5, -1.0])).unwrap(),
        &[1024.0, 3.0, 0.25],
    );
    assert_same(
        &maximum(&v64(&[1.0, 5.0]), &v64(&[3.0, 2.0])).unwrap(),
        &[3.0, 5.0],
    );
    assert_same(
        &minimum(&v64(&[1.0, 5.0]), &v64(&[3.0, 2.0])).unwrap(),
        &[1.0, 2.0],
    );
}

#[test]
fn nan_and_infinity_follow_numpy() {
    let inf = f64::INFINITY;
    let nan = f64::NAN;
    assert_same(&log(&v64(&[0.0, -1.0, inf])).unwrap(), &[-inf, nan, inf]);
    assert_same(&sqrt(&v64(&[-1.0, 0.0, inf])).unwrap(), &[nan, 0.0, inf]);
    assert_same(&log1p(&v64(&[-1.0, -2.0])).unwrap(), &[-inf, nan]);
    assert_same(&exp(&v64(&[1000.0, -inf])).unwrap(), &[inf, 0.0]);
    assert_same(
        &divide(&v64(&[1.0, -1.0, 0.0]), &v64(&[0.0, 0.0, 0.0])).unwrap(),
        &[inf, -inf, nan],
    );
    assert_same(
        &maximum(&v64(&[nan, 1.0]), &v64(&[1.0, nan])).unwrap(),
        &[nan, nan],
    );
    assert_same(
        &minimum(&v64(&[nan, 1.0]), &v64(&[1.0, nan])).unwrap(),
        &[nan, nan],
    );
    assert_same(&relu(&v64(&[nan])).unwrap(), &[nan]);
    assert_same(
        &sign(&v64(&[nan, -inf, inf, 0.0])).unwrap(),
        &[nan, -1.0, 1.0, 0.0],
    );
    assert_same(&abs(&v64(&[-inf, nan])).unwrap(), &[inf, nan]);
    assert_same(&tanh(&v64(&[inf, -inf])).unwrap(), &[1.0, -1.0]);
    assert_same(
        &floordiv(&v64(&[1.0, -1.0]), &v64(&[0.0, 0.0])).unwrap(),
        &[inf, -inf],
    );
    assert_same(&floormod(&v64(&[1.0]), &v64(&[0.0])).unwrap(), &[nan]);
    assert_same(
        &pow(&v64(&[-8.0, 0.0, 0.0]), &v64(&[1.0 / 3.0, 0.0, -1.0])).unwrap(),
        &[nan, 1.0, inf],
    );
}

#[test]
fn saturating_activations_stay_finite() {
    let x = v64(&[-1000.0, -40.0, 40.0, 1000.0]);
    assert_close(
        &softplus(&x).unwrap().to_f64_vec(),
        &[0.0, 4.248354255291589e-18, 40.0, 1000.0],
        1e-15,
    );
    assert_same(&sigmoid(&v64(&[-1000.0, 1000.0])).unwrap(), &[0.0, 1.0]);
    let g = grad_values(&|xs| softplus(&xs[0]), std::slice::from_ref(&x));
    assert_close(&g[0], &[0.0, 4.248354255291589e-18, 1.0, 1.0], 1e-15);
    let g = grad_values(&|xs| sigmoid(&xs[0]), &[x]);
    assert!(g[0].iter().all(|v| v.is_finite()), "{g:?}");
    let x32 = v32(&[-200.0, 200.0]);
    assert_same(&softplus(&x32).unwrap(), &[0.0, 200.0]);
    assert_same(&elu(&v32(&[-200.0])).unwrap(), &[-1.0]);
}

#[test]
fn round_is_half_to_even_and_floor_goes_down() {
    let x = v64(&[0.5, 1.5, 2.5, -0.5, -1.5, -2.5, 2.4, 2.6, -2.6, 3.0]);
    assert_same(
        &round(&x).unwrap(),
        &[0.0, 2.0, 2.0, -0.0, -2.0, -2.0, 2.0, 3.0, -3.0, 3.0],
    );
    assert_same(&round(&v32(&[0.5, 1.5, 2.5])).unwrap(), &[0.0, 2.0, 2.0]);
    assert_same(
        &floor(&x).unwrap(),
        &[0.0, 1.0, 2.0, -1.0, -2.0, -3.0, 2.0, 2.0, -3.0, 3.0],
    );
    let i = vi32(&[-3, 7]);
    assert_eq!(round(&i).unwrap().dtype(), DType::I32);
    assert_same(&round(&i).unwrap(), &[-3.0, 7.0]);
}

#[test]
fn floordiv_and_floormod_round_toward_negative_infinity() {
    // Python's // and % (and TensorFlow's FloorDiv/FloorMod).
    let a = [7, -7, 7, -7, 6, 0];
    let b = [2, 2, -2, -2, 3, 5];
    let q: Vec<f64> = vec![3.0, -4.0, -4.0, 3.0, 2.0, 0.0];
    let r: Vec<f64> = vec![1.0, 1.0, -1.0, -1.0, 0.0, 0.0];
    for (ta, tb) in [
        (vi32(&a), vi32(&b)),
        (vi64(&a.map(i64::from)), vi64(&b.map(i64::from))),
    ] {
        let fd = floordiv(&ta, &tb).unwrap();
        assert_eq!(fd.dtype(), ta.dtype());
        assert_same(&fd, &q);
        assert_same(&floormod(&ta, &tb).unwrap(), &r);
    }
    let fa = v64(&[7.5, -7.5, 7.5, -7.5]);
    let fb = v64(&[2.0, 2.0, -2.0, -2.0]);
    assert_same(&floordiv(&fa, &fb).unwrap(), &[3.0, -4.0, -4.0, 3.0]);
    assert_same(&floormod(&fa, &fb).unwrap(), &[1.5, 0.5, -0.5, -1.5]);
    // Broadcasting.
    let m = floormod(&t64(&[5.0, -5.0, 9.0, -9.0], &[2, 2]), &v64(&[3.0, -4.0])).unwrap();
    assert_eq!(m.shape(), &[2, 2]);
    assert_same(&m, &[2.0, -1.0, 0.0, -1.0]);
}

#[test]
fn integer_arithmetic_wraps_and_never_panics() {
    let max = vi32(&[i32::MAX]);
    let min = vi32(&[i32::MIN]);
    let one = vi32(&[1]);
    assert_same(&add(&max, &one).unwrap(), &[i32::MIN as f64]);
    assert_same(&subtract(&min, &one).unwrap(), &[i32::MAX as f64]);
    assert_same(&multiply(&max, &vi32(&[2])).unwrap(), &[-2.0]);
    assert_same(&negative(&min).unwrap(), &[i32::MIN as f64]);
    assert_same(&abs(&min).unwrap(), &[i32::MIN as f64]);
    assert_same(&floordiv(&min, &vi32(&[-1])).unwrap(), &[i32::MIN as f64]);
    assert_same(&floormod(&min, &vi32(&[-1])).unwrap(), &[0.0]);
    assert_same(&pow(&vi32(&[2]), &vi32(&[31])).unwrap(), &[i32::MIN as f64]);
    assert_same(&square(&vi64(&[i64::MAX])).unwrap(), &[1.0]);
}

#[test]
fn integer_ops_keep_their_dtype() {
    let a = vi64(&[3, -2, 0, 5]);
    let b = vi64(&[4, 3, 0, 0]);
    assert_same(&pow(&a, &b).unwrap(), &[81.0, -8.0, 1.0, 1.0]);
    assert_same(&maximum(&a, &b).unwrap(), &[4.0, 3.0, 0.0, 5.0]);
    assert_same(&minimum(&a, &b).unwrap(), &[3.0, -2.0, 0.0, 0.0]);
    assert_same(&abs(&a).unwrap(), &[3.0, 2.0, 0.0, 5.0]);
    assert_same(&sign(&a).unwrap(), &[1.0, -1.0, 0.0, 1.0]);
    assert_same(&square(&a).unwrap(), &[9.0, 4.0, 0.0, 25.0]);
    assert_same(&relu(&a).unwrap(), &[3.0, 0.0, 0.0, 5.0]);
    assert_same(
        &clip_by_value(&a, &vi64(&[-1]), &vi64(&[4])).unwrap(),
        &[3.0, -1.0, 0.0, 4.0],
    );
    for t in [
        pow(&a, &b),
        maximum(&a, &b),
        abs(&a),
        relu(&a),
        add(&a, &b),
        floordiv(&a, &vi64(&[2])),
    ] {
        assert_eq!(t.unwrap().dtype(), DType::I64);
    }
    // True division of integers gives float64 (TensorFlow's truediv for int32/int64).
    let q = divide(&vi32(&[7, -7]), &vi32(&[2, 2])).unwrap();
    assert_eq!(q.dtype(), DType::F64);
    assert_same(&q, &[3.5, -3.5]);
}

#[test]
fn integer_errors_are_value_errors() {
    for (name, op) in [("floordiv", floordiv as Binary), ("floormod", floormod)] {
        let err = op(&vi32(&[1, 2]), &vi32(&[1, 0])).unwrap_err();
        assert_eq!(err.kind, ErrorKind::Value, "{name}");
        assert_eq!(err.op, name);
        assert!(err.message.contains("division by zero"), "{err}");
    }
    let err = pow(&vi64(&[2]), &vi64(&[-1])).unwrap_err();
    assert_eq!(
        (err.kind.clone(), err.op.as_str()),
        (ErrorKind::Value, "pow")
    );
    assert!(err.message.contains("negative"), "{err}");
}

#[test]
fn comparisons_broadcast_and_give_bool() {
    let a = t64(&[1.0, 2.0, 3.0, 4.0, 5.0, 6.0], &[2, 3]);
    let b = v64(&[2.0, 2.0, 7.0]);
    let cases: [(Binary, [f64; 6]); 6] = [
        (equal, [0.0, 1.0, 0.0, 0.0, 0.0, 0.0]),
        (not_equal, [1.0, 0.0, 1.0, 1.0, 1.0, 1.0]),
        (less, [1.0, 0.0, 1.0, 0.0, 0.0, 1.0]),
        (less_equal, [1.0, 1.0, 1.0, 0.0, 0.0, 1.0]),
        (greater, [0.0, 0.0, 0.0, 1.0, 1.0, 0.0]),
        (greater_equal, [0.0, 1.0, 0.0, 1.0, 1.0, 0.0]),
    ];
    for (op, expected) in cases {
        let y = op(&a, &b).unwrap();
        assert_eq!(y.dtype(), DType::Bool);
        assert_eq!(y.shape(), &[2, 3]);
        assert_same(&y, &expected);
    }
    // NaN compares false except with not_equal.
    let nan = v64(&[f64::NAN]);
    for op in [equal as Binary, less, less_equal, greater, greater_equal] {
        assert_same(&op(&nan, &nan).unwrap(), &[0.0]);
    }
    assert_same(&not_equal(&nan, &nan).unwrap(), &[1.0]);
    // Integers and bools.
    assert_same(
        &less(&vi32(&[1, 5]), &Tensor::scalar(3i32)).unwrap(),
        &[1.0, 0.0],
    );
    let p = bools(&[true, false], &[2]);
    assert_same(&equal(&p, &Tensor::scalar(true)).unwrap(), &[1.0, 0.0]);
    let err = less(&p, &p).unwrap_err();
    assert_eq!(
        (err.kind.clone(), err.op.as_str()),
        (ErrorKind::DType, "less")
    );
}

#[test]
fn logical_ops() {
    let p = bools(&[true, true, false, false], &[2, 2]);
    let q = bools(&[true, false], &[2]);
    assert_same(&logical_and(&p, &q).unwrap(), &[1.0, 0.0, 0.0, 0.0]);
    assert_same(&logical_or(&p, &q).unwrap(), &[1.0, 1.0, 1.0, 0.0]);
    assert_same(&logical_not(&p).unwrap(), &[0.0, 0.0, 1.0, 1.0]);
    assert_eq!(logical_and(&p, &q).unwrap().shape(), &[2, 2]);
    let f = v64(&[1.0, 0.0]);
    for (name, err) in [
        ("logical_and", logical_and(&p, &f).unwrap_err()),
        ("logical_or", logical_or(&f, &q).unwrap_err()),
        ("logical_not", logical_not(&f).unwrap_err()),
    ] {
        assert_eq!(
            (err.kind.clone(), err.op.as_str()),
            (ErrorKind::DType, name)
        );
        assert!(err.message.contains("float64"), "{err}");
    }
    let err = logical_or(&p, &bools(&[true, false, true], &[3])).unwrap_err();
    assert_eq!(
        (err.kind.clone(), err.op.as_str()),
        (ErrorKind::Shape, "logical_or")
    );
}

#[test]
fn where_selects_with_three_way_broadcasting() {
    let cond = bools(&[true, false], &[2, 1]);
    let x = v64(&[1.0, 2.0, 3.0]);
    let y = Tensor::scalar(-1.0f64);
    let out = where_(&cond, &x, &y).unwrap();
    assert_eq!(out.shape(), &[2, 3]);
    assert_same(&out, &[1.0, 2.0, 3.0, -1.0, -1.0, -1.0]);
    let ints = where_(
        &bools(&[false, true], &[2]),
        &vi32(&[1, 2]),
        &vi32(&[10, 20]),
    )
    .unwrap();
    assert_eq!(ints.dtype(), DType::I32);
    assert_same(&ints, &[10.0, 2.0]);
    // Errors: a non-bool condition, mismatched branches, incompatible shapes.
    let err = where_(&x, &x, &x).unwrap_err();
    assert_eq!(
        (err.kind.clone(), err.op.as_str()),
        (ErrorKind::DType, "where")
    );
    assert!(err.message.contains("float64"), "{err}");
    let err = where_(&cond, &x, &Tensor::scalar(1.0f32)).unwrap_err();
    assert_eq!(err.kind, ErrorKind::DType);
    assert!(
        err.message.contains("float32") && err.message.contains("float64"),
        "{err}"
    );
    let err = where_(&bools(&[true, false], &[2]), &x, &y).unwrap_err();
    assert_eq!(
        (err.kind.clone(), err.op.as_str()),
        (ErrorKind::Shape, "where")
    );
    assert!(
        err.message.contains("[2]") && err.message.contains("[3]"),
        "{err}"
    );
}

#[test]
fn where_indices_lists_true_coordinates() {
    let cond = bools(&[false, true, false, true, false, true], &[2, 3]);
    let idx = where_indices(&cond).unwrap();
    assert_eq!(idx.dtype(), DType::I64);
    assert_eq!(idx.shape(), &[3, 2]);
    assert_same(&idx, &[0.0, 1.0, 1.0, 0.0, 1.0, 2.0]);
    let none = where_indices(&bools(&[false; 4], &[2, 1, 2])).unwrap();
    assert_eq!(none.shape(), &[0, 3]);
    let scalar = where_indices(&Tensor::scalar(true)).unwrap();
    assert_eq!(scalar.shape(), &[1, 0]);
    let err = where_indices(&vi32(&[1])).unwrap_err();
    assert_eq!(err.kind, ErrorKind::DType);
}

#[test]
fn clip_by_value_values_and_errors() {
    let t = t64(&[-3.0, -1.0, 0.0, 1.0, 3.0, 0.5], &[2, 3]);
    let lo = v64(&[-1.0, -2.0, 0.2]);
    let hi = Tensor::scalar(1.0f64);
    let y = clip_by_value(&t, &lo, &hi).unwrap();
    assert_eq!(y.shape(), &[2, 3]);
    assert_same(&y, &[-1.0, -1.0, 0.2, 1.0, 1.0, 0.5]);
    // As in TensorFlow (minimum first, then maximum): lo wins when lo > hi.
    assert_same(
        &clip_by_value(
            &v64(&[0.0, 5.0]),
            &Tensor::scalar(2.0f64),
            &Tensor::scalar(1.0f64),
        )
        .unwrap(),
        &[2.0, 2.0],
    );
    // Bounds may not broadcast t to a larger shape.
    let err =
        clip_by_value(&v64(&[1.0, 2.0]), &t64(&[0.0, 0.0, 0.0, 0.0], &[2, 2]), &hi).unwrap_err();
    assert_eq!(
        (err.kind.clone(), err.op.as_str()),
        (ErrorKind::Shape, "clip_by_value")
    );
    assert!(
        err.message.contains("[2, 2]") && err.message.contains("[2]"),
        "{err}"
    );
    let err = clip_by_value(&t, &Tensor::scalar(0.0f32), &hi).unwrap_err();
    assert_eq!(
        (err.kind.clone(), err.op.as_str()),
        (ErrorKind::DType, "clip_by_value")
    );
    assert!(
        err.message.contains("float32") && err.message.contains("float64"),
        "{err}"
    );
}

// ------------------------------------------------------------------------------------------
// Errors

#[test]
fn mixed_float_dtypes_are_dtype_errors_naming_both() {
    let a = v32(&[1.0, 2.0]);
    let b = v64(&[1.0, 2.0]);
    for (name, op) in binary_ops() {
        for err in [op(&a, &b).unwrap_err(), op(&b, &a).unwrap_err()] {
            assert_eq!(err.kind, ErrorKind::DType, "{name}: {err}");
            assert_eq!(err.op, name);
            assert!(
                err.message.contains("float32") && err.message.contains("float64"),
                "{err}"
            );
        }
    }
    let err = add(&vi32(&[1]), &vi64(&[1])).unwrap_err();
    assert!(
        err.message.contains("int32") && err.message.contains("int64"),
        "{err}"
    );
    let err = divide(&vi32(&[1]), &vi64(&[1])).unwrap_err();
    assert_eq!(
        (err.kind.clone(), err.op.as_str()),
        (ErrorKind::DType, "divide")
    );
}

#[test]
fn incompatible_shapes_are_shape_errors_naming_both() {
    let a = t64(&[0.0; 6], &[2, 3]);
    let b = v64(&[1.0; 4]);
    for (name, op) in binary_ops() {
        let err = op(&a, &b).unwrap_err();
        assert_eq!(err.kind, ErrorKind::Shape, "{name}: {err}");
        assert_eq!(err.op, name);
        assert!(
            err.message.contains("[2, 3]") && err.message.contains("[4]"),
            "{err}"
        );
    }
}

#[test]
fn unsupported_dtypes_are_dtype_errors() {
    let i = vi32(&[1, 4]);
    for (name, op) in unary_ops() {
        let allows_ints = matches!(
            name,
            "negative" | "abs" | "sign" | "square" | "relu" | "round"
        );
        match op(&i) {
            Ok(y) => {
                assert!(allows_ints, "{name} accepted int32");
                assert_eq!(y.dtype(), DType::I32, "{name}");
            }
            Err(err) => {
                assert!(!allows_ints, "{name} rejected int32: {err}");
                assert_eq!(
                    (err.kind.clone(), err.op.as_str()),
                    (ErrorKind::DType, name)
                );
                assert!(err.message.contains("int32"), "{err}");
            }
        }
        let err = op(&bools(&[true], &[1])).unwrap_err();
        assert_eq!(
            (err.kind.clone(), err.op.as_str()),
            (ErrorKind::DType, name)
        );
        assert!(err.message.contains("bool"), "{err}");
    }
}
