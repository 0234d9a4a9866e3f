//! Reductions over `axes` (`None`: all axes; negative axes count from the end), `keepdims`.
//!
//! Each reduction records its VJP on the un-kept result and finishes with a (recorded) reshape
//! when `keepdims` is set. Integer sums and products wrap on overflow, as TensorFlow's kernels do.
use ndarray::{ArrayD, Axis, IxDyn};

use super::{
    batched_dims, broadcast_to, cast, divide, equal, exp, multiply, normalize_axes, normalize_axis,
    pow, reshape, scalar_like, shape_of, sqrt, stop_gradient, subtract, where_,
};
use crate::dispatch;
use crate::error::{fmt_shape, Error, Result};
use crate::tape::{record_batched, AxisMap};
use crate::tensor::{unsupported, Data, Element, Tensor, Values};

use super::reduce_kernel::{reduce_axes, Lanes, Reducible, Sum};

/// The shape of a reduction's result with the reduced axes kept as 1, after the `batch` leading
/// axes of `like` (see `crate::tape::Vjp`; `batch` is 0 outside a vectorised Jacobian): how a
/// VJP lines a cotangent up with the reduction's input.
pub(crate) fn kept_shape(
    like: &Tensor,
    batch: usize,
    shape: &[usize],
    axes: &[usize],
) -> Vec<isize> {
    let kept: Vec<usize> = shape
        .iter()
        .enumerate()
        .map(|(i, &d)| if axes.contains(&i) { 1 } else { d })
        .collect();
    batched_dims(like, batch, &kept)
}

/// The shape of a reduction's result without the reduced axes.
fn reduced_shape(shape: &[usize], axes: &[usize]) -> Vec<isize> {
    shape
        .iter()
        .enumerate()
        .filter(|(i, _)| !axes.contains(i))
        .map(|(_, &d)| d as isize)
        .collect()
}

/// Reshapes a reduction's (cotangent) result to `keepdims` form and broadcasts it back over the
/// input, keeping `g`'s `batch` leading axes: `[batch.., input_shape..]`.
pub(crate) fn unreduce(
    g: &Tensor,
    batch: usize,
    input_shape: &[usize],
    axes: &[usize],
) -> Result<Tensor> {
    let target: Vec<usize> = g.shape()[..batch]
        .iter()
        .chain(input_shape)
        .copied()
        .collect();
    broadcast_to(
        &reshape(g, &kept_shape(g, batch, input_shape, axes))?,
        &target,
    )
}

fn finish_shape(
    reduced: Tensor,
    input_shape: &[usize],
    axes: &[usize],
    keepdims: bool,
) -> Result<Tensor> {
    if !keepdims {
        return Ok(reduced);
    }
    reshape(&reduced, &kept_shape(&reduced, 0, input_shape, axes))
}

/// The axis map of a reduction of a rank-`rank` tensor over `axes` (normalised; the kernels'
/// results drop them): elements along them meet.
fn reduction_mixes(rank: usize, axes: &[usize]) -> AxisMap {
    AxisMap::reduce(rank, axes, false)
}

fn as_isize(axes: &[usize]) -> Vec<isize> {
    axes.iter().map(|&a| a as isize).collect()
}

/// NaN is the one value not ordered with itself.
fn is_nan<T: PartialOrd>(v: T) -> bool {
    v.partial_cmp(&v).is_none()
}

/// The axes of a reduction, normalised and sorted; an axis named twice (`[0, 0]`, `[1, -1]`)
/// is a ValueError, as in TensorFlow.
pub(crate) fn reduction_axes(op: &str, axes: Option<&[isize]>, ndim: usize) -> Result<Vec<usize>> {
    let normalized = normalize_axes(op, axes, ndim)?;
    if let Some(given) = axes {
        if normalized.len() != given.len() {
            return Err(Error::value(
                op,
                format!(
                    "axes {given:?} name an axis twice (a tensor of rank {ndim} has axes {} to {})",
                    -(ndim as isize),
                    ndim as isize - 1
                ),
            ));
        }
    }
    Ok(normalized)
}

fn sum_kernel<T: Reducible>(op: &str, a: &Values<T>, axes: &[usize]) -> Result<Values<T>> {
    reduce_axes(op, a, axes, &Sum)
}

