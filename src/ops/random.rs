//! Random tensors (`normal`, `uniform`) with TensorFlow's seeding model.
//!
//! TensorFlow 2.x derives each random op's stream from two seeds:
//! - global seed set (`set_seed`), op seed given: the pair `(global, op)`;
//! - global seed set, no op seed: the global seed and the next of a sequence of op seeds that
//!   `set_seed` restarts, so after `set_seed(s)` the same calls give the same values;
//! - no global seed, op seed given: a fixed default global seed and the op seed;
//! - neither: fresh entropy, different at every call and in every run.
//!
//! As in TensorFlow's eager mode, an op called again with the same `(global, op)` pair continues
//! its stream rather than repeating it (a counter per pair, which `set_seed` resets), so two
//! calls of `uniform(.., Some(1))` differ while a program rerun after `set_seed` repeats.
//!
//! The generator is xoshiro256++ seeded through SplitMix64. Values are generated in fixed
//! chunks, each with its own stream derived from the op's seed and the chunk's index, so large
//! tensors fill in parallel and still come out the same on any number of threads.
use std::collections::hash_map::RandomState;
use std::hash::BuildHasher;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{LazyLock, Mutex};

use ndarray::{ArrayD, IxDyn};
use rayon::prelude::*;
use rustc_hash::FxHashMap;

use crate::dtype::DType;
use crate::error::{fmt_shape, Error, Result};
use crate::tensor::{Element, Tensor};

/// TensorFlow's default global seed (`DEFAULT_GRAPH_SEED`), used when only an op seed is given.
const DEFAULT_GLOBAL_SEED: u64 = 87_654_321;

/// Elements generated from one stream.
const CHUNK: usize = 4096;

/// Elements above which chunks are generated on rayon's pool.
const PARALLEL_ELEMENTS: usize = 1 << 16;

struct SeedState {
    global: Option<u64>,
    /// Op seeds handed out since the last `set_seed` (ops without an op seed).
    ops_since_seed: u64,
    /// Calls so far of each (op kind, dtype, global seed, op seed): TF's per-kernel counter.
    calls: FxHashMap<(&'static str, DType, u64, u64), u64>,
}

static STATE: LazyLock<Mutex<SeedState>> = LazyLock::new(|| {
    Mutex::new(SeedState {
        global: None,
        ops_since_seed: 0,
        calls: FxHashMap::default(),
    })
});

fn state() -> std::sync::MutexGuard<'static, SeedState> {
    // The state stays consistent whatever panicked while holding the lock.
    STATE
        .lock()
        .unwrap_or_else(|poisoned| poisoned.into_inner())
}

/// Sets the global seed (`tf.random.set_seed`): from here the same sequence of random calls
/// gives the same values.
pub fn set_seed(seed: u64) {
    let mut s = state();
    s.global = Some(seed);
    s.ops_since_seed = 0;
    s.calls.clear();
}

/// The global seed, if one was set.
pub fn global_seed() -> Option<u64> {
    state().global
}

fn splitmix64(state: &mut u64) -> u64 {
    *state = state.wrapping_add(0x9E37_79B9_7F4A_7C15);
    let mut z = *state;
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

/// A well-mixed combination of several words.
fn mix(words: &[u64]) -> u64 {
    let mut h = 0x243F_6A88_85A3_08D3u64;
    for &w in words {
        let mut s = h ^ w;
        h = splitmix64(&mut s);
    }
    h
}

/// Seed material that differs at every call and in every process.
fn entropy() -> u64 {
    static CALLS: AtomicU64 = AtomicU64::new(0);
    let nanos = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_nanos() as u64)
        .unwrap_or(0);
    RandomState::new().hash_one((
        nanos,
        CALLS.fetch_add(1, Ordering::Relaxed),
        std::process::id(),
    ))
}

/// The seed of one call of a random op.
fn call_seed(kind: &'static str, dtype: DType, op_seed: Option<u64>) -> u64 {
    let mut s = state();
    let (global, op) = match (s.global, op_seed) {
        (Some(g), Some(o)) => (g, o),
        (Some(g), None) => {
            let o = mix(&[g, 0x006F_705F_7365_6564, s.ops_since_seed]);
            s.ops_since_seed += 1;
            (g, o)
        }
        (None, Some(o)) => (DEFAULT_GLOBAL_SEED, o),
        (None, None) => return entropy(),
    };
    let calls = s.calls.entry((kind, dtype, global, op)).or_insert(0);
    let n = *calls;
    *calls += 1;
    mix(&[global, op, n])
}

