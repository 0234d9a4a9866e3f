//! The engine on hostile input: sizes that overflow, reductions over empty axes beside huge
//! ones, sums at scale (pairwise accuracy), Jacobians whose memory must follow what is needed,
//! ops with many outputs, custom VJPs kept on the calling thread. Every outcome is a value or
//! an `Error` of a documented kind, quickly.
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use rustape::ops;
use rustape::{DType, ErrorKind, JacobianOptions, Source, Tape, Tensor, Unconnected};

fn f64s(values: &[f64], shape: &[usize]) -> Tensor {
    Tensor::from_vec(values.to_vec(), shape).unwrap()
}

/// A deterministic pseudo-random value in [-1, 1) for index `i`.
fn noise(i: usize) -> f64 {
    let x = (i as u64 + 1).wrapping_mul(0x9E37_79B9_7F4A_7C15);
    ((x >> 11) as f64 / (1u64 << 53) as f64) * 2.0 - 1.0
}

fn kind<T>(r: rustape::Result<T>) -> ErrorKind {
    match r {
        Ok(_) => panic!("expected an error"),
        Err(e) => e.kind,
    }
}

/// Every subset of axes of a rank-4 tensor, against sums taken element by element in f64.
#[test]
fn sums_over_every_axis_subset_match_direct_sums() {
    let shape = [3usize, 5, 7, 2];
    let n: usize = shape.iter().product();
    let values: Vec<f64> = (0..n).map(noise).collect();
    let x = f64s(&values, &shape);
    for mask in 0u32..16 {
        let axes: Vec<usize> = (0..4).filter(|a| mask & (1 << a) != 0).collect();
        let axes_i: Vec<isize> = axes.iter().map(|&a| a as isize).collect();
        let y = ops::reduce_sum(&x, Some(&axes_i), false).unwrap();
        let kept: Vec<usize> = (0..4).filter(|a| !axes.contains(a)).collect();
        let out_shape: Vec<usize> = kept.iter().map(|&a| shape[a]).collect();
        assert_eq!(y.shape(), out_shape.as_slice(), "axes {axes:?}");
        let mut expected = vec![0.0; out_shape.iter().product()];
        for (flat, &v) in values.iter().enumerate() {
            let mut index = [0usize; 4];
            let mut rest = flat;
            for a in (0..4).rev() {
                index[a] = rest % shape[a];
                rest /= shape[a];
            }
            let at = kept.iter().fold(0, |acc, &a| acc * shape[a] + index[a]);
            expected[at] += v;
        }
        for (a, e) in y.to_f64_vec().iter().zip(&expected) {
            assert!((a - e).abs() <= 1e-12, "axes {axes:?}: {a} vs {e}");
        }
    }
}

/// 2^24 + 3 float32 values of 0.1: a sequential sum is 1.5% off; the pairwise one is within
/// a few float32 roundings of the exact sum, along a contiguous run and down rows.
#[test]
fn float32_sums_at_16m_elements_are_accurate() {
    let n = (1usize << 24) + 3;
    let tenth = 0.1f32;
    let exact = n as f64 * tenth as f64;
    let x = ops::fill(&[n], 0.1, DType::F32).unwrap();
    let sum = ops::reduce_sum(&x, None, false).unwrap().item().unwrap();
    assert!((sum - exact).abs() / exact < 1e-6, "{sum} vs {exact}");
    let mean = ops::reduce_mean(&x, None, false).unwrap().item().unwrap();
    assert!(
        (mean - tenth as f64).abs() / (tenth as f64) < 1e-6,
        "{mean}"
    );
    // Down the rows of [n / 2, 2] (column sums, the bias-gradient layout).
    let rows = x.size() / 2;
    let m = ops::reshape(
        &ops::fill(&[rows * 2], 0.1, DType::F32).unwrap(),
        &[rows as isize, 2],
    )
    .unwrap();
    let cols = ops::reduce_sum(&m, Some(&[0]), false).unwrap().to_f64_vec();
    let exact = rows as f64 * tenth as f64;
    for c in cols {
        assert!((c - exact).abs() / exact < 1e-6, "{c} vs {exact}");
    }
}

