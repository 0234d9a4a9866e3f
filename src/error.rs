//! The engine's one error type. `src/python/error.rs` maps each kind to a Python exception:
//! Shape and Value to ValueError, DType to TypeError, Tape to RuntimeError.
use std::fmt;

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
}

/// An error of the engine: the op that raised it and what went wrong.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Error {
    /// The kind (ValueError, TypeError or RuntimeError in Python).
    pub kind: ErrorKind,
    /// The op (or tape method) that raised it, e.g. "matmul" or "GradientTape.gradient".
    pub op: String,
    /// What went wrong, with the shapes and dtypes involved.
    pub message: String,
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
