//! `matmul` and `matvec`: shapes, the recorded op and its VJP. The GEMMs themselves are
//! `gemm_driver.rs`.
use crate::dispatch2;
use crate::dtype::DType;
use crate::error::{fmt_shape, Error, Result};
use crate::ops::{
    batched_dims, broadcast_shapes, conj, expand_dims, reshape, same_dtype, shape_of,
    sum_to_batched_shape,
};
use crate::tape::{
    input_needed, per_example_input, record_batched, record_per_example, sweep_transpose,
    take_running_total, AxisMap,
};
use crate::tensor::{Data, Tensor};
use ndarray::ArrayD;
use num_complex::Complex;

use super::gemm_driver::{
    addable, matmul_add_kernel, matmul_kernel, matmul_kernel_pair, pair_worth_running, MatElem,
    MatmulDims,
};

fn matmul_dims(op: &str, a: &[usize], b: &[usize], ta: bool, tb: bool) -> Result<MatmulDims> {
    let describe = || {
        format!(
            "a has shape {} (transpose_a={ta}) and b has shape {} (transpose_b={tb})",
            fmt_shape(a),
            fmt_shape(b)
        )
    };
    if a.len() < 2 || b.len() < 2 {
        return Err(Error::shape(
            op,
            format!(
                "both operands must have rank >= 2 (use matvec for a vector): {}",
                describe()
            ),
        ));
    }
    let (ra, ca) = (a[a.len() - 2], a[a.len() - 1]);
    let (rb, cb) = (b[b.len() - 2], b[b.len() - 1]);
    let (m, ka) = if ta { (ca, ra) } else { (ra, ca) };
    let (kb, n) = if tb { (cb, rb) } else { (rb, cb) };
    if ka != kb {
        return Err(Error::shape(
            op,
            format!("inner dimensions must agree ({ka} vs {kb}): {}", describe()),
        ));
    }
    let batch = broadcast_shapes(op, &a[..a.len() - 2], &b[..b.len() - 2]).map_err(|_| {
        Error::shape(
            op,
            format!(
                "batch dimensions are not broadcast-compatible: {}",
                describe()
            ),
        )
    })?;
    Ok(MatmulDims { batch, m, k: ka, n })
}
/// Matrix product of the last two axes, `a @ b`, with the leading (batch) axes broadcast as in
/// NumPy: `[2, 1, 3, 4] @ [5, 4, 6]` is `[2, 5, 3, 6]`. `transpose_a` / `transpose_b` use the
/// transposed matrices (free: the kernel reads through strides). float32, float64, int32,
/// int64, complex64 and complex128 (the GEMM crate's complex kernels); complex gradients
/// multiply by the conjugated operands (TensorFlow's `_MatMulGrad`).
pub fn matmul(a: &Tensor, b: &Tensor, transpose_a: bool, transpose_b: bool) -> Result<Tensor> {
    let y = product_value(&Factors(a, b, transpose_a, transpose_b))?;
    record_matmul(a, b, transpose_a, transpose_b, &y);
    Ok(y)
}

/// The operands of one product and their transpose flags, as `matmul` takes them.
struct Factors<'a>(&'a Tensor, &'a Tensor, bool, bool);

impl Factors<'_> {
    /// The product's multiply-adds, from the shapes alone (no allocation: this runs for
    /// every VJP): each element of `a` meets a row of `b`'s `n` columns, each of `b` a column
    /// of `a`'s `m` rows; the larger count is the whole product unless both operands broadcast
    /// over the batch (then less). Shapes that do not multiply give something `product_value`
    /// rejects anyway.
    fn work(&self) -> usize {
        let Factors(a, b, ta, tb) = *self;
        let (sa, sb) = (a.shape(), b.shape());
        let (ra, rb) = (sa.len(), sb.len());
        if ra < 2 || rb < 2 {
            return 0;
        }
        let m = if ta { sa[ra - 1] } else { sa[ra - 2] };
        let n = if tb { sb[rb - 2] } else { sb[rb - 1] };
        let size = |s: &[usize]| s.iter().product::<usize>();
        (size(sa).saturating_mul(n)).max(size(sb).saturating_mul(m))
    }

    /// `matmul` of these factors, recorded.
    fn product(&self) -> Result<Tensor> {
        matmul(self.0, self.1, self.2, self.3)
    }
}

