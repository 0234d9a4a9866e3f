//! The immutable tensor: a unique id and shared, typed storage.
//!
//! Clone is a reference-count bump. Ops never copy inputs they only read, and an alias (same
//! storage, fresh id) is how variable reads and custom-gradient outputs get their own identity
//! on a tape without copying data.
use std::fmt;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;

use ndarray::{ArrayD, ArrayViewD};
use num_complex::Complex;

use crate::dtype::DType;
use crate::error::{fmt_shape, Error, Result};
pub use crate::values::Values;

/// Identifies a tensor (or a variable's handle) on every tape. Never reused.
pub type TensorId = u64;

static NEXT_ID: AtomicU64 = AtomicU64::new(1);

pub(crate) fn fresh_id() -> TensorId {
    NEXT_ID.fetch_add(1, Ordering::Relaxed)
}

/// Set in the ids of [`Tensor::shared_scalar`]s (ids count up from 1 and never reach it).
pub(crate) const SHARED_SCALAR_ID: TensorId = 1 << 63;

/// Typed elements with their shape (see [`Values`]): clones, reshapes and aliases are free.
#[derive(Clone)]
pub enum Data {
    /// float32 elements.
    F32(Values<f32>),
    /// float64 elements.
    F64(Values<f64>),
    /// int32 elements.
    I32(Values<i32>),
    /// int64 elements.
    I64(Values<i64>),
    /// bool elements.
    Bool(Values<bool>),
    /// complex64: float32 real and imaginary parts.
    C64(Values<Complex<f32>>),
    /// complex128: float64 real and imaginary parts. Boxed so that its inline elements (16
    /// bytes each) do not make every `Data`, and so every tensor, larger: a real tensor op
    /// moves and allocates no more than before complex dtypes existed.
    C128(Box<Values<Complex<f64>>>),
    /// Byte strings (see [`crate::text`]); boxed like complex128.
    Str(Box<Values<crate::text::Str>>),
}

/// The element types a tensor can hold, with the way in and out of [`Data`].
pub trait Element: Copy + Default + Send + Sync + fmt::Debug + PartialEq + 'static {
    /// The dtype of tensors holding this type.
    const DTYPE: DType;
    /// Values of this type as a [`Data`].
    fn into_data(values: Values<Self>) -> Data;
    /// The values, if `data` holds this type.
    fn values_of(data: &Data) -> Option<&Values<Self>>;
    /// `v` converted (as `as` converts; a complex value gets imaginary part 0).
    fn from_f64(v: f64) -> Self;
    /// The value as f64 (a complex value's real part).
    fn to_f64(self) -> f64;
    /// The value's bit pattern (the key of the shared-scalar cache).
    fn bits(self) -> u64;
    /// Whether [`Element::bits`] identifies the value (a complex value with an imaginary part
    /// other than +0 is not cached by [`Tensor::shared_scalar`]).
    fn cacheable(self) -> bool {
        true
    }
    /// The value as a complex128 number (a real value has imaginary part 0).
    fn to_complex(self) -> Complex<f64> {
        Complex::new(self.to_f64(), 0.0)
    }
    /// `v` converted: real types keep the real part (as TensorFlow's cast does).
    fn from_complex(v: Complex<f64>) -> Self {
        Self::from_f64(v.re)
    }
}

macro_rules! element {
    ($t:ty, $variant:ident, $dtype:expr, |$v:ident| $from:expr, |$s:ident| $to:expr, |$b:ident| $bits:expr) => {
        impl Element for $t {
            const DTYPE: DType = $dtype;
            fn into_data(values: Values<Self>) -> Data {
                Data::$variant(values)
            }
            fn values_of(data: &Data) -> Option<&Values<Self>> {
                match data {
                    Data::$variant(a) => Some(a),
                    _ => None,
                }
            }
            fn from_f64($v: f64) -> Self {
                $from
            }
            fn to_f64($s) -> f64 {
                $to
            }
            fn bits(self) -> u64 {
                let $b = self;
                $bits
            }
        }
        impl From<ArrayD<$t>> for Data {
            fn from(array: ArrayD<$t>) -> Data {
                Data::$variant(Values::from_array(array))
            }
        }
        impl From<Values<$t>> for Data {
            fn from(values: Values<$t>) -> Data {
                Data::$variant(values)
            }
        }
    };
}
element!(
    f32,
    F32,
    DType::F32,
    |v| v as f32,
    |self| self as f64,
    |b| b.to_bits() as u64
);
element!(f64, F64, DType::F64, |v| v, |self| self, |b| b.to_bits());
element!(
    i32,
    I32,
    DType::I32,
    |v| v as i32,
    |self| self as f64,
    |b| b as u32 as u64
);
element!(
    i64,
    I64,
    DType::I64,
    |v| v as i64,
    |self| self as f64,
    |b| b as u64
);
element!(
    bool,
    Bool,
    DType::Bool,
    |v| v != 0.0,
    |self| if self { 1.0 } else { 0.0 },
    |b| b as u64
);

