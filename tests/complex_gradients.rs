//! Complex gradients: TensorFlow's convention in exact cases, every complex op against finite
//! differences in the real and imaginary directions (complex128, first and second order), and
//! the vectorised Jacobian equal to the row-by-row one on complex graphs.
mod support;
use support::complex::*;
use support::*;

use rustape::ops::*;
use rustape::testing::{check_vectorized, gradcheck, Tolerance};
use rustape::{Complex, DType, Result, Source, Tape, Tensor, Unconnected};

/// The gradient of `y` with respect to `x`, seeded with `c` (ones when `None`).
fn grad_seeded(
    f: &dyn Fn(&Tensor) -> Result<Tensor>,
    x: &Tensor,
    c: Option<Tensor>,
) -> Option<Tensor> {
    let tape = Tape::new(false, true);
    let y = {
        let _on = tape.enter().unwrap();
        tape.watch(x);
        f(x).unwrap()
    };
    tape.gradient(&[y], &[Source::from(x)], Some(&[c]), Unconnected::None)
        .unwrap()
        .pop()
        .unwrap()
}

#[test]
fn the_issues_convention_examples_exactly() {
    let z = sc(1.0, 2.0);
    // |z|^2 at 1+2i: a real loss gets 2 dL/dz̄ = 2z.
    let g = grad_seeded(&|z| square(&abs(z)?), &z, None).unwrap();
    assert_complex(&g, &[(2.0, 4.0)], 0.0, "|z|^2");
    // Re(z^2): 2 conj(z).
    let g = grad_seeded(&|z| real(&square(z)?), &z, None).unwrap();
    assert_complex(&g, &[(2.0, -4.0)], 0.0, "Re(z^2)");
    // z^2, holomorphic, default seed: conj(f'(z)) = conj(2z).
    let g = grad_seeded(&|z| multiply(z, z), &z, None).unwrap();
    assert_complex(&g, &[(2.0, -4.0)], 0.0, "z*z");
    let g = grad_seeded(&square, &z, None).unwrap();
    assert_complex(&g, &[(2.0, -4.0)], 0.0, "square");
    // With an output gradient c: c * conj(f'(z)).
    let g = grad_seeded(&square, &z, Some(sc(0.5, -1.0))).unwrap();
    let want = Complex::new(0.5, -1.0) * Complex::new(2.0, -4.0);
    assert_complex(&g, &[(want.re, want.im)], 0.0, "square, output_gradients");
    // A real source reached through complex values keeps the real part, in its own dtype.
    let x = Tensor::scalar(2.0f32);
    let g = grad_seeded(
        &|x| {
            multiply(
                &cast(x, DType::Complex64)?,
                &Tensor::scalar(Complex::new(1.0f32, 1.0)),
            )
        },
        &x,
        None,
    )
    .unwrap();
    assert_eq!(g.dtype(), DType::F32);
    assert_close(&values(&g), &[1.0], 0.0);
    let x = s64(2.0);
    let g = grad_seeded(&|x| square(&complex(x, &s64(3.0))?), &x, None).unwrap();
    assert_eq!(g.dtype(), DType::F64);
    assert_close(&values(&g), &[4.0], 0.0); // Re(conj(2(2+3i))) = 4, as TensorFlow
}

#[test]
fn unconnected_zero_and_missing_gradients_are_complex() {
    let z = c128(&[(1.0, 1.0), (2.0, -1.0)], &[2]);
    let w = c128(&[(0.5, 0.5), (1.0, 0.0)], &[2]);
    let tape = Tape::new(false, true);
    let y = {
        let _on = tape.enter().unwrap();
        tape.watch(&z);
        tape.watch(&w);
        exp(&z).unwrap()
    };
    let g = tape
        .gradient(
            &[y],
            &[Source::from(&z), Source::from(&w)],
            None,
            Unconnected::Zero,
        )
        .unwrap();
    let gw = g[1].as_ref().unwrap();
    assert_eq!(gw.dtype(), DType::Complex128);
    assert_complex(gw, &[(0.0, 0.0), (0.0, 0.0)], 0.0, "unconnected zero");
    let gz = g[0].as_ref().unwrap();
    let want: Vec<(f64, f64)> = z
        .to_complex_vec()
        .iter()
        .map(|v| {
            let e = v.exp().conj();
            (e.re, e.im)
        })
        .collect();
    assert_complex(gz, &want, 1e-15, "exp");
}

