//! The extension module `rustape._rustape` (PyO3 glue only; built with the `python` feature).
//!
//! - `tensor.rs`: `Tensor` and `Variable` (operators, indexing, NumPy interop);
//! - `convert.rs`: Python values to tensors and back, in one place;
//! - `dtype.rs`: `DType` and the dtype attributes;
//! - `tape.rs`: `Tape`, custom gradients, gradcheck, the thread's tape switches;
//! - `ops.rs`, `ops_shape.rs`, `ops_nn.rs` (convolution, pooling, layer ops): the op functions;
//! - `ops.rs`, `ops_shape.rs`, `ops_math.rs`, `ops_index.rs`, `ops_random.rs`: the op functions
//!   (`args.rs`: how their arguments are read);
//! - `optim.rs`: `Optimizer` and `Schedule`, behind `rt.keras.optimizers`;
//! - `error.rs`: engine errors, Python exceptions and panics;
//! - `dlpack.rs`, `buffer.rs`: DLPack and the buffer protocol (zero-copy exchange with other
//!   libraries);
//! - `config.rs`: the thread count and the progress bar of `rt.config` / `rt.utils`;
//! - `bindings.rs`: the table saying which functions and classes the extension has and in
//!   which namespaces (`rt`, `rt.math`, ...) each appears (every file ends with its rows).
//!
//! Every exposed function runs its body in [`error::guard`], so no Rust panic reaches Python.
mod args;
mod bindings;
mod buffer;
mod checkpoint;
mod config;
mod convert;
mod dlpack;
mod dtype;
mod error;
mod index;
mod metrics;
mod ops;
mod ops_complex;
mod ops_ctc;
mod ops_image;
mod ops_image_boxes;
mod ops_index;
mod ops_int;
mod ops_linalg;
mod ops_math;
mod ops_nn;
mod ops_random;
mod ops_search;
mod ops_shape;
mod ops_signal;
mod ops_strings;
mod optim;
mod tape;
mod tensor;
mod text_convert;

use pyo3::prelude::*;

use bindings::{bindings, Table};
use tensor::{PyTensor, PyVariable};

/// The extension's allocator. A recorded op allocates a few small blocks (the tensor, its
/// storage, the node's closure) and the backward sweep frees them: mimalloc does that in a
/// fraction of glibc's instructions and without glibc's 16-byte header per block. Only the
/// Python extension sets it; a Rust program linking rustape keeps its own allocator.
#[cfg(feature = "mimalloc")]
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

#[cfg(feature = "mimalloc")]
extern "C" {
    /// mimalloc's option setter (compiled in by the `mimalloc` crate).
    fn mi_option_set(option: std::ffi::c_int, value: std::ffi::c_long);
}

/// Two allocator settings, measured on W4 (a 4 MiB Jacobian in blocks on two threads):
/// - no transparent huge pages for mimalloc's arenas: with them RSS grows in 2 MiB steps (peak
///   RSS 2.2-3.6x the result and tape; 1.3x without). Set after mimalloc started, so it only
///   stops mimalloc's own `madvise`, not THP for the rest of the Python process;
/// - freed pages are reset, not decommitted: decommitted pages fault again on reuse (29K page
///   faults, W4 on 2 threads 2.1-2.4 ms; reset: 1.4-1.5 ms).
fn configure_allocator() {
    #[cfg(feature = "mimalloc")]
    {
        // mimalloc.h, `mi_option_purge_decommits` and `mi_option_allow_thp`.
        const MI_OPTION_PURGE_DECOMMITS: std::ffi::c_int = 5;
        const MI_OPTION_ALLOW_THP: std::ffi::c_int = 43;
        // SAFETY: documented options, set once at import.
        unsafe {
            mi_option_set(MI_OPTION_PURGE_DECOMMITS, 0);
            mi_option_set(MI_OPTION_ALLOW_THP, 0);
        }
    }
}

// The classes a user meets (the tape's Python face is `rt.GradientTape`, in the package).
bindings! {
    class PyTensor => [rt];
    class PyVariable => [rt];
}

#[pymodule]
#[pyo3(name = "_rustape")]
fn rustape_module(m: &Bound<'_, PyModule>) -> PyResult<()> {
    configure_allocator();
    error::install_panic_hook();
    crate::interrupt::set_interrupt_check(Some(error::check_signals));
    let mut table = Table::default();
    register(m, &mut table)?;
    dtype::register(m, &mut table)?;
    tape::register(m, &mut table)?;
    ops::register(m, &mut table)?;
    ops_shape::register(m, &mut table)?;
    ops_random::register(m, &mut table)?;
    ops_search::register(m, &mut table)?;
    ops_nn::register(m, &mut table)?;
    ops_ctc::register(m, &mut table)?;
    ops_linalg::register(m, &mut table)?;
    ops_math::register(m, &mut table)?;
    ops_index::register(m, &mut table)?;
    ops_image::register(m, &mut table)?;
    ops_image_boxes::register(m, &mut table)?;
    ops_signal::register(m, &mut table)?;
    ops_int::register(m, &mut table)?;
    ops_strings::register(m, &mut table)?;
    ops_complex::register(m, &mut table)?;
    optim::register(m, &mut table)?;
    metrics::register(m, &mut table)?;
    dlpack::register(m, &mut table)?;
    config::register(m, &mut table)?;
    checkpoint::register(m, &mut table)?;
    table.value(m, "__version__", env!("CARGO_PKG_VERSION"), &[])?;
    table.publish(m)
}
