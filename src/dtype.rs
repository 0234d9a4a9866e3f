//! Element types. Only floating tensors are differentiable.
use std::fmt;

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum DType {
    F32,
    F64,
    I32,
    I64,
    Bool,
}

impl DType {
    /// Gradients flow only through floating tensors (as in TensorFlow).
    pub fn is_float(self) -> bool {
        matches!(self, DType::F32 | DType::F64)
    }
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
