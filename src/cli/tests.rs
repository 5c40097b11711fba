//! The command line: well formed (clap's checks), and its help: every
//! command has an example, and no stray `=` after an unset environment
//! variable.

use clap::CommandFactory;

/// Every command and subcommand, by its full name (`user add`).
fn walk(cmd: &clap::Command, path: &str, out: &mut Vec<(String, clap::Command)>) {
    for sub in cmd.get_subcommands().filter(|s| s.get_name() != "help") {
        let name = format!("{path} {}", sub.get_name()).trim().to_owned();
        out.push((name.clone(), sub.clone()));
        walk(sub, &name, out);
    }
}

#[test]
fn every_command_has_an_example_in_its_help() {
    let mut all = Vec::new();
    walk(&super::Cli::command(), "", &mut all);
    assert!(all.len() > 20, "{}", all.len());
    let missing: Vec<String> = all
        .into_iter()
        .filter_map(|(n, mut c)| {
            let help = c.render_long_help().to_string();
            (!help.contains("Example")).then_some(n)
        })
        .collect();
    assert!(missing.is_empty(), "no example in --help: {missing:?}");
}

#[test]
fn an_unset_environment_variable_shows_no_stray_equals_sign() {
    let help = super::Cli::command().render_long_help().to_string();
    assert!(help.contains("[env: DETECT_SITE]"), "{help}");
    assert!(!help.contains("=]"), "{help}");
}

#[test]
fn the_command_line_is_well_formed() {
    // clap's own checks of every command (unique names, valid conflicts).
    super::Cli::command().debug_assert();
}

#[test]
fn report_reads_logs_through_the_shared_log_arguments() {
    use clap::Parser;
    let parse = |args: &[&str]| super::Cli::try_parse_from(["detect"].iter().chain(args));
    let cli = parse(&["report", "--input", "a.jsonl", "b.csv", "--games", "^x_"]).unwrap();
    let super::Command::Report(r) = cli.command else {
        panic!("not a report")
    };
    assert_eq!(r.logs.input, ["a.jsonl", "b.csv"]);
    assert_eq!(r.logs.games.as_deref(), Some("^x_"));
    assert!(!r.logs.reference_order);
    // Logs are read into memory: no pictures folder, and the log options
    // need logs.
    assert!(parse(&["report", "--input", "a.jsonl", "--out", "d"]).is_err());
    assert!(parse(&["report", "--season", "7", "--games", "^x_"]).is_err());
    assert!(parse(&["report", "--season", "7", "--reference-order"]).is_err());
    assert!(parse(&["report"]).is_err());
}
