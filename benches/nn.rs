//! The convolution and pooling kernels without Python: the CNN of benches/nn.py (batch 64,
//! 28x28x1; conv 3x3x1x32, pool, conv 3x3x32x64, pool), each op forward and its gradients, and
//! the whole forward + backward of the convolutional part, float32.
//!
//! `cargo bench --bench nn -- --warm-up-time 1 --measurement-time 3`
//! (instruction counts, steadier on a shared machine: `perf stat -e instructions` over
//! `cargo bench --bench nn -- --profile-time 5 <filter>`).
use std::hint::black_box;

use criterion::{criterion_group, criterion_main, Criterion};
use rustape::ops::{add, conv2d, max_pool2d, multiply, reduce_sum, relu, Padding};
use rustape::{Source, Tape, Tensor, Unconnected};

fn values(shape: &[usize], seed: u32, scale: f32) -> Tensor {
    let n: usize = shape.iter().product();
    let mut s = seed.wrapping_mul(2_654_435_761) | 1;
    let v: Vec<f32> = (0..n)
        .map(|_| {
            s ^= s << 13;
            s ^= s >> 17;
            s ^= s << 5;
            ((s >> 8) as f32 / (1u32 << 24) as f32 - 0.5) * scale
        })
        .collect();
    Tensor::from_vec(v, shape).unwrap()
}

/// The gradients of `sum(f(xs) * w)` with respect to `xs`.
fn gradients(f: &dyn Fn(&[Tensor]) -> Tensor, xs: &[Tensor], w: &Tensor) -> Vec<Option<Tensor>> {
    let tape = Tape::new(false, true);
    let y = {
        let _r = tape.enter().unwrap();
        xs.iter().for_each(|x| tape.watch(x));
        reduce_sum(&multiply(&f(xs), w).unwrap(), None, false).unwrap()
    };
    let sources: Vec<Source> = xs.iter().map(Source::from).collect();
    tape.gradient(&[y], &sources, None, Unconnected::None)
        .unwrap()
}

fn bench_layers(c: &mut Criterion) {
    let valid = Padding::Valid;
    let x = values(&[64, 28, 28, 1], 1, 1.0);
    let k1 = values(&[3, 3, 1, 32], 2, 0.6);
    let b1 = values(&[32], 3, 0.1);
    let k2 = values(&[3, 3, 32, 64], 4, 0.1);
    let b2 = values(&[64], 5, 0.1);
    let h1 = relu(&conv2d(&x, &k1, [1, 1], &valid, [1, 1]).unwrap()).unwrap();
    let p1 = max_pool2d(&h1, [2, 2], [2, 2], &valid).unwrap();
    let h2 = conv2d(&p1, &k2, [1, 1], &valid, [1, 1]).unwrap();

    let mut group = c.benchmark_group("cnn_f32");
    group.bench_function("conv1_forward", |b| {
        b.iter(|| conv2d(black_box(&x), &k1, [1, 1], &valid, [1, 1]).unwrap())
    });
    group.bench_function("conv2_forward", |b| {
        b.iter(|| conv2d(black_box(&p1), &k2, [1, 1], &valid, [1, 1]).unwrap())
    });
    group.bench_function("pool1_forward", |b| {
        b.iter(|| max_pool2d(black_box(&h1), [2, 2], [2, 2], &valid).unwrap())
    });
    let w1 = values(&[64, 26, 26, 32], 6, 1.0);
    group.bench_function("conv1_gradients_filter", |b| {
        let f = |t: &[Tensor]| conv2d(&x, &t[0], [1, 1], &valid, [1, 1]).unwrap();
        b.iter(|| gradients(&f, std::slice::from_ref(&k1), &w1))
    });
    let w2 = values(h2.shape(), 7, 1.0);
    group.bench_function("conv2_gradients_input_filter", |b| {
        let f = |t: &[Tensor]| conv2d(&t[0], &t[1], [1, 1], &valid, [1, 1]).unwrap();
        b.iter(|| gradients(&f, &[p1.clone(), k2.clone()], &w2))
    });
    let wp = values(p1.shape(), 8, 1.0);
    group.bench_function("pool1_gradient", |b| {
        let f = |t: &[Tensor]| max_pool2d(&t[0], [2, 2], [2, 2], &valid).unwrap();
        b.iter(|| gradients(&f, std::slice::from_ref(&h1), &wp))
    });
    let w_out = values(&[64, 5, 5, 64], 9, 1.0);
    group.bench_function("conv_stack_forward_backward", |b| {
        let f = |t: &[Tensor]| {
            let h = relu(&add(&conv2d(&x, &t[0], [1, 1], &valid, [1, 1]).unwrap(), &t[1]).unwrap())
                .unwrap();
            let h = max_pool2d(&h, [2, 2], [2, 2], &valid).unwrap();
            let h = relu(&add(&conv2d(&h, &t[2], [1, 1], &valid, [1, 1]).unwrap(), &t[3]).unwrap())
                .unwrap();
            max_pool2d(&h, [2, 2], [2, 2], &valid).unwrap()
        };
        let params = [k1.clone(), b1.clone(), k2.clone(), b2.clone()];
        b.iter(|| gradients(&f, &params, &w_out))
    });
    group.finish();
}

criterion_group!(benches, bench_layers);
criterion_main!(benches);
