//! The segmenter: moves in, per-account segments out (SPEC section 2).
//!
//! Time is cut into buckets of `B` seconds. An account's bucket is *moved* when
//! they moved in it, *stalled* when the stall rule says a game waited on them
//! there, and idle otherwise (idle buckets are not kept).
//!
//! **Stall rule (reference).** Moves are taken in the order given. For each
//! game keep `L`, the bucket of its previous move (by anyone). When account `u`
//! moves in game `g` at bucket `b` and `L` exists, walk back over `b-B, b-2B,
//! ...` while the bucket is after `L`: stop at the first bucket where `u`
//! already has a record (a move or a stall, from any game), otherwise mark
//! `u` stalled there. Then `L = b`.
//!
//! The stalls one walk marks are consecutive buckets before a move, so they
//! are kept as one stall run ([`Segment`]): memory and time follow moves
//! and changes of state, not the buckets a game waited.

use schema::{
    bucket_of, day_of, push_joined, AccountId, Epoch, GameDays, IpDay, IpId, Move, Names, Segment,
    Segments,
};

/// Builds [`Segments`] from moves fed one at a time, in processing order.
/// Memory grows with the number of segments, not of moves.
///
/// Each account's segments are kept as a list sorted by bucket, a stall run
/// one entry. Time-sorted input only ever appends to it (the stall walk
/// fills the gap between the account's latest record and the move with one
/// run), which is the fast path; a move older than the account's latest
/// record (reference order on unsorted input) takes the general path with
/// binary searches, splitting a run it lands in.
#[derive(Debug)]
pub struct Segmenter {
    bucket_seconds: i64,
    accounts: Names,
    ips: Names,
    games: Names,
    /// Per game: the bucket of its most recently processed move.
    last_bucket: Vec<Option<Epoch>>,
    /// Per account: their segments, sorted by bucket.
    segs: Vec<Vec<Segment>>,
    /// Sightings and days in games as they come (a move that changes its
    /// account's day, IP or game adds one), appended rather than looked up:
    /// sorted, deduplicated and merged into runs in `finish`, and whenever
    /// they have doubled since the last time, so memory follows the
    /// distinct ones.
    ip_days: Pending<IpDay>,
    game_days: Pending<GameDays>,
    /// Per account: the day, IP and game of their latest move, whose sighting
    /// and run of game days are already recorded (most moves repeat them).
    latest: Vec<(i64, IpId, u32)>,
    /// Every move so far came at or after its account's latest record, so all
    /// but each account's latest segment are settled.
    in_time_order: bool,
}

impl Segmenter {
    /// # Panics
    /// If `bucket_seconds` is not positive.
    pub fn new(bucket_seconds: i64) -> Self {
        assert!(bucket_seconds > 0, "bucket size must be positive");
        Segmenter {
            bucket_seconds,
            accounts: Names::default(),
            ips: Names::default(),
            games: Names::default(),
            last_bucket: Vec::new(),
            segs: Vec::new(),
            ip_days: Pending::new(dedup_sightings),
            game_days: Pending::new(GameDays::merge),
            latest: Vec::new(),
            in_time_order: true,
        }
    }

    /// The id of an account, for [`Segmenter::push_ids`].
    pub fn account_id(&mut self, name: &str) -> AccountId {
        let id = self.accounts.intern(name);
        if id as usize == self.segs.len() {
            self.segs.push(Vec::new());
        }
        id
    }

    /// The id of a game, for [`Segmenter::push_ids`].
    pub fn game_id(&mut self, name: &str) -> u32 {
        let id = self.games.intern(name);
        if id as usize == self.last_bucket.len() {
            self.last_bucket.push(None);
        }
        id
    }

    /// The id of an IP, for [`Segmenter::push_ids`].
    pub fn ip_id(&mut self, name: &str) -> IpId {
        self.ips.intern(name)
    }

    /// Takes the next move in processing order.
    pub fn push(&mut self, username: &str, game: &str, timestamp: Epoch, ip: &str) {
        let (u, g, i) = (
            self.account_id(username),
            self.game_id(game),
            self.ip_id(ip),
        );
        self.push_ids(u, g, timestamp, i);
    }

    /// Takes a move.
    pub fn push_move(&mut self, m: &Move) {
        self.push(&m.username, &m.game, m.timestamp, &m.ip);
    }

