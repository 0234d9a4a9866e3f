//! Per-example Jacobians of a small CNN without Python: `jacobian(losses, params)` by the
//! one-sweep per-example path against the vectorised row blocks (the same numbers).
//!
//! `cargo bench --bench per_example -- --warm-up-time 1 --measurement-time 3`
use std::hint::black_box;

use criterion::{criterion_group, criterion_main, Criterion};
use rustape::ops::{
    bias_add, cast, conv2d, matmul, max_pool2d, relu, reshape, softmax_cross_entropy_with_logits,
    DataFormat, Padding,
};
use rustape::testing::pseudo_random;
use rustape::{
    DType, JacobianOptions, JacobianStrategy, Source, Tape, Tensor, Unconnected, Variable,
};

const BATCH: usize = 32;

fn f32_random(shape: &[usize], seed: u64) -> Tensor {
    cast(&pseudo_random(shape, seed), DType::F32).unwrap()
}

/// conv 3x3 (3 -> 8 channels, SAME) + bias + relu, 2x2 max pool, flatten, dense 288 -> 10,
/// softmax cross-entropy per image: one loss per row.
fn cnn(x: &Tensor, labels: &Tensor, p: &[Tensor]) -> Tensor {
    let conv = conv2d(x, &p[0], [1, 1], &Padding::Same, [1, 1]).unwrap();
    let h = relu(&bias_add(&conv, &p[1], DataFormat::ChannelsLast).unwrap()).unwrap();
    let pooled = max_pool2d(&h, [2, 2], [2, 2], &Padding::Valid).unwrap();
    let flat = reshape(&pooled, &[BATCH as isize, -1]).unwrap();
    let dense = matmul(&flat, &p[2], false, false).unwrap();
    let logits = bias_add(&dense, &p[3], DataFormat::ChannelsLast).unwrap();
    softmax_cross_entropy_with_logits(labels, &logits, -1).unwrap()
}

fn per_example_jacobian(
    x: &Tensor,
    labels: &Tensor,
    vars: &[Variable],
    strategy: JacobianStrategy,
) -> Vec<Option<Tensor>> {
    let tape = Tape::new(false, true);
    let losses = {
        let _r = tape.enter().unwrap();
        let values: Vec<Tensor> = vars.iter().map(Variable::value).collect();
        cnn(x, labels, &values)
    };
    let sources: Vec<Source> = vars.iter().map(Source::from).collect();
    let options = JacobianOptions {
        parallel_iterations: None,
        strategy,
    };
    tape.jacobian_with(&losses, &sources, Unconnected::Zero, options)
        .unwrap()
}

fn bench_cnn(c: &mut Criterion) {
    let x = f32_random(&[BATCH, 12, 12, 3], 1);
    let labels: Vec<f32> = (0..BATCH * 10)
        .map(|k| f32::from(u8::from(k % 10 == (k / 10) % 10)))
        .collect();
    let labels = Tensor::from_vec(labels, &[BATCH, 10]).unwrap();
    let vars: Vec<Variable> = [
        f32_random(&[3, 3, 3, 8], 2),
        f32_random(&[8], 3),
        f32_random(&[288, 10], 4),
        f32_random(&[10], 5),
    ]
    .into_iter()
    .map(|p| Variable::new(p, true, None))
    .collect();
    for (name, strategy) in [
        ("cnn_per_example", JacobianStrategy::PerExample),
        ("cnn_vectorized_rows", JacobianStrategy::Vectorized),
    ] {
        c.bench_function(name, |b| {
            b.iter(|| black_box(per_example_jacobian(&x, &labels, &vars, strategy)))
        });
    }
}

criterion_group!(benches, bench_cnn);
criterion_main!(benches);
