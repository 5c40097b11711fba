//! The configuration's checks, each with the sentence it gives.

use super::*;

fn parse(text: &str) -> Result<Config> {
    Config::parse(Path::new("d.toml"), text)
}

fn err(text: &str) -> String {
    crate::error_sentence(&parse(text).unwrap_err())
}

#[test]
fn the_mode_and_its_default_threshold() {
    let c = parse("mode = \"improved\"").unwrap();
    assert_eq!(c.mode, schema::Mode::Improved);
    assert_eq!(c.threshold, scoring::improved::DEFAULT_THRESHOLD);
    let c = parse("mode = \"reference\"\nthreshold = 0.8").unwrap();
    assert_eq!((c.mode, c.threshold), (schema::Mode::Reference, 0.8));
    assert_eq!(parse("").unwrap().mode, crate::pipeline::DEFAULT_MODE);
    let e = err("threshold = 0.9\nmode = \"clever\"");
    assert!(e.contains("line 2") && e.contains("clever"), "{e}");
}

#[test]
fn defaults() {
    let c = parse("").unwrap();
    assert_eq!(c.threshold, 0.9);
    assert_eq!(c.seasons, Seasons::Current);
    assert_eq!(c.current_days, 14);
    assert_eq!(c.keep_scans, 10);
    assert_eq!(c.report_dir, PathBuf::from("reports"));
    assert_eq!(parse("keep_scans = 3").unwrap().keep_scans, 3);
    assert!(c.ip_key.is_none() && c.retention_days.is_none());
    let keyed = parse("ip_key = \"hunter2\"\nretention_days = 90").unwrap();
    assert_eq!(keyed.retention_days, Some(90));
    assert!(keyed.ip_key.is_some());
    assert!(!format!("{keyed:?}").contains("hunter2"));
    assert!(err("ip_key = \" \"").contains("ip_key is empty"));
    // Issue 36, item 8: a numeric key was echoed in the error.
    for secret in [
        "ip_key = 31415926535",
        "mode = \"improved\"\nip_key = 2.718281828",
    ] {
        let e = err(secret);
        assert!(
            !e.contains("31415926535") && !e.contains("2.718281828"),
            "{e}"
        );
        assert!(e.contains("ip_key has a value of the wrong kind"), "{e}");
    }
    assert!(err("retention_days = 0").contains("retention_days must be at least 1"));
    assert!(err("keep_scans = 0").contains("keep_scans must be at least 1"));
    assert!(c.sources.is_empty() && c.database.is_none());
    assert!(require_schedule(&c).is_err());
    assert_eq!(store_url(&c, "sqlite://x.db"), "sqlite://x.db");
}

#[test]
fn a_full_configuration() {
    let dir = tempfile::tempdir().unwrap();
    let text = format!(
        r#"
database = "sqlite://s.db"
threshold = 0.8
seasons = [6, 7]
[schedule]
ingest = "0 */5 * * * *"
scan = "0 0 * * * *"
[[source]]
directory = "{}"
files = '\.jsonl$'
[[source]]
url = "postgres://u:secret@h/db"
query = "SELECT id, username, game, ts AS timestamp, ip FROM m WHERE id > $1 ORDER BY id"
key = "id"
[[source]]
name = "otm"
site = "otm"
url = "sqlite://site.db"
query = "SELECT * FROM m WHERE t > $1 ORDER BY t"
key = "t"
start = "2015-01-01"
"#,
        dir.path().display()
    );
    let c = parse(&text).unwrap();
    assert_eq!(c.seasons, Seasons::List(vec![6, 7]));
    assert_eq!(store_url(&c, "sqlite://x.db"), "sqlite://s.db");
    assert_eq!(c.sources.len(), 3);
    let sites: Vec<&str> = c.sources.iter().map(Source::site).collect();
    assert_eq!(sites, ["default", "default", "otm"]);
    assert_eq!(c.sites(), ["default", "otm"]);
    assert_eq!(c.site_report_dir("default"), c.report_dir);
    assert_eq!(c.site_report_dir("otm"), c.report_dir.join("otm"));
    // The site database's password never shows, not even in `Debug`.
    assert!(!format!("{:?}", c.sources).contains("secret"));
    match &c.sources[1] {
        Source::Database { name, start, .. } => {
            assert!(name.starts_with("db:postgres://u:***@h/db#"), "{name}");
            assert_eq!(start, &Mark::Int(0));
        }
        s => panic!("{s:?}"),
    }
    match &c.sources[2] {
        Source::Database { name, start, .. } => {
            assert_eq!(name, "db:otm");
            assert_eq!(start, &Mark::Text("2015-01-01".into()));
        }
        s => panic!("{s:?}"),
    }
}

