//! batch_jacobian and row independence: every op describes where each input axis goes in its
//! result, and batch_jacobian follows the source's axis 0 along the recorded path. Through ops
//! that keep rows apart (wherever the batch axis travels in between), batch_jacobian equals the
//! diagonal blocks of the full jacobian (whose other blocks are zero); through an op that mixes
//! rows, or when the rows do not arrive on the target's axis 0, it is a Value error naming the
//! op. Targets of rank 1 get a trailing axis: batch_jacobian wants `[b, ...]` of rank 2 or more.
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

/// `f(x)`, with a trailing axis when it has rank 1 (batch_jacobian's target has rank >= 2).
fn target_of(f: &dyn Fn(&Tensor) -> Result<Tensor>, x: &Tensor) -> Tensor {
    let y = f(x).unwrap();
    match y.ndim() {
        1 => expand_dims(&y, -1).unwrap(),
        _ => y,
    }
}

/// Records `y = f(x)` on a persistent tape and returns `y`, its batch jacobian and its full
/// jacobian.
fn both_jacobians(f: &dyn Fn(&Tensor) -> Result<Tensor>, x: &Tensor) -> (Tensor, Tensor, Tensor) {
    let tape = Tape::new(true, true);
    let y = {
        let _r = tape.enter().unwrap();
        tape.watch(x);
        target_of(f, x)
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
        target_of(f, x)
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
            "reduce_logsumexp",
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
            "reduce_sum",
        ),
        (
            "maximum with column maxima",
            Box::new(|x| maximum(x, &reduce_max(x, Some(&[0]), false)?)),
            "reduce_max",
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
            "reduce_sum",
        ),
    ];
    // The error names the op where rows first meet.
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
    // The error names where rows first meet: the mean over the batch.
    assert_refused(
        "batch_normalization (training)",
        &training,
        &x,
        &["reduce_mean"],
    );
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
        ("x + x^T", Box::new(|x| add(x, &transpose(x, None)?)), "add"),
        (
            "concat on axis 0",
            Box::new(|x| {
                let items = [r(Some(1), None, 1)];
                let head = [r(None, Some(1), 1)];
                concat(&[strided_slice(x, &items)?, strided_slice(x, &head)?], 0)
            }),
            // The first op where rows move: x[1:].
            "strided_slice",
        ),
        (
            "stack rows on axis 0",
            Box::new(|x| {
                let rows: Vec<Tensor> = (0..3)
                    .map(|i| strided_slice(x, &[SliceItem::Index(i)]))
                    .collect::<Result<_>>()?;
                stack(&rows, 0)
            }),
            "strided_slice",
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
            Box::new(move |x| tile(&reduce_sum(x, Some(&[0]), true)?, &[3, 1])),
            "reduce_sum",
        ),
        (
            "broadcast_to from one row",
            Box::new(move |x| broadcast_to(&strided_slice(x, &first_row)?, &[3, 3])),
            "strided_slice",
        ),
        (
            "pad on axis 0",
            Box::new(|x| {
                pad(
                    &slice_axis(x, 1, 0, 2)?,
                    &[(1, 0), (0, 1)],
                    PadMode::Constant,
                    0.0,
                )?
                .pipe(|p| slice_axis(&p, 0, 0, 3))
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
            Box::new(|x| {
                slice_axis(&pad_axis(x, 1, 1, 0)?, 0, 1, 3)?.pipe(|s| pad_axis(&s, 0, 0, 1))
            }),
            "slice_axis",
        ),
    ];
    for (name, f, op) in cases {
        assert_refused(name, &f, &x, &[op]);
    }
}

