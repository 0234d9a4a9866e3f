//! `einsum`: the equation is parsed into labels per operand, each operand is reduced on its own
//! (diagonals of repeated labels, sums of labels nothing else uses), and the operands are then
//! contracted left to right, two at a time, with one batched matmul each.
use super::{diagonal_part, matmul};
use crate::error::{fmt_shape, Error, Result};
use crate::ops::{reduce_sum, reshape, same_dtype, transpose};
use crate::tensor::Tensor;

/// A subscript label: a letter, or one axis of the broadcast (`...`) part, counted from the
/// right.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Label {
    Letter(char),
    Ellipsis(usize),
}

/// One term of the equation: its letters, with the position of `...` if present.
struct Term {
    letters: Vec<char>,
    ellipsis: Option<usize>,
}

fn parse_term(equation: &str, text: &str) -> Result<Term> {
    let bad = |why: String| Error::value("einsum", format!("invalid equation '{equation}': {why}"));
    let mut letters = Vec::new();
    let mut ellipsis = None;
    let mut chars = text.chars().peekable();
    while let Some(c) = chars.next() {
        if c.is_ascii_alphabetic() {
            letters.push(c);
        } else if c == '.' {
            if chars.next() != Some('.') || chars.next() != Some('.') {
                return Err(bad(format!(
                    "'.' must come as an ellipsis '...' in term '{text}'"
                )));
            }
            if ellipsis.is_some() {
                return Err(bad(format!("more than one ellipsis in term '{text}'")));
            }
            ellipsis = Some(letters.len());
        } else {
            return Err(bad(format!(
                "unexpected character '{c}' (labels are letters a-z, A-Z)"
            )));
        }
    }
    Ok(Term { letters, ellipsis })
}

/// The labels of a term for an operand of rank `ndim`, with `...` expanded right-aligned.
fn term_labels(equation: &str, term: &Term, shape: &[usize], index: usize) -> Result<Vec<Label>> {
    let ndim = shape.len();
    let named = term.letters.len();
    let fits = match term.ellipsis {
        None => ndim == named,
        Some(_) => ndim >= named,
    };
    if !fits {
        return Err(Error::shape(
            "einsum",
            format!(
                "equation '{equation}': operand {index} has shape {} (rank {ndim}) but its subscripts name {named} axes{}",
                fmt_shape(shape),
                if term.ellipsis.is_some() { " besides '...'" } else { "" }
            ),
        ));
    }
    let mut labels: Vec<Label> = term.letters.iter().map(|&c| Label::Letter(c)).collect();
    if let Some(at) = term.ellipsis {
        let extra = ndim - named;
        let broadcast = (0..extra).map(|i| Label::Ellipsis(extra - 1 - i));
        labels.splice(at..at, broadcast);
    }
    Ok(labels)
}

