//! The sorted string table of a bundle's `.index` file (TensorFlow's `table` format, LevelDB's
//! layout): data blocks of prefix-compressed entries with restart points, each followed by a
//! type byte and a masked CRC-32C; an index block of block handles; a metaindex block; a
//! 48-byte footer ending in the magic number. Only uncompressed blocks (what bundles use).
use crate::error::{Error, Result};

const OP: &str = "checkpoint.table";
/// The footer's last 8 bytes.
pub const MAGIC: u64 = 0xdb47_7524_8b80_fb57;
const FOOTER: usize = 48;
const TRAILER: usize = 5;
const RESTART_INTERVAL: usize = 16;
/// A data block is closed once it reaches this many bytes (TensorFlow's default).
const BLOCK_SIZE: usize = 262_144;

/// LevelDB's masking of a stored CRC (so a CRC of data holding CRCs stays meaningful).
pub fn mask_crc(crc: u32) -> u32 {
    crc.rotate_right(15).wrapping_add(0xa282_ead8)
}

/// The inverse of [`mask_crc`].
pub fn unmask_crc(masked: u32) -> u32 {
    masked.wrapping_sub(0xa282_ead8).rotate_left(15)
}

fn corrupt(message: impl Into<String>) -> Error {
    Error::value(OP, format!("corrupt checkpoint index: {}", message.into()))
}

/// Appends `v` as a base-128 varint.
pub fn put_varint(out: &mut Vec<u8>, mut v: u64) {
    while v >= 0x80 {
        out.push((v as u8) | 0x80);
        v >>= 7;
    }
    out.push(v as u8);
}

/// Reads a varint of at most 64 bits at `*pos`, advancing it; `None` when truncated or too long.
pub fn get_varint(data: &[u8], pos: &mut usize) -> Option<u64> {
    let mut v = 0u64;
    for shift in (0..64).step_by(7) {
        let b = *data.get(*pos)?;
        *pos += 1;
        if shift == 63 && b > 1 {
            return None;
        }
        v |= u64::from(b & 0x7f) << shift;
        if b & 0x80 == 0 {
            return Some(v);
        }
    }
    None
}

fn fixed32(data: &[u8], pos: usize) -> Option<u32> {
    let b = data.get(pos..pos.checked_add(4)?)?;
    Some(u32::from_le_bytes([b[0], b[1], b[2], b[3]]))
}

/// Offset and size of a block in the file.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Handle {
    offset: u64,
    size: u64,
}

impl Handle {
    fn read(data: &[u8], pos: &mut usize) -> Result<Handle> {
        let offset = get_varint(data, pos).ok_or_else(|| corrupt("bad block handle"))?;
        let size = get_varint(data, pos).ok_or_else(|| corrupt("bad block handle"))?;
        Ok(Handle { offset, size })
    }
    fn write(self, out: &mut Vec<u8>) {
        put_varint(out, self.offset);
        put_varint(out, self.size);
    }
}

/// The contents of block `h` of `file`, its trailer checked.
fn block<'a>(file: &'a [u8], h: Handle, what: &str) -> Result<&'a [u8]> {
    let start = usize::try_from(h.offset).map_err(|_| corrupt(format!("{what} offset")))?;
    let size = usize::try_from(h.size).map_err(|_| corrupt(format!("{what} size")))?;
    let end = start
        .checked_add(size)
        .and_then(|e| e.checked_add(TRAILER))
        .filter(|&e| e <= file.len())
        .ok_or_else(|| {
            corrupt(format!(
                "{what} at {start} of {size} bytes runs past the end of the {}-byte file",
                file.len()
            ))
        })?;
    let contents = &file[start..start + size];
    let kind = file[start + size];
    let stored = fixed32(file, start + size + 1).unwrap_or(0);
    let crc = crc32c::crc32c_append(crc32c::crc32c(contents), &[kind]);
    if unmask_crc(stored) != crc {
        return Err(corrupt(format!("{what} at {start}: checksum mismatch")));
    }
    if kind != 0 {
        return Err(Error::value(
            OP,
            format!(
                "{what} at {start} is compressed (type {kind}): only uncompressed tables are read"
            ),
        ));
    }
    debug_assert!(end <= file.len());
    Ok(contents)
}

/// The entries of one block, in order, keys expanded.
fn entries(contents: &[u8], what: &str, out: &mut Vec<(Vec<u8>, Vec<u8>)>) -> Result<()> {
    let n = contents.len();
    let restarts = fixed32(contents, n.wrapping_sub(4))
        .filter(|_| n >= 4)
        .ok_or_else(|| corrupt(format!("{what} shorter than its restart count")))?;
    let limit = (restarts as usize)
        .checked_mul(4)
        .and_then(|r| r.checked_add(4))
        .and_then(|r| n.checked_sub(r))
        .ok_or_else(|| corrupt(format!("{what}: {restarts} restart points do not fit")))?;
    let mut pos = 0;
    let mut key: Vec<u8> = Vec::new();
    while pos < limit {
        let bad = || corrupt(format!("{what}: bad entry at byte {pos}"));
        let mut p = pos;
        let shared = get_varint(contents, &mut p).ok_or_else(bad)? as usize;
        let unshared = get_varint(contents, &mut p).ok_or_else(bad)?;
        let value_len = get_varint(contents, &mut p).ok_or_else(bad)?;
        let rest = (limit - p.min(limit)) as u64;
        if shared > key.len() || p > limit || unshared > rest || value_len > rest - unshared {
            return Err(bad());
        }
        let (unshared, value_len) = (unshared as usize, value_len as usize);
        key.truncate(shared);
        key.extend_from_slice(&contents[p..p + unshared]);
        p += unshared;
        out.push((key.clone(), contents[p..p + value_len].to_vec()));
        pos = p + value_len;
    }
    Ok(())
}

