//! Shape and indexing ops take batched cotangents: the vectorised Jacobian (one sweep, the
//! seeds stacked on a leading axis) equals the row-by-row one, for `jacobian` and, when the
//! output keeps the input's first dimension, for `batch_jacobian` (see `check_vectorized`).
//!
//! Every op is composed with a nonlinearity (`t * sin(t)`) so that the VJPs upstream of it see
//! cotangents that differ row by row. Where an op moves or mixes axis 0 its output is given a
//! first dimension other than the input's (or flattened), so that only `jacobian` is taken:
//! `batch_jacobian` refuses ops that mix batch rows.
use rustape::ops::*;
use rustape::testing::{analytic_gradient, check_vectorized, pseudo_random};
use rustape::{Result, Tensor};
use SliceItem::{Ellipsis, Index, NewAxis};

type Op = Box<dyn Fn(&Tensor) -> Result<Tensor>>;

/// `t * sin(t)`: a nonlinearity that keeps the shape and the rows.
fn nl(t: &Tensor) -> Result<Tensor> {
    multiply(t, &sin(t)?)
}

/// Values in [-0.5, 0.5) of `shape`: both signs, none zero.
fn signed(shape: &[usize], seed: u64) -> Tensor {
    subtract(&pseudo_random(shape, seed), &Tensor::scalar(1.0f64)).unwrap()
}

fn i64s(values: &[i64], shape: &[usize]) -> Tensor {
    Tensor::from_vec(values.to_vec(), shape).unwrap()
}

fn i32s(values: &[i32], shape: &[usize]) -> Tensor {
    Tensor::from_vec(values.to_vec(), shape).unwrap()
}

fn range(start: Option<isize>, stop: Option<isize>, step: isize) -> SliceItem {
    SliceItem::Range { start, stop, step }
}

/// Checks `nl(op(nl(x)))` and `nl(op(x))` (the op on an intermediate and on the source).
fn check(what: &str, x: &Tensor, op: Op) {
    let inner = |xs: &[Tensor]| nl(&op(&nl(&xs[0])?)?);
    check_vectorized(&inner, std::slice::from_ref(x), 1e-12)
        .unwrap_or_else(|e| panic!("{what} (on nl(x)): {e}"));
    let direct = |xs: &[Tensor]| nl(&op(&xs[0])?);
    check_vectorized(&direct, std::slice::from_ref(x), 1e-12)
        .unwrap_or_else(|e| panic!("{what} (on x): {e}"));
}

/// The output of `op` at `x` has a first dimension other than `x`'s, or it keeps the rows
/// apart: either way `check_vectorized` takes the Jacobians it can.
fn first_dims(x: &Tensor, op: &Op) -> (usize, usize) {
    let y = op(x).unwrap();
    (x.shape()[0], y.shape().first().copied().unwrap_or(0))
}

#[test]
fn reshape_squeeze_and_expand_dims_vectorise() {
    let x = signed(&[3, 4], 1);
    let cases: Vec<(&str, Op, bool)> = vec![
        (
            "reshape [3, 2, 2]",
            Box::new(|t| reshape(t, &[3, 2, 2])),
            true,
        ),
        (
            "reshape [3, -1, 1]",
            Box::new(|t| reshape(t, &[3, -1, 1])),
            true,
        ),
        ("reshape [4, 3]", Box::new(|t| reshape(t, &[4, 3])), false),
        ("reshape [-1]", Box::new(|t| reshape(t, &[-1])), false),
        (
            "reshape [2, -1, 3]",
            Box::new(|t| reshape(t, &[2, -1, 3])),
            false,
        ),
        ("expand_dims 0", Box::new(|t| expand_dims(t, 0)), false),
        ("expand_dims 1", Box::new(|t| expand_dims(t, 1)), true),
        ("expand_dims -1", Box::new(|t| expand_dims(t, -1)), true),
        ("expand_dims -3", Box::new(|t| expand_dims(t, -3)), false),
    ];
    for (what, op, keeps) in cases {
        let (a, b) = first_dims(&x, &op);
        assert_eq!(
            a == b,
            keeps,
            "{what}: the case should take the batch Jacobian iff it keeps rows"
        );
        check(what, &x, op);
    }
    let y = signed(&[3, 1, 4, 1], 2);
    let cases: Vec<(&str, Op)> = vec![
        ("squeeze all", Box::new(|t| squeeze(t, None))),
        ("squeeze [-1]", Box::new(|t| squeeze(t, Some(&[-1])))),
        ("squeeze [1, -1]", Box::new(|t| squeeze(t, Some(&[1, -1])))),
    ];
    for (what, op) in cases {
        check(what, &y, op);
    }
    // A leading size-1 axis squeezed away.
    let z = signed(&[1, 3, 4], 3);
    check("squeeze [0]", &z, Box::new(|t| squeeze(t, Some(&[0]))));
}

