//! Volumetric pooling (`max_pool3d`, `avg_pool3d` in src/ops/pool.rs): values against a direct
//! loop for windows, strides and paddings; a 2-D pooling as a 3-D one of depth 1; gradients
//! against finite differences (first and second order, float64, inputs without ties) with
//! vectorised Jacobians; ties routed to the first maximum in window order; and the errors.
use rustape::ops::{
    avg_pool2d, avg_pool3d, cast, max_pool2d, max_pool3d, multiply, reshape, Padding,
};
use rustape::{DType, ErrorKind, Result, Tape, Tensor, Unconnected};

mod support;
use support::nn::*;
use support::*;

/// Distinct values (a permutation of a grid, scaled): no ties anywhere.
fn distinct(shape: &[usize], seed: usize) -> Tensor {
    let n: usize = shape.iter().product();
    let values: Vec<f64> = (0..n)
        .map(|i| ((i * 37 + seed * 11) % n) as f64 * 0.1 - 0.05 * n as f64)
        .collect();
    Tensor::from_vec(values, shape).unwrap()
}

fn axis(size: usize, k: usize, s: usize, same: bool) -> (usize, usize) {
    if same {
        let out = size.div_ceil(s);
        (out, ((out - 1) * s + k).saturating_sub(size) / 2)
    } else {
        ((size - k) / s + 1, 0)
    }
}

/// Max (or mean) over the window positions inside the volume: the output shape and values.
fn naive(
    x: &Tensor,
    k: [usize; 3],
    s: [usize; 3],
    same: bool,
    max: bool,
) -> (Vec<usize>, Vec<f64>) {
    let xs = x.shape();
    let (n, c) = (xs[0], xs[4]);
    let ax: Vec<(usize, usize)> = (0..3).map(|i| axis(xs[i + 1], k[i], s[i], same)).collect();
    let v = x.to_f64_vec();
    let mut out = Vec::new();
    for b in 0..n {
        for oz in 0..ax[0].0 {
            for oy in 0..ax[1].0 {
                for ox in 0..ax[2].0 {
                    for ch in 0..c {
                        let mut acc: Vec<f64> = Vec::new();
                        for kz in 0..k[0] {
                            for ky in 0..k[1] {
                                for kx in 0..k[2] {
                                    let p = [(oz, kz), (oy, ky), (ox, kx)];
                                    let idx: Vec<isize> = (0..3)
                                        .map(|i| {
                                            (p[i].0 * s[i] + p[i].1) as isize - ax[i].1 as isize
                                        })
                                        .collect();
                                    if (0..3).all(|i| idx[i] >= 0 && (idx[i] as usize) < xs[i + 1])
                                    {
                                        let [z, y, xx] = [0, 1, 2].map(|i| idx[i] as usize);
                                        acc.push(
                                            v[(((b * xs[1] + z) * xs[2] + y) * xs[3] + xx) * c
                                                + ch],
                                        );
                                    }
                                }
                            }
                        }
                        out.push(if max {
                            acc.iter().cloned().fold(f64::NEG_INFINITY, f64::max)
                        } else {
                            acc.iter().sum::<f64>() / acc.len() as f64
                        });
                    }
                }
            }
        }
    }
    (vec![n, ax[0].0, ax[1].0, ax[2].0, c], out)
}

type Pool3 = fn(&Tensor, [usize; 3], [usize; 3], &Padding) -> Result<Tensor>;

#[test]
fn pools_match_the_direct_loop() {
    let x = distinct(&[2, 5, 4, 6, 3], 1);
    for (k, s) in [
        ([2, 2, 2], [2, 2, 2]),
        ([3, 3, 3], [1, 1, 1]),
        ([3, 2, 2], [2, 1, 2]),
        ([1, 2, 3], [2, 3, 1]),
    ] {
        for same in [false, true] {
            let padding = if same { Padding::Same } else { Padding::Valid };
            for (max, pool) in [(true, max_pool3d as Pool3), (false, avg_pool3d as Pool3)] {
                let (shape, want) = naive(&x, k, s, same, max);
                let y = pool(&x, k, s, &padding).unwrap();
                let what = format!("max {max} k {k:?} s {s:?} same {same}");
                assert_eq!(y.shape(), &shape[..], "{what}");
                assert_close_labelled(&y.to_f64_vec(), &want, 1e-13, &what);
                let y32 = pool(&cast(&x, DType::F32).unwrap(), k, s, &padding).unwrap();
                assert_eq!(y32.dtype(), DType::F32);
                assert_close_labelled(&y32.to_f64_vec(), &want, 1e-5, &what);
            }
        }
    }
}

