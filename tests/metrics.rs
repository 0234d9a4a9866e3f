//! `rustape::metrics` against Keras 3 in TensorFlow 2.21 (tests/reference/metrics.json, written
//! by tests/reference/gen_metrics.py: every case's inputs, results after each batch, the state's
//! variables and the result after a reset), and the Rust API's errors and edge cases.
use rustape::metrics::{
    self, Auc, AucOptions, Curve, Matcher, Mean, MeanMetric, Sum, SummationMethod,
};
use rustape::{ErrorKind, Tensor};
use serde_json::Value;

mod support;
use support::*;

fn load() -> Value {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/reference/metrics.json");
    let text = std::fs::read_to_string(path).expect("tests/reference/metrics.json");
    serde_json::from_str(&text).expect("valid JSON")
}

fn floats(v: &Value) -> Vec<f64> {
    v.as_array()
        .unwrap()
        .iter()
        .map(|x| x.as_f64().unwrap())
        .collect()
}

/// A tensor from the generator's `{dtype, shape, values}`.
fn tensor(v: &Value) -> Tensor {
    let shape: Vec<usize> = v["shape"]
        .as_array()
        .unwrap()
        .iter()
        .map(|d| d.as_u64().unwrap() as usize)
        .collect();
    let values = floats(&v["values"]);
    match v["dtype"].as_str().unwrap() {
        "float32" => Tensor::from_vec(values.iter().map(|&x| x as f32).collect(), &shape),
        "float64" => Tensor::from_vec(values, &shape),
        "int32" => Tensor::from_vec(values.iter().map(|&x| x as i32).collect(), &shape),
        "int64" => Tensor::from_vec(values.iter().map(|&x| x as i64).collect(), &shape),
        other => panic!("dtype {other}"),
    }
    .unwrap()
}

/// One of the generator's metrics, built from its class name and Keras arguments.
enum Any {
    Mean(Mean),
    Sum(Sum),
    Wrapped(MeanMetric),
    Auc(Auc),
}

fn build(class: &str, kwargs: &Value) -> Any {
    let num = |key: &str| kwargs.get(key).and_then(Value::as_f64);
    match class {
        "Mean" => Any::Mean(Mean::new()),
        "Sum" => Any::Sum(Sum::new()),
        "Accuracy" => Any::Wrapped(MeanMetric::new(Matcher::Accuracy)),
        "BinaryAccuracy" => Any::Wrapped(MeanMetric::new(Matcher::BinaryAccuracy {
            threshold: num("threshold").unwrap_or(0.5),
        })),
        "CategoricalAccuracy" => Any::Wrapped(MeanMetric::new(Matcher::CategoricalAccuracy)),
        "SparseCategoricalAccuracy" => {
            Any::Wrapped(MeanMetric::new(Matcher::SparseCategoricalAccuracy))
        }
        "TopKCategoricalAccuracy" => {
            Any::Wrapped(MeanMetric::new(Matcher::TopKCategoricalAccuracy {
                k: num("k").unwrap_or(5.0) as usize,
            }))
        }
        "MeanSquaredError" => Any::Wrapped(MeanMetric::new(Matcher::MeanSquaredError)),
        "AUC" => {
            let options = AucOptions {
                num_thresholds: num("num_thresholds").unwrap_or(200.0) as usize,
                curve: Curve::from_name(
                    kwargs.get("curve").and_then(Value::as_str).unwrap_or("ROC"),
                )
                .unwrap(),
                summation_method: SummationMethod::from_name(
                    kwargs
                        .get("summation_method")
                        .and_then(Value::as_str)
                        .unwrap_or("interpolation"),
                )
                .unwrap(),
                thresholds: kwargs.get("thresholds").map(floats),
                multi_label: kwargs
                    .get("multi_label")
                    .and_then(Value::as_bool)
                    .unwrap_or(false),
                num_labels: num("num_labels").map(|n| n as usize),
                label_weights: kwargs.get("label_weights").map(floats),
                from_logits: kwargs
                    .get("from_logits")
                    .and_then(Value::as_bool)
                    .unwrap_or(false),
            };
            Any::Auc(Auc::new(options).unwrap())
        }
        other => panic!("metric {other}"),
    }
}

