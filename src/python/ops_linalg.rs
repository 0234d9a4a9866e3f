//! Op functions, part three: the factorisations and matrix functions of `rt.linalg`
//! (src/ops/linalg/), with TensorFlow 2.21's signatures and outputs.
use pyo3::prelude::*;
use pyo3::types::PyTuple;

use super::bindings::bindings;
use super::convert::convert_pair;
use super::error::{axis_or, guard, int_arg, number_arg, number_or};
use super::ops::{tensor, wrap, Obj, OptObj};
use super::tensor::PyTensor;
use crate::ops;

/// The Cholesky factor `L` (lower triangular, `L @ L^T = input`) of each symmetric positive
/// definite matrix in the last two axes; only the lower triangle is read. A matrix that is not
/// positive definite gives NaN, as TensorFlow's CPU kernel does.
///
/// >>> import rustape as rt
/// >>> rt.linalg.cholesky([[4.0, 2.0], [2.0, 2.0]]).numpy().tolist()
/// [[2.0, 0.0], [1.0, 1.0]]
#[pyfunction]
#[pyo3(signature = (input, name=None))]
pub fn cholesky(input: Obj, name: OptObj) -> PyResult<PyTensor> {
    let _ = name;
    guard(|| wrap(ops::cholesky(&tensor(input)?)))
}

/// Solves `matrix @ x = rhs` for triangular `matrix` (`[..., M, M]`, lower unless
/// `lower=False`; only that triangle is read), or `matrix^T @ x = rhs` with `adjoint=True`;
/// `rhs` is `[..., M, K]` and the batch axes broadcast.
///
/// >>> import rustape as rt
/// >>> rt.linalg.triangular_solve([[2.0, 0.0], [1.0, 1.0]], [[2.0], [3.0]]).numpy().tolist()
/// [[1.0], [2.0]]
#[pyfunction]
#[pyo3(signature = (matrix, rhs, lower=true, adjoint=false, name=None))]
pub fn triangular_solve(
    matrix: Obj,
    rhs: Obj,
    lower: bool,
    adjoint: bool,
    name: OptObj,
) -> PyResult<PyTensor> {
    let _ = name;
    guard(|| {
        let (m, r) = convert_pair(matrix, rhs)?;
        wrap(ops::triangular_solve(&m, &r, lower, adjoint))
    })
}

/// Solves `A x = rhs` given `chol`, the Cholesky factor of `A` (two triangular solves).
///
/// >>> import rustape as rt
/// >>> chol = rt.linalg.cholesky([[4.0, 2.0], [2.0, 2.0]])
/// >>> rt.linalg.cholesky_solve(chol, [[6.0], [4.0]]).numpy().tolist()
/// [[1.0], [1.0]]
#[pyfunction]
#[pyo3(signature = (chol, rhs, name=None))]
pub fn cholesky_solve(chol: Obj, rhs: Obj, name: OptObj) -> PyResult<PyTensor> {
    let _ = name;
    guard(|| {
        let (c, r) = convert_pair(chol, rhs)?;
        wrap(ops::cholesky_solve(&c, &r))
    })
}

/// The determinant of each matrix in the last two axes (`[..., M, M]` to `[...]`). A singular
/// matrix has determinant 0, and its gradient raises (it needs the inverse), as in
/// TensorFlow.
///
/// >>> import rustape as rt
/// >>> float(rt.linalg.det([[2.0, 1.0], [1.0, 3.0]]))
/// 5.0
#[pyfunction]
#[pyo3(signature = (input, name=None))]
pub fn det(input: Obj, name: OptObj) -> PyResult<PyTensor> {
    let _ = name;
    guard(|| wrap(ops::det(&tensor(input)?)))
}

/// `(sign, log_abs_determinant)` of each matrix in the last two axes; `(0, -inf)` for a
/// singular matrix. Only the log has a gradient.
///
/// >>> import rustape as rt
/// >>> sign, log_abs = rt.linalg.slogdet([[0.0, 1.0], [2.0, 0.0]])
/// >>> float(sign), round(float(log_abs), 6)
/// (-1.0, 0.693147)
#[pyfunction]
#[pyo3(signature = (input, name=None))]
pub fn slogdet<'py>(py: Python<'py>, input: Obj, name: OptObj) -> PyResult<Bound<'py, PyTuple>> {
    let _ = name;
    guard(|| {
        let (sign, log_abs) = ops::slogdet(&tensor(input)?)?;
        PyTuple::new(py, [PyTensor::new(sign), PyTensor::new(log_abs)])
    })
}