#[test]
fn broadcast_to_vectorises() {
    let cases: Vec<(&str, Vec<usize>, Vec<usize>)> = vec![
        ("[3, 1] -> [3, 4]", vec![3, 1], vec![3, 4]),
        ("[4] -> [3, 4]", vec![4], vec![3, 4]),
        ("[3, 4] -> [2, 3, 4]", vec![3, 4], vec![2, 3, 4]),
        ("[3, 1, 2] -> [3, 4, 2]", vec![3, 1, 2], vec![3, 4, 2]),
        ("[1, 4] -> [5, 4]", vec![1, 4], vec![5, 4]),
    ];
    for (what, from, to) in cases {
        let x = signed(&from, 4);
        check(what, &x, Box::new(move |t| broadcast_to(t, &to)));
    }
}

#[test]
fn transpose_vectorises_for_every_perm() {
    let x = signed(&[3, 4, 2], 5);
    let perms: [Option<&'static [usize]>; 6] = [
        None,
        Some(&[0, 2, 1]),
        Some(&[1, 0, 2]),
        Some(&[2, 0, 1]),
        Some(&[1, 2, 0]),
        Some(&[2, 1, 0]),
    ];
    for perm in perms {
        check(
            &format!("transpose {perm:?}"),
            &x,
            Box::new(move |t| transpose(t, perm)),
        );
    }
    // Rank 2 and rank 4.
    let m = signed(&[3, 5], 6);
    check("transpose 2-d", &m, Box::new(|t| transpose(t, None)));
    let r4 = signed(&[3, 2, 4, 2], 7);
    check(
        "transpose [0, 3, 1, 2]",
        &r4,
        Box::new(|t| transpose(t, Some(&[0, 3, 1, 2]))),
    );
    check(
        "transpose [3, 2, 0, 1]",
        &r4,
        Box::new(|t| transpose(t, Some(&[3, 2, 0, 1]))),
    );
}

#[test]
fn concat_stack_and_unstack_vectorise() {
    let x = signed(&[3, 4], 8);
    for axis in [0isize, 1, -1, -2] {
        let op = move |t: &Tensor| concat(&[t.clone(), sin(t)?, multiply(t, t)?], axis);
        check(&format!("concat axis {axis}"), &x, Box::new(op));
        // Parts of different sizes along the axis.
        let uneven = move |t: &Tensor| {
            let a = slice_axis(t, 1, 0, 1)?;
            let b = slice_axis(t, 1, 1, 4)?;
            let (a, b) = if axis == 0 || axis == -2 {
                (transpose(&a, None)?, transpose(&b, None)?)
            } else {
                (a, b)
            };
            concat(&[multiply(&b, &b)?, a], axis)
        };
        check(&format!("concat uneven axis {axis}"), &x, Box::new(uneven));
    }
    for axis in [0isize, 1, 2, -1, -3] {
        let op = move |t: &Tensor| stack(&[t.clone(), cos(t)?], axis);
        check(&format!("stack axis {axis}"), &x, Box::new(op));
    }
    let y = signed(&[3, 4, 2], 9);
    for axis in [0isize, 1, 2, -1, -2] {
        // Every output used.
        let all = move |t: &Tensor| {
            let parts = unstack(t, axis)?;
            let mut acc = nl(&parts[0])?;
            for p in &parts[1..] {
                acc = add(&acc, &multiply(p, &acc)?)?;
            }
            Ok(acc)
        };
        check(
            &format!("unstack axis {axis}, all parts"),
            &y,
            Box::new(all),
        );
        // Only the first and last outputs used: the others get zeros with the batch axes.
        let some = move |t: &Tensor| {
            let parts = unstack(t, axis)?;
            let last = parts.last().unwrap_or(&parts[0]);
            stack(&[multiply(&parts[0], last)?, sin(last)?], -1)
        };
        check(
            &format!("unstack axis {axis}, some parts"),
            &y,
            Box::new(some),
        );
    }
    // Unstacked, restacked along another axis.
    check(
        "unstack 1 then stack 0",
        &y,
        Box::new(|t| stack(&unstack(t, 1)?, 0)),
    );
}

