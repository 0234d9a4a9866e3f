//! `tf.strings`: kernels over string tensors (see [`crate::text`]). Nothing here is
//! differentiable or recorded: strings carry no gradient.
//!
//! Regular expressions use the `regex` crate, whose syntax is RE2's (TensorFlow's engine) for
//! everything both accept: no look-around, no backreferences, linear-time matching. Rewrites
//! use RE2's `\1` group references (`\0` the whole match, `\\` a backslash), translated to the
//! crate's `${1}` form.
use regex::bytes::Regex;

use super::broadcast_shapes;
use crate::dtype::DType;
use crate::error::{fmt_shape, Error, Result};
use crate::memory;
use crate::tensor::{Data, Tensor, Values};
use crate::text::Str;

/// The string elements of `x`, or a TypeError naming `op` and the dtype.
pub fn strings<'a>(op: &str, x: &'a Tensor) -> Result<&'a Values<Str>> {
    x.values::<Str>()
        .ok_or_else(|| Error::dtype(op, format!("expected a string tensor, got {}", x.dtype())))
}

fn tensor_of(shape: &[usize], values: Vec<Str>) -> Tensor {
    Tensor::new(Data::from(Values::from_vec(shape, values)))
}

/// Each element of `x` mapped through `f`, same shape.
pub fn map_strings(op: &str, x: &Tensor, f: impl Fn(&[u8]) -> Vec<u8>) -> Result<Tensor> {
    let v = strings(op, x)?;
    let mut out = memory::try_vec::<Str>(op, v.len())?;
    out.extend(v.as_slice().iter().map(|s| Str::new(&f(s.bytes()))));
    Ok(tensor_of(v.shape(), out))
}

/// Each element of `x` mapped to a number of type `T` through `f`, same shape.
fn map_to<T: crate::tensor::Element>(
    op: &str,
    x: &Tensor,
    f: impl Fn(&[u8]) -> Result<T>,
) -> Result<Tensor> {
    let v = strings(op, x)?;
    let mut out = memory::try_vec::<T>(op, v.len())?;
    for s in v.as_slice() {
        out.push(f(s.bytes())?);
    }
    Ok(Tensor::new(T::into_data(Values::from_vec(v.shape(), out))))
}

/// Whether the text is UTF-8 (`encoding="utf-8"`) or raw bytes (`""`: ASCII letters only).
fn utf8_encoding(op: &str, encoding: &str) -> Result<bool> {
    match encoding.to_ascii_lowercase().as_str() {
        "" => Ok(false),
        "utf-8" | "utf8" => Ok(true),
        other => Err(Error::value(
            op,
            format!("encoding must be '' or 'utf-8', got '{other}'"),
        )),
    }
}

/// Lowercase: ASCII letters only, or every letter of UTF-8 text with `utf8`.
pub fn lower(x: &Tensor, encoding: &str) -> Result<Tensor> {
    let utf8 = utf8_encoding("lower", encoding)?;
    map_strings("lower", x, |s| match std::str::from_utf8(s) {
        Ok(text) if utf8 => text.to_lowercase().into_bytes(),
        _ => s.to_ascii_lowercase(),
    })
}

/// Uppercase: ASCII letters only, or every letter of UTF-8 text with `utf8`.
pub fn upper(x: &Tensor, encoding: &str) -> Result<Tensor> {
    let utf8 = utf8_encoding("upper", encoding)?;
    map_strings("upper", x, |s| match std::str::from_utf8(s) {
        Ok(text) if utf8 => text.to_uppercase().into_bytes(),
        _ => s.to_ascii_uppercase(),
    })
}

fn is_space(b: u8) -> bool {
    matches!(b, b' ' | b'\t' | b'\n' | b'\r' | 0x0b | 0x0c)
}

/// Leading and trailing ASCII whitespace removed (`tf.strings.strip`).
pub fn strip(x: &Tensor) -> Result<Tensor> {
    map_strings("strip", x, |s| {
        let start = s.iter().position(|&b| !is_space(b)).unwrap_or(s.len());
        let end = s
            .iter()
            .rposition(|&b| !is_space(b))
            .map_or(start, |e| e + 1);
        s[start..end].to_vec()
    })
}

