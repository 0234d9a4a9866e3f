//! Element types. Only floating tensors are differentiable.
use std::fmt;

/// A tensor's element type.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum DType {
    /// 32-bit float (`rt.float32`).
    F32,
    /// 64-bit float (`rt.float64`).
    F64,
    /// 32-bit signed integer (`rt.int32`).
    I32,
    /// 64-bit signed integer (`rt.int64`).
    I64,
    /// Boolean (`rt.bool`).
    Bool,
}

impl DType {
    /// Gradients flow only through floating tensors (as in TensorFlow).
    pub fn is_float(self) -> bool {
        matches!(self, DType::F32 | DType::F64)
    }
    /// Whether this is an integer dtype.
    pub fn is_int(self) -> bool {
        matches!(self, DType::I32 | DType::I64)
    }
    /// The TensorFlow name, used in every error message.
    pub fn name(self) -> &'static str {
        match self {
            DType::F32 => "float32",
            DType::F64 => "float64",
            DType::I32 => "int32",
            DType::I64 => "int64",
            DType::Bool => "bool",
        }
    }
    /// The dtype of a name as TensorFlow and NumPy spell it (`"float32"`, `"f32"`, `"double"`, ...).
    pub fn from_name(name: &str) -> Option<DType> {
        Some(match name {
            "float32" | "f32" | "float" => DType::F32,
            "float64" | "f64" | "double" => DType::F64,
            "int32" | "i32" => DType::I32,
            "int64" | "i64" => DType::I64,
            "bool" => DType::Bool,
            _ => return None,
        })
    }
    /// Bytes per element.
    pub fn size_of(self) -> usize {
        match self {
            DType::F32 | DType::I32 => 4,
            DType::F64 | DType::I64 => 8,
            DType::Bool => 1,
        }
    }
}

impl fmt::Display for DType {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// The floating element types, so one generic kernel serves float32 and float64.
pub trait Float:
    num_traits::Float + num_traits::FromPrimitive + Default + Send + Sync + fmt::Debug + 'static
{
}
impl Float for f32 {}
impl Float for f64 {}