#[test]
fn pad_vectorises_in_every_mode() {
    let x = signed(&[3, 4], 10);
    let paddings: [&[(usize, usize)]; 4] = [
        &[(0, 0), (2, 1)],
        &[(1, 2), (0, 1)],
        &[(2, 1), (3, 2)],
        &[(0, 0), (0, 3)],
    ];
    for mode in [PadMode::Constant, PadMode::Reflect, PadMode::Symmetric] {
        for p in paddings {
            // Reflect pads strictly less than the size; symmetric at most the size.
            let fits = p.iter().zip([3usize, 4]).all(|(&(b, a), n)| match mode {
                PadMode::Reflect => b < n && a < n,
                _ => b <= n && a <= n,
            });
            if !fits {
                continue;
            }
            let what = format!("pad {mode:?} {p:?}");
            let p = p.to_vec();
            check(&what, &x, Box::new(move |t| pad(t, &p, mode, 0.75)));
        }
    }
    // Symmetric up to the full size on both axes, reflect up to size - 1; rank 3.
    check(
        "pad Symmetric [(3, 3), (4, 1)]",
        &x,
        Box::new(|t| pad(t, &[(3, 3), (4, 1)], PadMode::Symmetric, 0.0)),
    );
    check(
        "pad Reflect [(2, 2), (3, 3)]",
        &x,
        Box::new(|t| pad(t, &[(2, 2), (3, 3)], PadMode::Reflect, 0.0)),
    );
    let y = signed(&[3, 2, 3], 11);
    for mode in [PadMode::Constant, PadMode::Reflect, PadMode::Symmetric] {
        let op = move |t: &Tensor| pad(t, &[(0, 0), (1, 1), (2, 0)], mode, -1.5);
        check(&format!("pad {mode:?} rank 3"), &y, Box::new(op));
    }
}

#[test]
fn tile_slice_axis_and_pad_axis_vectorise() {
    let x = signed(&[3, 4], 12);
    for multiples in [[2usize, 1], [1, 3], [2, 3], [1, 1]] {
        check(
            &format!("tile {multiples:?}"),
            &x,
            Box::new(move |t| tile(t, &multiples)),
        );
    }
    let y = signed(&[3, 2, 2], 13);
    check("tile rank 3", &y, Box::new(|t| tile(t, &[1, 2, 3])));
    for (axis, start, end) in [(0, 0, 3), (0, 1, 3), (0, 0, 1), (1, 1, 3), (1, 0, 4)] {
        check(
            &format!("slice_axis {axis} {start}..{end}"),
            &x,
            Box::new(move |t| slice_axis(t, axis, start, end)),
        );
    }
    // An empty slice, joined to a non-empty part (a Jacobian of an empty output has no rows).
    check(
        "slice_axis 1 2..2, concatenated",
        &x,
        Box::new(|t| concat(&[slice_axis(t, 1, 2, 2)?, sin(t)?], 1)),
    );
    for (axis, before, after) in [(0, 1, 2), (0, 0, 0), (1, 2, 0), (1, 1, 3)] {
        check(
            &format!("pad_axis {axis} ({before}, {after})"),
            &x,
            Box::new(move |t| pad_axis(t, axis, before, after)),
        );
    }
}

