//! Convolutions (src/ops/conv/): values against a direct loop over every stride, padding,
//! dilation and group combination; the two backprop ops as the adjoints of `conv2d`
//! (`<conv(x, f), dy> = <x, backprop_input(dy, f)> = <f, backprop_filter(x, dy)>`); gradients
//! against finite differences (first and second order, float64); vectorised Jacobians against
//! row-by-row ones; float32 against float64; and the errors for bad shapes and arguments.
use rustape::ops::{
    cast, conv1d, conv2d, conv2d_backprop_filter, conv2d_backprop_input, conv2d_transpose,
    depthwise_conv2d, multiply, Padding,
};
use rustape::{DType, ErrorKind, Result, Tensor};

mod support;
use support::nn::*;
use support::*;

/// Values in [-0.5, 0.5).
fn rand(shape: &[usize], seed: u64) -> Tensor {
    signed(shape, seed, 1.0)
}

/// The direct definition: `y[n, oy, ox, o] = sum x[n, iy, ix, group c] * f[ky, kx, c, o]`.
#[allow(clippy::too_many_arguments)]
fn naive(
    x: &Tensor,
    f: &Tensor,
    strides: [usize; 2],
    dil: [usize; 2],
    pads: [usize; 2],
    out: [usize; 2],
) -> Vec<f64> {
    let (xs, fs) = (x.shape(), f.shape());
    let (n, h, w, c) = (xs[0], xs[1], xs[2], xs[3]);
    let (kh, kw, cg, o) = (fs[0], fs[1], fs[2], fs[3]);
    let groups = c / cg;
    let og = o / groups;
    let (xv, fv) = (x.to_f64_vec(), f.to_f64_vec());
    let mut y = vec![0.0; n * out[0] * out[1] * o];
    for b in 0..n {
        for oy in 0..out[0] {
            for ox in 0..out[1] {
                for oc in 0..o {
                    let group = oc / og;
                    let mut s = 0.0;
                    for ky in 0..kh {
                        for kx in 0..kw {
                            let iy = (oy * strides[0] + ky * dil[0]) as isize - pads[0] as isize;
                            let ix = (ox * strides[1] + kx * dil[1]) as isize - pads[1] as isize;
                            if iy < 0 || ix < 0 || iy >= h as isize || ix >= w as isize {
                                continue;
                            }
                            for j in 0..cg {
                                let ch = group * cg + j;
                                s += xv[((b * h + iy as usize) * w + ix as usize) * c + ch]
                                    * fv[((ky * kw + kx) * cg + j) * o + oc];
                            }
                        }
                    }
                    y[((b * out[0] + oy) * out[1] + ox) * o + oc] = s;
                }
            }
        }
    }
    y
}

/// TensorFlow's output size and leading padding of one axis.
fn axis(size: usize, k: usize, s: usize, d: usize, padding: &Padding, i: usize) -> (usize, usize) {
    let eff = (k - 1) * d + 1;
    match padding {
        Padding::Valid => ((size - eff) / s + 1, 0),
        Padding::Same => {
            let out = size.div_ceil(s);
            (out, ((out - 1) * s + eff).saturating_sub(size) / 2)
        }
        Padding::Explicit(p) => ((size + p[i].0 + p[i].1 - eff) / s + 1, p[i].0),
    }
}

struct Case {
    x: [usize; 4],
    f: [usize; 4],
    strides: [usize; 2],
    dil: [usize; 2],
    padding: Padding,
}

fn cases() -> Vec<Case> {
    let mut out = Vec::new();
    let paddings = [
        Padding::Valid,
        Padding::Same,
        Padding::Explicit(vec![(1, 0), (2, 1)]),
    ];
    for padding in paddings {
        for (strides, dil) in [
            ([1, 1], [1, 1]),
            ([2, 1], [1, 1]),
            ([2, 3], [1, 1]),
            ([1, 1], [2, 1]),
        ] {
            // Groups: 1 (c = 3 to 3 per group), and 2 (c = 4, 2 per group).
            out.push(Case {
                x: [2, 6, 7, 3],
                f: [3, 2, 3, 4],
                strides,
                dil,
                padding: padding.clone(),
            });
            out.push(Case {
                x: [1, 5, 6, 4],
                f: [2, 3, 2, 4],
                strides,
                dil,
                padding: padding.clone(),
            });
        }
    }
    out
}