    /// Takes the next move, by ids: from this segmenter's `*_id` methods, or
    /// from tables of names the caller keeps and hands to
    /// [`Segmenter::finish_with_names`].
    pub fn push_ids(&mut self, account: AccountId, game: u32, timestamp: Epoch, ip: IpId) {
        if account as usize >= self.segs.len() {
            self.segs.resize_with(account as usize + 1, Vec::new);
        }
        if account as usize >= self.latest.len() {
            self.latest
                .resize(account as usize + 1, (i64::MIN, IpId::MAX, u32::MAX));
        }
        if game as usize >= self.last_bucket.len() {
            self.last_bucket.resize(game as usize + 1, None);
        }
        let bs = self.bucket_seconds;
        let b = bucket_of(timestamp, bs);
        let last = self.last_bucket[game as usize];
        let segs = &mut self.segs[account as usize];
        match segs.last() {
            // Time order: the account's records all end before b, or the
            // latest is the bucket of b itself.
            Some(top) if top.last_bucket(bs) >= b && !(top.bucket == b && top.span() == 1) => {
                self.in_time_order = false;
                general_path(segs, b, ip, last, bs)
            }
            _ => push_in_order(segs, b, ip, last, bs),
        }
        self.last_bucket[game as usize] = Some(b);
        let day = day_of(timestamp);
        let latest = std::mem::replace(&mut self.latest[account as usize], (day, ip, game));
        if latest == (day, ip, game) {
            return;
        }
        if (latest.0, latest.1) != (day, ip) {
            self.ip_days.push(IpDay { account, day, ip });
        }
        if (latest.0, latest.2) != (day, game) {
            self.game_days.push(GameDays {
                account,
                game,
                first_day: day,
                last_day: day,
            });
        }
    }

    /// Takes up a stored cut of time-sorted moves for `account`: `records` are
    /// the account's latest two records (a stall run is one), sorted, stall
    /// IPs as stored: all of the
    /// account's segments a later move can change. Moves pushed afterwards
    /// must not be older than the last of them. What the account had before
    /// them is not needed, and [`Segmenter::finish`] hands back only these
    /// records and what later moves add.
    ///
    /// # Panics
    /// If the account already has segments here.
    pub fn resume_account(&mut self, account: AccountId, records: Vec<Segment>) {
        if account as usize >= self.segs.len() {
            self.segs.resize_with(account as usize + 1, Vec::new);
        }
        let segs = &mut self.segs[account as usize];
        assert!(segs.is_empty(), "account {account} resumed twice");
        let bs = self.bucket_seconds;
        debug_assert!(records.windows(2).all(|w| w[0].end(bs) <= w[1].bucket));
        *segs = records;
    }

    /// Takes up a stored cut for `game`: the bucket of its latest move.
    pub fn resume_game(&mut self, game: u32, last_bucket: Epoch) {
        if game as usize >= self.last_bucket.len() {
            self.last_bucket.resize(game as usize + 1, None);
        }
        self.last_bucket[game as usize] = Some(last_bucket);
    }

    /// Each game's latest bucket, by game id: what a later cut resumes.
    pub fn last_buckets(&self) -> Vec<(u32, Epoch)> {
        let known = self.last_bucket.iter().enumerate();
        known
            .filter_map(|(g, b)| b.map(|b| (g as u32, b)))
            .collect()
    }

    /// The names of the accounts, IPs and games pushed so far.
    pub fn names(&self) -> (&Names, &Names, &Names) {
        (&self.accounts, &self.ips, &self.games)
    }

    /// Hands over, per account, segments no later move can change, with their
    /// stall IPs set: on time-sorted input, every segment but the account's
    /// latest two. The latest (a moved bucket) still takes moves; the one
    /// before it is where the walk of another move into that bucket stops.
    /// A stall run is only ever made by the walk just before the move that
    /// follows it, so its IP is already known, and it is one segment, so a
    /// run never spans two hand-overs. What
    /// [`Segmenter::finish`] returns afterwards is the rest: together they
    /// are exactly the segments `finish` alone returns.
    ///
    /// # Panics
    /// If a move came before its account's latest record (reference order on
    /// unsorted input), where earlier segments can still change.
    pub fn take_settled(&mut self) -> Vec<(AccountId, Vec<Segment>)> {
        assert!(
            self.in_time_order,
            "settled segments exist only for moves in time order"
        );
        let mut settled = Vec::new();
        for (account, segs) in self.segs.iter_mut().enumerate() {
            if segs.len() < 3 {
                continue;
            }
            finish_account(segs, self.bucket_seconds);
            let open = segs.split_off(segs.len() - 2);
            settled.push((account as AccountId, std::mem::replace(segs, open)));
        }
        settled
    }

