//! `tf.image.non_max_suppression_padded`: TensorFlow 2's tiled, batched NMS
//! (`non_max_suppression_padded_v2`), with its own rules, which differ from the greedy kernel's:
//!
//! - boxes scoring `<= score_threshold` (when it is not `-inf`) get score 0 and all-zero
//!   coordinates; a box whose coordinates are all `<= 0` is never selected;
//! - corners are put in order for every box by looking at the first box of the first image
//!   only (unless `canonicalized_coordinates`);
//! - boxes are sorted by score (descending, the lower index first among ties) unless
//!   `sorted_input`, converted to float32 and padded to a multiple of `tile_size`;
//! - IoU is `inter / (area_a + area_b - inter + 1e-8)` without sorting corners, and a box is
//!   suppressed when its IoU with a kept box is `>= iou_threshold`;
//! - tiles of `tile_size` boxes are processed in order: first suppressed by the kept boxes of
//!   earlier tiles, then by each other through TensorFlow's fixed-point iteration (which all
//!   images of the batch run together until none changes by more than the threshold).
//!
//! Returns `[batch, max_output_size]` int32 indices (0 past the valid ones) and the number
//! valid per image.
use crate::error::{Error, Result};
use crate::memory;
use crate::tensor::{Data, Tensor};

/// The settings of [`non_max_suppression_padded`].
#[derive(Clone, Copy, Debug)]
pub struct PaddedOptions {
    /// At most this many boxes per image.
    pub max_output_size: usize,
    /// IoU at or above which a box is suppressed.
    pub iou_threshold: f64,
    /// Boxes scoring at or below this are dropped (`-inf`: none).
    pub score_threshold: f64,
    /// The boxes are already sorted by score (descending); their positions are returned.
    pub sorted_input: bool,
    /// Every box already has `y1 <= y2` and `x1 <= x2`.
    pub canonicalized_coordinates: bool,
    /// Boxes per tile.
    pub tile_size: usize,
}

/// IoU between box rows `a` and `b` as TensorFlow's `_bbox_overlap` computes it (float32).
fn overlap(a: &[f32], b: &[f32]) -> f32 {
    let iw = (a[3].min(b[3]) - a[1].max(b[1])).max(0.0);
    let ih = (a[2].min(b[2]) - a[0].max(b[0])).max(0.0);
    let inter = iw * ih;
    let area_a = (a[2] - a[0]) * (a[3] - a[1]);
    let area_b = (b[2] - b[0]) * (b[3] - b[1]);
    inter / (area_a + area_b - inter + 1e-8)
}

fn nonzero(b: &[f32]) -> bool {
    b.iter().any(|&v| v > 0.0)
}

/// The tiled suppression of all images (`boxes`: `[batch, n_pad, 4]`, sorted, float32).
/// Returns the number kept per image; suppressed boxes become zeros.
fn suppress(boxes: &mut [f32], dims: [usize; 3], options: &PaddedOptions) -> Result<Vec<usize>> {
    let op = "image.non_max_suppression_padded";
    let [batch, n, n_pad] = dims;
    let t = options.tile_size;
    let thr = options.iou_threshold as f32;
    // Tiles past the last real box hold only zero boxes, which change nothing (TensorFlow
    // still runs them): stop there.
    let tiles = n.div_ceil(t).min(n_pad / t);
    let mut kept = vec![0usize; batch];
    let cells = memory::checked_mul(op, memory::checked_mul(op, batch, t)?, t)?;
    let mut iou = memory::try_filled(op, cells, 0f32)?;
    let mut tile = 0;
    while tile < tiles && kept.iter().min().copied().unwrap_or(0) < options.max_output_size {
        for b in 0..batch {
            let image = &mut boxes[b * n_pad * 4..(b + 1) * n_pad * 4];
            let (before, rest) = image.split_at_mut(tile * t * 4);
            let slice = &mut rest[..t * 4];
            // Suppressed by the kept boxes of earlier tiles.
            for earlier in before.chunks_exact(t * 4) {
                for j in 0..t {
                    let bj = [
                        slice[4 * j],
                        slice[4 * j + 1],
                        slice[4 * j + 2],
                        slice[4 * j + 3],
                    ];
                    if !earlier.chunks_exact(4).all(|a| overlap(a, &bj) < thr) {
                        slice[4 * j..4 * j + 4].fill(0.0);
                    }
                }
            }
            let m = &mut iou[b * t * t..(b + 1) * t * t];
            for i in 0..t {
                for j in 0..t {
                    let v = overlap(&slice[4 * i..4 * i + 4], &slice[4 * j..4 * j + 4]);
                    m[i * t + j] = if j > i && v >= thr { v } else { 0.0 };
                }
            }
        }
        // The fixed-point iteration, all images together.
        let sum = |m: &[f32]| m.iter().fold(0f32, |s, &v| s + v);
        let mut sums: Vec<f32> = (0..batch)
            .map(|b| sum(&iou[b * t * t..(b + 1) * t * t]))
            .collect();
        let mut changed = true;
        while changed {
            changed = false;
            for b in 0..batch {
                let m = &mut iou[b * t * t..(b + 1) * t * t];
                let free: Vec<bool> = (0..t)
                    .map(|i| {
                        (0..t)
                            .map(|k| m[k * t + i])
                            .fold(f32::NEG_INFINITY, f32::max)
                            < thr
                    })
                    .collect();
                let keep: Vec<bool> = (0..t)
                    .map(|j| {
                        (0..t)
                            .map(|i| if free[i] { m[i * t + j] } else { 0.0 })
                            .fold(f32::NEG_INFINITY, f32::max)
                            < thr
                    })
                    .collect();
                for (i, &k) in keep.iter().enumerate() {
                    if !k {
                        m[i * t..(i + 1) * t].fill(0.0);
                    }
                }
                let new = sum(m);
                if sums[b] - new > thr {
                    changed = true;
                }
                sums[b] = new;
            }
        }
        for b in 0..batch {
            let m = &iou[b * t * t..(b + 1) * t * t];
            let slice = &mut boxes[(b * n_pad + tile * t) * 4..(b * n_pad + tile * t + t) * 4];
            for j in 0..t {
                if (0..t).any(|i| m[i * t + j] > 0.0) {
                    slice[4 * j..4 * j + 4].fill(0.0);
                }
            }
            kept[b] += slice.chunks_exact(4).filter(|v| nonzero(v)).count();
        }
        tile += 1;
    }
    Ok(kept)
}

