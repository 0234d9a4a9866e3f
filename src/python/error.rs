//! The one place where engine errors, Python exceptions and panics meet.
//!
//! - `ErrorKind::Shape` / `Value` become `ValueError`, `DType` becomes `TypeError`, `Tape`
//!   becomes `RuntimeError`; the message is the engine's `"op: message"`.
//! - A Python exception raised inside a callback the engine runs (a custom gradient's VJP, a
//!   gradcheck function) is parked here and carried through the engine as an `Error` whose
//!   `op` names the parking slot; converting that `Error` back gives the original exception.
//! - [`guard`] wraps the body of every exposed function: a Rust panic becomes a RuntimeError
//!   instead of unwinding into the interpreter.
use std::any::Any;
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Mutex;

use pyo3::exceptions::{PyRuntimeError, PyTypeError, PyValueError};
use pyo3::PyErr;

use crate::error::{Error, ErrorKind};

/// `op` of an engine error that stands for a parked Python exception.
const PARKED: &str = "rustape:python-exception#";

/// Python exceptions on their way through the engine, by slot number. Entries are taken out
/// when the error reaches Python again; the bound only matters if the engine drops an error.
static PARKED_ERRORS: Mutex<Vec<(u64, PyErr)>> = Mutex::new(Vec::new());
static NEXT_SLOT: AtomicU64 = AtomicU64::new(1);
const MAX_PARKED: usize = 64;

/// Carries `err` through the engine: the returned `Error` converts back to `err`.
pub fn park(err: PyErr, context: &str) -> Error {
    let slot = NEXT_SLOT.fetch_add(1, Ordering::Relaxed);
    let message = format!("{context}: a Python exception was raised");
    let mut parked = PARKED_ERRORS.lock().unwrap_or_else(|p| p.into_inner());
    if parked.len() >= MAX_PARKED {
        parked.remove(0);
    }
    parked.push((slot, err));
    Error::new(ErrorKind::Value, format!("{PARKED}{slot}"), message)
}

fn unpark(error: &Error) -> Option<PyErr> {
    // The marker is the op; an engine layer that wrapped the error may have moved it into
    // the message ("op: message").
    let slot: u64 = match error.op.strip_prefix(PARKED) {
        Some(rest) => rest.parse().ok()?,
        None => {
            let at = error.message.find(PARKED)? + PARKED.len();
            let digits: String = error.message[at..]
                .chars()
                .take_while(char::is_ascii_digit)
                .collect();
            digits.parse().ok()?
        }
    };
    let mut parked = PARKED_ERRORS.lock().unwrap_or_else(|p| p.into_inner());
    let i = parked.iter().position(|(s, _)| *s == slot)?;
    Some(parked.remove(i).1)
}

impl From<Error> for PyErr {
    fn from(error: Error) -> PyErr {
        if let Some(err) = unpark(&error) {
            return err;
        }
        let message = error.to_string();
        match error.kind {
            ErrorKind::Shape | ErrorKind::Value => PyValueError::new_err(message),
            ErrorKind::DType => PyTypeError::new_err(message),
            ErrorKind::Tape => PyRuntimeError::new_err(message),
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

pub fn internal_error(payload: &(dyn Any + Send)) -> PyErr {
    PyRuntimeError::new_err(format!(
        "internal error in rustape (please report): {}",
        panic_message(payload)
    ))
}

/// Runs the body of an exposed function; a panic becomes a RuntimeError.
#[inline]
pub fn guard<T>(body: impl FnOnce() -> pyo3::PyResult<T>) -> pyo3::PyResult<T> {
    match catch_unwind(AssertUnwindSafe(body)) {
        Ok(result) => result,
        Err(payload) => Err(internal_error(&*payload)),
    }
}

/// An engine error in the form the engine reports its own (for messages the glue raises).
pub fn value_error(op: &str, message: impl Into<String>) -> PyErr {
    Error::value(op, message).into()
}

pub fn type_error(op: &str, message: impl Into<String>) -> PyErr {
    Error::dtype(op, message).into()
}
