//! The backward sweep. `plan` picks, under the tape's lock, the nodes on a path from the
//! sources to the targets (explicit stack, no recursion); `sweep` then runs their VJPs from the
//! last to the first without holding the lock, so the VJPs' own ops can be recorded on any
//! active tape, including this one.

use rustc_hash::{FxHashMap, FxHashSet};
use smallvec::SmallVec;

use super::axes::{copy_table, AxisTable};
use super::diagnose::{diagnose, Diagnosis};
use super::{Arena, InputRef, Node, Source, Tape, TapeState};
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

/// One node on a plan's path, as the sweep sees it: the node (deref), its index on the tape,
/// and its gradient slots.
pub(crate) struct Step<'a> {
    node: &'a Node,
    /// The node's index in the tape's arena (what `InputRef`s name).
    pub index: u32,
    /// The dense slot (see [`Connected`]) of each input, then of each output; `NO_SLOT` for an
    /// input no source reaches. The sweep indexes gradients by slot: no hashing per node.
    slots: &'a [u32],
}

/// The slot of an input no source reaches.
pub(crate) const NO_SLOT: u32 = u32::MAX;

impl Step<'_> {
    /// The gradient slot of input `k` (`NO_SLOT` when no source reaches it).
    pub fn input_slot(&self, k: usize) -> u32 {
        self.slots[k]
    }
    /// The gradient slots of the outputs.
    pub fn output_slots(&self) -> &[u32] {
        &self.slots[self.node.inputs.len()..]
    }
    /// Whether a source reaches input `k` (only such inputs receive gradients).
    pub fn input_connected(&self, k: usize) -> bool {
        self.slots.get(k).is_some_and(|&s| s != NO_SLOT)
    }
}

impl std::ops::Deref for Step<'_> {
    type Target = Node;
    fn deref(&self) -> &Node {
        self.node
    }
}

/// Where a plan keeps a node on its path.
#[derive(Clone, Copy)]
struct Live {
    /// Index on the tape.
    index: u32,
    /// Index in the plan's `nodes`.
    at: u32,
    /// Where its slots start in the plan's `slots`.
    slots_at: u32,
}

/// The gradient slots of a plan: every id that depends on a source has one, numbered densely
/// (the sources first, in the order given, repeats sharing a slot; then the outputs of the
/// plan's steps). Only the sources' and targets' slots are looked up by id.
pub(crate) struct Connected {
    named: FxHashMap<TensorId, u32>,
    count: u32,
}

impl Connected {
    fn of_sources(sources: &[TensorId]) -> Connected {
        let mut connected = Connected {
            named: FxHashMap::default(),
            count: 0,
        };
        for &id in sources {
            if !connected.named.contains_key(&id) {
                let slot = connected.fresh();
                connected.named.insert(id, slot);
            }
        }
        connected
    }
    fn fresh(&mut self) -> u32 {
        self.count += 1;
        self.count - 1
    }
    /// The slot of a source or target (`NO_SLOT` if it has none).
    pub fn slot(&self, id: &TensorId) -> u32 {
        self.named.get(id).copied().unwrap_or(NO_SLOT)
    }
    /// How many slots there are (every id that depends on a source has one).
    pub fn len(&self) -> usize {
        self.count as usize
    }
}

/// The nodes of one backward pass. Read-only once built, so one plan serves every row of a
/// Jacobian. A released tape's arena moves into the plan whole (no node is copied); a
/// persistent tape's nodes on the path are cloned.
pub(crate) struct Plan {
    nodes: Arena<Node>,
    /// The side table of the nodes' axis descriptions (see `axes`).
    pub tables: Vec<AxisTable>,
    /// The nodes on the path, in recording order (the sweep runs them last first).
    live: Vec<Live>,
    slots: Vec<u32>,
    /// The slots of the ids that depend on a source: only these receive gradients.
    pub connected: Connected,
    /// Where each source comes from on the tape (a leaf, or a node's output).
    pub source_refs: Vec<InputRef>,
    /// The sources this tape tracked (watched, or read while it watched them).
    pub tracked_sources: FxHashSet<TensorId>,
}

