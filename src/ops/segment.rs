//! Segment reductions: `unsorted_segment_sum`, `_mean`, `_max`, `_prod`, `segment_sum` and
//! `segment_prod`, as TensorFlow has them. `segment_ids` (int32 or int64) has the shape of the leading axes of
//! `data`; the result has shape `[num_segments] + data.shape[segment_ids.ndim:]`.
//!
//! Edges (TensorFlow's): an id `>= num_segments` is a ValueError; a negative id drops its
//! slice from the unsorted ops; an empty segment sums to 0, averages to 0 and has the lowest
//! value of the dtype as its maximum, multiplies to 1. `segment_sum` and `segment_prod` want
//! sorted, non-negative ids.
//!
//! Gradients: a gather of `dy` (zero for dropped slices); for the maximum, TensorFlow's rule,
//! `dy` split equally between the elements that tie for a segment's maximum.
use super::arith::Arith;
use super::{cast, divide, equal, gather, greater, logical_and, multiply, scalar_like, where_};
use crate::dispatch;
use crate::error::{fmt_shape, Error, Result};
use crate::tape::{any_tape_active, mixes_input, record_batched};
use crate::tensor::{Data, Element, Tensor, Values};

/// Validated segment ids as i64 (negative ones kept: the unsorted ops drop them).
fn read_ids(op: &str, data: &Tensor, ids: &Tensor, num_segments: usize) -> Result<Vec<i64>> {
    let values: Vec<i64> = match ids.data() {
        Data::I32(a) => a.iter().map(|&v| v as i64).collect(),
        Data::I64(a) => a.iter().copied().collect(),
        other => {
            return Err(Error::dtype(
                op,
                format!("segment_ids must be int32 or int64, got {}", other.dtype()),
            ))
        }
    };
    if !data.shape().starts_with(ids.shape()) {
        return Err(Error::shape(
            op,
            format!(
                "segment_ids of shape {} must be a prefix of the shape of data {}",
                fmt_shape(ids.shape()),
                fmt_shape(data.shape())
            ),
        ));
    }
    if let Some(i) = values
        .iter()
        .position(|&v| v >= 0 && v as u64 >= num_segments as u64)
    {
        return Err(Error::value(
            op,
            format!(
                "segment_ids[{i}] = {} is out of range [0, {num_segments})",
                values[i]
            ),
        ));
    }
    Ok(values)
}

/// The result's shape: `[num_segments]` and the axes of `data` past those of the ids.
fn segment_shape(data: &Tensor, ids: &Tensor, num_segments: usize) -> Vec<usize> {
    std::iter::once(num_segments)
        .chain(data.shape()[ids.ndim()..].iter().copied())
        .collect()
}

/// Folds the slices of `data` (flattened to `[ids.len(), inner]`) into their segments.
fn fold_segments<T: Element>(
    op: &str,
    data: &Values<T>,
    ids: &[i64],
    shape: &[usize],
    init: T,
    f: impl Fn(T, T) -> T,
) -> Result<Values<T>> {
    let inner: usize = shape[1..].iter().product();
    // `num_segments` comes from the user: the result's size is checked, its buffer fallible.
    let mut out = crate::memory::try_filled(op, crate::memory::checked_size(op, shape)?, init)?;
    let src = data.as_slice();
    for (row, &id) in ids.iter().enumerate() {
        if id < 0 {
            continue;
        }
        let to = id as usize * inner;
        for (d, &s) in out[to..to + inner]
            .iter_mut()
            .zip(&src[row * inner..(row + 1) * inner])
        {
            *d = f(*d, s);
        }
    }
    Ok(Values::from_vec(shape, out))
}

/// `ids` with the negative ones set to 0 (a gather index), and whether each was kept, shaped
/// to broadcast against a gathered `[ids.shape, inner..]` tensor.
fn clipped_ids(ids: &[i64], ids_shape: &[usize], rank: usize) -> Result<(Tensor, Tensor)> {
    let clipped: Vec<i64> = ids.iter().map(|&v| v.max(0)).collect();
    let kept: Vec<bool> = ids.iter().map(|&v| v >= 0).collect();
    let mut kept_shape: Vec<usize> = ids_shape.to_vec();
    kept_shape.resize(rank, 1);
    Ok((
        Tensor::from_vec(clipped, ids_shape)?,
        Tensor::from_vec(kept, &kept_shape)?,
    ))
}

/// `dy` (with `batch` leading axes) gathered back to the slices of `data`, zero for dropped
/// slices.
fn gather_back(dy: &Tensor, batch: usize, clipped: &Tensor, kept: &Tensor) -> Result<Tensor> {
    let g = gather(dy, clipped, batch as isize, 0)?;
    where_(kept, &g, &scalar_like(0.0, &g))
}

