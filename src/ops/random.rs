//! Random tensors with TensorFlow's seeding model and TensorFlow's values.
//!
//! Every sampler draws from a Philox4x32-10 generator (`philox.rs`) exactly as TensorFlow
//! 2.21's CPU kernels do, so the same seeds give TensorFlow's numbers bit for bit. Where the
//! generator comes from (`Stream`):
//! - the stateless ops (`stateless_*`): a seed pair scrambled into a key and a counter;
//! - a `Generator`: its state (counter and key), which the caller advances;
//! - the stateful ops (`normal`, `uniform`, ... with an optional op seed), as TensorFlow's
//!   eager mode: the op's kernel seeds are the global seed and the op seed, both taken modulo
//!   `2**31 - 1`; with a global seed and no op seed, the op seed is the next number of
//!   Python's Mersenne Twister seeded with the global seed (TensorFlow's
//!   `internal_operation_seed`, `random.Random(seed).randint(0, 2**31 - 1)`); with an op
//!   seed alone the global seed is 87654321; with neither, entropy. Each kernel (op, dtype,
//!   seeds) keeps a generator that every call advances by 256 outputs per value (TensorFlow's
//!   kernel cache keeps it between calls), and `set_seed` forgets them all.
use std::collections::hash_map::RandomState;
use std::hash::BuildHasher;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{LazyLock, Mutex};

use ndarray::{ArrayD, IxDyn};
use rustc_hash::FxHashMap;

use super::philox::{self, Philox};
use crate::dtype::DType;
use crate::error::{fmt_shape, Error, Result};
use crate::tensor::{Element, Tensor};

/// TensorFlow's default global seed (`DEFAULT_GRAPH_SEED`), used when only an op seed is given.
const DEFAULT_GLOBAL_SEED: u64 = 87_654_321;

/// TensorFlow's seed modulus (`_MAXINT32`, `2**31 - 1`).
const MAXINT32: i64 = (1 << 31) - 1;

struct SeedState {
    global: Option<u64>,
    /// Python's `random.Random(global)`: the op seeds of ops without one.
    ops: Option<Mt19937>,
    /// Outputs reserved so far by each kernel (op kind, dtype, seed, seed2).
    kernels: FxHashMap<(&'static str, DType, u64, u64), u64>,
}

static STATE: LazyLock<Mutex<SeedState>> = LazyLock::new(|| {
    Mutex::new(SeedState {
        global: None,
        ops: None,
        kernels: FxHashMap::default(),
    })
});

fn state() -> std::sync::MutexGuard<'static, SeedState> {
    // The state stays consistent whatever panicked while holding the lock.
    STATE
        .lock()
        .unwrap_or_else(|poisoned| poisoned.into_inner())
}

/// Sets the global seed (`tf.random.set_seed`): from here the same sequence of random calls
/// gives the same values, TensorFlow's. A seed is read as a 64-bit two's complement integer
/// (`u64::MAX` is -1).
pub fn set_seed(seed: u64) {
    let mut s = state();
    s.global = Some(seed);
    s.ops = Some(Mt19937::python_seeded((seed as i64).unsigned_abs()));
    s.kernels.clear();
}

/// Forgets the global seed (`tf.random.set_seed(None)`) and every kernel's stream.
pub fn clear_seed() {
    let mut s = state();
    s.global = None;
    s.ops = None;
    s.kernels.clear();
}

/// The global seed, if one was set.
pub fn global_seed() -> Option<u64> {
    state().global
}

/// Python's `seed % (2**31 - 1)` of a seed read as a signed 64-bit integer.
fn truncate_seed(seed: u64) -> u64 {
    (seed as i64).rem_euclid(MAXINT32) as u64
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

/// The generator of one call of a stateful kernel that reserves `reserve` outputs.
fn stateful_generator(
    kind: &'static str,
    dtype: DType,
    op_seed: Option<u64>,
    reserve: u64,
) -> Philox {
    let mut s = state();
    let seeds = match (s.global, op_seed) {
        (Some(g), Some(o)) => (truncate_seed(g), truncate_seed(o)),
        (Some(g), None) => {
            let o = s.ops.as_mut().map_or(0, Mt19937::randint31);
            (truncate_seed(g), o)
        }
        (None, Some(o)) => (DEFAULT_GLOBAL_SEED, truncate_seed(o)),
        (None, None) => return Philox::from_op_seeds(entropy(), entropy()),
    };
    // (0, 0) means "no seed" to the kernels: TensorFlow passes (0, 2**31 - 1) instead.
    let (seed, seed2) = if seeds == (0, 0) {
        (0, MAXINT32 as u64)
    } else {
        seeds
    };
    let reserved = s.kernels.entry((kind, dtype, seed, seed2)).or_insert(0);
    let gen = Philox::from_op_seeds(seed, seed2).skipped(*reserved);
    *reserved = reserved.wrapping_add(reserve);
    gen
}

/// Where a random op's values come from.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Stream {
    /// TensorFlow's stateful ops: the global seed, the op seed (if any) and the kernel's
    /// calls so far (see the module's notes).
    Seeded(Option<u64>),
    /// The stateless ops (`tf.random.stateless_*`): the seed pair alone, so the same pair
    /// always gives the same values, whatever ran before.
    Stateless([u64; 2]),
    /// A generator given by its key and counter (a `Generator`'s state, TensorFlow's `*V2`
    /// stateless kernels).
    Philox(Philox),
}

