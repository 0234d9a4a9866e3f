//! `batch_jacobian` through the linear-algebra ops: per-row computations (a dense layer,
//! batched matmul and solve, einsum with the batch label first) give the diagonal blocks of the
//! full Jacobian; ops that mix batch rows (the right operand of a plain matmul, a transposed
//! left operand, a single linear system, a broadcast batch operand) are refused by name.
mod support;

use rustape::ops::{diagonal_embed, diagonal_part, einsum, inv, matmul, matvec, solve};
use rustape::{Error, ErrorKind, Tape, Tensor, Unconnected};
use support::assert_close;
use support::linalg::{rand64, well_conditioned};

/// Records `f(source)` on a persistent tape watching `source`.
fn record(source: &Tensor, f: &dyn Fn(&Tensor) -> rustape::Result<Tensor>) -> (Tape, Tensor) {
    let tape = Tape::new(true, true);
    let y = {
        let _r = tape.enter().unwrap();
        tape.watch(source);
        f(source).unwrap()
    };
    (tape, y)
}

/// `batch_jacobian(f(source), source)` is accepted and equals the diagonal blocks of the full
/// Jacobian, whose off-diagonal blocks are zero (the rows really are independent).
fn matches_full_jacobian(source: &Tensor, f: &dyn Fn(&Tensor) -> rustape::Result<Tensor>) {
    let (tape, y) = record(source, f);
    let batch = y.shape()[0];
    let bj = tape
        .batch_jacobian(&y, &source.into(), Unconnected::Zero)
        .unwrap_or_else(|e| panic!("refused: {e}"))
        .unwrap();
    let full = tape
        .jacobian(&y, &[source.into()], Unconnected::Zero)
        .unwrap()
        .pop()
        .unwrap()
        .unwrap();
    let ny: usize = y.shape()[1..].iter().product();
    let nx: usize = source.shape()[1..].iter().product();
    let mut want_shape = y.shape().to_vec();
    want_shape.extend(&source.shape()[1..]);
    assert_eq!(bj.shape(), &want_shape[..]);

    let full = full.to_f64_vec();
    let at = |i: usize, p: usize, j: usize, q: usize| full[((i * ny + p) * batch + j) * nx + q];
    let mut blocks = Vec::with_capacity(batch * ny * nx);
    for i in 0..batch {
        for p in 0..ny {
            for q in 0..nx {
                blocks.push(at(i, p, i, q));
                for j in (0..batch).filter(|&j| j != i) {
                    assert_eq!(at(i, p, j, q), 0.0, "row {i} depends on source row {j}");
                }
            }
        }
    }
    assert!(
        blocks.iter().any(|&v| v != 0.0),
        "a trivial Jacobian tests nothing"
    );
    assert_close(&bj.to_f64_vec(), &blocks, 1e-12);
}

/// `batch_jacobian(f(source), source)` is a ValueError naming `op`.
fn refused(source: &Tensor, op: &str, f: &dyn Fn(&Tensor) -> rustape::Result<Tensor>) -> Error {
    let (tape, y) = record(source, f);
    let e = tape
        .batch_jacobian(&y, &source.into(), Unconnected::Zero)
        .expect_err("rows mix: batch_jacobian must refuse");
    assert_eq!(e.kind, ErrorKind::Value, "{e}");
    assert!(
        e.message.contains(&format!("'{op}'")),
        "want '{op}' named: {}",
        e.message
    );
    e
}

// ---------------------------------------------------------------------------------------------
// matmul, matvec
// ---------------------------------------------------------------------------------------------

#[test]
fn dense_layer_x_at_w_keeps_rows() {
    let w = rand64(&[3, 5], 1);
    matches_full_jacobian(&rand64(&[4, 3], 2), &|x| matmul(x, &w, false, false));
    let wt = rand64(&[5, 3], 3);
    matches_full_jacobian(&rand64(&[4, 3], 4), &|x| matmul(x, &wt, false, true));
    // A dense layer on [batch, rows, features]: the batch axis, b broadcast.
    matches_full_jacobian(&rand64(&[4, 2, 3], 5), &|x| matmul(x, &w, false, false));
}

