//! Linear algebra and random ops: values against plain loops, gradients (first and second
//! order) against finite differences, errors, and the seeding model.
use std::sync::Mutex;

use ndarray::{ArrayD, IxDyn};
use rustape::ops::{self, einsum, eye, inv, matmul, matvec, solve, solve_adjoint};
use rustape::testing::{gradcheck, pseudo_random, Tolerance};
use rustape::{DType, Data, ErrorKind, Tape, Tensor, Unconnected};

// ---------------------------------------------------------------------------------------------
// helpers
// ---------------------------------------------------------------------------------------------

fn t64(values: &[f64], shape: &[usize]) -> Tensor {
    Tensor::from_vec(values.to_vec(), shape).unwrap()
}

/// Deterministic values in [-1, 1) of `shape`.
fn rand64(shape: &[usize], seed: u64) -> Tensor {
    let v: Vec<f64> = pseudo_random(shape, seed)
        .to_f64_vec()
        .iter()
        .map(|x| 2.0 * (x - 1.0))
        .collect();
    t64(&v, shape)
}

/// A well-conditioned matrix batch: random plus `n` on the diagonal.
fn well_conditioned(batch: &[usize], n: usize, seed: u64) -> Tensor {
    let mut shape = batch.to_vec();
    shape.extend([n, n]);
    ops::add(
        &rand64(&shape, seed),
        &ops::multiply(&eye(n, None, &[], DType::F64), &Tensor::scalar(n as f64)).unwrap(),
    )
    .unwrap()
}

fn assert_close(got: &[f64], want: &[f64], tol: f64) {
    assert_eq!(got.len(), want.len(), "lengths differ");
    for (i, (g, w)) in got.iter().zip(want).enumerate() {
        assert!(
            (g - w).abs() <= tol * (1.0 + w.abs()),
            "element {i}: got {g}, want {w}"
        );
    }
}

/// Row-major strides of `shape`.
fn strides(shape: &[usize]) -> Vec<usize> {
    let mut s = vec![1; shape.len()];
    for i in (0..shape.len().saturating_sub(1)).rev() {
        s[i] = s[i + 1] * shape[i + 1];
    }
    s
}

/// The multi-index of flat position `flat` in `shape`.
fn unravel(mut flat: usize, shape: &[usize]) -> Vec<usize> {
    let mut idx = vec![0; shape.len()];
    for i in (0..shape.len()).rev() {
        idx[i] = flat % shape[i];
        flat /= shape[i];
    }
    idx
}

/// Reference batched matmul with broadcasting: a triple loop per batch element.
fn naive_matmul(
    a: &[f64],
    sa: &[usize],
    b: &[f64],
    sb: &[usize],
    ta: bool,
    tb: bool,
) -> (Vec<f64>, Vec<usize>) {
    let (na, nb) = (sa.len() - 2, sb.len() - 2);
    let nbatch = na.max(nb);
    let dim = |s: &[usize], lead: usize, d: usize| {
        if d < nbatch - lead {
            1
        } else {
            s[d - (nbatch - lead)]
        }
    };
    let batch: Vec<usize> = (0..nbatch)
        .map(|d| dim(sa, na, d).max(dim(sb, nb, d)))
        .collect();
    let (m, k) = if ta {
        (sa[na + 1], sa[na])
    } else {
        (sa[na], sa[na + 1])
    };
    let n = if tb { sb[nb] } else { sb[nb + 1] };
    let (sta, stb) = (strides(sa), strides(sb));
    let count: usize = batch.iter().product();
    let mut out = Vec::with_capacity(count * m * n);
    for bi in 0..count {
        let idx = unravel(bi, &batch);
        let base = |s: &[usize], st: &[usize], lead: usize| -> usize {
            (0..lead)
                .map(|d| {
                    if s[d] == 1 {
                        0
                    } else {
                        idx[d + nbatch - lead] * st[d]
                    }
                })
                .sum()
        };
        let (oa, ob) = (base(sa, &sta, na), base(sb, &stb, nb));
        for i in 0..m {
            for j in 0..n {
                let mut acc = 0.0;
                for p in 0..k {
                    let av = if ta {
                        a[oa + p * sta[na] + i]
                    } else {
                        a[oa + i * sta[na] + p]
                    };
                    let bv = if tb {
                        b[ob + j * stb[nb] + p]
                    } else {
                        b[ob + p * stb[nb] + j]
                    };
                    acc += av * bv;
                }
                out.push(acc);
            }
        }
    }
    let mut shape = batch;
    shape.extend([m, n]);
    (out, shape)
}