#[test]
fn problems_are_one_sentence() {
    let e = err("databse = \"x\"");
    assert!(
        e.starts_with("the configuration d.toml, line 1: unknown field `databse`, expected one of"),
        "{e}"
    );
    assert!(!e.contains('\n'), "{e}");
    let e = err("[schedule]\nscan = \"*/x * * * * *\"");
    assert!(
        e.starts_with(
            "the configuration d.toml: schedule.scan \"*/x * * * * *\" is not a cron expression"
        ),
        "{e}"
    );
    let e = err("[schedule]\ningest = \"*/5 * * * *\"");
    assert!(e.contains("it has 5 fields"), "{e}");
    assert!(err("threshold = 1.5").contains("threshold must lie between 0 and 1"));
    assert!(err("seasons = []").contains("seasons is an empty list"));
    assert!(err("seasons = \"all\"").contains("\"current\" or a list of season numbers"));
    let e = err("[[source]]\ndirectory = \"/no/such/dir\"");
    assert!(
        e.contains("source 1") && e.contains("/no/such/dir cannot be opened"),
        "{e}"
    );
    assert!(err("[[source]]\nurl = \"sqlite://x\"\nkey = \"id\"").contains("needs `query`"));
    assert!(
        err("[[source]]\nurl = \"sqlite://x\"\nkey = \"id\"\nquery = \"SELECT 1\"")
            .contains("never uses $1")
    );
    assert!(err("[[source]]\nurl = \"x\"\nqurey = \"y\"").contains("unknown field `qurey`"));
    let e = err("[[source]]\nsite = \"a/b\"\ndirectory = \".\"");
    assert!(e.contains("source 1") && e.contains("site \"a/b\""), "{e}");
}

#[test]
fn the_example_configuration_is_valid() {
    let dir = tempfile::tempdir().unwrap();
    let text = include_str!("../../../../detect.example.toml")
        .replace("/var/lib/otm/logs", dir.path().to_str().unwrap());
    let c = parse(&text).unwrap();
    assert_eq!(c.sources.len(), 2);
    assert_eq!(c.scan_schedule.as_deref(), Some("0 0 * * * *"));
    assert!(require_schedule(&c).is_ok());
}

#[test]
fn marks_round_trip() {
    for m in [
        Mark::Int(-3),
        Mark::Text("00123".into()),
        Mark::Text(String::new()),
    ] {
        assert_eq!(Mark::decode(&m.encode()), Some(m));
    }
    assert_eq!(Mark::decode("junk"), None);
}

#[test]
fn metrics_and_log_format_are_off_until_named() {
    let c = parse("").unwrap();
    assert_eq!((c.metrics_listen, c.log_format), (None, None));
    let c = parse("metrics_listen = \"127.0.0.1:9187\"\nlog_format = \"json\"").unwrap();
    assert_eq!(c.metrics_listen, Some("127.0.0.1:9187".parse().unwrap()));
    assert_eq!(c.log_format, Some(crate::log_format::LogFormat::Json));
    let e = err("metrics_listen = \"localhost\"");
    assert!(e.contains("line 1") && e.contains("socket address"), "{e}");
    let e = err("log_format = \"xml\"");
    assert!(e.contains("line 1") && e.contains("json"), "{e}");
}

