//! A tensor's elements: contiguous, row-major, with their shape.
//!
//! Small tensors (up to [`INLINE`] elements: scalars above all) keep their elements in the value
//! itself, so a scalar op allocates one block (its tensor) instead of three (buffer, array
//! header, tensor). Larger ones share a buffer behind an `Arc`: reshapes and aliases are free.
//! Kernels see an ndarray view ([`Values::view`]) or the plain slice ([`Values::as_slice`]).
//!
//! Constructors that allocate a buffer from a shape ([`Values::try_full`]) check the size and
//! reserve fallibly (see `crate::memory`): an error names the op, never an abort.
use std::sync::Arc;

use ndarray::{ArrayD, ArrayViewD, IxDyn};
use smallvec::SmallVec;

use crate::error::Result;
use crate::memory;

/// How many elements live inline.
pub const INLINE: usize = 4;

/// A shape held inline up to rank 4.
pub type Dims = SmallVec<[usize; 4]>;

/// A tensor's elements, row-major, with their shape: inline up to [`INLINE`] elements, else in
/// a shared buffer (clones and reshapes share it).
#[derive(Clone)]
pub struct Values<T> {
    shape: Dims,
    buf: Buf<T>,
}

#[derive(Clone)]
enum Buf<T> {
    Inline([T; INLINE]),
    Shared(Arc<Vec<T>>),
    /// Memory another library owns (imported through DLPack without a copy).
    Foreign(Arc<Foreign<T>>),
}

/// Elements in memory another library owns: `owner` keeps them alive and gives them back when
/// dropped (a DLPack deleter). Never written through (`unshared_slice_mut` refuses it).
struct Foreign<T> {
    ptr: *const T,
    len: usize,
    _owner: Box<dyn Send + Sync>,
}

// SAFETY: the elements are only read, and `from_foreign`'s caller vouches that they stay valid
// and unchanged until `owner` is dropped, on any thread.
unsafe impl<T: Sync> Send for Foreign<T> {}
unsafe impl<T: Sync> Sync for Foreign<T> {}

impl<T> Values<T> {
    /// `len` elements at `ptr`, row-major in `shape`, owned by another library: `owner` is
    /// dropped (on any thread) when no tensor refers to them any more.
    ///
    /// # Safety
    /// `ptr` must be aligned for `T` and valid for reading `len` initialised elements (any
    /// pointer when `len` is 0) until `owner` is dropped, and nothing may write them meanwhile;
    /// `len` must be `shape`'s size.
    pub unsafe fn from_foreign(
        shape: &[usize],
        ptr: *const T,
        len: usize,
        owner: Box<dyn Send + Sync>,
    ) -> Values<T> {
        debug_assert_eq!(len, shape.iter().product::<usize>());
        let ptr = if len == 0 {
            std::ptr::NonNull::dangling().as_ptr()
        } else {
            ptr
        };
        Values {
            shape: Dims::from_slice(shape),
            buf: Buf::Foreign(Arc::new(Foreign {
                ptr,
                len,
                _owner: owner,
            })),
        }
    }
}

impl<T: Copy + Default> Values<T> {
    /// A 0-d value.
    pub fn scalar(value: T) -> Values<T> {
        let mut items = [T::default(); INLINE];
        items[0] = value;
        Values {
            shape: Dims::new(),
            buf: Buf::Inline(items),
        }
    }

    /// `values` laid out row-major in `shape`; their count must be the shape's size.
    pub fn from_vec(shape: &[usize], values: Vec<T>) -> Values<T> {
        debug_assert_eq!(values.len(), shape.iter().product::<usize>());
        Values {
            shape: Dims::from_slice(shape),
            buf: Self::buffer(values),
        }
    }

    fn buffer(values: Vec<T>) -> Buf<T> {
        if values.len() <= INLINE {
            let mut items = [T::default(); INLINE];
            items[..values.len()].copy_from_slice(&values);
            Buf::Inline(items)
        } else {
            Buf::Shared(Arc::new(values))
        }
    }