/// Reference einsum (letters only): sums over every assignment of the labels.
fn naive_einsum(equation: &str, xs: &[Tensor]) -> (Vec<f64>, Vec<usize>) {
    let (lhs, rhs) = equation.split_once("->").unwrap();
    let terms: Vec<Vec<char>> = lhs.split(',').map(|t| t.chars().collect()).collect();
    let out: Vec<char> = rhs.chars().collect();
    let mut labels: Vec<char> = Vec::new();
    let mut sizes: Vec<usize> = Vec::new();
    for (term, x) in terms.iter().zip(xs) {
        for (c, &d) in term.iter().zip(x.shape()) {
            if !labels.contains(c) {
                labels.push(*c);
                sizes.push(d);
            }
        }
    }
    let pos = |c: &char| labels.iter().position(|l| l == c).unwrap();
    let out_shape: Vec<usize> = out.iter().map(|c| sizes[pos(c)]).collect();
    let mut result = vec![0.0; out_shape.iter().product()];
    let values: Vec<Vec<f64>> = xs.iter().map(|x| x.to_f64_vec()).collect();
    let total: usize = sizes.iter().product();
    for flat in 0..total {
        let idx = unravel(flat, &sizes);
        let mut prod = 1.0;
        for (t, term) in terms.iter().enumerate() {
            let st = strides(xs[t].shape());
            let off: usize = term
                .iter()
                .enumerate()
                .map(|(a, c)| idx[pos(c)] * st[a])
                .sum();
            prod *= values[t][off];
        }
        let ost = strides(&out_shape);
        let o: usize = out
            .iter()
            .enumerate()
            .map(|(a, c)| idx[pos(c)] * ost[a])
            .sum();
        result[o] += prod;
    }
    (result, out_shape)
}

fn check(f: &dyn Fn(&[Tensor]) -> rustape::Result<Tensor>, inputs: &[Tensor]) {
    gradcheck(f, inputs, true, Tolerance::default()).unwrap();
}

// ---------------------------------------------------------------------------------------------
// matmul
// ---------------------------------------------------------------------------------------------

#[test]
fn matmul_matches_a_triple_loop_with_broadcasting_and_transposes() {
    let cases: &[(&[usize], &[usize])] = &[
        (&[3, 4], &[4, 5]),
        (&[2, 1, 3, 4], &[5, 4, 6]),
        (&[5, 4, 6], &[2, 1, 6, 3]),
        (&[1, 3, 4], &[7, 4, 2]),
        (&[3, 3, 4], &[4, 2]),    // shared right operand: one tall GEMM
        (&[3, 4], &[2, 2, 4, 5]), // shared left operand
        (&[1, 1], &[1, 1]),
        (&[6, 1], &[1, 7]),
    ];
    for (seed, &(sa, sb)) in cases.iter().enumerate() {
        for (ta, tb) in [(false, false), (true, false), (false, true), (true, true)] {
            let mut sa = sa.to_vec();
            let mut sb = sb.to_vec();
            let (ra, rb) = (sa.len(), sb.len());
            if ta {
                sa.swap(ra - 2, ra - 1);
            }
            if tb {
                sb.swap(rb - 2, rb - 1);
            }
            let a = rand64(&sa, 2 * seed as u64 + 1);
            let b = rand64(&sb, 2 * seed as u64 + 2);
            let (want, shape) = naive_matmul(&a.to_f64_vec(), &sa, &b.to_f64_vec(), &sb, ta, tb);
            let y = matmul(&a, &b, ta, tb).unwrap();
            assert_eq!(y.shape(), &shape[..], "{sa:?} {sb:?} {ta} {tb}");
            assert_close(&y.to_f64_vec(), &want, 1e-12);
            let (a32, b32) = (
                ops::cast(&a, DType::F32).unwrap(),
                ops::cast(&b, DType::F32).unwrap(),
            );
            let y32 = matmul(&a32, &b32, ta, tb).unwrap();
            assert_eq!(y32.dtype(), DType::F32);
            assert_close(&y32.to_f64_vec(), &want, 1e-5);
        }
    }
}

#[test]
fn matmul_example_shape_from_the_brief() {
    let y = matmul(
        &Tensor::ones(&[2, 1, 3, 4], DType::F32),
        &Tensor::ones(&[5, 4, 6], DType::F32),
        false,
        false,
    )
    .unwrap();
    assert_eq!(y.shape(), &[2, 5, 3, 6]);
    assert!(y.to_f64_vec().iter().all(|&v| v == 4.0));
}

#[test]
fn matmul_reads_strided_and_reversed_layouts_without_copying_first() {
    // A transposed (column-major) view and a reversed one, as ndarray can hold them.
    let base = ArrayD::from_shape_vec(IxDyn(&[4, 3]), (0..12).map(|v| v as f64).collect()).unwrap();
    let at = Tensor::new(Data::F64(base.clone().reversed_axes().into_shared())); // [3, 4], column-major
    let mut rev = base.clone();
    rev.invert_axis(ndarray::Axis(0)); // negative row stride
    let rev = Tensor::new(Data::F64(rev.into_shared()));
    let b = rand64(&[4, 5], 9);
    let y = matmul(&at, &b, false, false).unwrap();
    let (want, _) = naive_matmul(
        &at.to_f64_vec(),
        &[3, 4],
        &b.to_f64_vec(),
        &[4, 5],
        false,
        false,
    );
    assert_close(&y.to_f64_vec(), &want, 1e-12);
    let y = matmul(&rev, &rand64(&[3, 2], 4), false, false).unwrap();
    let (want, _) = naive_matmul(
        &rev.to_f64_vec(),
        &[4, 3],
        &rand64(&[3, 2], 4).to_f64_vec(),
        &[3, 2],
        false,
        false,
    );
    assert_close(&y.to_f64_vec(), &want, 1e-12);
}

