//! The FFT ops (`src/ops/signal.rs`): values against a direct DFT, round trips, gradients of
//! every order against finite differences (float64 and complex128), vectorised Jacobians, and
//! bad input. TensorFlow's values are in tests/python/test_signal_reference.py.
mod support;
use support::complex::*;
use support::*;

use num_complex::Complex;
use rustape::ops::{
    cast, fft, fft2d, fft3d, fftshift, ifft, ifft2d, ifft3d, ifftshift, irfft, irfft_nd, multiply,
    real, rfft, rfft_nd,
};
use rustape::testing::{check_vectorized, pseudo_random, pseudo_random_like};
use rustape::{DType, ErrorKind, Tensor};

/// The DFT of `x` (complex, row-major `shape`) over its last `rank` axes, directly.
fn direct_dft(x: &[Complex<f64>], shape: &[usize], rank: usize, sign: f64) -> Vec<Complex<f64>> {
    let r = shape.len();
    let dims = &shape[r - rank..];
    let block: usize = dims.iter().product();
    let mut out = vec![Complex::new(0.0, 0.0); x.len()];
    let index = |mut flat: usize| -> Vec<usize> {
        let mut idx = vec![0; rank];
        for a in (0..rank).rev() {
            idx[a] = flat % dims[a];
            flat /= dims[a];
        }
        idx
    };
    for b in 0..x.len() / block {
        for k in 0..block {
            let ki = index(k);
            let mut sum = Complex::new(0.0, 0.0);
            for t in 0..block {
                let ti = index(t);
                let phase: f64 = (0..rank)
                    .map(|a| (ki[a] * ti[a]) as f64 / dims[a] as f64)
                    .sum();
                sum += x[b * block + t]
                    * Complex::from_polar(1.0, sign * 2.0 * std::f64::consts::PI * phase);
            }
            out[b * block + k] = sum;
        }
    }
    out
}

/// An FFT op of rustape.
type Transform = fn(&Tensor) -> rustape::Result<Tensor>;

fn flat(v: &[Complex<f64>]) -> Vec<f64> {
    v.iter().flat_map(|z| [z.re, z.im]).collect()
}

const SHAPES: [(&[usize], usize); 7] = [
    (&[8], 1),
    (&[3, 7], 1),
    (&[2, 12], 1),
    (&[4, 5], 2),
    (&[2, 3, 6], 2),
    (&[2, 3, 4], 3),
    (&[2, 3, 5, 2], 3),
];

#[test]
fn complex_transforms_match_the_direct_dft() {
    for (shape, rank) in SHAPES {
        let x = random_c128(shape, 3, 1.0);
        let xv = x.to_complex_vec();
        let (forward, inverse): (Transform, Transform) = match rank {
            1 => (fft, ifft),
            2 => (fft2d, ifft2d),
            _ => (fft3d, ifft3d),
        };
        let want = direct_dft(&xv, shape, rank, -1.0);
        assert_close_labelled(&parts(&forward(&x).unwrap()), &flat(&want), 1e-12, "fft");
        let n: usize = shape[shape.len() - rank..].iter().product();
        let want_inv: Vec<Complex<f64>> = direct_dft(&xv, shape, rank, 1.0)
            .iter()
            .map(|z| z / n as f64)
            .collect();
        assert_close_labelled(
            &parts(&inverse(&x).unwrap()),
            &flat(&want_inv),
            1e-12,
            "ifft",
        );
        // complex64 runs in float32.
        let x32 = cast(&x, DType::Complex64).unwrap();
        let y32 = forward(&x32).unwrap();
        assert_eq!(y32.dtype(), DType::Complex64);
        assert_close_labelled(&parts(&y32), &flat(&want), 1e-5 * n as f64, "fft complex64");
    }
}

