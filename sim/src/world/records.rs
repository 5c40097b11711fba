//! The world's records: people, their households, the sites they work or
//! study at and the carriers their phones use, as the draws fill them in
//! and the schedule reads them. Plain data: every draw depends on these,
//! none of them on a draw.

use crate::truth::Style;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Job {
    /// Office hours on weekdays.
    Worker,
    /// Lectures on weekdays, on a university network.
    Student,
    /// At home or flexible.
    Free,
}

/// A stretch of days away from home: `from..to` local days, with the IP of
/// the hotel or the friends' place.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Absence {
    pub from: i32,
    pub to: i32,
    pub ip: u32,
}

pub(crate) struct Person {
    /// Seconds east of UTC.
    pub tz: i64,
    pub region: usize,
    pub household: u32,
    /// Office or university (a site of one is a private work IP).
    pub site: Option<u32>,
    pub job: Job,
    pub carrier: Option<u32>,
    /// Local hours of waking and going to bed (bed may pass 24).
    pub wake: f64,
    pub bed: f64,
    /// Mean check-ins a day.
    pub checkins: f64,
    /// How keen a player (0-1): more check-ins, more games at once.
    pub keen: f64,
    /// Share of home check-ins made from the phone.
    pub phone_share: f64,
    /// Share of home check-ins made through a VPN.
    pub vpn_share: f64,
    pub plays_at_work: bool,
    pub absences: Vec<Absence>,
    pub first_account: u32,
    pub n_accounts: u32,
    pub style: Option<Style>,
    /// For rare puppets: the chance a puppet joins a check-in.
    pub rare: f64,
    /// For cautious owners: the chance a puppet's check-in goes through a
    /// VPN (1: always, so the accounts never share an IP).
    pub puppet_vpn: f64,
    /// The person can do one thing at a time: the end of their last move.
    pub busy: i64,
    /// For owners: opens his accounts in a new order every sitting
    /// ([`super::Habits::owner_shuffle`]).
    pub shuffle: bool,
    /// Plays only at home: no phone, office or VPN, and not while away
    /// ([`super::Habits::owner_home_only`]).
    pub home_only: bool,
}

impl Person {
    pub(crate) fn accounts(&self) -> std::ops::Range<u32> {
        self.first_account..self.first_account + self.n_accounts
    }

    pub(crate) fn absence(&self, local_day: i32) -> Option<&Absence> {
        self.absences
            .iter()
            .find(|a| (a.from..a.to).contains(&local_day))
    }
}

pub(crate) struct Household {
    pub ip: u32,
    pub isp: u32,
    /// When the dynamic IP changes next (`i64::MAX`: a static IP).
    pub next_change: i64,
    pub shared_computer: bool,
    /// For couples: the chance the other joins an evening home session.
    pub together: f64,
    pub members: Vec<u32>,
    /// At the shared computer, the same order of turns every evening
    /// ([`super::Habits::fixed_turn_order`]).
    pub fixed_order: bool,
    /// On their own devices, one after the other every evening in the
    /// order of `members` ([`super::Habits::evening_relay`]).
    pub relay: bool,
    /// On one phone plan: their phones show one carrier address a day
    /// ([`super::Habits::phone_plan`]).
    pub phone_plan: bool,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum SiteKind {
    Office,
    University,
}

pub(crate) struct Site {
    pub kind: SiteKind,
    pub ips: Vec<u32>,
    pub members: Vec<u32>,
    /// Colleagues who play at lunch every workday from the office address,
    /// in this order ([`super::Habits::lunch_offices`]).
    pub lunch: Option<Vec<u32>>,
}

pub(crate) struct Carrier {
    /// Addresses phones get most days.
    pub pool: Vec<u32>,
    /// A few gateway addresses that many phones share.
    pub hot: Vec<u32>,
    pub members: Vec<u32>,
}