/// Where a random op's values come from.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Stream {
    /// TensorFlow's stateful ops: the global seed, the op seed (if any) and how many times
    /// the pair was used (see the module's notes).
    Seeded(Option<u64>),
    /// The stateless ops (`tf.random.stateless_*`): the seed pair alone, so the same pair
    /// always gives the same values, whatever ran before.
    Stateless([u64; 2]),
}

impl Stream {
    fn seed(self, kind: &'static str, dtype: DType) -> u64 {
        match self {
            Stream::Seeded(op_seed) => call_seed(kind, dtype, op_seed),
            // The kind keeps a normal and a uniform of one pair apart.
            Stream::Stateless([a, b]) => mix(&[0x7374_6174_656C_6573, hash_str(kind), a, b]),
        }
    }
}

fn hash_str(text: &str) -> u64 {
    mix(&text.bytes().map(u64::from).collect::<Vec<_>>())
}

/// xoshiro256++ (Blackman and Vigna).
struct Xoshiro256pp([u64; 4]);

impl Xoshiro256pp {
    fn new(seed: u64) -> Xoshiro256pp {
        let mut sm = seed;
        Xoshiro256pp([
            splitmix64(&mut sm),
            splitmix64(&mut sm),
            splitmix64(&mut sm),
            splitmix64(&mut sm),
        ])
    }
    fn next_u64(&mut self) -> u64 {
        let s = &mut self.0;
        let result = s[0].wrapping_add(s[3]).rotate_left(23).wrapping_add(s[0]);
        let t = s[1] << 17;
        s[2] ^= s[0];
        s[3] ^= s[1];
        s[1] ^= s[2];
        s[0] ^= s[3];
        s[2] ^= t;
        s[3] = s[3].rotate_left(45);
        result
    }
    /// Uniform in [0, 1) with 53 random bits.
    fn next_f64(&mut self) -> f64 {
        (self.next_u64() >> 11) as f64 * (1.0 / (1u64 << 53) as f64)
    }
}

/// `n` values, chunk `c` drawn from its own generator seeded by `(seed, c)` with `fill`.
fn generate<T: Element>(
    op: &str,
    seed: u64,
    n: usize,
    fill: impl Fn(&mut Xoshiro256pp, &mut [T]) + Sync,
) -> Result<Vec<T>> {
    let mut out = crate::memory::try_filled(op, n, T::default())?;
    let run = |(c, chunk): (usize, &mut [T])| {
        let mut rng = Xoshiro256pp::new(mix(&[seed, c as u64]));
        fill(&mut rng, chunk);
    };
    if n >= PARALLEL_ELEMENTS && super::kernel::may_split() {
        out.par_chunks_mut(CHUNK).enumerate().for_each(run);
    } else {
        out.chunks_mut(CHUNK).enumerate().for_each(run);
    }
    Ok(out)
}

fn tensor_of<T: Element>(shape: &[usize], values: Vec<T>) -> Tensor {
    match ArrayD::from_shape_vec(IxDyn(shape), values) {
        Ok(a) => Tensor::from_array(a),
        Err(_) => unreachable!("one value per element"),
    }
}

/// Standard normals by Box-Muller, two per pair of uniforms.
fn fill_normal<T: Element>(rng: &mut Xoshiro256pp, out: &mut [T], mean: f64, stddev: f64) {
    for pair in out.chunks_mut(2) {
        let u1 = 1.0 - rng.next_f64(); // (0, 1]: the log is finite
        let u2 = rng.next_f64();
        let r = (-2.0 * u1.ln()).sqrt();
        let theta = std::f64::consts::TAU * u2;
        pair[0] = T::from_f64(mean + stddev * r * theta.cos());
        if pair.len() > 1 {
            pair[1] = T::from_f64(mean + stddev * r * theta.sin());
        }
    }
}

