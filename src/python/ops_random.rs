//! Op functions: `rt.random` (the seeded samplers, `set_seed`, `categorical`, the stateless
//! ops).
use pyo3::prelude::*;

use super::bindings::bindings;
use super::dtype::parse_optional_dtype;
use super::error::{count_arg, guard, number_arg, number_or, seed_arg, value_error};
use super::ops::{ints, shape, tensor, wrap, Obj, OptObj};
use super::tensor::PyTensor;
use crate::dtype::DType;
use crate::ops;

/// A stateless op's seed: two integers (a list, tuple or tensor of shape [2]), as TensorFlow's.
fn seed_pair(seed: Obj, op: &str) -> PyResult<[u64; 2]> {
    let words = ints(seed, op).map_err(|_| {
        value_error(
            op,
            "seed must be two integers (a shape [2] list, tuple or tensor)",
        )
    })?;
    match words.as_slice() {
        &[a, b] => Ok([a as u64, b as u64]),
        other => Err(value_error(
            op,
            format!(
                "seed must be two integers (shape [2]), got {} of them",
                other.len()
            ),
        )),
    }
}

fn optional_seed(seed: OptObj, op: &str) -> PyResult<Option<u64>> {
    match seed.filter(|s| !s.is_none()) {
        Some(s) => Ok(Some(seed_arg(s, op, "seed")?)),
        None => Ok(None),
    }
}

/// Normally distributed values of `shape` (`rt.random.normal`); repeatable after
/// `rt.random.set_seed` or with `seed`.
///
/// >>> rt.random.set_seed(0)
/// >>> x = rt.random.normal([1000], mean=2.0, stddev=0.5)
/// >>> abs(float(rt.reduce_mean(x)) - 2.0) < 0.1
/// True
#[pyfunction]
#[pyo3(signature = (shape, mean=None, stddev=None, dtype=None, seed=None, name=None),
    text_signature = "(shape, mean=0.0, stddev=1.0, dtype=None, seed=None, name=None)"
)]
pub fn random_normal(
    shape: Obj,
    mean: OptObj,
    stddev: OptObj,
    dtype: OptObj,
    seed: OptObj,
    name: OptObj,
) -> PyResult<PyTensor> {
    let _ = name;
    guard(|| {
        let mean = number_or(mean, 0.0, "random.normal", "mean")?;
        let stddev = number_or(stddev, 1.0, "random.normal", "stddev")?;
        let dims = self::shape(shape, "random.normal")?;
        wrap(ops::normal(
            &dims,
            mean,
            stddev,
            parse_optional_dtype(dtype)?.unwrap_or(DType::F32),
            optional_seed(seed, "random.normal")?,
        ))
    })
}

/// `rt.random_uniform(shape, minval=0, maxval=None, dtype=float32, seed=None)`: `maxval`
/// None is 1 for floats; integer dtypes need it.
///
/// >>> rt.random.set_seed(0)
/// >>> x = rt.random.uniform([1000], minval=-1.0, maxval=1.0)
/// >>> bool(rt.reduce_min(x) >= -1.0) and bool(rt.reduce_max(x) < 1.0)
/// True
#[pyfunction]
#[pyo3(signature = (shape, minval=None, maxval=None, dtype=None, seed=None, name=None),
    text_signature = "(shape, minval=0.0, maxval=None, dtype=None, seed=None, name=None)"
)]
pub fn random_uniform(
    shape: Obj,
    minval: OptObj,
    maxval: OptObj,
    dtype: OptObj,
    seed: OptObj,
    name: OptObj,
) -> PyResult<PyTensor> {
    let _ = name;
    guard(|| {
        let minval = number_or(minval, 0.0, "random.uniform", "minval")?;
        let maxval = match maxval.filter(|m| !m.is_none()) {
            Some(m) => Some(number_arg(m, "random.uniform", "maxval")?),
            None => None,
        };
        let dims = self::shape(shape, "random.uniform")?;
        let dtype = parse_optional_dtype(dtype)?.unwrap_or(DType::F32);
        let maxval = match maxval {
            Some(m) => m,
            None if dtype.is_float() => 1.0,
            None => {
                return Err(value_error(
                    "random.uniform",
                    format!("maxval must be given for dtype {dtype}"),
                ))
            }
        };
        wrap(ops::uniform(
            &dims,
            minval,
            maxval,
            dtype,
            optional_seed(seed, "random.uniform")?,
        ))
    })
}

