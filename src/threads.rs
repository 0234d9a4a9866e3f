//! How many threads rustape's parallel work uses (large kernels, GEMMs, Jacobian blocks).
//!
//! The work runs on rayon's global thread pool, which starts with the first parallel
//! operation and keeps its size: `RAYON_NUM_THREADS` in the environment, else one thread per
//! core. [`set_num_threads`] chooses the size before that first operation.
//!
//! ```
//! let n = rustape::threads::num_threads();
//! assert!(n >= 1);
//! // The pool's size cannot change once it runs; asking for the size it has is fine.
//! rustape::threads::set_num_threads(n)?;
//! # Ok::<(), rustape::Error>(())
//! ```
use std::sync::atomic::{AtomicUsize, Ordering};

use crate::error::{Error, Result};

/// The size the pool was started with here (0: not started by [`set_num_threads`]).
static STARTED: AtomicUsize = AtomicUsize::new(0);

/// The number of threads parallel work uses (or will use once the pool starts).
pub fn num_threads() -> usize {
    match STARTED.load(Ordering::Relaxed) {
        // The pool may have been started by a parallel operation; if so it took the default
        // this computes, which is what `rayon::current_num_threads` would say.
        0 => default_num_threads(),
        n => n,
    }
}

/// What rayon picks: `RAYON_NUM_THREADS` when it is a positive integer, else the cores
/// available to this process.
fn default_num_threads() -> usize {
    std::env::var("RAYON_NUM_THREADS")
        .ok()
        .and_then(|v| v.trim().parse::<usize>().ok())
        .filter(|&n| n > 0)
        .unwrap_or_else(|| std::thread::available_parallelism().map_or(1, |n| n.get()))
}

/// The most threads [`set_num_threads`] starts.
pub const MAX_THREADS: usize = 1024;

/// Starts the thread pool with `n` threads (1: everything runs on the calling thread).
///
/// Errors (`Error::value`) when `n` is 0 or above [`MAX_THREADS`] (rayon spawns every thread
/// when the pool starts, and a pool that failed to start leaves rayon unusable for the rest of
/// the process), or when the pool already runs with another size
/// (it started with an earlier call or with the first parallel operation; rayon pools keep
/// their size): call it first, or set `RAYON_NUM_THREADS` before the program starts.
pub fn set_num_threads(n: usize) -> Result<()> {
    const OP: &str = "set_num_threads";
    if n == 0 {
        return Err(Error::value(
            OP,
            "the number of threads must be at least 1, got 0",
        ));
    }
    if n > MAX_THREADS {
        return Err(Error::value(
            OP,
            format!("the number of threads must be at most {MAX_THREADS}, got {n}"),
        ));
    }
    match rayon::ThreadPoolBuilder::new()
        .num_threads(n)
        .build_global()
    {
        Ok(()) => {
            STARTED.store(n, Ordering::Relaxed);
            Ok(())
        }
        Err(_) => {
            let running = rayon::current_num_threads();
            if running == n {
                return Ok(());
            }
            Err(Error::value(
                OP,
                format!(
                    "the thread pool already runs with {running} threads and cannot change \
                     size: set the number of threads before the first parallel operation, or \
                     set RAYON_NUM_THREADS={n} in the environment before the program starts"
                ),
            ))
        }
    }
}
