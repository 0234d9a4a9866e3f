//! Op functions for connectionist temporal classification: `rt.nn.ctc_loss` and the greedy and
//! beam-search decoders. rustape has no SparseTensor: a decoder returns each path as a dense
//! int64 `[batch, width]` tensor padded with `-1` (TensorFlow's `tf.sparse.to_dense(decoded,
//! default_value=-1)`, the form every Keras example turns its result into).
use pyo3::prelude::*;
use pyo3::types::{PyList, PyTuple};

use super::args::{tensor, wrap, Obj, OptObj};
use super::bindings::bindings;
use super::error::{axis_or, count_or, guard, value_error};
use super::tensor::PyTensor;
use crate::ops;

/// `rt.nn.ctc_loss(labels, logits, label_length, logit_length, logits_time_major=True,
/// unique=None, blank_index=None)`: the CTC loss per example (`tf.nn.ctc_loss` with dense
/// labels).
///
/// `labels` int32/int64 `[batch, max_label_length]` (entries past `label_length` ignored),
/// `logits` `[frames, batch, classes]` (or `[batch, frames, classes]` with
/// `logits_time_major=False`), `label_length` and `logit_length` `[batch]`. `blank_index`
/// (default 0; negative counts from the end) is the blank class. Returns the negative
/// log-likelihood `[batch]`. `unique` (TensorFlow's speed hint) is accepted and not needed.
///
/// Differs from TensorFlow: an example with no alignment (too many labels for its frames) has
/// loss `inf` and a zero gradient (TensorFlow's dense path returns a large finite number near
/// 709 and a meaningless gradient); a label outside `[0, classes)` or equal to the blank is a
/// ValueError (TensorFlow returns a number); an empty batch gives an empty result (TensorFlow
/// raises). The second derivative in the logits raises (TensorFlow's is NaN).
///
/// >>> logits = rt.zeros([3, 1, 3])      # 3 frames, 1 example, 3 classes: uniform
/// >>> loss = rt.nn.ctc_loss([[1]], logits, label_length=[1], logit_length=[3])
/// >>> round(float(loss[0]), 4)          # -log(6 paths / 27)
/// 1.5041
#[pyfunction]
#[pyo3(
    signature = (labels, logits, label_length, logit_length, logits_time_major=true, unique=None, blank_index=None, name=None),
    text_signature = "(labels, logits, label_length, logit_length, logits_time_major=True, unique=None, blank_index=None, name=None)"
)]
#[allow(clippy::too_many_arguments)]
pub fn ctc_loss(
    labels: Obj,
    logits: Obj,
    label_length: OptObj,
    logit_length: Obj,
    logits_time_major: bool,
    unique: OptObj,
    blank_index: OptObj,
    name: OptObj,
) -> PyResult<PyTensor> {
    let _ = (name, unique);
    guard(|| {
        let op = "ctc_loss";
        let Some(label_length) = label_length.filter(|l| !l.is_none()) else {
            return Err(value_error(
                op,
                "label_length is required with dense labels (rustape has no SparseTensor labels)",
            ));
        };
        let blank = axis_or(blank_index, 0, op, "blank_index")?;
        wrap(ops::ctc_loss(
            &tensor(labels)?,
            &tensor(logits)?,
            &tensor(label_length)?,
            &tensor(logit_length)?,
            logits_time_major,
            blank,
        ))
    })
}

