//! The tape: an arena of recorded nodes, and the thread-local stack of active tapes.
//!
//! Nodes are appended in execution order, so the arena order is a topological order and the
//! backward sweep (backward.rs) walks it downwards. The tape knows nothing about individual
//! ops: a node is a name, input and output ids, the tensors its VJP saved, and the VJP.
pub(crate) mod axes;
mod backward;
mod diagnose;
mod hessian;
mod jacobian;
mod per_example;
pub(crate) mod record;
mod rows;
mod transposes;
mod vmap;

use std::cell::RefCell;
use std::sync::{Arc, Mutex, MutexGuard};

use rustc_hash::{FxHashMap, FxHashSet};
use smallvec::SmallVec;

use crate::dtype::DType;
use crate::error::{Error, Result};
use crate::tensor::{Tensor, TensorId};
use crate::variable::Variable;

pub(crate) use axes::{AxisMap, AxisTable, Rows};
/// [`AxisMap::ELEMENTWISE`]: every input lines up with the output from its last axis.
pub(crate) const ALIGNED: AxisMap = AxisMap::ELEMENTWISE;
pub use backward::{input_needed, per_example_input, take_running_total, Unconnected};
pub use record::record_custom;
pub(crate) use record::{mixes_input, record_batched, record_multi, record_per_example};
pub use rows::{JacobianOptions, JacobianStrategy};
pub use transposes::sweep_transpose;
pub use vmap::BatchRows;

/// A VJP: given the tensors the op saved and the gradient flowing into each of its outputs
/// (`None` where nothing flows), the gradient for each input (`None` where there is none).
/// It is written with rustape's own ops, so an outer tape records it (higher orders).
///
/// The last argument is the batch rank: how many leading axes the cotangents carry beyond the
/// op's output shape (0 in a plain gradient; 1 in a vectorised Jacobian, where that axis stacks
/// the seeds of many rows). The input gradients carry the same leading axes. Only ops recorded
/// as batchable are ever called with a batch rank above 0.
pub type Vjp = dyn Fn(&[Tensor], &[Option<Tensor>], usize) -> Result<Grads> + Send + Sync;

/// A VJP's input gradients, one per input: inline for up to two (no allocation per node).
pub type Grads = SmallVec<[Option<Tensor>; 2]>;

/// `grads![a, b]`: a VJP's [`Grads`], as `vec!` makes a `Vec`.
#[macro_export]
macro_rules! grads {
    ($($g:expr),* $(,)?) => {
        $crate::tape::Grads::from_iter([$($g),*])
    };
}

