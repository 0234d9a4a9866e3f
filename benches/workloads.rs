//! Issue 15's workloads without Python: W7 (PINN by nested tapes), W8 (RNN through time) and W9
//! (per-example gradients: one per-example sweep beside the row blocks), float32, the sizes of
//! benches/compare.py.
//!
//! `cargo bench --bench workloads -- --warm-up-time 1 --measurement-time 3`
//!
//! Before criterion runs, W7's and W9's peak heap is measured with a counting global allocator:
//! the highest number of live heap bytes during one call beyond what was live before it, against
//! the result plus what the tapes save (issue 15's goal: at most 1.5x). `WORKLOAD_PROFILE=w9:200`
//! (or `w9_rows`, `w7`, `w8`) times one workload in a plain loop instead (for perf / callgrind).
use std::alloc::{GlobalAlloc, Layout, System};
use std::hint::black_box;
use std::sync::atomic::{AtomicUsize, Ordering};

use criterion::{criterion_group, Criterion};
use rustape::ops::{
    add, matmul, reduce_mean, softmax_cross_entropy_with_logits, square, subtract, tanh, trace,
};
use rustape::{JacobianOptions, JacobianStrategy, Source, Tape, Tensor, Unconnected};

/// Counts live heap bytes and their high-water mark.
#[cfg_attr(all(feature = "python", feature = "mimalloc"), allow(dead_code))]
struct Counting;

static LIVE: AtomicUsize = AtomicUsize::new(0);
static PEAK: AtomicUsize = AtomicUsize::new(0);

#[cfg_attr(all(feature = "python", feature = "mimalloc"), allow(dead_code))]
fn grew(by: usize) {
    let live = LIVE.fetch_add(by, Ordering::Relaxed) + by;
    PEAK.fetch_max(live, Ordering::Relaxed);
}

unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        let p = unsafe { System.alloc(layout) };
        if !p.is_null() {
            grew(layout.size());
        }
        p
    }
    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        let p = unsafe { System.alloc_zeroed(layout) };
        if !p.is_null() {
            grew(layout.size());
        }
        p
    }
    unsafe fn dealloc(&self, p: *mut u8, layout: Layout) {
        unsafe { System.dealloc(p, layout) };
        LIVE.fetch_sub(layout.size(), Ordering::Relaxed);
    }
    unsafe fn realloc(&self, p: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        let q = unsafe { System.realloc(p, layout, new_size) };
        if !q.is_null() {
            if new_size >= layout.size() {
                grew(new_size - layout.size());
            } else {
                LIVE.fetch_sub(layout.size() - new_size, Ordering::Relaxed);
            }
        }
        q
    }
}

// With the extension's features on (`--all-features`), the library brings mimalloc as the
// global allocator and there can be only one: the peak is not measured then.
#[cfg(not(all(feature = "python", feature = "mimalloc")))]
#[global_allocator]
static ALLOC: Counting = Counting;

/// Deterministic values in [-scale, scale) (a small LCG: no rand dependency).
fn tensor(shape: &[usize], seed: u64, scale: f32) -> Tensor {
    let mut s = seed.wrapping_mul(6364136223846793005) | 1;
    let values = (0..shape.iter().product())
        .map(|_| {
            s = s
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            ((s >> 40) as f32 / (1u64 << 24) as f32 * 2.0 - 1.0) * scale
        })
        .collect();
    Tensor::from_vec(values, shape).unwrap()
}

/// Weights `[a, b]` and biases `[b]` for the layer sizes.
fn mlp_params(sizes: &[usize], seed: u64) -> Vec<Tensor> {
    sizes
        .windows(2)
        .enumerate()
        .flat_map(|(i, ab)| {
            let scale = 1.0 / (ab[0] as f32).sqrt();
            [
                tensor(ab, seed + 2 * i as u64, scale),
                tensor(&ab[1..], seed + 2 * i as u64 + 1, 0.1),
            ]
        })
        .collect()
}

/// Dense layers `h @ W + b`, `act` between them (not after the last).
fn mlp(params: &[Tensor], x: &Tensor, act: fn(&Tensor) -> rustape::Result<Tensor>) -> Tensor {
    let mut h = x.clone();
    for (i, wb) in params.chunks(2).enumerate() {
        h = add(&matmul(&h, &wb[0], false, false).unwrap(), &wb[1]).unwrap();
        if i + 1 < params.len() / 2 {
            h = act(&h).unwrap();
        }
    }
    h
}

fn sources(params: &[Tensor]) -> Vec<Source> {
    params.iter().map(Source::from).collect()
}