/// `tf.image.non_max_suppression_padded` over `[batch, n, 4]` boxes and `[batch, n]` scores
/// (float32 or float64; the suppression runs in float32 as TensorFlow's). Returns the indices
/// `[batch, max_output_size]` (int32) and the number valid `[batch]` (int32).
pub fn non_max_suppression_padded(
    boxes: &Tensor,
    scores: &Tensor,
    options: PaddedOptions,
) -> Result<(Tensor, Tensor)> {
    let op = "image.non_max_suppression_padded";
    let s = boxes.shape();
    if s.len() != 3 || s[2] != 4 || scores.shape() != &s[..2] {
        return Err(Error::shape(
            op,
            format!(
                "boxes [batch, num_boxes, 4] and scores [batch, num_boxes] expected, got {} \
                 and {}",
                crate::error::fmt_shape(s),
                crate::error::fmt_shape(scores.shape())
            ),
        ));
    }
    if options.tile_size == 0 {
        return Err(Error::value(op, "tile_size must be positive"));
    }
    let (batch, n) = (s[0], s[1]);
    let max_out = options.max_output_size;
    let (mut b64, mut s64) = match (boxes.data(), scores.data()) {
        (Data::F32(_), Data::F32(_)) | (Data::F64(_), Data::F64(_)) => {
            (boxes.to_f64_vec(), scores.to_f64_vec())
        }
        _ => {
            return Err(Error::dtype(
                op,
                format!(
                    "boxes and scores must both be float32 or both float64, got {} and {}",
                    boxes.dtype(),
                    scores.dtype()
                ),
            ))
        }
    };
    let out_len = memory::checked_mul(op, batch, max_out)?;
    if n == 0 || batch == 0 {
        let idx = memory::try_filled(op, out_len, 0i32)?;
        return Ok((
            Tensor::from_vec(idx, &[batch, max_out])?,
            Tensor::from_vec(vec![0i32; batch], &[batch])?,
        ));
    }
    if options.score_threshold != f64::NEG_INFINITY {
        for (k, sc) in s64.iter_mut().enumerate() {
            if *sc > options.score_threshold {
                continue;
            }
            *sc *= 0.0;
            b64[4 * k..4 * k + 4].iter_mut().for_each(|v| *v *= 0.0);
        }
    }
    if !options.canonicalized_coordinates {
        let (swap_y, swap_x) = (b64[0] > b64[2], b64[1] > b64[3]);
        for r in b64.chunks_exact_mut(4) {
            if swap_y {
                r.swap(0, 2);
            }
            if swap_x {
                r.swap(1, 3);
            }
        }
    }
    let tiles = n.max(max_out).div_ceil(options.tile_size);
    let n_pad = memory::checked_mul(op, tiles, options.tile_size)?;
    let len = memory::checked_mul(op, memory::checked_mul(op, batch, n_pad)?, 4)?;
    let mut work = memory::try_filled(op, len, 0f32)?;
    let mut order: Vec<usize> = Vec::with_capacity(batch * n);
    for b in 0..batch {
        let mut o: Vec<usize> = (0..n).collect();
        if !options.sorted_input {
            let sc = &s64[b * n..(b + 1) * n];
            // Descending, stable: top_k's order (the lower index first among ties).
            o.sort_by(|&i, &j| {
                sc[j]
                    .partial_cmp(&sc[i])
                    .unwrap_or(std::cmp::Ordering::Equal)
            });
        }
        for (p, &k) in o.iter().enumerate() {
            for d in 0..4 {
                work[(b * n_pad + p) * 4 + d] = b64[(b * n + k) * 4 + d] as f32;
            }
        }
        order.extend(o);
    }
    let kept = suppress(&mut work, [batch, n, n_pad], &options)?;
    let mut idx = memory::try_filled(op, out_len, 0i32)?;
    let mut valid = Vec::with_capacity(batch);
    for b in 0..batch {
        let num = kept[b].min(max_out);
        valid.push(num as i32);
        let positions = (0..n_pad)
            .filter(|&p| nonzero(&work[(b * n_pad + p) * 4..(b * n_pad + p + 1) * 4]))
            .take(num);
        for (k, p) in positions.enumerate() {
            let p = p.min(n - 1);
            idx[b * max_out + k] = if options.sorted_input {
                p as i32
            } else {
                order[b * n + p] as i32
            };
        }
    }
    Ok((
        Tensor::from_vec(idx, &[batch, max_out])?,
        Tensor::from_vec(valid, &[batch])?,
    ))
}
