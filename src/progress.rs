//! Opt-in progress reports for long computations: the rows of a Jacobian (and so a Hessian),
//! or the steps of a training loop.
//!
//! A computation that can report progress asks [`current`] for the reporter installed on the
//! calling thread by [`with_progress`] and calls [`Progress::advance`] as work finishes (from
//! any thread). [`Bar`] is a reporter that draws a text bar on stderr, as `tqdm` does:
//!
//! ```
//! use std::sync::Arc;
//! use rustape::progress::{with_progress, Bar};
//! use rustape::{ops, Source, Tape, Tensor, Unconnected};
//!
//! let x = Tensor::from_vec(vec![1.0f64, 2.0, 3.0], &[3])?;
//! let tape = Tape::new(false, true);
//! let y = {
//!     let _recording = tape.enter()?;
//!     tape.watch(&x);
//!     ops::multiply(&x, &x)?
//! };
//! let bar = Arc::new(Bar::new("jacobian", "rows"));
//! let j = with_progress(bar.clone(), || {
//!     tape.jacobian(&y, &[Source::from(&x)], Unconnected::None)
//! })?;
//! assert_eq!(bar.done(), 3);
//! assert_eq!(j[0].as_ref().unwrap().shape(), &[3, 3]);
//! # Ok::<(), rustape::Error>(())
//! ```
use std::cell::RefCell;
use std::io::Write;
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

/// Something told how far a computation has come.
pub trait Progress: Send + Sync {
    /// The computation has `total` units of work (rows, steps); called once before any
    /// [`advance`](Progress::advance).
    fn start(&self, total: usize);
    /// `n` more units are done (called from any thread).
    fn advance(&self, n: usize);
    /// The computation ended (also after an error).
    fn finish(&self);
}

thread_local! {
    static CURRENT: RefCell<Option<Arc<dyn Progress>>> = const { RefCell::new(None) };
}

/// Runs `f` with `progress` as the reporter of the computations it starts on this thread
/// (Jacobians, batch Jacobians and Hessians report their rows), restoring the previous one
/// afterwards.
pub fn with_progress<R>(progress: Arc<dyn Progress>, f: impl FnOnce() -> R) -> R {
    struct Restore(Option<Arc<dyn Progress>>);
    impl Drop for Restore {
        fn drop(&mut self) {
            let previous = self.0.take();
            CURRENT.with(|c| *c.borrow_mut() = previous);
        }
    }
    let previous = CURRENT.with(|c| c.borrow_mut().replace(progress));
    let _restore = Restore(previous);
    f()
}

/// The reporter installed on this thread by [`with_progress`], if any.
pub fn current() -> Option<Arc<dyn Progress>> {
    CURRENT.with(|c| c.borrow().clone())
}

/// A reporter for one computation of `total` units: started on creation, finished when
/// dropped (so an early return or an error still closes the bar). Does nothing without a
/// reporter.
pub struct Report(Option<Arc<dyn Progress>>);

impl Report {
    /// Starts reporting `total` units to the reporter installed on this thread, if any. A
    /// computation nested in one that reports (the Jacobian inside a Hessian) starts none.
    pub fn start(total: usize) -> Report {
        let progress = CURRENT.with(|c| c.borrow_mut().take());
        if let Some(p) = &progress {
            p.start(total);
        }
        Report(progress)
    }

    /// `n` more units are done.
    pub fn advance(&self, n: usize) {
        if let Some(p) = &self.0 {
            p.advance(n);
        }
    }
}

impl Drop for Report {
    fn drop(&mut self) {
        if let Some(p) = self.0.take() {
            p.finish();
            CURRENT.with(|c| *c.borrow_mut() = Some(p));
        }
    }
}

/// A text progress bar on stderr, redrawn in place at most ten times a second:
///
/// ```text
/// jacobian:  45%|█████▍      | 450/1000 [00:01<00:01, 412.30 rows/s]
/// ```
pub struct Bar {
    label: String,
    unit: String,
    total: AtomicUsize,
    done: AtomicUsize,
    /// Milliseconds after `started` of the last redraw.
    drawn_at: AtomicU64,
    started: Mutex<Instant>,
}

/// Redraws closer together than this are skipped.
const REDRAW: Duration = Duration::from_millis(100);
/// Characters of the bar itself.
const WIDTH: usize = 24;

impl Bar {
    /// A bar named `label` counting `unit`s (`"rows"`, `"steps"`); its total comes from the
    /// computation ([`Progress::start`]).
    pub fn new(label: &str, unit: &str) -> Bar {
        Bar {
            label: label.to_string(),
            unit: unit.to_string(),
            total: AtomicUsize::new(0),
            done: AtomicUsize::new(0),
            drawn_at: AtomicU64::new(0),
            started: Mutex::new(Instant::now()),
        }
    }