    /// An ndarray array in any layout, made row-major (a copy only if it is not already).
    pub fn from_array(array: ArrayD<T>) -> Values<T> {
        let shape = Dims::from_slice(array.shape());
        let array = if array.is_standard_layout() {
            array
        } else {
            array.as_standard_layout().into_owned()
        };
        let (values, offset) = array.into_raw_vec_and_offset();
        let values = match offset {
            Some(0) | None => values,
            Some(start) => values[start..start + shape.iter().product::<usize>()].to_vec(),
        };
        Values {
            shape,
            buf: Self::buffer(values),
        }
    }

    /// `value` in every element of `shape` (a shape the caller knows to be allocatable: one
    /// an existing tensor has; use [`Values::try_full`] for a shape from user input).
    pub fn full(shape: &[usize], value: T) -> Values<T> {
        let n: usize = shape.iter().product();
        Values::from_vec(shape, vec![value; n])
    }

    /// `value` in every element of `shape`, for `op`: a ValueError when the shape has too many
    /// elements, a MemoryError when its buffer cannot be allocated.
    pub fn try_full(op: &str, shape: &[usize], value: T) -> Result<Values<T>> {
        let n = memory::checked_size(op, shape)?;
        if n <= INLINE {
            let mut items = [T::default(); INLINE];
            items[..n].fill(value);
            return Ok(Values {
                shape: Dims::from_slice(shape),
                buf: Buf::Inline(items),
            });
        }
        Ok(Values::from_vec(shape, memory::try_filled(op, n, value)?))
    }

    /// `f` of every element, in the same shape.
    pub fn mapv<U: Copy + Default>(&self, f: impl Fn(T) -> U) -> Values<U> {
        Values::from_vec(&self.shape, self.iter().map(|&v| f(v)).collect())
    }

    /// The same elements in another shape of the same size (shared, not copied).
    pub fn reshaped(&self, shape: &[usize]) -> Values<T> {
        debug_assert_eq!(self.len(), shape.iter().product::<usize>());
        Values {
            shape: Dims::from_slice(shape),
            buf: self.buf.clone(),
        }
    }

    /// These values broadcast to `shape` (NumPy's rules: shapes aligned from the end, axes of
    /// size 1 repeated), in a buffer of their own. `shape` must be one they broadcast to and
    /// one the caller knows to be allocatable. Whole runs are copied or filled at a time (an
    /// ndarray broadcast view copied element by element took ~10 ns per element).
    pub fn broadcast_to(&self, shape: &[usize]) -> Values<T> {
        let src = self.as_slice();
        let total: usize = shape.iter().product();
        if src.len() == 1 || total == 0 {
            return Values::full(shape, src.first().copied().unwrap_or_default());
        }
        let rank = shape.len();
        debug_assert!(self.shape.len() <= rank);
        // The source's dims aligned to the target's rank.
        let mut dims = vec![1usize; rank];
        dims[rank - self.shape.len()..].copy_from_slice(&self.shape);
        // Trailing axes the source matches: one run copied per outer index. Else trailing axes
        // it repeats: one element filled over them.
        let matched = (0..rank).rev().take_while(|&a| dims[a] == shape[a]).count();
        let (inner_from, copy) = if matched > 0 {
            (rank - matched, true)
        } else {
            let repeated = (0..rank).rev().take_while(|&a| dims[a] == 1).count();
            (rank - repeated, false)
        };
        let run: usize = shape[inner_from..].iter().product();
        let src_run: usize = dims[inner_from..].iter().product();
        // Row-major strides of the source over the outer axes; 0 where it repeats.
        let mut strides = vec![0usize; inner_from];
        let mut stride = src_run;
        for a in (0..inner_from).rev() {
            strides[a] = if dims[a] == 1 { 0 } else { stride };
            stride *= dims[a];
        }
        let mut out = Vec::with_capacity(total);
        let mut index = vec![0usize; inner_from];
        let mut at = 0usize;
        loop {
            if copy {
                out.extend_from_slice(&src[at..at + run]);
            } else {
                out.resize(out.len() + run, src[at]);
            }
            // The next outer index, last axis fastest.
            let mut a = inner_from;
            loop {
                if a == 0 {
                    return Values::from_vec(shape, out);
                }
                a -= 1;
                index[a] += 1;
                at += strides[a];
                if index[a] < shape[a] {
                    break;
                }
                at -= strides[a] * index[a];
                index[a] = 0;
            }
        }
    }
}