/// A node's VJP. One that captures nothing (most arithmetic and unary ops) is a `'static`
/// reference: a zero-sized closure needs no allocation, and the tape records millions of them.
/// A foreign one (a custom gradient) carries state the engine never looks into.
#[derive(Clone)]
pub(crate) enum VjpRef {
    Static(&'static Vjp),
    Shared(Arc<Vjp>),
    Foreign(Arc<ForeignVjp>),
}

/// The VJP of a node recorded for code outside the engine (a custom gradient), with that
/// code's state (for Python: the callable and what it holds). Each tape recording the node
/// gets its own, so a binding can report the state as owned by that tape (the Python garbage
/// collector's traversal: see [`Tape::visit_foreign`]).
pub struct ForeignVjp {
    /// The VJP (it typically holds `state` too).
    pub vjp: Box<Vjp>,
    /// The state, for [`Tape::visit_foreign`] and [`Tape::clear_foreign`].
    pub state: Arc<dyn std::any::Any + Send + Sync>,
}

impl ForeignVjp {
    /// A VJP with no foreign state, shared by every tape that records the op (Rust code's
    /// custom gradients: `record_custom(name, inputs, outputs, || ForeignVjp::shared(vjp.clone()))`).
    pub fn shared(vjp: Arc<Vjp>) -> ForeignVjp {
        ForeignVjp {
            vjp: Box::new(
                move |saved: &[Tensor], grads: &[Option<Tensor>], batch: usize| {
                    vjp(saved, grads, batch)
                },
            ),
            state: Arc::new(()),
        }
    }
}

impl VjpRef {
    pub(crate) fn new<F>(vjp: F) -> VjpRef
    where
        F: Fn(&[Tensor], &[Option<Tensor>], usize) -> Result<Grads> + Send + Sync + 'static,
    {
        if std::mem::size_of::<F>() == 0 {
            // Leaking a zero-sized value allocates and loses nothing.
            VjpRef::Static(Box::leak(Box::new(vjp)))
        } else {
            VjpRef::Shared(Arc::new(vjp))
        }
    }
}

impl std::ops::Deref for VjpRef {
    type Target = Vjp;
    fn deref(&self) -> &Vjp {
        match self {
            VjpRef::Static(f) => *f,
            VjpRef::Shared(f) => f.as_ref(),
            VjpRef::Foreign(f) => f.vjp.as_ref(),
        }
    }
}

impl From<Arc<Vjp>> for VjpRef {
    fn from(vjp: Arc<Vjp>) -> VjpRef {
        VjpRef::Shared(vjp)
    }
}

#[derive(Clone)]
pub(crate) struct Node {
    pub op: &'static str,
    /// Where each input came from on this tape when the op ran.
    pub inputs: SmallVec<[InputRef; 2]>,
    pub outputs: SmallVec<[TensorId; 1]>,
    /// Dropped once the VJP has run on a non-persistent tape.
    pub saved: SmallVec<[Tensor; 2]>,
    pub vjp: VjpRef,
    /// Where each input's axes go in the outputs (see `axes`): what `batch_jacobian` follows.
    pub rows: AxisMap,
    /// Bit 0 ([`BATCHABLE`]): the VJP accepts cotangents with leading batch axes (a vectorised
    /// Jacobian may use it). Bit 1 ([`PER_EXAMPLE`]): it can give per-example gradients for the
    /// inputs whose rows it mixes (see per_example.rs), so a Jacobian over a batch may run in
    /// one sweep. Bit 2 ([`CALLER_THREAD`]): the VJP calls back into the caller's code (a
    /// Python function), so it runs on the thread that asked for the gradient, never on a pool
    /// thread, where it could wait on a lock the caller holds, or on the pool itself. One byte
    /// beside `rows` keeps a node at 120 bytes.
    pub batching: u8,
}

/// [`Node::batching`]'s bits.
pub(crate) const BATCHABLE: u8 = 1;
pub(crate) const PER_EXAMPLE: u8 = 2;
pub(crate) const CALLER_THREAD: u8 = 4;

impl Node {
    /// The VJP accepts cotangents with leading batch axes.
    pub fn batchable(&self) -> bool {
        self.batching & BATCHABLE != 0
    }
    /// The VJP can give per-example gradients (see per_example.rs).
    pub fn per_example(&self) -> bool {
        self.batching & PER_EXAMPLE != 0
    }
    /// The VJP must run on the thread that asked for the gradient (it calls the caller's code).
    pub fn caller_thread(&self) -> bool {
        self.batching & CALLER_THREAD != 0
    }
}

/// Where a node's input (or a tracked tensor) comes from on one tape: output `k` of node `i`
/// (so `plan` walks the graph by index, never by hashing ids), or a tensor no node of this tape
/// produced (watched, a variable, or a constant), by its id. Packed in a u64: ids stay below
/// 2^62 (shared scalars set bit 63), and bit 62 marks a node output (node in bits 30..62, `k`
/// in bits 0..30: an op has fewer than [`MAX_OUTPUTS`] outputs, which ops with a variable
/// number of outputs check with [`check_output_count`]).
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
pub(crate) struct InputRef(u64);

const PRODUCED: u64 = 1 << 62;
const OUTPUT_BITS: u32 = 30;

/// How many outputs one op may have (2^30: far more than memory holds tensors for).
pub const MAX_OUTPUTS: usize = 1 << OUTPUT_BITS;

/// A ValueError naming `op` when it would make `count` outputs, more than a node holds.
pub fn check_output_count(op: &str, count: usize) -> Result<()> {
    if count >= MAX_OUTPUTS {
        return Err(Error::value(
            op,
            format!("{count} outputs are more than one op may have ({MAX_OUTPUTS})"),
        ));
    }
    Ok(())
}

impl InputRef {
    /// An input that is a constant wherever it is used (no id names it).
    pub const CONSTANT: InputRef = InputRef(crate::tensor::SHARED_SCALAR_ID);
    pub fn leaf(id: TensorId) -> InputRef {
        InputRef(id)
    }
    pub fn produced(node: u32, k: usize) -> InputRef {
        // Ops check their output count (`check_output_count`); recording refuses more.
        debug_assert!(k < MAX_OUTPUTS);
        InputRef(PRODUCED | (node as u64) << OUTPUT_BITS | k as u64)
    }
    /// `(node, k)` for a node output.
    pub fn node_output(self) -> Option<(usize, usize)> {
        (self.0 & (PRODUCED | crate::tensor::SHARED_SCALAR_ID) == PRODUCED).then(|| {
            let bits = self.0 & !PRODUCED;
            (
                (bits >> OUTPUT_BITS) as usize,
                (bits & ((1 << OUTPUT_BITS) - 1)) as usize,
            )
        })
    }
    /// The id of a leaf.
    pub fn leaf_id(self) -> Option<TensorId> {
        self.node_output().is_none().then_some(self.0)
    }
    /// A shared constant (never a source: no user can name it).
    pub fn is_constant(self) -> bool {
        self.0 & crate::tensor::SHARED_SCALAR_ID != 0
    }
}

/// An append-only list in fixed-size chunks: growing it never copies what it holds, so a tape
/// of millions of nodes never has its old and new arrays alive at once (a `Vec` doubling does).
pub(crate) struct Arena<T> {
    chunks: Vec<Vec<T>>,
    len: usize,
}

const CHUNK: usize = 4096;

impl<T> Default for Arena<T> {
    fn default() -> Self {
        Arena {
            chunks: Vec::new(),
            len: 0,
        }
    }
}

impl<T> Arena<T> {
    pub fn len(&self) -> usize {
        self.len
    }
    pub fn push(&mut self, item: T) {
        if self.len % CHUNK == 0 {
            self.chunks.push(Vec::with_capacity(CHUNK));
        }
        self.chunks
            .last_mut()
            .expect("a chunk was just ensured")
            .push(item);
        self.len += 1;
    }
    pub fn iter(&self) -> impl Iterator<Item = &T> {
        self.chunks.iter().flatten()
    }
    pub fn clear(&mut self) {
        self.chunks.clear();
        self.len = 0;
    }
}

impl<T> std::ops::Index<usize> for Arena<T> {
    type Output = T;
    fn index(&self, i: usize) -> &T {
        &self.chunks[i / CHUNK][i % CHUNK]
    }
}

impl<T> std::ops::IndexMut<usize> for Arena<T> {
    fn index_mut(&mut self, i: usize) -> &mut T {
        &mut self.chunks[i / CHUNK][i % CHUNK]
    }
}

impl<T> IntoIterator for Arena<T> {
    type Item = T;
    type IntoIter = std::iter::Flatten<std::vec::IntoIter<Vec<T>>>;
    fn into_iter(self) -> Self::IntoIter {
        self.chunks.into_iter().flatten()
    }
}

pub(crate) struct TapeState {
    pub persistent: bool,
    pub watch_accessed_variables: bool,
    /// On the active stack (between enter and exit).
    pub active: bool,
    /// False inside `stop_recording`.
    pub recording: bool,
    /// A non-persistent tape has computed its one set of gradients.
    pub used: bool,
    pub nodes: Arena<Node>,
    /// The axis descriptions too long for a node (`AxisMap::table` indexes it).
    pub tables: Vec<AxisTable>,
    /// The ids the tape tracks that no tensor's producer hint finds: watched tensors and
    /// variables (as leaves), and outputs whose hint another tape holds (nested tapes).
    pub tracked: FxHashMap<TensorId, InputRef>,
    pub watched_variables: Vec<Variable>,
}

impl TapeState {
    /// Where `t` comes from on this tape, if the tape tracks it.
    pub fn origin(&self, t: &Tensor) -> Option<InputRef> {
        if t.is_shared_scalar() {
            return None;
        }
        if let Some((node, k)) = t.producer_hint() {
            if self.has_output(node as usize, k, t.id()) {
                return Some(InputRef::produced(node, k));
            }
        }
        self.tracked.get(&t.id()).copied()
    }
    /// Whether output `k` of node `node` exists and has id `id` (one comparison, however many
    /// outputs the node has).
    fn has_output(&self, node: usize, k: usize, id: TensorId) -> bool {
        node < self.nodes.len() && self.nodes[node].outputs.get(k) == Some(&id)
    }
    /// The origins of `inputs` on this tape (untracked ones as leaves), or `None` when the tape
    /// tracks none of them and so records nothing.
    pub fn origins(&self, inputs: &[&Tensor]) -> Option<SmallVec<[InputRef; 2]>> {
        let mut refs = SmallVec::new();
        let mut any = false;
        for t in inputs {
            match self.origin(t) {
                Some(r) => {
                    any = true;
                    refs.push(r);
                }
                None => refs.push(InputRef::leaf(t.id())),
            }
        }
        any.then_some(refs)
    }
    /// The id an input refers to.
    pub fn input_id(&self, input: InputRef) -> TensorId {
        match input.node_output() {
            Some((node, k)) => self.nodes[node].outputs[k],
            None => input.0,
        }
    }
    /// Marks `outputs` as produced by node `index` (by their hint, or in `tracked`).
    pub fn mark_outputs(&mut self, index: u32, outputs: &[&Tensor]) {
        for (k, t) in outputs.iter().enumerate() {
            if !t.hint_producer(index, k) {
                self.tracked.insert(t.id(), InputRef::produced(index, k));
            }
        }
    }
}

/// What a gradient is taken with respect to: a tensor, or a variable (all its reads summed).
#[derive(Clone)]
pub enum Source {
    /// A tensor (watched on the tape).
    Tensor(Tensor),
    /// A variable: the gradient sums over all of its recorded reads.
    Variable(Variable),
}

impl Source {
    /// The id of the tensor, or of the variable's handle.
    pub fn id(&self) -> TensorId {
        match self {
            Source::Tensor(t) => t.id(),
            Source::Variable(v) => v.id(),
        }
    }
    /// The shape of the tensor or of the variable's current value.
    pub fn shape(&self) -> Vec<usize> {
        match self {
            Source::Tensor(t) => t.shape().to_vec(),
            Source::Variable(v) => v.shape(),
        }
    }
    /// The dtype.
    pub fn dtype(&self) -> DType {
        match self {
            Source::Tensor(t) => t.dtype(),
            Source::Variable(v) => v.dtype(),
        }
    }
}

impl From<&Tensor> for Source {
    fn from(t: &Tensor) -> Source {
        Source::Tensor(t.clone())
    }
}

impl From<&Variable> for Source {
    fn from(v: &Variable) -> Source {
        Source::Variable(v.clone())
    }
}

thread_local! {
    /// The tapes entered on this thread, innermost last. Empty means the fast path.
    static ACTIVE: RefCell<Vec<Tape>> = const { RefCell::new(Vec::new()) };
}

/// Runs `f` on the tapes active on this thread.
pub(crate) fn with_active<R>(f: impl FnOnce(&[Tape]) -> R) -> R {
    ACTIVE.with(|active| f(&active.borrow()))
}

thread_local! {
    /// Active stacks set aside by `pause_all_tapes`, restored by `resume_all_tapes`.
    static PAUSED: RefCell<Vec<Vec<Tape>>> = const { RefCell::new(Vec::new()) };
}

/// Stops every tape on this thread from recording until the matching `resume_all_tapes`
/// (nests). Used for `assign_add` and for a custom gradient's forward function.
pub fn pause_all_tapes() {
    let taken = ACTIVE.with(|active| std::mem::take(&mut *active.borrow_mut()));
    PAUSED.with(|paused| paused.borrow_mut().push(taken));
}

/// Lets the tapes paused by [`pause_all_tapes`] record again.
pub fn resume_all_tapes() {
    if let Some(taken) = PAUSED.with(|paused| paused.borrow_mut().pop()) {
        ACTIVE.with(|active| {
            let mut active = active.borrow_mut();
            let entered_meanwhile = std::mem::take(&mut *active);
            *active = taken;
            active.extend(entered_meanwhile);
        });
    }
}

/// Runs `f` with no tape on this thread recording.
pub fn without_recording<R>(f: impl FnOnce() -> R) -> R {
    struct Resume;
    impl Drop for Resume {
        fn drop(&mut self) {
            resume_all_tapes();
        }
    }
    pause_all_tapes();
    let _resume = Resume;
    f()
}

/// The fast path: no tape entered on this thread means nothing to record.
pub(crate) fn any_tape_active() -> bool {
    ACTIVE.with(|active| !active.borrow().is_empty())
}

/// True when some tape on this thread is recording (used to keep nested work on this thread).
pub fn any_tape_recording() -> bool {
    with_active(|tapes| tapes.iter().any(|t| t.lock().recording))
}

/// A gradient tape. Cheap to clone: clones share one recording.
#[derive(Clone)]
pub struct Tape(Arc<Mutex<TapeState>>);

/// Leaves the tape's recording context when dropped (see [`Tape::enter`]).
pub struct ActiveTape(Tape);

impl Drop for ActiveTape {
    fn drop(&mut self) {
        self.0.exit();
    }
}

/// Resumes recording when dropped (see [`Tape::stop_recording`]).
pub struct PausedTape(Tape);

impl Drop for PausedTape {
    fn drop(&mut self) {
        self.0.resume_recording();
    }
}

impl Tape {
    /// A tape; `persistent` allows several gradient calls, `watch_accessed_variables` watches the
    /// trainable variables read while it records. It records once entered ([`Tape::enter`]).
    pub fn new(persistent: bool, watch_accessed_variables: bool) -> Tape {
        Tape(Arc::new(Mutex::new(TapeState {
            persistent,
            watch_accessed_variables,
            active: false,
            recording: false,
            used: false,
            nodes: Arena::default(),
            tables: Vec::new(),
            tracked: FxHashMap::default(),
            watched_variables: Vec::new(),
        })))
    }

