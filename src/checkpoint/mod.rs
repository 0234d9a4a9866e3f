//! TensorFlow's checkpoint format, read and written without TensorFlow: the tensor bundle
//! (`bundle`: `.index` table + `.data-?????-of-?????` files, `table`: the sorted string table
//! under the index) and the messages stored in it (`proto`: the bundle entries and the
//! `_CHECKPOINTABLE_OBJECT_GRAPH` that `tf.train.Checkpoint` matches objects with).
//!
//! Reading never runs code and checks every offset, size and checksum before use: a truncated
//! or corrupted file is an `Error` naming what is wrong, never a panic or an allocation larger
//! than the files.
//!
//! ```
//! use rustape::checkpoint::{BundleReader, BundleWriter, Payload, StoredTensor};
//! let mut w = BundleWriter::new();
//! let t = StoredTensor { dtype: 1, shape: vec![2], data: Payload::Bytes([1.0f32, 2.0].iter().flat_map(|v| v.to_le_bytes()).collect()) };
//! w.add("x/.ATTRIBUTES/VARIABLE_VALUE", &t).unwrap();
//! let (index, data) = w.finish().unwrap();
//! let r = BundleReader::from_parts(&index, vec![data]).unwrap();
//! assert_eq!(r.read("x/.ATTRIBUTES/VARIABLE_VALUE").unwrap(), t);
//! ```
pub mod bundle;
pub mod proto;
pub mod table;

pub use bundle::{BundleReader, BundleWriter, Payload, StoredTensor, DT_STRING};

/// The bundle key under which `tf.train.Checkpoint` stores its object graph.
pub const OBJECT_GRAPH_KEY: &str = "_CHECKPOINTABLE_OBJECT_GRAPH";
