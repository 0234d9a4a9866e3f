//! Connectionist temporal classification: the loss (`tf.nn.ctc_loss` with dense labels) and the
//! greedy and beam-search decoders (`tf.nn.ctc_greedy_decoder`, `tf.nn.ctc_beam_search_decoder`).
//!
//! The loss runs the forward (alpha) and backward (beta) recursions in log space per example,
//! in float64 whatever the logits' dtype, the examples split over the kernel threads. It returns
//! the loss and keeps the gradient it found on the way (`softmax - posterior` per frame, zero
//! past an example's length), as TensorFlow does. Its VJP scales that gradient by the incoming
//! one through [`ctc_grad_scale`], which is differentiable in the incoming gradient but refuses
//! a second derivative in the logits with an error (TensorFlow's is NaN).
use std::collections::BinaryHeap;

use super::parallel::map_tasks;
use super::{expand_dims, multiply, sum_to_batched_shape};
use crate::error::{fmt_shape, Error, Result};
use crate::tape::{input_needed, record_batched, without_recording, AxisMap};
use crate::tensor::{Data, Tensor};

/// Examples' work (frames x states) from which the loss splits over threads.
const PAR_CTC: usize = 1 << 12;

/// The integer values of `t` (int32 or int64) as i64.
fn int_values(op: &str, name: &str, t: &Tensor) -> Result<Vec<i64>> {
    match t.data() {
        Data::I32(a) => Ok(a.as_slice().iter().map(|&v| v as i64).collect()),
        Data::I64(a) => Ok(a.as_slice().to_vec()),
        other => Err(Error::dtype(
            op,
            format!("{name} must be int32 or int64, got {}", other.dtype()),
        )),
    }
}

/// `t` as `n` lengths in `[0, max]`, each checked.
fn lengths(op: &str, name: &str, t: &Tensor, n: usize, max: usize, of: &str) -> Result<Vec<usize>> {
    if t.shape() != [n] {
        return Err(Error::shape(
            op,
            format!(
                "{name} must have shape [{n}] (one length per example), got {}",
                fmt_shape(t.shape())
            ),
        ));
    }
    let v = int_values(op, name, t)?;
    v.iter()
        .enumerate()
        .map(|(i, &len)| {
            if len < 0 || len as u64 > max as u64 {
                Err(Error::value(
                    op,
                    format!("{name}[{i}] = {len} is outside [0, {max}] ({of})"),
                ))
            } else {
                Ok(len as usize)
            }
        })
        .collect()
}

/// Reads `logits` `[T, B, C]` (time major) or `[B, T, C]` as float64, one `[T][C]` block per
/// example.
fn per_example(logits: &Tensor, time_major: bool) -> (usize, usize, usize, Vec<f64>) {
    let s = logits.shape();
    let (t, b, c) = if time_major {
        (s[0], s[1], s[2])
    } else {
        (s[1], s[0], s[2])
    };
    let flat: Vec<f64> = match logits.data() {
        Data::F32(a) => a.as_slice().iter().map(|&v| v as f64).collect(),
        Data::F64(a) => a.as_slice().to_vec(),
        _ => unreachable!("logits were checked to be floating"),
    };
    if !time_major {
        return (t, b, c, flat);
    }
    let mut out = vec![0.0; flat.len()];
    for ti in 0..t {
        for bi in 0..b {
            let src = (ti * b + bi) * c;
            let dst = (bi * t + ti) * c;
            out[dst..dst + c].copy_from_slice(&flat[src..src + c]);
        }
    }
    (t, b, c, out)
}

fn lse2(a: f64, b: f64) -> f64 {
    let m = a.max(b);
    if m == f64::NEG_INFINITY {
        return m;
    }
    m + ((a - m).exp() + (b - m).exp()).ln()
}

fn lse3(a: f64, b: f64, c: f64) -> f64 {
    let m = a.max(b).max(c);
    if m == f64::NEG_INFINITY {
        return m;
    }
    m + ((a - m).exp() + (b - m).exp() + (c - m).exp()).ln()
}

