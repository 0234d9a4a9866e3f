//! batch_jacobian and row independence: every op declares which inputs' batch rows (index `i`
//! on axis 0) reach other rows of its result. Through ops that keep rows apart, batch_jacobian
//! equals the diagonal blocks of the full jacobian (whose other blocks are zero); through an op
//! that mixes rows it is a Value error naming the op.
use rustape::ops::{
    add, batch_normalization, broadcast_to, clip_by_norm, clip_by_value, concat, elu, exp,
    expand_dims, gather, greater, log_softmax, matmul, maximum, moments, multiply, norm, pad,
    pad_axis, reduce_logsumexp, reduce_max, reduce_mean, reduce_min, reduce_prod, reduce_sum,
    reshape, scatter_add_to, sigmoid, sin, slice_axis, softmax, square, squeeze, stack,
    strided_slice, subtract, tanh, tile, transpose, unstack, where_, NormOrd, PadMode, SliceItem,
};
use rustape::testing::pseudo_random;
use rustape::{ErrorKind, Result, Source, Tape, Tensor, Unconnected};

mod support;
use support::shape::r;
use support::*;

type F = Box<dyn Fn(&Tensor) -> Result<Tensor>>;

/// Records `y = f(x)` on a persistent tape and returns `y`, its batch jacobian and its full
/// jacobian.
fn both_jacobians(f: &dyn Fn(&Tensor) -> Result<Tensor>, x: &Tensor) -> (Tensor, Tensor, Tensor) {
    let tape = Tape::new(true, true);
    let y = {
        let _r = tape.enter().unwrap();
        tape.watch(x);
        f(x).unwrap()
    };
    let source = Source::from(x);
    let batch = tape
        .batch_jacobian(&y, &source, Unconnected::Zero)
        .unwrap_or_else(|e| panic!("batch_jacobian refused: {e}"))
        .expect("zeros when unconnected");
    let full = tape
        .jacobian(&y, &[source], Unconnected::Zero)
        .unwrap()
        .pop()
        .flatten()
        .expect("zeros when unconnected");
    (y, batch, full)
}

/// batch_jacobian of `f` at `x` is the diagonal blocks `J[b, .., b, ..]` of the full jacobian,
/// and every other block is zero (the op really keeps rows apart).
#[track_caller]
fn assert_diagonal_blocks(name: &str, f: &dyn Fn(&Tensor) -> Result<Tensor>, x: &Tensor) {
    let (y, batch, full) = both_jacobians(f, x);
    let b = x.shape()[0];
    assert_eq!(y.shape()[0], b, "{name}: target batch");
    let (ny, nx) = (y.size() / b.max(1), x.size() / b.max(1));
    let mut expected_shape = y.shape().to_vec();
    expected_shape.extend(&x.shape()[1..]);
    assert_eq!(
        batch.shape(),
        expected_shape,
        "{name}: batch_jacobian shape"
    );
    let (batch, full) = (batch.to_f64_vec(), full.to_f64_vec());
    assert_eq!(full.len(), b * ny * b * nx, "{name}: jacobian size");
    for i in 0..b {
        for p in 0..ny {
            for k in 0..b {
                for q in 0..nx {
                    let j = full[((i * ny + p) * b + k) * nx + q];
                    if k == i {
                        let bj = batch[(i * ny + p) * nx + q];
                        assert!(
                            (bj - j).abs() <= 1e-12 * (1.0 + j.abs()),
                            "{name}: row {i}, target {p}, source {q}: batch {bj} vs full {j}"
                        );
                    } else {
                        assert_eq!(
                            j, 0.0,
                            "{name}: row {i} depends on row {k} (target {p}, source {q})"
                        );
                    }
                }
            }
        }
    }
}

/// batch_jacobian of `f` at `x` is a Value error naming one of `ops` among the mixing ops on
/// the path from the source.
#[track_caller]
fn assert_refused(name: &str, f: &dyn Fn(&Tensor) -> Result<Tensor>, x: &Tensor, ops: &[&str]) {
    let tape = Tape::new(false, true);
    let y = {
        let _r = tape.enter().unwrap();
        tape.watch(x);
        f(x).unwrap()
    };
    assert_eq!(y.shape()[0], x.shape()[0], "{name}: target batch");
    let err = tape
        .batch_jacobian(&y, &x.into(), Unconnected::None)
        .expect_err(name);
    assert_eq!(err.kind, ErrorKind::Value, "{name}: {err}");
    assert_eq!(err.op, "GradientTape.batch_jacobian", "{name}: {err}");
    assert!(err.message.contains("batch rows"), "{name}: {err}");
    assert!(
        ops.iter()
            .any(|op| err.message.contains(&format!("'{op}'"))),
        "{name}: should name one of {ops:?}: {err}"
    );
}