/// Whether `unit` counts characters of UTF-8 text (`UTF8_CHAR`) rather than bytes (`BYTE`).
pub fn char_unit(op: &str, unit: &str) -> Result<bool> {
    match unit {
        "BYTE" => Ok(false),
        "UTF8_CHAR" => Ok(true),
        other => Err(Error::value(
            op,
            format!("unit must be 'BYTE' or 'UTF8_CHAR', got '{other}'"),
        )),
    }
}

/// How many UTF-8 characters `s` holds (bytes that do not continue a character).
fn utf8_chars(s: &[u8]) -> usize {
    s.iter().filter(|&&b| b & 0xC0 != 0x80).count()
}

/// The length of each element, in bytes or UTF-8 characters (int32).
pub fn length(x: &Tensor, unit: &str) -> Result<Tensor> {
    let chars = char_unit("length", unit)?;
    map_to::<i32>("length", x, |s| {
        Ok(if chars { utf8_chars(s) } else { s.len() } as i32)
    })
}

/// Byte offsets of each character start in `s`, plus `s.len()`.
fn char_starts(s: &[u8]) -> Vec<usize> {
    let mut starts: Vec<usize> = (0..s.len()).filter(|&i| s[i] & 0xC0 != 0x80).collect();
    starts.push(s.len());
    starts
}

/// `len` units of each element from `pos` (a negative `pos` counts from the end), as
/// TensorFlow's `Substr`: a `pos` outside the string is an error; `len` is clipped.
pub fn substr(x: &Tensor, pos: i64, len: i64, unit: &str) -> Result<Tensor> {
    const OP: &str = "substr";
    let chars = char_unit(OP, unit)?;
    if len < 0 {
        return Err(Error::value(OP, format!("len must be >= 0, got {len}")));
    }
    let v = strings(OP, x)?;
    let mut out = memory::try_vec::<Str>(OP, v.len())?;
    for s in v.as_slice() {
        let b = s.bytes();
        let starts = if chars {
            char_starts(b)
        } else {
            (0..=b.len()).collect()
        };
        let n = (starts.len() - 1) as i64;
        let p = if pos < 0 { n + pos } else { pos };
        if p < 0 || p > n {
            return Err(Error::value(
                OP,
                format!("pos {pos} out of range for string b'{}'", b.escape_ascii()),
            ));
        }
        let end = (p + len).min(n);
        out.push(Str::new(&b[starts[p as usize]..starts[end as usize]]));
    }
    Ok(tensor_of(v.shape(), out))
}

/// The elements of `inputs` joined elementwise with `separator` (shapes broadcast).
pub fn join(inputs: &[Tensor], separator: &[u8]) -> Result<Tensor> {
    const OP: &str = "join";
    let mut shape: Vec<usize> = Vec::new();
    for t in inputs {
        strings(OP, t)?;
        shape = broadcast_shapes(OP, &shape, t.shape())?;
    }
    let n = memory::checked_size(OP, &shape)?;
    let spread: Vec<Tensor> = inputs
        .iter()
        .map(|t| super::broadcast_to(t, &shape))
        .collect::<Result<_>>()?;
    let mut out = memory::try_vec::<Str>(OP, n)?;
    let mut buf: Vec<u8> = Vec::new();
    for i in 0..n {
        buf.clear();
        for (k, t) in spread.iter().enumerate() {
            if k > 0 {
                buf.extend_from_slice(separator);
            }
            buf.extend_from_slice(strings(OP, t)?.as_slice()[i].bytes());
        }
        out.push(Str::new(&buf));
    }
    Ok(tensor_of(&shape, out))
}

