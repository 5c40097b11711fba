//! What bounds sign-in: the limit on failed sign-ins (per client, per
//! account name and client, per account name, each with backoff), taken in
//! one step before any password is checked, and the gate that lets only a
//! few password hashes run at once.
//!
//! An attempt is counted as a failure when it is taken ([`LoginLimiter::begin`])
//! and forgiven when it succeeds or is never checked, so concurrent attempts
//! see each other: forty at once for one name are not forty checks.

use std::collections::HashMap;
use std::sync::Arc;
use std::time::Duration;
use tokio::sync::{OwnedSemaphorePermit, Semaphore};

/// How long failures count, in seconds.
pub const LIMIT_WINDOW: i64 = 15 * 60;
/// Failures from one client, any names, before it is refused for the window.
pub const FAILURES_PER_CLIENT: usize = 20;
/// Failures for one account name from one client before that pair is
/// refused for the window.
pub const FAILURES_PER_ACCOUNT_CLIENT: usize = 5;
/// Failures for one account name from every client before each further
/// attempt waits (never a lock: an attacker must not lock the owner out).
pub const FREE_FAILURES_PER_ACCOUNT: usize = 5;
/// Failures of a client before each further attempt waits.
const FREE_FAILURES: usize = 3;

/// One kind of key and its bounds.
#[derive(Debug, Clone, Copy)]
struct Rule {
    /// Failures before backoff starts.
    free: usize,
    /// Failures that refuse until the window frees one, if any.
    limit: Option<usize>,
    /// The longest wait of the backoff, seconds.
    max_wait: i64,
}

const CLIENT: Rule = Rule {
    free: FREE_FAILURES,
    limit: Some(FAILURES_PER_CLIENT),
    max_wait: 60,
};
const ACCOUNT_CLIENT: Rule = Rule {
    free: FREE_FAILURES,
    limit: Some(FAILURES_PER_ACCOUNT_CLIENT),
    max_wait: 60,
};
const ACCOUNT: Rule = Rule {
    free: FREE_FAILURES_PER_ACCOUNT,
    limit: None,
    max_wait: 300,
};

impl Rule {
    /// Seconds to wait before another attempt, given the key's recent
    /// failures (oldest first); 0 when one may be tried now.
    fn wait(&self, times: &[i64], now: i64) -> i64 {
        let n = times.len();
        if let (Some(limit), Some(oldest)) = (self.limit, times.first()) {
            if n >= limit {
                return (oldest + LIMIT_WINDOW - now).max(1);
            }
        }
        match times.last() {
            Some(last) if n >= self.free => {
                let exp = u32::try_from(n - self.free).unwrap_or(u32::MAX).min(20);
                let backoff = (1i64 << exp).min(self.max_wait);
                (last + backoff - now).max(0)
            }
            _ => 0,
        }
    }
}

/// An attempt taken: counted as a failure until [`LoginLimiter::forgive`].
#[derive(Debug)]
pub struct Attempt {
    keys: [String; 3],
    at: i64,
}

/// An attempt refused: wait this many seconds; `first` when it is the
/// first refusal of this client in a window (the one the audit log
/// records: a refusal costs the client nothing, so each one is not a row).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Refusal {
    pub wait: i64,
    pub first: bool,
}

/// Recent failed sign-ins, by client, account name and client, and account
/// name.
#[derive(Debug, Default)]
pub struct LoginLimiter {
    failures: HashMap<String, Vec<i64>>,
    /// When a client was last refused and that was recorded.
    refusals_noted: HashMap<String, i64>,
}

fn keys(account: &str, client: &str) -> [(String, Rule); 3] {
    [
        (format!("client:{client}"), CLIENT),
        (format!("pair:{client}\u{0}{account}"), ACCOUNT_CLIENT),
        (format!("account:{account}"), ACCOUNT),
    ]
}

impl LoginLimiter {
    fn recent(&mut self, key: &str, now: i64) -> &[i64] {
        match self.failures.get_mut(key) {
            Some(times) => {
                times.retain(|&t| t > now - LIMIT_WINDOW);
                times
            }
            None => &[],
        }
    }