/// The log-determinant of each symmetric positive definite matrix: `2 * sum(log(diag(L)))`
/// with `L` its Cholesky factor (NaN when not positive definite).
///
/// >>> import rustape as rt
/// >>> round(float(rt.linalg.logdet([[4.0, 2.0], [2.0, 2.0]])), 6)
/// 1.386294
#[pyfunction]
#[pyo3(signature = (matrix, name=None))]
pub fn logdet(matrix: Obj, name: OptObj) -> PyResult<PyTensor> {
    let _ = name;
    guard(|| wrap(ops::logdet(&tensor(matrix)?)))
}

/// The QR decomposition `(q, r)` of each matrix (`[..., M, N]`): `q` `[..., M, K]` with
/// orthonormal columns, `r` `[..., K, N]` upper triangular, `K = min(M, N)` (or `M` with
/// `full_matrices=True`). Signs as TensorFlow's (Householder reflections).
///
/// >>> import rustape as rt
/// >>> q, r = rt.linalg.qr(rt.constant([[3.0, 1.0], [4.0, 2.0]], dtype=rt.float64))
/// >>> q.numpy().round(6).tolist(), r.numpy().round(6).tolist()
/// ([[-0.6, -0.8], [-0.8, 0.6]], [[-5.0, -2.2], [0.0, 0.4]])
#[pyfunction]
#[pyo3(signature = (input, full_matrices=false, name=None))]
pub fn qr<'py>(
    py: Python<'py>,
    input: Obj,
    full_matrices: bool,
    name: OptObj,
) -> PyResult<Bound<'py, PyTuple>> {
    let _ = name;
    guard(|| {
        let (q, r) = ops::qr(&tensor(input)?, full_matrices)?;
        PyTuple::new(py, [PyTensor::new(q), PyTensor::new(r)])
    })
}

/// The eigen decomposition `(e, v)` of each symmetric matrix (only the lower triangle is
/// read): eigenvalues `[..., M]` ascending, eigenvectors the columns of `v`, each with its
/// entry of largest magnitude positive. NaN or inf in the input is a ValueError.
///
/// >>> import rustape as rt
/// >>> e, v = rt.linalg.eigh([[2.0, 1.0], [1.0, 2.0]])
/// >>> e.numpy().round(6).tolist()
/// [1.0, 3.0]
#[pyfunction]
#[pyo3(signature = (tensor, name=None))]
pub fn eigh<'py>(py: Python<'py>, tensor: Obj, name: OptObj) -> PyResult<Bound<'py, PyTuple>> {
    let _ = name;
    guard(|| {
        let (e, v) = ops::eigh(&super::ops::tensor(tensor)?)?;
        PyTuple::new(py, [PyTensor::new(e), PyTensor::new(v)])
    })
}

/// The LU factorisation with partial pivoting of each square matrix (float or complex), as
/// `tf.linalg.lu`: `(lu, p)`. `lu` packs the unit lower factor `L` (below the diagonal) and
/// the upper factor `U` (on and above it); `p` (`[..., M]`, `output_idx_type`) lists the
/// input's rows in the order of `L @ U`'s. Not differentiable (TensorFlow has no gradient for
/// it); `lu_solve`, `lu_matrix_inverse` and `lu_reconstruct` differentiate through `lu`.
///
/// >>> import rustape as rt
/// >>> lu, p = rt.linalg.lu([[2.0, 4.0], [4.0, 2.0]])
/// >>> lu.numpy().tolist(), p.numpy().tolist()
/// ([[4.0, 2.0], [0.5, 3.0]], [1, 0])
#[pyfunction]
#[pyo3(signature = (input, output_idx_type=None, name=None))]
pub fn lu<'py>(
    py: Python<'py>,
    input: Obj,
    output_idx_type: OptObj,
    name: OptObj,
) -> PyResult<Bound<'py, PyTuple>> {
    let _ = name;
    let index_dtype =
        super::dtype::parse_optional_dtype(output_idx_type)?.unwrap_or(crate::dtype::DType::I32);
    guard(|| {
        let (lu, p) = ops::lu(&tensor(input)?, index_dtype)?;
        PyTuple::new(py, [PyTensor::new(lu), PyTensor::new(p)])
    })
}

/// The eigenvalues of each symmetric matrix, ascending.
///
/// >>> import rustape as rt
/// >>> rt.linalg.eigvalsh([[2.0, 0.0], [0.0, 1.0]]).numpy().tolist()
/// [1.0, 2.0]
#[pyfunction]
#[pyo3(signature = (tensor, name=None))]
pub fn eigvalsh(tensor: Obj, name: OptObj) -> PyResult<PyTensor> {
    let _ = name;
    guard(|| wrap(ops::eigvalsh(&super::ops::tensor(tensor)?)))
}

