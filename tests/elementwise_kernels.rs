//! The vectorised elementwise kernels: accuracy against std over dense sweeps (with the ulp bound
//! each function is held to), edge values, the same numbers at every tensor size and layout, and
//! the fused activation gradients (TanhGrad and friends) with their own gradients.
use rustape::ops::*;
use rustape::testing::{check_vectorized, gradcheck, pseudo_random, Tolerance};
use rustape::{Result, Tensor};

// ------------------------------------------------------------------------------------------
// ulp distances

fn key64(x: f64) -> i64 {
    let i = x.to_bits() as i64;
    if i < 0 {
        i64::MIN - i
    } else {
        i
    }
}

/// Units in the last place between `a` and `b` (0 for two NaNs; -0.0 and 0.0 are equal).
fn ulps64(a: f64, b: f64) -> u64 {
    if (a.is_nan() && b.is_nan()) || a == b {
        0
    } else {
        key64(a).abs_diff(key64(b))
    }
}

fn ulps32(a: f32, b: f32) -> u64 {
    let key = |x: f32| {
        let i = x.to_bits() as i32;
        if i < 0 {
            i32::MIN - i
        } else {
            i
        }
    };
    if (a.is_nan() && b.is_nan()) || a == b {
        0
    } else {
        key(a).abs_diff(key(b)) as u64
    }
}

/// Dense points over `[lo, hi]`: a uniform grid plus pseudo-random points.
fn sweep(lo: f64, hi: f64, n: usize) -> Vec<f64> {
    let mut out: Vec<f64> = (0..n)
        .map(|i| lo + (hi - lo) * i as f64 / n as f64)
        .collect();
    let mut s = 0x2545_F491_4F6C_DD1Du64;
    for _ in 0..n {
        s ^= s << 13;
        s ^= s >> 7;
        s ^= s << 17;
        out.push(lo + (hi - lo) * ((s >> 11) as f64 / (1u64 << 53) as f64));
    }
    out
}

/// Every binade from 2^lo to 2^hi, `per` points each, both signs if `signed`.
fn binades(lo: i32, hi: i32, per: usize, signed: bool) -> Vec<f64> {
    let mut out = vec![];
    for e in lo..hi {
        for k in 0..per {
            let v = 2f64.powi(e) * (1.0 + k as f64 / per as f64);
            out.push(v);
            if signed {
                out.push(-v);
            }
        }
    }
    out
}

const EDGES: [f64; 12] = [
    0.0,
    -0.0,
    f64::INFINITY,
    f64::NEG_INFINITY,
    f64::NAN,
    f64::MIN_POSITIVE,
    5e-324,
    -5e-324,
    1.0,
    -1.0,
    f64::MAX,
    -f64::MAX,
];

/// The largest ulp error of `op` against `reference` over `xs`, in float64 and in float32 (the
/// float32 reference is the float64 one rounded); panics past the bounds, naming the input.
fn max_ulps(
    name: &str,
    op: fn(&Tensor) -> Result<Tensor>,
    reference: fn(f64) -> f64,
    xs: &[f64],
    bound64: u64,
    bound32: u64,
) -> (u64, u64) {
    let mut all: Vec<f64> = xs.to_vec();
    all.extend(EDGES);
    let y64 = op(&Tensor::from_vec(all.clone(), &[all.len()]).unwrap())
        .unwrap()
        .to_f64_vec();
    let x32: Vec<f32> = all.iter().map(|&v| v as f32).collect();
    let y32 = op(&Tensor::from_vec(x32.clone(), &[x32.len()]).unwrap())
        .unwrap()
        .to_f64_vec();
    let (mut worst64, mut worst32) = (0, 0);
    for (i, &x) in all.iter().enumerate() {
        let e = reference(x);
        let u = ulps64(y64[i], e);
        assert!(
            u <= bound64,
            "{name}(f64 {x:e}) = {:e}, std {e:e}: {u} ulp",
            y64[i]
        );
        if e == 0.0 {
            assert_eq!(
                y64[i].is_sign_negative(),
                e.is_sign_negative(),
                "{name}(f64 {x:e})"
            );
        }
        worst64 = worst64.max(u);
        let x = x32[i];
        let e = reference(x as f64) as f32;
        let got = y32[i] as f32;
        // Below the smallest normal float32 the f32 formula has already underflowed where the
        // f64 reference has not: there only the absolute error counts.
        let tiny = e.abs() < f32::MIN_POSITIVE && got.abs() < f32::MIN_POSITIVE;
        let u = if tiny { 0 } else { ulps32(got, e) };
        assert!(
            u <= bound32,
            "{name}(f32 {x:e}) = {got:e}, ref {e:e}: {u} ulp"
        );
        if e == 0.0 {
            assert_eq!(
                got.is_sign_negative(),
                e.is_sign_negative(),
                "{name}(f32 {x:e})"
            );
        }
        worst32 = worst32.max(u);
    }
    println!("{name}: max {worst64} ulp (f64), {worst32} ulp (f32)");
    (worst64, worst32)
}

