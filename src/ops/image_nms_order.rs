//! The orders TensorFlow's C++ NMS kernels leave to their standard library: a
//! `std::priority_queue` over a `std::vector` (whose pops among equal scores follow the heap's
//! layout) and `std::sort` (not stable). TensorFlow's Linux builds use GNU libstdc++, whose
//! algorithms are deterministic; these functions perform the same moves (heap sift-up and
//! sift-down, introsort with median-of-three pivots, a heap-sort fallback and a final insertion
//! sort over runs of 16), so ties come out in TensorFlow's order.
//!
//! `less(a, b)` is the comparator: `true` when `a` goes before `b` in a sort (after `b` in a
//! heap's pop order).

/// Moves `value` up from `hole` towards `top` (libstdc++'s `__push_heap`).
fn sift_up<T: Copy, L: Fn(&T, &T) -> bool>(
    v: &mut [T],
    mut hole: usize,
    top: usize,
    value: T,
    less: &L,
) {
    while hole > top {
        let parent = (hole - 1) / 2;
        if !less(&v[parent], &value) {
            break;
        }
        v[hole] = v[parent];
        hole = parent;
    }
    v[hole] = value;
}

/// Fills `hole` from its larger children down to a leaf, then sifts `value` up (libstdc++'s
/// `__adjust_heap`) over the heap `v[..len]`.
fn adjust<T: Copy, L: Fn(&T, &T) -> bool>(
    v: &mut [T],
    mut hole: usize,
    len: usize,
    value: T,
    less: &L,
) {
    let top = hole;
    let mut child = hole;
    while len >= 2 && child < (len - 1) / 2 {
        child = 2 * (child + 1);
        if less(&v[child], &v[child - 1]) {
            child -= 1;
        }
        v[hole] = v[child];
        hole = child;
    }
    if len >= 2 && len % 2 == 0 && child == (len - 2) / 2 {
        child = 2 * (child + 1);
        v[hole] = v[child - 1];
        hole = child - 1;
    }
    sift_up(v, hole, top, value, less);
}

/// `std::push_heap`: the last element of `v` joins the heap `v[..len - 1]`.
pub(crate) fn push_heap<T: Copy, L: Fn(&T, &T) -> bool>(v: &mut [T], less: &L) {
    if let Some(last) = v.len().checked_sub(1) {
        let value = v[last];
        sift_up(v, last, 0, value, less);
    }
}

/// `std::pop_heap`: the heap's top moves to the end of `v`, the rest stays a heap.
pub(crate) fn pop_heap<T: Copy, L: Fn(&T, &T) -> bool>(v: &mut [T], less: &L) {
    let n = v.len();
    if n > 1 {
        let value = v[n - 1];
        v[n - 1] = v[0];
        adjust(v, 0, n - 1, value, less);
    }
}

fn make_heap<T: Copy, L: Fn(&T, &T) -> bool>(v: &mut [T], less: &L) {
    let len = v.len();
    if len < 2 {
        return;
    }
    let mut parent = (len - 2) / 2;
    loop {
        let value = v[parent];
        adjust(v, parent, len, value, less);
        if parent == 0 {
            return;
        }
        parent -= 1;
    }
}

fn heap_sort<T: Copy, L: Fn(&T, &T) -> bool>(v: &mut [T], less: &L) {
    make_heap(v, less);
    let mut end = v.len();
    while end > 1 {
        end -= 1;
        let value = v[end];
        v[end] = v[0];
        adjust(v, 0, end, value, less);
    }
}

fn median_to_first<T, L: Fn(&T, &T) -> bool>(
    v: &mut [T],
    result: usize,
    a: usize,
    b: usize,
    c: usize,
    less: &L,
) {
    let pick = if less(&v[a], &v[b]) {
        if less(&v[b], &v[c]) {
            b
        } else if less(&v[a], &v[c]) {
            c
        } else {
            a
        }
    } else if less(&v[a], &v[c]) {
        a
    } else if less(&v[b], &v[c]) {
        c
    } else {
        b
    };
    v.swap(result, pick);
}

/// Partitions `v[1..]` around the pivot `v[0]`; returns the cut.
fn partition<T, L: Fn(&T, &T) -> bool>(v: &mut [T], less: &L) -> usize {
    let n = v.len();
    let mid = n / 2;
    median_to_first(v, 0, 1, mid, n - 1, less);
    let (mut first, mut last) = (1, n);
    loop {
        while less(&v[first], &v[0]) {
            first += 1;
        }
        last -= 1;
        while less(&v[0], &v[last]) {
            last -= 1;
        }
        if first >= last {
            return first;
        }
        v.swap(first, last);
        first += 1;
    }
}

/// Inserts `v[i]` into the sorted `v[..i]`, knowing an element before it stops the scan.
fn linear_insert<T: Copy, L: Fn(&T, &T) -> bool>(v: &mut [T], mut i: usize, less: &L) {
    let value = v[i];
    while less(&value, &v[i - 1]) {
        v[i] = v[i - 1];
        i -= 1;
    }
    v[i] = value;
}

fn insertion_sort<T: Copy, L: Fn(&T, &T) -> bool>(v: &mut [T], less: &L) {
    for i in 1..v.len() {
        if less(&v[i], &v[0]) {
            let value = v[i];
            v.copy_within(0..i, 1);
            v[0] = value;
        } else {
            linear_insert(v, i, less);
        }
    }
}

/// `std::sort(v, less)` as libstdc++ performs it.
pub(crate) fn sort<T: Copy, L: Fn(&T, &T) -> bool>(v: &mut [T], less: &L) {
    const RUN: usize = 16;
    let n = v.len();
    if n < 2 {
        return;
    }
    let depth = 2 * (usize::BITS - 1 - n.leading_zeros()) as usize;
    // Ranges still to partition (disjoint, so the order they are done in does not matter).
    let mut stack = vec![(0usize, n, depth)];
    while let Some((first, mut last, mut depth)) = stack.pop() {
        while last - first > RUN {
            if depth == 0 {
                heap_sort(&mut v[first..last], less);
                break;
            }
            depth -= 1;
            let cut = first + partition(&mut v[first..last], less);
            stack.push((cut, last, depth));
            last = cut;
        }
    }
    if n > RUN {
        insertion_sort(&mut v[..RUN], less);
        for i in RUN..n {
            linear_insert(v, i, less);
        }
    } else {
        insertion_sort(v, less);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sorts_and_pops_in_order() {
        let mut v: Vec<i64> = (0..200).map(|i| (i * 7919) % 101).collect();
        sort(&mut v, &|a, b| a < b);
        assert!(v.windows(2).all(|w| w[0] <= w[1]));
        let mut heap = Vec::new();
        for i in [5, 1, 9, 3, 7, 9, 0] {
            heap.push(i);
            push_heap(&mut heap, &|a: &i32, b: &i32| a < b);
        }
        let mut out = Vec::new();
        while !heap.is_empty() {
            pop_heap(&mut heap, &|a: &i32, b: &i32| a < b);
            out.push(heap.pop().unwrap_or_default());
        }
        assert_eq!(out, vec![9, 9, 7, 5, 3, 1, 0]);
    }
}
