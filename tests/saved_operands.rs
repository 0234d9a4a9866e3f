//! Binary ops with a Python-number operand (a `Tensor::shared_scalar`): they save only what the
//! gradients that can be asked for read, and record without allocating. Gradients through them
//! (first and second order, vectorised Jacobians), broadcasting, and TensorFlow's rule that a
//! regular operand watched after the op still gets its gradient.
use std::alloc::{GlobalAlloc, Layout, System};
use std::cell::Cell;

use rustape::ops::*;
use rustape::testing::{check_vectorized, gradcheck, Function, Tolerance};
use rustape::{Result, Source, Tape, Tensor, Unconnected};

mod support;
use support::*;

// ------------------------------------------------------------------------------------------
// Allocation counting (this thread's allocations; tests run on their own threads)

struct Counting;

thread_local! {
    static ALLOCATIONS: Cell<u64> = const { Cell::new(0) };
}

unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        ALLOCATIONS.with(|n| n.set(n.get() + 1));
        System.alloc(layout)
    }
    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        System.dealloc(ptr, layout)
    }
}

#[global_allocator]
static GLOBAL: Counting = Counting;

fn allocations() -> u64 {
    ALLOCATIONS.with(Cell::get)
}

// ------------------------------------------------------------------------------------------
// Helpers

/// The constant a Python number becomes.
fn c64(v: f64) -> Tensor {
    Tensor::shared_scalar(v)
}

/// The gradient of `sum(f(x))`, and its own gradient `d/dx sum(grad)` by nested tapes: for an
/// elementwise `f` the first and second derivatives at each element.
fn first_and_second(f: &dyn Fn(&Tensor) -> Result<Tensor>, x: &Tensor) -> (Vec<f64>, Vec<f64>) {
    let g = gradient(f, x).unwrap();
    let gg = gradient(&|x| gradient(f, x), x).unwrap();
    (values(&g), values(&gg))
}

type Binary = fn(&Tensor, &Tensor) -> Result<Tensor>;

type Case = (
    &'static str,
    fn(&Tensor) -> Result<Tensor>,
    fn(f64) -> [f64; 2],
);

/// `x op c` and `c op x` with the constant `c = 2.5`, with their first and second derivatives.
fn cases() -> Vec<Case> {
    const C: f64 = 2.5;
    vec![
        ("x * c", |x| multiply(x, &c64(C)), |_| [C, 0.0]),
        ("c * x", |x| multiply(&c64(C), x), |_| [C, 0.0]),
        ("x + c", |x| add(x, &c64(C)), |_| [1.0, 0.0]),
        ("c + x", |x| add(&c64(C), x), |_| [1.0, 0.0]),
        ("x - c", |x| subtract(x, &c64(C)), |_| [1.0, 0.0]),
        ("c - x", |x| subtract(&c64(C), x), |_| [-1.0, 0.0]),
        ("x / c", |x| divide(x, &c64(C)), |_| [1.0 / C, 0.0]),
        (
            "c / x",
            |x| divide(&c64(C), x),
            |x| [-C / (x * x), 2.0 * C / (x * x * x)],
        ),
        (
            "x ** c",
            |x| pow(x, &c64(C)),
            |x| [C * x.powf(C - 1.0), C * (C - 1.0) * x.powf(C - 2.0)],
        ),
        (
            "c ** x",
            |x| pow(&c64(C), x),
            |x| {
                let l = C.ln();
                [C.powf(x) * l, C.powf(x) * l * l]
            },
        ),
        (
            "maximum(x, c)",
            |x| maximum(x, &c64(C)),
            |x| [if x >= C { 1.0 } else { 0.0 }, 0.0],
        ),
        (
            "minimum(c, x)",
            |x| minimum(&c64(C), x),
            |x| [if C <= x { 0.0 } else { 1.0 }, 0.0],
        ),
        ("floormod(x, c)", |x| floormod(x, &c64(C)), |_| [1.0, 0.0]),
        // A chain as W6 records it: the constant's gradient would need the saved `y`s.
        (
            "(x * c + c) * c",
            |x| multiply(&add(&multiply(x, &c64(C))?, &c64(C))?, &c64(C)),
            |_| [C * C, 0.0],
        ),
    ]
}

/// Positive, away from the kinks of maximum/minimum (2.5) and floormod (multiples of 2.5).
fn x0() -> Tensor {
    v64(&[0.4, 1.3, 2.2, 3.1, 4.7])
}

