//! Per-example Jacobians: `jacobian(losses, params)` where `losses[i]` depends only on row `i`
//! of the batch, in one sweep instead of one per row (what `vmap(grad)` computes).
//!
//! Seeding every row's loss at once (ones on the target) and sweeping as for a gradient keeps
//! the rows apart in every tensor whose rows stay apart (axis 0, the row-mixing masks): row `i`
//! of such a tensor's cotangent belongs to loss `i` alone ("rows" form, the tensor's own shape).
//! Where an op mixes an input's rows (the weight of `x @ W`, a bias broadcast over the rows),
//! the op gives that input one gradient per row instead of their sum (declared with
//! `record_per_example`; matmul's is an outer product per row), `[b, input.shape..]`: an
//! ordinary vectorised cotangent with one row per loss ("expanded" form), which carries on
//! through batchable VJPs up to the sources. So a source's gradient is its Jacobian as is.
//!
//! The engine knows no op: the masks and the ops' declarations decide each tensor's form, and
//! any step that fits neither (an op mixing rows it cannot split per example, a tensor reached
//! in both forms, a source reached in rows form) sends the Jacobian back to the row blocks of
//! rows.rs, which give the same numbers.
use rustc_hash::FxHashSet;

use super::backward::{sweep_modes, Plan, StepMode};
use super::{mixes_input, Source};
use crate::error::Result;
use crate::tensor::{Tensor, TensorId};

/// A tensor's cotangent form in a per-example sweep.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Form {
    /// No cotangent reaches it.
    Unreached,
    /// Its own shape, row `i` for loss `i` (rows on axis 0 stay apart).
    Rows,
    /// `[b, shape..]`, one cotangent per loss (a batch rank of 1).
    Expanded,
}

/// How each step of `plan` runs in a per-example sweep from `target` (`[b]`: one loss per row),
/// or why the Jacobian cannot take this path.
pub(crate) fn modes(
    plan: &Plan,
    target: &Tensor,
    sources: &[Source],
) -> std::result::Result<Vec<StepMode>, String> {
    if target.ndim() != 1 || target.size() < 2 {
        return Err(format!(
            "the target must be one value per batch row (shape [b], b > 1), got shape {}",
            crate::error::fmt_shape(target.shape())
        ));
    }
    if sources.iter().any(|s| s.id() == target.id()) {
        return Err("the target is one of the sources".into());
    }
    let mut forms = vec![Form::Unreached; plan.slot_count()];
    let Some(target_slot) = plan.slot_of(target.id()) else {
        return Err("the target depends on no source".into());
    };
    forms[target_slot as usize] = Form::Rows;
    let steps: Vec<_> = plan.steps().collect();
    let mut modes = vec![StepMode::default(); steps.len()];
    // Gives a slot its form; false when it already has the other one.
    fn assign(forms: &mut [Form], slot: u32, form: Form) -> bool {
        match forms[slot as usize] {
            Form::Unreached => {
                forms[slot as usize] = form;
                true
            }
            f => f == form,
        }
    }
    for (l, step) in steps.iter().enumerate().rev() {
        // Consumers come after producers: every form of this step's outputs is known.
        let mut node = Form::Unreached;
        for &slot in step.output_slots() {
            match (node, forms[slot as usize]) {
                (_, Form::Unreached) => {}
                (Form::Unreached, f) => node = f,
                (n, f) if n != f => {
                    return Err(format!(
                        "the outputs of '{}' mix per-row and per-example cotangents",
                        step.op
                    ))
                }
                _ => {}
            }
        }
        if node == Form::Unreached {
            continue;
        }
        if node == Form::Expanded {
            if !step.batchable {
                return Err(format!("the op '{}' takes no batched cotangents", step.op));
            }
            modes[l].batch = 1;
        }
        for k in (0..step.inputs.len()).filter(|&k| step.input_connected(k)) {
            let form = match node {
                Form::Rows if step.mixes_rows & mixes_input(k) == 0 => Form::Rows,
                Form::Rows if step.per_example => {
                    modes[l].per_example |= 1 << k.min(63);
                    Form::Expanded
                }
                Form::Rows => {
                    return Err(format!(
                        "the op '{}' mixes batch rows and gives no per-example gradients",
                        step.op
                    ))
                }
                _ => Form::Expanded,
            };
            if !assign(&mut forms, step.input_slot(k), form) {
                return Err(format!(
                    "an input of '{}' reaches the target both through its own row and through \
                     other rows",
                    step.op
                ));
            }
        }
    }
    // A source in rows form is batched itself: its Jacobian is block-diagonal, [b, b, ..].
    let rows_source = sources.iter().any(|s| {
        plan.slot_of(s.id())
            .is_some_and(|slot| forms[slot as usize] == Form::Rows)
    });
    match rows_source {
        true => Err("a source has the batch rows itself (use batch_jacobian)".into()),
        false => Ok(modes),
    }
}

/// The per-example sweep: per source, its Jacobian `[b, source..]`, or `None` when unreached.
/// `Ok(None)` when the rows did not line up with the target's (a slice along the rows keeps
/// them apart but drops some): the row blocks then give the Jacobian.
pub(crate) fn run(
    plan: &Plan,
    target: &Tensor,
    sources: &[Source],
    modes: &[StepMode],
) -> Result<Option<Vec<Option<Tensor>>>> {
    let keep: FxHashSet<TensorId> = sources.iter().map(Source::id).collect();
    let seeds = vec![(target.id(), target.ones_like())];
    let mut grads = sweep_modes(plan, seeds, &keep, modes)?;
    let rows = target.size();
    let lined_up = sources.iter().all(|s| {
        grads
            .get(&s.id())
            .is_none_or(|g| g.shape().first() == Some(&rows) && g.shape()[1..] == s.shape()[..])
    });
    Ok(lined_up.then(|| sources.iter().map(|s| grads.remove(&s.id())).collect()))
}