macro_rules! complex_element {
    ($t:ty, $variant:ident, $dtype:expr, |$v:ident| $wrap:expr) => {
        impl Element for Complex<$t> {
            const DTYPE: DType = $dtype;
            fn into_data($v: Values<Self>) -> Data {
                Data::$variant($wrap)
            }
            fn values_of(data: &Data) -> Option<&Values<Self>> {
                match data {
                    Data::$variant(a) => Some(a),
                    _ => None,
                }
            }
            fn from_f64(v: f64) -> Self {
                Complex::new(v as $t, 0.0)
            }
            fn to_f64(self) -> f64 {
                self.re as f64
            }
            fn bits(self) -> u64 {
                self.re.to_bits() as u64
            }
            fn cacheable(self) -> bool {
                self.im.to_bits() == 0
            }
            fn to_complex(self) -> Complex<f64> {
                Complex::new(self.re as f64, self.im as f64)
            }
            fn from_complex(v: Complex<f64>) -> Self {
                Complex::new(v.re as $t, v.im as $t)
            }
        }
        impl From<ArrayD<Complex<$t>>> for Data {
            fn from(array: ArrayD<Complex<$t>>) -> Data {
                <Complex<$t>>::into_data(Values::from_array(array))
            }
        }
        impl From<Values<Complex<$t>>> for Data {
            fn from(values: Values<Complex<$t>>) -> Data {
                <Complex<$t>>::into_data(values)
            }
        }
    };
}
complex_element!(f32, C64, DType::Complex64, |v| v);
complex_element!(f64, C128, DType::Complex128, |v| Box::new(v));