/// Contracts two operands over their shared labels not in `keep`, with one (batched) matmul.
///
/// `row` is the output's first label, if any: the result keeps it on axis 0 (see [`einsum`]).
fn contract(
    a: &Tensor,
    la: &[Label],
    b: &Tensor,
    lb: &[Label],
    keep: &[Label],
    row: Option<Label>,
    size: &dyn Fn(Label) -> usize,
) -> Result<(Tensor, Vec<Label>)> {
    // The product's leading axes come from `a`: when only `b` has the row label, swap them.
    let ((a, la), (b, lb)) = match row {
        Some(r) if lb.contains(&r) && !la.contains(&r) => ((b, lb), (a, la)),
        _ => ((a, la), (b, lb)),
    };
    // Labels of one side that neither the other side nor anything later needs: sum them now.
    let lonely = |x: &Tensor, own: &[Label], other: &[Label]| -> Result<(Tensor, Vec<Label>)> {
        let axes: Vec<isize> = (0..own.len())
            .filter(|&i| !other.contains(&own[i]) && !keep.contains(&own[i]))
            .map(|i| i as isize)
            .collect();
        if axes.is_empty() {
            return Ok((x.clone(), own.to_vec()));
        }
        let rest = own
            .iter()
            .copied()
            .filter(|l| other.contains(l) || keep.contains(l))
            .collect();
        Ok((reduce_sum(x, Some(&axes), false)?, rest))
    };
    let (a, la) = lonely(a, la, lb)?;
    let (b, lb) = lonely(b, lb, &la)?;
    let (a, la, b, lb) = (&a, &la[..], &b, &lb[..]);
    // The row label (now in `a` if anywhere) gets an axis of its own in front of everything:
    // a batch axis of the matmul that `a`, and `b` if it has the label too, keep unflattened.
    let rows: Vec<Label> = row.filter(|r| la.contains(r)).into_iter().collect();
    let batch: Vec<Label> = la
        .iter()
        .copied()
        .filter(|l| lb.contains(l) && keep.contains(l) && !rows.contains(l))
        .collect();
    let summed: Vec<Label> = la
        .iter()
        .copied()
        .filter(|l| lb.contains(l) && !keep.contains(l))
        .collect();
    let a_only: Vec<Label> = la
        .iter()
        .copied()
        .filter(|l| !lb.contains(l) && !rows.contains(l))
        .collect();
    let b_only: Vec<Label> = lb.iter().copied().filter(|l| !la.contains(l)).collect();
    let position = |labels: &[Label], l: &Label| labels.iter().position(|x| x == l).unwrap_or(0);
    let product = |ls: &[Label]| ls.iter().map(|&l| size(l)).product::<usize>() as isize;

    // Arrange each operand as [rows, batch, free, summed] or [rows, batch, summed, free],
    // whichever is already its layout (then no transpose), and tell matmul which through its
    // flags. The rows axis is there when the operand has the row label; the batch axis (all
    // batch labels in one) when there are batch labels; so a plain product stays rank 2.
    let arrange = |x: &Tensor,
                   labels: &[Label],
                   free: &[Label],
                   summed_first: bool|
     -> Result<(Tensor, bool)> {
        let lead: Vec<Label> = rows
            .iter()
            .filter(|r| labels.contains(r))
            .chain(&batch)
            .copied()
            .collect();
        let order = |first: &[Label], second: &[Label]| -> Vec<Label> {
            lead.iter().chain(first).chain(second).copied().collect()
        };
        let (order_plain, order_flipped) = (order(free, &summed), order(&summed, free));
        let flipped = match (order_plain == labels, order_flipped == labels) {
            (true, false) => false,
            (false, true) => true,
            // Both (nothing free or nothing summed: either reads the same) or neither (a
            // transpose either way).
            _ => summed_first,
        };
        let order = if flipped { order_flipped } else { order_plain };
        let perm: Vec<usize> = order.iter().map(|l| position(labels, l)).collect();
        let x = transpose(x, Some(&perm))?;
        let mut dims: Vec<isize> = rows
            .iter()
            .filter(|r| labels.contains(r))
            .map(|&r| size(r) as isize)
            .collect();
        if !batch.is_empty() {
            dims.push(product(&batch));
        }
        if flipped {
            dims.extend([product(&summed), product(free)]);
        } else {
            dims.extend([product(free), product(&summed)]);
        }
        Ok((reshape(&x, &dims)?, flipped))
    };
    let (a3, a_flipped) = arrange(a, la, &a_only, false)?;
    let (b3, b_flipped) = arrange(b, lb, &b_only, true)?;
    // a3 is [.., M, K] (flipped: [.., K, M]); b3 is [.., K, N] when flipped, else [.., N, K].
    let product3 = matmul(&a3, &b3, a_flipped, !b_flipped)?;
    let labels: Vec<Label> = rows
        .iter()
        .chain(&batch)
        .chain(&a_only)
        .chain(&b_only)
        .copied()
        .collect();
    let dims: Vec<isize> = labels.iter().map(|&l| size(l) as isize).collect();
    Ok((reshape(&product3, &dims)?, labels))
}

