//! Op functions: `rt.image` (`resize` and its adjoint).
use pyo3::prelude::*;

use super::bindings::bindings;
use super::error::{guard, value_error};
use super::ops::{ints, tensor, wrap, Obj, OptObj};
use super::tensor::PyTensor;
use crate::dtype::DType;
use crate::ops::{self, FillMode, Interpolation, ResizeMethod};
use crate::tensor::Tensor;

/// `size` as two positive integers.
fn size_pair(size: Obj, op: &str, what: &str, images: &Tensor) -> PyResult<[usize; 2]> {
    let values = ints(size, op).map_err(|_| {
        value_error(
            op,
            format!("{what} must be a 1-D list or tensor of 2 elements [new_height, new_width]"),
        )
    })?;
    match values.as_slice() {
        &[h, w] if h > 0 && w > 0 => Ok([h as usize, w as usize]),
        other => Err(value_error(
            op,
            format!(
                "{what} must be two positive integers [new_height, new_width], got {other:?} \
                 for images of shape {:?} ({})",
                images.shape(),
                images.dtype()
            ),
        )),
    }
}

fn image_rank(op: &str, images: &Tensor) -> PyResult<()> {
    if !(3..=4).contains(&images.ndim()) {
        return Err(value_error(
            op,
            format!(
                "'images' must have rank 3 [height, width, channels] or 4 [batch, height, width, \
                 channels], got shape {:?} ({})",
                images.shape(),
                images.dtype()
            ),
        ));
    }
    Ok(())
}

/// `size` scaled down to keep the images' aspect ratio, as TensorFlow computes it (float32,
/// rounded half to even).
fn keep_aspect(images: &Tensor, size: [usize; 2]) -> [usize; 2] {
    let s = images.shape();
    let (h, w) = (s[s.len() - 3] as f32, s[s.len() - 2] as f32);
    let factor = (size[0] as f32 / h).min(size[1] as f32 / w);
    let round = |v: f32| ((factor * v).round_ties_even() as usize).max(1);
    [round(h), round(w)]
}

/// `rt.image.resize(images, size, method='bilinear', preserve_aspect_ratio=False,
/// antialias=False)`: `tf.image.resize` of `[height, width, channels]` or `[batch, height,
/// width, channels]` images.
///
/// Methods `'bilinear'`, `'nearest'`, `'bicubic'` (Keys, `a = -0.5`) and `'area'`, with
/// TensorFlow 2's half-pixel sampling and its float32 sample weights, and TensorFlow's
/// scale-and-translate kernels `'lanczos3'`, `'lanczos5'`, `'gaussian'` and `'mitchellcubic'`. Integer images become
/// float32 (`'nearest'` keeps their dtype); float32 and float64 images keep theirs (TensorFlow
/// returns float32 for float64 images). `antialias=True` with `'bilinear'` or `'bicubic'`
/// widens the kernel when downsizing (TensorFlow's scale-and-translate triangle and Keys
/// kernels; the four scale-and-translate methods widen theirs). Differentiable (the gradient is the transposed resize).
///
/// >>> x = rt.reshape(rt.range(4.0), [2, 2, 1])
/// >>> rt.image.resize(x, [4, 4])[:, :, 0].numpy().tolist()[0]
/// [0.0, 0.25, 0.75, 1.0]
#[pyfunction]
#[pyo3(signature = (images, size, method="bilinear", preserve_aspect_ratio=false, antialias=false, name=None))]
pub fn resize(
    images: Obj,
    size: Obj,
    method: &str,
    preserve_aspect_ratio: bool,
    antialias: bool,
    name: OptObj,
) -> PyResult<PyTensor> {
    let _ = name;
    let op = "image.resize";
    guard(|| {
        let images = tensor(images)?;
        image_rank(op, &images)?;
        let method_name = method.to_ascii_lowercase();
        let method = ResizeMethod::parse(op, &method_name)?;
        let method = match (method, antialias) {
            (ResizeMethod::Bilinear, true) => ResizeMethod::BilinearAntialias,
            (ResizeMethod::Bicubic, true) => ResizeMethod::BicubicAntialias,
            (ResizeMethod::ScaleAndTranslate { kernel, .. }, antialias) => {
                ResizeMethod::ScaleAndTranslate { kernel, antialias }
            }
            (m, _) => m,
        };
        let mut size = size_pair(size, op, "size", &images)?;
        if images.shape()[images.ndim() - 3] == 0 || images.shape()[images.ndim() - 2] == 0 {
            return Err(value_error(
                op,
                format!(
                    "images must have a positive height and width, got shape {:?} ({})",
                    images.shape(),
                    images.dtype()
                ),
            ));
        }
        if preserve_aspect_ratio {
            size = keep_aspect(&images, size);
        }
        let dtype = images.dtype();
        let name_op = |e: crate::error::Error| {
            let mut e = e;
            e.op = op.to_string();
            e
        };
        if dtype.is_float() {
            return wrap(ops::resize(&images, size, method).map_err(name_op));
        }
        if dtype.is_complex() || dtype == DType::Bool {
            return Err(super::error::type_error(
                op,
                format!("expected a real numeric image dtype, got {dtype}"),
            ));
        }
        if method == ResizeMethod::Nearest {
            // One tap of weight 1: float64 carries every integer image value up to 2^53 exactly.
            let wide = ops::cast(&images, DType::F64)?;
            let y = ops::resize(&wide, size, method).map_err(name_op)?;
            return wrap(ops::cast(&y, dtype));
        }
        let narrow = ops::cast(&images, DType::F32)?;
        wrap(ops::resize(&narrow, size, method).map_err(name_op))
    })
}