/// The singular value decomposition `(s, u, v)` of each matrix, as TensorFlow returns it (`v`,
/// not `vh`: `tensor = u @ diag(s) @ v^T`), `s` descending; only `s` with
/// `compute_uv=False`. Each column of `v` has its entry of largest magnitude positive.
///
/// >>> import rustape as rt
/// >>> s, u, v = rt.linalg.svd([[3.0, 0.0], [0.0, -4.0]])
/// >>> s.numpy().tolist(), u.numpy().tolist(), v.numpy().tolist()
/// ([4.0, 3.0], [[0.0, 1.0], [-1.0, 0.0]], [[0.0, 1.0], [1.0, 0.0]])
#[pyfunction]
#[pyo3(signature = (tensor, full_matrices=false, compute_uv=true, name=None))]
pub fn svd<'py>(
    py: Python<'py>,
    tensor: Obj,
    full_matrices: bool,
    compute_uv: bool,
    name: OptObj,
) -> PyResult<Bound<'py, PyAny>> {
    let _ = name;
    guard(|| {
        let x = super::ops::tensor(tensor)?;
        if !compute_uv {
            let s = PyTensor::new(ops::svd_values(&x)?);
            return Ok(s.into_pyobject(py)?.into_any());
        }
        let (s, u, v) = ops::svd(&x, full_matrices)?;
        let parts = [PyTensor::new(s), PyTensor::new(u), PyTensor::new(v)];
        Ok(PyTuple::new(py, parts)?.into_any())
    })
}

/// Least-squares solutions of `matrix @ x = rhs`. `fast=True` solves the normal equations
/// (with `l2_regularizer` added to the Gramian) by Cholesky; `fast=False` gives the
/// minimum-norm solution of any rank (ignoring `l2_regularizer`, as TensorFlow does) and,
/// unlike TensorFlow, has a gradient.
///
/// >>> import rustape as rt
/// >>> x = rt.linalg.lstsq([[1.0, 0.0], [0.0, 1.0], [1.0, 1.0]], [[1.0], [1.0], [2.0]])
/// >>> x.numpy().round(6).tolist()
/// [[1.0], [1.0]]
#[pyfunction]
#[pyo3(signature = (matrix, rhs, l2_regularizer=None, fast=true, name=None),
    text_signature = "(matrix, rhs, l2_regularizer=0.0, fast=True, name=None)"
)]
pub fn lstsq(
    matrix: Obj,
    rhs: Obj,
    l2_regularizer: OptObj,
    fast: bool,
    name: OptObj,
) -> PyResult<PyTensor> {
    let _ = name;
    guard(|| {
        let l2_regularizer = number_or(l2_regularizer, 0.0, "linalg.lstsq", "l2_regularizer")?;
        let (m, r) = convert_pair(matrix, rhs)?;
        wrap(ops::lstsq(&m, &r, l2_regularizer, fast))
    })
}

/// The Moore-Penrose pseudo-inverse of each matrix (`[..., M, N]` to `[..., N, M]`), from the
/// SVD, dropping singular values at most `rcond` times the largest (default
/// `10 * max(M, N) * eps`).
///
/// >>> import rustape as rt
/// >>> rt.linalg.pinv([[2.0, 0.0], [0.0, 0.0]]).numpy().tolist()
/// [[0.5, 0.0], [0.0, 0.0]]
#[pyfunction]
#[pyo3(signature = (a, rcond=None, validate_args=false, name=None))]
pub fn pinv(a: Obj, rcond: OptObj, validate_args: bool, name: OptObj) -> PyResult<PyTensor> {
    let _ = (name, validate_args);
    guard(|| {
        let rcond = match rcond.filter(|r| !r.is_none()) {
            Some(r) => Some(number_arg(r, "linalg.pinv", "rcond")?),
            None => None,
        };
        wrap(ops::pinv(&tensor(a)?, rcond))
    })
}

/// The matrix exponential of each square matrix (scaling and squaring with Padé
/// approximants); NaN for a matrix holding NaN or inf.
///
/// >>> import rustape as rt
/// >>> rt.linalg.expm([[0.0, 1.0], [0.0, 0.0]]).numpy().tolist()
/// [[1.0, 1.0], [0.0, 1.0]]
#[pyfunction]
#[pyo3(signature = (input, name=None))]
pub fn expm(input: Obj, name: OptObj) -> PyResult<PyTensor> {
    let _ = name;
    guard(|| wrap(ops::expm(&tensor(input)?)))
}