    pub(crate) fn lock(&self) -> MutexGuard<'_, TapeState> {
        // A panic while holding the lock cannot leave the state half-written in a way that
        // matters more than refusing all later use, so recover the guard.
        self.0
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
    }

    /// Whether both handles are the same tape.
    pub fn same_as(&self, other: &Tape) -> bool {
        Arc::ptr_eq(&self.0, &other.0)
    }

    /// Whether the tape allows several gradient calls.
    pub fn persistent(&self) -> bool {
        self.lock().persistent
    }

    /// Whether the tape is recording now (entered and not paused).
    pub fn is_recording(&self) -> bool {
        let state = self.lock();
        state.active && state.recording
    }

    /// Enters the recording context: ops on this thread that touch what the tape watches are
    /// recorded until the returned guard is dropped.
    pub fn enter(&self) -> Result<ActiveTape> {
        self.push()?;
        Ok(ActiveTape(self.clone()))
    }

    /// `enter` without a guard, for callers that pair it with [`Tape::exit`] themselves
    /// (Python's `__enter__` / `__exit__`).
    pub fn push(&self) -> Result<()> {
        {
            let mut state = self.lock();
            if state.active {
                return Err(Error::tape(
                    "GradientTape.__enter__",
                    "this tape is already recording; a tape cannot be entered twice",
                ));
            }
            state.active = true;
            state.recording = true;
        }
        ACTIVE.with(|active| active.borrow_mut().push(self.clone()));
        Ok(())
    }

