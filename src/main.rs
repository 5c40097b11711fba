//! The `detect` command line: see `detect --help`.

use clap::{CommandFactory, FromArgMatches};
use detect::ui;
use std::process::ExitCode;

/// mimalloc, without transparent huge pages: a profile of a 2M-move ingest
/// had a fifth of its samples in glibc's allocator, and with huge pages a
/// scan spent a quarter of its samples zeroing 2 MiB pages it had barely
/// touched (BENCHMARKS.md, "SQLite's memory count off, mimalloc").
#[global_allocator]
static GLOBAL: mimalloc::MiMalloc = mimalloc::MiMalloc;

/// How long a finished command waits for the runtime's blocking tasks.
const SHUTDOWN_WAIT: std::time::Duration = std::time::Duration::from_secs(10);

fn main() -> ExitCode {
    ui::exit_quietly_on_broken_pipe();
    let matches = detect::cli::Cli::command()
        .color(ui::clap_color_from_args())
        .get_matches();
    let cli = match detect::cli::Cli::from_arg_matches(&matches) {
        Ok(cli) => cli,
        Err(e) => e.exit(),
    };
    ui::configure(cli.color, cli.quiet);
    let daemon = matches!(cli.command, detect::cli::Command::Daemon(_));
    let log_format = match (&cli.command, cli.log_format) {
        (_, Some(format)) => format,
        (detect::cli::Command::Daemon(args), None) => app::daemon::config::log_format(&args.config),
        _ => detect::logging::LogFormat::Text,
    };
    if daemon {
        app::progress::install(Box::new(app::progress::Logged));
    } else {
        app::progress::install(Box::new(ui::Spinners));
    }
    detect::logging::init(cli.verbose, cli.quiet, daemon, log_format);
    // 16 MiB a worker thread (tokio's default is 2 MiB): the query engine
    // of a cluster scan plans recursively, and the scheduler's planning of a
    // scan overflowed 2 MiB in an unoptimised build.
    let runtime = match tokio::runtime::Builder::new_multi_thread()
        .thread_stack_size(16 << 20)
        .enable_all()
        .build()
    {
        Ok(rt) => rt,
        Err(e) => {
            eprintln!("error: cannot start the async runtime: {e}");
            return ExitCode::from(ui::EXIT_ERROR);
        }
    };
    let outcome = runtime.block_on(detect::run(cli));
    // Dropping a runtime waits without end for its blocking tasks (tokio's
    // documentation of `shutdown_timeout`): a command that has finished
    // and written its output must not be kept alive by one that is stuck.
    runtime.shutdown_timeout(SHUTDOWN_WAIT);
    match outcome {
        Ok(()) => ExitCode::from(ui::EXIT_OK),
        Err(e) if detect::is_broken_pipe(&e) => ExitCode::from(ui::EXIT_OK),
        Err(e) if e.downcast_ref::<detect::FlagsFound>().is_some() => {
            ExitCode::from(ui::EXIT_FLAGGED)
        }
        Err(e) => {
            eprintln!("error: {}", detect::error_sentence(&e));
            ExitCode::from(ui::EXIT_ERROR)
        }
    }
}
