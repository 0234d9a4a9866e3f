//! TensorFlow's counter-based generator (Philox4x32-10) and the distributions its CPU kernels
//! build on it, so rustape draws TensorFlow's values bit for bit.
//!
//! A `Philox` is a 128-bit counter and a 64-bit key; each call gives four 32-bit words (ten
//! rounds of Salmon et al.'s Philox4x32) and advances the counter by one. TensorFlow fills a
//! tensor in *groups*: a distribution turns one 128-bit output into a group of values (four
//! float32 uniforms or normals, two float64 or int64 values), group `g` reading the counter
//! advanced by `g`; a distribution that may need more words per group (the truncated normal,
//! by rejection) gets a region of 256 outputs per value instead. The values of a tensor thus
//! depend only on the key, the counter and each element's position, so large tensors fill in
//! parallel with the same bits.
use rayon::prelude::*;

use crate::error::Result;

/// Philox4x32-10: a 128-bit counter (four words, least significant first) and a 64-bit key.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Philox {
    /// The counter, least significant word first.
    pub counter: [u32; 4],
    /// The key, least significant word first.
    pub key: [u32; 2],
}

const M0: u64 = 0xD251_1F53;
const M1: u64 = 0xCD9E_8D57;
const W0: u32 = 0x9E37_79B9;
const W1: u32 = 0xBB67_AE85;

/// Outputs reserved per value by a distribution that takes a variable number of words
/// (TensorFlow's `kReservedSamplesPerOutput`); stateful kernels advance their state by it.
pub const RESERVED_PER_OUTPUT: u64 = 256;

impl Philox {
    /// A generator from a 64-bit key and a 128-bit counter given as two 64-bit halves (the
    /// layout of TensorFlow's `key`/`counter` tensors and of a `Generator`'s state).
    pub fn from_words(counter: [u64; 2], key: u64) -> Philox {
        Philox {
            counter: [
                counter[0] as u32,
                (counter[0] >> 32) as u32,
                counter[1] as u32,
                (counter[1] >> 32) as u32,
            ],
            key: [key as u32, (key >> 32) as u32],
        }
    }

    /// The counter as two 64-bit halves and the key (inverse of `from_words`).
    pub fn words(&self) -> ([u64; 2], u64) {
        let c = self.counter.map(u64::from);
        (
            [c[0] | c[1] << 32, c[2] | c[3] << 32],
            u64::from(self.key[0]) | u64::from(self.key[1]) << 32,
        )
    }

    /// The generator of the stateless ops for a seed pair (TensorFlow's key derivation: the
    /// seeds, as a counter under a fixed key, are scrambled into a new key and counter).
    pub fn from_seed_pair(seed: [u64; 2]) -> Philox {
        let mix = Philox::from_words(seed, 0x0246_1E29_3EC8_F720).block();
        Philox {
            counter: [0, 0, mix[2], mix[3]],
            key: [mix[0], mix[1]],
        }
    }

    /// The generator of a stateful op with seeds `(seed, seed2)` (TensorFlow's
    /// `PhiloxRandom(seed, seed2)`: the first seed is the key, the second the counter's high
    /// half).
    pub fn from_op_seeds(seed: u64, seed2: u64) -> Philox {
        Philox::from_words([0, seed2], seed)
    }

    /// The four words of the current counter (without advancing).
    pub fn block(&self) -> [u32; 4] {
        let mut c = self.counter;
        let mut k = self.key;
        for round in 0..10 {
            let p0 = M0 * u64::from(c[0]);
            let p1 = M1 * u64::from(c[2]);
            c = [
                (p1 >> 32) as u32 ^ c[1] ^ k[0],
                p1 as u32,
                (p0 >> 32) as u32 ^ c[3] ^ k[1],
                p0 as u32,
            ];
            if round < 9 {
                k[0] = k[0].wrapping_add(W0);
                k[1] = k[1].wrapping_add(W1);
            }
        }
        c
    }

