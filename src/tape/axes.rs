//! Where a batch axis goes through each recorded op.
//!
//! Every node describes, for each of its inputs, which axis of its outputs carries each axis of
//! that input, or that the op mixes elements along it (a reduction over it, the contracted side
//! of a matmul, a slice that shifts it, ...). [`follow`] carries one tensor's batch axis forward
//! along a plan with these descriptions: `batch_jacobian` starts from its source's axis 0 and
//! refuses, naming the op, unless the batch arrives whole on the target's axis 0 (see
//! jacobian.rs). Per-example computations read the same information.
//!
//! The description is an [`AxisMap`]: 7 bytes in the node, nothing to allocate, for every op
//! whose map follows from a few axis masks (elementwise and broadcasting ops, reductions,
//! slices, stacking, transposes, matmul). The few that need shapes or long lists (`reshape`,
//! generalised diagonals, multi-output ops whose outputs differ in rank) put an [`AxisTable`]
//! in a side table of the tape, built only when a tape records the op.
use smallvec::SmallVec;

use super::backward::Plan;
use crate::ops::Shape;

/// Where the batch sits in one tensor: along axis `axis` of a rank-`rank` tensor, batch row `i`
/// being the `inner` consecutive indices from `(o * b + i) * inner` on that axis, for each
/// `o` below `size / (b * inner)` (`b` the batch size). A whole axis has `inner` 1 and the
/// axis's size `b`; a reshape that merges the batch axis with the axes after it makes `inner`
/// their product (and a reshape back restores the whole axis).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct BatchAxis {
    pub axis: usize,
    pub rank: usize,
    pub inner: usize,
}

impl BatchAxis {
    /// Axis 0 of a rank-`rank` tensor, whole: where a `batch_jacobian` source and target have it.
    pub fn leading(rank: usize) -> BatchAxis {
        BatchAxis {
            axis: 0,
            rank,
            inner: 1,
        }
    }
    /// Whether this is the whole of axis 0.
    pub fn is_leading(&self) -> bool {
        self.axis == 0 && self.inner == 1
    }
    fn moved_to(self, axis: usize, rank: usize) -> Fate {
        Fate::At(BatchAxis {
            axis,
            rank,
            inner: self.inner,
        })
    }
    /// The axis counted from the last (0: the last axis).
    fn counted_from_end(&self) -> usize {
        self.rank - 1 - self.axis
    }
}

/// What one op does to an input's batch axis, in one of its outputs.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Fate {
    /// The batch rows stay apart, on this axis of the output.
    At(BatchAxis),
    /// Elements of different batch rows meet in the output (or one row reaches several).
    Mixes,
    /// The op does not say where that axis goes (a legacy mask, an axis off axis 0).
    Unknown,
}

const REINDEX: u8 = 0;
const LEADING: u8 = 1;
const PERMUTE: u8 = 2;
const MATMUL: u8 = 3;
const MIX_PER_INPUT: u8 = 4;
const TABLE: u8 = 5;
const UNKNOWN: u8 = 6;
const STOP: u8 = 7;

/// Axis masks (counted from the last axis) hold this many axes; an op that would need a bit
/// beyond them is described as [`AxisMap::UNKNOWN`].
const MASK_AXES: usize = 13;
const MASK: u64 = (1 << MASK_AXES) - 1;
/// [`AxisMap::permute`] holds this many axes (a nibble each).
const PERMUTE_AXES: usize = 10;

/// How one node's inputs' axes become its outputs' axes (see the module docs). Built by the
/// constructors below; the recording fills in the output rank.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct AxisMap {
    kind: u8,
    /// The outputs' rank (saturating at 255, which no op reaches).
    out_rank: u8,
    data: [u8; 5],
}

/// Bit `rank - 1 - axis` (the axis counted from the last), or `None` past 64 axes.
fn end_bit(rank: usize, axis: usize) -> Option<u64> {
    let q = rank.checked_sub(axis + 1)?;
    (q < 64).then(|| 1u64 << q)
}

/// The mask (counted from the last axis) of `axes` of a rank-`rank` tensor.
fn end_mask(rank: usize, axes: impl IntoIterator<Item = usize>) -> Option<u64> {
    axes.into_iter()
        .try_fold(0u64, |mask, a| Some(mask | end_bit(rank, a)?))
}

