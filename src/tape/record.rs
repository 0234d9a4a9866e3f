//! Recording: after an op runs, each active tape that is recording and tracks one of the op's
//! inputs appends a node. With no tape active this is one thread-local read.
use std::sync::Arc;

use smallvec::SmallVec;

use super::axes::{self, AxisMap, AxisTable, Rows};
use super::{
    any_tape_active, watch_variable_locked, with_active, ForeignVjp, Grads, InputRef, Node,
    TapeState, Vjp, VjpRef, BATCHABLE, CALLER_THREAD, PER_EXAMPLE,
};
use crate::error::Result;
use crate::tensor::{Tensor, TensorId};
use crate::variable::Variable;

/// Bit `k` of the old row-mixing mask: the output's row `i` (index `i` on axis 0) may depend on
/// rows other than `i` of input `k`. A mask converts into [`AxisMap::leading`] (axis 0 stays
/// axis 0 unless the input's bit is set; other axes are not described), so an op that passes
/// one still records; ops describe their axes with an [`AxisMap`] instead (see `axes`).
/// Inputs past the eighth share the last bit.
pub(crate) fn mixes_input(k: usize) -> u8 {
    1 << k.min(7)
}

/// Records a single-output op. `vjp(saved, dy, batch)` returns one gradient per input; when
/// `batchable` it handles `batch` leading axes on `dy` (see [`Vjp`]), so a vectorised Jacobian
/// runs it once for many rows. `rows` says where the inputs' axes go ([`AxisMap`], a table
/// built only if recorded, or an old mask from [`mixes_input`]).
///
/// `saved` is only cloned (and the VJP only boxed) when some tape actually records the op.
pub(crate) fn record_batched<'a, F>(
    op: &'static str,
    inputs: &[&Tensor],
    output: &Tensor,
    saved: &[&Tensor],
    rows: impl Into<Rows<'a>>,
    batchable: bool,
    vjp: F,
) where
    F: Fn(&[Tensor], &Tensor, usize) -> Result<Grads> + Send + Sync + 'static,
{
    if !output.is_differentiable() || !any_tape_active() {
        return;
    }
    let kind = NodeKind {
        rows: rows.into(),
        batchable,
        caller_thread: false,
        per_tape_vjp: false,
        per_example: false,
    };
    record_single(op, inputs, output, saved, kind, vjp);
}

/// [`record_batched`] (batchable) for an op whose VJP also gives per-example gradients: when
/// [`crate::tape::per_example_input`]`(k)` holds, the gradient of input `k` (one whose rows the
/// op mixes: a weight, a bias broadcast over the rows) is `[b, input.shape..]`, row `i` the
/// gradient through output row `i` alone (`dy` then has the output's shape, batch rank 0).
pub(crate) fn record_per_example<'a, F>(
    op: &'static str,
    inputs: &[&Tensor],
    output: &Tensor,
    saved: &[&Tensor],
    rows: impl Into<Rows<'a>>,
    vjp: F,
) where
    F: Fn(&[Tensor], &Tensor, usize) -> Result<Grads> + Send + Sync + 'static,
{
    if !output.is_differentiable() || !any_tape_active() {
        return;
    }
    let kind = NodeKind {
        rows: rows.into(),
        batchable: true,
        caller_thread: false,
        per_tape_vjp: false,
        per_example: true,
    };
    record_single(op, inputs, output, saved, kind, vjp);
}

fn record_single<F>(
    op: &'static str,
    inputs: &[&Tensor],
    output: &Tensor,
    saved: &[&Tensor],
    kind: NodeKind,
    vjp: F,
) where
    F: Fn(&[Tensor], &Tensor, usize) -> Result<Grads> + Send + Sync + 'static,
{
    let origins = |state: &TapeState| state.origins(inputs);
    // Built at most once: only per-tape kinds (custom gradients) build again.
    let mut vjp = Some(vjp);
    record_node(op, origins, &[output], saved, kind, move || {
        let Some(vjp) = vjp.take() else {
            unreachable!("a shared VJP is built once")
        };
        VjpRef::new(
            move |saved: &[Tensor], grads: &[Option<Tensor>], batch: usize| match grads.first() {
                Some(Some(dy)) => vjp(saved, dy, batch),
                _ => Ok(Grads::new()),
            },
        )
    });
}

