//! Op functions: `rt.strings` (TensorFlow's `tf.strings`), Rust kernels in
//! `crate::ops::strings`. The splits return their pieces and row splits; `rt.strings.split`
//! and friends (python/rustape/_strings.py) make a dense tensor or a `RaggedTensor` of them.
use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyString};

use super::bindings::bindings;
use super::convert::items;
use super::dtype::parse_optional_dtype;
use super::error::{axis_arg, count_arg, guard, int_arg, type_error};
use super::ops::{tensor, wrap, Obj, OptObj};
use super::tensor::PyTensor;
use crate::dtype::DType;
use crate::ops::strings;

/// A `str` (as UTF-8) or `bytes` argument.
fn bytes_arg(obj: &Bound<'_, PyAny>, op: &str, arg: &str) -> PyResult<Vec<u8>> {
    if let Ok(s) = obj.cast::<PyString>() {
        return Ok(s.to_cow()?.as_bytes().to_vec());
    }
    if let Ok(b) = obj.cast::<PyBytes>() {
        return Ok(b.as_bytes().to_vec());
    }
    Err(type_error(
        op,
        format!(
            "{arg} must be a str or bytes, got {}",
            obj.get_type().name()?
        ),
    ))
}

/// A `str` argument (a pattern, a unit, an encoding), `bytes` decoded as UTF-8.
fn text_arg(obj: &Bound<'_, PyAny>, op: &str, arg: &str) -> PyResult<String> {
    String::from_utf8(bytes_arg(obj, op, arg)?)
        .map_err(|_| type_error(op, format!("{arg} must be UTF-8 text")))
}

fn text_or(obj: OptObj, default: &str, op: &str, arg: &str) -> PyResult<String> {
    match obj.filter(|o| !o.is_none()) {
        Some(o) => text_arg(o, op, arg),
        None => Ok(default.to_string()),
    }
}

fn bytes_or(obj: OptObj, op: &str, arg: &str) -> PyResult<Vec<u8>> {
    match obj.filter(|o| !o.is_none()) {
        Some(o) => bytes_arg(o, op, arg),
        None => Ok(Vec::new()),
    }
}

fn int_or(obj: OptObj, default: i64, op: &str, arg: &str) -> PyResult<i64> {
    match obj.filter(|o| !o.is_none()) {
        Some(o) => int_arg(o, op, arg, i64::MIN as i128, i64::MAX as i128).map(|v| v as i64),
        None => Ok(default),
    }
}

/// Lowercase (ASCII letters; every letter of UTF-8 text with `encoding="utf-8"`).
///
/// >>> import rustape as rt
/// >>> rt.strings.lower(["Hello", "ÀB"], encoding="utf-8").numpy().tolist()
/// [b'hello', b'\xc3\xa0b']
#[pyfunction]
#[pyo3(signature = (input, encoding=None, name=None), text_signature = "(input, encoding='', name=None)")]
pub fn strings_lower(input: Obj, encoding: OptObj, name: OptObj) -> PyResult<PyTensor> {
    let _ = name;
    guard(|| {
        let encoding = text_or(encoding, "", "lower", "encoding")?;
        wrap(strings::lower(&tensor(input)?, &encoding))
    })
}

/// Uppercase (ASCII letters; every letter of UTF-8 text with `encoding="utf-8"`).
///
/// >>> import rustape as rt
/// >>> rt.strings.upper("abc").numpy()
/// b'ABC'
#[pyfunction]
#[pyo3(signature = (input, encoding=None, name=None), text_signature = "(input, encoding='', name=None)")]
pub fn strings_upper(input: Obj, encoding: OptObj, name: OptObj) -> PyResult<PyTensor> {
    let _ = name;
    guard(|| {
        let encoding = text_or(encoding, "", "upper", "encoding")?;
        wrap(strings::upper(&tensor(input)?, &encoding))
    })
}

/// Each element with leading and trailing ASCII whitespace removed.
///
/// >>> import rustape as rt
/// >>> rt.strings.strip(["  a b \n", ""]).numpy().tolist()
/// [b'a b', b'']
#[pyfunction]
#[pyo3(signature = (input, name=None))]
pub fn strings_strip(input: Obj, name: OptObj) -> PyResult<PyTensor> {
    let _ = name;
    guard(|| wrap(strings::strip(&tensor(input)?)))
}

/// The length of each element in bytes (`unit="BYTE"`) or UTF-8 characters
/// (`"UTF8_CHAR"`), int32.
///
/// >>> import rustape as rt
/// >>> rt.strings.length(["abc", "é"], unit="UTF8_CHAR").numpy()
/// array([3, 1], dtype=int32)
#[pyfunction]
#[pyo3(signature = (input, unit=None, name=None), text_signature = "(input, unit='BYTE', name=None)")]
pub fn strings_length(input: Obj, unit: OptObj, name: OptObj) -> PyResult<PyTensor> {
    let _ = name;
    guard(|| {
        let unit = text_or(unit, "BYTE", "length", "unit")?;
        wrap(strings::length(&tensor(input)?, &unit))
    })
}

