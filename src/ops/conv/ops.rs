//! The three recorded convolution ops, each the others' VJP:
//! - `conv`: `y = conv(x, f)`;
//! - `conv_input_grad`: `dx = conv_input_grad(dy, f)` (also `conv2d_transpose`);
//! - `conv_filter_grad`: `df = conv_filter_grad(x, dy)`.
//!
//! All three are bilinear, so each VJP is one of the three again: the set is closed under
//! differentiation and every order works.
//!
//! **Leading axes.** An image operand is `[..., n, h, w, c]`, a filter `[..., kh, kw, cg, o]`
//! (with a depth axis before `h` and `kh` in 3-D: the "core" ranks below grow by one).
//! A filter of its core rank (4) is shared: every leading axis of the image folds into the batch `n` (so a
//! vectorised Jacobian's seeds of `dy` become more images). A filter with leading axes (a
//! batched cotangent of a filter gradient) pairs them with the image's axes before `n`, NumPy
//! style; so do the two images of `conv_filter_grad`. Each pair is one kernel call.
use super::kernel::{self, ConvFloat};
use super::Geometry;
use crate::error::{fmt_shape, Error, Result};
use crate::ops::{batched_dims, broadcast_shapes, reshape, shape_of, sum_to_batched_shape, Shape};
use crate::tape::{
    input_needed, mixes_input, per_example_input, record_batched, record_per_example,
};
use crate::tensor::{Tensor, Values};

/// How the slices of two operands pair up: the output's leading axes, the images per slice,
/// and for each output slice the slice of each operand.
struct Pairs {
    lead: Vec<usize>,
    n: usize,
    pairs: Vec<(usize, usize)>,
}

/// The slice of `a` and of `b` for every index of `out` (their broadcast, row-major).
fn broadcast_pairs(a: &[usize], b: &[usize], out: &[usize]) -> Vec<(usize, usize)> {
    let count: usize = out.iter().product();
    let index_in = |shape: &[usize], flat: usize| -> usize {
        // Walk `out`'s axes from the last; `shape` is aligned to the right and broadcast
        // where its size is 1.
        let (mut rest, mut index, mut stride) = (flat, 0, 1);
        for (k, &size) in out.iter().enumerate().rev() {
            let i = rest % size;
            rest /= size;
            let from_right = out.len() - 1 - k;
            if from_right < shape.len() {
                let dim = shape[shape.len() - 1 - from_right];
                if dim != 1 {
                    index += i * stride;
                }
                stride *= dim;
            }
        }
        index
    };
    (0..count)
        .map(|l| (index_in(a, l), index_in(b, l)))
        .collect()
}

/// Pairs of an image `[..., n, h, w, c]` with a filter `[..., kh, kw, cg, o]` (see the module
/// docs); the output's leading axes end with `n`.
fn image_filter_pairs(op: &str, g: &Geometry, image: &[usize], filter: &[usize]) -> Result<Pairs> {
    let frank = g.rank + 2;
    let core = image.len() - (g.rank + 1);
    if filter.len() == frank {
        let lead = image[..core].to_vec();
        let n = lead.iter().product();
        return Ok(Pairs {
            lead,
            n,
            pairs: vec![(0, 0)],
        });
    }
    if image.len() < frank {
        return Err(Error::shape(
            op,
            format!(
                "an image of shape {} has no batch axis to pair with a filter of shape {}",
                fmt_shape(image),
                fmt_shape(filter)
            ),
        ));
    }
    let (image_lead, filter_lead) = (&image[..core - 1], &filter[..filter.len() - frank]);
    let mut lead = broadcast_shapes(op, image_lead, filter_lead)?;
    let pairs = broadcast_pairs(image_lead, filter_lead, &lead);
    let n = image[core - 1];
    lead.push(n);
    Ok(Pairs { lead, n, pairs })
}

