//! Complex forward values (complex128 against closed forms, complex64 against complex128),
//! TypeErrors for ops with no complex meaning and for dtype mixes, and a complex gradient
//! descent that converges with TensorFlow's convention (and diverges with the conjugate one).
mod support;
use support::complex::*;
use support::*;

use rustape::ops::*;
use rustape::{Complex, DType, ErrorKind, Result, Source, Tape, Tensor, Unconnected};

#[test]
fn closed_form_values() {
    let pi = std::f64::consts::PI;
    assert_complex(
        &exp(&sc(0.0, pi)).unwrap(),
        &[(-1.0, 0.0)],
        1e-15,
        "e^(i pi)",
    );
    assert_complex(
        &sqrt(&sc(-4.0, 0.0)).unwrap(),
        &[(0.0, 2.0)],
        0.0,
        "sqrt(-4)",
    );
    assert_complex(
        &sqrt(&sc(3.0, 4.0)).unwrap(),
        &[(2.0, 1.0)],
        1e-15,
        "sqrt(3+4i)",
    );
    assert_complex(
        &log(&sc(-1.0, 0.0)).unwrap(),
        &[(0.0, pi)],
        1e-15,
        "log(-1)",
    );
    assert_complex(
        &divide(&sc(1.0, 2.0), &sc(3.0, -4.0)).unwrap(),
        &[(-0.2, 0.4)],
        1e-15,
        "/",
    );
    assert_complex(
        &pow(&sc(0.0, 1.0), &sc(2.0, 0.0)).unwrap(),
        &[(-1.0, 0.0)],
        1e-15,
        "i^2",
    );
    assert_complex(
        &sin(&sc(0.0, 1.0)).unwrap(),
        &[(0.0, 1f64.sinh())],
        1e-15,
        "sin(i)",
    );
    assert_complex(
        &cos(&sc(0.0, 1.0)).unwrap(),
        &[(1f64.cosh(), 0.0)],
        1e-15,
        "cos(i)",
    );
    assert_complex(
        &tanh(&sc(0.0, pi / 4.0)).unwrap(),
        &[(0.0, 1.0)],
        1e-15,
        "tanh(i pi/4)",
    );
    assert_complex(
        &tan(&sc(0.0, 1.0)).unwrap(),
        &[(0.0, 1f64.tanh())],
        1e-15,
        "tan(i)",
    );
    assert_complex(
        &sinh(&sc(0.0, pi / 2.0)).unwrap(),
        &[(0.0, 1.0)],
        1e-15,
        "sinh",
    );
    assert_complex(&cosh(&sc(0.0, pi)).unwrap(), &[(-1.0, 0.0)], 1e-15, "cosh");
    // Saturation where the textbook formulas overflow to NaN.
    assert_complex(
        &tanh(&sc(400.0, 1.0)).unwrap(),
        &[(1.0, 0.0)],
        0.0,
        "tanh(400+i)",
    );
    let z = c128(&[(3.0, 4.0), (0.0, 0.0), (-1.0, 0.0)], &[3]);
    assert_close(&values(&abs(&z).unwrap()), &[5.0, 0.0, 1.0], 0.0);
    assert_eq!(abs(&z).unwrap().dtype(), DType::F64);
    assert_close(
        &values(&angle(&z).unwrap()),
        &[(4f64).atan2(3.0), 0.0, pi],
        1e-15,
    );
    assert_close(&values(&real(&z).unwrap()), &[3.0, 0.0, -1.0], 0.0);
    assert_close(&values(&imag(&z).unwrap()), &[4.0, 0.0, 0.0], 0.0);
    assert_complex(
        &conj(&z).unwrap(),
        &[(3.0, -4.0), (0.0, -0.0), (-1.0, -0.0)],
        0.0,
        "conj",
    );
    let built = complex(&v64(&[1.0, 2.0]), &s64(-1.0)).unwrap();
    assert_complex(&built, &[(1.0, -1.0), (2.0, -1.0)], 0.0, "complex");
    assert_eq!(
        complex(&v32(&[1.0]), &v32(&[2.0])).unwrap().dtype(),
        DType::Complex64
    );
    // Real inputs: real and conj are the identity, imag zeros, angle 0 or pi.
    let r = v64(&[-2.0, 3.0]);
    assert_eq!(real(&r).unwrap().id(), r.id());
    assert_eq!(conj(&r).unwrap().id(), r.id());
    assert_close(&values(&imag(&r).unwrap()), &[0.0, 0.0], 0.0);
    assert_close(&values(&angle(&r).unwrap()), &[pi, 0.0], 0.0);
}

