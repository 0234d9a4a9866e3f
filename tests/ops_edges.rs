//! Edges of the scan, sort, segment, scatter, rearranging, special and cross-entropy ops: bad
//! input is an error of the right kind naming the op (never a panic), plus the cases where
//! rustape differs from TensorFlow on purpose and the seeded shuffle.
use rustape::ops::*;
use rustape::{DType, ErrorKind, Result, Source, Tape, Tensor, Unconnected};

fn f64s(values: &[f64], shape: &[usize]) -> Tensor {
    Tensor::from_vec(values.to_vec(), shape).unwrap()
}

fn i64s(values: &[i64], shape: &[usize]) -> Tensor {
    Tensor::from_vec(values.to_vec(), shape).unwrap()
}

#[track_caller]
fn fails<T: std::fmt::Debug>(result: Result<T>, kind: ErrorKind, op: &str) {
    match result {
        Ok(v) => panic!("{op}: expected a {kind:?} error, got {v:?}"),
        Err(e) => {
            assert_eq!(e.kind, kind, "{op}: {e}");
            assert!(e.op.contains(op), "the error names {op}: {e}");
        }
    }
}

#[test]
fn bad_indices_are_value_errors() {
    let m = f64s(&[1.0, 2.0, 3.0, 4.0, 5.0, 6.0], &[2, 3]);
    fails(
        gather_nd(&m, &i64s(&[1, 3], &[1, 2]), 0),
        ErrorKind::Value,
        "gather_nd",
    );
    fails(
        gather_nd(&m, &i64s(&[-1, 0], &[1, 2]), 0),
        ErrorKind::Value,
        "gather_nd",
    );
    fails(
        gather_nd(&m, &i64s(&[0, 0, 0], &[1, 3]), 0),
        ErrorKind::Shape,
        "gather_nd",
    );
    fails(
        gather_nd(&m, &f64s(&[0.0, 0.0], &[1, 2]), 0),
        ErrorKind::DType,
        "gather_nd",
    );
    fails(
        scatter_nd(
            &i64s(&[4], &[1, 1]),
            &f64s(&[1.0, 2.0, 3.0], &[1, 3]),
            &[2, 3],
        ),
        ErrorKind::Value,
        "scatter_nd",
    );
    fails(
        scatter_nd(&i64s(&[1], &[1, 1]), &f64s(&[1.0, 2.0], &[1, 2]), &[2, 3]),
        ErrorKind::Shape,
        "scatter_nd",
    );
    fails(
        tensor_scatter_nd_update(&m, &i64s(&[2], &[1, 1]), &f64s(&[1.0, 2.0, 3.0], &[1, 3])),
        ErrorKind::Value,
        "tensor_scatter_nd_update",
    );
    fails(
        tensor_scatter_nd_add(&m, &i64s(&[1], &[1, 1]), &f64s(&[1.0, 2.0], &[1, 2])),
        ErrorKind::Shape,
        "tensor_scatter_nd_add",
    );
    fails(
        unsorted_segment_sum(&m, &i64s(&[0, 3], &[2]), 3),
        ErrorKind::Value,
        "unsorted_segment_sum",
    );
    fails(
        unsorted_segment_max(&m, &i64s(&[0], &[1]), 3),
        ErrorKind::Shape,
        "unsorted_segment_max",
    );
    fails(
        segment_sum(&m, &i64s(&[1, 0], &[2])),
        ErrorKind::Value,
        "segment_sum",
    );
    fails(
        segment_sum(&m, &i64s(&[-1, 0], &[2])),
        ErrorKind::Value,
        "segment_sum",
    );
    fails(
        unsorted_segment_mean(&i64s(&[1, 2], &[2]), &i64s(&[0, 0], &[2]), 1),
        ErrorKind::DType,
        "unsorted_segment_mean",
    );
    fails(
        sparse_softmax_cross_entropy_with_logits(&i64s(&[3, 0], &[2]), &m),
        ErrorKind::Value,
        "sparse_softmax_cross_entropy_with_logits",
    );
    fails(
        sparse_softmax_cross_entropy_with_logits(&i64s(&[-1, 0], &[2]), &m),
        ErrorKind::Value,
        "sparse_softmax_cross_entropy_with_logits",
    );
    fails(
        sparse_softmax_cross_entropy_with_logits(&i64s(&[1], &[1]), &m),
        ErrorKind::Shape,
        "sparse_softmax_cross_entropy_with_logits",
    );
}