/// One example: `x` its `[T][C]` logits (`frames` of them used), `labels` its label sequence.
/// Returns the loss and writes `softmax - posterior` into `grad` (`[T][C]`, zero past
/// `frames`).
fn example(
    x: &[f64],
    classes: usize,
    frames: usize,
    labels: &[usize],
    blank: usize,
    grad: &mut [f64],
) -> f64 {
    let c = classes;
    let states = 2 * labels.len() + 1;
    let ext = |s: usize| if s % 2 == 0 { blank } else { labels[s / 2] };
    // log_softmax of every frame.
    let mut logp = vec![0.0; frames * c];
    for t in 0..frames {
        let row = &x[t * c..(t + 1) * c];
        let m = row.iter().copied().fold(f64::NEG_INFINITY, f64::max);
        let z = m + row.iter().map(|&v| (v - m).exp()).sum::<f64>().ln();
        for (g, &v) in logp[t * c..(t + 1) * c].iter_mut().zip(row) {
            *g = v - z;
        }
    }
    if frames == 0 {
        return if labels.is_empty() {
            0.0
        } else {
            f64::INFINITY
        };
    }
    let lp = |t: usize, s: usize| logp[t * c + ext(s)];
    // skip[s]: state s may be entered from s - 2 (a label unlike the one before it).
    let skip: Vec<bool> = (0..states)
        .map(|s| s >= 2 && s % 2 == 1 && ext(s) != ext(s - 2))
        .collect();
    let ninf = f64::NEG_INFINITY;
    let mut alpha = vec![ninf; frames * states];
    alpha[0] = lp(0, 0);
    if states > 1 {
        alpha[1] = lp(0, 1);
    }
    for t in 1..frames {
        let (prev, cur) = alpha[(t - 1) * states..(t + 1) * states].split_at_mut(states);
        for s in 0..states {
            let a = prev[s];
            let b = if s >= 1 { prev[s - 1] } else { ninf };
            let v = if skip[s] {
                lse3(a, b, prev[s - 2])
            } else {
                lse2(a, b)
            };
            cur[s] = if v == ninf { ninf } else { v + lp(t, s) };
        }
    }
    let last = &alpha[(frames - 1) * states..];
    let ll = if states > 1 {
        lse2(last[states - 1], last[states - 2])
    } else {
        last[0]
    };
    // beta[s] at frame t: log-probability of the rest (frames t+1..) from state s at t.
    let mut beta = vec![ninf; states];
    let mut next = vec![ninf; states];
    beta[states - 1] = 0.0;
    if states > 1 {
        beta[states - 2] = 0.0;
    }
    let mut post = vec![0.0; c];
    for t in (0..frames).rev() {
        if t + 1 < frames {
            // beta_t(s) = lse over successors s' in {s, s+1, s+2 (skip)} of lp(t+1, s') + beta_{t+1}(s').
            for s in 0..states {
                let e = |s2: usize| {
                    let b = next[s2];
                    if b == ninf {
                        ninf
                    } else {
                        b + lp(t + 1, s2)
                    }
                };
                let a = e(s);
                let b = if s + 1 < states { e(s + 1) } else { ninf };
                beta[s] = if s + 2 < states && skip[s + 2] {
                    lse3(a, b, e(s + 2))
                } else {
                    lse2(a, b)
                };
            }
        }
        post.iter_mut().for_each(|p| *p = 0.0);
        if ll > ninf {
            for s in 0..states {
                let v = alpha[t * states + s] + beta[s];
                if v > ninf {
                    post[ext(s)] += (v - ll).exp();
                }
            }
        }
        // No alignment: the loss is infinite and the gradient zero.
        if ll > ninf {
            let row = &mut grad[t * c..(t + 1) * c];
            for ((g, &p), &l) in row.iter_mut().zip(&post).zip(&logp[t * c..(t + 1) * c]) {
                *g = l.exp() - p;
            }
        }
        std::mem::swap(&mut beta, &mut next);
    }
    -ll
}