/// Runs a kernel on the typed elements of a `Data`, for the dtypes a class admits:
/// `dispatch!(float data, "op", |a| expr)` (float32, float64), `num` (floats and ints),
/// `complex` (complex64, complex128), `float_or_complex`, `num_or_complex`, `real` (every dtype
/// but the complex ones), `all`. An op opts into complex dtypes by naming a class that has
/// them. `a` is an ndarray view (`&ArrayViewD<T>`); with `values` first
/// (`dispatch!(values float ..)`) it is the `&Values<T>` itself, for kernels that only need the
/// slice and the shape. `expr` yields an `ArrayD<T>` or `Values<T>`; the result is a `Data` of
/// that type. Any other dtype returns a TypeError naming the op from the enclosing function.
#[macro_export]
macro_rules! dispatch {
    (@arm view $v:ident, |$a:ident| $body:expr) => {{
        let $a = &$v.view();
        $crate::tensor::Data::from($body)
    }};
    (@arm values $v:ident, |$a:ident| $body:expr) => {{
        let $a = $crate::tensor::values_ref($v);
        $crate::tensor::Data::from($body)
    }};
    (@class $how:ident $data:expr, $op:expr, $what:expr, |$a:ident| $body:expr; $($variant:ident),*) => {
        match $data {
            $($crate::tensor::Data::$variant(v) => $crate::dispatch!(@arm $how v, |$a| $body),)*
            #[allow(unreachable_patterns)]
            other => return Err($crate::tensor::unsupported($op, other.dtype(), $what)),
        }
    };
    (@float $how:ident $data:expr, $op:expr, |$a:ident| $body:expr) => {
        $crate::dispatch!(@class $how $data, $op, "a floating", |$a| $body; F32, F64)
    };
    (@num $how:ident $data:expr, $op:expr, |$a:ident| $body:expr) => {
        $crate::dispatch!(@class $how $data, $op, "a real numeric", |$a| $body; F32, F64, I32, I64)
    };
    (@complex $how:ident $data:expr, $op:expr, |$a:ident| $body:expr) => {
        $crate::dispatch!(@class $how $data, $op, "a complex", |$a| $body; C64, C128)
    };
    (@float_or_complex $how:ident $data:expr, $op:expr, |$a:ident| $body:expr) => {
        $crate::dispatch!(@class $how $data, $op, "a floating or complex", |$a| $body; F32, F64, C64, C128)
    };
    (@num_or_complex $how:ident $data:expr, $op:expr, |$a:ident| $body:expr) => {
        $crate::dispatch!(@class $how $data, $op, "a numeric", |$a| $body; F32, F64, I32, I64, C64, C128)
    };
    (@real $how:ident $data:expr, $op:expr, |$a:ident| $body:expr) => {
        $crate::dispatch!(@class $how $data, $op, "a real (not complex)", |$a| $body; F32, F64, I32, I64, Bool)
    };
    (@all $how:ident $data:expr, |$a:ident| $body:expr) => {
        match $data {
            $crate::tensor::Data::F32(v) => $crate::dispatch!(@arm $how v, |$a| $body),
            $crate::tensor::Data::F64(v) => $crate::dispatch!(@arm $how v, |$a| $body),
            $crate::tensor::Data::I32(v) => $crate::dispatch!(@arm $how v, |$a| $body),
            $crate::tensor::Data::I64(v) => $crate::dispatch!(@arm $how v, |$a| $body),
            $crate::tensor::Data::Bool(v) => $crate::dispatch!(@arm $how v, |$a| $body),
            $crate::tensor::Data::C64(v) => $crate::dispatch!(@arm $how v, |$a| $body),
            $crate::tensor::Data::C128(v) => $crate::dispatch!(@arm $how v, |$a| $body),
            $crate::tensor::Data::Str(v) => $crate::dispatch!(@arm $how v, |$a| $body),
        }
    };
    (values all $data:expr, |$a:ident| $body:expr) => {
        $crate::dispatch!(@all values $data, |$a| $body)
    };
    (all $data:expr, |$a:ident| $body:expr) => {
        $crate::dispatch!(@all view $data, |$a| $body)
    };
    (values $class:ident $data:expr, $op:expr, |$a:ident| $body:expr) => {
        $crate::dispatch!(@$class values $data, $op, |$a| $body)
    };
    ($class:ident $data:expr, $op:expr, |$a:ident| $body:expr) => {
        $crate::dispatch!(@$class view $data, $op, |$a| $body)
    };
}

/// Like [`dispatch!`] for two operands that must share a dtype, each given to the kernel as
/// its `&Values<T>`: `dispatch2!(float a, b, "op", |x, y| expr)`, or any class of
/// [`dispatch!`].
#[macro_export]
macro_rules! dispatch2 {
    (@arms $a:expr, $b:expr, $op:expr, $what:expr, |$x:ident, $y:ident| $body:expr; $($v:ident),*) => {
        match ($a, $b) {
            $(($crate::tensor::Data::$v($x), $crate::tensor::Data::$v($y)) => {
                let ($x, $y) = ($crate::tensor::values_ref($x), $crate::tensor::values_ref($y));
                $crate::tensor::Data::from($body)
            })*
            (p, q) if p.dtype() == q.dtype() => return Err($crate::tensor::unsupported($op, p.dtype(), $what)),
            (p, q) => return Err($crate::tensor::mismatch($op, p.dtype(), q.dtype())),
        }
    };
    (float $a:expr, $b:expr, $op:expr, |$x:ident, $y:ident| $body:expr) => {
        $crate::dispatch2!(@arms $a, $b, $op, "a floating", |$x, $y| $body; F32, F64)
    };
    (num $a:expr, $b:expr, $op:expr, |$x:ident, $y:ident| $body:expr) => {
        $crate::dispatch2!(@arms $a, $b, $op, "a real numeric", |$x, $y| $body; F32, F64, I32, I64)
    };
    (complex $a:expr, $b:expr, $op:expr, |$x:ident, $y:ident| $body:expr) => {
        $crate::dispatch2!(@arms $a, $b, $op, "a complex", |$x, $y| $body; C64, C128)
    };
    (float_or_complex $a:expr, $b:expr, $op:expr, |$x:ident, $y:ident| $body:expr) => {
        $crate::dispatch2!(@arms $a, $b, $op, "a floating or complex", |$x, $y| $body; F32, F64, C64, C128)
    };
    (num_or_complex $a:expr, $b:expr, $op:expr, |$x:ident, $y:ident| $body:expr) => {
        $crate::dispatch2!(@arms $a, $b, $op, "a numeric", |$x, $y| $body; F32, F64, I32, I64, C64, C128)
    };
    (real $a:expr, $b:expr, $op:expr, |$x:ident, $y:ident| $body:expr) => {
        $crate::dispatch2!(@arms $a, $b, $op, "a real (not complex)", |$x, $y| $body; F32, F64, I32, I64, Bool)
    };
    (all $a:expr, $b:expr, $op:expr, |$x:ident, $y:ident| $body:expr) => {
        $crate::dispatch2!(@arms $a, $b, $op, "any", |$x, $y| $body; F32, F64, I32, I64, Bool, C64, C128, Str)
    };
}

