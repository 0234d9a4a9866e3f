//! Elementwise results written straight into a fresh buffer (no zero-fill), split across rayon
//! for large contiguous tensors. Every size runs the same per-element function, so a value never
//! depends on the size of the tensor it sits in, nor on the thread count.
//!
//! Buffers are reserved fallibly (`crate::memory`): every helper here returns a MemoryError
//! naming its op rather than aborting. Whether to go parallel at all is decided here too
//! ([`may_split`], [`parallel_threads`]): after `fork()` the child has no pool threads, so it
//! runs everything serially.
use std::mem::MaybeUninit;
use std::sync::atomic::{AtomicBool, Ordering};

use super::parallel::for_each_task;
use crate::error::Result;
use crate::memory::try_vec;
use crate::tensor::Values;

use super::vmath::{map_slice, select_slice, zip_slice};

/// Elements per rayon task: large enough to amortise a task, small enough to balance two cores.
const CHUNK: usize = 1 << 15;

/// Element counts from which an op goes parallel (benches/elementwise.rs, float32, one core with
/// AVX-512): a multiply streams at ~0.1 ns/element from cache and ~0.2 from memory, exp and tanh
/// take ~0.3-0.5 ns/element, while handing half the work to the other core costs a few µs. Below
/// these sizes the split saves less than it costs; they are deliberately conservative.
pub(crate) const PAR_CHEAP: usize = 1 << 17;
pub(crate) const PAR_MATH: usize = 1 << 15;

/// Whether a large kernel should split across rayon's threads: not when it already runs on one
/// of them (a block of a parallel Jacobian), where the other threads are busy with blocks of
/// their own and splitting only adds scheduling; not in a forked child (see
/// [`parallel_threads`]). Every parallel loop in the engine asks this (or
/// [`parallel_threads`]) first.
pub(crate) fn may_split() -> bool {
    rayon::current_thread_index().is_none() && parallel_threads() > 1 && !super::parallel::in_task()
}

/// How much larger than its threshold a kernel must be to wake a parked helper thread.
///
/// The thresholds assume a helper that is awake (it spins briefly after each job): handing it
/// half the work then costs about a microsecond. A parked helper takes a futex wake on the
/// caller's side and tens of microseconds to get a (virtual) core back, during which the caller
/// has often done the whole of a small kernel alone, so the wake-up is pure overhead (process
/// CPU grows, the time does not fall). Between the short kernels of an eager program (a
/// nested-tape PINN: thousands of 10-30 µs kernels separated by Python) the helper is parked,
/// so only kernels this many times over the threshold wake it.
const COLD_FACTOR: usize = 4;

/// Whether a kernel of `work` units (elements, multiply-adds) that pays to split from
/// `threshold` units should split now: [`may_split`], and large enough for the helper threads'
/// state (awake: the threshold; parked: [`COLD_FACTOR`] times it).
pub(crate) fn worth_splitting(work: usize, threshold: usize) -> bool {
    work >= threshold
        && may_split()
        && (work >= threshold.saturating_mul(COLD_FACTOR) || super::parallel::helpers_awake())
}

/// How many threads parallel work may use from here: rayon's pool size, or 1 in a process
/// forked after the pool started (its worker threads did not survive the fork: a job sent to
/// them would wait forever, so the child runs serially).
pub(crate) fn parallel_threads() -> usize {
    if FORKED.load(Ordering::Relaxed) {
        return 1;
    }
    watch_for_fork();
    rayon::current_num_threads()
}

/// Set in a child process forked after the pool started.
static FORKED: AtomicBool = AtomicBool::new(false);

/// Registers (once) the handler that marks a forked child.
fn watch_for_fork() {
    #[cfg(unix)]
    {
        static REGISTERED: std::sync::Once = std::sync::Once::new();
        extern "C" fn in_child() {
            FORKED.store(true, Ordering::Relaxed);
        }
        // SAFETY: `in_child` only stores to an atomic (async-signal-safe).
        REGISTERED.call_once(|| unsafe {
            libc::pthread_atfork(None, None, Some(in_child));
        });
    }
}

/// A slice handed out in `CHUNK`-long pieces to the tasks of a split kernel, one task each.
struct Chunks<T> {
    ptr: *mut T,
    len: usize,
}

// SAFETY: each chunk goes to one task (see `get`), and `T: Send` lets it move there.
unsafe impl<T: Send> Sync for Chunks<T> {}

impl<T> Chunks<T> {
    fn new(slice: &mut [T]) -> Chunks<T> {
        Chunks {
            ptr: slice.as_mut_ptr(),
            len: slice.len(),
        }
    }
    /// Chunk `i`.
    ///
    /// # Safety
    /// No two live borrows for one `i`; the slice outlives them.
    #[allow(clippy::mut_from_ref)]
    unsafe fn get(&self, i: usize) -> &mut [T] {
        let start = i * CHUNK;
        let len = CHUNK.min(self.len - start);
        unsafe { std::slice::from_raw_parts_mut(self.ptr.add(start), len) }
    }
}

/// A vector of `n` elements, each chunk written by `kernel(offset, chunk)`, which must write
/// every element of its chunk. The buffer is reserved fallibly: a MemoryError naming `op`.
pub(crate) fn fill<U: Send>(
    op: &str,
    n: usize,
    min_par: usize,
    kernel: impl Fn(usize, &mut [MaybeUninit<U>]) + Sync,
) -> Result<Vec<U>> {
    let mut out = try_vec(op, n)?;
    let dst = &mut out.spare_capacity_mut()[..n];
    if worth_splitting(n, min_par) {
        let chunks = Chunks::new(dst);
        for_each_task(n.div_ceil(CHUNK), &|i| {
            // SAFETY: task `i` alone takes chunk `i`.
            kernel(i * CHUNK, unsafe { chunks.get(i) })
        });
    } else {
        kernel(0, dst);
    }
    // SAFETY: the kernels write every element of the chunks they are given.
    unsafe { out.set_len(n) };
    Ok(out)
}

