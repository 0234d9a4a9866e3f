//! The matmul kernel: the `gemm` crate (serial and on rayon's pool) against ndarray's `.dot`
//! (matrixmultiply), and rustape's `ops::matmul` end to end, for square float32 matrices; the
//! two products of a matmul's VJP side by side or one after the other.
//!
//! `cargo bench --bench matmul -- --warm-up-time 1 --measurement-time 3`
use std::hint::black_box;

use criterion::{criterion_group, criterion_main, BenchmarkId, Criterion, Throughput};
use gemm::Parallelism;
use ndarray::Array2;
use rustape::Tensor;

fn values(n: usize, seed: u32) -> Vec<f32> {
    let mut s = seed.wrapping_mul(2_654_435_761) | 1;
    (0..n * n)
        .map(|_| {
            s ^= s << 13;
            s ^= s >> 17;
            s ^= s << 5;
            (s >> 8) as f32 / (1u32 << 24) as f32 - 0.5
        })
        .collect()
}

/// `dst = a @ b` for row-major `n x n` matrices with the gemm crate.
fn gemm_square(n: usize, a: &[f32], b: &[f32], dst: &mut [f32], parallelism: Parallelism) {
    let s = n as isize;
    // SAFETY: all three buffers hold n * n elements; dst aliases neither operand.
    unsafe {
        gemm::gemm(
            n,
            n,
            n,
            dst.as_mut_ptr(),
            1,
            s,
            false,
            a.as_ptr(),
            1,
            s,
            b.as_ptr(),
            1,
            s,
            0.0f32,
            1.0f32,
            false,
            false,
            false,
            parallelism,
        )
    }
}

