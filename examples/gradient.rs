//! One tape, one gradient: `y = x^2 + 2x` at `x = 3`, and a variable watched automatically.
//! Run with `cargo run --example gradient`.
use rustape::{ops, Result, Source, Tape, Tensor, Unconnected, Variable};

fn main() -> Result<()> {
    // A constant must be watched.
    let x = Tensor::scalar(3.0f64);
    let tape = Tape::new(false, true);
    let y = {
        let _recording = tape.enter()?; // the tape records until this guard is dropped
        tape.watch(&x);
        let two_x = ops::multiply(&Tensor::scalar(2.0f64), &x)?;
        ops::add(&ops::square(&x)?, &two_x)?
    };
    let dy_dx = tape.gradient(&[y], &[Source::from(&x)], None, Unconnected::None)?;
    let dy_dx = dy_dx[0].as_ref().expect("y depends on x").item()?;
    println!("d(x^2 + 2x)/dx at 3 = {dy_dx}");
    assert_eq!(dy_dx, 8.0);

    // A trainable variable read while the tape records is watched for you.
    let w = Variable::new(Tensor::from_vec(vec![1.0f64, -2.0], &[2])?, true, Some("w"));
    let tape = Tape::new(false, true);
    let loss = {
        let _recording = tape.enter()?;
        ops::reduce_sum(&ops::square(&w.value())?, None, false)?
    };
    let grad = tape.gradient(&[loss], &[Source::from(&w)], None, Unconnected::None)?;
    let grad = grad[0].as_ref().expect("loss depends on w").to_f64_vec();
    println!("d(sum w^2)/dw = {grad:?}");
    assert_eq!(grad, vec![2.0, -4.0]);
    Ok(())
}
