//! Elementwise ops: forward values (NumPy/TensorFlow edge cases included), TensorFlow's
//! gradient rules, float64 gradchecks of first and second order, float32 against float64,
//! and the errors.
use rustape::ops::*;
use rustape::testing::{gradcheck, Function, Tolerance};
use rustape::{DType, ErrorKind, Result, Source, Tape, Tensor, Unconnected};

type Unary = fn(&Tensor) -> Result<Tensor>;
type Binary = fn(&Tensor, &Tensor) -> Result<Tensor>;
type Boxed = Box<dyn Fn(&[Tensor]) -> Result<Tensor>>;

fn t64(values: &[f64], shape: &[usize]) -> Tensor {
    Tensor::from_vec(values.to_vec(), shape).unwrap()
}

fn v64(values: &[f64]) -> Tensor {
    t64(values, &[values.len()])
}

fn v32(values: &[f32]) -> Tensor {
    Tensor::from_vec(values.to_vec(), &[values.len()]).unwrap()
}

fn vi32(values: &[i32]) -> Tensor {
    Tensor::from_vec(values.to_vec(), &[values.len()]).unwrap()
}

fn vi64(values: &[i64]) -> Tensor {
    Tensor::from_vec(values.to_vec(), &[values.len()]).unwrap()
}

fn vbool(values: &[bool], shape: &[usize]) -> Tensor {
    Tensor::from_vec(values.to_vec(), shape).unwrap()
}

/// Elementwise `|a - e| <= tol * max(1, |e|)`; NaN matches NaN and infinities match exactly.
#[track_caller]
fn assert_close(actual: &[f64], expected: &[f64], tol: f64) {
    assert_eq!(
        actual.len(),
        expected.len(),
        "lengths differ: {actual:?} vs {expected:?}"
    );
    for (i, (&a, &e)) in actual.iter().zip(expected).enumerate() {
        let ok = if e.is_nan() {
            a.is_nan()
        } else if e.is_infinite() {
            a == e
        } else {
            (a - e).abs() <= tol * e.abs().max(1.0)
        };
        assert!(
            ok,
            "element {i}: got {a}, expected {e}\n  actual   {actual:?}\n  expected {expected:?}"
        );
    }
}

/// Exact equality, NaN matching NaN and the sign of zero ignored.
#[track_caller]
fn assert_same(actual: &Tensor, expected: &[f64]) {
    assert_close(&actual.to_f64_vec(), expected, 0.0);
}

/// The gradients of `sum(f(xs))` with respect to each input (None where unconnected).
fn grads(f: Function, xs: &[Tensor]) -> Vec<Option<Tensor>> {
    let tape = Tape::new(false, true);
    let y = {
        let _recording = tape.enter().unwrap();
        xs.iter().for_each(|x| tape.watch(x));
        f(xs).unwrap()
    };
    let sources: Vec<Source> = xs.iter().map(Source::from).collect();
    tape.gradient(&[y], &sources, None, Unconnected::None)
        .unwrap()
}

fn grad_values(f: Function, xs: &[Tensor]) -> Vec<Vec<f64>> {
    grads(f, xs)
        .iter()
        .map(|g| g.as_ref().expect("a gradient").to_f64_vec())
        .collect()
}

/// First- and second-order gradcheck in float64.
#[track_caller]
fn check(name: &str, f: Function, inputs: &[Tensor]) {
    if let Err(e) = gradcheck(f, inputs, true, Tolerance::default()) {
        panic!("gradcheck of {name} failed: {e}");
    }
}

fn unary_ops() -> Vec<(&'static str, Unary)> {
    vec![
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
        ("relu", relu),
        ("elu", elu),
        ("softplus", softplus),
        ("round", round),
        ("floor", floor),
    ]
}

fn binary_ops() -> Vec<(&'static str, Binary)> {
    vec![
        ("add", add),
        ("subtract", subtract),
        ("multiply", multiply),
        ("divide", divide),
        ("pow", pow),
        ("maximum", maximum),
        ("minimum", minimum),
        ("floordiv", floordiv),
        ("floormod", floormod),
        ("equal", equal),
        ("not_equal", not_equal),
        ("less", less),
        ("less_equal", less_equal),
        ("greater", greater),
        ("greater_equal", greater_equal),
    ]
}

/// The value of each unary op in float64 arithmetic, written independently of the kernels.
fn reference(name: &str, v: f64) -> f64 {
    match name {
        "negative" => -v,
        "abs" => v.abs(),
        "sign" => {
            if v > 0.0 {
                1.0
            } else if v < 0.0 {
                -1.0
            } else {
                v
            }
        }
        "square" => v * v,
        "sqrt" => v.sqrt(),
        "exp" => v.exp(),
        "log" => v.ln(),
        "log1p" => v.ln_1p(),
        "sin" => v.sin(),
        "cos" => v.cos(),
        "tan" => v.tan(),
        "tanh" => v.tanh(),
        "sigmoid" => 1.0 / (1.0 + (-v).exp()),
        "relu" => {
            if v > 0.0 {
                v
            } else {
                0.0
            }
        }
        "elu" => {
            if v > 0.0 {
                v
            } else {
                v.exp() - 1.0
            }
        }
        "softplus" => (1.0 + v.exp()).ln(),
        "round" => v.round_ties_even(),
        "floor" => v.floor(),
        _ => unreachable!("{name}"),
    }
}

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
    let p = vbool(&[true, false], &[2]);
    assert_same(&equal(&p, &Tensor::scalar(true)).unwrap(), &[1.0, 0.0]);
    let err = less(&p, &p).unwrap_err();
    assert_eq!(
        (err.kind.clone(), err.op.as_str()),
        (ErrorKind::DType, "less")
    );
}

