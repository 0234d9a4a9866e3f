//! `triple_product`: `k * a * b * c` summed down to a shape, in one pass. The higher-order
//! gradients of the activations are products of three tensors reduced over the axes a
//! broadcast operand was stretched along (`tanh_grad`'s gradient with respect to `y` is
//! `-2 y dy ddg`); written as separate ops they cost two products, a scaling and a reduction,
//! each a pass over the largest tensor of a vectorised Jacobian. The op's own gradient with
//! respect to each operand is the same op again (the product is linear in each of them), so
//! every order stays one pass per gradient.
use std::mem::MaybeUninit;

use num_traits::Float;

use super::{multiply, scale};
use crate::error::{fmt_shape, Error, Result};
use crate::ops::kernel::{fill, PAR_CHEAP};
use crate::ops::vmath::widest;
use crate::ops::{
    broadcast_shapes, broadcast_to, reshape, same_dtype, sum_to_batched_shape, Shape,
};
use crate::tape::{input_needed, record_batched, take_running_total, without_recording, AxisMap};
use crate::tensor::{Data, Element, Tensor, Values};

const OP: &str = "triple_product";

/// `k * a * b * c`, the three broadcast together (NumPy rules) to a shape `F`, then summed
/// as [`crate::ops::sum_to_batched_shape`]`(_, keep, shape)` sums: the first `keep` axes of
/// `F` stay, and the rest is summed down to `shape` (aligned with `F` from the end: the axes
/// before it and the axes where it has 1 are summed). The result has shape
/// `F[..keep] ++ shape`. Floating dtypes, the three alike.
///
/// The gradient with respect to each operand is `triple_product` of the cotangent and the
/// other two, summed to that operand's shape (batch axes of a vectorised Jacobian kept), so
/// every order is again this op.
///
/// ```
/// use rustape::{ops::triple_product, Tensor};
/// let y = Tensor::from_vec(vec![0.5f64, -0.25], &[2]).unwrap();
/// let dy = Tensor::from_vec(vec![2.0f64, 4.0], &[2]).unwrap();
/// let ddg = Tensor::from_vec(vec![1.0f64, 1.0, 3.0, 3.0], &[2, 2]).unwrap();
/// // -2 y dy ddg, summed over the leading axis of ddg (to y's shape)
/// let g = triple_product(&y, &dy, &ddg, -2.0, 0, &[2]).unwrap();
/// assert_eq!(g.to_f64_vec(), vec![-8.0, 8.0]);
/// ```
pub fn triple_product(
    a: &Tensor,
    b: &Tensor,
    c: &Tensor,
    k: f64,
    keep: usize,
    shape: &[usize],
) -> Result<Tensor> {
    same_dtype(OP, a, b)?;
    same_dtype(OP, a, c)?;
    let full = broadcast_shapes(OP, a.shape(), b.shape())
        .and_then(|s| broadcast_shapes(OP, &s, c.shape()))
        .map_err(|_| {
            Error::shape(
                OP,
                format!(
                    "operands of shapes {}, {} and {} do not broadcast together",
                    fmt_shape(a.shape()),
                    fmt_shape(b.shape()),
                    fmt_shape(c.shape())
                ),
            )
        })?;
    let plan = Reduction::new(&full, keep, shape)?;
    let y = match (a.data(), b.data(), c.data()) {
        (Data::F32(x), Data::F32(z), Data::F32(w)) => fused(x, z, w, k, &plan)?,
        (Data::F64(x), Data::F64(z), Data::F64(w)) => fused(x, z, w, k, &plan)?,
        (other, _, _) => return Err(crate::tensor::unsupported(OP, other.dtype(), "a floating")),
    };
    let y = match y {
        Some(y) => y,
        None => without_recording(|| {
            let product = multiply(&multiply(c, b)?, &scale(a, k)?)?;
            sum_to_batched_shape(&product, keep, shape)
        })?,
    };
    record(a, b, c, k, &plan, &y);
    Ok(y)
}