/// Standard normals redrawn until within two standard deviations (TensorFlow's truncation),
/// then scaled.
fn fill_truncated_normal<T: Element>(
    rng: &mut Xoshiro256pp,
    out: &mut [T],
    mean: f64,
    stddev: f64,
) {
    let mut pending = [0.0f64; 2];
    let mut held = 0;
    for v in out {
        let z = loop {
            if held == 0 {
                let u1 = 1.0 - rng.next_f64();
                let u2 = rng.next_f64();
                let r = (-2.0 * u1.ln()).sqrt();
                let theta = std::f64::consts::TAU * u2;
                pending = [r * theta.cos(), r * theta.sin()];
                held = 2;
            }
            held -= 1;
            if pending[held].abs() <= 2.0 {
                break pending[held];
            }
        };
        *v = T::from_f64(mean + stddev * z);
    }
}

/// Truncated normal values (within two standard deviations of `mean`) from a seed pair alone
/// (`tf.random.stateless_truncated_normal`).
pub fn stateless_truncated_normal(
    shape: &[usize],
    mean: f64,
    stddev: f64,
    dtype: DType,
    seed: [u64; 2],
) -> Result<Tensor> {
    let op = "random.stateless_truncated_normal";
    normal_in(
        op,
        shape,
        mean,
        stddev,
        dtype,
        Stream::Stateless(seed),
        true,
    )
}

/// Values from a normal distribution (`tf.random.normal`): float32 or float64.
pub fn normal(
    shape: &[usize],
    mean: f64,
    stddev: f64,
    dtype: DType,
    seed: Option<u64>,
) -> Result<Tensor> {
    let op = "random.normal";
    normal_in(op, shape, mean, stddev, dtype, Stream::Seeded(seed), false)
}

/// `normal` from a seed pair alone (`tf.random.stateless_normal`): the same pair gives the
/// same values.
pub fn stateless_normal(
    shape: &[usize],
    mean: f64,
    stddev: f64,
    dtype: DType,
    seed: [u64; 2],
) -> Result<Tensor> {
    let op = "random.stateless_normal";
    normal_in(
        op,
        shape,
        mean,
        stddev,
        dtype,
        Stream::Stateless(seed),
        false,
    )
}

/// Normal values (redrawn beyond two standard deviations with `truncated`) from `stream`.
fn normal_in(
    op: &'static str,
    shape: &[usize],
    mean: f64,
    stddev: f64,
    dtype: DType,
    stream: Stream,
    truncated: bool,
) -> Result<Tensor> {
    let n = crate::memory::checked_size(op, shape)?;
    fn fill<T: Element>(
        truncated: bool,
        mean: f64,
        stddev: f64,
    ) -> impl Fn(&mut Xoshiro256pp, &mut [T]) + Sync {
        move |rng, chunk| {
            if truncated {
                fill_truncated_normal(rng, chunk, mean, stddev)
            } else {
                fill_normal(rng, chunk, mean, stddev)
            }
        }
    }
    Ok(match dtype {
        DType::F32 => tensor_of(
            shape,
            generate::<f32>(op, stream.seed(op, dtype), n, fill(truncated, mean, stddev))?,
        ),
        DType::F64 => tensor_of(
            shape,
            generate::<f64>(op, stream.seed(op, dtype), n, fill(truncated, mean, stddev))?,
        ),
        other => {
            return Err(Error::dtype(
                op,
                format!("expected a floating dtype (float32, float64), got {other}"),
            ));
        }
    })
}

/// Values uniform in `[minval, maxval)` (`tf.random.uniform`). For int32/int64 the bounds
/// must be integers with `minval < maxval`; every integer in range is equally likely.
pub fn uniform(
    shape: &[usize],
    minval: f64,
    maxval: f64,
    dtype: DType,
    seed: Option<u64>,
) -> Result<Tensor> {
    uniform_in(
        "random.uniform",
        shape,
        minval,
        maxval,
        dtype,
        Stream::Seeded(seed),
    )
}

/// `uniform` from a seed pair alone (`tf.random.stateless_uniform`).
pub fn stateless_uniform(
    shape: &[usize],
    minval: f64,
    maxval: f64,
    dtype: DType,
    seed: [u64; 2],
) -> Result<Tensor> {
    uniform_in(
        "random.stateless_uniform",
        shape,
        minval,
        maxval,
        dtype,
        Stream::Stateless(seed),
    )
}

