//! The protobuf messages of a TensorFlow checkpoint, written by hand as `prost` structs (no
//! protoc, no generated code): field numbers and types are those of TensorFlow's
//! `tensor_bundle.proto`, `tensor_shape.proto`, `versions.proto` and
//! `trackable_object_graph.proto`. Enums are kept as their `int32` wire value.

/// `tensorflow.VersionDef`.
#[derive(Clone, PartialEq, prost::Message)]
pub struct VersionDef {
    /// The version of the code that wrote the data.
    #[prost(int32, tag = "1")]
    pub producer: i32,
    /// The oldest reader version that can read it.
    #[prost(int32, tag = "2")]
    pub min_consumer: i32,
    /// Reader versions that must not read it.
    #[prost(int32, repeated, tag = "3")]
    pub bad_consumers: Vec<i32>,
}

/// `tensorflow.BundleHeaderProto`: the value under the empty key of a bundle's index.
#[derive(Clone, PartialEq, prost::Message)]
pub struct BundleHeaderProto {
    /// How many `.data-?????-of-?????` files the bundle has.
    #[prost(int32, tag = "1")]
    pub num_shards: i32,
    /// 0: little-endian, 1: big-endian.
    #[prost(int32, tag = "2")]
    pub endianness: i32,
    /// The bundle format's version.
    #[prost(message, optional, tag = "3")]
    pub version: Option<VersionDef>,
}

/// `tensorflow.TensorShapeProto.Dim`.
#[derive(Clone, PartialEq, prost::Message)]
pub struct Dim {
    /// The length of the axis (-1: unknown).
    #[prost(int64, tag = "1")]
    pub size: i64,
    /// An optional name.
    #[prost(string, tag = "2")]
    pub name: String,
}

/// `tensorflow.TensorShapeProto`.
#[derive(Clone, PartialEq, prost::Message)]
pub struct TensorShapeProto {
    /// The axes, outermost first.
    #[prost(message, repeated, tag = "2")]
    pub dim: Vec<Dim>,
    /// The rank is unknown.
    #[prost(bool, tag = "3")]
    pub unknown_rank: bool,
}

/// `tensorflow.TensorSliceProto` (only its presence is read: sliced entries are refused).
#[derive(Clone, PartialEq, prost::Message)]
pub struct TensorSliceProto {}

/// `tensorflow.BundleEntryProto`: where one tensor's bytes are and what they are.
#[derive(Clone, PartialEq, prost::Message)]
pub struct BundleEntryProto {
    /// The `tensorflow.DataType` code.
    #[prost(int32, tag = "1")]
    pub dtype: i32,
    /// The tensor's shape.
    #[prost(message, optional, tag = "2")]
    pub shape: Option<TensorShapeProto>,
    /// Which data file holds the bytes.
    #[prost(int32, tag = "3")]
    pub shard_id: i32,
    /// Where they start in it.
    #[prost(int64, tag = "4")]
    pub offset: i64,
    /// How many bytes.
    #[prost(int64, tag = "5")]
    pub size: i64,
    /// The masked CRC-32C of the bytes.
    #[prost(fixed32, tag = "6")]
    pub crc32c: u32,
    /// Partitioned variables' slices (not supported).
    #[prost(message, repeated, tag = "7")]
    pub slices: Vec<TensorSliceProto>,
}

/// `google.protobuf.BoolValue`.
#[derive(Clone, PartialEq, prost::Message)]
pub struct BoolValue {
    /// The value.
    #[prost(bool, tag = "1")]
    pub value: bool,
}

/// `TrackableObjectGraph.TrackableObject.ObjectReference`: a named edge to another node.
#[derive(Clone, PartialEq, prost::Message)]
pub struct ObjectReference {
    /// The child's index in `nodes`.
    #[prost(int32, tag = "1")]
    pub node_id: i32,
    /// The edge's name (an attribute name, a list index, a dict key).
    #[prost(string, tag = "2")]
    pub local_name: String,
}

/// `TrackableObjectGraph.TrackableObject.SerializedTensor`: a saved value of a node.
#[derive(Clone, PartialEq, prost::Message)]
pub struct SerializedTensor {
    /// The attribute's name (`VARIABLE_VALUE` for a variable).
    #[prost(string, tag = "1")]
    pub name: String,
    /// The object's own name when saved (a variable's name).
    #[prost(string, tag = "2")]
    pub full_name: String,
    /// The key of the value in the bundle.
    #[prost(string, tag = "3")]
    pub checkpoint_key: String,
}

/// `TrackableObjectGraph.TrackableObject.SlotVariableReference` (TF 1 optimizers' slots).
#[derive(Clone, PartialEq, prost::Message)]
pub struct SlotVariableReference {
    /// The node of the variable the slot belongs to.
    #[prost(int32, tag = "1")]
    pub original_variable_node_id: i32,
    /// The slot's name (`m`, `v`, ...).
    #[prost(string, tag = "2")]
    pub slot_name: String,
    /// The node of the slot variable.
    #[prost(int32, tag = "3")]
    pub slot_variable_node_id: i32,
}

/// `TrackableObjectGraph.TrackableObject.RegisteredSaver`.
#[derive(Clone, PartialEq, prost::Message)]
pub struct RegisteredSaver {
    /// The saver's registered name.
    #[prost(string, tag = "1")]
    pub name: String,
    /// The object's name in the checkpoint.
    #[prost(string, tag = "2")]
    pub object_name: String,
}

/// `TrackableObjectGraph.TrackableObject`: one node of the object graph.
#[derive(Clone, PartialEq, prost::Message)]
pub struct TrackableObject {
    /// Named edges to other nodes.
    #[prost(message, repeated, tag = "1")]
    pub children: Vec<ObjectReference>,
    /// The node's saved values.
    #[prost(message, repeated, tag = "2")]
    pub attributes: Vec<SerializedTensor>,
    /// Slot variables owned by this node (an optimizer).
    #[prost(message, repeated, tag = "3")]
    pub slot_variables: Vec<SlotVariableReference>,
    /// A registered saver (not supported on reading).
    #[prost(message, optional, tag = "4")]
    pub registered_saver: Option<RegisteredSaver>,
    /// Whether the node or a descendant has values.
    #[prost(message, optional, tag = "5")]
    pub has_checkpoint_values: Option<BoolValue>,
}

/// `tensorflow.TrackableObjectGraph`: the value under `_CHECKPOINTABLE_OBJECT_GRAPH`; node 0
/// is the root (the `tf.train.Checkpoint`).
#[derive(Clone, PartialEq, prost::Message)]
pub struct TrackableObjectGraph {
    /// The nodes, root first.
    #[prost(message, repeated, tag = "1")]
    pub nodes: Vec<TrackableObject>,
}