#[test]
fn linear_algebra_values() {
    let a = c128(&[(1.0, 1.0), (2.0, 0.0), (0.0, -1.0), (3.0, 1.0)], &[2, 2]);
    let b = c128(&[(1.0, 0.0), (0.0, 1.0)], &[2, 1]);
    let p = matmul(&a, &b, false, false).unwrap();
    assert_complex(&p, &[(1.0, 3.0), (-1.0, 2.0)], 1e-15, "matmul");
    let x = solve(&a, &b).unwrap();
    assert_complex(
        &matmul(&a, &x, false, false).unwrap(),
        &[(1.0, 0.0), (0.0, 1.0)],
        1e-15,
        "solve",
    );
    let xh = solve_adjoint(&a, &b, true).unwrap();
    let back = matmul(&adjoint(&a).unwrap(), &xh, false, false).unwrap();
    assert_complex(&back, &[(1.0, 0.0), (0.0, 1.0)], 1e-15, "solve adjoint");
    let i2 = matmul(&a, &inv(&a).unwrap(), false, false).unwrap();
    assert_complex(
        &i2,
        &[(1.0, 0.0), (0.0, 0.0), (0.0, 0.0), (1.0, 0.0)],
        1e-15,
        "inv",
    );
    let e = einsum("ij,jk->ik", &[a.clone(), b.clone()]).unwrap();
    assert_complex(&e, &[(1.0, 3.0), (-1.0, 2.0)], 1e-15, "einsum");
    let adj = adjoint(&a).unwrap();
    assert_complex(
        &adj,
        &[(1.0, -1.0), (0.0, 1.0), (2.0, -0.0), (3.0, -1.0)],
        0.0,
        "adjoint",
    );
    let s = reduce_sum(&a, Some(&[0]), false).unwrap();
    assert_complex(&s, &[(1.0, 0.0), (5.0, 1.0)], 0.0, "reduce_sum");
    let m = reduce_mean(&a, None, false).unwrap();
    assert_complex(&m, &[(1.5, 0.25)], 1e-15, "reduce_mean");
    let pr = reduce_prod(&a, Some(&[1]), false).unwrap();
    assert_complex(&pr, &[(2.0, 2.0), (1.0, -3.0)], 1e-15, "reduce_prod");
    // (1+i)(3+i) - 2(-i) = 2 + 6i; the batch's second matrix is a's transpose (same det) and
    // a singular one (det 0); the empty matrix has det 1.
    assert_complex(&det(&a).unwrap(), &[(2.0, 6.0)], 1e-15, "det");
    let singular = c128(&[(1.0, 1.0), (2.0, 2.0), (1.0, 0.0), (2.0, 0.0)], &[2, 2]);
    let batch = stack(&[a.clone(), transpose(&a, None).unwrap(), singular], 0).unwrap();
    let d = det(&cast(&batch, DType::Complex64).unwrap()).unwrap();
    assert_eq!(d.dtype(), DType::Complex64);
    assert_complex(
        &d,
        &[(2.0, 6.0), (2.0, 6.0), (0.0, 0.0)],
        1e-6,
        "det, complex64",
    );
    let empty = Tensor::zeros(&[3, 0, 0], DType::Complex128);
    assert_complex(&det(&empty).unwrap(), &[(1.0, 0.0); 3], 0.0, "det of 0x0");
}

