//! Per-example Jacobians (`jacobian(losses, params)`, `losses[i]` reaching only batch row `i`)
//! run in one sweep; they equal the row-by-row Jacobian, bit for bit where the arithmetic is the
//! same, and fall back to the row blocks whenever the rows mix.
use rustape::ops::{
    add, bias_add, conv1d, conv2d, matmul, max_pool2d, moments, multiply, reduce_mean, reduce_sum,
    relu, reshape, softmax_cross_entropy_with_logits, square, subtract, tanh, DataFormat, Padding,
};
use rustape::testing::pseudo_random;
use rustape::{
    ErrorKind, JacobianOptions, JacobianStrategy, Result, Source, Tape, Tensor, Unconnected,
    Variable,
};

mod support;
use support::*;

type Model = dyn Fn(&Tensor, &[Tensor]) -> Result<Tensor>;

fn options(strategy: JacobianStrategy) -> JacobianOptions {
    JacobianOptions {
        parallel_iterations: None,
        strategy,
    }
}

/// Records `model(x, params)` (params read from variables) and returns its Jacobian with respect
/// to every parameter, run as `strategy` says.
fn jacobian(
    model: &Model,
    x: &Tensor,
    params: &[Tensor],
    strategy: JacobianStrategy,
) -> Result<Vec<Tensor>> {
    let vars: Vec<Variable> = params
        .iter()
        .map(|p| Variable::new(p.clone(), true, None))
        .collect();
    let tape = Tape::new(false, true);
    let losses = {
        let _r = tape.enter()?;
        let values: Vec<Tensor> = vars.iter().map(Variable::value).collect();
        model(x, &values)?
    };
    let sources: Vec<Source> = vars.iter().map(Source::from).collect();
    let grads = tape.jacobian_with(&losses, &sources, Unconnected::Zero, options(strategy))?;
    Ok(grads.into_iter().map(|g| g.expect("zeros")).collect())
}

/// A two-layer MLP (tanh, relu-free so every row is smooth), softmax cross-entropy per row.
fn mlp(x: &Tensor, p: &[Tensor]) -> Result<Tensor> {
    let h = tanh(&add(&matmul(x, &p[0], false, false)?, &p[1])?)?;
    let logits = add(&matmul(&h, &p[2], false, false)?, &p[3])?;
    let labels = one_hot_rows(x.shape()[0], logits.shape()[1]);
    softmax_cross_entropy_with_logits(&labels, &logits, -1)
}

fn one_hot_rows(rows: usize, classes: usize) -> Tensor {
    let values: Vec<f64> = (0..rows * classes)
        .map(|k| f64::from(u8::from(k % classes == (k / classes) % classes)))
        .collect();
    t64(&values, &[rows, classes])
}

fn mlp_params() -> Vec<Tensor> {
    vec![
        pseudo_random(&[5, 4], 1),
        pseudo_random(&[4], 2),
        pseudo_random(&[4, 3], 3),
        pseudo_random(&[1, 3], 4),
    ]
}

fn assert_same(a: &[Tensor], b: &[Tensor], exact: bool, what: &str) {
    assert_eq!(a.len(), b.len(), "{what}");
    for (k, (a, b)) in a.iter().zip(b).enumerate() {
        assert_eq!(a.shape(), b.shape(), "{what}: parameter {k}");
        if exact {
            assert_eq!(a.to_f64_vec(), b.to_f64_vec(), "{what}: parameter {k}");
        } else {
            assert_close_labelled(&values(a), &values(b), 1e-12, &format!("{what}: {k}"));
        }
    }
}

#[test]
fn per_example_mlp_gradients_equal_the_row_by_row_ones_bit_for_bit() {
    let x = pseudo_random(&[6, 5], 7);
    let params = mlp_params();
    let one_sweep = jacobian(&mlp, &x, &params, JacobianStrategy::PerExample).unwrap();
    let rows = jacobian(&mlp, &x, &params, JacobianStrategy::Sequential).unwrap();
    assert_eq!(one_sweep[0].shape(), &[6, 5, 4]);
    assert_eq!(one_sweep[1].shape(), &[6, 4]);
    assert_eq!(one_sweep[3].shape(), &[6, 1, 3]);
    // Each per-example product is the row-by-row sum with every other term an exact zero.
    assert_same(&one_sweep, &rows, true, "per-example vs sequential");
    let auto = jacobian(&mlp, &x, &params, JacobianStrategy::Auto).unwrap();
    assert_same(&auto, &one_sweep, true, "auto takes the per-example path");
    let vectorized = jacobian(&mlp, &x, &params, JacobianStrategy::Vectorized).unwrap();
    assert_same(&vectorized, &one_sweep, false, "vectorised row blocks");
}

