//! `Tape` (the engine's tape; the `with` protocol lives in the Python package), custom
//! gradients, gradcheck and the thread's tape switches.
//!
//! Every backward or Jacobian pass runs with the GIL released (`py.detach`); a custom
//! gradient's VJP re-attaches to call its Python function.
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::{Arc, Mutex};

use pyo3::exceptions::{PyRuntimeError, PyValueError};
use pyo3::gc::PyVisit;
use pyo3::prelude::*;
use pyo3::types::PyList;
use pyo3::PyTraverseError;
use rustc_hash::FxHashSet;

use super::bindings::bindings;
use super::convert::{items, short_repr, to_tensor};
use super::error::{
    from_python, guard, internal_error, number_or, positive_arg, type_error, value_error,
};
use super::tensor::{register_variable, wrap_variable, PyTensor, PyVariable};
use crate::error::Result;
use crate::tape::JacobianOptions;
use crate::tape::{self, BatchRows, Source, Tape, Unconnected};
use crate::tensor::Tensor;
use crate::testing::{self, Tolerance};
use crate::variable;

#[pyclass(frozen, name = "Tape", module = "rustape._rustape")]
pub struct PyTape {
    tape: Tape,
}

/// A gradient source: a `Tensor`, or a `Variable` (the sum over its recorded reads).
fn source(obj: &Bound<'_, PyAny>, method: &str) -> PyResult<Source> {
    if let Ok(t) = obj.cast::<PyTensor>() {
        return Ok(Source::Tensor(t.get().t.clone()));
    }
    if let Ok(v) = obj.cast::<PyVariable>() {
        register_variable(v);
        return Ok(Source::Variable(v.get().v.clone()));
    }
    Err(type_error(
        &format!("GradientTape.{method}"),
        format!(
            "sources must be Tensors or Variables, got {}",
            short_repr(obj)
        ),
    ))
}

/// A gradient or Jacobian target: a Variable is itself (its handle, TensorFlow's rule:
/// `gradient(v, v)` is ones), anything else converts to a tensor.
fn target(obj: &Bound<'_, PyAny>) -> PyResult<Tensor> {
    if let Ok(v) = obj.cast::<PyVariable>() {
        register_variable(v);
        return Ok(v.get().v.handle());
    }
    to_tensor(obj, None)
}

fn sources(objs: &Bound<'_, PyAny>, method: &str) -> PyResult<Vec<Source>> {
    items(objs)?.iter().map(|o| source(o, method)).collect()
}

/// `'none'` (the default) or `'zero'` (any case), or an enum member whose `.value` is one.
fn unconnected(obj: Option<&Bound<'_, PyAny>>) -> PyResult<Unconnected> {
    let Some(obj) = obj.filter(|o| !o.is_none()) else {
        return Ok(Unconnected::None);
    };
    let text: String = match obj.extract::<String>() {
        Ok(s) => s,
        Err(_) => obj.getattr("value")?.extract()?,
    };
    match text.to_ascii_lowercase().as_str() {
        "none" => Ok(Unconnected::None),
        "zero" => Ok(Unconnected::Zero),
        "raise" => Ok(Unconnected::Raise),
        _ => Err(value_error(
            "GradientTape.gradient",
            format!("unconnected_gradients must be 'none', 'zero' or 'raise', got {text:?}"),
        )),
    }
}

/// `parallel_iterations`: None, or a positive integer (a ValueError otherwise, as in TensorFlow).
fn iterations(obj: Option<&Bound<'_, PyAny>>, op: &str) -> PyResult<Option<usize>> {
    match obj.filter(|o| !o.is_none()) {
        Some(o) => Ok(Some(positive_arg(o, op, "parallel_iterations")?)),
        None => Ok(None),
    }
}

fn wrap_all(grads: Vec<Option<Tensor>>) -> Vec<Option<PyTensor>> {
    grads.into_iter().map(|g| g.map(PyTensor::new)).collect()
}

