//! Running the rows of a Jacobian. Row `r` is a VJP seeded with a basis cotangent (ones at the
//! flat target positions `hot(r)`), over one read-only plan. Rows run in blocks, the same
//! numbers whichever way:
//! - vectorised: a block of rows in one sweep, the seeds stacked on a new leading axis (every
//!   op on the path must take batched cotangents: `Step::batchable`);
//! - row by row: one sweep per row;
//!
//! and the blocks run on the calling thread and the kernel helper threads
//! (`ops::parallel::for_each_task`), or one after another on this thread (sequential, or when
//! a tape records on this thread: rows on other threads would not be recorded).
//!
//! Each block writes its rows straight into the result, already in its final layout (the row
//! axis after the batch axis for `batch_jacobian`): no stacking, no transposition, and only the
//! blocks in flight hold temporaries. When a tape records, the rows are joined with rustape's
//! own ops instead, so that the Jacobian itself is recorded.
//!
//! Memory follows what is needed: no row runs (and no buffer exists) for a source no path
//! reaches, `parallel_iterations` only ever lowers the block size, and the result buffers are
//! reserved fallibly (a MemoryError, not an abort). The blocks run in waves of about
//! [`crate::interrupt::POLL_INTERVAL`], and between waves the calling thread polls the
//! interrupt check (Ctrl-C from Python). A path with a VJP that calls back into the caller's
//! code (`Node::caller_thread`: a Python custom gradient) runs on the calling thread only.
use std::mem::MaybeUninit;
use std::time::Instant;

use ndarray::{ArrayD, ArrayViewMutD, Axis, IxDyn};
use num_complex::Complex;
use rustc_hash::FxHashSet;

use super::backward::{sweep, Plan};
use super::Source;
use crate::dtype::DType;
use crate::error::{fmt_shape, Error, Result};
use crate::interrupt::{Poller, POLL_INTERVAL};
use crate::memory::{checked_size, try_filled, try_vec};
use crate::ops;
use crate::progress::Report;
use crate::tensor::{Data, Tensor, TensorId};

/// How the rows of a Jacobian are run. The numbers are the same whichever runs.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum JacobianStrategy {
    /// Vectorised blocks on the worker threads when every op on the path supports it, else rows
    /// on the worker threads (the calling thread is one of them).
    Auto,
    /// Vectorised only: a ValueError naming the op when one on the path cannot take batched
    /// cotangents (to find what keeps `Auto` off the fast path).
    Vectorized,
    /// Independent row sweeps on the worker threads.
    ParallelRows,
    /// One row after another on this thread.
    Sequential,
    /// One sweep for all rows of a target `[b]` whose row `i` depends only on batch row `i`
    /// (per-example gradients; see `Tape::jacobian`), or a ValueError naming what prevents it.
    /// `Auto` takes this path whenever it can.
    PerExample,
}

/// How to run a Jacobian's rows.
#[derive(Clone, Copy, Debug)]
pub struct JacobianOptions {
    /// At most this many rows at once (TensorFlow's meaning: it bounds memory): the rows of all
    /// the vectorised blocks, or the single rows, in flight on the worker threads. `None`: blocks
    /// sized to stay in cache, one in flight per thread.
    pub parallel_iterations: Option<usize>,
    /// Vectorised, parallel or sequential rows (the numbers are the same).
    pub strategy: JacobianStrategy,
}

impl Default for JacobianOptions {
    fn default() -> JacobianOptions {
        JacobianOptions {
            parallel_iterations: None,
            strategy: JacobianStrategy::Auto,
        }
    }
}

impl JacobianOptions {
    /// TensorFlow's arguments: `experimental_use_pfor=False` asks for the sequential loop.
    pub fn from_tf(
        parallel_iterations: Option<usize>,
        experimental_use_pfor: bool,
    ) -> JacobianOptions {
        let strategy = if experimental_use_pfor {
            JacobianStrategy::Auto
        } else {
            JacobianStrategy::Sequential
        };
        JacobianOptions {
            parallel_iterations,
            strategy,
        }
    }
}

/// Elements the widest cotangent of one vectorised block may hold by default: 64Ki, 256 KiB of
/// float32, a quarter of a core's L2, so a block's few live temporaries stay in cache and its
/// allocations are reused rather than mapped afresh. W4 (65,536-element rows) runs one row per
/// block: at 128Ki (two rows) it was 2-3% faster, but a fresh process's first call grew peak RSS
/// by 1.8-2.1x the result and tape instead of ~1.5x (the allocator keeps each size's freed pages).
const BLOCK_ELEMENTS: usize = 1 << 16;

