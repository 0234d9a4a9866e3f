//! `Unconnected::Raise`: a disconnected source is an error that says why.
use rustape::ops::{cast, multiply, round, sin, stop_gradient};
use rustape::{DType, ErrorKind, Source, Tape, Tensor, Unconnected, Variable};

fn reason(tape: &Tape, y: &Tensor, source: Source) -> String {
    let err = tape
        .gradient(std::slice::from_ref(y), &[source], None, Unconnected::Raise)
        .unwrap_err();
    assert_eq!(err.kind, ErrorKind::Value);
    assert_eq!(err.op, "GradientTape.gradient");
    err.message
}

#[test]
fn says_why_each_kind_of_source_is_disconnected() {
    let x = Tensor::scalar(2.0f64);
    let unwatched = Tensor::scalar(3.0f64);
    let n = Tensor::scalar(4i32);
    let v = Variable::new(Tensor::scalar(1.0f64), true, Some("v"));
    let outside = v.value(); // read before the tape exists
    let blocked = Tensor::scalar(5.0f64);
    let rounded = Tensor::scalar(6.2f64);
    let tape = Tape::new(true, false);
    let y = {
        let _r = tape.enter().unwrap();
        tape.watch(&x);
        tape.watch(&n);
        tape.watch(&blocked);
        tape.watch(&rounded);
        // Used only with itself, so no recorded op ever sees it (as in TensorFlow, an unwatched
        // tensor that meets a watched one in a recorded op does get a gradient).
        let a = multiply(
            &sin(&x).unwrap(),
            &multiply(&unwatched, &unwatched).unwrap(),
        )
        .unwrap();
        let b = multiply(&a, &stop_gradient(&blocked)).unwrap();
        let c = multiply(&b, &cast(&n, DType::F64).unwrap()).unwrap();
        let d = multiply(&c, &round(&rounded).unwrap()).unwrap();
        multiply(&d, &outside).unwrap()
    };
    // The connected source still gets its gradient.
    let g = tape
        .gradient(
            std::slice::from_ref(&y),
            &[(&x).into()],
            None,
            Unconnected::Raise,
        )
        .unwrap();
    assert!(g[0].is_some());

    let m = reason(&tape, &y, (&unwatched).into());
    assert!(
        m.contains("never watched") && m.contains("tape.watch()"),
        "{m}"
    );
    let m = reason(&tape, &y, (&n).into());
    assert!(
        m.contains("int32") && m.contains("only floating and complex tensors"),
        "{m}"
    );
    let m = reason(&tape, &y, (&v).into());
    assert!(
        m.contains("variable 'v:0'") && m.contains("read outside"),
        "{m}"
    );
    let m = reason(&tape, &y, (&blocked).into());
    assert!(m.contains("stop_gradient"), "{m}");
    let m = reason(&tape, &y, (&rounded).into());
    assert!(
        m.contains("not computed from it") && m.contains("round"),
        "{m}"
    );
}

#[test]
fn jacobian_raises_too_and_other_modes_are_unchanged() {
    let x = Tensor::from_vec(vec![1.0f64, 2.0], &[2]).unwrap();
    let other = Tensor::from_vec(vec![1.0f64, 2.0, 3.0], &[3]).unwrap();
    let tape = Tape::new(true, true);
    let y = {
        let _r = tape.enter().unwrap();
        tape.watch(&x);
        multiply(&x, &x).unwrap()
    };
    let err = tape
        .jacobian(&y, &[(&other).into()], Unconnected::Raise)
        .unwrap_err();
    assert_eq!(err.op, "GradientTape.jacobian");
    let j = tape
        .jacobian(&y, &[(&other).into()], Unconnected::Zero)
        .unwrap();
    assert_eq!(j[0].as_ref().unwrap().shape(), &[2, 3]);
    assert!(tape
        .jacobian(&y, &[(&other).into()], Unconnected::None)
        .unwrap()[0]
        .is_none());
}