/// Every complex op, with inputs away from branch cuts and poles.
/// A named function of tensors and the inputs to check it at.
type Case = (
    &'static str,
    Box<dyn Fn(&[Tensor]) -> Result<Tensor>>,
    Vec<Tensor>,
);

fn cases() -> Vec<Case> {
    let z = || random_c128(&[2, 3], 1, 1.0);
    let w = || random_c128(&[2, 3], 2, 1.0);
    let away = || away_c128(&[2, 3], 3);
    let sq = || {
        add(
            &random_c128(&[3, 3], 4, 1.0),
            &cast(&eye(3, None, &[], DType::F64).unwrap(), DType::Complex128).unwrap(),
        )
        .unwrap()
    };
    let r = || t64(&[0.3, -0.7, 1.1, 0.4, -0.2, 0.9], &[2, 3]);
    let all: Vec<Case> = vec![
        (
            "add",
            Box::new(|x| add(&x[0], &x[1])),
            vec![z(), random_c128(&[3], 5, 1.0)],
        ),
        (
            "subtract",
            Box::new(|x| subtract(&x[0], &x[1])),
            vec![random_c128(&[2, 1], 6, 1.0), random_c128(&[1, 3], 7, 1.0)],
        ),
        (
            "multiply",
            Box::new(|x| multiply(&x[0], &x[1])),
            vec![z(), random_c128(&[1, 3], 8, 1.0)],
        ),
        (
            "divide",
            Box::new(|x| divide(&x[0], &x[1])),
            vec![z(), away_c128(&[2, 1], 9)],
        ),
        (
            "pow",
            Box::new(|x| pow(&x[0], &x[1])),
            vec![away(), random_c128(&[3], 10, 0.8)],
        ),
        (
            "pow_constant_exponent",
            Box::new(|x| pow(&x[0], &sc(3.0, 0.0))),
            vec![z()],
        ),
        ("negative", Box::new(|x| negative(&x[0])), vec![z()]),
        ("square", Box::new(|x| square(&x[0])), vec![z()]),
        ("sqrt", Box::new(|x| sqrt(&x[0])), vec![away()]),
        ("exp", Box::new(|x| exp(&x[0])), vec![z()]),
        ("log", Box::new(|x| log(&x[0])), vec![away()]),
        ("sin", Box::new(|x| sin(&x[0])), vec![z()]),
        ("cos", Box::new(|x| cos(&x[0])), vec![z()]),
        (
            "tan",
            Box::new(|x| tan(&x[0])),
            vec![random_c128(&[2, 3], 11, 0.7)],
        ),
        (
            "tanh",
            Box::new(|x| tanh(&x[0])),
            vec![random_c128(&[2, 3], 12, 0.7)],
        ),
        ("sinh", Box::new(|x| sinh(&x[0])), vec![z()]),
        ("cosh", Box::new(|x| cosh(&x[0])), vec![z()]),
        ("abs", Box::new(|x| abs(&x[0])), vec![away()]),
        ("angle", Box::new(|x| angle(&x[0])), vec![away()]),
        (
            "real",
            Box::new(|x| real(&multiply(&x[0], &x[0])?)),
            vec![z()],
        ),
        (
            "imag",
            Box::new(|x| imag(&multiply(&x[0], &x[0])?)),
            vec![z()],
        ),
        (
            "conj",
            Box::new(|x| multiply(&conj(&x[0])?, &x[0])),
            vec![z()],
        ),
        (
            "complex",
            Box::new(|x| square(&complex(&x[0], &x[1])?)),
            vec![r(), t64(&[0.5, -1.5, 0.25], &[3])],
        ),
        (
            "cast_to_complex",
            Box::new(|x| exp(&cast(&x[0], DType::Complex128)?)),
            vec![r()],
        ),
        (
            "cast_to_real",
            Box::new(|x| cast(&exp(&x[0])?, DType::F64)),
            vec![z()],
        ),
        (
            "real_loss",
            Box::new(|x| {
                add(
                    &real(&multiply(&x[0], &conj(&x[0])?)?)?,
                    &multiply(&abs(&x[0])?, &imag(&x[0])?)?,
                )
            }),
            vec![away()],
        ),
        (
            "reduce_sum",
            Box::new(|x| reduce_sum(&square(&x[0])?, Some(&[1]), false)),
            vec![z()],
        ),
        (
            "reduce_mean",
            Box::new(|x| reduce_mean(&square(&x[0])?, Some(&[0]), true)),
            vec![z()],
        ),
        (
            "reduce_prod",
            Box::new(|x| reduce_prod(&x[0], Some(&[1]), false)),
            vec![z()],
        ),
        (
            "reduce_prod_with_zero",
            Box::new(|x| reduce_prod(&x[0], None, false)),
            vec![c128(&[(0.0, 0.0), (0.5, -1.0), (1.5, 0.5)], &[3])],
        ),
        (
            "reshape_transpose",
            Box::new(|x| multiply(&reshape(&x[0], &[3, 2])?, &transpose(&x[0], None)?)),
            vec![z()],
        ),
        (
            "slice_concat_stack",
            Box::new(|x| {
                let a = slice_axis(&x[0], 1, 1, 3)?;
                let b = concat(&[a.clone(), x[1].clone()], 1)?;
                stack(&[b.clone(), multiply(&b, &b)?], 0)
            }),
            vec![z(), w()],
        ),
        (
            "strided_slice_gather",
            Box::new(|x| {
                let s = strided_slice(
                    &x[0],
                    &[
                        SliceItem::all(),
                        SliceItem::Range {
                            start: None,
                            stop: None,
                            step: -2,
                        },
                    ],
                )?;
                multiply(
                    &s,
                    &gather(&x[0], &Tensor::from_vec(vec![2i64, 0], &[2])?, 1, 0)?,
                )
            }),
            vec![z()],
        ),
        (
            "where",
            Box::new(|x| {
                where_(
                    &bools(&[true, false, true, false, true, true], &[2, 3]),
                    &multiply(&x[0], &x[1])?,
                    &subtract(&x[0], &x[1])?,
                )
            }),
            vec![z(), w()],
        ),
        (
            "tile_broadcast_pad",
            Box::new(|x| {
                let t = tile(&x[0], &[2, 1])?;
                multiply(
                    &pad(&t, &[(1, 0), (0, 1)], PadMode::Constant, 0.0)?,
                    &broadcast_to(&x[1], &[5, 4])?,
                )
            }),
            vec![z(), random_c128(&[4], 13, 1.0)],
        ),
        (
            "matmul",
            Box::new(|x| matmul(&x[0], &x[1], false, false)),
            vec![random_c128(&[2, 3], 14, 1.0), random_c128(&[3, 4], 15, 1.0)],
        ),
        (
            "matmul_transposed",
            Box::new(|x| matmul(&x[0], &x[1], true, true)),
            vec![random_c128(&[3, 2], 16, 1.0), random_c128(&[4, 3], 17, 1.0)],
        ),
        (
            "matmul_batched",
            Box::new(|x| matmul(&x[0], &x[1], false, false)),
            vec![
                random_c128(&[2, 2, 3], 18, 1.0),
                random_c128(&[3, 2], 19, 1.0),
            ],
        ),
        (
            "einsum",
            Box::new(|x| einsum("bij,bkj->bik", &[x[0].clone(), x[1].clone()])),
            vec![
                random_c128(&[2, 2, 3], 20, 1.0),
                random_c128(&[2, 4, 3], 21, 1.0),
            ],
        ),
        (
            "tensordot",
            Box::new(|x| tensordot(&x[0], &x[1], &[1], &[0])),
            vec![random_c128(&[2, 3], 22, 1.0), random_c128(&[3, 2], 23, 1.0)],
        ),
        (
            "adjoint",
            Box::new(|x| multiply(&adjoint(&x[0])?, &x[1])),
            vec![
                random_c128(&[2, 3, 2], 24, 1.0),
                random_c128(&[2, 2, 3], 25, 1.0),
            ],
        ),
        (
            "solve",
            Box::new(|x| solve(&x[0], &x[1])),
            vec![sq(), random_c128(&[3, 2], 26, 1.0)],
        ),
        (
            "solve_adjoint",
            Box::new(|x| solve_adjoint(&x[0], &x[1], true)),
            vec![sq(), random_c128(&[3, 2], 27, 1.0)],
        ),
        (
            "inv",
            Box::new(|x| inv(&x[0])),
            vec![stack(&[sq(), transpose(&sq(), None).unwrap()], 0).unwrap()],
        ),
        ("det", Box::new(|x| det(&x[0])), vec![sq()]),
        (
            "det_batched",
            Box::new(|x| multiply(&det(&x[0])?, &x[1])),
            vec![
                stack(&[sq(), transpose(&sq(), None).unwrap()], 0).unwrap(),
                random_c128(&[2], 28, 1.0),
            ],
        ),
    ];
    all
}