    /// Leaves the recording context. Tapes may be exited in any order.
    pub fn exit(&self) {
        {
            let mut state = self.lock();
            state.active = false;
            state.recording = false;
        }
        ACTIVE.with(|active| {
            let mut active = active.borrow_mut();
            if let Some(i) = active.iter().rposition(|t| t.same_as(self)) {
                active.remove(i);
            }
        });
    }

    /// Pauses recording on this tape until the guard is dropped.
    pub fn stop_recording(&self) -> Result<PausedTape> {
        self.pause_recording()?;
        Ok(PausedTape(self.clone()))
    }

    /// Pauses recording (TensorFlow's `stop_recording`); errors if the tape is not recording.
    pub fn pause_recording(&self) -> Result<()> {
        let mut state = self.lock();
        if !(state.active && state.recording) {
            return Err(Error::tape(
                "GradientTape.stop_recording",
                "the tape is not recording (stop_recording is only valid inside the tape's `with` block)",
            ));
        }
        state.recording = false;
        Ok(())
    }

    /// Resumes recording after [`Tape::pause_recording`].
    pub fn resume_recording(&self) {
        let mut state = self.lock();
        if state.active {
            state.recording = true;
        }
    }

    /// Watches a tensor: ops that use it are recorded from now on.
    pub fn watch(&self, tensor: &Tensor) {
        let mut state = self.lock();
        if state.origin(tensor).is_none() {
            state
                .tracked
                .insert(tensor.id(), InputRef::leaf(tensor.id()));
        }
    }

