//! The engine's one error type. `src/python/error.rs` maps each kind to a Python exception:
//! Shape and Value to ValueError, DType to TypeError, Tape to RuntimeError, Memory to
//! MemoryError, and an External error back to the exception it carries.
use std::any::Any;
use std::fmt;
use std::sync::Arc;

/// Which kind of mistake an [`Error`] reports (it decides the Python exception).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ErrorKind {
    /// Shapes that do not fit the op (ValueError).
    Shape,
    /// Wrong or mismatched dtypes (TypeError).
    DType,
    /// Bad argument values: an axis out of range, a singular matrix, ... (ValueError).
    Value,
    /// Misuse of a tape: a second gradient on a non-persistent tape, ... (RuntimeError).
    Tape,
    /// An allocation the op needed failed (MemoryError). The message names the byte count.
    Memory,
    /// Raised by code the engine called back into (a custom gradient's function, a gradcheck
    /// function, an interrupt check): [`Error::cause`] holds that code's own error, which a
    /// binding hands back unchanged (a Python exception comes out as itself).
    External,
}

/// The error of code the engine called back into, carried through the engine untouched
/// (for Python: the `PyErr` a callback raised). Compared by identity.
#[derive(Clone)]
pub struct Cause(Arc<dyn Any + Send + Sync>);

impl Cause {
    /// Wraps any error value.
    pub fn new<E: Any + Send + Sync>(error: E) -> Cause {
        Cause(Arc::new(error))
    }

    /// The carried value, if it is an `E`.
    pub fn downcast_ref<E: Any>(&self) -> Option<&E> {
        self.0.downcast_ref()
    }

    /// The carried value, if it is an `E`, shared with any other copy of this cause.
    pub fn downcast<E: Any + Send + Sync>(self) -> std::result::Result<Arc<E>, Cause> {
        self.0.downcast().map_err(Cause)
    }
}

impl fmt::Debug for Cause {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("Cause(..)")
    }
}

impl PartialEq for Cause {
    fn eq(&self, other: &Cause) -> bool {
        Arc::ptr_eq(&self.0, &other.0)
    }
}

impl Eq for Cause {}

/// An error of the engine: the op that raised it and what went wrong.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Error {
    /// Which kind of failure (and so which Python exception).
    pub kind: ErrorKind,
    /// The op (or tape method) that raised it, e.g. "matmul" or "GradientTape.gradient".
    pub op: String,
    /// What went wrong, with the shapes, dtypes and values involved.
    pub message: String,
    /// For [`ErrorKind::External`]: the callback's own error.
    pub cause: Option<Cause>,
}

/// The engine's result type.
pub type Result<T> = std::result::Result<T, Error>;

impl Error {
    /// An error of `kind` raised by `op`.
    pub fn new(kind: ErrorKind, op: impl Into<String>, message: impl Into<String>) -> Error {
        Error {
            kind,
            op: op.into(),
            message: message.into(),
            cause: None,
        }
    }
    /// A shape error (ValueError in Python).
    pub fn shape(op: impl Into<String>, message: impl Into<String>) -> Error {
        Error::new(ErrorKind::Shape, op, message)
    }
    /// A dtype error (TypeError in Python).
    pub fn dtype(op: impl Into<String>, message: impl Into<String>) -> Error {
        Error::new(ErrorKind::DType, op, message)
    }
    /// A bad argument value (ValueError in Python).
    pub fn value(op: impl Into<String>, message: impl Into<String>) -> Error {
        Error::new(ErrorKind::Value, op, message)
    }
    /// Misuse of a tape (RuntimeError in Python).
    pub fn tape(op: impl Into<String>, message: impl Into<String>) -> Error {
        Error::new(ErrorKind::Tape, op, message)
    }
    /// A failed allocation of `bytes` bytes (what for is in `what`, e.g. "a float32 tensor of
    /// shape [1073741824, 8]").
    pub fn memory(op: impl Into<String>, bytes: usize, what: &str) -> Error {
        Error::new(
            ErrorKind::Memory,
            op,
            format!(
                "failed to allocate {} ({bytes} bytes) for {what}",
                fmt_bytes(bytes)
            ),
        )
    }
    /// The error `cause` of code the engine called back into, from `op`.
    pub fn external<E: Any + Send + Sync>(
        op: impl Into<String>,
        message: impl Into<String>,
        cause: E,
    ) -> Error {
        Error {
            cause: Some(Cause::new(cause)),
            ..Error::new(ErrorKind::External, op, message)
        }
    }
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: {}", self.op, self.message)
    }
}

impl std::error::Error for Error {}

/// `[2, 3]` as TensorFlow prints shapes in its messages.
pub fn fmt_shape(shape: &[usize]) -> String {
    let dims: Vec<String> = shape.iter().map(|d| d.to_string()).collect();
    format!("[{}]", dims.join(", "))
}

/// A byte count for people: `8.0 GiB`.
pub fn fmt_bytes(bytes: usize) -> String {
    const UNITS: [&str; 6] = ["bytes", "KiB", "MiB", "GiB", "TiB", "PiB"];
    let mut value = bytes as f64;
    let mut unit = 0;
    while value >= 1024.0 && unit + 1 < UNITS.len() {
        value /= 1024.0;
        unit += 1;
    }
    if unit == 0 {
        format!("{bytes} bytes")
    } else {
        format!("{value:.1} {}", UNITS[unit])
    }
}
