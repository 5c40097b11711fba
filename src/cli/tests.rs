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