#[test]
fn gather_vectorises_on_every_axis() {
    let x = signed(&[3, 4], 14);
    // Axis 0, repeated indices (rows move: only the Jacobian is taken, 4 rows out of 3).
    let repeated = i64s(&[2, 0, 2, 1], &[4]);
    check(
        "gather axis 0, repeated",
        &x,
        Box::new(move |t| gather(t, &repeated, 0, 0)),
    );
    // Axis 0, 2-d int32 indices.
    let grid = i32s(&[1, 1, 0, 2, 2, 2], &[2, 3]);
    check(
        "gather axis 0, 2-d indices",
        &x,
        Box::new(move |t| gather(t, &grid, 0, 0)),
    );
    // Axis 1 (and -1), repeated: the rows stay apart, the batch Jacobian is taken too.
    let cols = i64s(&[3, 0, 3, 3, 1], &[5]);
    for axis in [1isize, -1] {
        let cols = cols.clone();
        check(
            &format!("gather axis {axis}, repeated"),
            &x,
            Box::new(move |t| gather(t, &cols, axis, 0)),
        );
    }
    let cols2 = i32s(&[3, 0, 3, 3], &[2, 2]);
    check(
        "gather axis 1, 2-d indices",
        &x,
        Box::new(move |t| gather(t, &cols2, 1, 0)),
    );
    // batch_dims = 1: each row picks its own columns (repeats included).
    let per_row = i64s(&[1, 1, 3, 0, 3, 2, 2, 2, 0], &[3, 3]);
    check(
        "gather axis 1, batch_dims 1",
        &x,
        Box::new(move |t| gather(t, &per_row, 1, 1)),
    );
    // Rank 3: axis 1 and 2 with batch_dims 1, 2-d per-row indices, and batch_dims 2.
    let y = signed(&[3, 4, 2], 15);
    let per_row = i64s(&[3, 3, 0, 1, 2, 0], &[3, 2]);
    {
        let per_row = per_row.clone();
        check(
            "gather rank 3, axis 1, batch_dims 1",
            &y,
            Box::new(move |t| gather(t, &per_row, 1, 1)),
        );
    }
    let inner = i64s(&[1, 0, 1, 1, 1, 1, 0, 0, 0, 1, 1, 0], &[3, 2, 2]);
    check(
        "gather rank 3, axis 2, batch_dims 1, 2-d",
        &y,
        Box::new(move |t| gather(t, &inner, 2, 1)),
    );
    let per_cell = i64s(&[1, 0, 0, 1, 1, 1, 0, 0, 1, 0, 1, 1], &[3, 4]);
    check(
        "gather rank 3, axis -1, batch_dims 2",
        &y,
        Box::new(move |t| gather(t, &per_cell, -1, 2)),
    );
    let picks = i64s(&[1, 1, 0], &[3]);
    check(
        "gather rank 3, axis 2, batch_dims 0",
        &y,
        Box::new(move |t| gather(t, &picks, 2, 0)),
    );
}

#[test]
fn scatter_add_to_vectorises() {
    let x = signed(&[3, 4], 16);
    // Axis 0, repeated indices, into 2 rows (rows move: the Jacobian only).
    let into_rows = i64s(&[1, 1, 0], &[3]);
    check(
        "scatter_add_to axis 0, repeated",
        &x,
        Box::new(move |t| scatter_add_to(t, &into_rows, 0, 0, &[2, 4])),
    );
    // Axis 1, repeated, into 5 columns (the rows stay: the batch Jacobian too).
    let into_cols = i32s(&[4, 0, 4, 2], &[4]);
    check(
        "scatter_add_to axis 1, repeated",
        &x,
        Box::new(move |t| scatter_add_to(t, &into_cols, 1, 0, &[3, 5])),
    );
    let into_cols2 = i64s(&[4, 0, 4, 2], &[2, 2]);
    let y = signed(&[3, 2, 2], 17);
    check(
        "scatter_add_to axis -1, 2-d indices",
        &y,
        Box::new(move |t| scatter_add_to(t, &into_cols2, -1, 0, &[3, 5])),
    );
    // batch_dims = 1: each row adds into its own columns.
    let per_row = i64s(&[1, 1, 3, 0, 3, 2, 2, 2, 0, 4, 4, 4], &[3, 4]);
    check(
        "scatter_add_to axis 1, batch_dims 1",
        &x,
        Box::new(move |t| scatter_add_to(t, &per_row, 1, 1, &[3, 5])),
    );
}

