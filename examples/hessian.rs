//! `Tape::hessian` (no second tape needed) and a Newton step with it.
//! Run with `cargo run --example hessian`.
use rustape::{ops, Result, Source, Tape, Tensor, Unconnected};

fn main() -> Result<()> {
    // f(x) = sum(x^4) / 4 + x0 * x1: Hessian [[3 x0^2, 1], [1, 3 x1^2]].
    let x = Tensor::from_vec(vec![1.0f64, 2.0], &[2])?;
    let tape = Tape::new(true, true);
    let f = {
        let _recording = tape.enter()?;
        tape.watch(&x);
        let quartic = ops::reduce_sum(&ops::pow(&x, &Tensor::scalar(4.0f64))?, None, false)?;
        let quartic = ops::multiply(&quartic, &Tensor::scalar(0.25f64))?;
        let x0 = ops::reduce_sum(
            &ops::multiply(&x, &Tensor::from_vec(vec![1.0f64, 0.0], &[2])?)?,
            None,
            false,
        )?;
        let x1 = ops::reduce_sum(
            &ops::multiply(&x, &Tensor::from_vec(vec![0.0f64, 1.0], &[2])?)?,
            None,
            false,
        )?;
        ops::add(&quartic, &ops::multiply(&x0, &x1)?)?
    };
    let source = [Source::from(&x)];
    let h = tape.hessian(&f, &source, Unconnected::None)?;
    let h = h[0].as_ref().expect("f depends on x");
    println!("hessian: shape {:?}, {:?}", h.shape(), h.to_f64_vec());
    assert_eq!(h.to_f64_vec(), vec![3.0, 1.0, 1.0, 12.0]);

    // One Newton step: x - H^-1 g.
    let g = tape.gradient(&[f], &source, None, Unconnected::None)?;
    let g = g[0].as_ref().expect("f depends on x");
    let step = ops::solve(h, &ops::reshape(g, &[2, 1])?)?;
    let next = ops::subtract(&x, &ops::reshape(&step, &[2])?)?;
    println!(
        "gradient {:?}, after one Newton step x = {:?}",
        g.to_f64_vec(),
        next.to_f64_vec()
    );
    Ok(())
}
