//! `sqlx::migrate!` embeds the migrations at build time: a changed or new
//! migration file must rebuild the crate (sqlx's advice for stable Rust).

fn main() {
    println!("cargo:rerun-if-changed=migrations");
}