fn mean_kernel<T: Reducible>(op: &str, a: &Values<T>, axes: &[usize]) -> Result<Values<T>> {
    let count: usize = axes.iter().map(|&ax| a.shape()[ax]).product();
    let sums = sum_kernel(op, a, axes)?;
    super::kernel::map_array(op, &sums, super::kernel::PAR_CHEAP, |s| T::mean(s, count))
}

/// Max (or min) over `axes`; NaN wins, as in NumPy. An empty reduction gives -inf (+inf) for
/// floats and the lowest (highest) value for integers, as in TensorFlow.
fn extremum_kernel<T: Reducible + PartialOrd>(
    op: &str,
    a: &Values<T>,
    axes: &[usize],
    max: bool,
) -> Result<Values<T>> {
    let init = T::from_f64(if max {
        f64::NEG_INFINITY
    } else {
        f64::INFINITY
    });
    let step = move |acc: T, v: T| {
        let better = if max { v > acc } else { v < acc };
        if is_nan(acc) || !(better || is_nan(v)) {
            acc
        } else {
            v
        }
    };
    reduce_axes(op, a, axes, &Lanes { init, step })
}

fn prod_kernel<T: Reducible>(op: &str, a: &Values<T>, axes: &[usize]) -> Result<Values<T>> {
    let step = |acc: T, v: T| acc.times(v);
    reduce_axes(
        op,
        a,
        axes,
        &Lanes {
            init: T::from_f64(1.0),
            step,
        },
    )
}

/// Sum over `axes`.
pub fn reduce_sum(x: &Tensor, axes: Option<&[isize]>, keepdims: bool) -> Result<Tensor> {
    let op = "reduce_sum";
    let axes = reduction_axes(op, axes, x.ndim())?;
    let y =
        Tensor::new(dispatch!(values num_or_complex x.data(), op, |a| sum_kernel(op, a, &axes)?));
    let in_shape = shape_of(x);
    let kept_axes = axes.clone();
    record_batched(
        op,
        &[x],
        &y,
        &[],
        reduction_mixes(x.ndim(), &axes),
        true,
        move |_, dy, batch| {
            Ok(crate::grads![Some(unreduce(
                dy, batch, &in_shape, &kept_axes
            )?)])
        },
    );
    finish_shape(y, x.shape(), &axes, keepdims)
}

/// Mean over `axes`. Integer tensors give the integer mean (truncated toward zero), as in
/// TensorFlow; an empty float mean is NaN.
pub fn reduce_mean(x: &Tensor, axes: Option<&[isize]>, keepdims: bool) -> Result<Tensor> {
    let op = "reduce_mean";
    let axes = reduction_axes(op, axes, x.ndim())?;
    let y =
        Tensor::new(dispatch!(values num_or_complex x.data(), op, |a| mean_kernel(op, a, &axes)?));
    let in_shape = shape_of(x);
    let count: usize = axes.iter().map(|&ax| x.shape()[ax]).product();
    let kept_axes = axes.clone();
    record_batched(
        op,
        &[x],
        &y,
        &[],
        reduction_mixes(x.ndim(), &axes),
        true,
        move |_, dy, batch| {
            let g = divide(dy, &scalar_like(count as f64, dy))?;
            Ok(crate::grads![Some(unreduce(
                &g, batch, &in_shape, &kept_axes
            )?)])
        },
    );
    finish_shape(y, x.shape(), &axes, keepdims)
}

/// Maximum over `axes`. The gradient is split equally between tied maxima, as in TensorFlow.
pub fn reduce_max(x: &Tensor, axes: Option<&[isize]>, keepdims: bool) -> Result<Tensor> {
    extremum("reduce_max", x, axes, keepdims, true)
}

/// Minimum over `axes`. The gradient is split equally between tied minima, as in TensorFlow.
pub fn reduce_min(x: &Tensor, axes: Option<&[isize]>, keepdims: bool) -> Result<Tensor> {
    extremum("reduce_min", x, axes, keepdims, false)
}

