//! Op functions: `rt.random` (the seeded samplers, `set_seed`, `categorical`, the stateless
//! ops).
use pyo3::prelude::*;

use super::bindings::bindings;
use super::dtype::parse_optional_dtype;
use super::error::{count_arg, guard, number_arg, number_or, seed_arg, value_error};
use super::ops::{ints, shape, tensor, wrap, Obj, OptObj};
use super::tensor::PyTensor;
use crate::dtype::DType;
use crate::ops::{self, philox::Philox, Stream};

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

/// `rt.random.set_seed(seed)`: seeded results repeat, with TensorFlow's values (`None`
/// forgets the global seed).
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
        if seed.is_none() {
            ops::clear_seed();
        } else {
            ops::set_seed(seed_arg(seed, "random.set_seed", "seed")?);
        }
        Ok(())
    })
}

/// Normal values that depend only on `seed` (two integers): the same seed gives the same
/// values, whatever ran before (`tf.random.stateless_normal`, TensorFlow's values).
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
    let _ = name;
    check_alg(alg, "random.stateless_normal")?;
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
    let _ = name;
    let op = "random.stateless_truncated_normal";
    check_alg(alg, op)?;
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
    let _ = name;
    let op = "random.stateless_uniform";
    guard(|| {
        check_alg(alg, op)?;
        let dtype = parse_optional_dtype(dtype)?.unwrap_or(DType::F32);
        let (minval, maxval) = (given(minval), given(maxval));
        let dims = self::shape(shape, op)?;
        let stream = Stream::Stateless(seed_pair(seed, op)?);
        if !dtype.is_float() && minval.is_none() && maxval.is_none() {
            return wrap(ops::uniform_full_int_from(op, stream, &dims, dtype));
        }
        let maxval = match maxval {
            Some(m) => number_arg(m, op, "maxval")?,
            None if dtype.is_float() => 1.0,
            None => {
                return Err(value_error(
                    op,
                    format!("for dtype {dtype} minval and maxval must be both None (the full range) or both given"),
                ))
            }
        };
        wrap(ops::uniform_from(
            op,
            stream,
            &dims,
            number_or(minval, 0.0, op, "minval")?,
            maxval,
            dtype,
        ))
    })
}

/// An optional argument that is not None.
fn given<'a, 'py>(obj: OptObj<'a, 'py>) -> OptObj<'a, 'py> {
    obj.filter(|o| !o.is_none())
}

/// `alg`: None, "auto_select" or "philox" (TensorFlow's CPU choice); "threefry" is refused.
fn check_alg(alg: OptObj, op: &str) -> PyResult<()> {
    let Some(alg) = given(alg) else { return Ok(()) };
    let ok = match alg.extract::<String>() {
        Ok(name) => matches!(name.to_ascii_lowercase().as_str(), "auto_select" | "philox"),
        Err(_) => matches!(alg.extract::<i64>(), Ok(1 | 3)),
    };
    if ok {
        Ok(())
    } else {
        Err(value_error(
            op,
            format!(
                "alg must be \"auto_select\" or \"philox\" (rustape has no threefry), got {alg}"
            ),
        ))
    }
}

/// Normal values redrawn beyond two standard deviations of `mean` (`tf.random.truncated_normal`):
/// seeded as `rt.random.normal`, TensorFlow's values.
///
/// >>> rt.random.set_seed(0)
/// >>> x = rt.random.truncated_normal([1000])
/// >>> bool(rt.reduce_max(abs(x)) < 2.0)
/// True
#[pyfunction]
#[pyo3(signature = (shape, mean=None, stddev=None, dtype=None, seed=None, name=None),
    text_signature = "(shape, mean=0.0, stddev=1.0, dtype=None, seed=None, name=None)"
)]
pub fn truncated_normal(
    shape: Obj,
    mean: OptObj,
    stddev: OptObj,
    dtype: OptObj,
    seed: OptObj,
    name: OptObj,
) -> PyResult<PyTensor> {
    let _ = name;
    let op = "random.truncated_normal";
    guard(|| {
        wrap(ops::truncated_normal(
            &self::shape(shape, op)?,
            number_or(mean, 0.0, op, "mean")?,
            number_or(stddev, 1.0, op, "stddev")?,
            parse_optional_dtype(dtype)?.unwrap_or(DType::F32),
            optional_seed(seed, op)?,
        ))
    })
}

/// `alpha` and `beta` as tensors of `dtype` (float32 by default).
fn gamma_args(
    alpha: Obj,
    beta: OptObj,
    dtype: OptObj,
) -> PyResult<(crate::Tensor, Option<crate::Tensor>)> {
    let dtype = parse_optional_dtype(dtype)?.unwrap_or(DType::F32);
    let alpha = super::convert::to_tensor(alpha, Some(dtype))?;
    let beta = match given(beta) {
        Some(b) => Some(super::convert::to_tensor(b, Some(dtype))?),
        None => None,
    };
    Ok((alpha, beta))
}

/// Gamma samples of shape `shape + broadcast(alpha, beta).shape` (`tf.random.gamma`; `beta`
/// is the rate), TensorFlow's values; differentiable in `alpha` (implicit
/// reparameterisation, as TensorFlow) and `beta`.
///
/// >>> rt.random.set_seed(1)
/// >>> rt.random.gamma([2], [0.5, 3.0]).shape
/// (2, 2)
#[pyfunction]
#[pyo3(signature = (shape, alpha, beta=None, dtype=None, seed=None, name=None))]
pub fn random_gamma(
    shape: Obj,
    alpha: Obj,
    beta: OptObj,
    dtype: OptObj,
    seed: OptObj,
    name: OptObj,
) -> PyResult<PyTensor> {
    let _ = name;
    let op = "random.gamma";
    guard(|| {
        let (alpha, beta) = gamma_args(alpha, beta, dtype)?;
        wrap(ops::gamma(
            &self::shape(shape, op)?,
            &alpha,
            beta.as_ref(),
            optional_seed(seed, op)?,
        ))
    })
}

