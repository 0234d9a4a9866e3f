//! Searching and counting: `searchsorted`, `bincount`, `unique` (along an axis) and
//! `histogram_fixed_width`. Their outputs are positions and counts, so none is differentiable
//! (TensorFlow registers no gradient for them either); they read their inputs' values only.
use std::cmp::Ordering;

use crate::dtype::DType;
use crate::error::{fmt_shape, Error, Result};
use crate::tensor::{Data, Tensor};

/// A tensor's elements as numbers that compare the way its dtype does: integers and bools
/// exactly as i64, floats as f64 (float32 converts exactly).
enum Numbers {
    Int(Vec<i64>),
    Float(Vec<f64>),
    /// Strings (only [`unique`] takes them: [`Numbers::of_any`]), in byte order.
    Text(Vec<crate::text::Str>),
}

impl Numbers {
    /// [`Numbers::of`], strings included.
    fn of_any(op: &str, what: &str, x: &Tensor) -> Result<Numbers> {
        match x.values::<crate::text::Str>() {
            Some(v) => Ok(Numbers::Text(v.as_slice().to_vec())),
            None => Numbers::of(op, what, x),
        }
    }
    fn of(op: &str, what: &str, x: &Tensor) -> Result<Numbers> {
        Ok(match x.data() {
            Data::I32(v) => Numbers::Int(v.iter().map(|&a| a as i64).collect()),
            Data::I64(v) => Numbers::Int(v.iter().copied().collect()),
            Data::Bool(v) => Numbers::Int(v.iter().map(|&a| a as i64).collect()),
            Data::F32(v) => Numbers::Float(v.iter().map(|&a| a as f64).collect()),
            Data::F64(v) => Numbers::Float(v.iter().copied().collect()),
            Data::C64(_) | Data::C128(_) | Data::Str(_) => {
                return Err(Error::dtype(
                    op,
                    format!(
                        "{what} must be real (integers, floats or bools), got {}",
                        x.dtype()
                    ),
                ))
            }
        })
    }

    /// `a[i] < b[j]` in the dtype's order (false when either is NaN).
    fn less(&self, i: usize, other: &Numbers, j: usize) -> bool {
        match (self, other) {
            (Numbers::Int(a), Numbers::Int(b)) => a[i] < b[j],
            (Numbers::Int(a), Numbers::Float(b)) => (a[i] as f64) < b[j],
            (Numbers::Float(a), Numbers::Int(b)) => a[i] < b[j] as f64,
            (Numbers::Float(a), Numbers::Float(b)) => a[i] < b[j],
            (Numbers::Text(a), Numbers::Text(b)) => a[i] < b[j],
            (Numbers::Text(_), _) | (_, Numbers::Text(_)) => false,
        }
    }

    /// A total order for sorting (NaNs last; -0 equals 0).
    fn order(&self, i: usize, j: usize) -> Ordering {
        match self {
            Numbers::Int(a) => a[i].cmp(&a[j]),
            Numbers::Float(a) => {
                let (x, y) = (a[i], a[j]);
                x.partial_cmp(&y)
                    .unwrap_or_else(|| x.is_nan().cmp(&y.is_nan()))
            }
            Numbers::Text(a) => a[i].cmp(&a[j]),
        }
    }

    /// Whether elements `i` and `j` are equal (NaN equals nothing, as in TensorFlow's hash
    /// tables).
    fn same(&self, i: usize, j: usize) -> bool {
        match self {
            Numbers::Int(a) => a[i] == a[j],
            Numbers::Float(a) => a[i] == a[j],
            Numbers::Text(a) => a[i] == a[j],
        }
    }
}

/// An index tensor of `dtype` (int32 or int64) from `values`.
fn indices(op: &str, values: Vec<i64>, shape: &[usize], dtype: DType) -> Result<Tensor> {
    match dtype {
        DType::I32 => {
            let narrow = values
                .into_iter()
                .map(|v| {
                    i32::try_from(v).map_err(|_| {
                        Error::value(
                            op,
                            format!("{v} does not fit the int32 output; ask for int64"),
                        )
                    })
                })
                .collect::<Result<Vec<i32>>>()?;
            Tensor::from_vec(narrow, shape)
        }
        DType::I64 => Tensor::from_vec(values, shape),
        other => Err(Error::dtype(
            op,
            format!("the output dtype must be int32 or int64, got {other}"),
        )),
    }
}