/// Every `(key, value)` of a table held in `file`, in key order.
pub fn read_table(file: &[u8]) -> Result<Vec<(Vec<u8>, Vec<u8>)>> {
    if file.len() < FOOTER {
        return Err(corrupt(format!(
            "{} bytes is shorter than the {FOOTER}-byte footer",
            file.len()
        )));
    }
    let footer = &file[file.len() - FOOTER..];
    let magic = u64::from_le_bytes(footer[40..48].try_into().unwrap_or([0; 8]));
    if magic != MAGIC {
        return Err(corrupt("not a table (bad magic number)"));
    }
    let mut pos = 0;
    let _meta = Handle::read(footer, &mut pos)?;
    let index = Handle::read(footer, &mut pos)?;
    let mut handles = Vec::new();
    entries(
        block(file, index, "index block")?,
        "index block",
        &mut handles,
    )?;
    let mut out = Vec::new();
    for (i, (_, value)) in handles.iter().enumerate() {
        let mut p = 0;
        let h = Handle::read(value, &mut p)?;
        let what = format!("data block {i}");
        entries(block(file, h, &what)?, &what, &mut out)?;
    }
    if out.windows(2).any(|w| w[0].0 >= w[1].0) {
        return Err(corrupt("keys out of order"));
    }
    Ok(out)
}

/// Builds one block.
#[derive(Default)]
struct BlockBuilder {
    buf: Vec<u8>,
    restarts: Vec<u32>,
    count: usize,
    last: Vec<u8>,
}

impl BlockBuilder {
    fn add(&mut self, key: &[u8], value: &[u8]) {
        let shared = if self.count % RESTART_INTERVAL == 0 {
            self.restarts.push(self.buf.len() as u32);
            0
        } else {
            self.last
                .iter()
                .zip(key)
                .take_while(|(a, b)| a == b)
                .count()
        };
        put_varint(&mut self.buf, shared as u64);
        put_varint(&mut self.buf, (key.len() - shared) as u64);
        put_varint(&mut self.buf, value.len() as u64);
        self.buf.extend_from_slice(&key[shared..]);
        self.buf.extend_from_slice(value);
        self.last.clear();
        self.last.extend_from_slice(key);
        self.count += 1;
    }
    fn finish(&mut self) -> Vec<u8> {
        if self.restarts.is_empty() {
            self.restarts.push(0);
        }
        let mut out = std::mem::take(&mut self.buf);
        for r in &self.restarts {
            out.extend_from_slice(&r.to_le_bytes());
        }
        out.extend_from_slice(&(self.restarts.len() as u32).to_le_bytes());
        *self = BlockBuilder::default();
        out
    }
}

fn emit(file: &mut Vec<u8>, contents: &[u8]) -> Handle {
    let h = Handle {
        offset: file.len() as u64,
        size: contents.len() as u64,
    };
    file.extend_from_slice(contents);
    file.push(0);
    let crc = crc32c::crc32c_append(crc32c::crc32c(contents), &[0]);
    file.extend_from_slice(&mask_crc(crc).to_le_bytes());
    h
}

/// A table holding `entries`, which must be sorted by key with no key twice.
pub fn write_table(entries: &[(Vec<u8>, Vec<u8>)]) -> Result<Vec<u8>> {
    if entries.windows(2).any(|w| w[0].0 >= w[1].0) {
        return Err(Error::value(OP, "table keys must be sorted and distinct"));
    }
    let mut file = Vec::new();
    let mut data = BlockBuilder::default();
    let mut index = BlockBuilder::default();
    for (i, (k, v)) in entries.iter().enumerate() {
        data.add(k, v);
        if data.buf.len() >= BLOCK_SIZE || i + 1 == entries.len() {
            let h = emit(&mut file, &data.finish());
            let mut hv = Vec::new();
            h.write(&mut hv);
            index.add(k, &hv);
        }
    }
    let meta = emit(&mut file, &BlockBuilder::default().finish());
    let idx = emit(&mut file, &index.finish());
    let mut footer = Vec::with_capacity(FOOTER);
    meta.write(&mut footer);
    idx.write(&mut footer);
    footer.resize(FOOTER - 8, 0);
    footer.extend_from_slice(&MAGIC.to_le_bytes());
    file.extend_from_slice(&footer);
    Ok(file)
}
