//! `Tape::batch_jacobian`: per-example Jacobians `[batch, y.., x..]` when row `i` of the
//! target depends only on row `i` of the source, and the error when a graph mixes rows.
//! Run with `cargo run --example batch_jacobian`.
use rustape::{ops, Result, Source, Tape, Tensor, Unconnected};

fn main() -> Result<()> {
    let x = Tensor::from_vec(vec![1.0f32, 2.0, 3.0, 4.0], &[2, 2])?;
    let tape = Tape::new(true, true);
    let (y, mixed) = {
        let _recording = tape.enter()?;
        tape.watch(&x);
        let y = ops::multiply(&x, &x)?;
        // Subtracting the batch mean makes each row depend on every other row.
        let mean = ops::reduce_mean(&x, Some(&[0]), true)?;
        (y, ops::subtract(&x, &mean)?)
    };
    let jb = tape.batch_jacobian(&y, &Source::from(&x), Unconnected::None)?;
    let jb = jb.expect("y depends on x");
    println!(
        "batch_jacobian of x*x: shape {:?}, {:?}",
        jb.shape(),
        jb.to_f64_vec()
    );
    assert_eq!(jb.shape(), &[2, 2, 2]);
    assert_eq!(
        jb.to_f64_vec(),
        vec![2.0, 0.0, 0.0, 4.0, 6.0, 0.0, 0.0, 8.0]
    );

    let refused = tape.batch_jacobian(&mixed, &Source::from(&x), Unconnected::None);
    let error = refused.expect_err("rows are mixed by the batch mean");
    println!("a graph that mixes rows: {error}");
    Ok(())
}
