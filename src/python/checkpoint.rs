//! The TensorFlow checkpoint codec (`crate::checkpoint`) for `rt.train`: bundles as lists of
//! `(key, dtype code, shape, bytes or list of bytes)`, object graphs as nested tuples. The
//! Python side (python/rustape/train/) turns them into arrays and matches objects.
use prost::Message;
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyList};

use super::bindings::bindings;
use super::error::guard;
use crate::checkpoint::proto::{
    BoolValue, ObjectReference, SerializedTensor, SlotVariableReference, TrackableObject,
    TrackableObjectGraph,
};
use crate::checkpoint::{BundleReader, BundleWriter, Payload, StoredTensor};

type Entry<'py> = (String, i32, Vec<u64>, Bound<'py, PyAny>);

fn entry<'py>(py: Python<'py>, key: &str, t: StoredTensor) -> PyResult<Entry<'py>> {
    let data = match t.data {
        Payload::Bytes(b) => PyBytes::new(py, &b).into_any(),
        Payload::Strings(s) => PyList::new(py, s.iter().map(|x| PyBytes::new(py, x)))?.into_any(),
    };
    Ok((key.to_owned(), t.dtype, t.shape, data))
}

/// Every tensor of the TensorFlow checkpoint `prefix` (its `.index` and data files), checksums
/// verified: a list of `(key, dtype code, shape, bytes)` (a list of bytes for strings).
///
/// >>> rows = rt._rustape.checkpoint_read_bundle  # used by rt.train.load_checkpoint
#[pyfunction]
fn checkpoint_read_bundle<'py>(py: Python<'py>, prefix: &str) -> PyResult<Vec<Entry<'py>>> {
    guard(|| {
        let r = py.detach(|| BundleReader::open(prefix))?;
        let keys: Vec<String> = r.keys().map(str::to_owned).collect();
        keys.iter()
            .map(|k| {
                let t = py.detach(|| r.read(k))?;
                entry(py, k, t)
            })
            .collect()
    })
}

/// Writes the TensorFlow checkpoint `prefix` (`.index` and `.data-00000-of-00001`) from rows
/// `(key, dtype code, shape, bytes)` (a list of bytes for strings).
///
/// >>> w = rt._rustape.checkpoint_write_bundle  # used by rt.train.Checkpoint.write
#[pyfunction]
fn checkpoint_write_bundle(py: Python<'_>, prefix: &str, rows: &Bound<'_, PyList>) -> PyResult<()> {
    guard(|| {
        let mut w = BundleWriter::new();
        for row in rows.iter() {
            let (key, dtype, shape, data): (
                String,
                Bound<'_, PyAny>,
                Bound<'_, PyAny>,
                Bound<'_, PyAny>,
            ) = row.extract()?;
            let dtype: i32 = dtype.extract().map_err(|_| {
                PyValueError::new_err(format!("checkpoint: bad dtype code for {key:?}"))
            })?;
            let shape: Vec<u64> = shape
                .extract()
                .map_err(|_| PyValueError::new_err(format!("checkpoint: bad shape for {key:?}")))?;
            let data = if let Ok(b) = data.cast::<PyBytes>() {
                Payload::Bytes(b.as_bytes().to_vec())
            } else {
                Payload::Strings(data.extract::<Vec<Vec<u8>>>()?)
            };
            w.add(&key, &StoredTensor { dtype, shape, data })?;
        }
        py.detach(|| w.write(prefix))?;
        Ok(())
    })
}

type Node = (
    Vec<(i32, String)>,
    Vec<(String, String, String)>,
    Vec<(i32, String, i32)>,
    Option<bool>,
);

/// Decodes a serialized `TrackableObjectGraph` into one tuple per node: `(children as (node,
/// name), attributes as (name, full name, key), slot variables as (variable node, slot name,
/// slot node), has_checkpoint_values or None)`.
///
/// >>> rt._rustape.checkpoint_decode_graph(b"")
/// []
#[pyfunction]
fn checkpoint_decode_graph(data: &[u8]) -> PyResult<Vec<Node>> {
    let g = TrackableObjectGraph::decode(data)
        .map_err(|e| PyValueError::new_err(format!("checkpoint: corrupt object graph: {e}")))?;
    let n = g.nodes.len() as i64;
    let bad = |id: i32| i64::from(id) < 0 || i64::from(id) >= n;
    let mut out = Vec::with_capacity(g.nodes.len());
    for (i, node) in g.nodes.into_iter().enumerate() {
        if node
            .registered_saver
            .as_ref()
            .is_some_and(|s| !s.name.is_empty())
        {
            return Err(PyValueError::new_err(format!(
                "checkpoint: node {i} uses a registered saver, which is not supported"
            )));
        }
        let ids = node.children.iter().map(|c| c.node_id).chain(
            node.slot_variables
                .iter()
                .flat_map(|s| [s.original_variable_node_id, s.slot_variable_node_id]),
        );
        if let Some(id) = ids.into_iter().find(|&id| bad(id)) {
            return Err(PyValueError::new_err(format!(
                "checkpoint: corrupt object graph: node {i} refers to node {id} of {n}"
            )));
        }
        out.push((
            node.children
                .into_iter()
                .map(|c| (c.node_id, c.local_name))
                .collect(),
            node.attributes
                .into_iter()
                .map(|a| (a.name, a.full_name, a.checkpoint_key))
                .collect(),
            node.slot_variables
                .into_iter()
                .map(|s| {
                    (
                        s.original_variable_node_id,
                        s.slot_name,
                        s.slot_variable_node_id,
                    )
                })
                .collect(),
            node.has_checkpoint_values.map(|b| b.value),
        ));
    }
    Ok(out)
}

/// Encodes nodes as `checkpoint_decode_graph` returns them into a `TrackableObjectGraph`.
///
/// >>> rt._rustape.checkpoint_encode_graph([([], [], [], None)])
/// b'\n\x00'
#[pyfunction]
fn checkpoint_encode_graph<'py>(py: Python<'py>, nodes: Vec<Node>) -> Bound<'py, PyBytes> {
    let g = TrackableObjectGraph {
        nodes: nodes
            .into_iter()
            .map(|(children, attributes, slots, has)| TrackableObject {
                children: children
                    .into_iter()
                    .map(|(node_id, local_name)| ObjectReference {
                        node_id,
                        local_name,
                    })
                    .collect(),
                attributes: attributes
                    .into_iter()
                    .map(|(name, full_name, checkpoint_key)| SerializedTensor {
                        name,
                        full_name,
                        checkpoint_key,
                    })
                    .collect(),
                slot_variables: slots
                    .into_iter()
                    .map(|(a, slot_name, b)| SlotVariableReference {
                        original_variable_node_id: a,
                        slot_name,
                        slot_variable_node_id: b,
                    })
                    .collect(),
                registered_saver: None,
                has_checkpoint_values: has.map(|value| BoolValue { value }),
            })
            .collect(),
    };
    PyBytes::new(py, &g.encode_to_vec())
}

bindings! {
    fn checkpoint_read_bundle => [];
    fn checkpoint_write_bundle => [];
    fn checkpoint_decode_graph => [];
    fn checkpoint_encode_graph => [];
}