impl AxisMap {
    /// Every input lines up with the output from its last axis (NumPy broadcasting): each axis
    /// of each input is the output's axis at the same distance from the end. Elementwise ops,
    /// broadcasting binary ops, `where`, casts, identities.
    pub const ELEMENTWISE: AxisMap = AxisMap {
        kind: REINDEX,
        out_rank: 0,
        data: [0; 5],
    };

    /// Nothing known: a batch axis reaching this op is refused (named as an op whose axes are
    /// not described).
    pub const UNKNOWN: AxisMap = AxisMap {
        kind: UNKNOWN,
        out_rank: 0,
        data: [0; 5],
    };

    /// No gradient passes from the outputs to the inputs (`stop_gradient`): the outputs
    /// depend on no source, so a plan gives them no gradient slot and nothing downstream of
    /// them runs in a backward pass.
    pub const STOP: AxisMap = AxisMap {
        kind: STOP,
        out_rank: 0,
        data: [0; 5],
    };

    /// Whether this is [`AxisMap::STOP`].
    pub(crate) fn stops_gradients(&self) -> bool {
        self.kind == STOP
    }

    /// The old row-mixing mask (bit `k` from `crate::tape::mixes_input(k)`): axis 0 of an
    /// input without its bit is the output's axis 0; an input with its bit mixes rows. Where
    /// the input's other axes go is not said, so a batch axis elsewhere is [`Fate::Unknown`].
    pub const fn leading(mask: u8) -> AxisMap {
        AxisMap {
            kind: LEADING,
            out_rank: 0,
            data: [mask, 0, 0, 0, 0],
        }
    }

    /// Aligned from the end like [`AxisMap::ELEMENTWISE`], except: input axes in `mix` mix
    /// their elements (a batch there is refused), those also in `drop` are removed, and the
    /// output axes in `new` are new (no input axis goes there). Masks count from the last
    /// axis, input axes for `mix` / `drop`, output axes for `new`.
    fn reindex_bits(mix: u64, drop: u64, new: u64) -> AxisMap {
        let mix = mix | drop;
        if (mix | drop | new) & !MASK != 0 {
            return AxisMap::UNKNOWN;
        }
        let packed = mix | drop << MASK_AXES | new << (2 * MASK_AXES);
        let b = packed.to_le_bytes();
        AxisMap {
            kind: REINDEX,
            out_rank: 0,
            data: [b[0], b[1], b[2], b[3], b[4]],
        }
    }

    /// The general aligned map of a rank-`in_rank` input (all inputs, aligned from the end):
    /// elements along input axes `mix` meet (a batch there is refused); axes `drop` (which mix
    /// too) disappear; the output (rank `out_rank`) has new axes `new`, the input's remaining
    /// axes in order around them. `strided_slice`, `gather`, `unstack`.
    pub fn select(
        in_rank: usize,
        mix: &[usize],
        drop: &[usize],
        out_rank: usize,
        new: &[usize],
    ) -> AxisMap {
        let masks = (|| {
            Some((
                end_mask(in_rank, mix.iter().copied())?,
                end_mask(in_rank, drop.iter().copied())?,
                end_mask(out_rank, new.iter().copied())?,
            ))
        })();
        match masks {
            Some((m, d, n)) => AxisMap::reindex_bits(m, d, n),
            None => AxisMap::UNKNOWN,
        }
    }

    /// Elements along `axes` of a rank-`rank` input meet, every axis stays where it is:
    /// softmax over an axis, cumsum, sort, concat/pad/tile along an axis, moments with
    /// keepdims.
    pub fn along(rank: usize, axes: &[usize]) -> AxisMap {
        AxisMap::select(rank, axes, &[], rank, &[])
    }

    /// A reduction of a rank-`rank` input over `axes` (kept as size 1 when `keepdims`).
    pub fn reduce(rank: usize, axes: &[usize], keepdims: bool) -> AxisMap {
        let drop: &[usize] = if keepdims { &[] } else { axes };
        let out_rank = rank - drop.len();
        AxisMap::select(rank, axes, drop, out_rank, &[])
    }

    /// Output axis `i` is input axis `perm[i]` (`transpose`).
    pub fn permute(perm: &[usize]) -> AxisMap {
        if perm.len() > PERMUTE_AXES || perm.iter().any(|&a| a >= perm.len()) {
            return AxisMap::UNKNOWN;
        }
        let mut packed = 0u64;
        for (i, &a) in perm.iter().enumerate() {
            packed |= (a as u64) << (4 * i);
        }
        let b = packed.to_le_bytes();
        AxisMap {
            kind: PERMUTE,
            out_rank: perm.len() as u8,
            data: [b[0], b[1], b[2], b[3], b[4]],
        }
    }

