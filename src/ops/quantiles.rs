//! Approximate quantiles of data seen batch by batch, as Keras 3's `Discretization.adapt`
//! computes them: each batch is reduced to a summary (sorted sample values with weights),
//! summaries are merged and compressed to about `1 / epsilon` points, and the bin boundaries
//! are read off the summary's cumulative weights by linear interpolation. Every step follows
//! Keras's NumPy code operation by operation (float32 sums, float64 interpolation), so the
//! boundaries are Keras's.

/// A summary of the values seen so far: sorted values and the weight (count) each stands for.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct QuantileSummary {
    /// The partition values, ascending.
    pub values: Vec<f32>,
    /// How many of the data each value stands for.
    pub weights: Vec<f32>,
}

impl QuantileSummary {
    /// The summary of one batch (Keras's `summarize`): every `step`-th of the sorted values,
    /// `step = max(len * epsilon, 1)`, each weighing `step`. NaNs sort last.
    pub fn of(data: &[f32], epsilon: f64) -> QuantileSummary {
        let mut sorted = data.to_vec();
        sorted.sort_by(|a, b| a.total_cmp(b));
        // total_cmp puts -NaN first; NumPy puts every NaN last.
        sorted.sort_by_key(|v| v.is_nan());
        let increment = sorted.len() as f64 / (1.0 / epsilon);
        let step = increment.max(1.0);
        let (start, stride) = ((step - 1.0) as usize, (step as usize).max(1));
        let values: Vec<f32> = sorted.iter().skip(start).step_by(stride).copied().collect();
        let weights = vec![step as f32; values.len()];
        QuantileSummary { values, weights }
    }

    /// This summary merged with `other` (Keras's `merge_summaries(self, other)`): the points
    /// of both in order of value (a stable sort: this summary's first among equal values),
    /// then compressed to `epsilon`.
    pub fn merge(&self, other: &QuantileSummary, epsilon: f64) -> QuantileSummary {
        let values: Vec<f32> = self.values.iter().chain(&other.values).copied().collect();
        let weights: Vec<f32> = self.weights.iter().chain(&other.weights).copied().collect();
        let mut order: Vec<usize> = (0..values.len()).collect();
        order.sort_by(|&i, &j| values[i].total_cmp(&values[j]));
        order.sort_by_key(|&i| values[i].is_nan());
        QuantileSummary {
            values: order.iter().map(|&i| values[i]).collect(),
            weights: order.iter().map(|&i| weights[i]).collect(),
        }
        .compressed(epsilon)
    }

    /// The summary compressed to about `1 / epsilon` points (Keras's `compress_summary`):
    /// unchanged when it has fewer; else the values and cumulative weights interpolated at
    /// the fractions `epsilon, 2 epsilon, ...` of the total weight.
    pub fn compressed(&self, epsilon: f64) -> QuantileSummary {
        let n = self.values.len();
        if (n as f64) * epsilon < 1.0 {
            return self.clone();
        }
        // `epsilon + np.arange(0.0, 1.0, epsilon)`: ceil(1 / epsilon) fractions.
        let count = (1.0 / epsilon).ceil() as usize;
        let percents: Vec<f64> = (0..count).map(|i| epsilon + i as f64 * epsilon).collect();
        let mut cumulative = Vec::with_capacity(n);
        let mut total = 0f32;
        for &w in &self.weights {
            total += w;
            cumulative.push(total);
        }
        let fractions: Vec<f64> = cumulative.iter().map(|&c| (c / total) as f64).collect();
        let values: Vec<f64> = self.values.iter().map(|&v| v as f64).collect();
        let cumulative: Vec<f64> = cumulative.iter().map(|&c| c as f64).collect();
        let new_values: Vec<f32> = percents
            .iter()
            .map(|&p| interp(p, &fractions, &values) as f32)
            .collect();
        let new_cumulative: Vec<f64> = percents
            .iter()
            .map(|&p| interp(p, &fractions, &cumulative))
            .collect();
        let new_weights = (0..count)
            .map(|i| {
                let before = if i == 0 { 0.0 } else { new_cumulative[i - 1] };
                (new_cumulative[i] - before) as f32
            })
            .collect();
        QuantileSummary {
            values: new_values,
            weights: new_weights,
        }
    }

    /// The boundaries of `num_bins` bins of about equal weight (Keras's `get_bin_boundaries`):
    /// the summary compressed to `1 / num_bins`, without its last point.
    pub fn bin_boundaries(&self, num_bins: usize) -> Vec<f32> {
        let mut values = self.compressed(1.0 / num_bins as f64).values;
        values.pop();
        values
    }
}

/// NumPy's `np.interp(x, xp, fp)` for one `x` (`xp` ascending, non-empty): `fp` at the ends
/// outside `xp`, else the line between the two points around `x`.
fn interp(x: f64, xp: &[f64], fp: &[f64]) -> f64 {
    let last = xp.len() - 1;
    if x.is_nan() {
        return x;
    }
    if x > xp[last] {
        return fp[last];
    }
    if x < xp[0] {
        return fp[0];
    }
    if x == xp[last] {
        return fp[last];
    }
    // The last j with xp[j] <= x (so x < xp[j + 1]).
    let j = xp.partition_point(|&v| v <= x) - 1;
    if xp[j] == x {
        return fp[j];
    }
    let slope = (fp[j + 1] - fp[j]) / (xp[j + 1] - xp[j]);
    let mut y = slope * (x - xp[j]) + fp[j];
    if y.is_nan() {
        // NumPy tries the other end, then a flat segment's value.
        y = slope * (x - xp[j + 1]) + fp[j + 1];
        if y.is_nan() && fp[j] == fp[j + 1] {
            y = fp[j];
        }
    }
    y
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn interp_is_numpys() {
        let (xp, fp) = ([0.0, 1.0, 1.0, 3.0], [0.0, 10.0, 20.0, 40.0]);
        assert_eq!(interp(-1.0, &xp, &fp), 0.0);
        assert_eq!(interp(0.5, &xp, &fp), 5.0);
        // On a repeated point NumPy takes the last of them.
        assert_eq!(interp(1.0, &xp, &fp), 20.0);
        assert_eq!(interp(2.0, &xp, &fp), 30.0);
        assert_eq!(interp(3.0, &xp, &fp), 40.0);
        assert_eq!(interp(9.0, &xp, &fp), 40.0);
    }

    #[test]
    fn a_small_batch_is_kept_whole_and_split_into_equal_bins() {
        let data: Vec<f32> = (0..12).rev().map(|v| v as f32).collect();
        let summary = QuantileSummary::of(&data, 0.01);
        assert_eq!(
            summary.values,
            (0..12).map(|v| v as f32).collect::<Vec<_>>()
        );
        assert!(summary.weights.iter().all(|&w| w == 1.0));
        // Four bins of three values: boundaries at the 1/4, 2/4, 3/4 points of the weight,
        // interpolated on the cumulative fractions 1/12, 2/12, ...: values 2, 5 and 8.
        assert_eq!(summary.bin_boundaries(4), vec![2.0, 5.0, 8.0]);
    }
}