impl Plan {
    /// The steps, in recording order.
    pub fn steps(&self) -> impl DoubleEndedIterator<Item = Step<'_>> + '_ {
        self.live.iter().map(|&l| self.step(l))
    }
    fn step(&self, l: Live) -> Step<'_> {
        let node = &self.nodes[l.at as usize];
        let n = node.inputs.len() + node.outputs.len();
        let start = l.slots_at as usize;
        Step {
            node,
            index: l.index,
            slots: &self.slots[start..start + n],
        }
    }
    /// For each of `sources` (ids), whether a path of the plan leads from it to `target`: the
    /// target is the source itself, or some step on the path takes it as an input. A source no
    /// path reaches gets no gradient, so a Jacobian need not run any row for it.
    pub fn reaches(&self, target: TensorId, sources: &[TensorId]) -> Vec<bool> {
        let Some(&target_slot) = self.connected.named.get(&target) else {
            return vec![false; sources.len()];
        };
        let mut used = vec![false; self.connected.len()];
        used[target_slot as usize] = true;
        for step in self.steps() {
            for k in 0..step.inputs.len() {
                if step.input_connected(k) {
                    used[step.input_slot(k) as usize] = true;
                }
            }
        }
        sources
            .iter()
            .map(|id| {
                self.connected
                    .named
                    .get(id)
                    .is_some_and(|&s| used[s as usize])
            })
            .collect()
    }
    /// How many gradient slots the plan has.
    pub fn slot_count(&self) -> usize {
        self.connected.len()
    }
    /// The slot of a source or target, by id.
    pub fn slot_of(&self, id: TensorId) -> Option<u32> {
        self.connected.named.get(&id).copied()
    }
    /// Every id that depends on a source (the sources and the steps' outputs).
    pub fn connected_ids(&self) -> FxHashSet<TensorId> {
        let outputs = self.steps().flat_map(|s| s.node.outputs.iter().copied());
        self.connected
            .named
            .keys()
            .copied()
            .chain(outputs)
            .collect()
    }
}

