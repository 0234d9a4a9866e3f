//! Trains a small MLP (2 -> 32 tanh -> 3) to classify three interleaved spirals with
//! `rustape::optim::Adam`, printing the loss curve. Run with `cargo run --example train_mlp`.
//! Ends with an error if the loss does not fall, so CI notices a broken training stack.
use rustape::optim::{Adam, Optimizer};
use rustape::{ops, DType, Error, Result, Source, Tape, Tensor, Unconnected, Variable};

/// A tiny deterministic generator (no dependency): uniform numbers in [0, 1).
struct Lcg(u64);

impl Lcg {
    fn next(&mut self) -> f32 {
        self.0 = self
            .0
            .wrapping_mul(6_364_136_223_846_793_005)
            .wrapping_add(1_442_695_040_888_963_407);
        (self.0 >> 40) as f32 / (1u64 << 24) as f32
    }
}

/// Three spirals of `per_class` points each: inputs `[n, 2]` and class labels `[n]`.
fn spirals(per_class: usize, rng: &mut Lcg) -> Result<(Tensor, Tensor)> {
    let mut xs = Vec::new();
    let mut ys = Vec::new();
    for class in 0..3 {
        for i in 0..per_class {
            let r = i as f32 / per_class as f32;
            let angle = class as f32 * 2.1 + r * 4.0 + (rng.next() - 0.5) * 0.3;
            xs.extend([r * angle.sin(), r * angle.cos()]);
            ys.push(class);
        }
    }
    let n = ys.len();
    Ok((Tensor::from_vec(xs, &[n, 2])?, Tensor::from_vec(ys, &[n])?))
}

/// A Glorot-uniform variable.
fn glorot(shape: &[usize], name: &str, rng: &mut Lcg) -> Result<Variable> {
    let limit = (6.0 / (shape[0] + shape[1]) as f32).sqrt();
    let values = (0..shape[0] * shape[1])
        .map(|_| (rng.next() * 2.0 - 1.0) * limit)
        .collect();
    Ok(Variable::new(
        Tensor::from_vec(values, shape)?,
        true,
        Some(name),
    ))
}

fn main() -> Result<()> {
    let mut rng = Lcg(7);
    let (x, labels) = spirals(64, &mut rng)?;
    let targets = ops::one_hot(&labels, 3, DType::F32)?;
    let w1 = glorot(&[2, 32], "w1", &mut rng)?;
    let b1 = Variable::new(Tensor::zeros(&[32], DType::F32), true, Some("b1"));
    let w2 = glorot(&[32, 3], "w2", &mut rng)?;
    let b2 = Variable::new(Tensor::zeros(&[3], DType::F32), true, Some("b2"));
    let vars = [w1.clone(), b1.clone(), w2.clone(), b2.clone()];
    let sources: Vec<Source> = vars.iter().map(Source::from).collect();
    let mut adam = Optimizer::new(Adam::default(), 0.05)?;

    let mut curve = Vec::new();
    for step in 0..200 {
        let tape = Tape::new(false, true);
        let loss = {
            let _recording = tape.enter()?;
            let hidden = ops::tanh(&ops::add(
                &ops::matmul(&x, &w1.value(), false, false)?,
                &b1.value(),
            )?)?;
            let logits = ops::add(
                &ops::matmul(&hidden, &w2.value(), false, false)?,
                &b2.value(),
            )?;
            // Mean softmax cross-entropy: -mean(sum(targets * log_softmax(logits))).
            let log_p = ops::log_softmax(&logits, -1)?;
            let per_example =
                ops::reduce_sum(&ops::multiply(&targets, &log_p)?, Some(&[-1]), false)?;
            ops::negative(&ops::reduce_mean(&per_example, None, false)?)?
        };
        let grads = tape.gradient(
            std::slice::from_ref(&loss),
            &sources,
            None,
            Unconnected::None,
        )?;
        adam.apply_gradients(&grads, &vars)?;
        let value = loss.item()?;
        curve.push(value);
        if step % 20 == 0 || step == 199 {
            println!("step {step:3}  loss {value:.4}");
        }
    }
    let (first, last) = (curve[0], curve[curve.len() - 1]);
    println!(
        "loss {first:.4} -> {last:.4} after {} Adam steps",
        adam.iterations()
    );
    if last > first * 0.5 {
        return Err(Error::value(
            "train_mlp",
            format!("the loss did not fall enough: {first} -> {last}"),
        ));
    }
    Ok(())
}