    /// `matmul(a, b, transpose_a, transpose_b)` of operands of rank 2 or more: their leading
    /// (batch) axes line up with the output's from the end; `a`'s row axis becomes the
    /// output's rows and `b`'s column axis its columns; the contracted axes mix.
    pub fn matmul(transpose_a: bool, transpose_b: bool) -> AxisMap {
        AxisMap {
            kind: MATMUL,
            out_rank: 0,
            data: [
                u8::from(transpose_a) | u8::from(transpose_b) << 1,
                0,
                0,
                0,
                0,
            ],
        }
    }

    /// Aligned from the end, input 0 mixing along its axes `first` and every other input along
    /// its axes `rest` (`solve(matrix, rhs)`: the matrix's last two axes, the rhs's rows).
    pub fn mix_per_input(
        first_rank: usize,
        first: &[usize],
        rest_rank: usize,
        rest: &[usize],
    ) -> AxisMap {
        let masks = end_mask(first_rank, first.iter().copied())
            .zip(end_mask(rest_rank, rest.iter().copied()));
        match masks {
            Some((f, r)) if (f | r) & !MASK == 0 => {
                let b = (f | r << MASK_AXES).to_le_bytes();
                AxisMap {
                    kind: MIX_PER_INPUT,
                    out_rank: 0,
                    data: [b[0], b[1], b[2], b[3], b[4]],
                }
            }
            _ => AxisMap::UNKNOWN,
        }
    }

    /// Entry `index` of the tape's side table.
    pub(crate) fn table(index: usize) -> AxisMap {
        let b = (index as u32).to_le_bytes();
        AxisMap {
            kind: TABLE,
            out_rank: 0,
            data: [b[0], b[1], b[2], b[3], 0],
        }
    }

    /// The index into the tape's side table, for a [`AxisMap::table`].
    pub(crate) fn table_index(&self) -> Option<usize> {
        let d = self.data;
        (self.kind == TABLE).then(|| u32::from_le_bytes([d[0], d[1], d[2], d[3]]) as usize)
    }

    /// The rank of output `j` (`tables`: the side table the plan carries), when recorded.
    pub(crate) fn output_rank(&self, j: usize, tables: &[AxisTable]) -> Option<usize> {
        match self.table_index() {
            None => Some(self.out_rank as usize),
            Some(i) => match tables.get(i)? {
                AxisTable::Reshape { to, .. } => Some(to.len()),
                AxisTable::Axes { ranks, .. } => ranks.get(j).or(ranks.last()).map(|&r| r as usize),
                AxisTable::Ranked { ranks, .. } => ranks.get(j).map(|&r| r as usize),
            },
        }
    }

    /// The same map with its outputs' rank (the recording sets it).
    pub(crate) fn with_out_rank(mut self, rank: usize) -> AxisMap {
        self.out_rank = rank.min(u8::MAX as usize) as u8;
        self
    }

    fn packed(&self) -> u64 {
        let d = self.data;
        u64::from_le_bytes([d[0], d[1], d[2], d[3], d[4], 0, 0, 0])
    }

