//! Jacobians: every row is an independent VJP over one read-only plan of the tape.
//!
//! Rows are stacked with rustape's own ops, so a Jacobian computed while an outer tape records
//! is itself recorded (Jacobians of Jacobians, Hessians).
use rayon::prelude::*;
use rustc_hash::FxHashSet;

use super::backward::{plan, sweep, unconnected_value, Plan, Unconnected};
use super::diagnose::diagnose;
use super::{Source, Tape};
use crate::error::{fmt_shape, Error, Result};
use crate::ops;
use crate::tensor::{Tensor, TensorId};

/// How the rows of a Jacobian are run. The numbers are the same whichever is chosen.
#[derive(Clone, Copy, Debug)]
pub struct JacobianOptions {
    /// At most this many rows in flight at once (bounds memory). `None`: one per rayon thread.
    pub parallel_iterations: Option<usize>,
    /// `false` asks for the plain sequential loop.
    pub experimental_use_pfor: bool,
}

impl Default for JacobianOptions {
    fn default() -> JacobianOptions {
        JacobianOptions {
            parallel_iterations: None,
            experimental_use_pfor: true,
        }
    }
}

impl Tape {
    /// `target.shape + source.shape` per source.
    pub fn jacobian(
        &self,
        target: &Tensor,
        sources: &[Source],
        unconnected: Unconnected,
    ) -> Result<Vec<Option<Tensor>>> {
        self.jacobian_with(target, sources, unconnected, JacobianOptions::default())
    }

    /// [`Tape::jacobian`] with control over how rows run.
    pub fn jacobian_with(
        &self,
        target: &Tensor,
        sources: &[Source],
        unconnected: Unconnected,
        options: JacobianOptions,
    ) -> Result<Vec<Option<Tensor>>> {
        let release = self.take_use("jacobian")?;
        let source_ids: Vec<TensorId> = sources.iter().map(Source::id).collect();
        let plan = plan(&mut self.lock(), &[target.id()], &source_ids, release);
        let diagnosis = diagnose(&plan);
        let rows = target.size();
        let per_row = run_rows(
            &plan,
            target,
            &source_ids,
            rows,
            |i| one_hot(target, &[i]),
            options,
        )?;
        sources
            .iter()
            .zip(per_row)
            .enumerate()
            .map(|(i, (source, rows_of_source))| {
                let mut shape = target.shape().to_vec();
                shape.extend(source.shape());
                let missing = || {
                    unconnected_value(source, &shape, unconnected, Some(&diagnosis), "jacobian", i)
                };
                finish(source, rows_of_source, &shape, 0, missing)
            })
            .collect()
    }

    /// Target `[b, y...]`, source `[b, x...]`: result `[b, y..., x...]`, one sweep per element
    /// of `y` seeding that element on every batch row at once.
    pub fn batch_jacobian(
        &self,
        target: &Tensor,
        source: &Source,
        unconnected: Unconnected,
    ) -> Result<Option<Tensor>> {
        self.batch_jacobian_with(target, source, unconnected, JacobianOptions::default())
    }

    /// [`Tape::batch_jacobian`] with control over how rows run.
    pub fn batch_jacobian_with(
        &self,
        target: &Tensor,
        source: &Source,
        unconnected: Unconnected,
        options: JacobianOptions,
    ) -> Result<Option<Tensor>> {
        let op = "GradientTape.batch_jacobian";
        let (t_shape, s_shape) = (target.shape().to_vec(), source.shape());
        if t_shape.is_empty() || s_shape.is_empty() || t_shape[0] != s_shape[0] {
            return Err(Error::value(
                op,
                format!(
                    "the first dimension of target and source must match (the batch), got target \
                     shape {} and source shape {}",
                    fmt_shape(&t_shape),
                    fmt_shape(&s_shape)
                ),
            ));
        }
        let release = self.take_use("batch_jacobian")?;
        let plan = plan(&mut self.lock(), &[target.id()], &[source.id()], release);
        check_rows_stay_apart(op, &plan)?;
        let diagnosis = diagnose(&plan);
        let batch = t_shape[0];
        let row_size: usize = t_shape[1..].iter().product();
        let seeds = |j: usize| {
            let hot: Vec<usize> = (0..batch).map(|b| b * row_size + j).collect();
            one_hot(target, &hot)
        };
        let mut per_row = run_rows(&plan, target, &[source.id()], row_size, seeds, options)?;
        let mut shape = t_shape.clone();
        shape.extend(&s_shape[1..]);
        let missing = || {
            unconnected_value(
                source,
                &shape,
                unconnected,
                Some(&diagnosis),
                "batch_jacobian",
                0,
            )
        };
        finish(source, per_row.remove(0), &shape, 1, missing)
    }
}