/// The gradient of a bias broadcast over 2^24 rows sums 2^24 cotangents: pairwise too.
#[test]
fn broadcast_bias_gradient_at_16m_rows_is_accurate() {
    let rows = 1usize << 24;
    let x = ops::zeros(&[rows, 1], DType::F32).unwrap();
    let b = Tensor::from_vec(vec![0.5f32], &[1]).unwrap();
    let tape = Tape::new(false, true);
    let y = {
        let _recording = tape.enter().unwrap();
        tape.watch(&b);
        ops::add(&x, &b).unwrap()
    };
    let seed = ops::fill(&[rows, 1], 0.1, DType::F32).unwrap();
    let g = tape
        .gradient(&[y], &[(&b).into()], Some(&[Some(seed)]), Unconnected::None)
        .unwrap();
    let got = g[0].as_ref().unwrap().item().unwrap();
    let exact = rows as f64 * 0.1f32 as f64;
    assert!((got - exact).abs() / exact < 1e-6, "{got} vs {exact}");
}

/// Reductions whose result is empty, or whose reduced axis is, cost nothing however long the
/// other axes are (they used to iterate over 2^40 empty lanes).
#[test]
fn reductions_beside_huge_axes_finish_at_once() {
    let start = Instant::now();
    let x = ops::zeros(&[1 << 40, 0], DType::F32).unwrap();
    for op in [
        ops::reduce_sum,
        ops::reduce_mean,
        ops::reduce_max,
        ops::reduce_min,
        ops::reduce_prod,
    ] {
        let y = op(&x, Some(&[0]), false).unwrap();
        assert_eq!(y.shape(), &[0]);
        let y = op(&x, Some(&[0]), true).unwrap();
        assert_eq!(y.shape(), &[1, 0]);
    }
    // An empty reduced axis gives the identity over the kept ones.
    let z = ops::zeros(&[3, 0, 2], DType::F64).unwrap();
    let s = ops::reduce_sum(&z, Some(&[1]), false).unwrap();
    assert_eq!(s.to_f64_vec(), vec![0.0; 6]);
    let p = ops::reduce_prod(&z, Some(&[1]), false).unwrap();
    assert_eq!(p.to_f64_vec(), vec![1.0; 6]);
    let m = ops::reduce_max(&z, Some(&[1]), false).unwrap();
    assert_eq!(m.to_f64_vec(), vec![f64::NEG_INFINITY; 6]);
    // The gradient of tile(zeros([0]), [2^62]) reduces a [2^62, 0] cotangent.
    let e = ops::zeros(&[0], DType::F32).unwrap();
    let tape = Tape::new(false, true);
    let y = {
        let _recording = tape.enter().unwrap();
        tape.watch(&e);
        ops::tile(&e, &[1 << 62]).unwrap()
    };
    assert_eq!(y.shape(), &[0]);
    let g = tape
        .gradient(&[y], &[(&e).into()], None, Unconnected::Zero)
        .unwrap();
    assert_eq!(g[0].as_ref().unwrap().shape(), &[0]);
    assert!(start.elapsed() < Duration::from_secs(5));
}