/// Zeros every element outside a band of each matrix: `num_lower` subdiagonals and
/// `num_upper` superdiagonals are kept (negative: the whole triangle).
///
/// >>> import rustape as rt
/// >>> rt.linalg.band_part([[1.0, 2.0], [3.0, 4.0]], -1, 0).numpy().tolist()
/// [[1.0, 0.0], [3.0, 4.0]]
#[pyfunction]
#[pyo3(signature = (input, num_lower, num_upper, name=None))]
pub fn band_part(input: Obj, num_lower: Obj, num_upper: Obj, name: OptObj) -> PyResult<PyTensor> {
    let _ = name;
    guard(|| {
        let num_lower = i64_arg(num_lower, "linalg.band_part", "num_lower")?;
        let num_upper = i64_arg(num_upper, "linalg.band_part", "num_upper")?;
        wrap(ops::band_part(&tensor(input)?, num_lower, num_upper))
    })
}

/// Matrices with `diagonal` (`[..., len]`) on diagonal `k` and `padding_value` elsewhere;
/// `num_rows` / `num_cols` of None or -1 are the smallest that hold the diagonal.
///
/// >>> import rustape as rt
/// >>> rt.linalg.diag([1.0, 2.0]).numpy().tolist()
/// [[1.0, 0.0], [0.0, 2.0]]
/// >>> rt.linalg.diag([1.0, 2.0], k=1).numpy().tolist()
/// [[0.0, 1.0, 0.0], [0.0, 0.0, 2.0], [0.0, 0.0, 0.0]]
#[pyfunction]
#[pyo3(signature = (diagonal, name=None, k=None, num_rows=None, num_cols=None, padding_value=None, align="RIGHT_LEFT"),
    text_signature = "(diagonal, name=None, k=0, num_rows=None, num_cols=None, padding_value=0.0, align=\"RIGHT_LEFT\")"
)]
pub fn diag(
    diagonal: Obj,
    name: OptObj,
    k: OptObj,
    num_rows: OptObj,
    num_cols: OptObj,
    padding_value: OptObj,
    align: Option<&str>,
) -> PyResult<PyTensor> {
    let _ = (name, align);
    let op = "linalg.diag";
    // TensorFlow's default -1 (and None) leave a size to be inferred.
    let size = |v: OptObj, arg: &str| -> PyResult<Option<usize>> {
        Ok(match v.filter(|v| !v.is_none()) {
            Some(v) => usize::try_from(i64_arg(v, op, arg)?).ok(),
            None => None,
        })
    };
    guard(|| {
        let k = axis_or(k, 0, op, "k")? as i64;
        let padding_value = number_or(padding_value, 0.0, op, "padding_value")?;
        wrap(ops::matrix_diag(
            &tensor(diagonal)?,
            k,
            size(num_rows, "num_rows")?,
            size(num_cols, "num_cols")?,
            padding_value,
        ))
    })
}

/// `input` with diagonal `k` of each matrix replaced by `diagonal` (`input.shape[:-2] +
/// [len]`).
///
/// >>> import rustape as rt
/// >>> rt.linalg.set_diag([[1.0, 2.0], [3.0, 4.0]], [9.0, 8.0]).numpy().tolist()
/// [[9.0, 2.0], [3.0, 8.0]]
#[pyfunction]
#[pyo3(signature = (input, diagonal, name=None, k=None, align="RIGHT_LEFT"),
    text_signature = "(input, diagonal, name=None, k=0, align=\"RIGHT_LEFT\")"
)]
pub fn set_diag(
    input: Obj,
    diagonal: Obj,
    name: OptObj,
    k: OptObj,
    align: Option<&str>,
) -> PyResult<PyTensor> {
    let _ = (name, align);
    guard(|| {
        let k = axis_or(k, 0, "linalg.set_diag", "k")? as i64;
        let (x, d) = convert_pair(input, diagonal)?;
        wrap(ops::matrix_set_diag(&x, &d, k))
    })
}

/// An integer argument in i64's range (a ValueError naming `op` and `arg` otherwise).
fn i64_arg(obj: &Bound<'_, PyAny>, op: &str, arg: &str) -> PyResult<i64> {
    Ok(int_arg(obj, op, arg, i64::MIN as i128, i64::MAX as i128)? as i64)
}

// The Python bindings of this file (rows: src/python/bindings.rs, DEVELOPERS.md "Adding an op").
bindings! {
    fn cholesky => [linalg];
    fn triangular_solve => [linalg];
    fn cholesky_solve => [linalg];
    fn det => [linalg];
    fn slogdet => [linalg];
    fn logdet => [linalg];
    fn qr => [linalg];
    fn lu => [linalg];
    fn eigh => [linalg];
    fn eigvalsh => [linalg];
    fn svd => [linalg];
    fn lstsq => [linalg];
    fn pinv => [linalg];
    fn expm => [linalg];
    fn band_part => [linalg];
    fn diag => [linalg];
    fn set_diag => [linalg];
}
