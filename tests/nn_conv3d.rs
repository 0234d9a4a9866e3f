//! Volumetric convolutions (src/ops/conv/conv3d.rs): values against a direct loop over strides,
//! paddings, dilations and groups; the two backprop ops as the adjoints of `conv3d`; gradients
//! against finite differences (first and second order, float64) and vectorised Jacobians
//! against row-by-row ones; float32 against float64; a 2-D convolution as a 3-D one of depth 1;
//! and the errors for bad shapes and arguments.
use rustape::ops::{
    cast, conv2d, conv3d, conv3d_backprop_filter, conv3d_backprop_input, conv3d_transpose,
    multiply, reshape, Padding,
};
use rustape::{DType, ErrorKind, Result, Tensor};

mod support;
use support::nn::*;
use support::*;

/// Values in [-0.5, 0.5).
fn rand(shape: &[usize], seed: u64) -> Tensor {
    signed(shape, seed, 1.0)
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
    x: [usize; 5],
    f: [usize; 5],
    strides: [usize; 3],
    dil: [usize; 3],
    padding: Padding,
}

impl Case {
    /// The output size and leading padding of each spatial axis.
    fn axes(&self) -> [(usize, usize); 3] {
        [0, 1, 2].map(|i| {
            axis(
                self.x[i + 1],
                self.f[i],
                self.strides[i],
                self.dil[i],
                &self.padding,
                i,
            )
        })
    }
}

/// The direct definition: `y[n, oz, oy, ox, o] = sum x[n, iz, iy, ix, group c] *
/// f[kz, ky, kx, c, o]`.
fn naive(x: &Tensor, f: &Tensor, c: &Case) -> Vec<f64> {
    let (xs, fs) = (x.shape(), f.shape());
    let (n, ch) = (xs[0], xs[4]);
    let (cg, o) = (fs[3], fs[4]);
    let og = o / (ch / cg);
    let ax = c.axes();
    let out = [ax[0].0, ax[1].0, ax[2].0];
    let (xv, fv) = (x.to_f64_vec(), f.to_f64_vec());
    let mut y = vec![0.0; n * out.iter().product::<usize>() * o];
    let mut at = 0;
    for b in 0..n {
        for oz in 0..out[0] {
            for oy in 0..out[1] {
                for ox in 0..out[2] {
                    for oc in 0..o {
                        let group = oc / og;
                        let mut s = 0.0;
                        for kz in 0..fs[0] {
                            for ky in 0..fs[1] {
                                for kx in 0..fs[2] {
                                    let pos = [(oz, kz), (oy, ky), (ox, kx)];
                                    let mut idx = [0usize; 3];
                                    let mut inside = true;
                                    for i in 0..3 {
                                        let p = (pos[i].0 * c.strides[i] + pos[i].1 * c.dil[i])
                                            as isize
                                            - ax[i].1 as isize;
                                        inside &= p >= 0 && p < xs[i + 1] as isize;
                                        idx[i] = p.max(0) as usize;
                                    }
                                    if !inside {
                                        continue;
                                    }
                                    for j in 0..cg {
                                        let xi = (((b * xs[1] + idx[0]) * xs[2] + idx[1]) * xs[3]
                                            + idx[2])
                                            * ch
                                            + group * cg
                                            + j;
                                        let fi =
                                            (((kz * fs[1] + ky) * fs[2] + kx) * cg + j) * o + oc;
                                        s += xv[xi] * fv[fi];
                                    }
                                }
                            }
                        }
                        y[at] = s;
                        at += 1;
                    }
                }
            }
        }
    }
    y
}

fn cases() -> Vec<Case> {
    let mut out = Vec::new();
    let paddings = [
        Padding::Valid,
        Padding::Same,
        Padding::Explicit(vec![(1, 0), (0, 2), (1, 1)]),
    ];
    for padding in paddings {
        for (strides, dil) in [
            ([1, 1, 1], [1, 1, 1]),
            ([2, 1, 3], [1, 1, 1]),
            ([1, 2, 2], [1, 1, 1]),
            ([1, 1, 1], [2, 1, 2]),
        ] {
            // Groups: 1 (3 channels), and 2 (4 channels, 2 per group).
            out.push(Case {
                x: [2, 5, 6, 7, 3],
                f: [2, 3, 2, 3, 4],
                strides,
                dil,
                padding: padding.clone(),
            });
            out.push(Case {
                x: [1, 4, 5, 6, 4],
                f: [2, 2, 3, 2, 4],
                strides,
                dil,
                padding: padding.clone(),
            });
        }
    }
    out
}