/// Shapes whose element count does not fit are ValueErrors at the op, never an empty buffer
/// that panics later.
#[test]
fn sizes_that_overflow_are_value_errors() {
    let huge = [1usize << 32, 1 << 32];
    assert_eq!(kind(ops::zeros(&huge, DType::F32)), ErrorKind::Value);
    assert_eq!(kind(ops::ones(&huge, DType::F64)), ErrorKind::Value);
    assert_eq!(kind(ops::fill(&huge, 1.0, DType::I32)), ErrorKind::Value);
    assert_eq!(
        kind(ops::normal(&huge, 0.0, 1.0, DType::F32, Some(1))),
        ErrorKind::Value
    );
    assert_eq!(
        kind(ops::uniform(&huge, 0.0, 1.0, DType::F32, Some(1))),
        ErrorKind::Value
    );
    assert_eq!(
        kind(ops::eye(1 << 32, None, &[], DType::F32)),
        ErrorKind::Value
    );
    assert_eq!(kind(ops::eye(2, None, &huge, DType::F32)), ErrorKind::Value);
    let x = f64s(&[1.0, 2.0], &[2]);
    assert_eq!(
        kind(ops::reshape(&x, &[1 << 32, 1 << 32, 0])),
        ErrorKind::Value
    );
    let one = f64s(&[1.0], &[1, 1]);
    assert_eq!(kind(ops::broadcast_to(&one, &huge)), ErrorKind::Value);
    assert_eq!(kind(ops::tile(&one, &huge)), ErrorKind::Value);
    assert_eq!(
        kind(ops::tile(&x, &[usize::MAX])),
        ErrorKind::Value,
        "2 x usize::MAX"
    );
    assert_eq!(
        kind(ops::pad(
            &x,
            &[(usize::MAX, 1)],
            ops::PadMode::Constant,
            0.0
        )),
        ErrorKind::Value
    );
    let idx = Tensor::from_vec(vec![1i64], &[1]).unwrap();
    assert_eq!(
        kind(ops::one_hot(&idx, usize::MAX, DType::F32)),
        ErrorKind::Value
    );
    assert_eq!(
        kind(ops::linspace(0.0, 1.0, usize::MAX, DType::F64)),
        ErrorKind::Value
    );
    assert_eq!(
        kind(ops::range(0.0, 1e300, 1.0, DType::F64)),
        ErrorKind::Value
    );
    // Broadcasting two operands into more elements than fit.
    let col = ops::zeros(&[1 << 32, 1, 0], DType::F32).unwrap();
    let row = ops::zeros(&[1, 1 << 32, 0], DType::F32).unwrap();
    assert_eq!(kind(ops::add(&col, &row)), ErrorKind::Value);
}

/// A Jacobian with respect to a source the target does not depend on runs no rows (it used
/// to sweep every row and fill a result of zeros first: quadratic in the size).
#[test]
fn jacobian_of_an_unconnected_source_runs_no_rows() {
    let n = 400_000;
    let x = ops::zeros(&[n], DType::F32).unwrap();
    let z = ops::ones(&[n], DType::F32).unwrap();
    let tape = Tape::new(true, true);
    let y = {
        let _recording = tape.enter().unwrap();
        tape.watch(&x);
        tape.watch(&z);
        ops::multiply(&z, &z).unwrap()
    };
    let start = Instant::now();
    let j = tape
        .jacobian(&y, &[(&x).into()], Unconnected::None)
        .unwrap();
    assert!(j[0].is_none());
    assert!(
        start.elapsed() < Duration::from_secs(2),
        "{:?}",
        start.elapsed()
    );
}

/// `parallel_iterations` bounds the rows in flight; a huge value asks for no more memory
/// than the default (the blocks stay cache-sized), and gives the same numbers.
#[test]
fn a_huge_parallel_iterations_asks_for_what_is_needed() {
    let n = 2048;
    let x = f64s(&(0..n).map(noise).collect::<Vec<_>>(), &[n]);
    let tape = Tape::new(true, true);
    let y = {
        let _recording = tape.enter().unwrap();
        tape.watch(&x);
        ops::multiply(&x, &x).unwrap()
    };
    let options = JacobianOptions {
        parallel_iterations: Some(usize::MAX),
        ..JacobianOptions::default()
    };
    let big = tape
        .jacobian_with(&y, &[(&x).into()], Unconnected::None, options)
        .unwrap();
    let plain = tape
        .jacobian(&y, &[(&x).into()], Unconnected::None)
        .unwrap();
    let (big, plain) = (big[0].as_ref().unwrap(), plain[0].as_ref().unwrap());
    assert_eq!(big.shape(), &[n, n]);
    assert_eq!(big.to_f64_vec(), plain.to_f64_vec());
}

