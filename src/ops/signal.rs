//! Fast Fourier transforms with TensorFlow's `tf.signal` names and conventions.
//!
//! `fft`, `fft2d`, `fft3d` transform the innermost 1, 2 or 3 axes of a complex tensor,
//! `ifft*` invert them (scaled by `1 / n`); `rfft*` take a real tensor to the `n / 2 + 1`
//! non-negative frequencies of its innermost axis (and full spectra along the outer
//! transformed axes), `irfft*` take such half spectra back to real signals. `fft_length`
//! crops or zero-pads each transformed axis first, as TensorFlow does (for `irfft*` the
//! innermost axis to `fft_length / 2 + 1`); `irfft*` ignores the imaginary parts of the zero
//! (and, for even lengths, the Nyquist) frequency, as every C2R transform does.
//!
//! The kernels are `rustfft` (any length, SIMD) and `realfft` (a real transform of length `n`
//! as a complex one of `n / 2`), in the tensor's own precision (complex64 in float32, as
//! TensorFlow). Each transform is linear, and its gradient is its adjoint, written with these
//! same ops so every order and the vectorised Jacobian work:
//! - a scaled DFT's adjoint is the DFT of the other direction with the same scale (so `fft`'s
//!   VJP is `n * ifft(dy)`, TensorFlow's `_FFTGrad`);
//! - the real-to-half-spectrum transform's adjoint is `n * irfft(dy * h)` with `h` halving the
//!   interior bins (`x_t = Re sum_k dy_k e^{2 pi i k t / n}`: TensorFlow's `_RFFTGrad`, which
//!   writes it as `(irfft(dy) * n + extra terms) / 2`), and the half-spectrum-to-real
//!   transform's adjoint is `rfft(dy) * w / n` with `w` doubling the interior bins
//!   (TensorFlow's `_IRFFTGrad`). The two masks are reciprocal, so each op's VJP is the other
//!   op and orders of any height close up.
//!
//! TensorFlow's own `rfft` gradient requires `fft_length` to equal the input's length; here
//! cropping and padding are `slice`/`pad` ops, so their gradients compose.
use std::cell::RefCell;
use std::sync::{Arc, Mutex};

use num_complex::Complex;
use realfft::{ComplexToReal, RealFftPlanner, RealToComplex};
use rustfft::{Fft, FftDirection, FftNum, FftPlanner};

use super::kernel::worth_splitting;
use super::parallel::for_each_task;
use super::{multiply, pad, roll, slice_axis, PadMode, Shape};
use crate::dtype::DType;
use crate::error::{fmt_shape, Error, Result};
use crate::memory;
use crate::tape::{record_batched, AxisMap};
use crate::tensor::{values_ref, Data, Tensor, Values};

/// Work (elements times log2 of the length) from which a transform splits across threads.
const PAR_FFT: usize = 1 << 16;

/// A float the kernels run in (float32 or float64), with this thread's planners (each caches
/// the plans it made, so a length is planned once per thread).
trait FftFloat: FftNum + num_traits::Float {
    fn complex_plan(n: usize, direction: FftDirection) -> Arc<dyn Fft<Self>>;
    fn forward_real_plan(n: usize) -> Arc<dyn RealToComplex<Self>>;
    fn inverse_real_plan(n: usize) -> Arc<dyn ComplexToReal<Self>>;
}

macro_rules! planned {
    ($t:ty, $complex:ident, $real:ident) => {
        thread_local! {
            static $complex: RefCell<FftPlanner<$t>> = RefCell::new(FftPlanner::new());
            static $real: RefCell<RealFftPlanner<$t>> = RefCell::new(RealFftPlanner::new());
        }
        impl FftFloat for $t {
            fn complex_plan(n: usize, direction: FftDirection) -> Arc<dyn Fft<$t>> {
                $complex.with(|p| p.borrow_mut().plan_fft(n, direction))
            }
            fn forward_real_plan(n: usize) -> Arc<dyn RealToComplex<$t>> {
                $real.with(|p| p.borrow_mut().plan_fft_forward(n))
            }
            fn inverse_real_plan(n: usize) -> Arc<dyn ComplexToReal<$t>> {
                $real.with(|p| p.borrow_mut().plan_fft_inverse(n))
            }
        }
    };
}
planned!(f32, COMPLEX_PLANNER_F32, REAL_PLANNER_F32);
planned!(f64, COMPLEX_PLANNER_F64, REAL_PLANNER_F64);

