//! The ops under Keras layers: dropout, bias_add, embedding_lookup (src/ops/nn_layer.rs) and
//! the fused LSTM / GRU steps (src/ops/rnn.rs). Values against compositions of plain ops,
//! gradients against finite differences (first and second order), vectorised Jacobians against
//! row-by-row ones, the fused gradient kernels against the recorded-ops gradient, and errors.
use rustape::ops::*;
use rustape::testing::analytic_gradient;
use rustape::{DType, ErrorKind, Result, Tape, Tensor};

mod support;
use support::nn::*;
use support::{assert_close_labelled, values};

/// Values in [-1, 1).
fn rand(shape: &[usize], seed: u64) -> Tensor {
    signed(shape, seed, 2.0)
}

fn check(what: &str, f: &dyn Fn(&[Tensor]) -> Result<Tensor>, inputs: &[Tensor]) {
    check_nn(f, inputs, what);
}

/// Same shape, and values within `tol` (relative to `max(1, |b|)`).
#[track_caller]
fn close(a: &Tensor, b: &Tensor, tol: f64, what: &str) {
    assert_eq!(a.shape(), b.shape(), "{what}");
    assert_close_labelled(&values(a), &values(b), tol, what);
}

// The only test of this file that draws random numbers (the seed state is global).
#[test]
fn dropout_scales_kept_elements_and_repeats_under_a_seed() {
    let x = add(&rand(&[200, 50], 1), &Tensor::scalar(3.0f64)).unwrap(); // no zeros
    set_seed(7);
    let a = dropout(&x, 0.3, None, Some(5)).unwrap();
    set_seed(7);
    let b = dropout(&x, 0.3, None, Some(5)).unwrap();
    assert_eq!(a.to_f64_vec(), b.to_f64_vec(), "seeded masks repeat");
    let c = dropout(&x, 0.3, None, Some(5)).unwrap();
    assert_ne!(
        a.to_f64_vec(),
        c.to_f64_vec(),
        "the next call continues the stream"
    );
    let (xv, av) = (x.to_f64_vec(), a.to_f64_vec());
    let scale = 1.0 / (1.0 - 0.3);
    let kept = av.iter().filter(|&&v| v != 0.0).count();
    for (&y, &v) in av.iter().zip(&xv) {
        assert!(
            y == 0.0 || y == v * scale,
            "kept elements are exactly x * scale"
        );
    }
    let frac = kept as f64 / av.len() as f64;
    assert!((frac - 0.7).abs() < 0.03, "kept fraction {frac}");
    // float32 too.
    let a32 = dropout(&cast(&x, DType::F32).unwrap(), 0.5, None, Some(1)).unwrap();
    assert_eq!(a32.dtype(), DType::F32);
    // rate 0 keeps everything.
    assert_eq!(dropout(&x, 0.0, None, None).unwrap().to_f64_vec(), xv);
    // noise_shape [200, 1]: whole rows kept or dropped.
    let rows = dropout(&x, 0.5, Some(&[200, 1]), Some(2))
        .unwrap()
        .to_f64_vec();
    for r in rows.chunks(50) {
        assert!(r.iter().all(|&v| v == 0.0) || r.iter().all(|&v| v != 0.0));
    }
    // The gradient is the scaled mask; first and second order with a repeated mask.
    let f = |t: &[Tensor]| {
        set_seed(3);
        let y = dropout(&t[0], 0.4, None, Some(9))?;
        multiply(&y, &y)
    };
    check("dropout", &f, &[rand(&[3, 4], 2)]);
    let g = analytic_gradient(
        &|t: &[Tensor]| {
            set_seed(3);
            reduce_sum(&dropout(&t[0], 0.4, None, Some(9))?, None, false)
        },
        std::slice::from_ref(&x),
    )
    .unwrap();
    set_seed(3);
    let mask = dropout(&x.ones_like(), 0.4, None, Some(9)).unwrap();
    assert_eq!(g[0].to_f64_vec(), mask.to_f64_vec());
    // Errors.
    for rate in [1.0, -0.1, f64::NAN] {
        let e = dropout(&x, rate, None, None).unwrap_err();
        assert_eq!((e.kind, e.op.as_str()), (ErrorKind::Value, "dropout"));
    }
    let e = dropout(&x, 0.5, Some(&[3, 50]), None).unwrap_err();
    assert_eq!(e.kind, ErrorKind::Shape);
    let e = dropout(&x, 0.5, Some(&[200, 50, 2]), None).unwrap_err();
    assert_eq!(e.kind, ErrorKind::Shape);
    let e = dropout(&cast(&x, DType::I32).unwrap(), 0.5, None, None).unwrap_err();
    assert_eq!(e.kind, ErrorKind::DType);
}