#[test]
fn bad_shapes_and_dtypes_are_errors() {
    let m = f64s(&[1.0, 2.0, 3.0, 4.0, 5.0, 6.0], &[2, 3]);
    let ints = i64s(&[1, 2, 3], &[3]);
    fails(top_k(&m, 4), ErrorKind::Value, "top_k");
    fails(top_k(&Tensor::scalar(1.0f64), 1), ErrorKind::Shape, "top_k");
    fails(sort(&m, 2, false), ErrorKind::Value, "sort");
    fails(split(&m, &[1, 1], 1), ErrorKind::Value, "split");
    fails(split(&m, &[-1, -1, 1], 1), ErrorKind::Value, "split");
    fails(split_evenly(&m, 2, 1), ErrorKind::Value, "split");
    fails(
        boolean_mask(&m, &Tensor::from_vec(vec![true, false], &[2]).unwrap(), 1),
        ErrorKind::Shape,
        "boolean_mask",
    );
    fails(
        boolean_mask(&m, &f64s(&[1.0, 0.0], &[2]), 0),
        ErrorKind::DType,
        "boolean_mask",
    );
    fails(roll(&m, &[1, 2], &[0]), ErrorKind::Value, "roll");
    fails(repeat(&m, &[1, 2], Some(1)), ErrorKind::Value, "repeat");
    fails(reverse(&m, &[2]), ErrorKind::Value, "reverse");
    fails(cumsum(&m, 2, false, false), ErrorKind::Value, "cumsum");
    fails(
        cumprod(
            &Tensor::from_vec(vec![true], &[1]).unwrap(),
            0,
            false,
            false,
        ),
        ErrorKind::DType,
        "cumprod",
    );
    fails(erf(&ints), ErrorKind::DType, "erf");
    fails(lgamma(&ints), ErrorKind::DType, "lgamma");
    fails(is_nan(&ints), ErrorKind::DType, "is_nan");
    fails(reduce_all(&m, None, false), ErrorKind::DType, "reduce_all");
    fails(
        atan2(&m, &Tensor::scalar(1.0f32)),
        ErrorKind::DType,
        "atan2",
    );
    fails(
        xlogy(&m, &f64s(&[1.0, 2.0], &[2])),
        ErrorKind::Shape,
        "xlogy",
    );
    fails(
        scalar_mul(&f64s(&[2.0], &[1]), &m),
        ErrorKind::Value,
        "scalar_mul",
    );
    fails(
        tensordot(&m, &m, &[0, 1], &[1]),
        ErrorKind::Value,
        "tensordot",
    );
    fails(tensordot(&m, &m, &[1], &[0]), ErrorKind::Shape, "tensordot");
    fails(diag_part(&ints), ErrorKind::Shape, "diag_part");
    fails(trace(&ints), ErrorKind::Shape, "trace");
    fails(
        softmax_cross_entropy_with_logits(
            &m,
            &Tensor::from_vec(vec![1.0f32; 6], &[2, 3]).unwrap(),
            -1,
        ),
        ErrorKind::DType,
        "softmax_cross_entropy_with_logits",
    );
    fails(
        sigmoid_cross_entropy_with_logits(&f64s(&[1.0, 2.0], &[2]), &m),
        ErrorKind::Shape,
        "sigmoid_cross_entropy_with_logits",
    );
    fails(gelu(&ints, false), ErrorKind::DType, "gelu");
    fails(
        random::shuffle_scalar_check(),
        ErrorKind::Shape,
        "random.shuffle",
    );
}