/// Einstein summation, TensorFlow's `tf.einsum`: `"ij,jk->ik"`, `"bij,bjk->bik"`, `"ii->i"`
/// (diagonal), `"ii->"` (trace), `"bxby->bxy"`, `"i,i->"`, `"ij->ji"`, any number of operands,
/// `...` for broadcast axes, and the implicit form without `->` (output: the labels used once,
/// in alphabetical order). Built from differentiable ops, so gradients of any order follow.
///
/// Batch rows (`batch_jacobian`): einsum records as the ops it is built from, each declaring
/// its own row mixing, rather than as one node (whose VJP would need a second einsum engine).
/// For that to judge einsum fairly, every intermediate keeps the output's first label on
/// axis 0 at its own size: an operand that has it there only meets diagonals that leave axis
/// 0 in place, sums over other axes, transposes that fix axis 0, reshapes that keep its size,
/// and matmuls where it is a batch axis (see `contract`), none of which mixes rows. So
/// `bi,ij->bj`, `bij,bjk->bik` or `bxy,by->bx` pass, while an operand without that label on
/// axis 0 (`ib,ij->bj`, or `W` in `bi,ij->bj`) goes through a transpose, a reduction over
/// axis 0 or the mixing side of a matmul, and is refused.
pub fn einsum(equation: &str, operands: &[Tensor]) -> Result<Tensor> {
    let op = "einsum";
    let bad = |why: String| Error::value(op, format!("invalid equation '{equation}': {why}"));
    let compact: String = equation.chars().filter(|c| !c.is_whitespace()).collect();
    let (lhs, rhs) = match compact.split_once("->") {
        Some((l, r)) => {
            if r.contains("->") {
                return Err(bad("more than one '->'".into()));
            }
            (l, Some(r))
        }
        None => (compact.as_str(), None),
    };
    let terms_text: Vec<&str> = lhs.split(',').collect();
    if terms_text.len() != operands.len() {
        return Err(bad(format!(
            "it has {} input term(s) but {} operand(s) were given",
            terms_text.len(),
            operands.len()
        )));
    }
    let terms = terms_text
        .iter()
        .map(|t| parse_term(equation, t))
        .collect::<Result<Vec<_>>>()?;
    let out_term = match rhs {
        Some(text) => {
            let term = parse_term(equation, text)?;
            for (i, c) in term.letters.iter().enumerate() {
                if term.letters[..i].contains(c) {
                    return Err(bad(format!("output label '{c}' appears more than once")));
                }
                if !terms.iter().any(|t| t.letters.contains(c)) {
                    return Err(bad(format!("output label '{c}' appears in no input")));
                }
            }
            Some(term)
        }
        None => None,
    };
    for x in operands.iter().skip(1) {
        same_dtype(op, &operands[0], x)?;
    }

    // Labels of every operand, and each label's size (equal everywhere, except that broadcast
    // axes may be 1).
    let mut labels: Vec<Vec<Label>> = Vec::with_capacity(operands.len());
    for (i, (term, x)) in terms.iter().zip(operands).enumerate() {
        labels.push(term_labels(equation, term, x.shape(), i)?);
    }
    let mut sizes: Vec<(Label, usize)> = Vec::new();
    for (i, (ls, x)) in labels.iter().zip(operands).enumerate() {
        for (&l, &d) in ls.iter().zip(x.shape()) {
            match sizes.iter_mut().find(|(k, _)| *k == l) {
                None => sizes.push((l, d)),
                Some((_, s)) if *s == d => {}
                Some((Label::Ellipsis(_), s)) if *s == 1 || d == 1 => *s = (*s).max(d),
                Some((_, s)) => {
                    let name = match l {
                        Label::Letter(c) => format!("label '{c}'"),
                        Label::Ellipsis(_) => "the '...' axes".to_string(),
                    };
                    return Err(Error::shape(
                        op,
                        format!(
                            "equation '{equation}': {name} has size {s} elsewhere but {d} in operand {i} of shape {}",
                            fmt_shape(x.shape())
                        ),
                    ));
                }
            }
        }
    }
    let size_of = |l: Label| {
        sizes
            .iter()
            .find(|(k, _)| *k == l)
            .map(|&(_, s)| s)
            .unwrap_or(1)
    };
    let max_ellipsis = labels
        .iter()
        .flat_map(|ls| ls.iter())
        .filter_map(|l| match l {
            Label::Ellipsis(i) => Some(i + 1),
            Label::Letter(_) => None,
        })
        .max()
        .unwrap_or(0);
    let ellipsis_out: Vec<Label> = (0..max_ellipsis).rev().map(Label::Ellipsis).collect();

    // The output labels.
    let output: Vec<Label> = match out_term {
        Some(term) => {
            let mut out: Vec<Label> = term.letters.iter().map(|&c| Label::Letter(c)).collect();
            match term.ellipsis {
                Some(at) => {
                    out.splice(at..at, ellipsis_out.iter().copied());
                }
                None if max_ellipsis > 0 => {
                    return Err(bad(
                        "the inputs have '...' axes but the output has no '...'".into(),
                    ));
                }
                None => {}
            }
            out
        }
        None => {
            let mut once: Vec<char> = Vec::new();
            for term in &terms {
                for &c in &term.letters {
                    let count = terms
                        .iter()
                        .flat_map(|t| t.letters.iter())
                        .filter(|&&x| x == c)
                        .count();
                    if count == 1 {
                        once.push(c);
                    }
                }
            }
            once.sort_unstable();
            ellipsis_out
                .iter()
                .copied()
                .chain(once.into_iter().map(Label::Letter))
                .collect()
        }
    };

    // Per operand: take diagonals of repeated labels, drop broadcast axes of size 1 that others
    // stretch, and sum labels that appear nowhere else.
    let mut current: Vec<(Tensor, Vec<Label>)> = Vec::with_capacity(operands.len());
    for (i, (x, ls)) in operands.iter().zip(&labels).enumerate() {
        let mut x = x.clone();
        let mut unique: Vec<Label> = Vec::new();
        for l in ls {
            if !unique.contains(l) {
                unique.push(*l);
            }
        }
        if unique.len() != ls.len() {
            let map: Vec<usize> = ls
                .iter()
                .map(|l| unique.iter().position(|u| u == l).unwrap_or(0))
                .collect();
            x = diagonal_part(&x, &map)?;
        }
        let squeezed: Vec<Label> = unique
            .iter()
            .copied()
            .enumerate()
            .filter(|&(axis, l)| {
                !(matches!(l, Label::Ellipsis(_)) && x.shape()[axis] == 1 && size_of(l) != 1)
            })
            .map(|(_, l)| l)
            .collect();
        if squeezed.len() != unique.len() {
            let dims: Vec<isize> = squeezed.iter().map(|&l| size_of(l) as isize).collect();
            x = reshape(&x, &dims)?;
        }
        let elsewhere = |l: &Label| {
            output.contains(l)
                || labels
                    .iter()
                    .enumerate()
                    .any(|(j, other)| j != i && other.contains(l))
        };
        let lonely: Vec<isize> = (0..squeezed.len())
            .filter(|&a| !elsewhere(&squeezed[a]))
            .map(|a| a as isize)
            .collect();
        let kept: Vec<Label> = squeezed.iter().copied().filter(|l| elsewhere(l)).collect();
        if !lonely.is_empty() {
            x = reduce_sum(&x, Some(&lonely), false)?;
        }
        current.push((x, kept));
    }

    // Contract left to right.
    let mut iter = current.into_iter();
    let (mut acc, mut acc_labels) = match iter.next() {
        Some(first) => first,
        None => return Err(bad("it needs at least one operand".into())),
    };
    let rest: Vec<(Tensor, Vec<Label>)> = iter.collect();
    for (j, (x, lx)) in rest.iter().enumerate() {
        let mut keep: Vec<Label> = output.clone();
        for (_, later) in &rest[j + 1..] {
            keep.extend(later.iter().copied());
        }
        let (t, l) = contract(
            &acc,
            &acc_labels,
            x,
            lx,
            &keep,
            output.first().copied(),
            &size_of,
        )?;
        acc = t;
        acc_labels = l;
    }
    // Broadcast axes that were 1 everywhere may have been dropped by nothing; every output
    // label is now in `acc_labels`.
    let perm: Vec<usize> = output
        .iter()
        .map(|l| {
            acc_labels.iter().position(|x| x == l).ok_or_else(|| {
                Error::value(
                    op,
                    format!("internal: output label {l:?} was lost in '{equation}'"),
                )
            })
        })
        .collect::<Result<Vec<_>>>()?;
    transpose(&acc, Some(&perm))
}