/// `rt.image.resize_adjoint(grads, image_size, method='bilinear')`: the transpose of
/// `rt.image.resize` (its gradient): `grads` (`[..., new_height, new_width, channels]`)
/// spread back onto images of `image_size = [height, width]`. Its own gradient is `resize`.
///
/// >>> g = rt.ones([1, 4, 4, 1])
/// >>> rt.image.resize_adjoint(g, [2, 2])[0, :, :, 0].numpy().tolist()
/// [[4.0, 4.0], [4.0, 4.0]]
#[pyfunction]
#[pyo3(signature = (grads, image_size, method="bilinear", name=None))]
pub fn resize_adjoint(
    grads: Obj,
    image_size: Obj,
    method: &str,
    name: OptObj,
) -> PyResult<PyTensor> {
    let _ = name;
    let op = "image.resize_adjoint";
    guard(|| {
        let grads = tensor(grads)?;
        let method = ResizeMethod::parse(op, &method.to_ascii_lowercase())?;
        let size = size_pair(image_size, op, "image_size", &grads)?;
        wrap(ops::resize_adjoint(&grads, size, method))
    })
}

fn float_images(op: &str, images: &Tensor) -> PyResult<()> {
    image_rank(op, images)?;
    if !images.dtype().is_float() {
        return Err(super::error::type_error(
            op,
            format!(
                "expected float32 or float64 images, got {} of shape {:?}",
                images.dtype(),
                images.shape()
            ),
        ));
    }
    Ok(())
}

fn warp_modes(
    op: &str,
    interpolation: &str,
    fill_mode: &str,
) -> PyResult<(Interpolation, FillMode)> {
    Ok((
        Interpolation::parse(op, &interpolation.to_ascii_lowercase())?,
        FillMode::parse(op, &fill_mode.to_ascii_lowercase())?,
    ))
}

fn renamed(op: &str) -> impl Fn(crate::error::Error) -> crate::error::Error + '_ {
    move |mut e| {
        e.op = op.to_string();
        e
    }
}