fn elu_neg(x: f64) -> f64 {
    if x > 0.0 {
        x
    } else {
        x.exp_m1()
    }
}

fn sigmoid_ref(x: f64) -> f64 {
    1.0 / (1.0 + (-x).exp())
}

fn softplus_ref(x: f64) -> f64 {
    x.max(0.0) + (-x.abs()).exp().ln_1p()
}

// Measured maxima (this machine, glibc's libm as std) are in the comments; the bounds leave one
// ulp of headroom.
#[test]
fn exp_within_2_ulp() {
    let mut xs = sweep(-750.0, 715.0, 200_000);
    xs.extend(sweep(-1.0, 1.0, 100_000));
    xs.extend(binades(-80, 3, 64, true));
    xs.extend([
        709.78,
        709.782_712_893_384,
        -745.13,
        -708.4,
        -708.3964,
        88.72,
        -87.33,
        -103.9,
    ]);
    max_ulps("exp", exp, f64::exp, &xs, 2, 2); // measured: 1 (f64), 1 (f32)
}

#[test]
fn expm1_within_3_ulp() {
    // elu below 0 is expm1
    let mut xs = sweep(-60.0, 0.0, 200_000);
    xs.extend(binades(-80, 6, 64, false).iter().map(|v| -v));
    max_ulps("expm1", elu, elu_neg, &xs, 3, 3);
}

#[test]
fn log_within_2_ulp() {
    let mut xs = binades(-1074, 1024, 96, false);
    xs.extend(sweep(0.0, 4.0, 200_000));
    xs.extend([
        -1.0,
        -0.5,
        std::f64::consts::FRAC_1_SQRT_2,
        std::f64::consts::SQRT_2,
    ]);
    max_ulps("log", log, f64::ln, &xs, 2, 2);
}

#[test]
fn log1p_within_2_ulp() {
    let mut xs = sweep(-1.0, 4.0, 200_000);
    xs.extend(binades(-80, 1000, 32, false));
    xs.extend(binades(-80, 0, 64, false).iter().map(|v| -v));
    xs.extend([-1.5, -1.0, 1e300]);
    max_ulps("log1p", log1p, f64::ln_1p, &xs, 2, 2);
}

#[test]
fn tanh_within_3_ulp() {
    let mut xs = sweep(-25.0, 25.0, 300_000);
    xs.extend(binades(-80, 10, 64, true));
    max_ulps("tanh", tanh, f64::tanh, &xs, 3, 3);
}

#[test]
fn sigmoid_within_4_ulp_of_the_std_formula() {
    let mut xs = sweep(-760.0, 760.0, 200_000);
    xs.extend(sweep(-40.0, 40.0, 200_000));
    xs.extend(binades(-60, 6, 32, true));
    max_ulps("sigmoid", sigmoid, sigmoid_ref, &xs, 4, 3);
}

#[test]
fn softplus_within_3_ulp() {
    let mut xs = sweep(-80.0, 80.0, 200_000);
    xs.extend(binades(-60, 12, 32, true));
    max_ulps("softplus", softplus, softplus_ref, &xs, 3, 3);
}

