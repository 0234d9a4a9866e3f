//! Tensor storage (`Values`): small tensors inline, larger ones in a shared buffer, always
//! row-major whatever layout they were built from.
use ndarray::{s, Array2, ArrayD, IxDyn};
use rustape::tensor::{Data, Values};
use rustape::Tensor;

#[test]
fn inline_and_shared_storage_hold_the_same_values() {
    for n in 0..=9usize {
        let v: Vec<f64> = (0..n).map(|i| i as f64 * 1.5 - 2.0).collect();
        let values = Values::from_vec(&[n], v.clone());
        assert_eq!(values.as_slice(), &v[..], "n = {n}");
        assert_eq!(values.shape(), &[n]);
        assert_eq!(values.len(), n);
        assert_eq!(values.view().iter().copied().collect::<Vec<_>>(), v);
    }
    let scalar = Values::scalar(7i64);
    assert_eq!((scalar.shape(), scalar.as_slice()), (&[][..], &[7i64][..]));
}

#[test]
fn arrays_in_any_layout_become_row_major() {
    let base = Array2::from_shape_fn((4, 3), |(i, j)| (10 * i + j) as f32);
    // Transposed (column-major), then sliced with an offset into the buffer.
    let t = Values::from_array(base.t().to_owned().into_dyn());
    assert_eq!(t.shape(), &[3, 4]);
    assert_eq!(
        t.as_slice(),
        &[0., 10., 20., 30., 1., 11., 21., 31., 2., 12., 22., 32.]
    );
    let sliced = Values::from_array(base.clone().slice_move(s![1.., 1..]).into_dyn());
    assert_eq!(sliced.shape(), &[3, 2]);
    assert_eq!(sliced.as_slice(), &[11., 12., 21., 22., 31., 32.]);
    let reversed = Values::from_array(base.slice_move(s![..;-1, ..]).into_dyn());
    assert_eq!(&reversed.as_slice()[..3], &[30., 31., 32.]);
}

#[test]
fn reshape_shares_a_buffer_and_keeps_the_order() {
    let x = Tensor::from_vec((0..12).map(|v| v as f64).collect(), &[3, 4]).unwrap();
    let y = rustape::ops::reshape(&x, &[2, -1]).unwrap();
    assert_eq!(y.shape(), &[2, 6]);
    assert_eq!(y.to_f64_vec(), x.to_f64_vec());
    let (Data::F64(a), Data::F64(b)) = (x.data(), y.data()) else {
        panic!("float64")
    };
    assert_eq!(a.storage_key(), b.storage_key(), "no copy");
    // An alias is a new tensor over the same elements.
    assert_eq!(x.alias().to_f64_vec(), x.to_f64_vec());
    assert_ne!(x.alias().id(), x.id());
}

#[test]
fn tensors_from_mismatched_values_are_shape_errors() {
    assert!(Tensor::from_vec(vec![1.0f32; 5], &[2, 3]).is_err());
    assert!(Tensor::from_vec(vec![1.0f32; 0], &[usize::MAX, 2]).is_err());
    let empty = Tensor::from_vec(Vec::<f32>::new(), &[0, 3]).unwrap();
    assert_eq!((empty.size(), empty.shape()), (0, &[0, 3][..]));
    let t = Tensor::from_array(ArrayD::from_elem(IxDyn(&[2, 2]), true));
    assert_eq!(t.to_f64_vec(), vec![1.0; 4]);
}

#[test]
fn broadcasting_copies_runs_as_ndarray_broadcasts_elements() {
    // (source, target): a scalar, leading axes added, inner and outer axes of size 1, both,
    // empty targets, and a source of 1..=8 elements (inline) and more (shared).
    let cases: &[(&[usize], &[usize])] = &[
        (&[], &[3, 4]),
        (&[1], &[5]),
        (&[4], &[3, 4]),
        (&[128], &[32, 128]),
        (&[32, 1], &[32, 128]),
        (&[3, 1, 4], &[2, 3, 5, 4]),
        (&[1, 3, 1], &[4, 3, 2]),
        (&[2, 1, 1, 3], &[2, 4, 5, 3]),
        (&[1, 1], &[3, 2]),
        (&[2, 3], &[0, 2, 3]),
        (&[5, 1, 6], &[5, 7, 6]),
    ];
    for &(from, to) in cases {
        let n: usize = from.iter().product();
        let v: Vec<f32> = (0..n).map(|i| i as f32 * 0.5 - 3.0).collect();
        let values = Values::from_vec(from, v.clone());
        let expected = ArrayD::from_shape_vec(IxDyn(from), v)
            .unwrap()
            .broadcast(IxDyn(to))
            .unwrap()
            .iter()
            .copied()
            .collect::<Vec<_>>();
        let got = values.broadcast_to(to);
        assert_eq!(got.shape(), to, "{from:?} -> {to:?}");
        assert_eq!(got.as_slice(), &expected[..], "{from:?} -> {to:?}");
    }
}
