//! The ops of tests/reference/gen_ops.py against TensorFlow 2.21's stored values and
//! gradients (tests/reference/ops.json): forward values, dtypes and shapes, and the gradients
//! of `sum_k sum(output_k * w_k)`, including the conventions at ties, poles and zeros.
use rustape::ops::*;
use rustape::{DType, Result, Source, Tape, Tensor, Unconnected};
use serde_json::Value;

fn number(v: &Value) -> f64 {
    match v {
        Value::Number(n) => n.as_f64().expect("a number"),
        Value::String(s) => s.parse().expect("nan, inf or -inf"),
        Value::Bool(b) => f64::from(u8::from(*b)),
        other => panic!("not a number: {other}"),
    }
}

fn dtype(name: &str) -> DType {
    DType::from_name(name).unwrap_or_else(|| panic!("dtype {name}"))
}

fn tensor(v: &Value) -> Tensor {
    let shape: Vec<usize> = v["shape"]
        .as_array()
        .unwrap()
        .iter()
        .map(|d| d.as_u64().unwrap() as usize)
        .collect();
    let values: Vec<f64> = v["values"].as_array().unwrap().iter().map(number).collect();
    match dtype(v["dtype"].as_str().unwrap()) {
        DType::F64 => Tensor::from_vec(values, &shape),
        DType::F32 => Tensor::from_vec(values.iter().map(|&x| x as f32).collect(), &shape),
        DType::I32 => Tensor::from_vec(values.iter().map(|&x| x as i32).collect(), &shape),
        DType::I64 => Tensor::from_vec(values.iter().map(|&x| x as i64).collect(), &shape),
        DType::Bool => Tensor::from_vec(values.iter().map(|&x| x != 0.0).collect(), &shape),
    }
    .unwrap()
}

fn ints(v: &Value) -> Vec<isize> {
    v.as_array()
        .unwrap()
        .iter()
        .map(|d| d.as_i64().unwrap() as isize)
        .collect()
}

fn flag(p: &Value, key: &str) -> bool {
    p[key].as_bool().unwrap_or(false)
}

fn axes(p: &Value) -> Option<Vec<isize>> {
    (!p["axis"].is_null()).then(|| ints(&p["axis"]))
}

