//! Elementwise math that LLVM vectorises when mapped over a slice: exp, expm1, ln, ln_1p, tanh,
//! sigmoid, sin and cos for f32 and f64.
//!
//! Each function is branch-free: a Cody-Waite range reduction, a polynomial, and selects for the
//! edges (inf, NaN, -0.0, overflow, underflow). Only plain `*` and `+` are used (never `mul_add`,
//! which is a libm call without FMA and which LLVM may not form on its own), so the AVX-512 and
//! AVX2 builds of a loop compute bit-identical results to the baseline SSE2 one, and a value
//! never depends on which kernel (or tensor size) computed it.
//!
//! Accuracy against std (glibc's libm, and for f32 the f64 result rounded) is tested over dense
//! sweeps in `tests/elementwise_kernels.rs`; the bounds stated there are a few ulp.
//!
//! sin and cos reduce by multiples of pi/2 in f64 with a three-part pi/2; arguments beyond
//! [`TRIG_LIMIT`] (and inf/NaN) are recomputed with std by [`map_slice_trig`].
use std::mem::MaybeUninit;

/// The vectorisable functions, for the dtypes they exist for.
pub(crate) trait VMath: Copy + Send + Sync + 'static {
    fn v_exp(self) -> Self;
    fn v_exp_m1(self) -> Self;
    fn v_ln(self) -> Self;
    fn v_ln_1p(self) -> Self;
    fn v_tanh(self) -> Self;
    fn v_sigmoid(self) -> Self;
    /// sin for `|x| <= TRIG_LIMIT`; anything elsewhere (see [`map_slice_trig`]).
    fn v_sin_reduced(self) -> Self;
    /// cos for `|x| <= TRIG_LIMIT`; anything elsewhere.
    fn v_cos_reduced(self) -> Self;
    fn std_sin(self) -> Self;
    fn std_cos(self) -> Self;
    fn in_trig_range(self) -> bool;
}

/// Beyond this the three-part pi/2 reduction loses accuracy near multiples of pi/2.
pub(crate) const TRIG_LIMIT: f64 = 1e5;

#[inline(always)]
fn sel<T>(c: bool, a: T, b: T) -> T {
    if c {
        a
    } else {
        b
    }
}

macro_rules! horner {
    ($t:ty) => {
        /// `c[0] + x c[1] + x^2 c[2] + ...` (`c` is a constant table: the loop unrolls).
        #[inline(always)]
        fn horner(x: $t, c: &[$t]) -> $t {
            let mut acc = c[c.len() - 1];
            let mut i = c.len() - 1;
            while i > 0 {
                i -= 1;
                acc = acc * x + c[i];
            }
            acc
        }

        /// [`horner`] in fused multiply-adds (one rounding per step).
        #[inline(always)]
        #[allow(dead_code)] // used by the float types' tanh only
        fn horner_fused(x: $t, c: &[$t]) -> $t {
            let mut acc = c[c.len() - 1];
            let mut i = c.len() - 1;
            while i > 0 {
                i -= 1;
                acc = acc.mul_add(x, c[i]);
            }
            acc
        }
    };
}

/// `1/k!` for `k = first, first + step, ...` (N of them), signs alternating if `alternate`.
const fn inv_fact<const N: usize>(first: usize, step: usize, alternate: bool) -> [f64; N] {
    let mut out = [0.0; N];
    let mut i = 0;
    while i < N {
        let k = first + i * step;
        let mut f = 1.0;
        let mut j = 2;
        while j <= k {
            f *= j as f64;
            j += 1;
        }
        out[i] = if alternate && i % 2 == 1 {
            -1.0 / f
        } else {
            1.0 / f
        };
        i += 1;
    }
    out
}

/// `2 / (2k + 3)` for k = 0..N: the series of `(log((1+s)/(1-s)) - 2s) / (s z)`, z = s^2.
const fn log_series<const N: usize>() -> [f64; N] {
    let mut out = [0.0; N];
    let mut i = 0;
    while i < N {
        out[i] = 2.0 / (2 * i + 3) as f64;
        i += 1;
    }
    out
}

const fn to_f32<const N: usize>(c: [f64; N]) -> [f32; N] {
    let mut out = [0.0f32; N];
    let mut i = 0;
    while i < N {
        out[i] = c[i] as f32;
        i += 1;
    }
    out
}