/// The elements of `x` joined with `separator` along `axis` (all of them, to a scalar, when
/// `None`), keeping a length-1 axis with `keepdims`.
pub fn reduce_join(
    x: &Tensor,
    axis: Option<isize>,
    keepdims: bool,
    separator: &[u8],
) -> Result<Tensor> {
    const OP: &str = "reduce_join";
    strings(OP, x)?;
    let rank = x.ndim();
    let Some(axis) = axis else {
        let flat = super::reshape(x, &[x.size() as isize])?;
        let joined = reduce_join(&flat, Some(0), false, separator)?;
        return if keepdims {
            super::reshape(&joined, &vec![1; rank])
        } else {
            Ok(joined)
        };
    };
    let a = if axis < 0 { axis + rank as isize } else { axis };
    if a < 0 || a >= rank as isize {
        return Err(Error::value(
            OP,
            format!(
                "axis {axis} out of range for a tensor of shape {}",
                fmt_shape(x.shape())
            ),
        ));
    }
    let a = a as usize;
    let mut perm: Vec<usize> = (0..rank).filter(|&d| d != a).collect();
    perm.push(a);
    let moved = super::transpose(x, Some(&perm))?;
    let v = strings(OP, &moved)?;
    let k = x.shape()[a];
    let mut out_shape: Vec<usize> = x.shape().to_vec();
    out_shape.remove(a);
    let rows = memory::checked_size(OP, &out_shape)?;
    let mut out = memory::try_vec::<Str>(OP, rows)?;
    let mut buf: Vec<u8> = Vec::new();
    for r in 0..rows {
        buf.clear();
        for (j, s) in v.as_slice()[r * k..(r + 1) * k].iter().enumerate() {
            if j > 0 {
                buf.extend_from_slice(separator);
            }
            buf.extend_from_slice(s.bytes());
        }
        out.push(Str::new(&buf));
    }
    if keepdims {
        out_shape.insert(a, 1);
    }
    Ok(tensor_of(&out_shape, out))
}

fn compile(op: &str, pattern: &str) -> Result<Regex> {
    Regex::new(pattern).map_err(|e| Error::value(op, format!("invalid pattern '{pattern}': {e}")))
}

/// Whether each element matches `pattern` as a whole.
pub fn regex_full_match(x: &Tensor, pattern: &str) -> Result<Tensor> {
    const OP: &str = "regex_full_match";
    let re = compile(OP, &format!("^(?:{pattern})$"))?;
    map_to::<bool>(OP, x, |s| Ok(re.is_match(s)))
}

/// An RE2 rewrite (`\1` a group, `\\` a backslash) in the `regex` crate's form.
fn rewrite_of(op: &str, rewrite: &str) -> Result<Vec<u8>> {
    let mut out = Vec::with_capacity(rewrite.len());
    let mut bytes = rewrite.bytes().peekable();
    while let Some(b) = bytes.next() {
        match b {
            b'\\' => match bytes.next() {
                Some(d @ b'0'..=b'9') => {
                    out.extend_from_slice(format!("${{{}}}", d - b'0').as_bytes())
                }
                Some(b'\\') => out.push(b'\\'),
                other => {
                    return Err(Error::value(
                        op,
                        format!(
                            "invalid rewrite '{rewrite}': a backslash must be followed by a \
                             digit or a backslash, got {:?}",
                            other.map(char::from)
                        ),
                    ))
                }
            },
            b'$' => out.extend_from_slice(b"$$"),
            other => out.push(other),
        }
    }
    Ok(out)
}

/// Each element with the matches of `pattern` replaced by `rewrite` (every match, or the
/// first with `replace_global = false`).
pub fn regex_replace(
    x: &Tensor,
    pattern: &str,
    rewrite: &str,
    replace_global: bool,
) -> Result<Tensor> {
    const OP: &str = "regex_replace";
    let re = compile(OP, pattern)?;
    let rewrite = rewrite_of(OP, rewrite)?;
    let limit = if replace_global { 0 } else { 1 };
    map_strings(OP, x, |s| re.replacen(s, limit, &rewrite[..]).into_owned())
}