/// For each of `values`, the position in `sorted_sequence` where it would be inserted to keep
/// the order (`tf.searchsorted`): before equal elements (`right = false`, "left") or after
/// them (`right = true`). `sorted_sequence` is 1-D (searched for every value, any shape), or
/// of the same rank as `values` with the same leading axes (each innermost row searched for
/// the values of the same row). Positions are `out_dtype` (int32 or int64).
pub fn searchsorted(
    sorted_sequence: &Tensor,
    values: &Tensor,
    right: bool,
    out_dtype: DType,
) -> Result<Tensor> {
    let op = "searchsorted";
    let (s_shape, v_shape) = (sorted_sequence.shape(), values.shape());
    let Some(&n) = s_shape.last() else {
        return Err(Error::shape(
            op,
            "sorted_sequence must have rank at least 1, got a scalar (shape [])",
        ));
    };
    let per_row = s_shape.len() > 1;
    if per_row
        && (v_shape.len() != s_shape.len()
            || v_shape[..v_shape.len() - 1] != s_shape[..s_shape.len() - 1])
    {
        return Err(Error::shape(
            op,
            format!(
                "sorted_sequence {} and values {} must have the same leading axes (all but the \
                 last), or sorted_sequence must be 1-D",
                fmt_shape(s_shape),
                fmt_shape(v_shape)
            ),
        ));
    }
    if sorted_sequence.dtype().is_float() != values.dtype().is_float() {
        return Err(Error::dtype(
            op,
            format!(
                "sorted_sequence ({}) and values ({}) must both be floating or both integer",
                sorted_sequence.dtype(),
                values.dtype()
            ),
        ));
    }
    let seq = Numbers::of(op, "sorted_sequence", sorted_sequence)?;
    let vals = Numbers::of(op, "values", values)?;
    let m = if per_row {
        *v_shape.last().unwrap_or(&0)
    } else {
        1
    };
    let out: Vec<i64> = (0..values.size())
        .map(|k| {
            let base = if per_row && m > 0 { (k / m) * n } else { 0 };
            // Binary search for the first position whose element is greater than the value
            // ("right") or not less than it ("left").
            let (mut lo, mut hi) = (0, n);
            while lo < hi {
                let mid = lo + (hi - lo) / 2;
                let go_right = if right {
                    !vals.less(k, &seq, base + mid)
                } else {
                    seq.less(base + mid, &vals, k)
                };
                if go_right {
                    lo = mid + 1;
                } else {
                    hi = mid;
                }
            }
            lo as i64
        })
        .collect();
    indices(op, out, v_shape, out_dtype)
}

/// How [`bincount`] counts.
#[derive(Clone, Debug, Default)]
pub struct Bincount<'a> {
    /// Each value adds its weight (same shape as the input) instead of 1; the output takes
    /// the weights' dtype.
    pub weights: Option<&'a Tensor>,
    /// The output has at least this many bins.
    pub minlength: Option<usize>,
    /// The output has at most this many bins; larger values are not counted.
    pub maxlength: Option<usize>,
    /// Count each row of a 2-D input separately (`axis=-1`) instead of all values together.
    pub per_row: bool,
    /// 1 where a value occurs at all, instead of counts.
    pub binary_output: bool,
}