#[pymethods]
impl PyTape {
    #[new]
    #[pyo3(signature = (persistent=false, watch_accessed_variables=true))]
    fn py_new(persistent: bool, watch_accessed_variables: bool) -> PyTape {
        PyTape {
            tape: Tape::new(persistent, watch_accessed_variables),
        }
    }
    /// Enters the recording context on this thread (`__enter__`).
    fn push(&self) -> PyResult<()> {
        guard(|| Ok(self.tape.push()?))
    }
    /// Leaves the recording context (`__exit__`).
    fn exit(&self) -> PyResult<()> {
        guard(|| {
            self.tape.exit();
            Ok(())
        })
    }
    /// Watches one Tensor or Variable.
    fn watch(&self, x: &Bound<'_, PyAny>) -> PyResult<()> {
        guard(|| {
            if let Ok(t) = x.cast::<PyTensor>() {
                self.tape.watch(&t.get().t);
            } else if let Ok(v) = x.cast::<PyVariable>() {
                register_variable(v);
                self.tape.watch_variable(&v.get().v);
            } else {
                return Err(PyValueError::new_err(format!(
                    "watch expects a Tensor or Variable, got {} of type {}",
                    short_repr(x),
                    x.get_type().name()?
                )));
            }
            Ok(())
        })
    }
    /// The variables watched, in the order they were created (the user's own objects).
    fn watched_variables<'py>(&self, py: Python<'py>) -> PyResult<Vec<Bound<'py, PyVariable>>> {
        guard(|| {
            self.tape
                .watched_variables()
                .into_iter()
                .map(|v| wrap_variable(py, v))
                .collect()
        })
    }
    /// Stops recording until `resume_recording` (RuntimeError if not recording).
    fn pause_recording(&self) -> PyResult<()> {
        guard(|| Ok(self.tape.pause_recording()?))
    }
    fn resume_recording(&self) -> PyResult<()> {
        guard(|| {
            self.tape.resume_recording();
            Ok(())
        })
    }
    /// Forgets everything recorded and watched; keeps recording if it was.
    fn reset(&self) -> PyResult<()> {
        guard(|| {
            self.tape.reset();
            Ok(())
        })
    }
    /// The gradient of the targets (summed) with respect to each source: a list with a Tensor
    /// or None per source.
    #[pyo3(signature = (targets, sources, output_gradients=None, unconnected=None))]
    fn gradient(
        &self,
        py: Python<'_>,
        targets: &Bound<'_, PyAny>,
        sources: &Bound<'_, PyAny>,
        output_gradients: Option<&Bound<'_, PyAny>>,
        unconnected: Option<&Bound<'_, PyAny>>,
    ) -> PyResult<Vec<Option<PyTensor>>> {
        guard(|| {
            let targets: Vec<Tensor> = items(targets)?
                .iter()
                .map(target)
                .collect::<PyResult<_>>()?;
            let srcs = self::sources(sources, "gradient")?;
            let seeds: Option<Vec<Option<Tensor>>> = match output_gradients {
                Some(og) if !og.is_none() => {
                    let given = items(og)?;
                    Some(
                        given
                            .iter()
                            .enumerate()
                            .map(|(i, g)| {
                                if g.is_none() {
                                    return Ok(None);
                                }
                                to_tensor(g, targets.get(i).map(Tensor::dtype)).map(Some)
                            })
                            .collect::<PyResult<_>>()?,
                    )
                }
                _ => None,
            };
            let mode = self::unconnected(unconnected)?;
            let tape = self.tape.clone();
            let grads =
                py.detach(move || tape.gradient(&targets, &srcs, seeds.as_deref(), mode))?;
            Ok(wrap_all(grads))
        })
    }
    /// `target.shape + source.shape` per source (None where unconnected).
    /// `parallel_iterations` bounds the rows in flight; `experimental_use_pfor=False` runs them one
    /// by one. The numbers are the same either way.
    /// `progress`: a bar on stderr counting the rows.
    #[allow(clippy::too_many_arguments)] // TensorFlow's arguments, and `progress`
    #[pyo3(signature = (target, sources, unconnected=None, parallel_iterations=None, experimental_use_pfor=true, progress=false))]
    fn jacobian(
        &self,
        py: Python<'_>,
        target: &Bound<'_, PyAny>,
        sources: &Bound<'_, PyAny>,
        unconnected: Option<&Bound<'_, PyAny>>,
        parallel_iterations: Option<&Bound<'_, PyAny>>,
        experimental_use_pfor: bool,
        progress: bool,
    ) -> PyResult<Vec<Option<PyTensor>>> {
        guard(|| {
            let parallel_iterations = iterations(parallel_iterations, "GradientTape.jacobian")?;
            let options = JacobianOptions::from_tf(parallel_iterations, experimental_use_pfor);
            let target = self::target(target)?;
            let srcs = self::sources(sources, "jacobian")?;
            let mode = self::unconnected(unconnected)?;
            let tape = self.tape.clone();
            let jac = py.detach(move || {
                with_bar(progress, "jacobian", || {
                    tape.jacobian_with(&target, &srcs, mode, options)
                })
            })?;
            Ok(wrap_all(jac))
        })
    }
    /// Target `[b, y...]`, source `[b, x...]`: `[b, y..., x...]` (None where unconnected).
    #[allow(clippy::too_many_arguments)] // TensorFlow's arguments, and `progress`
    #[pyo3(signature = (target, source, unconnected=None, parallel_iterations=None, experimental_use_pfor=true, progress=false))]
    fn batch_jacobian(
        &self,
        py: Python<'_>,
        target: &Bound<'_, PyAny>,
        source: &Bound<'_, PyAny>,
        unconnected: Option<&Bound<'_, PyAny>>,
        parallel_iterations: Option<&Bound<'_, PyAny>>,
        experimental_use_pfor: bool,
        progress: bool,
    ) -> PyResult<Option<PyTensor>> {
        guard(|| {
            let parallel_iterations =
                iterations(parallel_iterations, "GradientTape.batch_jacobian")?;
            let options = JacobianOptions::from_tf(parallel_iterations, experimental_use_pfor);
            let target = self::target(target)?;
            let src = self::source(source, "batch_jacobian")?;
            let mode = self::unconnected(unconnected)?;
            let tape = self.tape.clone();
            let jac = py.detach(move || {
                with_bar(progress, "batch_jacobian", || {
                    tape.batch_jacobian_with(&target, &src, mode, options)
                })
            })?;
            Ok(jac.map(PyTensor::new))
        })
    }
    /// For `vectorized_map`: for each of `outputs` (computed while this tape recorded from the
    /// watched `inputs`, each a batch of `batch` rows along axis 0), `("apart", None)` when
    /// row `i` depends only on row `i` of the inputs and the batch is the whole of axis 0,
    /// `("free", None)` when no recorded op connects it to the inputs, `("entangled", why)`
    /// otherwise.
    fn batch_rows(
        &self,
        py: Python<'_>,
        outputs: &Bound<'_, PyAny>,
        inputs: &Bound<'_, PyAny>,
        batch: usize,
    ) -> PyResult<Vec<(&'static str, Option<String>)>> {
        guard(|| {
            let outputs = items(outputs)?
                .iter()
                .map(|o| to_tensor(o, None))
                .collect::<PyResult<Vec<_>>>()?;
            let inputs = items(inputs)?
                .iter()
                .map(|o| to_tensor(o, None))
                .collect::<PyResult<Vec<_>>>()?;
            let tape = self.tape.clone();
            let rows = py.detach(move || tape.batch_rows(&outputs, &inputs, batch))?;
            Ok(rows
                .into_iter()
                .map(|r| match r {
                    BatchRows::Apart => ("apart", None),
                    BatchRows::Free => ("free", None),
                    BatchRows::Entangled(why) => ("entangled", Some(why)),
                })
                .collect())
        })
    }
    /// For a one-element target, `d2 target / d source^2` per source, of shape
    /// `source.shape + source.shape` (no second tape needed).
    #[pyo3(signature = (target, sources, unconnected=None, progress=false))]
    fn hessian(
        &self,
        py: Python<'_>,
        target: &Bound<'_, PyAny>,
        sources: &Bound<'_, PyAny>,
        unconnected: Option<&Bound<'_, PyAny>>,
        progress: bool,
    ) -> PyResult<Vec<Option<PyTensor>>> {
        guard(|| {
            let target = self::target(target)?;
            let srcs = self::sources(sources, "hessian")?;
            let mode = self::unconnected(unconnected)?;
            let tape = self.tape.clone();
            let h = py.detach(move || {
                with_bar(progress, "hessian", || tape.hessian(&target, &srcs, mode))
            })?;
            Ok(wrap_all(h))
        })
    }
    /// The Python objects the tape holds (its custom gradients' functions), for the garbage
    /// collector: a tape referenced from one of them is then collected with it.
    fn __traverse__(&self, visit: PyVisit<'_>) -> std::result::Result<(), PyTraverseError> {
        let mut result = Ok(());
        self.tape.visit_foreign(&mut |state| {
            let Some(callback) = state.downcast_ref::<PyCallback>() else {
                return;
            };
            // Never block here: a callable being called right now is simply not reported.
            if let (Ok(held), true) = (callback.0.try_lock(), result.is_ok()) {
                if let Some(f) = held.as_ref() {
                    result = visit.call(f);
                }
            }
        });
        result
    }
    /// Drops the Python objects the tape holds (the garbage collector breaking a cycle).
    fn __clear__(&self) {
        let mut taken: Vec<Py<PyAny>> = Vec::new();
        self.tape.clear_foreign(&mut |state| {
            if let Some(callback) = state.downcast_ref::<PyCallback>() {
                taken.extend(callback.0.lock().unwrap_or_else(|p| p.into_inner()).take());
            }
        });
        // Released after the tape's lock: a finaliser they run may use the tape.
        drop(taken);
    }
    /// Recorded ops.
    fn __len__(&self) -> PyResult<usize> {
        guard(|| Ok(self.tape.len()))
    }
    /// Bytes of tensor data the tape keeps alive.
    #[getter]
    fn nbytes(&self) -> PyResult<usize> {
        guard(|| Ok(self.tape.nbytes()))
    }
    /// One line per recorded op.
    fn summary(&self) -> PyResult<String> {
        guard(|| Ok(self.tape.summary()))
    }
    /// The recorded graph in Graphviz DOT.
    fn to_dot(&self) -> PyResult<String> {
        guard(|| Ok(self.tape.to_dot()))
    }
    #[getter]
    fn is_recording(&self) -> PyResult<bool> {
        guard(|| Ok(self.tape.is_recording()))
    }
    #[getter]
    fn persistent(&self) -> PyResult<bool> {
        guard(|| Ok(self.tape.persistent()))
    }
    fn __repr__(&self) -> PyResult<String> {
        guard(|| {
            Ok(format!(
                "<rt.Tape persistent={} recording={} ops={}>",
                self.tape.persistent(),
                self.tape.is_recording(),
                self.tape.len()
            ))
        })
    }
}

