//! Fused recurrent cell steps, with Keras 3's gate order and formulas: `lstm_cell` and
//! `gru_cell` (`reset_after=True`). A step is one pass over its gates instead of a dozen small
//! ops, forward and backward.
//!
//! The VJP runs a fused gradient kernel when no tape is recording (a plain gradient or a
//! Jacobian: nothing needs the backward pass's own graph). When a tape records the backward
//! pass (second order), it computes the same gradient with rustape ops instead, which that tape
//! records and can differentiate again. Both take cotangents with leading batch axes.
use std::sync::Arc;

use super::vmath::{widest, VMath};
use super::{
    add, concat, multiply, scalar_like, sigmoid, sigmoid_grad, slice_axis, subtract, tanh,
    tanh_grad,
};
use crate::dtype::Float;
use crate::error::{fmt_shape, Error, Result};
use crate::tape::{any_tape_recording, record_batched, record_multi, Vjp};
use crate::tensor::{Data, Element, Tensor, Values};

/// Element types of the fused kernels.
pub(super) trait CellFloat: Float + VMath + Element {}
impl CellFloat for f32 {}
impl CellFloat for f64 {}

/// `x`'s last axis split into `parts` gates of `units` each, every other axis equal to `like`'s.
pub(super) fn check_gates(
    op: &str,
    x: &Tensor,
    parts: usize,
    like: &Tensor,
    what: &str,
) -> Result<usize> {
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

pub(super) fn values<T: Element>(t: &Tensor) -> &[T] {
    match t.values::<T>() {
        Some(v) => v.as_slice(),
        None => unreachable!("dtypes were checked"),
    }
}

// ----------------------------------------------------------------------------------- LSTM

/// One LSTM step (Keras 3's `LSTMCell`): `z` `[..., 4 * units]` holds the pre-activations of the
/// gates `i, f, c, o` (`x @ kernel + h @ recurrent_kernel + bias`), `c_prev` `[..., units]`.
/// Returns `(h, c)`: `c = sigmoid(f) * c_prev + sigmoid(i) * tanh(g)`, `h = sigmoid(o) * tanh(c)`.
pub fn lstm_cell(z: &Tensor, c_prev: &Tensor) -> Result<(Tensor, Tensor)> {
    let op = "lstm_cell";
    let units = check_gates(op, z, 4, c_prev, "z")?;
    let shape = c_prev.shape().to_vec();
    let (h, c, act, tc) = match (z.data(), c_prev.data()) {
        (Data::F32(a), Data::F32(b)) => lstm_forward(a.as_slice(), b.as_slice(), units),
        (Data::F64(a), Data::F64(b)) => lstm_forward(a.as_slice(), b.as_slice(), units),
        _ => unreachable!("dtypes were checked"),
    };
    let (h, c) = (
        Tensor::new(h.into_data(&shape)),
        Tensor::new(c.into_data(&shape)),
    );
    // The activated gates and tanh(c), kept for the fused gradient (no transcendentals there).
    let (act, tc) = (
        Tensor::new(act.into_data(z.shape())),
        Tensor::new(tc.into_data(&shape)),
    );
    let vjp: Arc<Vjp> = Arc::new(
        move |s: &[Tensor], grads: &[Option<Tensor>], batch: usize| {
            let (dh, dc) = (grads[0].as_ref(), grads.get(1).and_then(Option::as_ref));
            let (dz, dcp) = if any_tape_recording() {
                lstm_grad_ops(&s[0], &s[1], &s[2], dh, dc, units)?
            } else {
                lstm_grad_fused(&s[3], &s[1], &s[4], dh, dc, units, batch)?
            };
            Ok(crate::grads![Some(dz), Some(dcp)])
        },
    );
    record_multi(
        op,
        &[z, c_prev],
        &[&h, &c],
        &[z, c_prev, &c, &act, &tc],
        0,
        true,
        vjp,
    );
    Ok((h, c))
}

/// A kernel's result of either float type, made a tensor's data once its shape is known.
enum Buffer {
    F32(Vec<f32>),
    F64(Vec<f64>),
}

impl Buffer {
    fn into_data(self, shape: &[usize]) -> Data {
        match self {
            Buffer::F32(v) => f32::into_data(Values::from_vec(shape, v)),
            Buffer::F64(v) => f64::into_data(Values::from_vec(shape, v)),
        }
    }
}

/// Element types with a [`Buffer`].
trait Buffered: Sized {
    fn buffer(v: Vec<Self>) -> Buffer;
}
impl Buffered for f32 {
    fn buffer(v: Vec<Self>) -> Buffer {
        Buffer::F32(v)
    }
}
impl Buffered for f64 {
    fn buffer(v: Vec<Self>) -> Buffer {
        Buffer::F64(v)
    }
}

/// The LSTM step's forward pass: `(h, c, activated gates, tanh(c))`.
fn lstm_forward<T: CellFloat + Buffered>(
    z: &[T],
    cp: &[T],
    units: usize,
) -> (Buffer, Buffer, Buffer, Buffer) {
    let n = cp.len();
    let mut act = vec![T::zero(); z.len()];
    let (mut h, mut c, mut tc) = (vec![T::zero(); n], vec![T::zero(); n], vec![T::zero(); n]);
    lstm_forward_rows(z, cp, units, [&mut h, &mut c, &mut act, &mut tc]);
    (T::buffer(h), T::buffer(c), T::buffer(act), T::buffer(tc))
}

/// The LSTM step's forward pass into `[h, c, act, tc]` (activated gates, `tanh(c)`). Each gate
/// block is one loop of one function, so it vectorises (compiled for the CPU's widest vectors).
#[inline(always)]
fn lstm_forward_rows_body<T: CellFloat>(z: &[T], cp: &[T], units: usize, out: [&mut [T]; 4]) {
    if units == 0 {
        return;
    }
    let [h, c, act, tc] = out;
    {
        let rows = z
            .chunks_exact(4 * units)
            .zip(act.chunks_exact_mut(4 * units))
            .zip(cp.chunks_exact(units))
            .zip(c.chunks_exact_mut(units))
            .zip(h.chunks_exact_mut(units).zip(tc.chunks_exact_mut(units)));
        for ((((zr, ar), cpr), cr), (hr, tr)) in rows {
            let (if_, rest) = ar.split_at_mut(2 * units);
            let (g, o) = rest.split_at_mut(units);
            for (a, &v) in if_.iter_mut().zip(&zr[..2 * units]) {
                *a = v.v_sigmoid();
            }
            for (a, &v) in g.iter_mut().zip(&zr[2 * units..3 * units]) {
                *a = v.v_tanh();
            }
            for (a, &v) in o.iter_mut().zip(&zr[3 * units..]) {
                *a = v.v_sigmoid();
            }
            let (i, f) = if_.split_at(units);
            for ((((cj, &fj), &cpj), &ij), &gj) in cr.iter_mut().zip(f).zip(cpr).zip(i).zip(&*g) {
                *cj = fj * cpj + ij * gj;
            }
            for (t, &cj) in tr.iter_mut().zip(&*cr) {
                *t = cj.v_tanh();
            }
            for ((hj, &oj), &tj) in hr.iter_mut().zip(&*o).zip(&*tr) {
                *hj = oj * tj;
            }
        }
    }
}
widest!(pub(super) fn lstm_forward_rows<T: CellFloat>(z: &[T], cp: &[T], units: usize, out: [&mut [T]; 4]) => lstm_forward_rows_body, z.len());

/// The LSTM step's gradient in recorded ops (differentiable again).
pub(super) fn lstm_grad_ops(
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

/// The LSTM step's gradient in one pass (nothing records it), from the forward pass's
/// activated gates `act` and `tc = tanh(c)`. `dh`, `dc` may carry `batch` leading axes beyond
/// the saved tensors' shape.
fn lstm_grad_fused(
    act: &Tensor,
    cp: &Tensor,
    tc: &Tensor,
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
        act: &[T],
        cp: &[T],
        tc: &[T],
        dh: Option<&[T]>,
        dc: Option<&[T]>,
        units: usize,
        slices: usize,
    ) -> (Vec<T>, Vec<T>) {
        let len = cp.len();
        let mut dz = vec![T::zero(); slices * act.len()];
        let mut dcp = vec![T::zero(); slices * len];
        if units == 0 || len == 0 {
            return (dz, dcp);
        }
        let zeros = vec![T::zero(); len];
        let outs = dz
            .chunks_exact_mut(act.len())
            .zip(dcp.chunks_exact_mut(len))
            .enumerate();
        for (s, (dz, dcp)) in outs {
            let dh = dh.map_or(&zeros[..], |d| &d[s * len..(s + 1) * len]);
            let dc = dc.map_or(&zeros[..], |d| &d[s * len..(s + 1) * len]);
            lstm_grad_rows(act, cp, tc, dh, dc, units, dz, dcp);
        }
        (dz, dcp)
    }
    let mut dz_shape = lead.to_vec();
    dz_shape.extend_from_slice(act.shape());
    let mut dcp_shape = lead.to_vec();
    dcp_shape.extend_from_slice(cp.shape());
    macro_rules! run {
        ($t:ty) => {{
            let (dz, dcp) = kernel::<$t>(
                values(act),
                values(cp),
                values(tc),
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
    Ok(match act.data() {
        Data::F32(_) => run!(f32),
        _ => run!(f64),
    })
}

/// The LSTM step's gradient for one set of cotangents `dh`, `dc`, into `dz` and `dcp`, from
/// the forward's activated gates `act`, `c_prev` and `tanh(c)` (`lstm_grad_rows` runs it
/// compiled for the CPU's widest vectors).
#[allow(clippy::too_many_arguments)]
#[inline(always)]
fn lstm_grad_rows_body<T: CellFloat>(
    act: &[T],
    cp: &[T],
    tc: &[T],
    dh: &[T],
    dc: &[T],
    units: usize,
    dz: &mut [T],
    dcp: &mut [T],
) {
    let one = T::one();
    let rows = dz
        .chunks_exact_mut(4 * units)
        .zip(dcp.chunks_exact_mut(units))
        .zip(act.chunks_exact(4 * units))
        .enumerate();
    for (r, ((dzr, dcpr), ar)) in rows {
        let at = r * units..(r + 1) * units;
        let (cpr, tcr, dhr, dcr) = (&cp[at.clone()], &tc[at.clone()], &dh[at.clone()], &dc[at]);
        let (i, f, g, o) = (
            &ar[..units],
            &ar[units..2 * units],
            &ar[2 * units..3 * units],
            &ar[3 * units..],
        );
        let (dzi, rest) = dzr.split_at_mut(units);
        let (dzf, rest) = rest.split_at_mut(units);
        let (dzg, dzo) = rest.split_at_mut(units);
        for j in 0..units {
            let (i, f, g, o, tc) = (i[j], f[j], g[j], o[j], tcr[j]);
            let dhk = dhr[j];
            let dct = dcr[j] + dhk * o * (one - tc * tc);
            dzi[j] = dct * g * (i * (one - i));
            dzf[j] = dct * cpr[j] * (f * (one - f));
            dzg[j] = dct * i * (one - g * g);
            dzo[j] = dhk * tc * (o * (one - o));
            dcpr[j] = dct * f;
        }
    }
}
widest!(pub(super) fn lstm_grad_rows<T: CellFloat>(act: &[T], cp: &[T], tc: &[T], dh: &[T], dc: &[T], units: usize, dz: &mut [T], dcp: &mut [T]) => lstm_grad_rows_body, dz.len());

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

/// The GRU step's new state `h` from the input and recurrent projections and `hprev`.
#[inline(always)]
fn gru_rows_body<T: CellFloat>(xp: &[T], hp: &[T], hprev: &[T], units: usize, h: &mut [T]) {
    let rows = xp.chunks_exact(3 * units).zip(hp.chunks_exact(3 * units));
    let states = hprev.chunks_exact(units).zip(h.chunks_exact_mut(units));
    for ((x, r), (hr, out)) in rows.zip(states) {
        let (xz, xr, xh) = (&x[..units], &x[units..2 * units], &x[2 * units..]);
        let (rz, rr, rh) = (&r[..units], &r[units..2 * units], &r[2 * units..]);
        for j in 0..units {
            let z = (xz[j] + rz[j]).v_sigmoid();
            let rg = (xr[j] + rr[j]).v_sigmoid();
            let hh = (xh[j] + rg * rh[j]).v_tanh();
            out[j] = z * hr[j] + (T::one() - z) * hh;
        }
    }
}
widest!(fn gru_rows<T: CellFloat>(xp: &[T], hp: &[T], hprev: &[T], units: usize, h: &mut [T]) => gru_rows_body, xp.len());

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
        let mut h = vec![T::zero(); hprev.len()];
        if units > 0 {
            gru_rows(xp, hp, hprev, units, &mut h);
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
        let mut dx = vec![T::zero(); slices * xp.len()];
        let mut dhp = vec![T::zero(); slices * xp.len()];
        let mut dprev = vec![T::zero(); slices * len];
        if units == 0 || len == 0 {
            return [dx, dhp, dprev];
        }
        gru_grad_rows(xp, hp, hprev, dh, units, &mut dx, &mut dhp, &mut dprev);
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

/// The GRU step's gradients for each slice of cotangents `dh` into `dx`, `dhp`, `dprev`.
#[allow(clippy::too_many_arguments)]
#[inline(always)]
fn gru_grad_rows_body<T: CellFloat>(
    xp: &[T],
    hp: &[T],
    hprev: &[T],
    dh: &[T],
    units: usize,
    dx: &mut [T],
    dhp: &mut [T],
    dprev: &mut [T],
) {
    let (one, len) = (T::one(), hprev.len());
    let outs = dx
        .chunks_exact_mut(xp.len())
        .zip(dhp.chunks_exact_mut(xp.len()))
        .zip(dprev.chunks_exact_mut(len))
        .zip(dh.chunks_exact(len));
    for (((dx, dhp), dprev), dh) in outs {
        let rows = dx
            .chunks_exact_mut(3 * units)
            .zip(dhp.chunks_exact_mut(3 * units))
            .zip(dprev.chunks_exact_mut(units))
            .zip(dh.chunks_exact(units))
            .zip(xp.chunks_exact(3 * units).zip(hp.chunks_exact(3 * units)))
            .zip(hprev.chunks_exact(units));
        for (((((dxr, dhpr), dpr), dhr), (x, h)), hpr) in rows {
            let (dxz, rest) = dxr.split_at_mut(units);
            let (dxr_, dxh) = rest.split_at_mut(units);
            let (dhz, rest) = dhpr.split_at_mut(units);
            let (dhr_, dhh_) = rest.split_at_mut(units);
            let (xz, xr, xh) = (&x[..units], &x[units..2 * units], &x[2 * units..]);
            let (hz, hr, hh_rec) = (&h[..units], &h[units..2 * units], &h[2 * units..]);
            for j in 0..units {
                let z = (xz[j] + hz[j]).v_sigmoid();
                let rg = (xr[j] + hr[j]).v_sigmoid();
                let hh = (xh[j] + rg * hh_rec[j]).v_tanh();
                let d = dhr[j];
                let dzp = d * (hpr[j] - hh) * (z * (one - z));
                let dhh = d * (one - z) * (one - hh * hh);
                let drp = dhh * hh_rec[j] * (rg * (one - rg));
                dxz[j] = dzp;
                dxr_[j] = drp;
                dxh[j] = dhh;
                dhz[j] = dzp;
                dhr_[j] = drp;
                dhh_[j] = dhh * rg;
                dpr[j] = d * z;
            }
        }
    }
}
widest!(fn gru_grad_rows<T: CellFloat>(xp: &[T], hp: &[T], hprev: &[T], dh: &[T], units: usize, dx: &mut [T], dhp: &mut [T], dprev: &mut [T]) => gru_grad_rows_body, dx.len());