/// `len` bytes (or UTF-8 characters) of each element from `pos`; a negative `pos` counts
/// from the end, a `pos` past the end is a ValueError, `len` is clipped to the string.
///
/// >>> import rustape as rt
/// >>> rt.strings.substr(["hello", "hi"], 1, 3).numpy().tolist()
/// [b'ell', b'i']
#[pyfunction]
#[pyo3(signature = (input, pos, len, unit=None, name=None), text_signature = "(input, pos, len, unit='BYTE', name=None)")]
pub fn strings_substr(
    input: Obj,
    pos: Obj,
    len: Obj,
    unit: OptObj,
    name: OptObj,
) -> PyResult<PyTensor> {
    let _ = name;
    guard(|| {
        let op = "substr";
        let pos = int_arg(pos, op, "pos", i64::MIN as i128, i64::MAX as i128)? as i64;
        let len = int_arg(len, op, "len", i64::MIN as i128, i64::MAX as i128)? as i64;
        let unit = text_or(unit, "BYTE", op, "unit")?;
        wrap(strings::substr(&tensor(input)?, pos, len, &unit))
    })
}

/// The tensors of `inputs` joined elementwise with `separator` (shapes broadcast).
///
/// >>> import rustape as rt
/// >>> rt.strings.join([["a", "b"], "x"], separator="-").numpy().tolist()
/// [b'a-x', b'b-x']
#[pyfunction]
#[pyo3(signature = (inputs, separator=None, name=None), text_signature = "(inputs, separator='', name=None)")]
pub fn strings_join(inputs: Obj, separator: OptObj, name: OptObj) -> PyResult<PyTensor> {
    let _ = name;
    guard(|| {
        let sep = bytes_or(separator, "join", "separator")?;
        let ts = items(inputs)?
            .iter()
            .map(|o| tensor(o))
            .collect::<PyResult<Vec<_>>>()?;
        wrap(strings::join(&ts, &sep))
    })
}

/// The elements joined with `separator` along `axis` (all of them when `axis` is None).
///
/// >>> import rustape as rt
/// >>> rt.strings.reduce_join([["a", "b"], ["c", "d"]], axis=1, separator=" ").numpy().tolist()
/// [b'a b', b'c d']
#[pyfunction]
#[pyo3(signature = (inputs, axis=None, keepdims=false, separator=None, name=None), text_signature = "(inputs, axis=None, keepdims=False, separator='', name=None)")]
pub fn strings_reduce_join(
    inputs: Obj,
    axis: OptObj,
    keepdims: bool,
    separator: OptObj,
    name: OptObj,
) -> PyResult<PyTensor> {
    let _ = name;
    guard(|| {
        let op = "reduce_join";
        let axis = match axis.filter(|a| !a.is_none()) {
            Some(a) => Some(axis_arg(a, op, "axis")?),
            None => None,
        };
        let sep = bytes_or(separator, op, "separator")?;
        wrap(strings::reduce_join(&tensor(inputs)?, axis, keepdims, &sep))
    })
}

/// Whether each element matches `pattern` (RE2 syntax) as a whole; bool.
///
/// >>> import rustape as rt
/// >>> rt.strings.regex_full_match(["abc", "abd"], "ab[c]").numpy()
/// array([ True, False])
#[pyfunction]
#[pyo3(signature = (input, pattern, name=None))]
pub fn strings_regex_full_match(input: Obj, pattern: Obj, name: OptObj) -> PyResult<PyTensor> {
    let _ = name;
    guard(|| {
        let pattern = text_arg(pattern, "regex_full_match", "pattern")?;
        wrap(strings::regex_full_match(&tensor(input)?, &pattern))
    })
}

/// Each element with the matches of `pattern` replaced by `rewrite` (`\1` a group), every
/// match or only the first (`replace_global=False`).
///
/// >>> import rustape as rt
/// >>> rt.strings.regex_replace("a1b22", r"(\d+)", r"<\1>").numpy()
/// b'a<1>b<22>'
#[pyfunction]
#[pyo3(signature = (input, pattern, rewrite, replace_global=true, name=None))]
pub fn strings_regex_replace(
    input: Obj,
    pattern: Obj,
    rewrite: Obj,
    replace_global: bool,
    name: OptObj,
) -> PyResult<PyTensor> {
    let _ = name;
    guard(|| {
        let op = "regex_replace";
        let pattern = text_arg(pattern, op, "pattern")?;
        let rewrite = text_arg(rewrite, op, "rewrite")?;
        wrap(strings::regex_replace(
            &tensor(input)?,
            &pattern,
            &rewrite,
            replace_global,
        ))
    })
}

fn pieces(split: strings::Split) -> (PyTensor, PyTensor) {
    (PyTensor::new(split.values), PyTensor::new(split.row_splits))
}

