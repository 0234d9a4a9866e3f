//! Row kernels that split across threads when large: `bias_add` (chunks of elements) and its
//! gradient `bias_add_grad` (the two halves of the pairwise sum on two threads), against plain
//! loops.
mod support;

use rustape::ops::{bias_add, bias_add_grad, DataFormat};
use support::assert_close;
use support::linalg::rand64;

#[test]
fn large_bias_add_and_its_gradient_match_plain_loops() {
    // 1100 x 500: over 4 x 2^17 elements (split even with parked helpers), and a row count
    // that splits into unequal halves of the pairwise sum.
    let (rows, c) = (1100, 500);
    let value = rand64(&[rows, c], 7);
    let bias = rand64(&[c], 8);
    let (v, b) = (value.to_f64_vec(), bias.to_f64_vec());
    let want: Vec<f64> = v.iter().enumerate().map(|(k, &x)| x + b[k % c]).collect();
    let y = bias_add(&value, &bias, DataFormat::ChannelsLast).unwrap();
    assert_eq!(y.shape(), &[rows, c]);
    assert_eq!(y.to_f64_vec(), want);
    let mut sums = vec![0.0; c];
    for (k, &x) in v.iter().enumerate() {
        sums[k % c] += x;
    }
    let g = bias_add_grad(&value, 0).unwrap();
    assert_eq!(g.shape(), &[c]);
    assert_close(&g.to_f64_vec(), &sums, 1e-12);
}
