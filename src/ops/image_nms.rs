//! Non-max suppression with the arithmetic and orders of TensorFlow's kernels
//! (`NonMaxSuppressionV3/V4/V5`, `NonMaxSuppressionWithOverlaps`, `CombinedNonMaxSuppression`).
//!
//! Greedy NMS: candidates whose score is above `score_threshold` wait in a priority queue
//! (highest score first, the lower index among equal scores); the best is compared with the
//! boxes already selected, newest first, and dropped at the first similarity above the
//! threshold. With `soft_nms_sigma > 0` (Soft-NMS, Gaussian) every comparison instead scales
//! the score by `exp(-0.5 / sigma * iou^2)`; a candidate whose score changed goes back into the
//! queue (if still above `score_threshold`) and is compared later only with boxes selected
//! since. Box similarity is TensorFlow's IoU: corners sorted per box, 0 when either box has no
//! area, computed in the boxes' dtype (TensorFlow computes float32; float64 boxes stay float64
//! here). Nothing here is differentiable (indices and counts).
//!
//! Combined NMS runs the same greedy selection per image and class (its own queue, whose pops
//! among equal scores follow libstdc++'s heap, see `image_nms_order`), then sorts the
//! per-class picks by score with libstdc++'s `std::sort`, keeps the best `max_total_size`,
//! optionally clips the boxes to `[0, 1]` and pads with zeros.
use super::image_nms_order::{pop_heap, push_heap, sort};
use crate::dtype::Float;
use crate::error::{fmt_shape, Error, Result};
use crate::memory;
use crate::tensor::{Data, Tensor};
use std::cmp::Ordering;
use std::collections::BinaryHeap;

/// The float slices of two tensors of one float dtype.
pub(crate) enum FloatPair<'a> {
    /// Both float32.
    F32(&'a [f32], &'a [f32]),
    /// Both float64.
    F64(&'a [f64], &'a [f64]),
}

pub(crate) fn float_pair<'a>(
    op: &str,
    a: &'a Tensor,
    b: &'a Tensor,
    names: [&str; 2],
) -> Result<FloatPair<'a>> {
    match (a.data(), b.data()) {
        (Data::F32(x), Data::F32(y)) => Ok(FloatPair::F32(x.as_slice(), y.as_slice())),
        (Data::F64(x), Data::F64(y)) => Ok(FloatPair::F64(x.as_slice(), y.as_slice())),
        _ => Err(Error::dtype(
            op,
            format!(
                "{} and {} must both be float32 or both float64, got {} and {}",
                names[0],
                names[1],
                a.dtype(),
                b.dtype()
            ),
        )),
    }
}

/// TensorFlow's IoU of boxes `i` and `j` (`[y1, x1, y2, x2]` rows of `boxes`).
pub(crate) fn iou<T: Float>(boxes: &[T], i: usize, j: usize) -> T {
    let (a, b) = (&boxes[4 * i..4 * i + 4], &boxes[4 * j..4 * j + 4]);
    let (ymin_i, xmin_i) = (a[0].min(a[2]), a[1].min(a[3]));
    let (ymax_i, xmax_i) = (a[0].max(a[2]), a[1].max(a[3]));
    let (ymin_j, xmin_j) = (b[0].min(b[2]), b[1].min(b[3]));
    let (ymax_j, xmax_j) = (b[0].max(b[2]), b[1].max(b[3]));
    let area_i = (ymax_i - ymin_i) * (xmax_i - xmin_i);
    let area_j = (ymax_j - ymin_j) * (xmax_j - xmin_j);
    if area_i <= T::zero() || area_j <= T::zero() {
        return T::zero();
    }
    let ih = (ymax_i.min(ymax_j) - ymin_i.max(ymin_j)).max(T::zero());
    let iw = (xmax_i.min(xmax_j) - xmin_i.max(xmin_j)).max(T::zero());
    let inter = ih * iw;
    inter / (area_i + area_j - inter)
}

/// The settings of one greedy NMS.
#[derive(Clone, Copy, Debug)]
pub struct NmsOptions {
    /// At most this many boxes are selected.
    pub max_output_size: usize,
    /// A candidate more similar than this to a selected box is dropped (hard NMS).
    pub threshold: f64,
    /// Only candidates scoring above this are considered.
    pub score_threshold: f64,
    /// Soft-NMS's sigma (0: hard NMS).
    pub soft_nms_sigma: f64,
}

#[derive(Clone, Copy)]
struct Candidate<T> {
    index: usize,
    score: T,
    begin: usize,
}