    /// Where input `k`'s batch axis `at` goes in output `j`, for a batch of `batch` rows
    /// (`tables`: the side table the plan carries).
    pub(crate) fn follow(
        &self,
        k: usize,
        j: usize,
        at: BatchAxis,
        batch: usize,
        tables: &[AxisTable],
    ) -> Fate {
        let out_rank = self.out_rank as usize;
        // Position `p` from the end of the output, as a batch axis.
        let at_end = |p: usize| match p < out_rank {
            true => at.moved_to(out_rank - 1 - p, out_rank),
            false => Fate::Unknown,
        };
        let q = at.counted_from_end();
        match self.kind {
            REINDEX => {
                let packed = self.packed();
                let (mix, drop, new) = (
                    packed & MASK,
                    packed >> MASK_AXES & MASK,
                    packed >> (2 * MASK_AXES) & MASK,
                );
                if q < MASK_AXES && mix >> q & 1 != 0 {
                    return Fate::Mixes;
                }
                let below = if q < 64 { drop & ((1 << q) - 1) } else { drop };
                at_end(nth_kept_position(q - below.count_ones() as usize, new))
            }
            MIX_PER_INPUT => {
                let packed = self.packed();
                let mix = match k {
                    0 => packed & MASK,
                    _ => packed >> MASK_AXES & MASK,
                };
                match q < MASK_AXES && mix >> q & 1 != 0 {
                    true => Fate::Mixes,
                    false => at_end(q),
                }
            }
            LEADING => {
                if self.data[0] & crate::tape::mixes_input(k) != 0 {
                    Fate::Mixes
                } else if at.axis == 0 {
                    at.moved_to(0, out_rank)
                } else {
                    Fate::Unknown
                }
            }
            PERMUTE => {
                let packed = self.packed();
                let source = |i: usize| (packed >> (4 * i) & 0xF) as usize;
                match (0..out_rank).find(|&i| source(i) == at.axis) {
                    Some(i) if at.rank == out_rank => at.moved_to(i, out_rank),
                    _ => Fate::Unknown,
                }
            }
            MATMUL => {
                let transposed = self.data[0] >> k.min(1) & 1 != 0;
                // The operand's two matrix axes from the end: [rows, contracted] for `a`,
                // [contracted, columns] for `b`, swapped when transposed.
                let (keeps, to) = match (k, q) {
                    (_, q) if q >= 2 => return at_end(q),
                    (0, 0) => (transposed, 1),
                    (0, _) => (!transposed, 1),
                    (_, 0) => (!transposed, 0),
                    (_, _) => (transposed, 0),
                };
                match keeps {
                    true => at_end(to),
                    false => Fate::Mixes,
                }
            }
            TABLE => match self.table_index().and_then(|i| tables.get(i)) {
                Some(table) => table.follow(k, j, at, batch, tables),
                None => Fate::Unknown,
            },
            _ => Fate::Unknown,
        }
    }
}

/// The output position (from the end) of the `n`-th (from the end, from 0) input axis that an
/// aligned map keeps, the output axes in `new` (from the end) being new.
fn nth_kept_position(n: usize, new: u64) -> usize {
    let mut left = n;
    let mut p = 0;
    loop {
        if p >= MASK_AXES {
            return p + left;
        }
        if new >> p & 1 == 0 {
            if left == 0 {
                return p;
            }
            left -= 1;
        }
        p += 1;
    }
}

/// A description that does not fit an [`AxisMap`], kept in a side table of the tape.
#[derive(Clone, Debug)]
pub(crate) enum AxisTable {
    /// `reshape` from `from` to `to` (row-major): the batch survives when its rows stay
    /// contiguous blocks within one output axis.
    Reshape { from: Shape, to: Shape },
    /// For each input, the output axis of each of its axes ([`AxisTable::MIXES`] where the
    /// op mixes along it); the outputs' ranks.
    Axes {
        inputs: SmallVec<[SmallVec<[u8; 6]>; 2]>,
        ranks: SmallVec<[u8; 2]>,
    },
    /// `map` for outputs of different ranks (output `j` has rank `ranks[j]`).
    Ranked {
        map: AxisMap,
        ranks: SmallVec<[u8; 4]>,
    },
}

impl AxisTable {
    /// In [`AxisTable::Axes`]: the op mixes elements along this axis.
    pub const MIXES: u8 = u8::MAX;

    /// `reshape` from shape `from` to shape `to`.
    pub fn reshape(from: &[usize], to: &[usize]) -> AxisTable {
        AxisTable::Reshape {
            from: from.into(),
            to: to.into(),
        }
    }

    /// Per input, the output axis of each of its axes (`None`: mixes), for outputs of rank
    /// `out_rank`.
    pub fn axes(inputs: &[&[Option<usize>]], out_rank: usize) -> AxisTable {
        let code = |a: &Option<usize>| match a {
            Some(a) if *a < Self::MIXES as usize => *a as u8,
            _ => Self::MIXES,
        };
        AxisTable::Axes {
            inputs: inputs
                .iter()
                .map(|m| m.iter().map(code).collect())
                .collect(),
            ranks: SmallVec::from_elem(out_rank.min(u8::MAX as usize) as u8, 1),
        }
    }

