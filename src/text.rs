//! String elements: TensorFlow's `tf.string`, a tensor of byte strings.
//!
//! A [`Str`] is a `Copy` handle to an immutable byte string that lives for the rest of the
//! process: each distinct byte string is stored once (interned) and never freed. That keeps
//! the engine simple: a string tensor is [`crate::Data::Str`] over ordinary [`Values`], so every
//! dtype-generic op (reshape, transpose, gather, concat, stack, tile, slicing, `where`,
//! `equal`, `unique`, ...) runs its existing kernel on strings unchanged, and no kernel needs a
//! destructor or a reference count per element. The cost is memory: the table holds every
//! distinct string a program ever made (a corpus's lines, its tokens), which is what a text
//! pipeline keeps anyway. Strings are never differentiable and never watched.
//!
//! Equality, hashing and ordering compare the bytes (lexicographically), so results never
//! depend on where a string was stored.
use std::collections::HashSet;
use std::fmt;
use std::sync::{Mutex, OnceLock};

use crate::tensor::{Data, Element, Values};
use crate::DType;

/// One string element: immutable bytes (TensorFlow strings are byte strings, not text).
#[derive(Clone, Copy, Default, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Str(&'static [u8]);

fn table() -> &'static Mutex<HashSet<&'static [u8]>> {
    static TABLE: OnceLock<Mutex<HashSet<&'static [u8]>>> = OnceLock::new();
    TABLE.get_or_init(|| Mutex::new(HashSet::new()))
}

impl Str {
    /// The element holding `bytes` (stored once per distinct value, for the process's life).
    pub fn new(bytes: &[u8]) -> Str {
        if bytes.is_empty() {
            return Str(&[]);
        }
        let mut table = table().lock().unwrap_or_else(|e| e.into_inner());
        if let Some(&stored) = table.get(bytes) {
            return Str(stored);
        }
        let stored: &'static [u8] = Box::leak(bytes.to_vec().into_boxed_slice());
        table.insert(stored);
        Str(stored)
    }
    /// The bytes.
    pub fn bytes(self) -> &'static [u8] {
        self.0
    }
    /// The bytes as text when they are UTF-8.
    pub fn to_str(self) -> Option<&'static str> {
        std::str::from_utf8(self.0).ok()
    }
}

impl fmt::Debug for Str {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "b\"{}\"", self.0.escape_ascii())
    }
}

impl Element for Str {
    const DTYPE: DType = DType::String;
    fn into_data(values: Values<Self>) -> Data {
        Data::Str(Box::new(values))
    }
    fn values_of(data: &Data) -> Option<&Values<Self>> {
        match data {
            Data::Str(a) => Some(a),
            _ => None,
        }
    }
    /// Numbers have no string value: the empty string (what TensorFlow pads strings with).
    fn from_f64(_: f64) -> Self {
        Str::default()
    }
    /// A string has no numeric value; numeric ops refuse strings before they ask.
    fn to_f64(self) -> f64 {
        f64::NAN
    }
    fn bits(self) -> u64 {
        0
    }
    fn cacheable(self) -> bool {
        false
    }
}

impl From<ndarray::ArrayD<Str>> for Data {
    fn from(array: ndarray::ArrayD<Str>) -> Data {
        Data::Str(Box::new(Values::from_array(array)))
    }
}

impl From<Values<Str>> for Data {
    fn from(values: Values<Str>) -> Data {
        Data::Str(Box::new(values))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn interned_strings_compare_by_bytes() {
        let a = Str::new(b"hello");
        let b = Str::new(&b"hello world"[..5]);
        assert_eq!(a, b);
        assert!(std::ptr::eq(a.bytes(), b.bytes()));
        assert!(Str::new(b"abc") < Str::new(b"abd"));
        assert_eq!(Str::new(b""), Str::default());
    }
}