#[test]
fn matmul_large_and_batched_paths_agree_with_the_loop() {
    // Large enough for the parallel GEMM, and many small matrices for the batch-parallel path.
    for (sa, sb) in [
        (vec![130, 120], vec![120, 110]),
        (vec![64, 9, 10], vec![64, 10, 11]),
        (vec![2, 100, 100], vec![2, 100, 100]),
    ] {
        let a = rand64(&sa, 3);
        let b = rand64(&sb, 4);
        let (want, shape) = naive_matmul(&a.to_f64_vec(), &sa, &b.to_f64_vec(), &sb, false, false);
        let y = matmul(&a, &b, false, false).unwrap();
        assert_eq!(y.shape(), &shape[..]);
        assert_close(&y.to_f64_vec(), &want, 1e-10);
    }
}

#[test]
fn matmul_of_integers_and_of_empty_matrices() {
    let a = Tensor::from_vec(vec![1i32, 2, 3, 4, 5, 6], &[2, 3]).unwrap();
    let b = Tensor::from_vec(vec![1i32, 0, 0, 1, 1, 1], &[3, 2]).unwrap();
    let y = matmul(&a, &b, false, false).unwrap();
    assert_eq!(y.dtype(), DType::I32);
    assert_eq!(y.to_f64_vec(), vec![4.0, 5.0, 10.0, 11.0]);
    let y = matmul(
        &Tensor::ones(&[2, 0], DType::F32),
        &Tensor::ones(&[0, 3], DType::F32),
        false,
        false,
    )
    .unwrap();
    assert_eq!(y.shape(), &[2, 3]);
    assert_eq!(y.to_f64_vec(), vec![0.0; 6]);
    let y = matmul(
        &Tensor::ones(&[0, 4], DType::F64),
        &Tensor::ones(&[4, 3], DType::F64),
        false,
        false,
    )
    .unwrap();
    assert_eq!(y.shape(), &[0, 3]);
}

#[test]
fn matmul_errors_name_the_op_and_both_shapes() {
    let a = Tensor::ones(&[2, 3], DType::F32);
    let b = Tensor::ones(&[4, 5], DType::F32);
    let e = matmul(&a, &b, false, false).unwrap_err();
    assert_eq!(e.kind, ErrorKind::Shape);
    assert_eq!(e.op, "matmul");
    assert!(
        e.message.contains("[2, 3]") && e.message.contains("[4, 5]"),
        "{}",
        e.message
    );

    let e = matmul(
        &Tensor::ones(&[2, 2, 3], DType::F32),
        &Tensor::ones(&[3, 3, 4], DType::F32),
        false,
        false,
    )
    .unwrap_err();
    assert_eq!(e.kind, ErrorKind::Shape);
    assert!(
        e.message.contains("[2, 2, 3]") && e.message.contains("[3, 3, 4]"),
        "{}",
        e.message
    );

    let e = matmul(
        &Tensor::ones(&[3], DType::F32),
        &Tensor::ones(&[3, 4], DType::F32),
        false,
        false,
    )
    .unwrap_err();
    assert_eq!(e.kind, ErrorKind::Shape);
    assert!(
        e.message.contains("[3]") && e.message.contains("[3, 4]"),
        "{}",
        e.message
    );

    let e = matmul(
        &Tensor::ones(&[2, 2], DType::F32),
        &Tensor::ones(&[2, 2], DType::F64),
        false,
        false,
    )
    .unwrap_err();
    assert_eq!(e.kind, ErrorKind::DType);
    assert!(
        e.message.contains("float32") && e.message.contains("float64"),
        "{}",
        e.message
    );

    let e = matmul(
        &Tensor::ones(&[2, 2], DType::Bool),
        &Tensor::ones(&[2, 2], DType::Bool),
        false,
        false,
    )
    .unwrap_err();
    assert_eq!(e.kind, ErrorKind::DType);
}

