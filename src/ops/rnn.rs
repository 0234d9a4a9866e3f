//! Fused recurrent cell steps, with Keras 3's gate order and formulas: `lstm_cell` and
//! `gru_cell` (`reset_after=True`). A step is one pass over its gates instead of a dozen small
//! ops, forward and backward.
//!
//! The VJP runs a fused gradient kernel when no tape is recording (a plain gradient or a
//! Jacobian: nothing needs the backward pass's own graph). When a tape records the backward
//! pass (second order), it computes the same gradient with rustape ops instead, which that tape
//! records and can differentiate again. Both take cotangents with leading batch axes.
use std::sync::Arc;

use super::vmath::VMath;
use super::{
    add, concat, multiply, scalar_like, sigmoid, sigmoid_grad, slice_axis, subtract, tanh,
    tanh_grad,
};
use crate::dtype::Float;
use crate::error::{fmt_shape, Error, Result};
use crate::tape::{any_tape_recording, record_batched, record_multi, Vjp};
use crate::tensor::{Data, Element, Tensor, Values};

/// Element types of the fused kernels.
trait CellFloat: Float + VMath + Element {}
impl CellFloat for f32 {}
impl CellFloat for f64 {}

/// `x`'s last axis split into `parts` gates of `units` each, every other axis equal to `like`'s.
fn check_gates(op: &str, x: &Tensor, parts: usize, like: &Tensor, what: &str) -> Result<usize> {
    let (xs, ls) = (x.shape(), like.shape());
    let units = ls.last().copied().unwrap_or(0);
    if xs.is_empty()
        || ls.is_empty()
        || xs[..xs.len() - 1] != ls[..ls.len() - 1]
        || xs[xs.len() - 1] != parts * units
    {
        return Err(Error::shape(
            op,
            format!(
                "{what} of shape {} must be [..., {parts} * units] for a state of shape {} \
                 ([..., units])",
                fmt_shape(xs),
                fmt_shape(ls)
            ),
        ));
    }
    if !x.dtype().is_float() {
        return Err(crate::tensor::unsupported(op, x.dtype(), "a floating"));
    }
    if x.dtype() != like.dtype() {
        return Err(crate::tensor::mismatch(op, x.dtype(), like.dtype()));
    }
    Ok(units)
}

/// Gate `k` (of `units` each) along the last axis.
fn gate(x: &Tensor, k: usize, units: usize) -> Result<Tensor> {
    slice_axis(x, x.ndim() - 1, k * units, (k + 1) * units)
}

fn values<T: Element>(t: &Tensor) -> &[T] {
    match t.values::<T>() {
        Some(v) => v.as_slice(),
        None => unreachable!("dtypes were checked"),
    }
}

/// Reads an optional cotangent's slice `s` of `len` elements (zeros when absent).
fn slot<T: Copy>(g: Option<&[T]>, s: usize, len: usize, i: usize, zero: T) -> T {
    g.map_or(zero, |g| g[s * len + i])
}

// ----------------------------------------------------------------------------------- LSTM

/// One LSTM step (Keras 3's `LSTMCell`): `z` `[..., 4 * units]` holds the pre-activations of the
/// gates `i, f, c, o` (`x @ kernel + h @ recurrent_kernel + bias`), `c_prev` `[..., units]`.
/// Returns `(h, c)`: `c = sigmoid(f) * c_prev + sigmoid(i) * tanh(g)`, `h = sigmoid(o) * tanh(c)`.
pub fn lstm_cell(z: &Tensor, c_prev: &Tensor) -> Result<(Tensor, Tensor)> {
    let op = "lstm_cell";
    let units = check_gates(op, z, 4, c_prev, "z")?;
    fn kernel<T: CellFloat>(z: &[T], cp: &[T], units: usize, shape: &[usize]) -> (Data, Data) {
        let mut h = Vec::with_capacity(cp.len());
        let mut c = Vec::with_capacity(cp.len());
        if units > 0 {
            for (zr, cr) in z.chunks_exact(4 * units).zip(cp.chunks_exact(units)) {
                for j in 0..units {
                    let i = zr[j].v_sigmoid();
                    let f = zr[units + j].v_sigmoid();
                    let g = zr[2 * units + j].v_tanh();
                    let o = zr[3 * units + j].v_sigmoid();
                    let cj = f * cr[j] + i * g;
                    c.push(cj);
                    h.push(o * cj.v_tanh());
                }
            }
        }
        (
            T::into_data(Values::from_vec(shape, h)),
            T::into_data(Values::from_vec(shape, c)),
        )
    }
    let shape = c_prev.shape().to_vec();
    let (h, c) = match (z.data(), c_prev.data()) {
        (Data::F32(a), Data::F32(b)) => kernel(a.as_slice(), b.as_slice(), units, &shape),
        (Data::F64(a), Data::F64(b)) => kernel(a.as_slice(), b.as_slice(), units, &shape),
        _ => unreachable!("dtypes were checked"),
    };
    let (h, c) = (Tensor::new(h), Tensor::new(c));
    let vjp: Arc<Vjp> = Arc::new(
        move |s: &[Tensor], grads: &[Option<Tensor>], batch: usize| {
            let (dh, dc) = (grads[0].as_ref(), grads.get(1).and_then(Option::as_ref));
            let (dz, dcp) = if any_tape_recording() {
                lstm_grad_ops(&s[0], &s[1], &s[2], dh, dc, units)?
            } else {
                lstm_grad_fused(&s[0], &s[1], &s[2], dh, dc, units, batch)?
            };
            Ok(crate::grads![Some(dz), Some(dcp)])
        },
    );
    record_multi(op, &[z, c_prev], &[&h, &c], &[z, c_prev, &c], 0, true, vjp);
    Ok((h, c))
}