    /// Watches a variable: every read of it from now on is recorded and differentiable.
    pub fn watch_variable(&self, variable: &Variable) {
        let mut state = self.lock();
        watch_variable_locked(&mut state, variable);
    }

    /// The variables watched, in the order they were created (TensorFlow's order: its tape
    /// keeps them in a set ordered by id).
    pub fn watched_variables(&self) -> Vec<Variable> {
        let mut watched = self.lock().watched_variables.clone();
        watched.sort_by_key(Variable::id);
        watched
    }

    /// Forgets everything recorded and watched; the tape keeps recording if it was.
    /// Calls `visit` with the state of every foreign VJP (see [`ForeignVjp`]) on the tape: what
    /// the tape owns of code outside the engine. Does nothing if the tape is busy (locked
    /// elsewhere): a garbage collector's traversal must not block, and reporting less is safe.
    pub fn visit_foreign(&self, visit: &mut dyn FnMut(&(dyn std::any::Any + Send + Sync))) {
        let Ok(state) = self.0.try_lock() else {
            return;
        };
        for node in state.nodes.iter() {
            if let VjpRef::Foreign(f) = &node.vjp {
                visit(f.state.as_ref());
            }
        }
    }

    /// Calls `clear` with the state of every foreign VJP on the tape (a garbage collector
    /// breaking a reference cycle through it).
    pub fn clear_foreign(&self, clear: &mut dyn FnMut(&(dyn std::any::Any + Send + Sync))) {
        let state = self.lock();
        for node in state.nodes.iter() {
            if let VjpRef::Foreign(f) = &node.vjp {
                clear(f.state.as_ref());
            }
        }
    }