/// Elements the widest cotangent of one vectorised block may hold while a tape records: every
/// op of a block is recorded and later differentiated, so a Jacobian of a few rows (the
/// Laplacian of a PINN: 2) runs as one block rather than one per row.
const RECORDED_BLOCK_ELEMENTS: usize = 1 << 22;

/// How the rows run: `size` rows per sweep (on a leading axis when `vectorised`), at most
/// `in_flight` sweeps at once on rayon's threads (1: one after another on this thread).
#[derive(Clone, Copy, Debug)]
struct Blocks {
    size: usize,
    vectorised: bool,
    in_flight: usize,
}

/// Computes `rows` rows; for each source, its row gradients in one tensor of shape
/// `source.shape` with a row axis of length `rows` inserted at `row_axis` (0: `[rows,
/// source..]`; 1, for `batch_jacobian`: `[b, rows, x..]`), or `None` when no row reached it.
pub(crate) fn run(
    plan: &Plan,
    target: &Tensor,
    sources: &[Source],
    rows: usize,
    hot: &(dyn Fn(usize) -> Vec<usize> + Sync),
    row_axis: usize,
    options: JacobianOptions,
) -> Result<Vec<Option<Tensor>>> {
    use JacobianStrategy::*;
    if rows == 0 {
        // An empty target: every path gives the same empty Jacobian.
        let empty = |s: &Source| Some(Tensor::zeros(&out_shape(s, 0, row_axis), s.dtype()));
        return Ok(sources.iter().map(empty).collect());
    }
    let ids: Vec<TensorId> = sources.iter().map(Source::id).collect();
    let reached = plan.reaches(target.id(), &ids);
    if !reached.contains(&true) {
        // No row would reach any source: nothing to run.
        return Ok(vec![None; sources.len()]);
    }
    // The result's size is known now: one too large to exist fails before any row runs (a
    // Jacobian of a 5M-element tensor with respect to itself would otherwise run 5M rows first).
    for (source, _) in sources.iter().zip(&reached).filter(|(_, &r)| r) {
        crate::memory::ensure_shape(
            "GradientTape.jacobian",
            &out_shape(source, rows, row_axis),
            source.dtype(),
        )?;
    }
    let unbatchable = plan.steps().find(|s| !s.batchable()).map(|s| s.op);
    if let (Vectorized, Some(op)) = (options.strategy, unbatchable) {
        return Err(Error::value(
            "GradientTape.jacobian",
            format!("cannot vectorise: the op '{op}' on the path takes no batched cotangents (use the default strategy)"),
        ));
    }
    // Rows on other threads would not be recorded by a tape recording on this one, and a VJP
    // that calls back into the caller's code runs on the caller's thread.
    let recording = crate::tape::any_tape_recording();
    let on_caller = plan.steps().any(|s| s.caller_thread());
    let threads = if recording || on_caller || options.strategy == Sequential {
        1
    } else {
        ops::parallel_threads().max(1)
    };
    let limit = options.parallel_iterations.map(|p| p.max(1));
    let single = Blocks {
        size: 1,
        vectorised: false,
        in_flight: limit.unwrap_or(threads).min(threads),
    };
    let blocks = match options.strategy {
        Sequential | ParallelRows | PerExample => single,
        Auto if unbatchable.is_some() || rows == 1 => single,
        Auto | Vectorized => {
            let width = row_width(plan, target, sources);
            // Blocks that fit the cache, and at least one per thread.
            let fits = (BLOCK_ELEMENTS / width).clamp(1, rows.div_ceil(threads));
            let (size, in_flight) = match limit {
                // Under a recording tape every op of a block is recorded, and differentiated
                // again later: few large blocks (the tape keeps what they save either way).
                None if recording => ((RECORDED_BLOCK_ELEMENTS / width).max(1), 1),
                // At most `p` rows at once: `p / threads` on each thread, never more than
                // fit (a large `p` bounds memory; it does not ask for more).
                Some(p) => ((p / threads.min(p)).min(fits), threads.min(p)),
                None => (fits, threads),
            };
            Blocks {
                size: size.clamp(1, rows),
                vectorised: true,
                in_flight,
            }
        }
    };
    // Rows done, for a progress bar the caller may have asked for (crate::progress).
    let report = Report::start(rows);
    if recording {
        joined_by_ops(plan, target, sources, rows, hot, row_axis, blocks, &report)
    } else {
        written_in_place(
            plan, target, sources, &reached, rows, hot, row_axis, blocks, threads, &report,
        )
    }
}