/// `rt.random.set_seed(seed)`: seeded results repeat.
///
/// >>> rt.random.set_seed(42)
/// >>> a = rt.random.normal([3])
/// >>> rt.random.set_seed(42)
/// >>> b = rt.random.normal([3])
/// >>> a.numpy().tolist() == b.numpy().tolist()
/// True
#[pyfunction]
pub fn set_seed(seed: Obj) -> PyResult<()> {
    guard(|| {
        ops::set_seed(seed_arg(seed, "random.set_seed", "seed")?);
        Ok(())
    })
}

/// Normal values that depend only on `seed` (two integers): the same seed gives the same
/// values, whatever ran before (`tf.random.stateless_normal`; rustape's values, not
/// TensorFlow's).
///
/// >>> a = rt.random.stateless_normal([3], seed=[1, 2])
/// >>> b = rt.random.stateless_normal([3], seed=[1, 2])
/// >>> a.numpy().tolist() == b.numpy().tolist()
/// True
#[pyfunction]
#[pyo3(signature = (shape, seed, mean=None, stddev=None, dtype=None, name=None, alg=None),
    text_signature = "(shape, seed, mean=0.0, stddev=1.0, dtype=None, name=None, alg=None)"
)]
pub fn stateless_normal(
    shape: Obj,
    seed: Obj,
    mean: OptObj,
    stddev: OptObj,
    dtype: OptObj,
    name: OptObj,
    alg: OptObj,
) -> PyResult<PyTensor> {
    let _ = (name, alg);
    let sample = ops::stateless_normal;
    stateless_normal_like(
        "random.stateless_normal",
        sample,
        shape,
        seed,
        mean,
        stddev,
        dtype,
    )
}

type NormalSampler = fn(&[usize], f64, f64, DType, [u64; 2]) -> crate::Result<crate::Tensor>;

/// The arguments of a stateless normal sampler (normal, truncated normal), converted.
fn stateless_normal_like(
    op: &str,
    sample: NormalSampler,
    shape: Obj,
    seed: Obj,
    mean: OptObj,
    stddev: OptObj,
    dtype: OptObj,
) -> PyResult<PyTensor> {
    guard(|| {
        wrap(sample(
            &self::shape(shape, op)?,
            number_or(mean, 0.0, op, "mean")?,
            number_or(stddev, 1.0, op, "stddev")?,
            parse_optional_dtype(dtype)?.unwrap_or(DType::F32),
            seed_pair(seed, op)?,
        ))
    })
}

/// Normal values within two standard deviations of `mean` (redrawn beyond), depending only
/// on `seed` (`tf.random.stateless_truncated_normal`).
///
/// >>> x = rt.random.stateless_truncated_normal([1000], seed=[5, 6])
/// >>> bool(rt.reduce_max(abs(x)) <= 2.0)
/// True
#[pyfunction]
#[pyo3(signature = (shape, seed, mean=None, stddev=None, dtype=None, name=None, alg=None),
    text_signature = "(shape, seed, mean=0.0, stddev=1.0, dtype=None, name=None, alg=None)"
)]
pub fn stateless_truncated_normal(
    shape: Obj,
    seed: Obj,
    mean: OptObj,
    stddev: OptObj,
    dtype: OptObj,
    name: OptObj,
    alg: OptObj,
) -> PyResult<PyTensor> {
    let _ = (name, alg);
    let op = "random.stateless_truncated_normal";
    let sample = ops::stateless_truncated_normal;
    stateless_normal_like(op, sample, shape, seed, mean, stddev, dtype)
}

