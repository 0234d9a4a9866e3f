//! A whole LSTM sequence as one op, `lstm_sequence`: the loop over the time steps runs in Rust,
//! forward and backward. Its gradient is backpropagation through time in one pass: the
//! recurrent kernel's gradient is one product over every step (`h_prev^T @ dz` with the steps
//! and the batch as the inner dimension) instead of one small product and one addition per
//! step, and the input projections' gradient is written in place of a stack of per-step
//! gradients.
//!
//! As with [`super::lstm_cell`], the VJP runs the fused pass when no tape records the backward
//! pass; when one does (second order) or when the cotangents carry leading batch axes (a
//! vectorised Jacobian), it recomputes the steps with rustape ops (matmul, add, lstm_cell) and
//! writes the gradient in ops too, which the recording tape can differentiate again.
use std::sync::Arc;

use super::kernel::worth_splitting;
use super::parallel::for_each_task;
use super::rnn::{
    check_gates, lstm_forward_rows, lstm_grad_ops, lstm_grad_rows, values, CellFloat,
};
use super::{add, lstm_cell, matmul, parallel_threads, reshape, slice_axis, stack};
use crate::error::{fmt_shape, Error, Result};
use crate::tape::{any_tape_recording, record_multi, without_recording, Vjp};
use crate::tensor::{Data, Tensor};

/// Keras 3's LSTM loop with the default activations: `x_proj` `[steps, batch, 4 * units]`
/// holds each step's input projection (`x_t @ kernel + bias`, time-major), `recurrent_kernel`
/// `[units, 4 * units]`, `h0` and `c0` `[batch, units]`. Each step computes
/// `z = x_proj[t] + h @ recurrent_kernel` and then [`lstm_cell`]`(z, c)`. Returns every step's
/// `h` (`[steps, batch, units]`) and the last `c` (`[batch, units]`).
pub fn lstm_sequence(
    x_proj: &Tensor,
    recurrent_kernel: &Tensor,
    h0: &Tensor,
    c0: &Tensor,
) -> Result<(Tensor, Tensor)> {
    let op = "lstm_sequence";
    let units = check_gates(op, c0, 1, h0, "c0")?;
    let (steps, batch) = match (x_proj.shape(), recurrent_kernel.shape(), h0.shape()) {
        (&[steps, batch, width], &[rows, cols], &[b, _])
            if width == 4 * units && cols == 4 * units && rows == units && batch == b =>
        {
            (steps, batch)
        }
        _ => {
            return Err(Error::shape(
                op,
                format!(
                    "x_proj {} must be [steps, batch, 4 * units] and recurrent_kernel {} \
                     [units, 4 * units] for states h0 {} and c0 {} of shape [batch, units]",
                    fmt_shape(x_proj.shape()),
                    fmt_shape(recurrent_kernel.shape()),
                    fmt_shape(h0.shape()),
                    fmt_shape(c0.shape())
                ),
            ))
        }
    };
    for t in [x_proj, recurrent_kernel] {
        if t.dtype() != h0.dtype() {
            return Err(crate::tensor::mismatch(op, t.dtype(), h0.dtype()));
        }
    }
    let dims = Dims {
        steps,
        batch,
        units,
    };
    let saved = without_recording(|| match x_proj.data() {
        Data::F32(_) => forward::<f32>(x_proj, recurrent_kernel, h0, c0, dims),
        _ => forward::<f64>(x_proj, recurrent_kernel, h0, c0, dims),
    })?;
    let [hs, cs, act, tc] = saved;
    let c_last = if steps == 0 {
        c0.clone()
    } else {
        reshape_plain(&slice_plain(&cs, steps - 1)?, &[batch, units])?
    };
    let vjp: Arc<Vjp> = Arc::new(move |s: &[Tensor], grads: &[Option<Tensor>], lead: usize| {
        let (dhs, dc) = (grads[0].as_ref(), grads.get(1).and_then(Option::as_ref));
        let [dx, du, dh0, dc0] = if lead == 0 && !any_tape_recording() {
            without_recording(|| match s[0].data() {
                Data::F32(_) => backward::<f32>(s, dhs, dc, dims),
                _ => backward::<f64>(s, dhs, dc, dims),
            })?
        } else {
            backward_ops(&s[0], &s[1], &s[2], &s[3], dhs, dc, lead, dims)?
        };
        Ok(crate::grads![Some(dx), Some(du), Some(dh0), Some(dc0)])
    });
    record_multi(
        op,
        &[x_proj, recurrent_kernel, h0, c0],
        &[&hs, &c_last],
        &[x_proj, recurrent_kernel, h0, c0, &hs, &cs, &act, &tc],
        0,
        true,
        vjp,
    );
    Ok((hs, c_last))
}

