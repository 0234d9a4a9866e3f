//! `Tape::jacobian`: the derivative of every element of the target with respect to every
//! element of the source (shape `target.shape + source.shape`).
//! Run with `cargo run --example jacobian`.
use rustape::{ops, DType, Result, Source, Tape, Tensor, Unconnected, Variable};

fn main() -> Result<()> {
    // With respect to a vector: y = x * x, dy/dx = diag(2x).
    let x = Tensor::from_vec(vec![1.0f32, 2.0, 3.0], &[3])?;
    let tape = Tape::new(false, true);
    let y = {
        let _recording = tape.enter()?;
        tape.watch(&x);
        ops::multiply(&x, &x)?
    };
    let j = tape.jacobian(&y, &[Source::from(&x)], Unconnected::None)?;
    let j = j[0].as_ref().expect("y depends on x");
    println!(
        "jacobian of x*x: shape {:?}, {:?}",
        j.shape(),
        j.to_f64_vec()
    );
    assert_eq!(
        j.to_f64_vec(),
        vec![2.0, 0.0, 0.0, 0.0, 4.0, 0.0, 0.0, 0.0, 6.0]
    );

    // With respect to a scalar (the guide's sigmoid): the result has the target's shape.
    let x = ops::linspace(-10.0, 10.0, 201, DType::F32)?;
    let delta = Variable::new(Tensor::scalar(0.0f32), true, Some("delta"));
    let tape = Tape::new(false, true);
    let y = {
        let _recording = tape.enter()?;
        ops::sigmoid(&ops::add(&x, &delta.value())?)?
    };
    let dy_dx = tape.jacobian(&y, &[Source::from(&delta)], Unconnected::None)?;
    let dy_dx = dy_dx[0].as_ref().expect("y depends on delta");
    let peak = dy_dx.to_f64_vec().into_iter().fold(f64::MIN, f64::max);
    println!("sigmoid'(x): shape {:?}, peak {peak}", dy_dx.shape());
    assert_eq!(dy_dx.shape(), &[201]);
    assert!((peak - 0.25).abs() < 1e-6);
    Ok(())
}
