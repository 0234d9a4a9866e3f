//! The backward sweep. `plan` picks, under the tape's lock, the nodes on a path from the
//! sources to the targets (explicit stack, no recursion); `sweep` then runs their VJPs from the
//! last to the first without holding the lock, so the VJPs' own ops can be recorded on any
//! active tape, including this one.
use std::borrow::Borrow;
use std::collections::hash_map::Entry;

use rustc_hash::{FxHashMap, FxHashSet};
use smallvec::SmallVec;

use super::diagnose::{diagnose, Diagnosis};
use super::{Origin, Source, Tape, TapeState, VjpRef};
use crate::error::{fmt_shape, Error, Result};
use crate::ops;
use crate::tensor::{Tensor, TensorId};

/// What a source the target does not depend on gets.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Unconnected {
    /// `None` (TensorFlow's default).
    None,
    /// Zeros of the source's shape and dtype.
    Zero,
    /// A ValueError saying why the source is disconnected (not watched, integer dtype, behind
    /// `stop_gradient`, read outside the tape).
    Raise,
}

/// One node's work in a sweep, cloned (or, on a non-persistent tape, moved) out of the arena.
pub(crate) struct Step {
    pub op: &'static str,
    pub inputs: SmallVec<[TensorId; 2]>,
    pub outputs: SmallVec<[TensorId; 1]>,
    pub saved: SmallVec<[Tensor; 2]>,
    pub vjp: VjpRef,
    pub mixes_rows: u8,
    pub batchable: bool,
}

/// The nodes of one backward pass, last recorded first. Read-only once built, so one plan
/// serves every row of a Jacobian.
pub(crate) struct Plan {
    pub steps: Vec<Step>,
    /// Ids that depend on a source: only these receive gradients.
    pub connected: FxHashSet<TensorId>,
    /// The sources this tape tracked (watched, or read while it watched them).
    pub tracked_sources: FxHashSet<TensorId>,
}

pub(crate) fn plan(
    state: &mut TapeState,
    targets: &[TensorId],
    sources: &[TensorId],
    release: bool,
) -> Plan {
    // Backward reachability from the targets, with an explicit stack.
    let mut needed = vec![false; state.nodes.len()];
    let mut stack: Vec<TensorId> = targets.to_vec();
    while let Some(id) = stack.pop() {
        if let Some(Origin::Node(i)) = state.tracked.get(&id) {
            let i = *i as usize;
            if !needed[i] {
                needed[i] = true;
                stack.extend(state.nodes[i].inputs.iter().copied());
            }
        }
    }
    // Forward reachability from the sources, in arena (topological) order.
    let mut connected: FxHashSet<TensorId> = sources.iter().copied().collect();
    let mut live = Vec::new();
    for (i, node) in state.nodes.iter().enumerate() {
        if needed[i] && node.inputs.iter().any(|id| connected.contains(id)) {
            connected.extend(node.outputs.iter().copied());
            live.push(i);
        }
    }
    let tracked_sources = sources
        .iter()
        .copied()
        .filter(|id| state.tracked.contains_key(id))
        .collect();
    let steps = live
        .into_iter()
        .rev()
        .map(|i| {
            let node = &mut state.nodes[i];
            Step {
                op: node.op,
                inputs: node.inputs.clone(),
                outputs: node.outputs.clone(),
                saved: if release {
                    std::mem::take(&mut node.saved)
                } else {
                    node.saved.clone()
                },
                vjp: node.vjp.clone(),
                mixes_rows: node.mixes_rows,
                batchable: node.batchable,
            }
        })
        .collect();
    if release {
        state.nodes.clear();
        state.tracked.clear();
    }
    Plan {
        steps,
        connected,
        tracked_sources,
    }
}

/// Runs the VJPs of `steps` (last recorded first) from `seeds`, returning the gradient of every
/// id in `keep` that received one. Intermediate gradients are dropped once used. `batch` is the
/// number of leading axes the seeds carry beyond their targets' shapes (see [`Vjp`]).
pub(crate) fn sweep<S: Borrow<Step>>(
    steps: impl IntoIterator<Item = S>,
    connected: &FxHashSet<TensorId>,
    seeds: Vec<(TensorId, Tensor)>,
    keep: &FxHashSet<TensorId>,
    batch: usize,
) -> Result<FxHashMap<TensorId, Tensor>> {
    let mut grads: FxHashMap<TensorId, Tensor> = FxHashMap::default();
    for (id, seed) in seeds {
        accumulate(&mut grads, id, seed)?;
    }
    for step in steps {
        let step = step.borrow();
        let out_grads: SmallVec<[Option<Tensor>; 1]> = step
            .outputs
            .iter()
            .map(|id| {
                if keep.contains(id) {
                    grads.get(id).cloned()
                } else {
                    grads.remove(id)
                }
            })
            .collect();
        if out_grads.iter().all(Option::is_none) {
            continue;
        }
        let needed = step
            .inputs
            .iter()
            .enumerate()
            .filter(|(_, id)| connected.contains(id))
            .fold(0u64, |mask, (k, _)| mask | needed_bit(k));
        let in_grads = with_needed_inputs(needed, || (step.vjp)(&step.saved, &out_grads, batch))
            .map_err(|e| Error {
                message: format!(
                    "{} (while computing the gradient of {})",
                    e.message, step.op
                ),
                ..e
            })?;
        for (k, (id, grad)) in step.inputs.iter().zip(in_grads).enumerate() {
            // The mask answers for the first 63 inputs; later ones share its last bit.
            let wanted = if k < 63 {
                needed & needed_bit(k) != 0
            } else {
                connected.contains(id)
            };
            if let (Some(grad), true) = (grad, wanted) {
                accumulate(&mut grads, *id, grad)?;
            }
        }
    }
    grads.retain(|id, _| keep.contains(id));
    Ok(grads)
}

