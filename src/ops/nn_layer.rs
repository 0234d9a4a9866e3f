//! The small ops under Keras layers: `dropout`, `bias_add`, `embedding_lookup`. Dropout and the
//! lookup are validation plus ops that already have VJPs (a multiply by a constant mask, a
//! gather); `bias_add` (channels last) is an op of its own whose bias gradient is TensorFlow's
//! `BiasAddGrad` (a sum over rows, its own VJP a broadcast), so every order works and batches.
use super::kernel::{worth_splitting, PAR_CHEAP};
use super::parallel::for_each_task;
use super::{
    add, broadcast_shapes, broadcast_to, clip_by_norm, gather, multiply, reshape, uniform,
};
use crate::dtype::{DType, Float};
use crate::error::{fmt_shape, Error, Result};
use crate::tape::{
    input_needed, mixes_input, per_example_input, record_batched, record_per_example,
};
use crate::tensor::{unsupported, Data, Tensor, Values};
use std::sync::Mutex;

/// `tf.nn.dropout`: each element of `x` is kept with probability `1 - rate` and scaled by
/// `1 / (1 - rate)`, else zeroed. `noise_shape` (broadcast against `x`'s shape) shares one
/// decision along its axes of size 1; `seed` is the op seed (see `random`): with a global seed
/// set, the same calls give the same masks. The kept elements are exactly `x * scale`, as in
/// TensorFlow.
pub fn dropout(
    x: &Tensor,
    rate: f64,
    noise_shape: Option<&[usize]>,
    seed: Option<u64>,
) -> Result<Tensor> {
    let op = "dropout";
    if !x.dtype().is_float() {
        return Err(unsupported(op, x.dtype(), "a floating"));
    }
    #[allow(clippy::manual_range_contains)] // NaN must fail too
    if !(rate >= 0.0 && rate < 1.0) {
        return Err(Error::value(
            op,
            format!("rate must be a number in the range [0, 1), got {rate}"),
        ));
    }
    let noise = noise_shape.unwrap_or(x.shape());
    if broadcast_shapes(op, x.shape(), noise)? != x.shape() {
        return Err(Error::shape(
            op,
            format!(
                "noise_shape {} does not broadcast to the input's shape {}",
                fmt_shape(noise),
                fmt_shape(x.shape())
            ),
        ));
    }
    let draws = uniform(noise, 0.0, 1.0, x.dtype(), seed)?;
    // The mask holds the scale where kept (TF: `(x * scale) * cast(draw >= rate)`, the same
    // numbers since the cast is 0 or 1).
    let scale = 1.0 / (1.0 - rate);
    fn mask<T: crate::dtype::Float>(draws: &Values<T>, rate: f64, scale: f64) -> Values<T> {
        let (rate, scale) = (
            T::from(rate).unwrap_or_else(T::zero),
            T::from(scale).unwrap_or_else(T::one),
        );
        draws.mapv(|u| if u >= rate { scale } else { T::zero() })
    }
    let mask = Tensor::new(match draws.data() {
        Data::F32(d) => Data::F32(mask(d, rate, scale)),
        Data::F64(d) => Data::F64(mask(d, rate, scale)),
        other => return Err(unsupported(op, other.dtype(), "a floating")),
    });
    multiply(x, &mask)
}

/// The data layouts `bias_add` accepts: channels last (`NHWC`, any rank) or second (`NCHW`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum DataFormat {
    /// Channels on the last axis.
    ChannelsLast,
    /// Channels on axis 1.
    ChannelsFirst,
}

impl DataFormat {
    /// TensorFlow's `data_format` strings: `NHWC`, `NWC`, `NDHWC`, `N...C` (channels last) and
    /// `NCHW`, `NCW`, `NCDHW` (channels first); `None` is channels last.
    pub fn parse(op: &str, text: Option<&str>) -> Result<DataFormat> {
        match text {
            None => Ok(DataFormat::ChannelsLast),
            Some(t) if t.len() >= 2 && t.starts_with('N') && t.ends_with('C') => {
                Ok(DataFormat::ChannelsLast)
            }
            Some(t) if t.len() >= 3 && t.starts_with("NC") => Ok(DataFormat::ChannelsFirst),
            Some(t) => Err(Error::value(
                op,
                format!("data_format must be like 'NHWC' or 'NCHW', got {t:?}"),
            )),
        }
    }
}