/// Op names live as long as the nodes that carry them: each distinct name is leaked once.
fn intern(name: &str) -> &'static str {
    static NAMES: Mutex<Option<FxHashSet<&'static str>>> = Mutex::new(None);
    let mut names = NAMES.lock().unwrap_or_else(|p| p.into_inner());
    let set = names.get_or_insert_with(FxHashSet::default);
    if let Some(&known) = set.get(name) {
        return known;
    }
    let leaked: &'static str = Box::leak(name.to_string().into_boxed_str());
    set.insert(leaked);
    leaked
}

/// The input gradients `grad_fn` returned, checked against the inputs.
fn input_grads(
    name: &str,
    result: &Bound<'_, PyAny>,
    inputs: &[(Vec<usize>, crate::DType)],
) -> PyResult<Vec<Option<Tensor>>> {
    let op = format!("custom_gradient '{name}'");
    let given = if result.is_none() {
        vec![result.clone(); inputs.len()]
    } else if inputs.len() == 1 && super::convert::tensorish(result).is_some() {
        vec![result.clone()]
    } else {
        items(result)?
    };
    if given.len() != inputs.len() {
        return Err(value_error(
            &op,
            format!(
                "the gradient function returned {} gradients for {} inputs",
                given.len(),
                inputs.len()
            ),
        ));
    }
    given
        .iter()
        .zip(inputs)
        .enumerate()
        .map(|(i, (g, (shape, dtype)))| {
            if g.is_none() {
                return Ok(None);
            }
            let g = to_tensor(g, Some(*dtype))?;
            if g.dtype() != *dtype {
                return Err(type_error(
                    &op,
                    format!(
                        "gradient {i} has dtype {} but input {i} has dtype {dtype}",
                        g.dtype()
                    ),
                ));
            }
            if g.shape() != shape.as_slice() {
                return Err(value_error(
                    &op,
                    format!(
                        "gradient {i} has shape {} but input {i} has shape {}",
                        super::tensor::fmt_tuple(g.shape()),
                        super::tensor::fmt_tuple(shape)
                    ),
                ));
            }
            Ok(Some(g))
        })
        .collect()
}