/// Runs `f(group, first_row)` over `rows` rows split into contiguous groups of whole rows, on
/// several threads when `work` is large enough; `out` (`out_row` elements per row) is handed
/// to the groups in matching pieces.
fn row_groups<U: Send>(
    rows: usize,
    work: usize,
    out: &mut [U],
    out_row: usize,
    f: &(dyn Fn(&mut [U], usize) + Sync),
) {
    let tasks = if worth_splitting(work, PAR_FFT) {
        rows.min(4 * super::parallel_threads()).max(1)
    } else {
        1
    };
    if tasks <= 1 || out_row == 0 {
        f(out, 0);
        return;
    }
    let per_task = rows.div_ceil(tasks);
    let pieces: Vec<Mutex<&mut [U]>> = out.chunks_mut(per_task * out_row).map(Mutex::new).collect();
    for_each_task(pieces.len(), &|i| {
        let mut piece = pieces[i].lock().unwrap_or_else(|e| e.into_inner());
        f(&mut piece, i * per_task);
    });
}

fn log2_work(elements: usize, n: usize) -> usize {
    elements.saturating_mul((usize::BITS - n.leading_zeros()) as usize)
}

/// Transforms every block of `data` (blocks of `dims` product times `inner` elements) along
/// each of the axes `dims`, then multiplies by `scale`.
fn dft_kernel<T: FftFloat>(
    data: &mut [Complex<T>],
    dims: &[usize],
    inner: usize,
    direction: FftDirection,
    scale: T,
) {
    let block: usize = dims.iter().product::<usize>() * inner;
    if block == 0 || data.is_empty() {
        return;
    }
    let rows = data.len() / block;
    let plans: Vec<Arc<dyn Fft<T>>> = dims
        .iter()
        .map(|&n| T::complex_plan(n, direction))
        .collect();
    let work = log2_work(data.len(), block);
    row_groups(rows, work, data, block, &|piece, _| {
        let scratch_len = plans
            .iter()
            .map(|p| p.get_inplace_scratch_len())
            .max()
            .unwrap_or(0);
        let mut scratch = vec![Complex::new(T::zero(), T::zero()); scratch_len];
        let mut line = Vec::new();
        for (j, (&n, plan)) in dims.iter().zip(&plans).enumerate() {
            if n <= 1 {
                continue;
            }
            let stride: usize = dims[j + 1..].iter().product::<usize>() * inner;
            if stride == 1 {
                plan.process_with_scratch(piece, &mut scratch);
                continue;
            }
            line.resize(n * stride, Complex::new(T::zero(), T::zero()));
            for chunk in piece.chunks_mut(n * stride) {
                // [n, stride] -> [stride, n], transform the rows, and back.
                for (i, row) in chunk.chunks(stride).enumerate() {
                    for (s, &v) in row.iter().enumerate() {
                        line[s * n + i] = v;
                    }
                }
                plan.process_with_scratch(&mut line, &mut scratch);
                for (i, row) in chunk.chunks_mut(stride).enumerate() {
                    for (s, v) in row.iter_mut().enumerate() {
                        *v = line[s * n + i];
                    }
                }
            }
        }
        if scale != T::one() {
            piece.iter_mut().for_each(|v| *v = *v * scale);
        }
    });
}

/// The node name of a DFT over `count` axes.
fn dft_name(count: usize, inverse: bool) -> &'static str {
    match (count, inverse) {
        (1, false) => "fft",
        (2, false) => "fft2d",
        (3, false) => "fft3d",
        (1, true) => "ifft",
        (2, true) => "ifft2d",
        _ => "ifft3d",
    }
}

