//! TensorFlow's tensor bundle (`tf.train.Checkpoint`'s files): `PREFIX.index`, a table of
//! `BundleEntryProto`s keyed by tensor name (the empty key holds the `BundleHeaderProto`), and
//! `PREFIX.data-00000-of-00001`, the tensors' little-endian bytes one after another, each
//! entry carrying the masked CRC-32C of its bytes. String tensors are stored as the varint
//! lengths, a masked CRC-32C of those, then the bytes.
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use prost::Message;

use super::proto::{BundleEntryProto, BundleHeaderProto, Dim, TensorShapeProto, VersionDef};
use super::table::{get_varint, mask_crc, put_varint, read_table, unmask_crc, write_table};
use crate::error::{Error, Result};

const OP: &str = "checkpoint";
/// `tensorflow.DataType` code of strings (`DT_STRING`).
pub const DT_STRING: i32 = 7;

/// Bytes per element of a `tensorflow.DataType` with a fixed size (`None` for strings and
/// codes this reader does not know).
pub fn element_size(dtype: i32) -> Option<usize> {
    Some(match dtype {
        4 | 6 | 10 => 1,       // uint8, int8, bool
        5 | 14 | 17 | 19 => 2, // int16, bfloat16, uint16, half
        1 | 3 | 22 => 4,       // float, int32, uint32
        2 | 8 | 9 | 23 => 8,   // double, complex64, int64, uint64
        18 => 16,              // complex128
        _ => return None,
    })
}

/// A tensor's elements as stored.
#[derive(Clone, Debug, PartialEq)]
pub enum Payload {
    /// Fixed-size elements, little-endian, row-major.
    Bytes(Vec<u8>),
    /// A string tensor's elements, row-major.
    Strings(Vec<Vec<u8>>),
}

/// One tensor of a bundle.
#[derive(Clone, Debug, PartialEq)]
pub struct StoredTensor {
    /// The `tensorflow.DataType` code.
    pub dtype: i32,
    /// The shape.
    pub shape: Vec<u64>,
    /// The elements.
    pub data: Payload,
}

fn corrupt(key: &str, message: impl Into<String>) -> Error {
    Error::value(
        OP,
        format!("corrupt checkpoint entry {key:?}: {}", message.into()),
    )
}

fn elements(shape: &[u64]) -> Option<u64> {
    shape.iter().try_fold(1u64, |n, &d| n.checked_mul(d))
}

/// The data file of shard `shard` of `n`.
pub fn data_path(prefix: &Path, shard: usize, n: usize) -> PathBuf {
    let mut p = prefix.as_os_str().to_owned();
    p.push(format!(".data-{shard:05}-of-{n:05}"));
    PathBuf::from(p)
}

/// The index file of a bundle.
pub fn index_path(prefix: &Path) -> PathBuf {
    let mut p = prefix.as_os_str().to_owned();
    p.push(".index");
    PathBuf::from(p)
}

fn read_file(path: &Path) -> Result<Vec<u8>> {
    std::fs::read(path)
        .map_err(|e| Error::value(OP, format!("cannot read {}: {e}", path.display())))
}

/// A bundle read into memory: its entries checked on opening, its tensors on reading.
#[derive(Debug)]
pub struct BundleReader {
    entries: BTreeMap<String, BundleEntryProto>,
    shards: Vec<Vec<u8>>,
}

impl BundleReader {
    /// Reads `PREFIX.index` and its data files.
    pub fn open(prefix: impl AsRef<Path>) -> Result<BundleReader> {
        let prefix = prefix.as_ref();
        let index = read_file(&index_path(prefix))?;
        let (header, entries) = Self::parse_index(&index)?;
        let n = header.num_shards as usize;
        let shards = (0..n)
            .map(|i| read_file(&data_path(prefix, i, n)))
            .collect::<Result<Vec<_>>>()?;
        Self::check(entries, shards)
    }