/// How often each non-negative integer occurs in `arr` (`tf.math.bincount`): bin `i` counts
/// the values equal to `i` (or sums their weights). The bins run to the largest value, at
/// least `minlength` and at most `maxlength`. Counts without weights are `dtype`.
/// ValueError for a negative value.
pub fn bincount(arr: &Tensor, how: &Bincount<'_>, dtype: DType) -> Result<Tensor> {
    let op = "bincount";
    let values = match Numbers::of(op, "arr", arr)? {
        Numbers::Int(v) if arr.dtype() != DType::Bool => v,
        _ => {
            return Err(Error::dtype(
                op,
                format!(
                    "arr must hold integers (int32 or int64), got {}",
                    arr.dtype()
                ),
            ))
        }
    };
    if let Some(&v) = values.iter().find(|&&v| v < 0) {
        return Err(Error::value(
            op,
            format!(
                "Input arr must be non-negative, got {v} (arr of shape {})",
                fmt_shape(arr.shape())
            ),
        ));
    }
    if let Some(w) = how.weights {
        if w.shape() != arr.shape() {
            return Err(Error::shape(
                op,
                format!(
                    "weights {} must have the shape of arr {}",
                    fmt_shape(w.shape()),
                    fmt_shape(arr.shape())
                ),
            ));
        }
    }
    let rows = if how.per_row {
        if arr.ndim() != 2 {
            return Err(Error::shape(
                op,
                format!(
                    "axis=-1 counts the rows of a 2-D arr, got shape {}",
                    fmt_shape(arr.shape())
                ),
            ));
        }
        arr.shape()[0]
    } else {
        1
    };
    let largest = values.iter().max().map_or(0, |&v| v as usize + 1);
    let mut bins = largest.max(how.minlength.unwrap_or(0));
    if let Some(max) = how.maxlength {
        bins = bins.min(max);
    }
    let total = rows
        .checked_mul(bins)
        .ok_or_else(|| Error::value(op, "too many bins"))?;
    let out_dtype = how.weights.map_or(dtype, Tensor::dtype);
    let weights = how.weights.map(Tensor::to_f64_vec);
    let mut out = crate::memory::try_filled(op, total, 0f64)?;
    let per = values.len().checked_div(rows).unwrap_or(0);
    for (k, &v) in values.iter().enumerate() {
        let v = v as usize;
        if v >= bins {
            continue;
        }
        let slot = &mut out[if how.per_row { k / per * bins } else { 0 } + v];
        *slot = if how.binary_output {
            1.0
        } else {
            *slot + weights.as_ref().map_or(1.0, |w| w[k])
        };
    }
    let shape: Vec<usize> = if how.per_row {
        vec![rows, bins]
    } else {
        vec![bins]
    };
    Tensor::from_vec(out, &shape).and_then(|t| crate::ops::cast(&t, out_dtype))
}

/// The distinct slices of `x` along `axis` ([`unique`]'s result).
#[derive(Clone, Debug)]
pub struct Unique {
    /// The distinct slices, stacked along `axis`.
    pub values: Tensor,
    /// For each distinct slice, the position of its first occurrence.
    pub first: Tensor,
    /// For each slice of `x`, the position of its value in `values`.
    pub inverse: Tensor,
    /// How often each distinct slice occurs.
    pub counts: Tensor,
}

/// The distinct slices of `x` along `axis` (`tf.unique` / `tf.raw_ops.UniqueV2`, and with
/// `sorted` NumPy's `np.unique`): in order of first occurrence, or ascending (lexicographic
/// over a slice's elements, NaNs last) with `sorted`. NaN equals nothing. Positions are
/// `out_dtype` (int32 or int64).
pub fn unique(x: &Tensor, axis: isize, sorted: bool, out_dtype: DType) -> Result<Unique> {
    let op = "unique";
    let ax = crate::ops::normalize_axis(op, axis, x.ndim().max(1))?;
    let moved = if x.ndim() == 0 {
        crate::ops::reshape(x, &[1])?
    } else if ax == 0 {
        x.clone()
    } else {
        let mut perm: Vec<usize> = (0..x.ndim()).collect();
        perm.remove(ax);
        perm.insert(0, ax);
        crate::ops::transpose(x, Some(&perm))?
    };
    let count = moved.shape()[0];
    let width = moved.size().checked_div(count).unwrap_or(0);
    let numbers = Numbers::of_any(op, "x", &moved)?;
    let row_order = |i: usize, j: usize| {
        (0..width)
            .map(|k| numbers.order(i * width + k, j * width + k))
            .find(|o| o.is_ne())
            .unwrap_or(Ordering::Equal)
    };
    let row_same =
        |i: usize, j: usize| (0..width).all(|k| numbers.same(i * width + k, j * width + k));
    // Sort the slices (stable: equal ones keep their order), then group runs of equal ones.
    let mut by_value: Vec<usize> = (0..count).collect();
    by_value.sort_by(|&i, &j| row_order(i, j));
    let mut groups: Vec<Vec<usize>> = Vec::new();
    for &i in &by_value {
        match groups.last_mut() {
            Some(g) if row_same(g[0], i) => g.push(i),
            _ => groups.push(vec![i]),
        }
    }
    if !sorted {
        groups.sort_by_key(|g| g[0]);
    }
    let mut inverse = vec![0i64; count];
    for (g, members) in groups.iter().enumerate() {
        for &i in members {
            inverse[i] = g as i64;
        }
    }
    let first: Vec<i64> = groups.iter().map(|g| g[0] as i64).collect();
    let counts: Vec<i64> = groups.iter().map(|g| g.len() as i64).collect();
    let picked = crate::ops::gather(
        &moved,
        &Tensor::from_vec(first.clone(), &[first.len()])?,
        0,
        0,
    )?;
    let values = if x.ndim() <= 1 || ax == 0 {
        picked
    } else {
        let mut back: Vec<usize> = (1..x.ndim()).collect();
        back.insert(ax, 0);
        crate::ops::transpose(&picked, Some(&back))?
    };
    let n = groups.len();
    Ok(Unique {
        values,
        first: indices(op, first, &[n], out_dtype)?,
        inverse: indices(op, inverse, &[count], out_dtype)?,
        counts: indices(op, counts, &[n], out_dtype)?,
    })
}

