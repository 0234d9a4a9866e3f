//! `rt.config`'s thread count and the progress bar the package's loops draw.
use std::sync::Arc;

use pyo3::prelude::*;

use super::bindings::bindings;
use super::error::{count_arg, guard};
use crate::progress::{Bar, Progress};

/// Starts rustape's thread pool with `n` threads (1: everything on the calling thread).
///
/// Call it before the first parallel operation (large elementwise kernels, matrix products,
/// Jacobians): the pool keeps its size once it runs, and asking for another size then raises
/// a ValueError. `RAYON_NUM_THREADS` in the environment sets the size too.
///
/// >>> n = rt.config.get_num_threads()
/// >>> rt.config.set_num_threads(n)  # the size it has (or will have): always allowed
#[pyfunction]
fn set_num_threads(py: Python<'_>, n: &Bound<'_, PyAny>) -> PyResult<()> {
    let n = count_arg(n, "config.set_num_threads", "n")?;
    guard(|| Ok(py.detach(|| crate::threads::set_num_threads(n))?))
}

/// The number of threads rustape's parallel work uses: the size given to `set_num_threads`,
/// else `RAYON_NUM_THREADS`, else the number of cores.
///
/// >>> rt.config.get_num_threads() >= 1
/// True
#[pyfunction]
fn get_num_threads() -> usize {
    crate::threads::num_threads()
}

/// A tqdm-style progress bar on stderr (what `progress=True` draws for Jacobians), driven
/// from Python by `rt.utils.progress_bar`.
#[pyclass(frozen, name = "ProgressBar", module = "rustape._rustape")]
struct PyProgressBar {
    bar: Arc<Bar>,
}

#[pymethods]
impl PyProgressBar {
    #[new]
    #[pyo3(signature = (label, unit="steps"))]
    fn py_new(label: &str, unit: &str) -> PyProgressBar {
        PyProgressBar {
            bar: Arc::new(Bar::new(label, unit)),
        }
    }
    /// Starts the bar at 0 of `total`.
    fn start(&self, total: usize) {
        self.bar.start(total);
    }
    /// `n` more done.
    #[pyo3(signature = (n=1))]
    fn advance(&self, n: usize) {
        self.bar.advance(n);
    }
    /// Draws the last state and ends the line.
    fn finish(&self) {
        self.bar.finish();
    }
    /// Units done so far.
    #[getter]
    fn done(&self) -> usize {
        self.bar.done()
    }
}

bindings! {
    fn set_num_threads => [config];
    fn get_num_threads => [config];
    class PyProgressBar => [];
}