/// The shapes of one `triple_product`: the broadcast shape `full` and which of its axes stay.
pub(crate) struct Reduction<'a> {
    full: Vec<usize>,
    keep: usize,
    shape: &'a [usize],
    /// The axis of `full` where `shape` starts (aligned from the end).
    lead: usize,
}

impl<'a> Reduction<'a> {
    pub(crate) fn new(full: &[usize], keep: usize, shape: &'a [usize]) -> Result<Reduction<'a>> {
        let rank = full.len();
        let fits = keep + shape.len() <= rank && {
            let lead = rank - shape.len();
            shape
                .iter()
                .zip(&full[lead..])
                .all(|(&s, &f)| s == f || s == 1)
        };
        if !fits {
            return Err(Error::shape(
                OP,
                format!(
                    "cannot sum the product's shape {} to {} keeping {keep} leading axes",
                    fmt_shape(full),
                    fmt_shape(shape)
                ),
            ));
        }
        Ok(Reduction {
            full: full.to_vec(),
            keep,
            shape,
            lead: rank - shape.len(),
        })
    }

    /// The result's shape: `full[..keep] ++ shape`.
    fn out_shape(&self) -> Vec<usize> {
        self.full[..self.keep]
            .iter()
            .chain(self.shape)
            .copied()
            .collect()
    }

    /// Axes of `full` summed away (between the kept ones and `shape`).
    fn dropped(&self) -> std::ops::Range<usize> {
        self.keep..self.lead
    }

    /// Axes of `full` summed but kept with size 1 (where `shape` has 1).
    fn collapsed(&self) -> impl Iterator<Item = usize> + '_ {
        (self.lead..self.full.len())
            .filter(|&j| self.shape[j - self.lead] == 1 && self.full[j] != 1)
    }
}

/// The size of the trailing block of `full` that an operand of shape `s` repeats along the
/// leading axes (its shape, leading 1s stripped, is the end of `full`); `None` otherwise.
pub(crate) fn repeated_block(s: &[usize], full: &[usize]) -> Option<usize> {
    let core = &s[s.iter().position(|&d| d != 1).unwrap_or(s.len())..];
    full.ends_with(core).then(|| core.iter().product())
}

/// The fused kernel, when every operand repeats a trailing block of the broadcast shape and
/// only whole leading axes before `shape` are summed (`None` otherwise: the caller composes).
/// Output element `(o, i)` (`o` over the kept axes, `i` within `shape`) is the sum over the
/// summed positions `m`, in order, of `(c * b) * (a * k)` at `(o, m, i)`.
fn fused<T: Element + Float>(
    a: &Values<T>,
    b: &Values<T>,
    c: &Values<T>,
    k: f64,
    plan: &Reduction<'_>,
) -> Result<Option<Tensor>>
where
    Data: From<Values<T>>,
{
    let full = &plan.full;
    if full.contains(&0) || plan.collapsed().next().is_some() {
        return Ok(None);
    }
    let blocks = [a.shape(), b.shape(), c.shape()].map(|s| repeated_block(s, full));
    let [Some(la), Some(lb), Some(lc)] = blocks else {
        return Ok(None);
    };
    let inner: usize = plan.shape.iter().product();
    let summed: usize = full[plan.dropped()].iter().product();
    let outer: usize = full[..plan.keep].iter().product();
    // The blocks are products of trailing axes of `full`: each divides the larger ones, so
    // a piece of `step` elements never crosses the end of an operand's block.
    let step = inner.min(la).min(lb).min(lc);
    let (xa, xb, xc) = (a.as_slice(), b.as_slice(), c.as_slice());
    let k = T::from(k).unwrap_or_else(T::nan);
    let n = outer * inner;
    let min_par = (PAR_CHEAP / summed).max(1);
    let out = fill(OP, n, min_par, |at, dst| {
        let end = at + dst.len();
        let mut p = at;
        while p < end {
            let (o, i) = (p / inner, p % inner);
            let stop = end.min((o + 1) * inner).min(p + step - i % step);
            let len = stop - p;
            let d = &mut dst[p - at..stop - at];
            for m in 0..summed {
                let s = (o * summed + m) * inner + i;
                let (pa, pb, pc) = (s % la, s % lb, s % lc);
                let (x, y, z) = (&xa[pa..pa + len], &xb[pb..pb + len], &xc[pc..pc + len]);
                if m == 0 {
                    product_write(d, x, y, z, k);
                } else {
                    // SAFETY: the first pass (m == 0) wrote every element of `d`.
                    let d = unsafe { &mut *(d as *mut [MaybeUninit<T>] as *mut [T]) };
                    product_add(d, x, y, z, k);
                }
            }
            p = stop;
        }
    })?;
    Ok(Some(Tensor::new(Data::from(Values::from_vec(
        &plan.out_shape(),
        out,
    )))))
}