/// A Python callable held by one tape's node (its custom gradient). Behind a lock so the
/// garbage collector can clear it (`PyTape::__clear__`) to break a reference cycle through it.
struct PyCallback(Mutex<Option<Py<PyAny>>>);

impl PyCallback {
    /// The callable, if the garbage collector has not cleared it.
    fn get(&self, py: Python<'_>) -> Option<Py<PyAny>> {
        let held = self.0.lock().unwrap_or_else(|p| p.into_inner());
        held.as_ref().map(|f| f.clone_ref(py))
    }
}

/// Records `outputs` as computed from `inputs` by an op whose VJP is the Python callable
/// `grad_fn(list of output gradients or None) -> list of input gradients (Tensor or None)`.
/// Returns the outputs as the tapes know them (fresh aliases). An exception raised by
/// `grad_fn` comes out of `gradient()` as itself. Each recording tape holds its own reference
/// to `grad_fn`, which it reports to the garbage collector.
#[pyfunction]
pub fn record_custom_gradient(
    py: Python<'_>,
    name: &str,
    inputs: &Bound<'_, PyAny>,
    outputs: &Bound<'_, PyAny>,
    grad_fn: Py<PyAny>,
) -> PyResult<Vec<PyTensor>> {
    guard(|| {
        let inputs: Vec<Tensor> = items(inputs)?
            .iter()
            .map(|t| to_tensor(t, None))
            .collect::<PyResult<_>>()?;
        let outputs: Vec<Tensor> = items(outputs)?
            .iter()
            .map(|t| to_tensor(t, None))
            .collect::<PyResult<_>>()?;
        let name = intern(name);
        let meta: Arc<Vec<(Vec<usize>, crate::DType)>> = Arc::new(
            inputs
                .iter()
                .map(|t| (t.shape().to_vec(), t.dtype()))
                .collect(),
        );
        let make_vjp = || {
            let callback = Arc::new(PyCallback(Mutex::new(Some(grad_fn.clone_ref(py)))));
            let held = callback.clone();
            let meta = meta.clone();
            let vjp = move |_saved: &[Tensor],
                            grads: &[Option<Tensor>],
                            _batch: usize|
                  -> Result<tape::Grads> {
                Python::attach(|py| {
                    let call = || -> PyResult<Vec<Option<Tensor>>> {
                        let Some(grad_fn) = held.get(py) else {
                            return Err(PyRuntimeError::new_err(format!(
                                "custom_gradient '{name}': its gradient function was released \
                                 by the garbage collector (the tape was being collected)"
                            )));
                        };
                        let dys =
                            PyList::new(py, grads.iter().map(|g| g.clone().map(PyTensor::new)))?;
                        let result = grad_fn.bind(py).call1((dys,))?;
                        input_grads(name, &result, &meta)
                    };
                    match catch_unwind(AssertUnwindSafe(call)) {
                        Ok(Ok(grads)) => Ok(grads.into()),
                        Ok(Err(err)) => Err(from_python(err, name)),
                        Err(payload) => Err(from_python(internal_error(&*payload), name)),
                    }
                })
            };
            tape::ForeignVjp {
                vjp: Box::new(vjp),
                state: callback,
            }
        };
        let recorded = tape::record_custom(name, &inputs, &outputs, make_vjp)?;
        Ok(recorded.into_iter().map(PyTensor::new).collect())
    })
}

