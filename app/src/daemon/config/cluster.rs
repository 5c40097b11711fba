//! `[cluster]`: the daemon's scans sent to a Ballista cluster (a build with
//! the `cluster` feature), each stored as an ordinary scan.
//!
//! ```toml
//! [cluster]
//! url = "10.0.0.5:50050"          # the scheduler, or "local": in the daemon
//! work_dir = "/shared/detect"    # a folder every executor reads at this path
//! partitions = 16                # parts of each exported season
//! ```

use serde::Deserialize;
use std::path::PathBuf;

/// The default of `partitions`, as `detect scan --cluster` has it.
pub const DEFAULT_PARTITIONS: u32 = 16;

/// `[cluster]` as written in the file.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct RawCluster {
    url: Option<String>,
    work_dir: Option<PathBuf>,
    partitions: Option<u32>,
}

/// Where the daemon's scans run, checked.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ClusterTarget {
    /// The scheduler's host:port, or "local": DataFusion in the daemon.
    pub url: String,
    /// Where each scan's export and results are written (in a folder of
    /// their own, deleted once the scan is stored).
    pub work_dir: PathBuf,
    pub partitions: u32,
}

/// `[cluster]` checked: a build with the feature (`built`), a scheduler, a
/// work folder, reference mode (the only one a cluster scores so far).
pub(super) fn check_cluster(
    raw: Option<RawCluster>,
    mode: schema::Mode,
    built: bool,
) -> Result<Option<ClusterTarget>, String> {
    let Some(raw) = raw else {
        return Ok(None);
    };
    if !built {
        return Err("[cluster] needs a detect built with the cluster feature \
                    (cargo build --release --features cluster); remove it to scan in the daemon"
            .into());
    }
    let url = raw
        .url
        .filter(|u| !u.trim().is_empty())
        .ok_or("[cluster] needs url = \"HOST:PORT\" (the scheduler) or url = \"local\"")?;
    let work_dir = raw.work_dir.ok_or(
        "[cluster] needs work_dir = \"DIR\", a folder every executor reads at the same path",
    )?;
    let partitions = raw.partitions.unwrap_or(DEFAULT_PARTITIONS);
    if !(1..=65536).contains(&partitions) {
        return Err(format!(
            "cluster.partitions must lie between 1 and 65536, not {partitions}"
        ));
    }
    if mode != schema::Mode::Reference {
        return Err(
            "a cluster scan scores in reference mode only: set mode = \"reference\" \
                    or remove [cluster]"
                .into(),
        );
    }
    Ok(Some(ClusterTarget {
        url,
        work_dir,
        partitions,
    }))
}