// ---------------------------------------------------------------- ops that keep rows apart

#[test]
fn elementwise_ops_and_a_bias_add_keep_rows_apart() {
    let x = pseudo_random(&[3, 4], 1);
    let bias = pseudo_random(&[4], 2);
    let column = pseudo_random(&[3, 1], 3);
    let cases: Vec<(&str, F)> = vec![
        (
            "sin * x + exp",
            Box::new(|x| add(&multiply(&sin(x)?, x)?, &exp(x)?)),
        ),
        ("tanh(sigmoid)", Box::new(|x| tanh(&sigmoid(x)?))),
        ("bias add", Box::new(move |x| add(x, &bias))),
        ("scale, bias, tanh", {
            let bias = pseudo_random(&[4], 4);
            Box::new(move |x| tanh(&add(&multiply(x, &Tensor::scalar(2.0))?, &bias)?))
        }),
        ("two dense layers (the guide's example)", {
            let (w1, b1) = (pseudo_random(&[4, 5], 16), pseudo_random(&[5], 17));
            let (w2, b2) = (pseudo_random(&[5, 2], 18), pseudo_random(&[2], 19));
            Box::new(move |x| {
                let h = elu(&add(&matmul(x, &w1, false, false)?, &b1)?)?;
                elu(&add(&matmul(&h, &w2, false, false)?, &b2)?)
            })
        }),
        ("[3, 1] column", Box::new(move |x| multiply(x, &column))),
        (
            "x * sum over axis 1",
            Box::new(|x| multiply(x, &reduce_sum(x, Some(&[1]), true)?)),
        ),
        ("maximum", Box::new(|x| maximum(x, &square(x)?))),
        (
            "where",
            Box::new(|x| where_(&greater(x, &Tensor::scalar(0.0))?, x, &square(x)?)),
        ),
        (
            "clip_by_value",
            Box::new(|x| clip_by_value(x, &Tensor::scalar(-0.3), &Tensor::scalar(0.4))),
        ),
        (
            "broadcast_to [3, 1] -> [3, 4]",
            Box::new(|x| broadcast_to(&reduce_max(x, Some(&[1]), true)?, &[3, 4])),
        ),
    ];
    for (name, f) in cases {
        assert_diagonal_blocks(name, &f, &x);
    }
}

#[test]
fn reductions_over_axis_1_and_softmax_over_the_last_axis_keep_rows_apart() {
    let x = pseudo_random(&[3, 4], 5);
    let cases: Vec<(&str, F)> = vec![
        (
            "reduce_sum",
            Box::new(|x| reduce_sum(&square(x)?, Some(&[1]), false)),
        ),
        (
            "reduce_mean keepdims",
            Box::new(|x| reduce_mean(&sin(x)?, Some(&[-1]), true)),
        ),
        ("reduce_max", Box::new(|x| reduce_max(x, Some(&[1]), false))),
        ("reduce_min", Box::new(|x| reduce_min(x, Some(&[1]), true))),
        (
            "reduce_prod",
            Box::new(|x| reduce_prod(x, Some(&[1]), false)),
        ),
        (
            "reduce_logsumexp",
            Box::new(|x| reduce_logsumexp(x, Some(&[1]), false)),
        ),
        (
            "norm",
            Box::new(|x| norm(x, NormOrd::Euclidean, Some(&[1]), false)),
        ),
        (
            "norm p",
            Box::new(|x| norm(x, NormOrd::P(3.0), Some(&[-1]), true)),
        ),
        ("softmax", Box::new(|x| softmax(x, -1))),
        ("log_softmax", Box::new(|x| log_softmax(x, 1))),
        (
            "clip_by_norm",
            Box::new(|x| clip_by_norm(x, &Tensor::scalar(0.5), Some(&[1]))),
        ),
        (
            "moments over axis 1",
            Box::new(|x| {
                let (mean, variance) = moments(x, &[1], true)?;
                multiply(&subtract(x, &mean)?, &variance)
            }),
        ),
    ];
    for (name, f) in cases {
        assert_diagonal_blocks(name, &f, &x);
    }
}

