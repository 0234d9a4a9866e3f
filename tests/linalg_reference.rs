//! The factorisations and matrix functions against TensorFlow 2.21's own numbers
//! (tests/reference/linalg.json, written by tests/reference/gen_linalg.py): forward outputs,
//! first-order gradients and second-order gradients (nested tapes) of each case's loss.
//! Eigenvectors and singular vectors, whose signs TensorFlow leaves to its solver, are compared
//! up to the sign of each column, and enter the losses squared.
use rustape::ops;
use rustape::{DType, Result, Tensor};
use serde_json::Value;

mod support;

/// The gradients of scalar `loss` at `xs` (zeros where unconnected).
fn gradient_of(loss: &dyn Fn(&[Tensor]) -> Result<Tensor>, xs: &[Tensor]) -> Result<Vec<Tensor>> {
    let grads = support::gradients(loss, xs)?;
    Ok(grads
        .into_iter()
        .zip(xs)
        .map(|(g, x)| g.unwrap_or_else(|| x.zeros_like()))
        .collect())
}

fn load() -> Value {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/reference/linalg.json");
    let text = std::fs::read_to_string(path).expect("tests/reference/linalg.json");
    serde_json::from_str(&text).expect("valid JSON")
}

fn array(v: &Value) -> (Vec<usize>, Vec<f64>) {
    let shape = v["shape"]
        .as_array()
        .unwrap()
        .iter()
        .map(|d| d.as_u64().unwrap() as usize)
        .collect();
    let values = v["values"]
        .as_array()
        .unwrap()
        .iter()
        .map(|x| match x.as_str() {
            // JSON has no inf or NaN: the generator writes them as strings.
            Some(s) => s.parse().unwrap(),
            None => x.as_f64().unwrap(),
        })
        .collect();
    (shape, values)
}

fn tensor(v: &Value, dtype: DType) -> Tensor {
    let (shape, values) = array(v);
    let t = Tensor::from_vec(values, &shape).unwrap();
    ops::cast(&t, dtype).unwrap()
}

fn flag(attrs: &Value, name: &str, default: bool) -> bool {
    attrs[name].as_bool().unwrap_or(default)
}

fn number(attrs: &Value, name: &str, default: f64) -> f64 {
    attrs[name].as_f64().unwrap_or(default)
}

/// Runs `op` as the generator called it.
fn call(op: &str, attrs: &Value, xs: &[Tensor]) -> Result<Vec<Tensor>> {
    use rustape::ops::*;
    Ok(match op {
        "cholesky" => vec![cholesky(&xs[0])?],
        "triangular_solve" => vec![triangular_solve(
            &xs[0],
            &xs[1],
            flag(attrs, "lower", true),
            flag(attrs, "adjoint", false),
        )?],
        "cholesky_solve" => vec![cholesky_solve(&xs[0], &xs[1])?],
        "logdet" => vec![logdet(&xs[0])?],
        "det" => vec![det(&xs[0])?],
        "slogdet" => {
            let (s, l) = slogdet(&xs[0])?;
            vec![s, l]
        }
        "qr" => {
            let (q, r) = qr(&xs[0], flag(attrs, "full_matrices", false))?;
            vec![q, r]
        }
        "eigh" => {
            let (e, v) = eigh(&xs[0])?;
            vec![e, v]
        }
        "eigvalsh" => vec![eigvalsh(&xs[0])?],
        "svd" if !flag(attrs, "compute_uv", true) => vec![svd_values(&xs[0])?],
        "svd" => {
            let (s, u, v) = svd(&xs[0], flag(attrs, "full_matrices", false))?;
            vec![s, u, v]
        }
        "lstsq" => vec![lstsq(
            &xs[0],
            &xs[1],
            number(attrs, "l2_regularizer", 0.0),
            flag(attrs, "fast", true),
        )?],
        "pinv" => vec![pinv(&xs[0], None)?],
        "expm" => vec![expm(&xs[0])?],
        "band_part" => vec![band_part(
            &xs[0],
            attrs["num_lower"].as_i64().unwrap(),
            attrs["num_upper"].as_i64().unwrap(),
        )?],
        "diag" => vec![matrix_diag(
            &xs[0],
            attrs["k"].as_i64().unwrap_or(0),
            attrs["num_rows"].as_u64().map(|v| v as usize),
            attrs["num_cols"].as_u64().map(|v| v as usize),
            number(attrs, "padding_value", 0.0),
        )?],
        "diag_part" => vec![matrix_diag_part(&xs[0], attrs["k"].as_i64().unwrap_or(0))?],
        "set_diag" => vec![matrix_set_diag(
            &xs[0],
            &xs[1],
            attrs["k"].as_i64().unwrap_or(0),
        )?],
        other => panic!("unknown op {other}"),
    })
}

