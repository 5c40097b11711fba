//! `detect user`: the accounts of the tool itself (who may sign in to
//! `detect serve`, and with which role).

use crate::cli::{UserAddArgs, UserCommand};
use anyhow::{bail, Context, Result};
use app::pipeline;
use std::io::BufRead;

/// The shortest password accepted.
pub const MIN_PASSWORD: usize = 8;

pub async fn run(db: &app::pipeline::Db, cmd: UserCommand) -> Result<()> {
    let store = pipeline::open_store(db).await?;
    match cmd {
        UserCommand::Add(args) => add(&store, args).await?,
        UserCommand::List => {
            for u in store.users().await? {
                println!("{}\t{}", u.name, u.role);
            }
        }
        UserCommand::Remove { name } => {
            if !store.remove_user(&name).await? {
                bail!("there is no user named {name:?}");
            }
            eprintln!("user {name} removed");
        }
    }
    store.close().await;
    Ok(())
}

/// The first line of standard input, without its line end.
fn password_from_stdin() -> Result<String> {
    let mut line = String::new();
    std::io::stdin()
        .lock()
        .read_line(&mut line)
        .context("cannot read the password from standard input")?;
    let password = line.trim_end_matches(['\r', '\n']).to_owned();
    if password.chars().count() < MIN_PASSWORD {
        bail!(
            "the password (first line of standard input) needs at least {MIN_PASSWORD} characters"
        );
    }
    Ok(password)
}

async fn add(store: &store::Store, args: UserAddArgs) -> Result<()> {
    let name = args.name.trim();
    if name.is_empty() {
        bail!("a user needs a name");
    }
    let password = password_from_stdin()?;
    let hash = web::hash_password(&password).map_err(anyhow::Error::msg)?;
    let now = chrono::Utc::now().timestamp();
    if store.add_user(name, args.role, &hash, now).await? {
        eprintln!("user {name} added as {}", args.role);
    } else if args.update {
        store.set_user_role(name, args.role).await?;
        store.set_user_password(name, &hash).await?;
        eprintln!("user {name} is now {} with a new password", args.role);
    } else {
        bail!("a user named {name:?} exists; --update sets their role and password");
    }
    Ok(())
}