/// exp, expm1, ln, ln_1p, tanh and sigmoid for one float type. `$n` rounds a float to an integer
/// held in float and in `$i` with the 1.5 * 2^mantissa trick (no float<->int conversion, which
/// does not vectorise for 64-bit lanes without AVX-512DQ).
macro_rules! exp_log {
    ($m:ident, $t:ident, $u:ident, $i:ident, mant: $mant:expr, bias: $bias:expr,
     ln2: ($hi:expr, $lo:expr), exp_max: $emax:expr, exp_min: $emin:expr, em1_min: $em1min:expr,
     pow_floor: $pfloor:expr, sub_scale: $subk:expr,
     exp_c: $expc:expr, em1_c: $em1c:expr, log_c: $logc:expr) => {
        mod $m {
            #[allow(unused_imports)] // to_f32 is for the f32 tables only
            use super::{inv_fact, log_series, sel, to_f32};
            const MAGIC: $t = 1.5 * (1u64 << $mant) as $t;
            const LN2_HI: $t = $hi;
            const LN2_LO: $t = $lo;
            const EXP_C: &[$t] = &$expc;
            const EM1_C: &[$t] = &$em1c;
            const LOG_C: &[$t] = &$logc;
            horner!($t);

            /// `(round(v), round(v) as int)`, ties to even; |v| < 2^(mant-1).
            #[inline(always)]
            fn round_int(v: $t) -> ($t, $i) {
                let t = v + MAGIC;
                (t - MAGIC, t.to_bits().wrapping_sub(MAGIC.to_bits()) as $i)
            }

            /// `n` as a float (|n| < 2^(mant-1)).
            #[inline(always)]
            fn int_to_float(n: $i) -> $t {
                $t::from_bits(MAGIC.to_bits().wrapping_add(n as $u)) - MAGIC
            }

            /// 2^n for n in the normal exponent range.
            #[inline(always)]
            fn pow2(n: $i) -> $t {
                $t::from_bits(((n + $bias) as $u) << $mant)
            }

            /// `(x - n ln2, n)` with n = round(x / ln2), for already clamped `x`.
            #[inline(always)]
            fn reduce_ln2(x: $t) -> ($t, $i) {
                let (nf, n) = round_int(x * std::$t::consts::LOG2_E);
                ((x - nf * LN2_HI) - nf * LN2_LO, n)
            }

            #[inline(always)]
            pub fn exp(x: $t) -> $t {
                // NaN fails both comparisons and stays NaN through the polynomial.
                let x = sel(x > $emax, $emax, sel(x < $emin, $emin, x));
                let (r, n) = reduce_ln2(x);
                let p = horner(r, EXP_C);
                // Two factors so that overflow gives inf and underflow rounds once.
                let n1 = n >> 1;
                p * pow2(n1) * pow2(n - n1)
            }

            #[inline(always)]
            pub fn exp_m1(x: $t) -> $t {
                let xc = sel(x > $emax, $emax, sel(x < $em1min, $em1min, x));
                let (r, n) = reduce_ln2(xc);
                let em = r + r * r * horner(r, EM1_C);
                // expm1(x) = 2^n (expm1(r) + 1 - 2^-n); 2^-n stops mattering below 2^-pfloor.
                let neg = sel(-n < -$pfloor, -$pfloor, -n);
                let n1 = n >> 1;
                let y = (em + (1.0 - pow2(neg))) * pow2(n1) * pow2(n - n1);
                sel(x == 0.0, x, y)
            }

            /// `(f, k)` with `u = 2^k (1 + f)`, `1 + f` in [sqrt(1/2), sqrt(2)), for normal `u > 0`.
            #[inline(always)]
            fn split_log(u: $t) -> ($t, $i) {
                let ix = u.to_bits();
                let tmp = ix.wrapping_sub(std::$t::consts::FRAC_1_SQRT_2.to_bits());
                let k = (tmp as $i) >> $mant;
                let top: $u = !0 << $mant;
                ($t::from_bits(ix.wrapping_sub(tmp & top)) - 1.0, k)
            }

            /// `k ln2 + log(1 + f) + c`, for a small correction `c` (fdlibm's arrangement).
            #[inline(always)]
            fn log_kernel(f: $t, k: $i, c: $t) -> $t {
                let s = f / (2.0 + f);
                let z = s * s;
                let r = z * horner(z, LOG_C);
                let hfsq = 0.5 * f * f;
                let kf = int_to_float(k);
                kf * LN2_HI - ((hfsq - (s * (hfsq + r) + (kf * LN2_LO + c))) - f)
            }

            #[inline(always)]
            pub fn ln(x: $t) -> $t {
                let sub = x < $t::MIN_POSITIVE;
                let (f, k) = split_log(sel(sub, x * $subk.0, x));
                let y = log_kernel(f, k + sel(sub, -$subk.1, 0), 0.0);
                // NaN's bits would split into a finite f: select it back.
                let y = sel(x == $t::INFINITY || x.is_nan(), x, y);
                let y = sel(x < 0.0, $t::NAN, y);
                sel(x == 0.0, $t::NEG_INFINITY, y)
            }

            #[inline(always)]
            pub fn ln_1p(x: $t) -> $t {
                let u = 1.0 + x;
                let (f, k) = split_log(u);
                // log(1 + x) = log(u) + (1 + x - u) / u; the rounding error of u is exact here.
                let c = sel(k >= 2, 1.0 - (u - x), x - (u - 1.0)) / u;
                let c = sel(k < $mant + 2, c, 0.0);
                let y = log_kernel(f, k, c);
                let y = sel(x == $t::INFINITY || x.is_nan(), x, y);
                let y = sel(x < -1.0, $t::NAN, y);
                let y = sel(x == -1.0, $t::NEG_INFINITY, y);
                sel(x == 0.0, x, y)
            }

            /// `-e / (e + 2)` with `e = expm1(-2|x|)`, sign of `x`. `exp_m1` inlined for its
            /// argument `t <= 0` (or NaN): no upper clamp; `2^n` normal for the clamped `t`,
            /// so one scaling gives the two factors' exact product; at `t = 0` the sum is 0
            /// as `exp_m1`'s own selection of `t`, up to a sign the quotient's copysign drops.
            /// Float32's polynomial in fused multiply-adds: tanh is bound by its vector
            /// instructions, and fusing saves a quarter of them (4096 float32 tanh 2.66 ->
            /// 1.58 us with AVX-512), as accurate as `exp_m1`'s form (see the tests).
            #[inline(always)]
            pub fn tanh(x: $t) -> $t {
                let t = -2.0 * x.abs();
                let (r, n) = reduce_ln2(sel(t < $em1min, $em1min, t));
                let em = if std::mem::size_of::<$t>() == 4 {
                    (r * r).mul_add(horner_fused(r, EM1_C), r)
                } else {
                    // Float64 keeps its bits (its cost is not the polynomial's).
                    r + r * r * horner(r, EM1_C)
                };
                let e = (em + (1.0 - pow2(-n))) * pow2(n);
                (-e / (e + 2.0)).copysign(x)
            }

            #[inline(always)]
            pub fn sigmoid(x: $t) -> $t {
                1.0 / (1.0 + exp(-x))
            }
        }
    };
}