#[test]
fn conv2d_matches_the_direct_loop() {
    for (i, c) in cases().iter().enumerate() {
        let x = rand(&c.x, i as u64 + 1);
        let f = rand(&c.f, i as u64 + 100);
        let (oh, pt) = axis(c.x[1], c.f[0], c.strides[0], c.dil[0], &c.padding, 0);
        let (ow, pl) = axis(c.x[2], c.f[1], c.strides[1], c.dil[1], &c.padding, 1);
        let y = conv2d(&x, &f, c.strides, &c.padding, c.dil).unwrap();
        assert_eq!(y.shape(), &[c.x[0], oh, ow, c.f[3]], "case {i}");
        let want = naive(&x, &f, c.strides, c.dil, [pt, pl], [oh, ow]);
        assert_close_labelled(&y.to_f64_vec(), &want, 1e-13, &format!("case {i}"));
        // float32 agrees to float32 rounding.
        let y32 = conv2d(
            &cast(&x, DType::F32).unwrap(),
            &cast(&f, DType::F32).unwrap(),
            c.strides,
            &c.padding,
            c.dil,
        )
        .unwrap();
        assert_eq!(y32.dtype(), DType::F32);
        assert_close_labelled(&y32.to_f64_vec(), &want, 1e-5, &format!("case {i} f32"));
    }
}

#[test]
fn backprops_are_the_adjoints_of_conv2d() {
    for (i, c) in cases().iter().enumerate() {
        let x = rand(&c.x, i as u64 + 1);
        let f = rand(&c.f, i as u64 + 100);
        let y = conv2d(&x, &f, c.strides, &c.padding, c.dil).unwrap();
        let dy = rand(y.shape(), i as u64 + 200);
        let dx = conv2d_backprop_input(&c.x, &f, &dy, c.strides, &c.padding, c.dil).unwrap();
        let df = conv2d_backprop_filter(&x, &c.f, &dy, c.strides, &c.padding, c.dil).unwrap();
        assert_eq!((dx.shape(), df.shape()), (&c.x[..], &c.f[..]));
        let lhs = dot(&y, &dy);
        assert!(
            (dot(&x, &dx) - lhs).abs() < 1e-12,
            "case {i}: input adjoint"
        );
        assert!(
            (dot(&f, &df) - lhs).abs() < 1e-12,
            "case {i}: filter adjoint"
        );
        // conv2d_transpose is the input backprop with TF's argument order.
        let t = conv2d_transpose(&dy, &f, &c.x, c.strides, &c.padding, c.dil).unwrap();
        assert_eq!(t.to_f64_vec(), dx.to_f64_vec(), "case {i}: transpose");
    }
}

fn check(what: &str, f: &dyn Fn(&[Tensor]) -> Result<Tensor>, inputs: &[Tensor]) {
    check_nn(f, inputs, what);
}

