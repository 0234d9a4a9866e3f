//! The engine's per-op costs, no Python: recording, the backward sweep, and a small chain end to
//! end (the Rust side of issue 4's W1 and W6).
//!
//! `cargo bench --bench tape -- --warm-up-time 1 --measurement-time 3`
//!
//! - `record/*`: one scalar float32 multiply, with no tape (and on shape [1] for comparison),
//!   with a tape active that does not watch the inputs, and with a tape recording it (the time is per op; recorded tapes are
//!   dropped outside the timed region).
//! - `backward/scalar_chain_10000`: `gradient` over a recorded 10,000-op scalar chain (the
//!   recording is not timed); divide by 10,000 for the cost per node.
//! - `chain_vec16/record_and_gradient_1000`: 500 x (`y = y * 0.99999 + 1e-6`) on a [16] vector,
//!   recorded and differentiated, as W6 does at 200x the length.
//! - `fan_out_8/gradient_n`: a persistent tape's gradient where `x` of `n` elements feeds 8
//!   products (7 accumulations of `n` elements into its gradient).
use std::hint::black_box;
use std::time::{Duration, Instant};

use criterion::{criterion_group, criterion_main, BatchSize, Criterion, Throughput};
use rustape::{ops, Source, Tape, Tensor, Unconnected};

/// Ops recorded on one tape before it is dropped (bounds memory while criterion iterates).
const CHUNK: u64 = 10_000;

fn bench_record(c: &mut Criterion) {
    let mut group = c.benchmark_group("record");
    group.throughput(Throughput::Elements(1));
    let x = Tensor::scalar(0.5f32);
    let k = Tensor::scalar(1.0001f32);

    group.bench_function("multiply_scalar_no_tape", |b| {
        b.iter(|| ops::multiply(black_box(&x), black_box(&k)).unwrap())
    });

    // The same multiply on shape [1]: isolates what rank 0 (empty shapes) costs by itself.
    let (x1, k1) = (
        Tensor::from_vec(vec![0.5f32], &[1]).unwrap(),
        Tensor::from_vec(vec![1.0001f32], &[1]).unwrap(),
    );
    group.bench_function("multiply_shape1_no_tape", |b| {
        b.iter(|| ops::multiply(black_box(&x1), black_box(&k1)).unwrap())
    });

    group.bench_function("multiply_scalar_tape_not_watching", |b| {
        let tape = Tape::new(false, true);
        let _on = tape.enter().unwrap();
        b.iter(|| ops::multiply(black_box(&x), black_box(&k)).unwrap())
    });

    group.bench_function("multiply_scalar_recorded", |b| {
        b.iter_custom(|iters| {
            let mut total = Duration::ZERO;
            let mut left = iters;
            while left > 0 {
                let n = left.min(CHUNK);
                left -= n;
                let tape = Tape::new(false, true);
                let on = tape.enter().unwrap();
                tape.watch(&x);
                let start = Instant::now();
                for _ in 0..n {
                    // each output is recorded and dropped by the caller, as in Python's `x * k`
                    black_box(ops::multiply(black_box(&x), &k).unwrap());
                }
                total += start.elapsed();
                drop(on);
                drop(tape);
            }
            total
        })
    });

    group.bench_function("multiply_scalar_recorded_chain", |b| {
        // y = y * k: each op's input is the previous op's output (what W1 does)
        b.iter_custom(|iters| {
            let mut total = Duration::ZERO;
            let mut left = iters;
            while left > 0 {
                let n = left.min(CHUNK);
                left -= n;
                let tape = Tape::new(false, true);
                let on = tape.enter().unwrap();
                tape.watch(&x);
                let mut y = x.clone();
                let start = Instant::now();
                for _ in 0..n {
                    y = ops::multiply(&y, &k).unwrap();
                }
                total += start.elapsed();
                drop(y);
                drop(on);
                drop(tape);
            }
            total
        })
    });
    group.finish();
}

/// A recorded scalar chain of `n` ops alternating multiply and sin (sin keeps values bounded).
fn scalar_chain(n: usize) -> (Tape, Tensor, Tensor) {
    let x = Tensor::scalar(0.5f32);
    let k = Tensor::scalar(1.0001f32);
    let tape = Tape::new(false, true);
    let y = {
        let _on = tape.enter().unwrap();
        tape.watch(&x);
        let mut y = x.clone();
        for i in 0..n {
            y = if i % 2 == 0 {
                ops::multiply(&y, &k).unwrap()
            } else {
                ops::sin(&y).unwrap()
            };
        }
        y
    };
    (tape, x, y)
}

fn bench_backward(c: &mut Criterion) {
    let mut group = c.benchmark_group("backward");
    let n = 10_000;
    group.throughput(Throughput::Elements(n as u64));
    group.bench_function("scalar_chain_10000", |b| {
        b.iter_batched(
            || scalar_chain(n),
            |(tape, x, y)| {
                tape.gradient(&[y], &[Source::from(&x)], None, Unconnected::None)
                    .unwrap()
            },
            BatchSize::PerIteration,
        )
    });
    group.finish();
}

fn bench_chain_vec16(c: &mut Criterion) {
    let mut group = c.benchmark_group("chain_vec16");
    let n = 1_000; // recorded ops: n / 2 multiplies and n / 2 adds
    group.throughput(Throughput::Elements(n as u64));
    let x = Tensor::from_vec(vec![1.0f32; 16], &[16]).unwrap();
    let k = Tensor::scalar(0.99999f32);
    let d = Tensor::scalar(1e-6f32);
    group.bench_function("record_and_gradient_1000", |b| {
        b.iter(|| {
            let tape = Tape::new(false, true);
            let y = {
                let _on = tape.enter().unwrap();
                tape.watch(&x);
                let mut y = x.clone();
                for _ in 0..n / 2 {
                    y = ops::add(&ops::multiply(&y, &k).unwrap(), &d).unwrap();
                }
                y
            };
            tape.gradient(&[y], &[Source::from(&x)], None, Unconnected::None)
                .unwrap()
        })
    });
    group.finish();
}

/// Gradient accumulation: `x` of `n` float32 feeds 8 products, so its gradient is a sum of 8
/// cotangents of `n` elements (the sweep adds them into a buffer nothing else holds).
fn bench_fan_out(c: &mut Criterion) {
    let mut group = c.benchmark_group("fan_out_8");
    for n in [1usize << 10, 1 << 16, 1 << 20] {
        let x = Tensor::from_vec(vec![0.5f32; n], &[n]).unwrap();
        let tape = Tape::new(true, true);
        let loss = {
            let _on = tape.enter().unwrap();
            tape.watch(&x);
            let mut total = ops::multiply(&x, &Tensor::scalar(1.0f32)).unwrap();
            for k in 2..=8 {
                let term = ops::multiply(&x, &Tensor::scalar(k as f32)).unwrap();
                total = ops::add(&total, &term).unwrap();
            }
            ops::reduce_sum(&total, None, false).unwrap()
        };
        group.throughput(Throughput::Elements(n as u64));
        group.bench_function(format!("gradient_{n}"), |b| {
            b.iter(|| {
                tape.gradient(
                    std::slice::from_ref(&loss),
                    &[Source::from(&x)],
                    None,
                    Unconnected::None,
                )
                .unwrap()
            })
        });
    }
    group.finish();
}

criterion_group!(
    benches,
    bench_record,
    bench_backward,
    bench_chain_vec16,
    bench_fan_out
);
criterion_main!(benches);