/// Points near multiples of pi/2, where the reduction cancels most.
fn near_multiples_of_half_pi(max_k: u64) -> Vec<f64> {
    let mut out = vec![];
    for k in (1..max_k).step_by(7) {
        let c = k as f64 * std::f64::consts::FRAC_PI_2;
        let mut v = c;
        for _ in 0..3 {
            v = f64::from_bits(v.to_bits() - 1);
        }
        for _ in 0..7 {
            out.push(v);
            out.push(-v);
            v = f64::from_bits(v.to_bits() + 1);
        }
    }
    out
}

#[test]
fn sin_and_cos_within_2_ulp() {
    let mut xs = sweep(-10.0, 10.0, 200_000);
    xs.extend(sweep(-1e5, 1e5, 200_000));
    xs.extend(near_multiples_of_half_pi(63_000));
    xs.extend(binades(-80, 20, 32, true)); // past 1e5 std is used
    xs.extend([1e22, 1e300, -3e9]);
    max_ulps("sin", sin, f64::sin, &xs, 2, 2);
    max_ulps("cos", cos, f64::cos, &xs, 2, 2);
}

#[test]
fn edge_values() {
    let inf = f64::INFINITY;
    let v = |x: &[f64]| Tensor::from_vec(x.to_vec(), &[x.len()]).unwrap();
    let bits = |t: Tensor| -> Vec<u64> { t.to_f64_vec().iter().map(|x| x.to_bits()).collect() };
    let same = |a: Tensor, b: &[f64]| assert_eq!(bits(a), bits(v(b)));
    same(
        exp(&v(&[-0.0, inf, -inf, 1000.0, -1000.0])).unwrap(),
        &[1.0, inf, 0.0, inf, 0.0],
    );
    same(
        tanh(&v(&[-0.0, 0.0, inf, -inf, 1e-300])).unwrap(),
        &[-0.0, 0.0, 1.0, -1.0, 1e-300],
    );
    same(sin(&v(&[-0.0, 0.0])).unwrap(), &[-0.0, 0.0]);
    same(log1p(&v(&[-0.0, -1.0, inf])).unwrap(), &[-0.0, -inf, inf]);
    same(
        log(&v(&[0.0, -0.0, inf, 1.0])).unwrap(),
        &[-inf, -inf, inf, 0.0],
    );
    same(elu(&v(&[-0.0, -inf])).unwrap(), &[-0.0, -1.0]);
    for op in [exp, log, log1p, tanh, sigmoid, sin, cos, softplus, elu] {
        assert!(op(&v(&[f64::NAN])).unwrap().to_f64_vec()[0].is_nan());
        assert!(op(&v(&[f64::NAN; 100]))
            .unwrap()
            .to_f64_vec()
            .iter()
            .all(|x| x.is_nan()));
    }
    assert!(log(&v(&[-1.0])).unwrap().to_f64_vec()[0].is_nan());
    assert!(sin(&v(&[inf])).unwrap().to_f64_vec()[0].is_nan());
}

// ------------------------------------------------------------------------------------------
// The same numbers at every size, layout and thread split

type Unary = fn(&Tensor) -> Result<Tensor>;

fn unary_kernels() -> Vec<(&'static str, Unary)> {
    vec![
        ("exp", exp),
        ("log", log),
        ("log1p", log1p),
        ("sin", sin),
        ("cos", cos),
        ("tanh", tanh),
        ("sigmoid", sigmoid),
        ("elu", elu),
        ("relu", relu),
        ("softplus", softplus),
        ("square", square),
        ("negative", negative),
    ]
}