    /// Gives each stall the IP of the account's next move (the first IP of the
    /// nearest later bucket with moves) and hands over the segments.
    pub fn finish(mut self) -> Segments {
        let accounts = std::mem::take(&mut self.accounts);
        let games = std::mem::take(&mut self.games);
        let ips = std::mem::take(&mut self.ips);
        self.finish_with_names(accounts, games, ips)
    }

    /// [`Segmenter::finish`] for moves pushed by ids from the caller's own
    /// tables of names.
    pub fn finish_with_names(self, accounts: Names, games: Names, ips: Names) -> Segments {
        use rayon::prelude::*;
        let mut by_account = self.segs;
        by_account.resize_with(accounts.len().max(by_account.len()), Vec::new);
        let (sightings, days) = (self.ip_days, self.game_days);
        let (_, (ip_days, game_days)) = rayon::join(
            || {
                let bs = self.bucket_seconds;
                by_account
                    .par_iter_mut()
                    .for_each(|s| finish_account(s, bs))
            },
            || rayon::join(|| sightings.finish(), || days.finish()),
        );
        Segments {
            bucket_seconds: self.bucket_seconds,
            accounts,
            ips,
            by_account,
            ip_days,
            games,
            game_days,
        }
    }
}

/// Records appended as they come and tidied (sorted, deduplicated or
/// merged by `tidy`, which sorts) once they have doubled since the last
/// tidy, and at the end.
#[derive(Debug)]
struct Pending<T> {
    items: Vec<T>,
    tidied: usize,
    tidy: fn(Vec<T>) -> Vec<T>,
}

impl<T: Ord + Send> Pending<T> {
    /// Below this many records nothing is tidied before the end.
    const FIRST_TIDY: usize = 1 << 20;

    fn new(tidy: fn(Vec<T>) -> Vec<T>) -> Self {
        Pending {
            items: Vec::new(),
            tidied: 0,
            tidy,
        }
    }

    fn push(&mut self, item: T) {
        self.items.push(item);
        if self.items.len() >= Self::FIRST_TIDY.max(2 * self.tidied) {
            self.items[self.tidied..].sort_unstable();
            self.apply_tidy();
        }
    }

    /// Tidies the records, whose part after the tidied ones is sorted too:
    /// `tidy`'s stable sort then meets two sorted runs and merges them
    /// (one pass), instead of sorting the whole anew each time.
    fn apply_tidy(&mut self) {
        self.items = (self.tidy)(std::mem::take(&mut self.items));
        self.tidied = self.items.len();
    }

    /// The records tidied, those since the last tidy sorted on every core
    /// first.
    fn finish(mut self) -> Vec<T> {
        use rayon::slice::ParallelSliceMut;
        self.items[self.tidied..].par_sort_unstable();
        self.apply_tidy();
        self.items
    }
}

/// Sightings sorted, each once. The sort is stable so that sorted runs
/// (those [`Pending`] hands over) are merged, not sorted again; equal
/// sightings are the same value, so the order is the same as any sort's.
fn dedup_sightings(mut ip_days: Vec<IpDay>) -> Vec<IpDay> {
    ip_days.sort();
    ip_days.dedup();
    ip_days
}

/// Gives each of an account's stalls the IP of their next move, joins runs
/// that touch and now share an IP (a run taken up from a stored cut already
/// has its IP; the walk's continuation does not yet), and hands back what
/// growth left unused (up to half of the list) before scoring allocates.
fn finish_account(segs: &mut Vec<Segment>, bucket_seconds: i64) {
    let mut next_ip = None;
    for seg in segs.iter_mut().rev() {
        if seg.stalled() {
            seg.stall_ip = next_ip.map(schema::StallIp::new);
        }
        if let Some(&(ip, _)) = seg.moves.first() {
            next_ip = Some(ip);
        }
    }
    segs.dedup_by(|next, prev| prev.join(next, bucket_seconds));
    segs.shrink_to_fit();
}