thread_local! {
    /// Which inputs of the VJP now running the sweep will use (bit k: input k). All, outside a
    /// sweep.
    static NEEDED_INPUTS: std::cell::Cell<u64> = const { std::cell::Cell::new(u64::MAX) };
}

fn needed_bit(k: usize) -> u64 {
    1 << k.min(63)
}

/// Runs a VJP with `mask` as its needed inputs, restoring the previous mask after (a VJP may
/// run a nested sweep).
fn with_needed_inputs<R>(mask: u64, vjp: impl FnOnce() -> R) -> R {
    let previous = NEEDED_INPUTS.with(|n| n.replace(mask));
    let result = vjp();
    NEEDED_INPUTS.with(|n| n.set(previous));
    result
}

/// Whether the sweep running this VJP will use the gradient of input `k` (TensorFlow's
/// `skip_input_indices`). A VJP may return `None` for an input that is not needed instead of
/// computing it: in a vectorised Jacobian the gradient of a constant weight matrix is the
/// biggest tensor of the sweep.
pub fn input_needed(k: usize) -> bool {
    NEEDED_INPUTS.with(|n| n.get() & needed_bit(k) != 0)
}

fn accumulate(grads: &mut FxHashMap<TensorId, Tensor>, id: TensorId, grad: Tensor) -> Result<()> {
    match grads.entry(id) {
        Entry::Occupied(mut total) => {
            let sum = ops::add(total.get(), &grad)?;
            total.insert(sum);
        }
        Entry::Vacant(slot) => {
            slot.insert(grad);
        }
    }
    Ok(())
}

/// The gradient's value for each source: the accumulated gradient, or what `unconnected` says.
pub(crate) fn collect(
    sources: &[Source],
    grads: &mut FxHashMap<TensorId, Tensor>,
    unconnected: Unconnected,
    diagnosis: Option<&Diagnosis>,
) -> Result<Vec<Option<Tensor>>> {
    sources
        .iter()
        .enumerate()
        .map(|(i, s)| match grads.get(&s.id()) {
            Some(g) if s.dtype().is_float() => Ok(Some(g.clone())),
            _ => unconnected_value(s, &s.shape(), unconnected, diagnosis, "gradient", i),
        })
        .collect()
}

/// What a source with no gradient gets: `None`, zeros of `shape`, or the diagnosis as an error.
pub(crate) fn unconnected_value(
    source: &Source,
    shape: &[usize],
    unconnected: Unconnected,
    diagnosis: Option<&Diagnosis>,
    method: &str,
    index: usize,
) -> Result<Option<Tensor>> {
    match (unconnected, diagnosis) {
        (Unconnected::Raise, Some(d)) => Err(d.error(method, index, source)),
        (Unconnected::Zero, _) if source.dtype().is_float() => {
            Ok(Some(Tensor::zeros(shape, source.dtype())))
        }
        _ => Ok(None),
    }
}

impl Tape {
    /// The gradient of the targets (summed, each seeded with ones or its output gradient) with
    /// respect to each source.
    pub fn gradient(
        &self,
        targets: &[Tensor],
        sources: &[Source],
        output_gradients: Option<&[Option<Tensor>]>,
        unconnected: Unconnected,
    ) -> Result<Vec<Option<Tensor>>> {
        let op = "GradientTape.gradient";
        let seeds = seeds(op, targets, output_gradients)?;
        let release = self.take_use("gradient")?;
        let target_ids: Vec<TensorId> = targets.iter().map(Tensor::id).collect();
        let source_ids: Vec<TensorId> = sources.iter().map(Source::id).collect();
        let plan = plan(&mut self.lock(), &target_ids, &source_ids, release);
        let diagnosis = (unconnected == Unconnected::Raise).then(|| diagnose(&plan));
        let keep: FxHashSet<TensorId> = source_ids.iter().copied().collect();
        let mut grads = sweep(plan.steps, &plan.connected, seeds, &keep, 0)?;
        collect(sources, &mut grads, unconnected, diagnosis.as_ref())
    }
}

fn seeds(
    op: &str,
    targets: &[Tensor],
    output_gradients: Option<&[Option<Tensor>]>,
) -> Result<Vec<(TensorId, Tensor)>> {
    if let Some(given) = output_gradients {
        if given.len() != targets.len() {
            return Err(Error::value(
                op,
                format!(
                    "output_gradients must have one entry per target: {} targets, {} output_gradients",
                    targets.len(),
                    given.len()
                ),
            ));
        }
    }
    targets
        .iter()
        .enumerate()
        .filter(|(_, t)| t.is_differentiable())
        .map(|(i, t)| {
            let seed = match output_gradients.and_then(|g| g[i].clone()) {
                None => t.ones_like(),
                Some(g) if g.shape() != t.shape() => {
                    return Err(Error::shape(
                        op,
                        format!(
                            "output_gradients[{i}] has shape {} but the target has shape {}",
                            fmt_shape(g.shape()),
                            fmt_shape(t.shape())
                        ),
                    ))
                }
                Some(g) if g.dtype() != t.dtype() => {
                    return Err(Error::dtype(
                        op,
                        format!(
                            "output_gradients[{i}] has dtype {} but the target has dtype {}",
                            g.dtype(),
                            t.dtype()
                        ),
                    ))
                }
                Some(g) => g,
            };
            Ok((t.id(), seed))
        })
        .collect()
}