/// Pairs of the two images of a filter gradient, `x` `[..., n, h, w, c]` and `dy`
/// `[..., n, oh, ow, o]`: the output's leading axes are their broadcast before `n`.
fn image_image_pairs(op: &str, g: &Geometry, x: &[usize], dy: &[usize]) -> Result<Pairs> {
    let batched = g.rank + 2;
    let (x_lead, dy_lead) = (&x[..x.len() - batched], &dy[..dy.len() - batched]);
    let (n, n_dy) = (x[x.len() - batched], dy[dy.len() - batched]);
    if n != n_dy {
        return Err(Error::shape(
            op,
            format!(
                "the input of shape {} and the output gradient of shape {} differ in batch size",
                fmt_shape(x),
                fmt_shape(dy)
            ),
        ));
    }
    let lead = broadcast_shapes(op, x_lead, dy_lead)?;
    let pairs = broadcast_pairs(x_lead, dy_lead, &lead);
    Ok(Pairs { lead, n, pairs })
}

/// Runs `kernel(n, a_slice, b_slice, out_slice)` for every pair into a fresh buffer (each
/// kernel writes every element of its `out_slice`); `lens` are
/// the lengths of a slice of `a`, of `b` and of the output.
fn run_pairs<T: ConvFloat>(
    p: &Pairs,
    a: &Values<T>,
    b: &Values<T>,
    lens: [usize; 3],
    out_shape: &[usize],
    kernel: impl Fn(usize, &[T], &[T], &mut [std::mem::MaybeUninit<T>]),
) -> Values<T> {
    let [a_len, b_len, out_len] = lens;
    let (a, b) = (a.as_slice(), b.as_slice());
    let total = p.pairs.len() * out_len;
    let mut out = Vec::with_capacity(total);
    if out_len > 0 {
        let spare = &mut out.spare_capacity_mut()[..total];
        for (dst, &(ia, ib)) in spare.chunks_exact_mut(out_len).zip(&p.pairs) {
            kernel(
                p.n,
                &a[ia * a_len..(ia + 1) * a_len],
                &b[ib * b_len..(ib + 1) * b_len],
                dst,
            );
        }
    }
    // SAFETY: every kernel writes each element of its slice (nothing to write when `total` is 0).
    unsafe { out.set_len(total) };
    Values::from_vec(out_shape, out)
}

/// Bit `k` of the row-mixing mask for an operand of shape `operand` of an output of shape
/// `out`: its rows stay apart only if its axis 0 is the output's axis 0, unbroadcast. That holds
/// for an image whose every leading axis folds into the batch (`folded`), and otherwise only
/// for leading axes beyond the `core` rank (a batched image's, a filter's: 4 in 2-D).
fn rows(k: usize, operand: &[usize], out: &[usize], folded: bool, core: usize) -> u8 {
    let aligned = operand.len() == out.len() && operand.first() == out.first();
    if aligned && (folded || operand.len() > core) {
        0
    } else {
        mixes_input(k)
    }
}

fn check_core(op: &str, what: &str, shape: &[usize], rank: usize, core: &[usize]) -> Result<()> {
    if shape.len() < rank || shape[shape.len() - core.len()..] != *core {
        return Err(Error::shape(
            op,
            format!(
                "{what} of shape {} does not fit the convolution (expected [..., {}])",
                fmt_shape(shape),
                core.iter()
                    .map(|d| d.to_string())
                    .collect::<Vec<_>>()
                    .join(", ")
            ),
        ));
    }
    Ok(())
}

/// The recorded names of a geometry's three ops.
fn names(g: &Geometry) -> [&'static str; 3] {
    if g.rank == 3 {
        ["conv3d", "conv3d_backprop_input", "conv3d_backprop_filter"]
    } else if g.groups > 1 {
        [
            "depthwise_conv2d",
            "depthwise_conv2d_backprop_input",
            "depthwise_conv2d_backprop_filter",
        ]
    } else {
        ["conv2d", "conv2d_backprop_input", "conv2d_backprop_filter"]
    }
}