/// Checks `f`'s first (and second) order gradients at float64 `inputs` against finite
/// differences. `f` receives a list of Tensors and returns a Tensor. Returns True, or raises
/// ValueError with the first mismatch.
#[pyfunction]
#[pyo3(signature = (f, inputs, second_order=true, eps=None, atol=None, rtol=None),
    text_signature = "(f, inputs, second_order=True, eps=1e-06, atol=1e-06, rtol=1e-05)"
)]
pub fn gradcheck(
    py: Python<'_>,
    f: &Bound<'_, PyAny>,
    inputs: &Bound<'_, PyAny>,
    second_order: bool,
    eps: Option<&Bound<'_, PyAny>>,
    atol: Option<&Bound<'_, PyAny>>,
    rtol: Option<&Bound<'_, PyAny>>,
) -> PyResult<bool> {
    guard(|| {
        let eps = number_or(eps, 1e-6, "gradcheck", "eps")?;
        let atol = number_or(atol, 1e-6, "gradcheck", "atol")?;
        let rtol = number_or(rtol, 1e-5, "gradcheck", "rtol")?;
        let inputs: Vec<Tensor> = items(inputs)?
            .iter()
            .map(|t| to_tensor(t, None))
            .collect::<PyResult<_>>()?;
        let func = |xs: &[Tensor]| -> Result<Tensor> {
            let args = PyList::new(py, xs.iter().cloned().map(PyTensor::new))
                .map_err(|e| from_python(e, "gradcheck"))?;
            let out = f.call1((args,)).map_err(|e| from_python(e, "gradcheck"))?;
            to_tensor(&out, None).map_err(|e| from_python(e, "gradcheck"))
        };
        testing::gradcheck(&func, &inputs, second_order, Tolerance { eps, atol, rtol })?;
        Ok(true)
    })
}

