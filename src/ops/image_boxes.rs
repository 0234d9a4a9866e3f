//! `tf.image.draw_bounding_boxes`: box outlines painted over `[batch, h, w, c]` images with
//! TensorFlow's `DrawBoundingBoxes` arithmetic: a relative coordinate `v` lands on pixel
//! `trunc(v * (len - 1))` (float32 product, truncated toward zero); a box whose corners are
//! inverted or that lies wholly outside is skipped; each edge inside the image is drawn over
//! the clamped span. Box `k` takes colour `k % len(colors)`; without colours TensorFlow's table
//! of ten (for one channel, every colour's first component is 1).
//!
//! The gradient with respect to the images passes where nothing was painted and is zero on the
//! outlines (`dy * keep`, keep a saved 0/1 mask), so every order works.
use crate::dtype::Float;
use crate::error::{fmt_shape, Error, Result};
use crate::memory;
use crate::ops::multiply;
use crate::tape::{record_batched, AxisMap};
use crate::tensor::{Data, Tensor, Values};

/// TensorFlow's default colours (RGBA), cycled through by box.
const DEFAULT_COLORS: [[f32; 4]; 10] = [
    [1.0, 1.0, 0.0, 1.0],
    [0.0, 0.0, 1.0, 1.0],
    [1.0, 0.0, 0.0, 1.0],
    [0.0, 1.0, 0.0, 1.0],
    [0.5, 0.0, 0.5, 1.0],
    [0.5, 0.5, 0.0, 1.0],
    [0.5, 0.0, 0.0, 1.0],
    [0.0, 0.0, 0.5, 1.0],
    [0.0, 1.0, 1.0, 1.0],
    [1.0, 0.0, 1.0, 1.0],
];

/// The pixels of each image a box outline covers, with the colour index: `(pixel, colour)`.
fn outline(boxes: &[f32], h: usize, w: usize, colours: usize, mut paint: impl FnMut(usize, usize)) {
    let (hm, wm) = ((h as i64 - 1) as f32, (w as i64 - 1) as f32);
    let (h, w) = (h as i64, w as i64);
    for (k, b) in boxes.chunks_exact(4).enumerate() {
        let colour = k % colours;
        let (r0, c0) = ((b[0] * hm) as i64, (b[1] * wm) as i64);
        let (r1, c1) = ((b[2] * hm) as i64, (b[3] * wm) as i64);
        if r0 > r1 || c0 > c1 || r0 >= h || r1 < 0 || c0 >= w || c1 < 0 {
            continue;
        }
        let (r0c, r1c) = (r0.max(0), r1.min(h - 1));
        let (c0c, c1c) = (c0.max(0), c1.min(w - 1));
        let mut at = |r: i64, c: i64| paint((r * w + c) as usize, colour);
        if r0 >= 0 {
            (c0c..=c1c).for_each(|c| at(r0, c));
        }
        if r1 < h {
            (c0c..=c1c).for_each(|c| at(r1, c));
        }
        if c0 >= 0 {
            (r0c..=r1c).for_each(|r| at(r, c0));
        }
        if c1 < w {
            (r0c..=r1c).for_each(|r| at(r, c1));
        }
    }
}

fn draw<T: Float>(
    images: &Values<T>,
    boxes: &[f32],
    dims: [usize; 5],
    colours: &[Vec<f32>],
) -> (Vec<T>, Vec<T>) {
    let [batch, h, w, c, nb] = dims;
    let mut out = images.as_slice().to_vec();
    let mut keep = vec![T::one(); out.len()];
    for b in 0..batch {
        let base = b * h * w * c;
        outline(
            &boxes[b * nb * 4..(b + 1) * nb * 4],
            h,
            w,
            colours.len(),
            |p, k| {
                for ch in 0..c {
                    out[base + p * c + ch] = T::from_f32(colours[k][ch]).unwrap_or_else(T::nan);
                    keep[base + p * c + ch] = T::zero();
                }
            },
        );
    }
    (out, keep)
}

/// `tf.image.draw_bounding_boxes(images, boxes, colors)`: `images` `[batch, h, w, c]` (float32
/// or float64; `c` 1, 3 or 4), `boxes` `[batch, num_boxes, 4]` (`[y_min, x_min, y_max,
/// x_max]`, relative), `colors` `[k, >= c]` or `None` for TensorFlow's table.
pub fn draw_bounding_boxes(
    images: &Tensor,
    boxes: &Tensor,
    colors: Option<&Tensor>,
) -> Result<Tensor> {
    let op = "image.draw_bounding_boxes";
    let s = images.shape().to_vec();
    if s.len() != 4 || !matches!(s[3], 1 | 3 | 4) {
        return Err(Error::shape(
            op,
            format!(
                "images must have shape [batch, height, width, depth] with depth 1, 3 or 4, got \
                 {} ({})",
                fmt_shape(&s),
                images.dtype()
            ),
        ));
    }
    let bs = boxes.shape();
    if bs.len() != 3 || bs[2] != 4 || bs[0] != s[0] {
        return Err(Error::shape(
            op,
            format!(
                "boxes must have shape [batch, num_boxes, 4] with batch {}, got {}",
                s[0],
                fmt_shape(bs)
            ),
        ));
    }
    if !boxes.dtype().is_float() {
        return Err(Error::dtype(
            op,
            format!("boxes must be float, got {}", boxes.dtype()),
        ));
    }
    let c = s[3];
    let colours: Vec<Vec<f32>> = match colors {
        Some(t) => {
            let cs = t.shape();
            if cs.len() != 2 || cs[1] < c || cs[0] == 0 || !t.dtype().is_float() {
                return Err(Error::shape(
                    op,
                    format!(
                        "colors must be a float [num_colors, channels] matrix with at least \
                         {c} channels and one colour, got {} ({})",
                        fmt_shape(cs),
                        t.dtype()
                    ),
                ));
            }
            t.to_f64_vec()
                .chunks_exact(cs[1])
                .map(|r| r.iter().map(|&v| v as f32).collect())
                .collect()
        }
        None => DEFAULT_COLORS
            .iter()
            .map(|r| {
                let mut r = r.to_vec();
                if c == 1 {
                    r[0] = 1.0;
                }
                r
            })
            .collect(),
    };
    memory::ensure_shape(op, &s, images.dtype())?;
    let boxes32: Vec<f32> = boxes.to_f64_vec().into_iter().map(|v| v as f32).collect();
    let dims = [s[0], s[1], s[2], c, bs[1]];
    let (y, keep) = match images.data() {
        Data::F32(v) => {
            let (o, k) = draw(v, &boxes32, dims, &colours);
            (
                Tensor::new(Data::F32(Values::from_vec(&s, o))),
                Tensor::new(Data::F32(Values::from_vec(&s, k))),
            )
        }
        Data::F64(v) => {
            let (o, k) = draw(v, &boxes32, dims, &colours);
            (
                Tensor::new(Data::F64(Values::from_vec(&s, o))),
                Tensor::new(Data::F64(Values::from_vec(&s, k))),
            )
        }
        other => {
            return Err(Error::dtype(
                op,
                format!("images must be float32 or float64, got {}", other.dtype()),
            ))
        }
    };
    record_batched(
        "draw_bounding_boxes",
        &[images],
        &y,
        &[&keep],
        AxisMap::ELEMENTWISE,
        true,
        |s, dy, _batch| Ok(crate::grads![Some(multiply(dy, &s[0])?)]),
    );
    Ok(y)
}