#[test]
fn conv2d_gradients_every_order() {
    let small = [
        ([1, 4, 5, 2], [2, 3, 2, 3], [1, 1], [1, 1], Padding::Same),
        ([2, 5, 4, 2], [3, 2, 2, 2], [2, 1], [1, 1], Padding::Valid),
        (
            [1, 5, 5, 2],
            [2, 2, 2, 2],
            [1, 2],
            [2, 1],
            Padding::Explicit(vec![(0, 1), (1, 1)]),
        ),
        ([1, 4, 4, 4], [2, 2, 2, 2], [1, 1], [1, 1], Padding::Same), // two groups
        ([2, 3, 3, 3], [1, 1, 3, 2], [1, 1], [1, 1], Padding::Valid), // pointwise
    ];
    for (i, (xs, fs, s, d, p)) in small.into_iter().enumerate() {
        let x = rand(&xs, i as u64 + 1);
        let f = rand(&fs, i as u64 + 50);
        let pp = p.clone();
        check(
            &format!("conv2d {i}"),
            &move |t: &[Tensor]| conv2d(&t[0], &t[1], s, &pp, d),
            &[x.clone(), f.clone()],
        );
        // One operand at a time: the batch Jacobian (rows kept apart) runs for the input.
        let (fc, pp) = (f.clone(), p.clone());
        check(
            &format!("conv2d input {i}"),
            &move |t: &[Tensor]| conv2d(&t[0], &fc, s, &pp, d),
            std::slice::from_ref(&x),
        );
        let y = conv2d(&x, &f, s, &p, d).unwrap();
        let dy = rand(y.shape(), i as u64 + 70);
        let (pp, xs2) = (p.clone(), xs);
        check(
            &format!("conv2d_transpose {i}"),
            &move |t: &[Tensor]| conv2d_transpose(&t[0], &t[1], &xs2, s, &pp, d),
            &[dy.clone(), f.clone()],
        );
        let pp = p.clone();
        check(
            &format!("conv2d_backprop_filter {i}"),
            &move |t: &[Tensor]| conv2d_backprop_filter(&t[0], &fs, &t[1], s, &pp, d),
            &[x.clone(), dy.clone()],
        );
        // A product of two convolutions (curvature in both operands).
        let pp = p.clone();
        check(
            &format!("conv2d squared {i}"),
            &move |t: &[Tensor]| {
                let y = conv2d(&t[0], &t[1], s, &pp, d)?;
                multiply(&y, &y)
            },
            &[x, f],
        );
    }
}

#[test]
fn depthwise_and_conv1d_gradients() {
    for (i, (m, s, d, p)) in [
        (1, [1, 1], [1, 1], Padding::Same),
        (2, [2, 1], [1, 1], Padding::Valid),
        (2, [1, 1], [2, 2], Padding::Same),
    ]
    .into_iter()
    .enumerate()
    {
        let x = rand(&[2, 5, 4, 3], i as u64 + 1);
        let f = rand(&[2, 3, 3, m], i as u64 + 9);
        let pp = p.clone();
        check(
            &format!("depthwise {i}"),
            &move |t: &[Tensor]| {
                let y = depthwise_conv2d(&t[0], &t[1], s, &pp, d)?;
                multiply(&y, &y)
            },
            &[x, f],
        );
    }
    let x = rand(&[2, 7, 3], 5);
    let f = rand(&[3, 3, 2], 6);
    for (s, d, p) in [
        (1, 1, Padding::Same),
        (2, 1, Padding::Valid),
        (1, 2, Padding::Explicit(vec![(2, 0)])),
    ] {
        check(
            "conv1d",
            &move |t: &[Tensor]| {
                let y = conv1d(&t[0], &t[1], s, &p, d)?;
                multiply(&y, &y)
            },
            &[x.clone(), f.clone()],
        );
    }
}

#[test]
fn depthwise_matches_per_channel_convolutions() {
    // Output channel k * m + q is channel k convolved with filter [.., .., k, q].
    let x = rand(&[2, 6, 5, 3], 1);
    let f = rand(&[3, 2, 3, 2], 2);
    let y = depthwise_conv2d(&x, &f, [2, 1], &Padding::Same, [1, 1]).unwrap();
    assert_eq!(y.shape(), &[2, 3, 5, 6]);
    let (xv, fv) = (x.to_f64_vec(), f.to_f64_vec());
    for k in 0..3 {
        let xk: Vec<f64> = xv.iter().skip(k).step_by(3).copied().collect();
        let xk = Tensor::from_vec(xk, &[2, 6, 5, 1]).unwrap();
        for q in 0..2 {
            let fk: Vec<f64> = (0..6).map(|p| fv[p * 6 + k * 2 + q]).collect();
            let fk = Tensor::from_vec(fk, &[3, 2, 1, 1]).unwrap();
            let want = conv2d(&xk, &fk, [2, 1], &Padding::Same, [1, 1])
                .unwrap()
                .to_f64_vec();
            let got: Vec<f64> = y
                .to_f64_vec()
                .iter()
                .skip(k * 2 + q)
                .step_by(6)
                .copied()
                .collect();
            assert_close_labelled(&got, &want, 1e-14, &format!("channel {k} multiplier {q}"));
        }
    }
}

