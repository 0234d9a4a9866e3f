//! Linear algebra: matmul (batched, NumPy broadcasting of the batch dimensions), matvec,
//! einsum with the generalised diagonals it needs, eye, solve and inv.
//!
//! - `matmul.rs`: the GEMM kernel glue, `matmul` with its VJP, `matvec`;
//! - `einsum.rs`: the equation parser and the contraction into batched matmuls;
//! - `diagonal.rs`: `diagonal_part` / `diagonal_embed` (einsum's repeated labels);
//! - `solve.rs`: LU factorisation, `solve`, `solve_adjoint`, `inv`, and `eye`.
mod diagonal;
mod einsum;
mod matmul;
mod solve;

pub use diagonal::{diagonal_embed, diagonal_part};
pub use einsum::einsum;
pub use matmul::{matmul, matvec};
pub use solve::{eye, inv, solve, solve_adjoint};