/// Stops every tape on this thread until `resume_all_tapes` (nests).
#[pyfunction]
pub fn pause_all_tapes() -> PyResult<()> {
    guard(|| {
        tape::pause_all_tapes();
        Ok(())
    })
}

#[pyfunction]
pub fn resume_all_tapes() -> PyResult<()> {
    guard(|| {
        tape::resume_all_tapes();
        Ok(())
    })
}

/// True when some tape on this thread is recording.
#[pyfunction]
pub fn any_tape_recording() -> PyResult<bool> {
    guard(|| Ok(tape::any_tape_recording()))
}

/// Starts collecting the variables read on this thread (scopes nest).
#[pyfunction]
pub fn begin_variable_watch() -> PyResult<()> {
    guard(|| {
        variable::begin_variable_watch();
        Ok(())
    })
}

/// The variables read since the matching `begin_variable_watch`, in order of first read.
#[pyfunction]
pub fn end_variable_watch(py: Python<'_>) -> PyResult<Vec<Bound<'_, PyVariable>>> {
    guard(|| {
        variable::end_variable_watch()
            .into_iter()
            .map(|v| wrap_variable(py, v))
            .collect()
    })
}

/// `f()`, with a progress bar on stderr named `label` counting its rows when `progress`.
fn with_bar<R>(progress: bool, label: &str, f: impl FnOnce() -> R) -> R {
    if progress {
        crate::progress::with_progress(Arc::new(crate::progress::Bar::new(label, "rows")), f)
    } else {
        f()
    }
}

// The Python bindings of this file: all used by the package (python/rustape), none public.
bindings! {
    class PyTape => [];
    fn record_custom_gradient => [];
    fn gradcheck => [];
    fn pause_all_tapes => [];
    fn resume_all_tapes => [];
    fn any_tape_recording => [];
    fn begin_variable_watch => [];
    fn end_variable_watch => [];
}
