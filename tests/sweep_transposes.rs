//! A weight multiplied at every step of a recurrence: a plain gradient sweep multiplies each
//! step's `dh` by a row-major copy of `u^T` made once (`tape::sweep_transpose`) instead of
//! reading `u` transposed. The gradients must be bit for bit those of a sweep that a recording
//! tape keeps from the copy, and pass gradcheck at first and second order.
use rustape::ops::{add, cast, matmul, multiply, reduce_mean, reduce_sum, tanh};
use rustape::testing::pseudo_random;
use rustape::{DType, Result, Source, Tape, Tensor, Unconnected, Variable};

mod support;
use support::*;

fn f32_random(shape: &[usize], seed: u64, scale: f64) -> Tensor {
    let x = pseudo_random(shape, seed);
    cast(&multiply(&x, &Tensor::scalar(scale)).unwrap(), DType::F32).unwrap()
}

/// `h_t = tanh(x_t @ w + h_{t-1} @ u + b)`, loss `mean(h_T * h_T) + sum_t mean(h_t @ r)`.
fn rnn(xs: &[Tensor], h0: &Tensor, p: &[Tensor]) -> Result<Tensor> {
    let mut h = h0.clone();
    let mut readout = Tensor::scalar(0.0f32);
    for x in xs {
        let z = add(
            &matmul(x, &p[0], false, false)?,
            &matmul(&h, &p[1], false, false)?,
        )?;
        h = tanh(&add(&z, &p[2])?)?;
        readout = add(
            &readout,
            &reduce_mean(&matmul(&h, &p[3], false, false)?, None, false)?,
        )?;
    }
    add(&reduce_mean(&multiply(&h, &h)?, None, false)?, &readout)
}

fn bits(t: &Tensor) -> Vec<u32> {
    match t.data() {
        rustape::Data::F32(v) => v.as_slice().iter().map(|x| x.to_bits()).collect(),
        _ => panic!("float32 expected"),
    }
}

/// The gradients of the RNN's loss for variables holding `init`, the sweep recorded by an
/// outer tape (`recorded`: no transposed copies) or not.
fn gradients(xs: &[Tensor], h0: &Tensor, init: &[Tensor], recorded: bool) -> Vec<Tensor> {
    let vars: Vec<Variable> = init
        .iter()
        .map(|v| Variable::new(v.clone(), true, None))
        .collect();
    let tape = Tape::new(false, true);
    let loss = {
        let _on = tape.enter().unwrap();
        let p: Vec<Tensor> = vars.iter().map(Variable::value).collect();
        rnn(xs, h0, &p).unwrap()
    };
    let sources: Vec<Source> = vars.iter().map(Source::from).collect();
    let outer = Tape::new(false, false);
    let _on = recorded.then(|| outer.enter().unwrap());
    tape.gradient(
        std::slice::from_ref(&loss),
        &sources,
        None,
        Unconnected::None,
    )
    .unwrap()
    .into_iter()
    .map(Option::unwrap)
    .collect()
}

#[test]
fn copied_transposes_give_the_same_gradients_bit_for_bit() {
    // W8's sizes (fewer steps): [32, 128] @ [128, 128]^T, and a hidden size the GEMM's tiles
    // do not divide.
    for (batch, inputs, hidden, steps) in [(32, 64, 128, 8), (20, 24, 72, 5)] {
        let xs: Vec<Tensor> = (0..steps)
            .map(|t| f32_random(&[batch, inputs], 100 + t as u64, 1.0))
            .collect();
        let h0 = f32_random(&[batch, hidden], 7, 0.5);
        let init = [
            f32_random(&[inputs, hidden], 1, 0.125),
            f32_random(&[hidden, hidden], 2, 0.08),
            f32_random(&[hidden], 3, 0.1),
            f32_random(&[hidden, 1], 4, 0.09),
        ];
        let plain = gradients(&xs, &h0, &init, false);
        let recorded = gradients(&xs, &h0, &init, true);
        for (k, (p, r)) in plain.iter().zip(&recorded).enumerate() {
            assert_eq!(bits(p), bits(r), "hidden {hidden}, parameter {k}");
        }
    }
}

#[test]
fn a_recurrence_with_copied_transposes_passes_gradcheck() {
    // float64, `u` 33 x 33 (large enough to be copied), first and second order (the second
    // records the sweep: no copies then).
    let xs: Vec<Tensor> = (0..3).map(|t| pseudo_random(&[4, 3], 60 + t)).collect();
    let h0 = pseudo_random(&[4, 33], 70);
    let f = |p: &[Tensor]| -> Result<Tensor> {
        let mut h = h0.clone();
        let mut out = Tensor::scalar(0.0f64);
        // One tensor multiplied at every step.
        let u = multiply(&p[1], &Tensor::scalar(0.2))?;
        for x in &xs {
            h = tanh(&add(
                &matmul(x, &p[0], false, false)?,
                &matmul(&h, &u, false, false)?,
            )?)?;
            out = add(
                &out,
                &reduce_sum(&matmul(&h, &p[2], false, false)?, None, false)?,
            )?;
        }
        Ok(out)
    };
    let params = [
        pseudo_random(&[3, 33], 1),
        pseudo_random(&[33, 33], 2),
        pseudo_random(&[33, 1], 3),
    ];
    check_labelled(&f, &params, "recurrence with a copied transpose");
}