#[test]
fn batched_matmul_keeps_rows_of_both_operands() {
    let (a, b) = (rand64(&[4, 2, 3], 1), rand64(&[4, 3, 5], 2));
    matches_full_jacobian(&a, &|a| matmul(a, &b, false, false));
    matches_full_jacobian(&b, &|b| matmul(&a, b, false, false));
    // Transposes act on the matrices, not on the batch axis.
    let at = rand64(&[4, 3, 2], 3);
    matches_full_jacobian(&at, &|at| matmul(at, &b, true, false));
    matches_full_jacobian(&rand64(&[4, 5, 3], 4), &|bt| matmul(&a, bt, false, true));
    // The same operand on both sides (x^T x per batch element).
    matches_full_jacobian(&rand64(&[4, 3, 3], 5), &|x| matmul(x, x, true, false));
    // Batched matrix times batched vector.
    let m = rand64(&[4, 2, 3], 6);
    matches_full_jacobian(&rand64(&[4, 3], 7), &|v| matvec(&m, v, false));
}

#[test]
fn w_at_x_is_refused_naming_matmul() {
    let w = rand64(&[4, 4], 1);
    refused(&rand64(&[4, 3], 2), "matmul", &|x| {
        matmul(&w, x, false, false)
    });
    // Transposed, b's rows become the output's columns.
    refused(&rand64(&[4, 4], 3), "matmul", &|x| {
        matmul(&w, x, false, true)
    });
}

#[test]
fn transposed_left_operand_is_refused_naming_matmul() {
    let e = refused(&rand64(&[4, 4], 1), "matmul", &|x| {
        matmul(x, x, true, false)
    });
    assert!(e.message.contains("jacobian()"), "{}", e.message);
}

#[test]
fn an_operand_broadcast_along_the_batch_axis_is_refused() {
    // w [4, 5] is one matrix shared by all 4 batch elements of a: every output row uses all of w.
    let a = rand64(&[4, 2, 4], 1);
    refused(&rand64(&[4, 5], 2), "matmul", &|w| {
        matmul(&a, w, false, false)
    });
    // A batch axis of size 1 stretched to 4 is a broadcast too.
    let b = rand64(&[4, 3, 2], 3);
    // ([1, 4, 3] @ [4, 3, 2] is [4, 4, 2]: the batch of 4 comes from b.)
    let x = rand64(&[1, 4, 3], 4);
    let (tape, y) = record(&x, &|x| matmul(x, &b, false, false));
    let e = tape
        .batch_jacobian(&y, &(&x).into(), Unconnected::Zero)
        .unwrap_err();
    assert_eq!(e.kind, ErrorKind::Value);
}

// ---------------------------------------------------------------------------------------------
// einsum and its diagonals
// ---------------------------------------------------------------------------------------------

#[test]
fn einsum_with_the_batch_label_first_keeps_rows() {
    let w = rand64(&[3, 5], 1);
    matches_full_jacobian(&rand64(&[4, 3], 2), &|x| {
        einsum("bi,ij->bj", &[x.clone(), w.clone()])
    });
    let (a, b) = (rand64(&[4, 2, 3], 3), rand64(&[4, 3, 5], 4));
    matches_full_jacobian(&a, &|a| einsum("bij,bjk->bik", &[a.clone(), b.clone()]));
    matches_full_jacobian(&b, &|b| einsum("bij,bjk->bik", &[a.clone(), b.clone()]));
    let (m, v) = (rand64(&[4, 2, 3], 5), rand64(&[4, 3], 6));
    matches_full_jacobian(&m, &|m| einsum("bxy,by->bx", &[m.clone(), v.clone()]));
    matches_full_jacobian(&v, &|v| einsum("bxy,by->bx", &[m.clone(), v.clone()]));
    // The batch label on the right operand only, a row-wise dot product, three operands, a
    // diagonal and a trace inside each row, a transpose of the other axes, the ellipsis.
    matches_full_jacobian(&rand64(&[4, 3], 7), &|x| {
        einsum("ij,bi->bj", &[w.clone(), x.clone()])
    });
    let y = rand64(&[4, 3], 8);
    matches_full_jacobian(&rand64(&[4, 3], 9), &|x| {
        einsum("bi,bi->b", &[x.clone(), y.clone()])
    });
    let u = rand64(&[5, 2], 10);
    matches_full_jacobian(&rand64(&[4, 3], 11), &|x| {
        einsum("bi,ij,jk->bk", &[x.clone(), w.clone(), u.clone()])
    });
    matches_full_jacobian(&rand64(&[4, 3, 3], 12), &|x| {
        einsum("bii->bi", std::slice::from_ref(x))
    });
    matches_full_jacobian(&rand64(&[4, 3, 3], 13), &|x| {
        einsum("bii->b", std::slice::from_ref(x))
    });
    matches_full_jacobian(&rand64(&[4, 2, 3], 14), &|x| {
        einsum("bij->bji", std::slice::from_ref(x))
    });
    matches_full_jacobian(&rand64(&[4, 2, 3], 15), &|x| {
        einsum("...ij,jk->...ik", &[x.clone(), w.clone()])
    });
    // Another label shared and kept besides the batch label: a rank-4 matmul.
    let v = rand64(&[2, 3, 5], 17);
    matches_full_jacobian(&rand64(&[4, 2, 3], 18), &|x| {
        einsum("bxi,xij->bxj", &[x.clone(), v.clone()])
    });
    // The row label repeated: y[i] = x[i, i] reads row i of x only.
    matches_full_jacobian(&rand64(&[4, 4], 16), &|x| {
        einsum("bb->b", std::slice::from_ref(x))
    });
}