/// `conv(x, f)`: `x` `[..., h, w, c]`, `f` `[..., kh, kw, cg, o]` (shapes per `g`).
pub(crate) fn conv(x: &Tensor, f: &Tensor, g: Geometry) -> Result<Tensor> {
    let op = names(&g)[0];
    let frank = g.rank + 2;
    check_core(op, "the input", x.shape(), g.rank + 1, &g.image_core())?;
    check_core(op, "the filter", f.shape(), frank, &g.filter_shape())?;
    let p = image_filter_pairs(op, &g, x.shape(), f.shape())?;
    let mut out_shape = p.lead.clone();
    out_shape.extend(g.out_core());
    let (x_len, f_len, y_len) = (p.n * g.image_len(), g.filter_len(), p.n * g.out_image_len());
    let y = Tensor::new(crate::dispatch2!(float x.data(), f.data(), op, |xv, fv| {
        run_pairs(&p, xv, fv, [x_len, f_len, y_len], &out_shape, |n, a, b, d| {
            kernel::forward(&g, n, a, b, d)
        })
    }));
    let (sx, sf) = (shape_of(x), shape_of(f));
    let folded = sf.len() == frank;
    let mixes = rows(0, &sx, y.shape(), folded, frank) | rows(1, &sf, y.shape(), false, frank);
    let per_example = folded && sx.len() >= frank;
    let vjp = move |s: &[Tensor], dy: &Tensor, batch: usize| {
        let dx = if input_needed(0) {
            let dx = conv_input_grad(dy, &s[1], g)?;
            Some(sum_to_batched_shape(&dx, batch, &sx)?)
        } else {
            None
        };
        let df = if per_example_input(1) {
            Some(per_example_filter_grad(&s[0], dy, g)?)
        } else if input_needed(1) {
            Some(filter_grad_to(&s[0], 0, dy, batch, g, &sf)?)
        } else {
            None
        };
        Ok(crate::grads![dx, df])
    };
    // A shared filter over a batch of images (rows apart) can give the filter per-example
    // gradients: each image's own filter gradient.
    if per_example {
        record_per_example(op, &[x, f], &y, &[x, f], mixes, vjp);
    } else {
        record_batched(op, &[x, f], &y, &[x, f], mixes, true, vjp);
    }
    Ok(y)
}

/// `conv_input_grad(dy, f)`: the gradient of `conv` with respect to its input, an image
/// `[..., h, w, c]` from `dy` `[..., oh, ow, o]` and `f` `[..., kh, kw, cg, o]`.
pub(crate) fn conv_input_grad(dy: &Tensor, f: &Tensor, g: Geometry) -> Result<Tensor> {
    let op = names(&g)[1];
    let frank = g.rank + 2;
    check_core(
        op,
        "the output gradient",
        dy.shape(),
        g.rank + 1,
        &g.out_core(),
    )?;
    check_core(op, "the filter", f.shape(), frank, &g.filter_shape())?;
    let p = image_filter_pairs(op, &g, dy.shape(), f.shape())?;
    let mut out_shape = p.lead.clone();
    out_shape.extend(g.image_core());
    let (dy_len, f_len, dx_len) = (p.n * g.out_image_len(), g.filter_len(), p.n * g.image_len());
    let dx = Tensor::new(crate::dispatch2!(float dy.data(), f.data(), op, |dv, fv| {
        run_pairs(&p, dv, fv, [dy_len, f_len, dx_len], &out_shape, |n, a, b, d| {
            kernel::backprop_input(&g, n, a, b, d)
        })
    }));
    let (sdy, sf) = (shape_of(dy), shape_of(f));
    let folded = sf.len() == frank;
    let mixes = rows(0, &sdy, dx.shape(), folded, frank) | rows(1, &sf, dx.shape(), false, frank);
    record_batched(
        op,
        &[dy, f],
        &dx,
        &[dy, f],
        mixes,
        true,
        move |s, gx, batch| {
            let gdy = if input_needed(0) {
                let gdy = conv(gx, &s[1], g)?;
                Some(sum_to_batched_shape(&gdy, batch, &sdy)?)
            } else {
                None
            };
            let gf = if input_needed(1) {
                Some(filter_grad_to(gx, batch, &s[0], 0, g, &sf)?)
            } else {
                None
            };
            Ok(crate::grads![gdy, gf])
        },
    );
    Ok(dx)
}

