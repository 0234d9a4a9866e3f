//! What handing a tensor's memory from one core to the other costs, without the engine: two
//! threads take turns on one buffer (each step timed on the thread that runs it, the median of
//! 400 turns). The question it answers: why a kernel split over two threads of one process
//! costs more CPU than the same work on one (W7's elementwise passes and products, W8's weight
//! gradients on the helper), while two one-thread processes run side by side at full speed.
//!
//!     cargo bench --bench cross_core --features mimalloc
//!
//! "local": one thread writes, reads and writes again. "other wrote": the other core wrote the
//! buffer, this one reads it (or overwrites it). "other read": this core wrote it, the other
//! read it, this one writes it again (a buffer the allocator hands back for the next output).
//! The allocator rows: a block is allocated and written on one thread, read and freed on the
//! same or on the other thread, and the first thread's next allocation of that size is timed
//! with its write (mimalloc gives the freed block back). "of its own": each thread writes and
//! reads a buffer no other thread touches, alone or both at once. The `Arc` row: one clone and
//! drop of a tensor's shared buffer handle whose count the other core updated last.
use std::sync::atomic::{AtomicUsize, Ordering::*};
use std::sync::{Arc, Mutex};
use std::time::Instant;

#[cfg(feature = "mimalloc")]
#[global_allocator]
static GLOBAL: mimalloc::MiMalloc = mimalloc::MiMalloc;

const TURNS: usize = 400;

/// One step: which thread runs it and what it does to the shared slot.
type Step = (usize, fn(&Mutex<Option<Vec<f32>>>, usize));

fn write(slot: &Mutex<Option<Vec<f32>>>, n: usize) {
    let mut guard = slot.lock().unwrap();
    let v = guard.get_or_insert_with(|| vec![1.0; n]);
    v.iter_mut().for_each(|x| *x = *x * 0.5 + 1.0);
}

fn read(slot: &Mutex<Option<Vec<f32>>>, _n: usize) {
    let guard = slot.lock().unwrap();
    let mut acc = [0f32; 16];
    for c in guard.as_ref().unwrap().chunks_exact(16) {
        acc.iter_mut().zip(c).for_each(|(a, x)| *a += x);
    }
    std::hint::black_box(acc);
}

/// A fresh block (from the allocator), written whole.
fn alloc_write(slot: &Mutex<Option<Vec<f32>>>, n: usize) {
    let mut v: Vec<f32> = Vec::with_capacity(n);
    v.resize(n, 1.0);
    *slot.lock().unwrap() = Some(v);
}

fn free(slot: &Mutex<Option<Vec<f32>>>, _n: usize) {
    drop(slot.lock().unwrap().take());
}

/// The median time of each step over the turns, in µs.
fn run(n: usize, plan: &'static [Step]) -> Vec<f64> {
    let slot = Arc::new(Mutex::new(None::<Vec<f32>>));
    let turn = Arc::new(AtomicUsize::new(0));
    let times = Arc::new(Mutex::new(vec![Vec::with_capacity(TURNS); plan.len()]));
    let threads: Vec<_> = (0..2)
        .map(|me| {
            let (slot, turn, times) = (slot.clone(), turn.clone(), times.clone());
            std::thread::spawn(move || {
                for r in 0..TURNS {
                    for (k, &(who, step)) in plan.iter().enumerate() {
                        let at = r * plan.len() + k;
                        if who != me {
                            continue;
                        }
                        while turn.load(Acquire) != at {
                            std::hint::spin_loop();
                        }
                        let started = Instant::now();
                        step(&slot, n);
                        let us = started.elapsed().as_secs_f64() * 1e6;
                        times.lock().unwrap()[k].push(us);
                        turn.store(at + 1, Release);
                    }
                }
            })
        })
        .collect();
    threads.into_iter().for_each(|t| t.join().unwrap());
    let mut times = times.lock().unwrap().clone();
    times
        .iter_mut()
        .map(|t| {
            t.sort_by(f64::total_cmp);
            t[t.len() / 2]
        })
        .collect()
}