/// `source.shape` with a row axis of length `rows` at `row_axis`.
fn out_shape(source: &Source, rows: usize, row_axis: usize) -> Vec<usize> {
    let mut shape = source.shape();
    shape.insert(row_axis, rows);
    shape
}

/// Elements of the widest cotangent one row carries through the sweep: the target, the
/// sources, and the forward values on the path that a VJP saved (cotangents have their shapes).
fn row_width(plan: &Plan, target: &Tensor, sources: &[Source]) -> usize {
    let connected = plan.connected_ids();
    let saved = plan
        .steps()
        .flat_map(|s| s.saved.clone())
        .filter(|t| connected.contains(&t.id()))
        .map(|t| t.size());
    let sources = sources.iter().map(|s| s.shape().iter().product());
    saved
        .chain(sources)
        .chain([target.size(), 1])
        .max()
        .unwrap_or(1)
}

fn keep_of(sources: &[Source]) -> FxHashSet<TensorId> {
    sources.iter().map(Source::id).collect()
}

/// One block's sweep: per source, its gradient (`[len, source..]` when vectorised, else the
/// source's shape), or `None` when the rows did not reach it.
fn sweep_block(
    plan: &Plan,
    target: &Tensor,
    sources: &[Source],
    keep: &FxHashSet<TensorId>,
    rows: std::ops::Range<usize>,
    hot: &(dyn Fn(usize) -> Vec<usize> + Sync),
    vectorised: bool,
) -> Result<Vec<Option<Tensor>>> {
    let seed = seed_block(target, rows, hot, vectorised)?;
    let batch = usize::from(vectorised);
    let seeds = vec![(target.id(), seed)];
    let mut grads = sweep(plan, seeds, keep, batch)?;
    Ok(sources.iter().map(|s| grads.remove(&s.id())).collect())
}