/// The loop's sizes.
#[derive(Clone, Copy)]
struct Dims {
    steps: usize,
    batch: usize,
    units: usize,
}

/// Step `t` of a time-major tensor (no tape sees it).
fn slice_plain(x: &Tensor, t: usize) -> Result<Tensor> {
    without_recording(|| slice_axis(x, 0, t, t + 1))
}

fn reshape_plain(x: &Tensor, shape: &[usize]) -> Result<Tensor> {
    let dims: Vec<isize> = shape.iter().map(|&d| d as isize).collect();
    without_recording(|| reshape(x, &dims))
}

/// Multiply-adds of a whole sequence's recurrent products from which the batch splits into
/// blocks that run the whole loop each on their own thread. The batch rows of an LSTM never
/// meet (row `b` of every step depends only on row `b` of the step before), so one split per
/// sequence costs a single hand-over, not one per step; the threshold only keeps tiny
/// sequences (a few µs) on one thread.
const SPLIT_WORK: usize = 1 << 20;

/// Fewest batch rows per block: below that the per-step products get too thin to keep the
/// GEMM's register tiles full.
const MIN_BLOCK_ROWS: usize = 8;

/// How many blocks of batch rows the loop runs as: one per thread when the sequence is large,
/// else one. Two blocks per thread (8 rows each for batch 32) made each step's recurrent
/// product thinner, reading the whole recurrent kernel once per 8 rows instead of 16: the
/// sequence's forward and gradient took 9.0 ms at 2 threads, 8.6 ms with one block per thread.
fn row_blocks(d: Dims) -> usize {
    let work = d.steps * d.batch * d.units * 4 * d.units;
    if !worth_splitting(work, SPLIT_WORK) {
        return 1;
    }
    parallel_threads().min(d.batch / MIN_BLOCK_ROWS).max(1)
}

/// Rows `[start, end)` of block `i` of `blocks`.
fn block_rows(batch: usize, blocks: usize, i: usize) -> (usize, usize) {
    (i * batch / blocks, (i + 1) * batch / blocks)
}

/// A buffer that the blocks of [`for_each_task`] write in disjoint parts.
#[derive(Clone, Copy)]
struct Shared<T>(*mut T);

// SAFETY: every task reads and writes only the rows of its own block (see `part`).
unsafe impl<T: Send> Sync for Shared<T> {}
unsafe impl<T: Send> Send for Shared<T> {}

impl<T> Shared<T> {
    fn new(v: &mut [T]) -> Self {
        Self(v.as_mut_ptr())
    }

    /// Elements `[start, start + len)`.
    ///
    /// # Safety
    /// They lie inside the buffer, and no other live slice (of any task) overlaps them.
    #[allow(clippy::mut_from_ref)]
    unsafe fn part<'a>(self, start: usize, len: usize) -> &'a mut [T] {
        unsafe { std::slice::from_raw_parts_mut(self.0.add(start), len) }
    }
}

/// `dst[m x n] = (dst if accumulate) + lhs[m x k] @ rhs[k x n]` on this thread, every matrix
/// row-major with the given row strides.
///
/// # Safety
/// Each pointer is valid over its rows; `dst` aliases neither operand.
#[allow(clippy::too_many_arguments)]
unsafe fn gemm_rows<T: CellFloat + 'static>(
    (m, n, k): (usize, usize, usize),
    dst: *mut T,
    dst_rs: usize,
    lhs: *const T,
    lhs_rs: usize,
    rhs: *const T,
    rhs_rs: usize,
    accumulate: bool,
) {
    let alpha = if accumulate { T::one() } else { T::zero() };
    // gemm computes dst := alpha * dst + beta * lhs @ rhs; column strides before row strides.
    unsafe {
        gemm::gemm(
            m,
            n,
            k,
            dst,
            1,
            dst_rs as isize,
            accumulate,
            lhs,
            1,
            lhs_rs as isize,
            rhs,
            1,
            rhs_rs as isize,
            alpha,
            T::one(),
            false,
            false,
            false,
            gemm::Parallelism::None,
        )
    }
}

