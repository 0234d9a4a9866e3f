//! `triple_product` (`k a b c` summed to a shape, one pass): values against the unfused
//! composition, gradients (float64, first and second order), batched cotangents, and the
//! higher-order gradients of `tanh` it serves.
mod support;
use support::*;

use rustape::ops::{
    matmul, multiply, reduce_sum, sum_to_batched_shape, tanh, tanh_grad, triple_product,
};
use rustape::testing::{check_vectorized, pseudo_random};
use rustape::{Result, Tensor};

/// The composition the op fuses: `(c * b) * (a * k)` summed to `keep` leading axes + `shape`.
fn unfused(a: &Tensor, b: &Tensor, c: &Tensor, k: f64, keep: usize, shape: &[usize]) -> Tensor {
    let k = match a.dtype() {
        rustape::DType::F32 => Tensor::scalar(k as f32),
        _ => Tensor::scalar(k),
    };
    let ak = multiply(a, &k).unwrap();
    let p = multiply(&multiply(c, b).unwrap(), &ak).unwrap();
    sum_to_batched_shape(&p, keep, shape).unwrap()
}

/// Operand shapes, kept leading axes and the shape summed to.
type Case = (Vec<usize>, Vec<usize>, Vec<usize>, usize, Vec<usize>);

/// (a, b, c, keep, shape): the fused kernel's cases (leading axes summed or not, operands
/// repeating smaller trailing blocks, a scalar) and the composed ones (an axis of 1 summed,
/// an operand stretched along a middle axis).
fn cases() -> Vec<Case> {
    vec![
        (vec![3, 4], vec![3, 4], vec![2, 3, 4], 0, vec![3, 4]),
        (vec![3, 4], vec![3, 4], vec![2, 3, 4], 1, vec![3, 4]),
        (vec![3, 4], vec![2, 3, 4], vec![2, 3, 4], 0, vec![2, 3, 4]),
        (vec![2, 3, 4], vec![4], vec![2, 3, 4], 0, vec![4]),
        (vec![2, 3, 4], vec![4], vec![2, 3, 4], 1, vec![4]),
        (vec![4], vec![3, 4], vec![2, 3, 4], 0, vec![3, 4]),
        (vec![], vec![3, 4], vec![2, 3, 4], 0, vec![3, 4]),
        (vec![3, 4], vec![3, 4], vec![3, 4], 0, vec![]),
        (vec![3, 4], vec![3, 1], vec![2, 3, 4], 0, vec![3, 1]),
        (vec![3, 4], vec![3, 1], vec![2, 3, 4], 0, vec![3, 4]),
        (vec![2, 1, 4], vec![3, 4], vec![2, 3, 4], 1, vec![1, 4]),
    ]
}

fn operands(
    case: &(Vec<usize>, Vec<usize>, Vec<usize>, usize, Vec<usize>),
    seed: u64,
) -> [Tensor; 3] {
    [
        pseudo_random(&case.0, seed),
        pseudo_random(&case.1, seed + 1),
        pseudo_random(&case.2, seed + 2),
    ]
}

#[test]
fn equals_the_unfused_composition() {
    for (n, case) in cases().iter().enumerate() {
        let [a, b, c] = operands(case, 10 * n as u64);
        let (keep, shape) = (case.3, &case.4);
        let want = unfused(&a, &b, &c, -2.0, keep, shape);
        let got = triple_product(&a, &b, &c, -2.0, keep, shape).unwrap();
        assert_eq!(got.shape(), want.shape(), "case {n}");
        assert_close_labelled(&values(&got), &values(&want), 1e-15, &format!("case {n}"));
        // float32: the same products, within rounding
        let f32s = |t: &Tensor| rustape::ops::cast(t, rustape::DType::F32).unwrap();
        let got32 = triple_product(&f32s(&a), &f32s(&b), &f32s(&c), 0.5, keep, shape).unwrap();
        let want32 = unfused(&a, &b, &c, 0.5, keep, shape);
        assert_close_labelled(&values(&got32), &values(&want32), 1e-6, &format!("f32 {n}"));
    }
}