    /// Takes an attempt for `account` from `client` at `now`, counted as a
    /// failure at once; or how long to wait before one may be tried.
    pub fn begin(&mut self, account: &str, client: &str, now: i64) -> Result<Attempt, Refusal> {
        let keys = keys(account, client);
        let wait = keys
            .iter()
            .map(|(key, rule)| rule.wait(self.recent(key, now), now))
            .max()
            .unwrap_or(0);
        if wait > 0 {
            let client = &keys[0].0;
            let first = match self.refusals_noted.get(client) {
                Some(&t) if t > now - LIMIT_WINDOW => false,
                _ => {
                    self.refusals_noted.insert(client.clone(), now);
                    true
                }
            };
            return Err(Refusal { wait, first });
        }
        for (key, _) in &keys {
            self.failures.entry(key.clone()).or_default().push(now);
        }
        self.forget_old(now);
        Ok(Attempt {
            keys: keys.map(|(k, _)| k),
            at: now,
        })
    }

    /// The attempt was not a failure: it succeeded (then the account's
    /// failures from this client are forgotten too) or was never checked.
    pub fn forgive(&mut self, attempt: Attempt, succeeded: bool) {
        for (i, key) in attempt.keys.iter().enumerate() {
            let Some(times) = self.failures.get_mut(key) else {
                continue;
            };
            if succeeded && i == 1 {
                times.clear();
            } else if let Some(pos) = times.iter().rposition(|&t| t == attempt.at) {
                times.remove(pos);
            }
            if times.is_empty() {
                self.failures.remove(key);
            }
        }
    }

    /// Forgets keys with no recent failure, so the map stays small.
    fn forget_old(&mut self, now: i64) {
        if self.failures.len() > 10_000 {
            self.failures
                .retain(|_, times| times.iter().any(|&t| t > now - LIMIT_WINDOW));
        }
        if self.refusals_noted.len() > 10_000 {
            self.refusals_noted
                .retain(|_, &mut t| t > now - LIMIT_WINDOW);
        }
    }
}

/// How long a sign-in waits for its turn to check a password before it is
/// told to come back.
pub const HASH_WAIT: Duration = Duration::from_secs(3);

/// A password hash to run, with the turn it holds until it is done.
type Job = Box<dyn FnOnce() + Send>;

/// Lets only a few password hashes (about 19 MiB of memory each) run at
/// once; the others wait their turn for [`HASH_WAIT`]. The hashes run on
/// threads of their own, one per turn: the allocator keeps a freed hash's
/// memory in the thread's arena, so a few threads keep a few hashes' worth
/// (on tokio's blocking pool every new thread kept one more, some 300 MiB
/// under a flood).
#[derive(Debug, Clone)]
pub struct HashGate {
    permits: Arc<Semaphore>,
    wait: Duration,
    jobs: std::sync::mpsc::Sender<Job>,
}

impl HashGate {
    /// `at_once` hashes at a time; a sign-in waits [`HASH_WAIT`] for a turn.
    pub fn new(at_once: usize) -> HashGate {
        HashGate::waiting(at_once, HASH_WAIT)
    }

    fn waiting(at_once: usize, wait: Duration) -> HashGate {
        let at_once = at_once.max(1);
        let (jobs, queue) = std::sync::mpsc::channel::<Job>();
        let queue = Arc::new(std::sync::Mutex::new(queue));
        for i in 0..at_once {
            let queue = queue.clone();
            std::thread::Builder::new()
                .name(format!("password-hash-{i}"))
                .spawn(move || loop {
                    let job = match queue.lock() {
                        Ok(q) => q.recv(),
                        Err(_) => return,
                    };
                    match job {
                        // A job that panics drops its turn and its answer;
                        // the thread goes on with the next.
                        Ok(job) => {
                            std::panic::catch_unwind(std::panic::AssertUnwindSafe(job)).ok();
                        }
                        // Every gate is gone: the application stopped.
                        Err(_) => return,
                    }
                })
                .expect("a thread for password hashes");
        }
        HashGate {
            permits: Arc::new(Semaphore::new(at_once)),
            wait,
            jobs,
        }
    }

    /// A turn to hash, or `None` when none came in time.
    pub async fn turn(&self) -> Option<OwnedSemaphorePermit> {
        tokio::time::timeout(self.wait, self.permits.clone().acquire_owned())
            .await
            .ok()
            .and_then(Result::ok)
    }

    /// `f` (a password hash) on a hashing thread, in its turn; `None` when
    /// no turn came. The turn is held until `f` is done, even when the
    /// request that asked for it is gone.
    pub async fn run<T: Send + 'static>(
        &self,
        f: impl FnOnce() -> T + Send + 'static,
    ) -> Option<Result<T, tokio::sync::oneshot::error::RecvError>> {
        let permit = self.turn().await?;
        let (done, out) = tokio::sync::oneshot::channel();
        let job: Job = Box::new(move || {
            done.send(f()).ok();
            drop(permit);
        });
        if self.jobs.send(job).is_err() {
            return None;
        }
        Some(out.await)
    }
}