/// `rt.image.affine_transform(images, transform, interpolation='bilinear',
/// fill_mode='constant', fill_value=0.0)`: TensorFlow's `ImageProjectiveTransformV3` (what
/// `keras.ops.image.affine_transform` computes) on `[height, width, channels]` or `[batch,
/// height, width, channels]` float images.
///
/// `transform` (`[8]` or `[batch, 8]`, `[a0, a1, a2, b0, b1, b2, c0, c1]`) maps each output
/// pixel `(x, y)` to the input point `((a0 x + a1 y + a2) / k, (b0 x + b1 y + b2) / k)`,
/// `k = c0 x + c1 y + 1`. `interpolation`: `'nearest'` or `'bilinear'`; `fill_mode`:
/// `'constant'` (points outside take `fill_value`), `'nearest'`, `'wrap'`, `'mirror'` or
/// `'reflect'`. Differentiable with respect to the images (the gradient is the transposed
/// map, `affine_transform_adjoint`); the transform gets no gradient.
///
/// >>> x = rt.reshape(rt.range(4.0), [1, 4, 1])
/// >>> shift = [1.0, 0.0, 1.0, 0.0, 1.0, 0.0, 0.0, 0.0]  # read one pixel to the right
/// >>> rt.image.affine_transform(x, shift)[0, :, 0].numpy().tolist()
/// [1.0, 2.0, 3.0, 0.0]
#[pyfunction]
#[pyo3(signature = (images, transform, interpolation="bilinear", fill_mode="constant", fill_value=None, name=None))]
pub fn affine_transform(
    images: Obj,
    transform: Obj,
    interpolation: &str,
    fill_mode: &str,
    fill_value: OptObj,
    name: OptObj,
) -> PyResult<PyTensor> {
    let _ = name;
    let op = "image.affine_transform";
    guard(|| {
        let fill_value = super::error::number_or(fill_value, 0.0, op, "fill_value")?;
        let images = tensor(images)?;
        float_images(op, &images)?;
        let transform = tensor(transform)?;
        let (interpolation, fill_mode) = warp_modes(op, interpolation, fill_mode)?;
        wrap(
            ops::affine_transform(&images, &transform, interpolation, fill_mode, fill_value)
                .map_err(renamed(op)),
        )
    })
}

/// `rt.image.affine_transform_adjoint(grads, transform, interpolation='bilinear',
/// fill_mode='constant')`: the transpose of `rt.image.affine_transform` with respect to the
/// images (its gradient): `grads` scattered back through the same sample weights. Its own
/// gradient is `affine_transform` with fill value 0.
///
/// >>> g = rt.ones([1, 4, 1])
/// >>> shift = [1.0, 0.0, 1.0, 0.0, 1.0, 0.0, 0.0, 0.0]
/// >>> rt.image.affine_transform_adjoint(g, shift)[0, :, 0].numpy().tolist()
/// [0.0, 1.0, 1.0, 1.0]
#[pyfunction]
#[pyo3(signature = (grads, transform, interpolation="bilinear", fill_mode="constant", name=None))]
pub fn affine_transform_adjoint(
    grads: Obj,
    transform: Obj,
    interpolation: &str,
    fill_mode: &str,
    name: OptObj,
) -> PyResult<PyTensor> {
    let _ = name;
    let op = "image.affine_transform_adjoint";
    guard(|| {
        let grads = tensor(grads)?;
        float_images(op, &grads)?;
        let transform = tensor(transform)?;
        let (interpolation, fill_mode) = warp_modes(op, interpolation, fill_mode)?;
        wrap(
            ops::affine_transform_adjoint(&grads, &transform, interpolation, fill_mode)
                .map_err(renamed(op)),
        )
    })
}

/// `rt.image.rgb_to_hsv(images)`: `tf.image.rgb_to_hsv`, RGB pixels (the last axis, 3
/// channels, float32 or float64) to hue, saturation and value, each in `[0, 1]` for RGB values
/// in `[0, 1]` (TensorFlow's formula). Differentiable: the exact derivative, which is
/// TensorFlow's `RGBToHSV` gradient away from ties between channels.
///
/// >>> rt.image.rgb_to_hsv([[1.0, 0.5, 0.0]]).numpy().tolist()
/// [[0.0833333358168602, 1.0, 1.0]]
#[pyfunction]
#[pyo3(signature = (images, name=None))]
pub fn rgb_to_hsv(images: Obj, name: OptObj) -> PyResult<PyTensor> {
    let _ = name;
    guard(|| wrap(ops::rgb_to_hsv(&tensor(images)?)))
}