/// `tf.nn.bias_add`: `value + bias` with `bias` (rank 1) along the channel axis.
pub fn bias_add(value: &Tensor, bias: &Tensor, data_format: DataFormat) -> Result<Tensor> {
    let op = "bias_add";
    let (vs, bs) = (value.shape(), bias.shape());
    let axis = match data_format {
        DataFormat::ChannelsLast => vs.len().checked_sub(1),
        DataFormat::ChannelsFirst => (vs.len() >= 2).then_some(1),
    };
    let channels = match (vs.len() >= 2, axis) {
        (true, Some(a)) => vs[a],
        _ => {
            return Err(Error::shape(
                op,
                format!(
                    "value must have rank at least 2, got shape {}",
                    fmt_shape(vs)
                ),
            ))
        }
    };
    if bs.len() != 1 || bs[0] != channels {
        return Err(Error::shape(
            op,
            format!(
                "bias of shape {} must be a vector of the {channels} channels of value of shape {} \
                 ({data_format:?})",
                fmt_shape(bs),
                fmt_shape(vs)
            ),
        ));
    }
    if value.dtype() != bias.dtype() {
        return Err(crate::tensor::mismatch(op, value.dtype(), bias.dtype()));
    }
    match data_format {
        DataFormat::ChannelsLast => bias_add_last(value, bias),
        DataFormat::ChannelsFirst => {
            let mut dims = vec![channels as isize];
            dims.extend(std::iter::repeat_n(1, vs.len() - 2));
            add(value, &reshape(bias, &dims)?)
        }
    }
}

/// `value + bias` along the last axis, with [`bias_add_grad`] as the bias's gradient.
fn bias_add_last(value: &Tensor, bias: &Tensor) -> Result<Tensor> {
    let op = "bias_add";
    // Split across threads as an elementwise op (a conv layer's value is megabytes): chunk
    // `dst` from element `at` starts at channel `at % c`.
    fn kernel<T: Float>(op: &str, v: &Values<T>, b: &Values<T>) -> Result<Vec<T>> {
        let (v, b) = (v.as_slice(), b.as_slice());
        if b.is_empty() {
            return Ok(Vec::new());
        }
        let c = b.len();
        crate::ops::kernel::fill(op, v.len(), crate::ops::kernel::PAR_CHEAP, |at, dst| {
            let src = &v[at..at + dst.len()];
            let head = ((c - at % c) % c).min(dst.len());
            for ((d, &p), &q) in dst[..head].iter_mut().zip(src).zip(&b[at % c..]) {
                d.write(p + q);
            }
            let rows = dst[head..].chunks_mut(c).zip(src[head..].chunks(c));
            for (d, row) in rows {
                for ((d, &p), &q) in d.iter_mut().zip(row).zip(b) {
                    d.write(p + q);
                }
            }
        })
    }
    let shape = value.shape().to_vec();
    let y = Tensor::new(
        crate::dispatch2!(float value.data(), bias.data(), op, |v, b| {
            Values::from_vec(&shape, kernel(op, v, b)?)
        }),
    );
    // The bias is broadcast over the rows: in a per-example sweep (`dy` the output's shape,
    // rows apart) its gradient is one per row, `dy` summed over every axis but the rows and the
    // channels.
    record_per_example(
        op,
        &[value, bias],
        &y,
        &[],
        mixes_input(1),
        |_, dy, batch| {
            let db = if per_example_input(1) {
                Some(match dy.ndim() {
                    2 => dy.clone(),
                    _ => bias_add_grad(dy, 1)?,
                })
            } else if input_needed(1) {
                Some(bias_add_grad(dy, batch)?)
            } else {
                None
            };
            Ok(crate::grads![input_needed(0).then(|| dy.clone()), db])
        },
    );
    Ok(y)
}