fn close(got: f64, want: f64, tol: f64) -> bool {
    if want.is_infinite() || want.is_nan() {
        return got == want || (got.is_nan() && want.is_nan());
    }
    (got - want).abs() <= tol * (1.0 + want.abs())
}

/// How many values were compared (so a test that compares nothing cannot pass).
static COMPARED: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);

fn compare(what: &str, got: &[f64], want: &[f64], tol: f64) {
    assert_eq!(got.len(), want.len(), "{what}: lengths");
    COMPARED.fetch_add(got.len(), std::sync::atomic::Ordering::Relaxed);
    for (i, (g, w)) in got.iter().zip(want).enumerate() {
        assert!(
            close(*g, *w, tol),
            "{what}, element {i}: got {g}, TensorFlow {w}"
        );
    }
}

/// Columns of the last two axes compared up to sign.
fn compare_up_to_column_sign(what: &str, got: &Tensor, want: &[f64], tol: f64) {
    let shape = got.shape();
    let (r, c) = (shape[shape.len() - 2], shape[shape.len() - 1]);
    let g = got.to_f64_vec();
    for b in 0..g.len() / (r * c).max(1) {
        for j in 0..c {
            let column = |v: &[f64], sign: f64| -> Vec<f64> {
                (0..r).map(|i| sign * v[b * r * c + i * c + j]).collect()
            };
            let w = column(want, 1.0);
            let same = column(&g, 1.0)
                .iter()
                .zip(&w)
                .all(|(x, y)| close(*x, *y, tol));
            let flipped = column(&g, -1.0)
                .iter()
                .zip(&w)
                .all(|(x, y)| close(*x, *y, tol));
            COMPARED.fetch_add(r, std::sync::atomic::Ordering::Relaxed);
            assert!(
                same || flipped,
                "{what}: matrix {b}, column {j}: got {:?}, TensorFlow {w:?}",
                column(&g, 1.0)
            );
        }
    }
}