    /// A bundle from the bytes of its index file and of its data files.
    pub fn from_parts(index: &[u8], shards: Vec<Vec<u8>>) -> Result<BundleReader> {
        let (header, entries) = Self::parse_index(index)?;
        if header.num_shards as usize != shards.len() {
            return Err(Error::value(
                OP,
                format!(
                    "the index names {} data files, {} given",
                    header.num_shards,
                    shards.len()
                ),
            ));
        }
        Self::check(entries, shards)
    }

    fn parse_index(
        index: &[u8],
    ) -> Result<(BundleHeaderProto, BTreeMap<String, BundleEntryProto>)> {
        let table = read_table(index)?;
        let mut header = None;
        let mut entries = BTreeMap::new();
        for (k, v) in table {
            if k.is_empty() {
                let h = BundleHeaderProto::decode(v.as_slice())
                    .map_err(|e| Error::value(OP, format!("corrupt bundle header: {e}")))?;
                header = Some(h);
                continue;
            }
            let key = String::from_utf8(k)
                .map_err(|_| Error::value(OP, "corrupt checkpoint index: a key is not UTF-8"))?;
            let e = BundleEntryProto::decode(v.as_slice())
                .map_err(|e| corrupt(&key, format!("bad BundleEntryProto: {e}")))?;
            entries.insert(key, e);
        }
        let header =
            header.ok_or_else(|| Error::value(OP, "corrupt checkpoint index: no bundle header"))?;
        if header.endianness != 0 {
            return Err(Error::value(OP, "big-endian checkpoints are not supported"));
        }
        if !(1..=65536).contains(&header.num_shards) {
            return Err(Error::value(
                OP,
                format!("corrupt bundle header: {} data files", header.num_shards),
            ));
        }
        if let Some(v) = &header.version {
            if v.min_consumer > 1 || v.bad_consumers.contains(&1) {
                return Err(Error::value(
                    OP,
                    format!(
                        "the bundle needs a reader of version {} or later",
                        v.min_consumer
                    ),
                ));
            }
        }
        Ok((header, entries))
    }

    fn check(
        entries: BTreeMap<String, BundleEntryProto>,
        shards: Vec<Vec<u8>>,
    ) -> Result<BundleReader> {
        for (key, e) in &entries {
            if !e.slices.is_empty() {
                return Err(corrupt(
                    key,
                    "partitioned (sliced) variables are not supported",
                ));
            }
            let shard = shards
                .get(usize::try_from(e.shard_id).unwrap_or(usize::MAX))
                .ok_or_else(|| corrupt(key, format!("no data file {}", e.shard_id)))?;
            let end = e.offset.checked_add(e.size);
            if e.offset < 0 || e.size < 0 || end.is_none_or(|end| end as u64 > shard.len() as u64) {
                return Err(corrupt(
                    key,
                    format!(
                        "bytes {}..+{} lie outside the {}-byte data file",
                        e.offset,
                        e.size,
                        shard.len()
                    ),
                ));
            }
            let shape = shape_of(key, e)?;
            let n = elements(&shape).ok_or_else(|| corrupt(key, "shape overflows"))?;
            match element_size(e.dtype) {
                Some(s) if (n.checked_mul(s as u64)) != Some(e.size as u64) => {
                    return Err(corrupt(
                        key,
                        format!("{} bytes for {n} elements of {s} bytes", e.size),
                    ));
                }
                None if e.dtype != DT_STRING => {
                    return Err(corrupt(key, format!("unsupported dtype code {}", e.dtype)));
                }
                None if n > e.size as u64 => {
                    return Err(corrupt(key, format!("{n} strings in {} bytes", e.size)));
                }
                _ => {}
            }
        }
        Ok(BundleReader { entries, shards })
    }

    /// The tensors' names, sorted.
    pub fn keys(&self) -> impl Iterator<Item = &str> {
        self.entries.keys().map(String::as_str)
    }

    /// Whether the bundle holds `key`.
    pub fn contains(&self, key: &str) -> bool {
        self.entries.contains_key(key)
    }

    /// The dtype code and shape of `key`.
    pub fn dtype_and_shape(&self, key: &str) -> Result<(i32, Vec<u64>)> {
        let e = self.entry(key)?;
        Ok((e.dtype, shape_of(key, e)?))
    }