#[test]
fn leading_batch_axes_fold_into_the_batch() {
    let x = rand(&[2, 3, 4, 4, 2], 1);
    let f = rand(&[2, 2, 2, 3], 2);
    let y = conv2d(&x, &f, [1, 1], &Padding::Same, [1, 1]).unwrap();
    let flat = conv2d(
        &rustape::ops::reshape(&x, &[6, 4, 4, 2]).unwrap(),
        &f,
        [1, 1],
        &Padding::Same,
        [1, 1],
    )
    .unwrap();
    assert_eq!(y.shape(), &[2, 3, 4, 4, 3]);
    assert_eq!(y.to_f64_vec(), flat.to_f64_vec());
}

#[test]
fn large_batches_split_over_chunks_and_threads_give_the_same_bits() {
    // 64 images of 12x12x8 with a 3x3x8x16 filter: several chunks, run on rayon's threads.
    let x = rand(&[64, 12, 12, 8], 3);
    let f = rand(&[3, 3, 8, 16], 4);
    let y = conv2d(&x, &f, [1, 1], &Padding::Same, [1, 1]).unwrap();
    let dy = rand(y.shape(), 5);
    let df =
        conv2d_backprop_filter(&x, &[3, 3, 8, 16], &dy, [1, 1], &Padding::Same, [1, 1]).unwrap();
    let dx =
        conv2d_backprop_input(&[64, 12, 12, 8], &f, &dy, [1, 1], &Padding::Same, [1, 1]).unwrap();
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(1)
        .build()
        .unwrap();
    let (y1, df1, dx1) = pool.install(|| {
        (
            conv2d(&x, &f, [1, 1], &Padding::Same, [1, 1]).unwrap(),
            conv2d_backprop_filter(&x, &[3, 3, 8, 16], &dy, [1, 1], &Padding::Same, [1, 1])
                .unwrap(),
            conv2d_backprop_input(&[64, 12, 12, 8], &f, &dy, [1, 1], &Padding::Same, [1, 1])
                .unwrap(),
        )
    });
    assert_eq!(y.to_f64_vec(), y1.to_f64_vec());
    assert_eq!(df.to_f64_vec(), df1.to_f64_vec());
    assert_eq!(dx.to_f64_vec(), dx1.to_f64_vec());
    // And against the direct loop.
    let want = naive(&x, &f, [1, 1], [1, 1], [1, 1], [12, 12]);
    assert_close_labelled(&y.to_f64_vec(), &want, 1e-12, "large");
    let lhs = dot(&y, &dy);
    assert!((dot(&f, &df) - lhs).abs() < 1e-9 * lhs.abs().max(1.0));
    assert!((dot(&x, &dx) - lhs).abs() < 1e-9 * lhs.abs().max(1.0));
}