impl Stream {
    /// The generator for a kernel `kind` producing `outputs` values; a stateful kernel
    /// reserves `outputs * 256` of its stream.
    pub fn generator(self, kind: &'static str, dtype: DType, outputs: u64) -> Philox {
        match self {
            Stream::Seeded(op_seed) => stateful_generator(
                kind,
                dtype,
                op_seed,
                outputs.wrapping_mul(philox::RESERVED_PER_OUTPUT),
            ),
            Stream::Stateless(seed) => Philox::from_seed_pair(seed),
            Stream::Philox(gen) => gen,
        }
    }
}

/// Python's Mersenne Twister (MT19937 with `init_by_array`, as `random.Random(n)` seeds it
/// from an integer), for TensorFlow's op seeds.
struct Mt19937 {
    mt: Box<[u32; 624]>,
    index: usize,
}

impl Mt19937 {
    fn init_genrand(s: u32) -> Mt19937 {
        let mut mt = Box::new([0u32; 624]);
        mt[0] = s;
        for i in 1..624 {
            mt[i] = 1_812_433_253u32
                .wrapping_mul(mt[i - 1] ^ (mt[i - 1] >> 30))
                .wrapping_add(i as u32);
        }
        Mt19937 { mt, index: 624 }
    }

    /// `random.Random(n)` for a non-negative `n`: seeded by its 32-bit words.
    fn python_seeded(n: u64) -> Mt19937 {
        let key: Vec<u32> = if n >> 32 == 0 {
            vec![n as u32]
        } else {
            vec![n as u32, (n >> 32) as u32]
        };
        let mut g = Mt19937::init_genrand(19_650_218);
        let mt = &mut g.mt;
        let (mut i, mut j) = (1usize, 0usize);
        for _ in 0..624.max(key.len()) {
            mt[i] = (mt[i] ^ (mt[i - 1] ^ (mt[i - 1] >> 30)).wrapping_mul(1_664_525))
                .wrapping_add(key[j])
                .wrapping_add(j as u32);
            i += 1;
            j += 1;
            if i >= 624 {
                mt[0] = mt[623];
                i = 1;
            }
            if j >= key.len() {
                j = 0;
            }
        }
        for _ in 0..623 {
            mt[i] = (mt[i] ^ (mt[i - 1] ^ (mt[i - 1] >> 30)).wrapping_mul(1_566_083_941))
                .wrapping_sub(i as u32);
            i += 1;
            if i >= 624 {
                mt[0] = mt[623];
                i = 1;
            }
        }
        mt[0] = 0x8000_0000;
        g
    }

    fn next_u32(&mut self) -> u32 {
        if self.index >= 624 {
            let mt = &mut self.mt;
            for k in 0..624 {
                let y = (mt[k] & 0x8000_0000) | (mt[(k + 1) % 624] & 0x7FFF_FFFF);
                let mag = if y & 1 == 1 { 0x9908_B0DF } else { 0 };
                mt[k] = mt[(k + 397) % 624] ^ (y >> 1) ^ mag;
            }
            self.index = 0;
        }
        let mut y = self.mt[self.index];
        self.index += 1;
        y ^= y >> 11;
        y ^= (y << 7) & 0x9D2C_5680;
        y ^= (y << 15) & 0xEFC6_0000;
        y ^ (y >> 18)
    }

    /// `randint(0, 2**31 - 1)`: 32-bit draws, redrawn until below `2**31`.
    fn randint31(&mut self) -> u64 {
        loop {
            let r = self.next_u32();
            if r < 1 << 31 {
                return u64::from(r);
            }
        }
    }
}