/// The CTC loss of dense `labels` `[batch, max_label_length]` (int32/int64; entries past each
/// example's `label_length` are ignored) under `logits` `[frames, batch, classes]`
/// (`time_major`) or `[batch, frames, classes]`, each example using its first `logit_length`
/// frames (`tf.nn.ctc_loss` with dense labels). `blank` is the blank class (negative counts
/// from the end). Returns the per-example negative log-likelihood `[batch]`, `inf` where no
/// alignment exists (more labels, with the blanks repeats need, than frames), as TensorFlow
/// gives. A label outside `[0, classes)` or equal to the blank is a ValueError.
///
/// Gradient: `dy · (softmax(logits) - posterior)` per frame, zero past an example's length
/// (TensorFlow's), zero for an example whose loss is infinite. A second derivative in the
/// logits is an error (TensorFlow's is NaN); the gradient is differentiable in `dy`.
pub fn ctc_loss(
    labels: &Tensor,
    logits: &Tensor,
    label_length: &Tensor,
    logit_length: &Tensor,
    time_major: bool,
    blank: isize,
) -> Result<Tensor> {
    let op = "ctc_loss";
    if !logits.dtype().is_float() {
        return Err(Error::dtype(
            op,
            format!("logits must be float32 or float64, got {}", logits.dtype()),
        ));
    }
    if logits.ndim() != 3 {
        return Err(Error::shape(
            op,
            format!(
                "logits must have rank 3 ({}), got shape {}",
                if time_major {
                    "[frames, batch, classes]"
                } else {
                    "[batch, frames, classes]"
                },
                fmt_shape(logits.shape())
            ),
        ));
    }
    let s = logits.shape();
    let (frames, batch, classes) = if time_major {
        (s[0], s[1], s[2])
    } else {
        (s[1], s[0], s[2])
    };
    if labels.ndim() != 2 || labels.shape()[0] != batch {
        return Err(Error::shape(
            op,
            format!(
                "labels must have shape [batch, max_label_length] with batch {batch} (from logits {}), got {}",
                fmt_shape(s),
                fmt_shape(labels.shape())
            ),
        ));
    }
    let max_labels = labels.shape()[1];
    let blank_at = if blank < 0 {
        blank + classes as isize
    } else {
        blank
    };
    if blank_at < 0 || blank_at as usize >= classes {
        return Err(Error::value(
            op,
            format!("blank_index {blank} is outside [-{classes}, {classes}) for {classes} classes"),
        ));
    }
    let blank_at = blank_at as usize;
    let label_len = lengths(
        op,
        "label_length",
        label_length,
        batch,
        max_labels,
        "labels' width",
    )?;
    let logit_len = lengths(
        op,
        "logit_length",
        logit_length,
        batch,
        frames,
        "logits' frames",
    )?;
    let values = int_values(op, "labels", labels)?;
    let mut seqs: Vec<Vec<usize>> = Vec::with_capacity(batch);
    for (b, &n) in label_len.iter().enumerate() {
        let row = &values[b * max_labels..b * max_labels + n];
        if let Some(i) = row
            .iter()
            .position(|&v| v < 0 || v as u64 >= classes as u64 || v as usize == blank_at)
        {
            return Err(Error::value(
                op,
                format!(
                    "labels[{b}, {i}] = {} is not a class: labels must be in [0, {classes}) and not the blank ({blank_at})",
                    row[i]
                ),
            ));
        }
        seqs.push(row.iter().map(|&v| v as usize).collect());
    }
    crate::memory::ensure_shape(op, s, logits.dtype())?;
    let (_, _, _, x) = per_example(logits, time_major);
    let block = frames * classes;
    let run = |b: usize| -> (f64, Vec<f64>) {
        let mut g = vec![0.0; block];
        let loss = example(
            &x[b * block..(b + 1) * block],
            classes,
            logit_len[b],
            &seqs[b],
            blank_at,
            &mut g,
        );
        // Frames past the example's length get no gradient.
        g[logit_len[b] * classes..]
            .iter_mut()
            .for_each(|v| *v = 0.0);
        (loss, g)
    };
    let work: usize = (0..batch)
        .map(|b| logit_len[b] * (2 * seqs[b].len() + 1 + classes))
        .sum();
    let results: Vec<(f64, Vec<f64>)> =
        if batch > 1 && crate::ops::kernel::worth_splitting(work, PAR_CTC) {
            map_tasks(batch, run)
        } else {
            (0..batch).map(run).collect()
        };
    let losses: Vec<f64> = results.iter().map(|r| r.0).collect();
    let mut grad = vec![0.0; x.len()];
    for (b, (_, g)) in results.iter().enumerate() {
        for t in 0..frames {
            let dst = if time_major {
                (t * batch + b) * classes
            } else {
                (b * frames + t) * classes
            };
            grad[dst..dst + classes].copy_from_slice(&g[t * classes..(t + 1) * classes]);
        }
    }
    let (y, g) = match logits.data() {
        Data::F32(_) => (
            Tensor::from_vec(losses.iter().map(|&v| v as f32).collect(), &[batch])?,
            Tensor::from_vec(grad.iter().map(|&v| v as f32).collect(), s)?,
        ),
        _ => (
            Tensor::from_vec(losses, &[batch])?,
            Tensor::from_vec(grad, s)?,
        ),
    };
    // The loss keeps the batch axis; frames and classes are summed away.
    let reduced: &[usize] = if time_major { &[0, 2] } else { &[1, 2] };
    let rows = AxisMap::reduce(3, reduced, false);
    record_batched(
        op,
        &[logits],
        &y,
        &[logits, &g],
        rows,
        true,
        move |saved, dy, _batch| {
            // dy [.., batch] lined up with the gradient's batch axis.
            let dy = if time_major {
                expand_dims(&expand_dims(dy, -1)?, -3)?
            } else {
                expand_dims(&expand_dims(dy, -1)?, -1)?
            };
            Ok(crate::grads![Some(ctc_grad_scale(
                &saved[0], &saved[1], &dy
            )?)])
        },
    );
    Ok(y)
}

