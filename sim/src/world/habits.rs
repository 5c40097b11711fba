//! Habits: every habit of the world's people that one of improved mode's
//! signals leans on, as a knob with a documented range, and the world
//! families (`detect simulate --family NAME`) that set them.
//!
//! [`Habits::default`] is the default world's: the same config and seed
//! give the same bytes as before the knobs existed. A family keeps the
//! default world's people and changes a few knobs so that honest people
//! show, for their own reasons, a habit a signal reads as one person (or
//! owners lose a habit it reads as one person): see [`Family`].
//!
//! Ranges are half-open (`lo..hi`) unless said otherwise; a knob outside
//! its range is refused by [`Habits::validate`].

use crate::truth::Style;
use serde::{Deserialize, Serialize};

/// Every knob of the world's habits. Ranges in the field docs.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct Habits {
    // ----- how much people play -----
    /// Mean check-ins a day: `lo + span * u * u` for a uniform `u`
    /// (default 3 + 10u²: 3 to 13). `lo` in 0.2..20, `span` in 0..30.
    pub checkins: (f64, f64),
    /// Casual games an honest account keeps going: `lo + span * keenness`
    /// (default 3 + 30k). `lo` in 0..50, `span` in 0..60.
    pub casual_games: (f64, f64),
    /// Casual games a multi-account owner's second accounts keep going,
    /// `lo..hi` (default 0..3; 0..=60).
    pub puppet_casual_games: (u8, u8),
    /// Seconds to decide and make one move: `min + exp(mean)` capped at 15
    /// minutes (default 20 + exp(70)). `min` in 1..600, `mean` in 1..1800.
    /// One person makes one move at a time, so `min` is the shortest gap
    /// between two moves of one person's accounts.
    pub think_seconds: (i64, f64),
    /// Mean seconds an account still online takes to answer a game that
    /// just became its turn (default 150; 1..7200).
    pub react_seconds: f64,

    // ----- where people play -----
    /// Weights of the jobs (worker, student, free; default 55, 15, 30).
    pub jobs: [u32; 3],
    /// Share of people who play from the phone only, behind carrier NAT
    /// (default 0.15; 0..=1).
    pub phone_only: f64,
    /// Of the others, the share who sometimes play from the phone (default
    /// 0.6; 0..=1).
    pub phone_sometimes: f64,
    /// Share of workers who play from the office (default 0.4; 0..=1).
    pub plays_at_work: f64,
    /// Share of people who sometimes play through a VPN (default 0.05;
    /// 0..=1).
    pub vpn_people: f64,
    /// Weights of office sizes 1, 2, 3, 4, 6 (default 60, 20, 10, 5, 5).
    pub office_sizes: [u32; 5],
    /// Students per university, `lo..hi` (default 4..26; 2..=400).
    pub campus_students: (u32, u32),
    /// Addresses a university's network shows, `lo..hi` (default 2..5;
    /// 1..=16).
    pub campus_addresses: (u32, u32),
    /// Share of students living alone who live on campus: their home
    /// address is the campus network (default 0; 0..=1).
    pub dorms: f64,

    // ----- colleagues -----
    /// Share of offices of two or more whose colleagues play at lunch every
    /// workday from the office address, in one fixed order (default 0;
    /// 0..=1).
    pub lunch_offices: f64,
    /// Minutes from one lunch colleague's first move to the next one's,
    /// `lo..hi` (default 30..120; 1..=600).
    pub lunch_gap_minutes: (u32, u32),
    /// Chance a lunch office swaps two neighbours of its order on a day
    /// (default 0.06; 0..=1): one of them habitually first, not always.
    pub lunch_swap: f64,
    /// Lunch colleagues' mean check-ins a day besides lunch, at most
    /// (default 30: their own; 0.1..=30): colleagues who play mostly at
    /// lunch open most stretches of play there, in the office's order.
    pub lunch_other_checkins: f64,

    // ----- households -----
    /// Weights of household sizes 1, 2, 3 (default 58, 30, 12).
    pub household_sizes: [u32; 3],
    /// Share of households of two or more that share one computer and take
    /// turns at it in the evening (default 0.3; 0..=1).
    pub shared_computer: f64,
    /// Minutes of one turn at the shared computer, `lo..hi` (default
    /// 10..40; 1..=240).
    pub turn_minutes: (u32, u32),
    /// Seconds between two turns, `lo..hi` (default 0..180; 0..=3600).
    pub turn_gap_seconds: (u32, u32),
    /// Share of shared-computer households that keep one order of turns
    /// every evening instead of a new one (default 0; 0..=1).
    pub fixed_turn_order: f64,
    /// Share of households of two or more on their own devices who play one
    /// after the other every evening at home, in one fixed order, the next
    /// one `relay_gap_minutes` after the one before (default 0; 0..=1).
    pub evening_relay: f64,
    /// Minutes between two relaying housemates' evening check-ins, `lo..hi`
    /// (default 30..90; 1..=600).
    pub relay_gap_minutes: (u32, u32),
    /// Relaying housemates' mean check-ins a day besides the relay, at most
    /// (default 30: their own; 0.1..=30).
    pub relay_other_checkins: f64,
    /// Share of households with two or more workers whose first two work at
    /// one office and play from it (home and work shared: co-travel)
    /// (default 0; 0..=1).
    pub couples_at_one_office: f64,
    /// Share of households of two or more on one phone plan: their phones
    /// show the same carrier address each day (default 0; 0..=1).
    pub phone_plan: f64,

    // ----- multi-account owners -----
    /// The owners' styles, given out in turn (each style as often as it is
    /// listed) and shuffled (default: the four styles once each).
    pub owner_styles: Vec<Style>,
    /// Minutes a cautious owner waits before his next account, `lo..hi`
    /// (default 30..90; 1..=600).
    pub cautious_gap_minutes: (u32, u32),
    /// Chance a cautious owner plays his accounts all at once on a day
    /// (careless; default 0.08; 0..=1).
    pub careless: f64,
    /// Share of cautious owners whose second accounts always go through a
    /// VPN (never sharing an address with the first; default 0.3; 0..=1);
    /// the others' do so now and then (`puppet_vpn_sometimes`).
    pub puppet_vpn_always: f64,
    /// How often the other cautious owners' second accounts go through a
    /// VPN (default 0.15; 0..=1).
    pub puppet_vpn_sometimes: f64,
    /// Share of owners who open their accounts in a new order every sitting
    /// instead of the main account first (default 0; 0..=1).
    pub owner_shuffle: f64,
    /// Share of owners who play only at home: no phone, no office, no VPN
    /// of their own, so their accounts share one place only (default 0;
    /// 0..=1).
    pub owner_home_only: f64,
}