#[test]
fn real_transforms_are_the_half_spectra() {
    for (shape, rank) in SHAPES {
        let x = pseudo_random(shape, 5);
        let xc: Vec<Complex<f64>> = x
            .to_f64_vec()
            .iter()
            .map(|&v| Complex::new(v, 0.0))
            .collect();
        let full = direct_dft(&xc, shape, rank, -1.0);
        let last = shape[shape.len() - 1];
        let half = last / 2 + 1;
        let want: Vec<Complex<f64>> = full
            .chunks(last)
            .flat_map(|row| row[..half].to_vec())
            .collect();
        let y = rfft_nd(&x, rank, None).unwrap();
        assert_close_labelled(&parts(&y), &flat(&want), 1e-12, "rfft");
        let back = irfft_nd(&y, rank, Some(&shape[shape.len() - rank..])).unwrap();
        assert_close_labelled(&values(&back), &x.to_f64_vec(), 1e-12, "irfft(rfft)");
        let y32 = rfft_nd(&cast(&x, DType::F32).unwrap(), rank, None).unwrap();
        assert_eq!(y32.dtype(), DType::Complex64);
    }
}

#[test]
fn fft_length_crops_and_pads() {
    let x = t64(&[1.0, 2.0, 3.0, 4.0, 5.0], &[5]);
    // Cropped to 3: [1, 2, 3] -> [6, -1.5 + 0.866i].
    let y = rfft(&x, Some(3)).unwrap();
    let h = 3f64.sqrt() / 2.0;
    assert_complex(&y, &[(6.0, 0.0), (-1.5, h)], 1e-12, "rfft crop");
    // Padded to 8: the DFT of [1..5, 0, 0, 0], 5 bins.
    let y = rfft(&x, Some(8)).unwrap();
    assert_eq!(y.shape(), &[5]);
    let padded: Vec<Complex<f64>> = (0..8)
        .map(|i| Complex::new(if i < 5 { i as f64 + 1.0 } else { 0.0 }, 0.0))
        .collect();
    let want = direct_dft(&padded, &[8], 1, -1.0);
    assert_close(&parts(&y), &flat(&want[..5]), 1e-12);
    // irfft with a longer and a shorter length than the input's bins.
    let spectrum = rfft(&x, None).unwrap();
    assert_eq!(irfft(&spectrum, Some(9)).unwrap().shape(), &[9]);
    assert_eq!(irfft(&spectrum, Some(2)).unwrap().shape(), &[2]);
    assert_eq!(irfft(&spectrum, None).unwrap().shape(), &[4]);
    // Empty signals have one (zero) frequency; empty batches stay empty.
    let empty = rfft(&t64(&[], &[2, 0]), None).unwrap();
    assert_eq!(empty.shape(), &[2, 1]);
    assert_close(&parts(&empty), &[0.0; 4], 0.0);
    assert_eq!(rfft(&t64(&[], &[0, 4]), None).unwrap().shape(), &[0, 3]);
    assert_eq!(fft2d(&c128(&[], &[3, 0])).unwrap().shape(), &[3, 0]);
}

#[test]
fn shifts_roll_by_half() {
    let x = t64(&[0.0, 1.0, 2.0, 3.0, 4.0], &[5]);
    assert_close(
        &values(&fftshift(&x, None).unwrap()),
        &[3.0, 4.0, 0.0, 1.0, 2.0],
        0.0,
    );
    assert_close(
        &values(&ifftshift(&x, None).unwrap()),
        &[2.0, 3.0, 4.0, 0.0, 1.0],
        0.0,
    );
    let m = pseudo_random(&[3, 4], 1);
    let back = ifftshift(&fftshift(&m, Some(&[-1])).unwrap(), Some(&[-1])).unwrap();
    assert_close(&values(&back), &m.to_f64_vec(), 0.0);
}

/// `Re(sum(y * y * c))` for fixed complex weights `c`: a real, non-linear function of `y`
/// that reads both its parts.
fn squared(y: &Tensor, seed: u64) -> rustape::Result<Tensor> {
    let c = pseudo_random_like(y.shape(), DType::Complex128, seed);
    real(&multiply(&multiply(y, y)?, &c)?)
}

