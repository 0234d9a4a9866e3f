//! Hessians without nesting two tapes by hand.
//!
//! The tape already holds the forward graph. We copy the nodes between the sources and the
//! target onto a fresh tape (same ids, same VJPs: the arena is op-agnostic), run the backward
//! sweep while that copy records it, and take the Jacobian of the gradient on the copy. The
//! copy sees the gradient's dependence on the sources through both the backward ops and the
//! forward values they saved, which is exactly what two nested tapes would have recorded.
use rustc_hash::{FxHashMap, FxHashSet};

use super::axes::copy_table;
use super::backward::{plan, sweep, unconnected_value, Unconnected};
use super::diagnose::diagnose;
use super::{InputRef, Node, Source, Tape};
use crate::error::{fmt_shape, Error, Result};
use crate::tensor::{Tensor, TensorId};

impl Tape {
    /// The Hessian of a one-element `target` with respect to each source: for source `k`, the
    /// block `d2 target / d source_k^2` of shape `source_k.shape + source_k.shape`.
    pub fn hessian(
        &self,
        target: &Tensor,
        sources: &[Source],
        unconnected: Unconnected,
    ) -> Result<Vec<Option<Tensor>>> {
        if target.size() != 1 {
            return Err(Error::value(
                "GradientTape.hessian",
                format!(
                    "the target must have one element, got shape {}",
                    fmt_shape(target.shape())
                ),
            ));
        }
        let release = self.take_use("hessian")?;
        let source_ids: Vec<TensorId> = sources.iter().map(Source::id).collect();
        let forward = plan(&mut self.lock(), &[target], sources, release);
        let diagnosis = diagnose(&forward);

        let second = Tape::new(true, false);
        {
            let mut copy = second.lock();
            for id in &source_ids {
                copy.tracked.insert(*id, InputRef::leaf(*id));
            }
            // The copy's nodes are the plan's steps, renumbered; an input from a node off the
            // path is a constant for the copy (the sources keep their ids).
            let mut copied: FxHashMap<u32, u32> = FxHashMap::default();
            for step in forward.steps() {
                let index = copy.nodes.len() as u32;
                let inputs = step
                    .inputs
                    .iter()
                    .map(|&input| match input.node_output() {
                        Some((node, k)) => match copied.get(&(node as u32)) {
                            Some(&i) => InputRef::produced(i, k),
                            None => forward
                                .source_refs
                                .iter()
                                .position(|r| *r == input)
                                .map_or(InputRef::CONSTANT, |s| InputRef::leaf(source_ids[s])),
                        },
                        None => input,
                    })
                    .collect();
                let rows = copy_table(step.rows, &forward.tables, &mut copy.tables);
                copy.nodes.push(Node {
                    op: step.op,
                    inputs,
                    outputs: step.outputs.clone(),
                    saved: step.saved.clone(),
                    vjp: step.vjp.clone(),
                    rows,
                    batching: step.batching,
                });
                copied.insert(step.index, index);
                for (k, id) in step.outputs.iter().enumerate() {
                    copy.tracked.insert(*id, InputRef::produced(index, k));
                }
            }
        }
        let keep: FxHashSet<TensorId> = source_ids.iter().copied().collect();
        let mut grads = {
            let _recording = second.enter()?;
            sweep(&forward, vec![(target.id(), target.ones_like())], &keep, 0)?
        };
        sources
            .iter()
            .enumerate()
            .map(|(i, source)| match grads.remove(&source.id()) {
                Some(g) => match second
                    .jacobian(&g, std::slice::from_ref(source), unconnected)?
                    .remove(0)
                {
                    Some(block) => Ok(Some(block)),
                    // The gradient does not depend on the source: the Hessian block is zero
                    // (allocated fallibly: a MemoryError, not an abort, when it cannot be).
                    None => Tensor::try_full(
                        "GradientTape.hessian",
                        &[source.shape(), source.shape()].concat(),
                        source.dtype(),
                        0.0,
                    )
                    .map(Some),
                },
                None => {
                    let shape = [source.shape(), source.shape()].concat();
                    unconnected_value(source, &shape, unconnected, Some(&diagnosis), "hessian", i)
                }
            })
            .collect()
    }
}