/// W7: the Poisson residual's gradient through the Laplacian of an MLP 2-64-64-64-1 (tanh) on
/// 1,024 points (gradient, then batch Jacobian, on nested tapes); returns the gradients and the
/// bytes the outer tape saved.
fn w7(params: &[Tensor], x: &Tensor, f: &Tensor) -> (Vec<Option<Tensor>>, usize) {
    let t3 = Tape::new(false, false);
    let loss = {
        let _outer = t3.enter().unwrap();
        params.iter().for_each(|p| t3.watch(p));
        let t2 = Tape::new(false, false);
        let g = {
            let _middle = t2.enter().unwrap();
            t2.watch(x);
            let t1 = Tape::new(false, false);
            let u = {
                let _inner = t1.enter().unwrap();
                t1.watch(x);
                mlp(params, x, rustape::ops::tanh)
            };
            let mut g = t1
                .gradient(&[u], &[Source::from(x)], None, Unconnected::None)
                .unwrap();
            g.remove(0).unwrap()
        };
        let hessian = t2
            .batch_jacobian(&g, &Source::from(x), Unconnected::None)
            .unwrap()
            .unwrap();
        let lap = trace(&hessian).unwrap();
        reduce_mean(&square(&subtract(&lap, f).unwrap()).unwrap(), None, false).unwrap()
    };
    let saved = t3.nbytes();
    let last = params.len() - 1; // the last bias does not reach the Laplacian
    let grads = t3
        .gradient(&[loss], &sources(&params[..last]), None, Unconnected::None)
        .unwrap();
    (grads, saved)
}

fn w7_inputs() -> (Vec<Tensor>, Tensor, Tensor) {
    let params = mlp_params(&[2, 64, 64, 64, 1], 10);
    let x = tensor(&[1024, 2], 20, 1.5);
    let f = tensor(&[1024], 21, 1.0);
    (params, x, f)
}

/// W8: `mean(h_T^2) + mean_t(mean(h_t @ R))` of a tanh RNN over 50 steps (batch 32, input 64,
/// hidden 128), gradient with respect to W, U, b and R.
fn w8(params: &[Tensor], xs: &[Tensor], h0: &Tensor) -> Vec<Option<Tensor>> {
    let tape = Tape::new(false, false);
    let loss = {
        let _on = tape.enter().unwrap();
        params.iter().for_each(|p| tape.watch(p));
        let (w, u, b, r) = (&params[0], &params[1], &params[2], &params[3]);
        let mut h = h0.clone();
        let mut readout: Option<Tensor> = None;
        for x in xs {
            let z = add(
                &matmul(x, w, false, false).unwrap(),
                &matmul(&h, u, false, false).unwrap(),
            )
            .unwrap();
            h = tanh(&add(&z, b).unwrap()).unwrap();
            let step = reduce_mean(&matmul(&h, r, false, false).unwrap(), None, false).unwrap();
            readout = Some(match readout {
                None => step,
                Some(sum) => add(&sum, &step).unwrap(),
            });
        }
        let steps = Tensor::scalar(xs.len() as f32);
        let mean_readout = rustape::ops::divide(&readout.unwrap(), &steps).unwrap();
        let energy = reduce_mean(&square(&h).unwrap(), None, false).unwrap();
        add(&energy, &mean_readout).unwrap()
    };
    tape.gradient(&[loss], &sources(params), None, Unconnected::None)
        .unwrap()
}

fn w8_inputs() -> (Vec<Tensor>, Vec<Tensor>, Tensor) {
    let params = vec![
        tensor(&[64, 128], 30, 1.0 / 8.0),
        tensor(&[128, 128], 31, 1.0 / 12.0),
        tensor(&[128], 32, 0.1),
        tensor(&[128, 1], 33, 1.0 / 11.0),
    ];
    let xs = (0..50).map(|t| tensor(&[32, 64], 40 + t, 1.0)).collect();
    (
        params,
        xs,
        Tensor::from_vec(vec![0f32; 32 * 128], &[32, 128]).unwrap(),
    )
}

/// W9: the Jacobian of 256 per-example losses (MLP 784-128-10, relu, softmax cross-entropy)
/// with respect to every parameter, run as `strategy` says; returns it and the tape's bytes.
fn w9(
    params: &[Tensor],
    x: &Tensor,
    labels: &Tensor,
    strategy: JacobianStrategy,
) -> (Vec<Option<Tensor>>, usize) {
    let tape = Tape::new(false, false);
    let losses = {
        let _on = tape.enter().unwrap();
        params.iter().for_each(|p| tape.watch(p));
        let logits = mlp(params, x, rustape::ops::relu);
        softmax_cross_entropy_with_logits(labels, &logits, -1).unwrap()
    };
    let options = JacobianOptions {
        parallel_iterations: None,
        strategy,
    };
    let saved = tape.nbytes();
    let jac = tape
        .jacobian_with(&losses, &sources(params), Unconnected::None, options)
        .unwrap();
    (jac, saved)
}