mod random {
    use super::*;
    pub fn shuffle_scalar_check() -> Result<Tensor> {
        shuffle(&Tensor::scalar(1.0f64), Some(3))
    }
}

/// The gradient of `sum(f(x))` with respect to `x`.
fn gradient(f: impl Fn(&Tensor) -> Result<Tensor>, x: &Tensor) -> Option<Tensor> {
    let tape = Tape::new(false, true);
    let y = {
        let _recording = tape.enter().unwrap();
        tape.watch(x);
        reduce_sum(&f(x).unwrap(), None, false).unwrap()
    };
    tape.gradient(&[y], &[Source::from(x)], None, Unconnected::None)
        .unwrap()
        .remove(0)
}

#[test]
fn cumprod_through_zeros_is_exact_where_tensorflow_gives_zero() {
    // d/dx sum(cumprod(x)) at [2, 0, 3, 0, 5]: x1 gets 2 + 2·3 = 8 (TensorFlow's div_no_nan
    // formula gives 0 there).
    let x = f64s(&[2.0, 0.0, 3.0, 0.0, 5.0], &[5]);
    let g = gradient(|t| cumprod(t, 0, false, false), &x).unwrap();
    assert_eq!(g.to_f64_vec(), [1.0, 8.0, 0.0, 0.0, 0.0]);
    // Exclusive and reversed: y = [0·3·0·5, 3·0·5, 0·5, 5, 1] = [0, 0, 0, 5, 1].
    let g = gradient(|t| cumprod(t, 0, true, true), &x).unwrap();
    // x3 enters y2 = x3 x4 (slope 5) and y1 = x2 x3 x4 (slope 15); x4 enters y3 = x4.
    assert_eq!(g.to_f64_vec(), [0.0, 0.0, 0.0, 20.0, 1.0]);
}

#[test]
fn special_function_values() {
    let x = f64s(&[1.0, 0.5, 2.0, -0.5], &[4]);
    let euler = 0.577_215_664_901_532_9;
    let want = [
        -euler,
        -euler - 2.0 * 2f64.ln(),
        1.0 - euler,
        0.036_489_973_978_576_52,
    ];
    for (a, b) in digamma(&x).unwrap().to_f64_vec().iter().zip(want) {
        assert!((a - b).abs() < 1e-14, "digamma {a} vs {b}");
    }
    // ψ'(1) = π²/6, ψ''(1) = -2ζ(3).
    let one = f64s(&[1.0], &[1]);
    let pi2_6 = std::f64::consts::PI.powi(2) / 6.0;
    assert!((polygamma(1, &one).unwrap().item().unwrap() - pi2_6).abs() < 1e-14);
    assert!(
        (polygamma(2, &one).unwrap().item().unwrap() + 2.0 * 1.202_056_903_159_594_2).abs() < 1e-13
    );
    // lgamma(0.5) = ln √π; poles.
    let l = lgamma(&f64s(&[0.5, 0.0, -3.0], &[3])).unwrap().to_f64_vec();
    assert!((l[0] - std::f64::consts::PI.sqrt().ln()).abs() < 1e-15);
    assert_eq!(&l[1..], [f64::INFINITY, f64::INFINITY]);
    assert!(digamma(&f64s(&[-3.0], &[1]))
        .unwrap()
        .item()
        .unwrap()
        .is_nan());
}

