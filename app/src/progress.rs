//! Progress of the long steps (reading a log, cutting, scoring), reported
//! through [`Progress`]: the command line draws spinners on standard error,
//! the daemon logs each step at debug level ([`Logged`]), the tests report
//! nothing ([`Silent`], the default). The
//! library never writes to the terminal itself.

use std::sync::OnceLock;

/// Where the progress of long steps goes.
pub trait Progress: Send + Sync {
    /// A step under way, shown with its message until finished.
    fn step(&self, message: String) -> Box<dyn Step>;
    /// A step counting lines as it reads them.
    fn counter(&self, message: String) -> Box<dyn Step>;
}

/// One step under way: its message may change, a counter moves on; dropped
/// or finished, it is no longer shown.
pub trait Step: Send + Sync {
    /// The step's new message.
    fn set_message(&self, message: String);
    /// How far a counter has come (lines read).
    fn set_position(&self, position: u64);
    /// The step is done: it is no longer shown.
    fn finish(&self);
}

/// Reports nothing.
#[derive(Debug, Clone, Copy, Default)]
pub struct Silent;

impl Progress for Silent {
    fn step(&self, _: String) -> Box<dyn Step> {
        Box::new(Silent)
    }
    fn counter(&self, _: String) -> Box<dyn Step> {
        Box::new(Silent)
    }
}

impl Step for Silent {
    fn set_message(&self, _: String) {}
    fn set_position(&self, _: u64) {}
    fn finish(&self) {}
}

/// Logs each step's start at debug level (the daemon's log).
#[derive(Debug, Clone, Copy, Default)]
pub struct Logged;

impl Progress for Logged {
    fn step(&self, message: String) -> Box<dyn Step> {
        tracing::debug!("{message}");
        Box::new(Silent)
    }
    fn counter(&self, message: String) -> Box<dyn Step> {
        self.step(message)
    }
}

static PROGRESS: OnceLock<Box<dyn Progress>> = OnceLock::new();

/// Sends the progress of this process's long steps to `progress`; the first
/// call wins (the binary makes it once, at start). Without one, nothing is
/// reported.
pub fn install(progress: Box<dyn Progress>) {
    let _ = PROGRESS.set(progress);
}

fn current() -> &'static dyn Progress {
    PROGRESS.get().map_or(&Silent, |p| p.as_ref())
}

/// A step under way, reported to the installed [`Progress`].
pub fn step(message: impl Into<String>) -> Box<dyn Step> {
    current().step(message.into())
}

/// A step counting lines, reported to the installed [`Progress`].
pub fn counter(message: impl Into<String>) -> Box<dyn Step> {
    current().counter(message.into())
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::atomic::{AtomicUsize, Ordering};

    static STEPS: AtomicUsize = AtomicUsize::new(0);

    struct Counting;
    impl Progress for Counting {
        fn step(&self, _: String) -> Box<dyn Step> {
            STEPS.fetch_add(1, Ordering::Relaxed);
            Box::new(Silent)
        }
        fn counter(&self, m: String) -> Box<dyn Step> {
            self.step(m)
        }
    }

    #[test]
    fn steps_go_to_the_installed_progress() {
        install(Box::new(Counting));
        let before = STEPS.load(Ordering::Relaxed);
        step("scoring").finish();
        counter("reading").set_position(3);
        assert_eq!(STEPS.load(Ordering::Relaxed), before + 2);
    }
}
