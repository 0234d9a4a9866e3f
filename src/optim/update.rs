//! The fused pass over one variable: gradient clipping, weight decay and the algorithm's update
//! for each element in a single sweep (blocks of [`BLOCK`] elements stay in L1 between the three),
//! in place on the variable's and slots' buffers, split across threads for large variables.
use std::any::Any;
use std::sync::{Mutex, RwLockWriteGuard};

use smallvec::SmallVec;

use super::rules::Prepared;
use crate::dtype::Float;
use crate::ops::kernel::{worth_splitting, PAR_MATH};
use crate::ops::parallel::for_each_task;
use crate::tensor::{Data, Element, Tensor, Values};

/// Elements per block: the clipped gradient of a block lives on the stack.
const BLOCK: usize = 256;
/// Elements per task (a multiple of [`BLOCK`]).
const CHUNK: usize = 1 << 15;

/// What happens to each gradient element before the update (Keras's `_clip_gradients`).
#[derive(Clone, Copy, Debug)]
pub(crate) enum Prep<T> {
    /// The gradient as is.
    Plain,
    /// `clip_by_value(g, lo, hi)`.
    Clip { lo: T, hi: T },
    /// `tf.clip_by_norm`: `g * clip / max(norm, clip)`.
    Norm { clip: T, denom: T },
    /// Global-norm clipping: `g * scale`.
    Scale(T),
}

impl<T: Float> Prep<T> {
    /// Writes the prepared `g` into `out` (at least as long).
    pub(crate) fn apply(&self, g: &[T], out: &mut [T]) {
        let out = &mut out[..g.len()];
        match *self {
            Prep::Plain => out.copy_from_slice(g),
            Prep::Clip { lo, hi } => {
                for (o, &x) in out.iter_mut().zip(g) {
                    // minimum first, then maximum, as tf.clip_by_value.
                    let t = if hi < x { hi } else { x };
                    *o = if t < lo { lo } else { t };
                }
            }
            Prep::Norm { clip, denom } => {
                for (o, &x) in out.iter_mut().zip(g) {
                    *o = x * clip / denom;
                }
            }
            Prep::Scale(scale) => {
                for (o, &x) in out.iter_mut().zip(g) {
                    *o = x * scale;
                }
            }
        }
    }
}

/// `sum(g * g)` in `g`'s dtype, eight lanes at a time.
pub(crate) fn sum_of_squares<T: Float>(g: &[T]) -> T {
    let mut lanes = [T::zero(); 8];
    let mut chunks = g.chunks_exact(8);
    for c in &mut chunks {
        for (l, &x) in lanes.iter_mut().zip(c) {
            *l = *l + x * x;
        }
    }
    let mut tail = T::zero();
    for &x in chunks.remainder() {
        tail = tail + x * x;
    }
    let [a, b, c, d, e, f, g, h] = lanes;
    ((a + b) + (c + d)) + ((e + f) + (g + h)) + tail
}

/// One run of elements: blocks of gradient preparation, weight decay and update.
fn run_chunk<T: Float>(
    rule: &Prepared<T>,
    prep: &Prep<T>,
    decay: Option<(T, T)>,
    w: &mut [T],
    g: &[T],
    slots: &mut [&mut [T]],
) {
    let mut buf = [T::zero(); BLOCK];
    let n = w.len();
    let mut start = 0;
    while start < n {
        let end = (start + BLOCK).min(n);
        let gb = match prep {
            Prep::Plain => &g[start..end],
            _ => {
                prep.apply(&g[start..end], &mut buf);
                &buf[..end - start]
            }
        };
        let wb = &mut w[start..end];
        if let Some((wd, lr)) = decay {
            // Keras: `variable.assign_sub(variable * wd * lr)`.
            for x in wb.iter_mut() {
                *x = *x - *x * wd * lr;
            }
        }
        let mut sb: SmallVec<[&mut [T]; 3]> =
            slots.iter_mut().map(|s| &mut s[start..end]).collect();
        rule.run(wb, gb, &mut sb);
        start = end;
    }
}

/// Updates `w` and its slots from `g` (all of one length), in parallel chunks when large.
pub(crate) fn update<T: Float>(
    rule: &Prepared<T>,
    prep: &Prep<T>,
    decay: Option<(T, T)>,
    w: &mut [T],
    g: &[T],
    slots: &mut [&mut [T]],
) {
    let n = w.len();
    if !worth_splitting(n, PAR_MATH) {
        run_chunk(rule, prep, decay, w, g, slots);
        return;
    }
    let mut slot_chunks: SmallVec<[std::slice::ChunksMut<'_, T>; 3]> =
        slots.iter_mut().map(|s| s.chunks_mut(CHUNK)).collect();
    let mut jobs = Vec::with_capacity(n.div_ceil(CHUNK));
    // Chunks on the calling thread and the kernel helpers (no thread sleeps waiting for them).
    for (wc, gc) in w.chunks_mut(CHUNK).zip(g.chunks(CHUNK)) {
        let sc: SmallVec<[&mut [T]; 3]> = slot_chunks
            .iter_mut()
            .filter_map(|chunks| chunks.next())
            .collect();
        jobs.push(Mutex::new((wc, gc, sc)));
    }
    for_each_task(jobs.len(), &|i| {
        let mut job = jobs[i].lock().unwrap_or_else(|e| e.into_inner());
        let (wc, gc, sc) = &mut *job;
        run_chunk(rule, prep, decay, wc, gc, sc)
    });
}

/// The typed elements of `data`, if it holds `T`.
fn values_mut<T: Element>(data: &mut Data) -> Option<&mut Values<T>> {
    let any: &mut dyn Any = match data {
        Data::F32(v) => v,
        Data::F64(v) => v,
        Data::I32(v) => v,
        Data::I64(v) => v,
        Data::Bool(v) => v,
        Data::C64(v) => v,
        Data::C128(v) => v,
        Data::Str(v) => v,
    };
    any.downcast_mut()
}

/// Runs `f` on the elements of the tensors behind `guards` (each a variable's value), in place
/// when nothing else holds them and on a copy otherwise; each then holds its result under a
/// fresh id. `None` (and nothing changed) if one of them does not hold `T`.
pub(crate) fn with_elements<T: Element + Float, R>(
    guards: &mut [RwLockWriteGuard<'_, Tensor>],
    f: impl FnOnce(&mut [&mut [T]]) -> R,
) -> Option<R> {
    if guards.iter().any(|g| g.dtype() != T::DTYPE) {
        return None;
    }
    for g in guards.iter_mut() {
        if g.data_mut().is_none() {
            // Another handle shares the tensor: work on a tensor of our own (its buffer is
            // still shared, so `make_mut` below copies it).
            **g = g.alias();
        }
    }
    let count = guards.len();
    let result = {
        let mut slices: SmallVec<[&mut [T]; 4]> = guards
            .iter_mut()
            .filter_map(|g| g.data_mut().and_then(values_mut::<T>).map(Values::make_mut))
            .collect();
        if slices.len() != count {
            return None;
        }
        f(&mut slices)
    };
    for g in guards.iter_mut() {
        **g = g.alias();
    }
    Some(result)
}