/// `scale` times the DFT (`inverse`: of positive exponent) of complex `x` over the `count`
/// axes ending `skip` axes before its last. Gradient: the same with the other direction.
fn dft(x: &Tensor, count: usize, skip: usize, inverse: bool, scale: f64) -> Result<Tensor> {
    let op = dft_name(count, inverse);
    let rank = x.ndim();
    let shape = x.shape();
    let first = rank - skip - count;
    let dims: Shape = shape[first..rank - skip].iter().copied().collect();
    let inner: usize = shape[rank - skip..].iter().product();
    let direction = if inverse {
        FftDirection::Inverse
    } else {
        FftDirection::Forward
    };
    let y = Tensor::new(match x.data() {
        Data::C64(v) => {
            let mut data = v.as_slice().to_vec();
            dft_kernel(&mut data, &dims, inner, direction, scale as f32);
            Values::from_vec(shape, data).into()
        }
        Data::C128(v) => {
            let mut data = values_ref(v).as_slice().to_vec();
            dft_kernel(&mut data, &dims, inner, direction, scale);
            Values::from_vec(shape, data).into()
        }
        other => unreachable!("{op}: checked complex, got {}", other.dtype()),
    });
    let axes: Shape = (first..rank - skip).collect();
    record_batched(
        op,
        &[x],
        &y,
        &[],
        AxisMap::along(rank, &axes),
        true,
        move |_, dy, _batch| Ok(crate::grads![Some(dft(dy, count, skip, !inverse, scale)?)]),
    );
    Ok(y)
}

/// A `[n]` complex tensor of `dtype` holding `values` (imaginary parts 0).
fn complex_mask(dtype: DType, values: &[f64]) -> Result<Tensor> {
    match dtype {
        DType::Complex64 => Tensor::from_vec(
            values
                .iter()
                .map(|&v| Complex::new(v as f32, 0.0))
                .collect(),
            &[values.len()],
        ),
        _ => Tensor::from_vec(
            values.iter().map(|&v| Complex::new(v, 0.0)).collect(),
            &[values.len()],
        ),
    }
}

/// `w`: how many times each of the `n / 2 + 1` bins of a length-`n` real signal's spectrum
/// counts in the whole spectrum (1 for the zero and Nyquist bins, 2 for the others).
fn bin_weights(n: usize) -> Vec<f64> {
    let k = n / 2 + 1;
    (0..k)
        .map(|i| {
            if i == 0 || (n % 2 == 0 && i == k - 1) {
                1.0
            } else {
                2.0
            }
        })
        .collect()
}

/// The half spectra of the `rows` rows (of length `n`) of `x`; zeros when `n` is 0.
fn rfft_rows<T: FftFloat>(x: &[T], rows: usize, n: usize) -> Result<Vec<Complex<T>>> {
    let op = "rfft";
    let k = n / 2 + 1;
    let zero = Complex::new(T::zero(), T::zero());
    let mut out = memory::try_vec(op, rows * k)?;
    out.resize(rows * k, zero);
    if rows == 0 || n == 0 {
        return Ok(out);
    }
    let plan = T::forward_real_plan(n);
    row_groups(
        rows,
        log2_work(rows * n, n),
        &mut out,
        k,
        &|piece, first| {
            let mut input = plan.make_input_vec();
            let mut scratch = plan.make_scratch_vec();
            for (r, dst) in piece.chunks_mut(k).enumerate() {
                let row = first + r;
                input.copy_from_slice(&x[row * n..(row + 1) * n]);
                // Lengths match the plan: no error is possible.
                let _ = plan.process_with_scratch(&mut input, dst, &mut scratch);
            }
        },
    );
    Ok(out)
}

fn irfft_rows<T: FftFloat>(c: &[Complex<T>], n: usize) -> Result<Vec<T>> {
    let op = "irfft";
    let k = n / 2 + 1;
    let rows = c.len() / k;
    let mut out = memory::try_vec(op, rows * n)?;
    out.resize(rows * n, T::zero());
    if n == 0 || rows == 0 {
        return Ok(out);
    }
    let plan = T::inverse_real_plan(n);
    let scale = T::one() / T::from(n).unwrap_or_else(T::one);
    row_groups(
        rows,
        log2_work(rows * n, n),
        &mut out,
        n,
        &|piece, first| {
            let mut input = plan.make_input_vec();
            let mut scratch = plan.make_scratch_vec();
            for (r, dst) in piece.chunks_mut(n).enumerate() {
                let row = first + r;
                input.copy_from_slice(&c[row * k..(row + 1) * k]);
                // The parts a real signal's spectrum cannot have are ignored.
                input[0].im = T::zero();
                if n % 2 == 0 {
                    input[k - 1].im = T::zero();
                }
                let _ = plan.process_with_scratch(&mut input, dst, &mut scratch);
                dst.iter_mut().for_each(|v| *v = *v * scale);
            }
        },
    );
    Ok(out)
}