fn add_move(seg: &mut Segment, ip: IpId) {
    match seg.moves.iter_mut().find(|(i, _)| *i == ip) {
        Some((_, count)) => *count += 1,
        None => seg.moves.push((ip, 1)),
    }
}

/// The stalls of the walk from `b - B` down to (not including) `floor`, as
/// runs of at most `u32::MAX` buckets.
fn walk_runs(floor: Epoch, b: Epoch, bs: i64) -> impl Iterator<Item = Segment> {
    let mut from = floor + bs;
    std::iter::from_fn(move || {
        let n = ((b - from) / bs).min(u32::MAX as i64);
        (n > 0).then(|| {
            let run = Segment::stall_run(from, n as u32, None);
            from += n * bs;
            run
        })
    })
}

/// A move at `b` at or after the account's latest record: the walk fills the
/// gap since that record (or since `last`, the game's previous bucket) with
/// one run, and the move opens or joins the bucket at the end.
fn push_in_order(segs: &mut Vec<Segment>, b: Epoch, ip: IpId, last: Option<Epoch>, bs: i64) {
    let at_b = segs.last().is_some_and(|s| s.bucket == b);
    let mut seg = match at_b {
        true => segs.pop().expect("checked"),
        false => Segment::moved(b),
    };
    if let Some(l) = last {
        // The walk from b-B down stops at the latest record or at `l`.
        let floor = segs.last().map_or(l, |r| r.last_bucket(bs).max(l));
        for run in walk_runs(floor, b, bs) {
            push_joined(segs, run, bs);
        }
    }
    add_move(&mut seg, ip);
    segs.push(seg);
}

/// A move older than the account's latest record: the stall rule as written,
/// with binary searches in the sorted list. A move into a stall run splits
/// it around its bucket, which is then moved and stalled.
fn general_path(segs: &mut Vec<Segment>, b: Epoch, ip: IpId, last: Option<Epoch>, bs: i64) {
    let i = segs.partition_point(|s| s.bucket <= b);
    let holding = i.checked_sub(1).filter(|&j| segs[j].end(bs) > b);
    let at = match holding {
        Some(j) if !segs[j].is_run() => j,
        Some(j) => split_run(segs, j, b, bs),
        None => {
            segs.insert(i, Segment::moved(b));
            i
        }
    };
    add_move(&mut segs[at], ip);
    let Some(l) = last else { return };
    // The walk from b-B down stops at the previous record or at `l`.
    let floor = match at.checked_sub(1) {
        Some(p) => segs[p].last_bucket(bs).max(l),
        None => l,
    };
    let mut at = at;
    for run in walk_runs(floor, b, bs) {
        let joined = at.checked_sub(1).is_some_and(|p| segs[p].join(&run, bs));
        if !joined {
            segs.insert(at, run);
            at += 1;
        }
    }
}

/// Splits the stall run `segs[j]` around bucket `b`, which it holds, into
/// the stalls before, `b` stalled (where the move goes), and the stalls
/// after; returns the index of `b`.
fn split_run(segs: &mut Vec<Segment>, j: usize, b: Epoch, bs: i64) -> usize {
    let run = segs[j].clone();
    let before = ((b - run.bucket) / bs) as u32;
    let after = run.stalls - before - 1;
    let mut parts = Vec::with_capacity(3);
    if before > 0 {
        parts.push(Segment::stall_run(run.bucket, before, run.stall_ip));
    }
    let at = j + parts.len();
    parts.push(Segment::stall_run(b, 1, run.stall_ip));
    if after > 0 {
        parts.push(Segment::stall_run(b + bs, after, run.stall_ip));
    }
    segs.splice(j..=j, parts);
    at
}

/// Segments moves in the order given. Sort them first (stably, by time) for
/// the normal mode; keep file order for reference order.
pub fn segment_moves<'a>(
    moves: impl IntoIterator<Item = &'a Move>,
    bucket_seconds: i64,
) -> Segments {
    let mut s = Segmenter::new(bucket_seconds);
    for m in moves {
        s.push_move(m);
    }
    s.finish()
}

/// Sorts moves by time, keeping equal times in their input order.
pub fn sort_by_time(moves: &mut [Move]) {
    moves.sort_by_key(|m| m.timestamp);
}

mod ahead;
#[cfg(test)]
mod tests;
