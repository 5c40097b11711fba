//! `detect user`: the accounts of the tool itself (who may sign in to
//! `detect serve`, and with which role).

use crate::cli::{UserAddArgs, UserCommand};
use anyhow::{bail, Context, Result};
use app::pipeline;
use std::io::{BufRead, IsTerminal};

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

/// The new user's password: on a terminal, asked for without echo and
/// asked again to confirm; else the first line of standard input, without
/// its line end.
fn read_password(name: &str) -> Result<String> {
    if std::io::stdin().is_terminal() {
        let password = rpassword::prompt_password(format!("Password for {name}: "))
            .context("cannot read the password from the terminal")?;
        check_length(&password, "the password")?;
        let again = rpassword::prompt_password("The same password again: ")
            .context("cannot read the password from the terminal")?;
        if again != password {
            bail!("the two passwords differ: nothing changed");
        }
        return Ok(password);
    }
    let mut line = String::new();
    std::io::stdin()
        .lock()
        .read_line(&mut line)
        .context("cannot read the password from standard input")?;
    let password = line.trim_end_matches(['\r', '\n']).to_owned();
    check_length(&password, "the password (first line of standard input)")?;
    Ok(password)
}

fn check_length(password: &str, what: &str) -> Result<()> {
    if password.chars().count() < MIN_PASSWORD {
        bail!("{what} needs at least {MIN_PASSWORD} characters");
    }
    Ok(())
}

async fn add(store: &store::Store, args: UserAddArgs) -> Result<()> {
    let name = args.name.trim();
    if name.is_empty() {
        bail!("a user needs a name");
    }
    let password = read_password(name)?;
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