#[test]
fn matmul_gradients_first_and_second_order() {
    let f = |ta: bool, tb: bool| move |xs: &[Tensor]| matmul(&xs[0], &xs[1], ta, tb);
    check(&f(false, false), &[rand64(&[3, 4], 1), rand64(&[4, 2], 2)]);
    check(
        &f(false, false),
        &[rand64(&[2, 1, 3, 4], 3), rand64(&[3, 4, 2], 4)],
    ); // batch broadcasting
    check(
        &f(true, false),
        &[rand64(&[2, 4, 3], 5), rand64(&[4, 2], 6)],
    );
    check(
        &f(false, true),
        &[rand64(&[2, 3, 4], 7), rand64(&[2, 4], 8)],
    ); // batched a, unbatched b
    check(
        &f(false, false),
        &[rand64(&[2, 3, 4], 7), rand64(&[4, 2], 8)],
    );
    check(
        &f(true, true),
        &[rand64(&[1, 4, 3], 9), rand64(&[2, 2, 4], 10)],
    );
    check(
        &f(false, false),
        &[rand64(&[3, 4], 11), rand64(&[2, 4, 2], 12)],
    ); // unbatched a
}

#[test]
fn matmul_gradient_matches_the_closed_form() {
    let a = rand64(&[3, 4], 1);
    let b = rand64(&[4, 2], 2);
    let tape = Tape::new(true, true);
    let y = {
        let _r = tape.enter().unwrap();
        tape.watch(&a);
        tape.watch(&b);
        matmul(&a, &b, false, false).unwrap()
    };
    let g = tape
        .gradient(&[y], &[(&a).into(), (&b).into()], None, Unconnected::None)
        .unwrap();
    let ones = Tensor::ones(&[3, 2], DType::F64);
    let (ga, _) = naive_matmul(
        &ones.to_f64_vec(),
        &[3, 2],
        &b.to_f64_vec(),
        &[4, 2],
        false,
        true,
    );
    let (gb, _) = naive_matmul(
        &a.to_f64_vec(),
        &[3, 4],
        &ones.to_f64_vec(),
        &[3, 2],
        true,
        false,
    );
    assert_close(&g[0].as_ref().unwrap().to_f64_vec(), &ga, 1e-12);
    assert_close(&g[1].as_ref().unwrap().to_f64_vec(), &gb, 1e-12);
}

// ---------------------------------------------------------------------------------------------
// matvec, eye
// ---------------------------------------------------------------------------------------------

#[test]
fn matvec_values_and_gradients() {
    let a = rand64(&[2, 3, 4], 1);
    let x = rand64(&[4], 2);
    let y = matvec(&a, &x, false).unwrap();
    assert_eq!(y.shape(), &[2, 3]);
    let (want, _) = naive_matmul(
        &a.to_f64_vec(),
        &[2, 3, 4],
        &x.to_f64_vec(),
        &[4, 1],
        false,
        false,
    );
    assert_close(&y.to_f64_vec(), &want, 1e-12);
    let yt = matvec(&a, &rand64(&[2, 3], 3), true).unwrap();
    assert_eq!(yt.shape(), &[2, 4]);

    check(
        &|xs: &[Tensor]| matvec(&xs[0], &xs[1], false),
        &[rand64(&[2, 3, 4], 1), rand64(&[4], 2)],
    );
    check(
        &|xs: &[Tensor]| matvec(&xs[0], &xs[1], true),
        &[rand64(&[3, 4], 3), rand64(&[2, 3], 4)],
    );

    let e = matvec(&a, &rand64(&[3], 5), false).unwrap_err();
    assert_eq!((e.kind, e.op.as_str()), (ErrorKind::Shape, "matvec"));
    assert!(
        e.message.contains("[2, 3, 4]") && e.message.contains("[3]"),
        "{}",
        e.message
    );
}

#[test]
fn eye_builds_batched_rectangular_identities() {
    let i = eye(2, Some(3), &[2], DType::F32);
    assert_eq!(i.shape(), &[2, 2, 3]);
    assert_eq!(i.dtype(), DType::F32);
    assert_eq!(
        i.to_f64_vec(),
        vec![1., 0., 0., 0., 1., 0., 1., 0., 0., 0., 1., 0.]
    );
    let i = eye(3, None, &[], DType::I64);
    assert_eq!(i.to_f64_vec(), vec![1., 0., 0., 0., 1., 0., 0., 0., 1.]);
    assert_eq!(eye(0, None, &[], DType::F64).shape(), &[0, 0]);
}

// ---------------------------------------------------------------------------------------------
// einsum
// ---------------------------------------------------------------------------------------------

const EINSUM_CASES: &[(&str, &[&[usize]])] = &[
    ("ij,jk->ik", &[&[3, 4], &[4, 2]]),
    ("bij,bjk->bik", &[&[2, 3, 4], &[2, 4, 2]]),
    ("ii->i", &[&[3, 3]]),
    ("ii->", &[&[3, 3]]),
    ("bxby->bxy", &[&[2, 3, 2, 4]]),
    ("i,i->", &[&[5], &[5]]),
    ("ij->ji", &[&[2, 3]]),
    ("ij,jk,kl->il", &[&[2, 3], &[3, 4], &[4, 2]]),
    ("ij,kj->ik", &[&[2, 3], &[4, 3]]),
    ("ji,jk->ik", &[&[3, 2], &[3, 4]]),
    ("i,j->ij", &[&[3], &[2]]),
    ("ij->", &[&[2, 3]]),
    ("iij,jk->ik", &[&[3, 3, 2], &[2, 4]]),
    ("abc,cd,bd->a", &[&[2, 3, 4], &[4, 5], &[3, 5]]),
    ("bij,jk->bki", &[&[2, 3, 4], &[4, 2]]),
];