impl<T> Values<T> {
    /// The shape.
    pub fn shape(&self) -> &[usize] {
        &self.shape
    }

    /// The number of elements.
    pub fn len(&self) -> usize {
        match &self.buf {
            Buf::Inline(_) => self.shape.iter().product(),
            Buf::Shared(v) => v.len(),
            Buf::Foreign(f) => f.len,
        }
    }

    /// Whether there are no elements.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The elements, row-major.
    pub fn as_slice(&self) -> &[T] {
        match &self.buf {
            Buf::Inline(items) => &items[..self.shape.iter().product::<usize>()],
            Buf::Shared(v) => v,
            // SAFETY: `from_foreign`'s contract: aligned, valid and unchanged while `f` lives.
            Buf::Foreign(f) => unsafe { std::slice::from_raw_parts(f.ptr, f.len) },
        }
    }

    /// The elements to write in place, when they are in a buffer nothing else shares (inline
    /// elements are left to the ops that make new values: they cost no allocation anyway).
    pub(crate) fn unshared_slice_mut(&mut self) -> Option<&mut [T]> {
        match &mut self.buf {
            Buf::Inline(_) | Buf::Foreign(_) => None,
            Buf::Shared(v) => Arc::get_mut(v).map(|v| v.as_mut_slice()),
        }
    }

    /// The elements to write in place, copied first when another value shares the buffer
    /// (copy-on-write): optimizer updates change a variable's elements without an allocation
    /// when nothing else holds them.
    pub(crate) fn make_mut(&mut self) -> &mut [T]
    where
        T: Clone,
    {
        let n = self.shape.iter().product::<usize>();
        if let Buf::Foreign(f) = &self.buf {
            // Foreign memory is never written through: copy it into a buffer of our own first.
            // SAFETY: `from_foreign`'s contract: aligned, valid and unchanged while `f` lives.
            let items = unsafe { std::slice::from_raw_parts(f.ptr, f.len) }.to_vec();
            self.buf = Buf::Shared(Arc::new(items));
        }
        match &mut self.buf {
            Buf::Inline(items) => &mut items[..n],
            Buf::Shared(v) => Arc::make_mut(v).as_mut_slice(),
            Buf::Foreign(_) => unreachable!("copied above"),
        }
    }

    /// The elements, row-major.
    pub fn iter(&self) -> std::slice::Iter<'_, T> {
        self.as_slice().iter()
    }

    /// The first element, if any.
    pub fn first(&self) -> Option<&T> {
        self.as_slice().first()
    }

    /// An ndarray view of the elements.
    pub fn view(&self) -> ArrayViewD<'_, T> {
        match ArrayViewD::from_shape(IxDyn(&self.shape), self.as_slice()) {
            Ok(view) => view,
            Err(_) => unreachable!("a buffer holds its shape's size"),
        }
    }

    /// The address of the elements, so memory held is counted once per buffer.
    pub fn storage_key(&self) -> usize {
        self.as_slice().as_ptr() as usize
    }
}

/// So that code taking a `Data` variant's values reads `Values<T>` and `Box<Values<T>>` (the
/// boxed complex128 variant) alike (see `tensor::values_ref`).
impl<T> AsRef<Values<T>> for Values<T> {
    fn as_ref(&self) -> &Values<T> {
        self
    }
}

impl<T: Copy + Default> From<ArrayD<T>> for Values<T> {
    fn from(array: ArrayD<T>) -> Values<T> {
        Values::from_array(array)
    }
}
