//! Running the rows of a Jacobian. Row `r` is a VJP seeded with a basis cotangent (ones at the
//! flat target positions `hot(r)`), over one read-only plan. Three ways, same numbers:
//! - vectorised: a block of rows in one sweep, the seeds stacked on a new leading axis (every
//!   op on the path must take batched cotangents: `Step::batchable`);
//! - parallel rows: independent sweeps on rayon's threads;
//! - sequential: one sweep after another on this thread.
use rayon::prelude::*;
use rustc_hash::FxHashSet;

use super::backward::{sweep, Plan};
use super::Source;
use crate::error::{Error, Result};
use crate::ops;
use crate::tensor::{Tensor, TensorId};

/// How the rows of a Jacobian are run. The numbers are the same whichever runs.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum JacobianStrategy {
    /// Vectorised when every op on the path supports it and a row's cotangent is small, else
    /// parallel rows.
    Auto,
    /// Vectorised only: a ValueError naming the op when one on the path cannot take batched
    /// cotangents (to find what keeps `Auto` off the fast path).
    Vectorized,
    /// Independent row sweeps on rayon's threads.
    ParallelRows,
    /// One row after another on this thread.
    Sequential,
}

/// How to run a Jacobian's rows.
#[derive(Clone, Copy, Debug)]
pub struct JacobianOptions {
    /// At most this many rows at once: the block of a vectorised sweep, or the rows in flight
    /// on rayon's threads. `None`: as many as memory comfortably allows / one per thread.
    pub parallel_iterations: Option<usize>,
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

/// Elements one vectorised cotangent may hold by default (64 MiB of float32).
const BLOCK_BUDGET: usize = 1 << 24;

/// `Auto` vectorises only when one row's cotangent (the target) has at most this many elements.
/// Small rows are all op overhead, which one sweep for many rows removes; large rows already
/// amortise it, run in parallel, and stay in cache (benches/RESULTS.md: W3, 256-element rows,
/// and W5, 200, are faster vectorised; W4, 16,384-element rows, took 10.2 ms vectorised and
/// 6.6 ms in parallel rows).
const VECTORIZE_MAX_ROW: usize = 4096;

/// Computes `rows` rows; for each source, its row gradients stacked on a new leading axis
/// (`[rows, source.shape..]`), or `None` when no row reached it.
pub(crate) fn run(
    plan: &Plan,
    target: &Tensor,
    sources: &[Source],
    rows: usize,
    hot: &(dyn Fn(usize) -> Vec<usize> + Sync),
    options: JacobianOptions,
) -> Result<Vec<Option<Tensor>>> {
    use JacobianStrategy::*;
    if rows == 0 {
        // An empty target: every path gives the same empty Jacobian.
        let empty = |s: &Source| Some(Tensor::zeros(&[vec![0], s.shape()].concat(), s.dtype()));
        return Ok(sources.iter().map(empty).collect());
    }
    let unbatchable = plan.steps.iter().find(|s| !s.batchable).map(|s| s.op);
    if let (Vectorized, Some(op)) = (options.strategy, unbatchable) {
        return Err(Error::value(
            "GradientTape.jacobian",
            format!("cannot vectorise: the op '{op}' on the path takes no batched cotangents (use the default strategy)"),
        ));
    }
    let recording = crate::tape::any_tape_recording();
    match options.strategy {
        Vectorized => vectorized(plan, target, sources, rows, hot, options),
        Auto if unbatchable.is_none() && rows > 1 && target.size() <= VECTORIZE_MAX_ROW => {
            vectorized(plan, target, sources, rows, hot, options)
        }
        // Rows on other threads would not be recorded by a tape recording on this one.
        Sequential => one_by_one(plan, target, sources, rows, hot, None),
        _ if recording => one_by_one(plan, target, sources, rows, hot, None),
        _ => one_by_one(
            plan,
            target,
            sources,
            rows,
            hot,
            Some(options.parallel_iterations),
        ),
    }
}

fn keep_of(sources: &[Source]) -> FxHashSet<TensorId> {
    sources.iter().map(Source::id).collect()
}

/// Blocks of rows, each one sweep with batch rank 1.
fn vectorized(
    plan: &Plan,
    target: &Tensor,
    sources: &[Source],
    rows: usize,
    hot: &(dyn Fn(usize) -> Vec<usize> + Sync),
    options: JacobianOptions,
) -> Result<Vec<Option<Tensor>>> {
    let widest = sources
        .iter()
        .map(|s| s.shape().iter().product())
        .chain([target.size(), 1])
        .max()
        .unwrap_or(1);
    let block = options
        .parallel_iterations
        .unwrap_or(BLOCK_BUDGET / widest)
        .clamp(1, rows);
    let keep = keep_of(sources);
    let mut parts: Vec<Vec<Tensor>> = vec![Vec::new(); sources.len()];
    let mut reached = vec![false; sources.len()];
    for start in (0..rows).step_by(block) {
        let end = (start + block).min(rows);
        let seed = seed_block(target, start..end, hot)?;
        let mut grads = sweep(
            &plan.steps,
            &plan.connected,
            vec![(target.id(), seed)],
            &keep,
            1,
        )?;
        for (k, source) in sources.iter().enumerate() {
            let part = match grads.remove(&source.id()) {
                Some(g) => {
                    reached[k] = true;
                    g
                }
                None => Tensor::zeros(
                    &[vec![end - start], source.shape()].concat(),
                    source.dtype(),
                ),
            };
            parts[k].push(part);
        }
    }
    parts
        .into_iter()
        .zip(reached)
        .map(|(p, reached)| {
            if reached {
                ops::concat(&p, 0).map(Some)
            } else {
                Ok(None)
            }
        })
        .collect()
}

/// Row by row: on rayon's threads when `parallel` is `Some(limit)`, else on this thread.
fn one_by_one(
    plan: &Plan,
    target: &Tensor,
    sources: &[Source],
    rows: usize,
    hot: &(dyn Fn(usize) -> Vec<usize> + Sync),
    parallel: Option<Option<usize>>,
) -> Result<Vec<Option<Tensor>>> {
    let keep = keep_of(sources);
    let one_row = |r: usize| -> Result<Vec<Option<Tensor>>> {
        let seed = seed_block(target, r..r + 1, hot)?;
        let seed = ops::reshape(&seed, &dims(target.shape()))?;
        let mut grads = sweep(
            &plan.steps,
            &plan.connected,
            vec![(target.id(), seed)],
            &keep,
            0,
        )?;
        Ok(sources.iter().map(|s| grads.remove(&s.id())).collect())
    };
    let threads = rayon::current_num_threads();
    let by_row: Vec<Vec<Option<Tensor>>> =
        match parallel.map(|p| p.unwrap_or(threads).clamp(1, threads)) {
            Some(in_flight) if in_flight > 1 && rows > 1 => {
                let mut out = Vec::with_capacity(rows);
                // Each worker runs one sweep at a time, so `in_flight == threads` needs no waves.
                let wave = if in_flight == threads {
                    rows
                } else {
                    in_flight
                };
                for start in (0..rows).step_by(wave) {
                    let part: Vec<_> = (start..(start + wave).min(rows))
                        .into_par_iter()
                        .map(one_row)
                        .collect::<Result<_>>()?;
                    out.extend(part);
                }
                out
            }
            _ => (0..rows).map(one_row).collect::<Result<_>>()?,
        };
    let mut per_source: Vec<Vec<Option<Tensor>>> = vec![Vec::with_capacity(rows); sources.len()];
    for row in by_row {
        for (k, grad) in row.into_iter().enumerate() {
            per_source[k].push(grad);
        }
    }
    sources
        .iter()
        .zip(per_source)
        .map(|(source, rows)| {
            if rows.iter().all(Option::is_none) {
                return Ok(None);
            }
            let filled: Vec<Tensor> = rows
                .into_iter()
                .map(|r| r.unwrap_or_else(|| Tensor::zeros(&source.shape(), source.dtype())))
                .collect();
            ops::stack(&filled, 0).map(Some)
        })
        .collect()
}

/// Seeds for rows `range`: shape `[range.len(), target.shape..]`, row `r` one at `hot(r)`.
fn seed_block(
    target: &Tensor,
    range: std::ops::Range<usize>,
    hot: &(dyn Fn(usize) -> Vec<usize> + Sync),
) -> Result<Tensor> {
    let size = target.size();
    let mut values = vec![0.0; range.len() * size];
    for (i, r) in range.clone().enumerate() {
        for position in hot(r) {
            values[i * size + position] = 1.0;
        }
    }
    let shape = [vec![range.len()], target.shape().to_vec()].concat();
    ops::cast(&Tensor::from_vec(values, &shape)?, target.dtype())
}

pub(crate) fn dims(shape: &[usize]) -> Vec<isize> {
    shape.iter().map(|&d| d as isize).collect()
}
