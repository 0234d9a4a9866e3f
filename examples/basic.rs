//! The first TensorFlow GradientTape examples, on the Rust engine without Python.
//! Run with `cargo run --example basic`.
use rustape::{ops, Result, Source, Tape, Tensor, Unconnected};

fn main() -> Result<()> {
    // y = x * x at x = 3: dy/dx = 6, d2y/dx2 = 2 (two nested tapes).
    let x = Tensor::scalar(3.0f32);
    let outer = Tape::new(false, true);
    let dy_dx = {
        let _outer = outer.enter()?;
        outer.watch(&x);
        let inner = Tape::new(false, true);
        let y = {
            let _inner = inner.enter()?;
            inner.watch(&x);
            ops::multiply(&x, &x)?
        };
        inner
            .gradient(&[y], &[Source::from(&x)], None, Unconnected::None)?
            .remove(0)
    };
    let dy_dx = dy_dx.expect("y depends on x");
    let d2y_dx2 = outer
        .gradient(
            std::slice::from_ref(&dy_dx),
            &[Source::from(&x)],
            None,
            Unconnected::None,
        )?
        .remove(0);
    println!("dy/dx   = {} (TensorFlow documents 6.0)", dy_dx.item()?);
    println!(
        "d2y/dx2 = {} (TensorFlow documents 2.0)",
        d2y_dx2.expect("connected").item()?
    );

    // A persistent tape: z = y * y, dz/dx = 4 x^3 = 108.
    let tape = Tape::new(true, true);
    let (y, z) = {
        let _recording = tape.enter()?;
        tape.watch(&x);
        let y = ops::multiply(&x, &x)?;
        let z = ops::multiply(&y, &y)?;
        (y, z)
    };
    let dz_dx = tape
        .gradient(&[z], &[Source::from(&x)], None, Unconnected::None)?
        .remove(0);
    let dy_dx = tape
        .gradient(&[y], &[Source::from(&x)], None, Unconnected::None)?
        .remove(0);
    println!("dz/dx   = {} (108.0)", dz_dx.expect("connected").item()?);
    println!("dy/dx   = {} (6.0)", dy_dx.expect("connected").item()?);
    Ok(())
}
