//! Pooling (src/ops/pool.rs): values against a direct loop for every window, stride and
//! padding; gradients against finite differences (first and second order, float64, inputs
//! without ties); vectorised Jacobians against row-by-row ones; ties routed to the first
//! maximum; and the errors.
use rustape::ops::{avg_pool2d, cast, max_pool2d, multiply, reshape, Padding};
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

/// Max (or mean) over the window positions inside the image.
fn naive(
    x: &Tensor,
    k: [usize; 2],
    s: [usize; 2],
    same: bool,
    max: bool,
) -> (Vec<usize>, Vec<f64>) {
    let xs = x.shape();
    let (n, h, w, c) = (xs[0], xs[1], xs[2], xs[3]);
    let (oh, pt) = axis(h, k[0], s[0], same);
    let (ow, pl) = axis(w, k[1], s[1], same);
    let v = x.to_f64_vec();
    let mut out = Vec::new();
    for b in 0..n {
        for oy in 0..oh {
            for ox in 0..ow {
                for ch in 0..c {
                    let mut acc: Vec<f64> = Vec::new();
                    for ky in 0..k[0] {
                        for kx in 0..k[1] {
                            let iy = (oy * s[0] + ky) as isize - pt as isize;
                            let ix = (ox * s[1] + kx) as isize - pl as isize;
                            if iy >= 0 && ix >= 0 && (iy as usize) < h && (ix as usize) < w {
                                acc.push(v[((b * h + iy as usize) * w + ix as usize) * c + ch]);
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
    (vec![n, oh, ow, c], out)
}

const WINDOWS: [([usize; 2], [usize; 2]); 5] = [
    ([2, 2], [2, 2]),
    ([3, 3], [1, 1]),
    ([3, 2], [2, 1]),
    ([1, 1], [2, 3]),
    ([2, 3], [3, 2]),
];

#[test]
fn pools_match_the_direct_loop() {
    let x = distinct(&[2, 7, 6, 3], 1);
    for (k, s) in WINDOWS {
        for same in [false, true] {
            let p = if same { Padding::Same } else { Padding::Valid };
            for max in [true, false] {
                let y = if max {
                    max_pool2d(&x, k, s, &p)
                } else {
                    avg_pool2d(&x, k, s, &p)
                }
                .unwrap();
                let (shape, want) = naive(&x, k, s, same, max);
                assert_eq!(y.shape(), &shape[..], "{k:?} {s:?} same={same} max={max}");
                let what = format!("{k:?} {s:?} same={same} max={max}");
                assert_close_labelled(&values(&y), &want, 1e-12, &what);
                // float32 too.
                let y32 = if max {
                    max_pool2d(&cast(&x, DType::F32).unwrap(), k, s, &p)
                } else {
                    avg_pool2d(&cast(&x, DType::F32).unwrap(), k, s, &p)
                }
                .unwrap();
                assert_eq!(y32.dtype(), DType::F32);
                assert_close_labelled(&values(&y32), &want, 1e-5, &what);
            }
        }
    }
}

fn check(what: &str, f: &dyn Fn(&[Tensor]) -> Result<Tensor>, inputs: &[Tensor]) {
    check_nn(f, inputs, what);
}

#[test]
fn pool_gradients_every_order() {
    let x = distinct(&[2, 5, 4, 2], 3);
    for (k, s) in WINDOWS {
        for p in [Padding::Valid, Padding::Same] {
            let pp = p.clone();
            check(
                &format!("max_pool2d {k:?} {s:?} {p:?}"),
                &move |t: &[Tensor]| {
                    let y = max_pool2d(&t[0], k, s, &pp)?;
                    multiply(&y, &y)
                },
                std::slice::from_ref(&x),
            );
            let pp = p.clone();
            check(
                &format!("avg_pool2d {k:?} {s:?} {p:?}"),
                &move |t: &[Tensor]| {
                    let y = avg_pool2d(&t[0], k, s, &pp)?;
                    multiply(&y, &y)
                },
                std::slice::from_ref(&x),
            );
        }
    }
    // Pooling of a pooled gradient: third-order paths through the scatter/gather pair.
    check(
        "max_pool2d of its own gradient",
        &|t: &[Tensor]| {
            let tape = Tape::new(false, true);
            let y = {
                let _r = tape.enter()?;
                tape.watch(&t[0]);
                let y = max_pool2d(&t[0], [2, 2], [1, 1], &Padding::Same)?;
                rustape::ops::reduce_sum(&multiply(&y, &y)?, None, false)?
            };
            let g = tape.gradient(&[y], &[(&t[0]).into()], None, Unconnected::Zero)?;
            let g = g[0].clone().unwrap();
            multiply(&g, &t[0])
        },
        std::slice::from_ref(&x),
    );
}

#[test]
fn leading_axes_fold_into_the_batch() {
    let x = distinct(&[2, 3, 4, 4, 2], 5);
    let flat = reshape(&x, &[6, 4, 4, 2]).unwrap();
    for max in [true, false] {
        let pool = if max { max_pool2d } else { avg_pool2d };
        let y = pool(&x, [2, 2], [2, 2], &Padding::Valid).unwrap();
        let yf = pool(&flat, [2, 2], [2, 2], &Padding::Valid).unwrap();
        assert_eq!(y.shape(), &[2, 3, 2, 2, 2]);
        assert_eq!(y.to_f64_vec(), yf.to_f64_vec());
    }
}

#[test]
fn ties_route_to_the_first_maximum_and_nan_wins() {
    let x = Tensor::from_vec(vec![1.0f64, 3.0, 3.0, 2.0], &[1, 2, 2, 1]).unwrap();
    let tape = Tape::new(false, true);
    let y = {
        let _r = tape.enter().unwrap();
        tape.watch(&x);
        max_pool2d(&x, [2, 2], [2, 2], &Padding::Valid).unwrap()
    };
    let g = tape
        .gradient(&[y], &[(&x).into()], None, Unconnected::None)
        .unwrap();
    assert_eq!(
        g[0].as_ref().unwrap().to_f64_vec(),
        vec![0.0, 1.0, 0.0, 0.0]
    );
    // A NaN is the maximum (it propagates), and the first NaN takes the gradient.
    let x = Tensor::from_vec(vec![1.0f64, f64::NAN, 3.0, f64::NAN], &[1, 2, 2, 1]).unwrap();
    let tape = Tape::new(false, true);
    let y = {
        let _r = tape.enter().unwrap();
        tape.watch(&x);
        max_pool2d(&x, [2, 2], [2, 2], &Padding::Valid).unwrap()
    };
    assert!(y.to_f64_vec()[0].is_nan());
    let g = tape
        .gradient(&[y], &[(&x).into()], None, Unconnected::None)
        .unwrap();
    assert_eq!(
        g[0].as_ref().unwrap().to_f64_vec(),
        vec![0.0, 1.0, 0.0, 0.0]
    );
}

#[test]
fn large_inputs_run_in_parallel_with_the_same_values() {
    let x = distinct(&[64, 26, 26, 32], 7);
    let y = max_pool2d(&x, [2, 2], [2, 2], &Padding::Valid).unwrap();
    let (shape, want) = naive(&x, [2, 2], [2, 2], false, true);
    assert_eq!((y.shape(), y.to_f64_vec()), (&shape[..], want));
    let a = avg_pool2d(&x, [3, 3], [2, 2], &Padding::Same).unwrap();
    let (_, want) = naive(&x, [3, 3], [2, 2], true, false);
    assert_close(&values(&a), &want, 1e-12);
}

#[test]
fn errors_name_the_op_and_shapes() {
    let x = distinct(&[1, 4, 4, 2], 1);
    let e = max_pool2d(&distinct(&[4, 4, 2], 1), [2, 2], [2, 2], &Padding::Valid).unwrap_err();
    assert_eq!((e.kind, e.op.as_str()), (ErrorKind::Shape, "max_pool2d"));
    assert!(e.message.contains("[4, 4, 2]"), "{}", e.message);
    let e = avg_pool2d(&x, [0, 2], [2, 2], &Padding::Valid).unwrap_err();
    assert_eq!((e.kind, e.op.as_str()), (ErrorKind::Value, "avg_pool2d"));
    let e = max_pool2d(&x, [5, 2], [1, 1], &Padding::Valid).unwrap_err();
    assert_eq!(e.kind, ErrorKind::Value);
    let e = max_pool2d(&x, [2, 2], [1, 1], &Padding::Explicit(vec![(1, 1), (1, 1)])).unwrap_err();
    assert_eq!(e.kind, ErrorKind::Value);
    let xi = cast(&x, DType::I32).unwrap();
    let e = max_pool2d(&xi, [2, 2], [2, 2], &Padding::Valid).unwrap_err();
    assert_eq!(e.kind, ErrorKind::DType);
}