    fn entry(&self, key: &str) -> Result<&BundleEntryProto> {
        self.entries
            .get(key)
            .ok_or_else(|| Error::value(OP, format!("the checkpoint has no tensor {key:?}")))
    }

    /// The tensor `key`, its checksum verified.
    pub fn read(&self, key: &str) -> Result<StoredTensor> {
        let e = self.entry(key)?;
        let shape = shape_of(key, e)?;
        let bytes =
            &self.shards[e.shard_id as usize][e.offset as usize..(e.offset + e.size) as usize];
        let (data, crc) = if e.dtype == DT_STRING {
            read_strings(key, bytes, elements(&shape).unwrap_or(0))?
        } else {
            (Payload::Bytes(bytes.to_vec()), crc32c::crc32c(bytes))
        };
        if crc != unmask_crc(e.crc32c) {
            return Err(corrupt(key, "checksum mismatch"));
        }
        Ok(StoredTensor {
            dtype: e.dtype,
            shape,
            data,
        })
    }
}

fn shape_of(key: &str, e: &BundleEntryProto) -> Result<Vec<u64>> {
    let Some(s) = &e.shape else {
        return Ok(Vec::new());
    };
    if s.unknown_rank {
        return Err(corrupt(key, "unknown rank"));
    }
    s.dim
        .iter()
        .map(|d| {
            u64::try_from(d.size).map_err(|_| corrupt(key, format!("axis of length {}", d.size)))
        })
        .collect()
}

/// Extends a string entry's CRC by one length as TensorFlow does: 4 little-endian bytes when it
/// fits in 32 bits, else 8.
fn extend_length(crc: u32, len: u64) -> u32 {
    match u32::try_from(len) {
        Ok(l) => crc32c::crc32c_append(crc, &l.to_le_bytes()),
        Err(_) => crc32c::crc32c_append(crc, &len.to_le_bytes()),
    }
}

/// The strings of a string entry and the entry's CRC-32C, which (as TensorFlow computes it)
/// covers each length (`extend_length`), then the stored lengths' checksum, then the
/// strings.
fn read_strings(key: &str, bytes: &[u8], n: u64) -> Result<(Payload, u32)> {
    let mut pos = 0;
    // Each string takes at least its one-byte length: `n` is bounded by the entry's size.
    let mut lengths = Vec::with_capacity(n as usize);
    for _ in 0..n {
        lengths.push(get_varint(bytes, &mut pos).ok_or_else(|| corrupt(key, "bad string length"))?);
    }
    let lengths_end = pos + 4;
    let stored = bytes
        .get(pos..lengths_end)
        .map(|b| u32::from_le_bytes([b[0], b[1], b[2], b[3]]))
        .ok_or_else(|| corrupt(key, "truncated string lengths"))?;
    let mut crc = 0;
    for len in &lengths {
        crc = extend_length(crc, *len);
    }
    if unmask_crc(stored) != crc {
        return Err(corrupt(key, "string lengths' checksum mismatch"));
    }
    crc = crc32c::crc32c_append(crc, &stored.to_le_bytes());
    pos += 4;
    let mut out = Vec::with_capacity(n as usize);
    for len in lengths {
        let end = usize::try_from(len)
            .ok()
            .and_then(|l| pos.checked_add(l))
            .filter(|&e| e <= bytes.len())
            .ok_or_else(|| corrupt(key, "a string runs past the entry"))?;
        out.push(bytes[pos..end].to_vec());
        pos = end;
    }
    if pos != bytes.len() {
        return Err(corrupt(key, "bytes left after the strings"));
    }
    Ok((
        Payload::Strings(out),
        crc32c::crc32c_append(crc, &bytes[lengths_end..]),
    ))
}

/// Collects tensors and writes them as a one-shard bundle.
#[derive(Debug, Default)]
pub struct BundleWriter {
    entries: BTreeMap<String, BundleEntryProto>,
    data: Vec<u8>,
}

impl BundleWriter {
    /// An empty bundle.
    pub fn new() -> BundleWriter {
        BundleWriter::default()
    }

