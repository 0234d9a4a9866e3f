//! Linear algebra: matmul (batched, NumPy broadcasting of the batch dimensions), matvec,
//! einsum with the generalised diagonals it needs, eye, solve and inv.
//!
//! - `matmul.rs`: `matmul` with its VJP, `matvec`;
//! - `gemm_driver.rs`: the GEMM kernel glue (batches, splitting, two products side by side);
//! - `mat_elem.rs`: one single-threaded product per element type (`MatElem`);
//! - `turned_gemm.rs`: small float32 `dy @ W^T` products written column-major, then transposed;
//! - `zero_columns.rs`: GEMMs packed down to the nonzero columns of the left operand;
//! - `einsum.rs`: the equation parser and the contraction into batched matmuls;
//! - `diagonal.rs`: `diagonal_part` / `diagonal_embed` (einsum's repeated labels);
//! - `solve.rs`: LU factorisation, `solve`, `solve_adjoint`, `inv`, and `eye`;
//! - `band.rs`: `band_part`, `matrix_diag`, `matrix_diag_part`, `matrix_set_diag`;
//! - `cholesky.rs`: `cholesky`, `triangular_solve`, `cholesky_solve`, `logdet`;
//! - `det.rs`: `det`, `slogdet`;
//! - `qr.rs`: Householder `qr`;
//! - `eigh.rs`: Jacobi `eigh`, `eigvalsh`;
//! - `svd.rs`: one-sided Jacobi `svd`, `svd_values`;
//! - `lstsq.rs`: `pinv`, `lstsq` (compositions);
//! - `lu.rs`: TensorFlow's packed `lu` with its permutation;
//! - `expm.rs`: scaling-and-squaring Padé `expm`;
//! - `matrices.rs`: validation and batch helpers the factorisations share.
//!
//! Every factorisation follows TensorFlow 2.21's `tf.linalg` for signatures, outputs and
//! gradients; the VJPs are written in rustape ops (any order) and take batched cotangents.
mod band;
mod cholesky;
mod det;
mod diagonal;
mod eigh;
mod einsum;
mod expm;
mod gemm_driver;
mod lstsq;
mod lu;
mod mat_elem;
mod matmul;
mod matrices;
mod qr;
mod solve;
mod svd;
mod turned_gemm;
mod zero_columns;

pub use band::{band_part, matrix_diag, matrix_diag_part, matrix_set_diag};
pub use cholesky::{cholesky, cholesky_solve, logdet, triangular_solve};
pub use det::{det, slogdet};
pub use diagonal::{diagonal_embed, diagonal_part};
pub use eigh::{eigh, eigvalsh};
pub use einsum::einsum;
pub use expm::expm;
pub use lstsq::{lstsq, pinv};
pub use lu::lu;
pub use matmul::{matmul, matvec};
pub use qr::qr;
pub use solve::{eye, inv, solve, solve_adjoint};
pub use svd::{svd, svd_values};

use crate::tape::mixes_input;

/// The old row-mixing mask (see `crate::tape::mixes_input`) of input `k` of an op whose output is
/// `[batch..., r, c]`, `batch` being the broadcast of its operands' leading axes (matmul, solve,
/// inv), when the output has batch axes (rank > 2): output row `i` is then batch element `i`,
/// which an operand keeps only if it has that axis itself, unbroadcast (the output's rank and
/// the same size on axis 0). An operand broadcast along it reaches every output row.
/// Ops describe their axes with `crate::tape::AxisMap` now (`AxisMap::mix_per_input`,
/// `AxisMap::along`); this stays for ops that still pass masks.
#[allow(dead_code)]
fn batch_axis_rows(k: usize, operand: &[usize], output_rank: usize, output_rows: usize) -> u8 {
    debug_assert!(output_rank > 2, "rank-2 outputs have no batch axis");
    if operand.len() == output_rank && operand.first() == Some(&output_rows) {
        0
    } else {
        mixes_input(k)
    }
}
