//! How the command line talks to a person: colour (`--color`, `NO_COLOR`,
//! terminals only), quiet mode (`-q`), progress spinners on standard error,
//! rounded rates, and a closed standard output (`detect ... | head`) ending
//! the program quietly with status 0.
//!
//! Exit statuses (documented in `detect --help` and the README):
//! [`EXIT_OK`], [`EXIT_ERROR`], [`EXIT_USAGE`] (clap's own), and
//! [`EXIT_FLAGGED`] only with `report --exit-code`.

use clap::ValueEnum;
use std::io::IsTerminal;
use std::sync::atomic::{AtomicBool, AtomicU8, Ordering};
use std::time::Duration;

/// The command did what was asked.
pub const EXIT_OK: u8 = 0;
/// The command failed; standard error says why in one sentence.
pub const EXIT_ERROR: u8 = 1;
/// The command line could not be parsed (clap's status).
pub const EXIT_USAGE: u8 = 2;
/// `report --exit-code` found at least one flagged pair.
pub const EXIT_FLAGGED: u8 = 3;

/// When to colour output.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, ValueEnum)]
pub enum ColorWhen {
    /// Colour when writing to a terminal and `NO_COLOR` is not set.
    #[default]
    Auto,
    Always,
    Never,
}

static QUIET: AtomicBool = AtomicBool::new(false);
/// 0 auto, 1 always, 2 never.
static COLOR: AtomicU8 = AtomicU8::new(0);

/// Records the global flags; call once, first thing.
pub fn configure(color: ColorWhen, quiet: bool) {
    QUIET.store(quiet, Ordering::Relaxed);
    COLOR.store(
        match color {
            ColorWhen::Auto => 0,
            ColorWhen::Always => 1,
            ColorWhen::Never => 2,
        },
        Ordering::Relaxed,
    );
}

/// Whether `-q` was given: no progress, no informational notes on standard
/// error (errors and warnings still print).
pub fn quiet() -> bool {
    QUIET.load(Ordering::Relaxed)
}

/// Whether `NO_COLOR` asks for no colour (set and not empty, per no-color.org).
fn no_color_env() -> bool {
    std::env::var_os("NO_COLOR").is_some_and(|v| !v.is_empty())
}

/// Whether text written to standard error may carry ANSI colour.
pub fn color_stderr() -> bool {
    match COLOR.load(Ordering::Relaxed) {
        1 => true,
        2 => false,
        _ => !no_color_env() && std::io::stderr().is_terminal(),
    }
}

/// The `--color` value as clap's own choice (for help and errors), read off
/// the raw arguments before parsing so help follows it too.
pub fn clap_color_from_args() -> clap::ColorChoice {
    let args: Vec<String> = std::env::args().collect();
    let mut choice = None;
    for (i, a) in args.iter().enumerate() {
        let v = if let Some(v) = a.strip_prefix("--color=") {
            Some(v.to_owned())
        } else if a == "--color" {
            args.get(i + 1).cloned()
        } else {
            None
        };
        if let Some(v) = v {
            choice = ColorWhen::from_str(&v, true).ok();
        }
    }
    match choice {
        Some(ColorWhen::Always) => clap::ColorChoice::Always,
        Some(ColorWhen::Never) => clap::ColorChoice::Never,
        _ if no_color_env() => clap::ColorChoice::Never,
        _ => clap::ColorChoice::Auto,
    }
}

/// An informational note on standard error (`wrote FILE`, ...), silent with
/// `-q`.
pub fn note(message: impl std::fmt::Display) {
    if !quiet() {
        eprintln!("{message}");
    }
}

/// A warning on standard error, printed even with `-q`.
pub fn warn(message: impl std::fmt::Display) {
    eprintln!("warning: {message}");
}

/// A rate in whole units a second with thousands separators: `110,041/s`.
pub fn rate(per_second: f64) -> String {
    let n = per_second.max(0.0).round() as u64;
    format!("{}/s", thousands(n))
}

