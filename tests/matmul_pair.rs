//! The two gradients of a matmul's VJP give the same bits however they are run: side by side
//! (one per thread), each split across the threads, or one after the other on one thread (a
//! one-thread pool: nothing splits there), and the same bits as the two products computed on
//! their own. Shapes of an RNN step (small products), an MLP step (large, split ones) and one
//! product pair large enough to run side by side, in float32, float64 and complex128.
use rustape::ops::{add, matmul, reduce_mean, relu, square, subtract, tanh};
use rustape::{DType, Source, Tape, Tensor, Unconnected};

/// Values in [-scale, scale) from a seed (a linear congruential generator).
fn tensor(shape: &[usize], seed: u64, scale: f64, dtype: DType) -> Tensor {
    let mut s = seed.wrapping_mul(6364136223846793005) | 1;
    let mut next = || {
        s = s
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        ((s >> 40) as f64 / (1u64 << 24) as f64 * 2.0 - 1.0) * scale
    };
    let n: usize = shape.iter().product();
    match dtype {
        DType::F32 => Tensor::from_vec((0..n).map(|_| next() as f32).collect(), shape),
        DType::Complex128 => Tensor::from_vec(
            (0..n)
                .map(|_| num_complex::Complex::new(next(), next()))
                .collect(),
            shape,
        ),
        _ => Tensor::from_vec((0..n).map(|_| next()).collect(), shape),
    }
    .unwrap()
}

/// The gradients' bits (real and imaginary parts as float64, each exact).
fn bits(grads: &[Option<Tensor>]) -> Vec<Vec<u64>> {
    grads
        .iter()
        .map(|g| {
            let g = g.as_ref().expect("every source is connected");
            let parts = match g.dtype() {
                DType::Complex128 => g
                    .to_complex_vec()
                    .into_iter()
                    .flat_map(|z| [z.re, z.im])
                    .collect(),
                _ => g.to_f64_vec(),
            };
            parts.into_iter().map(f64::to_bits).collect()
        })
        .collect()
}

/// `f` on this thread (2 threads: splits and pairs allowed) and in a one-thread pool (every
/// product whole, one after the other): the same bits.
fn same_on_one_and_two_threads(what: &str, f: impl Fn() -> Vec<Vec<u64>> + Send + Sync) {
    // The global pool may already run (another test): then it has whatever size it has.
    let _ = rustape::threads::set_num_threads(2);
    let parallel = f();
    let one = rayon::ThreadPoolBuilder::new()
        .num_threads(1)
        .build()
        .unwrap();
    let sequential = one.install(&f);
    assert_eq!(parallel.len(), sequential.len(), "{what}");
    for (i, (p, s)) in parallel.iter().zip(&sequential).enumerate() {
        assert!(
            p == s,
            "{what}: gradient {i} differs between 2 threads and 1"
        );
    }
    // Twice more: whichever thread takes which product, the bits stay.
    for _ in 0..2 {
        assert!(f() == parallel, "{what}: a second run differs");
    }
}

/// The RNN of benchmark W8 (tanh, batch 32, input 64, hidden 128) over 8 steps: each step's
/// VJP multiplies 32x128 by 128x128 twice.
fn rnn_gradients(dtype: DType) -> Vec<Vec<u64>> {
    let params = [
        tensor(&[64, 128], 30, 1.0 / 8.0, dtype),
        tensor(&[128, 128], 31, 1.0 / 12.0, dtype),
        tensor(&[128], 32, 0.1, dtype),
    ];
    let tape = Tape::new(false, false);
    let loss = {
        let _on = tape.enter().unwrap();
        params.iter().for_each(|p| tape.watch(p));
        let mut h = tensor(&[32, 128], 1, 0.5, dtype);
        for t in 0..8 {
            let x = tensor(&[32, 64], 40 + t, 1.0, dtype);
            let z = add(
                &matmul(&x, &params[0], false, false).unwrap(),
                &matmul(&h, &params[1], false, false).unwrap(),
            )
            .unwrap();
            h = tanh(&add(&z, &params[2]).unwrap()).unwrap();
        }
        reduce_mean(&square(&h).unwrap(), None, false).unwrap()
    };
    let sources: Vec<Source> = params.iter().map(Source::from).collect();
    bits(
        &tape
            .gradient(&[loss], &sources, None, Unconnected::None)
            .unwrap(),
    )
}