fn extremum(
    op: &'static str,
    x: &Tensor,
    axes: Option<&[isize]>,
    keepdims: bool,
    max: bool,
) -> Result<Tensor> {
    let axes = reduction_axes(op, axes, x.ndim())?;
    let y =
        Tensor::new(dispatch!(values num x.data(), op, |a| extremum_kernel(op, a, &axes, max)?));
    let kept_axes = axes.clone();
    let rows = reduction_mixes(x.ndim(), &axes);
    record_batched(op, &[x], &y, &[x, &y], rows, true, move |s, dy, batch| {
        let (x, y) = (&s[0], &s[1]);
        // indicators / count * dy: TensorFlow's _MaxOrMinGrad. The saved tensors have no batch
        // axes; `dy` reshaped to `[batch.., kept..]` broadcasts against them from the right.
        let indicators = cast(
            &equal(x, &reshape(y, &kept_shape(y, 0, x.shape(), &kept_axes))?)?,
            x.dtype(),
        )?;
        let count = reduce_sum(&indicators, Some(&as_isize(&kept_axes)), true)?;
        let dy = reshape(dy, &kept_shape(dy, batch, x.shape(), &kept_axes))?;
        Ok(crate::grads![Some(multiply(
            &divide(&indicators, &count)?,
            &dy
        )?)])
    });
    finish_shape(y, x.shape(), &axes, keepdims)
}

/// Product over `axes`. The gradient is the product of the other elements (its conjugate for
/// complex tensors), exact when the input holds zeros (one or several), to any order.
pub fn reduce_prod(x: &Tensor, axes: Option<&[isize]>, keepdims: bool) -> Result<Tensor> {
    let op = "reduce_prod";
    let axes = reduction_axes(op, axes, x.ndim())?;
    let y =
        Tensor::new(dispatch!(values num_or_complex x.data(), op, |a| prod_kernel(op, a, &axes)?));
    let kept_axes = axes.clone();
    let rows = reduction_mixes(x.ndim(), &axes);
    record_batched(op, &[x], &y, &[x, &y], rows, true, move |s, dy, batch| {
        let (x, y) = (&s[0], &s[1]);
        // `others` is built from the saved (unbatched) tensors only, zeros or not; the batched
        // cotangent broadcasts over it.
        let others = product_of_others(x, y, &kept_axes)?;
        Ok(crate::grads![Some(super::complex::mul_conj(
            &unreduce(dy, batch, x.shape(), &kept_axes)?,
            &others,
        )?)])
    });
    finish_shape(y, x.shape(), &axes, keepdims)
}

/// For every element of `x`, the product of the other elements of its reduction group, written
/// in differentiable ops that are exact near the current values (we run eagerly, so the branch
/// on where the zeros are is taken once per call).
///
/// Without zeros it is `y / x`. With zeros, let `z` mark them; `w = where(z, 1, x)` (no zeros),
/// `c = where(z, x, 1)` (only the zeros vary). Then `others = prod(w) / w * t`, where `t` is the
/// product of `c` without the element itself: `prod(c)` off the zeros, and for the r-th zero of
/// each group `prod(where(r-th zero, 1, c))`. Those products hold fewer zeros, so each further
/// order of differentiation takes this branch again on a smaller problem, and stays exact.
fn product_of_others(x: &Tensor, y: &Tensor, axes: &[usize]) -> Result<Tensor> {
    let zeros: ArrayD<bool> = match x.data() {
        Data::F32(a) => a.view().mapv(|v| v == 0.0),
        Data::F64(a) => a.view().mapv(|v| v == 0.0),
        Data::C64(a) => a.view().mapv(|v| v == num_complex::Complex::new(0.0, 0.0)),
        Data::C128(a) => a.view().mapv(|v| v == num_complex::Complex::new(0.0, 0.0)),
        other => {
            return Err(unsupported(
                "reduce_prod",
                other.dtype(),
                "a floating or complex",
            ))
        }
    };
    let (ranks, most) = zero_ranks(&zeros, axes);
    if most == 0 {
        return divide(&unreduce(y, 0, x.shape(), axes)?, x);
    }
    let axes_i = as_isize(axes);
    let z = Tensor::from_array(zeros);
    let one = Tensor::ones(x.shape(), x.dtype());
    let w = where_(&z, &one, x)?;
    let c = where_(&z, x, &one)?;
    let q = reduce_prod(&w, Some(&axes_i), true)?;
    let mut t = broadcast_to(&reduce_prod(&c, Some(&axes_i), true)?, x.shape())?;
    for r in 0..most {
        let chosen = Tensor::from_array(ranks.mapv(|k| k == r));
        let without = reduce_prod(&where_(&chosen, &one, &c)?, Some(&axes_i), true)?;
        t = where_(&chosen, &broadcast_to(&without, x.shape())?, &t)?;
    }
    multiply(&divide(&q, &w)?, &t)
}

