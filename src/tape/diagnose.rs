//! `Unconnected::Raise`: instead of a silent `None`, say why a source got no gradient.
use rustc_hash::FxHashSet;

use super::backward::Plan;
use super::{InputRef, Source};
use crate::error::{fmt_shape, Error};
use crate::tensor::TensorId;

/// What the plan knew about the sources before its sweep ran.
pub(crate) struct Diagnosis {
    /// Sources some recorded op between them and the target consumed (by index).
    on_path: Vec<bool>,
    /// Ops on those paths that pass no gradient back (`stop_gradient`).
    stoppers: Vec<&'static str>,
    tracked: FxHashSet<TensorId>,
}

pub(crate) fn diagnose(plan: &Plan) -> Diagnosis {
    let consumed: FxHashSet<InputRef> = plan.steps().flat_map(|s| s.inputs.clone()).collect();
    let on_path = plan
        .source_refs
        .iter()
        .map(|r| consumed.contains(r))
        .collect();
    let mut stoppers = Vec::new();
    for step in plan.steps() {
        if step.rows.stops_gradients() && !stoppers.contains(&step.op) {
            stoppers.push(step.op);
        }
    }
    Diagnosis {
        on_path,
        stoppers,
        tracked: plan.tracked_sources.clone(),
    }
}

impl Diagnosis {
    /// The error for source `index`, which got no gradient.
    pub(crate) fn error(&self, method: &str, index: usize, source: &Source) -> Error {
        let what = match source {
            Source::Variable(v) => format!("source {index} (variable '{}'", v.name()),
            Source::Tensor(_) => format!("source {index} (a tensor"),
        };
        let what = format!(
            "{what} of shape {} and dtype {})",
            fmt_shape(&source.shape()),
            source.dtype()
        );
        let why = if !source.dtype().is_float() {
            "only floating tensors are differentiable".to_string()
        } else if !self.tracked.contains(&source.id()) {
            match source {
                Source::Variable(_) => "the tape never watched it: it was read outside the tape's `with` block, \
                     or the tape has watch_accessed_variables=False and it was not passed to watch()"
                    .to_string(),
                Source::Tensor(_) => "the tape never watched it: call tape.watch() on it inside the `with` \
                     block before computing with it"
                    .to_string(),
            }
        } else if self.on_path.get(index) == Some(&true) && !self.stoppers.is_empty() {
            format!(
                "every path from the target to it passes through {}",
                self.stoppers.join(", ")
            )
        } else {
            "the target was not computed from it while the tape recorded (it was computed before the \
             watch, outside the `with` block or inside stop_recording(), or only through ops without \
             a gradient such as round, floor, comparisons or casts to integers)"
                .to_string()
        };
        Error::value(
            format!("GradientTape.{method}"),
            format!("no gradient for {what}: {why} (unconnected_gradients='raise')"),
        )
    }
}
