//! Interrupting long engine calls: a Jacobian polls a check between its blocks of rows, on the
//! thread that called it, and stops with the check's error. The Python extension installs a
//! check that runs Python's signal handlers, so Ctrl-C raises KeyboardInterrupt within a
//! fraction of a second; a Rust program may install its own (a cancellation flag).
use std::sync::RwLock;
use std::time::{Duration, Instant};

use crate::error::Result;

/// A check: `Ok` to go on, an error to stop with.
pub type InterruptCheck = fn() -> Result<()>;

static CHECK: RwLock<Option<InterruptCheck>> = RwLock::new(None);

/// How often a long call polls the check (a poll from Python takes the GIL).
pub const POLL_INTERVAL: Duration = Duration::from_millis(50);

/// Installs the check long calls poll (replacing any earlier one); `None` removes it.
pub fn set_interrupt_check(check: Option<InterruptCheck>) {
    *CHECK.write().unwrap_or_else(|p| p.into_inner()) = check;
}

/// Polls the installed check now (`Ok` when none is installed).
pub fn check_now() -> Result<()> {
    let check = *CHECK.read().unwrap_or_else(|p| p.into_inner());
    match check {
        Some(check) => check(),
        None => Ok(()),
    }
}

/// Polls the check at most once per [`POLL_INTERVAL`]: cheap to call between small blocks.
pub(crate) struct Poller {
    last: Instant,
}

impl Poller {
    /// A poller whose first poll is one interval from now.
    pub(crate) fn new() -> Poller {
        Poller {
            last: Instant::now(),
        }
    }

    /// Runs the check if an interval has passed since the last one.
    pub(crate) fn poll(&mut self) -> Result<()> {
        if self.last.elapsed() < POLL_INTERVAL {
            return Ok(());
        }
        self.last = Instant::now();
        check_now()
    }
}
