//! Op functions: `rt.image` bounding boxes (non-max suppression, drawing).
use pyo3::prelude::*;
use pyo3::sync::PyOnceLock;

use super::bindings::bindings;
use super::error::{count_arg, count_or, guard, number_or, value_error};
use super::ops::{tensor, wrap, Obj, OptObj};
use super::ops_search::named_tuple;
use super::tensor::PyTensor;
use crate::ops::{self, CombinedOptions, NmsOptions, PaddedOptions};
use crate::tensor::Tensor;

fn nms_options(
    op: &str,
    max_output_size: Obj,
    iou_threshold: OptObj,
    score_threshold: OptObj,
    soft_nms_sigma: OptObj,
) -> PyResult<NmsOptions> {
    Ok(NmsOptions {
        max_output_size: count_arg(max_output_size, op, "max_output_size")?,
        threshold: number_or(iou_threshold, 0.5, op, "iou_threshold")?,
        score_threshold: number_or(score_threshold, f64::NEG_INFINITY, op, "score_threshold")?,
        soft_nms_sigma: number_or(soft_nms_sigma, 0.0, op, "soft_nms_sigma")?,
    })
}

/// `rt.image.non_max_suppression(boxes, scores, max_output_size, iou_threshold=0.5,
/// score_threshold=-inf)`: `tf.image.non_max_suppression`, the int32 indices of the boxes
/// greedy NMS keeps, best score first.
///
/// `boxes` `[num_boxes, 4]` (`[y1, x1, y2, x2]`, any diagonal pair of corners) and `scores`
/// `[num_boxes]`, float32 or float64. Boxes scoring `<= score_threshold` are never selected; a
/// box whose IoU with an already selected one is `> iou_threshold` is dropped; among equal
/// scores the lower index goes first (TensorFlow's rules and float32 IoU; float64 inputs
/// compute in float64). Not differentiable.
///
/// >>> boxes = [[0, 0, 1, 1], [0, 0.1, 1, 1.1], [0, 2, 1, 3]]
/// >>> rt.image.non_max_suppression(boxes, [0.9, 0.8, 0.7], 3).numpy().tolist()
/// [0, 2]
#[pyfunction]
#[pyo3(signature = (boxes, scores, max_output_size, iou_threshold=None, score_threshold=None, name=None),
       text_signature = "(boxes, scores, max_output_size, iou_threshold=0.5, score_threshold=None, name=None)")]
pub fn non_max_suppression(
    boxes: Obj,
    scores: Obj,
    max_output_size: Obj,
    iou_threshold: OptObj,
    score_threshold: OptObj,
    name: OptObj,
) -> PyResult<PyTensor> {
    let _ = name;
    let op = "image.non_max_suppression";
    guard(|| {
        let options = nms_options(op, max_output_size, iou_threshold, score_threshold, None)?;
        let (idx, _, _) =
            ops::non_max_suppression(&tensor(boxes)?, &tensor(scores)?, options, false)?;
        Ok(PyTensor::new(idx))
    })
}

/// `rt.image.non_max_suppression_with_scores(boxes, scores, max_output_size,
/// iou_threshold=0.5, score_threshold=-inf, soft_nms_sigma=0.0)`:
/// `tf.image.non_max_suppression_with_scores`, a tuple `(selected_indices, selected_scores)`.
///
/// With `soft_nms_sigma > 0` it is Soft-NMS (Bodla et al.): each selected box scales the
/// scores of the others by `exp(-0.5 / sigma * iou^2)` instead of dropping them, and
/// `iou_threshold` is ignored; `selected_scores` are the scaled scores (TensorFlow's order of
/// updates, float32 arithmetic for float32 inputs). Not differentiable.
///
/// >>> boxes = [[0, 0, 1, 1], [0, 0.5, 1, 1.5]]
/// >>> idx, s = rt.image.non_max_suppression_with_scores(boxes, [0.9, 0.8], 2, soft_nms_sigma=0.5)
/// >>> idx.numpy().tolist(), [round(float(v), 4) for v in s.numpy()]
/// ([0, 1], [0.9, 0.7159])
#[pyfunction]
#[pyo3(signature = (boxes, scores, max_output_size, iou_threshold=None, score_threshold=None, soft_nms_sigma=None, name=None),
       text_signature = "(boxes, scores, max_output_size, iou_threshold=0.5, score_threshold=None, soft_nms_sigma=0.0, name=None)")]