#[test]
fn bias_add_channels_last_and_first() {
    let x = rand(&[2, 3, 4], 1);
    let b = rand(&[4], 2);
    let y = bias_add(&x, &b, DataFormat::ChannelsLast).unwrap();
    close(&y, &add(&x, &b).unwrap(), 0.0, "NHWC");
    let b3 = rand(&[3], 3);
    let y = bias_add(&x, &b3, DataFormat::ChannelsFirst).unwrap();
    close(
        &y,
        &add(&x, &reshape(&b3, &[3, 1]).unwrap()).unwrap(),
        0.0,
        "NCHW",
    );
    check(
        "bias_add",
        &|t: &[Tensor]| {
            let y = bias_add(&t[0], &t[1], DataFormat::ChannelsLast)?;
            multiply(&y, &y)
        },
        &[x.clone(), b.clone()],
    );
    check(
        "bias_add NCHW",
        &|t: &[Tensor]| {
            let y = bias_add(&t[0], &t[1], DataFormat::ChannelsFirst)?;
            multiply(&y, &y)
        },
        &[x.clone(), b3.clone()],
    );
    // BiasAddGrad: sums over every axis but the kept leading ones and the channels (pairwise
    // over many rows), and its own gradient broadcasts back.
    let big = rand(&[3, 700, 5], 4);
    let g = bias_add_grad(&big, 0).unwrap();
    let want = reduce_sum(&big, Some(&[0, 1]), false).unwrap();
    close(&g, &want, 1e-13, "bias_add_grad");
    let g1 = bias_add_grad(&big, 1).unwrap();
    close(
        &g1,
        &reduce_sum(&big, Some(&[1]), false).unwrap(),
        1e-13,
        "bias_add_grad keep 1",
    );
    check(
        "bias_add_grad",
        &|t: &[Tensor]| {
            let g = bias_add_grad(&t[0], 1)?;
            multiply(&g, &g)
        },
        &[rand(&[2, 3, 4], 9)],
    );
    let e = bias_add_grad(&rand(&[4], 1), 0).unwrap_err();
    assert_eq!((e.kind, e.op.as_str()), (ErrorKind::Shape, "bias_add_grad"));
    assert_eq!(
        DataFormat::parse("bias_add", Some("NCHW")).unwrap(),
        DataFormat::ChannelsFirst
    );
    assert_eq!(
        DataFormat::parse("bias_add", Some("NWC")).unwrap(),
        DataFormat::ChannelsLast
    );
    assert!(DataFormat::parse("bias_add", Some("HWCN")).is_err());
    let e = bias_add(&x, &b3, DataFormat::ChannelsLast).unwrap_err();
    assert_eq!((e.kind, e.op.as_str()), (ErrorKind::Shape, "bias_add"));
    assert!(e.message.contains("[2, 3, 4]"), "{}", e.message);
    let e = bias_add(&rand(&[4], 1), &b, DataFormat::ChannelsLast).unwrap_err();
    assert_eq!(e.kind, ErrorKind::Shape);
    let e = bias_add(&x, &cast(&b, DType::F32).unwrap(), DataFormat::ChannelsLast).unwrap_err();
    assert_eq!(e.kind, ErrorKind::DType);
}

