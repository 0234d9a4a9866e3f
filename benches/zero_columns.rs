//! Products whose left operand is zero in most columns (a Jacobian's one-hot seeds after an
//! elementwise VJP; W4's first VJP product, `[512, 32] @ [32, 128]`) against the same product
//! with a dense left operand.
//!
//! `cargo bench --bench zero_columns -- --warm-up-time 1 --measurement-time 3`
use std::hint::black_box;

use criterion::{criterion_group, criterion_main, Criterion};
use rustape::testing::pseudo_random;
use rustape::{ops, DType, Tensor};

fn bench_zero_columns(c: &mut Criterion) {
    let (rows, k, cols) = (512, 32, 128);
    let dense = ops::cast(&pseudo_random(&[rows, k], 1), DType::F32).unwrap();
    let values = dense.to_f64_vec();
    // Column 5 only, as after `elu`'s VJP of a seed one-hot in column 5.
    let one_hot: Vec<f32> = (0..rows * k)
        .map(|i| if i % k == 5 { values[i] as f32 } else { 0.0 })
        .collect();
    let one_hot = Tensor::from_vec(one_hot, &[rows, k]).unwrap();
    let w = ops::cast(&pseudo_random(&[cols, k], 2), DType::F32).unwrap();
    let mut group = c.benchmark_group("zero_columns");
    for (name, lhs) in [("one_column", &one_hot), ("dense", &dense)] {
        group.bench_function(format!("{name} 512x32 @ (128x32)^T"), |b| {
            b.iter(|| ops::matmul(black_box(lhs), black_box(&w), false, true).unwrap())
        });
    }
    group.finish();
}

criterion_group!(benches, bench_zero_columns);
criterion_main!(benches);
