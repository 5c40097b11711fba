//! Logs go to standard error through `tracing`, filtered by `RUST_LOG`
//! (default `warn`, or `info` with `-v`, `error` with `-q`; the daemon's
//! default is `info`, since its log is its output). IP addresses are never
//! logged at info level or above. Every field is written with control
//! characters escaped. Colour only on a terminal, never with `--color never`
//! or `NO_COLOR` (so journald gets plain lines). `--log-format json` (or
//! the daemon configuration's `log_format = "json"`) writes one JSON object
//! per line for log collectors, with the same fields as the text lines.

use tracing_subscriber::EnvFilter;

pub use app::log_format::LogFormat;

pub fn init(verbose: u8, quiet: bool, daemon: bool, format: LogFormat) {
    // sqlx warns of slow statements with their SQL: noise on a terminal, so
    // it speaks only on errors unless RUST_LOG says otherwise.
    let default = match verbose {
        0 if quiet => "error",
        0 if daemon => "info,sqlx=error",
        0 => "warn,sqlx=error",
        1 => "info,sqlx=error",
        _ => "debug",
    };
    let filter = EnvFilter::try_from_default_env().unwrap_or_else(|_| EnvFilter::new(default));
    if format == LogFormat::Json {
        // serde_json escapes every control character in every string.
        let _ = tracing_subscriber::fmt()
            .json()
            .with_env_filter(filter)
            .with_writer(std::io::stderr)
            .try_init();
        return;
    }
    let _ = tracing_subscriber::fmt()
        .fmt_fields(escaped_fields())
        .with_env_filter(filter)
        .with_ansi(crate::ui::color_stderr())
        .with_writer(std::io::stderr)
        .try_init();
}

/// Every field of every event, the message too, written with control
/// characters escaped (`viz::escape::terminal`): a name or a file name
/// holding a newline cannot forge a log line, nor ESC reach a terminal.
fn escaped_fields() -> impl for<'w> tracing_subscriber::fmt::FormatFields<'w> + 'static {
    use tracing_subscriber::field::MakeExt;
    tracing_subscriber::fmt::format::debug_fn(|writer, field, value| {
        let text = format!("{value:?}");
        let text = viz::escape::terminal(&text);
        if field.name() == "message" {
            write!(writer, "{text}")
        } else {
            write!(writer, "{field}={text}")
        }
    })
    .delimited(" ")
}
