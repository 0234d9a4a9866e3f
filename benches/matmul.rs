//! The matmul kernel: the `gemm` crate (serial and on rayon's pool) against ndarray's `.dot`
//! (matrixmultiply), and rustape's `ops::matmul` end to end, for square float32 matrices.
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
}

criterion_group!(benches, bench_matmul);
criterion_main!(benches);