#[test]
fn no_sum_is_bit_for_bit_the_products() {
    // Without a reduction each element is exactly (c * b) * (a * k).
    let a = pseudo_random(&[5, 7], 1);
    let b = pseudo_random(&[5, 7], 2);
    let c = pseudo_random(&[3, 5, 7], 3);
    let got = triple_product(&a, &b, &c, -2.0, 1, &[5, 7]).unwrap();
    assert_eq!(values(&got), values(&unfused(&a, &b, &c, -2.0, 1, &[5, 7])));
}

#[test]
fn large_operands_split_and_sum_in_order() {
    // Large enough to run in parallel chunks when a second thread is free.
    let a = pseudo_random(&[256, 300], 4);
    let b = pseudo_random(&[256, 300], 5);
    let c = pseudo_random(&[3, 256, 300], 6);
    for (keep, shape) in [(0, vec![256, 300]), (1, vec![256, 300]), (0, vec![300])] {
        let got = triple_product(&a, &b, &c, 1.5, keep, &shape).unwrap();
        let want = unfused(&a, &b, &c, 1.5, keep, &shape);
        assert_close(&values(&got), &values(&want), 1e-14);
    }
}

#[test]
fn gradcheck_first_and_second_order() {
    for (n, case) in cases().iter().enumerate() {
        let (keep, shape) = (case.3, case.4.clone());
        let f = move |xs: &[Tensor]| -> Result<Tensor> {
            let p = triple_product(&xs[0], &xs[1], &xs[2], -2.0, keep, &shape)?;
            // weight the result so that second derivatives are not all zero
            multiply(&p, &p)
        };
        check_labelled(&f, &operands(case, 100 + n as u64), &format!("case {n}"));
    }
}

#[test]
fn third_order_through_tanh() {
    // The Laplacian-of-a-network pattern: gradients of gradients of tanh.
    let x = t64(&[-1.3, -0.4, 0.3, 0.9, 1.7, -2.2], &[2, 3]);
    let third = |x: &Tensor| -> Result<Tensor> {
        let second = |x: &Tensor| gradient(&|x: &Tensor| gradient(&|x| tanh(x), x), x);
        gradient(&second, x)
    };
    // d^3/dx^3 tanh = -2 (1 - t^2) (1 - 3 t^2)
    let t: Vec<f64> = values(&x).iter().map(|v| v.tanh()).collect();
    let want: Vec<f64> = t
        .iter()
        .map(|t| -2.0 * (1.0 - t * t) * (1.0 - 3.0 * t * t))
        .collect();
    assert_close(&values(&third(&x).unwrap()), &want, 1e-12);
    check(&|xs| third(&xs[0]), &[x]);
}

#[test]
fn vectorises() {
    for (n, case) in cases().iter().enumerate() {
        let (keep, shape) = (case.3, case.4.clone());
        let f = move |xs: &[Tensor]| -> Result<Tensor> {
            let p = triple_product(&xs[0], &xs[1], &xs[2], 0.75, keep, &shape)?;
            multiply(&p, &p)
        };
        check_vectorized(&f, &operands(case, 200 + n as u64), 1e-12)
            .unwrap_or_else(|e| panic!("case {n}: {e}"));
    }
    // and tanh_grad's gradient with a batched cotangent, as in a Hessian of a network
    let y = tanh(&pseudo_random(&[4, 3], 7)).unwrap();
    let f = move |xs: &[Tensor]| -> Result<Tensor> {
        let g = tanh_grad(&y, &xs[0])?;
        let h = matmul(&g, &xs[0], true, false)?;
        reduce_sum(
            &multiply(&g, &matmul(&xs[0], &h, false, false)?)?,
            None,
            false,
        )
    };
    check_vectorized(&f, &[pseudo_random(&[4, 3], 8)], 1e-12).unwrap();
}

