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

use super::rnn::{
    check_gates, lstm_forward_rows, lstm_grad_ops, lstm_grad_rows, values, CellFloat,
};
use super::{add, lstm_cell, matmul, reshape, slice_axis, stack};
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

/// The forward loop: `[hs, cs, act, tc]`, every step's `h`, `c`, activated gates and
/// `tanh(c)`, time-major.
fn forward<T: CellFloat>(
    x_proj: &Tensor,
    u: &Tensor,
    h0: &Tensor,
    c0: &Tensor,
    d: Dims,
) -> Result<[Tensor; 4]> {
    let (state, gates) = (d.batch * d.units, 4 * d.batch * d.units);
    let x = values::<T>(x_proj);
    let mut hs = vec![T::zero(); d.steps * state];
    let mut cs = vec![T::zero(); d.steps * state];
    let mut act = vec![T::zero(); d.steps * gates];
    let mut tc = vec![T::zero(); d.steps * state];
    let mut z = vec![T::zero(); gates];
    for t in 0..d.steps {
        let h_prev = if t == 0 {
            h0.clone()
        } else {
            Tensor::from_vec(hs[(t - 1) * state..t * state].to_vec(), &[d.batch, d.units])?
        };
        let hu = matmul(&h_prev, u, false, false)?;
        for ((zj, &xj), &hj) in z.iter_mut().zip(&x[t * gates..]).zip(values::<T>(&hu)) {
            *zj = xj + hj;
        }
        let (c_done, c_rest) = cs.split_at_mut(t * state);
        let c_prev = if t == 0 {
            values::<T>(c0)
        } else {
            &c_done[(t - 1) * state..]
        };
        lstm_forward_rows(
            &z,
            c_prev,
            d.units,
            [
                &mut hs[t * state..(t + 1) * state],
                &mut c_rest[..state],
                &mut act[t * gates..(t + 1) * gates],
                &mut tc[t * state..(t + 1) * state],
            ],
        );
    }
    let seq = [d.steps, d.batch, d.units];
    Ok([
        Tensor::from_vec(hs, &seq)?,
        Tensor::from_vec(cs, &seq)?,
        Tensor::from_vec(act, &[d.steps, d.batch, 4 * d.units])?,
        Tensor::from_vec(tc, &seq)?,
    ])
}

/// The fused backpropagation through time: `[dx_proj, drecurrent_kernel, dh0, dc0]`.
fn backward<T: CellFloat>(
    s: &[Tensor],
    dhs: Option<&Tensor>,
    dc_last: Option<&Tensor>,
    d: Dims,
) -> Result<[Tensor; 4]> {
    let (u, h0, c0, hs, cs, act, tc) = (&s[1], &s[2], &s[3], &s[4], &s[5], &s[6], &s[7]);
    let (state, gates) = (d.batch * d.units, 4 * d.batch * d.units);
    check_shape(dhs, hs.shape())?;
    check_shape(dc_last, c0.shape())?;
    let (hs_v, cs_v, act_v, tc_v) = (
        values::<T>(hs),
        values::<T>(cs),
        values::<T>(act),
        values::<T>(tc),
    );
    let mut dz = vec![T::zero(); d.steps * gates];
    let mut dh = vec![T::zero(); state];
    let mut dc = dc_last.map_or_else(|| vec![T::zero(); state], |t| values::<T>(t).to_vec());
    let mut dc_prev = vec![T::zero(); state];
    let mut dh_next: Option<Tensor> = None;
    for t in (0..d.steps).rev() {
        let own = dhs.map(|g| &values::<T>(g)[t * state..(t + 1) * state]);
        let carried = dh_next.as_ref().map(values::<T>);
        match (own, carried) {
            (Some(a), Some(b)) => dh
                .iter_mut()
                .zip(a.iter().zip(b))
                .for_each(|(o, (&x, &y))| {
                    *o = x + y;
                }),
            (Some(a), None) | (None, Some(a)) => dh.copy_from_slice(a),
            (None, None) => dh.iter_mut().for_each(|o| *o = T::zero()),
        }
        let c_prev = if t == 0 {
            values::<T>(c0)
        } else {
            &cs_v[(t - 1) * state..t * state]
        };
        let dz_t = &mut dz[t * gates..(t + 1) * gates];
        super::vmath::vectorised(gates, || {
            lstm_grad_rows(
                &act_v[t * gates..(t + 1) * gates],
                c_prev,
                &tc_v[t * state..(t + 1) * state],
                &dh,
                &dc,
                d.units,
                dz_t,
                &mut dc_prev,
            )
        });
        std::mem::swap(&mut dc, &mut dc_prev);
        let dz_tensor = Tensor::from_vec(dz_t.to_vec(), &[d.batch, 4 * d.units])?;
        dh_next = Some(matmul(&dz_tensor, u, false, true)?);
    }
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
    let dh0 = match dh_next {
        Some(g) => g,
        None => Tensor::from_vec(vec![T::zero(); state], &[d.batch, d.units])?,
    };
    Ok([
        reshape_plain(&dz_all, &[d.steps, d.batch, 4 * d.units])?,
        du,
        dh0,
        Tensor::from_vec(dc, &[d.batch, d.units])?,
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