#[test]
fn shuffle_repeats_under_a_seed_and_is_not_differentiable() {
    let x = f64s(&(0..20).map(f64::from).collect::<Vec<_>>(), &[10, 2]);
    set_seed(7);
    let a = shuffle(&x, None).unwrap();
    let b = shuffle(&x, Some(5)).unwrap();
    set_seed(7);
    assert_eq!(a.to_f64_vec(), shuffle(&x, None).unwrap().to_f64_vec());
    assert_eq!(b.to_f64_vec(), shuffle(&x, Some(5)).unwrap().to_f64_vec());
    // A permutation of the rows.
    let mut rows: Vec<(i64, i64)> = a
        .to_f64_vec()
        .chunks(2)
        .map(|r| (r[0] as i64, r[1] as i64))
        .collect();
    assert_ne!(
        rows,
        (0..10).map(|i| (2 * i, 2 * i + 1)).collect::<Vec<_>>()
    );
    rows.sort();
    assert_eq!(
        rows,
        (0..10).map(|i| (2 * i, 2 * i + 1)).collect::<Vec<_>>()
    );
    assert!(gradient(|t| shuffle(t, Some(1)), &x).is_none());
}

#[test]
fn shuffle_of_an_empty_tensor_with_a_huge_first_axis_is_empty() {
    // The fuzzer's case: [2^62, 0] made a 2^62-long order and failed with a capacity overflow.
    let x = Tensor::zeros(&[1usize << 62, 0], DType::F32);
    let y = shuffle(&x, Some(3)).unwrap();
    assert_eq!(y.shape(), &[1usize << 62, 0]);
}

#[test]
fn tensor_scatter_nd_update_last_row_wins() {
    let t = f64s(&[1.0, 2.0, 3.0], &[3]);
    let idx = i64s(&[1, 2, 1], &[3, 1]);
    let u = f64s(&[10.0, 20.0, 30.0], &[3]);
    let tape = Tape::new(false, true);
    let y = {
        let _recording = tape.enter().unwrap();
        tape.watch(&t);
        tape.watch(&u);
        tensor_scatter_nd_update(&t, &idx, &u).unwrap()
    };
    assert_eq!(y.to_f64_vec(), [1.0, 30.0, 20.0]);
    let w = f64s(&[1.0, 2.0, 3.0], &[3]);
    let loss = {
        let _recording = tape.enter().unwrap();
        reduce_sum(&multiply(&y, &w).unwrap(), None, false).unwrap()
    };
    let g = tape
        .gradient(
            &[loss],
            &[Source::from(&t), Source::from(&u)],
            None,
            Unconnected::None,
        )
        .unwrap();
    assert_eq!(g[0].as_ref().unwrap().to_f64_vec(), [1.0, 0.0, 0.0]);
    assert_eq!(g[1].as_ref().unwrap().to_f64_vec(), [0.0, 3.0, 2.0]);
}

#[test]
fn reflect_pad_of_an_empty_tensor_follows_the_data() {
    // A 2^31-long axis of an empty tensor: no index list of that length is built.
    let x = zeros(&[0, 3, 1 << 31, 3], rustape::DType::F64).unwrap();
    for mode in [PadMode::Reflect, PadMode::Symmetric] {
        let y = pad(&x, &[(0, 0), (1, 1), (1, 1), (0, 0)], mode, 0.0).unwrap();
        assert_eq!(y.shape(), [0, 5, (1 << 31) + 2, 3]);
    }
}

#[test]
fn real_ffts_of_an_empty_tensor_follow_the_data() {
    // No per-bin weight list as long as a 2^31-point axis for a tensor without elements.
    let x = zeros(&[0, 1 << 31], rustape::DType::F32).unwrap();
    let tape = Tape::new(false, true);
    let y = {
        let _recording = tape.enter().unwrap();
        tape.watch(&x);
        rfft_nd(&x, 2, None).unwrap()
    };
    assert_eq!(y.shape(), [0, (1 << 30) + 1]);
    let g = tape
        .gradient(&[y], &[Source::from(&x)], None, Unconnected::Zero)
        .unwrap();
    assert_eq!(g[0].as_ref().unwrap().shape(), [0, 1 << 31]);
}
