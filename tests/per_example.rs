//! Per-example Jacobians (`jacobian(losses, params)`, `losses[i]` reaching only batch row `i`)
//! run in one sweep; they equal the row-by-row Jacobian, bit for bit where the arithmetic is the
//! same, and fall back to the row blocks whenever the rows mix.
use rustape::ops::{
    add, matmul, moments, multiply, reduce_mean, reduce_sum, relu,
    softmax_cross_entropy_with_logits, square, subtract, tanh,
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
