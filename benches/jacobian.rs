//! Jacobians without Python (issue 3's W3, W4, W5), each strategy, and W4's peak memory.
//!
//! `cargo bench --bench jacobian -- --warm-up-time 1 --measurement-time 3`
//!
//! Before criterion runs, W4's peak heap is measured with a counting global allocator: the
//! highest number of live heap bytes during one `batch_jacobian` beyond what was live before it
//! (the inputs and the recorded tape), against the size of the result and of the tape's saved
//! tensors (issue 3's goal: at most 2x the result plus the tape).
use std::alloc::{GlobalAlloc, Layout, System};
use std::hint::black_box;
use std::sync::atomic::{AtomicUsize, Ordering};

use criterion::{criterion_group, Criterion};
use rustape::{ops, JacobianOptions, JacobianStrategy, Source, Tape, Tensor, Unconnected};

/// Counts live heap bytes and their high-water mark.
#[cfg_attr(all(feature = "python", feature = "mimalloc"), allow(dead_code))]
struct Counting;

static LIVE: AtomicUsize = AtomicUsize::new(0);
static PEAK: AtomicUsize = AtomicUsize::new(0);

unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        let p = unsafe { System.alloc(layout) };
        if !p.is_null() {
            let live = LIVE.fetch_add(layout.size(), Ordering::Relaxed) + layout.size();
            PEAK.fetch_max(live, Ordering::Relaxed);
        }
        p
    }
    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        let p = unsafe { System.alloc_zeroed(layout) };
        if !p.is_null() {
            let live = LIVE.fetch_add(layout.size(), Ordering::Relaxed) + layout.size();
            PEAK.fetch_max(live, Ordering::Relaxed);
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
                let live = LIVE.fetch_add(new_size - layout.size(), Ordering::Relaxed) + new_size
                    - layout.size();
                PEAK.fetch_max(live, Ordering::Relaxed);
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
fn values(n: usize, seed: u64, scale: f32) -> Vec<f32> {
    let mut s = seed
        .wrapping_mul(6364136223846793005)
        .wrapping_add(1442695040888963407);
    (0..n)
        .map(|_| {
            s = s
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            ((s >> 40) as f32 / (1u64 << 24) as f32 * 2.0 - 1.0) * scale
        })
        .collect()
}

fn tensor(shape: &[usize], seed: u64, scale: f32) -> Tensor {
    Tensor::from_vec(values(shape.iter().product(), seed, scale), shape).unwrap()
}

/// W4's inputs: x [512, 64], L1 [64, 128], L2 [128, 32].
fn w4_inputs() -> (Tensor, Tensor, Tensor) {
    (
        tensor(&[512, 64], 1, 1.7),
        tensor(&[64, 128], 2, 0.2),
        tensor(&[128, 32], 3, 0.15),
    )
}

/// `elu(elu(x @ L1) @ L2)` recorded on a fresh tape watching `x`.
fn w4_record(x: &Tensor, l1: &Tensor, l2: &Tensor) -> (Tape, Tensor) {
    let tape = Tape::new(false, false);
    let y = {
        let _on = tape.enter().unwrap();
        tape.watch(x);
        let h = ops::elu(&ops::matmul(x, l1, false, false).unwrap()).unwrap();
        ops::elu(&ops::matmul(&h, l2, false, false).unwrap()).unwrap()
    };
    (tape, y)
}

/// `strategy`, with parallel_iterations from `JACOBIAN_PARALLEL_ITERATIONS` (default `None`).
fn options(strategy: JacobianStrategy) -> JacobianOptions {
    JacobianOptions {
        parallel_iterations: std::env::var("JACOBIAN_PARALLEL_ITERATIONS")
            .ok()
            .and_then(|p| p.parse().ok()),
        strategy,
    }
}

fn w4(x: &Tensor, l1: &Tensor, l2: &Tensor, strategy: JacobianStrategy) -> Tensor {
    let (tape, y) = w4_record(x, l1, l2);
    tape.batch_jacobian_with(
        &y,
        &Source::Tensor(x.clone()),
        Unconnected::None,
        options(strategy),
    )
    .unwrap()
    .unwrap()
}

/// W4's peak heap during `batch_jacobian` beyond the inputs and the tape, in bytes, per strategy.
fn w4_peak_memory() {
    if cfg!(all(feature = "python", feature = "mimalloc")) {
        println!("w4 peak memory: not measured (the mimalloc feature owns the global allocator)");
        return;
    }
    let (x, l1, l2) = w4_inputs();
    for strategy in [
        JacobianStrategy::Auto,
        JacobianStrategy::Vectorized,
        JacobianStrategy::ParallelRows,
        JacobianStrategy::Sequential,
    ] {
        black_box(w4(&x, &l1, &l2, strategy)); // warm rayon's pool and the allocator
        let (tape, y) = w4_record(&x, &l1, &l2);
        let saved = tape.nbytes();
        let before = LIVE.load(Ordering::SeqCst);
        PEAK.store(before, Ordering::SeqCst);
        let jac = tape
            .batch_jacobian_with(
                &y,
                &Source::Tensor(x.clone()),
                Unconnected::None,
                options(strategy),
            )
            .unwrap()
            .unwrap();
        let peak = PEAK.load(Ordering::SeqCst) - before;
        let result = jac.nbytes();
        println!(
            "w4 peak memory ({strategy:?}): {:.2} MiB beyond inputs and tape; result {:.2} MiB, \
             tape (saved tensors) {:.2} MiB; peak / (result + tape) = {:.2}",
            peak as f64 / (1 << 20) as f64,
            result as f64 / (1 << 20) as f64,
            saved as f64 / (1 << 20) as f64,
            peak as f64 / (result + saved) as f64,
        );
        drop((jac, tape, y));
    }
}

fn bench_w4(c: &mut Criterion) {
    let (x, l1, l2) = w4_inputs();
    let mut group = c.benchmark_group("w4_batch_jacobian");
    for (name, strategy) in [
        ("auto", JacobianStrategy::Auto),
        ("vectorized", JacobianStrategy::Vectorized),
        ("parallel_rows", JacobianStrategy::ParallelRows),
    ] {
        group.bench_function(name, |b| b.iter(|| w4(&x, &l1, &l2, strategy)));
    }
    group.finish();
}

/// W3's inputs: W [256, 256], x [256, 1].
fn w3_inputs() -> (Tensor, Tensor) {
    (
        tensor(&[256, 256], 4, 1.0 / 16.0),
        tensor(&[256, 1], 5, 1.0),
    )
}

/// W3: jacobian of `tanh(W @ x)` with respect to x.
fn w3(w: &Tensor, x: &Tensor) -> Tensor {
    let tape = Tape::new(false, false);
    let y = {
        let _on = tape.enter().unwrap();
        tape.watch(x);
        ops::tanh(&ops::matmul(w, x, false, false).unwrap()).unwrap()
    };
    let source = [Source::Tensor(x.clone())];
    let mut jac = tape.jacobian(&y, &source, Unconnected::None).unwrap();
    jac.remove(0).unwrap()
}

fn bench_w3(c: &mut Criterion) {
    let (w, x) = w3_inputs();
    c.bench_function("w3_jacobian", |b| b.iter(|| w3(&w, &x)));
}

/// W5's inputs: X [64, 200], w [200, 1].
fn w5_inputs() -> (Tensor, Tensor) {
    (tensor(&[64, 200], 6, 1.0 / 14.0), tensor(&[200, 1], 7, 1.0))
}

/// `sum(tanh(X @ w)^2)`.
fn w5_f(xm: &Tensor, w: &Tensor) -> Tensor {
    let t = ops::tanh(&ops::matmul(xm, w, false, false).unwrap()).unwrap();
    ops::reduce_sum(&ops::square(&t).unwrap(), None, false).unwrap()
}

/// W5: the Hessian of `sum(tanh(X @ w)^2)` by nested tapes + jacobian (the TF guide's way).
fn w5_nested(xm: &Tensor, w: &Tensor) -> Tensor {
    let src = [Source::Tensor(w.clone())];
    let outer = Tape::new(false, false);
    let g = {
        let _o = outer.enter().unwrap();
        outer.watch(w);
        let inner = Tape::new(false, false);
        let y = {
            let _i = inner.enter().unwrap();
            inner.watch(w);
            w5_f(xm, w)
        };
        let mut g = inner.gradient(&[y], &src, None, Unconnected::None).unwrap();
        g.remove(0).unwrap()
    };
    let mut h = outer.jacobian(&g, &src, Unconnected::None).unwrap();
    h.remove(0).unwrap()
}

/// W5 by `tape.hessian`.
fn w5_hessian(xm: &Tensor, w: &Tensor) -> Tensor {
    let tape = Tape::new(false, false);
    let y = {
        let _on = tape.enter().unwrap();
        tape.watch(w);
        w5_f(xm, w)
    };
    let src = [Source::Tensor(w.clone())];
    let mut h = tape.hessian(&y, &src, Unconnected::None).unwrap();
    h.remove(0).unwrap()
}

fn bench_w5(c: &mut Criterion) {
    let (xm, w) = w5_inputs();
    c.bench_function("w5_nested_tapes", |b| b.iter(|| w5_nested(&xm, &w)));
    c.bench_function("w5_tape_hessian", |b| b.iter(|| w5_hessian(&xm, &w)));
}

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

criterion_group!(benches, bench_w4, bench_w3, bench_w5);

fn main() {
    // `JACOBIAN_PROFILE=auto:500` (W4 by vectorized / parallel_rows / sequential; or w3, w5,
    // w5h): only that workload, timed in a plain loop (for perf, without criterion's analysis in
    // the profile); `=memory`: only W4's peak heap. `JACOBIAN_PARALLEL_ITERATIONS=n` sets W4's
    // parallel_iterations.
    if let Ok(spec) = std::env::var("JACOBIAN_PROFILE") {
        let (name, n) = spec.split_once(':').unwrap_or((&spec, "200"));
        let n = n.parse().unwrap_or(200);
        let (w3_in, w5_in, w4_in) = (w3_inputs(), w5_inputs(), w4_inputs());
        let strategy = match name {
            "memory" => return w4_peak_memory(),
            "w3" => {
                return println!(
                    "w3: median {:.3} ms",
                    median_ms(n, || {
                        black_box(w3(&w3_in.0, &w3_in.1));
                    })
                )
            }
            "w5" => {
                return println!(
                    "w5: median {:.3} ms",
                    median_ms(n, || {
                        black_box(w5_nested(&w5_in.0, &w5_in.1));
                    })
                )
            }
            "w5h" => {
                return println!(
                    "w5h: median {:.3} ms",
                    median_ms(n, || {
                        black_box(w5_hessian(&w5_in.0, &w5_in.1));
                    })
                )
            }
            "vectorized" => JacobianStrategy::Vectorized,
            "parallel_rows" => JacobianStrategy::ParallelRows,
            "sequential" => JacobianStrategy::Sequential,
            _ => JacobianStrategy::Auto,
        };
        let (x, l1, l2) = w4_in;
        let ms = median_ms(n, || {
            black_box(w4(&x, &l1, &l2, strategy));
        });
        println!("w4 {name}: median {ms:.3} ms");
        return;
    }
    w4_peak_memory();
    benches();
    Criterion::default().configure_from_args().final_summary();
}