#[test]
fn embedding_lookup_rows_gradients_and_max_norm() {
    let params = rand(&[5, 3], 1);
    let ids = Tensor::from_vec(vec![4i32, 0, 4, 2, 1, 4], &[2, 3]).unwrap();
    let y = embedding_lookup(&params, &ids, None).unwrap();
    assert_eq!(y.shape(), &[2, 3, 3]);
    let p = params.to_f64_vec();
    let want: Vec<f64> = [4, 0, 4, 2, 1, 4]
        .iter()
        .flat_map(|&i| p[i * 3..i * 3 + 3].to_vec())
        .collect();
    assert_eq!(y.to_f64_vec(), want);
    // Repeated ids add their gradients.
    let ids2 = ids.clone();
    check(
        "embedding_lookup",
        &move |t: &[Tensor]| {
            let y = embedding_lookup(&t[0], &ids2, None)?;
            multiply(&y, &y)
        },
        std::slice::from_ref(&params),
    );
    let g = analytic_gradient(
        &|t: &[Tensor]| reduce_sum(&embedding_lookup(&t[0], &ids, None)?, None, false),
        std::slice::from_ref(&params),
    )
    .unwrap();
    assert_eq!(
        g[0].to_f64_vec(),
        vec![1., 1., 1., 1., 1., 1., 1., 1., 1., 0., 0., 0., 3., 3., 3.]
    );
    // max_norm clips the rows above it to it.
    let clipped = embedding_lookup(&params, &ids, Some(0.5))
        .unwrap()
        .to_f64_vec();
    for (row, orig) in clipped.chunks(3).zip(want.chunks(3)) {
        let (n, n0) = (
            row.iter().map(|v| v * v).sum::<f64>().sqrt(),
            orig.iter().map(|v| v * v).sum::<f64>().sqrt(),
        );
        assert!((n - n0.min(0.5)).abs() < 1e-12, "{n} vs {n0}");
    }
    let ids3 = Tensor::from_vec(vec![4i64, 1], &[2]).unwrap();
    check(
        "embedding_lookup max_norm",
        &move |t: &[Tensor]| embedding_lookup(&t[0], &ids3, Some(0.5)),
        std::slice::from_ref(&params),
    );
    let e =
        embedding_lookup(&params, &Tensor::from_vec(vec![5i32], &[1]).unwrap(), None).unwrap_err();
    assert_eq!(
        (e.kind, e.op.as_str()),
        (ErrorKind::Value, "embedding_lookup")
    );
    let e = embedding_lookup(&params, &rand(&[2], 1), None).unwrap_err();
    assert_eq!(e.kind, ErrorKind::DType);
}

/// The LSTM step in plain ops (Keras 3's formulas).
fn lstm_reference(z: &Tensor, c: &Tensor, units: usize) -> (Tensor, Tensor) {
    let g = |k: usize| slice_axis(z, 1, k * units, (k + 1) * units).unwrap();
    let i = sigmoid(&g(0)).unwrap();
    let f = sigmoid(&g(1)).unwrap();
    let cc = add(
        &multiply(&f, c).unwrap(),
        &multiply(&i, &tanh(&g(2)).unwrap()).unwrap(),
    )
    .unwrap();
    let h = multiply(&sigmoid(&g(3)).unwrap(), &tanh(&cc).unwrap()).unwrap();
    (h, cc)
}

fn gru_reference(xp: &Tensor, hp: &Tensor, h: &Tensor, units: usize) -> Tensor {
    let g = |t: &Tensor, k: usize| slice_axis(t, 1, k * units, (k + 1) * units).unwrap();
    let z = sigmoid(&add(&g(xp, 0), &g(hp, 0)).unwrap()).unwrap();
    let r = sigmoid(&add(&g(xp, 1), &g(hp, 1)).unwrap()).unwrap();
    let hh = tanh(&add(&g(xp, 2), &multiply(&r, &g(hp, 2)).unwrap()).unwrap()).unwrap();
    let one_minus = subtract(&Tensor::scalar(1.0f64), &z).unwrap();
    add(
        &multiply(&z, h).unwrap(),
        &multiply(&one_minus, &hh).unwrap(),
    )
    .unwrap()
}

#[test]
fn lstm_and_gru_steps_match_plain_ops() {
    let (z, c) = (rand(&[3, 8], 1), rand(&[3, 2], 2));
    let (h, c2) = lstm_cell(&z, &c).unwrap();
    let (hr, cr) = lstm_reference(&z, &c, 2);
    close(&h, &hr, 1e-15, "lstm h");
    close(&c2, &cr, 1e-15, "lstm c");
    let (xp, hp, hprev) = (rand(&[3, 6], 3), rand(&[3, 6], 4), rand(&[3, 2], 5));
    close(
        &gru_cell(&xp, &hp, &hprev).unwrap(),
        &gru_reference(&xp, &hp, &hprev, 2),
        1e-15,
        "gru",
    );
    // float32.
    let (h32, _) = lstm_cell(
        &cast(&z, DType::F32).unwrap(),
        &cast(&c, DType::F32).unwrap(),
    )
    .unwrap();
    close(&h32, &hr, 1e-6, "lstm f32");
}

