//! Variables: a handle with its own id and a current value.
//!
//! Each read inside a recording tape is a node linking the handle's id to the value read, so
//! the gradient with respect to a variable sums over all its reads, and an `assign` after a
//! read does not change what the tape recorded (values are immutable; assign swaps them).
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, RwLock};

use crate::dtype::DType;
use crate::error::{fmt_shape, Error, Result};
use crate::ops;
use crate::tape::record::read_variable;
use crate::tensor::{fresh_id, Tensor, TensorId};

#[derive(Clone)]
pub struct Variable(Arc<Inner>);

struct Inner {
    id: TensorId,
    value: RwLock<Tensor>,
    trainable: bool,
    name: String,
}

thread_local! {
    /// Open `watch_variable_reads` scopes on this thread, each collecting the variables read.
    static READ_WATCHERS: std::cell::RefCell<Vec<Vec<Variable>>> = const { std::cell::RefCell::new(Vec::new()) };
}

/// Starts collecting the variables read on this thread (custom gradients need the variables
/// their function used). Pair with [`end_variable_watch`]; scopes nest.
pub fn begin_variable_watch() {
    READ_WATCHERS.with(|w| w.borrow_mut().push(Vec::new()));
}

/// The variables read since the matching [`begin_variable_watch`], in order of first read.
pub fn end_variable_watch() -> Vec<Variable> {
    READ_WATCHERS.with(|w| w.borrow_mut().pop().unwrap_or_default())
}

static UNNAMED: AtomicUsize = AtomicUsize::new(0);

impl Variable {
    pub fn new(initial_value: Tensor, trainable: bool, name: Option<&str>) -> Variable {
        let name = match name {
            Some(n) => format!("{n}:0"),
            None => match UNNAMED.fetch_add(1, Ordering::Relaxed) {
                0 => "Variable:0".to_string(),
                k => format!("Variable_{k}:0"),
            },
        };
        // A variable never shares an id with the tensor it was made from.
        Variable(Arc::new(Inner {
            id: fresh_id(),
            value: RwLock::new(initial_value.alias()),
            trainable,
            name,
        }))
    }
    pub fn id(&self) -> TensorId {
        self.0.id
    }
    pub fn name(&self) -> &str {
        &self.0.name
    }
    pub fn trainable(&self) -> bool {
        self.0.trainable
    }
    /// The current value without recording a read (printing, `numpy()`, shapes).
    pub fn peek(&self) -> Tensor {
        self.0
            .value
            .read()
            .unwrap_or_else(|p| p.into_inner())
            .clone()
    }
    pub fn shape(&self) -> Vec<usize> {
        self.peek().shape().to_vec()
    }
    pub fn dtype(&self) -> DType {
        self.peek().dtype()
    }
    /// Reads the value: watched and recorded on the active tapes as TensorFlow does.
    pub fn value(&self) -> Tensor {
        READ_WATCHERS.with(|w| {
            for seen in w.borrow_mut().iter_mut() {
                if !seen.iter().any(|v| v.id() == self.id()) {
                    seen.push(self.clone());
                }
            }
        });
        read_variable(self, self.peek())
    }
    /// Replaces the value in place (never recorded). Shape and dtype must stay the same.
    pub fn assign(&self, value: &Tensor) -> Result<()> {
        let current = self.peek();
        if value.shape() != current.shape() {
            return Err(Error::shape(
                "Variable.assign",
                format!(
                    "cannot assign a value of shape {} to variable '{}' of shape {}",
                    fmt_shape(value.shape()),
                    self.name(),
                    fmt_shape(current.shape())
                ),
            ));
        }
        if value.dtype() != current.dtype() {
            return Err(Error::dtype(
                "Variable.assign",
                format!(
                    "cannot assign a {} value to variable '{}' of dtype {}",
                    value.dtype(),
                    self.name(),
                    current.dtype()
                ),
            ));
        }
        *self.0.value.write().unwrap_or_else(|p| p.into_inner()) = value.alias();
        Ok(())
    }
    /// The value under the write lock, for an update that changes it in place (optimizer
    /// kernels, never recorded). Whoever changes the elements must leave a tensor with a fresh
    /// id behind ([`Tensor::alias`]): an id names one value.
    pub(crate) fn write_value(&self) -> std::sync::RwLockWriteGuard<'_, Tensor> {
        self.0.value.write().unwrap_or_else(|p| p.into_inner())
    }
    pub fn assign_add(&self, delta: &Tensor) -> Result<()> {
        let sum = crate::tape::without_recording(|| ops::add(&self.peek(), delta))?;
        self.assign(&sum)
    }
    pub fn assign_sub(&self, delta: &Tensor) -> Result<()> {
        let diff = crate::tape::without_recording(|| ops::subtract(&self.peek(), delta))?;
        self.assign(&diff)
    }
}

impl std::fmt::Debug for Variable {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "Variable('{}', {:?})", self.name(), self.peek())
    }
}