    /// Forgets everything recorded and watched (TensorFlow's `tape.reset()`).
    pub fn reset(&self) {
        let mut state = self.lock();
        state.nodes.clear();
        state.tables.clear();
        state.tracked.clear();
        state.watched_variables.clear();
        state.used = false;
    }

    /// Number of recorded ops.
    pub fn len(&self) -> usize {
        self.lock().nodes.len()
    }

    /// Whether nothing has been recorded.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Bytes of tensor data the tape keeps alive (each shared buffer counted once).
    pub fn nbytes(&self) -> usize {
        let state = self.lock();
        let mut seen = FxHashSet::default();
        state
            .nodes
            .iter()
            .flat_map(|n| n.saved.iter())
            .filter(|t| seen.insert(t.data().storage_key()))
            .map(|t| t.nbytes())
            .sum()
    }

    /// The recorded ops, one line each: index, op, input ids -> output ids.
    pub fn summary(&self) -> String {
        let state = self.lock();
        let mut out = format!(
            "GradientTape: {} ops, persistent={}, watching {} ids\n",
            state.nodes.len(),
            state.persistent,
            state
                .tracked
                .values()
                .filter(|r| r.leaf_id().is_some())
                .count()
        );
        for (i, n) in state.nodes.iter().enumerate() {
            // A Python number or VJP constant (a shared scalar) shows as `const`.
            let inputs: Vec<String> = n
                .inputs
                .iter()
                .map(|&r| match r.is_constant() {
                    true => "const".to_string(),
                    false => state.input_id(r).to_string(),
                })
                .collect();
            out.push_str(&format!(
                "{i:>6}  {:<20} [{}] -> {:?}\n",
                n.op,
                inputs.join(", "),
                &n.outputs[..]
            ));
        }
        out
    }

