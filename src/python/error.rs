//! The one place where engine errors, Python exceptions and panics meet.
//!
//! - `ErrorKind::Shape` / `Value` become `ValueError`, `DType` becomes `TypeError`, `Tape`
//!   becomes `RuntimeError`, `Memory` becomes `MemoryError`; the message is the engine's
//!   `"op: message"`.
//! - A Python exception raised inside a callback the engine runs (a custom gradient's VJP, a
//!   gradcheck function, a signal handler run between Jacobian blocks) travels through the
//!   engine in the typed [`crate::error::Cause`] of an `External` error ([`from_python`]);
//!   converting that error back gives the original exception object.
//! - [`guard`] wraps the body of every exposed function: a Rust panic becomes a RuntimeError
//!   instead of unwinding into the interpreter, and the panic hook ([`install_panic_hook`])
//!   keeps such a panic off stderr (its text and place are in the RuntimeError).
use std::any::Any;
use std::cell::Cell;
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::{Arc, Mutex};

use pyo3::exceptions::{PyMemoryError, PyRuntimeError, PyTypeError, PyValueError};
use pyo3::{PyErr, Python};

use crate::error::{Error, ErrorKind};

/// An engine error carrying `err`, raised by a callback the engine ran for `context` (the op or
/// tape method): converting it back to a `PyErr` gives `err` itself.
pub fn from_python(err: PyErr, context: &str) -> Error {
    Error::external(context, "a Python exception was raised", err)
}

impl From<Error> for PyErr {
    fn from(error: Error) -> PyErr {
        let message = error.to_string();
        if let Some(cause) = error.cause {
            if let Ok(err) = cause.downcast::<PyErr>() {
                return match Arc::try_unwrap(err) {
                    Ok(err) => err,
                    Err(shared) => Python::attach(|py| shared.clone_ref(py)),
                };
            }
        }
        match error.kind {
            ErrorKind::Shape | ErrorKind::Value => PyValueError::new_err(message),
            ErrorKind::DType => PyTypeError::new_err(message),
            ErrorKind::Tape | ErrorKind::External => PyRuntimeError::new_err(message),
            ErrorKind::Memory => PyMemoryError::new_err(message),
        }
    }
}

/// The text of a panic payload.
pub fn panic_message(payload: &(dyn Any + Send)) -> String {
    if let Some(s) = payload.downcast_ref::<&str>() {
        (*s).to_string()
    } else if let Some(s) = payload.downcast_ref::<String>() {
        s.clone()
    } else {
        "unknown panic".to_string()
    }
}

/// The RuntimeError a panic becomes (with where it happened, when the hook saw it).
pub fn internal_error(payload: &(dyn Any + Send)) -> PyErr {
    let place = LAST_PANIC_PLACE
        .lock()
        .unwrap_or_else(|p| p.into_inner())
        .take()
        .map(|p| format!(" at {p}"))
        .unwrap_or_default();
    PyRuntimeError::new_err(format!(
        "internal error in rustape (please report): {}{place}",
        panic_message(payload)
    ))
}

thread_local! {
    /// How many [`guard`]s this thread is inside: a panic here becomes a RuntimeError.
    static GUARDED: Cell<usize> = const { Cell::new(0) };
}

/// Where the last panic caught by the hook happened (`file:line`), for [`internal_error`].
static LAST_PANIC_PLACE: Mutex<Option<String>> = Mutex::new(None);

/// Runs the body of an exposed function; a panic becomes a RuntimeError.
#[inline]
pub fn guard<T>(body: impl FnOnce() -> pyo3::PyResult<T>) -> pyo3::PyResult<T> {
    GUARDED.with(|g| g.set(g.get() + 1));
    let result = catch_unwind(AssertUnwindSafe(body));
    GUARDED.with(|g| g.set(g.get() - 1));
    match result {
        Ok(result) => result,
        Err(payload) => Err(internal_error(&*payload)),
    }
}

/// Installs a panic hook that keeps panics inside rustape's guarded calls off stderr (they
/// reach Python as a RuntimeError naming the panic and its place); any other panic in the
/// process goes to the hook that was there before.
pub fn install_panic_hook() {
    static ONCE: std::sync::Once = std::sync::Once::new();
    ONCE.call_once(install_hook);
}

fn install_hook() {
    let previous = std::panic::take_hook();
    std::panic::set_hook(Box::new(move |info| {
        // rayon's workers (this library's own pool) run rustape's code only; their panics
        // are re-raised on the calling thread, inside its guard.
        let ours = GUARDED.with(Cell::get) > 0 || rayon::current_thread_index().is_some();
        if !ours || std::env::var_os("RUSTAPE_SHOW_PANICS").is_some() {
            previous(info);
        }
        if let Some(location) = info.location() {
            *LAST_PANIC_PLACE.lock().unwrap_or_else(|p| p.into_inner()) =
                Some(format!("{}:{}", location.file(), location.line()));
        }
    }));
}

/// The interrupt check Jacobians poll between blocks (see `crate::interrupt`): runs Python's
/// signal handlers, so Ctrl-C raises KeyboardInterrupt (carried out as itself).
pub fn check_signals() -> crate::error::Result<()> {
    Python::attach(|py| py.check_signals()).map_err(|e| from_python(e, "interrupted"))
}

/// An engine error in the form the engine reports its own (for messages the glue raises).
pub fn value_error(op: &str, message: impl Into<String>) -> PyErr {
    Error::value(op, message).into()
}

/// A TypeError in the engine's form.
pub fn type_error(op: &str, message: impl Into<String>) -> PyErr {
    Error::dtype(op, message).into()
}