// Compiled for the widest vectors the CPU has (the closures of `fill` are not).
widest!(fn product_write<T: Float>(d: &mut [MaybeUninit<T>], x: &[T], y: &[T], z: &[T], k: T) => write_body, d.len());
widest!(fn product_add<T: Float>(d: &mut [T], x: &[T], y: &[T], z: &[T], k: T) => accumulate_body, d.len());

/// `d = (z * y) * (x * k)`, elementwise.
#[inline(always)]
fn write_body<T: Float>(d: &mut [MaybeUninit<T>], x: &[T], y: &[T], z: &[T], k: T) {
    let len = d.len();
    let (x, y, z) = (&x[..len], &y[..len], &z[..len]);
    for j in 0..len {
        d[j] = MaybeUninit::new((z[j] * y[j]) * (x[j] * k));
    }
}

/// `d += (z * y) * (x * k)`, elementwise.
#[inline(always)]
fn accumulate_body<T: Float>(d: &mut [T], x: &[T], y: &[T], z: &[T], k: T) {
    let len = d.len();
    let (x, y, z) = (&x[..len], &y[..len], &z[..len]);
    for j in 0..len {
        d[j] = d[j] + (z[j] * y[j]) * (x[j] * k);
    }
}

/// Records `y = triple_product(a, b, c, k, keep, shape)` (computed already).
pub(crate) fn record(a: &Tensor, b: &Tensor, c: &Tensor, k: f64, plan: &Reduction<'_>, y: &Tensor) {
    let rank = plan.full.len();
    let out_rank = plan.keep + plan.shape.len();
    // An operand stretched along an axis of size 1 reaches many rows there: not described.
    let stretched = [a, b, c].iter().any(|t| {
        let offset = rank - t.ndim();
        (0..t.ndim()).any(|i| t.shape()[i] == 1 && plan.full[offset + i] != 1)
    });
    let rows = if stretched {
        AxisMap::UNKNOWN
    } else {
        let dropped: Vec<usize> = plan.dropped().collect();
        let mixed: Vec<usize> = dropped.iter().copied().chain(plan.collapsed()).collect();
        AxisMap::select(rank, &mixed, &dropped, out_rank, &[])
    };
    let (keep, pad) = (plan.keep, rank - out_rank);
    record_batched(
        OP,
        &[a, b, c],
        y,
        &[a, b, c],
        rows,
        true,
        move |s, dy, batch| {
            // `dy` is `[batch.., full[..keep], shape]`: put back the summed-away axes as 1s so
            // that it lines up with the operands from the end.
            let dy = match pad {
                0 => dy.clone(),
                _ => {
                    let at = batch + keep;
                    let dims: Vec<isize> = dy.shape()[..at]
                        .iter()
                        .map(|&d| d as isize)
                        .chain(std::iter::repeat_n(1, pad))
                        .chain(dy.shape()[at..].iter().map(|&d| d as isize))
                        .collect();
                    reshape(dy, &dims)?
                }
            };
            let need = [input_needed(0), input_needed(1), input_needed(2)];
            if need.iter().filter(|&&n| n).count() > 1 {
                if let Some([g0, g1, g2]) = joint_grads(&dy, s, need, k, batch)? {
                    return Ok(crate::grads![g0, g1, g2]);
                }
            }
            let grad = |j: usize| -> Result<Option<Tensor>> {
                if !need[j] {
                    return Ok(None);
                }
                let (p, q) = match j {
                    0 => (&s[1], &s[2]),
                    1 => (&s[0], &s[2]),
                    _ => (&s[0], &s[1]),
                };
                // Summed to operand `j`'s shape where the other three cover its axes; where only
                // `j` had them (its axis against 1s or nothing), the sum is broadcast back.
                let others = broadcast_shapes(OP, &dy.shape()[batch..], p.shape())
                    .and_then(|o| broadcast_shapes(OP, &o, q.shape()))?;
                let own = s[j].shape();
                let offset = others.len() - own.len();
                let target: Shape = own
                    .iter()
                    .zip(&others[offset..])
                    .map(|(&d, &o)| if o == d { d } else { 1 })
                    .collect();
                let g = triple_product(&dy, p, q, k, batch, &target)?;
                if target[..] == *own {
                    return Ok(Some(g));
                }
                let dims: Vec<usize> = dy.shape()[..batch].iter().chain(own).copied().collect();
                broadcast_to(&g, &dims).map(Some)
            };
            Ok(crate::grads![grad(0)?, grad(1)?, grad(2)?])
        },
    );
}

