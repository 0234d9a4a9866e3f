//! Element types. Only floating and complex tensors are differentiable.
use std::fmt;

/// The element type of a tensor, named as TensorFlow names it (see [`DType::name`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum DType {
    /// float32.
    F32,
    /// float64.
    F64,
    /// int32.
    I32,
    /// int64.
    I64,
    /// bool.
    Bool,
    /// Two float32 parts (`num_complex::Complex32`).
    Complex64,
    /// Two float64 parts (`num_complex::Complex64`).
    Complex128,
    /// Byte strings (`crate::text::Str`): never differentiable, no arithmetic.
    String,
}

impl DType {
    /// Real floating: float32 or float64.
    pub fn is_float(self) -> bool {
        matches!(self, DType::F32 | DType::F64)
    }
    /// complex64 or complex128.
    pub fn is_complex(self) -> bool {
        matches!(self, DType::Complex64 | DType::Complex128)
    }
    /// Gradients flow only through floating and complex tensors (as in TensorFlow).
    pub fn is_differentiable(self) -> bool {
        self.is_float() || self.is_complex()
    }
    /// int32 or int64.
    pub fn is_int(self) -> bool {
        matches!(self, DType::I32 | DType::I64)
    }
    /// The dtype of a complex dtype's parts (float32 for complex64, float64 for complex128);
    /// any other dtype is its own (TensorFlow's `real_dtype`).
    pub fn real_dtype(self) -> DType {
        match self {
            DType::Complex64 => DType::F32,
            DType::Complex128 => DType::F64,
            other => other,
        }
    }
    /// The complex dtype with parts of this floating dtype (complex64 for float32); a complex
    /// dtype is its own; `None` for integers and bool.
    pub fn complex_dtype(self) -> Option<DType> {
        match self {
            DType::F32 | DType::Complex64 => Some(DType::Complex64),
            DType::F64 | DType::Complex128 => Some(DType::Complex128),
            _ => None,
        }
    }
    /// The TensorFlow name, used in every error message.
    pub fn name(self) -> &'static str {
        match self {
            DType::F32 => "float32",
            DType::F64 => "float64",
            DType::I32 => "int32",
            DType::I64 => "int64",
            DType::Bool => "bool",
            DType::Complex64 => "complex64",
            DType::Complex128 => "complex128",
            DType::String => "string",
        }
    }
    /// The dtype a name (TensorFlow's, or a short one such as `f32`, `c128`) stands for.
    pub fn from_name(name: &str) -> Option<DType> {
        Some(match name {
            "float32" | "f32" | "float" => DType::F32,
            "float64" | "f64" | "double" => DType::F64,
            "int32" | "i32" => DType::I32,
            "int64" | "i64" => DType::I64,
            "bool" => DType::Bool,
            "complex64" | "c64" => DType::Complex64,
            "complex128" | "c128" => DType::Complex128,
            "string" | "str" => DType::String,
            _ => return None,
        })
    }
    /// Bytes per element.
    pub fn size_of(self) -> usize {
        match self {
            DType::F32 | DType::I32 => 4,
            DType::F64 | DType::I64 | DType::Complex64 => 8,
            DType::Complex128 | DType::String => 16,
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