/// The `n / 2 + 1` non-negative frequencies of the DFT of each row of real `x` (its last axis,
/// of length `n`). Gradient: `n * irfft_core(dy * h)`, `h = 1 / w` (see the module docs).
fn rfft_core(x: &Tensor) -> Result<Tensor> {
    let op = "rfft";
    let rank = x.ndim();
    let n = x.shape()[rank - 1];
    let mut shape: Shape = x.shape().iter().copied().collect();
    shape[rank - 1] = n / 2 + 1;
    memory::checked_size(op, &shape)?;
    let rows: usize = shape[..rank - 1].iter().product();
    let y = Tensor::new(match x.data() {
        Data::F32(v) => Values::from_vec(&shape, rfft_rows(v.as_slice(), rows, n)?).into(),
        Data::F64(v) => Values::from_vec(&shape, rfft_rows(v.as_slice(), rows, n)?).into(),
        other => unreachable!("{op}: checked float, got {}", other.dtype()),
    });
    // An empty signal's cotangent is empty: one weight broadcasts over it (a list as long as
    // the axis would follow its length, not the data).
    let mask: Vec<f64> = match x.size() {
        0 => vec![0.0],
        _ => bin_weights(n)
            .iter()
            .map(|w| if n == 0 { 0.0 } else { n as f64 / w })
            .collect(),
    };
    record_batched(
        op,
        &[x],
        &y,
        &[],
        AxisMap::along(rank, &[rank - 1]),
        true,
        move |_, dy, _batch| {
            let m = complex_mask(dy.dtype(), &mask)?;
            Ok(crate::grads![Some(irfft_core(&multiply(dy, &m)?, n)?)])
        },
    );
    Ok(y)
}

/// The real length-`n` signals whose half spectra are the rows of complex `c` (last axis of
/// length `n / 2 + 1`), scaled by `1 / n`. Gradient: `rfft_core(dy) * w / n`.
fn irfft_core(c: &Tensor, n: usize) -> Result<Tensor> {
    let op = "irfft";
    let rank = c.ndim();
    let mut shape: Shape = c.shape().iter().copied().collect();
    shape[rank - 1] = n;
    memory::checked_size(op, &shape)?;
    let y = Tensor::new(match c.data() {
        Data::C64(v) => Values::from_vec(&shape, irfft_rows(v.as_slice(), n)?).into(),
        Data::C128(v) => Values::from_vec(&shape, irfft_rows(values_ref(v).as_slice(), n)?).into(),
        other => unreachable!("{op}: checked complex, got {}", other.dtype()),
    });
    let mask: Vec<f64> = match c.size() {
        0 => vec![0.0], // as in rfft_core: an empty cotangent
        _ => bin_weights(n)
            .iter()
            .map(|w| if n == 0 { 0.0 } else { w / n as f64 })
            .collect(),
    };
    record_batched(
        op,
        &[c],
        &y,
        &[],
        AxisMap::along(rank, &[rank - 1]),
        true,
        move |_, dy, _batch| {
            let m = complex_mask(
                dy.dtype().complex_dtype().unwrap_or(DType::Complex128),
                &mask,
            )?;
            Ok(crate::grads![Some(multiply(&rfft_core(dy)?, &m)?)])
        },
    );
    Ok(y)
}

/// `x` with each of its last `lengths.len()` axes cropped or zero-padded to `lengths`.
fn crop_or_pad(x: &Tensor, lengths: &[usize]) -> Result<Tensor> {
    let rank = x.ndim();
    let first = rank - lengths.len();
    let mut out = x.clone();
    let mut padding = vec![(0usize, 0usize); rank];
    for (i, &len) in lengths.iter().enumerate() {
        let axis = first + i;
        let dim = out.shape()[axis];
        if len < dim {
            out = slice_axis(&out, axis, 0, len)?;
        } else {
            padding[axis].1 = len - dim;
        }
    }
    if padding.iter().any(|&(_, after)| after > 0) {
        out = pad(&out, &padding, PadMode::Constant, 0.0)?;
    }
    Ok(out)
}

