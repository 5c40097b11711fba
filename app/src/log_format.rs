//! How log lines are written: the one value that the command line's
//! `--log-format` and the daemon configuration's `log_format` both name
//! (the binary's logging writes them).

/// How log lines are written.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, serde::Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum LogFormat {
    /// One line of text per event.
    #[default]
    Text,
    /// One JSON object per event: timestamp, level, target, fields.
    Json,
}

impl LogFormat {
    /// The names, as the command line and the configuration spell them.
    pub const NAMES: [&'static str; 2] = ["text", "json"];

    /// The format of one of [`LogFormat::NAMES`].
    pub fn from_name(name: &str) -> Option<LogFormat> {
        match name {
            "text" => Some(LogFormat::Text),
            "json" => Some(LogFormat::Json),
            _ => None,
        }
    }
}