/// The LSTM step's gradient in recorded ops (differentiable again).
fn lstm_grad_ops(
    z: &Tensor,
    cp: &Tensor,
    c: &Tensor,
    dh: Option<&Tensor>,
    dc: Option<&Tensor>,
    units: usize,
) -> Result<(Tensor, Tensor)> {
    let i = sigmoid(&gate(z, 0, units)?)?;
    let f = sigmoid(&gate(z, 1, units)?)?;
    let g = tanh(&gate(z, 2, units)?)?;
    let o = sigmoid(&gate(z, 3, units)?)?;
    let tc = tanh(c)?;
    let (dc_total, d_o) = match dh {
        Some(dh) => {
            let through_h = tanh_grad(&tc, &multiply(dh, &o)?)?;
            let total = match dc {
                Some(dc) => add(dc, &through_h)?,
                None => through_h,
            };
            (total, multiply(dh, &tc)?)
        }
        None => {
            let dc = dc.ok_or_else(|| Error::value("lstm_cell", "a gradient needs dh or dc"))?;
            (dc.clone(), multiply(dc, &scalar_like(0.0, dc))?)
        }
    };
    let dz = concat(
        &[
            sigmoid_grad(&i, &multiply(&dc_total, &g)?)?,
            sigmoid_grad(&f, &multiply(&dc_total, cp)?)?,
            tanh_grad(&g, &multiply(&dc_total, &i)?)?,
            sigmoid_grad(&o, &d_o)?,
        ],
        -1,
    )?;
    Ok((dz, multiply(&dc_total, &f)?))
}

/// The LSTM step's gradient in one pass (nothing records it). `dh`, `dc` may carry `batch`
/// leading axes beyond the saved tensors' shape.
fn lstm_grad_fused(
    z: &Tensor,
    cp: &Tensor,
    c: &Tensor,
    dh: Option<&Tensor>,
    dc: Option<&Tensor>,
    units: usize,
    batch: usize,
) -> Result<(Tensor, Tensor)> {
    let seed = dh
        .or(dc)
        .ok_or_else(|| Error::value("lstm_cell", "a gradient needs dh or dc"))?;
    let lead = &seed.shape()[..batch];
    let slices: usize = lead.iter().product();
    fn kernel<T: CellFloat>(
        z: &[T],
        cp: &[T],
        c: &[T],
        dh: Option<&[T]>,
        dc: Option<&[T]>,
        units: usize,
        slices: usize,
    ) -> (Vec<T>, Vec<T>) {
        let len = cp.len();
        let (mut dz, mut dcp) = (
            Vec::with_capacity(slices * z.len()),
            Vec::with_capacity(slices * len),
        );
        for s in 0..slices {
            for r in 0..len.checked_div(units).unwrap_or(0) {
                let zr = &z[r * 4 * units..(r + 1) * 4 * units];
                let base = dz.len();
                dz.resize(base + 4 * units, T::zero());
                for j in 0..units {
                    let k = r * units + j;
                    let i = zr[j].v_sigmoid();
                    let f = zr[units + j].v_sigmoid();
                    let g = zr[2 * units + j].v_tanh();
                    let o = zr[3 * units + j].v_sigmoid();
                    let tc = c[k].v_tanh();
                    let dhk = slot(dh, s, len, k, T::zero());
                    let dct = slot(dc, s, len, k, T::zero()) + dhk * o * (T::one() - tc * tc);
                    dz[base + j] = dct * g * (i * (T::one() - i));
                    dz[base + units + j] = dct * cp[k] * (f * (T::one() - f));
                    dz[base + 2 * units + j] = dct * i * (T::one() - g * g);
                    dz[base + 3 * units + j] = dhk * tc * (o * (T::one() - o));
                    dcp.push(dct * f);
                }
            }
        }
        (dz, dcp)
    }
    let mut dz_shape = lead.to_vec();
    dz_shape.extend_from_slice(z.shape());
    let mut dcp_shape = lead.to_vec();
    dcp_shape.extend_from_slice(cp.shape());
    macro_rules! run {
        ($t:ty) => {{
            let (dz, dcp) = kernel::<$t>(
                values(z),
                values(cp),
                values(c),
                dh.map(values),
                dc.map(values),
                units,
                slices,
            );
            (
                Tensor::from_vec(dz, &dz_shape)?,
                Tensor::from_vec(dcp, &dcp_shape)?,
            )
        }};
    }
    check_cotangents("lstm_cell", &[dh, dc], lead, cp.shape())?;
    Ok(match z.data() {
        Data::F32(_) => run!(f32),
        _ => run!(f64),
    })
}