#[test]
fn gradients_every_order() {
    type Op = fn(&Tensor) -> rustape::Result<Tensor>;
    let complex_ops: [(Op, &[usize], &str); 6] = [
        (fft, &[2, 5], "fft"),
        (ifft, &[4], "ifft"),
        (fft2d, &[3, 4], "fft2d"),
        (ifft2d, &[2, 2, 3], "ifft2d"),
        (fft3d, &[2, 3, 2], "fft3d"),
        (ifft3d, &[1, 2, 2, 3], "ifft3d"),
    ];
    for (op, shape, what) in complex_ops {
        let x = random_c128(shape, 7, 1.0);
        check_labelled(&move |t: &[Tensor]| squared(&op(&t[0])?, 1), &[x], what);
    }
    for (shape, rank) in SHAPES.iter().take(5) {
        let rank = *rank;
        let x = pseudo_random(shape, 11);
        check_labelled(
            &move |t: &[Tensor]| squared(&rfft_nd(&t[0], rank, None)?, 2),
            std::slice::from_ref(&x),
            &format!("rfft rank {rank} {shape:?}"),
        );
        let y = rfft_nd(&x, rank, None).unwrap();
        let lengths: Vec<usize> = shape[shape.len() - rank..].to_vec();
        check_labelled(
            &move |t: &[Tensor]| {
                let z = irfft_nd(&t[0], rank, Some(&lengths))?;
                multiply(&z, &z)
            },
            &[y],
            &format!("irfft rank {rank} {shape:?}"),
        );
    }
    // Cropping and padding compose with the transforms' gradients.
    let x = pseudo_random(&[2, 5], 13);
    for n in [3usize, 5, 8] {
        check_labelled(
            &move |t: &[Tensor]| squared(&rfft(&t[0], Some(n))?, 3),
            std::slice::from_ref(&x),
            &format!("rfft fft_length {n}"),
        );
        let c = random_c128(&[2, 4], 17, 1.0);
        check_labelled(
            &move |t: &[Tensor]| {
                let z = irfft(&t[0], Some(n))?;
                multiply(&z, &z)
            },
            &[c],
            &format!("irfft fft_length {n}"),
        );
    }
}

#[test]
fn vectorised_jacobians() {
    let x = random_c128(&[3, 4], 19, 1.0);
    check_vectorized(&|t: &[Tensor]| fft(&t[0]), std::slice::from_ref(&x), 1e-12).unwrap();
    let x3 = random_c128(&[2, 3, 4], 19, 1.0);
    check_vectorized(
        &|t: &[Tensor]| ifft2d(&t[0]),
        std::slice::from_ref(&x3),
        1e-12,
    )
    .unwrap();
    let r = pseudo_random(&[3, 6], 23);
    check_vectorized(
        &|t: &[Tensor]| rfft(&t[0], None),
        std::slice::from_ref(&r),
        1e-12,
    )
    .unwrap();
    let r3 = pseudo_random(&[2, 3, 6], 29);
    check_vectorized(
        &|t: &[Tensor]| irfft(&rfft_nd(&t[0], 2, None)?, Some(6)),
        std::slice::from_ref(&r3),
        1e-12,
    )
    .unwrap();
}

#[test]
fn bad_input_names_the_op() {
    let real_x = pseudo_random(&[4], 1);
    let complex_x = random_c128(&[4], 1, 1.0);
    let e = fft(&real_x).unwrap_err();
    assert_eq!(e.kind, ErrorKind::DType);
    assert!(
        e.to_string().contains("fft") && e.to_string().contains("float64"),
        "{e}"
    );
    let e = rfft(&complex_x, None).unwrap_err();
    assert_eq!(e.kind, ErrorKind::DType);
    assert!(
        e.to_string().contains("rfft") && e.to_string().contains("complex128"),
        "{e}"
    );
    let e = fft2d(&complex_x).unwrap_err();
    assert_eq!(e.kind, ErrorKind::Shape);
    assert!(
        e.to_string().contains("fft2d") && e.to_string().contains("[4]"),
        "{e}"
    );
    let e = rfft_nd(&real_x, 1, Some(&[2, 2])).unwrap_err();
    assert_eq!(e.kind, ErrorKind::Shape);
    let e = irfft(&c128(&[], &[0]), None).unwrap_err();
    assert_eq!(e.kind, ErrorKind::Value);
}