#[test]
fn per_example_gradients_of_scalars_and_transposed_weights() {
    // A scalar scale and a weight used as `x @ w^T`: per-example gradients [b] and [b, 3, 5].
    let model = |x: &Tensor, p: &[Tensor]| -> Result<Tensor> {
        let y = multiply(&matmul(x, &p[0], false, true)?, &p[1])?;
        reduce_sum(&square(&subtract(&y, &p[2])?)?, Some(&[1]), false)
    };
    let x = pseudo_random(&[4, 5], 11);
    let params = vec![
        pseudo_random(&[3, 5], 12),
        s64(0.7),
        pseudo_random(&[3], 13),
    ];
    let one_sweep = jacobian(&model, &x, &params, JacobianStrategy::PerExample).unwrap();
    let rows = jacobian(&model, &x, &params, JacobianStrategy::Sequential).unwrap();
    assert_eq!(one_sweep[0].shape(), &[4, 3, 5]);
    assert_eq!(one_sweep[1].shape(), &[4]);
    assert_eq!(one_sweep[2].shape(), &[4, 3]);
    assert_same(&one_sweep, &rows, false, "per-example vs sequential");
    // Against the definition: d/ds of sum((s (x w^T) - c)^2) for row 0.
    let xw = matmul(&x, &params[0], false, true).unwrap().to_f64_vec();
    let c = params[2].to_f64_vec();
    let expected: f64 = (0..3).map(|j| 2.0 * (0.7 * xw[j] - c[j]) * xw[j]).sum();
    assert_close(&values(&one_sweep[1])[..1], &[expected], 1e-12);
}

#[test]
fn rows_that_mix_fall_back_to_the_row_blocks() {
    // Centring over the batch (a reduction over axis 0) makes every loss depend on every row.
    let centred = |x: &Tensor, p: &[Tensor]| -> Result<Tensor> {
        let h = matmul(x, &p[0], false, false)?;
        let mean = reduce_mean(&h, Some(&[0]), true)?;
        reduce_sum(&square(&subtract(&h, &mean)?)?, Some(&[1]), false)
    };
    // Batch statistics of a normalisation, as in a batch-normalised layer.
    let normalised = |x: &Tensor, p: &[Tensor]| -> Result<Tensor> {
        let h = relu(&matmul(x, &p[0], false, false)?)?;
        let (mean, variance) = moments(&h, &[0], true)?;
        reduce_sum(
            &multiply(&subtract(&h, &mean)?, &variance)?,
            Some(&[1]),
            false,
        )
    };
    let x = pseudo_random(&[5, 4], 21);
    let params = vec![pseudo_random(&[4, 3], 22)];
    for (name, model) in [("centred", &centred as &Model), ("normalised", &normalised)] {
        let auto = jacobian(model, &x, &params, JacobianStrategy::Auto).unwrap();
        let rows = jacobian(model, &x, &params, JacobianStrategy::Sequential).unwrap();
        assert_same(&auto, &rows, false, name);
        let err = jacobian(model, &x, &params, JacobianStrategy::PerExample).unwrap_err();
        assert_eq!(err.kind, ErrorKind::Value, "{name}: {err}");
        assert!(err.message.contains("per-example"), "{name}: {err}");
    }
}

#[test]
fn batched_sources_and_other_targets_fall_back() {
    // The input itself as a source: its Jacobian is block-diagonal, computed by the row blocks.
    let x = pseudo_random(&[4, 5], 31);
    let w = pseudo_random(&[5, 2], 32);
    let run = |strategy| {
        let tape = Tape::new(false, true);
        let y = {
            let _r = tape.enter().unwrap();
            tape.watch(&x);
            reduce_sum(&tanh(&matmul(&x, &w, false, false)?)?, Some(&[1]), false)
        }?;
        tape.jacobian_with(
            &y,
            &[Source::from(&x)],
            Unconnected::Zero,
            options(strategy),
        )
    };
    let auto = run(JacobianStrategy::Auto)
        .unwrap()
        .pop()
        .flatten()
        .unwrap();
    let rows = run(JacobianStrategy::Sequential)
        .unwrap()
        .pop()
        .flatten()
        .unwrap();
    assert_eq!(auto.shape(), &[4, 4, 5]);
    assert_same(&[auto], &[rows], false, "batched source");
    let err = run(JacobianStrategy::PerExample).unwrap_err();
    assert_eq!(err.kind, ErrorKind::Value, "{err}");
    assert!(err.message.contains("batch rows itself"), "{err}");

    // A target that is not one loss per row ([b, 2]): the row blocks, and the same numbers.
    let params = vec![pseudo_random(&[5, 2], 33)];
    let wide = |x: &Tensor, p: &[Tensor]| tanh(&matmul(x, &p[0], false, false)?);
    let auto = jacobian(&wide, &x, &params, JacobianStrategy::Auto).unwrap();
    let rows = jacobian(&wide, &x, &params, JacobianStrategy::Sequential).unwrap();
    assert_same(&auto, &rows, false, "a [b, 2] target");
    let err = jacobian(&wide, &x, &params, JacobianStrategy::PerExample).unwrap_err();
    assert!(err.message.contains("shape [b]"), "{err}");
}