/// The median time of a write and a read pass over a buffer of its own, on `threads` threads at
/// once (each its own buffer): whether the two cores slow each other when they share nothing.
fn own_buffers(n: usize, threads: usize) -> f64 {
    let medians: Vec<f64> = std::thread::scope(|scope| {
        let workers: Vec<_> = (0..threads)
            .map(|_| {
                scope.spawn(move || {
                    let slot = Mutex::new(None::<Vec<f32>>);
                    let mut times: Vec<f64> = (0..TURNS)
                        .map(|_| {
                            let started = Instant::now();
                            write(&slot, n);
                            read(&slot, n);
                            started.elapsed().as_secs_f64() * 1e6
                        })
                        .collect();
                    times.sort_by(f64::total_cmp);
                    times[times.len() / 2]
                })
            })
            .collect();
        workers.into_iter().map(|w| w.join().unwrap()).collect()
    });
    medians.iter().sum::<f64>() / medians.len() as f64
}

/// The median time of one clone and drop of a shared `Arc` (two atomic updates of its count),
/// the threads taking turns (`across`: the count was last updated on the other core) or one
/// thread alone, in ns.
fn arc_count(across: bool) -> f64 {
    let shared = Arc::new(0u64);
    let turn = AtomicUsize::new(0);
    let turns = 20 * TURNS;
    let medians: Vec<f64> = std::thread::scope(|scope| {
        let workers: Vec<_> = (0..2)
            .map(|me| {
                let (shared, turn) = (&shared, &turn);
                scope.spawn(move || {
                    let mut times = Vec::with_capacity(turns);
                    for at in 0..turns {
                        if across && at % 2 != me {
                            continue;
                        }
                        if !across && me == 1 {
                            break;
                        }
                        while turn.load(Acquire) != at {
                            std::hint::spin_loop();
                        }
                        let started = Instant::now();
                        drop(std::hint::black_box(Arc::clone(shared)));
                        times.push(started.elapsed().as_secs_f64() * 1e9);
                        turn.store(at + 1, Release);
                    }
                    times.sort_by(f64::total_cmp);
                    times.get(times.len() / 2).copied().unwrap_or(f64::NAN)
                })
            })
            .collect();
        workers.into_iter().map(|w| w.join().unwrap()).collect()
    });
    medians[0]
}

fn main() {
    println!("median µs per step (2 threads taking turns)");
    for kb in [128usize, 256, 512, 1024] {
        let n = kb * 1024 / 4;
        let local = run(n, &[(0, write), (0, read), (0, write)]);
        let other_wrote = run(n, &[(1, write), (0, read)]);
        let other_wrote_w = run(n, &[(1, write), (0, write)]);
        let other_read = run(n, &[(0, write), (1, read), (0, write)]);
        println!(
            "{kb:5} KB  local: read {:6.1} write {:6.1} | other wrote: read {:6.1} write {:6.1} \
             | other read: write {:6.1}",
            local[1], local[2], other_wrote[1], other_wrote_w[1], other_read[2]
        );
    }
    for kb in [256usize, 512, 1024] {
        let n = kb * 1024 / 4;
        println!(
            "{kb:5} KB  write+read of a buffer of its own: one thread {:6.1} | two at once {:6.1}",
            own_buffers(n, 1),
            own_buffers(n, 2)
        );
    }
    println!(
        "an Arc's clone + drop: count last updated here {:5.0} ns | on the other core {:5.0} ns",
        arc_count(false),
        arc_count(true)
    );
    for kb in [256usize, 512, 1024] {
        let n = kb * 1024 / 4;
        let same = run(n, &[(0, alloc_write), (0, read), (0, free)]);
        let read_there = run(n, &[(0, alloc_write), (1, read), (0, free)]);
        let freed_there = run(n, &[(0, alloc_write), (1, read), (1, free)]);
        println!(
            "{kb:5} KB  alloc+write after: read+free here {:6.1} | read there, free here {:6.1} \
             | read+free there {:6.1} (free there {:5.1})",
            same[0], read_there[0], freed_there[0], freed_there[2]
        );
    }
}
