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

use pyo3::exceptions::{PyMemoryError, PyOverflowError, PyRuntimeError, PyTypeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::PyFloat;
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

/// An integer argument `arg` of `op` within `[min, max]`: a TypeError naming both when `obj` is
/// not an integer, a ValueError naming both when it is out of range (a Python int of any size:
/// never an OverflowError). Every integer parameter of a binding goes through here or one of
/// the helpers below (`count_arg`, `positive_arg`, `seed_arg`).
pub fn int_arg(
    obj: &Bound<'_, PyAny>,
    op: &str,
    arg: &str,
    min: i128,
    max: i128,
) -> PyResult<i128> {
    if obj.is_instance_of::<PyFloat>() {
        return Err(type_error(
            op,
            format!("{arg} must be an integer, got the float {}", repr(obj)),
        ));
    }
    let value = match obj.extract::<i128>() {
        Ok(v) => Some(v),
        Err(e) if e.is_instance_of::<PyOverflowError>(obj.py()) => None,
        // A one-element integer tensor or array stands for its value, as in TensorFlow.
        Err(_) if super::convert::tensorish(obj).is_some() => {
            match super::ops::ints(obj, op)?.as_slice() {
                [v] => Some(*v as i128),
                _ => {
                    return Err(value_error(
                        op,
                        format!("{arg} must be one integer, got {}", repr(obj)),
                    ))
                }
            }
        }
        Err(_) => {
            return Err(type_error(
                op,
                format!(
                    "{arg} must be an integer, got {} of type {}",
                    repr(obj),
                    obj.get_type()
                        .name()
                        .map(|n| n.to_string())
                        .unwrap_or_default()
                ),
            ))
        }
    };
    match value {
        Some(v) if (min..=max).contains(&v) => Ok(v),
        _ => Err(value_error(
            op,
            format!("{arg} must be between {min} and {max}, got {}", repr(obj)),
        )),
    }
}

fn repr(obj: &Bound<'_, PyAny>) -> String {
    let text = obj
        .repr()
        .map(|r| r.to_string())
        .unwrap_or_else(|_| "?".into());
    if text.len() > 60 {
        format!("{}...", &text[..57])
    } else {
        text
    }
}

/// A count or size argument (`depth`, `num_rows`, `num`): `0 ..= isize::MAX`.
pub fn count_arg(obj: &Bound<'_, PyAny>, op: &str, arg: &str) -> PyResult<usize> {
    Ok(int_arg(obj, op, arg, 0, isize::MAX as i128)? as usize)
}

/// A positive count (`parallel_iterations`): `1 ..= isize::MAX`.
pub fn positive_arg(obj: &Bound<'_, PyAny>, op: &str, arg: &str) -> PyResult<usize> {
    Ok(int_arg(obj, op, arg, 1, isize::MAX as i128)? as usize)
}

/// An axis-like argument (it may be negative): `i64` range, as isize.
pub fn axis_arg(obj: &Bound<'_, PyAny>, op: &str, arg: &str) -> PyResult<isize> {
    Ok(int_arg(obj, op, arg, isize::MIN as i128, isize::MAX as i128)? as isize)
}

/// An optional axis-like argument with a default (`axis=0` in TensorFlow's signature: take
/// `OptObj` with `None` as the Rust default and keep `axis=0` in `text_signature`).
pub fn axis_or(
    obj: Option<&Bound<'_, PyAny>>,
    default: isize,
    op: &str,
    arg: &str,
) -> PyResult<isize> {
    match obj.filter(|o| !o.is_none()) {
        Some(o) => axis_arg(o, op, arg),
        None => Ok(default),
    }
}

/// An optional count argument with a default (see [`axis_or`]).
pub fn count_or(
    obj: Option<&Bound<'_, PyAny>>,
    default: usize,
    op: &str,
    arg: &str,
) -> PyResult<usize> {
    match obj.filter(|o| !o.is_none()) {
        Some(o) => count_arg(o, op, arg),
        None => Ok(default),
    }
}

/// A number argument (`mean=`, `stddev=`): a Python int or float (of any size: an int beyond
/// float's range is a ValueError naming `op` and `arg`, never an OverflowError), or a
/// one-element tensor; a TypeError otherwise.
pub fn number_arg(obj: &Bound<'_, PyAny>, op: &str, arg: &str) -> PyResult<f64> {
    match obj.extract::<f64>() {
        Ok(v) => Ok(v),
        Err(e) if e.is_instance_of::<PyOverflowError>(obj.py()) => Err(value_error(
            op,
            format!("{arg} {} is too large for a float", repr(obj)),
        )),
        Err(_) => super::ops::number(obj, op),
    }
}

/// An optional number argument with a default (see [`axis_or`]).
pub fn number_or(
    obj: Option<&Bound<'_, PyAny>>,
    default: f64,
    op: &str,
    arg: &str,
) -> PyResult<f64> {
    match obj.filter(|o| !o.is_none()) {
        Some(o) => number_arg(o, op, arg),
        None => Ok(default),
    }
}

/// A random seed: any integer from `-2**63` to `2**64 - 1` (a negative one is taken modulo
/// `2**64`, as its 64 bits).
pub fn seed_arg(obj: &Bound<'_, PyAny>, op: &str, arg: &str) -> PyResult<u64> {
    Ok(int_arg(obj, op, arg, i64::MIN as i128, u64::MAX as i128)? as u64)
}

/// An engine error in the form the engine reports its own (for messages the glue raises).
pub fn value_error(op: &str, message: impl Into<String>) -> PyErr {
    Error::value(op, message).into()
}

/// A TypeError in the engine's form.
pub fn type_error(op: &str, message: impl Into<String>) -> PyErr {
    Error::dtype(op, message).into()
}