/// The value of `a @ b` (shapes checked), not recorded.
fn product_value(f: &Factors<'_>) -> Result<Tensor> {
    let op = "matmul";
    let Factors(a, b, ta, tb) = *f;
    let dims = matmul_dims(op, a.shape(), b.shape(), ta, tb)?;
    crate::memory::ensure_shape(op, &dims.out_shape(), a.dtype())?;
    Ok(Tensor::new(
        dispatch2!(num_or_complex a.data(), b.data(), op, |x, z| matmul_kernel(&x.view(), &z.view(), ta, tb, &dims)),
    ))
}

/// Both products of a VJP, each recorded as `matmul` (on this thread, whose tapes they belong
/// to). Two independent products that are each worth a core but not worth splitting run side
/// by side, one per thread (`gemm_driver::pair_worth_running`); each is the same single GEMM
/// either way, so the values do not depend on which thread computed them.
fn products(
    first: Option<Factors<'_>>,
    second: Option<Factors<'_>>,
) -> Result<(Option<Tensor>, Option<Tensor>)> {
    if let (Some(f), Some(s)) = (&first, &second) {
        if pair_worth_running(f.work(), s.work()) {
            if let Some((x, y)) = pair_values(f, s)? {
                record_matmul(f.0, f.1, f.2, f.3, &x);
                record_matmul(s.0, s.1, s.2, s.3, &y);
                return Ok((Some(x), Some(y)));
            }
        }
    }
    Ok((
        first.map(|f| f.product()).transpose()?,
        second.map(|s| s.product()).transpose()?,
    ))
}

/// The values of two products side by side (`gemm_driver::matmul_kernel_pair`), shapes
/// checked, not recorded; `None` for operands other than one floating or complex dtype.
fn pair_values(f: &Factors<'_>, s: &Factors<'_>) -> Result<Option<(Tensor, Tensor)>> {
    let op = "matmul";
    let df = matmul_dims(op, f.0.shape(), f.1.shape(), f.2, f.3)?;
    let ds = matmul_dims(op, s.0.shape(), s.1.shape(), s.2, s.3)?;
    crate::memory::ensure_shape(op, &df.out_shape(), f.0.dtype())?;
    crate::memory::ensure_shape(op, &ds.out_shape(), s.0.dtype())?;
    Ok(match f.0.dtype() {
        DType::F32 => typed_pair::<f32>(f, s, &df, &ds),
        DType::F64 => typed_pair::<f64>(f, s, &df, &ds),
        DType::Complex64 => typed_pair::<Complex<f32>>(f, s, &df, &ds),
        DType::Complex128 => typed_pair::<Complex<f64>>(f, s, &df, &ds),
        _ => None,
    })
}

/// [`pair_values`] for element type `T`: `None` unless all four operands hold `T`.
fn typed_pair<T: MatElem>(
    f: &Factors<'_>,
    s: &Factors<'_>,
    df: &MatmulDims,
    ds: &MatmulDims,
) -> Option<(Tensor, Tensor)>
where
    Data: From<ArrayD<T>>,
{
    let (fa, fb) = (
        T::values_of(f.0.data())?.view(),
        T::values_of(f.1.data())?.view(),
    );
    let (sa, sb) = (
        T::values_of(s.0.data())?.view(),
        T::values_of(s.1.data())?.view(),
    );
    let (x, y) = matmul_kernel_pair((&fa, &fb, f.2, f.3, df), (&sa, &sb, s.2, s.3, ds));
    Some((Tensor::new(Data::from(x)), Tensor::new(Data::from(y))))
}

/// Input `k`'s gradient, the product `f`, added to the running total the sweep hands over
/// (`tape::take_running_total`): in the total's buffer by one GEMM when the shapes and
/// dtypes allow (`matmul_add_kernel`), else the product then the sum. `None` when the sweep
/// offers no total.
fn with_running_total(k: usize, f: &Factors<'_>, shape: &[usize]) -> Result<Option<Tensor>> {
    let Factors(a, b, ta, tb) = *f;
    let dims = matmul_dims("matmul", a.shape(), b.shape(), ta, tb)?;
    // Products the GEMM cannot add (large ones: split, or paired with the other gradient's)
    // leave the total to the sweep.
    let fits = a.ndim() == 2
        && b.ndim() == 2
        && shape == [dims.m, dims.n]
        && a.dtype() == b.dtype()
        && addable(&dims, a.dtype());
    if !fits {
        return Ok(None);
    }
    let Some(mut total) = take_running_total(k) else {
        return Ok(None);
    };
    if total.shape() == shape && total.dtype() == a.dtype() && add_product(&mut total, f, &dims) {
        // A new value: a fresh id.
        return Ok(Some(Tensor::new(total.data().clone())));
    }
    let product = sum_to_batched_shape(&f.product()?, 0, shape)?;
    Ok(Some(crate::ops::accumulate(total, product)?))
}