pub(crate) fn plan(
    state: &mut TapeState,
    targets: &[&Tensor],
    sources: &[Source],
    release: bool,
) -> Plan {
    let source_ids: Vec<TensorId> = sources.iter().map(Source::id).collect();
    let mut connected = Connected::of_sources(&source_ids);
    let source_refs: Vec<InputRef> = sources
        .iter()
        .map(|s| match s {
            Source::Tensor(t) => state.origin(t),
            Source::Variable(_) => None,
        })
        .zip(&source_ids)
        .map(|(origin, &id)| origin.unwrap_or(InputRef::leaf(id)))
        .collect();
    let tracked_sources = sources
        .iter()
        .filter(|s| match s {
            Source::Tensor(t) => state.origin(t).is_some(),
            Source::Variable(v) => state.tracked.contains_key(&v.id()),
        })
        .map(Source::id)
        .collect();
    // Sources some node of this tape produced (gradients with respect to intermediates) take
    // their slot whether or not that node is on the path.
    let produced_sources: Vec<((usize, usize), u32)> = source_refs
        .iter()
        .zip(&source_ids)
        .filter_map(|(r, id)| Some((r.node_output()?, connected.slot(id))))
        .collect();
    let source_slot = |at: (usize, usize)| {
        produced_sources
            .iter()
            .find(|(source, _)| *source == at)
            .map(|&(_, slot)| slot)
    };
    let target_origins: Vec<Option<InputRef>> = targets.iter().map(|t| state.origin(t)).collect();
    let nodes = &state.nodes;

    // Backward reachability from the targets, by node index, with an explicit stack.
    let mut needed = vec![false; nodes.len()];
    let mut needed_count = 0;
    let mut stack: Vec<usize> = Vec::new();
    let mut reach = |input: &InputRef, stack: &mut Vec<usize>| {
        if let Some((i, _)) = input.node_output() {
            if !needed[i] {
                needed[i] = true;
                needed_count += 1;
                stack.push(i);
            }
        }
    };
    for origin in target_origins.iter().flatten() {
        reach(origin, &mut stack);
    }
    while let Some(i) = stack.pop() {
        for input in &nodes[i].inputs {
            reach(input, &mut stack);
        }
    }

    // Forward reachability from the sources, in arena (topological) order: a needed node one
    // of whose inputs is connected is live, and its outputs get slots.
    let mut live_of = vec![NO_SLOT; nodes.len()];
    let mut live: Vec<Live> = Vec::with_capacity(needed_count);
    let mut slots: Vec<u32> = Vec::with_capacity(3 * needed_count);
    let output_slot = |live: &[Live], slots: &[u32], live_of: &[u32], (i, k): (usize, usize)| {
        if let Some(slot) = source_slot((i, k)) {
            return slot;
        }
        match live_of[i] {
            NO_SLOT => NO_SLOT,
            l => slots[live[l as usize].slots_at as usize + nodes[i].inputs.len() + k],
        }
    };
    for (i, node) in nodes.iter().enumerate() {
        if !needed[i] {
            continue;
        }
        let slots_at = slots.len();
        let mut any = false;
        for input in &node.inputs {
            let slot = match (input.node_output(), input.leaf_id()) {
                (Some(at), _) => output_slot(&live, &slots, &live_of, at),
                (None, Some(id)) if !input.is_constant() => connected.slot(&id),
                _ => NO_SLOT,
            };
            any |= slot != NO_SLOT;
            slots.push(slot);
        }
        if !any {
            slots.truncate(slots_at);
            continue;
        }
        // A node that passes no gradient back (stop_gradient) stays on the path (its input is
        // connected: the diagnosis names it), but its outputs depend on no source.
        let stops = node.rows.stops_gradients();
        for k in 0..node.outputs.len() {
            let slot = match (source_slot((i, k)), stops) {
                (Some(slot), _) => slot,
                (None, true) => NO_SLOT,
                (None, false) => connected.fresh(),
            };
            slots.push(slot);
        }
        live_of[i] = live.len() as u32;
        live.push(Live {
            index: i as u32,
            at: i as u32,
            slots_at: slots_at as u32,
        });
    }
    // The targets' slots, looked up by id when the sweep seeds them.
    for (t, origin) in targets.iter().zip(&target_origins) {
        let slot = match origin.and_then(InputRef::node_output) {
            Some(at) => output_slot(&live, &slots, &live_of, at),
            None => connected.slot(&t.id()),
        };
        if slot != NO_SLOT {
            connected.named.insert(t.id(), slot);
        }
    }
    let (nodes, tables) = if release {
        state.tracked.clear();
        (
            std::mem::take(&mut state.nodes),
            std::mem::take(&mut state.tables),
        )
    } else {
        let mut copies = Arena::default();
        let mut tables = Vec::new();
        for (at, l) in live.iter_mut().enumerate() {
            let mut node = state.nodes[l.index as usize].clone();
            node.rows = copy_table(node.rows, &state.tables, &mut tables);
            copies.push(node);
            l.at = at as u32;
        }
        (copies, tables)
    };
    Plan {
        nodes,
        tables,
        live,
        slots,
        connected,
        source_refs,
        tracked_sources,
    }
}

/// Runs the VJPs of the plan's steps (last recorded first) from `seeds`, returning the gradient
/// of every id in `keep` that received one. Intermediate gradients are dropped once used.
/// `batch` is the number of leading axes the seeds carry beyond their targets' shapes (see
/// [`Vjp`]).
pub(crate) fn sweep(
    plan: &Plan,
    seeds: Vec<(TensorId, Tensor)>,
    keep: &FxHashSet<TensorId>,
    batch: usize,
) -> Result<FxHashMap<TensorId, Tensor>> {
    sweep_nodes(PlanNodes::Shared(plan), seeds, keep, Modes::Uniform(batch))
}

/// How a step's VJP is called in a per-example sweep (see per_example.rs): its batch rank, and
/// the inputs whose gradients it gives per example (bit `k`: input `k`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(crate) struct StepMode {
    pub batch: u8,
    pub per_example: u64,
}