/// `conv_filter_grad(x, dy)`: the gradient of `conv` with respect to its filter,
/// `[..., kh, kw, cg, o]` from `x` `[..., n, h, w, c]` and `dy` `[..., n, oh, ow, o]`.
pub(crate) fn conv_filter_grad(x: &Tensor, dy: &Tensor, g: Geometry) -> Result<Tensor> {
    let op = names(&g)[2];
    let frank = g.rank + 2;
    check_core(op, "the input", x.shape(), frank, &g.image_core())?;
    check_core(op, "the output gradient", dy.shape(), frank, &g.out_core())?;
    let p = image_image_pairs(op, &g, x.shape(), dy.shape())?;
    let mut out_shape = p.lead.clone();
    out_shape.extend(g.filter_shape());
    let (x_len, dy_len, f_len) = (p.n * g.image_len(), p.n * g.out_image_len(), g.filter_len());
    let df = Tensor::new(crate::dispatch2!(float x.data(), dy.data(), op, |xv, dv| {
        run_pairs(&p, xv, dv, [x_len, dy_len, f_len], &out_shape, |n, a, b, d| {
            kernel::backprop_filter(&g, n, a, b, d)
        })
    }));
    let (sx, sdy) = (shape_of(x), shape_of(dy));
    let mixes = rows(0, &sx, df.shape(), false, frank) | rows(1, &sdy, df.shape(), false, frank);
    record_batched(
        op,
        &[x, dy],
        &df,
        &[x, dy],
        mixes,
        true,
        move |s, gf, batch| {
            let gx = if input_needed(0) {
                let gx = conv_input_grad(&s[1], gf, g)?;
                Some(sum_to_batched_shape(&gx, batch, &sx)?)
            } else {
                None
            };
            let gdy = if input_needed(1) {
                let gdy = conv(&s[0], gf, g)?;
                Some(sum_to_batched_shape(&gdy, batch, &sdy)?)
            } else {
                None
            };
            Ok(crate::grads![gx, gdy])
        },
    );
    Ok(df)
}

/// The filter gradient of each batch row of a per-example sweep, `[rows, kh, kw, cg, o]`: the
/// images `x` `[rows, ..., h, w, c]` and `dy` `[rows, ..., oh, ow, o]` (the output's shape) as
/// `rows` separate batches of images, one filter gradient each.
fn per_example_filter_grad(x: &Tensor, dy: &Tensor, g: Geometry) -> Result<Tensor> {
    let rows = x.shape()[0];
    let images = x.shape()[1..x.ndim() - (g.rank + 1)]
        .iter()
        .product::<usize>();
    let dims = |core: Vec<usize>| -> Vec<isize> {
        [rows, images]
            .into_iter()
            .chain(core)
            .map(|d| d as isize)
            .collect()
    };
    let x = reshape(x, &dims(g.image_core()))?;
    let dy = reshape(dy, &dims(g.out_core()))?;
    conv_filter_grad(&x, &dy, g)
}

/// The gradient of a filter of shape `f_shape` from the images `x` and `dy`, one of which
/// carries `batch` leading axes (`x_batch` or `dy_batch`, the other 0). A shared (rank-4) filter
/// folds every leading axis of the images into their batch, so the result is
/// `[batch..., kh, kw, cg, o]` without a sum over broadcast axes.
fn filter_grad_to(
    x: &Tensor,
    x_batch: usize,
    dy: &Tensor,
    dy_batch: usize,
    g: Geometry,
    f_shape: &Shape,
) -> Result<Tensor> {
    let batch = x_batch.max(dy_batch);
    if f_shape.len() != g.rank + 2 {
        let df = conv_filter_grad(x, dy, g)?;
        return sum_to_batched_shape(&df, batch, f_shape);
    }
    let images: usize = x.shape()[x_batch..x.ndim() - (g.rank + 1)].iter().product();
    let with_images =
        |core: Vec<usize>| -> Vec<usize> { [images].into_iter().chain(core).collect() };
    let x = reshape(x, &batched_dims(x, x_batch, &with_images(g.image_core())))?;
    let dy = reshape(dy, &batched_dims(dy, dy_batch, &with_images(g.out_core())))?;
    conv_filter_grad(&x, &dy, g)
}