/// `dy · grad` for the gradient `grad` [`ctc_loss`] kept: differentiable in `dy`; a second
/// derivative in the logits (`logits`, recorded as an input) is refused with a ValueError.
fn ctc_grad_scale(logits: &Tensor, grad: &Tensor, dy: &Tensor) -> Result<Tensor> {
    let y = without_recording(|| multiply(dy, grad))?;
    let dy_shape = dy.shape().to_vec();
    record_batched(
        "ctc_loss_grad",
        &[logits, dy],
        &y,
        &[grad],
        AxisMap::ELEMENTWISE,
        true,
        move |saved, ddy, batch| {
            if input_needed(0) {
                return Err(Error::value(
                    "ctc_loss",
                    "the second derivative of ctc_loss in its logits is not implemented \
                     (TensorFlow's is NaN); the gradient is differentiable \
                     only in the incoming gradient",
                ));
            }
            let to_dy = when_needed(1, || {
                sum_to_batched_shape(&multiply(ddy, &saved[0])?, batch, &dy_shape)
            })?;
            Ok(crate::grads![None, to_dy])
        },
    );
    Ok(y)
}

fn when_needed(k: usize, f: impl FnOnce() -> Result<Tensor>) -> Result<Option<Tensor>> {
    if input_needed(k) {
        f().map(Some)
    } else {
        Ok(None)
    }
}

/// Dense decoded paths: `paths[b]` padded with `-1` to the longest, as int64 `[batch, width]`.
fn dense_paths(paths: &[Vec<i64>]) -> Result<Tensor> {
    let width = paths.iter().map(Vec::len).max().unwrap_or(0);
    let mut out = crate::memory::try_filled("ctc_decoder", paths.len() * width, -1i64)?;
    for (b, p) in paths.iter().enumerate() {
        out[b * width..b * width + p.len()].copy_from_slice(p);
    }
    Tensor::from_vec(out, &[paths.len(), width])
}