#[test]
fn batch_normalization_with_fixed_statistics_keeps_rows_apart() {
    let x = pseudo_random(&[4, 3], 6);
    let mean = t64(&[0.1, -0.2, 0.3], &[3]);
    let variance = t64(&[1.5, 0.5, 2.0], &[3]);
    let offset = t64(&[0.0, 1.0, -1.0], &[3]);
    let scale = t64(&[2.0, 1.0, 0.5], &[3]);
    let f = move |x: &Tensor| {
        batch_normalization(x, &mean, &variance, Some(&offset), Some(&scale), 1e-3)
    };
    assert_diagonal_blocks("batch_normalization (inference)", &f, &x);
}

#[test]
fn layout_ops_that_leave_axis_0_in_place_keep_rows_apart() {
    let x = pseudo_random(&[3, 2, 4], 7);
    let cases: Vec<(&str, F)> = vec![
        (
            "transpose [0, 2, 1]",
            Box::new(|x| transpose(&sin(x)?, Some(&[0, 2, 1]))),
        ),
        (
            "reshape [3, 8]",
            Box::new(|x| reshape(&square(x)?, &[3, -1])),
        ),
        ("reshape [3, 4, 2]", Box::new(|x| reshape(x, &[3, 4, 2]))),
        (
            "expand_dims 1, squeeze",
            Box::new(|x| squeeze(&sin(&expand_dims(x, 1)?)?, Some(&[1]))),
        ),
        (
            "concat axis 1",
            Box::new(|x| concat(&[x.clone(), square(x)?], 1)),
        ),
        (
            "stack axis 1",
            Box::new(|x| stack(&[x.clone(), sin(x)?], 1)),
        ),
        (
            "unstack axis 2, stack axis 1",
            Box::new(|x| stack(&unstack(&sin(x)?, 2)?, 1)),
        ),
        ("tile [1, 2, 1]", Box::new(|x| tile(&sin(x)?, &[1, 2, 1]))),
        (
            "pad axis 2",
            Box::new(|x| pad(&sin(x)?, &[(0, 0), (1, 0), (2, 1)], PadMode::Constant, 0.5)),
        ),
        (
            "pad reflect",
            Box::new(|x| pad(&sin(x)?, &[(0, 0), (1, 1), (2, 1)], PadMode::Reflect, 0.0)),
        ),
        (
            "gather axis 2",
            Box::new(|x| gather(&sin(x)?, &i64s(&[3, 0, 3], &[3]), 2, 0)),
        ),
        (
            "gather batch_dims 1",
            Box::new(|x| gather(&sin(x)?, &i64s(&[1, 0, 0, 0, 1, 1], &[3, 2]), 1, 1)),
        ),
        (
            "scatter_add_to axis 1",
            Box::new(|x| scatter_add_to(&sin(x)?, &i64s(&[2, 2], &[2]), 1, 0, &[3, 3, 4])),
        ),
        ("slice_axis 2", Box::new(|x| slice_axis(&sin(x)?, 2, 1, 3))),
        (
            "slice_axis 0, whole",
            Box::new(|x| slice_axis(&sin(x)?, 0, 0, 3)),
        ),
        ("pad_axis 1", Box::new(|x| pad_axis(&sin(x)?, 1, 1, 2))),
    ];
    for (name, f) in cases {
        assert_diagonal_blocks(name, &f, &x);
    }
}

#[test]
fn slices_that_take_axis_0_whole_keep_rows_apart() {
    let x = pseudo_random(&[3, 4], 8);
    let cases: Vec<(&str, Vec<SliceItem>)> = vec![
        ("x[:, 1:]", vec![SliceItem::all(), r(Some(1), None, 1)]),
        ("x[:, ::-2]", vec![SliceItem::all(), r(None, None, -2)]),
        ("x[:, 2]", vec![SliceItem::all(), SliceItem::Index(2)]),
        (
            "x[..., None]",
            vec![SliceItem::Ellipsis, SliceItem::NewAxis],
        ),
        (
            "x[..., 1:3]",
            vec![SliceItem::Ellipsis, r(Some(1), Some(3), 1)],
        ),
        (
            "x[0:3, :2]",
            vec![r(Some(0), Some(3), 1), r(None, Some(2), 1)],
        ),
        (
            "x[-5:, None, 1]",
            vec![
                r(Some(-5), None, 1),
                SliceItem::NewAxis,
                SliceItem::Index(1),
            ],
        ),
    ];
    for (name, items) in cases {
        assert_diagonal_blocks(name, &|x| strided_slice(&sin(x)?, &items), &x);
    }
}