/// Elements added to the row stride of the recurrent kernel's copy the loop multiplies by.
/// The GEMM reads a thin product's wide operand in place, a panel of rows at a time down its
/// columns: at a row stride of 1024 floats (4 KiB) every row of a panel falls into the same
/// cache sets and the panel is re-read from L2 for each few rows of the batch; 16 more
/// elements (one cache line) spread the rows over the sets.
const ROW_PAD: usize = 16;

/// `rows x cols` row-major `src`, transposed when `transpose`, copied with row stride
/// `width + ROW_PAD` (`width` the copy's row length): returns the copy and its row stride.
fn padded<T: CellFloat>(src: &[T], rows: usize, cols: usize, transpose: bool) -> (Vec<T>, usize) {
    let (out_rows, width) = if transpose {
        (cols, rows)
    } else {
        (rows, cols)
    };
    let stride = width + ROW_PAD;
    let mut out = vec![T::zero(); out_rows * stride];
    if transpose {
        // Tiles of 8 source rows, so the strided writes stay few cache lines at a time.
        for i0 in (0..rows).step_by(8) {
            for j in 0..cols {
                for i in i0..(i0 + 8).min(rows) {
                    out[j * stride + i] = src[i * cols + j];
                }
            }
        }
    } else {
        for (dst, row) in out.chunks_exact_mut(stride).zip(src.chunks_exact(cols)) {
            dst[..cols].copy_from_slice(row);
        }
    }
    (out, stride)
}

/// The forward loop: `[hs, cs, act, tc]`, every step's `h`, `c`, activated gates and
/// `tanh(c)`, time-major. Blocks of batch rows run the whole loop each ([`row_blocks`]).
fn forward<T: CellFloat + 'static>(
    x_proj: &Tensor,
    u: &Tensor,
    h0: &Tensor,
    c0: &Tensor,
    d: Dims,
) -> Result<[Tensor; 4]> {
    let (units, state, gates) = (d.units, d.batch * d.units, 4 * d.batch * d.units);
    let (x, u_v, h0_v, c0_v) = (
        values::<T>(x_proj),
        values::<T>(u),
        values::<T>(h0),
        values::<T>(c0),
    );
    let (u_v, u_stride) = padded(u_v, units, 4 * units, false);
    let mut hs = vec![T::zero(); d.steps * state];
    let mut cs = vec![T::zero(); d.steps * state];
    let mut act = vec![T::zero(); d.steps * gates];
    let mut tc = vec![T::zero(); d.steps * state];
    let (hs_p, cs_p, act_p, tc_p) = (
        Shared::new(&mut hs),
        Shared::new(&mut cs),
        Shared::new(&mut act),
        Shared::new(&mut tc),
    );
    let blocks = row_blocks(d);
    for_each_task(blocks, &|i| {
        let (r0, r1) = block_rows(d.batch, blocks, i);
        let (rows, wide) = ((r1 - r0) * units, (r1 - r0) * 4 * units);
        let mut z = vec![T::zero(); wide];
        for t in 0..d.steps {
            let (s0, g0) = (t * state + r0 * units, t * gates + r0 * 4 * units);
            z.copy_from_slice(&x[g0..g0 + wide]);
            // SAFETY: this block's rows of step t - 1 (written by this task) and of step t
            // (written now, by this task only); the buffers hold `steps` whole steps.
            unsafe {
                let (h_prev, c_prev): (&[T], &[T]) = if t == 0 {
                    (&h0_v[r0 * units..], &c0_v[r0 * units..r1 * units])
                } else {
                    (hs_p.part(s0 - state, rows), cs_p.part(s0 - state, rows))
                };
                gemm_rows(
                    (r1 - r0, 4 * units, units),
                    z.as_mut_ptr(),
                    4 * units,
                    h_prev.as_ptr(),
                    units,
                    u_v.as_ptr(),
                    u_stride,
                    true,
                );
                lstm_forward_rows(
                    &z,
                    c_prev,
                    units,
                    [
                        hs_p.part(s0, rows),
                        cs_p.part(s0, rows),
                        act_p.part(g0, wide),
                        tc_p.part(s0, rows),
                    ],
                );
            }
        }
    });
    let seq = [d.steps, d.batch, d.units];
    Ok([
        Tensor::from_vec(hs, &seq)?,
        Tensor::from_vec(cs, &seq)?,
        Tensor::from_vec(act, &[d.steps, d.batch, 4 * d.units])?,
        Tensor::from_vec(tc, &seq)?,
    ])
}