exp_log!(f64m, f64, u64, i64, mant: 52, bias: 1023,
    ln2: (6.931_471_803_691_238e-1, 1.908_214_929_270_587_7e-10),
    exp_max: 710.0, exp_min: -746.0, em1_min: -40.0, pow_floor: 100, sub_scale: (18014398509481984.0, 54),
    exp_c: inv_fact::<14>(0, 1, false),
    em1_c: inv_fact::<12>(2, 1, false),
    log_c: log_series::<10>());

exp_log!(f32m, f32, u32, i32, mant: 23, bias: 127,
    ln2: (0.693_145_75, 1.428_606_8e-6),
    exp_max: 89.0, exp_min: -104.0, em1_min: -20.0, pow_floor: 60, sub_scale: (33554432.0, 25),
    exp_c: to_f32(inv_fact::<8>(0, 1, false)),
    em1_c: to_f32(inv_fact::<7>(2, 1, false)),
    log_c: to_f32(log_series::<4>()));

/// sin and cos by reduction modulo pi/2 in f64 (fdlibm's 33-bit pieces of pi/2, so that
/// `n * P1` and `n * P2` are exact for |n| < 2^20) and Taylor polynomials on [-pi/4, pi/4].
mod trig {
    use super::sel;
    const MAGIC: f64 = 6755399441055744.0;
    const P1: f64 = 1.570_796_326_734_125_6;
    const P2: f64 = 6.077_100_506_303_966e-11;
    const P3: f64 = 2.022_266_248_711_166_5e-21;
    const P3T: f64 = 8.478_427_660_368_9e-32;
    horner!(f64);