#[test]
fn per_example_gradients_keep_rows_apart_to_second_order() {
    // batch_jacobian of d(sum_j x_ij^3 + softmax terms)/dx: the backward ops (unreduce,
    // sum_to_shape, ...) recorded by the outer tape keep rows apart too.
    let x = pseudo_random(&[3, 4], 9);
    let grad = |x: &Tensor| -> Result<Tensor> {
        let inner = Tape::new(false, true);
        let y = {
            let _r = inner.enter()?;
            inner.watch(x);
            let cube = multiply(&square(x)?, x)?;
            let soft = log_softmax(x, -1)?;
            reduce_sum(&add(&cube, &soft)?, Some(&[1]), false)?
        };
        Ok(inner
            .gradient(&[y], &[x.into()], None, Unconnected::Zero)?
            .pop()
            .flatten()
            .expect("zeros when unconnected"))
    };
    assert_diagonal_blocks("per-example gradient", &grad, &x);
}

// ---------------------------------------------------------------- ops that mix rows

#[test]
fn reductions_and_softmax_over_axis_0_are_refused() {
    let x = pseudo_random(&[3, 3], 10);
    let cases: Vec<(&str, F, &str)> = vec![
        (
            "reduce_sum over axis 0",
            Box::new(|x| reduce_sum(&square(x)?, Some(&[0]), false)),
            "reduce_sum",
        ),
        (
            "reduce_mean over axis 0",
            Box::new(|x| reduce_mean(x, Some(&[0]), false)),
            "reduce_mean",
        ),
        (
            "reduce_max over axis -2",
            Box::new(|x| reduce_max(x, Some(&[-2]), false)),
            "reduce_max",
        ),
        (
            "reduce_min over axis 0",
            Box::new(|x| reduce_min(x, Some(&[0]), false)),
            "reduce_min",
        ),
        (
            "reduce_prod over axis 0",
            Box::new(|x| reduce_prod(x, Some(&[0]), false)),
            "reduce_prod",
        ),
        (
            "reduce_logsumexp over axis 0",
            Box::new(|x| reduce_logsumexp(x, Some(&[0]), false)),
            "reduce_sum",
        ),
        (
            "norm over axis 0",
            Box::new(|x| norm(x, NormOrd::One, Some(&[0]), false)),
            "reduce_sum",
        ),
        (
            "softmax over axis 0",
            Box::new(|x| softmax(x, 0)),
            "softmax",
        ),
        (
            "log_softmax over axis -2",
            Box::new(|x| log_softmax(x, -2)),
            "log_softmax",
        ),
        (
            "x + column sums",
            Box::new(|x| add(x, &reduce_sum(x, Some(&[0]), false)?)),
            "add",
        ),
        (
            "maximum with column maxima",
            Box::new(|x| maximum(x, &reduce_max(x, Some(&[0]), false)?)),
            "maximum",
        ),
        (
            "where with column sums",
            Box::new(|x| {
                where_(
                    &greater(x, &Tensor::scalar(0.0))?,
                    x,
                    &reduce_sum(x, Some(&[0]), false)?,
                )
            }),
            "where",
        ),
    ];
    for (name, f, op) in cases {
        assert_refused(name, &f, &x, &[op]);
    }
}

#[test]
fn batch_normalization_in_training_mode_is_refused() {
    // moments over axis 0 (the batch statistics of BatchNormalization in training).
    let x = pseudo_random(&[4, 3], 11);
    let training = |x: &Tensor| {
        let (mean, variance) = moments(x, &[0], false)?;
        batch_normalization(x, &mean, &variance, None, None, 1e-3)
    };
    // The error names the mixing op nearest the target; every op of the chain that takes the
    // batch statistics is one.
    let chain = ["reduce_mean", "reshape", "subtract", "multiply", "add"];
    assert_refused("batch_normalization (training)", &training, &x, &chain);
}

