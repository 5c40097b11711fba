//! Embeds the migrations: writes `$OUT_DIR/migrations.rs`, one list per
//! backend of `migrations/<backend>/<VERSION>_<description>.sql`, read the
//! way sqlx reads a migrations folder (see `src/migrations.rs`). A changed
//! or new migration file rebuilds the crate.

use std::fmt::Write as _;
use std::path::Path;

fn main() {
    println!("cargo:rerun-if-changed=migrations");
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("migrations");
    let mut out = String::new();
    for (name, folder) in [("SQLITE", "sqlite"), ("POSTGRES", "postgres")] {
        let dir = root.join(folder);
        println!("cargo:rerun-if-changed={}", dir.display());
        let mut files: Vec<_> = std::fs::read_dir(&dir)
            .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
            .map(|entry| entry.expect("a migration folder entry").path())
            .filter(|path| path.extension().is_some_and(|e| e == "sql"))
            .collect();
        files.sort();
        writeln!(out, "pub(crate) const {name}: &[Embedded] = &[").unwrap();
        for path in files {
            let file = path
                .file_name()
                .unwrap()
                .to_str()
                .expect("a UTF-8 file name");
            let (version, rest) = file
                .split_once('_')
                .unwrap_or_else(|| panic!("{}: not VERSION_description.sql", path.display()));
            let version: i64 = version
                .parse()
                .unwrap_or_else(|_| panic!("{}: the version is not a number", path.display()));
            assert!(
                !rest.ends_with(".up.sql") && !rest.ends_with(".down.sql"),
                "{}: the store's migrations are simple (no up/down pairs)",
                path.display()
            );
            let description = rest.trim_end_matches(".sql").replace('_', " ");
            writeln!(
                out,
                "    Embedded {{ version: {version}, description: {description:?}, sql: include_str!({:?}) }},",
                path.display().to_string()
            )
            .unwrap();
        }
        writeln!(out, "];").unwrap();
    }
    let dest = Path::new(&std::env::var("OUT_DIR").expect("OUT_DIR")).join("migrations.rs");
    std::fs::write(&dest, out).unwrap_or_else(|e| panic!("{}: {e}", dest.display()));
}
