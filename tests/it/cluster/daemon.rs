//! The daemon's scans sent to a cluster (`[cluster]`): each stored as an
//! ordinary scan whose report equals `report --input` on the same lines,
//! its export and results deleted once stored, an unchanged season not
//! sent again, and a cluster that cannot be reached a failed tick that
//! loses nothing.

use super::*;
use crate::common::{toml_str, write_config};
use crate::daemon::support::{assert_report_matches, once, once_ok, sample};

fn config(dir: &Path, logs: &Path, reports: &Path, url: &str, work: &Path) -> std::path::PathBuf {
    write_config(
        dir,
        &format!(
            "report_dir = {}\nseasons = \"current\"\n[schedule]\nscan = \"0 0 * * * *\"\n\
             [[source]]\ndirectory = {}\nfiles = '\\.jsonl$'\n\
             [cluster]\nurl = {url:?}\nwork_dir = {}\npartitions = 3\n",
            toml_str(reports),
            toml_str(logs),
            toml_str(work)
        ),
    )
}

#[test]
fn the_daemon_sends_its_scans_to_a_cluster() {
    let db = TestDb::new(Backend::Sqlite);
    let dir = db.dir.path();
    let (logs, reports, work) = (dir.join("logs"), dir.join("reports"), dir.join("work"));
    std::fs::create_dir_all(&logs).unwrap();
    let lines = sample();
    std::fs::write(logs.join("season.jsonl"), lines.join("\n") + "\n").unwrap();

    // No scheduler listens there: the moves are stored, the scan fails
    // and says so, and --once fails by its exit.
    let nowhere = free_addr().to_string();
    let out = once(dir, &db.url, &config(dir, &logs, &reports, &nowhere, &work));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        !out.status.success(),
        "a tick whose cluster is unreachable: {err}"
    );
    assert!(err.contains("season 1"), "{err}");
    assert!(
        !reports.join("season-1.json").exists(),
        "no report without a scan"
    );

    let nodes = start_cluster(2, dir);
    let url = nodes.scheduler.to_string();
    let config = config(dir, &logs, &reports, &url, &work);
    let log = once_ok(dir, &db.url, &config);
    assert!(log.contains("scan #1 (new)"), "{log}");
    assert_report_matches(&db, &reports, &lines);
    let left: Vec<_> = std::fs::read_dir(&work).unwrap().collect();
    assert!(left.is_empty(), "the work folder keeps {left:?}");

    // Nothing new: the stored scan is current and nothing is sent again.
    let log = once_ok(dir, &db.url, &config);
    assert!(log.contains("scan #1 (unchanged)"), "{log}");
}