/// The sum of the slices of `data` in each segment (`tf.math.unsorted_segment_sum`); integers
/// wrap. Gradient: `dy` gathered back to each slice.
pub fn unsorted_segment_sum(
    data: &Tensor,
    segment_ids: &Tensor,
    num_segments: usize,
) -> Result<Tensor> {
    let op = "unsorted_segment_sum";
    let ids = read_ids(op, data, segment_ids, num_segments)?;
    let shape = segment_shape(data, segment_ids, num_segments);
    let y = Tensor::new(dispatch!(values num data.data(), op, |a| {
        fold_segments(op, a, &ids, &shape, Default::default(), Arith::add)?
    }));
    // The gather indices the VJP needs are built only when a tape may record it.
    if y.is_differentiable() && any_tape_active() {
        let (clipped, kept) = clipped_ids(&ids, segment_ids.shape(), data.ndim())?;
        record_batched(
            op,
            &[data, segment_ids],
            &y,
            &[&clipped, &kept],
            mixes_input(0),
            true,
            |s, dy, batch| {
                Ok(crate::grads![
                    Some(gather_back(dy, batch, &s[0], &s[1])?),
                    None
                ])
            },
        );
    }
    Ok(y)
}

/// The mean of the slices of `data` in each segment (`tf.math.unsorted_segment_mean`,
/// floating dtypes); an empty segment gives 0. Gradient: `dy / count` gathered back.
pub fn unsorted_segment_mean(
    data: &Tensor,
    segment_ids: &Tensor,
    num_segments: usize,
) -> Result<Tensor> {
    let op = "unsorted_segment_mean";
    if !data.dtype().is_float() {
        return Err(crate::tensor::unsupported(op, data.dtype(), "a floating"));
    }
    let ids = read_ids(op, data, segment_ids, num_segments)?;
    let mut counts = crate::memory::try_filled(op, num_segments, 0.0f64)?;
    for &id in ids.iter().filter(|&&id| id >= 0) {
        counts[id as usize] += 1.0;
    }
    let mut count_shape = vec![num_segments];
    count_shape.resize(data.ndim() - segment_ids.ndim() + 1, 1);
    let counts: Vec<f64> = counts.into_iter().map(|c| c.max(1.0)).collect();
    let counts = cast(&Tensor::from_vec(counts, &count_shape)?, data.dtype())?;
    divide(
        &unsorted_segment_sum(data, segment_ids, num_segments)?,
        &counts,
    )
}

/// The maximum of the slices of `data` in each segment (`tf.math.unsorted_segment_max`); an
/// empty segment gives the dtype's lowest finite value. Gradient (TensorFlow's): `dy` split
/// equally between the elements equal to their segment's maximum.
pub fn unsorted_segment_max(
    data: &Tensor,
    segment_ids: &Tensor,
    num_segments: usize,
) -> Result<Tensor> {
    let op = "unsorted_segment_max";
    let ids = read_ids(op, data, segment_ids, num_segments)?;
    let shape = segment_shape(data, segment_ids, num_segments);
    fn run<T: Arith>(a: &Values<T>, ids: &[i64], shape: &[usize], lowest: T) -> Result<Values<T>> {
        fold_segments("unsorted_segment_max", a, ids, shape, lowest, |m, v| {
            if m.is_nan() || v.is_nan() {
                if m.is_nan() {
                    m
                } else {
                    v
                }
            } else if v > m {
                v
            } else {
                m
            }
        })
    }
    let y = Tensor::new(match data.data() {
        Data::F32(a) => run(a, &ids, &shape, f32::MIN)?.into(),
        Data::F64(a) => run(a, &ids, &shape, f64::MIN)?.into(),
        Data::I32(a) => run(a, &ids, &shape, i32::MIN)?.into(),
        Data::I64(a) => run(a, &ids, &shape, i64::MIN)?.into(),
        other => return Err(crate::tensor::unsupported(op, other.dtype(), "a numeric")),
    });
    if !y.is_differentiable() || !any_tape_active() {
        return Ok(y);
    }
    let (clipped, kept) = clipped_ids(&ids, segment_ids.shape(), data.ndim())?;
    // Which slices hold their segment's maximum, and how many share each maximum: constants.
    let at_max = logical_and(&equal(data, &gather(&y, &clipped, 0, 0)?)?, &kept)?;
    let ties = unsorted_segment_sum(&cast(&at_max, y.dtype())?, segment_ids, num_segments)?;
    record_batched(
        op,
        &[data, segment_ids],
        &y,
        &[&clipped, &at_max, &ties],
        mixes_input(0),
        true,
        move |s, dy, batch| {
            let share = divide(dy, &s[2])?;
            let g = gather(&share, &s[0], batch as isize, 0)?;
            let g = where_(&s[1], &g, &scalar_like(0.0, &g))?;
            Ok(crate::grads![Some(g), None])
        },
    );
    Ok(y)
}