/// The rustape call for a case.
fn run(op: &str, p: &Value, x: &[Tensor]) -> Result<Vec<Tensor>> {
    let axis = || p["axis"].as_i64().unwrap_or(0) as isize;
    let count = |key: &str| p[key].as_u64().unwrap() as usize;
    let one = |t: Result<Tensor>| t.map(|t| vec![t]);
    match op {
        "asin" => one(asin(&x[0])),
        "acos" => one(acos(&x[0])),
        "atan" => one(atan(&x[0])),
        "sinh" => one(sinh(&x[0])),
        "cosh" => one(cosh(&x[0])),
        "asinh" => one(asinh(&x[0])),
        "acosh" => one(acosh(&x[0])),
        "atanh" => one(atanh(&x[0])),
        "expm1" => one(expm1(&x[0])),
        "erf" => one(erf(&x[0])),
        "erfc" => one(erfc(&x[0])),
        "lgamma" => one(lgamma(&x[0])),
        "digamma" => one(digamma(&x[0])),
        "log_sigmoid" => one(log_sigmoid(&x[0])),
        "softsign" => one(softsign(&x[0])),
        "selu" => one(selu(&x[0])),
        "gelu" => one(gelu(&x[0], false)),
        "gelu_tanh" => one(gelu(&x[0], true)),
        "is_nan" => one(is_nan(&x[0])),
        "is_inf" => one(is_inf(&x[0])),
        "is_finite" => one(is_finite(&x[0])),
        "atan2" => one(atan2(&x[0], &x[1])),
        "xlogy" => one(xlogy(&x[0], &x[1])),
        "xdivy" => one(xdivy(&x[0], &x[1])),
        "divide_no_nan" => one(divide_no_nan(&x[0], &x[1])),
        "scalar_mul" => one(scalar_mul(&x[0], &x[1])),
        "reduce_euclidean_norm" => one(reduce_euclidean_norm(
            &x[0],
            axes(p).as_deref(),
            flag(p, "keepdims"),
        )),
        "reduce_all" => one(reduce_all(&x[0], axes(p).as_deref(), flag(p, "keepdims"))),
        "reduce_any" => one(reduce_any(&x[0], axes(p).as_deref(), flag(p, "keepdims"))),
        "softmax_cross_entropy_with_logits" => {
            one(softmax_cross_entropy_with_logits(&x[0], &x[1], axis()))
        }
        "sparse_softmax_cross_entropy_with_logits" => {
            one(sparse_softmax_cross_entropy_with_logits(&x[0], &x[1]))
        }
        "sigmoid_cross_entropy_with_logits" => one(sigmoid_cross_entropy_with_logits(&x[0], &x[1])),
        "cumsum" => one(cumsum(
            &x[0],
            axis(),
            flag(p, "exclusive"),
            flag(p, "reverse"),
        )),
        "cumprod" => one(cumprod(
            &x[0],
            axis(),
            flag(p, "exclusive"),
            flag(p, "reverse"),
        )),
        "top_k" => top_k(&x[0], count("k")).map(|(v, i)| vec![v, i]),
        "sort" => one(sort(&x[0], axis(), flag(p, "descending"))),
        "argsort" => one(argsort(&x[0], axis(), flag(p, "descending"))),
        "unsorted_segment_max" => one(unsorted_segment_max(&x[0], &x[1], count("num_segments"))),
        "unsorted_segment_sum" => one(unsorted_segment_sum(&x[0], &x[1], count("num_segments"))),
        "unsorted_segment_mean" => one(unsorted_segment_mean(&x[0], &x[1], count("num_segments"))),
        "segment_sum" => one(segment_sum(&x[0], &x[1])),
        "gather" => one(gather(&x[0], &x[1], axis(), count("batch_dims"))),
        "gather_nd" => one(gather_nd(&x[0], &x[1], count("batch_dims"))),
        "scatter_nd" => {
            let shape: Vec<usize> = ints(&p["shape"]).iter().map(|&d| d as usize).collect();
            one(scatter_nd(&x[0], &x[1], &shape))
        }
        "tensor_scatter_nd_add" => one(tensor_scatter_nd_add(&x[0], &x[1], &x[2])),
        "tensor_scatter_nd_update" => one(tensor_scatter_nd_update(&x[0], &x[1], &x[2])),
        "split" if p["num"].is_null() => split(&x[0], &ints(&p["sizes"]), axis()),
        "split" => split_evenly(&x[0], count("num"), axis()),
        "reverse" => one(reverse(&x[0], &ints(&p["axis"]))),
        "roll" => one(roll(&x[0], &ints(&p["shift"]), &ints(&p["axis"]))),
        "repeat" => {
            let repeats: Vec<usize> = ints(&p["repeats"]).iter().map(|&d| d as usize).collect();
            let ax = p["axis"].as_i64().map(|a| a as isize);
            one(repeat(&x[0], &repeats, ax))
        }
        "meshgrid" => meshgrid(x, p["indexing"] == "xy"),
        "boolean_mask" => one(boolean_mask(&x[0], &x[1], axis())),
        "where" => one(where_indices(&x[0])),
        "tensordot" if p["n"].is_null() => one(tensordot(
            &x[0],
            &x[1],
            &ints(&p["axes_a"]),
            &ints(&p["axes_b"]),
        )),
        "tensordot" => one(tensordot_n(&x[0], &x[1], count("n"))),
        "diag_part" => one(diag_part(&x[0])),
        "trace" => one(trace(&x[0])),
        other => panic!("no rustape call for {other}"),
    }
}

/// `1 + 0.1 * arange`, shaped and typed like `t`.
fn weights(t: &Tensor) -> Tensor {
    let w: Vec<f64> = (0..t.size()).map(|i| 1.0 + 0.1 * i as f64).collect();
    cast(&Tensor::from_vec(w, t.shape()).unwrap(), t.dtype()).unwrap()
}