#[test]
fn layout_ops_that_move_axis_0_are_refused() {
    let x = pseudo_random(&[3, 3], 13);
    let idx = i64s(&[2, 0, 1], &[3]);
    let idx2 = idx.clone();
    let first_row = vec![r(None, Some(1), 1)];
    let cases: Vec<(&str, F, &str)> = vec![
        (
            "transpose [1, 0]",
            Box::new(|x| transpose(&sin(x)?, Some(&[1, 0]))),
            "transpose",
        ),
        (
            "transpose (reversed)",
            Box::new(|x| transpose(x, None)),
            "transpose",
        ),
        (
            "reshape to [-1] and back",
            Box::new(|x| reshape(&reshape(x, &[-1])?, &[3, 3])),
            "reshape",
        ),
        (
            "expand_dims 0, squeeze 0",
            Box::new(|x| squeeze(&expand_dims(x, 0)?, Some(&[0]))),
            "reshape",
        ),
        (
            "concat on axis 0",
            Box::new(|x| {
                let items = [r(Some(1), None, 1)];
                let head = [r(None, Some(1), 1)];
                concat(&[strided_slice(x, &items)?, strided_slice(x, &head)?], 0)
            }),
            "concat",
        ),
        (
            "stack rows on axis 0",
            Box::new(|x| {
                let rows: Vec<Tensor> = (0..3)
                    .map(|i| strided_slice(x, &[SliceItem::Index(i)]))
                    .collect::<Result<_>>()?;
                stack(&rows, 0)
            }),
            "concat",
        ),
        (
            "unstack on axis 0",
            Box::new(|x| stack(&unstack(x, 0)?, 1)),
            "unstack",
        ),
        (
            "x[::-1]",
            Box::new(|x| strided_slice(x, &[r(None, None, -1)])),
            "strided_slice",
        ),
        (
            "tile [3, 1]",
            Box::new(move |x| tile(&strided_slice(x, &first_row)?, &[3, 1])),
            "tile",
        ),
        (
            "broadcast_to from one row",
            Box::new(|x| broadcast_to(&reduce_sum(x, Some(&[0]), true)?, &[3, 3])),
            "broadcast_to",
        ),
        (
            "pad on axis 0",
            Box::new(|x| {
                pad(
                    &strided_slice(x, &[r(Some(1), None, 1)])?,
                    &[(0, 1), (0, 0)],
                    PadMode::Constant,
                    0.0,
                )
            }),
            "pad",
        ),
        (
            "gather on axis 0",
            Box::new(move |x| gather(x, &idx, 0, 0)),
            "gather",
        ),
        (
            "scatter_add_to on axis 0",
            Box::new(move |x| scatter_add_to(x, &idx2, 0, 0, &[3, 3])),
            "scatter_add_to",
        ),
        (
            "slice_axis 0",
            Box::new(|x| slice_axis(&pad_axis(x, 0, 1, 0)?, 0, 0, 3)),
            "slice_axis",
        ),
    ];
    for (name, f, op) in cases {
        assert_refused(name, &f, &x, &[op]);
    }
}

#[test]
fn slicing_rows_off_axis_0_is_refused() {
    // x[1:] needs a source of as many rows as the result: a row of zeros goes on top first.
    let s = pseudo_random(&[2, 3], 14);
    let shifted = |s: &Tensor| {
        let padded = concat(&[Tensor::zeros(&[1, 3], s.dtype()), s.clone()], 0)?;
        strided_slice(&padded, &[r(Some(1), None, 1)])
    };
    assert_refused("x[1:]", &shifted, &s, &["strided_slice"]);
    // On [3, 3, 3]: each keeps 3 rows, none of them the rows of x in order.
    let x = pseudo_random(&[3, 3, 3], 15);
    let cases: Vec<(&str, Vec<SliceItem>)> = vec![
        ("x[::-1]", vec![r(None, None, -1)]),
        ("x[2:-4:-1]", vec![r(Some(2), Some(-4), -1)]),
        ("x[0]", vec![SliceItem::Index(0)]),
        ("x[1, ...]", vec![SliceItem::Index(1), SliceItem::Ellipsis]),
    ];
    for (name, items) in cases {
        assert_refused(name, &|x| strided_slice(x, &items), &x, &["strided_slice"]);
    }
}