/// Half the cores, at least one: password hashing never takes every core
/// from the pages.
pub fn default_hashes_at_once() -> usize {
    std::thread::available_parallelism().map_or(1, |n| (n.get() / 2).max(1))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_client_backs_off_then_is_refused_for_the_window() {
        let mut l = LoginLimiter::default();
        let mut t = 1000;
        let mut waits = Vec::new();
        for i in 0..FAILURES_PER_CLIENT {
            // A new name each time: only the client's own rule applies.
            let name = format!("n{i}");
            match l.begin(&name, "1.2.3.4", t) {
                Ok(_) => {}
                Err(Refusal { wait: w, .. }) => {
                    waits.push(w);
                    t += w;
                    l.begin(&name, "1.2.3.4", t).expect("after the wait");
                }
            }
        }
        assert_eq!(&waits[..4], &[1, 2, 4, 8], "{waits:?}");
        assert!(waits.iter().all(|&w| w <= 60), "{waits:?}");
        let wait = l.begin("other", "1.2.3.4", t + 60).unwrap_err().wait;
        assert!(wait > 60 && wait <= LIMIT_WINDOW, "{wait}");
        assert!(l.begin("other", "5.6.7.8", t).is_ok(), "another client");
    }

    #[test]
    fn one_name_from_one_client_is_refused_after_five() {
        let mut l = LoginLimiter::default();
        let mut t = 1000;
        for _ in 0..FAILURES_PER_ACCOUNT_CLIENT {
            t += 120;
            l.begin("ann", "1.2.3.4", t).expect("allowed");
        }
        let refused = l.begin("ann", "1.2.3.4", t + 120).unwrap_err();
        assert!(
            refused.wait > 120,
            "refused for the window, not a backoff: {refused:?}"
        );
        assert!(refused.first);
        let again = l.begin("ann", "1.2.3.4", t + 130).unwrap_err();
        assert!(
            !again.first,
            "a client's refusal is recorded once per window"
        );
        // The owner from elsewhere is not locked out.
        assert!(l.begin("ann", "5.6.7.8", t + 120).is_ok());
    }

    #[test]
    fn a_name_tried_from_many_clients_backs_off_but_is_never_locked() {
        let mut l = LoginLimiter::default();
        let t = 1000;
        for i in 0..FREE_FAILURES_PER_ACCOUNT {
            l.begin("ann", &format!("10.0.0.{i}"), t).expect("free");
        }
        assert_eq!(l.begin("ann", "10.0.1.1", t).unwrap_err().wait, 1);
        let mut t = t;
        for i in 0..30 {
            let client = format!("10.0.2.{i}");
            if let Err(refused) = l.begin("ann", &client, t) {
                t += refused.wait;
                l.begin("ann", &client, t).expect("after the backoff");
            }
        }
        // Doubling waits: about ten attempts in a window beyond the free
        // five, however many clients try.
        let wait = l.begin("ann", "10.0.3.1", t).unwrap_err().wait;
        assert!((16..=300).contains(&wait), "{wait}");
        assert!(l.recent("account:ann", t).len() <= FREE_FAILURES_PER_ACCOUNT + 10);
    }

    #[test]
    fn concurrent_attempts_see_each_other_and_success_is_forgiven() {
        let mut l = LoginLimiter::default();
        let taken: Vec<_> = (0..40)
            .filter_map(|_| l.begin("ann", "1.2.3.4", 1000).ok())
            .collect();
        assert_eq!(taken.len(), FREE_FAILURES, "all at the same second");
        for a in taken {
            l.forgive(a, false);
        }
        let a = l.begin("ann", "1.2.3.4", 1000).unwrap();
        l.forgive(a, true);
        assert!(l.failures.is_empty(), "{:?}", l.failures);
    }

    #[tokio::test]
    async fn the_gate_lets_only_its_permits_through() {
        let gate = HashGate::waiting(1, Duration::from_millis(50));
        let held = gate.turn().await.unwrap();
        assert!(gate.turn().await.is_none(), "no second turn while one runs");
        drop(held);
        assert!(gate.turn().await.is_some());
    }
}
