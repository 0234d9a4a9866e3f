//! How the engine asks for memory: sizes from shapes are checked products, and every tensor
//! buffer is reserved fallibly, so an impossible or failed allocation is an error naming the
//! op and the byte count (a Python MemoryError or ValueError), never an abort.
//!
//! - [`checked_size`]: the element count of a shape; a ValueError when it does not fit.
//! - [`try_vec`] / [`try_filled`]: an empty `Vec` with room for `n` elements, or filled with
//!   a value; a MemoryError when the allocator refuses. `Values` constructors and the kernel
//!   helpers (`ops/kernel.rs`) get their buffers here, so ops built on them are covered.
//! - [`ensure`]: for the few kernels whose buffer a library allocates (ndarray), a probe of
//!   the same size first, released at once: the real allocation then succeeds in practice.
//!
//! Small bookkeeping allocations (a tensor's header, a node on a tape) are not checked: when a
//! process is that close to its limit any allocation, Python's own included, may fail.
use std::mem::size_of;

use crate::dtype::DType;
use crate::error::{fmt_shape, Error, Result};

/// Buffers from this size on are probed by [`ensure`] (smaller ones are cheaper to take than
/// to probe, and fail only when nothing else would succeed either).
const PROBE_FROM: usize = 1 << 20;

/// The number of elements of `shape`. A ValueError naming `op` when the product of its
/// non-zero dimensions exceeds `isize::MAX` (then no buffer could hold it, and products of
/// its dimensions taken in any order would overflow). A zero dimension gives 0 elements.
pub fn checked_size(op: &str, shape: &[usize]) -> Result<usize> {
    let mut product: usize = 1;
    for &d in shape.iter().filter(|&&d| d != 0) {
        product = match product.checked_mul(d) {
            Some(p) if p <= isize::MAX as usize => p,
            _ => return Err(too_many(op, shape)),
        };
    }
    if shape.contains(&0) {
        Ok(0)
    } else {
        Ok(product)
    }
}

fn too_many(op: &str, shape: &[usize]) -> Error {
    Error::value(
        op,
        format!(
            "a tensor of shape {} would have more than {} elements",
            fmt_shape(shape),
            isize::MAX
        ),
    )
}

/// The bytes `n` elements of `T` take, or a ValueError naming `op` when no buffer can be that
/// large (more than `isize::MAX` bytes).
pub fn checked_bytes<T>(op: &str, n: usize) -> Result<usize> {
    match n.checked_mul(size_of::<T>()) {
        Some(b) if b <= isize::MAX as usize => Ok(b),
        _ => Err(Error::value(
            op,
            format!(
                "{n} elements of {} take more than {} bytes, more than any buffer can hold",
                short_type::<T>(),
                isize::MAX
            ),
        )),
    }
}

/// The element type's name without its path (`f32`, `MaybeUninit<f64>`).
fn short_type<T>() -> String {
    let full = std::any::type_name::<T>();
    let mut out = String::with_capacity(full.len());
    for part in full.split_inclusive(['<', '>', ',', ' ']) {
        out.push_str(part.rsplit("::").next().unwrap_or(part));
    }
    out
}

/// An empty vector with room for `n` elements of `T`, reserved fallibly: a MemoryError
/// naming `op` and the byte count when the allocator refuses.
pub fn try_vec<T>(op: &str, n: usize) -> Result<Vec<T>> {
    let bytes = checked_bytes::<T>(op, n)?;
    let mut v = Vec::new();
    v.try_reserve_exact(n)
        .map_err(|_| Error::memory(op, bytes, &format!("{n} {} elements", short_type::<T>())))?;
    Ok(v)
}

/// `n` copies of `value`, in a buffer reserved fallibly (see [`try_vec`]).
pub fn try_filled<T: Clone>(op: &str, n: usize, value: T) -> Result<Vec<T>> {
    let mut v = try_vec(op, n)?;
    v.resize(n, value);
    Ok(v)
}

/// Checks that a buffer of `n` elements of `T` can be allocated before a library allocates it
/// (infallibly): a ValueError when it is larger than any buffer, a MemoryError when the
/// allocator refuses a probe of that size (large buffers only; see `PROBE_FROM`).
pub fn ensure<T>(op: &str, n: usize) -> Result<()> {
    let bytes = checked_bytes::<T>(op, n)?;
    if bytes >= PROBE_FROM {
        // Reserved and released untouched: no page of it is ever written.
        drop(try_vec::<u8>(op, bytes).map_err(|_| {
            Error::memory(op, bytes, &format!("{n} {} elements", short_type::<T>()))
        })?);
    }
    Ok(())
}

/// [`checked_size`] of `shape`, then [`ensure`] that a `dtype` buffer of that size can be
/// allocated: what an op whose output shape comes from its arguments (tile, pad, broadcast_to,
/// matmul, ...) checks before its kernel allocates. Returns the element count.
pub fn ensure_shape(op: &str, shape: &[usize], dtype: DType) -> Result<usize> {
    let n = checked_size(op, shape)?;
    let bytes = n
        .checked_mul(dtype.size_of())
        .filter(|&b| b <= isize::MAX as usize)
        .ok_or_else(|| too_many(op, shape))?;
    if bytes >= PROBE_FROM {
        drop(try_vec::<u8>(op, bytes).map_err(|_| {
            Error::memory(
                op,
                bytes,
                &format!("a {dtype} tensor of shape {}", fmt_shape(shape)),
            )
        })?);
    }
    Ok(n)
}

/// `a + b` for sizes from user input: a ValueError naming `op` on overflow.
pub fn checked_add(op: &str, a: usize, b: usize) -> Result<usize> {
    a.checked_add(b)
        .ok_or_else(|| Error::value(op, format!("{a} + {b} overflows a size")))
}

/// `a * b` for sizes from user input: a ValueError naming `op` on overflow.
pub fn checked_mul(op: &str, a: usize, b: usize) -> Result<usize> {
    a.checked_mul(b)
        .ok_or_else(|| Error::value(op, format!("{a} x {b} overflows a size")))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sizes() {
        assert_eq!(checked_size("t", &[]).unwrap(), 1);
        assert_eq!(checked_size("t", &[2, 3]).unwrap(), 6);
        assert_eq!(checked_size("t", &[1 << 30, 0, 1 << 30]).unwrap(), 0);
        assert!(checked_size("t", &[1 << 40, 0, 1 << 40]).is_err());
        assert!(checked_size("t", &[1 << 32, 1 << 32]).is_err());
        assert!(checked_size("t", &[1 << 32, 1 << 32, 0]).is_err());
        assert!(checked_bytes::<f64>("t", 1 << 61).is_err());
        assert_eq!(
            short_type::<std::mem::MaybeUninit<f32>>(),
            "MaybeUninit<f32>"
        );
    }
}