/// The number of segments of sorted, non-negative rank-1 `segment_ids`
/// (`segment_ids[-1] + 1`); unsorted or negative ids are a ValueError.
fn sorted_count(op: &str, data: &Tensor, segment_ids: &Tensor) -> Result<usize> {
    if segment_ids.ndim() != 1 {
        return Err(Error::shape(
            op,
            format!(
                "segment_ids must be a vector, got shape {}",
                fmt_shape(segment_ids.shape())
            ),
        ));
    }
    let ids = read_ids(op, data, segment_ids, usize::MAX)?;
    if ids.first().is_some_and(|&v| v < 0) || ids.windows(2).any(|w| w[1] < w[0]) {
        return Err(Error::value(
            op,
            format!("segment ids must be sorted and non-negative, got {ids:?}"),
        ));
    }
    Ok(ids.last().map_or(0, |&v| v as usize + 1))
}

/// The sum of the slices of `data` in each segment, for sorted, non-negative `segment_ids`
/// of rank 1 (`tf.math.segment_sum`): there are `segment_ids[-1] + 1` segments, and
/// segments no id names are 0. Unsorted or negative ids are a ValueError.
pub fn segment_sum(data: &Tensor, segment_ids: &Tensor) -> Result<Tensor> {
    let num = sorted_count("segment_sum", data, segment_ids)?;
    unsorted_segment_sum(data, segment_ids, num)
}

/// The product of the slices of `data` in each segment, for sorted, non-negative
/// `segment_ids` of rank 1 (`tf.math.segment_prod`): there are `segment_ids[-1] + 1`
/// segments, and segments no id names are 1. Gradient as [`unsorted_segment_prod`]'s.
pub fn segment_prod(data: &Tensor, segment_ids: &Tensor) -> Result<Tensor> {
    let num = sorted_count("segment_prod", data, segment_ids)?;
    unsorted_segment_prod(data, segment_ids, num)
}

/// The product of the slices of `data` in each segment (`tf.math.unsorted_segment_prod`); an
/// empty segment gives 1, negative ids drop their slice, integers wrap. Gradient
/// (TensorFlow's): `dy` gathered back times `y / x` in a segment without zeros; in a segment
/// with one zero, the product of the others at the zero and 0 elsewhere; 0 in a segment with
/// more zeros. (The division is by `x` with its zeros replaced by 1, as TensorFlow's sorted
/// op does, so no branch ever divides by 0.)
pub fn unsorted_segment_prod(
    data: &Tensor,
    segment_ids: &Tensor,
    num_segments: usize,
) -> Result<Tensor> {
    let op = "unsorted_segment_prod";
    let ids = read_ids(op, data, segment_ids, num_segments)?;
    let shape = segment_shape(data, segment_ids, num_segments);
    let y = Tensor::new(dispatch!(values num data.data(), op, |a| {
        fold_segments(op, a, &ids, &shape, Element::from_f64(1.0), Arith::mul)?
    }));
    if !y.is_differentiable() || !any_tape_active() {
        return Ok(y);
    }
    let (clipped, kept) = clipped_ids(&ids, segment_ids.shape(), data.ndim())?;
    record_batched(
        op,
        &[data, segment_ids],
        &y,
        &[data, &y, segment_ids, &clipped, &kept],
        mixes_input(0),
        true,
        move |s, dy, batch| {
            let (x, y, ids, clipped, kept) = (&s[0], &s[1], &s[2], &s[3], &s[4]);
            let is_zero = equal(x, &scalar_like(0.0, x))?;
            let zeros = unsorted_segment_sum(&cast(&is_zero, x.dtype())?, ids, num_segments)?;
            let many = greater(&zeros, &scalar_like(1.0, &zeros))?;
            let dy = where_(&many, &scalar_like(0.0, dy), dy)?;
            let safe = where_(&is_zero, &scalar_like(1.0, x), x)?;
            let non_zero_prod = unsorted_segment_prod(&safe, ids, num_segments)?;
            let at_zero = gather(&non_zero_prod, clipped, 0, 0)?;
            let elsewhere = divide(&gather(y, clipped, 0, 0)?, &safe)?;
            let partial = where_(&is_zero, &at_zero, &elsewhere)?;
            let g = multiply(&gather_back(&dy, batch, clipped, kept)?, &partial)?;
            Ok(crate::grads![Some(g), None])
        },
    );
    Ok(y)
}