pub fn non_max_suppression_with_scores(
    boxes: Obj,
    scores: Obj,
    max_output_size: Obj,
    iou_threshold: OptObj,
    score_threshold: OptObj,
    soft_nms_sigma: OptObj,
    name: OptObj,
) -> PyResult<(PyTensor, PyTensor)> {
    let _ = name;
    let op = "image.non_max_suppression_with_scores";
    guard(|| {
        let options = nms_options(
            op,
            max_output_size,
            iou_threshold,
            score_threshold,
            soft_nms_sigma,
        )?;
        let (idx, sc, _) =
            ops::non_max_suppression(&tensor(boxes)?, &tensor(scores)?, options, false)?;
        Ok((PyTensor::new(idx), PyTensor::new(sc)))
    })
}

/// `rt.image.non_max_suppression_overlaps(overlaps, scores, max_output_size,
/// overlap_threshold=0.5, score_threshold=-inf)`: `tf.image.non_max_suppression_overlaps`,
/// greedy NMS over a given `[num_boxes, num_boxes]` overlap matrix (`overlaps[i, j]` compares
/// candidate `i` with selected box `j`; a value `> overlap_threshold` drops the candidate).
/// Returns int32 indices. Not differentiable.
///
/// >>> overlaps = [[1.0, 0.7, 0.0], [0.7, 1.0, 0.2], [0.0, 0.2, 1.0]]
/// >>> rt.image.non_max_suppression_overlaps(overlaps, [0.9, 0.8, 0.7], 3).numpy().tolist()
/// [0, 2]
#[pyfunction]
#[pyo3(signature = (overlaps, scores, max_output_size, overlap_threshold=None, score_threshold=None, name=None),
       text_signature = "(overlaps, scores, max_output_size, overlap_threshold=0.5, score_threshold=None, name=None)")]
pub fn non_max_suppression_overlaps(
    overlaps: Obj,
    scores: Obj,
    max_output_size: Obj,
    overlap_threshold: OptObj,
    score_threshold: OptObj,
    name: OptObj,
) -> PyResult<PyTensor> {
    let _ = name;
    let op = "image.non_max_suppression_overlaps";
    guard(|| {
        let options = NmsOptions {
            max_output_size: count_arg(max_output_size, op, "max_output_size")?,
            threshold: number_or(overlap_threshold, 0.5, op, "overlap_threshold")?,
            score_threshold: number_or(score_threshold, f64::NEG_INFINITY, op, "score_threshold")?,
            soft_nms_sigma: 0.0,
        };
        wrap(ops::non_max_suppression_overlaps(
            &tensor(overlaps)?,
            &tensor(scores)?,
            options,
        ))
    })
}

fn reshaped(t: &Tensor, dims: &[usize]) -> PyResult<Tensor> {
    let dims: Vec<isize> = dims.iter().map(|&d| d as isize).collect();
    Ok(ops::reshape(t, &dims)?)
}

/// `rt.image.non_max_suppression_padded(boxes, scores, max_output_size, iou_threshold=0.5,
/// score_threshold=-inf, pad_to_max_output_size=False, sorted_input=False,
/// canonicalized_coordinates=False, tile_size=512)`: `tf.image.non_max_suppression_padded`,
/// TensorFlow 2's batched, tiled NMS: a tuple `(selected_indices, num_valid)`.
///
/// `boxes` `[..., num_boxes, 4]`, `scores` `[..., num_boxes]`. With
/// `pad_to_max_output_size=True` the indices are `[..., max_output_size]` (zero past
/// `num_valid`, which is `[...]`); otherwise (unbatched boxes only) the valid indices alone.
/// TensorFlow's rules differ from `non_max_suppression`'s: a box is dropped at IoU `>=
/// iou_threshold` (IoU with `1e-8` added to the union), boxes with all coordinates `<= 0` are
/// never selected, corners are ordered as the first box's are, and `score_threshold` zeroes
/// the boxes it drops. Not differentiable.
///
/// >>> boxes = [[0, 0, 1, 1], [0, 0.1, 1, 1.1], [0, 2, 1, 3]]
/// >>> idx, n = rt.image.non_max_suppression_padded(boxes, [0.9, 0.8, 0.7], 3, pad_to_max_output_size=True)
/// >>> idx.numpy().tolist(), int(n)
/// ([0, 2, 0], 2)
#[pyfunction]
#[pyo3(signature = (boxes, scores, max_output_size, iou_threshold=None, score_threshold=None, pad_to_max_output_size=false, name=None, sorted_input=false, canonicalized_coordinates=false, tile_size=None),
       text_signature = "(boxes, scores, max_output_size, iou_threshold=0.5, score_threshold=None, pad_to_max_output_size=False, name=None, sorted_input=False, canonicalized_coordinates=False, tile_size=512)")]
