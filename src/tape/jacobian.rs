//! Jacobians: every row is an independent VJP over one read-only plan of the tape (see
//! rows.rs for how rows run). Rows are stacked and shaped with rustape's own ops, so a Jacobian
//! computed while an outer tape records is itself recorded (Jacobians of Jacobians, Hessians).
use super::backward::{plan, unconnected_value, Plan, Unconnected};
use super::diagnose::diagnose;
use super::per_example;
use super::rows::{self, dims, JacobianOptions, JacobianStrategy};
use super::{Source, Tape};
use crate::error::{fmt_shape, Error, Result};
use crate::ops;
use crate::tensor::Tensor;

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
        let plan = plan(&mut self.lock(), &[target], sources, release);
        let diagnosis = diagnose(&plan);
        // One loss per row, each reaching only its row: one per-example sweep (not under a
        // recording tape, nor when the rows were asked to run one by one).
        let strict = options.strategy == JacobianStrategy::PerExample;
        let modes = match options.strategy {
            JacobianStrategy::Auto
            | JacobianStrategy::Vectorized
            | JacobianStrategy::PerExample
                if !crate::tape::any_tape_recording() =>
            {
                per_example::modes(&plan, target, sources)
            }
            _ => Err("a tape is recording (the rows run one block at a time, recorded)".into()),
        };
        let swept = match modes {
            Ok(modes) => per_example::run(&plan, target, sources, &modes)?
                .ok_or_else(|| "the sources' rows do not line up with the target's".to_string()),
            Err(why) => Err(why),
        };
        let stacked = match swept {
            Ok(stacked) => stacked,
            Err(why) if strict => {
                return Err(Error::value(
                    "GradientTape.jacobian",
                    format!("cannot compute per-example gradients in one sweep: {why}"),
                ))
            }
            Err(_) => rows::run(
                &plan,
                target,
                sources,
                target.size(),
                &|r| vec![r],
                0,
                options,
            )?,
        };
        sources
            .iter()
            .zip(stacked)
            .enumerate()
            .map(|(i, (source, stacked))| {
                let shape = [target.shape().to_vec(), source.shape()].concat();
                match stacked {
                    Some(rows) => ops::reshape(&rows, &dims(&shape)).map(Some),
                    None => unconnected_value(
                        source,
                        &shape,
                        unconnected,
                        Some(&diagnosis),
                        "jacobian",
                        i,
                    ),
                }
            })
            .collect()
    }

    /// Target `[b, y...]`, source `[b, x...]`: result `[b, y..., x...]`, one row per element of
    /// `y`, seeded on every batch row at once.
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
        let plan = plan(
            &mut self.lock(),
            &[target],
            std::slice::from_ref(source),
            release,
        );
        check_rows_stay_apart(op, &plan)?;
        let diagnosis = diagnose(&plan);
        let batch = t_shape[0];
        let row_size: usize = t_shape[1..].iter().product();
        let hot = |j: usize| (0..batch).map(|b| b * row_size + j).collect();
        let stacked = rows::run(
            &plan,
            target,
            std::slice::from_ref(source),
            row_size,
            &hot,
            1,
            options,
        )?;
        let shape = [t_shape.clone(), s_shape[1..].to_vec()].concat();
        match stacked.into_iter().next().flatten() {
            // The rows come after the batch axis: [b, y, x..] -> [b, y.., x..]
            Some(rows) => ops::reshape(&rows, &dims(&shape)).map(Some),
            None => unconnected_value(
                source,
                &shape,
                unconnected,
                Some(&diagnosis),
                "batch_jacobian",
                0,
            ),
        }
    }
}

/// batch_jacobian assumes row `i` of the target depends only on row `i` of the source. Refuse,
/// naming the ops, when recorded ops between them mix rows: the numbers would mean nothing.
fn check_rows_stay_apart(op: &str, plan: &Plan) -> Result<()> {
    let mut mixing: Vec<&str> = Vec::new();
    // In recording order: the earliest (the cause) first.
    for step in plan.steps() {
        let mixes = (0..step.inputs.len())
            .any(|k| step.mixes_rows & crate::tape::mixes_input(k) != 0 && step.input_connected(k));
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