impl<T: Float> PartialEq for Candidate<T> {
    fn eq(&self, other: &Self) -> bool {
        self.cmp(other) == Ordering::Equal
    }
}
impl<T: Float> Eq for Candidate<T> {}
impl<T: Float> PartialOrd for Candidate<T> {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}
impl<T: Float> Ord for Candidate<T> {
    /// Higher scores first; the lower index first among equal scores.
    fn cmp(&self, other: &Self) -> Ordering {
        if self.score < other.score || (self.score == other.score && self.index > other.index) {
            Ordering::Less
        } else if other.score < self.score
            || (self.score == other.score && other.index > self.index)
        {
            Ordering::Greater
        } else {
            Ordering::Equal
        }
    }
}

/// Greedy (or soft) NMS over `scores` with `similarity(candidate, selected)`: the selected
/// indices and their (soft-NMS-scaled) scores.
pub(crate) fn greedy<T: Float>(
    scores: &[T],
    options: NmsOptions,
    similarity: impl Fn(usize, usize) -> T,
) -> (Vec<i32>, Vec<T>) {
    let cast = |v: f64| T::from_f64(v).unwrap_or_else(T::nan);
    let threshold = cast(options.threshold);
    let score_threshold = cast(options.score_threshold);
    let sigma = cast(options.soft_nms_sigma);
    let soft = sigma > T::zero();
    let scale = if soft { cast(-0.5) / sigma } else { T::zero() };
    let mut queue: BinaryHeap<Candidate<T>> = scores
        .iter()
        .enumerate()
        .filter(|(_, &s)| s > score_threshold)
        .map(|(index, &score)| Candidate {
            index,
            score,
            begin: 0,
        })
        .collect();
    let mut selected: Vec<i32> = Vec::new();
    let mut selected_scores: Vec<T> = Vec::new();
    while selected.len() < options.max_output_size {
        let Some(mut next) = queue.pop() else { break };
        let original = next.score;
        let mut hard = false;
        for j in (next.begin..selected.len()).rev() {
            let sim = similarity(next.index, selected[j] as usize);
            let weight = (scale * sim * sim).exp();
            next.score = next.score
                * if soft || sim <= threshold {
                    weight
                } else {
                    T::zero()
                };
            if !soft && sim > threshold {
                hard = true;
                break;
            }
            if next.score <= score_threshold {
                break;
            }
        }
        next.begin = selected.len();
        if hard {
            continue;
        }
        if next.score == original {
            selected.push(next.index as i32);
            selected_scores.push(next.score);
        } else if next.score > score_threshold {
            queue.push(next);
        }
    }
    (selected, selected_scores)
}

fn check_boxes(op: &str, boxes: &Tensor, scores: &Tensor) -> Result<usize> {
    let s = boxes.shape();
    if s.len() != 2 || s[1] != 4 {
        return Err(Error::shape(
            op,
            format!(
                "boxes must have shape [num_boxes, 4], got {} ({})",
                fmt_shape(s),
                boxes.dtype()
            ),
        ));
    }
    if scores.shape() != [s[0]] {
        return Err(Error::shape(
            op,
            format!(
                "scores must have shape [num_boxes] = [{}] to match boxes {}, got {}",
                s[0],
                fmt_shape(s),
                fmt_shape(scores.shape())
            ),
        ));
    }
    if s[0] > i32::MAX as usize {
        return Err(Error::value(
            op,
            format!("at most 2^31 - 1 boxes, got {}", s[0]),
        ));
    }
    Ok(s[0])
}

fn check_threshold(op: &str, what: &str, value: f64) -> Result<()> {
    if (0.0..=1.0).contains(&value) {
        Ok(())
    } else {
        Err(Error::value(
            op,
            format!("{what} must be in [0, 1], got {value}"),
        ))
    }
}

/// `v` zero-padded to `pad` (allocated fallibly: `pad` is the caller's `max_output_size`).
fn padded<T: Copy + Default + crate::tensor::Element>(
    v: Vec<T>,
    pad: Option<usize>,
) -> Result<Tensor> {
    let v = match pad {
        Some(n) if n > v.len() => {
            let mut out = memory::try_filled("image.non_max_suppression", n, T::default())?;
            out[..v.len()].copy_from_slice(&v);
            out
        }
        _ => v,
    };
    let n = v.len();
    Tensor::from_vec(v, &[n])
}