/// A custom VJP (the engine's stand-in for a Python callback) runs on the thread that asked for
/// the Jacobian, never on a pool thread: it may take a lock that thread holds (re-entrantly)
/// or start a parallel Jacobian of its own without waiting on a busy pool.
#[test]
fn custom_vjps_run_on_the_calling_thread() {
    let x = f64s(&(0..64).map(noise).collect::<Vec<_>>(), &[64]);
    let threads: Arc<Mutex<Vec<std::thread::ThreadId>>> = Arc::default();
    let seen = threads.clone();
    let vjp: Arc<rustape::tape::Vjp> = Arc::new(move |_saved, grads, _batch| {
        seen.lock().unwrap().push(std::thread::current().id());
        // A parallel Jacobian inside the callback: the pool is free to run it.
        let inner = f64s(&[1.0, 2.0, 3.0], &[3]);
        let tape = Tape::new(false, true);
        let y = {
            let _recording = tape.enter().unwrap();
            tape.watch(&inner);
            ops::multiply(&inner, &inner).unwrap()
        };
        drop(tape.jacobian(&y, &[(&inner).into()], Unconnected::None)?);
        let g = grads[0]
            .clone()
            .map(|g| ops::multiply(&g, &Tensor::scalar(2.0)).unwrap());
        Ok(rustape::grads![g])
    });
    let tape = Tape::new(false, true);
    let y = {
        let _recording = tape.enter().unwrap();
        tape.watch(&x);
        let doubled = ops::multiply(&x, &Tensor::scalar(2.0)).unwrap();
        let make = || rustape::tape::ForeignVjp {
            vjp: Box::new({
                let vjp = vjp.clone();
                move |s: &[Tensor], g: &[Option<Tensor>], b: usize| vjp(s, g, b)
            }),
            state: Arc::new(()),
        };
        let out = rustape::tape::record_custom("twice", std::slice::from_ref(&x), &[doubled], make)
            .unwrap();
        ops::multiply(&out[0], &out[0]).unwrap()
    };
    let j = tape
        .jacobian(&y, &[Source::Tensor(x.clone())], Unconnected::None)
        .unwrap();
    assert_eq!(j[0].as_ref().unwrap().shape(), &[64, 64]);
    let me = std::thread::current().id();
    let ran = threads.lock().unwrap();
    assert_eq!(ran.len(), 64);
    assert!(
        ran.iter().all(|&t| t == me),
        "a custom VJP ran on another thread"
    );
}

/// Ops whose output count comes from their input check it (a node packs an output's position
/// in 30 bits; 2^24 outputs used to corrupt gradients).
#[test]
fn output_counts_are_checked() {
    let x = ops::zeros(&[rustape::tape::MAX_OUTPUTS, 0], DType::F32).unwrap();
    assert_eq!(kind(ops::unstack(&x, 0)), ErrorKind::Value);
}

/// The gradient through output 2^24 + 1 of an unstack (more outputs than 24 bits hold) lands
/// on the right element. Slow (2^24 tensors): `cargo test -- --ignored`.
#[test]
#[ignore]
fn gradients_through_more_than_2_24_outputs_are_right() {
    let n = (1usize << 24) + 2;
    let x = ops::zeros(&[n], DType::F32).unwrap();
    let tape = Tape::new(false, true);
    let y = {
        let _recording = tape.enter().unwrap();
        tape.watch(&x);
        let parts = ops::unstack(&x, 0).unwrap();
        let last = ops::multiply(&parts[n - 1], &Tensor::scalar(3.0f32)).unwrap();
        ops::add(&last, &parts[1]).unwrap()
    };
    let g = tape
        .gradient(&[y], &[(&x).into()], None, Unconnected::None)
        .unwrap();
    let g = g[0].as_ref().unwrap().to_f64_vec();
    assert_eq!((g[1], g[n - 1], g[0], g[n - 2]), (1.0, 3.0, 0.0, 0.0));
    assert_eq!(g.iter().sum::<f64>(), 4.0);
}