/// The `Values` a `Data` variant holds, whether inline in the variant or boxed (complex128).
#[doc(hidden)]
#[inline(always)]
pub fn values_ref<T, V: AsRef<Values<T>> + ?Sized>(v: &V) -> &Values<T> {
    v.as_ref()
}

/// The error for an op given a dtype it does not take (`wanted` names the kind, e.g. "a floating").
pub fn unsupported(op: &str, dtype: DType, wanted: &str) -> Error {
    Error::dtype(op, format!("expected {wanted} dtype, got {dtype}"))
}

/// The error for two operands of different dtypes.
pub fn mismatch(op: &str, a: DType, b: DType) -> Error {
    Error::dtype(
        op,
        format!(
            "operands must have the same dtype, got {a} and {b} (use rt.cast to convert one of them)"
        ),
    )
}

impl Data {
    /// The dtype of the elements.
    #[inline]
    pub fn dtype(&self) -> DType {
        match self {
            Data::F32(_) => DType::F32,
            Data::F64(_) => DType::F64,
            Data::I32(_) => DType::I32,
            Data::I64(_) => DType::I64,
            Data::Bool(_) => DType::Bool,
            Data::C64(_) => DType::Complex64,
            Data::C128(_) => DType::Complex128,
            Data::Str(_) => DType::String,
        }
    }
    /// The shape.
    #[inline]
    pub fn shape(&self) -> &[usize] {
        match self {
            Data::F32(v) => v.shape(),
            Data::F64(v) => v.shape(),
            Data::I32(v) => v.shape(),
            Data::I64(v) => v.shape(),
            Data::Bool(v) => v.shape(),
            Data::C64(v) => v.shape(),
            Data::C128(v) => v.shape(),
            Data::Str(v) => v.shape(),
        }
    }
    /// The address of the elements, so `nbytes` counts storage once however often it is
    /// saved.
    pub(crate) fn storage_key(&self) -> usize {
        match self {
            Data::F32(v) => v.storage_key(),
            Data::F64(v) => v.storage_key(),
            Data::I32(v) => v.storage_key(),
            Data::I64(v) => v.storage_key(),
            Data::Bool(v) => v.storage_key(),
            Data::C64(v) => v.storage_key(),
            Data::C128(v) => v.storage_key(),
            Data::Str(v) => v.storage_key(),
        }
    }
    /// The same elements in another shape of the same size (shared, not copied).
    pub(crate) fn reshaped(&self, shape: &[usize]) -> Data {
        match self {
            Data::F32(v) => Data::F32(v.reshaped(shape)),
            Data::F64(v) => Data::F64(v.reshaped(shape)),
            Data::I32(v) => Data::I32(v.reshaped(shape)),
            Data::I64(v) => Data::I64(v.reshaped(shape)),
            Data::Bool(v) => Data::Bool(v.reshaped(shape)),
            Data::C64(v) => Data::C64(v.reshaped(shape)),
            Data::C128(v) => Data::C128(Box::new(v.reshaped(shape))),
            Data::Str(v) => Data::Str(Box::new(v.reshaped(shape))),
        }
    }
}

/// An immutable n-dimensional value with an identity.
#[derive(Clone)]
pub struct Tensor(Arc<Inner>);

struct Inner {
    id: TensorId,
    /// The index of the node that produced this tensor on the first tape that recorded it, and
    /// which of its outputs this is (`node << 32 | k`; `NOT_RECORDED` if none): that tape finds
    /// the producer without a hash lookup or a search. A hint only: the tape checks that output
    /// `k` of its node at this index is this tensor.
    producer: AtomicU64,
    data: Data,
}

const NOT_RECORDED: u64 = u64::MAX;