impl Any {
    fn update(&mut self, args: &[Tensor]) {
        let weight = args.get(if matches!(self, Any::Mean(_) | Any::Sum(_)) {
            1
        } else {
            2
        });
        match self {
            Any::Mean(m) => m.update_state(&args[0], weight),
            Any::Sum(m) => m.update_state(&args[0], weight),
            Any::Wrapped(m) => m.update_state(&args[0], &args[1], weight),
            Any::Auc(m) => m.update_state(&args[0], &args[1], weight),
        }
        .unwrap()
    }
    fn result(&self) -> f32 {
        match self {
            Any::Mean(m) => m.result(),
            Any::Sum(m) => m.result(),
            Any::Wrapped(m) => m.result(),
            Any::Auc(m) => m.result(),
        }
    }
    fn reset(&mut self) {
        match self {
            Any::Mean(m) => m.reset_state(),
            Any::Sum(m) => m.reset_state(),
            Any::Wrapped(m) => m.reset_state(),
            Any::Auc(m) => m.reset_state(),
        }
    }
    fn variable(&self, name: &str) -> Option<Vec<f64>> {
        let t = match (self, name) {
            (Any::Mean(m), "total") => return Some(vec![m.total() as f64]),
            (Any::Mean(m), "count") => return Some(vec![m.count() as f64]),
            (Any::Wrapped(m), "total") => return Some(vec![m.mean().total() as f64]),
            (Any::Wrapped(m), "count") => return Some(vec![m.mean().count() as f64]),
            (Any::Sum(m), "total") => return Some(vec![m.result() as f64]),
            (Any::Auc(m), "true_positives") => m.true_positives(),
            (Any::Auc(m), "false_positives") => m.false_positives(),
            (Any::Auc(m), "true_negatives") => m.true_negatives(),
            (Any::Auc(m), "false_negatives") => m.false_negatives(),
            _ => return None,
        };
        Some(values(&t.unwrap()))
    }
}

#[test]
fn every_case_matches_keras() {
    let reference = load();
    let cases = reference["cases"].as_array().unwrap();
    assert!(cases.len() >= 30);
    let mut compared = 0;
    for case in cases {
        let name = case["name"].as_str().unwrap();
        let mut metric = build(case["metric"].as_str().unwrap(), &case["kwargs"]);
        let want = floats(&case["results"]);
        for (update, want) in case["updates"].as_array().unwrap().iter().zip(&want) {
            let args: Vec<Tensor> = update.as_array().unwrap().iter().map(tensor).collect();
            metric.update(&args);
            assert_close_labelled(&[metric.result() as f64], &[*want], 2e-6, name);
            compared += 1;
        }
        for (variable, value) in case["variables"].as_object().unwrap() {
            let got = metric
                .variable(variable)
                .unwrap_or_else(|| panic!("{name}: no variable {variable}"));
            let want = floats(&value["values"]);
            assert_eq!(got.len(), want.len(), "{name}: {variable}");
            // Counts are sums of float32 weights, in another order than TensorFlow's.
            assert_close_labelled(&got, &want, 1e-5, &format!("{name}: {variable}"));
            compared += 1;
        }
        metric.reset();
        assert_eq!(
            metric.result() as f64,
            case["reset"].as_f64().unwrap(),
            "{name}: reset"
        );
    }
    assert!(compared > 100, "{compared} comparisons");
}