#[test]
fn a_value_does_not_depend_on_the_tensor_around_it() {
    // Large enough for the parallel split and the widest vectors; 3 x odd so that rows do not
    // line up with vector widths.
    let n = 300_009;
    let x: Vec<f64> = (0..n)
        .map(|i| ((i * 7919) % 20011) as f64 / 1000.0 - 10.0)
        .collect();
    let x32: Vec<f32> = x.iter().map(|&v| v as f32).collect();
    let big = Tensor::from_vec(x.clone(), &[3, n / 3]).unwrap();
    let big32 = Tensor::from_vec(x32.clone(), &[3, n / 3]).unwrap();
    let transposed = transpose(&big, None).unwrap();
    for (name, op) in unary_kernels() {
        let all = op(&big).unwrap().to_f64_vec();
        let all32 = op(&big32).unwrap().to_f64_vec();
        let t = transpose(&op(&transposed).unwrap(), None)
            .unwrap()
            .to_f64_vec();
        for i in (0..n).step_by(997).chain(n - 40..n) {
            let one = op(&Tensor::scalar(x[i])).unwrap().item().unwrap();
            let small = op(
                &Tensor::from_vec(x[i..(i + 5).min(n)].to_vec(), &[(i + 5).min(n) - i]).unwrap(),
            )
            .unwrap()
            .to_f64_vec()[0];
            let one32 = op(&Tensor::scalar(x32[i])).unwrap().item().unwrap();
            for (what, v) in [("scalar", one), ("5-vector", small), ("transposed", t[i])] {
                assert_eq!(v.to_bits(), all[i].to_bits(), "{name}({}) {what}", x[i]);
            }
            assert_eq!(
                one32.to_bits(),
                all32[i].to_bits(),
                "{name}({}) f32",
                x32[i]
            );
        }
    }
}

#[test]
fn binary_fast_paths_match_elementwise_scalars() {
    let n = 200_003;
    let a = pseudo_random(&[n], 3);
    let b = subtract(&pseudo_random(&[n], 4), &Tensor::scalar(1.0)).unwrap();
    let (va, vb) = (a.to_f64_vec(), b.to_f64_vec());
    let k = Tensor::scalar(0.37f64);
    type Binary = fn(&Tensor, &Tensor) -> Result<Tensor>;
    for (name, op) in [
        ("add", add as Binary),
        ("multiply", multiply),
        ("divide", divide),
        ("maximum", maximum),
        ("pow", pow),
    ] {
        let same = op(&a, &b).unwrap().to_f64_vec();
        let left = op(&k, &b).unwrap().to_f64_vec();
        let right = op(&a, &k).unwrap().to_f64_vec();
        for i in (0..n).step_by(1009).chain(n - 20..n) {
            let s = |x: f64, y: f64| {
                op(&Tensor::scalar(x), &Tensor::scalar(y))
                    .unwrap()
                    .item()
                    .unwrap()
            };
            assert_eq!(same[i].to_bits(), s(va[i], vb[i]).to_bits(), "{name} [{i}]");
            assert_eq!(
                left[i].to_bits(),
                s(0.37, vb[i]).to_bits(),
                "{name} k,b [{i}]"
            );
            assert_eq!(
                right[i].to_bits(),
                s(va[i], 0.37).to_bits(),
                "{name} a,k [{i}]"
            );
        }
    }
    let cond = greater(&b, &Tensor::scalar(0.0)).unwrap();
    let w = where_(&cond, &a, &b).unwrap().to_f64_vec();
    let g = greater(&b, &Tensor::scalar(0.0)).unwrap().to_f64_vec();
    for i in 0..n {
        assert_eq!(w[i], if g[i] == 1.0 { va[i] } else { vb[i] }, "where [{i}]");
        assert_eq!(g[i] == 1.0, vb[i] > 0.0);
    }
}

// ------------------------------------------------------------------------------------------
// Fused activation gradients

type Grad = fn(&Tensor, &Tensor) -> Result<Tensor>;