    /// Adds `tensor` under `key` (in the data file in the order added).
    pub fn add(&mut self, key: &str, tensor: &StoredTensor) -> Result<()> {
        if key.is_empty() || self.entries.contains_key(key) {
            return Err(Error::value(
                OP,
                format!("tensor key {key:?} is empty or given twice"),
            ));
        }
        let n = elements(&tensor.shape)
            .ok_or_else(|| Error::value(OP, format!("{key:?}: shape overflows")))?;
        let start = self.data.len();
        let crc = match &tensor.data {
            Payload::Bytes(b) => {
                let size = element_size(tensor.dtype).ok_or_else(|| {
                    Error::value(
                        OP,
                        format!("{key:?}: dtype code {} is not numeric", tensor.dtype),
                    )
                })?;
                if n.checked_mul(size as u64) != Some(b.len() as u64) {
                    return Err(Error::value(
                        OP,
                        format!(
                            "{key:?}: {} bytes for {n} elements of {size} bytes",
                            b.len()
                        ),
                    ));
                }
                self.data.extend_from_slice(b);
                crc32c::crc32c(b)
            }
            Payload::Strings(s) => {
                if tensor.dtype != DT_STRING || s.len() as u64 != n {
                    return Err(Error::value(
                        OP,
                        format!("{key:?}: {} strings for shape {:?}", s.len(), tensor.shape),
                    ));
                }
                let mut crc = 0;
                for x in s {
                    put_varint(&mut self.data, x.len() as u64);
                    crc = extend_length(crc, x.len() as u64);
                }
                let lengths = mask_crc(crc).to_le_bytes();
                self.data.extend_from_slice(&lengths);
                crc = crc32c::crc32c_append(crc, &lengths);
                for x in s {
                    self.data.extend_from_slice(x);
                    crc = crc32c::crc32c_append(crc, x);
                }
                crc
            }
        };
        let bytes = &self.data[start..];
        let entry = BundleEntryProto {
            dtype: tensor.dtype,
            shape: Some(TensorShapeProto {
                dim: tensor
                    .shape
                    .iter()
                    .map(|&d| Dim {
                        size: d as i64,
                        name: String::new(),
                    })
                    .collect(),
                unknown_rank: false,
            }),
            shard_id: 0,
            offset: start as i64,
            size: bytes.len() as i64,
            crc32c: mask_crc(crc),
            slices: Vec::new(),
        };
        self.entries.insert(key.to_owned(), entry);
        Ok(())
    }

    /// The bytes of the index file and of the data file.
    pub fn finish(self) -> Result<(Vec<u8>, Vec<u8>)> {
        let header = BundleHeaderProto {
            num_shards: 1,
            endianness: 0,
            version: Some(VersionDef {
                producer: 1,
                min_consumer: 0,
                bad_consumers: Vec::new(),
            }),
        };
        let mut rows = vec![(Vec::new(), header.encode_to_vec())];
        rows.extend(
            self.entries
                .into_iter()
                .map(|(k, e)| (k.into_bytes(), e.encode_to_vec())),
        );
        Ok((write_table(&rows)?, self.data))
    }

    /// Writes `PREFIX.index` and `PREFIX.data-00000-of-00001` (each through a temporary file
    /// renamed into place, the data file first).
    pub fn write(self, prefix: impl AsRef<Path>) -> Result<()> {
        let prefix = prefix.as_ref();
        let (index, data) = self.finish()?;
        write_atomic(&data_path(prefix, 0, 1), &data)?;
        write_atomic(&index_path(prefix), &index)
    }
}

fn write_atomic(path: &Path, bytes: &[u8]) -> Result<()> {
    let mut tmp = path.as_os_str().to_owned();
    tmp.push(".tmp");
    let tmp = PathBuf::from(tmp);
    let fail =
        |e: std::io::Error| Error::value(OP, format!("cannot write {}: {e}", path.display()));
    std::fs::write(&tmp, bytes).map_err(fail)?;
    std::fs::rename(&tmp, path).map_err(fail)
}