// ------------------------------------------------------------------------------------------
// Gradients

#[test]
fn gradients_with_a_constant_operand_match_analytic_values() {
    let x = x0();
    let xs = x.to_f64_vec();
    for (name, f, exact) in cases() {
        let (g, gg) = first_and_second(&f, &x);
        let want: Vec<[f64; 2]> = xs.iter().map(|&v| exact(v)).collect();
        let first: Vec<f64> = want.iter().map(|w| w[0]).collect();
        let second: Vec<f64> = want.iter().map(|w| w[1]).collect();
        assert_close_labelled(&g, &first, 1e-12, &format!("{name}: first derivative"));
        assert_close_labelled(&gg, &second, 1e-12, &format!("{name}: second derivative"));
    }
}

#[test]
fn gradients_with_a_constant_operand_pass_gradcheck() {
    let x = x0();
    for (name, f, _) in cases() {
        if let Err(e) = gradcheck(
            &|xs| f(&xs[0]),
            std::slice::from_ref(&x),
            true,
            Tolerance::default(),
        ) {
            panic!("gradcheck of {name} failed: {e}");
        }
        // Times x: the incoming gradient depends on x too, so second order sees every term.
        let times_x = |xs: &[Tensor]| multiply(&f(&xs[0])?, &xs[0]);
        if let Err(e) = gradcheck(
            &times_x,
            std::slice::from_ref(&x),
            true,
            Tolerance::default(),
        ) {
            panic!("gradcheck of {name} * x failed: {e}");
        }
    }
}

#[test]
fn vectorised_jacobians_with_a_constant_operand() {
    // [2, 3]: the batch Jacobian runs too (the output keeps the input's first axis).
    let x = t64(&[0.4, 1.3, 2.2, 3.1, 4.7, 0.9], &[2, 3]);
    for (name, f, exact) in cases() {
        let times_x = |xs: &[Tensor]| multiply(&f(&xs[0])?, &xs[0]);
        let plain = |xs: &[Tensor]| f(&xs[0]);
        let functions: [(&str, Function); 2] = [("f", &plain), ("f * x", &times_x)];
        for (what, g) in functions {
            if let Err(e) = check_vectorized(g, std::slice::from_ref(&x), 1e-12) {
                panic!("{name} ({what}): {e}");
            }
        }
        // The Jacobian of an elementwise op is diagonal, with the first derivatives on it.
        let tape = Tape::new(false, true);
        let y = {
            let _r = tape.enter().unwrap();
            tape.watch(&x);
            f(&x).unwrap()
        };
        let j = tape
            .jacobian(&y, &[Source::from(&x)], Unconnected::Zero)
            .unwrap()
            .remove(0)
            .unwrap();
        assert_eq!(j.shape(), &[2, 3, 2, 3], "{name}");
        let xs = x.to_f64_vec();
        let want: Vec<f64> = (0..36)
            .map(|i| {
                if i / 6 == i % 6 {
                    exact(xs[i / 6])[0]
                } else {
                    0.0
                }
            })
            .collect();
        assert_close_labelled(&j.to_f64_vec(), &want, 1e-12, &format!("{name}: jacobian"));
    }
}

#[test]
fn broadcasting_operands_keep_their_gradients() {
    let col = t64(&[1.4, -0.6, 0.8], &[3, 1]);
    let row = v64(&[0.7, -1.9, 1.3, 2.1]);
    let ops: [(&str, Binary); 6] = [
        ("add", add),
        ("subtract", subtract),
        ("multiply", multiply),
        ("divide", divide),
        ("maximum", maximum),
        ("minimum", minimum),
    ];
    for (name, op) in ops {
        for (a, b) in [(&col, &row), (&row, &col)] {
            let f = |xs: &[Tensor]| op(&xs[0], &xs[1]);
            if let Err(e) = gradcheck(&f, &[a.clone(), b.clone()], true, Tolerance::default()) {
                panic!("gradcheck of {name} {:?} {:?}: {e}", a.shape(), b.shape());
            }
            if let Err(e) = check_vectorized(&f, &[a.clone(), b.clone()], 1e-12) {
                panic!("{name} {:?} {:?}: {e}", a.shape(), b.shape());
            }
            // One operand broadcast, the other the output's shape, and a constant.
            let g = |xs: &[Tensor]| multiply(&op(&xs[0], &xs[1])?, &c64(0.5));
            if let Err(e) = gradcheck(&g, &[a.clone(), b.clone()], true, Tolerance::default()) {
                panic!("gradcheck of {name} * c: {e}");
            }
        }
    }
    // [3, 1] * [4] with only the first watched: its gradient sums over the broadcast axis.
    let tape = Tape::new(false, true);
    let y = {
        let _r = tape.enter().unwrap();
        tape.watch(&col);
        multiply(&col, &row).unwrap()
    };
    let g = tape
        .gradient(&[y], &[Source::from(&col)], None, Unconnected::None)
        .unwrap()
        .remove(0)
        .unwrap();
    assert_eq!(g.shape(), &[3, 1]);
    let sum: f64 = row.to_f64_vec().iter().sum();
    assert_close_labelled(&g.to_f64_vec(), &[sum; 3], 1e-12, "[3,1] * [4]");
}