impl Default for Habits {
    fn default() -> Self {
        Habits {
            checkins: (3.0, 10.0),
            casual_games: (3.0, 30.0),
            puppet_casual_games: (0, 3),
            think_seconds: (20, 70.0),
            react_seconds: 150.0,
            jobs: [55, 15, 30],
            phone_only: 0.15,
            phone_sometimes: 0.6,
            plays_at_work: 0.4,
            vpn_people: 0.05,
            office_sizes: [60, 20, 10, 5, 5],
            campus_students: (4, 26),
            campus_addresses: (2, 5),
            dorms: 0.0,
            lunch_offices: 0.0,
            lunch_gap_minutes: (30, 120),
            lunch_swap: 0.06,
            lunch_other_checkins: 30.0,
            household_sizes: [58, 30, 12],
            shared_computer: 0.3,
            turn_minutes: (10, 40),
            turn_gap_seconds: (0, 180),
            fixed_turn_order: 0.0,
            evening_relay: 0.0,
            relay_gap_minutes: (30, 90),
            relay_other_checkins: 30.0,
            couples_at_one_office: 0.0,
            phone_plan: 0.0,
            owner_styles: Style::ALL.to_vec(),
            cautious_gap_minutes: (30, 90),
            careless: 0.08,
            puppet_vpn_always: 0.3,
            puppet_vpn_sometimes: 0.15,
            owner_shuffle: 0.0,
            owner_home_only: 0.0,
        }
    }
}

/// A world family: a preset of [`Habits`] (and of the world's size) built to
/// break one of improved mode's signals with honest people who show it as
/// strongly as one person does, for their own reasons, or with owners who
/// lack a habit it reads as one person. Every family keeps the default
/// world's people beside its own, and all four owner styles unless said.
#[derive(
    Debug, Clone, Copy, Default, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize,
)]
#[serde(rename_all = "kebab-case")]
pub enum Family {
    /// The default world, unchanged.
    #[default]
    Default,
    /// Office colleagues who play at lunch from the office address every
    /// workday in one fixed order, the next one 30 minutes to two hours
    /// after the one before: a first mover, spaced hand-offs and following
    /// above chance, from two people. Their owners play from the office
    /// too.
    Lunch,
    /// Couples and families at one computer who keep one order and hand
    /// over after about an hour; half the two-worker households also work
    /// at one office (home and work shared: co-travel); owners space their
    /// accounts as widely.
    Couples,
    /// Students on one campus network: universities of 40 to 120 of the
    /// site's players behind one to three addresses, most students who
    /// live alone living on campus (their home is the campus network);
    /// owners are students too.
    Campus,
    /// Families on one phone plan (the same carrier address each day), a
    /// third of people on the phone only, 25 phone players per carrier
    /// address.
    PhonePlan,
    /// A sparse site: many accounts, one or two check-ins a day, a few
    /// moves each, games waiting on a player for days.
    Sparse,
    /// Quick players: a move takes 3 seconds and more (several tabs
    /// open, the next move already decided), so one person's accounts can
    /// move within seconds of each other, as two bodies' can.
    Fast,
    /// Owners who break the owner-side habits: most are cautious (30 to 90
    /// minutes between accounts) and open their accounts in a new order
    /// every sitting, most play only at home (one shared place), half send
    /// their second accounts through a VPN every time; housemates on their
    /// own devices who relay in the evening, 30 to 90 minutes apart.
    Careful,
}