#[test]
fn complex64_agrees_with_complex128() {
    let z = random_c128(&[4, 4], 3, 1.5);
    let w = away_c128(&[4, 4], 4);
    let low = |t: &Tensor| cast(t, DType::Complex64).unwrap();
    type Op = fn(&Tensor, &Tensor) -> Result<Tensor>;
    let ops: [(&str, Op); 10] = [
        ("multiply", |a, b| multiply(a, b)),
        ("divide", |a, b| divide(a, b)),
        ("pow", |a, b| pow(b, &multiply(a, &sc_like(0.5, a))?)),
        ("exp", |a, _| exp(a)),
        ("log", |_, b| log(b)),
        ("sqrt", |_, b| sqrt(b)),
        ("sin", |a, _| sin(a)),
        ("tanh", |a, _| tanh(a)),
        ("matmul", |a, b| matmul(a, b, false, true)),
        ("solve", |a, b| {
            solve(
                &add(b, &cast(&eye(4, None, &[], DType::F64)?, a.dtype())?)?,
                a,
            )
        }),
    ];
    for (name, op) in ops {
        let hi = op(&z, &w).unwrap();
        let lo = op(&low(&z), &low(&w)).unwrap();
        assert_eq!(lo.dtype(), DType::Complex64, "{name}");
        assert_close_labelled(&parts(&lo), &parts(&hi), 2e-5, name);
    }
}

/// A complex 0-d constant of `like`'s dtype.
fn sc_like(v: f64, like: &Tensor) -> Tensor {
    cast(&sc(v, 0.0), like.dtype()).unwrap()
}

#[test]
fn ops_with_no_complex_meaning_raise_type_errors_naming_op_and_dtype() {
    let z = c128(&[(1.0, 1.0), (2.0, -1.0)], &[2]);
    let z64 = c64(&[(1.0, 1.0), (2.0, -1.0)], &[2]);
    let checks: Vec<(&str, Result<Tensor>)> = vec![
        ("maximum", maximum(&z, &z)),
        ("minimum", minimum(&z, &z)),
        ("less", less(&z, &z)),
        ("greater_equal", greater_equal(&z, &z)),
        ("relu", relu(&z)),
        ("softplus", softplus(&z)),
        ("sigmoid", sigmoid(&z)),
        ("reduce_max", reduce_max(&z, None, false)),
        ("reduce_min", reduce_min(&z, None, false)),
        ("argmax", argmax(&z, 0)),
        ("floordiv", floordiv(&z, &z)),
        ("sign", sign(&z)),
        ("log1p", log1p(&z)),
        ("reduce_logsumexp", reduce_logsumexp(&z, None, false)),
    ];
    for (op, result) in checks {
        let e = result.expect_err(op);
        assert_eq!(e.kind, ErrorKind::DType, "{op}: {e}");
        let text = e.to_string();
        assert!(
            text.contains(op) && text.contains("complex128"),
            "{op}: {text}"
        );
    }
    // Mixing complex and real, or complex64 with complex128, is a TypeError naming both.
    for (what, result) in [
        ("add", add(&z, &v64(&[1.0, 2.0]))),
        ("multiply", multiply(&z, &z64)),
        (
            "matmul",
            matmul(
                &reshape(&z, &[1, 2]).unwrap(),
                &reshape(&z64, &[2, 1]).unwrap(),
                false,
                false,
            ),
        ),
        ("concat", concat(&[z.clone(), z64.clone()], 0)),
    ] {
        let e = result.expect_err(what);
        assert_eq!(e.kind, ErrorKind::DType, "{what}: {e}");
        let text = e.to_string();
        assert!(
            text.contains("complex128") && (text.contains("complex64") || text.contains("float64")),
            "{what}: {text}"
        );
    }
    let e = complex(&v64(&[1.0]), &v32(&[1.0])).unwrap_err();
    assert_eq!(e.kind, ErrorKind::DType);
    let e = complex(
        &Tensor::from_vec(vec![1i32], &[1]).unwrap(),
        &Tensor::from_vec(vec![1i32], &[1]).unwrap(),
    )
    .unwrap_err();
    assert_eq!(e.kind, ErrorKind::DType);
    let e = z.item().unwrap_err();
    assert_eq!(e.kind, ErrorKind::DType);
}

