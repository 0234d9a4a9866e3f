//! Fork-join for one kernel (an elementwise map, a GEMM) called from outside rayon's pool.
//!
//! rayon suits the Jacobian's blocks (coarse, on its own workers), less so the many short
//! kernels of an eager program called from the Python thread: that thread injects the work and
//! sleeps until it is done, and rayon's idle workers then spin and yield between kernels (in a
//! nested-tape PINN, a third of all process CPU). Here the calling thread takes part instead:
//! the work is a list of tasks that every thread claims one by one from a shared counter, so
//! the caller starts at once and never waits for a helper that is slow to wake (a sleeping
//! vCPU can take a millisecond); a late helper just takes fewer tasks. Helpers wait for work
//! briefly (spinning no longer than a fraction of the work they last did, or as long as their
//! recent work when that was long: see [`LONG_WORK`]) and then sleep, so between kernels they
//! cost little CPU.
//!
//! Helpers: rayon's thread count less one (the caller is the other), so `RAYON_NUM_THREADS`
//! sets both. One fork-join at a time: a second thread calling meanwhile runs its tasks alone.
use std::any::Any;
use std::cell::Cell;
use std::panic::{catch_unwind, resume_unwind, AssertUnwindSafe};
use std::sync::atomic::{AtomicBool, AtomicPtr, AtomicU64, AtomicUsize, Ordering::*};
use std::sync::{Mutex, OnceLock};
use std::thread::Thread;
use std::time::{Duration, Instant};

/// The task function of a job, by the address of a `&dyn Fn(usize) + Sync` on the caller's
/// stack: only read by a helper that has announced itself (`active`) while the job was open,
/// and the caller waits for those before returning.
type TaskRef<'a> = &'a (dyn Fn(usize) + Sync);

struct Pool {
    /// Held by the thread running a job (`try_lock`: a second caller runs alone).
    caller: Mutex<()>,
    /// Bumped when a job is published.
    epoch: AtomicU64,
    /// The published job: its function (a `*const TaskRef`) and task count, written only
    /// while the job is closed and no helper is active (atomics, so a fork never inherits a
    /// held lock).
    job: AtomicPtr<()>,
    tasks: AtomicUsize,
    /// The next task to claim.
    next: AtomicUsize,
    /// Whether helpers may still join the current job.
    open: AtomicBool,
    /// Helpers inside the current job.
    active: AtomicUsize,
    /// The first panic of a task of the current job, re-raised on the caller once every
    /// thread has left the job (the task function lives on the caller's stack).
    panic: Mutex<Option<Box<dyn Any + Send>>>,
    /// Set by a caller that parks while helpers finish long tasks; the last helper to leave
    /// the job unparks `caller_thread`.
    caller_parked: AtomicBool,
    caller_thread: Mutex<Option<Thread>>,
    helpers: Vec<Helper>,
}

struct Helper {
    thread: Thread,
    /// Set by the helper before it parks; the caller unparks it when it takes the flag.
    sleeping: AtomicBool,
}

thread_local! {
    /// True while this thread runs tasks of a job (kernels inside a task do not split again).
    static IN_TASK: Cell<bool> = const { Cell::new(false) };
}

/// Longest a helper spins for the next job, and the share of its last job's time it may spin.
const MAX_SPIN: Duration = Duration::from_micros(50);
const SPIN_SHARE: u32 = 8;

/// Recent work from which a helper spins as long as that work took (up to [`MAX_LONG_SPIN`]):
/// a step of large GEMMs separated by 20-450 µs of serial work (an MLP's training step). A
/// parked helper costs each such job ~35 µs of the caller's time to wake it and arrives
/// ~40-60 µs late (KVM); spinning through the gaps instead took the MLP Adam step 3.49 ->
/// 3.13 ms at 2 threads with less process CPU (the wake-ups cost more than the spinning).
/// Up to 500 µs was no faster; the CNN and LSTM steps spend ~5-10% more CPU spinning at
/// either, in the same time. Short kernels (a nested-tape PINN's) keep the short spin.
const LONG_WORK: Duration = Duration::from_micros(100);
const MAX_LONG_SPIN: Duration = Duration::from_micros(250);