#[test]
fn strided_slice_vectorises_for_every_kind_of_item() {
    let x = signed(&[3, 4], 18);
    let y = signed(&[3, 4, 2], 19);
    let all = SliceItem::all();
    // (what, input, items, moves axis 0 keeping its size): those are flattened, since
    // batch_jacobian refuses ops that mix rows.
    let cases: Vec<(&str, &Tensor, Vec<SliceItem>, bool)> = vec![
        ("[:, ::-2]", &x, vec![all, range(None, None, -2)], false),
        ("[:, 1:3]", &x, vec![all, SliceItem::range(1, 3)], false),
        (
            "[1:, ::-1]",
            &x,
            vec![SliceItem::range(1, 3), range(None, None, -1)],
            false,
        ),
        ("[::-1]", &x, vec![range(None, None, -1)], true),
        (
            "[-1:-4:-1, 1:]",
            &x,
            vec![range(Some(-1), Some(-4), -1), range(Some(1), None, 1)],
            true,
        ),
        (
            "[::2, None, -3:]",
            &x,
            vec![range(None, None, 2), NewAxis, range(Some(-3), None, 1)],
            false,
        ),
        ("[-1]", &x, vec![Index(-1)], false),
        ("[:, 2]", &x, vec![all, Index(2)], false),
        (
            "[..., None, ::-1]",
            &x,
            vec![Ellipsis, NewAxis, range(None, None, -1)],
            false,
        ),
        (
            "[None, ..., 1]",
            &x,
            vec![NewAxis, Ellipsis, Index(1)],
            false,
        ),
        ("[..., 0]", &y, vec![Ellipsis, Index(0)], false),
        (
            "[1, ..., ::-1]",
            &y,
            vec![Index(1), Ellipsis, range(None, None, -1)],
            false,
        ),
        (
            "[:, -1:0:-2, None, :]",
            &y,
            vec![all, range(Some(-1), Some(0), -2), NewAxis, all],
            false,
        ),
        ("[..., None]", &y, vec![Ellipsis, NewAxis], false),
        (
            "[2:0:-1, 1, ...]",
            &y,
            vec![range(Some(2), Some(0), -1), Index(1), Ellipsis],
            false,
        ),
        (
            "[1:2, ::-1, 1]",
            &y,
            vec![SliceItem::range(1, 2), range(None, None, -1), Index(1)],
            false,
        ),
    ];
    for (what, input, items, flat) in cases {
        let op: Op = if flat {
            Box::new(move |t| reshape(&strided_slice(t, &items)?, &[-1]))
        } else {
            Box::new(move |t| strided_slice(t, &items))
        };
        check(&format!("strided_slice {what}"), input, op);
    }
}