/// A split of each element of `x`: the pieces of all elements in order, and the row splits
/// (`row_splits[i]..row_splits[i + 1]` are element `i`'s pieces).
pub struct Split {
    /// Every piece, a 1-D string tensor.
    pub values: Tensor,
    /// int64 offsets into `values`, one more than the elements of `x`.
    pub row_splits: Tensor,
}

fn split_with(op: &str, x: &Tensor, pieces: impl Fn(&[u8], &mut Vec<Str>)) -> Result<Split> {
    let v = strings(op, x)?;
    let mut values: Vec<Str> = Vec::new();
    let mut splits = memory::try_vec::<i64>(op, v.len() + 1)?;
    splits.push(0);
    for s in v.as_slice() {
        pieces(s.bytes(), &mut values);
        splits.push(values.len() as i64);
    }
    let n = values.len();
    Ok(Split {
        values: tensor_of(&[n], values),
        row_splits: Tensor::new(Data::from(Values::from_vec(&[splits.len()], splits))),
    })
}

/// `tf.strings.split` of every element: on runs of ASCII whitespace (empty pieces dropped)
/// when `sep` is `None`, else on each occurrence of `sep` (empty pieces kept: an empty string
/// is one empty piece). At most `maxsplit` splits when it is not negative.
pub fn split(x: &Tensor, sep: Option<&[u8]>, maxsplit: i64) -> Result<Split> {
    const OP: &str = "split";
    if sep.is_some_and(|s| s.is_empty()) {
        return Err(Error::value(
            OP,
            "sep must not be empty (use None for whitespace)",
        ));
    }
    let limit = if maxsplit < 0 {
        usize::MAX
    } else {
        maxsplit as usize
    };
    split_with(OP, x, |s, out| match sep {
        None => {
            let mut rest = s;
            let mut splits = 0;
            loop {
                let start = rest
                    .iter()
                    .position(|&b| !is_space(b))
                    .unwrap_or(rest.len());
                rest = &rest[start..];
                if rest.is_empty() {
                    break;
                }
                if splits == limit {
                    out.push(Str::new(rest));
                    break;
                }
                let end = rest.iter().position(|&b| is_space(b)).unwrap_or(rest.len());
                out.push(Str::new(&rest[..end]));
                rest = &rest[end..];
                splits += 1;
            }
        }
        Some(sep) => {
            let mut start = 0;
            let mut i = 0;
            let mut splits = 0;
            while i + sep.len() <= s.len() && splits < limit {
                if &s[i..i + sep.len()] == sep {
                    out.push(Str::new(&s[start..i]));
                    i += sep.len();
                    start = i;
                    splits += 1;
                } else {
                    i += 1;
                }
            }
            out.push(Str::new(&s[start..]));
        }
    })
}

/// Every element split into its bytes (`tf.strings.bytes_split`).
pub fn bytes_split(x: &Tensor) -> Result<Split> {
    split_with("bytes_split", x, |s, out| {
        out.extend(s.iter().map(|b| Str::new(std::slice::from_ref(b))))
    })
}

/// Every element split into its UTF-8 characters (`tf.strings.unicode_split`); invalid
/// UTF-8 is an error.
pub fn unicode_split(x: &Tensor) -> Result<Split> {
    const OP: &str = "unicode_split";
    let v = strings(OP, x)?;
    if let Some(bad) = v.as_slice().iter().find(|s| s.to_str().is_none()) {
        return Err(Error::value(
            OP,
            format!("invalid UTF-8 in b'{}'", bad.bytes().escape_ascii()),
        ));
    }
    split_with(OP, x, |s, out| {
        let starts = char_starts(s);
        out.extend(starts.windows(2).map(|w| Str::new(&s[w[0]..w[1]])))
    })
}

