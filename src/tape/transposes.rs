//! Transposed copies of matrices that one plain gradient sweep multiplies by again and again
//! (`dh @ U^T` at every step of a recurrence). The GEMM reads a transposed right operand
//! through its strides, which it packs element by element (or turns the product around and
//! transposes the result): for an RNN's `[32, 128] @ [128, 128]^T` that costs ~45% more than
//! the same product with a row-major right operand. A matrix asked for a second time in one
//! sweep is copied transposed once; later products read the copy.
//!
//! A copy is served only for the very buffer it was made from: tensors never change their
//! elements, the entry holds the source (so its buffer cannot be freed and its address reused
//! while the entry lives), and the key is that buffer's address with the shape and dtype.
//! Entries live for one sweep and only in sweeps that nothing records: a product with a copy
//! has no recorded path back to the source, so it must not be differentiated again.

use std::cell::RefCell;

use smallvec::SmallVec;

use crate::dtype::DType;
use crate::tensor::Tensor;

/// Matrices with fewer elements than this are left to the GEMM (its small-product kernels
/// read any layout alike, and the copy would cost as much as it saves).
const MIN_ELEMENTS: usize = 32 * 32;

/// A matrix's buffer address, shape and dtype.
type Key = (usize, [usize; 2], DType);

#[derive(Default)]
struct Cache {
    /// Matrices asked for once (keys only: nothing held, so nothing is kept alive).
    seen: SmallVec<[Key; 8]>,
    /// Matrices asked for again: the source (held) and its transposed copy.
    made: SmallVec<[(Tensor, Tensor); 4]>,
}

thread_local! {
    /// The cache of the sweep now running on this thread; `None` outside plain sweeps.
    static CACHE: RefCell<Option<Cache>> = const { RefCell::new(None) };
}

/// Gives the sweep on this thread a cache of its own while it lives (`enabled`) or none (a
/// batched or per-example sweep); the enclosing sweep's comes back when dropped.
pub(super) struct SweepTransposes(Option<Cache>);

impl SweepTransposes {
    pub(super) fn enter(enabled: bool) -> SweepTransposes {
        let fresh = enabled.then(Cache::default);
        SweepTransposes(CACHE.with(|c| c.replace(fresh)))
    }
}

impl Drop for SweepTransposes {
    fn drop(&mut self) {
        let previous = self.0.take();
        // The copies go with their sweep.
        drop(CACHE.with(|c| c.replace(previous)));
    }
}

/// `m^T` as a row-major matrix, when the plain gradient sweep running on this thread (one that
/// nothing records) has asked for it before: a VJP computing `dy @ m^T` may multiply by it
/// instead (the same sums, in the same order). `None` outside such sweeps, for tensors other
/// than float matrices of at least 32 x 32 elements, and the first time `m` is asked for.
pub fn sweep_transpose(m: &Tensor) -> Option<Tensor> {
    let shape: [usize; 2] = m.shape().try_into().ok()?;
    if shape[0] * shape[1] < MIN_ELEMENTS || !matches!(m.dtype(), DType::F32 | DType::F64) {
        return None;
    }
    // Checked at each request, not when the sweep starts: a VJP may open a tape of its own.
    if super::any_tape_recording() {
        return None;
    }
    let key = (m.data().storage_key(), shape, m.dtype());
    let found = CACHE.with(|c| {
        let mut cache = c.borrow_mut();
        let cache = cache.as_mut()?;
        if let Some((_, copy)) = cache.made.iter().find(|(s, _)| same(s, &key)) {
            return Some(Ok(copy.clone()));
        }
        if let Some(at) = cache.seen.iter().position(|k| *k == key) {
            cache.seen.swap_remove(at);
            return Some(Err(()));
        }
        cache.seen.push(key);
        None
    })?;
    match found {
        Ok(copy) => Some(copy),
        Err(()) => {
            let copy = crate::ops::transpose(m, None).ok()?;
            CACHE.with(|c| {
                if let Some(cache) = c.borrow_mut().as_mut() {
                    cache.made.push((m.clone(), copy.clone()));
                }
            });
            Some(copy)
        }
    }
}

fn same(source: &Tensor, key: &Key) -> bool {
    source.data().storage_key() == key.0 && source.shape() == key.1 && source.dtype() == key.2
}