/// Uniform values in `[minval, maxval)` that depend only on `seed` (two integers)
/// (`tf.random.stateless_uniform`); integer dtypes need `maxval`.
///
/// >>> x = rt.random.stateless_uniform([2], seed=(7, 0), minval=0, maxval=10, dtype=rt.int32)
/// >>> x.dtype, bool(rt.reduce_all(x < 10))
/// (rt.int32, True)
#[pyfunction]
#[pyo3(signature = (shape, seed, minval=None, maxval=None, dtype=None, name=None, alg=None),
    text_signature = "(shape, seed, minval=0.0, maxval=None, dtype=None, name=None, alg=None)"
)]
pub fn stateless_uniform(
    shape: Obj,
    seed: Obj,
    minval: OptObj,
    maxval: OptObj,
    dtype: OptObj,
    name: OptObj,
    alg: OptObj,
) -> PyResult<PyTensor> {
    let _ = (name, alg);
    let op = "random.stateless_uniform";
    guard(|| {
        let dtype = parse_optional_dtype(dtype)?.unwrap_or(DType::F32);
        let maxval = match maxval.filter(|m| !m.is_none()) {
            Some(m) => number_or(Some(m), 1.0, op, "maxval")?,
            None if dtype.is_float() => 1.0,
            None => {
                return Err(value_error(
                    op,
                    format!("maxval must be given for dtype {dtype}"),
                ))
            }
        };
        wrap(ops::stateless_uniform(
            &self::shape(shape, op)?,
            number_or(minval, 0.0, op, "minval")?,
            maxval,
            dtype,
            seed_pair(seed, op)?,
        ))
    })
}

/// `num_samples` class indices per row of `logits` `[batch, classes]`, drawn with
/// probabilities `softmax(logits)` (`tf.random.categorical`); int64 unless `dtype`.
///
/// >>> rt.random.set_seed(0)
/// >>> rt.random.categorical([[0.0, float("-inf")]], 3).numpy()
/// array([[0, 0, 0]])
#[pyfunction]
#[pyo3(signature = (logits, num_samples, dtype=None, seed=None, name=None))]
pub fn categorical(
    logits: Obj,
    num_samples: Obj,
    dtype: OptObj,
    seed: OptObj,
    name: OptObj,
) -> PyResult<PyTensor> {
    let _ = name;
    let op = "random.categorical";
    guard(|| {
        wrap(ops::categorical(
            &tensor(logits)?,
            count_arg(num_samples, op, "num_samples")?,
            parse_optional_dtype(dtype)?.unwrap_or(DType::I64),
            optional_seed(seed, op)?,
        ))
    })
}

/// `categorical` depending only on `seed` (two integers) (`tf.random.stateless_categorical`).
///
/// >>> a = rt.random.stateless_categorical([[0.0, 1.0, 2.0]], 5, seed=[3, 4])
/// >>> b = rt.random.stateless_categorical([[0.0, 1.0, 2.0]], 5, seed=[3, 4])
/// >>> a.numpy().tolist() == b.numpy().tolist()
/// True
#[pyfunction]
#[pyo3(signature = (logits, num_samples, seed, dtype=None, name=None))]
pub fn stateless_categorical(
    logits: Obj,
    num_samples: Obj,
    seed: Obj,
    dtype: OptObj,
    name: OptObj,
) -> PyResult<PyTensor> {
    let _ = name;
    let op = "random.stateless_categorical";
    guard(|| {
        wrap(ops::stateless_categorical(
            &tensor(logits)?,
            count_arg(num_samples, op, "num_samples")?,
            parse_optional_dtype(dtype)?.unwrap_or(DType::I64),
            seed_pair(seed, op)?,
        ))
    })
}

// The Python bindings of this file (rows: src/python/bindings.rs, DEVELOPERS.md "Adding an op").
bindings! {
    fn random_normal => [rt, random as normal];
    fn random_uniform => [rt, random as uniform];
    fn set_seed => [rt, random];
    fn stateless_normal => [random];
    fn stateless_truncated_normal => [random];
    fn stateless_uniform => [random];
    fn categorical => [random];
    fn stateless_categorical => [random];
}
