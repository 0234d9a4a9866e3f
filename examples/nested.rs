//! Nested tapes: the gradient computed under an outer tape is recorded on it, so derivatives
//! of any order come from nesting. Run with `cargo run --example nested`.
use rustape::{ops, Result, Source, Tape, Tensor, Unconnected};

/// The derivative of `y` with respect to `x` recorded so far on `tape`.
fn derivative(tape: &Tape, y: Tensor, x: &Tensor) -> Result<Tensor> {
    let g = tape.gradient(&[y], &[Source::from(x)], None, Unconnected::None)?;
    Ok(g.into_iter().next().flatten().expect("connected"))
}

fn main() -> Result<()> {
    // y = sin(x): y' = cos(x), y'' = -sin(x), y''' = -cos(x).
    let x = Tensor::scalar(0.5f64);
    let t3 = Tape::new(false, true);
    let t2 = Tape::new(false, true);
    let t1 = Tape::new(false, true);
    let second = {
        let _r3 = t3.enter()?;
        t3.watch(&x);
        let first = {
            let _r2 = t2.enter()?;
            t2.watch(&x);
            let y = {
                let _r1 = t1.enter()?;
                t1.watch(&x);
                ops::sin(&x)?
            };
            derivative(&t1, y, &x)?
        };
        derivative(&t2, first, &x)?
    };
    let third = derivative(&t3, second.clone(), &x)?;
    let (s, c) = (0.5f64.sin(), 0.5f64.cos());
    println!("sin''(0.5) = {} ({})", second.item()?, -s);
    println!("sin'''(0.5) = {} ({})", third.item()?, -c);
    assert!((second.item()? + s).abs() < 1e-15);
    assert!((third.item()? + c).abs() < 1e-15);
    Ok(())
}