fn bench_matmul(c: &mut Criterion) {
    let mut group = c.benchmark_group("matmul_f32");
    for n in [64usize, 256, 512] {
        group.throughput(Throughput::Elements((2 * n * n * n) as u64)); // flops
        let (a, b) = (values(n, 1), values(n, 2));
        let mut dst = vec![0.0f32; n * n];
        group.bench_with_input(BenchmarkId::new("gemm_serial", n), &n, |bench, &n| {
            bench.iter(|| gemm_square(n, black_box(&a), black_box(&b), &mut dst, Parallelism::None))
        });
        group.bench_with_input(BenchmarkId::new("gemm_rayon", n), &n, |bench, &n| {
            bench.iter(|| {
                gemm_square(
                    n,
                    black_box(&a),
                    black_box(&b),
                    &mut dst,
                    Parallelism::Rayon(0),
                )
            })
        });
        let (na, nb) = (
            Array2::from_shape_vec((n, n), a.clone()).unwrap(),
            Array2::from_shape_vec((n, n), b.clone()).unwrap(),
        );
        group.bench_with_input(BenchmarkId::new("ndarray_dot", n), &n, |bench, _| {
            bench.iter(|| black_box(&na).dot(black_box(&nb)))
        });
        let (ta, tb) = (
            Tensor::from_vec(a.clone(), &[n, n]).unwrap(),
            Tensor::from_vec(b.clone(), &[n, n]).unwrap(),
        );
        group.bench_with_input(BenchmarkId::new("rustape_matmul", n), &n, |bench, _| {
            bench.iter(|| {
                rustape::ops::matmul(black_box(&ta), black_box(&tb), false, false).unwrap()
            })
        });
    }
    group.finish();

    // Batched: many small matrices (the batch-parallel path) and a dense layer on
    // [batch, rows, features] @ [features, units] (one tall GEMM).
    let mut group = c.benchmark_group("matmul_f32_batched");
    let small = (
        Tensor::ones(&[256, 16, 16], rustape::DType::F32),
        Tensor::ones(&[256, 16, 16], rustape::DType::F32),
    );
    group.bench_function("256x16x16 @ 256x16x16", |bench| {
        bench.iter(|| {
            rustape::ops::matmul(black_box(&small.0), black_box(&small.1), false, false).unwrap()
        })
    });
    let dense = (
        Tensor::ones(&[32, 64, 128], rustape::DType::F32),
        Tensor::ones(&[128, 128], rustape::DType::F32),
    );
    group.bench_function("32x64x128 @ 128x128", |bench| {
        bench.iter(|| {
            rustape::ops::matmul(black_box(&dense.0), black_box(&dense.1), false, false).unwrap()
        })
    });
    group.finish();

    // A shared 2-D left operand against a batched right one: the VJP of `W @ x` in a vectorised
    // Jacobian (`W^T @ dy`, dy `[rows, 256, 1]`), and wider right operands.
    let mut group = c.benchmark_group("matmul_shared_left");
    let w64 = Tensor::from_vec(
        values(256, 3).iter().map(|&v| v as f64).collect(),
        &[256, 256],
    )
    .unwrap();
    for n in [1usize, 2, 4, 8, 64] {
        let dy: Vec<f64> = (0..256 * 256 * n)
            .map(|i| ((i * 7919) % 1000) as f64 / 1000.0 - 0.5)
            .collect();
        let dy = Tensor::from_vec(dy, &[256, 256, n]).unwrap();
        for ta in [false, true] {
            let name = format!("f64 256x256{} @ 256x256x{n}", if ta { "^T" } else { "" });
            group.bench_function(name, |bench| {
                bench.iter(|| {
                    rustape::ops::matmul(black_box(&w64), black_box(&dy), ta, false).unwrap()
                })
            });
        }
    }
    let w32 = Tensor::from_vec(values(256, 3), &[256, 256]).unwrap();
    let dy32 = Tensor::ones(&[256, 256, 1], rustape::DType::F32);
    group.bench_function("f32 256x256 @ 256x256x1", |bench| {
        bench
            .iter(|| rustape::ops::matmul(black_box(&w32), black_box(&dy32), false, false).unwrap())
    });
    group.finish();

    // A batched left operand against a shared right one: the VJP `dy^T @ a` of `a^T @ b`
    // (transposed batch: one GEMM per row), and `dy @ x^T` of `W @ x` (the gradient for W of
    // every row, [256, 256, 1] @ [1, 256]: one tall GEMM).
    let mut group = c.benchmark_group("matmul_shared_right");
    for n in [1usize, 2, 8, 64] {
        let dy: Vec<f64> = (0..256 * 256 * n)
            .map(|i| ((i * 7919) % 1000) as f64 / 1000.0 - 0.5)
            .collect();
        let dy = Tensor::from_vec(dy, &[256, 256, n]).unwrap();
        group.bench_function(format!("f64 (256x256x{n})^T @ 256x256"), |bench| {
            bench.iter(|| {
                rustape::ops::matmul(black_box(&dy), black_box(&w64), true, false).unwrap()
            })
        });
    }
    let dy = Tensor::from_vec(
        (0..256 * 256)
            .map(|i| (i % 97) as f64 / 97.0)
            .collect::<Vec<_>>(),
        &[256, 256, 1],
    )
    .unwrap();
    let x = Tensor::from_vec(
        (0..256).map(|i| i as f64 / 256.0).collect::<Vec<_>>(),
        &[256, 1],
    )
    .unwrap();
    group.bench_function("f64 256x256x1 @ (256x1)^T", |bench| {
        bench.iter(|| rustape::ops::matmul(black_box(&dy), black_box(&x), false, true).unwrap())
    });
    group.finish();

    // End to end: the Jacobian of tanh(W @ x) (W 256x256, x 256x1) with respect to x, and to W,
    // by the default strategy (vectorised: one sweep for all rows, as every op on the path is
    // batchable) and by rows on rayon's threads.
    let mut group = c.benchmark_group("jacobian_tanh_matvec");
    group.sample_size(20);
    let x = Tensor::from_vec(
        (0..256)
            .map(|i| (i as f64 / 256.0) - 0.5)
            .collect::<Vec<_>>(),
        &[256, 1],
    )
    .unwrap();
    let w = rustape::ops::multiply(&w64, &Tensor::scalar(0.1f64)).unwrap();
    for (name, source) in [("x", &x), ("W", &w)] {
        for strategy in [
            rustape::JacobianStrategy::Auto,
            rustape::JacobianStrategy::ParallelRows,
        ] {
            group.bench_function(format!("f64 256x256 d/d{name} {strategy:?}"), |bench| {
                bench.iter(|| {
                    let tape = rustape::Tape::new(false, true);
                    let y = {
                        let _r = tape.enter().unwrap();
                        tape.watch(source);
                        rustape::ops::tanh(&rustape::ops::matmul(&w, &x, false, false).unwrap())
                            .unwrap()
                    };
                    let options = rustape::JacobianOptions {
                        parallel_iterations: None,
                        strategy,
                    };
                    tape.jacobian_with(&y, &[source.into()], rustape::Unconnected::Zero, options)
                        .unwrap()
                })
            });
        }
    }
    group.finish();
}