#[test]
fn slicing_rows_off_axis_0_is_refused() {
    // A roll of the rows: concat(x[1:], x[:1]).
    let s = pseudo_random(&[2, 3], 14);
    let rolled = |s: &Tensor| {
        let tail = strided_slice(s, &[r(Some(1), None, 1)])?;
        concat(&[tail, strided_slice(s, &[r(None, Some(1), 1)])?], 0)
    };
    assert_refused("x[1:]", &rolled, &s, &["strided_slice"]);
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

/// `f(self)`: keeps a chain of fallible ops readable in the cases above.
trait Pipe: Sized {
    fn pipe<R>(self, f: impl FnOnce(Self) -> R) -> R {
        f(self)
    }
}

impl Pipe for Tensor {}

#[test]
fn batch_axes_that_travel_and_come_back_keep_rows_apart() {
    // The batch axis leaves axis 0 (or axis 0 stops being a whole axis) and comes back: only
    // where it goes is followed, not which ops it passes.
    let x = pseudo_random(&[3, 2, 4], 20);
    let cases: Vec<(&str, F)> = vec![
        (
            "reshape to [-1] and back",
            Box::new(|x| reshape(&sin(&reshape(x, &[-1])?)?, &[3, 2, 4])),
        ),
        (
            "reshape [3, 2, 4] -> [6, 4] -> [3, 8]",
            Box::new(|x| reshape(&square(&reshape(x, &[6, 4])?)?, &[3, 8])),
        ),
        (
            "expand_dims 0, squeeze 0",
            Box::new(|x| squeeze(&tanh(&expand_dims(x, 0)?)?, Some(&[0]))),
        ),
        (
            "transpose [1, 0, 2], sin, back",
            Box::new(|x| transpose(&sin(&transpose(x, Some(&[1, 0, 2]))?)?, Some(&[1, 0, 2]))),
        ),
        (
            "transpose (reversed), reduce over the last-but-one axis, transpose",
            Box::new(|x| {
                let t = transpose(x, None)?; // [4, 2, 3]: the batch last
                transpose(&reduce_sum(&t, Some(&[1]), false)?, None)
            }),
        ),
        (
            "stack [x, x^2] on axis 0, mean over it",
            Box::new(|x| reduce_mean(&stack(&[x.clone(), square(x)?], 0)?, Some(&[0]), false)),
        ),
        (
            "unstack axis 1, stack axis 2",
            Box::new(|x| stack(&unstack(&sin(x)?, 1)?, 2)),
        ),
        (
            "matmul with the batch on the rows of a transposed operand",
            Box::new(|x| {
                let w = pseudo_random(&[4, 5], 21);
                let t = transpose(x, Some(&[2, 1, 0]))?; // [4, 2, 3]
                let y = matmul(&transpose(&t, Some(&[1, 2, 0]))?, &w, false, false)?; // [2, 3, 5]
                transpose(&y, Some(&[1, 0, 2]))
            }),
        ),
        (
            "a [b] vector broadcast against [n, b], then transposed",
            Box::new(|x| {
                let v = reduce_sum(x, Some(&[1, 2]), false)?; // [3]
                let grid = multiply(&v, &pseudo_random(&[5, 3], 22))?; // [5, 3]
                transpose(&grid, None)
            }),
        ),
    ];
    for (name, f) in cases {
        assert_diagonal_blocks(name, &f, &x);
    }
}

#[test]
fn a_batch_of_one_row_cannot_mix() {
    let x = pseudo_random(&[1, 4], 23);
    let f = |x: &Tensor| add(x, &reduce_sum(x, Some(&[0]), false)?);
    assert_diagonal_blocks("x + column sums, one row", &f, &x);
    let t = |x: &Tensor| reshape(&transpose(x, None)?, &[1, 4]);
    assert_diagonal_blocks("transpose of one row", &t, &x);
}

#[test]
fn batch_jacobian_wants_rank_2_target_and_source_even_when_unconnected() {
    let x = pseudo_random(&[3, 2], 24);
    let v = pseudo_random(&[3], 25);
    let tape = Tape::new(true, true);
    let (y, unrelated) = {
        let _r = tape.enter().unwrap();
        tape.watch(&x);
        tape.watch(&v);
        (
            reduce_sum(&sin(&x).unwrap(), Some(&[1]), false).unwrap(),
            sin(&v).unwrap(),
        )
    };
    let constant = pseudo_random(&[3], 26);
    for (name, target, source) in [
        ("rank-1 target", &y, &x),
        ("rank-1 source", &sin(&x).unwrap(), &v),
        ("unconnected rank-1 target", &constant, &x),
        ("rank-1 target and source", &unrelated, &v),
    ] {
        let err = tape
            .batch_jacobian(target, &source.into(), Unconnected::None)
            .expect_err(name);
        assert_eq!(err.kind, ErrorKind::Value, "{name}: {err}");
        assert!(err.message.contains("rank at least 2"), "{name}: {err}");
    }
}

#[test]
fn a_reshape_that_cuts_rows_apart_is_refused() {
    // [3, 4] -> [2, 6]: row 1 of x lands half in each new row; transposing and reading back as
    // [3, 4] mixes rows (a reshape chain alone would only ever give x back).
    let x = pseudo_random(&[3, 4], 27);
    let f = |x: &Tensor| reshape(&transpose(&reshape(x, &[2, 6])?, None)?, &[3, 4]);
    assert_refused("reshape [2, 6], transpose, reshape", &f, &x, &["reshape"]);
    // The batch axis moved and not brought back: named by the op that moved it.
    let y = pseudo_random(&[3, 3], 28);
    let moved = |x: &Tensor| sin(&transpose(&sin(x)?, None)?);
    assert_refused("transpose, sin", &moved, &y, &["transpose"]);
}

#[test]
fn batch_jacobians_of_batch_jacobians_keep_rows_apart() {
    // The inner batch_jacobian runs while the outer tape records: its sweep (the cotangents
    // stacked on a leading axis, the batch on axis 1) and the ops that join its rows are
    // followed like any others.
    let x = pseudo_random(&[3, 4], 30);
    let (w1, b1) = (pseudo_random(&[4, 5], 31), pseudo_random(&[5], 32));
    let w2 = pseudo_random(&[5, 2], 33);
    let inner = move |x: &Tensor| -> Result<Tensor> {
        let tape = Tape::new(false, true);
        let y = {
            let _r = tape.enter()?;
            tape.watch(x);
            let h = tanh(&add(&matmul(x, &w1, false, false)?, &b1)?)?;
            elu(&matmul(&h, &w2, false, false)?)?
        };
        Ok(tape
            .batch_jacobian(&y, &x.into(), Unconnected::Zero)?
            .expect("connected"))
    };
    assert_diagonal_blocks("batch_jacobian of a batch_jacobian", &inner, &x);
    // And of a per-row softmax's Jacobian, through reductions on the last axis.
    let soft = |x: &Tensor| -> Result<Tensor> {
        let tape = Tape::new(false, true);
        let y = {
            let _r = tape.enter()?;
            tape.watch(x);
            softmax(&multiply(x, x)?, -1)?
        };
        Ok(tape
            .batch_jacobian(&y, &x.into(), Unconnected::Zero)?
            .expect("connected"))
    };
    assert_diagonal_blocks("batch_jacobian of softmax's batch_jacobian", &soft, &x);
}