/// The result buffer of one source, one block's slice of it at a time.
enum Sink<'a> {
    F32(ArrayViewMutD<'a, MaybeUninit<f32>>),
    F64(ArrayViewMutD<'a, MaybeUninit<f64>>),
    C64(ArrayViewMutD<'a, MaybeUninit<Complex<f32>>>),
    C128(ArrayViewMutD<'a, MaybeUninit<Complex<f64>>>),
}

impl Sink<'_> {
    /// Zeros in the block's slice (its rows did not reach the source).
    fn zero(&mut self) {
        match self {
            Sink::F32(d) => d.fill(MaybeUninit::new(0.0)),
            Sink::F64(d) => d.fill(MaybeUninit::new(0.0)),
            Sink::C64(d) => d.fill(MaybeUninit::new(Complex::new(0.0, 0.0))),
            Sink::C128(d) => d.fill(MaybeUninit::new(Complex::new(0.0, 0.0))),
        }
    }
}

/// A block of a Jacobian: its first row and its slice of each source's result.
type Job<'a> = (usize, Vec<Option<Sink<'a>>>);

/// The blocks run at most `in_flight` at a time (bounding memory), each writing its rows into
/// its own slice of the results.
#[allow(clippy::too_many_arguments)] // the blocks' whole context, read-only
fn written_in_place(
    plan: &Plan,
    target: &Tensor,
    sources: &[Source],
    reached_by_plan: &[bool],
    rows: usize,
    hot: &(dyn Fn(usize) -> Vec<usize> + Sync),
    row_axis: usize,
    blocks: Blocks,
    threads: usize,
    report: &Report,
) -> Result<Vec<Option<Tensor>>> {
    let keep = keep_of(sources);
    // Only floating and complex sources that a path reaches receive gradients.
    let mut buffers: Vec<Option<Buffer>> = sources
        .iter()
        .zip(reached_by_plan)
        .map(|(s, &reached)| {
            // Held as [outer, rows, inner] (the axes before the row axis, the rows, the axes
            // after it), so a block's slice is plain runs of `inner` elements.
            let shape = s.shape();
            let outer: usize = shape[..row_axis].iter().product();
            let inner: usize = shape[row_axis..].iter().product();
            let shape = [outer, rows, inner];
            // Uninitialised: every block writes its own slice (gradient or zeros), so the
            // pages are first touched on the threads that fill them, in parallel.
            Ok(match s.dtype() {
                DType::F32 if reached => Some(Buffer::F32(uninit(&shape)?)),
                DType::F64 if reached => Some(Buffer::F64(uninit(&shape)?)),
                DType::Complex64 if reached => Some(Buffer::C64(uninit(&shape)?)),
                DType::Complex128 if reached => Some(Buffer::C128(uninit(&shape)?)),
                _ => None,
            })
        })
        .collect::<Result<_>>()?;
    // One job per block: its first row and its slice of each source's result.
    let mut jobs: Vec<Job<'_>> = (0..rows)
        .step_by(blocks.size)
        .map(|start| (start, Vec::new()))
        .collect();
    for buffer in buffers.iter_mut() {
        let slices: Vec<Option<Sink>> = match buffer {
            Some(Buffer::F32(a)) => slices(a, blocks.size, Sink::F32),
            Some(Buffer::F64(a)) => slices(a, blocks.size, Sink::F64),
            Some(Buffer::C64(a)) => slices(a, blocks.size, Sink::C64),
            Some(Buffer::C128(a)) => slices(a, blocks.size, Sink::C128),
            None => jobs.iter().map(|_| None).collect(),
        };
        for (job, slice) in jobs.iter_mut().zip(slices) {
            job.1.push(slice);
        }
    }
    // Per source, whether the block reached it.
    let source_shapes: Vec<Vec<usize>> = sources.iter().map(Source::shape).collect();
    let run = |(start, sinks): &mut Job<'_>| -> Result<Vec<bool>> {
        let end = (*start + blocks.size).min(rows);
        let rows = *start..end;
        let grads = sweep_block(plan, target, sources, &keep, rows, hot, blocks.vectorised)?;
        report.advance(end - *start);
        grads
            .into_iter()
            .zip(sinks.iter_mut())
            .zip(&source_shapes)
            .map(|((grad, sink), shape)| match (grad, sink) {
                (Some(g), Some(sink)) => place(sink, &g, blocks.vectorised, shape).map(|_| true),
                (None, Some(sink)) => {
                    sink.zero();
                    Ok(false)
                }
                (_, None) => Ok(false),
            })
            .collect()
    };
    let mut reached = vec![false; sources.len()];
    // Rayon never runs more blocks at once than it has threads: with as many in flight as
    // threads, a wave of many blocks bounds memory as single-block waves would. Waves last
    // about a poll interval (the first is short, then sized by its measured time), so the
    // barrier after each costs nothing and an interrupt is seen promptly.
    let adaptive = blocks.in_flight >= threads;
    let mut wave_len = if adaptive {
        FIRST_WAVE_PER_THREAD * threads
    } else {
        blocks.in_flight
    };
    let mut poller = Poller::new();
    let mut next = 0;
    let total = jobs.len();
    while next < total {
        let wave = &mut jobs[next..(next + wave_len.max(1)).min(total)];
        let started = Instant::now();
        let done: Vec<Vec<bool>> = if threads > 1 && wave.len() > 1 {
            // The calling thread runs blocks too (rather than sleeping while rayon's workers do),
            // so no thread waits to be woken between waves, and kernels see `in_task`.
            let cells: Vec<std::sync::Mutex<&mut Job<'_>>> =
                wave.iter_mut().map(std::sync::Mutex::new).collect();
            crate::ops::parallel::map_tasks(cells.len(), |i| {
                let mut job = cells[i].lock().unwrap_or_else(|e| e.into_inner());
                run(&mut job)
            })
            .into_iter()
            .collect::<Result<_>>()?
        } else {
            // On this thread (never a pool thread: see `Node::caller_thread`).
            wave.iter_mut().map(run).collect::<Result<_>>()?
        };
        next += wave.len();
        for block in done {
            for (r, hit) in reached.iter_mut().zip(block) {
                *r |= hit;
            }
        }
        if next < total {
            poller.poll()?;
            if adaptive {
                let per_block = started.elapsed().as_secs_f64() / wave.len() as f64;
                let fit = POLL_INTERVAL.as_secs_f64() / per_block.max(1e-9);
                wave_len = (fit as usize).max(threads);
            }
        }
    }
    drop(jobs);
    Ok(buffers
        .into_iter()
        .zip(reached)
        .zip(sources)
        .map(|((buffer, reached), source)| {
            let shape = out_shape(source, rows, row_axis);
            buffer.filter(|_| reached).map(|b| {
                // SAFETY: every block ran without error (an error returned above) and wrote
                // every element of its slice, and the slices cover the buffer.
                let data = match b {
                    Buffer::F32(a) => Data::from(unsafe { a.assume_init() }),
                    Buffer::F64(a) => Data::from(unsafe { a.assume_init() }),
                    Buffer::C64(a) => Data::from(unsafe { a.assume_init() }),
                    Buffer::C128(a) => Data::from(unsafe { a.assume_init() }),
                };
                Tensor::new(data.reshaped(&shape))
            })
        })
        .collect())
}