#[test]
fn under_a_recording_tape_the_rows_are_recorded_and_differentiable() {
    // The per-example Jacobian of an outer recording tape: the row blocks (recorded), whose
    // gradient matches finite differences through the same numbers.
    let x = pseudo_random(&[3, 4], 41);
    let w = pseudo_random(&[4, 2], 42);
    let outer = Tape::new(false, true);
    let total = {
        let _r = outer.enter().unwrap();
        outer.watch(&w);
        let j = jacobian_of(&x, &w).unwrap();
        reduce_sum(&square(&j).unwrap(), None, false).unwrap()
    };
    let g = tape_gradient(&outer, &total, &w).unwrap();
    let f = |w: &[Tensor]| -> Result<Tensor> {
        reduce_sum(&square(&jacobian_of(&x, &w[0])?)?, None, false)
    };
    let numeric = rustape::testing::numeric_gradient(&f, std::slice::from_ref(&w), 1e-6).unwrap();
    assert_close(&values(&g), &numeric[0], 1e-6);
}

fn jacobian_of(x: &Tensor, w: &Tensor) -> Result<Tensor> {
    let inner = Tape::new(false, true);
    let losses = {
        let _r = inner.enter()?;
        inner.watch(w);
        reduce_sum(&tanh(&matmul(x, w, false, false)?)?, Some(&[1]), false)?
    };
    Ok(inner
        .jacobian(&losses, &[Source::from(w)], Unconnected::Zero)?
        .pop()
        .flatten()
        .expect("zeros"))
}

#[test]
fn a_slice_of_the_rows_falls_back() {
    // `h[:3]` keeps rows apart but drops two: the sweep's rows do not line up with the losses.
    let model = |x: &Tensor, p: &[Tensor]| -> Result<Tensor> {
        let h = tanh(&matmul(x, &p[0], false, false)?)?;
        let kept = rustape::ops::slice_axis(&h, 0, 0, 3)?;
        reduce_sum(&kept, Some(&[1]), false)
    };
    let x = pseudo_random(&[5, 4], 51);
    let params = vec![pseudo_random(&[4, 2], 52)];
    let auto = jacobian(&model, &x, &params, JacobianStrategy::Auto).unwrap();
    let rows = jacobian(&model, &x, &params, JacobianStrategy::Sequential).unwrap();
    assert_eq!(auto[0].shape(), &[3, 4, 2]);
    assert_same(&auto, &rows, false, "a slice of the rows");
}

/// A small CNN: conv2d (3x3, SAME) + bias_add + tanh, 2x2 max pool, flatten, a dense layer
/// (matmul + bias_add), softmax cross-entropy per row.
fn cnn(x: &Tensor, p: &[Tensor]) -> Result<Tensor> {
    let conv = conv2d(x, &p[0], [1, 1], &Padding::Same, [1, 1])?;
    let h = tanh(&bias_add(&conv, &p[1], DataFormat::ChannelsLast)?)?;
    let pooled = max_pool2d(&h, [2, 2], [2, 2], &Padding::Valid)?;
    let rows = x.shape()[0] as isize;
    let flat = reshape(&pooled, &[rows, -1])?;
    let dense = matmul(&flat, &p[2], false, false)?;
    let logits = bias_add(&dense, &p[3], DataFormat::ChannelsLast)?;
    let labels = one_hot_rows(x.shape()[0], logits.shape()[1]);
    softmax_cross_entropy_with_logits(&labels, &logits, -1)
}

fn cnn_params() -> Vec<Tensor> {
    vec![
        pseudo_random(&[3, 3, 2, 3], 61),
        pseudo_random(&[3], 62),
        pseudo_random(&[27, 4], 63),
        pseudo_random(&[4], 64),
    ]
}

