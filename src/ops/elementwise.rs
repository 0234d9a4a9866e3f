//! Elementwise ops: arithmetic with NumPy broadcasting, unary math, activations, comparisons.
use ndarray::{ArcArray, IxDyn};

use super::{broadcast_shapes, scalar_like, shape_of, sum_to_shape, zip_map};
use crate::dispatch;
use crate::dispatch2;
use crate::dtype::DType;
use crate::error::Result;
use crate::tape::record;
use crate::tensor::{Data, Element, Tensor};

/// `a + b`, broadcasting.
pub fn add(a: &Tensor, b: &Tensor) -> Result<Tensor> {
    let shape = broadcast_shapes("add", a.shape(), b.shape())?;
    let y = Tensor::new(dispatch2!(num a.data(), b.data(), "add", |x, z| zip_map(x, z, &shape, |p, q| p + q)));
    let (sa, sb) = (shape_of(a), shape_of(b));
    record("add", &[a, b], &y, &[], move |_, dy| {
        Ok(vec![Some(sum_to_shape(dy, &sa)?), Some(sum_to_shape(dy, &sb)?)])
    });
    Ok(y)
}

/// `a - b`, broadcasting.
pub fn subtract(a: &Tensor, b: &Tensor) -> Result<Tensor> {
    let shape = broadcast_shapes("subtract", a.shape(), b.shape())?;
    let y = Tensor::new(dispatch2!(num a.data(), b.data(), "subtract", |x, z| zip_map(x, z, &shape, |p, q| p - q)));
    let (sa, sb) = (shape_of(a), shape_of(b));
    record("subtract", &[a, b], &y, &[], move |_, dy| {
        Ok(vec![Some(sum_to_shape(dy, &sa)?), Some(sum_to_shape(&negative(dy)?, &sb)?)])
    });
    Ok(y)
}

/// `a * b`, broadcasting.
pub fn multiply(a: &Tensor, b: &Tensor) -> Result<Tensor> {
    let shape = broadcast_shapes("multiply", a.shape(), b.shape())?;
    let y = Tensor::new(dispatch2!(num a.data(), b.data(), "multiply", |x, z| zip_map(x, z, &shape, |p, q| p * q)));
    record("multiply", &[a, b], &y, &[a, b], |s, dy| {
        let (a, b) = (&s[0], &s[1]);
        Ok(vec![
            Some(sum_to_shape(&multiply(dy, b)?, a.shape())?),
            Some(sum_to_shape(&multiply(dy, a)?, b.shape())?),
        ])
    });
    Ok(y)
}

/// `a / b`, broadcasting. Integer operands divide with truncation toward zero... as in
/// TensorFlow's `truediv`, integers are first converted to float64 (int32, int64).
pub fn divide(a: &Tensor, b: &Tensor) -> Result<Tensor> {
    if a.dtype().is_int() && b.dtype().is_int() {
        return divide(&cast(a, DType::F64)?, &cast(b, DType::F64)?);
    }
    let shape = broadcast_shapes("divide", a.shape(), b.shape())?;
    let y = Tensor::new(dispatch2!(float a.data(), b.data(), "divide", |x, z| zip_map(x, z, &shape, |p, q| p / q)));
    record("divide", &[a, b], &y, &[a, b], |s, dy| {
        let (a, b) = (&s[0], &s[1]);
        let da = divide(dy, b)?;
        // d(a/b)/db = -a / b^2, written as -(dy/b) * (a/b) to stay in range.
        let db = negative(&multiply(&da, &divide(a, b)?)?)?;
        Ok(vec![Some(sum_to_shape(&da, a.shape())?), Some(sum_to_shape(&db, b.shape())?)])
    });
    Ok(y)
}

/// `-x`.
pub fn negative(x: &Tensor) -> Result<Tensor> {
    let y = Tensor::new(dispatch!(num x.data(), "negative", |a| a.mapv(|v| -v)));
    record("negative", &[x], &y, &[], |_, dy| Ok(vec![Some(negative(dy)?)]));
    Ok(y)
}

/// `sin(x)`.
pub fn sin(x: &Tensor) -> Result<Tensor> {
    let y = Tensor::new(dispatch!(float x.data(), "sin", |a| a.mapv(|v| v.sin())));
    record("sin", &[x], &y, &[x], |s, dy| Ok(vec![Some(multiply(dy, &cos(&s[0])?)?)]));
    Ok(y)
}

/// `cos(x)`.
pub fn cos(x: &Tensor) -> Result<Tensor> {
    let y = Tensor::new(dispatch!(float x.data(), "cos", |a| a.mapv(|v| v.cos())));
    record("cos", &[x], &y, &[x], |s, dy| Ok(vec![Some(negative(&multiply(dy, &sin(&s[0])?)?)?)]));
    Ok(y)
}

/// Converts to `dtype`. Gradients pass between floating dtypes; integer and bool ends have none.
pub fn cast(x: &Tensor, dtype: DType) -> Result<Tensor> {
    if x.dtype() == dtype {
        return Ok(x.clone());
    }
    fn convert<T: Element>(x: &Tensor) -> Data {
        fn each<S: Element, T: Element>(a: &ArcArray<S, IxDyn>) -> Data {
            T::into_data(a.mapv(|v| T::from_f64(v.to_f64())).into_shared())
        }
        match x.data() {
            Data::F32(a) => each::<f32, T>(a),
            Data::F64(a) => each::<f64, T>(a),
            Data::I32(a) => each::<i32, T>(a),
            Data::I64(a) => each::<i64, T>(a),
            Data::Bool(a) => each::<bool, T>(a),
        }
    }
    let data = match dtype {
        DType::F32 => convert::<f32>(x),
        DType::F64 => convert::<f64>(x),
        DType::I32 => convert::<i32>(x),
        DType::I64 => convert::<i64>(x),
        DType::Bool => convert::<bool>(x),
    };
    let y = Tensor::new(data);
    let from = x.dtype();
    if from.is_float() {
        record("cast", &[x], &y, &[], move |_, dy| Ok(vec![Some(cast(dy, from)?)]));
    }
    Ok(y)
}

/// The same values with no gradient flowing back through them.
pub fn stop_gradient(x: &Tensor) -> Tensor {
    x.alias()
}

/// `value` as a 0-d tensor of `like`'s dtype (a Python number meeting a tensor).
pub fn scalar_for(value: f64, like: &Tensor) -> Tensor {
    scalar_like(value, like)
}