#[test]
fn einsum_matches_a_plain_sum_over_labels() {
    for (n, &(eq, shapes)) in EINSUM_CASES.iter().enumerate() {
        let xs: Vec<Tensor> = shapes
            .iter()
            .enumerate()
            .map(|(i, s)| rand64(s, (10 * n + i) as u64))
            .collect();
        let (want, shape) = naive_einsum(eq, &xs);
        let y = einsum(eq, &xs).unwrap_or_else(|e| panic!("{eq}: {e}"));
        assert_eq!(y.shape(), &shape[..], "{eq}");
        assert_close(&y.to_f64_vec(), &want, 1e-12);
    }
}

#[test]
fn einsum_gradients_first_and_second_order() {
    for (n, &(eq, shapes)) in EINSUM_CASES.iter().enumerate() {
        let xs: Vec<Tensor> = shapes
            .iter()
            .enumerate()
            .map(|(i, s)| rand64(s, (10 * n + i) as u64))
            .collect();
        let f = |xs: &[Tensor]| einsum(eq, xs);
        gradcheck(&f, &xs, true, Tolerance::default()).unwrap_or_else(|e| panic!("{eq}: {e}"));
    }
}

#[test]
fn einsum_ellipsis_implicit_form_and_spaces() {
    let a = rand64(&[2, 1, 3, 4], 1);
    let b = rand64(&[5, 4, 2], 2);
    let y = einsum("...ij,...jk->...ik", &[a.clone(), b.clone()]).unwrap();
    let m = matmul(&a, &b, false, false).unwrap();
    assert_eq!(y.shape(), m.shape());
    assert_close(&y.to_f64_vec(), &m.to_f64_vec(), 1e-12);
    check(&|xs: &[Tensor]| einsum("...ij,...jk->...ik", xs), &[a, b]);

    let (p, q) = (rand64(&[3, 4], 3), rand64(&[4, 2], 4));
    let implicit = einsum("ij,jk", &[p.clone(), q.clone()]).unwrap(); // -> ik
    let explicit = einsum(" ij , jk -> ik ", &[p.clone(), q.clone()]).unwrap();
    assert_close(&implicit.to_f64_vec(), &explicit.to_f64_vec(), 0.0);
    let transposed = einsum("ba", std::slice::from_ref(&p)).unwrap(); // implicit output "ab": a transpose
    assert_eq!(transposed.shape(), &[4, 3]);
    let trace = einsum("ii", &[rand64(&[3, 3], 5)]).unwrap();
    assert_eq!(trace.shape(), &[] as &[usize]);
}

#[test]
fn einsum_errors_are_value_errors_naming_the_equation_or_shape_errors() {
    let a = rand64(&[2, 3], 1);
    let b = rand64(&[4, 2], 2);
    for bad in [
        "ij,jk->ik,",
        "ij->i->j",
        "ij->kk",
        "i1->i",
        "ij,jk->iz",
        "i.j->ij",
    ] {
        let e = einsum(bad, &[a.clone(), a.clone()]).unwrap_err();
        assert_eq!(e.op, "einsum");
        assert_eq!(e.kind, ErrorKind::Value, "{bad}: {}", e.message);
        assert!(e.message.contains(bad), "{bad}: {}", e.message);
    }
    let e = einsum("ij,jk->ik", std::slice::from_ref(&a)).unwrap_err(); // one operand for two terms
    assert_eq!(e.kind, ErrorKind::Value);
    assert!(e.message.contains("ij,jk->ik"), "{}", e.message);

    let e = einsum("ij,jk->ik", &[a.clone(), b.clone()]).unwrap_err(); // j: 3 vs 4
    assert_eq!((e.kind, e.op.as_str()), (ErrorKind::Shape, "einsum"));
    assert!(
        e.message.contains("'j'") && e.message.contains("[4, 2]"),
        "{}",
        e.message
    );

    let e = einsum("ii->i", std::slice::from_ref(&a)).unwrap_err(); // diagonal of a 2x3
    assert_eq!(e.kind, ErrorKind::Shape);
    let e = einsum("ijk->i", std::slice::from_ref(&a)).unwrap_err(); // rank mismatch
    assert_eq!(e.kind, ErrorKind::Shape);
    assert!(e.message.contains("[2, 3]"), "{}", e.message);
    let e = einsum(
        "ij,jk->ik",
        &[a.clone(), ops::cast(&b, DType::F32).unwrap()],
    )
    .unwrap_err();
    assert_eq!(e.kind, ErrorKind::DType);
}

