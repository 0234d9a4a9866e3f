//! `vectorized_map`'s proof that a function run once on a whole batch computed each row on its
//! own: the tape recorded the run from the batched inputs, and [`follow`] carries each input's
//! axis 0 along the recorded ops to every output (see axes.rs).
use super::axes::{follow, BatchAxis, Track};
use super::backward::plan;
use super::{Source, Tape};
use crate::error::{fmt_shape, Error, Result};
use crate::tensor::Tensor;

/// What the recorded ops did to the batch rows on the way to one output
/// ([`Tape::batch_rows`]).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum BatchRows {
    /// The batch is the whole of the output's axis 0 and row `i` of the output depends, through
    /// the recorded ops, only on row `i` of the inputs.
    Apart,
    /// No recorded op connects the output to the inputs (a constant, a variable, or a value
    /// reached only through ops the tape does not record, such as integer ones).
    Free,
    /// Rows met, moved off axis 0, or went through an op whose axes are not described; the
    /// text says which op.
    Entangled(String),
}

impl Tape {
    /// For each of `outputs`, computed while this tape recorded from `inputs` (each watched, and
    /// each holding a batch of `batch` rows along axis 0): whether the rows stayed apart (see
    /// [`BatchRows`]). `vectorized_map` runs its function once on the stacked batch and keeps
    /// the result only when every output is [`BatchRows::Apart`].
    ///
    /// A ValueError when an input does not have `batch` rows along axis 0; the usual
    /// RuntimeError when a non-persistent tape was already used.
    pub fn batch_rows(
        &self,
        outputs: &[Tensor],
        inputs: &[Tensor],
        batch: usize,
    ) -> Result<Vec<BatchRows>> {
        let op = "vectorized_map";
        for x in inputs {
            if x.shape().first() != Some(&batch) {
                return Err(Error::value(
                    op,
                    format!(
                        "every input needs {batch} rows along axis 0, got shape {}",
                        fmt_shape(x.shape())
                    ),
                ));
            }
        }
        let release = self.take_use("batch_rows")?;
        let sources: Vec<Source> = inputs.iter().cloned().map(Source::Tensor).collect();
        let targets: Vec<&Tensor> = outputs.iter().collect();
        let plan = plan(&mut self.lock(), &targets, &sources, release);
        let starts: Vec<(u32, BatchAxis)> = inputs
            .iter()
            .map(|x| {
                let slot = plan.connected.slot(&x.id());
                (slot, BatchAxis::leading(x.shape().len()))
            })
            .collect();
        let followed = follow(&plan, &starts, batch);
        let quote = |names: &[&str]| {
            let names: Vec<String> = names.iter().map(|n| format!("'{n}'")).collect();
            names.join(", ")
        };
        let rows = outputs
            .iter()
            .map(|y| {
                let leading = y.shape().first() == Some(&batch);
                match followed.at(plan.connected.slot(&y.id())) {
                    Track::Free => BatchRows::Free,
                    Track::At { batch: at, .. } if at.is_leading() && leading => BatchRows::Apart,
                    Track::At {
                        batch: at,
                        moved_by,
                    } => {
                        let by = moved_by
                            .map(|op| format!(" (moved by the op '{op}')"))
                            .unwrap_or_default();
                        BatchRows::Entangled(match at.inner {
                            1 => format!(
                                "the batch rows end up along axis {} of an output of shape {}{by}, \
                                 not axis 0",
                                at.axis,
                                fmt_shape(y.shape())
                            ),
                            _ => format!(
                                "the batch rows end up interleaved along the axes of an output \
                                 of shape {}{by}",
                                fmt_shape(y.shape())
                            ),
                        })
                    }
                    Track::Mixed => {
                        let mut why = Vec::new();
                        if !followed.mixing.is_empty() {
                            why.push(format!("batch rows meet in {}", quote(&followed.mixing)));
                        }
                        if !followed.unknown.is_empty() {
                            why.push(format!(
                                "rustape cannot follow the batch rows through {}",
                                quote(&followed.unknown)
                            ));
                        }
                        if why.is_empty() {
                            why.push("batch rows meet".into());
                        }
                        BatchRows::Entangled(why.join("; "))
                    }
                }
            })
            .collect();
        Ok(rows)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ops;

    fn batch() -> Tensor {
        Tensor::from_vec::<f64>(vec![1.0, 2.0, 3.0, 4.0, 5.0, 6.0], &[3, 2]).unwrap()
    }

    #[test]
    fn rows_stay_apart_through_elementwise_ops_and_inner_reductions() {
        let tape = Tape::new(true, false);
        let x = batch();
        tape.push().unwrap();
        tape.watch(&x);
        let y = ops::multiply(&x, &x).unwrap();
        let s = ops::reduce_sum(&y, Some(&[1]), false).unwrap();
        let all = ops::reduce_sum(&y, Some(&[0]), false).unwrap();
        tape.exit();
        let rows = tape.batch_rows(&[y, s, all], &[x], 3).unwrap();
        assert_eq!(rows[0], BatchRows::Apart);
        assert_eq!(rows[1], BatchRows::Apart);
        assert!(matches!(&rows[2], BatchRows::Entangled(why) if why.contains("reduce_sum")));
    }

    #[test]
    fn an_output_not_computed_from_the_inputs_is_free() {
        let tape = Tape::new(true, false);
        let x = batch();
        tape.push().unwrap();
        tape.watch(&x);
        let c = Tensor::from_vec::<f64>(vec![1.0, 2.0], &[2]).unwrap();
        tape.exit();
        assert_eq!(
            tape.batch_rows(&[c], &[x], 3).unwrap(),
            vec![BatchRows::Free]
        );
    }

    #[test]
    fn inputs_without_the_batch_on_axis_0_are_a_value_error() {
        let tape = Tape::new(true, false);
        let x = batch();
        let err = tape.batch_rows(&[], &[x], 4).unwrap_err();
        assert!(err.to_string().contains("4 rows"), "{err}");
    }
}