/// [`sweep`] with each step called as `modes[l]` says (`l` its place among the plan's steps).
pub(crate) fn sweep_modes(
    plan: &Plan,
    seeds: Vec<(TensorId, Tensor)>,
    keep: &FxHashSet<TensorId>,
    modes: &[StepMode],
) -> Result<FxHashMap<TensorId, Tensor>> {
    sweep_nodes(PlanNodes::Shared(plan), seeds, keep, Modes::PerStep(modes))
}

#[derive(Clone, Copy)]
enum Modes<'a> {
    Uniform(usize),
    PerStep(&'a [StepMode]),
}

/// [`sweep`] for a plan used once: each node's saved tensors and VJP are dropped as soon as it
/// has run, so memory falls as the sweep goes.
pub(crate) fn sweep_once(
    mut plan: Plan,
    seeds: Vec<(TensorId, Tensor)>,
    keep: &FxHashSet<TensorId>,
) -> Result<FxHashMap<TensorId, Tensor>> {
    sweep_nodes(PlanNodes::Owned(&mut plan), seeds, keep, Modes::Uniform(0))
}

enum PlanNodes<'a> {
    Shared(&'a Plan),
    Owned(&'a mut Plan),
}

impl PlanNodes<'_> {
    fn plan(&self) -> &Plan {
        match self {
            PlanNodes::Shared(p) => p,
            PlanNodes::Owned(p) => p,
        }
    }
    /// Drops what node `at` held for its VJP.
    fn release(&mut self, at: u32) {
        if let PlanNodes::Owned(p) = self {
            let node = &mut p.nodes[at as usize];
            node.saved = SmallVec::new();
        }
    }
}

fn sweep_nodes(
    mut nodes: PlanNodes<'_>,
    seeds: Vec<(TensorId, Tensor)>,
    keep: &FxHashSet<TensorId>,
    modes: Modes,
) -> Result<FxHashMap<TensorId, Tensor>> {
    // Transposed copies of operands used again and again, for this sweep (plain ones only).
    let _transposes = super::transposes::SweepTransposes::enter(matches!(modes, Modes::Uniform(0)));
    let connected = &nodes.plan().connected;
    // Gradients by slot; kept slots are read, not consumed, by the steps that produce them.
    let mut grads: Vec<Option<Tensor>> = vec![None; connected.len()];
    let mut kept = vec![false; connected.len()];
    for id in keep {
        if let Some(&slot) = connected.named.get(id) {
            kept[slot as usize] = true;
        }
    }
    for (id, seed) in seeds {
        let slot = connected.slot(&id);
        if slot != NO_SLOT {
            accumulate(&mut grads[slot as usize], seed)?;
        }
    }
    let reads = variable_reads(nodes.plan());
    for l in (0..nodes.plan().live.len()).rev() {
        let live = nodes.plan().live[l];
        let in_grads = {
            let step = nodes.plan().step(live);
            let out_grads: SmallVec<[Option<Tensor>; 1]> = step
                .output_slots()
                .iter()
                .map(|&slot| {
                    if slot == NO_SLOT {
                        return None;
                    }
                    let slot = slot as usize;
                    if kept[slot] {
                        grads[slot].clone()
                    } else {
                        grads[slot].take()
                    }
                })
                .collect();
            if out_grads.iter().all(Option::is_none) {
                continue;
            }
            let needed = (0..step.inputs.len())
                .filter(|&k| step.input_connected(k))
                .fold(0u64, |mask, k| mask | needed_bit(k));
            let (batch, per_example) = match modes {
                Modes::Uniform(batch) => (batch, 0),
                Modes::PerStep(m) => (usize::from(m[l].batch), m[l].per_example),
            };
            let extra = batch + per_example as usize;
            let (offered, origins) = offer_totals(&step, &mut grads, &kept, &reads, extra);
            let (in_grads, untaken) = with_needed_inputs(needed, per_example, || {
                with_running_totals(offered, || (step.vjp)(&step.saved, &out_grads, batch))
            });
            let in_grads = in_grads.map_err(|e| Error {
                message: format!(
                    "{} (while computing the gradient of {})",
                    e.message, step.op
                ),
                ..e
            })?;
            let mut routed: SmallVec<[(u32, Tensor); 2]> = SmallVec::new();
            // Totals the VJP did not take go back first, in their slots' order of old.
            for (k, total) in untaken {
                if let Some(&(_, slot)) = origins.iter().find(|(j, _)| *j == k) {
                    routed.push((slot, total));
                }
            }
            for (k, grad) in in_grads.into_iter().enumerate().take(step.inputs.len()) {
                let slot = step.input_slot(k);
                if let (Some(grad), true) = (grad, slot != NO_SLOT) {
                    routed.push((slot, grad));
                }
            }
            routed
        };
        nodes.release(live.at);
        for (slot, grad) in in_grads {
            accumulate(&mut grads[slot as usize], grad)?;
        }
    }
    let connected = &nodes.plan().connected;
    Ok(keep
        .iter()
        .filter_map(|id| {
            let slot = connected.named.get(id)?;
            grads[*slot as usize].take().map(|g| (*id, g))
        })
        .collect())
}