/// TensorFlow records both operands: a regular tensor watched only after the op ran still gets
/// a gradient through it. Only a shared constant (never watchable) may be left unsaved.
#[test]
fn an_operand_watched_after_the_op_still_gets_its_gradient() {
    let x = v64(&[0.5, 1.5, 2.0]);
    let w = Tensor::scalar(4.0f64); // a user's 0-d constant: not shared
    assert!(!w.is_shared_scalar());
    // d/dw of sum(x op w), with sum(x) = 4 and w = 4.
    let ops: [(&str, Binary, f64); 4] = [
        ("x * w", multiply, 4.0),
        ("x / w", divide, -4.0 / 16.0),
        ("x + w", add, 3.0),
        ("x - w", subtract, -3.0),
    ];
    for (name, op, want) in ops {
        let tape = Tape::new(true, true);
        let y = {
            let _r = tape.enter().unwrap();
            tape.watch(&x);
            op(&x, &w).unwrap()
        };
        tape.watch(&w);
        let g = tape
            .gradient(&[y], &[Source::from(&w)], None, Unconnected::None)
            .unwrap()
            .remove(0)
            .unwrap_or_else(|| panic!("{name}: no gradient for w"));
        assert_close_labelled(&g.to_f64_vec(), &[want], 1e-12, name);
    }
}

#[test]
fn where_with_a_constant_or_broadcast_branch() {
    let x = t64(&[0.4, -1.3, 2.2, 3.1, -4.7, 0.9], &[2, 3]);
    let positive = |x: &Tensor| greater(x, &c64(0.0));
    let constant_branch = |xs: &[Tensor]| where_(&positive(&xs[0])?, &xs[0], &c64(0.0));
    let constant_first =
        |xs: &[Tensor]| where_(&positive(&xs[0])?, &c64(2.0), &multiply(&xs[0], &xs[0])?);
    for (name, f) in [
        ("where(x > 0, x, 0)", &constant_branch as Function),
        ("where(x > 0, 2, x * x)", &constant_first),
    ] {
        if let Err(e) = gradcheck(f, std::slice::from_ref(&x), true, Tolerance::default()) {
            panic!("gradcheck of {name} failed: {e}");
        }
        if let Err(e) = check_vectorized(f, std::slice::from_ref(&x), 1e-12) {
            panic!("{name}: {e}");
        }
    }
    // cond [2, 3], x [2, 1], y [3]: both branches broadcast, and are summed back.
    let (col, row) = (t64(&[0.5, -1.5], &[2, 1]), v64(&[0.7, -0.2, 1.1]));
    let cond = Tensor::from_vec(vec![true, false, true, false, false, true], &[2, 3]).unwrap();
    let f = |xs: &[Tensor]| multiply(&where_(&cond, &xs[0], &xs[1])?, &xs[0]);
    let inputs = [col, row];
    if let Err(e) = gradcheck(&f, &inputs, true, Tolerance::default()) {
        panic!("gradcheck of a broadcasting where failed: {e}");
    }
    if let Err(e) = check_vectorized(&f, &inputs, 1e-12) {
        panic!("a broadcasting where: {e}");
    }
}

// ------------------------------------------------------------------------------------------
// What the tape keeps