fn grad_ops() -> [(&'static str, Grad, Unary); 4] {
    [
        ("tanh_grad", tanh_grad, tanh),
        ("sigmoid_grad", sigmoid_grad, sigmoid),
        ("relu_grad", relu_grad, relu),
        ("elu_grad", elu_grad, elu),
    ]
}

/// The unfused formulas the fused ops replace, bit for bit.
fn unfused(name: &str, y: &Tensor, dy: &Tensor) -> Tensor {
    let one = Tensor::scalar(1.0f64);
    let zero = Tensor::scalar(0.0f64);
    let positive = greater(y, &zero).unwrap();
    match name {
        "tanh_grad" => multiply(dy, &subtract(&one, &square(y).unwrap()).unwrap()),
        "sigmoid_grad" => multiply(dy, &multiply(y, &subtract(&one, y).unwrap()).unwrap()),
        "relu_grad" => where_(&positive, dy, &zero),
        _ => where_(
            &positive,
            dy,
            &multiply(dy, &add(y, &one).unwrap()).unwrap(),
        ),
    }
    .unwrap()
}

#[test]
fn fused_gradients_equal_the_unfused_formulas() {
    let x = subtract(
        &multiply(&pseudo_random(&[4, 50], 5), &Tensor::scalar(4.0)).unwrap(),
        &Tensor::scalar(4.0),
    )
    .unwrap();
    let dy = pseudo_random(&[4, 50], 6);
    for (name, grad, act) in grad_ops() {
        let y = act(&x).unwrap();
        assert_eq!(
            grad(&y, &dy).unwrap().to_f64_vec(),
            unfused(name, &y, &dy).to_f64_vec(),
            "{name}"
        );
        // batched cotangents: y broadcasts from the right
        let batched = pseudo_random(&[3, 4, 50], 7);
        let g = grad(&y, &batched).unwrap();
        assert_eq!(g.shape(), &[3, 4, 50]);
        assert_eq!(
            g.to_f64_vec(),
            unfused(name, &y, &batched).to_f64_vec(),
            "{name} batched"
        );
    }
}

#[test]
fn fused_gradients_gradcheck_first_and_second_order() {
    let tol = Tolerance::default();
    for (name, grad, act) in grad_ops() {
        // y away from the kinks at 0 (both signs, above elu's -1); dy of its shape and batched
        let x = Tensor::from_vec(vec![-1.3, -0.4, 0.3, 0.9, 1.7, -2.2], &[2, 3]).unwrap();
        let y = Tensor::from_vec(vec![-0.73, -0.3, 0.3, 0.9, 0.45, -0.2], &[2, 3]).unwrap();
        let dy = pseudo_random(&[2, 3], 8);
        let dyb = pseudo_random(&[4, 2, 3], 9);
        for d in [&dy, &dyb] {
            gradcheck(
                &|xs| grad(&xs[0], &xs[1]),
                &[y.clone(), d.clone()],
                true,
                tol,
            )
            .unwrap_or_else(|e| panic!("{name}: {e}"));
        }
        // and through the activation: third order of act by the gradient op's VJP
        gradcheck(
            &|xs| {
                let y = act(&xs[0])?;
                multiply(&grad(&y, &xs[1])?, &xs[0])
            },
            &[x.clone(), dy.clone()],
            true,
            tol,
        )
        .unwrap_or_else(|e| panic!("{name} through {name}: {e}"));
    }
}

#[test]
fn fused_gradients_vectorise() {
    let x = subtract(&pseudo_random(&[3, 4], 10), &Tensor::scalar(1.0)).unwrap();
    let dy = pseudo_random(&[3, 4], 11);
    for (name, grad, act) in grad_ops() {
        let f = move |xs: &[Tensor]| multiply(&grad(&act(&xs[0])?, &xs[1])?, &xs[0]);
        check_vectorized(&f, &[x.clone(), dy.clone()], 1e-12)
            .unwrap_or_else(|e| panic!("{name}: {e}"));
    }
}

#[test]
fn fused_gradient_errors_name_the_op() {
    let y = Tensor::from_vec(vec![1.0f64, 2.0], &[2]).unwrap();
    let bad = Tensor::from_vec(vec![1.0f64, 2.0, 3.0], &[3]).unwrap();
    let f32s = Tensor::from_vec(vec![1.0f32, 2.0], &[2]).unwrap();
    for (name, grad, _) in grad_ops() {
        let e = grad(&y, &bad).unwrap_err();
        assert_eq!(e.op, name);
        assert!(
            e.message.contains("[2]") && e.message.contains("[3]"),
            "{e}"
        );
        let e = grad(&y, &f32s).unwrap_err();
        assert_eq!(e.op, name);
        assert!(
            e.message.contains("float32") && e.message.contains("float64"),
            "{e}"
        );
    }
}