#[test]
fn errors_name_the_op_and_shapes() {
    let x = rand(&[1, 4, 4, 3], 1);
    let f = rand(&[2, 2, 3, 2], 2);
    let err = |r: Result<Tensor>| r.expect_err("an error");
    // Channels that do not match.
    let e = err(conv2d(
        &x,
        &rand(&[2, 2, 2, 2], 3),
        [1, 1],
        &Padding::Same,
        [1, 1],
    ));
    assert_eq!((e.kind, e.op.as_str()), (ErrorKind::Shape, "conv2d"));
    assert!(e.message.contains("3 channels"), "{}", e.message);
    // Rank.
    let e = err(conv2d(
        &rand(&[4, 4, 3], 1),
        &f,
        [1, 1],
        &Padding::Same,
        [1, 1],
    ));
    assert_eq!(e.kind, ErrorKind::Shape);
    assert!(e.message.contains("[4, 4, 3]"), "{}", e.message);
    let e = err(conv2d(
        &x,
        &rand(&[2, 3, 2], 1),
        [1, 1],
        &Padding::Same,
        [1, 1],
    ));
    assert_eq!(e.kind, ErrorKind::Shape);
    // Zero strides, a window larger than the input.
    let e = err(conv2d(&x, &f, [0, 1], &Padding::Same, [1, 1]));
    assert_eq!(e.kind, ErrorKind::Value);
    let e = err(conv2d(
        &x,
        &rand(&[5, 1, 3, 1], 1),
        [1, 1],
        &Padding::Valid,
        [1, 1],
    ));
    assert_eq!(e.kind, ErrorKind::Value);
    assert!(e.message.contains("negative"), "{}", e.message);
    let e = err(conv2d(&x, &f, [1, 1], &Padding::Valid, [4, 1]));
    assert_eq!(e.kind, ErrorKind::Value);
    let e = err(conv2d(
        &x,
        &f,
        [1, 1],
        &Padding::Explicit(vec![(1, 1)]),
        [1, 1],
    ));
    assert_eq!(e.kind, ErrorKind::Value);
    assert!(Padding::parse("conv2d", "full").is_err());
    assert_eq!(Padding::parse("conv2d", "same").unwrap(), Padding::Same);
    // Dtypes.
    let e = err(conv2d(
        &cast(&x, DType::F32).unwrap(),
        &f,
        [1, 1],
        &Padding::Same,
        [1, 1],
    ));
    assert_eq!(e.kind, ErrorKind::DType);
    let xi = cast(&x, DType::I32).unwrap();
    let e = err(conv2d(
        &xi,
        &cast(&f, DType::I32).unwrap(),
        [1, 1],
        &Padding::Same,
        [1, 1],
    ));
    assert_eq!(e.kind, ErrorKind::DType);
    // conv2d_transpose with an output shape that does not give the input's size.
    let dy = rand(&[1, 4, 4, 2], 3);
    let e = err(conv2d_transpose(
        &dy,
        &f,
        &[1, 9, 9, 3],
        [1, 1],
        &Padding::Same,
        [1, 1],
    ));
    assert_eq!(
        (e.kind, e.op.as_str()),
        (ErrorKind::Shape, "conv2d_transpose")
    );
    assert!(e.message.contains("[1, 9, 9, 3]"), "{}", e.message);
    let e = err(conv2d_backprop_filter(
        &x,
        &[2, 2, 3],
        &dy,
        [1, 1],
        &Padding::Same,
        [1, 1],
    ));
    assert_eq!(e.kind, ErrorKind::Shape);
    // Depthwise: filter channels must equal the input's.
    let e = err(depthwise_conv2d(
        &x,
        &rand(&[2, 2, 2, 1], 1),
        [1, 1],
        &Padding::Same,
        [1, 1],
    ));
    assert_eq!(
        (e.kind, e.op.as_str()),
        (ErrorKind::Shape, "depthwise_conv2d")
    );
    let e = err(conv1d(&x, &f, 1, &Padding::Same, 1));
    assert_eq!((e.kind, e.op.as_str()), (ErrorKind::Shape, "conv1d"));
}

#[test]
fn empty_batches_and_channels() {
    let x = rand(&[0, 4, 4, 3], 1);
    let f = rand(&[2, 2, 3, 2], 2);
    let y = conv2d(&x, &f, [1, 1], &Padding::Same, [1, 1]).unwrap();
    assert_eq!(y.shape(), &[0, 4, 4, 2]);
    let x = Tensor::zeros(&[1, 3, 3, 0], DType::F64);
    let f = Tensor::zeros(&[2, 2, 0, 2], DType::F64);
    let y = conv2d(&x, &f, [1, 1], &Padding::Valid, [1, 1]).unwrap();
    assert_eq!(
        (y.shape(), y.to_f64_vec()),
        (&[1, 2, 2, 2][..], vec![0.0; 8])
    );
}