/// Blocks per thread in a Jacobian's first wave, before their time is known.
const FIRST_WAVE_PER_THREAD: usize = 8;

/// An uninitialised array of `shape`, reserved fallibly (a MemoryError naming the Jacobian).
fn uninit<T>(shape: &[usize]) -> Result<ArrayD<MaybeUninit<T>>> {
    let op = "GradientTape.jacobian";
    let n = checked_size(op, shape)?;
    let mut values: Vec<MaybeUninit<T>> = try_vec(op, n)?;
    // SAFETY: `MaybeUninit` elements need no initialisation.
    unsafe { values.set_len(n) };
    match ArrayD::from_shape_vec(IxDyn(shape), values) {
        Ok(a) => Ok(a),
        Err(_) => unreachable!("the buffer holds the shape's size"),
    }
}

/// A source's result while blocks write into it.
enum Buffer {
    F32(ArrayD<MaybeUninit<f32>>),
    F64(ArrayD<MaybeUninit<f64>>),
    C64(ArrayD<MaybeUninit<Complex<f32>>>),
    C128(ArrayD<MaybeUninit<Complex<f64>>>),
}

/// Disjoint mutable slices of `array` (`[outer, rows, inner]`) along the rows, `size` long
/// (the last shorter).
fn slices<'a, T>(
    array: &'a mut ArrayD<T>,
    size: usize,
    wrap: fn(ArrayViewMutD<'a, T>) -> Sink<'a>,
) -> Vec<Option<Sink<'a>>>
where
    T: Clone,
{
    array
        .axis_chunks_iter_mut(Axis(1), size)
        .map(|v| Some(wrap(v)))
        .collect()
}

/// Copies one block's gradient (`[len, source..]`, or the source's shape for a single row)
/// into its slice of the result (`[outer, len, inner]`: `outer` the product of the source's
/// axes before the row axis, `inner` of the rest).
fn place(sink: &mut Sink, grad: &Tensor, vectorised: bool, source: &[usize]) -> Result<()> {
    fn copy<T: Copy>(
        dst: &mut ArrayViewMutD<MaybeUninit<T>>,
        g: &crate::tensor::Values<T>,
        vectorised: bool,
        source: &[usize],
    ) -> Result<()> {
        let (outer, len, inner) = (dst.shape()[0], dst.shape()[1], dst.shape()[2]);
        let expected = if vectorised {
            [&[len][..], source].concat()
        } else {
            source.to_vec()
        };
        if g.shape() != expected {
            return Err(Error::shape(
                "GradientTape.jacobian",
                format!(
                    "a block of rows has gradient shape {} where {} was expected (a VJP on the \
                     path returned a gradient of the wrong shape)",
                    fmt_shape(g.shape()),
                    fmt_shape(&expected)
                ),
            ));
        }
        // Row `r` of the block, index `o` of the axes before the row axis: `inner` elements
        // at `(r * outer + o) * inner` of the row-major gradient.
        let src = g.as_slice();
        let (so, sr, si) = (dst.strides()[0], dst.strides()[1], dst.strides()[2]);
        let base = dst.as_mut_ptr();
        for o in 0..outer {
            for r in 0..len {
                let run = &src[(r * outer + o) * inner..][..inner];
                let at = o as isize * so + r as isize * sr;
                if si == 1 {
                    // SAFETY: `at .. at + inner` is the lane (o, r, ..) of `dst`, which is
                    // contiguous (stride 1), in bounds, and not aliased by `src`.
                    unsafe {
                        let lane = base.offset(at) as *mut T;
                        std::ptr::copy_nonoverlapping(run.as_ptr(), lane, inner);
                    }
                } else {
                    for (i, &v) in run.iter().enumerate() {
                        dst[[o, r, i]] = MaybeUninit::new(v);
                    }
                }
            }
        }
        Ok(())
    }
    match (sink, grad.data()) {
        (Sink::F32(dst), Data::F32(g)) => copy(dst, g, vectorised, source),
        (Sink::F64(dst), Data::F64(g)) => copy(dst, g, vectorised, source),
        (Sink::C64(dst), Data::C64(g)) => copy(dst, g, vectorised, source),
        (Sink::C128(dst), Data::C128(g)) => copy(dst, g, vectorised, source),
        (_, other) => Err(Error::dtype(
            "GradientTape.jacobian",
            format!(
                "a gradient has dtype {} unlike its source (a VJP on the path changed it)",
                other.dtype()
            ),
        )),
    }
}