#[test]
fn diagonal_part_and_embed_are_inverse_and_differentiable() {
    use rustape::ops::{diagonal_embed, diagonal_part};
    // y[j, i] = x[i, j, j]
    let x = rand64(&[2, 3, 3], 1);
    let d = diagonal_part(&x, &[1, 0, 0]).unwrap();
    assert_eq!(d.shape(), &[3, 2]);
    let xv = x.to_f64_vec();
    let want: Vec<f64> = (0..3)
        .flat_map(|j| (0..2).map(move |i| (i, j)))
        .map(|(i, j)| xv[i * 9 + j * 3 + j])
        .collect();
    assert_eq!(d.to_f64_vec(), want);
    let e = diagonal_embed(&d, &[1, 0, 0], &[2, 3, 3]).unwrap();
    assert_eq!(e.shape(), &[2, 3, 3]);
    assert_eq!(diagonal_part(&e, &[1, 0, 0]).unwrap().to_f64_vec(), want);
    assert_eq!(e.to_f64_vec().iter().filter(|&&v| v != 0.0).count(), 6);
    check(&|xs: &[Tensor]| diagonal_part(&xs[0], &[1, 0, 0]), &[x]);
    check(
        &|xs: &[Tensor]| diagonal_embed(&xs[0], &[0, 1, 1], &[2, 3, 3]),
        &[rand64(&[2, 3], 2)],
    );
    assert_eq!(
        diagonal_part(&rand64(&[2, 3], 3), &[0, 0])
            .unwrap_err()
            .kind,
        ErrorKind::Shape
    );
    assert_eq!(
        diagonal_embed(&rand64(&[2], 3), &[0, 0], &[3, 3])
            .unwrap_err()
            .kind,
        ErrorKind::Shape
    );
}

#[test]
fn matmul_gradients_with_empty_dimensions() {
    // Inner dimension 0 (a zero product) and a batched left operand with no rows.
    for (sa, sb) in [
        (vec![2, 3, 0], vec![0, 4]),
        (vec![2, 0, 3], vec![3, 4]),
        (vec![0, 3], vec![2, 3, 4]),
    ] {
        let a = Tensor::zeros(&sa, DType::F64);
        let b = Tensor::ones(&sb, DType::F64);
        let tape = Tape::new(false, true);
        let y = {
            let _r = tape.enter().unwrap();
            tape.watch(&a);
            tape.watch(&b);
            matmul(&a, &b, false, false).unwrap()
        };
        let g = tape
            .gradient(&[y], &[(&a).into(), (&b).into()], None, Unconnected::Zero)
            .unwrap();
        assert_eq!(g[0].as_ref().unwrap().shape(), &sa[..]);
        assert_eq!(g[1].as_ref().unwrap().shape(), &sb[..]);
        assert!(g[1]
            .as_ref()
            .unwrap()
            .to_f64_vec()
            .iter()
            .all(|&v| v == 0.0));
    }
}

// ---------------------------------------------------------------------------------------------
// solve, inv
// ---------------------------------------------------------------------------------------------

#[test]
fn solve_and_inv_values() {
    let a = t64(&[2.0, 1.0, 1.0, 3.0], &[2, 2]);
    let b = t64(&[3.0, 5.0], &[2, 1]);
    let x = solve(&a, &b).unwrap();
    assert_close(&x.to_f64_vec(), &[0.8, 1.4], 1e-12);
    // A matrix that needs pivoting (zero in the top-left corner).
    let p = t64(&[0.0, 1.0, 2.0, 1.0, 0.0, 3.0, 4.0, -3.0, 8.0], &[3, 3]);
    let rhs = rand64(&[3, 2], 7);
    let x = solve(&p, &rhs).unwrap();
    let back = matmul(&p, &x, false, false).unwrap();
    assert_close(&back.to_f64_vec(), &rhs.to_f64_vec(), 1e-12);
    let xt = solve_adjoint(&p, &rhs, true).unwrap();
    let back = matmul(&p, &xt, true, false).unwrap();
    assert_close(&back.to_f64_vec(), &rhs.to_f64_vec(), 1e-12);
    // Batched with broadcasting: one matrix for three right-hand sides.
    let m = well_conditioned(&[], 4, 3);
    let r = rand64(&[3, 4, 2], 4);
    let x = solve(&m, &r).unwrap();
    assert_eq!(x.shape(), &[3, 4, 2]);
    assert_close(
        &matmul(&m, &x, false, false).unwrap().to_f64_vec(),
        &r.to_f64_vec(),
        1e-12,
    );
    // inv
    let batch = well_conditioned(&[2], 3, 5);
    let i = inv(&batch).unwrap();
    let id = matmul(&batch, &i, false, false).unwrap();
    assert_close(
        &id.to_f64_vec(),
        &eye(3, None, &[2], DType::F64).to_f64_vec(),
        1e-12,
    );
    let i32_ = inv(&ops::cast(&a, DType::F32).unwrap()).unwrap();
    assert_eq!(i32_.dtype(), DType::F32);
    assert_close(&i32_.to_f64_vec(), &[0.6, -0.2, -0.2, 0.4], 1e-6);
}