/// The MLP step of benchmark W2 (256x784 -> 512 -> 512 -> 10, relu): products of 67M and
/// 103M multiply-adds, split across threads.
fn mlp_gradients() -> Vec<Vec<u64>> {
    let sizes = [784, 512, 512, 10];
    let params: Vec<Tensor> = sizes
        .windows(2)
        .enumerate()
        .flat_map(|(i, w)| {
            let seed = 10 * i as u64;
            [
                tensor(&[w[0], w[1]], seed, (2.0 / w[0] as f64).sqrt(), DType::F32),
                tensor(&[w[1]], seed + 1, 0.1, DType::F32),
            ]
        })
        .collect();
    let (x, target) = (
        tensor(&[256, 784], 100, 1.0, DType::F32),
        tensor(&[256, 10], 101, 1.0, DType::F32),
    );
    let tape = Tape::new(false, false);
    let loss = {
        let _on = tape.enter().unwrap();
        params.iter().for_each(|p| tape.watch(p));
        let mut h = x;
        for layer in 0..3 {
            let w = &params[2 * layer];
            h = add(
                &matmul(&h, w, false, false).unwrap(),
                &params[2 * layer + 1],
            )
            .unwrap();
            if layer < 2 {
                h = relu(&h).unwrap();
            }
        }
        reduce_mean(
            &square(&subtract(&h, &target).unwrap()).unwrap(),
            None,
            false,
        )
        .unwrap()
    };
    let sources: Vec<Source> = params.iter().map(Source::from).collect();
    bits(
        &tape
            .gradient(&[loss], &sources, None, Unconnected::None)
            .unwrap(),
    )
}

/// Both gradients of one product `[256, 512] @ [512, 256]` (transposed as given) against a
/// given cotangent: 33.6M multiply-adds each, run side by side at 2 threads (large enough to
/// wake a parked helper). Also the two
/// products written out, which must give the same bits.
fn pair_gradients(dtype: DType, ta: bool, tb: bool) -> Vec<Vec<u64>> {
    let a = tensor(if ta { &[512, 256] } else { &[256, 512] }, 7, 1.0, dtype);
    let b = tensor(if tb { &[256, 512] } else { &[512, 256] }, 8, 1.0, dtype);
    let dy = tensor(&[256, 256], 9, 1.0, dtype);
    let tape = Tape::new(false, false);
    let y = {
        let _on = tape.enter().unwrap();
        tape.watch(&a);
        tape.watch(&b);
        matmul(&a, &b, ta, tb).unwrap()
    };
    let grads = tape
        .gradient(
            &[y],
            &[(&a).into(), (&b).into()],
            Some(&[Some(dy.clone())]),
            Unconnected::None,
        )
        .unwrap();
    let mut out = bits(&grads);
    if dtype != DType::Complex128 {
        // dA = dy b^T, dB = a^T dy, in the operands' own layouts.
        let ga = match (ta, tb) {
            (false, false) => matmul(&dy, &b, false, true),
            (false, true) => matmul(&dy, &b, false, false),
            (true, false) => matmul(&b, &dy, false, true),
            (true, true) => matmul(&b, &dy, true, true),
        };
        let gb = match (ta, tb) {
            (false, false) => matmul(&a, &dy, true, false),
            (false, true) => matmul(&dy, &a, true, false),
            (true, false) => matmul(&a, &dy, false, false),
            (true, true) => matmul(&dy, &a, true, true),
        };
        let alone = bits(&[Some(ga.unwrap()), Some(gb.unwrap())]);
        assert!(
            alone == out,
            "the VJP's products differ from the products alone"
        );
        out.extend(alone);
    }
    out
}

#[test]
fn rnn_step_gradients_are_the_same_bits_on_one_and_two_threads() {
    same_on_one_and_two_threads("rnn float32", || rnn_gradients(DType::F32));
    same_on_one_and_two_threads("rnn float64", || rnn_gradients(DType::F64));
}

#[test]
fn mlp_step_gradients_are_the_same_bits_on_one_and_two_threads() {
    same_on_one_and_two_threads("mlp", mlp_gradients);
}

#[test]
fn a_product_pair_run_side_by_side_gives_the_bits_of_each_product_alone() {
    for (ta, tb) in [(false, false), (false, true), (true, false), (true, true)] {
        // complex128 (conjugated operands) once: its products cost four real ones.
        let complex = (ta, tb) == (false, false);
        for dtype in [DType::F32, DType::F64, DType::Complex128] {
            if dtype == DType::Complex128 && !complex {
                continue;
            }
            same_on_one_and_two_threads(&format!("pair {dtype:?} ta={ta} tb={tb}"), || {
                pair_gradients(dtype, ta, tb)
            });
        }
    }
}