/// Gamma samples of `shape` from a seed pair alone (`tf.random.stateless_gamma`): `shape`
/// ends with `broadcast(alpha, beta).shape`; TensorFlow's values.
///
/// >>> rt.random.stateless_gamma([3, 2], seed=[1, 2], alpha=[2.5, 0.3]).shape
/// (3, 2)
#[pyfunction]
#[pyo3(signature = (shape, seed, alpha, beta=None, dtype=None, name=None))]
pub fn stateless_gamma(
    shape: Obj,
    seed: Obj,
    alpha: Obj,
    beta: OptObj,
    dtype: OptObj,
    name: OptObj,
) -> PyResult<PyTensor> {
    let _ = name;
    let op = "random.stateless_gamma";
    guard(|| {
        let (alpha, beta) = gamma_args(alpha, beta, dtype)?;
        wrap(ops::stateless_gamma(
            &self::shape(shape, op)?,
            seed_pair(seed, op)?,
            &alpha,
            beta.as_ref(),
        ))
    })
}

/// The dtype of a seed: int64 for an int64 tensor or array, else int32 (TensorFlow's for a
/// list of Python ints).
fn seed_dtype(seed: Obj) -> PyResult<DType> {
    let t = tensor(seed)?;
    Ok(if t.dtype() == DType::I64 {
        DType::I64
    } else {
        DType::I32
    })
}

/// `num` new seed pairs `[num, 2]` from `seed` (`tf.random.split`): full-range integers of
/// the seed's dtype drawn with it.
///
/// >>> rt.random.split([1, 2], 3).shape
/// (3, 2)
#[pyfunction]
#[pyo3(signature = (seed, num=None, alg=None), text_signature = "(seed, num=2, alg='auto_select')")]
pub fn random_split(seed: Obj, num: OptObj, alg: OptObj) -> PyResult<PyTensor> {
    let op = "random.split";
    guard(|| {
        check_alg(alg, op)?;
        let num = match given(num) {
            Some(n) => count_arg(n, op, "num")?,
            None => 2,
        };
        let stream = Stream::Stateless(seed_pair(seed, op)?);
        wrap(ops::uniform_full_int_from(
            op,
            stream,
            &[num, 2],
            seed_dtype(seed)?,
        ))
    })
}

/// A new seed pair from `seed` and `data` (`tf.random.fold_in`): `[draw, data]`, the draw a
/// full-range integer of `data`'s dtype (int32 for a Python int).
///
/// >>> rt.random.fold_in([1, 2], 7).numpy()[1]
/// np.int32(7)
#[pyfunction]
#[pyo3(signature = (seed, data, alg=None))]
pub fn fold_in(seed: Obj, data: Obj, alg: OptObj) -> PyResult<PyTensor> {
    let op = "random.fold_in";
    guard(|| {
        check_alg(alg, op)?;
        let data = tensor(data)?;
        let dtype = data.dtype();
        if data.ndim() != 0 || !matches!(dtype, DType::I32 | DType::I64) {
            return Err(value_error(
                op,
                format!(
                    "data must be an integer scalar, got {dtype} of shape {:?}",
                    data.shape()
                ),
            ));
        }
        let stream = Stream::Stateless(seed_pair(seed, op)?);
        let drawn = ops::uniform_full_int_from(op, stream, &[], dtype)?;
        wrap(ops::stack(&[drawn, data], 0))
    })
}

/// Draws of a `Generator` (python/rustape/_generator.py): `kind` ("uniform", "normal",
/// "truncated_normal", "full_int") from the Philox state `[counter_lo, counter_hi, key]`
/// (TensorFlow's `*V2` stateless kernels; the caller advances the state).
#[pyfunction]
#[pyo3(signature = (kind, shape, state, dtype, a=None, b=None))]
pub fn philox_draw(
    kind: &str,
    shape: Obj,
    state: Obj,
    dtype: Obj,
    a: OptObj,
    b: OptObj,
) -> PyResult<PyTensor> {
    let op = "random.Generator";
    guard(|| {
        let words = ints(state, op)?;
        let [c0, c1, key] = words.as_slice() else {
            return Err(value_error(op, "the state must be three integers"));
        };
        let gen = Philox::from_words([*c0 as u64, *c1 as u64], *key as u64);
        let stream = Stream::Philox(gen);
        let dims = self::shape(shape, op)?;
        let dtype = super::dtype::parse_dtype(dtype)?;
        let a0 = number_or(a, 0.0, op, "minval")?;
        wrap(match kind {
            "uniform" => ops::uniform_from(
                op,
                stream,
                &dims,
                a0,
                number_or(b, 1.0, op, "maxval")?,
                dtype,
            ),
            "normal" | "truncated_normal" => ops::normal_from(
                op,
                stream,
                &dims,
                a0,
                number_or(b, 1.0, op, "stddev")?,
                dtype,
                kind == "truncated_normal",
            ),
            "full_int" => ops::uniform_full_int_from(op, stream, &dims, dtype),
            other => return Err(value_error(op, format!("unknown kind {other:?}"))),
        })
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
    fn truncated_normal => [random];
    fn random_gamma => [random as gamma];
    fn stateless_gamma => [random];
    fn random_split => [random as split];
    fn fold_in => [random];
    fn philox_draw => [];
    fn categorical => [random];
    fn stateless_categorical => [random];
}