/// `tf.image.non_max_suppression_with_scores` (and `non_max_suppression`, padded with
/// `pad_to_max_output_size`, V4): boxes `[n, 4]` and scores `[n]` of one float dtype. Returns
/// the int32 selected indices, their scores (scaled by Soft-NMS) and the number selected;
/// with `pad` both are zero-padded to `max_output_size`.
pub fn non_max_suppression(
    boxes: &Tensor,
    scores: &Tensor,
    options: NmsOptions,
    pad: bool,
) -> Result<(Tensor, Tensor, usize)> {
    let op = "image.non_max_suppression";
    check_boxes(op, boxes, scores)?;
    check_threshold(op, "iou_threshold", options.threshold)?;
    if options.soft_nms_sigma.is_nan() || options.soft_nms_sigma < 0.0 {
        return Err(Error::value(
            op,
            format!(
                "soft_nms_sigma must be non-negative, got {}",
                options.soft_nms_sigma
            ),
        ));
    }
    let pad_to = pad.then_some(options.max_output_size);
    Ok(match float_pair(op, boxes, scores, ["boxes", "scores"])? {
        FloatPair::F32(b, s) => {
            let (idx, sc) = greedy(s, options, |i, j| iou(b, i, j));
            let n = idx.len();
            (padded(idx, pad_to)?, padded(sc, pad_to)?, n)
        }
        FloatPair::F64(b, s) => {
            let (idx, sc) = greedy(s, options, |i, j| iou(b, i, j));
            let n = idx.len();
            (padded(idx, pad_to)?, padded(sc, pad_to)?, n)
        }
    })
}

/// `tf.image.non_max_suppression_overlaps`: greedy NMS over a precomputed `[n, n]` similarity
/// matrix (`overlaps[i, j]` compares candidate `i` with selected `j`). Returns int32 indices.
pub fn non_max_suppression_overlaps(
    overlaps: &Tensor,
    scores: &Tensor,
    options: NmsOptions,
) -> Result<Tensor> {
    let op = "image.non_max_suppression_overlaps";
    let s = overlaps.shape();
    if s.len() != 2 || s[0] != s[1] {
        return Err(Error::shape(
            op,
            format!(
                "overlaps must be a square matrix [num_boxes, num_boxes], got {} ({})",
                fmt_shape(s),
                overlaps.dtype()
            ),
        ));
    }
    if scores.shape() != [s[0]] {
        return Err(Error::shape(
            op,
            format!(
                "scores must have shape [num_boxes] = [{}] to match overlaps {}, got {}",
                s[0],
                fmt_shape(s),
                fmt_shape(scores.shape())
            ),
        ));
    }
    let n = s[0];
    let options = NmsOptions {
        soft_nms_sigma: 0.0,
        ..options
    };
    let idx = match float_pair(op, overlaps, scores, ["overlaps", "scores"])? {
        FloatPair::F32(o, sc) => greedy(sc, options, |i, j| o[i * n + j]).0,
        FloatPair::F64(o, sc) => greedy(sc, options, |i, j| o[i * n + j]).0,
    };
    padded(idx, None)
}

/// The settings of [`combined_non_max_suppression`].
#[derive(Clone, Copy, Debug)]
pub struct CombinedOptions {
    /// At most this many boxes per image and class.
    pub max_output_size_per_class: usize,
    /// At most this many boxes per image.
    pub max_total_size: usize,
    /// IoU above which a box is dropped.
    pub iou_threshold: f64,
    /// Only boxes scoring above this are considered.
    pub score_threshold: f64,
    /// Pad to `min(max_total_size, max_output_size_per_class * num_classes)` rather than
    /// `max_total_size`.
    pub pad_per_class: bool,
    /// Clip the output boxes to `[0, 1]`.
    pub clip_boxes: bool,
}

#[derive(Clone, Copy)]
struct Pick<T> {
    index: i64,
    score: T,
    class: i64,
    coords: [T; 4],
}

/// One image's picks (`size_per_class` slots per class, unused ones `index = -1`).
fn combined_image<T: Float>(
    boxes: &[T],
    scores: &[T],
    dims: [usize; 3],
    size_per_class: usize,
    options: &CombinedOptions,
) -> Vec<Pick<T>> {
    let [n, q, classes] = dims;
    let cast = |v: f64| T::from_f64(v).unwrap_or_else(T::nan);
    let (iou_threshold, score_threshold) =
        (cast(options.iou_threshold), cast(options.score_threshold));
    let unused = Pick {
        index: -1,
        score: cast(-1.0),
        class: -1,
        coords: [T::zero(); 4],
    };
    let mut picks = vec![unused; size_per_class * classes];
    let less = |a: &(usize, T), b: &(usize, T)| a.1 < b.1;
    let mut class_boxes = vec![T::zero(); 4 * n];
    for c in 0..classes {
        let k = if q > 1 { c } else { 0 };
        for i in 0..n {
            let at = (i * q + k) * 4;
            class_boxes[4 * i..4 * i + 4].copy_from_slice(&boxes[at..at + 4]);
        }
        let mut heap: Vec<(usize, T)> = Vec::new();
        for i in 0..n {
            let s = scores[i * classes + c];
            if s > score_threshold {
                heap.push((i, s));
                push_heap(&mut heap, &less);
            }
        }
        let mut selected: Vec<usize> = Vec::new();
        while selected.len() < size_per_class && !heap.is_empty() {
            pop_heap(&mut heap, &less);
            let Some((i, s)) = heap.pop() else { break };
            if selected
                .iter()
                .rev()
                .any(|&j| iou(&class_boxes, i, j) > iou_threshold)
            {
                continue;
            }
            let b = &class_boxes[4 * i..4 * i + 4];
            picks[selected.len() + size_per_class * c] = Pick {
                index: i as i64,
                score: s,
                class: c as i64,
                coords: [b[0], b[1], b[2], b[3]],
            };
            selected.push(i);
        }
    }
    sort(&mut picks, &|a: &Pick<T>, b: &Pick<T>| a.score > b.score);
    picks
}