pub(crate) fn tensor_of<T: Element>(shape: &[usize], values: Vec<T>) -> Tensor {
    match ArrayD::from_shape_vec(IxDyn(shape), values) {
        Ok(a) => Tensor::from_array(a),
        Err(_) => unreachable!("one value per element"),
    }
}

fn float_error(op: &str, dtype: DType) -> Error {
    Error::dtype(
        op,
        format!("expected a floating dtype (float32, float64), got {dtype}"),
    )
}

/// Standard normals (`truncated`: of magnitude below 2, redrawn beyond), scaled as
/// TensorFlow does (`z * stddev + mean` in the dtype).
pub fn normal_from(
    op: &'static str,
    stream: Stream,
    shape: &[usize],
    mean: f64,
    stddev: f64,
    dtype: DType,
    truncated: bool,
) -> Result<Tensor> {
    let n = crate::memory::checked_size(op, shape)?;
    let kind = if truncated {
        "TruncatedNormal"
    } else {
        "RandomStandardNormal"
    };
    Ok(match dtype {
        DType::F32 => {
            let gen = stream.generator(kind, dtype, n as u64);
            let (m, s) = (mean as f32, stddev as f32);
            let mut v = if truncated {
                philox::fill(
                    op,
                    gen,
                    n,
                    philox::variable_stride(4),
                    philox::truncated_f32,
                )?
            } else {
                philox::fill(op, gen, n, 1, philox::normal_f32)?
            };
            v.iter_mut().for_each(|z| *z = *z * s + m);
            tensor_of(shape, v)
        }
        DType::F64 => {
            let gen = stream.generator(kind, dtype, n as u64);
            let mut v = if truncated {
                philox::fill(
                    op,
                    gen,
                    n,
                    philox::variable_stride(2),
                    philox::truncated_f64,
                )?
            } else {
                philox::fill(op, gen, n, 1, philox::normal_f64)?
            };
            v.iter_mut().for_each(|z| *z = *z * stddev + mean);
            tensor_of(shape, v)
        }
        other => return Err(float_error(op, other)),
    })
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
    normal_from(op, Stream::Seeded(seed), shape, mean, stddev, dtype, false)
}

/// Normal values redrawn beyond two standard deviations (`tf.random.truncated_normal`).
pub fn truncated_normal(
    shape: &[usize],
    mean: f64,
    stddev: f64,
    dtype: DType,
    seed: Option<u64>,
) -> Result<Tensor> {
    let op = "random.truncated_normal";
    normal_from(op, Stream::Seeded(seed), shape, mean, stddev, dtype, true)
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
    normal_from(
        op,
        Stream::Stateless(seed),
        shape,
        mean,
        stddev,
        dtype,
        false,
    )
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
    normal_from(
        op,
        Stream::Stateless(seed),
        shape,
        mean,
        stddev,
        dtype,
        true,
    )
}

/// Values uniform in `[minval, maxval)` (`tf.random.uniform`). For int32/int64 the bounds
/// must be integers with `minval < maxval`.
pub fn uniform(
    shape: &[usize],
    minval: f64,
    maxval: f64,
    dtype: DType,
    seed: Option<u64>,
) -> Result<Tensor> {
    let op = "random.uniform";
    uniform_from(op, Stream::Seeded(seed), shape, minval, maxval, dtype)
}

/// `uniform` from a seed pair alone (`tf.random.stateless_uniform`).
pub fn stateless_uniform(
    shape: &[usize],
    minval: f64,
    maxval: f64,
    dtype: DType,
    seed: [u64; 2],
) -> Result<Tensor> {
    let op = "random.stateless_uniform";
    uniform_from(op, Stream::Stateless(seed), shape, minval, maxval, dtype)
}