/// Checks decoder inputs: `inputs` float `[frames, batch, classes]` and `sequence_length` `[batch]`.
fn decoder_inputs(
    op: &str,
    inputs: &Tensor,
    sequence_length: &Tensor,
) -> Result<(usize, usize, usize, Vec<usize>)> {
    if !inputs.dtype().is_float() {
        return Err(Error::dtype(
            op,
            format!("inputs must be float32 or float64, got {}", inputs.dtype()),
        ));
    }
    if inputs.ndim() != 3 {
        return Err(Error::shape(
            op,
            format!(
                "inputs must have rank 3 ([max_time, batch, classes]), got shape {}",
                fmt_shape(inputs.shape())
            ),
        ));
    }
    let s = inputs.shape();
    let lens = lengths(
        op,
        "sequence_length",
        sequence_length,
        s[1],
        s[0],
        "max_time",
    )?;
    Ok((s[0], s[1], s[2], lens))
}

/// Best-path decoding (`tf.nn.ctc_greedy_decoder`): the most likely class of each of an
/// example's first `sequence_length` frames (the first on ties), repeats merged when
/// `merge_repeated`, blanks dropped. Returns the decoded classes as int64 `[batch, width]`
/// padded with `-1` (`width` the longest decoded, TensorFlow's `dense_shape[1]`) and
/// `-sum(max logit)` per example, `[batch, 1]`.
pub fn ctc_greedy_decoder(
    inputs: &Tensor,
    sequence_length: &Tensor,
    merge_repeated: bool,
    blank: isize,
) -> Result<(Tensor, Tensor)> {
    let op = "ctc_greedy_decoder";
    let (_, batch, classes, lens) = decoder_inputs(op, inputs, sequence_length)?;
    let blank_at = if blank < 0 {
        blank + classes as isize
    } else {
        blank
    };
    if blank_at < 0 || blank_at as usize >= classes {
        return Err(Error::value(
            op,
            format!("blank_index {blank} is outside [-{classes}, {classes}) for {classes} classes"),
        ));
    }
    let x = per_example(inputs, true).3;
    let frames = inputs.shape()[0];
    let mut paths = Vec::with_capacity(batch);
    let mut scores = Vec::with_capacity(batch);
    for (b, &len) in lens.iter().enumerate() {
        let mut path = Vec::new();
        let mut score = 0.0;
        let mut prev = usize::MAX;
        for t in 0..len {
            let row = &x[(b * frames + t) * classes..(b * frames + t + 1) * classes];
            let (mut k, mut best) = (0, row[0]);
            for (i, &v) in row.iter().enumerate().skip(1) {
                if v > best {
                    (k, best) = (i, v);
                }
            }
            score -= best;
            if k != blank_at as usize && !(merge_repeated && k == prev) {
                path.push(k as i64);
            }
            prev = k;
        }
        paths.push(path);
        scores.push(score);
    }
    Ok((
        dense_paths(&paths)?,
        float_like(inputs, scores, &[batch, 1])?,
    ))
}

fn float_like(like: &Tensor, v: Vec<f64>, shape: &[usize]) -> Result<Tensor> {
    match like.data() {
        Data::F32(_) => Tensor::from_vec(v.iter().map(|&a| a as f32).collect(), shape),
        _ => Tensor::from_vec(v, shape),
    }
}

#[derive(Clone, Copy)]
struct Probs {
    total: f64,
    blank: f64,
    label: f64,
}

const ZERO: Probs = Probs {
    total: f64::NEG_INFINITY,
    blank: f64::NEG_INFINITY,
    label: f64::NEG_INFINITY,
};

struct Entry {
    parent: usize,
    label: usize,
    old: Probs,
    new: Probs,
    /// Child entry per label (`usize::MAX`: none yet); empty until it first grows.
    children: Vec<usize>,
}

impl Entry {
    fn active(&self) -> bool {
        self.new.total != f64::NEG_INFINITY
    }
}

/// A beam entry by its score when pushed: ordered so that a `BinaryHeap` pops the lowest.
#[derive(Clone, Copy)]
struct Low(f64, usize);
impl PartialEq for Low {
    fn eq(&self, o: &Self) -> bool {
        self.cmp(o) == std::cmp::Ordering::Equal
    }
}
impl Eq for Low {}
impl PartialOrd for Low {
    fn partial_cmp(&self, o: &Self) -> Option<std::cmp::Ordering> {
        Some(self.cmp(o))
    }
}
impl Ord for Low {
    fn cmp(&self, o: &Self) -> std::cmp::Ordering {
        o.0.total_cmp(&self.0).then(self.1.cmp(&o.1))
    }
}

