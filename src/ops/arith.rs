//! Scalar arithmetic per numeric dtype, as the elementwise kernels apply it.
use crate::tensor::Element;

/// Scalar arithmetic as TensorFlow does it on each numeric dtype: IEEE 754 for floats;
/// wrapping (never panicking) two's-complement for integers, with floor division and modulo
/// rounding toward negative infinity. Callers reject integer division by zero and negative
/// integer exponents before calling.
pub(crate) trait Arith: Element + PartialOrd {
    fn add(self, o: Self) -> Self;
    fn sub(self, o: Self) -> Self;
    fn mul(self, o: Self) -> Self;
    fn neg(self) -> Self;
    fn floordiv(self, o: Self) -> Self;
    fn floormod(self, o: Self) -> Self;
    fn pow(self, o: Self) -> Self;
    fn abs(self) -> Self;
    fn sign(self) -> Self;
    fn is_nan(self) -> bool;
}

macro_rules! arith_float {
    ($t:ty) => {
        impl Arith for $t {
            fn add(self, o: Self) -> Self {
                self + o
            }
            fn sub(self, o: Self) -> Self {
                self - o
            }
            fn mul(self, o: Self) -> Self {
                self * o
            }
            fn neg(self) -> Self {
                -self
            }
            fn floordiv(self, o: Self) -> Self {
                (self / o).floor()
            }
            /// The remainder with the divisor's sign (TensorFlow's `FloorMod`, NumPy's `mod`).
            fn floormod(self, o: Self) -> Self {
                let r = self % o;
                if r != 0.0 && (r < 0.0) != (o < 0.0) {
                    r + o
                } else {
                    r
                }
            }
            fn pow(self, o: Self) -> Self {
                self.powf(o)
            }
            fn abs(self) -> Self {
                self.abs()
            }
            /// -1, 0 or 1; NaN stays NaN and zero keeps its sign (NumPy).
            fn sign(self) -> Self {
                if self > 0.0 {
                    1.0
                } else if self < 0.0 {
                    -1.0
                } else {
                    self
                }
            }
            fn is_nan(self) -> bool {
                self.is_nan()
            }
        }
    };
}
arith_float!(f32);
arith_float!(f64);

macro_rules! arith_int {
    ($t:ty) => {
        impl Arith for $t {
            fn add(self, o: Self) -> Self {
                self.wrapping_add(o)
            }
            fn sub(self, o: Self) -> Self {
                self.wrapping_sub(o)
            }
            fn mul(self, o: Self) -> Self {
                self.wrapping_mul(o)
            }
            fn neg(self) -> Self {
                self.wrapping_neg()
            }
            fn floordiv(self, o: Self) -> Self {
                let q = self.wrapping_div(o);
                if self.wrapping_rem(o) != 0 && (self < 0) != (o < 0) {
                    q - 1
                } else {
                    q
                }
            }
            fn floormod(self, o: Self) -> Self {
                let r = self.wrapping_rem(o);
                if r != 0 && (r < 0) != (o < 0) {
                    r + o
                } else {
                    r
                }
            }
            /// Exponentiation by squaring, wrapping; `o >= 0` (checked by `pow`).
            fn pow(self, o: Self) -> Self {
                let (mut base, mut exp, mut acc): (Self, Self, Self) = (self, o, 1);
                while exp > 0 {
                    if exp & 1 == 1 {
                        acc = acc.wrapping_mul(base);
                    }
                    base = base.wrapping_mul(base);
                    exp >>= 1;
                }
                acc
            }
            fn abs(self) -> Self {
                self.wrapping_abs()
            }
            fn sign(self) -> Self {
                self.signum()
            }
            fn is_nan(self) -> bool {
                false
            }
        }
    };
}
arith_int!(i32);
arith_int!(i64);

/// The arithmetic every numeric dtype has, complex ones included: [`Arith`]'s for the real
/// dtypes (integers wrap), the field operations of `num_complex` for complex ones.
pub(crate) trait Ring: Copy {
    fn add(self, o: Self) -> Self;
    fn sub(self, o: Self) -> Self;
    fn mul(self, o: Self) -> Self;
    fn neg(self) -> Self;
}

impl<T: Arith> Ring for T {
    #[inline(always)]
    fn add(self, o: Self) -> Self {
        Arith::add(self, o)
    }
    #[inline(always)]
    fn sub(self, o: Self) -> Self {
        Arith::sub(self, o)
    }
    #[inline(always)]
    fn mul(self, o: Self) -> Self {
        Arith::mul(self, o)
    }
    #[inline(always)]
    fn neg(self) -> Self {
        Arith::neg(self)
    }
}

macro_rules! ring_complex {
    ($t:ty) => {
        impl Ring for num_complex::Complex<$t> {
            #[inline(always)]
            fn add(self, o: Self) -> Self {
                self + o
            }
            #[inline(always)]
            fn sub(self, o: Self) -> Self {
                self - o
            }
            #[inline(always)]
            fn mul(self, o: Self) -> Self {
                self * o
            }
            #[inline(always)]
            fn neg(self) -> Self {
                -self
            }
        }
    };
}
ring_complex!(f32);
ring_complex!(f64);

/// Division where a dtype has it elementwise: IEEE for floats, TensorFlow's for complex
/// numbers (`super::cmath::div`: scaled, no overflow; C99's values at zeros and infinities).
pub(crate) trait Field: Ring {
    fn div(self, o: Self) -> Self;
}

impl Field for f32 {
    #[inline(always)]
    fn div(self, o: Self) -> Self {
        self / o
    }
}

impl Field for f64 {
    #[inline(always)]
    fn div(self, o: Self) -> Self {
        self / o
    }
}

impl Field for num_complex::Complex<f32> {
    fn div(self, o: Self) -> Self {
        super::cmath::CMath::c_div(self, o)
    }
}

impl Field for num_complex::Complex<f64> {
    fn div(self, o: Self) -> Self {
        super::cmath::CMath::c_div(self, o)
    }
}