/// `1234567` as `1,234,567`.
pub fn thousands(n: u64) -> String {
    let digits = n.to_string();
    let mut out = String::with_capacity(digits.len() + digits.len() / 3);
    for (i, c) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(c);
    }
    out
}

/// A spinner with a message and elapsed time on standard error, ticking by
/// itself, for a step that may take more than a second (hidden when
/// standard error is not a terminal, and with `-q`). Finish it with
/// `finish_and_clear`.
pub fn spinner(message: impl Into<String>) -> indicatif::ProgressBar {
    let bar = hidden_unless_terminal(indicatif::ProgressBar::new_spinner());
    bar.set_style(
        indicatif::ProgressStyle::with_template("{spinner} {msg} ({elapsed})")
            .expect("valid template"),
    );
    bar.set_message(message.into());
    bar.enable_steady_tick(Duration::from_millis(120));
    bar
}

/// A spinner counting lines, with a rounded rate: `reading x.jsonl: 1,234,567
/// lines (110,041/s)`.
pub fn line_counter(message: impl Into<String>) -> indicatif::ProgressBar {
    let bar = hidden_unless_terminal(indicatif::ProgressBar::new_spinner());
    bar.set_style(
        indicatif::ProgressStyle::with_template("{spinner} {msg}: {pos_sep} lines ({rate})")
            .expect("valid template")
            .with_key(
                "pos_sep",
                |s: &indicatif::ProgressState, w: &mut dyn std::fmt::Write| {
                    let _ = w.write_str(&thousands(s.pos()));
                },
            )
            .with_key(
                "rate",
                |s: &indicatif::ProgressState, w: &mut dyn std::fmt::Write| {
                    let _ = w.write_str(&rate(s.per_sec()));
                },
            ),
    );
    bar.set_message(message.into());
    bar
}

fn hidden_unless_terminal(bar: indicatif::ProgressBar) -> indicatif::ProgressBar {
    if quiet() || !std::io::stderr().is_terminal() {
        bar.set_draw_target(indicatif::ProgressDrawTarget::hidden());
    }
    bar
}

/// The application's progress as spinners on standard error
/// ([`spinner`], [`line_counter`]).
#[derive(Debug, Clone, Copy, Default)]
pub struct Spinners;

impl app::progress::Progress for Spinners {
    fn step(&self, message: String) -> Box<dyn app::progress::Step> {
        Box::new(Bar(spinner(message)))
    }
    fn counter(&self, message: String) -> Box<dyn app::progress::Step> {
        Box::new(Bar(line_counter(message)))
    }
}

struct Bar(indicatif::ProgressBar);

impl app::progress::Step for Bar {
    fn set_message(&self, message: String) {
        self.0.set_message(message);
    }
    fn set_position(&self, position: u64) {
        self.0.set_position(position);
    }
    fn finish(&self) {
        self.0.finish_and_clear();
    }
}

/// Makes a write to a closed standard output (`detect ... | head`) end the
/// program with status 0 instead of a panic: `println!` panics on a broken
/// pipe, and this hook turns that one panic into a quiet exit.
pub fn exit_quietly_on_broken_pipe() {
    let default = std::panic::take_hook();
    std::panic::set_hook(Box::new(move |info| {
        let payload = info.payload();
        let message = payload
            .downcast_ref::<String>()
            .map(String::as_str)
            .or_else(|| payload.downcast_ref::<&str>().copied())
            .unwrap_or("");
        if message.contains("Broken pipe") || message.contains("os error 32") {
            std::process::exit(EXIT_OK.into());
        }
        default(info)
    }));
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rates_are_whole_with_separators() {
        assert_eq!(rate(110_040.527_5), "110,041/s");
        assert_eq!(rate(0.4), "0/s");
        assert_eq!(thousands(999), "999");
        assert_eq!(thousands(1_000), "1,000");
        assert_eq!(thousands(1_234_567), "1,234,567");
    }
}