/// The fused backpropagation through time: `[dx_proj, drecurrent_kernel, dh0, dc0]`. Blocks of
/// batch rows run the loop back through the steps each, as in [`forward`]; the recurrent
/// kernel's gradient is one product over every step and row afterwards.
fn backward<T: CellFloat + 'static>(
    s: &[Tensor],
    dhs: Option<&Tensor>,
    dc_last: Option<&Tensor>,
    d: Dims,
) -> Result<[Tensor; 4]> {
    let (u, h0, c0, hs, cs, act, tc) = (&s[1], &s[2], &s[3], &s[4], &s[5], &s[6], &s[7]);
    let (units, state, gates) = (d.units, d.batch * d.units, 4 * d.batch * d.units);
    check_shape(dhs, hs.shape())?;
    check_shape(dc_last, c0.shape())?;
    let (hs_v, cs_v, act_v, tc_v, c0_v) = (
        values::<T>(hs),
        values::<T>(cs),
        values::<T>(act),
        values::<T>(tc),
        values::<T>(c0),
    );
    let (dhs_v, dc_last_v) = (dhs.map(values::<T>), dc_last.map(values::<T>));
    // The recurrent kernel transposed, [4 * units, units] (rows padded, see `ROW_PAD`), once
    // per sequence: `dz @ u^T` then reads a row-major right operand, which the GEMM takes
    // without repacking it at every step.
    let (u_t, u_t_stride) = padded(values::<T>(u), units, 4 * units, true);
    let mut dz = vec![T::zero(); d.steps * gates];
    let mut dh0 = vec![T::zero(); state];
    let mut dc0 = vec![T::zero(); state];
    let (dz_p, dh0_p, dc0_p) = (
        Shared::new(&mut dz),
        Shared::new(&mut dh0),
        Shared::new(&mut dc0),
    );
    let blocks = row_blocks(d);
    for_each_task(blocks, &|i| {
        let (r0, r1) = block_rows(d.batch, blocks, i);
        let (rows, wide) = ((r1 - r0) * units, (r1 - r0) * 4 * units);
        let own_rows = r0 * units..r1 * units;
        // dh_next: the gradient reaching h of the step before, from the step after.
        let mut dh_next = vec![T::zero(); rows];
        let mut dh = vec![T::zero(); rows];
        let mut dc =
            dc_last_v.map_or_else(|| vec![T::zero(); rows], |v| v[own_rows.clone()].to_vec());
        let mut dc_prev = vec![T::zero(); rows];
        for t in (0..d.steps).rev() {
            let (s0, g0) = (t * state + r0 * units, t * gates + r0 * 4 * units);
            match dhs_v {
                Some(g) => dh
                    .iter_mut()
                    .zip(&g[s0..s0 + rows])
                    .zip(&dh_next)
                    .for_each(|((o, &x), &y)| *o = x + y),
                None => dh.copy_from_slice(&dh_next),
            }
            let c_prev = if t == 0 {
                &c0_v[own_rows.clone()]
            } else {
                &cs_v[s0 - state..s0 - state + rows]
            };
            // SAFETY: this block's rows of step t, written by this task only.
            let dz_t = unsafe { dz_p.part(g0, wide) };
            lstm_grad_rows(
                &act_v[g0..g0 + wide],
                c_prev,
                &tc_v[s0..s0 + rows],
                &dh,
                &dc,
                units,
                dz_t,
                &mut dc_prev,
            );
            std::mem::swap(&mut dc, &mut dc_prev);
            // SAFETY: dz_t is [rows, 4 * units], u_t [4 * units, units], dh_next [rows, units].
            unsafe {
                gemm_rows(
                    (r1 - r0, units, 4 * units),
                    dh_next.as_mut_ptr(),
                    units,
                    dz_t.as_ptr(),
                    4 * units,
                    u_t.as_ptr(),
                    u_t_stride,
                    false,
                )
            };
        }
        // SAFETY: this block's rows of the initial states' gradients, written by this task only.
        unsafe {
            dh0_p.part(r0 * units, rows).copy_from_slice(&dh_next);
            dc0_p.part(r0 * units, rows).copy_from_slice(&dc);
        }
    });
    // h_prev of every step, [steps * batch, units]: h0, then all but the last h.
    let mut h_prev = Vec::with_capacity(d.steps * state);
    h_prev.extend_from_slice(values::<T>(h0));
    h_prev.extend_from_slice(&hs_v[..d.steps.saturating_sub(1) * state]);
    h_prev.truncate(d.steps * state);
    let rows = d.steps * d.batch;
    let dz_all = Tensor::from_vec(dz, &[rows, 4 * d.units])?;
    let du = matmul(
        &Tensor::from_vec(h_prev, &[rows, d.units])?,
        &dz_all,
        true,
        false,
    )?;
    Ok([
        reshape_plain(&dz_all, &[d.steps, d.batch, 4 * d.units])?,
        du,
        Tensor::from_vec(dh0, &[d.batch, d.units])?,
        Tensor::from_vec(dc0, &[d.batch, d.units])?,
    ])
}