/// The ids of `tensors` (a plain loop: SmallVec's generic `collect` costs more than the copy).
fn ids_of(tensors: &[&Tensor]) -> SmallVec<[TensorId; 1]> {
    let mut ids = SmallVec::new();
    for t in tensors {
        ids.push(t.id());
    }
    ids
}

/// What the engine knows of a node besides its VJP.
#[derive(Clone, Copy)]
struct NodeKind<'a> {
    rows: Rows<'a>,
    batchable: bool,
    /// See `Node::caller_thread`.
    caller_thread: bool,
    /// Each tape gets its own VJP (built again for it): foreign state is owned per tape.
    per_tape_vjp: bool,
    per_example: bool,
}

/// Records an op with several outputs (or whose VJP wants to see which outputs got gradients).
pub(crate) fn record_multi<'a>(
    op: &'static str,
    inputs: &[&Tensor],
    outputs: &[&Tensor],
    saved: &[&Tensor],
    rows: impl Into<Rows<'a>>,
    batchable: bool,
    vjp: Arc<Vjp>,
) {
    if !outputs.iter().any(|t| t.is_differentiable()) || !any_tape_active() {
        return;
    }
    record_node(
        op,
        |state: &TapeState| state.origins(inputs),
        outputs,
        saved,
        NodeKind {
            rows: rows.into(),
            batchable,
            caller_thread: false,
            per_tape_vjp: false,
            per_example: false,
        },
        move || VjpRef::from(vjp.clone()),
    );
}

/// Appends a node to every recording tape that tracks an input (`origins` says where the
/// inputs come from on a tape, or `None` when it tracks none of them).
fn record_node(
    op: &'static str,
    origins: impl Fn(&TapeState) -> Option<SmallVec<[InputRef; 2]>>,
    outputs: &[&Tensor],
    saved: &[&Tensor],
    kind: NodeKind<'_>,
    mut make_vjp: impl FnMut() -> VjpRef,
) {
    let keep = || {
        let mut kept = SmallVec::new();
        for t in saved {
            kept.push((*t).clone());
        }
        kept
    };
    if outputs.len() >= super::MAX_OUTPUTS {
        // Unreachable from the ops, which check their output count first.
        return;
    }
    let push = |state: &mut TapeState, inputs, vjp, saved| {
        let index = state.nodes.len() as u32;
        let rows = match (kind.rows, outputs) {
            // The common case, kept to a few instructions: one output, an inline map.
            (Rows::Map(map), [output]) => map.with_out_rank(output.ndim()),
            (rows, _) => finish_rows(rows, outputs, &mut state.tables),
        };
        state.nodes.push(Node {
            op,
            inputs,
            outputs: ids_of(outputs),
            saved,
            vjp,
            rows,
            batching: (u8::from(kind.batchable) * BATCHABLE)
                | (u8::from(kind.per_example) * PER_EXAMPLE)
                | (u8::from(kind.caller_thread) * CALLER_THREAD),
        });
        state.mark_outputs(index, outputs);
    };
    with_active(|tapes| match tapes {
        [] => {}
        // One tape (the common case): the node takes the saved tensors and the VJP as built,
        // with no reference counts to bump and drop again.
        [tape] => {
            let mut state = tape.lock();
            if !state.recording {
                return;
            }
            if let Some(inputs) = origins(&state) {
                push(&mut state, inputs, make_vjp(), keep());
            }
        }
        _ => {
            let mut shared: Option<(VjpRef, SmallVec<[Tensor; 2]>)> = None;
            for tape in tapes {
                let mut state = tape.lock();
                if !state.recording {
                    continue;
                }
                let Some(inputs) = origins(&state) else {
                    continue;
                };
                if kind.per_tape_vjp {
                    push(&mut state, inputs, make_vjp(), keep());
                    continue;
                }
                let (vjp, saved) = shared.get_or_insert_with(|| (make_vjp(), keep()));
                push(&mut state, inputs, vjp.clone(), saved.clone());
            }
        }
    });
}