#[test]
fn gradient_descent_converges_with_tensorflows_convention() {
    // L(z) = sum |z - t|^2 + |z_0 z_1 - t_0 t_1|^2: minimum at z = t (among others). With the
    // convention's gradient (2 dL/dz̄, the direction of steepest ascent in the plane), plain
    // descent converges; JAX's conjugate would turn the imaginary error around.
    let target = c128(&[(0.5, -1.0), (-0.25, 0.75)], &[2]);
    let loss = |z: &Tensor| -> Result<Tensor> {
        let d = subtract(z, &target)?;
        let prod = reduce_prod(z, None, false)?;
        let t_prod = reduce_prod(&target, None, false)?;
        add(
            &reduce_sum(&square(&abs(&d)?)?, None, false)?,
            &square(&abs(&subtract(&prod, &t_prod)?)?)?,
        )
    };
    let step = |z: &Tensor, conjugate: bool| -> (Tensor, f64) {
        let tape = Tape::new(false, true);
        let l = {
            let _on = tape.enter().unwrap();
            tape.watch(z);
            loss(z).unwrap()
        };
        let g = tape
            .gradient(
                std::slice::from_ref(&l),
                &[Source::from(z)],
                None,
                Unconnected::None,
            )
            .unwrap()[0]
            .clone()
            .unwrap();
        let g = if conjugate { conj(&g).unwrap() } else { g };
        let next = subtract(z, &multiply(&g, &sc(0.1, 0.0)).unwrap()).unwrap();
        (next, l.item().unwrap())
    };
    let start = c128(&[(0.0, 0.0), (0.0, 0.1)], &[2]);
    let mut z = start.clone();
    let mut last = f64::INFINITY;
    for _ in 0..200 {
        let (next, l) = step(&z, false);
        assert!(l <= last + 1e-12, "the loss rose: {last} -> {l}");
        last = l;
        z = next;
    }
    assert!(last < 1e-20, "did not converge: loss {last}");
    assert_complex(&z, &[(0.5, -1.0), (-0.25, 0.75)], 1e-10, "minimum");
    // The conjugate gradient is no descent direction: from the same start the loss grows.
    let mut z = start;
    let (_, first) = step(&z, true);
    for _ in 0..10 {
        z = step(&z, true).0;
    }
    let (_, after) = step(&z, true);
    assert!(
        after > 2.0 * first,
        "conjugate steps should not descend: {first} -> {after}"
    );
}

#[test]
fn jacobians_follow_the_convention_with_and_without_vectorisation() {
    use rustape::{JacobianOptions, JacobianStrategy};
    let z = c128(&[(1.0, 2.0), (-0.5, 0.25)], &[2]);
    let x = v64(&[0.3, -0.6]);
    for strategy in [JacobianStrategy::Vectorized, JacobianStrategy::Sequential] {
        let options = JacobianOptions {
            parallel_iterations: None,
            strategy,
        };
        let tape = Tape::new(true, true);
        let (y, r, c) = {
            let _on = tape.enter().unwrap();
            tape.watch(&z);
            tape.watch(&x);
            (
                square(&z).unwrap(), // complex -> complex
                abs(&z).unwrap(),    // complex -> real
                exp(&complex(&x, &multiply(&x, &x).unwrap()).unwrap()).unwrap(), // real -> complex
            )
        };
        // d(z_i^2)/dz_j: row i holds conj(2 z_i) at j = i.
        let j = tape
            .jacobian_with(&y, &[Source::from(&z)], Unconnected::None, options)
            .unwrap();
        let want = [(2.0, -4.0), (0.0, 0.0), (0.0, 0.0), (-1.0, -0.5)];
        assert_complex(j[0].as_ref().unwrap(), &want, 1e-15, "jacobian of z^2");
        // |z_i|: row i holds z_i / |z_i| at j = i.
        let j = tape
            .jacobian_with(&r, &[Source::from(&z)], Unconnected::None, options)
            .unwrap();
        let n0 = 5f64.sqrt();
        let n1 = (0.3125f64).sqrt();
        let want = [
            (1.0 / n0, 2.0 / n0),
            (0.0, 0.0),
            (0.0, 0.0),
            (-0.5 / n1, 0.25 / n1),
        ];
        assert_complex(j[0].as_ref().unwrap(), &want, 1e-15, "jacobian of |z|");
        // exp(x + i x^2) against real x: the real part of conj(d/dx) = Re(conj((1 + 2ix) e^w)).
        let j = tape
            .jacobian_with(&c, &[Source::from(&x)], Unconnected::None, options)
            .unwrap();
        let j = j[0].as_ref().unwrap();
        assert_eq!(j.dtype(), DType::F64);
        let d = |x: f64| {
            (Complex::new(1.0, 2.0 * x) * Complex::new(x, x * x).exp())
                .conj()
                .re
        };
        assert_close(&values(j), &[d(0.3), 0.0, 0.0, d(-0.6)], 1e-15);
    }
}