#[test]
fn functions_match_keras() {
    let reference = load();
    for f in reference["functions"].as_array().unwrap() {
        let (y_true, y_pred) = (tensor(&f["y_true"]), tensor(&f["y_pred"]));
        let kwargs = &f["kwargs"];
        let got = match f["function"].as_str().unwrap() {
            "accuracy" => metrics::accuracy(&y_true, &y_pred),
            "binary_accuracy" => {
                metrics::binary_accuracy(&y_true, &y_pred, kwargs["threshold"].as_f64().unwrap())
            }
            "categorical_accuracy" => metrics::categorical_accuracy(&y_true, &y_pred),
            "sparse_categorical_accuracy" => metrics::sparse_categorical_accuracy(&y_true, &y_pred),
            "top_k_categorical_accuracy" => metrics::top_k_categorical_accuracy(
                &y_true,
                &y_pred,
                kwargs["k"].as_u64().unwrap() as usize,
            ),
            other => panic!("function {other}"),
        }
        .unwrap();
        let want = &f["values"];
        let shape: Vec<usize> = want["shape"]
            .as_array()
            .unwrap()
            .iter()
            .map(|d| d.as_u64().unwrap() as usize)
            .collect();
        let name = f["name"].as_str().unwrap();
        assert_eq!(got.shape(), &shape[..], "{name}");
        assert_eq!(got.dtype(), rustape::DType::F32, "{name}");
        assert_eq!(values(&got), floats(&want["values"]), "{name}");
    }
}

#[test]
fn top_k_counts_ties_in_and_non_finite_rows_out() {
    let onehot = t32(&[0.0, 1.0, 0.0, 0.0, 1.0, 0.0, 1.0, 0.0, 0.0], &[3, 3]);
    let scores = t32(&[0.5, 0.5, 0.1, 0.2, 0.2, 0.2, 0.9, f32::NAN, 0.0], &[3, 3]);
    let got = metrics::top_k_categorical_accuracy(&onehot, &scores, 1).unwrap();
    assert_eq!(values(&got), vec![1.0, 1.0, 0.0]);
}

#[test]
fn mean_of_nothing_is_zero_and_weights_broadcast() {
    let mut m = Mean::new();
    assert_eq!(m.result(), 0.0);
    // [2, 2] values, one weight per sample: each sample's mean times its weight.
    let v = t32(&[1.0, 3.0, 10.0, 20.0], &[2, 2]);
    m.update_state(&v, Some(&v32(&[1.0, 0.0]))).unwrap();
    assert_eq!((m.total(), m.count(), m.result()), (2.0, 1.0, 2.0));
    let mut s = Sum::new();
    s.update_state(&v, Some(&v32(&[1.0, 0.5]))).unwrap();
    assert_eq!(s.result(), 4.0 + 15.0);
}

#[test]
fn multi_label_auc_counts_per_label() {
    let mut auc = Auc::new(AucOptions {
        num_thresholds: 3,
        multi_label: true,
        label_weights: Some(vec![1.0, 0.0]),
        ..AucOptions::default()
    })
    .unwrap();
    assert_eq!(auc.result(), 0.0);
    assert_eq!(auc.num_labels(), None);
    auc.update_state(
        &t32(&[0.0, 1.0, 1.0, 0.0], &[2, 2]),
        &t32(&[0.2, 0.3, 0.9, 0.8], &[2, 2]),
        None,
    )
    .unwrap();
    assert_eq!(auc.num_labels(), Some(2));
    assert_eq!(auc.true_positives().unwrap().shape(), &[3, 2]);
    // Label 0 is perfectly ranked; label 1 (weight 0) is inverted.
    assert_eq!(auc.result(), 1.0);
    auc.reset_state();
    assert_eq!(values(&auc.true_positives().unwrap()), vec![0.0; 6]);
}

