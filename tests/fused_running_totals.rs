//! The fused gradient passes (`triple_product`'s and `tanh_grad`'s gradients from one blocked
//! pass) add a gradient into the running total a plain sweep hands over for that input,
//! instead of returning it for a separate sum. The gradients must be those of the two parts
//! of the graph taken apart and summed (within rounding: a total summed over a batch axis adds
//! its terms one by one), and pass gradcheck; a strided copy (transposes, reversed slices)
//! gives the elements in row-major order.
mod support;
use support::*;

use rustape::ops::{
    add, cast, multiply, reduce_sum, strided_slice, tanh_grad, transpose, triple_product, SliceItem,
};
use rustape::testing::pseudo_random;
use rustape::{DType, Result, Tensor};

/// `sum(main(xs) * w) + sum_k sum(xs[k] * vs[k])`: each operand's gradient has a part from
/// the second term, computed first in the sweep (recorded last), so the fused VJP finds it as
/// the running total.
fn with_other_uses(
    main: &dyn Fn(&[Tensor]) -> Result<Tensor>,
    xs: &[Tensor],
    w: &Tensor,
    vs: &[Tensor],
) -> Result<Tensor> {
    let mut total = reduce_sum(&multiply(&main(xs)?, w)?, None, false)?;
    for (x, v) in xs.iter().zip(vs) {
        total = add(&total, &reduce_sum(&multiply(x, v)?, None, false)?)?;
    }
    Ok(total)
}

/// The gradients of `with_other_uses`, and those of its two parts taken apart and summed.
fn together_and_apart(
    main: &dyn Fn(&[Tensor]) -> Result<Tensor>,
    xs: &[Tensor],
    w: &Tensor,
    vs: &[Tensor],
) -> (Vec<Vec<f64>>, Vec<Vec<f64>>) {
    let grads = |f: &dyn Fn(&[Tensor]) -> Result<Tensor>| -> Vec<Vec<f64>> {
        gradients(f, xs)
            .unwrap()
            .into_iter()
            .map(|g| values(&g.unwrap()))
            .collect()
    };
    let together = grads(&|xs| with_other_uses(main, xs, w, vs));
    let first = grads(&|xs| reduce_sum(&multiply(&main(xs)?, w)?, None, false));
    let apart = first
        .into_iter()
        .zip(vs)
        .map(|(g, v)| g.iter().zip(values(v)).map(|(a, b)| a + b).collect())
        .collect();
    (together, apart)
}

fn operands(dtype: DType, shapes: &[&[usize]], seed: u64) -> Vec<Tensor> {
    shapes
        .iter()
        .enumerate()
        .map(|(i, s)| cast(&pseudo_random(s, seed + i as u64), dtype).unwrap())
        .collect()
}

#[test]
fn fused_gradients_add_into_the_sweeps_totals() {
    // Large enough for several pieces of the pass, small enough not to split over threads.
    let (h, b) = (&[64usize, 40][..], &[3usize, 64, 40][..]);
    for (dtype, tol) in [(DType::F64, 1e-13), (DType::F32, 2e-6)] {
        // triple_product summed over the batch axis (keep 0) and keeping it (keep 1)
        for (keep, out) in [(0usize, h), (1, b)] {
            let xs = operands(dtype, &[h, h, b], 10);
            let vs = operands(dtype, &[h, h, b], 20);
            let w = operands(dtype, &[out], 30).pop().unwrap();
            let tp = move |xs: &[Tensor]| {
                triple_product(&xs[0], &xs[1], &xs[2], -2.0, keep, &out[keep..])
            };
            let (together, apart) = together_and_apart(&tp, &xs, &w, &vs);
            for (k, (t, a)) in together.iter().zip(&apart).enumerate() {
                assert_close_labelled(t, a, tol, &format!("{dtype:?} tp keep {keep} input {k}"));
            }
        }
        // tanh_grad with a batched cotangent: y's gradient summed over the batch, dy's not
        let xs = operands(dtype, &[h, b], 40);
        let vs = operands(dtype, &[h, b], 50);
        let w = operands(dtype, &[b], 60).pop().unwrap();
        let tg = |xs: &[Tensor]| tanh_grad(&xs[0], &xs[1]);
        let (together, apart) = together_and_apart(&tg, &xs, &w, &vs);
        for (k, (t, a)) in together.iter().zip(&apart).enumerate() {
            assert_close_labelled(t, a, tol, &format!("{dtype:?} tanh_grad input {k}"));
        }
    }
}