fn uniform_in(
    op: &'static str,
    shape: &[usize],
    minval: f64,
    maxval: f64,
    dtype: DType,
    stream: Stream,
) -> Result<Tensor> {
    let n = crate::memory::checked_size(op, shape)?;
    match dtype {
        DType::F32 => {
            let s = stream.seed(op, dtype);
            let (lo, hi) = (minval as f32, maxval as f32);
            let values = generate::<f32>(op, s, n, |rng, chunk| {
                for v in chunk {
                    let u = (rng.next_u64() >> 40) as f32 * (1.0 / (1u32 << 24) as f32);
                    let x = lo + u * (hi - lo);
                    // Rounding can reach maxval itself; the interval is half-open.
                    *v = if x >= hi && hi > lo {
                        below_f32(hi).max(lo)
                    } else {
                        x
                    };
                }
            })?;
            Ok(tensor_of(shape, values))
        }
        DType::F64 => {
            let s = stream.seed(op, dtype);
            let values = generate::<f64>(op, s, n, |rng, chunk| {
                for v in chunk {
                    let x = minval + rng.next_f64() * (maxval - minval);
                    *v = if x >= maxval && maxval > minval {
                        below_f64(maxval).max(minval)
                    } else {
                        x
                    };
                }
            })?;
            Ok(tensor_of(shape, values))
        }
        DType::I32 | DType::I64 => {
            let (lo_limit, hi_limit) = if dtype == DType::I32 {
                (i32::MIN as f64, i32::MAX as f64 + 1.0)
            } else {
                (i64::MIN as f64, i64::MAX as f64)
            };
            let integral =
                |v: f64| v.is_finite() && v.fract() == 0.0 && v >= lo_limit && v <= hi_limit;
            if !integral(minval) || !integral(maxval) || minval >= maxval {
                return Err(Error::value(
                    op,
                    format!(
                        "for {dtype} values of shape {} the bounds must be integers with minval < maxval \
                         within the dtype's range, got minval={minval} and maxval={maxval}",
                        fmt_shape(shape)
                    ),
                ));
            }
            let s = stream.seed(op, dtype);
            let (lo, hi) = (minval as i64, maxval as i64);
            let range = (hi as i128 - lo as i128) as u128;
            let draw = move |rng: &mut Xoshiro256pp| -> i64 {
                // Multiply-shift (Lemire): bias below 2^-64 * range.
                (lo as i128 + ((rng.next_u64() as u128 * range) >> 64) as i128) as i64
            };
            Ok(if dtype == DType::I32 {
                tensor_of(
                    shape,
                    generate::<i32>(op, s, n, |rng, chunk| {
                        chunk.iter_mut().for_each(|v| *v = draw(rng) as i32)
                    })?,
                )
            } else {
                tensor_of(
                    shape,
                    generate::<i64>(op, s, n, |rng, chunk| {
                        chunk.iter_mut().for_each(|v| *v = draw(rng))
                    })?,
                )
            })
        }
        DType::Bool | DType::Complex64 | DType::Complex128 | DType::String => Err(Error::dtype(
            op,
            format!("expected a real numeric dtype (float32, float64, int32, int64), got {dtype}"),
        )),
    }
}

/// The largest f64 below finite `x`.
fn below_f64(x: f64) -> f64 {
    if x == 0.0 {
        -f64::from_bits(1)
    } else if x > 0.0 {
        f64::from_bits(x.to_bits() - 1)
    } else {
        f64::from_bits(x.to_bits() + 1)
    }
}

/// The largest f32 below finite `x`.
fn below_f32(x: f32) -> f32 {
    if x == 0.0 {
        -f32::from_bits(1)
    } else if x > 0.0 {
        f32::from_bits(x.to_bits() - 1)
    } else {
        f32::from_bits(x.to_bits() + 1)
    }
}

/// Class indices drawn from each row of `logits` `[batch, classes]` (unnormalised log
/// probabilities) `num_samples` times (`tf.random.categorical`): int32 or int64
/// `[batch, num_samples]`. A class of logit -inf is never drawn; a row with no finite logit
/// is an error. Not differentiable, as in TensorFlow.
pub fn categorical(
    logits: &Tensor,
    num_samples: usize,
    dtype: DType,
    seed: Option<u64>,
) -> Result<Tensor> {
    categorical_in(
        "random.categorical",
        logits,
        num_samples,
        dtype,
        Stream::Seeded(seed),
    )
}

/// `categorical` from a seed pair alone (`tf.random.stateless_categorical`).
pub fn stateless_categorical(
    logits: &Tensor,
    num_samples: usize,
    dtype: DType,
    seed: [u64; 2],
) -> Result<Tensor> {
    categorical_in(
        "random.stateless_categorical",
        logits,
        num_samples,
        dtype,
        Stream::Stateless(seed),
    )
}