/// Counts of `values` in `nbins` equal bins spanning `[lo, hi]` (`tf.histogram_fixed_width`,
/// TensorFlow's kernel: values below `lo` count in the first bin, above `hi` in the last).
/// ValueError for NaN values, `nbins` 0 or `hi <= lo`. Counts are `dtype` (int32 or int64).
pub fn histogram_fixed_width(
    values: &Tensor,
    lo: f64,
    hi: f64,
    nbins: usize,
    dtype: DType,
) -> Result<Tensor> {
    let op = "histogram_fixed_width";
    check_range(op, lo, hi, nbins)?;
    let x = real_values(op, values)?;
    // The kernel: `(clamp_below(x, lo) - lo) / step` in double, capped at nbins - 1.
    let step = (hi - lo) / nbins as f64;
    let mut counts = crate::memory::try_filled(op, nbins, 0i64)?;
    for v in x {
        if v.is_nan() {
            return Err(Error::value(op, "Histogram values must not contain NaN"));
        }
        let bin = ((v.max(lo) - lo) / step).min((nbins - 1) as f64) as usize;
        counts[bin] += 1;
    }
    indices(op, counts, &[nbins], dtype)
}

/// The bin of each of `values` among `nbins` equal bins spanning `[lo, hi]`
/// (`tf.histogram_fixed_width_bins`: `floor(nbins * (x - lo) / (hi - lo))` in the values'
/// dtype, clipped to `[0, nbins - 1]`), int32 of the values' shape.
pub fn histogram_fixed_width_bins(
    values: &Tensor,
    lo: f64,
    hi: f64,
    nbins: usize,
) -> Result<Tensor> {
    let op = "histogram_fixed_width_bins";
    check_range(op, lo, hi, nbins)?;
    let last = (nbins - 1) as f64;
    // `product` is `nbins * scaled`, computed in the values' precision.
    let bin = |product: f64| -> i64 {
        let b = product.floor();
        let b = if last < b { last } else { b };
        let b = if b < 0.0 { 0.0 } else { b };
        if b.is_nan() {
            0
        } else {
            b as i64
        }
    };
    let out: Vec<i64> = match values.data() {
        // In float32, as TensorFlow computes it for float32 values.
        Data::F32(v) => {
            let (lo, width, n) = (lo as f32, (hi as f32 - lo as f32), nbins as f32);
            v.iter()
                .map(|&x| bin((n * ((x - lo) / width)) as f64))
                .collect()
        }
        _ => real_values(op, values)?
            .into_iter()
            .map(|x| bin(nbins as f64 * ((x - lo) / (hi - lo))))
            .collect(),
    };
    indices(op, out, values.shape(), DType::I32)
}