#[test]
fn errors_name_the_op_and_shapes() {
    let a = t64(&[1.0, 2.0], &[2]);
    let b = t64(&[1.0, 2.0, 3.0], &[3]);
    let e = triple_product(&a, &a, &b, 1.0, 0, &[2]).unwrap_err();
    assert_eq!(e.op, "triple_product");
    assert!(
        e.message.contains("[2]") && e.message.contains("[3]"),
        "{e}"
    );
    let e = triple_product(&a, &a, &a, 1.0, 0, &[3]).unwrap_err();
    assert!(e.message.contains("[3]"), "{e}");
    let e = triple_product(&a, &a, &a, 1.0, 2, &[]).unwrap_err();
    assert!(e.message.contains("keeping 2"), "{e}");
    let ints = rustape::Tensor::from_vec(vec![1i32, 2], &[2]).unwrap();
    let e = triple_product(&ints, &ints, &ints, 1.0, 0, &[2]).unwrap_err();
    assert_eq!(e.op, "triple_product");
    let f32s = t32(&[1.0, 2.0], &[2]);
    assert!(triple_product(&a, &f32s, &a, 1.0, 0, &[2]).is_err());
}

/// `d sum(f(xs) * w) / d xs[k]` for the `k` in `which`, on a fresh tape.
fn grads_of(
    f: &dyn Fn(&[Tensor]) -> Result<Tensor>,
    xs: &[Tensor],
    w: &Tensor,
    which: &[usize],
) -> Vec<Vec<f64>> {
    let tape = rustape::Tape::new(false, true);
    let y = {
        let _on = tape.enter().unwrap();
        xs.iter().for_each(|x| tape.watch(x));
        multiply(&f(xs).unwrap(), w).unwrap()
    };
    let sources: Vec<rustape::Source> = which
        .iter()
        .map(|&k| rustape::Source::from(&xs[k]))
        .collect();
    tape.gradient(&[y], &sources, None, rustape::Unconnected::Zero)
        .unwrap()
        .into_iter()
        .map(|g| values(&g.unwrap()))
        .collect()
}

#[test]
fn gradients_from_one_pass_equal_one_op_each_bit_for_bit() {
    // The VJPs compute all the gradients asked for in one blocked pass; each alone takes its
    // own op. Same products, summed in the same order: the same bits. Large enough for
    // several pieces of the pass, small enough not to split over threads.
    let f32s = |t: Tensor| rustape::ops::cast(&t, rustape::DType::F32).unwrap();
    for dtype_f32 in [false, true] {
        let conv = |t: Tensor| if dtype_f32 { f32s(t) } else { t };
        let h = conv(pseudo_random(&[64, 40], 1));
        let dh = conv(pseudo_random(&[64, 40], 2));
        let ddz = conv(pseudo_random(&[3, 64, 40], 3));
        let w = conv(pseudo_random(&[3, 64, 40], 4));
        let wy = conv(pseudo_random(&[64, 40], 5));
        // triple_product summed to each shape, and with batch axes kept
        for (keep, shape) in [(1usize, vec![64usize, 40]), (0, vec![64, 40])] {
            let f = move |xs: &[Tensor]| triple_product(&xs[0], &xs[1], &xs[2], -2.0, keep, &shape);
            let weight = if keep == 1 { &w } else { &wy };
            let xs = [h.clone(), dh.clone(), ddz.clone()];
            let all = grads_of(&f, &xs, weight, &[0, 1, 2]);
            for (k, together) in all.iter().enumerate() {
                let alone = &grads_of(&f, &xs, weight, &[k])[0];
                assert_eq!(together, alone, "tp keep {keep} input {k}");
            }
        }
        // tanh_grad with a batched cotangent: y's and dy's gradients together and alone
        let f = |xs: &[Tensor]| tanh_grad(&xs[0], &xs[1]);
        let xs = [h.clone(), ddz.clone()];
        let both = grads_of(&f, &xs, &w, &[0, 1]);
        assert_eq!(both[0], grads_of(&f, &xs, &w, &[0])[0], "tanh_grad y");
        assert_eq!(both[1], grads_of(&f, &xs, &w, &[1])[0], "tanh_grad dy");
    }
}
