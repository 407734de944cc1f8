//! `ratewatch serve`: the web application's settings from flags and ratewatch.toml (a token
//! file too short, or a wrong line of the users file, refused before anything else), its
//! address printed first, and a clean stop on Ctrl-C or SIGTERM; `--hash-token` prints a
//! line of the users file instead. The server is [`crate::serve`].

use tokio::net::TcpListener;

use super::emit;
use crate::connection::read_secret_file;
use crate::error::{Error, ExitCode};
use crate::serve::{Limits, Options, check_token, parse_users, serve as run_server, users_line};
use crate::settings::cli::ServeArgs;
use crate::settings::config::Sources;
use crate::store::Store;

pub async fn serve(args: ServeArgs, sources: Sources) -> Result<ExitCode, Error> {
    if let Some(name) = &args.hash_token {
        return hash_token(name);
    }
    let db = args.database.db.resolve(&sources)?.value;
    if !args.bind.ip().is_loopback() && args.token_file.is_none() && args.users.is_none() {
        return Err(Error::Config(format!(
            "--bind {}: any address but a loopback one needs --token-file or --users, so that only who has a token can see the portfolio and change its decisions",
            args.bind
        )));
    }
    let token = args
        .token_file
        .as_deref()
        .map(|path| {
            let token = read_secret_file(path, "token file")?;
            check_token(&token, &format!("the token file {}", path.display()))?;
            Ok::<_, Error>(token)
        })
        .transpose()?;
    let users = match &args.users {
        None => Vec::new(),
        Some(path) => {
            let text = read_secret_file(path, "users file")?;
            parse_users(&text, &path.display().to_string())?
        }
    };
    // The database is checked before the address is printed: a wrong --db is said at once,
    // not on the first page. A server that may write brings it up to date as `ack` would.
    let checked = if args.read_only {
        Store::open_read_only(&db)
    } else if db.is_file() {
        Store::open(&db)
    } else {
        Err(crate::store::StoreError::Missing)
    };
    drop(checked.map_err(|source| Error::Store {
        path: db.clone(),
        source,
    })?);
    let listener = TcpListener::bind(args.bind)
        .await
        .map_err(|e| Error::Config(format!("cannot listen on {}: {e}", args.bind)))?;
    let address = listener
        .local_addr()
        .map_err(|e| Error::io("cannot read the address listened on", e))?;
    // The first line of stdout is the contract scripts rely on: the URL, flushed.
    emit(&format!("http://{address}/\n"))?;
    let who = match users.len() {
        0 => String::new(),
        1 => ", 1 user".to_string(),
        n => format!(", {n} users"),
    };
    eprintln!(
        "ratewatch serve: {} on {}{}{who}; Ctrl-C stops",
        db.display(),
        address,
        if args.read_only { ", read-only" } else { "" }
    );
    let options = Options {
        db,
        rules: sources.alert_rules(),
        read_only: args.read_only,
        token,
        users,
        limits: Limits::default(),
        reader: sources.reader()?,
    };
    run_server(listener, options, stopped()).await?;
    Ok(ExitCode::Clean)
}

/// `--hash-token NAME`: the line of the users file for NAME, the token read from stdin (its
/// first line). The token is never printed.
fn hash_token(name: &str) -> Result<ExitCode, Error> {
    let mut token = String::new();
    std::io::stdin()
        .read_line(&mut token)
        .map_err(|e| Error::io("cannot read the token from stdin", e))?;
    emit(&format!("{}\n", users_line(name, &token)?))?;
    Ok(ExitCode::Clean)
}

/// Ctrl-C or SIGTERM: requests under way finish, then the server ends.
async fn stopped() {
    #[cfg(unix)]
    {
        use tokio::signal::unix::{SignalKind, signal};
        if let Ok(mut term) = signal(SignalKind::terminate()) {
            tokio::select! {
                _ = term.recv() => {},
                _ = tokio::signal::ctrl_c() => {},
            }
            return;
        }
    }
    let _ = tokio::signal::ctrl_c().await;
}