fn check_rank(op: &str, x: &Tensor, rank: usize) -> Result<()> {
    if x.ndim() < rank {
        return Err(Error::shape(
            op,
            format!(
                "the input must have rank at least {rank} (the innermost {rank} axes are \
                 transformed), got shape {} ({})",
                fmt_shape(x.shape()),
                x.dtype()
            ),
        ));
    }
    Ok(())
}

fn check_complex(op: &str, x: &Tensor) -> Result<()> {
    if !x.dtype().is_complex() {
        let hint = if x.dtype().is_float() {
            format!(
                " (rt.signal.r{op} takes real signals; or make it complex with rt.cast or \
                 rt.complex)"
            )
        } else {
            String::new()
        };
        return Err(Error::dtype(
            op,
            format!(
                "expected a complex64 or complex128 input, got {} of shape {}{hint}",
                x.dtype(),
                fmt_shape(x.shape())
            ),
        ));
    }
    Ok(())
}

fn check_fft_length(op: &str, x: &Tensor, rank: usize, fft_length: &[usize]) -> Result<()> {
    if fft_length.len() != rank {
        return Err(Error::shape(
            op,
            format!(
                "fft_length must have {rank} element(s), got {fft_length:?} for an input of \
                 shape {} ({})",
                fmt_shape(x.shape()),
                x.dtype()
            ),
        ));
    }
    Ok(())
}

fn complex_fft(op: &str, x: &Tensor, rank: usize, inverse: bool) -> Result<Tensor> {
    check_complex(op, x)?;
    check_rank(op, x, rank)?;
    let n: usize = x.shape()[x.ndim() - rank..].iter().product();
    let scale = if inverse && n > 0 {
        1.0 / n as f64
    } else {
        1.0
    };
    dft(x, rank, 0, inverse, scale)
}

/// `tf.signal.fft`: the DFT of the innermost axis of a complex tensor.
pub fn fft(x: &Tensor) -> Result<Tensor> {
    complex_fft("fft", x, 1, false)
}

/// `tf.signal.ifft`: the inverse DFT (scaled by `1 / n`) of the innermost axis.
pub fn ifft(x: &Tensor) -> Result<Tensor> {
    complex_fft("ifft", x, 1, true)
}

/// `tf.signal.fft2d`: the DFT over the innermost two axes.
pub fn fft2d(x: &Tensor) -> Result<Tensor> {
    complex_fft("fft2d", x, 2, false)
}

/// `tf.signal.ifft2d`: the inverse DFT over the innermost two axes.
pub fn ifft2d(x: &Tensor) -> Result<Tensor> {
    complex_fft("ifft2d", x, 2, true)
}

/// `tf.signal.fft3d`: the DFT over the innermost three axes.
pub fn fft3d(x: &Tensor) -> Result<Tensor> {
    complex_fft("fft3d", x, 3, false)
}

/// `tf.signal.ifft3d`: the inverse DFT over the innermost three axes.
pub fn ifft3d(x: &Tensor) -> Result<Tensor> {
    complex_fft("ifft3d", x, 3, true)
}

/// `tf.signal.rfft` / `rfft2d` / `rfft3d` (`rank` 1, 2, 3): the DFT of a real tensor over
/// its innermost `rank` axes, keeping the `n / 2 + 1` non-negative frequencies of the last.
/// `fft_length` (default: the axes' lengths) crops or zero-pads each axis first. float32
/// gives complex64, float64 complex128.
pub fn rfft_nd(x: &Tensor, rank: usize, fft_length: Option<&[usize]>) -> Result<Tensor> {
    let op = ["rfft", "rfft2d", "rfft3d"][rank.clamp(1, 3) - 1];
    if !x.dtype().is_float() {
        let hint = if x.dtype().is_complex() {
            format!(" (rt.signal.{} takes complex signals)", &op[1..])
        } else {
            String::new()
        };
        return Err(Error::dtype(
            op,
            format!(
                "expected a float32 or float64 input, got {} of shape {}{hint}",
                x.dtype(),
                fmt_shape(x.shape())
            ),
        ));
    }
    check_rank(op, x, rank)?;
    let lengths: Shape = match fft_length {
        Some(l) => {
            check_fft_length(op, x, rank, l)?;
            l.iter().copied().collect()
        }
        None => x.shape()[x.ndim() - rank..].iter().copied().collect(),
    };
    let x = crop_or_pad(x, &lengths)?;
    let half = rfft_core(&x)?;
    if rank == 1 {
        return Ok(half);
    }
    dft(&half, rank - 1, 1, false, 1.0)
}