#[test]
fn a_cnn_takes_the_per_example_path_and_equals_the_row_by_row_jacobian() {
    let x = pseudo_random(&[5, 6, 6, 2], 65);
    let params = cnn_params();
    // PerExample fails unless every step of the sweep gives its gradients per example.
    let one_sweep = jacobian(&cnn, &x, &params, JacobianStrategy::PerExample).unwrap();
    let rows = jacobian(&cnn, &x, &params, JacobianStrategy::Sequential).unwrap();
    assert_eq!(one_sweep[0].shape(), &[5, 3, 3, 2, 3]);
    assert_eq!(one_sweep[1].shape(), &[5, 3]);
    assert_eq!(one_sweep[2].shape(), &[5, 27, 4]);
    assert_eq!(one_sweep[3].shape(), &[5, 4]);
    // The filter's and the conv bias's sums run over one image instead of the batch with the
    // other images' exact zeros: the same terms, grouped differently.
    assert_same(&one_sweep, &rows, false, "per-example vs sequential");
    // The dense layer's sums are the row-by-row ones with every other term an exact zero.
    assert_same(
        &one_sweep[2..],
        &rows[2..],
        true,
        "dense layer, bit for bit",
    );
    let auto = jacobian(&cnn, &x, &params, JacobianStrategy::Auto).unwrap();
    assert_same(&auto, &one_sweep, true, "auto takes the per-example path");
    // Row 0 against its own gradient.
    let first = |p: &[Tensor]| -> Result<Tensor> {
        let x0 = rustape::ops::slice_axis(&x, 0, 0, 1)?;
        reduce_sum(&cnn(&x0, p)?, None, false)
    };
    let numeric = rustape::testing::numeric_gradient(&first, &params, 1e-6).unwrap();
    for (k, (g, n)) in one_sweep.iter().zip(&numeric).enumerate() {
        let row = rustape::ops::slice_axis(g, 0, 0, 1).unwrap();
        assert_close_labelled(&values(&row), n, 1e-6, &format!("row 0, parameter {k}"));
    }
}

#[test]
fn a_dense_layer_with_bias_add_is_per_example_bit_for_bit() {
    let dense = |x: &Tensor, p: &[Tensor]| -> Result<Tensor> {
        let h = tanh(&bias_add(
            &matmul(x, &p[0], false, false)?,
            &p[1],
            DataFormat::ChannelsLast,
        )?)?;
        reduce_sum(&square(&h)?, Some(&[1]), false)
    };
    let x = pseudo_random(&[6, 5], 71);
    let params = vec![pseudo_random(&[5, 3], 72), pseudo_random(&[3], 73)];
    let one_sweep = jacobian(&dense, &x, &params, JacobianStrategy::PerExample).unwrap();
    let rows = jacobian(&dense, &x, &params, JacobianStrategy::Sequential).unwrap();
    assert_eq!(one_sweep[1].shape(), &[6, 3]);
    assert_same(&one_sweep, &rows, true, "dense + bias_add vs sequential");
}

#[test]
fn a_conv1d_and_a_bias_over_positions_are_per_example() {
    // conv1d is a conv2d of height 1; bias_add on [b, w, o] sums each row's positions.
    let model = |x: &Tensor, p: &[Tensor]| -> Result<Tensor> {
        let y = conv1d(x, &p[0], 1, &Padding::Valid, 1)?;
        let h = tanh(&bias_add(&y, &p[1], DataFormat::ChannelsLast)?)?;
        reduce_sum(&square(&h)?, Some(&[1, 2]), false)
    };
    let x = pseudo_random(&[4, 7, 2], 81);
    let params = vec![pseudo_random(&[3, 2, 3], 82), pseudo_random(&[3], 83)];
    let one_sweep = jacobian(&model, &x, &params, JacobianStrategy::PerExample).unwrap();
    let rows = jacobian(&model, &x, &params, JacobianStrategy::Sequential).unwrap();
    assert_eq!(one_sweep[0].shape(), &[4, 3, 2, 3]);
    assert_eq!(one_sweep[1].shape(), &[4, 3]);
    assert_same(&one_sweep, &rows, false, "conv1d vs sequential");
}

#[test]
fn a_cnn_whose_rows_mix_falls_back() {
    // Centring the feature maps over the batch makes every loss depend on every image.
    let centred = |x: &Tensor, p: &[Tensor]| -> Result<Tensor> {
        let conv = conv2d(x, &p[0], [1, 1], &Padding::Valid, [1, 1])?;
        let h = bias_add(&conv, &p[1], DataFormat::ChannelsLast)?;
        let mean = reduce_mean(&h, Some(&[0]), true)?;
        reduce_sum(&square(&subtract(&h, &mean)?)?, Some(&[1, 2, 3]), false)
    };
    let x = pseudo_random(&[4, 5, 5, 2], 91);
    let params = vec![pseudo_random(&[2, 2, 2, 3], 92), pseudo_random(&[3], 93)];
    let auto = jacobian(&centred, &x, &params, JacobianStrategy::Auto).unwrap();
    let rows = jacobian(&centred, &x, &params, JacobianStrategy::Sequential).unwrap();
    assert_eq!(auto[0].shape(), &[4, 2, 2, 2, 3]);
    assert_same(&auto, &rows, false, "centred CNN");
    let err = jacobian(&centred, &x, &params, JacobianStrategy::PerExample).unwrap_err();
    assert_eq!(err.kind, ErrorKind::Value, "{err}");
    assert!(err.message.contains("per-example"), "{err}");
}