#[test]
fn a_model_file_is_read_at_start_and_only_in_improved_mode() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("site.json");
    std::fs::write(&file, scoring::improved::Model::shipped().to_json()).unwrap();
    let shown = file.display().to_string().replace('\\', "\\\\");
    let c = parse(&format!("mode = \"improved\"\nmodel = \"{shown}\"")).unwrap();
    assert_eq!(
        c.model.as_deref().map(|m| m.name()),
        Some(scoring::improved::Model::shipped().name())
    );
    assert!(parse("mode = \"improved\"").unwrap().model.is_none());
    let e = err(&format!("mode = \"reference\"\nmodel = \"{shown}\""));
    assert!(e.contains("model is for mode = \"improved\""), "{e}");
    std::fs::write(&file, "{}").unwrap();
    let e = err(&format!("mode = \"improved\"\nmodel = \"{shown}\""));
    assert!(
        e.starts_with("the configuration ") && e.contains("site.json: "),
        "{e}"
    );
}

#[test]
fn a_stored_model_version_is_named_once_and_only_in_improved_mode() {
    use crate::model::ModelChoice;
    let c = parse("mode = \"improved\"\nmodel_version = 3").unwrap();
    assert_eq!(c.model_choice, ModelChoice::Version(3));
    assert!(c.model.is_none(), "read from the store at start");
    assert_eq!(
        parse("mode = \"improved\"").unwrap().model_choice,
        ModelChoice::Shipped
    );
    let e = err("mode = \"reference\"\nmodel_version = 3");
    assert!(
        e.contains("model_version is for mode = \"improved\""),
        "{e}"
    );
    let e = err("mode = \"improved\"\nmodel_version = 3\nmodel = \"m.json\"");
    assert!(e.contains("name the model once"), "{e}");
}

#[test]
fn a_cluster_needs_the_feature_a_scheduler_a_work_folder_and_reference_mode() {
    use schema::Mode::{Improved, Reference};
    let check = |text: &str, mode, built| {
        let raw: cluster::RawCluster = toml::from_str(text).expect("a [cluster] table");
        cluster::check_cluster(Some(raw), mode, built)
    };
    let target = check("url = \"local\"\nwork_dir = \"w\"", Reference, true)
        .unwrap()
        .expect("[cluster] read");
    assert_eq!(
        (
            target.url.as_str(),
            target.work_dir.as_path(),
            target.partitions
        ),
        ("local", Path::new("w"), cluster::DEFAULT_PARTITIONS)
    );
    let four = check(
        "url = \"h:1\"\nwork_dir = \"w\"\npartitions = 4",
        Reference,
        true,
    );
    assert_eq!(four.unwrap().unwrap().partitions, 4);
    for (text, mode, built, why) in [
        (
            "url = \"local\"\nwork_dir = \"w\"",
            Reference,
            false,
            "[cluster] needs a detect built with the cluster feature",
        ),
        ("work_dir = \"w\"", Reference, true, "[cluster] needs url"),
        (
            "url = \" \"\nwork_dir = \"w\"",
            Reference,
            true,
            "[cluster] needs url",
        ),
        (
            "url = \"local\"",
            Reference,
            true,
            "[cluster] needs work_dir",
        ),
        (
            "url = \"local\"\nwork_dir = \"w\"\npartitions = 0",
            Reference,
            true,
            "cluster.partitions must lie between 1 and 65536, not 0",
        ),
        (
            "url = \"local\"\nwork_dir = \"w\"",
            Improved,
            true,
            "a cluster scan scores in reference mode only",
        ),
    ] {
        let e = check(text, mode, built).unwrap_err();
        assert!(e.contains(why), "{text}: {e}");
    }
    // Through the file: without the table no cluster; with it, as built.
    assert!(parse("").unwrap().cluster.is_none());
    let c = parse("[cluster]\nurl = \"local\"\nwork_dir = \"w\"");
    assert_eq!(c.is_ok(), cfg!(feature = "cluster"), "{c:?}");
    if let Err(e) = c {
        let e = crate::error_sentence(&e);
        assert!(e.contains("d.toml") && e.contains("cluster feature"), "{e}");
    }
    let e = err("[cluster]\nurl = \"local\"\nwork_dir = \"w\"\nexecutors = 2");
    assert!(e.contains("line 4") && e.contains("executors"), "{e}");
}