/// How much of the recent work a short job between long ones forgets (1 / this): an MLP
/// step's bias adds and relus between its GEMMs, and the small products of a 512 -> 10 layer
/// and the loss, take ~230 us of serial work before the backward's large pair. At 1 / 2 the
/// helper had parked by then and arrived ~65 us late for the pair (W2 at 2 threads).
const RECENT_DECAY: u32 = 8;

/// How long a helper spins for the next job after `worked` in its last one, given its `recent`
/// work (the larger of the last job's and half the recent work before it: a short elementwise
/// job between two GEMMs does not end the long spin).
fn spin_budget(recent: Duration, worked: Duration) -> Duration {
    if recent >= LONG_WORK {
        recent.min(MAX_LONG_SPIN)
    } else {
        (worked / SPIN_SHARE).min(MAX_SPIN)
    }
}

static POOL: OnceLock<Pool> = OnceLock::new();

/// The pool if it has started.
fn static_pool() -> Option<&'static Pool> {
    POOL.get()
}

fn pool() -> &'static Pool {
    POOL.get_or_init(|| {
        let count = rayon::current_num_threads().saturating_sub(1);
        let mut helpers = Vec::with_capacity(count);
        for i in 0..count {
            // The helper's first `pool()` waits until this initialisation is done.
            let spawned = std::thread::Builder::new()
                .name(format!("rustape-kernel-{i}"))
                .spawn(move || helper_loop(pool(), i));
            match spawned {
                Ok(handle) => helpers.push(Helper {
                    thread: handle.thread().clone(),
                    sleeping: AtomicBool::new(false),
                }),
                // No thread (resource limits): fewer helpers, the caller does the rest.
                Err(_) => break,
            }
        }
        Pool {
            caller: Mutex::new(()),
            epoch: AtomicU64::new(0),
            job: AtomicPtr::new(std::ptr::null_mut()),
            tasks: AtomicUsize::new(0),
            next: AtomicUsize::new(0),
            open: AtomicBool::new(false),
            active: AtomicUsize::new(0),
            panic: Mutex::new(None),
            caller_parked: AtomicBool::new(false),
            caller_thread: Mutex::new(None),
            helpers,
        }
    })
}

fn helper_loop(pool: &'static Pool, i: usize) {
    let me = &pool.helpers[i];
    let mut seen = pool.epoch.load(Acquire);
    let mut spin = Duration::ZERO;
    let mut recent = Duration::ZERO;
    loop {
        // Wait for a new job: spin a little (the next kernel often follows at once), then park.
        let started = Instant::now();
        while pool.epoch.load(Acquire) == seen {
            if started.elapsed() >= spin {
                me.sleeping.store(true, SeqCst);
                if pool.epoch.load(SeqCst) == seen {
                    std::thread::park();
                }
                me.sleeping.store(false, SeqCst);
            } else {
                std::hint::spin_loop();
            }
        }
        seen = pool.epoch.load(Acquire);
        pool.active.fetch_add(1, SeqCst);
        if !pool.open.load(SeqCst) || pool.epoch.load(SeqCst) != seen {
            // Too late for that job (or a newer one is being published): wait again, spinning
            // if the recent work was long (the caller did a short job alone meanwhile).
            leave(pool);
            recent /= 2;
            spin = spin_budget(recent, Duration::ZERO);
            continue;
        }
        let (f, tasks) = (pool.job.load(SeqCst), pool.tasks.load(SeqCst));
        let worked = Instant::now();
        if !f.is_null() {
            IN_TASK.with(|t| t.set(true));
            // SAFETY: the job is open and this helper is counted active, so the caller has not
            // returned (it waits for `active` to reach zero after closing the job) and the
            // reference it published is alive.
            let f: TaskRef = unsafe { *(f as *const TaskRef) };
            run_tasks(pool, f, tasks);
            IN_TASK.with(|t| t.set(false));
        }
        let worked = worked.elapsed();
        recent = worked.max(recent - recent / RECENT_DECAY);
        spin = spin_budget(recent, worked);
        leave(pool);
    }
}