/// Each element parsed as a number of `dtype` (float32, float64, int32, int64), as
/// TensorFlow's `StringToNumber`: surrounding whitespace is an error, as is anything not a
/// number of that type.
pub fn to_number(x: &Tensor, dtype: DType) -> Result<Tensor> {
    const OP: &str = "to_number";
    fn bad(s: &[u8], dtype: DType) -> Error {
        Error::value(
            OP,
            format!(
                "StringToNumberOp could not correctly convert string: b'{}' to {dtype}",
                s.escape_ascii()
            ),
        )
    }
    fn text(s: &[u8], dtype: DType) -> Result<&str> {
        std::str::from_utf8(s).map_err(|_| bad(s, dtype))
    }
    fn float(s: &[u8], dtype: DType) -> Result<f64> {
        let t = text(s, dtype)?;
        let lower = t.to_ascii_lowercase();
        let body = lower.trim_start_matches(['+', '-']);
        if body == "inf" || body == "infinity" || body == "nan" {
            return t.parse::<f64>().map_err(|_| bad(s, dtype));
        }
        if body.is_empty()
            || !body
                .bytes()
                .all(|b| b.is_ascii_digit() || b".e+-".contains(&b))
        {
            return Err(bad(s, dtype));
        }
        t.parse::<f64>().map_err(|_| bad(s, dtype))
    }
    match dtype {
        DType::F32 => map_to::<f32>(OP, x, |s| {
            let t = text(s, dtype)?;
            float(s, dtype)?;
            t.parse::<f32>().map_err(|_| bad(s, dtype))
        }),
        DType::F64 => map_to::<f64>(OP, x, |s| float(s, dtype)),
        DType::I32 => map_to::<i32>(OP, x, |s| {
            text(s, dtype)?.parse().map_err(|_| bad(s, dtype))
        }),
        DType::I64 => map_to::<i64>(OP, x, |s| {
            text(s, dtype)?.parse().map_err(|_| bad(s, dtype))
        }),
        other => Err(Error::dtype(
            OP,
            format!("out_type must be float32, float64, int32 or int64, got {other}"),
        )),
    }
}

/// Each element of a numeric or bool tensor as text (`tf.strings.as_string`): integers in
/// decimal, bools as `true`/`false`, floats as C's `%.{precision}f` (6 digits when
/// `precision` is negative; `inf`, `-inf`, `nan`).
pub fn as_string(x: &Tensor, precision: i64) -> Result<Tensor> {
    const OP: &str = "as_string";
    if precision > 1000 {
        return Err(Error::value(
            OP,
            format!("precision must be at most 1000, got {precision}"),
        ));
    }
    let digits = if precision < 0 { 6 } else { precision as usize };
    let float = |v: f64| -> String {
        if v.is_nan() {
            "nan".into()
        } else if v.is_infinite() {
            if v > 0.0 { "inf" } else { "-inf" }.into()
        } else {
            format!("{v:.digits$}")
        }
    };
    let texts: Vec<String> = match x.data() {
        Data::F32(v) => v.iter().map(|&a| float(a as f64)).collect(),
        Data::F64(v) => v.iter().map(|&a| float(a)).collect(),
        Data::I32(v) => v.iter().map(|a| a.to_string()).collect(),
        Data::I64(v) => v.iter().map(|a| a.to_string()).collect(),
        Data::Bool(v) => v.iter().map(|a| a.to_string()).collect(),
        Data::Str(_) => {
            return Err(Error::dtype(
                OP,
                "expected a numeric or bool tensor, got string".to_string(),
            ))
        }
        other => {
            return Err(Error::dtype(
                OP,
                format!(
                    "expected a real numeric or bool tensor, got {}",
                    other.dtype()
                ),
            ))
        }
    };
    Ok(tensor_of(
        x.shape(),
        texts.iter().map(|t| Str::new(t.as_bytes())).collect(),
    ))
}

/// Each element's Fingerprint64 (TensorFlow's hash) modulo `num_buckets` (int64).
pub fn to_hash_bucket_fast(x: &Tensor, num_buckets: u64) -> Result<Tensor> {
    const OP: &str = "to_hash_bucket_fast";
    if num_buckets == 0 {
        return Err(Error::value(OP, "num_buckets must be positive, got 0"));
    }
    map_to::<i64>(OP, x, |s| {
        Ok((super::fingerprint::fingerprint64(s) % num_buckets) as i64)
    })
}