impl Family {
    /// Whether this is the default family.
    pub fn is_default(&self) -> bool {
        *self == Family::Default
    }

    /// Every family, in the order of the evaluation's tables.
    pub const ALL: [Family; 8] = [
        Family::Default,
        Family::Lunch,
        Family::Couples,
        Family::Campus,
        Family::PhonePlan,
        Family::Sparse,
        Family::Fast,
        Family::Careful,
    ];

    /// The family's name on the command line (`--family NAME`).
    pub fn as_str(self) -> &'static str {
        match self {
            Family::Default => "default",
            Family::Lunch => "lunch",
            Family::Couples => "couples",
            Family::Campus => "campus",
            Family::PhonePlan => "phone-plan",
            Family::Sparse => "sparse",
            Family::Fast => "fast",
            Family::Careful => "careful",
        }
    }

    /// The family named `name`, or a sentence listing the names.
    pub fn parse(name: &str) -> Result<Family, String> {
        Family::ALL
            .into_iter()
            .find(|f| f.as_str() == name)
            .ok_or_else(|| {
                let names: Vec<&str> = Family::ALL.iter().map(|f| f.as_str()).collect();
                format!(
                    "unknown world family {name:?}; the families are {}",
                    names.join(", ")
                )
            })
    }

    /// The family's habits.
    pub fn habits(self) -> Habits {
        let d = Habits::default();
        match self {
            Family::Default => d,
            Family::Lunch => Habits {
                office_sizes: [20, 30, 20, 15, 15],
                plays_at_work: 0.6,
                lunch_offices: 0.8,
                lunch_other_checkins: 1.0,
                ..d
            },
            Family::Couples => Habits {
                household_sizes: [40, 45, 15],
                shared_computer: 0.6,
                turn_minutes: (45, 75),
                fixed_turn_order: 0.8,
                couples_at_one_office: 0.5,
                ..d
            },
            Family::Campus => Habits {
                jobs: [30, 55, 15],
                household_sizes: [70, 20, 10],
                campus_students: (40, 120),
                campus_addresses: (1, 4),
                dorms: 0.8,
                ..d
            },
            Family::PhonePlan => Habits {
                phone_only: 0.35,
                phone_sometimes: 0.8,
                phone_plan: 0.7,
                ..d
            },
            Family::Sparse => Habits {
                checkins: (0.6, 1.6),
                casual_games: (2.0, 10.0),
                react_seconds: 900.0,
                ..d
            },
            Family::Fast => Habits {
                think_seconds: (3, 25.0),
                react_seconds: 40.0,
                ..d
            },
            Family::Careful => Habits {
                owner_styles: vec![
                    Style::Cautious,
                    Style::Cautious,
                    Style::Cautious,
                    Style::RarePuppet,
                ],
                owner_shuffle: 1.0,
                owner_home_only: 0.6,
                puppet_vpn_always: 0.5,
                puppet_casual_games: (3, 20),
                evening_relay: 0.5,
                relay_other_checkins: 1.5,
                ..d
            },
        }
    }

    /// How a world of this family differs in size from the default one
    /// (accounts, cliques and carrier crowd), given the default size.
    pub fn size(self, accounts: usize, cliques: usize) -> (usize, usize, Option<u32>) {
        match self {
            Family::Sparse => (accounts * 4, cliques * 2, None),
            Family::Campus => (accounts * 2, cliques * 2, None),
            Family::PhonePlan => (accounts * 4, cliques * 2, Some(25)),
            _ => (accounts, cliques, None),
        }
    }
}

impl Habits {
    /// Whether these are the default world's habits.
    pub fn is_default(&self) -> bool {
        *self == Habits::default()
    }