#[test]
fn det_gradient_is_the_conjugate_cofactor_matrix() {
    // det [[a, b], [c, d]] = ad - bc: the derivatives are [[d, -c], [-b, a]], and the gradient
    // (TensorFlow's convention) their conjugates, times the output gradient.
    let m = c128(&[(1.0, 1.0), (2.0, 0.0), (0.0, -1.0), (3.0, 1.0)], &[2, 2]);
    let g = grad_seeded(&det, &m, None).unwrap();
    let want = [(3.0, -1.0), (0.0, -1.0), (-2.0, 0.0), (1.0, -1.0)];
    assert_complex(&g, &want, 1e-15, "det, ones");
    let g = grad_seeded(&det, &m, Some(sc(0.5, 2.0))).unwrap();
    let c = Complex::new(0.5, 2.0);
    let want: Vec<(f64, f64)> = want
        .iter()
        .map(|&(re, im)| {
            let v = c * Complex::new(re, im);
            (v.re, v.im)
        })
        .collect();
    assert_complex(&g, &want, 1e-15, "det, output_gradients");
}

#[test]
fn every_complex_op_against_finite_differences_first_and_second_order() {
    for (name, f, inputs) in cases() {
        if let Err(e) = gradcheck(&*f, &inputs, true, Tolerance::default()) {
            panic!("{name}: {e}");
        }
    }
}

