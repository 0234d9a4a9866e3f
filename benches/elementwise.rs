//! Large and mid-size elementwise kernels, no Python: the vectorised math (ops/vmath.rs) and the
//! rayon split (ops/kernel.rs). Compare thread counts with `RAYON_NUM_THREADS=1` and `=2`.
//!
//! `cargo bench --bench elementwise -- --warm-up-time 1 --measurement-time 3`
use std::hint::black_box;

use rayon::prelude::*;

use criterion::{criterion_group, criterion_main, Criterion, Throughput};
use rustape::ops;
use rustape::testing::pseudo_random;
use rustape::{DType, Tensor};

type Unary = fn(&Tensor) -> rustape::Result<Tensor>;

fn f32_tensor(n: usize, seed: u64) -> Tensor {
    // pseudo_random is in [0.5, 1.5); shift to [-2.5, 1.5) for both signs
    let t = ops::cast(&pseudo_random(&[n], seed), DType::F32).unwrap();
    ops::subtract(
        &ops::multiply(&t, &Tensor::scalar(2.0f32)).unwrap(),
        &Tensor::scalar(3.5f32),
    )
    .unwrap()
}

fn bench(c: &mut Criterion) {
    for n in [1usize << 12, 1 << 16, 1 << 22] {
        let mut group = c.benchmark_group(format!("f32_{n}"));
        group.throughput(Throughput::Elements(n as u64));
        let a = f32_tensor(n, 1);
        let b = f32_tensor(n, 2);
        let unary: [(&str, Unary); 8] = [
            ("tanh", ops::tanh),
            ("exp", ops::exp),
            ("log1p", ops::log1p),
            ("sin", ops::sin),
            ("sigmoid", ops::sigmoid),
            ("elu", ops::elu),
            ("relu", ops::relu),
            ("square", ops::square),
        ];
        for (name, op) in unary {
            let input = if name == "log1p" {
                ops::abs(&a).unwrap()
            } else {
                a.clone()
            };
            let op = if name == "log1p" { ops::log1p } else { op };
            group.bench_function(name, |bench| bench.iter(|| op(black_box(&input)).unwrap()));
        }
        group.bench_function("multiply", |bench| {
            bench.iter(|| ops::multiply(black_box(&a), black_box(&b)).unwrap())
        });
        let k = Tensor::scalar(1.5f32);
        group.bench_function("multiply_scalar", |bench| {
            bench.iter(|| ops::multiply(black_box(&a), black_box(&k)).unwrap())
        });
        let y = ops::tanh(&a).unwrap();
        group.bench_function("tanh_grad", |bench| {
            bench.iter(|| ops::tanh_grad(black_box(&y), black_box(&b)).unwrap())
        });
        let cond = ops::greater(&a, &Tensor::scalar(0.0f32)).unwrap();
        group.bench_function("where", |bench| {
            bench.iter(|| ops::where_(black_box(&cond), black_box(&a), black_box(&b)).unwrap())
        });
        if n >= 1 << 22 {
            // The machine's ceiling for `multiply`: the plainest rayon loop into a fresh Vec. At
            // 4M elements both ops move 48 MB and scale with threads only as memory bandwidth does.
            let slice = |t: &Tensor| t.values::<f32>().unwrap().as_slice().to_vec();
            let (x, y) = (slice(&a), slice(&b));
            group.bench_function("multiply_bare_loop", |bench| {
                bench.iter(|| bare_multiply(black_box(&x), black_box(&y)))
            });
        }
        group.finish();
    }
}

fn bare_multiply(x: &[f32], y: &[f32]) -> Vec<f32> {
    let mut out = Vec::with_capacity(x.len());
    out.spare_capacity_mut()
        .par_chunks_mut(1 << 15)
        .zip(x.par_chunks(1 << 15).zip(y.par_chunks(1 << 15)))
        .for_each(|(o, (p, q))| {
            for ((o, p), q) in o.iter_mut().zip(p).zip(q) {
                o.write(p * q);
            }
        });
    // SAFETY: every chunk wrote all of its elements.
    unsafe { out.set_len(x.len()) };
    out
}

criterion_group!(benches, bench);
criterion_main!(benches);