    /// `(r, n)` with `x = n pi/2 + r`, |r| <= pi/4 (for |x| <= TRIG_LIMIT).
    #[inline(always)]
    fn reduce(x: f64) -> (f64, u64) {
        let t = x * std::f64::consts::FRAC_2_PI + MAGIC;
        let nf = t - MAGIC;
        let n = t.to_bits().wrapping_sub(MAGIC.to_bits());
        (((x - nf * P1) - nf * P2) - nf * P3 - nf * P3T, n)
    }

    /// sin(r + q pi/2) from sin r and cos r: quadrant by `q & 1`, sign by `q & 2`.
    #[inline(always)]
    fn quadrant(r: f64, q: u64, sin_c: &[f64], cos_c: &[f64]) -> f64 {
        let z = r * r;
        let s = r + r * z * horner(z, sin_c);
        let c = (1.0 - 0.5 * z) + z * z * horner(z, cos_c);
        let v = sel(q & 1 == 1, c, s);
        f64::from_bits(v.to_bits() ^ ((q & 2) << 62))
    }

    // sin r = r + r z (-1/3! + z/5! - ...), cos r = 1 - z/2 + z^2 (1/4! - z/6! + ...).
    const SIN64: [f64; 8] = neg(super::inv_fact::<8>(3, 2, true));
    const COS64: [f64; 7] = super::inv_fact::<7>(4, 2, true);
    const SIN32: [f64; 4] = neg(super::inv_fact::<4>(3, 2, true));
    const COS32: [f64; 4] = super::inv_fact::<4>(4, 2, true);

    #[inline(always)]
    pub fn sin64(x: f64) -> f64 {
        let (r, n) = reduce(x);
        sel(x == 0.0, x, quadrant(r, n, &SIN64, &COS64))
    }
    #[inline(always)]
    pub fn cos64(x: f64) -> f64 {
        let (r, n) = reduce(x);
        quadrant(r, n.wrapping_add(1), &SIN64, &COS64)
    }
    #[inline(always)]
    pub fn sin32(x: f32) -> f32 {
        let (r, n) = reduce(x as f64);
        sel(x == 0.0, x, quadrant(r, n, &SIN32, &COS32) as f32)
    }
    #[inline(always)]
    pub fn cos32(x: f32) -> f32 {
        let (r, n) = reduce(x as f64);
        quadrant(r, n.wrapping_add(1), &SIN32, &COS32) as f32
    }

    const fn neg<const N: usize>(c: [f64; N]) -> [f64; N] {
        let mut out = c;
        let mut i = 0;
        while i < N {
            out[i] = -c[i];
            i += 1;
        }
        out
    }
}

macro_rules! impl_vmath {
    ($t:ident, $m:ident, $sin:ident, $cos:ident) => {
        impl VMath for $t {
            #[inline(always)]
            fn v_exp(self) -> $t {
                $m::exp(self)
            }
            #[inline(always)]
            fn v_exp_m1(self) -> $t {
                $m::exp_m1(self)
            }
            #[inline(always)]
            fn v_ln(self) -> $t {
                $m::ln(self)
            }
            #[inline(always)]
            fn v_ln_1p(self) -> $t {
                $m::ln_1p(self)
            }
            #[inline(always)]
            fn v_tanh(self) -> $t {
                $m::tanh(self)
            }
            #[inline(always)]
            fn v_sigmoid(self) -> $t {
                $m::sigmoid(self)
            }
            #[inline(always)]
            fn v_sin_reduced(self) -> $t {
                trig::$sin(self)
            }
            #[inline(always)]
            fn v_cos_reduced(self) -> $t {
                trig::$cos(self)
            }
            fn std_sin(self) -> $t {
                self.sin()
            }
            fn std_cos(self) -> $t {
                self.cos()
            }
            #[inline(always)]
            fn in_trig_range(self) -> bool {
                self.abs() <= TRIG_LIMIT as $t
            }
        }
    };
}
impl_vmath!(f64, f64m, sin64, cos64);
impl_vmath!(f32, f32m, sin32, cos32);

