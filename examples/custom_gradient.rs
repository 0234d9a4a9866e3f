//! A custom gradient (`tape::record_custom`, what Python's `rt.custom_gradient` uses): the
//! tape calls your VJP instead of differentiating the forward's own ops. Here
//! `log(1 + exp(x))` in float32, whose gradient `1 - 1 / (1 + exp(x))` stays finite where the
//! naive one, `exp(x) / (1 + exp(x))`, is inf / inf = NaN (TensorFlow's guide's example).
//! The VJP is written in rustape's ops, so outer tapes can differentiate it again.
//! Run with `cargo run --example custom_gradient`.
use std::sync::Arc;

use rustape::tape::{record_custom, without_recording, ForeignVjp, Vjp};
use rustape::{grads, ops, Result, Source, Tape, Tensor, Unconnected};

fn log1pexp(x: &Tensor) -> Result<Tensor> {
    let one = Tensor::scalar(1.0f32);
    // The forward runs unrecorded; the tapes see one op with the VJP below.
    let (y, e) = without_recording(|| -> Result<_> {
        let e = ops::exp(x)?;
        Ok((ops::log(&ops::add(&one, &e)?)?, e))
    })?;
    let vjp: Arc<Vjp> = Arc::new(move |_: &[Tensor], dy: &[Option<Tensor>], _batch: usize| {
        let dy = dy[0].clone().expect("one output");
        let sigmoid = ops::subtract(&one, &ops::divide(&one, &ops::add(&one, &e)?)?)?;
        Ok(grads![Some(ops::multiply(&dy, &sigmoid)?)])
    });
    let make = || ForeignVjp::shared(vjp.clone());
    Ok(record_custom("log1pexp", std::slice::from_ref(x), &[y], make)?.remove(0))
}

fn main() -> Result<()> {
    let x = Tensor::scalar(100.0f32);
    let tape = Tape::new(false, true);
    let y = {
        let _recording = tape.enter()?;
        tape.watch(&x);
        log1pexp(&x)?
    };
    let dy_dx = tape.gradient(
        std::slice::from_ref(&y),
        &[Source::from(&x)],
        None,
        Unconnected::None,
    )?;
    let dy_dx = dy_dx[0].as_ref().expect("y depends on x").item()?;
    println!(
        "log1pexp(100) = {} in float32; its gradient {dy_dx} (the naive one is NaN)",
        y.item()?
    );
    assert_eq!(dy_dx, 1.0);
    Ok(())
}