#[test]
fn fused_gradients_onto_totals_pass_gradcheck() {
    let xs = [
        pseudo_random(&[5, 7], 1),
        pseudo_random(&[5, 7], 2),
        pseudo_random(&[2, 5, 7], 3),
    ];
    let vs = [
        pseudo_random(&[5, 7], 4),
        pseudo_random(&[5, 7], 5),
        pseudo_random(&[2, 5, 7], 6),
    ];
    let w = pseudo_random(&[5, 7], 7);
    let tp = |xs: &[Tensor]| triple_product(&xs[0], &xs[1], &xs[2], 1.5, 0, &[5, 7]);
    let f = |xs: &[Tensor]| {
        let t = with_other_uses(&tp, xs, &w, &vs)?;
        multiply(&t, &t)
    };
    check_labelled(&f, &xs, "triple_product onto totals");
    let tg = |xs: &[Tensor]| tanh_grad(&xs[0], &xs[1]);
    let g = |xs: &[Tensor]| {
        let wb = pseudo_random(&[2, 5, 7], 8);
        let t = with_other_uses(&tg, xs, &wb, &vs[1..])?;
        multiply(&t, &t)
    };
    check_labelled(
        &g,
        &xs[..0].iter().chain(&xs[1..]).cloned().collect::<Vec<_>>(),
        "tanh_grad onto totals",
    );
}

/// The element at `index` of a row-major `shape`.
fn at(v: &[f64], shape: &[usize], index: &[usize]) -> f64 {
    let flat = index.iter().zip(shape).fold(0, |acc, (&i, &d)| acc * d + i);
    v[flat]
}

#[test]
fn transposes_copy_every_element_in_order() {
    for (shape, perm) in [
        (vec![1024usize, 2, 2], vec![1usize, 0, 2]),
        (vec![37, 53], vec![1, 0]),
        (vec![3, 1, 17, 19], vec![2, 1, 3, 0]),
        (vec![2, 3, 4, 5], vec![0, 1, 3, 2]),
        (vec![6, 1], vec![1, 0]),
        (vec![0, 3], vec![1, 0]),
    ] {
        let x = pseudo_random(&shape, 9);
        let y = transpose(&x, Some(&perm)).unwrap();
        let out: Vec<usize> = perm.iter().map(|&p| shape[p]).collect();
        assert_eq!(y.shape(), &out[..]);
        let (xv, yv) = (values(&x), values(&y));
        let mut index = vec![0usize; out.len()];
        for &got in &yv {
            let mut source = vec![0usize; shape.len()];
            for (i, &p) in perm.iter().enumerate() {
                source[p] = index[i];
            }
            assert_eq!(
                got,
                at(&xv, &shape, &source),
                "{shape:?} {perm:?} at {index:?}"
            );
            for a in (0..out.len()).rev() {
                index[a] += 1;
                if index[a] < out[a] {
                    break;
                }
                index[a] = 0;
            }
        }
    }
}

#[test]
fn reversed_and_stepped_slices_copy_in_order() {
    let x = pseudo_random(&[9, 40], 11);
    let xv = values(&x);
    // x[::-2, 3:35:3]
    let items = [
        SliceItem::Range {
            start: None,
            stop: None,
            step: -2,
        },
        SliceItem::Range {
            start: Some(3),
            stop: Some(35),
            step: 3,
        },
    ];
    let y = strided_slice(&x, &items).unwrap();
    let rows: Vec<usize> = (0..9).rev().step_by(2).collect();
    let cols: Vec<usize> = (3..35).step_by(3).collect();
    assert_eq!(y.shape(), &[rows.len(), cols.len()]);
    let want: Vec<f64> = rows
        .iter()
        .flat_map(|&r| cols.iter().map(move |&c| (r, c)))
        .map(|(r, c)| at(&xv, &[9, 40], &[r, c]))
        .collect();
    assert_eq!(values(&y), want);
}