// ---------------------------------------------------------------------------------------------
// Running a function over slices, with the widest vectors the CPU has

#[inline(always)]
fn each<T: Copy, U>(src: &[T], dst: &mut [MaybeUninit<U>], f: &impl Fn(T) -> U) {
    for (o, &x) in dst.iter_mut().zip(src) {
        o.write(f(x));
    }
}

#[inline(always)]
fn each2<T: Copy, U>(a: &[T], b: &[T], dst: &mut [MaybeUninit<U>], f: &impl Fn(T, T) -> U) {
    for ((o, &x), &y) in dst.iter_mut().zip(a).zip(b) {
        o.write(f(x, y));
    }
}

#[inline(always)]
fn each3<C: Copy, T: Copy, U>(
    c: &[C],
    a: &[T],
    b: &[T],
    dst: &mut [MaybeUninit<U>],
    f: &impl Fn(C, T, T) -> U,
) {
    for (((o, &p), &x), &y) in dst.iter_mut().zip(c).zip(a).zip(b) {
        o.write(f(p, x, y));
    }
}

/// Which loop body to run: the same code compiled for AVX-512, for AVX2, or for the baseline.
#[derive(Clone, Copy, PartialEq)]
pub(crate) enum Isa {
    Avx512,
    Avx2,
    Base,
}

#[inline]
pub(crate) fn isa(n: usize) -> Isa {
    // Below a few vectors the feature check and the call cost more than they save.
    #[cfg(target_arch = "x86_64")]
    if n >= 32 {
        if std::arch::is_x86_feature_detected!("avx512f") {
            return Isa::Avx512;
        }
        if std::arch::is_x86_feature_detected!("avx2") {
            return Isa::Avx2;
        }
    }
    let _ = n;
    Isa::Base
}

/// Defines `$name(args..)` running `$each(args..)` under the best available target features.
macro_rules! simd_variants {
    ($name:ident, $each:ident, <$($g:ident),*>, ($($arg:ident: $ty:ty),*), [$($f:tt)*], $len:ident) => {
        pub(crate) fn $name<$($g: Copy,)* U, F: $($f)*>($($arg: $ty,)* f: &F) {
            #[cfg(target_arch = "x86_64")]
            {
                #[target_feature(enable = "avx512f,avx512vl,avx512dq,avx512bw,avx2,fma")]
                fn wide<$($g: Copy,)* U, F: $($f)*>($($arg: $ty,)* f: &F) {
                    $each($($arg,)* f)
                }
                #[target_feature(enable = "avx2,fma")]
                fn mid<$($g: Copy,)* U, F: $($f)*>($($arg: $ty,)* f: &F) {
                    $each($($arg,)* f)
                }
                match isa($len.len()) {
                    // SAFETY: the features were detected at run time.
                    Isa::Avx512 => return unsafe { wide($($arg,)* f) },
                    Isa::Avx2 => return unsafe { mid($($arg,)* f) },
                    Isa::Base => {}
                }
            }
            $each($($arg,)* f)
        }
    };
}

simd_variants!(map_slice, each, <T>, (src: &[T], dst: &mut [MaybeUninit<U>]), [Fn(T) -> U], src);
simd_variants!(zip_slice, each2, <T>, (a: &[T], b: &[T], dst: &mut [MaybeUninit<U>]), [Fn(T, T) -> U], a);
simd_variants!(select_slice, each3, <C, T>, (c: &[C], a: &[T], b: &[T], dst: &mut [MaybeUninit<U>]), [Fn(C, T, T) -> U], a);

/// `kernel` (sin or cos for |x| <= TRIG_LIMIT) over `src`, then std's `exact` for the elements
/// outside that range, block by block while the block is still in L1.
pub(crate) fn map_slice_trig<T: VMath>(
    src: &[T],
    dst: &mut [MaybeUninit<T>],
    kernel: impl Fn(T) -> T,
    exact: impl Fn(T) -> T,
) {
    const BLOCK: usize = 1024;
    for (s, d) in src.chunks(BLOCK).zip(dst.chunks_mut(BLOCK)) {
        map_slice(s, d, &kernel);
        // A vectorisable count first; the branchy fix-up runs only for blocks that need it.
        let outside = s.iter().fold(0u32, |n, &x| n + (!x.in_trig_range()) as u32);
        if outside > 0 {
            for (o, &x) in d.iter_mut().zip(s) {
                if !x.in_trig_range() {
                    o.write(exact(x));
                }
            }
        }
    }
}

