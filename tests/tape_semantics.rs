//! Tape semantics TensorFlow programs rely on, without Python: a variable (its handle) as a
//! gradient or Jacobian target, and pruning of every node no source reaches (nothing behind
//! `stop_gradient` runs, and an op's VJP never runs for a node off the sources' paths).
mod support;

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;

use rustape::ops::{add, multiply, sin, stop_gradient};
use rustape::tape::{record_custom, ForeignVjp, Vjp};
use rustape::{Source, Tape, Tensor, Unconnected, Variable};
use support::*;

fn grad_of(tape: &Tape, targets: &[Tensor], sources: &[Source]) -> Vec<Option<Tensor>> {
    tape.gradient(targets, sources, None, Unconnected::None)
        .unwrap()
}

#[test]
fn a_variable_handle_is_a_target_with_gradient_ones() {
    let v = Variable::new(v64(&[2.0, 3.0]), true, Some("v"));
    let w = Variable::new(s64(1.0), true, Some("w"));
    let tape = Tape::new(true, true);
    let y = {
        let _r = tape.enter().unwrap();
        multiply(&v.value(), &s64(3.0)).unwrap()
    };
    // gradient(v, [v, w]) = [ones, None]; gradient([v, 3v], v) = 1 + 3.
    let g = grad_of(&tape, &[v.handle()], &[(&v).into(), (&w).into()]);
    assert_eq!(values(g[0].as_ref().unwrap()), [1.0, 1.0]);
    assert!(g[1].is_none());
    let g = grad_of(&tape, &[v.handle(), y], &[(&v).into()]);
    assert_eq!(values(g[0].as_ref().unwrap()), [4.0, 4.0]);
    // Another variable's handle is unconnected; zeros when asked.
    assert!(grad_of(&tape, &[w.handle()], &[(&v).into()])[0].is_none());
    let zero = tape
        .gradient(&[w.handle()], &[(&v).into()], None, Unconnected::Zero)
        .unwrap();
    assert_eq!(values(zero[0].as_ref().unwrap()), [0.0, 0.0]);
    // jacobian(v, v) is the identity.
    let j = tape
        .jacobian(&v.handle(), &[(&v).into()], Unconnected::None)
        .unwrap();
    assert_eq!(
        values(j[0].as_ref().unwrap()),
        [1.0, 0.0, 0.0, 1.0],
        "jacobian of a variable with respect to itself"
    );
}

#[test]
fn a_variable_handle_is_its_own_gradient_even_unwatched() {
    let v = Variable::new(s64(2.0), true, None);
    let tape = Tape::new(false, false);
    drop(tape.enter().unwrap());
    let g = grad_of(&tape, &[v.handle()], &[(&v).into()]);
    assert_eq!(values(g[0].as_ref().unwrap()), [1.0]);
}

/// A custom op (`x -> sin(x)`) whose VJP counts its calls.
fn counted_sin(x: &Tensor, calls: &Arc<AtomicUsize>) -> Tensor {
    let y = rustape::tape::without_recording(|| sin(x).unwrap());
    let saved = x.clone();
    let calls = calls.clone();
    let vjp: Arc<Vjp> = Arc::new(move |_, grads: &[Option<Tensor>], _| {
        calls.fetch_add(1, Ordering::SeqCst);
        let dy = grads[0].clone().expect("a gradient");
        Ok(rustape::grads![Some(multiply(
            &dy,
            &rustape::ops::cos(&saved)?
        )?)])
    });
    let make = || ForeignVjp::shared(vjp.clone());
    record_custom("counted_sin", std::slice::from_ref(x), &[y], make)
        .unwrap()
        .remove(0)
}

#[test]
fn nothing_behind_stop_gradient_runs() {
    let calls = Arc::new(AtomicUsize::new(0));
    let x = v64(&[0.5, 1.0]);
    let tape = Tape::new(true, true);
    let (y, cut) = {
        let _r = tape.enter().unwrap();
        tape.watch(&x);
        let cut = counted_sin(&stop_gradient(&x), &calls);
        (add(&multiply(&cut, &x).unwrap(), &x).unwrap(), cut)
    };
    // d/dx (sin(stop(x)) * x + x) = sin(x) + 1: the custom op's VJP is never called.
    let g = grad_of(&tape, std::slice::from_ref(&y), &[(&x).into()]);
    assert_close(
        &values(g[0].as_ref().unwrap()),
        &[0.5f64.sin() + 1.0, 1.0f64.sin() + 1.0],
        1e-15,
    );
    assert_eq!(calls.load(Ordering::SeqCst), 0);
    // Only the cut itself is unconnected from x; with respect to `cut`, the product rule runs.
    let g = grad_of(&tape, std::slice::from_ref(&y), &[(&cut).into()]);
    assert_eq!(values(g[0].as_ref().unwrap()), [0.5, 1.0]);
    assert_eq!(calls.load(Ordering::SeqCst), 0);
    let why = tape
        .gradient(&[cut], &[(&x).into()], None, Unconnected::Raise)
        .unwrap_err();
    assert!(why.message.contains("stop_gradient"), "{why}");
}

#[test]
fn a_node_no_source_reaches_never_runs() {
    let calls = Arc::new(AtomicUsize::new(0));
    let (x, other) = (s64(0.5), s64(2.0));
    let tape = Tape::new(true, true);
    let y = {
        let _r = tape.enter().unwrap();
        tape.watch(&x);
        tape.watch(&other);
        add(&counted_sin(&other, &calls), &multiply(&x, &x).unwrap()).unwrap()
    };
    let g = grad_of(&tape, std::slice::from_ref(&y), &[(&x).into()]);
    assert_eq!(values(g[0].as_ref().unwrap()), [1.0]);
    assert_eq!(calls.load(Ordering::SeqCst), 0, "off the path to x");
    let g = grad_of(&tape, &[y], &[(&other).into()]);
    assert_close(&values(g[0].as_ref().unwrap()), &[2.0f64.cos()], 1e-15);
    assert_eq!(calls.load(Ordering::SeqCst), 1, "on the path to `other`");
}