/// `total += a @ b` in `total`'s buffer, when nothing else holds it (`matmul_add_kernel`).
fn add_product(total: &mut Tensor, f: &Factors<'_>, dims: &MatmulDims) -> bool {
    fn typed<T: MatElem>(
        dst: &mut crate::values::Values<T>,
        f: &Factors<'_>,
        dims: &MatmulDims,
    ) -> Option<bool> {
        let a = T::values_of(f.0.data())?.view();
        let b = T::values_of(f.1.data())?.view();
        let dst = dst.unshared_slice_mut()?;
        Some(matmul_add_kernel(&a, &b, f.2, f.3, dims, dst))
    }
    let Some(data) = total.data_mut() else {
        return false;
    };
    let done = match data {
        Data::F32(d) => typed(d, f, dims),
        Data::F64(d) => typed(d, f, dims),
        Data::C64(d) => typed(d, f, dims),
        Data::C128(d) => typed(d, f, dims),
        _ => None,
    };
    done == Some(true)
}

/// Records `y = a @ b` (computed already) on the active tapes.
fn record_matmul(a: &Tensor, b: &Tensor, transpose_a: bool, transpose_b: bool, y: &Tensor) {
    let op = "matmul";
    let (ta, tb) = (transpose_a, transpose_b);
    let (sa, sb) = (shape_of(a), shape_of(b));
    // Batch axes aligned from the end, `a`'s rows and `b`'s columns kept, the rest contracted.
    let mixes = AxisMap::matmul(ta, tb);
    // Batchable: `dy` may carry leading batch axes (a vectorised Jacobian), which the products
    // below broadcast over like any batch axis; `a` and `b` are saved without them. With a
    // shared 2-D operand the kernel turns the batch into GEMM rows (`dy @ b^T`) or columns
    // (`a^T @ dy`), so one sweep for many rows costs a few large GEMMs.
    let plain = sa.len() == 2 && sb.len() == 2 && !ta;
    let vjp = move |s: &[Tensor], dy: &Tensor, batch: usize| {
        // Complex operands enter conjugated, each only where the other's gradient reads it.
        let (conj_a, conj_b);
        let (a, b) = if s[0].dtype().is_complex() {
            conj_a = if input_needed(1) || per_example_input(1) {
                conj(&s[0])?
            } else {
                s[0].clone()
            };
            conj_b = if input_needed(0) {
                conj(&s[1])?
            } else {
                s[1].clone()
            };
            (&conj_a, &conj_b)
        } else {
            (&s[0], &s[1])
        };
        if per_example_input(1) {
            // A per-example sweep (`dy` has the output's shape, rows apart): `a`'s gradient as
            // usual, `b`'s one matrix per row, the outer product of that row of `a` with its
            // row of `dy` (`[rows, k, 1] @ [rows, 1, n]`, each product exact).
            let ga = input_needed(0)
                .then(|| matmul(dy, b, false, !tb))
                .transpose()?;
            let (left, right) = if tb { (dy, a) } else { (a, dy) };
            let gb = matmul(
                &expand_dims(left, -1)?,
                &expand_dims(right, -2)?,
                false,
                false,
            )?;
            return Ok(crate::grads![ga, Some(gb)]);
        }
        // Only the gradients the sweep will use: the other one can be the largest tensor of a
        // vectorised Jacobian (a constant weight's gradient, one per row).
        // `b^T` read again and again in one sweep (a recurrence's weight) from a row-major copy.
        let b_t = (input_needed(0) && !ta && !tb && batch == 0)
            .then(|| sweep_transpose(b))
            .flatten();
        let ga = input_needed(0).then_some(match (ta, tb) {
            (false, false) if b_t.is_some() => Factors(dy, b_t.as_ref().unwrap_or(b), false, false),
            (false, false) => Factors(dy, b, false, true),
            (false, true) => Factors(dy, b, false, false),
            (true, false) => Factors(b, dy, false, true),
            (true, true) => Factors(b, dy, true, true),
        });
        // A batched `a` against an unbatched `b` (a dense layer on [batch, rows, features]):
        // fold the batch into the rows instead of a batched product followed by a sum.
        let folded = if input_needed(1) && !ta && sb.len() == 2 && sa.len() > 2 {
            let rows = sa[..sa.len() - 1].iter().product::<usize>();
            let a2 = reshape(a, &[rows as isize, sa[sa.len() - 1] as isize])?;
            let dy2 = reshape(
                dy,
                &batched_dims(dy, batch, &[rows, dy.shape()[dy.ndim() - 1]]),
            )?;
            Some((a2, dy2))
        } else {
            None
        };
        let gb = if !input_needed(1) {
            None
        } else if let Some((a2, dy2)) = &folded {
            Some(if tb {
                Factors(dy2, a2, true, false)
            } else {
                Factors(a2, dy2, true, false)
            })
        } else {
            Some(match (ta, tb) {
                (false, false) => Factors(a, dy, true, false),
                (false, true) => Factors(dy, a, true, false),
                (true, false) => Factors(a, dy, false, false),
                (true, true) => Factors(dy, a, true, true),
            })
        };
        // A gradient the sweep has a running total for (a weight used at every step of a
        // recurrence) is added into that total's buffer by the GEMM itself.
        let (total_a, total_b) = if batch == 0 {
            let a_total = match &ga {
                Some(f) => with_running_total(0, f, &sa)?,
                None => None,
            };
            let b_total = match &gb {
                Some(f) if folded.is_none() => with_running_total(1, f, &sb)?,
                _ => None,
            };
            (a_total, b_total)
        } else {
            (None, None)
        };
        let ga = ga.filter(|_| total_a.is_none());
        let gb = gb.filter(|_| total_b.is_none());
        let (ga, gb) = products(ga, gb)?;
        Ok(crate::grads![
            total_a.or(ga
                .map(|g| sum_to_batched_shape(&g, batch, &sa))
                .transpose()?),
            total_b.or(gb
                .map(|g| sum_to_batched_shape(&g, batch, &sb))
                .transpose()?),
        ])
    };
    // A plain product of matrices (`x @ W`, rows of `x` apart) can give `W` per-example
    // gradients: one outer product per row.
    if plain {
        record_per_example(op, &[a, b], y, &[a, b], mixes, vjp);
    } else {
        record_batched(op, &[a, b], y, &[a, b], mixes, true, vjp);
    }
}