/// batch_jacobian assumes row `i` of the target depends only on row `i` of the source. Refuse,
/// naming the ops, when recorded ops between them mix rows: the numbers would mean nothing.
fn check_rows_stay_apart(op: &str, plan: &Plan) -> Result<()> {
    let mut mixing: Vec<&str> = Vec::new();
    // Steps run last-recorded first; list the earliest (the cause) first.
    for step in plan.steps.iter().rev() {
        let mixes = step.inputs.iter().enumerate().any(|(k, id)| {
            step.mixes_rows & crate::tape::mixes_input(k) != 0 && plan.connected.contains(id)
        });
        if mixes && !mixing.contains(&step.op) {
            mixing.push(step.op);
        }
    }
    if mixing.is_empty() {
        return Ok(());
    }
    let names: Vec<String> = mixing.iter().map(|n| format!("'{n}'")).collect();
    let culprits = match names.len() {
        1 => format!("the op {} between them mixes", names[0]),
        _ => format!("the ops {} between them mix", names.join(" then ")),
    };
    Err(Error::value(
        op,
        format!(
            "row i of the target does not depend only on row i of the source: {culprits} batch \
             rows (for example a reduction over axis 0, or batch normalization in training mode). \
             Use jacobian() instead."
        ),
    ))
}

/// Runs one sweep per row, returning for each source its row gradients (`None` where a row got
/// none). Rows are independent VJPs over the read-only plan, so they run on rayon's threads,
/// unless a tape on this thread is recording (then the rows must run here to be recorded) or
/// the caller asked for the sequential loop.
fn run_rows(
    plan: &Plan,
    target: &Tensor,
    source_ids: &[TensorId],
    rows: usize,
    seed: impl Fn(usize) -> Result<Tensor> + Sync,
    options: JacobianOptions,
) -> Result<Vec<Vec<Option<Tensor>>>> {
    let keep: FxHashSet<TensorId> = source_ids.iter().copied().collect();
    let one_row = |i: usize| -> Result<Vec<Option<Tensor>>> {
        let mut grads = sweep(
            &plan.steps,
            &plan.connected,
            vec![(target.id(), seed(i)?)],
            &keep,
        )?;
        Ok(source_ids.iter().map(|id| grads.remove(id)).collect())
    };
    let threads = rayon::current_num_threads();
    let in_flight = options
        .parallel_iterations
        .unwrap_or(threads)
        .clamp(1, threads);
    let sequential = !options.experimental_use_pfor
        || in_flight == 1
        || rows < 2
        || crate::tape::any_tape_recording();
    let by_row: Vec<Vec<Option<Tensor>>> = if sequential {
        (0..rows).map(one_row).collect::<Result<_>>()?
    } else if in_flight == threads {
        // Each worker runs one sweep at a time: at most `threads` rows are in flight.
        (0..rows)
            .into_par_iter()
            .map(one_row)
            .collect::<Result<_>>()?
    } else {
        let mut out = Vec::with_capacity(rows);
        for start in (0..rows).step_by(in_flight) {
            let wave: Vec<_> = (start..(start + in_flight).min(rows))
                .into_par_iter()
                .map(one_row)
                .collect::<Result<_>>()?;
            out.extend(wave);
        }
        out
    };
    let mut per_source = vec![Vec::with_capacity(rows); source_ids.len()];
    for row in by_row {
        for (k, grad) in row.into_iter().enumerate() {
            per_source[k].push(grad);
        }
    }
    Ok(per_source)
}

/// Stacks a source's rows on `axis` and gives them `shape`; `missing()` when no row was
/// connected.
fn finish(
    source: &Source,
    rows: Vec<Option<Tensor>>,
    shape: &[usize],
    axis: isize,
    missing: impl FnOnce() -> Result<Option<Tensor>>,
) -> Result<Option<Tensor>> {
    if !source.dtype().is_float() || rows.iter().all(Option::is_none) {
        return missing();
    }
    let row_shape = source.shape();
    let rows: Vec<Tensor> = rows
        .into_iter()
        .map(|r| r.unwrap_or_else(|| Tensor::zeros(&row_shape, source.dtype())))
        .collect();
    if rows.is_empty() {
        return Ok(Some(Tensor::zeros(shape, source.dtype())));
    }
    let stacked = ops::stack(&rows, axis)?;
    let dims: Vec<isize> = shape.iter().map(|&d| d as isize).collect();
    Ok(Some(ops::reshape(&stacked, &dims)?))
}

/// A tensor shaped like `like`, one at the flat positions `hot`, zero elsewhere.
fn one_hot(like: &Tensor, hot: &[usize]) -> Result<Tensor> {
    let mut values = vec![0.0; like.size()];
    for &i in hot {
        values[i] = 1.0;
    }
    let data = Tensor::from_vec(values, like.shape())?;
    crate::ops::cast(&data, like.dtype())
}