    /// The next four words; the counter advances by one.
    #[allow(clippy::should_implement_trait)]
    pub fn next(&mut self) -> [u32; 4] {
        let out = self.block();
        self.skip(1);
        out
    }

    /// Advances the 128-bit counter by `n`.
    pub fn skip(&mut self, n: u64) {
        let (c, _) = self.words();
        let low = c[0] as u128 | (c[1] as u128) << 64;
        let (lo, hi) = {
            let v = low.wrapping_add(u128::from(n));
            (v as u64, (v >> 64) as u64)
        };
        let key = self.key;
        *self = Philox::from_words([lo, hi], 0);
        self.key = key;
    }

    /// The counter advanced by `n` (a copy).
    pub fn skipped(mut self, n: u64) -> Philox {
        self.skip(n);
        self
    }
}

/// One word at a time from a `Philox` (TensorFlow's `SingleSampleAdapter`): the words of an
/// output not yet used are handed out before the next output is made.
pub struct Single {
    gen: Philox,
    words: [u32; 4],
    used: usize,
}

impl Single {
    /// Words from `gen` onwards.
    pub fn new(gen: Philox) -> Single {
        Single {
            gen,
            words: [0; 4],
            used: 4,
        }
    }
    /// The next word.
    pub fn word(&mut self) -> u32 {
        if self.used == 4 {
            self.words = self.gen.next();
            self.used = 0;
        }
        self.used += 1;
        self.words[self.used - 1]
    }
    /// A float64 in [0, 1) from the next two words (`SimplePhilox::RandDouble`).
    pub fn double(&mut self) -> f64 {
        let a = self.word();
        let b = self.word();
        u64_to_f64(a, b)
    }
}

/// A float32 in [0, 1) from the low 23 bits of `x` (TensorFlow's `Uint32ToFloat`).
#[inline]
pub fn u32_to_f32(x: u32) -> f32 {
    f32::from_bits(127 << 23 | (x & 0x7F_FFFF)) - 1.0
}

/// A float64 in [0, 1) from the low 20 bits of `hi` and all of `lo` (`Uint64ToDouble`).
#[inline]
pub fn u64_to_f64(hi: u32, lo: u32) -> f64 {
    f64::from_bits(1023 << 52 | u64::from(hi & 0xF_FFFF) << 32 | u64::from(lo)) - 1.0
}

/// Two standard normals from two words (TensorFlow's `BoxMullerFloat`: `sin` first, then
/// `cos`, the angle rounded to float32 from a float64 product). `ln`, `sin` and `cos` are
/// the platform's (glibc's, as TensorFlow's Linux kernels call them).
#[inline]
pub fn box_muller_f32(x0: u32, x1: u32) -> [f32; 2] {
    let u1 = u32_to_f32(x0).max(1.0e-7);
    let v1 = (2.0 * std::f64::consts::PI * f64::from(u32_to_f32(x1))) as f32;
    let u2 = (-2.0f32 * u1.ln()).sqrt();
    let (s, c) = v1.sin_cos();
    [s * u2, c * u2]
}

/// Two standard normals from four words (`BoxMullerDouble`).
#[inline]
pub fn box_muller_f64(x: [u32; 4]) -> [f64; 2] {
    let u1 = u64_to_f64(x[0], x[1]).max(1.0e-7);
    let v1 = 2.0 * std::f64::consts::PI * u64_to_f64(x[2], x[3]);
    let u2 = (-2.0 * u1.ln()).sqrt();
    let (s, c) = v1.sin_cos();
    [s * u2, c * u2]
}

/// Groups per parallel task.
const GROUPS_PER_TASK: usize = 1024;

/// Elements above which groups are filled on rayon's pool.
const PARALLEL_ELEMENTS: usize = 1 << 16;