#[test]
fn a_2d_pooling_is_a_3d_one_of_depth_1() {
    let x = distinct(&[2, 5, 6, 3], 2);
    let x3 = reshape(&x, &[2, 1, 5, 6, 3]).unwrap();
    for padding in [Padding::Same, Padding::Valid] {
        let a = max_pool2d(&x, [3, 2], [2, 1], &padding).unwrap();
        let b = max_pool3d(&x3, [1, 3, 2], [1, 2, 1], &padding).unwrap();
        assert_eq!(a.to_f64_vec(), b.to_f64_vec());
        let a = avg_pool2d(&x, [3, 2], [2, 1], &padding).unwrap();
        let b = avg_pool3d(&x3, [1, 3, 2], [1, 2, 1], &padding).unwrap();
        assert_eq!(a.to_f64_vec(), b.to_f64_vec());
    }
}

#[test]
fn pool_gradients_every_order() {
    for (k, s, padding) in [
        ([2, 2, 2], [1, 1, 1], Padding::Same),
        ([2, 3, 2], [2, 1, 2], Padding::Valid),
    ] {
        let x = distinct(&[2, 3, 4, 3, 2], 3);
        for (name, pool) in [("max", max_pool3d as Pool3), ("avg", avg_pool3d as Pool3)] {
            let p = padding.clone();
            check_nn(
                &move |t: &[Tensor]| {
                    let y = pool(&t[0], k, s, &p)?;
                    multiply(&y, &y)
                },
                std::slice::from_ref(&x),
                &format!("{name}_pool3d k {k:?} s {s:?}"),
            );
        }
    }
}

#[test]
fn leading_axes_fold_into_the_batch() {
    let x = distinct(&[2, 3, 2, 4, 4, 2], 4);
    let y = max_pool3d(&x, [2, 2, 2], [2, 2, 2], &Padding::Valid).unwrap();
    let flat = max_pool3d(
        &reshape(&x, &[6, 2, 4, 4, 2]).unwrap(),
        [2, 2, 2],
        [2, 2, 2],
        &Padding::Valid,
    )
    .unwrap();
    assert_eq!(y.shape(), &[2, 3, 1, 2, 2, 2]);
    assert_eq!(y.to_f64_vec(), flat.to_f64_vec());
}

#[test]
fn ties_route_to_the_first_maximum() {
    let x = Tensor::from_vec(vec![1.0; 8], &[1, 2, 2, 2, 1]).unwrap();
    let tape = Tape::new(false, true);
    let y = {
        let _r = tape.enter().unwrap();
        tape.watch(&x);
        max_pool3d(&x, [2, 2, 2], [2, 2, 2], &Padding::Valid).unwrap()
    };
    let g = tape
        .gradient(&[y], &[(&x).into()], None, Unconnected::None)
        .unwrap()
        .pop()
        .flatten()
        .unwrap();
    assert_eq!(g.to_f64_vec(), [1.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0]);
}

#[test]
fn errors_name_the_op_and_shapes() {
    let x = distinct(&[1, 3, 4, 4, 2], 1);
    let err = |r: Result<Tensor>| r.expect_err("an error");
    let e = err(max_pool3d(
        &distinct(&[1, 4, 4, 2], 1),
        [2, 2, 2],
        [1, 1, 1],
        &Padding::Same,
    ));
    assert_eq!((e.kind, e.op.as_str()), (ErrorKind::Shape, "max_pool3d"));
    assert!(e.message.contains("rank at least 5"), "{}", e.message);
    let e = err(avg_pool3d(&x, [2, 0, 2], [1, 1, 1], &Padding::Same));
    assert_eq!((e.kind, e.op.as_str()), (ErrorKind::Value, "avg_pool3d"));
    let e = err(avg_pool3d(&x, [2, 2, 2], [1, 0, 1], &Padding::Same));
    assert_eq!(e.kind, ErrorKind::Value);
    let e = err(max_pool3d(&x, [4, 1, 1], [1, 1, 1], &Padding::Valid));
    assert_eq!((e.kind, e.op.as_str()), (ErrorKind::Value, "max_pool3d"));
    assert!(e.message.contains("negative"), "{}", e.message);
    let e = err(max_pool3d(
        &x,
        [2, 2, 2],
        [1, 1, 1],
        &Padding::Explicit(vec![(1, 1); 3]),
    ));
    assert_eq!(e.kind, ErrorKind::Value);
    let e = err(max_pool3d(
        &cast(&x, DType::I32).unwrap(),
        [2, 2, 2],
        [1, 1, 1],
        &Padding::Same,
    ));
    assert_eq!((e.kind, e.op.as_str()), (ErrorKind::DType, "max_pool3d"));
}