/// Uniform values from `stream`: floats as TensorFlow scales them (`u * (maxval - minval) +
/// minval` in the dtype; the stateful op skips the sum for `minval` 0 and both for [0, 1)),
/// integers as `minval + word % (maxval - minval)`.
pub fn uniform_from(
    op: &'static str,
    stream: Stream,
    shape: &[usize],
    minval: f64,
    maxval: f64,
    dtype: DType,
) -> Result<Tensor> {
    let n = crate::memory::checked_size(op, shape)?;
    let stateful = matches!(stream, Stream::Seeded(_));
    match dtype {
        DType::F32 => {
            let gen = stream.generator("RandomUniform", dtype, n as u64);
            let mut v = philox::fill(op, gen, n, 1, philox::uniform_f32)?;
            let (lo, hi) = (minval as f32, maxval as f32);
            scale(&mut v, lo, hi, stateful, 0.0, 1.0);
            Ok(tensor_of(shape, v))
        }
        DType::F64 => {
            let gen = stream.generator("RandomUniform", dtype, n as u64);
            let mut v = philox::fill(op, gen, n, 1, philox::uniform_f64)?;
            scale(&mut v, minval, maxval, stateful, 0.0, 1.0);
            Ok(tensor_of(shape, v))
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
            let gen = stream.generator("RandomUniformInt", dtype, n as u64);
            let (lo, hi) = (minval as i64, maxval as i64);
            Ok(if dtype == DType::I32 {
                // A range of 2**32 (rustape's maxval may be 2**31) keeps every word.
                let range = (hi - lo) as u64;
                let lo = lo as i32;
                tensor_of(
                    shape,
                    philox::fill(op, gen, n, 1, |g| {
                        g.block()
                            .map(|w| lo.wrapping_add((u64::from(w) % range) as u32 as i32))
                    })?,
                )
            } else {
                let range = hi.wrapping_sub(lo) as u64;
                tensor_of(
                    shape,
                    philox::fill(op, gen, n, 1, |g| {
                        let w = g.block().map(u64::from);
                        [w[0] | w[1] << 32, w[2] | w[3] << 32]
                            .map(|b| lo.wrapping_add((b % range) as i64))
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

/// TensorFlow's scaling of [0, 1) uniforms to `[lo, hi)`.
fn scale<T: num_traits::Float>(v: &mut [T], lo: T, hi: T, stateful: bool, zero: f64, one: f64) {
    let (zero, one) = (T::from(zero).unwrap_or(lo), T::from(one).unwrap_or(hi));
    if stateful && lo == zero {
        if hi != one {
            v.iter_mut().for_each(|u| *u = *u * hi);
        }
        return;
    }
    let range = hi - lo;
    v.iter_mut().for_each(|u| *u = *u * range + lo);
}

/// Integers over the whole range of int32 or int64 (`tf.random.stateless_uniform` with
/// `minval=maxval=None`, `Generator.uniform_full_int`).
pub fn uniform_full_int_from(
    op: &'static str,
    stream: Stream,
    shape: &[usize],
    dtype: DType,
) -> Result<Tensor> {
    let n = crate::memory::checked_size(op, shape)?;
    match dtype {
        DType::I32 => {
            let gen = stream.generator("RandomUniformFullInt", dtype, n as u64);
            let v = philox::fill(op, gen, n, 1, |g| g.block().map(|w| w as i32))?;
            Ok(tensor_of(shape, v))
        }
        DType::I64 => {
            let gen = stream.generator("RandomUniformFullInt", dtype, n as u64);
            let v = philox::fill(op, gen, n, 1, |g| {
                let w = g.block().map(u64::from);
                [(w[0] | w[1] << 32) as i64, (w[2] | w[3] << 32) as i64]
            })?;
            Ok(tensor_of(shape, v))
        }
        other => Err(Error::dtype(
            op,
            format!("expected an integer dtype (int32, int64), got {other}"),
        )),
    }
}

/// Class indices drawn from each row of `logits` `[batch, classes]` (unnormalised log
/// probabilities) `num_samples` times (`tf.random.categorical`): int32 or int64
/// `[batch, num_samples]`. Classes of infinite logit are never drawn (TensorFlow's rule);
/// a NaN logit or a row with no finite logit is an error. Not differentiable, as in TensorFlow.
pub fn categorical(
    logits: &Tensor,
    num_samples: usize,
    dtype: DType,
    seed: Option<u64>,
) -> Result<Tensor> {
    let op = "random.categorical";
    categorical_from(op, Stream::Seeded(seed), logits, num_samples, dtype)
}

/// `categorical` from a seed pair alone (`tf.random.stateless_categorical`).
pub fn stateless_categorical(
    logits: &Tensor,
    num_samples: usize,
    dtype: DType,
    seed: [u64; 2],
) -> Result<Tensor> {
    let op = "random.stateless_categorical";
    categorical_from(op, Stream::Stateless(seed), logits, num_samples, dtype)
}

/// TensorFlow's multinomial kernel: per row, the running sums of `exp(logit - max)` over the
/// finite logits, and per sample the first class whose sum exceeds a float64 uniform times
/// the total; the uniforms come two words each from one stream, row after row (TensorFlow's
/// kernel runs as one shard when `batch * cost` is small; for larger inputs on several
/// threads its shards start at other offsets, which rustape does not follow).
pub fn categorical_from(
    op: &'static str,
    stream: Stream,
    logits: &Tensor,
    num_samples: usize,
    dtype: DType,
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
    let mut cumulative = crate::memory::try_filled(op, values.len(), 0.0f64)?;
    for (row, (weights, sums)) in values
        .chunks(classes.max(1))
        .zip(cumulative.chunks_mut(classes.max(1)))
        .enumerate()
    {
        let top = weights
            .iter()
            .copied()
            .filter(|w| w.is_finite())
            .fold(f64::NEG_INFINITY, f64::max);
        if !top.is_finite() {
            return Err(Error::value(
                op,
                format!("row {row} of logits has no finite value (every class -inf, +inf or NaN)"),
            ));
        }
        let mut total = 0.0;
        for (w, sum) in weights.iter().zip(sums.iter_mut()) {
            if w.is_nan() {
                // TensorFlow would skip the class; a NaN logit is a bug upstream.
                return Err(Error::value(op, format!("row {row} of logits holds NaN")));
            }
            if w.is_finite() {
                total += (w - top).exp();
            }
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
    // A stateful kernel reserves 2 * ceil4(num_samples) * 256 outputs per row.
    let per_row = (num_samples as u64).div_ceil(4) * 8;
    let gen = stream.generator("Multinomial", dtype, (batch as u64).wrapping_mul(per_row));
    let mut words = philox::Single::new(gen);
    let mut picks: Vec<i64> = crate::memory::try_vec(op, count)?;
    for b in 0..batch {
        let sums = &cumulative[b * classes..][..classes.max(1)];
        let total = sums[sums.len() - 1];
        for _ in 0..num_samples {
            let target = words.double() * total;
            picks.push(sums.partition_point(|&s| s <= target) as i64);
        }
    }
    Ok(match dtype {
        DType::I32 => tensor_of(
            &[batch, num_samples],
            picks.into_iter().map(|k| k as i32).collect(),
        ),
        _ => tensor_of(&[batch, num_samples], picks),
    })
}

/// `value` with its slices along the first axis in a random order (`tf.random.shuffle`): the
/// Fisher–Yates shuffle of TensorFlow's kernel (position `i` swapped with `i + word % (n - i)`,
/// one word each). Not differentiable, as in TensorFlow: the result is never recorded.
pub fn shuffle(value: &Tensor, seed: Option<u64>) -> Result<Tensor> {
    shuffle_from("random.shuffle", Stream::Seeded(seed), value)
}

/// `shuffle` drawing from `stream`.
pub fn shuffle_from(op: &'static str, stream: Stream, value: &Tensor) -> Result<Tensor> {
    if value.ndim() == 0 {
        return Err(Error::shape(
            op,
            "value must have rank at least 1, got a scalar (shape [])",
        ));
    }
    let n = value.shape()[0];
    if value.size() <= 1 || n <= 1 {
        // Nothing to reorder (the first axis may still be huge when another is 0); TensorFlow's
        // kernel reserves nothing then.
        return Ok(Tensor::new(value.data().clone()));
    }
    if n as u64 > u64::from(u32::MAX) {
        return Err(Error::value(
            op,
            format!("the first axis ({n}) must be below 2**32"),
        ));
    }
    // ReserveSamples32(n - 1): ceil((n - 1) / 4) outputs.
    let reserve = (n as u64 - 1).div_ceil(4);
    let gen = match stream {
        Stream::Seeded(op_seed) => {
            stateful_generator("RandomShuffle", value.dtype(), op_seed, reserve)
        }
        other => other.generator("RandomShuffle", value.dtype(), 0),
    };
    let mut words = philox::Single::new(gen);
    let mut order: Vec<i64> = crate::memory::try_vec(op, n)?;
    order.extend(0..n as i64);
    for i in 0..n - 1 {
        let j = i + (words.word() % (n - i) as u32) as usize;
        order.swap(i, j);
    }
    let index = Tensor::from_vec(order, &[n])?;
    let shuffled = crate::tape::without_recording(|| super::gather(value, &index, 0, 0))?;
    // A fresh tensor with no history on any tape.
    Ok(Tensor::new(shuffled.data().clone()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn python_random_matches() {
        // random.Random(42).getrandbits(32) five times, and random.Random(2**40 + 5).
        let mut g = Mt19937::python_seeded(42);
        let v: Vec<u32> = (0..3).map(|_| g.next_u32()).collect();
        assert_eq!(v, [2_746_317_213, 478_163_327, 107_420_369]);
        let mut big = Mt19937::python_seeded((1 << 40) + 5);
        assert_eq!(big.next_u32(), 2_166_296_868);
    }
}
