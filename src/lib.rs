//! # detect
//!
//! The `detect` binary's library: the command line (`cli`), one thin
//! adapter per command (`commands`) over the application library
//! `detect-app`, the terminal (`ui`) and logging.

pub mod cli;
pub mod commands;
pub mod logging;
pub mod ui;

use cli::{Cli, Command};

/// Runs one command.
pub async fn run(cli: Cli) -> anyhow::Result<()> {
    let db = app::pipeline::Db {
        url: cli.db.clone(),
        site: cli.site.clone(),
    };
    match cli.command {
        Command::Ingest(args) => commands::ingest::run(&db, args).await,
        Command::Season(args) => commands::season::run(&db, args).await,
        Command::Buckets(args) => commands::buckets::run(&db, args).await,
        #[cfg(feature = "cluster")]
        Command::Scan(args) if args.cluster.is_some() => {
            let url = args.cluster.clone().unwrap_or_default();
            commands::cluster::run_cluster_scan(&db, args, &url).await
        }
        Command::Scan(args) => commands::scan::run_scan(&db, args).await,
        #[cfg(feature = "cluster")]
        Command::Report(args) if args.cluster.is_some() => {
            commands::cluster::run_cluster_report(args).await
        }
        Command::Report(args) => commands::scan::run_report(&db, args).await,
        Command::Explain(args) => commands::scan::run_explain(&db, args).await,
        Command::Timeline(args) => commands::pictures::run_timeline(&db, args).await,
        Command::Compare(args) => commands::pictures::run_compare(&db, args).await,
        Command::Simulate(args) => commands::simulate::run_simulate(args),
        Command::Eval(args) => commands::simulate::run_eval(&db, args).await,
        Command::Demo(args) => commands::simulate::run_demo(args).await,
        Command::Daemon(args) => commands::daemon::run(&db, args).await,
        Command::Completions(args) => commands::docs::run_completions(args),
        Command::Man(args) => commands::docs::run_man(args),
        Command::Serve(args) => commands::serve::run(&db, args).await,
        Command::User(cmd) => commands::user::run(&db, cmd).await,
        Command::Verdict(args) => commands::verdict::run(&db, args).await,
        Command::Case(cmd) => commands::case::run(&db, cmd).await,
        Command::Audit(args) => commands::audit::run(&db, args).await,
        Command::Model(cmd) => commands::model::run(&db, cmd).await,
        Command::Purge(args) => commands::purge::run(&db, args).await,
        Command::Backup(args) => commands::backup::run_backup(&db, args).await,
        Command::Check => commands::backup::run_check(&db).await,
        Command::Ip(args) => commands::ip::run(&db, args).await,
        #[cfg(feature = "cluster")]
        Command::Export(args) => commands::cluster::run_export(&db, args).await,
        #[cfg(feature = "cluster")]
        Command::ImportScan(args) => commands::cluster::run_import_scan(&db, args).await,
        #[cfg(feature = "cluster")]
        Command::Scheduler(args) => commands::cluster::run_scheduler(args).await,
        #[cfg(feature = "cluster")]
        Command::Executor(args) => commands::cluster::run_executor(args).await,
    }
}

/// `report --exit-code` found flagged pairs: the program exits with
/// [`ui::EXIT_FLAGGED`] and no message (the report says it all).
#[derive(Debug)]
pub struct FlagsFound(pub usize);

impl std::fmt::Display for FlagsFound {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{} pairs are flagged", self.0)
    }
}

impl std::error::Error for FlagsFound {}

pub use app::error_sentence;

/// Whether the error is a closed standard output (`detect ... | head`): not
/// worth a message.
pub fn is_broken_pipe(e: &anyhow::Error) -> bool {
    e.chain().any(|c| {
        c.downcast_ref::<std::io::Error>()
            .is_some_and(|io| io.kind() == std::io::ErrorKind::BrokenPipe)
            || c.downcast_ref::<serde_json::Error>()
                .is_some_and(|j| j.io_error_kind() == Some(std::io::ErrorKind::BrokenPipe))
    })
}
