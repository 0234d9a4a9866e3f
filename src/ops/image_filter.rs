//! A separable filter over the height and width of `[..., h, w, c]` images, VALID (each output
//! pixel sums a `kh x kw` window inside the image): `y[i, j] = sum_{p, q} th[p] tw[q]
//! x[i + p, j + q]`, per channel. It is what `rt.image.ssim` filters with (TensorFlow's
//! `n x n` Gaussian is the outer product of two 1-D ones).
//!
//! Both passes are sums of shifted contiguous rows (`axpy`s over `w * c` and `w' * c`
//! elements), accumulated in the image's dtype, images split over the kernel threads. The
//! gradient is the transposed map (`adjoint = true`: each input row spread back over the taps
//! that read it, growing the image by `k - 1`), whose gradient is the filter again, so every
//! order and the vectorised Jacobian work (leading axes are folded into one batch).
use crate::dtype::Float;
use crate::error::{fmt_shape, Error, Result};
use crate::memory;
use crate::ops::parallel::for_each_task;
use crate::ops::Shape;
use crate::tape::{record_batched, AxisMap};
use crate::tensor::{Data, Tensor, Values};
use std::sync::{Arc, Mutex};

/// The taps of both axes, shared by a filter and its adjoint.
#[derive(Clone, Debug)]
struct Taps {
    h: Arc<[f64]>,
    w: Arc<[f64]>,
}

fn axpy<T: Float>(dst: &mut [T], src: &[T], weight: T) {
    for (d, &s) in dst.iter_mut().zip(src) {
        *d = *d + weight * s;
    }
}

/// One `[h, w, c]` image filtered (VALID) into `out` (`[h - kh + 1, w - kw + 1, c]`).
fn filter_image<T: Float>(x: &[T], out: &mut [T], dims: [usize; 3], th: &[T], tw: &[T]) {
    let [h, w, c] = dims;
    let (oh, ow) = (h + 1 - th.len(), w + 1 - tw.len());
    let row = w * c;
    let mut rows = vec![T::zero(); row];
    for i in 0..oh {
        rows.iter_mut().for_each(|v| *v = T::zero());
        for (p, &weight) in th.iter().enumerate() {
            axpy(&mut rows, &x[(i + p) * row..(i + p + 1) * row], weight);
        }
        let dst = &mut out[i * ow * c..(i + 1) * ow * c];
        dst.iter_mut().for_each(|v| *v = T::zero());
        for (q, &weight) in tw.iter().enumerate() {
            axpy(dst, &rows[q * c..q * c + ow * c], weight);
        }
    }
}

/// The transpose of [`filter_image`]: `[oh, ow, c]` spread back onto `[h, w, c]` (`dims`).
fn spread_image<T: Float>(dy: &[T], out: &mut [T], dims: [usize; 3], th: &[T], tw: &[T]) {
    let [h, w, c] = dims;
    let (oh, ow) = (h + 1 - th.len(), w + 1 - tw.len());
    let row = w * c;
    let mut rows = vec![T::zero(); row];
    out.iter_mut().for_each(|v| *v = T::zero());
    for i in 0..oh {
        rows.iter_mut().for_each(|v| *v = T::zero());
        let src = &dy[i * ow * c..(i + 1) * ow * c];
        for (q, &weight) in tw.iter().enumerate() {
            axpy(&mut rows[q * c..q * c + ow * c], src, weight);
        }
        for (p, &weight) in th.iter().enumerate() {
            axpy(&mut out[(i + p) * row..(i + p + 1) * row], &rows, weight);
        }
    }
}