/// The node's axis map when it needs more than an inline map of one output's rank (kept out of
/// the recording's hot path).
#[cold]
#[inline(never)]
fn finish_rows(rows: Rows<'_>, outputs: &[&Tensor], tables: &mut Vec<AxisTable>) -> AxisMap {
    let ranks: SmallVec<[usize; 4]> = outputs.iter().map(|t| t.ndim()).collect();
    axes::finish(rows, &ranks, tables)
}

/// A read of a variable. Recording tapes that auto-watch see the read (trainable variables
/// are watched on first read); any tape that watches the variable records a node linking the
/// variable's id to the read, so gradients sum over all reads.
pub(crate) fn read_variable(variable: &Variable, value: Tensor) -> Tensor {
    let needs_node = with_active(|tapes| {
        let mut any = false;
        for tape in tapes {
            let mut state = tape.lock();
            if !state.recording {
                continue;
            }
            if state.watch_accessed_variables && variable.trainable() && value.is_differentiable() {
                watch_variable_locked(&mut state, variable);
            }
            any |= state.tracked.contains_key(&variable.id());
        }
        any
    });
    if !needs_node {
        return value;
    }
    let read = value.alias();
    // The identity's VJP passes any cotangent through, batched or not.
    let identity = NodeKind {
        rows: Rows::Map(AxisMap::ELEMENTWISE),
        batchable: true,
        caller_thread: false,
        per_tape_vjp: false,
        per_example: false,
    };
    let variable_id = variable.id();
    record_node(
        "ReadVariable",
        |state: &TapeState| {
            let origin = state.tracked.get(&variable_id)?;
            Some(SmallVec::from_slice(&[*origin]))
        },
        &[&read],
        &[],
        identity,
        || {
            VjpRef::new(|_: &[Tensor], grads: &[Option<Tensor>], _batch: usize| {
                Ok(crate::grads![grads.first().cloned().flatten()])
            })
        },
    );
    read
}

/// A user-defined op (`custom_gradient`): `outputs` were computed from `inputs` by code the
/// tapes did not record; returns fresh aliases of the outputs whose gradient is the VJP that
/// `make_vjp` builds (once for each tape that records the op: its state is owned per tape).
/// Aliases matter: a custom op may return one of its inputs unchanged. The VJP is the caller's
/// code: it always runs on the thread that asks for a gradient or Jacobian. A ValueError when
/// there are more outputs than a node holds.
pub fn record_custom(
    name: &'static str,
    inputs: &[Tensor],
    outputs: &[Tensor],
    mut make_vjp: impl FnMut() -> ForeignVjp,
) -> Result<Vec<Tensor>> {
    super::check_output_count(name, outputs.len())?;
    let outputs: Vec<Tensor> = outputs.iter().map(Tensor::alias).collect();
    let input_refs: Vec<&Tensor> = inputs.iter().collect();
    let output_refs: Vec<&Tensor> = outputs.iter().collect();
    if !output_refs.iter().any(|t| t.is_differentiable()) || !any_tape_active() {
        return Ok(outputs);
    }
    // What a user's function does to batch rows is unknown: read as keeping axis 0 in place
    // (the old mask 0), other axes not described. Its VJP takes unbatched cotangents only.
    let kind = NodeKind {
        rows: Rows::Map(AxisMap::leading(0)),
        batchable: false,
        caller_thread: true,
        per_tape_vjp: true,
        per_example: false,
    };
    record_node(
        name,
        |state: &TapeState| state.origins(&input_refs),
        &output_refs,
        &[],
        kind,
        || VjpRef::Foreign(Arc::new(make_vjp())),
    );
    Ok(outputs)
}
