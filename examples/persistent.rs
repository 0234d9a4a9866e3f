//! A persistent tape answers several gradient calls (a plain one only the first).
//! Run with `cargo run --example persistent`.
use rustape::{ops, Result, Source, Tape, Tensor, Unconnected};

fn main() -> Result<()> {
    let x = Tensor::scalar(3.0f32);
    let tape = Tape::new(true, true); // persistent
    let (y, z) = {
        let _recording = tape.enter()?;
        tape.watch(&x);
        let y = ops::multiply(&x, &x)?;
        let z = ops::multiply(&y, &y)?;
        (y, z)
    };
    let source = [Source::from(&x)];
    let dz_dx = tape.gradient(&[z], &source, None, Unconnected::None)?[0]
        .as_ref()
        .expect("z depends on x")
        .item()?;
    let dy_dx = tape.gradient(std::slice::from_ref(&y), &source, None, Unconnected::None)?[0]
        .as_ref()
        .expect("y depends on x")
        .item()?;
    println!("dz/dx = {dz_dx} (4x^3 = 108), dy/dx = {dy_dx} (2x = 6)");
    assert_eq!((dz_dx, dy_dx), (108.0, 6.0));

    // A plain tape refuses a second call, with a clear error instead of wrong numbers.
    let once = Tape::new(false, true);
    let y = {
        let _recording = once.enter()?;
        once.watch(&x);
        ops::multiply(&x, &x)?
    };
    once.gradient(std::slice::from_ref(&y), &source, None, Unconnected::None)?;
    let second = once.gradient(&[y], &source, None, Unconnected::None);
    println!("a second gradient on a plain tape: {}", second.unwrap_err());
    Ok(())
}