    /// The recorded graph in Graphviz DOT: tensors as ellipses, ops as boxes.
    pub fn to_dot(&self) -> String {
        let state = self.lock();
        let mut out = String::from("digraph tape {\n  rankdir=LR;\n");
        for (id, origin) in &state.tracked {
            if origin.leaf_id().is_some() {
                out.push_str(&format!(
                    "  t{id} [label=\"watched {id}\", shape=ellipse, style=bold];\n"
                ));
            }
        }
        for (i, n) in state.nodes.iter().enumerate() {
            out.push_str(&format!("  op{i} [label=\"{}\", shape=box];\n", n.op));
            for (k, &input) in n.inputs.iter().enumerate() {
                if input.is_constant() {
                    out.push_str(&format!(
                        "  c{i}_{k} [label=\"const\", shape=plaintext];\n  c{i}_{k} -> op{i};\n"
                    ));
                } else {
                    let id = state.input_id(input);
                    out.push_str(&format!("  t{id} -> op{i};\n"));
                }
            }
            for id in &n.outputs {
                out.push_str(&format!(
                    "  t{id} [label=\"{id}\", shape=ellipse];\n  op{i} -> t{id};\n"
                ));
            }
        }
        out.push_str("}\n");
        out
    }

    /// Marks a non-persistent tape as used, or refuses a second use.
    pub(crate) fn take_use(&self, method: &str) -> Result<bool> {
        let mut state = self.lock();
        if state.persistent {
            return Ok(false);
        }
        if state.used {
            return Err(Error::tape(
                format!("GradientTape.{method}"),
                "a non-persistent GradientTape can only be used to compute one set of gradients \
                 (or jacobians); create it with persistent=True to call it more than once",
            ));
        }
        state.used = true;
        Ok(true)
    }
}

pub(crate) fn watch_variable_locked(state: &mut TapeState, variable: &Variable) {
    // A variable's id is never an op's output, so first insertion is first watch.
    if state
        .tracked
        .insert(variable.id(), InputRef::leaf(variable.id()))
        .is_none()
    {
        state.watched_variables.push(variable.clone());
    }
}