/// `rt.image.hsv_to_rgb(images)`: `tf.image.hsv_to_rgb`, hue, saturation and value pixels
/// (the last axis, 3 channels, float32 or float64) to RGB with TensorFlow's formula (hues are
/// not wrapped: use values in `[0, 1]`). Differentiable (TensorFlow's has no gradient).
///
/// >>> rt.image.hsv_to_rgb([[0.5, 0.5, 1.0]]).numpy().tolist()
/// [[0.5, 1.0, 1.0]]
#[pyfunction]
#[pyo3(signature = (images, name=None))]
pub fn hsv_to_rgb(images: Obj, name: OptObj) -> PyResult<PyTensor> {
    let _ = name;
    guard(|| wrap(ops::hsv_to_rgb(&tensor(images)?)))
}

/// The float kernel of `rt.image.adjust_hue` (float32 or float64 images, `delta` in turns).
///
/// >>> rt.image.adjust_hue([[1.0, 0.0, 0.0]], 1 / 3).numpy().round(6).tolist()
/// [[0.0, 1.0, 0.0]]
#[pyfunction]
#[pyo3(signature = (images, delta))]
pub fn image_adjust_hue(images: Obj, delta: Obj) -> PyResult<PyTensor> {
    let op = "image.adjust_hue";
    guard(|| {
        let delta = super::error::number_arg(delta, op, "delta")?;
        wrap(ops::adjust_hue(&tensor(images)?, delta).map_err(renamed(op)))
    })
}

/// The float kernel of `rt.image.adjust_saturation` (float32 or float64 images).
///
/// >>> rt.image.adjust_saturation([[1.0, 0.5, 0.0]], 0.5).numpy().tolist()
/// [[1.0, 0.75, 0.5]]
#[pyfunction]
#[pyo3(signature = (images, saturation_factor))]
pub fn image_adjust_saturation(images: Obj, saturation_factor: Obj) -> PyResult<PyTensor> {
    let op = "image.adjust_saturation";
    guard(|| {
        let factor = super::error::number_arg(saturation_factor, op, "saturation_factor")?;
        wrap(ops::adjust_saturation(&tensor(images)?, factor).map_err(renamed(op)))
    })
}

fn taps(obj: Obj, op: &str, what: &str) -> PyResult<Vec<f64>> {
    let t = tensor(obj)?;
    if t.ndim() != 1 || !t.dtype().is_float() {
        return Err(value_error(
            op,
            format!(
                "{what} must be a 1-D float list or tensor, got shape {:?} ({})",
                t.shape(),
                t.dtype()
            ),
        ));
    }
    Ok(t.to_f64_vec())
}

/// The separable VALID filter behind `rt.image.ssim`: every `[h, w, c]` image of `images`
/// filtered over its height by `taps_h` and its width by `taps_w` (per channel), or with
/// `adjoint=True` the transposed map (its gradient). Differentiable with respect to the images.
///
/// >>> from rustape import _rustape
/// >>> x = rt.reshape(rt.range(9.0), [3, 3, 1])
/// >>> _rustape.image_separable_filter(x, [0.5, 0.5], [1.0, 0.0])[..., 0].numpy().tolist()
/// [[1.5, 2.5], [4.5, 5.5]]
#[pyfunction]
#[pyo3(signature = (images, taps_h, taps_w, adjoint=false))]
pub fn image_separable_filter(
    images: Obj,
    taps_h: Obj,
    taps_w: Obj,
    adjoint: bool,
) -> PyResult<PyTensor> {
    let op = "image.separable_filter";
    guard(|| {
        let th = taps(taps_h, op, "taps_h")?;
        let tw = taps(taps_w, op, "taps_w")?;
        wrap(ops::separable_filter(&tensor(images)?, &th, &tw, adjoint).map_err(renamed(op)))
    })
}

// The Python bindings of this file (rows: src/python/bindings.rs, DEVELOPERS.md "Adding an op").
bindings! {
    fn resize => [image];
    fn resize_adjoint => [image];
    fn affine_transform => [image];
    fn affine_transform_adjoint => [image];
    fn rgb_to_hsv => [image];
    fn hsv_to_rgb => [image];
    fn image_adjust_hue => [];
    fn image_adjust_saturation => [];
    fn image_separable_filter => [];
}