#[test]
fn einsum_that_moves_or_contracts_rows_is_refused() {
    let w = rand64(&[4, 4], 1);
    // x as the contracted right operand.
    refused(&rand64(&[4, 3], 2), "matmul", &|x| {
        einsum("ij,jk->ik", &[w.clone(), x.clone()])
    });
    // The batch label not on axis 0 of x: its rows are what gets summed. The transpose that
    // brings b forward is what declares it.
    refused(&rand64(&[4, 4], 3), "transpose", &|x| {
        einsum("ib,ij->bj", &[x.clone(), w.clone()])
    });
    // An output whose first label is not the batch label.
    refused(&rand64(&[4, 4], 4), "transpose", &|x| {
        einsum("bi->ib", std::slice::from_ref(x))
    });
}

#[test]
fn diagonals_keep_rows_unless_axis_0_moves() {
    // Axis 0 stays axis 0 (walked with axis 1): y[i] = x[i, i], and its embedding back.
    matches_full_jacobian(&rand64(&[4, 4], 1), &|x| diagonal_part(x, &[0, 0]));
    matches_full_jacobian(&rand64(&[4, 3], 2), &|x| {
        diagonal_embed(x, &[0, 1, 0], &[4, 3, 4])
    });
    // y[j, i] = x[i, j, j]: row i of x is spread along axis 1.
    refused(&rand64(&[3, 3, 3], 3), "diagonal_part", &|x| {
        diagonal_part(x, &[1, 0, 0])
    });
    refused(&rand64(&[3, 3], 4), "diagonal_embed", &|x| {
        diagonal_embed(x, &[1, 0, 0], &[3, 3, 3])
    });
}

// ---------------------------------------------------------------------------------------------
// solve, inv
// ---------------------------------------------------------------------------------------------

#[test]
fn batched_solve_and_inv_keep_rows() {
    let a = well_conditioned(&[4], 3, 1);
    let rhs = rand64(&[4, 3, 2], 2);
    matches_full_jacobian(&a, &|a| solve(a, &rhs));
    matches_full_jacobian(&rhs, &|r| solve(&a, r));
    matches_full_jacobian(&a, &inv);
}

#[test]
fn a_single_system_is_refused_naming_solve_or_inv() {
    let a = well_conditioned(&[], 4, 1);
    let rhs = rand64(&[4, 2], 2);
    refused(&rhs, "solve", &|r| solve(&a, r));
    refused(&a, "solve", &|a| solve(a, &rhs));
    refused(&a, "inv", &inv);
    // One matrix for a batch of right-hand sides: the matrix is broadcast along the batch.
    let rhs = rand64(&[4, 4, 2], 3);
    refused(&a, "solve", &|a| solve(a, &rhs));
    let r = rand64(&[4, 4, 2], 4);
    matches_full_jacobian(&r, &|r| solve(&a, r));
}