// ---------------------------------------------------------------------------------------------
// Several results in one pass

/// Elements of one piece of a blocked pass: a piece of every operand stays in L1 while each
/// result of the pass reads it, so an operand is read from memory once however many results
/// read it.
const PIECE: usize = 2048;

/// The pieces `(start, len)` of a pass over `n` elements: none crosses a multiple of `step`
/// (each stays within one block of every operand and result), none is longer than [`PIECE`].
pub(crate) fn pieces(n: usize, step: usize) -> impl Iterator<Item = (usize, usize)> {
    let mut s = 0;
    std::iter::from_fn(move || {
        (s < n).then(|| {
            let len = (step - s % step).min(PIECE).min(n - s);
            s += len;
            (s - len, len)
        })
    })
}

/// One result of a blocked pass: the broadcast shape `full` summed to `[full[..keep],
/// full[lead..]]` (leading axes after the kept ones summed away, as `triple_product` sums).
pub(crate) struct Summed<T> {
    inner: usize,
    summed: usize,
    shape: Vec<usize>,
    buf: Vec<T>,
    /// A running total of the sweep's this result is added into (see [`Summed::add_to`]):
    /// the tensor, held alone, and its buffer.
    total: Option<(Tensor, *mut T)>,
}

/// The buffer of a float tensor of element type `T` that nothing else holds.
pub(crate) trait OwnBuffer: Element {
    /// `data`'s elements, when they are `Self`s and only `data` holds them.
    fn unshared(data: &mut Data) -> Option<&mut [Self]>;
}

impl OwnBuffer for f32 {
    fn unshared(data: &mut Data) -> Option<&mut [f32]> {
        match data {
            Data::F32(v) => v.unshared_slice_mut(),
            _ => None,
        }
    }
}

impl OwnBuffer for f64 {
    fn unshared(data: &mut Data) -> Option<&mut [f64]> {
        match data {
            Data::F64(v) => v.unshared_slice_mut(),
            _ => None,
        }
    }
}

impl<T: Element> Summed<T> {
    /// The result summed to `[full[..keep], shape]`, when `shape` is the end of `full` after
    /// the kept axes (`None` otherwise: a sum this pass does not do).
    pub(crate) fn new(
        op: &str,
        full: &[usize],
        keep: usize,
        shape: &[usize],
    ) -> Result<Option<Summed<T>>> {
        let fits = keep + shape.len() <= full.len() && full.ends_with(shape);
        if !fits {
            return Ok(None);
        }
        let inner: usize = shape.iter().product();
        let summed = full[keep..full.len() - shape.len()].iter().product();
        let out_shape: Vec<usize> = full[..keep].iter().chain(shape).copied().collect();
        let n = out_shape.iter().product();
        Ok(Some(Summed {
            inner,
            summed,
            shape: out_shape,
            buf: crate::memory::try_vec(op, n)?,
            total: None,
        }))
    }