#[test]
fn vectorised_jacobians_equal_row_by_row_ones_on_complex_graphs() {
    let failures: Vec<String> = cases()
        .into_iter()
        .filter_map(|(name, f, inputs)| {
            check_vectorized(&*f, &inputs, 1e-12)
                .err()
                .map(|e| format!("{name}: {e}"))
        })
        .collect();
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

#[test]
fn hessian_of_a_real_function_of_complex_variables_is_symmetric_in_its_parts() {
    // f(z) = Re(z^3) + |z|^2: the Hessian (gradient of the convention's gradient) is checked
    // against finite differences of that gradient in both directions.
    let z = c128(&[(0.3, -0.4), (0.8, 0.2)], &[2]);
    let f =
        |x: &Tensor| -> Result<Tensor> { add(&real(&pow(x, &sc(3.0, 0.0))?)?, &square(&abs(x)?)?) };
    let tape = Tape::new(false, true);
    let target = {
        let _on = tape.enter().unwrap();
        tape.watch(&z);
        reduce_sum(&f(&z).unwrap(), None, false).unwrap()
    };
    let h = tape
        .hessian(&target, &[Source::from(&z)], Unconnected::None)
        .unwrap();
    let h = h[0].as_ref().unwrap();
    assert_eq!(h.shape(), &[2, 2]);
    assert_eq!(h.dtype(), DType::Complex128);
    // Row j of the Hessian is the gradient of Re(g_j) ... of the gradient's element j.
    let grad = |x: &Tensor| gradient(&|x| f(x), x).unwrap();
    for j in 0..2 {
        let row = gradient(&|x| slice_axis(&real(&grad(x))?, 0, j, j + 1), &z).unwrap();
        let got: Vec<f64> = parts(h).chunks(4).nth(j).unwrap().to_vec();
        assert_close_labelled(&got, &parts(&row), 1e-12, "hessian row");
    }
}