#[test]
fn strided_slice_grad_vectorises() {
    /// (what, dy's shape, the input shape, the items): dy has the slice's shape.
    type Case = (&'static str, Vec<usize>, Vec<usize>, Vec<SliceItem>);
    let cases: Vec<Case> = vec![
        (
            "[:, ::2] of [3, 8]",
            vec![3, 4],
            vec![3, 8],
            vec![SliceItem::all(), range(None, None, 2)],
        ),
        (
            "[1] of [2, 3, 4]",
            vec![3, 4],
            vec![2, 3, 4],
            vec![Index(1)],
        ),
        (
            "[None, ::-1, 1::2] of [4, 6]",
            vec![1, 4, 3],
            vec![4, 6],
            vec![NewAxis, range(None, None, -1), range(Some(1), None, 2)],
        ),
        (
            "[..., -2] of [3, 4, 3]",
            vec![3, 4],
            vec![3, 4, 3],
            vec![Ellipsis, Index(-2)],
        ),
        (
            "[:, None, 3:0:-1] of [3, 5]",
            vec![3, 1, 3],
            vec![3, 5],
            vec![SliceItem::all(), NewAxis, range(Some(3), Some(0), -1)],
        ),
    ];
    for (what, dy_shape, input_shape, items) in cases {
        let dy = signed(&dy_shape, 20);
        check(
            &format!("strided_slice_grad {what}"),
            &dy,
            Box::new(move |t| strided_slice_grad(t, &input_shape, &items)),
        );
    }
}

/// The gradient of `loss` at `xs[0]`, flattened when `flat` (where it passes ops that mix
/// rows, so that only `jacobian` is taken of it).
fn gradient_of(
    loss: &dyn Fn(&[Tensor]) -> Result<Tensor>,
    xs: &[Tensor],
    flat: bool,
) -> Result<Tensor> {
    let g = analytic_gradient(loss, xs)?.remove(0);
    if flat {
        reshape(&g, &[-1])
    } else {
        Ok(g)
    }
}

fn cube(t: &Tensor) -> Result<Tensor> {
    multiply(t, &multiply(t, t)?)
}

#[test]
fn second_order_strided_slice_and_gather_vectorise() {
    // The Jacobian of a gradient: the inner tape's backward ops (strided_slice_grad,
    // scatter_add_to) are recorded by the outer tape and vectorised with their own VJPs.
    let x = signed(&[3, 4], 21);
    let slices: Vec<(Vec<SliceItem>, bool)> = vec![
        (vec![SliceItem::all(), range(None, None, -2)], false),
        (vec![Ellipsis, NewAxis, range(Some(1), None, 1)], false),
        (vec![range(None, None, -1), Index(1)], true),
        (
            vec![NewAxis, range(Some(2), Some(0), -1), range(None, None, 3)],
            true,
        ),
    ];
    for (items, flat) in slices {
        let what = format!("d/dx sum(strided_slice(x, {items:?})^3)");
        let f = move |xs: &[Tensor]| {
            let loss =
                |ys: &[Tensor]| reduce_sum(&cube(&strided_slice(&ys[0], &items)?)?, None, false);
            gradient_of(&loss, xs, flat)
        };
        check_vectorized(&f, std::slice::from_ref(&x), 1e-12)
            .unwrap_or_else(|e| panic!("{what}: {e}"));
    }
    let y = signed(&[3, 4, 2], 22);
    let gathers: Vec<(&str, &Tensor, Tensor, isize, usize, bool)> = vec![
        (
            "axis 0, repeated",
            &x,
            i64s(&[2, 0, 2, 1], &[4]),
            0,
            0,
            true,
        ),
        (
            "axis 1, repeated",
            &x,
            i64s(&[3, 0, 3, 3, 1], &[5]),
            1,
            0,
            false,
        ),
        (
            "axis -1, batch_dims 1",
            &x,
            i64s(&[1, 1, 3, 0, 3, 2, 2, 2, 0], &[3, 3]),
            -1,
            1,
            false,
        ),
        (
            "rank 3, axis 2, batch_dims 1",
            &y,
            i64s(&[1, 0, 1, 1, 1, 1, 0, 0, 0, 1, 1, 0], &[3, 2, 2]),
            2,
            1,
            false,
        ),
        (
            "rank 3, axis 1, batch_dims 0, 2-d",
            &y,
            i32s(&[3, 3, 0, 1], &[2, 2]),
            1,
            0,
            false,
        ),
    ];
    for (what, input, indices, axis, batch_dims, flat) in gathers {
        let f = move |xs: &[Tensor]| {
            let loss = |ys: &[Tensor]| {
                reduce_sum(
                    &cube(&gather(&ys[0], &indices, axis, batch_dims)?)?,
                    None,
                    false,
                )
            };
            gradient_of(&loss, xs, flat)
        };
        check_vectorized(&f, std::slice::from_ref(input), 1e-12)
            .unwrap_or_else(|e| panic!("d/dx sum(gather(x)^3), {what}: {e}"));
    }
    // Through a constant pad and a tile: their VJPs (strided_slice, reshape + reduce_sum) are
    // recorded and vectorised in turn.
    let f = |xs: &[Tensor]| {
        let loss = |ys: &[Tensor]| {
            let padded = pad(&ys[0], &[(0, 0), (1, 2)], PadMode::Constant, 0.5)?;
            let tiled = tile(&padded, &[1, 2])?;
            reduce_sum(&cube(&tiled)?, None, false)
        };
        gradient_of(&loss, xs, false)
    };
    check_vectorized(&f, std::slice::from_ref(&x), 1e-12)
        .unwrap_or_else(|e| panic!("pad/tile second order: {e}"));
}

/// The vectorised Jacobian's shapes and values on a small case worked out by hand: the
/// Jacobian of a gather with a repeated index is a 0/1 selection matrix.
#[test]
fn gather_jacobian_by_hand() {
    use rustape::{JacobianOptions, JacobianStrategy, Source, Tape, Unconnected};
    let x = Tensor::from_vec(vec![1.0f64, 2.0, 3.0], &[3]).unwrap();
    let tape = Tape::new(false, true);
    let y = {
        let _recording = tape.enter().unwrap();
        tape.watch(&x);
        gather(&x, &i64s(&[2, 2, 0], &[3]), 0, 0).unwrap()
    };
    let options = JacobianOptions {
        parallel_iterations: None,
        strategy: JacobianStrategy::Vectorized,
    };
    let j = tape
        .jacobian_with(&y, &[Source::from(&x)], Unconnected::Zero, options)
        .unwrap()
        .remove(0)
        .unwrap();
    assert_eq!(j.shape(), &[3, 3]);
    assert_eq!(j.to_f64_vec(), vec![0., 0., 1., 0., 0., 1., 1., 0., 0.]);
}