fn w9_inputs() -> (Vec<Tensor>, Tensor, Tensor) {
    let params = mlp_params(&[784, 128, 10], 50);
    let x = tensor(&[256, 784], 60, 1.0);
    let labels: Vec<f32> = (0..256 * 10)
        .map(|k| f32::from(u8::from(k % 10 == (k / 10 * 7) % 10)))
        .collect();
    (params, x, Tensor::from_vec(labels, &[256, 10]).unwrap())
}

fn nbytes(ts: &[Option<Tensor>]) -> usize {
    ts.iter().flatten().map(Tensor::nbytes).sum()
}

/// Peak heap of one call beyond what was live before it, against its result plus `saved`.
fn peak_memory(name: &str, call: impl Fn() -> (Vec<Option<Tensor>>, usize)) {
    if cfg!(all(feature = "python", feature = "mimalloc")) {
        println!("{name} peak memory: not measured (mimalloc is the global allocator)");
        return;
    }
    black_box(call()); // warm rayon's pool and the allocator
    let before = LIVE.load(Ordering::SeqCst);
    PEAK.store(before, Ordering::SeqCst);
    let (result, saved) = call();
    let peak = PEAK.load(Ordering::SeqCst) - before;
    let mib = |b: usize| b as f64 / (1 << 20) as f64;
    let result = nbytes(&result);
    println!(
        "{name} peak memory: {:.2} MiB; result {:.2} MiB, tape (saved tensors) {:.2} MiB; \
         peak / (result + tape) = {:.2}",
        mib(peak),
        mib(result),
        mib(saved),
        peak as f64 / (result + saved) as f64,
    );
}

fn bench_workloads(c: &mut Criterion) {
    let (p7, x7, f7) = w7_inputs();
    c.bench_function("w7_pinn_nested_tapes", |b| {
        b.iter(|| black_box(w7(&p7, &x7, &f7)))
    });
    let (p8, xs8, h8) = w8_inputs();
    c.bench_function("w8_rnn_bptt", |b| b.iter(|| black_box(w8(&p8, &xs8, &h8))));
    let (p9, x9, l9) = w9_inputs();
    let mut group = c.benchmark_group("w9_per_example");
    group.sample_size(20);
    for (name, strategy) in [
        ("one_sweep", JacobianStrategy::PerExample),
        ("row_blocks", JacobianStrategy::Vectorized),
    ] {
        group.bench_function(name, |b| b.iter(|| black_box(w9(&p9, &x9, &l9, strategy))));
    }
    group.finish();
}

criterion_group!(benches, bench_workloads);

/// Median milliseconds of `n` calls of `f`.
fn median_ms(n: usize, mut f: impl FnMut()) -> f64 {
    let mut times: Vec<f64> = (0..n)
        .map(|_| {
            let start = std::time::Instant::now();
            f();
            start.elapsed().as_secs_f64() * 1e3
        })
        .collect();
    times.sort_by(f64::total_cmp);
    times[times.len() / 2]
}

fn main() {
    let (p7, x7, f7) = w7_inputs();
    let (p8, xs8, h8) = w8_inputs();
    let (p9, x9, l9) = w9_inputs();
    if let Ok(spec) = std::env::var("WORKLOAD_PROFILE") {
        let (name, n) = spec.split_once(':').unwrap_or((&spec, "50"));
        let n = n.parse().unwrap_or(50);
        let ms = match name {
            "w7" => median_ms(n, || drop(black_box(w7(&p7, &x7, &f7)))),
            "w8" => median_ms(n, || drop(black_box(w8(&p8, &xs8, &h8)))),
            "w9_rows" => median_ms(n, || {
                drop(black_box(w9(&p9, &x9, &l9, JacobianStrategy::Vectorized)))
            }),
            _ => median_ms(n, || {
                drop(black_box(w9(&p9, &x9, &l9, JacobianStrategy::PerExample)))
            }),
        };
        return println!("{name}: median {ms:.3} ms");
    }
    peak_memory("w7", || w7(&p7, &x7, &f7));
    peak_memory("w9 (one sweep)", || {
        w9(&p9, &x9, &l9, JacobianStrategy::PerExample)
    });
    peak_memory("w9 (row blocks)", || {
        w9(&p9, &x9, &l9, JacobianStrategy::Vectorized)
    });
    benches();
    Criterion::default().configure_from_args().final_summary();
}