#[test]
fn solve_and_inv_of_a_singular_matrix_error() {
    let s = t64(&[1.0, 2.0, 2.0, 4.0], &[2, 2]);
    let e = solve(&s, &t64(&[1.0, 1.0], &[2, 1])).unwrap_err();
    assert_eq!((e.kind, e.op.as_str()), (ErrorKind::Value, "solve"));
    assert!(
        e.message.contains("matrix is not invertible"),
        "{}",
        e.message
    );
    let e = inv(&s).unwrap_err();
    assert_eq!((e.kind, e.op.as_str()), (ErrorKind::Value, "inv"));
    assert!(
        e.message.contains("matrix is not invertible"),
        "{}",
        e.message
    );
    // Singular only in the second batch element.
    let batch = ops::stack(&[eye(2, None, &[], DType::F64), s.clone()], 0).unwrap();
    let e = inv(&batch).unwrap_err();
    assert!(e.message.contains("matrix 1"), "{}", e.message);
    assert_eq!(
        inv(&Tensor::zeros(&[3, 3], DType::F32)).unwrap_err().kind,
        ErrorKind::Value
    );
}

#[test]
fn solve_and_inv_shape_errors_name_the_op_and_shapes() {
    let e = solve(&rand64(&[2, 3], 1), &rand64(&[2, 1], 2)).unwrap_err();
    assert_eq!((e.kind, e.op.as_str()), (ErrorKind::Shape, "solve"));
    assert!(e.message.contains("[2, 3]"), "{}", e.message);
    let e = solve(&rand64(&[3, 3], 1), &rand64(&[2, 1], 2)).unwrap_err();
    assert_eq!(e.kind, ErrorKind::Shape);
    assert!(
        e.message.contains("[3, 3]") && e.message.contains("[2, 1]"),
        "{}",
        e.message
    );
    let e = solve(&rand64(&[2, 3, 3], 1), &rand64(&[4, 3, 1], 2)).unwrap_err();
    assert_eq!(e.kind, ErrorKind::Shape);
    assert!(
        e.message.contains("[2, 3, 3]") && e.message.contains("[4, 3, 1]"),
        "{}",
        e.message
    );
    let e = inv(&rand64(&[3], 1)).unwrap_err();
    assert_eq!((e.kind, e.op.as_str()), (ErrorKind::Shape, "inv"));
    let e = solve(
        &Tensor::ones(&[2, 2], DType::I32),
        &Tensor::ones(&[2, 1], DType::I32),
    )
    .unwrap_err();
    assert_eq!(e.kind, ErrorKind::DType);
}

#[test]
fn solve_and_inv_gradients_first_and_second_order() {
    check(
        &|xs: &[Tensor]| solve(&xs[0], &xs[1]),
        &[well_conditioned(&[], 3, 1), rand64(&[3, 2], 2)],
    );
    check(
        &|xs: &[Tensor]| solve(&xs[0], &xs[1]),
        &[well_conditioned(&[2], 3, 3), rand64(&[3, 1], 4)],
    );
    check(
        &|xs: &[Tensor]| solve_adjoint(&xs[0], &xs[1], true),
        &[well_conditioned(&[], 3, 5), rand64(&[2, 3, 2], 6)],
    );
    check(&|xs: &[Tensor]| inv(&xs[0]), &[well_conditioned(&[], 3, 7)]);
    check(
        &|xs: &[Tensor]| inv(&xs[0]),
        &[well_conditioned(&[2], 2, 8)],
    );
}

// ---------------------------------------------------------------------------------------------
// random
// ---------------------------------------------------------------------------------------------

/// The global seed is process-wide: tests that use it take turns.
static SEED_LOCK: Mutex<()> = Mutex::new(());

fn seeded<R>(f: impl FnOnce() -> R) -> R {
    let _guard = SEED_LOCK.lock().unwrap_or_else(|p| p.into_inner());
    f()
}

#[test]
fn set_seed_repeats_the_sequence_of_calls() {
    seeded(|| {
        let run = || {
            ops::set_seed(42);
            vec![
                ops::normal(&[5], 0.0, 1.0, DType::F32, None)
                    .unwrap()
                    .to_f64_vec(),
                ops::uniform(&[5], 0.0, 1.0, DType::F64, None)
                    .unwrap()
                    .to_f64_vec(),
                ops::normal(&[5], 0.0, 1.0, DType::F32, None)
                    .unwrap()
                    .to_f64_vec(),
                ops::uniform(&[3], 0.0, 10.0, DType::I32, Some(7))
                    .unwrap()
                    .to_f64_vec(),
                ops::uniform(&[3], 0.0, 10.0, DType::I32, Some(7))
                    .unwrap()
                    .to_f64_vec(),
            ]
        };
        let (first, second) = (run(), run());
        assert_eq!(first, second);
        assert_ne!(first[0], first[2], "successive calls differ");
        ops::set_seed(43);
        let other = ops::normal(&[5], 0.0, 1.0, DType::F32, None)
            .unwrap()
            .to_f64_vec();
        assert_ne!(other, first[0], "another global seed gives other values");
    });
}