/// `tf.signal.irfft` / `irfft2d` / `irfft3d`: the real signals (innermost `rank` axes of
/// lengths `fft_length`) whose DFTs have the half spectra `x`. `fft_length` defaults to the
/// input's outer transformed lengths and `2 * (m - 1)` for its last axis of `m` bins; the
/// input's axes are cropped or zero-padded to `fft_length` (the last to `fft_length / 2 + 1`).
pub fn irfft_nd(x: &Tensor, rank: usize, fft_length: Option<&[usize]>) -> Result<Tensor> {
    let op = ["irfft", "irfft2d", "irfft3d"][rank.clamp(1, 3) - 1];
    check_complex(op, x)?;
    check_rank(op, x, rank)?;
    let shape = x.shape();
    let lengths: Shape = match fft_length {
        Some(l) => {
            check_fft_length(op, x, rank, l)?;
            l.iter().copied().collect()
        }
        None => {
            let bins = shape[shape.len() - 1];
            if bins == 0 {
                return Err(Error::value(
                    op,
                    format!(
                        "cannot infer fft_length from an empty innermost axis (shape {}); \
                         pass fft_length",
                        fmt_shape(shape)
                    ),
                ));
            }
            let mut l: Shape = shape[shape.len() - rank..].iter().copied().collect();
            l[rank - 1] = 2 * (bins - 1);
            l
        }
    };
    let n = lengths[rank - 1];
    let mut spectrum_lengths = lengths.clone();
    spectrum_lengths[rank - 1] = n / 2 + 1;
    let mut c = crop_or_pad(x, &spectrum_lengths)?;
    if rank > 1 {
        let outer: usize = lengths[..rank - 1].iter().product();
        let scale = if outer > 0 { 1.0 / outer as f64 } else { 1.0 };
        c = dft(&c, rank - 1, 1, true, scale)?;
    }
    irfft_core(&c, n)
}

/// `tf.signal.rfft`: see [`rfft_nd`].
pub fn rfft(x: &Tensor, fft_length: Option<usize>) -> Result<Tensor> {
    rfft_nd(x, 1, fft_length.as_ref().map(std::slice::from_ref))
}

/// `tf.signal.irfft`: see [`irfft_nd`].
pub fn irfft(x: &Tensor, fft_length: Option<usize>) -> Result<Tensor> {
    irfft_nd(x, 1, fft_length.as_ref().map(std::slice::from_ref))
}

fn shift(op: &str, x: &Tensor, axes: Option<&[isize]>, inverse: bool) -> Result<Tensor> {
    let rank = x.ndim() as isize;
    let axes: Vec<isize> = match axes {
        Some(a) => a.to_vec(),
        None => (0..rank).collect(),
    };
    let mut shifts = Vec::with_capacity(axes.len());
    for &a in &axes {
        if a < -rank || a >= rank {
            return Err(Error::value(
                op,
                format!(
                    "axis {a} is out of range for a tensor of shape {} ({})",
                    fmt_shape(x.shape()),
                    x.dtype()
                ),
            ));
        }
        let half = (x.shape()[a.rem_euclid(rank.max(1)) as usize] / 2) as isize;
        shifts.push(if inverse { -half } else { half });
    }
    roll(x, &shifts, &axes)
}

/// `tf.signal.fftshift`: rolls each of `axes` (default: all) by half its length, moving the
/// zero frequency to the centre.
pub fn fftshift(x: &Tensor, axes: Option<&[isize]>) -> Result<Tensor> {
    shift("fftshift", x, axes, false)
}

/// `tf.signal.ifftshift`: the inverse of [`fftshift`] (they differ for odd lengths).
pub fn ifftshift(x: &Tensor, axes: Option<&[isize]>) -> Result<Tensor> {
    shift("ifftshift", x, axes, true)
}