/// `n` values in groups of `K`, group `g` made by `group` from the generator advanced by
/// `g * stride` (TensorFlow's `FillPhiloxRandom`: stride 1 for distributions using one
/// output per group, `K * 256 / 4` for variable ones); a last partial group is cut short.
pub fn fill<T, const K: usize>(
    op: &str,
    base: Philox,
    n: usize,
    stride: u64,
    group: impl Fn(Philox) -> [T; K] + Sync,
) -> Result<Vec<T>>
where
    T: Copy + Default + Send + Sync,
{
    let mut out = crate::memory::try_filled(op, n, T::default())?;
    let run = |(task, chunk): (usize, &mut [T])| {
        let first = (task * GROUPS_PER_TASK) as u64;
        for (g, values) in chunk.chunks_mut(K).enumerate() {
            let gen = base.skipped((first + g as u64).wrapping_mul(stride));
            let v = group(gen);
            values.copy_from_slice(&v[..values.len()]);
        }
    };
    let task = GROUPS_PER_TASK * K;
    if n >= PARALLEL_ELEMENTS && super::kernel::may_split() {
        out.par_chunks_mut(task).enumerate().for_each(run);
    } else {
        out.chunks_mut(task).enumerate().for_each(run);
    }
    Ok(out)
}

/// A group of four float32 uniforms in [0, 1).
pub fn uniform_f32(gen: Philox) -> [f32; 4] {
    gen.block().map(u32_to_f32)
}

/// A group of two float64 uniforms in [0, 1).
pub fn uniform_f64(gen: Philox) -> [f64; 2] {
    let w = gen.block();
    [u64_to_f64(w[0], w[1]), u64_to_f64(w[2], w[3])]
}

/// A group of four float32 standard normals.
pub fn normal_f32(gen: Philox) -> [f32; 4] {
    let w = gen.block();
    let [a, b] = box_muller_f32(w[0], w[1]);
    let [c, d] = box_muller_f32(w[2], w[3]);
    [a, b, c, d]
}

/// A group of two float64 standard normals.
pub fn normal_f64(gen: Philox) -> [f64; 2] {
    box_muller_f64(gen.block())
}

/// A group of four float32 standard normals of magnitude below 2 (pairs redrawn word by
/// word: TensorFlow's `TruncatedNormalDistribution`).
pub fn truncated_f32(gen: Philox) -> [f32; 4] {
    let mut words = Single::new(gen);
    let mut out = [0.0f32; 4];
    let mut k = 0;
    loop {
        let (a, b) = (words.word(), words.word());
        for v in box_muller_f32(a, b) {
            if v.abs() < 2.0 {
                out[k] = v;
                k += 1;
                if k == 4 {
                    return out;
                }
            }
        }
    }
}

/// A group of two float64 standard normals of magnitude below 2.
pub fn truncated_f64(gen: Philox) -> [f64; 2] {
    let mut words = Single::new(gen);
    let mut out = [0.0f64; 2];
    let mut k = 0;
    loop {
        let x = [words.word(), words.word(), words.word(), words.word()];
        for v in box_muller_f64(x) {
            if v.abs() < 2.0 {
                out[k] = v;
                k += 1;
                if k == 2 {
                    return out;
                }
            }
        }
    }
}

/// The generator stride of a variable distribution with groups of `k` values.
pub const fn variable_stride(k: u64) -> u64 {
    k * RESERVED_PER_OUTPUT / 4
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn known_answer() {
        // Random123's published Philox4x32-10 vectors.
        let zero = Philox::from_words([0, 0], 0);
        assert_eq!(
            zero.block(),
            [0x6627_e8d5, 0xe169_c58d, 0xbc57_ac4c, 0x9b00_dbd8]
        );
        let ones = Philox {
            counter: [u32::MAX; 4],
            key: [u32::MAX; 2],
        };
        assert_eq!(
            ones.block(),
            [0x408f_276d, 0x41c8_3b0e, 0xa20b_c7c6, 0x6d54_51fd]
        );
    }

    #[test]
    fn skip_carries() {
        let mut g = Philox::from_words([u64::MAX, 7], 3);
        g.skip(2);
        assert_eq!(g.words(), ([1, 8], 3));
    }
}