/// `chunk` over `a`'s elements.
pub(crate) fn map_array_with<T: Copy + Sync, U: Send + Copy + Default>(
    op: &str,
    a: &Values<T>,
    min_par: usize,
    chunk: impl Fn(&[T], &mut [MaybeUninit<U>]) + Sync,
) -> Result<Values<U>> {
    let src = a.as_slice();
    if let ([x], true) = (src, a.shape().is_empty()) {
        // A scalar: no buffer to fill (the value lives inline).
        let mut out = [MaybeUninit::uninit()];
        chunk(std::slice::from_ref(x), &mut out);
        // SAFETY: the kernel writes every element of its chunk.
        return Ok(Values::scalar(unsafe { out[0].assume_init() }));
    }
    Ok(Values::from_vec(
        a.shape(),
        fill(op, src.len(), min_par, |at, d| {
            chunk(&src[at..at + d.len()], d)
        })?,
    ))
}

/// `f` over `a`'s elements.
pub(crate) fn map_array<T: Copy + Sync, U: Send + Copy + Default>(
    op: &str,
    a: &Values<T>,
    min_par: usize,
    f: impl Fn(T) -> U + Sync,
) -> Result<Values<U>> {
    map_array_with(op, a, min_par, |s, d| map_slice(s, d, &f))
}

/// `f` over two contiguous slices of one length.
pub(crate) fn zip_vec<T: Copy + Sync, U: Send>(
    op: &str,
    a: &[T],
    b: &[T],
    min_par: usize,
    f: impl Fn(T, T) -> U + Sync,
) -> Result<Vec<U>> {
    fill(op, a.len(), min_par, |at, d| {
        let end = at + d.len();
        zip_slice(&a[at..end], &b[at..end], d, &f)
    })
}

/// `f(x[i], y[i % y.len()])` for every `i` (`y` non-empty, repeating along `x`: a bias against
/// a batch of rows), split across threads like [`zip_vec`]. Serial, the MLP step's `[256, 512]`
/// bias add took ~40 us after a split GEMM (half its input in the other core's cache), against
/// ~11 us for a contiguous add of the same size.
pub(crate) fn zip_repeating_vec<T: Copy + Sync, U: Send>(
    op: &str,
    x: &[T],
    y: &[T],
    min_par: usize,
    f: impl Fn(T, T) -> U + Sync,
) -> Result<Vec<U>> {
    fill(op, x.len(), min_par, |at, d| {
        let src = &x[at..at + d.len()];
        // The chunk starts `first` elements into a repetition of `y`: that block's tail, then
        // whole blocks (the last one perhaps cut short).
        let first = at % y.len();
        let head = (y.len() - first).min(d.len());
        let (dh, dt) = d.split_at_mut(head);
        let (sh, st) = src.split_at(head);
        for ((o, &p), &q) in dh.iter_mut().zip(sh).zip(&y[first..]) {
            o.write(f(p, q));
        }
        for (ob, sb) in dt.chunks_mut(y.len()).zip(st.chunks(y.len())) {
            for ((o, &p), &q) in ob.iter_mut().zip(sb).zip(y) {
                o.write(f(p, q));
            }
        }
    })
}

/// `dst[i] = f(dst[i], src[i])` over two slices of one length, in place.
pub(crate) fn zip_assign<T: Copy + Send + Sync>(
    dst: &mut [T],
    src: &[T],
    min_par: usize,
    f: impl Fn(T, T) -> T + Sync,
) {
    let run = |d: &mut [T], s: &[T]| d.iter_mut().zip(s).for_each(|(d, &s)| *d = f(*d, s));
    if worth_splitting(dst.len(), min_par) {
        let n = dst.len();
        let chunks = Chunks::new(dst);
        for_each_task(n.div_ceil(CHUNK), &|i| {
            // SAFETY: task `i` alone takes chunk `i`.
            run(
                unsafe { chunks.get(i) },
                &src[i * CHUNK..(i * CHUNK + CHUNK).min(n)],
            )
        });
    } else {
        run(dst, src);
    }
}

/// `f` over three contiguous slices of one length.
pub(crate) fn select_vec<C: Copy + Sync, T: Copy + Sync, U: Send>(
    op: &str,
    c: &[C],
    a: &[T],
    b: &[T],
    min_par: usize,
    f: impl Fn(C, T, T) -> U + Sync,
) -> Result<Vec<U>> {
    fill(op, a.len(), min_par, |at, d| {
        let end = at + d.len();
        select_slice(&c[at..end], &a[at..end], &b[at..end], d, &f)
    })
}

/// `f` over one contiguous slice, into values of `shape`.
pub(crate) fn map_vec<T: Copy + Sync, U: Send + Copy + Default>(
    op: &str,
    shape: &[usize],
    a: &[T],
    min_par: usize,
    f: impl Fn(T) -> U + Sync,
) -> Result<Values<U>> {
    Ok(Values::from_vec(
        shape,
        fill(op, a.len(), min_par, |at, d| {
            map_slice(&a[at..at + d.len()], d, &f)
        })?,
    ))
}