#[test]
fn logical_ops() {
    let p = vbool(&[true, true, false, false], &[2, 2]);
    let q = vbool(&[true, false], &[2]);
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
    let err = logical_or(&p, &vbool(&[true, false, true], &[3])).unwrap_err();
    assert_eq!(
        (err.kind.clone(), err.op.as_str()),
        (ErrorKind::Shape, "logical_or")
    );
}

#[test]
fn where_selects_with_three_way_broadcasting() {
    let cond = vbool(&[true, false], &[2, 1]);
    let x = v64(&[1.0, 2.0, 3.0]);
    let y = Tensor::scalar(-1.0f64);
    let out = where_(&cond, &x, &y).unwrap();
    assert_eq!(out.shape(), &[2, 3]);
    assert_same(&out, &[1.0, 2.0, 3.0, -1.0, -1.0, -1.0]);
    let ints = where_(
        &vbool(&[false, true], &[2]),
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
    let err = where_(&vbool(&[true, false], &[2]), &x, &y).unwrap_err();
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
    let cond = vbool(&[false, true, false, true, false, true], &[2, 3]);
    let idx = where_indices(&cond).unwrap();
    assert_eq!(idx.dtype(), DType::I64);
    assert_eq!(idx.shape(), &[3, 2]);
    assert_same(&idx, &[0.0, 1.0, 1.0, 0.0, 1.0, 2.0]);
    let none = where_indices(&vbool(&[false; 4], &[2, 1, 2])).unwrap();
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
        check(name, &|xs| op(&xs[0]), std::slice::from_ref(&x));
        // Times its input: the incoming gradient then depends on x too, as in real graphs.
        check(name, &|xs| multiply(&op(&xs[0])?, &xs[0]), &[x]);
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
        check(name, &|xs| op(&xs[0], &xs[1]), &[a.clone(), b.clone()]);
        check(name, &|xs| op(&xs[0], &xs[1]), &[b.clone(), a.clone()]);
        check(name, &|xs| op(&xs[0], &xs[1]), &[col.clone(), b.clone()]);
        check(
            name,
            &|xs| op(&xs[0], &xs[1]),
            &[a.clone(), Tensor::scalar(0.55f64)],
        );
        // Both operands again after the op: second derivatives with every term non-zero.
        check(
            name,
            &|xs| multiply(&op(&xs[0], &xs[1])?, &multiply(&xs[0], &xs[1])?),
            &[a.clone(), b.clone()],
        );
    }
}

#[test]
fn gradcheck_pow() {
    let base = t64(&[0.4, 1.3, 2.2, 0.9, 3.1, 1.7], &[2, 3]);
    let exponent = v64(&[-1.3, 0.5, 2.2]);
    let f = |xs: &[Tensor]| pow(&xs[0], &xs[1]);
    check("pow", &f, &[base.clone(), exponent.clone()]);
    check("pow", &f, &[v64(&[1.3, 0.5, 2.2]), base.clone()]);
    check("pow", &f, &[base.clone(), Tensor::scalar(3.0f64)]);
    check(
        "pow",
        &|xs| pow(&multiply(&xs[0], &xs[1])?, &xs[1]),
        &[base, v64(&[1.3, 0.5, 2.2])],
    );
}

#[test]
fn gradcheck_floormod() {
    let a = t64(&[5.3, -2.7, 7.9, -6.1, 1.4, 3.3], &[2, 3]);
    let b = v64(&[2.1, -1.6, 3.7]);
    let f = |xs: &[Tensor]| floormod(&xs[0], &xs[1]);
    check("floormod", &f, &[a.clone(), b.clone()]);
    check(
        "floormod",
        &|xs| multiply(&floormod(&xs[0], &xs[1])?, &xs[1]),
        &[a, b],
    );
}

#[test]
fn gradcheck_where() {
    let cond = vbool(&[true, false], &[2, 1]);
    let x = v64(&[0.3, -1.2, 2.5]);
    let y = t64(&[1.1, 0.6, -0.8, 2.0, -1.4, 0.2], &[2, 3]);
    let f = |xs: &[Tensor]| {
        let w = where_(&cond, &xs[0], &xs[1])?;
        multiply(&w, &w)
    };
    check("where", &f, &[x.clone(), y.clone()]);
    check("where", &f, &[x, Tensor::scalar(0.7f64)]);
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
    check("clip_by_value", &f, &[t, lo, hi]);
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
    let cond = vbool(&[true, false, true], &[3]);
    let x = t64(&[1.0, 2.0, 3.0, 4.0, 5.0, 6.0], &[2, 3]);
    let y = Tensor::scalar(0.5f64);
    let g = grad_values(&|xs| where_(&cond, &xs[0], &xs[1]), &[x, y]);
    assert_eq!(g, vec![vec![1.0, 0.0, 1.0, 1.0, 0.0, 1.0], vec![2.0]]);
}

#[test]
fn cast_passes_gradients_between_float_dtypes() {
    let x = v64(&[1.0, 2.0]);
    let g = grads(
        &|xs| multiply(&cast(&xs[0], DType::F32)?, &v32(&[3.0, 4.0])),
        &[x],
    );
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
        let (g32, g64) = (grads(&f, &[x32]), grads(&f, &[x64]));
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
            grads(&f, &[a32.clone(), b32.clone()]),
            grads(&f, &[a64.clone(), b64.clone()]),
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
        let err = op(&vbool(&[true], &[1])).unwrap_err();
        assert_eq!(
            (err.kind.clone(), err.op.as_str()),
            (ErrorKind::DType, name)
        );
        assert!(err.message.contains("bool"), "{err}");
    }
}