fn run_case(name: &str, case: &Value) {
    let op = case["op"].as_str().unwrap();
    let attrs = &case["attrs"];
    let dtype = DType::from_name(case["dtype"].as_str().unwrap()).unwrap();
    let tol = if dtype == DType::F32 { 2e-3 } else { 1e-8 };
    let xs: Vec<Tensor> = case["inputs"]
        .as_array()
        .unwrap()
        .iter()
        .map(|v| tensor(v, dtype))
        .collect();
    let squared: Vec<usize> = case["squared"]
        .as_array()
        .unwrap()
        .iter()
        .map(|k| k.as_u64().unwrap() as usize)
        .collect();
    let outs = call(op, attrs, &xs).unwrap_or_else(|e| panic!("{name}: {e}"));
    for (k, want) in case["outputs"].as_array().unwrap().iter().enumerate() {
        let (shape, want) = array(want);
        assert_eq!(
            outs[k].shape(),
            shape.as_slice(),
            "{name}: output {k} shape"
        );
        assert_eq!(outs[k].dtype(), dtype, "{name}: output {k} dtype");
        let what = format!("{name}: output {k}");
        if squared.contains(&k) {
            compare_up_to_column_sign(&what, &outs[k], &want, tol);
        } else {
            compare(&what, &outs[k].to_f64_vec(), &want, tol);
        }
    }
    let Some(grads) = case.get("grads") else {
        return;
    };
    let weights: Vec<(usize, Tensor)> = case["weights"]
        .as_object()
        .unwrap()
        .iter()
        .map(|(k, w)| (k.parse().unwrap(), tensor(w, dtype)))
        .collect();
    let wrt: Vec<usize> = case["wrt"]
        .as_array()
        .unwrap()
        .iter()
        .map(|i| i.as_u64().unwrap() as usize)
        .collect();
    // The loss as a function of the inputs in `wrt` (the others held at their values).
    let loss = |sources: &[Tensor]| -> Result<Tensor> {
        let mut inputs = xs.clone();
        for (s, &i) in sources.iter().zip(&wrt) {
            inputs[i] = s.clone();
        }
        let ys = call(op, attrs, &inputs)?;
        let mut total = Tensor::zeros(&[], dtype);
        for (k, w) in &weights {
            let y = if squared.contains(k) {
                ops::square(&ys[*k])?
            } else {
                ys[*k].clone()
            };
            total = ops::add(
                &total,
                &ops::reduce_sum(&ops::multiply(&y, w)?, None, false)?,
            )?;
        }
        Ok(total)
    };
    let sources: Vec<Tensor> = wrt.iter().map(|&i| xs[i].clone()).collect();
    let got = gradient_of(&loss, &sources).unwrap_or_else(|e| panic!("{name}: {e}"));
    for (i, (g, want)) in got.iter().zip(grads.as_array().unwrap()).enumerate() {
        let (_, want) = array(want);
        compare(
            &format!("{name}: gradient {i}"),
            &g.to_f64_vec(),
            &want,
            tol,
        );
    }
    let Some(grads2) = case.get("grads2") else {
        return;
    };
    let directions: Vec<Tensor> = case["directions"]
        .as_array()
        .unwrap()
        .iter()
        .map(|v| tensor(v, dtype))
        .collect();
    let projected = |sources: &[Tensor]| -> Result<Tensor> {
        let gs = gradient_of(&loss, sources)?;
        let mut total = Tensor::zeros(&[], dtype);
        for (g, d) in gs.iter().zip(&directions) {
            total = ops::add(
                &total,
                &ops::reduce_sum(&ops::multiply(g, d)?, None, false)?,
            )?;
        }
        Ok(total)
    };
    let got = gradient_of(&projected, &sources).unwrap_or_else(|e| panic!("{name}: {e}"));
    for (i, (g, want)) in got.iter().zip(grads2.as_array().unwrap()).enumerate() {
        let (_, want) = array(want);
        compare(
            &format!("{name}: second-order gradient {i}"),
            &g.to_f64_vec(),
            &want,
            1e3 * tol,
        );
    }
}

#[test]
fn every_case_matches_tensorflow() {
    let data = load();
    let cases = data["cases"].as_object().unwrap();
    assert!(cases.len() >= 50, "{} cases", cases.len());
    let mut failures = Vec::new();
    for (name, case) in cases {
        if let Err(e) = std::panic::catch_unwind(|| run_case(name, case)) {
            let message = e
                .downcast_ref::<String>()
                .cloned()
                .or_else(|| e.downcast_ref::<&str>().map(|s| s.to_string()))
                .unwrap_or_default();
            failures.push(message);
        }
    }
    assert!(
        failures.is_empty(),
        "{} of {} cases differ:\n{}",
        failures.len(),
        cases.len(),
        failures.join("\n")
    );
    let compared = COMPARED.load(std::sync::atomic::Ordering::Relaxed);
    eprintln!(
        "{} cases, {compared} values compared with TensorFlow's",
        cases.len()
    );
    assert!(compared > 2000, "only {compared} values compared");
}