/// A present cotangent has the shape of its output.
fn check_shape(g: Option<&Tensor>, shape: &[usize]) -> Result<()> {
    match g {
        Some(g) if g.shape() != shape => Err(Error::shape(
            "lstm_sequence",
            format!(
                "a cotangent of shape {} does not fit the output {}",
                fmt_shape(g.shape()),
                fmt_shape(shape)
            ),
        )),
        _ => Ok(()),
    }
}

/// The gradient in recorded ops (differentiable again; cotangents may carry `lead` leading
/// batch axes): the steps recomputed with [`lstm_cell`], then backpropagation through time.
#[allow(clippy::too_many_arguments)]
fn backward_ops(
    x_proj: &Tensor,
    u: &Tensor,
    h0: &Tensor,
    c0: &Tensor,
    dhs: Option<&Tensor>,
    dc_last: Option<&Tensor>,
    lead: usize,
    d: Dims,
) -> Result<[Tensor; 4]> {
    let step_of = |x: &Tensor, axis: usize, t: usize| -> Result<Tensor> {
        let mut shape: Vec<isize> = x.shape().iter().map(|&n| n as isize).collect();
        shape.remove(axis);
        reshape(&slice_axis(x, axis, t, t + 1)?, &shape)
    };
    // The forward again, in ops: z, c_prev and c of every step.
    let (mut h, mut c) = (h0.clone(), c0.clone());
    let mut saved = Vec::with_capacity(d.steps);
    for t in 0..d.steps {
        let z = add(&step_of(x_proj, 0, t)?, &matmul(&h, u, false, false)?)?;
        let (h_new, c_new) = lstm_cell(&z, &c)?;
        saved.push((z, c.clone(), c_new.clone(), h.clone()));
        (h, c) = (h_new, c_new);
    }
    let mut dc = dc_last.cloned();
    let mut dh_next: Option<Tensor> = None;
    let mut dzs = vec![None; d.steps];
    let mut du: Option<Tensor> = None;
    for t in (0..d.steps).rev() {
        let (z, c_prev, c_t, h_prev) = &saved[t];
        let own = dhs.map(|g| step_of(g, lead, t)).transpose()?;
        let dh = match (own, dh_next.take()) {
            (Some(a), Some(b)) => Some(add(&a, &b)?),
            (a, b) => a.or(b),
        };
        if dh.is_none() && dc.is_none() {
            return Err(Error::value("lstm_sequence", "a gradient needs dh or dc"));
        }
        let (dz, dcp) = lstm_grad_ops(z, c_prev, c_t, dh.as_ref(), dc.as_ref(), d.units)?;
        dh_next = Some(matmul(&dz, u, false, true)?);
        let du_t = matmul(h_prev, &dz, true, false)?;
        du = Some(match du {
            Some(acc) => add(&acc, &du_t)?,
            None => du_t,
        });
        dc = Some(dcp);
        dzs[t] = Some(dz);
    }
    let dzs: Vec<Tensor> = dzs.into_iter().flatten().collect();
    let lead_shape = dhs
        .or(dc_last)
        .map_or(vec![], |g| g.shape()[..lead].to_vec());
    let zeros = |shape: &[usize]| {
        let mut full = lead_shape.clone();
        full.extend_from_slice(shape);
        Tensor::zeros(&full, x_proj.dtype())
    };
    let dx = if dzs.is_empty() {
        zeros(x_proj.shape())
    } else {
        stack(&dzs, lead as isize)?
    };
    Ok([
        dx,
        du.unwrap_or_else(|| zeros(u.shape())),
        dh_next.unwrap_or_else(|| zeros(h0.shape())),
        dc.unwrap_or_else(|| zeros(c0.shape())),
    ])
}