    /// Adds this result into `total` (a running total of the sweep's, see
    /// [`crate::tape::take_running_total`]) in its buffer instead of a buffer of its own: every
    /// piece then adds. Gives `total` back when its shape differs or something else holds its
    /// buffer.
    pub(crate) fn add_to(&mut self, mut total: Tensor) -> std::result::Result<(), Tensor>
    where
        T: OwnBuffer,
    {
        if total.shape() != self.shape.as_slice() {
            return Err(total);
        }
        let Some(ptr) = total
            .data_mut()
            .and_then(T::unshared)
            .map(|d| d.as_mut_ptr())
        else {
            return Err(total);
        };
        self.total = Some((total, ptr));
        self.buf = Vec::new();
        Ok(())
    }

    /// Whether a running total was taken ([`Summed::add_to`]).
    pub(crate) fn onto_total(&self) -> bool {
        self.total.is_some()
    }

    /// The elements per block of the result (pieces must not cross one).
    pub(crate) fn block(&self) -> usize {
        self.inner
    }

    /// Where piece `s..s + len` of the broadcast shape lands: the result's elements, and
    /// whether this is their first term (write) or a later one (add; written before).
    pub(crate) fn at(&mut self, s: usize, len: usize) -> Landing<'_, T> {
        let (inner, summed) = (self.inner, self.summed);
        let at = (s / (inner * summed)) * inner + s % inner;
        if let Some((total, ptr)) = &self.total {
            debug_assert!(at + len <= total.size());
            // SAFETY: `add_to` took the buffer from a tensor only `self` holds (nothing can
            // clone it meanwhile), of the result's shape: `at + len` is within it.
            return Landing::Later(unsafe { std::slice::from_raw_parts_mut(ptr.add(at), len) });
        }
        let d = &mut self.buf.spare_capacity_mut()[at..at + len];
        match (s / inner) % summed {
            0 => Landing::First(d),
            // SAFETY: the pieces go in order, so the first term (m = 0) wrote these elements.
            _ => Landing::Later(unsafe { &mut *(d as *mut [MaybeUninit<T>] as *mut [T]) }),
        }
    }

    /// The result, once a pass wrote every piece.
    pub(crate) fn finish(mut self) -> Tensor
    where
        Data: From<Values<T>>,
    {
        if let Some((total, _)) = self.total {
            // The sum is a new value: a fresh id.
            return Tensor::new(total.data().clone());
        }
        let n = self.shape.iter().product();
        // SAFETY: the pieces of a pass cover the broadcast shape, and each element of the
        // result is the first term of one of them.
        unsafe { self.buf.set_len(n) };
        Tensor::new(Data::from(Values::from_vec(&self.shape, self.buf)))
    }
}

/// Where a piece of a pass lands in a result (see [`Summed::at`]).
pub(crate) enum Landing<'a, T> {
    First(&'a mut [MaybeUninit<T>]),
    Later(&'a mut [T]),
}

impl<T: Float> Landing<'_, T> {
    /// Adds `(z * y) * (x * k)` (the term of `triple_product`) here.
    pub(crate) fn product(self, x: &[T], y: &[T], z: &[T], k: T) {
        match self {
            Landing::First(d) => product_write(d, x, y, z, k),
            Landing::Later(d) => product_add(d, x, y, z, k),
        }
    }
}