const NONE: usize = usize::MAX;

/// Most prefixes one example's beam search may hold (a beam far wider than useful grows its
/// tree exponentially in the frames: refused with a ValueError instead of running for hours).
const MAX_PREFIXES: usize = 1 << 24;

/// One example's beam search over `frames` rows of `x` (`classes` wide, blank last). Returns
/// the best `top_paths` label sequences and their scores.
fn beam_example(
    x: &[f64],
    classes: usize,
    frames: usize,
    beam_width: usize,
    top_paths: usize,
    merge_repeated: bool,
) -> std::result::Result<Vec<(Vec<i64>, f64)>, String> {
    let blank = classes - 1;
    let mut e: Vec<Entry> = vec![Entry {
        parent: NONE,
        label: NONE,
        old: ZERO,
        new: Probs {
            total: 0.0,
            blank: 0.0,
            label: f64::NEG_INFINITY,
        },
        children: Vec::new(),
    }];
    let mut leaves: BinaryHeap<Low> = BinaryHeap::new();
    leaves.push(Low(0.0, 0));
    for t in 0..frames {
        let row = &x[t * classes..(t + 1) * classes];
        // Log-softmax of the frame: its log-sum-exp is subtracted from every input.
        let top = row.iter().copied().fold(f64::NEG_INFINITY, f64::max);
        let max = top + row.iter().map(|&v| (v - top).exp()).sum::<f64>().ln();
        // The beam, best first.
        let mut branches: Vec<Low> = std::mem::take(&mut leaves).into_vec();
        branches.sort();
        let branches: Vec<usize> = branches.iter().map(|l| l.1).collect();
        for &b in &branches {
            e[b].old = e[b].new;
        }
        for &b in &branches {
            let parent = e[b].parent;
            if parent != NONE {
                if e[parent].active() {
                    let prev = if e[b].label == e[parent].label {
                        e[parent].old.blank
                    } else {
                        e[parent].old.total
                    };
                    e[b].new.label = lse2(e[b].new.label, prev);
                }
                e[b].new.label += row[e[b].label] - max;
            }
            e[b].new.blank = e[b].old.total + row[blank] - max;
            e[b].new.total = lse2(e[b].new.blank, e[b].new.label);
            leaves.push(Low(e[b].new.total, b));
        }
        for &b in &branches {
            let candidate = |total: f64, leaves: &BinaryHeap<Low>| {
                total > f64::NEG_INFINITY
                    && (leaves.len() < beam_width || leaves.peek().is_some_and(|l| total > l.0))
            };
            if !candidate(e[b].old.total, &leaves) {
                continue;
            }
            for (label, &logit) in row.iter().enumerate().take(blank) {
                let existing = e[b].children.get(label).copied().unwrap_or(NONE);
                if existing != NONE && e[existing].active() {
                    continue;
                }
                let prev = if label == e[b].label {
                    e[b].old.blank
                } else {
                    e[b].old.total
                };
                let p = logit - max + prev;
                // A child that does not enter the beam stays as if never made (TensorFlow
                // resets it), so only entering children are stored.
                if !candidate(p, &leaves) {
                    if existing != NONE {
                        e[existing].old = ZERO;
                        e[existing].new = ZERO;
                    }
                    continue;
                }
                let c = if existing != NONE {
                    existing
                } else {
                    if e.len() >= MAX_PREFIXES {
                        return Err(format!(
                            "the beam search's tree grew past {MAX_PREFIXES} prefixes (beam_width \
                             {beam_width} over {frames} frames): lower beam_width"
                        ));
                    }
                    if e.len() == e.capacity() && e.try_reserve(e.len().max(16)).is_err() {
                        return Err(format!(
                            "the beam search ran out of memory at {} prefixes",
                            e.len()
                        ));
                    }
                    e.push(Entry {
                        parent: b,
                        label,
                        old: ZERO,
                        new: ZERO,
                        children: Vec::new(),
                    });
                    if e[b].children.is_empty() {
                        e[b].children = vec![NONE; blank];
                    }
                    e[b].children[label] = e.len() - 1;
                    e.len() - 1
                };
                e[c].new = Probs {
                    total: p,
                    blank: f64::NEG_INFINITY,
                    label: p,
                };
                if leaves.len() == beam_width {
                    if let Some(bottom) = leaves.pop() {
                        e[bottom.1].new = ZERO;
                    }
                }
                leaves.push(Low(p, c));
            }
        }
    }
    if top_paths > leaves.len() {
        return Err(format!(
            "top_paths {top_paths} is more than the {} paths the beam search kept",
            leaves.len()
        ));
    }
    let mut best = leaves.into_vec();
    best.sort();
    Ok(best
        .iter()
        .take(top_paths)
        .map(|l| {
            let mut labels = Vec::new();
            let mut prev = NONE;
            let mut c = l.1;
            while e[c].parent != NONE {
                if !merge_repeated || e[c].label != prev {
                    labels.push(e[c].label as i64);
                }
                prev = e[c].label;
                c = e[c].parent;
            }
            labels.reverse();
            (labels, e[l.1].new.total)
        })
        .collect())
}