/// The rank of each marked element among the marked elements of its reduction group (row-major
/// order; `usize::MAX` for unmarked ones), and the largest number of marks in a group.
fn zero_ranks(marks: &ArrayD<bool>, axes: &[usize]) -> (ArrayD<usize>, usize) {
    let shape = marks.shape();
    let groups: usize = (0..shape.len())
        .filter(|i| !axes.contains(i))
        .map(|i| shape[i])
        .product();
    let mut counts = vec![0usize; groups];
    let mut ranks = ArrayD::from_elem(IxDyn(shape), usize::MAX);
    for ((index, &marked), rank) in marks.indexed_iter().zip(ranks.iter_mut()) {
        if !marked {
            continue;
        }
        let group = (0..shape.len())
            .filter(|i| !axes.contains(i))
            .fold(0, |g, i| g * shape[i] + index[i]);
        *rank = counts[group];
        counts[group] += 1;
    }
    (ranks, counts.into_iter().max().unwrap_or(0))
}

/// `log(sum(exp(x)))` over `axes`, computed stably in one pass per lane: the lane's (finite)
/// maximum is subtracted first, as in TensorFlow. Gradient: `dy · softmax(x)` over the reduced
/// axes, written in rustape's ops (so every order works).
pub fn reduce_logsumexp(x: &Tensor, axes: Option<&[isize]>, keepdims: bool) -> Result<Tensor> {
    let op = "reduce_logsumexp";
    if !x.dtype().is_float() {
        return Err(unsupported(op, x.dtype(), "a floating"));
    }
    let axes = reduction_axes(op, axes, x.ndim())?;
    let y = Tensor::new(
        dispatch!(float x.data(), op, |a| super::nn::logsumexp_kernel(
        op, a, &axes
    )?),
    );
    let in_shape = shape_of(x);
    let kept_axes = axes.clone();
    record_batched(
        op,
        &[x],
        &y,
        &[x],
        reduction_mixes(x.ndim(), &axes),
        true,
        move |s, dy, batch| {
            let weights = softmax_over(&s[0], &kept_axes)?;
            let dy = reshape(dy, &kept_shape(dy, batch, &in_shape, &kept_axes))?;
            Ok(crate::grads![Some(multiply(&dy, &weights)?)])
        },
    );
    finish_shape(y, x.shape(), &axes, keepdims)
}

/// `exp(x) / sum(exp(x))` over `axes` (normalised, sorted), kept in `x`'s shape: the fused
/// [`softmax`](super::softmax) along one axis; over several, with the (finite) maximum
/// subtracted first as a constant. Not `exp(x - logsumexp(x))`, which loses the low bits of
/// the difference when the logsumexp is large.
fn softmax_over(x: &Tensor, axes: &[usize]) -> Result<Tensor> {
    if let [axis] = axes {
        return super::softmax(x, *axis as isize);
    }
    let op = "reduce_logsumexp";
    let shift = Tensor::new(
        dispatch!(values float x.data(), op, |a| extremum_kernel(op, a, axes, true)?
        .mapv(|v| if v.is_finite() { v } else { 0.0 })),
    );
    let shift = stop_gradient(&reshape(&shift, &kept_shape(x, 0, x.shape(), axes))?);
    let e = exp(&subtract(x, &shift)?)?;
    divide(&e, &reduce_sum(&e, Some(&as_isize(axes)), true)?)
}

/// Which norm [`norm`] computes (TensorFlow's `ord`).
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum NormOrd {
    /// `'euclidean'`, `'fro'`, or `2` for vectors: the square root of the sum of squares.
    Euclidean,
    /// `1`: the sum of absolute values (of a matrix: the largest absolute column sum).
    One,
    /// `np.inf`: the largest absolute value (of a matrix: the largest absolute row sum).
    Inf,
    /// Any `p > 0`: `sum(|x|^p)^(1/p)` (vectors only). `P(1.0)`, `P(2.0)` and `P(inf)` are
    /// the cases above.
    P(f64),
}