    /// Checks every knob against its range; the error is one sentence.
    pub fn validate(&self) -> Result<(), String> {
        let share = |name: &str, x: f64| {
            if (0.0..=1.0).contains(&x) {
                Ok(())
            } else {
                Err(format!("habit {name} is a share between 0 and 1, not {x}"))
            }
        };
        let span = |name: &str, (lo, hi): (u32, u32), min: u32, max: u32| {
            if lo >= min && lo < hi && hi <= max {
                Ok(())
            } else {
                Err(format!(
                    "habit {name} must be a range lo..hi with {min} <= lo < hi <= {max}, not {lo}..{hi}"
                ))
            }
        };
        let within = |name: &str, x: f64, lo: f64, hi: f64| {
            if x >= lo && x <= hi {
                Ok(())
            } else {
                Err(format!(
                    "habit {name} must lie between {lo} and {hi}, not {x}"
                ))
            }
        };
        within("checkins (low)", self.checkins.0, 0.2, 20.0)?;
        within("checkins (span)", self.checkins.1, 0.0, 30.0)?;
        within("casual_games (low)", self.casual_games.0, 0.0, 50.0)?;
        within("casual_games (span)", self.casual_games.1, 0.0, 60.0)?;
        let (plo, phi) = self.puppet_casual_games;
        span("puppet_casual_games", (plo as u32, phi as u32), 0, 61)?;
        within(
            "think_seconds (min)",
            self.think_seconds.0 as f64,
            1.0,
            600.0,
        )?;
        within("think_seconds (mean)", self.think_seconds.1, 1.0, 1800.0)?;
        within("react_seconds", self.react_seconds, 1.0, 7200.0)?;
        within("lunch_other_checkins", self.lunch_other_checkins, 0.1, 30.0)?;
        within("relay_other_checkins", self.relay_other_checkins, 0.1, 30.0)?;
        for (name, x) in [
            ("phone_only", self.phone_only),
            ("phone_sometimes", self.phone_sometimes),
            ("plays_at_work", self.plays_at_work),
            ("vpn_people", self.vpn_people),
            ("dorms", self.dorms),
            ("lunch_offices", self.lunch_offices),
            ("lunch_swap", self.lunch_swap),
            ("shared_computer", self.shared_computer),
            ("fixed_turn_order", self.fixed_turn_order),
            ("evening_relay", self.evening_relay),
            ("couples_at_one_office", self.couples_at_one_office),
            ("phone_plan", self.phone_plan),
            ("careless", self.careless),
            ("puppet_vpn_always", self.puppet_vpn_always),
            ("puppet_vpn_sometimes", self.puppet_vpn_sometimes),
            ("owner_shuffle", self.owner_shuffle),
            ("owner_home_only", self.owner_home_only),
        ] {
            share(name, x)?;
        }
        span("campus_students", self.campus_students, 2, 401)?;
        span("campus_addresses", self.campus_addresses, 1, 17)?;
        span("lunch_gap_minutes", self.lunch_gap_minutes, 1, 601)?;
        span("turn_minutes", self.turn_minutes, 1, 241)?;
        span("turn_gap_seconds", self.turn_gap_seconds, 0, 3601)?;
        span("relay_gap_minutes", self.relay_gap_minutes, 1, 601)?;
        span("cautious_gap_minutes", self.cautious_gap_minutes, 1, 601)?;
        for (name, w) in [
            ("jobs", &self.jobs[..]),
            ("office_sizes", &self.office_sizes[..]),
            ("household_sizes", &self.household_sizes[..]),
        ] {
            if w.iter().all(|&x| x == 0) || w.iter().any(|&x| x > 1000) {
                return Err(format!(
                    "habit {name} is a list of weights from 0 to 1000, not all 0"
                ));
            }
        }
        if self.owner_styles.is_empty() || self.owner_styles.len() > 64 {
            return Err("habit owner_styles must list 1 to 64 styles".into());
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_family_has_valid_habits_and_a_name_that_parses_back() {
        for f in Family::ALL {
            assert_eq!(f.habits().validate(), Ok(()), "{f:?}");
            assert_eq!(Family::parse(f.as_str()), Ok(f));
        }
        assert_eq!(Family::Default.habits(), Habits::default());
        let e = Family::parse("office").unwrap_err();
        assert!(e.contains("lunch") && e.contains("careful"), "{e}");
    }

    #[test]
    fn knobs_out_of_range_are_refused() {
        let bad = [
            Habits {
                dorms: 1.5,
                ..Default::default()
            },
            Habits {
                turn_minutes: (40, 10),
                ..Default::default()
            },
            Habits {
                jobs: [0, 0, 0],
                ..Default::default()
            },
            Habits {
                owner_styles: vec![],
                ..Default::default()
            },
            Habits {
                think_seconds: (0, 70.0),
                ..Default::default()
            },
        ];
        for h in bad {
            assert!(h.validate().is_err(), "{h:?}");
        }
    }
}