/// `rt.nn.ctc_greedy_decoder(inputs, sequence_length, merge_repeated=True, blank_index=None)`
/// -> `([decoded], neg_sum_logits)`: best-path decoding of `inputs` `[max_time, batch,
/// classes]`.
///
/// `decoded` is int64 `[batch, width]` padded with `-1` (`width` the longest decoded path:
/// TensorFlow's SparseTensor as `tf.sparse.to_dense(.., default_value=-1)`); `neg_sum_logits`
/// `[batch, 1]` is minus the sum of each frame's largest input. `blank_index` defaults to the
/// last class (TensorFlow's default); repeated classes merge unless a blank separates them.
///
/// >>> x = rt.math.log(rt.constant([[[0.1, 0.8, 0.1]], [[0.1, 0.8, 0.1]], [[0.1, 0.1, 0.8]],
/// ...                              [[0.8, 0.1, 0.1]]]))
/// >>> (decoded,), score = rt.nn.ctc_greedy_decoder(x, [4])
/// >>> decoded.numpy().tolist()
/// [[1, 0]]
#[pyfunction]
#[pyo3(
    signature = (inputs, sequence_length, merge_repeated=true, blank_index=None),
    text_signature = "(inputs, sequence_length, merge_repeated=True, blank_index=None)"
)]
pub fn ctc_greedy_decoder<'py>(
    py: Python<'py>,
    inputs: Obj,
    sequence_length: Obj,
    merge_repeated: bool,
    blank_index: OptObj,
) -> PyResult<Bound<'py, PyTuple>> {
    guard(|| {
        let blank = axis_or(blank_index, -1, "ctc_greedy_decoder", "blank_index")?;
        let (decoded, scores) = ops::ctc_greedy_decoder(
            &tensor(inputs)?,
            &tensor(sequence_length)?,
            merge_repeated,
            blank,
        )?;
        let list = PyList::new(py, [PyTensor::new(decoded)])?;
        PyTuple::new(
            py,
            [
                list.into_any(),
                Bound::new(py, PyTensor::new(scores))?.into_any(),
            ],
        )
    })
}

/// `rt.nn.ctc_beam_search_decoder(inputs, sequence_length, beam_width=100, top_paths=1)` ->
/// `(decoded, log_probabilities)`: TensorFlow's beam search over `inputs` `[max_time, batch,
/// classes]` (logits; the blank is the last class).
///
/// `decoded` is a list of `top_paths` int64 `[batch, width]` tensors, best first, padded with
/// `-1` (TensorFlow's SparseTensors as `tf.sparse.to_dense(.., default_value=-1)`);
/// `log_probabilities` is `[batch, top_paths]` (each frame log-softmax normalised, as
/// TensorFlow's). Repeated labels are not merged (TensorFlow 2's `merge_repeated=False`).
///
/// >>> x = rt.math.log(rt.constant([[[0.6, 0.3, 0.1]], [[0.5, 0.1, 0.4]]]))
/// >>> decoded, logp = rt.nn.ctc_beam_search_decoder(x, [2], beam_width=4, top_paths=2)
/// >>> [d.numpy().tolist() for d in decoded]
/// [[[0]], [[1]]]
#[pyfunction]
#[pyo3(
    signature = (inputs, sequence_length, beam_width=None, top_paths=None),
    text_signature = "(inputs, sequence_length, beam_width=100, top_paths=1)"
)]
pub fn ctc_beam_search_decoder<'py>(
    py: Python<'py>,
    inputs: Obj,
    sequence_length: Obj,
    beam_width: OptObj,
    top_paths: OptObj,
) -> PyResult<Bound<'py, PyTuple>> {
    guard(|| {
        let op = "ctc_beam_search_decoder";
        let beam_width = count_or(beam_width, 100, op, "beam_width")?;
        let top_paths = count_or(top_paths, 1, op, "top_paths")?;
        let (decoded, scores) = ops::ctc_beam_search_decoder(
            &tensor(inputs)?,
            &tensor(sequence_length)?,
            beam_width,
            top_paths,
            false,
        )?;
        let list = PyList::new(py, decoded.into_iter().map(PyTensor::new))?;
        PyTuple::new(
            py,
            [
                list.into_any(),
                Bound::new(py, PyTensor::new(scores))?.into_any(),
            ],
        )
    })
}

bindings! {
    fn ctc_loss => [nn];
    fn ctc_greedy_decoder => [nn];
    fn ctc_beam_search_decoder => [nn];
}