#[allow(clippy::too_many_arguments)]
pub fn non_max_suppression_padded(
    boxes: Obj,
    scores: Obj,
    max_output_size: Obj,
    iou_threshold: OptObj,
    score_threshold: OptObj,
    pad_to_max_output_size: bool,
    name: OptObj,
    sorted_input: bool,
    canonicalized_coordinates: bool,
    tile_size: OptObj,
) -> PyResult<(PyTensor, PyTensor)> {
    let _ = name;
    let op = "image.non_max_suppression_padded";
    guard(|| {
        let options = PaddedOptions {
            max_output_size: count_arg(max_output_size, op, "max_output_size")?,
            iou_threshold: number_or(iou_threshold, 0.5, op, "iou_threshold")?,
            score_threshold: number_or(score_threshold, f64::NEG_INFINITY, op, "score_threshold")?,
            sorted_input,
            canonicalized_coordinates,
            tile_size: count_or(tile_size, 512, op, "tile_size")?,
        };
        let (boxes, scores) = (tensor(boxes)?, tensor(scores)?);
        let s = boxes.shape().to_vec();
        if s.len() < 2 || s[s.len() - 1] != 4 || scores.shape() != &s[..s.len() - 1] {
            return Err(value_error(
                op,
                format!(
                    "boxes [..., num_boxes, 4] and scores [..., num_boxes] expected, got {:?} \
                     and {:?}",
                    s,
                    scores.shape()
                ),
            ));
        }
        if s.len() > 2 && !pad_to_max_output_size {
            return Err(value_error(
                op,
                format!(
                    "'pad_to_max_output_size' (value False) must be True for batched input \
                     (boxes of shape {s:?})"
                ),
            ));
        }
        let lead = &s[..s.len() - 2];
        let batch: usize = lead.iter().product();
        let n = s[s.len() - 2];
        let (idx, valid) = ops::non_max_suppression_padded(
            &reshaped(&boxes, &[batch, n, 4])?,
            &reshaped(&scores, &[batch, n])?,
            options,
        )?;
        if !pad_to_max_output_size {
            let count = valid.to_f64_vec()[0] as usize;
            let first: Vec<i32> = idx.to_f64_vec()[..count]
                .iter()
                .map(|&v| v as i32)
                .collect();
            return Ok((
                PyTensor::new(Tensor::from_vec(first, &[count])?),
                PyTensor::new(reshaped(&valid, &[])?),
            ));
        }
        let mut out = lead.to_vec();
        out.push(options.max_output_size);
        Ok((
            PyTensor::new(reshaped(&idx, &out)?),
            PyTensor::new(reshaped(&valid, lead)?),
        ))
    })
}

/// `rt.image.combined_non_max_suppression(boxes, scores, max_output_size_per_class,
/// max_total_size, iou_threshold=0.5, score_threshold=-inf, pad_per_class=False,
/// clip_boxes=True)`: `tf.image.combined_non_max_suppression`, greedy NMS per image and class,
/// then the best `max_total_size` over all classes: a named tuple `(nmsed_boxes,
/// nmsed_scores, nmsed_classes, valid_detections)`.
///
/// `boxes` `[batch, num_boxes, q, 4]` (`q` 1: one box for every class, or `num_classes`) and
/// `scores` `[batch, num_boxes, num_classes]`, float32 or float64. Outputs are padded with
/// zeros to `max_total_size` (or with `pad_per_class` to `min(max_total_size,
/// max_output_size_per_class * num_classes)`); `clip_boxes` clips coordinates to `[0, 1]`.
/// Equal scores are ordered as TensorFlow's kernel (libstdc++'s heap and sort) orders them.
/// Not differentiable.
///
/// >>> boxes = [[[[0, 0, 1, 1]], [[0, 0.1, 1, 1.1]]]]
/// >>> r = rt.image.combined_non_max_suppression(boxes, [[[0.9, 0.1], [0.8, 0.7]]], 2, 3)
/// >>> [round(float(v), 2) for v in r.nmsed_scores.numpy()[0]], r.nmsed_classes.numpy().tolist()
/// ([0.9, 0.7, 0.0], [[0.0, 1.0, 0.0]])
#[pyfunction]
#[pyo3(signature = (boxes, scores, max_output_size_per_class, max_total_size, iou_threshold=None, score_threshold=None, pad_per_class=false, clip_boxes=true, name=None),
       text_signature = "(boxes, scores, max_output_size_per_class, max_total_size, iou_threshold=0.5, score_threshold=None, pad_per_class=False, clip_boxes=True, name=None)")]