    fn follow(
        &self,
        k: usize,
        j: usize,
        at: BatchAxis,
        batch: usize,
        tables: &[AxisTable],
    ) -> Fate {
        match self {
            AxisTable::Reshape { from, to } => reshaped(from, to, at, batch),
            AxisTable::Axes { inputs, ranks } => {
                let rank = ranks.get(j).or(ranks.last()).copied().unwrap_or(0) as usize;
                match inputs.get(k).and_then(|m| m.get(at.axis)) {
                    Some(&Self::MIXES) => Fate::Mixes,
                    Some(&a) if (a as usize) < rank && at.rank == inputs[k].len() => {
                        at.moved_to(a as usize, rank)
                    }
                    _ => Fate::Unknown,
                }
            }
            AxisTable::Ranked { map, ranks } => match ranks.get(j) {
                Some(&r) if map.table_index().is_none() => map
                    .with_out_rank(r as usize)
                    .follow(k, j, at, batch, tables),
                _ => Fate::Unknown,
            },
        }
    }
}

/// Where a reshape from `from` to `to` puts the batch `at` (rows of `batch`): the batch is a
/// run of `batch` blocks of `stride` elements in the flat (row-major) order, which a reshape
/// keeps; it is an axis of the output when one output axis holds all of it.
fn reshaped(from: &[usize], to: &[usize], at: BatchAxis, batch: usize) -> Fate {
    if from.len() != at.rank || at.axis >= from.len() || from.contains(&0) || to.contains(&0) {
        return Fate::Unknown;
    }
    let stride = at.inner * from[at.axis + 1..].iter().product::<usize>();
    let span = stride * batch;
    let mut after = 1usize;
    for axis in (0..to.len()).rev() {
        let whole = after * to[axis];
        if stride % after == 0 && whole % span == 0 {
            return Fate::At(BatchAxis {
                axis,
                rank: to.len(),
                inner: stride / after,
            });
        }
        if after > stride {
            break;
        }
        after = whole;
    }
    Fate::Mixes
}

/// How a recorded op describes its axes: an inline map, or a side-table entry built only if a
/// tape records the op. Op code passes an [`AxisMap`], the old `u8` mask (read as
/// [`AxisMap::leading`]), or `Rows::Table(&|| AxisTable::..)`.
#[derive(Clone, Copy)]
pub(crate) enum Rows<'a> {
    Map(AxisMap),
    Table(&'a dyn Fn() -> AxisTable),
}

impl From<AxisMap> for Rows<'_> {
    fn from(map: AxisMap) -> Self {
        Rows::Map(map)
    }
}

impl From<u8> for Rows<'_> {
    fn from(mask: u8) -> Self {
        Rows::Map(AxisMap::leading(mask))
    }
}

/// The node's map for `rows`, pushing a table into `tables` when it needs one. `ranks`: the
/// outputs' ranks.
pub(crate) fn finish(rows: Rows<'_>, ranks: &[usize], tables: &mut Vec<AxisTable>) -> AxisMap {
    let rank = ranks.first().copied().unwrap_or(0);
    let uniform = ranks.iter().all(|&r| r == rank);
    match rows {
        Rows::Map(map) if uniform => map.with_out_rank(rank),
        Rows::Map(map) => {
            tables.push(AxisTable::Ranked {
                map,
                ranks: ranks
                    .iter()
                    .map(|&r| r.min(u8::MAX as usize) as u8)
                    .collect(),
            });
            AxisMap::table(tables.len() - 1)
        }
        Rows::Table(build) => {
            tables.push(build());
            AxisMap::table(tables.len() - 1)
        }
    }
}

/// Copies `map`'s table entry (if any) from `from` into `to`, returning the map pointing at
/// the copy (a plan or a tape that takes some nodes of another).
pub(crate) fn copy_table(map: AxisMap, from: &[AxisTable], to: &mut Vec<AxisTable>) -> AxisMap {
    match map.table_index().and_then(|i| from.get(i)) {
        Some(table) => {
            to.push(table.clone());
            AxisMap::table(to.len() - 1)
        }
        None => map,
    }
}

/// A tensor's batch axis, as [`follow`] finds it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Track {
    /// The tensor does not depend on the batch (or is not on the plan).
    Free,
    /// The batch rows stay apart, on this axis; `moved_by` names the op that last took them
    /// off the whole of axis 0, if they are not there.
    At {
        batch: BatchAxis,
        moved_by: Option<&'static str>,
    },
    /// Rows met, or went where no description follows them.
    Mixed,
}