/// `widest!(pub fn name<T: Bound>(args..) => body, len)` defines `name(args..)`, which runs
/// `body(args..)` compiled for the widest vector features the CPU has (AVX-512, else AVX2, for
/// `len` elements of work). `body` must be `#[inline(always)]`, as must what it calls in its
/// loops: it is then compiled into each variant. (A closure passed to such a wrapper is a
/// function of its own, compiled for the baseline unless the optimiser inlines it, which it
/// does not for large loops: softmax's and the LSTM's rows ran on 128-bit vectors that way.)
macro_rules! widest {
    ($vis:vis fn $name:ident<$g:ident: $bound:path>($($arg:ident: $ty:ty),* $(,)?) => $body:ident, $len:expr) => {
        #[allow(clippy::too_many_arguments)] // a kernel's whole context, as its body takes it
        $vis fn $name<$g: $bound>($($arg: $ty),*) {
            #[cfg(target_arch = "x86_64")]
            {
                #[target_feature(enable = "avx512f,avx512vl,avx512dq,avx512bw,avx2,fma")]
                fn wide<$g: $bound>($($arg: $ty),*) {
                    $body($($arg),*)
                }
                #[target_feature(enable = "avx2,fma")]
                fn mid<$g: $bound>($($arg: $ty),*) {
                    $body($($arg),*)
                }
                match $crate::ops::vmath::isa($len) {
                    // SAFETY: the features were detected at run time.
                    $crate::ops::vmath::Isa::Avx512 => return unsafe { wide($($arg),*) },
                    $crate::ops::vmath::Isa::Avx2 => return unsafe { mid($($arg),*) },
                    $crate::ops::vmath::Isa::Base => {}
                }
            }
            $body($($arg),*)
        }
    };
}
pub(crate) use widest;

#[cfg(test)]
mod tests {
    /// Units in the last place between two floats of one sign (0 for two NaNs).
    fn ulps32(a: f32, b: f32) -> u32 {
        if a.is_nan() && b.is_nan() {
            return 0;
        }
        assert_eq!(a.is_sign_negative(), b.is_sign_negative(), "{a:e} vs {b:e}");
        a.to_bits().abs_diff(b.to_bits())
    }

    /// `tanh` with `exp_m1` inlined and its polynomial fused stays within two units in the last
    /// place of the correctly rounded tanh, as `-e / (e + 2)` through `exp_m1` itself (unfused)
    /// does, and within three of that form: every 4099th float32 bit pattern (all exponents,
    /// signs, NaNs, infinities, subnormals), and float64 values across the clamping range
    /// with the bits of the unfused form. Over all 2^32 float32 patterns: 0.06% differ from
    /// the unfused form (at most 3 units), both forms are at most 2 units from the correctly
    /// rounded tanh, and the fused one is correctly rounded slightly more often.
    #[test]
    fn tanh_stays_within_two_units_of_the_rounded_tanh() {
        let through_exp_m1_32 = |x: f32| {
            let e = super::f32m::exp_m1(-2.0 * x.abs());
            (-e / (e + 2.0)).copysign(x)
        };
        for bits in (0..=u32::MAX).step_by(4099).chain([0, 0x8000_0000]) {
            let x = f32::from_bits(bits);
            let got = super::f32m::tanh(x);
            let (want, exact) = (through_exp_m1_32(x), (x as f64).tanh() as f32);
            assert!(
                ulps32(got, want) <= 3 && ulps32(got, exact) <= 2 && ulps32(want, exact) <= 2,
                "float32 {x:e} ({bits:#x}): {got:e} vs {want:e} (tanh {exact:e})"
            );
        }
        let through_exp_m1_64 = |x: f64| {
            let e = super::f64m::exp_m1(-2.0 * x.abs());
            (-e / (e + 2.0)).copysign(x)
        };
        for i in -20_000..=20_000 {
            let x = i as f64 * 1.37e-3;
            for x in [x, x * 1e-9, x * 1e3] {
                let (got, want) = (super::f64m::tanh(x), through_exp_m1_64(x));
                assert_eq!(got.to_bits(), want.to_bits(), "float64 {x:e}");
            }
        }
    }
}