/// Matrix-vector product: `a` `[..., M, N]` (or `[..., N, M]` with `transpose_a`) times `x`
/// `[..., N]` gives `[..., M]`, batch axes broadcast.
pub fn matvec(a: &Tensor, x: &Tensor, transpose_a: bool) -> Result<Tensor> {
    let op = "matvec";
    let (sa, sx) = (a.shape(), x.shape());
    if sa.len() < 2 || sx.is_empty() {
        return Err(Error::shape(
            op,
            format!(
                "a must have rank >= 2 and x rank >= 1, got shapes {} and {}",
                fmt_shape(sa),
                fmt_shape(sx)
            ),
        ));
    }
    let inner = if transpose_a {
        sa[sa.len() - 2]
    } else {
        sa[sa.len() - 1]
    };
    if inner != sx[sx.len() - 1] {
        return Err(Error::shape(
            op,
            format!(
                "a of shape {} (transpose_a={transpose_a}) cannot multiply a vector of shape {}: \
                 {inner} != {}",
                fmt_shape(sa),
                fmt_shape(sx),
                sx[sx.len() - 1]
            ),
        ));
    }
    if let Err(e) = broadcast_shapes(op, &sa[..sa.len() - 2], &sx[..sx.len() - 1]) {
        return Err(Error::shape(
            op,
            format!(
                "batch dimensions of {} and {} do not broadcast ({})",
                fmt_shape(sa),
                fmt_shape(sx),
                e.message
            ),
        ));
    }
    same_dtype(op, a, x)?;
    let y = matmul(a, &expand_dims(x, -1)?, transpose_a, false)?;
    let dims: Vec<isize> = y.shape()[..y.ndim() - 1]
        .iter()
        .map(|&d| d as isize)
        .collect();
    reshape(&y, &dims)
}