/// Rows of `c` elements summed pairwise (blocks of 64 rows added in order, then halves): the
/// accuracy of pairwise summation without a temporary per row. The two halves of a large sum
/// run on two threads: the same additions in the same order, so the same result.
fn sum_rows<T: Float>(rows: &[T], c: usize, out: &mut [T]) {
    const BLOCK: usize = 64;
    let n = rows.len() / c;
    if n > BLOCK && worth_splitting(rows.len(), PAR_CHEAP) {
        let half = n / 2;
        let mut right = vec![T::zero(); c];
        let halves = [Mutex::new(&mut *out), Mutex::new(&mut right[..])];
        for_each_task(2, &|i| {
            let mut dst = halves[i].lock().unwrap_or_else(|e| e.into_inner());
            let part = if i == 0 {
                &rows[..half * c]
            } else {
                &rows[half * c..]
            };
            sum_rows(part, c, &mut dst);
        });
        let [left, right] = halves.map(|h| h.into_inner().unwrap_or_else(|e| e.into_inner()));
        for (o, &r) in left.iter_mut().zip(right.iter()) {
            *o = *o + r;
        }
        return;
    }
    if n <= BLOCK {
        out.fill(T::zero());
        for row in rows.chunks_exact(c) {
            for (o, &v) in out.iter_mut().zip(row) {
                *o = *o + v;
            }
        }
        return;
    }
    let half = n / 2;
    let mut right = vec![T::zero(); c];
    sum_rows(&rows[..half * c], c, out);
    sum_rows(&rows[half * c..], c, &mut right);
    for (o, &r) in out.iter_mut().zip(&right) {
        *o = *o + r;
    }
}

/// TensorFlow's `BiasAddGrad` for channels last: `dy` summed over every axis but its `keep`
/// leading ones and its last, `dy.shape[..keep] + [c]`. Its gradient broadcasts back.
pub fn bias_add_grad(dy: &Tensor, keep: usize) -> Result<Tensor> {
    let op = "bias_add_grad";
    let s = dy.shape();
    if s.len() < keep + 2 {
        return Err(Error::shape(
            op,
            format!(
                "the gradient of shape {} has no axes to sum besides {keep} leading ones and the \
                 channels",
                fmt_shape(s)
            ),
        ));
    }
    let c = s[s.len() - 1];
    let lead: usize = s[..keep].iter().product();
    let mut out_shape = s[..keep].to_vec();
    out_shape.push(c);
    fn kernel<T: Float>(dy: &Values<T>, lead: usize, c: usize, shape: &[usize]) -> Values<T> {
        let mut out = vec![T::zero(); lead * c];
        let per = dy.len().checked_div(lead).unwrap_or(0);
        if c > 0 && per > 0 {
            for (o, slice) in out.chunks_exact_mut(c).zip(dy.as_slice().chunks_exact(per)) {
                sum_rows(slice, c, o);
            }
        }
        Values::from_vec(shape, out)
    }
    let g = Tensor::new(crate::dispatch!(values float dy.data(), op, |v| {
        kernel(v, lead, c, &out_shape)
    }));
    let full: crate::ops::Shape = s.iter().copied().collect();
    let mixes = if keep == 0 { mixes_input(0) } else { 0 };
    record_batched(op, &[dy], &g, &[], mixes, true, move |_, gg, batch| {
        // [batch..., keep..., c] -> [batch..., keep..., 1, ..., 1, c] -> broadcast to dy's shape.
        let mut dims: Vec<isize> = gg.shape()[..batch + keep]
            .iter()
            .map(|&d| d as isize)
            .collect();
        dims.extend(std::iter::repeat_n(1, full.len() - keep - 1));
        dims.push(c as isize);
        let mut target: Vec<usize> = gg.shape()[..batch].to_vec();
        target.extend_from_slice(&full);
        Ok(crate::grads![Some(broadcast_to(
            &reshape(gg, &dims)?,
            &target
        )?)])
    });
    Ok(g)
}

/// `tf.nn.embedding_lookup` with one table: rows `ids` of `params` (`ids.shape +
/// params.shape[1:]`). With `max_norm`, each looked-up row whose L2 norm exceeds it is scaled
/// down to it (TF's `clip_by_norm` over the row).
pub fn embedding_lookup(params: &Tensor, ids: &Tensor, max_norm: Option<f64>) -> Result<Tensor> {
    let op = "embedding_lookup";
    if !matches!(ids.dtype(), DType::I32 | DType::I64) {
        return Err(unsupported(op, ids.dtype(), "an integer (ids)"));
    }
    if params.ndim() == 0 {
        return Err(Error::shape(
            op,
            "params must have rank at least 1, got a scalar",
        ));
    }
    let rows = gather(params, ids, 0, 0).map_err(|mut e| {
        e.op = op.to_string();
        e
    })?;
    match max_norm {
        None => Ok(rows),
        Some(limit) => {
            let axes: Vec<isize> = (ids.ndim()..rows.ndim()).map(|a| a as isize).collect();
            clip_by_norm(
                &rows,
                &Tensor::shared_scalar_of(limit, rows.dtype()),
                Some(&axes),
            )
        }
    }
}
