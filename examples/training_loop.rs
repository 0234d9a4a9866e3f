//! A training loop: gradient descent on a linear regression, with a progress bar on stderr
//! (`rustape::progress::Bar`, the bar the Python package draws).
//! Run with `cargo run --example training_loop` (`-- --quiet` for no bar).
use rustape::progress::{Bar, Progress};
use rustape::{ops, Result, Source, Tape, Tensor, Unconnected, Variable};

fn main() -> Result<()> {
    let quiet = std::env::args().any(|a| a == "--quiet");
    // 64 points of y = 2 x0 - x1 + 0.5 x2 + 0.3 (deterministic inputs, no rand dependency).
    let n = 64;
    let xs: Vec<f32> = (0..n * 3)
        .map(|i| ((i * 37 % 101) as f32 / 50.0) - 1.0)
        .collect();
    let ys: Vec<f32> = xs
        .chunks(3)
        .map(|r| 2.0 * r[0] - r[1] + 0.5 * r[2] + 0.3)
        .collect();
    let x = Tensor::from_vec(xs, &[n, 3])?;
    let y = Tensor::from_vec(ys, &[n, 1])?;
    let w = Variable::new(Tensor::from_vec(vec![0.0f32; 3], &[3, 1])?, true, Some("w"));
    let b = Variable::new(Tensor::scalar(0.0f32), true, Some("b"));
    let learning_rate = Tensor::scalar(0.2f32);

    let steps = 300;
    let bar = Bar::new("train", "steps");
    if !quiet {
        bar.start(steps);
    }
    let mut losses = Vec::with_capacity(steps);
    for _ in 0..steps {
        let tape = Tape::new(false, true);
        let loss = {
            let _recording = tape.enter()?;
            let prediction = ops::add(&ops::matmul(&x, &w.value(), false, false)?, &b.value())?;
            ops::reduce_mean(&ops::square(&ops::subtract(&prediction, &y)?)?, None, false)?
        };
        losses.push(loss.item()?);
        let sources = [Source::from(&w), Source::from(&b)];
        let grads = tape.gradient(&[loss], &sources, None, Unconnected::None)?;
        for (variable, grad) in [&w, &b].into_iter().zip(grads) {
            let grad = grad.expect("the loss depends on every weight");
            variable.assign_sub(&ops::multiply(&learning_rate, &grad)?)?;
        }
        if !quiet {
            bar.advance(1);
        }
    }
    if !quiet {
        bar.finish();
    }
    let last = losses[steps - 1];
    println!(
        "loss: {:.4} after 1 step, {last:.2e} after {steps}",
        losses[0]
    );
    println!("w = {:?}, b = {}", w.peek().to_f64_vec(), b.peek().item()?);
    assert!(last < 1e-6, "the loss should have converged");
    Ok(())
}