/// Every present cotangent is `lead + shape`, of the saved tensors' dtype.
fn check_cotangents(
    op: &str,
    grads: &[Option<&Tensor>],
    lead: &[usize],
    shape: &[usize],
) -> Result<()> {
    for g in grads.iter().flatten() {
        if g.shape()[..lead.len().min(g.ndim())] != *lead
            || g.shape()[lead.len().min(g.ndim())..] != *shape
        {
            return Err(Error::shape(
                op,
                format!(
                    "a cotangent of shape {} does not fit the state {}",
                    fmt_shape(g.shape()),
                    fmt_shape(shape)
                ),
            ));
        }
    }
    Ok(())
}

// ------------------------------------------------------------------------------------ GRU

/// One GRU step with `reset_after=True` (Keras 3's `GRUCell` default; gates `z, r, h`):
/// `x_proj = x @ kernel + input_bias` and `h_proj = h_prev @ recurrent_kernel + recurrent_bias`
/// (both `[..., 3 * units]`), `h_prev` `[..., units]`. `z = sigmoid(xz + hz)`,
/// `r = sigmoid(xr + hr)`, `hh = tanh(xh + r * hh_rec)`, `h = z * h_prev + (1 - z) * hh`.
pub fn gru_cell(x_proj: &Tensor, h_proj: &Tensor, h_prev: &Tensor) -> Result<Tensor> {
    let op = "gru_cell";
    let units = check_gates(op, x_proj, 3, h_prev, "x_proj")?;
    check_gates(op, h_proj, 3, h_prev, "h_proj")?;
    fn kernel<T: CellFloat>(
        xp: &[T],
        hp: &[T],
        hprev: &[T],
        units: usize,
        shape: &[usize],
    ) -> Data {
        let mut h = Vec::with_capacity(hprev.len());
        if units > 0 {
            let rows = xp.chunks_exact(3 * units).zip(hp.chunks_exact(3 * units));
            for ((x, r), hr) in rows.zip(hprev.chunks_exact(units)) {
                for j in 0..units {
                    let z = (x[j] + r[j]).v_sigmoid();
                    let rg = (x[units + j] + r[units + j]).v_sigmoid();
                    let hh = (x[2 * units + j] + rg * r[2 * units + j]).v_tanh();
                    h.push(z * hr[j] + (T::one() - z) * hh);
                }
            }
        }
        T::into_data(Values::from_vec(shape, h))
    }
    let shape = h_prev.shape().to_vec();
    let h = Tensor::new(match (x_proj.data(), h_proj.data(), h_prev.data()) {
        (Data::F32(a), Data::F32(b), Data::F32(c)) => {
            kernel(a.as_slice(), b.as_slice(), c.as_slice(), units, &shape)
        }
        (Data::F64(a), Data::F64(b), Data::F64(c)) => {
            kernel(a.as_slice(), b.as_slice(), c.as_slice(), units, &shape)
        }
        _ => unreachable!("dtypes were checked"),
    });
    let saved = [x_proj, h_proj, h_prev];
    record_batched(op, &saved, &h, &saved, 0, true, move |s, dh, batch| {
        let (dx, dhp, dprev) = if any_tape_recording() {
            gru_grad_ops(&s[0], &s[1], &s[2], dh, units)?
        } else {
            gru_grad_fused(&s[0], &s[1], &s[2], dh, units, batch)?
        };
        Ok(crate::grads![Some(dx), Some(dhp), Some(dprev)])
    });
    Ok(h)
}