#[allow(clippy::too_many_arguments)]
pub fn combined_non_max_suppression<'py>(
    py: Python<'py>,
    boxes: Obj,
    scores: Obj,
    max_output_size_per_class: Obj,
    max_total_size: Obj,
    iou_threshold: OptObj,
    score_threshold: OptObj,
    pad_per_class: bool,
    clip_boxes: bool,
    name: OptObj,
) -> PyResult<Bound<'py, PyAny>> {
    let _ = name;
    let op = "image.combined_non_max_suppression";
    static TYPE: PyOnceLock<Py<PyAny>> = PyOnceLock::new();
    let [b, s, c, v] = guard(|| {
        let options = CombinedOptions {
            max_output_size_per_class: count_arg(
                max_output_size_per_class,
                op,
                "max_output_size_per_class",
            )?,
            max_total_size: count_arg(max_total_size, op, "max_total_size")?,
            iou_threshold: number_or(iou_threshold, 0.5, op, "iou_threshold")?,
            score_threshold: number_or(score_threshold, f64::NEG_INFINITY, op, "score_threshold")?,
            pad_per_class,
            clip_boxes,
        };
        Ok(ops::combined_non_max_suppression(
            &tensor(boxes)?,
            &tensor(scores)?,
            options,
        )?)
    })?;
    let fields = (
        PyTensor::new(b),
        PyTensor::new(s),
        PyTensor::new(c),
        PyTensor::new(v),
    );
    named_tuple(
        py,
        &TYPE,
        "CombinedNonMaxSuppression",
        &[
            "nmsed_boxes",
            "nmsed_scores",
            "nmsed_classes",
            "valid_detections",
        ],
    )?
    .call1(fields)
}

/// `rt.image.draw_bounding_boxes(images, boxes, colors)`: `tf.image.draw_bounding_boxes`,
/// a copy of `images` (`[batch, height, width, depth]`, depth 1, 3 or 4, float32 or float64)
/// with the outline of every box of `boxes` (`[batch, num_boxes, 4]`, relative `[y_min, x_min,
/// y_max, x_max]`) painted in `colors[k % len(colors)]` (`[num_colors, >= depth]`; `None`:
/// TensorFlow's table of ten). Pixel positions, skipped boxes and clipping follow TensorFlow.
/// Differentiable with respect to the images (zero gradient on the painted pixels).
///
/// >>> img = rt.zeros([1, 3, 3, 1])
/// >>> out = rt.image.draw_bounding_boxes(img, [[[0.0, 0.0, 1.0, 1.0]]], [[1.0]])
/// >>> out[0, :, :, 0].numpy().tolist()
/// [[1.0, 1.0, 1.0], [1.0, 0.0, 1.0], [1.0, 1.0, 1.0]]
#[pyfunction]
#[pyo3(signature = (images, boxes, colors, name=None))]
pub fn draw_bounding_boxes(
    images: Obj,
    boxes: Obj,
    colors: OptObj,
    name: OptObj,
) -> PyResult<PyTensor> {
    let _ = name;
    guard(|| {
        let colors = match colors.filter(|c| !c.is_none()) {
            Some(c) => Some(tensor(c)?),
            None => None,
        };
        wrap(ops::draw_bounding_boxes(
            &tensor(images)?,
            &tensor(boxes)?,
            colors.as_ref(),
        ))
    })
}

// The Python bindings of this file (rows: src/python/bindings.rs, DEVELOPERS.md "Adding an op").
bindings! {
    fn non_max_suppression => [image];
    fn non_max_suppression_with_scores => [image];
    fn non_max_suppression_overlaps => [image];
    fn non_max_suppression_padded => [image];
    fn combined_non_max_suppression => [image];
    fn draw_bounding_boxes => [image];
}