/// Where the batch axis is on every slot of a plan, from [`follow`].
pub(crate) struct Followed {
    /// By gradient slot (see `backward::Connected`).
    pub tracks: Vec<Track>,
    /// The ops where rows first met, in recording order, each once.
    pub mixing: Vec<&'static str>,
    /// The ops whose description does not say where the batch axis went, each once.
    pub unknown: Vec<&'static str>,
}

impl Followed {
    /// The track of the tensor in `slot` (`Free` for `NO_SLOT`).
    pub fn at(&self, slot: u32) -> Track {
        self.tracks
            .get(slot as usize)
            .copied()
            .unwrap_or(Track::Free)
    }
}

/// Carries batch axes forward along `plan`, in recording order, from `starts` (slot, where the
/// batch is there) for a batch of `batch` rows. A step's output gets the batch where every
/// input that has it puts it; rows meet where an input's description says they mix, or two
/// inputs put the batch on different axes.
pub(crate) fn follow(plan: &Plan, starts: &[(u32, BatchAxis)], batch: usize) -> Followed {
    let mut followed = Followed {
        tracks: vec![Track::Free; plan.connected.len()],
        mixing: Vec::new(),
        unknown: Vec::new(),
    };
    for &(slot, at) in starts {
        if let Some(t) = followed.tracks.get_mut(slot as usize) {
            *t = Track::At {
                batch: at,
                moved_by: None,
            };
        }
    }
    for step in plan.steps().filter(|s| !s.rows.stops_gradients()) {
        for (j, &out) in step.output_slots().iter().enumerate() {
            let mut track = Track::Free;
            // Why the output lost the batch here, if it did: rows met (true) or went where no
            // description follows them (false).
            let mut cause: Option<bool> = None;
            for k in 0..step.inputs.len() {
                let input = followed.at(step.input_slot(k));
                let next = match input {
                    Track::Free => continue,
                    Track::Mixed => Track::Mixed,
                    Track::At {
                        batch: at,
                        moved_by,
                    } => match step.rows.follow(k, j, at, batch, &plan.tables) {
                        Fate::At(to) => Track::At {
                            batch: to,
                            moved_by: match (to.is_leading(), at.is_leading()) {
                                (true, _) => None,
                                (false, true) => Some(step.op),
                                (false, false) => moved_by,
                            },
                        },
                        Fate::Mixes => {
                            cause = Some(true);
                            Track::Mixed
                        }
                        Fate::Unknown => {
                            cause = cause.or(Some(false));
                            Track::Mixed
                        }
                    },
                };
                track = match (track, next) {
                    (Track::Free, next) => next,
                    (Track::At { batch: a, moved_by }, Track::At { batch: b, .. }) if a == b => {
                        Track::At { batch: a, moved_by }
                    }
                    (Track::At { .. }, Track::At { .. }) => {
                        // Two inputs put the batch on different axes: row i meets another row.
                        cause = Some(true);
                        Track::Mixed
                    }
                    _ => Track::Mixed,
                };
            }
            if let Some(mixing) = cause {
                let list = match mixing {
                    true => &mut followed.mixing,
                    false => &mut followed.unknown,
                };
                if !list.contains(&step.op) {
                    list.push(step.op);
                }
            }
            if let Some(t) = followed.tracks.get_mut(out as usize) {
                *t = track;
            }
        }
    }
    followed
}

#[cfg(test)]
mod tests {
    use super::*;

    fn at(axis: usize, rank: usize) -> BatchAxis {
        BatchAxis {
            axis,
            rank,
            inner: 1,
        }
    }

    fn follow(map: AxisMap, out_rank: usize, k: usize, from: BatchAxis) -> Fate {
        map.with_out_rank(out_rank).follow(k, 0, from, 3, &[])
    }

    #[test]
    fn the_description_fits_where_the_old_mask_was() {
        // Seven bytes beside the node's `batching` byte: a node stays 120 bytes.
        assert_eq!(std::mem::size_of::<AxisMap>(), 7);
        assert!(std::mem::size_of::<crate::tape::Node>() <= 120);
    }