#[test]
fn bad_arguments_are_errors_naming_the_metric() {
    let kind = |r: rustape::Result<()>| {
        let e = r.unwrap_err();
        assert!(!e.message.is_empty());
        (e.kind, e.op)
    };
    let bad = |o: AucOptions| kind(Auc::new(o).map(|_| ()));
    assert_eq!(
        bad(AucOptions {
            num_thresholds: 1,
            ..AucOptions::default()
        }),
        (ErrorKind::Value, "AUC".into())
    );
    assert_eq!(
        bad(AucOptions {
            num_labels: Some(2),
            ..AucOptions::default()
        })
        .0,
        ErrorKind::Value
    );
    assert_eq!(
        bad(AucOptions {
            label_weights: Some(vec![-1.0]),
            ..AucOptions::default()
        })
        .0,
        ErrorKind::Value
    );
    assert_eq!(
        bad(AucOptions {
            multi_label: true,
            num_labels: Some(3),
            label_weights: Some(vec![1.0, 2.0]),
            ..AucOptions::default()
        })
        .0,
        ErrorKind::Shape
    );
    assert!(Curve::from_name("PRGAIN").is_err());
    assert!(SummationMethod::from_name("trapezoid").is_err());

    let mut auc = Auc::new(AucOptions::default()).unwrap();
    let e = auc
        .update_state(&v32(&[1.0, 0.0]), &v32(&[0.5, 0.5, 0.5]), None)
        .unwrap_err();
    assert_eq!(e.kind, ErrorKind::Shape);
    assert!(
        e.message.contains("[2]") && e.message.contains("[3]"),
        "{}",
        e.message
    );
    let mut multi = Auc::new(AucOptions {
        multi_label: true,
        ..AucOptions::default()
    })
    .unwrap();
    assert_eq!(
        kind(multi.update_state(&v32(&[1.0]), &v32(&[0.5]), None)),
        (ErrorKind::Shape, "AUC".into())
    );
    assert_eq!(
        kind(auc.update_state(
            &v32(&[1.0, 0.0]),
            &v32(&[0.5, 0.5]),
            Some(&v32(&[1.0, 2.0, 3.0]))
        ))
        .0,
        ErrorKind::Shape
    );

    let mut mean = Mean::new();
    assert_eq!(
        kind(mean.update_state(&v32(&[1.0, 2.0]), Some(&v32(&[1.0, 2.0, 3.0])))),
        (ErrorKind::Shape, "Mean".into())
    );
    let mut acc = MeanMetric::new(Matcher::SparseCategoricalAccuracy);
    assert_eq!(
        kind(acc.update_state(&vi32(&[1]), &t32(&[], &[1, 0]), None)),
        (ErrorKind::Shape, "sparse_categorical_accuracy".into())
    );
    let mut top = MeanMetric::new(Matcher::TopKCategoricalAccuracy { k: 1 });
    assert_eq!(
        kind(top.update_state(&t32(&[0.0, 1.0], &[1, 2]), &t32(&[0.5; 4], &[2, 2]), None)).0,
        ErrorKind::Shape
    );
    let mut mse = MeanMetric::new(Matcher::MeanSquaredError);
    assert_eq!(
        kind(mse.update_state(&s64(1.0), &s64(2.0), None)),
        (ErrorKind::Shape, "mean_squared_error".into())
    );
}

#[test]
fn mean_absolute_error_is_the_mean_of_absolute_errors_over_the_last_axis() {
    // float32 in float32 arithmetic, float64 in float64 (Keras's metric function).
    let t = Tensor::from_vec(vec![0.0f32, 1.0, 2.0, -1.0], &[2, 2]).unwrap();
    let p = Tensor::from_vec(vec![1.0f32, 3.0, 2.0, 0.5], &[2, 2]).unwrap();
    let values = metrics::mean_absolute_error(&t, &p).unwrap();
    assert_eq!(values.shape(), &[2]);
    assert_eq!(values.to_f64_vec(), vec![1.5, 0.75]);
    let mut mae = MeanMetric::new(Matcher::MeanAbsoluteError);
    mae.update_state(&t, &p, None).unwrap();
    let w = Tensor::from_vec(vec![3.0f32, 1.0], &[2]).unwrap();
    mae.update_state(&t, &p, Some(&w)).unwrap();
    // (1.5 + 0.75 + 3 * 1.5 + 1 * 0.75) / (1 + 1 + 3 + 1)
    assert!((mae.result() - 7.5 / 6.0).abs() < 1e-6);
    let err = mae.update_state(&s64(1.0), &s64(2.0), None).unwrap_err();
    assert_eq!(
        (err.kind, err.op.as_str()),
        (ErrorKind::Shape, "mean_absolute_error")
    );
}