/// The pieces of `tf.strings.split` of every element and their int64 row splits (the
/// kernel of `rt.strings.split`).
///
/// >>> import rustape as rt
/// >>> values, splits = rt._rustape.strings_split_rows(["a b", "c"])
/// >>> values.numpy().tolist(), splits.numpy().tolist()
/// ([b'a', b'b', b'c'], [0, 2, 3])
#[pyfunction]
#[pyo3(signature = (input, sep=None, maxsplit=None), text_signature = "(input, sep=None, maxsplit=-1)")]
pub fn strings_split_rows(
    input: Obj,
    sep: OptObj,
    maxsplit: OptObj,
) -> PyResult<(PyTensor, PyTensor)> {
    guard(|| {
        let op = "split";
        let sep = match sep.filter(|s| !s.is_none()) {
            Some(s) => Some(bytes_arg(s, op, "sep")?),
            None => None,
        };
        let maxsplit = int_or(maxsplit, -1, op, "maxsplit")?;
        Ok(pieces(strings::split(
            &tensor(input)?,
            sep.as_deref(),
            maxsplit,
        )?))
    })
}

/// Every element's bytes and their int64 row splits (the kernel of `rt.strings.bytes_split`).
///
/// >>> import rustape as rt
/// >>> rt._rustape.strings_bytes_split_rows(["ab"])[0].numpy().tolist()
/// [b'a', b'b']
#[pyfunction]
#[pyo3(signature = (input,))]
pub fn strings_bytes_split_rows(input: Obj) -> PyResult<(PyTensor, PyTensor)> {
    guard(|| Ok(pieces(strings::bytes_split(&tensor(input)?)?)))
}

/// Every element's UTF-8 characters and their int64 row splits (the kernel of
/// `rt.strings.unicode_split`).
///
/// >>> import rustape as rt
/// >>> rt._rustape.strings_unicode_split_rows(["hé"])[0].numpy().tolist()
/// [b'h', b'\xc3\xa9']
#[pyfunction]
#[pyo3(signature = (input,))]
pub fn strings_unicode_split_rows(input: Obj) -> PyResult<(PyTensor, PyTensor)> {
    guard(|| Ok(pieces(strings::unicode_split(&tensor(input)?)?)))
}

/// Each element parsed as a number of `out_type` (float32, float64, int32, int64); a
/// string that is not one is a ValueError.
///
/// >>> import rustape as rt
/// >>> rt.strings.to_number(["1.5", "-2"]).numpy()
/// array([ 1.5, -2. ], dtype=float32)
#[pyfunction]
#[pyo3(signature = (input, out_type=None, name=None), text_signature = "(input, out_type=None, name=None)")]
pub fn strings_to_number(input: Obj, out_type: OptObj, name: OptObj) -> PyResult<PyTensor> {
    let _ = name;
    guard(|| {
        let dtype = parse_optional_dtype(out_type)?.unwrap_or(DType::F32);
        wrap(strings::to_number(&tensor(input)?, dtype))
    })
}

/// Each element of a numeric or bool tensor as text: integers in decimal, bools as
/// `true`/`false`, floats with `precision` decimals (6 when negative), as C's `%f`.
///
/// >>> import rustape as rt
/// >>> rt.strings.as_string([1.5, 2.0], precision=2).numpy().tolist()
/// [b'1.50', b'2.00']
#[pyfunction]
#[pyo3(signature = (input, precision=None, name=None), text_signature = "(input, precision=-1, name=None)")]
pub fn strings_as_string(input: Obj, precision: OptObj, name: OptObj) -> PyResult<PyTensor> {
    let _ = name;
    guard(|| {
        let precision = int_or(precision, -1, "as_string", "precision")?;
        wrap(strings::as_string(&tensor(input)?, precision))
    })
}

/// Each element's bucket in `[0, num_buckets)`: TensorFlow's Fingerprint64 of its bytes
/// modulo `num_buckets` (int64), the same buckets as `tf.strings.to_hash_bucket_fast`.
///
/// >>> import rustape as rt
/// >>> int(rt.strings.to_hash_bucket_fast("hello", 1000)) in range(1000)
/// True
#[pyfunction]
#[pyo3(signature = (input, num_buckets, name=None))]
pub fn strings_to_hash_bucket_fast(
    input: Obj,
    num_buckets: Obj,
    name: OptObj,
) -> PyResult<PyTensor> {
    let _ = name;
    guard(|| {
        let n = count_arg(num_buckets, "to_hash_bucket_fast", "num_buckets")?;
        wrap(strings::to_hash_bucket_fast(&tensor(input)?, n as u64))
    })
}

bindings! {
    fn strings_lower => [strings as lower];
    fn strings_upper => [strings as upper];
    fn strings_strip => [strings as strip];
    fn strings_length => [strings as length];
    fn strings_substr => [strings as substr];
    fn strings_join => [strings as join];
    fn strings_reduce_join => [strings as reduce_join];
    fn strings_regex_full_match => [strings as regex_full_match];
    fn strings_regex_replace => [strings as regex_replace];
    fn strings_split_rows => [];
    fn strings_bytes_split_rows => [];
    fn strings_unicode_split_rows => [];
    fn strings_to_number => [strings as to_number];
    fn strings_as_string => [strings as as_string];
    fn strings_to_hash_bucket_fast => [strings as to_hash_bucket_fast];
}