/// A helper leaves the job; the last one out wakes a caller that parked waiting for it.
fn leave(pool: &Pool) {
    if pool.active.fetch_sub(1, SeqCst) == 1 && pool.caller_parked.swap(false, SeqCst) {
        if let Some(caller) = &*pool.caller_thread.lock().unwrap_or_else(|e| e.into_inner()) {
            caller.unpark();
        }
    }
}

/// Spins this long for helpers still in their last tasks before parking until they leave.
const JOIN_SPIN: Duration = Duration::from_micros(20);

/// After long tasks of its own, the caller spins for a share of their time (up to
/// [`MAX_JOIN_SPIN`]): the helper's last long task then ends a few tens of µs later, and a
/// parked caller took ~35 µs more to wake (the MLP step's 0.5 ms weight-gradient GEMM).
const JOIN_SPIN_SHARE: u32 = 4;
const MAX_JOIN_SPIN: Duration = Duration::from_micros(150);

/// Waits until no helper is inside the closed job: spins briefly (tasks are short), then parks
/// (a long task, or a helper preempted mid-task, would otherwise cost a core of spinning).
fn join(pool: &Pool, own_work: Duration) {
    let started = Instant::now();
    let spin = JOIN_SPIN.max((own_work / JOIN_SPIN_SHARE).min(MAX_JOIN_SPIN));
    while pool.active.load(SeqCst) != 0 {
        if started.elapsed() < spin {
            std::hint::spin_loop();
            continue;
        }
        *pool.caller_thread.lock().unwrap_or_else(|e| e.into_inner()) =
            Some(std::thread::current());
        pool.caller_parked.store(true, SeqCst);
        while pool.active.load(SeqCst) != 0 {
            // A timeout as well: a wake-up meant for an earlier job may have been consumed.
            std::thread::park_timeout(Duration::from_micros(200));
        }
        pool.caller_parked.store(false, SeqCst);
    }
}

fn run_tasks(pool: &Pool, f: &(dyn Fn(usize) + Sync), tasks: usize) {
    loop {
        let i = pool.next.fetch_add(1, Relaxed);
        if i >= tasks {
            break;
        }
        if let Err(payload) = catch_unwind(AssertUnwindSafe(|| f(i))) {
            // No further tasks start; the caller re-raises the first panic after the join.
            pool.next.store(tasks, SeqCst);
            let mut first = pool.panic.lock().unwrap_or_else(|e| e.into_inner());
            first.get_or_insert(payload);
            break;
        }
    }
}

/// Whether a helper thread is awake (running a job, or spinning for the next one), so that a
/// job published now starts on it within about a microsecond; false before the pool exists.
pub(crate) fn helpers_awake() -> bool {
    static_pool().is_some_and(|p| p.helpers.iter().any(|h| !h.sleeping.load(Relaxed)))
}

/// Whether this thread runs a task of a job (kernels inside a task do not split again).
pub(crate) fn in_task() -> bool {
    IN_TASK.with(Cell::get)
}

/// Runs `f(0) .. f(tasks - 1)`, each once, on this thread and the helpers; returns when all
/// have run. Tasks should be short (a few to a few hundred µs): the caller waits for the last
/// ones a helper took.
pub(crate) fn for_each_task(tasks: usize, f: &(dyn Fn(usize) + Sync)) {
    if tasks <= 1 || !super::kernel::may_split() {
        (0..tasks).for_each(f);
        return;
    }
    let pool = pool();
    let Ok(_caller) = pool.caller.try_lock() else {
        (0..tasks).for_each(f);
        return;
    };
    if pool.helpers.is_empty() {
        (0..tasks).for_each(f);
        return;
    }
    let task_ref: TaskRef = f;
    pool.job
        .store(&task_ref as *const TaskRef as *mut (), SeqCst);
    pool.tasks.store(tasks, SeqCst);
    pool.next.store(0, SeqCst);
    pool.open.store(true, SeqCst);
    pool.epoch.fetch_add(1, SeqCst);
    for h in &pool.helpers {
        if h.sleeping.swap(false, SeqCst) {
            h.thread.unpark();
        }
    }
    IN_TASK.with(|t| t.set(true));
    let own = Instant::now();
    run_tasks(pool, f, tasks);
    let own_work = own.elapsed();
    IN_TASK.with(|t| t.set(false));
    pool.open.store(false, SeqCst);
    // The helpers still inside finish the tasks they took.
    join(pool, own_work);
    pool.job.store(std::ptr::null_mut(), SeqCst);
    let panicked = pool.panic.lock().unwrap_or_else(|e| e.into_inner()).take();
    if let Some(payload) = panicked {
        resume_unwind(payload);
    }
}

