//! The integer ops (`bitwise_*`, shifts, `invert`, `gcd`, `lcm`), `argpartition`,
//! `saturate_cast`, `nextafter` and the segment products: values against their definitions
//! (TensorFlow's numbers are in tests/python/test_int_ops.py), gradchecks (float64, first and
//! second order) and the vectorised Jacobian.
mod support;
use support::*;

use rustape::ops::*;
use rustape::testing::check_vectorized;
use rustape::{DType, Tensor};

fn ints(t: &Tensor) -> Vec<i64> {
    values(t).iter().map(|&v| v as i64).collect()
}

#[test]
fn bitwise_values_and_broadcasting() {
    let x = i32s(&[12, -1, 0, 7, 5, -8], &[2, 3]);
    let y = vi32(&[10, 6, -3]);
    assert_eq!(ints(&bitwise_and(&x, &y).unwrap()), [8, 6, 0, 2, 4, -8]);
    assert_eq!(ints(&bitwise_or(&x, &y).unwrap()), [14, -1, -3, 15, 7, -3]);
    assert_eq!(ints(&bitwise_xor(&x, &y).unwrap()), [6, -7, -3, 13, 3, 5]);
    assert_eq!(ints(&invert(&x).unwrap()), [-13, 0, -1, -8, -6, 7]);
    let big = vi64(&[i64::MIN, i64::MAX]);
    assert_eq!(ints(&invert(&big).unwrap()), [i64::MAX, i64::MIN]);
}

#[test]
fn shift_counts_are_clamped_as_tensorflow() {
    let x = vi32(&[1, -8, 5, i32::MIN, 3, 1 << 30]);
    let counts = vi32(&[-1, 3, 31, 32, 100, 2]);
    assert_eq!(
        ints(&left_shift(&x, &counts).unwrap()),
        [1, -64, i32::MIN as i64, 0, i32::MIN as i64, 0]
    );
    assert_eq!(
        ints(&right_shift(&x, &counts).unwrap()),
        [1, -1, 0, -1, 0, 1 << 28]
    );
    let wide = right_shift(&vi64(&[-1 << 40, 1 << 62]), &vi64(&[64, 62])).unwrap();
    assert_eq!(ints(&wide), [-1, 1]);
}

#[test]
fn gcd_and_lcm_follow_keras() {
    let a = vi32(&[0, 0, 12, -12, i32::MIN, i32::MIN, 7]);
    let b = vi32(&[0, 5, 18, 18, 0, 6, i32::MIN]);
    // Keras's wrapping absolute values: gcd(MIN, 0) = MIN, gcd(7, MIN) = -1.
    assert_eq!(
        ints(&gcd(&a, &b).unwrap()),
        [0, 5, 6, 6, i32::MIN as i64, 2, -1]
    );
    let lcm = lcm(
        &vi32(&[0, 4, -4, 1 << 20]),
        &vi32(&[0, 6, 6, (1 << 20) + 1]),
    )
    .unwrap();
    assert_eq!(ints(&lcm), [0, 12, 12, 1 << 20]);
}

#[test]
fn integer_ops_refuse_other_dtypes() {
    for r in [
        bitwise_and(&v64(&[1.0]), &v64(&[1.0])),
        left_shift(&vi32(&[1]), &vi64(&[1])),
        invert(&v32(&[1.0])),
        gcd(&v32(&[1.0]), &v32(&[1.0])),
        nextafter(&vi32(&[1]), &vi32(&[1])),
    ] {
        assert!(r.is_err());
    }
    assert!(saturate_cast(&v64(&[1.0]), DType::Bool).is_err());
    assert!(argpartition(&vi32(&[1, 2]), 2, -1).is_err());
}

#[test]
fn argpartition_orders_both_sides() {
    let x = i32s(&[3, 1, 2, 5, 4, 0, 7, 7, 1, 0, 9, 2], &[2, 6]);
    let p = argpartition(&x, 2, -1).unwrap();
    assert_eq!(ints(&p), [5, 1, 2, 3, 4, 0, 3, 2, 5, 4, 0, 1]);
    let last = argpartition(&vi32(&[4, 1, 3]), -1, 0).unwrap();
    assert_eq!(ints(&last), [1, 2, 0]);
}

#[test]
fn saturate_cast_bounds() {
    let f = v32(&[-3e9, -2.5, 3e9, f32::INFINITY]);
    assert_eq!(
        ints(&saturate_cast(&f, DType::I32).unwrap()),
        [i32::MIN as i64, -2, 2147483520, 2147483520]
    );
    let d = v64(&[-1e300, 1.0, f64::INFINITY, f64::NAN]);
    let to32 = values(&saturate_cast(&d, DType::F32).unwrap());
    assert_eq!(&to32[..3], [-(f32::MAX as f64), 1.0, f32::MAX as f64]);
    assert!(to32[3].is_nan());
    let i = vi64(&[i64::MIN, -5, i64::MAX]);
    assert_eq!(
        ints(&saturate_cast(&i, DType::I32).unwrap()),
        [i32::MIN as i64, -5, i32::MAX as i64]
    );
    assert_eq!(ints(&saturate_cast(&i, DType::I64).unwrap()), ints(&i));
}

#[test]
fn nextafter_values_and_gradients() {
    let y = nextafter(&v64(&[1.0, 0.0, 2.0]), &v64(&[2.0, -1.0, 2.0])).unwrap();
    assert_eq!(values(&y), [1.0 + f64::EPSILON, -f64::from_bits(1), 2.0]);
    check(
        &|x| multiply(&nextafter(&x[0], &x[1])?, &x[0]),
        &[t64(&[0.3, -0.7, 1.2, 0.5], &[2, 2]), v64(&[2.0, -3.0])],
    );
}

#[test]
fn segment_prod_values_and_gradients() {
    let x = t64(&[2.0, 3.0, 0.0, 4.0, 5.0, -1.5], &[3, 2]);
    let y = unsorted_segment_prod(&x, &vi32(&[1, -1, 1]), 3).unwrap();
    assert_eq!(values(&y), [1.0, 1.0, 10.0, -4.5, 1.0, 1.0]);
    let s = segment_prod(&v64(&[2.0, 3.0, 4.0]), &vi64(&[0, 0, 2])).unwrap();
    assert_eq!(values(&s), [6.0, 1.0, 4.0]);
    assert_eq!(
        ints(&unsorted_segment_prod(&vi32(&[3, -2, 5]), &vi32(&[0, 0, 0]), 1).unwrap()),
        [-30]
    );
    // No zero, one zero per segment (at most: two would make TensorFlow's rule's second
    // derivatives 0 where they are not).
    let cases = [
        t64(&[0.7, -1.3, 1.1, 0.4, -0.9, 1.6], &[3, 2]),
        t64(&[0.7, 0.0, 1.1, 0.4, 0.0, 1.6], &[3, 2]),
    ];
    for x in &cases {
        check_labelled(
            &|v| unsorted_segment_prod(&v[0], &vi32(&[1, 0, 1]), 3),
            std::slice::from_ref(x),
            "unsorted_segment_prod",
        );
        check_labelled(
            &|v| segment_prod(&v[0], &vi32(&[0, 0, 2])),
            std::slice::from_ref(x),
            "segment_prod",
        );
        check_vectorized(
            &|v| unsorted_segment_prod(&v[0], &vi32(&[1, 0, 1]), 2),
            std::slice::from_ref(x),
            1e-12,
        )
        .unwrap();
    }
}