/// The tolerance (relative, scaled by `max(1, |value|)`) for `op` in `dtype`.
fn tolerance(op: &str, dtype: DType) -> f64 {
    match (op, dtype) {
        (_, DType::F32) => 3e-6,
        // TensorFlow's float64 GELU is off by up to ~3e-8 (its erf); rustape's is exact to the
        // double (x·Φ(x) at -1 is -0.158655253931457, TensorFlow gives -0.1586552580726).
        ("gelu" | "gelu_tanh", DType::F64) => 1e-7,
        _ => 1e-9,
    }
}

#[track_caller]
fn assert_matches(what: &str, op: &str, got: &Tensor, want: &Value) {
    let want_t = tensor(want);
    assert_eq!(got.dtype(), want_t.dtype(), "{what}: dtype");
    assert_eq!(got.shape(), want_t.shape(), "{what}: shape");
    let tol = tolerance(op, got.dtype());
    for (i, (a, e)) in got.to_f64_vec().iter().zip(want_t.to_f64_vec()).enumerate() {
        let ok = if e.is_nan() {
            a.is_nan()
        } else if e.is_infinite() {
            *a == e
        } else {
            // Relative to the value, with TensorFlow's own float32 rounding of huge values.
            (a - e).abs() <= tol * e.abs().max(1.0)
        };
        assert!(
            ok,
            "{what}: element {i}: rustape {a}, TensorFlow {e}\n  rustape {:?}",
            got.to_f64_vec()
        );
    }
}

#[test]
fn ops_match_tensorflow() {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/reference/ops.json");
    let text = std::fs::read_to_string(path).expect("tests/reference/ops.json");
    let data: Value = serde_json::from_str(&text).unwrap();
    let cases = data["cases"].as_array().unwrap();
    assert!(cases.len() >= 100, "{} cases", cases.len());
    for (n, case) in cases.iter().enumerate() {
        let op = case["op"].as_str().unwrap();
        let what = format!("case {n} ({op} {})", case["params"]);
        let inputs: Vec<Tensor> = case["inputs"]
            .as_array()
            .unwrap()
            .iter()
            .map(tensor)
            .collect();
        let tape = Tape::new(false, true);
        let outputs = {
            let _recording = tape.enter().unwrap();
            inputs
                .iter()
                .filter(|t| t.is_differentiable())
                .for_each(|t| tape.watch(t));
            run(op, &case["params"], &inputs).unwrap_or_else(|e| panic!("{what}: {e}"))
        };
        let want = case["outputs"].as_array().unwrap();
        assert_eq!(outputs.len(), want.len(), "{what}: outputs");
        for (k, (o, w)) in outputs.iter().zip(want).enumerate() {
            assert_matches(&format!("{what} output {k}"), op, o, w);
        }
        let Some(grads) = case["grads"].as_array() else {
            continue;
        };
        let loss = {
            let _recording = tape.enter().unwrap();
            let mut total: Option<Tensor> = None;
            for o in outputs.iter().filter(|o| o.is_differentiable()) {
                let term = reduce_sum(&multiply(o, &weights(o)).unwrap(), None, false).unwrap();
                total = Some(match total {
                    Some(t) => add(&t, &term).unwrap(),
                    None => term,
                });
            }
            total
        };
        let floats: Vec<&Tensor> = inputs.iter().filter(|t| t.is_differentiable()).collect();
        let sources: Vec<Source> = floats.iter().map(|t| Source::from(*t)).collect();
        let got = match loss {
            Some(loss) => tape
                .gradient(&[loss], &sources, None, Unconnected::None)
                .unwrap(),
            None => vec![None; floats.len()],
        };
        for (k, (g, w)) in got.iter().zip(grads).enumerate() {
            let what = format!("{what} gradient {k}");
            match (g, w.is_null()) {
                (Some(g), false) => assert_matches(&what, op, g, w),
                (None, true) => {}
                // TensorFlow's None is zeros here when the path exists but carries nothing.
                (Some(g), true) => assert!(
                    g.to_f64_vec().iter().all(|&v| v == 0.0),
                    "{what}: TensorFlow has None"
                ),
                (None, false) => {
                    let want = tensor(w);
                    assert!(
                        want.to_f64_vec().iter().all(|&v| v == 0.0),
                        "{what}: rustape has None"
                    );
                }
            }
        }
    }
}