#[test]
fn op_seeds_combine_with_the_global_seed_like_tensorflow() {
    seeded(|| {
        ops::set_seed(1234);
        let a1 = ops::uniform(&[4], 0.0, 1.0, DType::F32, Some(1))
            .unwrap()
            .to_f64_vec();
        let a2 = ops::uniform(&[4], 0.0, 1.0, DType::F32, Some(1))
            .unwrap()
            .to_f64_vec();
        assert_ne!(a1, a2, "a kernel called again continues its stream");
        ops::set_seed(1234);
        let _unrelated = ops::normal(&[3], 0.0, 1.0, DType::F64, None).unwrap();
        let b1 = ops::uniform(&[4], 0.0, 1.0, DType::F32, Some(1))
            .unwrap()
            .to_f64_vec();
        assert_eq!(a1, b1, "same (global, op) seeds give the same values");
        let c = ops::uniform(&[4], 0.0, 1.0, DType::F32, Some(2))
            .unwrap()
            .to_f64_vec();
        assert_ne!(a1, c);
    });
}

#[test]
fn without_any_seed_values_differ() {
    // No lock needed: unseeded calls with no global seed draw from entropy... unless another
    // test set one; either way two successive calls differ.
    seeded(|| {
        let a = ops::normal(&[8], 0.0, 1.0, DType::F64, None)
            .unwrap()
            .to_f64_vec();
        let b = ops::normal(&[8], 0.0, 1.0, DType::F64, None)
            .unwrap()
            .to_f64_vec();
        assert_ne!(a, b);
    });
}

#[test]
fn normal_moments_and_uniform_bounds() {
    seeded(|| {
        ops::set_seed(7);
        for dtype in [DType::F32, DType::F64] {
            let x = ops::normal(&[100_000], 2.0, 3.0, dtype, None).unwrap();
            assert_eq!((x.shape(), x.dtype()), (&[100_000usize][..], dtype));
            let v = x.to_f64_vec();
            let n = v.len() as f64;
            let mean = v.iter().sum::<f64>() / n;
            let std = (v.iter().map(|x| (x - mean).powi(2)).sum::<f64>() / n).sqrt();
            // Standard errors: 3/sqrt(1e5) ~ 0.0095 for the mean, ~0.0067 for the std.
            assert!((mean - 2.0).abs() < 0.05, "mean {mean}");
            assert!((std - 3.0).abs() < 0.05, "std {std}");
            let within1 = v.iter().filter(|x| (*x - 2.0).abs() < 3.0).count() as f64 / n;
            assert!((within1 - 0.6827).abs() < 0.01, "P(|z|<1) = {within1}");
        }
        for dtype in [DType::F32, DType::F64] {
            let u = ops::uniform(&[2, 50_000], -1.5, 2.5, dtype, None).unwrap();
            let v = u.to_f64_vec();
            assert!(v.iter().all(|&x| (-1.5..2.5).contains(&x)));
            let mean = v.iter().sum::<f64>() / v.len() as f64;
            assert!((mean - 0.5).abs() < 0.02, "mean {mean}");
            assert!(v.iter().any(|&x| x < -1.4) && v.iter().any(|&x| x > 2.4));
        }
        for dtype in [DType::I32, DType::I64] {
            let u = ops::uniform(&[10_000], -3.0, 4.0, dtype, Some(3)).unwrap();
            assert_eq!(u.dtype(), dtype);
            let v = u.to_f64_vec();
            for k in -3..4 {
                let count = v.iter().filter(|&&x| x == k as f64).count();
                assert!(
                    (1_200..1_660).contains(&count),
                    "{k} drawn {count} times of 10000"
                );
            }
            assert!(v.iter().all(|&x| (-3.0..4.0).contains(&x)));
        }
    });
}

#[test]
fn random_argument_errors() {
    seeded(|| {
        assert_eq!(
            ops::normal(&[2], 0.0, 1.0, DType::I32, None)
                .unwrap_err()
                .kind,
            ErrorKind::DType
        );
        assert_eq!(
            ops::uniform(&[2], 0.0, 1.0, DType::Bool, None)
                .unwrap_err()
                .kind,
            ErrorKind::DType
        );
        let e = ops::uniform(&[2], 5.0, 5.0, DType::I64, None).unwrap_err();
        assert_eq!(e.kind, ErrorKind::Value);
        assert!(e.message.contains("minval < maxval"), "{}", e.message);
        assert_eq!(
            ops::uniform(&[2], 0.5, 3.0, DType::I32, None)
                .unwrap_err()
                .kind,
            ErrorKind::Value
        );
        assert_eq!(
            ops::uniform(&[0, 3], 0.0, 1.0, DType::F32, None)
                .unwrap()
                .shape(),
            &[0, 3]
        );
    });
}