    /// Units done so far.
    pub fn done(&self) -> usize {
        self.done.load(Ordering::Relaxed)
    }

    /// The bar's text for `done` of `total` units after `elapsed`.
    pub fn render(&self, done: usize, total: usize, elapsed: Duration) -> String {
        let seconds = elapsed.as_secs_f64();
        let rate = if seconds > 0.0 {
            done as f64 / seconds
        } else {
            0.0
        };
        let fraction = if total == 0 {
            1.0
        } else {
            (done as f64 / total as f64).min(1.0)
        };
        // Eighths of a cell, as tqdm draws them.
        let eighths = (fraction * (WIDTH * 8) as f64) as usize;
        let mut bar = "█".repeat(eighths / 8);
        if eighths % 8 > 0 {
            bar.push(['▏', '▎', '▍', '▌', '▋', '▊', '▉'][eighths % 8 - 1]);
        }
        let remaining = if rate > 0.0 {
            clock(total.saturating_sub(done) as f64 / rate)
        } else {
            "?".to_string()
        };
        format!(
            "{}: {:>3.0}%|{:<WIDTH$}| {}/{} [{}<{}, {:.2} {}/s]",
            self.label,
            fraction * 100.0,
            bar,
            done,
            total,
            clock(seconds),
            remaining,
            rate,
            self.unit,
        )
    }

    fn draw(&self, end: bool) {
        let started = *self.started.lock().unwrap_or_else(|p| p.into_inner());
        let elapsed = started.elapsed();
        let now = elapsed.as_millis() as u64;
        let last = self.drawn_at.load(Ordering::Relaxed);
        if !end && now.saturating_sub(last) < REDRAW.as_millis() as u64 {
            return;
        }
        if !end
            && self
                .drawn_at
                .compare_exchange(last, now.max(1), Ordering::Relaxed, Ordering::Relaxed)
                .is_err()
        {
            return; // another thread is drawing this moment
        }
        let line = self.render(self.done(), self.total.load(Ordering::Relaxed), elapsed);
        let mut err = std::io::stderr().lock();
        // A progress bar is best effort: a closed stderr is no reason to fail.
        let _ = write!(err, "\r{line}{}", if end { "\n" } else { "" });
        let _ = err.flush();
    }
}

/// `mm:ss` (or `h:mm:ss`) of `seconds`.
fn clock(seconds: f64) -> String {
    let s = seconds.max(0.0).round() as u64;
    if s >= 3600 {
        format!("{}:{:02}:{:02}", s / 3600, s / 60 % 60, s % 60)
    } else {
        format!("{:02}:{:02}", s / 60, s % 60)
    }
}

impl Progress for Bar {
    fn start(&self, total: usize) {
        self.total.store(total, Ordering::Relaxed);
        self.done.store(0, Ordering::Relaxed);
        self.drawn_at.store(0, Ordering::Relaxed);
        *self.started.lock().unwrap_or_else(|p| p.into_inner()) = Instant::now();
        self.draw(false);
    }

    fn advance(&self, n: usize) {
        self.done.fetch_add(n, Ordering::Relaxed);
        self.draw(false);
    }

    fn finish(&self) {
        self.draw(true);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn renders_like_tqdm() {
        let bar = Bar::new("jacobian", "rows");
        let text = bar.render(450, 1000, Duration::from_secs(1));
        assert!(text.starts_with("jacobian:  45%|██████████▊"), "{text}");
        assert!(
            text.ends_with("| 450/1000 [00:01<00:01, 450.00 rows/s]"),
            "{text}"
        );
        let done = bar.render(3, 3, Duration::from_secs(3725));
        assert!(done.contains("100%|████████████████████████|"), "{done}");
        assert!(done.contains("[1:02:05<00:00,"), "{done}");
    }

    #[test]
    fn a_nested_report_is_silent_and_the_outer_one_is_restored() {
        struct Count(AtomicUsize, AtomicUsize);
        impl Progress for Count {
            fn start(&self, _total: usize) {
                self.0.fetch_add(1, Ordering::Relaxed);
            }
            fn advance(&self, n: usize) {
                self.1.fetch_add(n, Ordering::Relaxed);
            }
            fn finish(&self) {}
        }
        let count = Arc::new(Count(AtomicUsize::new(0), AtomicUsize::new(0)));
        with_progress(count.clone(), || {
            let outer = Report::start(2);
            let inner = Report::start(5);
            inner.advance(5);
            drop(inner);
            outer.advance(2);
        });
        assert!(current().is_none());
        assert_eq!(count.0.load(Ordering::Relaxed), 1);
        assert_eq!(count.1.load(Ordering::Relaxed), 2);
    }
}