/// `y = y * c` (and `c * y`, `y / c`, `+ d`) chains save the constant only, not every `y`.
#[test]
fn constant_chains_save_only_the_constant() {
    type Step = fn(&Tensor) -> Result<Tensor>;
    let steps: [(&str, Step); 4] = [
        ("y * 0.5", |y| multiply(y, &Tensor::shared_scalar(0.5f32))),
        ("0.5 * y", |y| multiply(&Tensor::shared_scalar(0.5f32), y)),
        ("y / 0.5", |y| divide(y, &Tensor::shared_scalar(0.5f32))),
        ("y * 0.5 + 1e-6", |y| {
            add(
                &multiply(y, &Tensor::shared_scalar(0.5f32))?,
                &Tensor::shared_scalar(1e-6f32),
            )
        }),
    ];
    for (name, step) in steps {
        let s = Tensor::from_vec(vec![1.0f32; 16], &[16]).unwrap();
        let tape = Tape::new(false, true);
        let y = {
            let _r = tape.enter().unwrap();
            tape.watch(&s);
            let mut y = s.clone();
            for _ in 0..100 {
                y = step(&y).unwrap();
            }
            y
        };
        assert!(tape.len() >= 100, "{name}");
        // The one float32 constant 0.5 (4 bytes); the 16-element `y`s would be 64 bytes each.
        assert_eq!(tape.nbytes(), 4, "{name}");
        let g = tape
            .gradient(&[y], &[Source::from(&s)], None, Unconnected::None)
            .unwrap()
            .remove(0)
            .unwrap();
        let want = if name.starts_with("y / ") { 2f64 } else { 0.5 }.powi(100);
        let ratios: Vec<f64> = g.to_f64_vec().iter().map(|v| v / want).collect();
        assert_close_labelled(&ratios, &[1.0; 16], 1e-5, name);
    }
    // With the constant first: `2 * s` saves 2 (for s's gradient); `2 / s` saves 2 and s.
    let s = Tensor::from_vec(vec![1.0f32; 16], &[16]).unwrap();
    let tape = Tape::new(false, true);
    {
        let _r = tape.enter().unwrap();
        tape.watch(&s);
        let _ = multiply(&Tensor::shared_scalar(2.0f32), &s).unwrap();
        let _ = divide(&Tensor::shared_scalar(2.0f32), &s).unwrap();
    }
    assert_eq!(tape.nbytes(), 4 + 64);
}

/// Elementwise ops whose other operand has the output's shape (or is a constant) record a VJP
/// that captures nothing: recording allocates nothing per op beyond the forward's own tensors.
#[test]
fn recording_same_shape_and_constant_ops_allocates_nothing() {
    let s = Tensor::from_vec(vec![1.0f32; 16], &[16]).unwrap();
    let z = Tensor::from_vec(vec![0.25f32; 16], &[16]).unwrap();
    let mask = Tensor::from_vec((0..16).map(|i| i % 3 != 0).collect(), &[16]).unwrap();
    let run = |n: usize, tape: Option<&Tape>, with_where: bool| -> u64 {
        let _r = tape.map(|t| {
            let r = t.enter().unwrap();
            t.watch(&s);
            r
        });
        let start = allocations();
        let mut y = s.clone();
        for _ in 0..n {
            let c = Tensor::shared_scalar(0.99999f32);
            let d = Tensor::shared_scalar(1e-6f32);
            y = add(&multiply(&y, &c).unwrap(), &d).unwrap();
            y = subtract(&multiply(&c, &y).unwrap(), &z).unwrap();
            y = add(&y, &z).unwrap();
            if with_where {
                y = where_(&mask, &y, &c).unwrap();
            }
        }
        allocations() - start
    };
    let n = 2000;
    run(10, None, false); // the shared constants' first use allocates them
    let extra = |with_where: bool| {
        let plain = run(n, None, with_where);
        let tape = Tape::new(false, true);
        let recorded = run(n, Some(&tape), with_where);
        assert_eq!(tape.len(), if with_where { 6 * n } else { 5 * n });
        recorded.saturating_sub(plain)
    };
    // The arena's chunks and the tape's id map grow a few times; nothing per op.
    let slack = (n / 20) as u64;
    let arithmetic = extra(false);
    assert!(
        arithmetic < slack,
        "{} ops allocated {arithmetic} times",
        5 * n
    );
    // where's three input ids take one allocation per node (the node keeps two inline); its
    // VJP none.
    let with_where = extra(true);
    assert!(
        with_where < n as u64 + slack,
        "{} ops allocated {with_where} times",
        6 * n
    );
}