fn run<T: Float>(
    op: &str,
    x: &Values<T>,
    out_shape: &[usize],
    dims: [usize; 3],
    taps: &Taps,
    adjoint: bool,
) -> Result<Values<T>> {
    let to_t = |v: &[f64]| -> Vec<T> {
        v.iter()
            .map(|&w| T::from_f64(w).unwrap_or_else(T::nan))
            .collect()
    };
    let (th, tw) = (to_t(&taps.h), to_t(&taps.w));
    let [h, w, c] = dims;
    let (oh, ow) = (h + 1 - th.len(), w + 1 - tw.len());
    let (src_len, dst_len) = if adjoint {
        (oh * ow * c, h * w * c)
    } else {
        (h * w * c, oh * ow * c)
    };
    let total = memory::checked_size(op, out_shape)?;
    let mut out = memory::try_filled(op, total, T::zero())?;
    let src = x.as_slice();
    let images = total.checked_div(dst_len).unwrap_or(0);
    let one = |n: usize, dst: &mut [T]| {
        let s = &src[n * src_len..(n + 1) * src_len];
        if adjoint {
            spread_image(s, dst, dims, &th, &tw);
        } else {
            filter_image(s, dst, dims, &th, &tw);
        }
    };
    let work = images * (h * w * c) * (th.len() + tw.len());
    if images > 1 && crate::ops::kernel::worth_splitting(work, crate::ops::kernel::PAR_CHEAP) {
        let blocks: Vec<Mutex<&mut [T]>> = out.chunks_mut(dst_len).map(Mutex::new).collect();
        for_each_task(images, &|n| {
            let mut dst = blocks[n].lock().unwrap_or_else(|e| e.into_inner());
            one(n, &mut dst);
        });
    } else {
        for (n, dst) in out.chunks_mut(dst_len.max(1)).enumerate().take(images) {
            one(n, dst);
        }
    }
    Ok(Values::from_vec(out_shape, out))
}

/// `images` (`lead + [h, w, c]`, float) filtered over height and width by the separable taps
/// `taps_h` and `taps_w`, VALID (`lead + [h - kh + 1, w - kw + 1, c]`); with `adjoint`, the
/// transposed map (`lead + [h + kh - 1, w + kw - 1, c]`). Differentiable with respect to the
/// images (each direction is the other's gradient).
pub fn separable_filter(
    images: &Tensor,
    taps_h: &[f64],
    taps_w: &[f64],
    adjoint: bool,
) -> Result<Tensor> {
    let taps = Taps {
        h: taps_h.into(),
        w: taps_w.into(),
    };
    filter(images, &taps, adjoint)
}

fn filter(x: &Tensor, taps: &Taps, adjoint: bool) -> Result<Tensor> {
    let op = if adjoint {
        "separable_filter_adjoint"
    } else {
        "separable_filter"
    };
    let s = x.shape();
    if !x.dtype().is_float() {
        return Err(crate::tensor::unsupported(op, x.dtype(), "a floating"));
    }
    let (kh, kw) = (taps.h.len(), taps.w.len());
    if s.len() < 3 || kh == 0 || kw == 0 {
        return Err(Error::shape(
            op,
            format!(
                "expected images of rank at least 3 and non-empty taps, got shape {} ({}) and \
                 {kh} x {kw} taps",
                fmt_shape(s),
                x.dtype()
            ),
        ));
    }
    let r = s.len();
    let (ih, iw, c) = (s[r - 3], s[r - 2], s[r - 1]);
    let (h, w) = if adjoint {
        (ih + kh - 1, iw + kw - 1)
    } else {
        if ih < kh || iw < kw {
            return Err(Error::shape(
                op,
                format!(
                    "images of shape {} ({}) are smaller than the {kh} x {kw} filter",
                    fmt_shape(s),
                    x.dtype()
                ),
            ));
        }
        (ih, iw)
    };
    let (oh, ow) = (h + 1 - kh, w + 1 - kw);
    let mut out_shape: Shape = s[..r - 3].iter().copied().collect();
    if adjoint {
        out_shape.extend([h, w, c]);
    } else {
        out_shape.extend([oh, ow, c]);
    }
    let dims = [h, w, c];
    let y = Tensor::new(match x.data() {
        Data::F32(v) => Data::from(run(op, v, &out_shape, dims, taps, adjoint)?),
        Data::F64(v) => Data::from(run(op, v, &out_shape, dims, taps, adjoint)?),
        other => return Err(crate::tensor::unsupported(op, other.dtype(), "a floating")),
    });
    let mixes = AxisMap::along(r, &[r - 3, r - 2]);
    let taps = taps.clone();
    let name: &'static str = op;
    record_batched(name, &[x], &y, &[], mixes, true, move |_, dy, _| {
        Ok(crate::grads![Some(filter(dy, &taps, !adjoint)?)])
    });
    Ok(y)
}