impl Tensor {
    /// A tensor holding `data`, with a fresh id.
    pub fn new(data: Data) -> Tensor {
        Tensor(Arc::new(Inner {
            id: fresh_id(),
            producer: AtomicU64::new(NOT_RECORDED),
            data,
        }))
    }
    /// `data` under the id `id` (a variable's handle as a gradient target: see
    /// [`crate::Variable::handle`]).
    pub(crate) fn with_id(data: Data, id: TensorId) -> Tensor {
        Tensor(Arc::new(Inner {
            id,
            producer: AtomicU64::new(NOT_RECORDED),
            data,
        }))
    }
    /// A tensor with the elements and shape of an ndarray array.
    pub fn from_array<T: Element>(array: ArrayD<T>) -> Tensor {
        Tensor::new(T::into_data(Values::from_array(array)))
    }
    /// A tensor of `values`, row-major in `shape` (an error if the sizes differ).
    pub fn from_vec<T: Element>(values: Vec<T>, shape: &[usize]) -> Result<Tensor> {
        let n = values.len();
        if shape.iter().try_fold(1usize, |p, &d| p.checked_mul(d)) != Some(n) {
            return Err(Error::shape(
                "constant",
                format!("{n} values cannot take the shape {}", fmt_shape(shape)),
            ));
        }
        Ok(Tensor::new(T::into_data(Values::from_vec(shape, values))))
    }
    /// A 0-d tensor.
    pub fn scalar<T: Element>(value: T) -> Tensor {
        Tensor::new(T::into_data(Values::scalar(value)))
    }
    /// A 0-d constant shared with every other request for the same value and dtype on this
    /// thread: the operands and VJP constants that code repeats (`y * 0.99999` in a loop,
    /// the `1` in `1 - y^2`) cost no allocation and no memory per use. The id is shared too,
    /// so only tensors no user can watch may come from here (`Tensor::scalar` for the rest).
    pub fn shared_scalar<T: Element>(value: T) -> Tensor {
        const SLOTS: usize = 64;
        thread_local! {
            static CACHE: std::cell::RefCell<[Option<(DType, u64, Tensor)>; SLOTS]> =
                const { std::cell::RefCell::new([const { None }; SLOTS]) };
        }
        if !value.cacheable() {
            // A complex constant with an imaginary part: shared in kind (no user holds it),
            // not cached.
            return Tensor(Arc::new(Inner {
                id: fresh_id() | SHARED_SCALAR_ID,
                producer: AtomicU64::new(NOT_RECORDED),
                data: T::into_data(Values::scalar(value)),
            }));
        }
        let bits = value.bits();
        let hash = (bits ^ (T::DTYPE as u64) << 59).wrapping_mul(0x9E37_79B9_7F4A_7C15);
        let slot = (hash >> 58) as usize % SLOTS;
        CACHE.with(|cache| {
            let mut cache = cache.borrow_mut();
            match &cache[slot] {
                Some((dtype, b, t)) if *dtype == T::DTYPE && *b == bits => t.clone(),
                _ => {
                    let t = Tensor(Arc::new(Inner {
                        id: fresh_id() | SHARED_SCALAR_ID,
                        producer: AtomicU64::new(NOT_RECORDED),
                        data: T::into_data(Values::scalar(value)),
                    }));
                    cache[slot] = Some((T::DTYPE, bits, t.clone()));
                    t
                }
            }
        })
    }
    /// [`Tensor::shared_scalar`] for a value given as f64 and cast to `dtype` (a complex
    /// dtype gets imaginary part 0).
    pub fn shared_scalar_of(value: f64, dtype: DType) -> Tensor {
        match dtype {
            DType::F32 => Tensor::shared_scalar(value as f32),
            DType::F64 => Tensor::shared_scalar(value),
            DType::I32 => Tensor::shared_scalar(value as i32),
            DType::I64 => Tensor::shared_scalar(value as i64),
            DType::Bool => Tensor::shared_scalar(value != 0.0),
            DType::Complex64 => Tensor::shared_scalar(Complex::new(value as f32, 0.0)),
            DType::Complex128 => Tensor::shared_scalar(Complex::new(value, 0.0)),
            DType::String => Tensor::scalar(crate::text::Str::default()),
        }
    }
    /// A tensor of `shape` and `dtype` with every element `value` (cast to the dtype).
    pub fn full(shape: &[usize], dtype: DType, value: f64) -> Tensor {
        fn fill<T: Element>(shape: &[usize], value: f64) -> Data {
            T::into_data(Values::full(shape, T::from_f64(value)))
        }
        Tensor::new(match dtype {
            DType::F32 => fill::<f32>(shape, value),
            DType::F64 => fill::<f64>(shape, value),
            DType::I32 => fill::<i32>(shape, value),
            DType::I64 => fill::<i64>(shape, value),
            DType::Bool => fill::<bool>(shape, value),
            DType::Complex64 => fill::<Complex<f32>>(shape, value),
            DType::Complex128 => fill::<Complex<f64>>(shape, value),
            DType::String => fill::<crate::text::Str>(shape, value),
        })
    }
    /// A tensor of `shape` and `dtype` with every element `value` (cast to the dtype), for
    /// `op`: a ValueError when the shape has too many elements, a MemoryError when its buffer
    /// cannot be allocated (use this for shapes that come from user input).
    pub fn try_full(op: &str, shape: &[usize], dtype: DType, value: f64) -> Result<Tensor> {
        fn fill<T: Element>(op: &str, shape: &[usize], value: f64) -> Result<Data> {
            Ok(T::into_data(Values::try_full(
                op,
                shape,
                T::from_f64(value),
            )?))
        }
        Ok(Tensor::new(match dtype {
            DType::F32 => fill::<f32>(op, shape, value)?,
            DType::F64 => fill::<f64>(op, shape, value)?,
            DType::I32 => fill::<i32>(op, shape, value)?,
            DType::I64 => fill::<i64>(op, shape, value)?,
            DType::Bool => fill::<bool>(op, shape, value)?,
            DType::Complex64 => fill::<Complex<f32>>(op, shape, value)?,
            DType::Complex128 => fill::<Complex<f64>>(op, shape, value)?,
            DType::String => fill::<crate::text::Str>(op, shape, value)?,
        }))
    }
    /// Zeros of `shape` and `dtype`.
    pub fn zeros(shape: &[usize], dtype: DType) -> Tensor {
        Tensor::full(shape, dtype, 0.0)
    }
    /// Ones of `shape` and `dtype`.
    pub fn ones(shape: &[usize], dtype: DType) -> Tensor {
        Tensor::full(shape, dtype, 1.0)
    }
    /// Zeros of this tensor's shape and dtype.
    pub fn zeros_like(&self) -> Tensor {
        Tensor::zeros(self.shape(), self.dtype())
    }
    /// Ones of this tensor's shape and dtype.
    pub fn ones_like(&self) -> Tensor {
        Tensor::ones(self.shape(), self.dtype())
    }