    #[test]
    fn aligned_maps_count_from_the_end() {
        let e = AxisMap::ELEMENTWISE;
        assert_eq!(follow(e, 2, 0, at(0, 2)), Fate::At(at(0, 2)));
        // A [b] operand against a [n, b] result: the batch is the result's axis 1.
        assert_eq!(follow(e, 2, 1, at(0, 1)), Fate::At(at(1, 2)));
        let sum1 = AxisMap::reduce(3, &[1], false);
        assert_eq!(follow(sum1, 2, 0, at(0, 3)), Fate::At(at(0, 2)));
        assert_eq!(follow(sum1, 2, 0, at(2, 3)), Fate::At(at(1, 2)));
        assert_eq!(follow(sum1, 2, 0, at(1, 3)), Fate::Mixes);
        let kept = AxisMap::reduce(3, &[1], true);
        assert_eq!(follow(kept, 3, 0, at(2, 3)), Fate::At(at(2, 3)));
        let stack1 = AxisMap::select(2, &[], &[], 3, &[1]);
        assert_eq!(follow(stack1, 3, 0, at(0, 2)), Fate::At(at(0, 3)));
        assert_eq!(follow(stack1, 3, 0, at(1, 2)), Fate::At(at(2, 3)));
        let stack0 = AxisMap::select(2, &[], &[], 3, &[0]);
        assert_eq!(follow(stack0, 3, 0, at(0, 2)), Fate::At(at(1, 3)));
        // x[:, 2, None]: axis 1 indexed away, a new last axis.
        let slice = AxisMap::select(3, &[], &[1], 3, &[2]);
        assert_eq!(follow(slice, 3, 0, at(0, 3)), Fate::At(at(0, 3)));
        assert_eq!(follow(slice, 3, 0, at(2, 3)), Fate::At(at(1, 3)));
        assert_eq!(follow(slice, 3, 0, at(1, 3)), Fate::Mixes);
    }

    #[test]
    fn permutations_matmul_and_legacy_masks() {
        let t = AxisMap::permute(&[2, 0, 1]);
        assert_eq!(follow(t, 3, 0, at(0, 3)), Fate::At(at(1, 3)));
        assert_eq!(follow(t, 3, 0, at(2, 3)), Fate::At(at(0, 3)));
        let mm = AxisMap::matmul(false, false);
        assert_eq!(follow(mm, 2, 0, at(0, 2)), Fate::At(at(0, 2)));
        assert_eq!(follow(mm, 2, 0, at(1, 2)), Fate::Mixes);
        assert_eq!(follow(mm, 2, 1, at(0, 2)), Fate::Mixes);
        assert_eq!(follow(mm, 2, 1, at(1, 2)), Fate::At(at(1, 2)));
        assert_eq!(follow(mm, 3, 1, at(0, 3)), Fate::At(at(0, 3)));
        let ta = AxisMap::matmul(true, false);
        assert_eq!(follow(ta, 2, 0, at(1, 2)), Fate::At(at(0, 2)));
        assert_eq!(follow(ta, 2, 0, at(0, 2)), Fate::Mixes);
        let legacy = AxisMap::leading(crate::tape::mixes_input(1));
        assert_eq!(follow(legacy, 2, 0, at(0, 3)), Fate::At(at(0, 2)));
        assert_eq!(follow(legacy, 2, 0, at(1, 3)), Fate::Unknown);
        assert_eq!(follow(legacy, 2, 1, at(0, 3)), Fate::Mixes);
    }

    #[test]
    fn reshapes_keep_the_batch_as_a_block_of_rows() {
        let b = 3;
        let go = |from: &[usize], to: &[usize], at: BatchAxis| reshaped(from, to, at, b);
        assert_eq!(go(&[3, 4], &[3, 2, 2], at(0, 2)), Fate::At(at(0, 3)));
        assert_eq!(go(&[3, 4], &[1, 3, 4], at(0, 2)), Fate::At(at(1, 3)));
        let flat = go(&[3, 4], &[12], at(0, 2));
        let merged = BatchAxis {
            axis: 0,
            rank: 1,
            inner: 4,
        };
        assert_eq!(flat, Fate::At(merged));
        assert_eq!(go(&[12], &[3, 4], merged), Fate::At(at(0, 2)));
        // [3, 4] -> [4, 3]: rows cut across the new axis 0.
        assert_eq!(go(&[3, 4], &[4, 3], at(0, 2)), Fate::Mixes);
        // The batch on axis 1: [2, 3] -> [6] keeps it as blocks of 1, twice.
        assert_eq!(
            go(&[2, 3], &[6], at(1, 2)),
            Fate::At(BatchAxis {
                axis: 0,
                rank: 1,
                inner: 1
            })
        );
    }
}