fn check_range(op: &str, lo: f64, hi: f64, nbins: usize) -> Result<()> {
    if nbins == 0 {
        return Err(Error::value(op, "nbins must be positive, got 0"));
    }
    if hi.partial_cmp(&lo) != Some(Ordering::Greater) {
        return Err(Error::value(
            op,
            format!("value_range must be [lo, hi] with lo < hi, got [{lo}, {hi}]"),
        ));
    }
    Ok(())
}

fn real_values(op: &str, values: &Tensor) -> Result<Vec<f64>> {
    match Numbers::of(op, "values", values)? {
        Numbers::Int(v) if values.dtype() != DType::Bool => {
            Ok(v.into_iter().map(|a| a as f64).collect())
        }
        Numbers::Float(v) => Ok(v),
        _ => Err(Error::dtype(op, "values must be numbers, got bool")),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ints(t: &Tensor) -> Vec<i64> {
        t.to_f64_vec().into_iter().map(|v| v as i64).collect()
    }

    #[test]
    fn searchsorted_left_and_right_per_row() {
        let seq = Tensor::from_vec(vec![1.0f32, 2.0, 2.0, 0.0, 0.0, 7.0], &[2, 3]).unwrap();
        let vals = Tensor::from_vec(vec![2.0f32, 9.0, 0.0, 7.0], &[2, 2]).unwrap();
        let left = searchsorted(&seq, &vals, false, DType::I32).unwrap();
        let right = searchsorted(&seq, &vals, true, DType::I64).unwrap();
        assert_eq!(ints(&left), [1, 3, 0, 2]);
        assert_eq!(ints(&right), [3, 3, 2, 3]);
        assert_eq!(right.dtype(), DType::I64);
    }

    #[test]
    fn bincount_weights_rows_and_limits() {
        let x = Tensor::from_vec(vec![1i32, 1, 3, 0, 2, 2], &[2, 3]).unwrap();
        let w = Tensor::from_vec(vec![0.5f64, 1.0, 2.0, 1.0, 1.0, 1.0], &[2, 3]).unwrap();
        let rows = Bincount {
            per_row: true,
            ..Bincount::default()
        };
        assert_eq!(
            ints(&bincount(&x, &rows, DType::I32).unwrap()),
            [0, 2, 0, 1, 1, 0, 2, 0]
        );
        let weighted = Bincount {
            weights: Some(&w),
            maxlength: Some(2),
            ..Bincount::default()
        };
        let out = bincount(&x, &weighted, DType::I32).unwrap();
        assert_eq!(out.dtype(), DType::F64);
        assert_eq!(out.to_f64_vec(), [1.0, 1.5]);
        let negative = Tensor::from_vec(vec![-1i32], &[1]).unwrap();
        assert!(bincount(&negative, &Bincount::default(), DType::I32).is_err());
    }

    #[test]
    fn unique_rows_sorted_and_in_first_occurrence_order() {
        let x = Tensor::from_vec(vec![5i64, 1, 0, 2, 5, 1], &[3, 2]).unwrap();
        let first_seen = unique(&x, 0, false, DType::I32).unwrap();
        assert_eq!(ints(&first_seen.values), [5, 1, 0, 2]);
        assert_eq!(ints(&first_seen.inverse), [0, 1, 0]);
        assert_eq!(ints(&first_seen.counts), [2, 1]);
        let sorted = unique(&x, 0, true, DType::I32).unwrap();
        assert_eq!(ints(&sorted.values), [0, 2, 5, 1]);
        assert_eq!(ints(&sorted.first), [1, 0]);
        assert_eq!(ints(&sorted.inverse), [1, 0, 1]);
    }

    #[test]
    fn histograms_clamp_to_the_end_bins() {
        let v = Tensor::from_vec(vec![-1.0f64, 0.0, 0.5, 1.99, 2.0, 5.0], &[6]).unwrap();
        let counts = histogram_fixed_width(&v, 0.0, 2.0, 4, DType::I32).unwrap();
        assert_eq!(ints(&counts), [2, 1, 0, 3]);
        let bins = histogram_fixed_width_bins(&v, 0.0, 2.0, 4).unwrap();
        assert_eq!(ints(&bins), [0, 0, 1, 3, 3, 3]);
        assert!(histogram_fixed_width(&v, 1.0, 1.0, 4, DType::I32).is_err());
    }
}