thread_local! {
    /// Which inputs of the VJP now running the sweep will use (bit k: input k). All, outside a
    /// sweep.
    static NEEDED_INPUTS: std::cell::Cell<u64> = const { std::cell::Cell::new(u64::MAX) };
    /// Which inputs of the VJP now running get per-example gradients (bit k: input k). None,
    /// outside a per-example sweep.
    static PER_EXAMPLE_INPUTS: std::cell::Cell<u64> = const { std::cell::Cell::new(0) };
}

fn needed_bit(k: usize) -> u64 {
    1 << k.min(63)
}

/// Runs a VJP with `mask` as its needed inputs and `per_example` as its per-example ones,
/// restoring the previous masks after (a VJP may run a nested sweep).
fn with_needed_inputs<R>(mask: u64, per_example: u64, vjp: impl FnOnce() -> R) -> R {
    let previous = NEEDED_INPUTS.with(|n| n.replace(mask));
    let previous_example = PER_EXAMPLE_INPUTS.with(|n| n.replace(per_example));
    let result = vjp();
    NEEDED_INPUTS.with(|n| n.set(previous));
    PER_EXAMPLE_INPUTS.with(|n| n.set(previous_example));
    result
}

/// Whether the VJP now running gives input `k` its gradient per example: `[b, input.shape..]`,
/// row `i` through output row `i` alone (only asked of ops recorded with
/// `record_per_example`, for inputs whose rows they mix; see per_example.rs).
pub fn per_example_input(k: usize) -> bool {
    PER_EXAMPLE_INPUTS.with(|n| n.get() & needed_bit(k) != 0)
}

/// Whether the sweep running this VJP will use the gradient of input `k` (TensorFlow's
/// `skip_input_indices`). A VJP may return `None` for an input that is not needed instead of
/// computing it: in a vectorised Jacobian the gradient of a constant weight matrix is the
/// biggest tensor of the sweep.
pub fn input_needed(k: usize) -> bool {
    NEEDED_INPUTS.with(|n| n.get() & needed_bit(k) != 0)
}

thread_local! {
    /// The running gradient totals offered to the VJP now running, by input (see
    /// [`take_running_total`]).
    static RUNNING_TOTALS: std::cell::RefCell<SmallVec<[(usize, Tensor); 2]>> =
        std::cell::RefCell::new(SmallVec::new());
}

/// For each slot, the slot of the variable it is a read of (`NO_SLOT` for the rest): a
/// `ReadVariable` node passes its gradient on unchanged, so a total of the variable's is offered
/// to the ops that use the read (see [`offer_totals`]). Empty when the plan reads none.
fn variable_reads(plan: &Plan) -> Vec<u32> {
    let mut reads = Vec::new();
    for &live in &plan.live {
        let step = plan.step(live);
        if step.op == "ReadVariable" && step.input_connected(0) {
            if let [output] = step.output_slots() {
                if reads.is_empty() {
                    reads = vec![NO_SLOT; plan.connected.len()];
                }
                reads[*output as usize] = step.input_slot(0);
            }
        }
    }
    reads
}

/// The running totals offered to a VJP, and the slot each came from (by input).
type Offer = (SmallVec<[(usize, Tensor); 2]>, SmallVec<[(usize, u32); 2]>);