/// `tf.norm`: with `axes` `None` the whole tensor is one vector; one axis gives vector norms
/// along it; two axes give matrix norms over them (Euclidean is then the Frobenius norm; the
/// spectral norm, TensorFlow's `ord=2` for matrices, is not supported).
pub fn norm(x: &Tensor, ord: NormOrd, axes: Option<&[isize]>, keepdims: bool) -> Result<Tensor> {
    let op = "norm";
    let ord = match ord {
        NormOrd::P(1.0) => NormOrd::One,
        NormOrd::P(2.0) => NormOrd::Euclidean,
        NormOrd::P(f64::INFINITY) => NormOrd::Inf,
        NormOrd::P(p) if p.is_nan() || p <= 0.0 => {
            return Err(Error::value(
                op,
                format!("ord must be a positive number, 'euclidean', 1 or inf, got {p}"),
            ))
        }
        other => other,
    };
    let matrix = match axes {
        None => None,
        Some([a]) => {
            normalize_axis(op, *a, x.ndim())?;
            None
        }
        Some([a, b]) => {
            let (a, b) = (
                normalize_axis(op, *a, x.ndim())?,
                normalize_axis(op, *b, x.ndim())?,
            );
            if a == b {
                return Err(Error::value(
                    op,
                    format!("the two axes of a matrix norm must differ, got {a} twice"),
                ));
            }
            Some((a, b))
        }
        Some(other) => {
            return Err(Error::value(
                op,
                format!(
                    "axes must be None, one axis or two axes, got {} axes ({other:?})",
                    other.len()
                ),
            ))
        }
    };
    let float = x.dtype().is_float();
    if !float && (ord == NormOrd::Euclidean || matches!(ord, NormOrd::P(_))) {
        return Err(unsupported(op, x.dtype(), "a floating"));
    }
    if !float && !x.dtype().is_int() {
        return Err(unsupported(op, x.dtype(), "a numeric"));
    }
    let all = normalize_axes(op, axes, x.ndim())?;
    let squeeze = |r: Tensor| {
        if keepdims {
            Ok(r)
        } else {
            reshape(&r, &reduced_shape(x.shape(), &all))
        }
    };
    match (ord, matrix) {
        (NormOrd::Euclidean, _) => sqrt(&reduce_sum(&multiply(x, x)?, axes, keepdims)?),
        (NormOrd::One, None) => reduce_sum(&super::abs(x)?, axes, keepdims),
        (NormOrd::Inf, None) => reduce_max(&super::abs(x)?, axes, keepdims),
        (NormOrd::P(p), None) => {
            let powered = pow(&super::abs(x)?, &scalar_like(p, x))?;
            pow(&reduce_sum(&powered, axes, keepdims)?, &scalar_like(1.0 / p, x))
        }
        // Matrix 1-norm: sum over the first axis (rows), then the largest column sum.
        (NormOrd::One, Some((rows, cols))) => {
            let sums = reduce_sum(&super::abs(x)?, Some(&[rows as isize]), true)?;
            squeeze(reduce_max(&sums, Some(&[cols as isize]), true)?)
        }
        (NormOrd::Inf, Some((rows, cols))) => {
            let sums = reduce_sum(&super::abs(x)?, Some(&[cols as isize]), true)?;
            squeeze(reduce_max(&sums, Some(&[rows as isize]), true)?)
        }
        (NormOrd::P(p), Some(_)) => Err(Error::value(
            op,
            format!("matrix norms support ord Euclidean ('fro'), 1 and inf, got {p} (the spectral norm is not supported)"),
        )),
    }
}

/// The index of the largest value along `axis` (int64, not differentiable). Ties give the first
/// index; NaN is never the largest (a lane of NaN gives 0), as in TensorFlow.
pub fn argmax(x: &Tensor, axis: isize) -> Result<Tensor> {
    arg_extremum("argmax", x, axis, true)
}

/// The index of the smallest value along `axis` (int64, not differentiable). Ties give the
/// first index; NaN is never the smallest (a lane of NaN gives 0), as in TensorFlow.
pub fn argmin(x: &Tensor, axis: isize) -> Result<Tensor> {
    arg_extremum("argmin", x, axis, false)
}

/// The extreme finite values of an element type: where TensorFlow's arg-reductions start.
trait Bounded: Element + PartialOrd {
    const LOWEST: Self;
    const HIGHEST: Self;
}

macro_rules! bounded {
    ($($t:ty: $lo:expr, $hi:expr;)*) => {
        $(impl Bounded for $t {
            const LOWEST: $t = $lo;
            const HIGHEST: $t = $hi;
        })*
    };
}
bounded! {
    f32: f32::MIN, f32::MAX;
    f64: f64::MIN, f64::MAX;
    i32: i32::MIN, i32::MAX;
    i64: i64::MIN, i64::MAX;
    bool: false, true;
}