/// `f(0) .. f(count - 1)` as [`for_each_task`] runs them, their results in order.
pub(crate) fn map_tasks<R: Send>(count: usize, f: impl Fn(usize) -> R + Sync) -> Vec<R> {
    let slots: Vec<Mutex<Option<R>>> = (0..count).map(|_| Mutex::new(None)).collect();
    for_each_task(count, &|i| {
        let r = f(i);
        *slots[i].lock().unwrap_or_else(|e| e.into_inner()) = Some(r);
    });
    slots
        .into_iter()
        .map(|s| {
            let r = s.into_inner().unwrap_or_else(|e| e.into_inner());
            r.expect("for_each_task runs every task once")
        })
        .collect()
}

/// `a()` and `b()` as the two tasks of one job, their results: side by side when a helper
/// takes the second, else one after the other on this thread (the caller starts with `a`).
pub(crate) fn both<A: Send, B: Send>(
    a: impl FnOnce() -> A + Send,
    b: impl FnOnce() -> B + Send,
) -> (A, B) {
    let (a, b) = (Mutex::new(Some(a)), Mutex::new(Some(b)));
    let (ra, rb) = (Mutex::new(None), Mutex::new(None));
    for_each_task(2, &|i| {
        if i == 0 {
            if let Some(f) = take(&a) {
                *ra.lock().unwrap_or_else(|e| e.into_inner()) = Some(f());
            }
        } else if let Some(f) = take(&b) {
            *rb.lock().unwrap_or_else(|e| e.into_inner()) = Some(f());
        }
    });
    (done(ra), done(rb))
}

fn take<T>(slot: &Mutex<Option<T>>) -> Option<T> {
    slot.lock().unwrap_or_else(|e| e.into_inner()).take()
}

fn done<T>(slot: Mutex<Option<T>>) -> T {
    let r = slot.into_inner().unwrap_or_else(|e| e.into_inner());
    r.expect("for_each_task runs every task once")
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::atomic::AtomicUsize;

    #[test]
    fn every_task_runs_once_and_results_keep_their_order() {
        let runs: Vec<AtomicUsize> = (0..100).map(|_| AtomicUsize::new(0)).collect();
        for_each_task(runs.len(), &|i| {
            runs[i].fetch_add(1, SeqCst);
        });
        assert!(runs.iter().all(|r| r.load(SeqCst) == 1));
        assert_eq!(
            map_tasks(50, |i| i * i),
            (0..50).map(|i| i * i).collect::<Vec<_>>()
        );
    }

    #[test]
    fn a_panicking_task_reaches_the_caller_and_the_pool_still_works() {
        for _ in 0..20 {
            let caught = catch_unwind(|| {
                for_each_task(64, &|i| {
                    if i == 37 {
                        panic!("task {i} failed");
                    }
                })
            });
            let payload = caught.expect_err("the task's panic is re-raised on the caller");
            let message = payload
                .downcast_ref::<String>()
                .cloned()
                .unwrap_or_default();
            assert_eq!(message, "task 37 failed");
        }
        // The pool is neither wedged nor left with a stale panic.
        assert_eq!(map_tasks(8, |i| i + 1), vec![1, 2, 3, 4, 5, 6, 7, 8]);
    }
}