/// The gradients of `triple_product` with respect to the operands in `need` (`s`: the saved
/// operands; `dy`: the cotangent, lined up with them), from one blocked pass over `dy` and the
/// operands, each recorded as its own `triple_product` (the same numbers, summed in the same
/// order, as one op per gradient). `None` for shapes the pass does not take (a cotangent
/// smaller than the broadcast shape, an operand stretched along an axis or needing its sum
/// broadcast back, sums over axes of size 1) and for work large enough to split over threads.
fn joint_grads(
    dy: &Tensor,
    s: &[Tensor],
    need: [bool; 3],
    k: f64,
    batch: usize,
) -> Result<Option<[Option<Tensor>; 3]>> {
    let full = dy.shape();
    let n = dy.size();
    if n == 0 || full.contains(&0) || crate::ops::kernel::worth_splitting(n, PAR_CHEAP) {
        return Ok(None);
    }
    match dy.dtype() {
        crate::dtype::DType::F32 => joint_typed::<f32>(dy, s, need, k, batch),
        crate::dtype::DType::F64 => joint_typed::<f64>(dy, s, need, k, batch),
        _ => Ok(None),
    }
}

fn joint_typed<T: Element + Float + OwnBuffer>(
    dy: &Tensor,
    saved: &[Tensor],
    need: [bool; 3],
    k: f64,
    batch: usize,
) -> Result<Option<[Option<Tensor>; 3]>>
where
    Data: From<Values<T>>,
{
    let (Some(d), Some(a), Some(b), Some(c)) = (
        dy.values::<T>(),
        saved[0].values::<T>(),
        saved[1].values::<T>(),
        saved[2].values::<T>(),
    ) else {
        return Ok(None);
    };
    let (full, ops) = (dy.shape(), [a, b, c]);
    let blocks = ops.map(|v| repeated_block(v.shape(), full));
    let [Some(l0), Some(l1), Some(l2)] = blocks else {
        return Ok(None);
    };
    let mut results: [Option<Summed<T>>; 3] = [None, None, None];
    for j in (0..3).filter(|&j| need[j]) {
        match Summed::new(OP, full, batch, ops[j].shape())? {
            Some(r) => results[j] = Some(r),
            None => return Ok(None),
        }
    }
    // Gradients the sweep has a running total for are added into it in the pass (a plain
    // sweep that nothing records: the sum is not recorded), saving a pass over each.
    let mut left: [Option<Tensor>; 3] = [None, None, None];
    for (j, r) in results.iter_mut().enumerate() {
        if let Some(r) = r {
            if let Some(total) = take_running_total(j) {
                left[j] = r.add_to(total).err();
            }
        }
    }
    let step = results
        .iter()
        .flatten()
        .map(Summed::block)
        .fold(l0.min(l1).min(l2), usize::min);
    let (x, xs) = (d.as_slice(), ops.map(Values::as_slice));
    let lens = [l0, l1, l2];
    let kt = T::from(k).unwrap_or_else(T::nan);
    for (at, len) in pieces(x.len(), step) {
        let piece = |j: usize| {
            let o = at % lens[j];
            &xs[j][o..o + len]
        };
        let dx = &x[at..at + len];
        for (j, r) in results.iter_mut().enumerate() {
            if let Some(r) = r {
                let (p, q) = match j {
                    0 => (piece(1), piece(2)),
                    1 => (piece(0), piece(2)),
                    _ => (piece(0), piece(1)),
                };
                r.at(at, len).product(dx, p, q, kt);
            }
        }
    }
    let mut grads: [Option<Tensor>; 3] = [None, None, None];
    for (j, r) in results.into_iter().enumerate() {
        let Some(r) = r else { continue };
        if r.onto_total() {
            grads[j] = Some(r.finish());
            continue;
        }
        let g = r.finish();
        let (p, q) = match j {
            0 => (&saved[1], &saved[2]),
            1 => (&saved[0], &saved[2]),
            _ => (&saved[0], &saved[1]),
        };
        let own = saved[j].shape();
        record(dy, p, q, k, &Reduction::new(full, batch, own)?, &g);
        grads[j] = Some(match left[j].take() {
            // A total taken but not added into (its buffer is shared): summed after.
            Some(total) => crate::ops::accumulate(total, g)?,
            None => g,
        });
    }
    Ok(Some(grads))
}