fn combined_kernel<T: Float + crate::tensor::Element>(
    boxes: &[T],
    scores: &[T],
    dims: [usize; 4],
    options: &CombinedOptions,
) -> Result<[Tensor; 4]> {
    let op = "image.combined_non_max_suppression";
    let [batch, n, q, classes] = dims;
    let size_per_class = options.max_output_size_per_class.min(n);
    let per_batch = if options.pad_per_class {
        options
            .max_output_size_per_class
            .saturating_mul(classes)
            .min(options.max_total_size)
    } else {
        options.max_total_size
    };
    let total = memory::checked_mul(op, batch, per_batch)?;
    memory::checked_bytes::<[T; 6]>(op, total)?;
    memory::checked_bytes::<Pick<T>>(op, memory::checked_mul(op, size_per_class, classes)?)?;
    let mut out_boxes = memory::try_filled(op, 4 * total, T::zero())?;
    let mut out_scores = memory::try_filled(op, total, T::zero())?;
    let mut out_classes = memory::try_filled(op, total, T::zero())?;
    let mut valid = Vec::with_capacity(batch);
    for b in 0..batch {
        let picks = combined_image(
            &boxes[b * n * q * 4..(b + 1) * n * q * 4],
            &scores[b * n * classes..(b + 1) * n * classes],
            [n, q, classes],
            size_per_class,
            options,
        );
        let found = picks.iter().filter(|p| p.index > -1).count();
        let keep = found.min(per_batch);
        valid.push(keep as i32);
        for (k, p) in picks.iter().take(keep).enumerate() {
            let at = b * per_batch + k;
            for (d, &v) in p.coords.iter().enumerate() {
                out_boxes[4 * at + d] = if options.clip_boxes {
                    v.min(T::one()).max(T::zero())
                } else {
                    v
                };
            }
            out_scores[at] = p.score;
            out_classes[at] = T::from_i64(p.class).unwrap_or_else(T::zero);
        }
    }
    Ok([
        Tensor::from_vec(out_boxes, &[batch, per_batch, 4])?,
        Tensor::from_vec(out_scores, &[batch, per_batch])?,
        Tensor::from_vec(out_classes, &[batch, per_batch])?,
        Tensor::from_vec(valid, &[batch])?,
    ])
}

/// `tf.image.combined_non_max_suppression`: boxes `[batch, num_boxes, q, 4]` (`q` 1 or
/// `num_classes`) and scores `[batch, num_boxes, num_classes]` of one float dtype. Returns
/// `nmsed_boxes` `[batch, d, 4]`, `nmsed_scores` and `nmsed_classes` `[batch, d]` (the
/// boxes' dtype) and `valid_detections` `[batch]` (int32).
pub fn combined_non_max_suppression(
    boxes: &Tensor,
    scores: &Tensor,
    options: CombinedOptions,
) -> Result<[Tensor; 4]> {
    let op = "image.combined_non_max_suppression";
    let (bs, ss) = (boxes.shape(), scores.shape());
    if ss.len() != 3 {
        return Err(Error::shape(
            op,
            format!(
                "scores must have shape [batch, num_boxes, num_classes], got {} ({})",
                fmt_shape(ss),
                scores.dtype()
            ),
        ));
    }
    if bs.len() != 4
        || bs[3] != 4
        || bs[0] != ss[0]
        || bs[1] != ss[1]
        || !(bs[2] == 1 || bs[2] == ss[2])
    {
        return Err(Error::shape(
            op,
            format!(
                "boxes must have shape [batch, num_boxes, q, 4] with q 1 or num_classes to \
                 match scores {}, got {}",
                fmt_shape(ss),
                fmt_shape(bs)
            ),
        ));
    }
    check_threshold(op, "iou_threshold", options.iou_threshold)?;
    if options.max_output_size_per_class == 0 {
        return Err(Error::value(op, "max_output_size_per_class must be > 0"));
    }
    if options.max_total_size == 0 {
        return Err(Error::value(op, "max_total_size must be > 0"));
    }
    let dims = [bs[0], bs[1], bs[2], ss[2]];
    match float_pair(op, boxes, scores, ["boxes", "scores"])? {
        FloatPair::F32(b, s) => combined_kernel(b, s, dims, &options),
        FloatPair::F64(b, s) => combined_kernel(b, s, dims, &options),
    }
}