fn arg_extremum(op: &str, x: &Tensor, axis: isize, max: bool) -> Result<Tensor> {
    let ax = normalize_axis(op, axis, x.ndim())?;
    if x.shape()[ax] == 0 {
        return Err(Error::value(
            op,
            format!(
                "axis {ax} of shape {} is empty: there is no index to return",
                fmt_shape(x.shape())
            ),
        ));
    }
    /// TensorFlow's (Eigen's) rule: start from index 0 with the lowest finite value (highest
    /// for argmin) and move on a strictly better value. NaN compares false: never chosen.
    fn kernel<T: Bounded>(a: &ndarray::ArrayViewD<'_, T>, ax: usize, max: bool) -> ArrayD<i64> {
        a.map_axis(Axis(ax), |lane| {
            let (mut best, mut value) = (0usize, if max { T::LOWEST } else { T::HIGHEST });
            for (i, &v) in lane.iter().enumerate() {
                if (max && v > value) || (!max && v < value) {
                    best = i;
                    value = v;
                }
            }
            best as i64
        })
    }
    Ok(Tensor::new(
        dispatch!(real x.data(), op, |a| kernel(a, ax, max)),
    ))
}

/// Logical AND (`all`) or OR (`any`) of a bool tensor over `axes`.
fn logical_reduce(
    op: &str,
    x: &Tensor,
    axes: Option<&[isize]>,
    keepdims: bool,
    all: bool,
) -> Result<Tensor> {
    let Some(a) = x.array::<bool>() else {
        return Err(unsupported(op, x.dtype(), "a bool"));
    };
    let axes = normalize_axes(op, axes, x.ndim())?;
    if a.is_empty() {
        // Every lane is empty: the identity fills the result (no lane-by-lane walk over a
        // result of 2^31 elements, and a MemoryError when it cannot be allocated).
        let shape: Vec<usize> = reduced_shape(x.shape(), &axes)
            .into_iter()
            .map(|d| d as usize)
            .collect();
        let y = Tensor::try_full(
            op,
            &shape,
            crate::dtype::DType::Bool,
            if all { 1.0 } else { 0.0 },
        )?;
        return if keepdims {
            reshape(&y, &kept_shape(&y, 0, x.shape(), &axes))
        } else {
            Ok(y)
        };
    }
    let mut out = a.to_owned();
    for &ax in axes.iter().rev() {
        out = out.fold_axis(
            Axis(ax),
            all,
            |&acc, &v| if all { acc && v } else { acc || v },
        );
    }
    let y = Tensor::from_array(out);
    if keepdims {
        return reshape(&y, &kept_shape(&y, 0, x.shape(), &axes));
    }
    Ok(y)
}

/// Whether every element over `axes` is true (`tf.math.reduce_all`, bool input; empty: true).
pub fn reduce_all(x: &Tensor, axes: Option<&[isize]>, keepdims: bool) -> Result<Tensor> {
    logical_reduce("reduce_all", x, axes, keepdims, true)
}

/// Whether any element over `axes` is true (`tf.math.reduce_any`, bool input; empty: false).
pub fn reduce_any(x: &Tensor, axes: Option<&[isize]>, keepdims: bool) -> Result<Tensor> {
    logical_reduce("reduce_any", x, axes, keepdims, false)
}

/// `sqrt(sum(x²))` over `axes` (`tf.math.reduce_euclidean_norm`). Integer tensors give the
/// integer part of the norm, as in TensorFlow. The gradient is `x · dy / norm`, NaN where the
/// norm is 0 (TensorFlow's).
pub fn reduce_euclidean_norm(x: &Tensor, axes: Option<&[isize]>, keepdims: bool) -> Result<Tensor> {
    let op = "reduce_euclidean_norm";
    normalize_axes(op, axes, x.ndim())?;
    if x.dtype().is_int() {
        let wide = cast(x, crate::dtype::DType::F64)?;
        let norm = reduce_euclidean_norm(&wide, axes, keepdims)?;
        return cast(&super::floor(&norm)?, x.dtype());
    }
    if !x.dtype().is_float() {
        return Err(unsupported(op, x.dtype(), "a numeric"));
    }
    sqrt(&reduce_sum(&multiply(x, x)?, axes, keepdims)?)
}