/// The GEMMs of an MLP training step (W2's sizes: 256x784 -> 512 -> 512 -> 10): the forward
/// product, the weight gradient `x^T @ dy` and the input gradient `dy @ W^T`, called
/// back to back ("warm": the helper threads spin between them) and after a 300 µs pause
/// ("cold": the helpers have parked, as between the kernels of an eager program). With
/// `RAYON_NUM_THREADS=1` and `=2` these show what the second core gains at each size.
fn bench_mlp_step_gemms(c: &mut Criterion) {
    let mut group = c.benchmark_group("matmul_mlp_step");
    group.sample_size(20);
    let t = |rows: usize, cols: usize, seed: u32| {
        let v = values(rows.max(cols), seed);
        Tensor::from_vec(v[..rows * cols].to_vec(), &[rows, cols]).unwrap()
    };
    let cases = [
        (
            "256x784 @ 784x512",
            t(256, 784, 1),
            t(784, 512, 2),
            false,
            false,
        ),
        (
            "(256x784)^T @ 256x512",
            t(256, 784, 3),
            t(256, 512, 4),
            true,
            false,
        ),
        (
            "256x512 @ (512x512)^T",
            t(256, 512, 5),
            t(512, 512, 6),
            false,
            true,
        ),
        (
            "1024x64 @ 64x64",
            t(1024, 64, 7),
            t(64, 64, 8),
            false,
            false,
        ),
    ];
    for (name, a, b, ta, tb) in &cases {
        group.bench_function(format!("warm {name}"), |bench| {
            bench.iter(|| rustape::ops::matmul(black_box(a), black_box(b), *ta, *tb).unwrap())
        });
        group.bench_function(format!("cold {name}"), |bench| {
            bench.iter_custom(|iters| {
                let mut total = std::time::Duration::ZERO;
                for _ in 0..iters {
                    std::thread::sleep(std::time::Duration::from_micros(300));
                    let started = std::time::Instant::now();
                    black_box(rustape::ops::matmul(a, b, *ta, *tb).unwrap());
                    total += started.elapsed();
                }
                total
            })
        });
    }
    group.finish();
}

/// The two gradients of one matmul's VJP (`dy @ B^T` and `A^T @ dy`, a tape's backward pass
/// with a given cotangent, forward included), as rustape runs them: with `RAYON_NUM_THREADS=2`
/// side by side from 8.4M multiply-adds each, with `=1` one after the other. The sizes of an
/// RNN step (0.5M: stays sequential), W7's layers (4.2M), a 256^3 product (16.8M) and the MLP
/// step's second layer (67M).
fn bench_vjp_pair(c: &mut Criterion) {
    use rustape::{Tape, Unconnected};
    let mut group = c.benchmark_group("matmul_vjp_pair");
    group.sample_size(20);
    let t = |rows: usize, cols: usize, seed: u32| {
        let v = values(rows.max(cols), seed);
        Tensor::from_vec(v[..rows * cols].to_vec(), &[rows, cols]).unwrap()
    };
    for (m, k, n) in [
        (32, 128, 128),
        (1024, 64, 64),
        (256, 256, 256),
        (256, 512, 512),
    ] {
        let (a, b, dy) = (t(m, k, 1), t(k, n, 2), t(m, n, 3));
        let vjp = || {
            let tape = Tape::new(false, false);
            let y = {
                let _on = tape.enter().unwrap();
                tape.watch(&a);
                tape.watch(&b);
                rustape::ops::matmul(&a, &b, false, false).unwrap()
            };
            let seed = [Some(dy.clone())];
            tape.gradient(
                &[y],
                &[(&a).into(), (&b).into()],
                Some(&seed),
                Unconnected::None,
            )
            .unwrap()
        };
        let name = format!("{m}x{k}x{n}");
        group.bench_function(name, |bench| bench.iter(|| black_box(vjp())));
    }
    group.finish();
}

criterion_group!(benches, bench_matmul, bench_mlp_step_gemms, bench_vjp_pair);
criterion_main!(benches);