fn categorical_in(
    op: &'static str,
    logits: &Tensor,
    num_samples: usize,
    dtype: DType,
    stream: Stream,
) -> Result<Tensor> {
    if logits.ndim() != 2 || !logits.dtype().is_float() {
        return Err(Error::shape(
            op,
            format!(
                "logits must be a float matrix [batch, classes], got {} of shape {}",
                logits.dtype(),
                fmt_shape(logits.shape())
            ),
        ));
    }
    if !matches!(dtype, DType::I32 | DType::I64) {
        return Err(Error::dtype(
            op,
            format!("expected an integer output dtype (int32, int64), got {dtype}"),
        ));
    }
    let (batch, classes) = (logits.shape()[0], logits.shape()[1]);
    let values = logits.to_f64_vec();
    // Each row's cumulative weights exp(logit - max): a draw u * total finds its class.
    let mut cumulative = crate::memory::try_filled(op, values.len(), 0.0f64)?;
    for (row, (weights, sums)) in values
        .chunks(classes.max(1))
        .zip(cumulative.chunks_mut(classes.max(1)))
        .enumerate()
    {
        let top = weights.iter().copied().fold(f64::NEG_INFINITY, f64::max);
        if !top.is_finite() {
            return Err(Error::value(
                op,
                format!("row {row} of logits has no finite value (every class -inf, +inf or NaN)"),
            ));
        }
        let mut total = 0.0;
        for (w, sum) in weights.iter().zip(sums.iter_mut()) {
            if w.is_nan() {
                return Err(Error::value(op, format!("row {row} of logits holds NaN")));
            }
            total += (w - top).exp();
            *sum = total;
        }
    }
    let count = crate::memory::checked_size(op, &[batch, num_samples])?;
    if classes == 0 && count > 0 {
        return Err(Error::shape(
            op,
            "logits have no classes to draw from (shape [batch, 0])",
        ));
    }
    let draws = generate::<f64>(op, stream.seed(op, dtype), count, |rng, chunk| {
        chunk.iter_mut().for_each(|v| *v = rng.next_f64())
    })?;
    let pick = |k: usize| -> i64 {
        let sums = &cumulative[(k / num_samples) * classes..][..classes];
        let total = sums[classes - 1];
        // Strictly below the total, so rounding never lands past the last drawable class.
        let target = (draws[k] * total).min(below_f64(total));
        // The first class whose cumulative weight exceeds the target (never one of weight 0).
        sums.partition_point(|&s| s <= target).min(classes - 1) as i64
    };
    Ok(match dtype {
        DType::I32 => tensor_of(
            &[batch, num_samples],
            (0..count).map(|k| pick(k) as i32).collect(),
        ),
        _ => tensor_of(&[batch, num_samples], (0..count).map(pick).collect()),
    })
}

/// `value` with its slices along the first axis in a random order (`tf.random.shuffle`),
/// seeded like the other random ops (Fisher–Yates over one stream). Not differentiable, as in
/// TensorFlow: the result is never recorded.
pub fn shuffle(value: &Tensor, seed: Option<u64>) -> Result<Tensor> {
    let op = "random.shuffle";
    if value.ndim() == 0 {
        return Err(Error::shape(
            op,
            "value must have rank at least 1, got a scalar (shape [])",
        ));
    }
    let n = value.shape()[0];
    let mut rng = Xoshiro256pp::new(call_seed(op, value.dtype(), seed));
    if value.size() == 0 {
        // Nothing to reorder (the first axis may still be huge when another is 0).
        return Ok(Tensor::new(value.data().clone()));
    }
    let mut order: Vec<i64> = crate::memory::try_vec(op, n)?;
    order.extend(0..n as i64);
    for i in (1..n).rev() {
        // An index in [0, i], without modulo bias worth speaking of at these sizes.
        let j = ((rng.next_u64() as u128 * (i as u128 + 1)) >> 64) as usize;
        order.swap(i, j);
    }
    let index = Tensor::from_vec(order, &[n])?;
    let shuffled = crate::tape::without_recording(|| super::gather(value, &index, 0, 0))?;
    // A fresh tensor with no history on any tape.
    Ok(Tensor::new(shuffled.data().clone()))
}
