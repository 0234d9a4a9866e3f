//! einsum and the generalised diagonals behind its repeated labels: values against a plain
//! sum over label assignments, the equation forms (ellipsis, implicit output, spaces), errors,
//! and gradients (first and second order).
mod support;

use rustape::ops::{self, einsum, matmul};
use rustape::testing::{gradcheck, Tolerance};
use rustape::{DType, ErrorKind, Tensor};
use support::linalg::{rand64, strides, unravel};
use support::{assert_close, check};

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
    // The output's first label kept on axis 0 (see einsum's doc): only on the right operand,
    // on both with nothing else free, not on axis 0 of an operand, with batch labels besides.
    ("ij,bi->bj", &[&[3, 4], &[2, 3]]),
    ("bi,bi->b", &[&[2, 3], &[2, 3]]),
    ("bxy,by->bx", &[&[2, 3, 4], &[2, 4]]),
    ("ibj,jb->bi", &[&[3, 2, 4], &[4, 2]]),
    ("bxi,xij->bxj", &[&[2, 3, 4], &[3, 4, 2]]),
    ("xbi,bxi->bx", &[&[3, 2, 4], &[2, 3, 4]]),
    ("bii,bij,jk->bk", &[&[2, 3, 3], &[2, 3, 4], &[4, 2]]),
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