#[test]
fn lstm_and_gru_gradients_every_order() {
    let (z, c) = (rand(&[3, 8], 1), rand(&[3, 2], 2));
    check(
        "lstm h",
        &|t: &[Tensor]| Ok(lstm_cell(&t[0], &t[1])?.0),
        &[z.clone(), c.clone()],
    );
    check(
        "lstm c",
        &|t: &[Tensor]| Ok(lstm_cell(&t[0], &t[1])?.1),
        &[z.clone(), c.clone()],
    );
    check(
        "lstm h and c",
        &|t: &[Tensor]| {
            let (h, c) = lstm_cell(&t[0], &t[1])?;
            multiply(&h, &c)
        },
        &[z.clone(), c.clone()],
    );
    // Two steps, the second fed by the first.
    check(
        "lstm two steps",
        &|t: &[Tensor]| {
            let (h, c) = lstm_cell(&t[0], &t[1])?;
            let z2 = add(&t[0], &concat(&[h.clone(), h.clone(), c.clone(), h], -1)?)?;
            Ok(lstm_cell(&z2, &c)?.0)
        },
        &[z, c],
    );
    let (xp, hp, hprev) = (rand(&[3, 6], 3), rand(&[3, 6], 4), rand(&[3, 2], 5));
    check(
        "gru",
        &|t: &[Tensor]| gru_cell(&t[0], &t[1], &t[2]),
        &[xp.clone(), hp.clone(), hprev.clone()],
    );
    check(
        "gru squared",
        &|t: &[Tensor]| {
            let h = gru_cell(&t[0], &t[1], &t[2])?;
            multiply(&h, &t[2])
        },
        &[xp, hp, hprev],
    );
}

#[test]
fn fused_gradients_equal_the_recorded_ops_gradients() {
    // Under an outer recording tape the VJPs use recorded ops; without one, the fused kernels.
    let (z, c) = (rand(&[4, 12], 1), rand(&[4, 3], 2));
    let (xp, hp, hprev) = (rand(&[4, 9], 3), rand(&[4, 9], 4), rand(&[4, 3], 5));
    let w = rand(&[4, 3], 6);
    let loss = |t: &[Tensor]| -> Result<Tensor> {
        let (h, c) = lstm_cell(&t[0], &t[1])?;
        let g = gru_cell(&t[2], &t[3], &h)?;
        reduce_sum(
            &multiply(&add(&multiply(&g, &w)?, &c)?, &t[4])?,
            None,
            false,
        )
    };
    let inputs = [z, c, xp, hp, hprev];
    let fused = analytic_gradient(&loss, &inputs).unwrap();
    let outer = Tape::new(false, true);
    let recorded = {
        let _r = outer.enter().unwrap();
        inputs.iter().for_each(|t| outer.watch(t));
        analytic_gradient(&loss, &inputs).unwrap()
    };
    assert!(
        !outer.is_empty(),
        "the outer tape recorded the backward pass"
    );
    for (k, (a, b)) in fused.iter().zip(&recorded).enumerate() {
        close(a, b, 1e-14, &format!("input {k}"));
    }
    // The state gradient alone (dh unconnected) also works both ways.
    let only_c = |t: &[Tensor]| reduce_sum(&lstm_cell(&t[0], &t[1])?.1, None, false);
    let g = analytic_gradient(&only_c, &inputs[..2]).unwrap();
    let _r = outer.enter().unwrap();
    let g2 = analytic_gradient(&only_c, &inputs[..2]).unwrap();
    close(&g[0], &g2[0], 1e-14, "dc only");
}

#[test]
fn cell_errors() {
    let e = lstm_cell(&rand(&[3, 7], 1), &rand(&[3, 2], 2)).unwrap_err();
    assert_eq!((e.kind, e.op.as_str()), (ErrorKind::Shape, "lstm_cell"));
    assert!(e.message.contains("[3, 7]"), "{}", e.message);
    let e = lstm_cell(&rand(&[2, 8], 1), &rand(&[3, 2], 2)).unwrap_err();
    assert_eq!(e.kind, ErrorKind::Shape);
    let e = lstm_cell(
        &cast(&rand(&[3, 8], 1), DType::F32).unwrap(),
        &rand(&[3, 2], 2),
    )
    .unwrap_err();
    assert_eq!(e.kind, ErrorKind::DType);
    let e = gru_cell(&rand(&[3, 6], 1), &rand(&[3, 8], 1), &rand(&[3, 2], 2)).unwrap_err();
    assert_eq!((e.kind, e.op.as_str()), (ErrorKind::Shape, "gru_cell"));
}