/// Takes out of `grads` the running totals of `step`'s inputs for its VJP to add its own
/// gradients into (see [`take_running_total`]), in a plain gradient sweep (`extra` 0: no batch
/// rows, no per-example inputs) that nothing records, each slot once. An input that is a read
/// of a variable (`reads`) with no total of its own yet is offered the variable's: the sum
/// flows back to the variable through the read's identity VJP, the same sum in the same
/// order. Not a read that is itself a source or target (`kept`): its gradient is returned.
fn offer_totals(
    step: &Step<'_>,
    grads: &mut [Option<Tensor>],
    kept: &[bool],
    reads: &[u32],
    extra: usize,
) -> Offer {
    let mut origins: SmallVec<[(usize, u32); 2]> = SmallVec::new();
    if extra != 0 {
        return (SmallVec::new(), origins);
    }
    for k in 0..step.inputs.len() {
        if !step.input_connected(k) {
            continue;
        }
        let slot = step.input_slot(k);
        let origin = match reads.get(slot as usize) {
            _ if grads[slot as usize].is_some() => slot,
            Some(&read) if read != NO_SLOT && !kept[slot as usize] => read,
            _ => continue,
        };
        let repeated = (0..k).any(|j| step.input_slot(j) == slot);
        let taken = origins.iter().any(|&(_, o)| o == origin);
        if !repeated && !taken && grads[origin as usize].is_some() {
            origins.push((k, origin));
        }
    }
    if origins.is_empty() || crate::tape::any_tape_recording() {
        origins.clear();
        return (SmallVec::new(), origins);
    }
    let offered = origins
        .iter()
        .filter_map(|&(k, origin)| Some((k, grads[origin as usize].take()?)))
        .collect();
    (offered, origins)
}

/// Runs a VJP with `offered` as its running totals; gives back its result and the totals it
/// did not take.
fn with_running_totals<R>(
    offered: SmallVec<[(usize, Tensor); 2]>,
    vjp: impl FnOnce() -> R,
) -> (R, SmallVec<[(usize, Tensor); 2]>) {
    let previous = RUNNING_TOTALS.with(|t| t.replace(offered));
    let result = vjp();
    let untaken = RUNNING_TOTALS.with(|t| t.replace(previous));
    (result, untaken)
}

/// The gradient the sweep has accumulated so far for input `k` of the VJP now running, handed
/// over: the VJP must then return that total plus its own gradient as input `k`'s gradient.
/// A VJP that can add its gradient into the total's buffer (a GEMM that accumulates) saves the
/// separate sum; one that does not call this changes nothing. `None` when there is no total,
/// or when the sum must be recorded (a tape records the sweep), in batched or per-example
/// sweeps, and for an input that shares its gradient with an earlier input of the same op.
pub fn take_running_total(k: usize) -> Option<Tensor> {
    RUNNING_TOTALS.with(|t| {
        let mut totals = t.borrow_mut();
        let at = totals.iter().position(|(j, _)| *j == k)?;
        Some(totals.remove(at).1)
    })
}

fn accumulate(total: &mut Option<Tensor>, grad: Tensor) -> Result<()> {
    *total = Some(match total.take() {
        Some(previous) => ops::accumulate(previous, grad)?,
        None => grad,
    });
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
            // A gradient may be a shared constant (a VJP's `scalar_like`); a user gets their own.
            Some(g) if s.dtype().is_differentiable() && g.is_shared_scalar() => Ok(Some(g.alias())),
            Some(g) if s.dtype().is_differentiable() => Ok(Some(g.clone())),
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
        (Unconnected::Zero, _) if source.dtype().is_differentiable() => {
            Tensor::try_full(method, shape, source.dtype(), 0.0).map(Some)
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
        let target_refs: Vec<&Tensor> = targets.iter().collect();
        let source_ids: Vec<TensorId> = sources.iter().map(Source::id).collect();
        let plan = plan(&mut self.lock(), &target_refs, sources, release);
        let diagnosis = (unconnected == Unconnected::Raise).then(|| diagnose(&plan));
        let keep: FxHashSet<TensorId> = source_ids.iter().copied().collect();
        let mut grads = sweep_once(plan, seeds, &keep)?;
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
