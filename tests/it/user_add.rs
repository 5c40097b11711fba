//! `detect user add`: piped, the password is standard input's first line
//! and nothing is prompted; on a terminal (a pseudo-terminal made by
//! util-linux `script`), it is asked for without echo, then again.

use crate::common::*;
use std::process::{Command, Stdio};

#[test]
fn a_piped_password_is_read_without_a_prompt() {
    let db = TestDb::new(Backend::Sqlite);
    let out = db.run_stdin(
        &["user", "add", "ann", "--role", "viewer"],
        b"secret-pass\n",
    );
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let said =
        String::from_utf8_lossy(&out.stderr).to_string() + &String::from_utf8_lossy(&out.stdout);
    assert!(!said.contains("Password"), "no prompt when piped: {said}");
    assert!(!said.contains("secret-pass"), "{said}");
    assert_eq!(db.ok(&["user", "list"]), "ann\tviewer\n");
    let short = db.run_stdin(&["user", "add", "bo", "--role", "viewer"], b"short\n");
    assert_eq!(short.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&short.stderr).contains("first line of standard input"));
}

/// Runs `user add NAME` on a pseudo-terminal, typing `first` then `second`
/// once the prompts are up; returns what the terminal showed.
fn on_a_terminal(db: &TestDb, name: &str, first: &str, second: &str) -> String {
    let cmd = format!("{BIN} --db {} user add {name} --role viewer", db.url);
    let mut child = Command::new("script")
        .args(["-qec", &cmd, "/dev/null"])
        .current_dir(db.dir.path())
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("util-linux script (the terminal test needs it)");
    let mut stdin = child.stdin.take().unwrap();
    let (first, second) = (first.to_owned(), second.to_owned());
    std::thread::spawn(move || {
        use std::io::Write;
        // Typed after the prompt has turned echo off.
        for line in [first, second] {
            std::thread::sleep(std::time::Duration::from_secs(2));
            stdin.write_all(format!("{line}\n").as_bytes()).ok();
        }
    });
    let out = finish_within(child, std::time::Duration::from_secs(60));
    String::from_utf8_lossy(&out.stdout).into_owned()
}

#[test]
fn a_password_on_a_terminal_is_asked_twice_without_echo() {
    let db = TestDb::new(Backend::Sqlite);
    let shown = on_a_terminal(&db, "ann", "secret-pass", "secret-pass");
    assert!(shown.contains("Password for ann:"), "{shown}");
    assert!(shown.contains("The same password again:"), "{shown}");
    assert!(!shown.contains("secret-pass"), "echoed: {shown}");
    assert!(shown.contains("user ann added as viewer"), "{shown}");
    let shown = on_a_terminal(&db, "bob", "secret-pass", "other-pass");
    assert!(shown.contains("the two passwords differ"), "{shown}");
    assert_eq!(db.ok(&["user", "list"]), "ann\tviewer\n");
}
