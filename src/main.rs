//! The `detect` command line: see `detect --help`.

use clap::Parser;
use std::process::ExitCode;

fn main() -> ExitCode {
    let cli = detect::cli::Cli::parse();
    let daemon = matches!(cli.command, detect::cli::Command::Daemon(_));
    detect::logging::init(cli.verbose, daemon);
    let runtime = match tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
    {
        Ok(rt) => rt,
        Err(e) => {
            eprintln!("error: cannot start the async runtime: {e}");
            return ExitCode::FAILURE;
        }
    };
    match runtime.block_on(detect::run(cli)) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) if detect::is_broken_pipe(&e) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("error: {}", detect::error_sentence(&e));
            ExitCode::FAILURE
        }
    }
}
