//! A weight used at every step of a recurrence: the sweep hands its running gradient total to
//! each matmul VJP, which adds its product into that buffer with one GEMM (directly, or through
//! the identity of a variable read). The numbers must be those of the products summed one by
//! one in the sweep's order, and the gradients those of finite differences at every order.
use rustape::ops::{add, cast, matmul, reduce_mean, reduce_sum, tanh};
use rustape::testing::pseudo_random;
use rustape::{DType, Result, Source, Tape, Tensor, Unconnected, Variable};

mod support;
use support::*;

const STEPS: usize = 6;

fn f32_random(shape: &[usize], seed: u64, scale: f64) -> Tensor {
    let x = pseudo_random(shape, seed);
    cast(
        &rustape::ops::multiply(&x, &Tensor::scalar(scale)).unwrap(),
        DType::F32,
    )
    .unwrap()
}

/// `h_t = tanh(x_t @ w + h_{t-1} @ u)`, loss `mean(h_T) + sum_t mean(h_t @ r)`, with `weights(t)`
/// giving `(w, u, r)` for step `t`.
fn rnn(xs: &[Tensor], h0: &Tensor, weights: &dyn Fn(usize) -> [Tensor; 3]) -> Result<Tensor> {
    let mut h = h0.clone();
    let mut readout = Tensor::scalar(0.0f32);
    for (t, x) in xs.iter().enumerate() {
        let [w, u, r] = weights(t);
        h = tanh(&add(
            &matmul(x, &w, false, false)?,
            &matmul(&h, &u, false, false)?,
        )?)?;
        readout = add(
            &readout,
            &reduce_mean(&matmul(&h, &r, false, false)?, None, false)?,
        )?;
    }
    add(&reduce_mean(&h, None, false)?, &readout)
}

fn bits(t: &Tensor) -> Vec<u32> {
    match t.data() {
        rustape::Data::F32(v) => v.as_slice().iter().map(|x| x.to_bits()).collect(),
        _ => panic!("float32 expected"),
    }
}

#[test]
fn shared_variables_sum_the_steps_products_exactly() {
    let (batch, inputs, hidden) = (32, 24, 40);
    let xs: Vec<Tensor> = (0..STEPS)
        .map(|t| f32_random(&[batch, inputs], 100 + t as u64, 1.0))
        .collect();
    let h0 = f32_random(&[batch, hidden], 7, 0.5);
    let init = [
        f32_random(&[inputs, hidden], 1, 0.2),
        f32_random(&[hidden, hidden], 2, 0.15),
        f32_random(&[hidden, 1], 3, 0.2),
    ];
    // One variable per weight, read at every step.
    let shared: Vec<Variable> = init
        .iter()
        .map(|v| Variable::new(v.clone(), true, None))
        .collect();
    let tape = Tape::new(false, true);
    let loss = {
        let _on = tape.enter().unwrap();
        rnn(&xs, &h0, &|_| {
            [shared[0].value(), shared[1].value(), shared[2].value()]
        })
        .unwrap()
    };
    let sources: Vec<Source> = shared.iter().map(Source::from).collect();
    let got = tape
        .gradient(
            std::slice::from_ref(&loss),
            &sources,
            None,
            Unconnected::None,
        )
        .unwrap();
    // A copy of each weight per step (own ids): no running total; the step gradients are summed here
    // in the sweep's order (the last step first).
    let copies: Vec<[Tensor; 3]> = (0..STEPS)
        .map(|_| init.clone().map(|w| Tensor::new(w.data().clone())))
        .collect();
    let tape = Tape::new(false, true);
    let loss = {
        let _on = tape.enter().unwrap();
        for c in copies.iter().flatten() {
            tape.watch(c);
        }
        rnn(&xs, &h0, &|t| copies[t].clone()).unwrap()
    };
    let sources: Vec<Source> = copies.iter().flatten().map(Source::from).collect();
    let per_step = tape
        .gradient(
            std::slice::from_ref(&loss),
            &sources,
            None,
            Unconnected::None,
        )
        .unwrap();
    for (k, got) in got.iter().enumerate() {
        let mut total = per_step[3 * (STEPS - 1) + k].clone().unwrap();
        for t in (0..STEPS - 1).rev() {
            total = add(&total, per_step[3 * t + k].as_ref().unwrap()).unwrap();
        }
        assert_eq!(bits(got.as_ref().unwrap()), bits(&total), "weight {k}");
    }
}

#[test]
fn a_recurrence_through_shared_tensors_passes_gradcheck() {
    // float64, the same tensors `w`, `u`, `r` at every step (running totals without variable
    // reads; `u`'s 17x17 gradient large enough for the GEMM that adds), first and second order
    // (the second records the sweep: no totals offered then).
    let xs: Vec<Tensor> = (0..4).map(|t| pseudo_random(&[3, 2], 40 + t)).collect();
    let h0 = pseudo_random(&[3, 17], 50);
    let f = |p: &[Tensor]| -> Result<Tensor> {
        let mut h = h0.clone();
        let mut out = Tensor::scalar(0.0f64);
        for x in &xs {
            h = tanh(&add(
                &matmul(x, &p[0], false, false)?,
                &matmul(&h, &p[1], false, false)?,
            )?)?;
            out = add(
                &out,
                &reduce_sum(&matmul(&h, &p[2], false, false)?, None, false)?,
            )?;
        }
        Ok(out)
    };
    let params = [
        pseudo_random(&[2, 17], 1),
        pseudo_random(&[17, 17], 2),
        pseudo_random(&[17, 1], 3),
    ];
    check_labelled(&f, &params, "tanh recurrence");
}