/// While a tape records on this thread: blocks one after another, joined (and moved to the
/// row axis) by rustape's ops, so that the Jacobian is recorded too.
#[allow(clippy::too_many_arguments)] // the blocks' whole context, read-only
fn joined_by_ops(
    plan: &Plan,
    target: &Tensor,
    sources: &[Source],
    rows: usize,
    hot: &(dyn Fn(usize) -> Vec<usize> + Sync),
    row_axis: usize,
    blocks: Blocks,
    report: &Report,
) -> Result<Vec<Option<Tensor>>> {
    let keep = keep_of(sources);
    let mut parts: Vec<Vec<Tensor>> = vec![Vec::new(); sources.len()];
    let mut reached = vec![false; sources.len()];
    let mut poller = Poller::new();
    for start in (0..rows).step_by(blocks.size) {
        poller.poll()?;
        let end = (start + blocks.size).min(rows);
        let grads = sweep_block(
            plan,
            target,
            sources,
            &keep,
            start..end,
            hot,
            blocks.vectorised,
        )?;
        report.advance(end - start);
        for (k, (source, grad)) in sources.iter().zip(grads).enumerate() {
            reached[k] |= grad.is_some();
            let part = match (grad, blocks.vectorised) {
                (Some(g), true) => g,
                (Some(g), false) => ops::expand_dims(&g, 0)?,
                (None, _) => Tensor::try_full(
                    "GradientTape.jacobian",
                    &[vec![end - start], source.shape()].concat(),
                    source.dtype(),
                    0.0,
                )?,
            };
            parts[k].push(part);
        }
    }
    parts
        .into_iter()
        .zip(reached)
        .map(|(p, reached): (Vec<Tensor>, bool)| {
            if !reached {
                return Ok(None);
            }
            let stacked = match <[Tensor; 1]>::try_from(p) {
                Ok([one]) => one,
                Err(p) => ops::concat(&p, 0)?,
            };
            if row_axis == 0 {
                return Ok(Some(stacked));
            }
            let mut perm: Vec<usize> = (1..stacked.ndim()).collect();
            perm.insert(row_axis, 0);
            ops::transpose(&stacked, Some(&perm)).map(Some)
        })
        .collect()
}

/// Seeds for rows `range`: shape `[range.len(), target.shape..]` (just `target.shape` for one
/// row when not `vectorised`), row `r` one at `hot(r)`.
fn seed_block(
    target: &Tensor,
    range: std::ops::Range<usize>,
    hot: &(dyn Fn(usize) -> Vec<usize> + Sync),
    vectorised: bool,
) -> Result<Tensor> {
    fn ones<T: crate::tensor::Element>(
        n: usize,
        size: usize,
        range: std::ops::Range<usize>,
        hot: &(dyn Fn(usize) -> Vec<usize> + Sync),
        shape: &[usize],
    ) -> Result<Tensor> {
        let op = "GradientTape.jacobian";
        let count = n
            .checked_mul(size)
            .ok_or_else(|| Error::value(op, format!("{n} rows of {size} elements are too many")))?;
        let mut values = try_filled(op, count, T::default())?;
        for (i, r) in range.enumerate() {
            for position in hot(r) {
                values[i * size + position] = T::from_f64(1.0);
            }
        }
        Tensor::from_vec(values, shape)
    }
    let (n, size) = (range.len(), target.size());
    let shape = if vectorised {
        [vec![n], target.shape().to_vec()].concat()
    } else {
        target.shape().to_vec()
    };
    match target.dtype() {
        DType::F32 => ones::<f32>(n, size, range, hot, &shape),
        DType::F64 => ones::<f64>(n, size, range, hot, &shape),
        DType::Complex64 => ones::<Complex<f32>>(n, size, range, hot, &shape),
        DType::Complex128 => ones::<Complex<f64>>(n, size, range, hot, &shape),
        other => ops::cast(&ones::<f64>(n, size, range, hot, &shape)?, other),
    }
}

pub(crate) fn dims(shape: &[usize]) -> Vec<isize> {
    shape.iter().map(|&d| d as isize).collect()
}