#[test]
fn conv3d_matches_the_direct_loop() {
    for (i, c) in cases().iter().enumerate() {
        let x = rand(&c.x, i as u64 + 1);
        let f = rand(&c.f, i as u64 + 100);
        let ax = c.axes();
        let y = conv3d(&x, &f, c.strides, &c.padding, c.dil).unwrap();
        assert_eq!(
            y.shape(),
            &[c.x[0], ax[0].0, ax[1].0, ax[2].0, c.f[4]],
            "case {i}"
        );
        let want = naive(&x, &f, c);
        assert_close_labelled(&y.to_f64_vec(), &want, 1e-13, &format!("case {i}"));
        let y32 = conv3d(
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
fn backprops_are_the_adjoints_of_conv3d() {
    for (i, c) in cases().iter().enumerate() {
        let x = rand(&c.x, i as u64 + 1);
        let f = rand(&c.f, i as u64 + 100);
        let y = conv3d(&x, &f, c.strides, &c.padding, c.dil).unwrap();
        let dy = rand(y.shape(), i as u64 + 200);
        let dx = conv3d_backprop_input(&c.x, &f, &dy, c.strides, &c.padding, c.dil).unwrap();
        let df = conv3d_backprop_filter(&x, &c.f, &dy, c.strides, &c.padding, c.dil).unwrap();
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
        let t = conv3d_transpose(&dy, &f, &c.x, c.strides, &c.padding, c.dil).unwrap();
        assert_eq!(t.to_f64_vec(), dx.to_f64_vec(), "case {i}: transpose");
    }
}

#[test]
fn a_2d_convolution_is_a_3d_one_of_depth_1() {
    let x = rand(&[2, 6, 5, 3], 1);
    let f = rand(&[3, 2, 3, 4], 2);
    let y2 = conv2d(&x, &f, [2, 1], &Padding::Same, [1, 2]).unwrap();
    let x3 = reshape(&x, &[2, 1, 6, 5, 3]).unwrap();
    let f3 = reshape(&f, &[1, 3, 2, 3, 4]).unwrap();
    let y3 = conv3d(&x3, &f3, [1, 2, 1], &Padding::Same, [1, 1, 2]).unwrap();
    assert_eq!(y3.shape(), &[2, 1, 3, 5, 4]);
    assert_eq!(y3.to_f64_vec(), y2.to_f64_vec());
}

fn check(what: &str, f: &dyn Fn(&[Tensor]) -> Result<Tensor>, inputs: &[Tensor]) {
    check_nn(f, inputs, what);
}

#[test]
fn conv3d_gradients_every_order() {
    let small = [
        (
            [1, 3, 4, 3, 2],
            [2, 2, 2, 2, 2],
            [1, 1, 1],
            [1, 1, 1],
            Padding::Same,
        ),
        (
            [2, 4, 3, 3, 1],
            [2, 2, 1, 1, 2],
            [2, 1, 2],
            [1, 1, 1],
            Padding::Valid,
        ),
        (
            [1, 4, 3, 4, 2],
            [2, 1, 2, 2, 1],
            [1, 2, 1],
            [2, 1, 1],
            Padding::Explicit(vec![(0, 1), (1, 0), (1, 1)]),
        ),
        (
            [1, 2, 3, 3, 4],
            [1, 2, 2, 2, 2],
            [1, 1, 1],
            [1, 1, 1],
            Padding::Same,
        ), // two groups
        (
            [2, 2, 2, 2, 3],
            [1, 1, 1, 3, 2],
            [1, 1, 1],
            [1, 1, 1],
            Padding::Valid,
        ), // pointwise
    ];
    for (i, (xs, fs, s, d, p)) in small.into_iter().enumerate() {
        let x = rand(&xs, i as u64 + 1);
        let f = rand(&fs, i as u64 + 50);
        let pp = p.clone();
        check(
            &format!("conv3d {i}"),
            &move |t: &[Tensor]| conv3d(&t[0], &t[1], s, &pp, d),
            &[x.clone(), f.clone()],
        );
        let (fc, pp) = (f.clone(), p.clone());
        check(
            &format!("conv3d input {i}"),
            &move |t: &[Tensor]| conv3d(&t[0], &fc, s, &pp, d),
            std::slice::from_ref(&x),
        );
        let y = conv3d(&x, &f, s, &p, d).unwrap();
        let dy = rand(y.shape(), i as u64 + 70);
        let pp = p.clone();
        check(
            &format!("conv3d_transpose {i}"),
            &move |t: &[Tensor]| conv3d_transpose(&t[0], &t[1], &xs, s, &pp, d),
            &[dy.clone(), f.clone()],
        );
        let pp = p.clone();
        check(
            &format!("conv3d_backprop_filter {i}"),
            &move |t: &[Tensor]| conv3d_backprop_filter(&t[0], &fs, &t[1], s, &pp, d),
            &[x.clone(), dy.clone()],
        );
        let pp = p.clone();
        check(
            &format!("conv3d squared {i}"),
            &move |t: &[Tensor]| {
                let y = conv3d(&t[0], &t[1], s, &pp, d)?;
                multiply(&y, &y)
            },
            &[x, f],
        );
    }
}

#[test]
fn leading_batch_axes_fold_into_the_batch() {
    let x = rand(&[2, 3, 2, 4, 3, 2], 1);
    let f = rand(&[2, 2, 2, 2, 3], 2);
    let y = conv3d(&x, &f, [1, 1, 1], &Padding::Same, [1, 1, 1]).unwrap();
    let flat = conv3d(
        &reshape(&x, &[6, 2, 4, 3, 2]).unwrap(),
        &f,
        [1, 1, 1],
        &Padding::Same,
        [1, 1, 1],
    )
    .unwrap();
    assert_eq!(y.shape(), &[2, 3, 2, 4, 3, 3]);
    assert_eq!(y.to_f64_vec(), flat.to_f64_vec());
}

#[test]
fn large_batches_split_over_chunks_and_threads_give_the_same_bits() {
    // Several images per chunk, one block each.
    large_case([24, 6, 8, 8, 4], [3, 3, 3, 4, 8], [1, 1, 1]);
    // One image per chunk in two blocks of im2col rows (the second shorter), and blocks that
    // end inside an image with strides (a depth-1 volume: the 2-D path).
    large_case([3, 8, 16, 16, 4], [3, 3, 3, 4, 5], [1, 1, 1]);
    large_case([2, 1, 70, 66, 8], [1, 3, 3, 8, 3], [1, 2, 1]);
}

fn large_case(xs: [usize; 5], fs: [usize; 5], s: [usize; 3]) {
    let x = rand(&xs, 3);
    let f = rand(&fs, 4);
    let (d, p) = ([1, 1, 1], Padding::Same);
    let run = || {
        let y = conv3d(&x, &f, s, &p, d).unwrap();
        let dy = rand(y.shape(), 5);
        let df = conv3d_backprop_filter(&x, &fs, &dy, s, &p, d).unwrap();
        let dx = conv3d_backprop_input(&xs, &f, &dy, s, &p, d).unwrap();
        (y, dy, df, dx)
    };
    let (y, dy, df, dx) = run();
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(1)
        .build()
        .unwrap();
    let (y1, _, df1, dx1) = pool.install(run);
    assert_eq!(y.to_f64_vec(), y1.to_f64_vec());
    assert_eq!(df.to_f64_vec(), df1.to_f64_vec());
    assert_eq!(dx.to_f64_vec(), dx1.to_f64_vec());
    let c = Case {
        x: xs,
        f: fs,
        strides: s,
        dil: d,
        padding: p,
    };
    assert_close_labelled(&y.to_f64_vec(), &naive(&x, &f, &c), 1e-12, "large");
    let lhs = dot(&y, &dy);
    assert!((dot(&f, &df) - lhs).abs() < 1e-9 * lhs.abs().max(1.0));
    assert!((dot(&x, &dx) - lhs).abs() < 1e-9 * lhs.abs().max(1.0));
}

#[test]
fn errors_name_the_op_and_shapes() {
    let x = rand(&[1, 3, 4, 4, 3], 1);
    let f = rand(&[2, 2, 2, 3, 2], 2);
    let (s, d) = ([1, 1, 1], [1, 1, 1]);
    let err = |r: Result<Tensor>| r.expect_err("an error");
    // Channels that do not match.
    let e = err(conv3d(&x, &rand(&[2, 2, 2, 2, 2], 3), s, &Padding::Same, d));
    assert_eq!((e.kind, e.op.as_str()), (ErrorKind::Shape, "conv3d"));
    assert!(e.message.contains("3 channels"), "{}", e.message);
    // Ranks: a 2-D image, a 2-D filter.
    let e = err(conv3d(&rand(&[1, 4, 4, 3], 1), &f, s, &Padding::Same, d));
    assert_eq!((e.kind, e.op.as_str()), (ErrorKind::Shape, "conv3d"));
    assert!(e.message.contains("[1, 4, 4, 3]"), "{}", e.message);
    let e = err(conv3d(&x, &rand(&[2, 2, 3, 2], 1), s, &Padding::Same, d));
    assert_eq!(e.kind, ErrorKind::Shape);
    assert!(e.message.contains("rank 5"), "{}", e.message);
    // Zero strides, a window larger than a VALID input, padding pairs of the wrong count.
    let e = err(conv3d(&x, &f, [1, 0, 1], &Padding::Same, d));
    assert_eq!((e.kind, e.op.as_str()), (ErrorKind::Value, "conv3d"));
    let e = err(conv3d(
        &x,
        &rand(&[4, 1, 1, 3, 1], 1),
        s,
        &Padding::Valid,
        d,
    ));
    assert_eq!(e.kind, ErrorKind::Value);
    assert!(e.message.contains("negative"), "{}", e.message);
    let e = err(conv3d(
        &x,
        &f,
        s,
        &Padding::Explicit(vec![(1, 1), (0, 0)]),
        d,
    ));
    assert_eq!(e.kind, ErrorKind::Value);
    // Dtypes.
    let e = err(conv3d(
        &cast(&x, DType::F32).unwrap(),
        &f,
        s,
        &Padding::Same,
        d,
    ));
    assert_eq!((e.kind, e.op.as_str()), (ErrorKind::DType, "conv3d"));
    let e = err(conv3d(
        &cast(&x, DType::I32).unwrap(),
        &cast(&f, DType::I32).unwrap(),
        s,
        &Padding::Same,
        d,
    ));
    assert_eq!(e.kind, ErrorKind::DType);
    // A transposed convolution whose output shape does not give its input's size.
    let dy = rand(&[1, 3, 4, 4, 2], 3);
    let e = err(conv3d_transpose(
        &dy,
        &f,
        &[1, 3, 9, 9, 3],
        s,
        &Padding::Same,
        d,
    ));
    assert_eq!(
        (e.kind, e.op.as_str()),
        (ErrorKind::Shape, "conv3d_transpose")
    );
    assert!(e.message.contains("[1, 3, 9, 9, 3]"), "{}", e.message);
    let e = err(conv3d_backprop_filter(
        &x,
        &[2, 2, 3, 2],
        &dy,
        s,
        &Padding::Same,
        d,
    ));
    assert_eq!(
        (e.kind, e.op.as_str()),
        (ErrorKind::Shape, "conv3d_backprop_filter")
    );
    let e = err(conv3d_backprop_input(
        &[1, 3, 4, 4, 3],
        &f,
        &x,
        s,
        &Padding::Same,
        d,
    ));
    assert_eq!(
        (e.kind, e.op.as_str()),
        (ErrorKind::Shape, "conv3d_backprop_input")
    );
}

#[test]
fn empty_batches_and_channels() {
    let x = rand(&[0, 3, 4, 4, 3], 1);
    let f = rand(&[2, 2, 2, 3, 2], 2);
    let y = conv3d(&x, &f, [1, 1, 1], &Padding::Same, [1, 1, 1]).unwrap();
    assert_eq!(y.shape(), &[0, 3, 4, 4, 2]);
    let x = Tensor::zeros(&[1, 2, 3, 3, 0], DType::F64);
    let f = Tensor::zeros(&[1, 2, 2, 0, 2], DType::F64);
    let y = conv3d(&x, &f, [1, 1, 1], &Padding::Valid, [1, 1, 1]).unwrap();
    assert_eq!(
        (y.shape(), y.to_f64_vec()),
        (&[1, 2, 2, 2, 2][..], vec![0.0; 16])
    );
}