/// The GRU step's gradient in recorded ops (differentiable again).
fn gru_grad_ops(
    xp: &Tensor,
    hp: &Tensor,
    hprev: &Tensor,
    dh: &Tensor,
    units: usize,
) -> Result<(Tensor, Tensor, Tensor)> {
    let z = sigmoid(&add(&gate(xp, 0, units)?, &gate(hp, 0, units)?)?)?;
    let r = sigmoid(&add(&gate(xp, 1, units)?, &gate(hp, 1, units)?)?)?;
    let hh_rec = gate(hp, 2, units)?;
    let hh = tanh(&add(&gate(xp, 2, units)?, &multiply(&r, &hh_rec)?)?)?;
    let dzp = sigmoid_grad(&z, &multiply(dh, &subtract(hprev, &hh)?)?)?;
    let dhh = tanh_grad(&hh, &multiply(dh, &subtract(&scalar_like(1.0, &z), &z)?)?)?;
    let drp = sigmoid_grad(&r, &multiply(&dhh, &hh_rec)?)?;
    let dx = concat(&[dzp.clone(), drp.clone(), dhh.clone()], -1)?;
    let dhp = concat(&[dzp, drp, multiply(&dhh, &r)?], -1)?;
    Ok((dx, dhp, multiply(dh, &z)?))
}

/// The GRU step's gradient in one pass; `dh` may carry `batch` leading axes.
fn gru_grad_fused(
    xp: &Tensor,
    hp: &Tensor,
    hprev: &Tensor,
    dh: &Tensor,
    units: usize,
    batch: usize,
) -> Result<(Tensor, Tensor, Tensor)> {
    let lead = &dh.shape()[..batch];
    check_cotangents("gru_cell", &[Some(dh)], lead, hprev.shape())?;
    let slices: usize = lead.iter().product();
    fn kernel<T: CellFloat>(
        xp: &[T],
        hp: &[T],
        hprev: &[T],
        dh: &[T],
        units: usize,
        slices: usize,
    ) -> [Vec<T>; 3] {
        let len = hprev.len();
        let mut dx = Vec::with_capacity(slices * xp.len());
        let mut dhp = Vec::with_capacity(slices * xp.len());
        let mut dprev = Vec::with_capacity(slices * len);
        for s in 0..slices {
            for r in 0..len.checked_div(units).unwrap_or(0) {
                let (x, h) = (&xp[r * 3 * units..], &hp[r * 3 * units..]);
                let base = dx.len();
                dx.resize(base + 3 * units, T::zero());
                dhp.resize(base + 3 * units, T::zero());
                for j in 0..units {
                    let k = r * units + j;
                    let z = (x[j] + h[j]).v_sigmoid();
                    let rg = (x[units + j] + h[units + j]).v_sigmoid();
                    let hh = (x[2 * units + j] + rg * h[2 * units + j]).v_tanh();
                    let d = dh[s * len + k];
                    let dzp = d * (hprev[k] - hh) * (z * (T::one() - z));
                    let dhh = d * (T::one() - z) * (T::one() - hh * hh);
                    let drp = dhh * h[2 * units + j] * (rg * (T::one() - rg));
                    dx[base + j] = dzp;
                    dx[base + units + j] = drp;
                    dx[base + 2 * units + j] = dhh;
                    dhp[base + j] = dzp;
                    dhp[base + units + j] = drp;
                    dhp[base + 2 * units + j] = dhh * rg;
                    dprev.push(d * z);
                }
            }
        }
        [dx, dhp, dprev]
    }
    let mut proj_shape = lead.to_vec();
    proj_shape.extend_from_slice(xp.shape());
    let mut state_shape = lead.to_vec();
    state_shape.extend_from_slice(hprev.shape());
    macro_rules! run {
        ($t:ty) => {{
            let [dx, dhp, dprev] = kernel::<$t>(
                values(xp),
                values(hp),
                values(hprev),
                values(dh),
                units,
                slices,
            );
            (
                Tensor::from_vec(dx, &proj_shape)?,
                Tensor::from_vec(dhp, &proj_shape)?,
                Tensor::from_vec(dprev, &state_shape)?,
            )
        }};
    }
    Ok(match xp.data() {
        Data::F32(_) => run!(f32),
        _ => run!(f64),
    })
}