    /// The tensor's id: each value has its own, and tapes refer to tensors by it.
    pub fn id(&self) -> TensorId {
        self.0.id
    }
    /// The producer hint (see `Inner::producer`): node index and output position.
    pub(crate) fn producer_hint(&self) -> Option<(u32, usize)> {
        let hint = self.0.producer.load(Ordering::Relaxed);
        (hint != NOT_RECORDED).then_some(((hint >> 32) as u32, (hint & 0xFFFF_FFFF) as usize))
    }
    /// Sets the producer hint (output `k` of node `index`) unless another tape set it first;
    /// true if it now says that.
    pub(crate) fn hint_producer(&self, index: u32, k: usize) -> bool {
        let Ok(k) = u32::try_from(k) else {
            return false;
        };
        let hint = (index as u64) << 32 | k as u64;
        match self.0.producer.compare_exchange(
            NOT_RECORDED,
            hint,
            Ordering::Relaxed,
            Ordering::Relaxed,
        ) {
            Ok(_) => hint != NOT_RECORDED,
            Err(current) => current == hint,
        }
    }
    /// Whether this is a [`Tensor::shared_scalar`]: no user holds it, so no tape ever watches
    /// it and its gradient is never asked for. An op may skip saving what only that gradient
    /// would use (`y * 0.5` need not keep `y` alive).
    pub fn is_shared_scalar(&self) -> bool {
        self.0.id & SHARED_SCALAR_ID != 0
    }
    /// The elements.
    #[inline]
    pub fn data(&self) -> &Data {
        &self.0.data
    }
    /// The data to change in place, when this is the only handle on the tensor. Whoever changes
    /// it must hand the result on under a fresh id ([`Tensor::new`]): a tensor's id names one value.
    pub(crate) fn data_mut(&mut self) -> Option<&mut Data> {
        Arc::get_mut(&mut self.0).map(|inner| &mut inner.data)
    }
    /// The dtype.
    #[inline]
    pub fn dtype(&self) -> DType {
        self.0.data.dtype()
    }
    /// The shape.
    #[inline]
    pub fn shape(&self) -> &[usize] {
        self.0.data.shape()
    }
    /// The number of axes.
    pub fn ndim(&self) -> usize {
        self.shape().len()
    }
    /// The number of elements.
    pub fn size(&self) -> usize {
        self.shape().iter().product()
    }
    /// Bytes of the elements.
    pub fn nbytes(&self) -> usize {
        self.size() * self.dtype().size_of()
    }
    /// The same storage under a fresh id: a new node on a tape, no copy of the data.
    pub fn alias(&self) -> Tensor {
        Tensor::new(self.0.data.clone())
    }
    /// The typed elements, if the tensor holds `T`.
    pub fn values<T: Element>(&self) -> Option<&Values<T>> {
        T::values_of(&self.0.data)
    }
    /// An ndarray view of the elements, if the tensor holds `T`.
    pub fn array<T: Element>(&self) -> Option<ArrayViewD<'_, T>> {
        self.values::<T>().map(Values::view)
    }
    /// Every element as f64, in row-major order (for tests, printing and conversions); a
    /// complex element gives its real part (see [`Tensor::to_complex_vec`]).
    pub fn to_f64_vec(&self) -> Vec<f64> {
        fn collect<T: Element>(v: &Values<T>) -> Vec<f64> {
            v.as_slice().iter().map(|v| v.to_f64()).collect()
        }
        match self.data() {
            Data::F32(a) => collect(a),
            Data::F64(a) => collect(a),
            Data::I32(a) => collect(a),
            Data::I64(a) => collect(a),
            Data::Bool(a) => collect(a),
            Data::C64(a) => collect(a),
            Data::C128(a) => collect(a),
            Data::Str(a) => collect(a),
        }
    }
    /// Every element as a complex128 number, in row-major order (real elements get imaginary
    /// part 0).
    pub fn to_complex_vec(&self) -> Vec<Complex<f64>> {
        fn collect<T: Element>(v: &Values<T>) -> Vec<Complex<f64>> {
            v.as_slice().iter().map(|v| v.to_complex()).collect()
        }
        match self.data() {
            Data::F32(a) => collect(a),
            Data::F64(a) => collect(a),
            Data::I32(a) => collect(a),
            Data::I64(a) => collect(a),
            Data::Bool(a) => collect(a),
            Data::C64(a) => collect(a),
            Data::C128(a) => collect(a),
            Data::Str(a) => collect(a),
        }
    }
    /// The value of a one-element complex (or real) tensor.
    pub fn item_complex(&self) -> Result<Complex<f64>> {
        self.check_one_element()?;
        Ok(self.to_complex_vec()[0])
    }
    /// The value of a one-element real tensor (a complex one is a TypeError: see
    /// [`Tensor::item_complex`]).
    pub fn item(&self) -> Result<f64> {
        if self.dtype() == DType::String {
            return Err(Error::dtype(
                "item",
                "a string tensor has no numeric value".to_string(),
            ));
        }
        if self.dtype().is_complex() {
            return Err(Error::dtype(
                "item",
                format!(
                    "a {} tensor has no f64 value (use item_complex)",
                    self.dtype()
                ),
            ));
        }
        self.check_one_element()?;
        Ok(self.to_f64_vec()[0])
    }
    fn check_one_element(&self) -> Result<()> {
        if self.size() != 1 {
            return Err(Error::value(
                "item",
                format!(
                    "only a one-element tensor converts to a scalar, got shape {}",
                    fmt_shape(self.shape())
                ),
            ));
        }
        Ok(())
    }
    /// Whether gradients flow through this tensor: floating and complex dtypes.
    pub fn is_differentiable(&self) -> bool {
        self.dtype().is_differentiable()
    }
}

impl fmt::Debug for Tensor {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "Tensor(id={}, shape={}, dtype={}, values=",
            self.id(),
            fmt_shape(self.shape()),
            self.dtype(),
        )?;
        if self.dtype().is_complex() {
            write!(f, "{:?})", self.to_complex_vec())
        } else {
            write!(f, "{:?})", self.to_f64_vec())
        }
    }
}