/// Beam-search decoding (`tf.nn.ctc_beam_search_decoder`; the blank is the last class):
/// TensorFlow's prefix beam search over each example's first `sequence_length` frames of
/// `inputs` `[max_time, batch, classes]` (logits), keeping `beam_width` prefixes. Returns
/// `top_paths` int64 `[batch, width]` tensors padded with `-1` (best first) and their
/// log-probabilities `[batch, top_paths]` (each frame's inputs normalised by log-softmax).
pub fn ctc_beam_search_decoder(
    inputs: &Tensor,
    sequence_length: &Tensor,
    beam_width: usize,
    top_paths: usize,
    merge_repeated: bool,
) -> Result<(Vec<Tensor>, Tensor)> {
    let op = "ctc_beam_search_decoder";
    let (frames, batch, classes, lens) = decoder_inputs(op, inputs, sequence_length)?;
    if beam_width == 0 || top_paths == 0 {
        return Err(Error::value(
            op,
            format!("beam_width ({beam_width}) and top_paths ({top_paths}) must be at least 1"),
        ));
    }
    if top_paths > beam_width {
        return Err(Error::value(
            op,
            format!("top_paths ({top_paths}) must be at most beam_width ({beam_width})"),
        ));
    }
    if classes == 0 {
        return Err(Error::shape(
            op,
            format!(
                "inputs {} have no classes (the blank is the last)",
                fmt_shape(inputs.shape())
            ),
        ));
    }
    let x = per_example(inputs, true).3;
    let block = frames * classes;
    let run = |b: usize| {
        beam_example(
            &x[b * block..(b + 1) * block],
            classes,
            lens[b],
            beam_width,
            top_paths,
            merge_repeated,
        )
    };
    let work: usize = lens.iter().sum::<usize>() * beam_width * classes;
    let results = if batch > 1 && crate::ops::kernel::worth_splitting(work, PAR_CTC) {
        map_tasks(batch, run)
    } else {
        (0..batch).map(run).collect()
    };
    let mut per_path: Vec<Vec<Vec<i64>>> = vec![Vec::with_capacity(batch); top_paths];
    let mut scores = Vec::with_capacity(batch * top_paths);
    for (b, r) in results.into_iter().enumerate() {
        let r = r.map_err(|m| Error::value(op, format!("example {b}: {m}")))?;
        for (k, (path, score)) in r.into_iter().enumerate() {
            per_path[k].push(path);
            scores.push(score);
        }
    }
    let decoded = per_path
        .iter()
        .map(|p| dense_paths(p))
        .collect::<Result<Vec<_>>>()?;
    Ok((decoded, float_like(inputs, scores, &[batch, top_paths])?))
}
