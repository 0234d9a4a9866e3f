//! rustape: reverse-mode automatic differentiation with the `tf.GradientTape` model.
//!
//! ```
//! use rustape::{ops, Tape, Tensor, Unconnected};
//! let x = Tensor::scalar(3.0f32);
//! let tape = Tape::new(false, true);
//! let y = {
//!     let _recording = tape.enter().unwrap();
//!     tape.watch(&x);
//!     ops::multiply(&x, &x).unwrap()
//! };
//! let dy_dx = tape.gradient(&[y], &[(&x).into()], None, Unconnected::None).unwrap();
//! assert_eq!(dy_dx[0].as_ref().unwrap().item().unwrap(), 6.0);
//! ```
#![deny(missing_docs)]
pub mod checkpoint;
pub mod dtype;
pub mod error;
pub mod interrupt;
pub mod memory;
pub mod metrics;
pub mod ops;
pub mod optim;
pub mod progress;
pub mod tape;
pub mod tensor;
pub mod testing;
pub mod text;
pub mod threads;
pub mod values;
pub mod variable;

#[cfg(feature = "python")]
mod python;

pub use dtype::DType;
pub use error::{Error, ErrorKind, Result};
/// The element type of complex64 (`Complex<f32>`) and complex128 (`Complex<f64>`) tensors.
pub use num_complex::Complex;
pub use tape::{JacobianOptions, JacobianStrategy, Source, Tape, Unconnected};
pub use tensor::{Data, Tensor, TensorId};
pub use variable::Variable;
