//! Command-line definitions only (clap derive). The doc comments are the `--help` text.
//! Nothing here is read past `config`, which turns these into validated settings.
//!
//! A setting is defined here once: its flag, its `RATEWATCH_*` variable (`env`), its key
//! in ratewatch.toml (the flag's id), its default and its help. Its kind (`value_parser`,
//! from `setting`) reads the flag, the variable and the file's value, and the value knows
//! which of them gave it. Most settings' help leaves the variable out (`hide_env`):
//! `Settings come from flags, then RATEWATCH_<SETTING> variables…` says it once.

use std::path::PathBuf;

use clap::builder::ValueParser;
use clap::{Arg, ArgAction, Args, Parser, Subcommand, ValueEnum, ValueHint};

use crate::deliver::webhook::Format;
use crate::locale::{Locale, Zone};
use crate::model::Color;
use crate::report::csv::Dialect;
use crate::settings::setting::{
    CALLS, CONCURRENCY, CONFIG_ENV, COUNT, COUNTRY, DAYS, DIALECT, ENDPOINT, Given, HOURS, LOCALE,
    MILLISECONDS, PAGE, PATH, RPS, SECONDS, SWITCH, TIME_ZONE, URL, WEBHOOK, WEBHOOK_FORMAT,
};
use crate::stages::rate::RatingEndpoint;

/// Screens a portfolio of counterparties for credit risk with a company-rating service.
#[derive(Debug, Parser)]
#[command(
    name = "ratewatch",
    version,
    propagate_version = true,
    mut_args = inline_spec,
    mut_subcommands = inline_specs
)]
pub struct Cli {
    #[command(subcommand)]
    pub command: Command,

    /// More log output on stderr (-v info, -vv debug). Never shows the API key.
    #[arg(short, long, action = ArgAction::Count, global = true, help_heading = GLOBAL)]
    pub verbose: u8,

    /// Log lines as text for people, or as JSON for log collectors (one object per line,
    /// the event's fields at the top level).
    #[arg(long, value_enum, value_name = "FORMAT", default_value_t = LogFormat::Text, global = true, help_heading = GLOBAL)]
    pub log_format: LogFormat,

    /// Read settings from this file instead of ./ratewatch.toml.
    #[arg(long, env = CONFIG_ENV, value_name = "PATH", global = true, help_heading = GLOBAL, default_value = "", value_parser = &PATH)]
    pub config: Given<PathBuf>,

    #[command(flatten)]
    pub reader: ReaderArgs,
}

/// The language and time zone of what a person reads, whichever command prints it.
#[derive(Debug, Clone, Args)]
pub struct ReaderArgs {
    /// The language of the summary, the email, the Slack and Teams messages and the
    /// command tables: en, fr or de; by default the one LC_ALL, LC_MESSAGES or LANG names
    /// (fr_FR.UTF-8: fr), else en. Files, --json and --csv for programs stay in English.
    #[arg(long, env = "RATEWATCH_LOCALE", value_name = "LANG", default_value = "", value_parser = &LOCALE, global = true, help_heading = GLOBAL, hide_possible_values = true)]
    pub locale: Given<Locale>,

    /// The time zone of the times the summary, the email, the chat messages and the command
    /// tables show, as the IANA database names it (Europe/Paris); by default the machine's
    /// (TZ, /etc/localtime), else UTC. Files, --json and --csv for programs keep UTC.
    #[arg(long, env = "RATEWATCH_TIME_ZONE", value_name = "ZONE", default_value = "", value_parser = &TIME_ZONE, global = true, help_heading = GLOBAL)]
    pub time_zone: Given<Zone>,
}

/// The heading of the options every command takes.
const GLOBAL: &str = "Global options";

/// A setting's variable and default close its help, on its line as they always have been
/// (clap's `--help` would give them lines of their own); a path completes as a path, as
/// clap's own parser of paths has it.
fn inline_spec(arg: Arg) -> Arg {
    let Some(var) = arg.get_env().map(|v| v.to_string_lossy().into_owned()) else {
        return arg;
    };
    let mut spec = String::new();
    if !arg.is_hide_env_set() {
        spec.push_str(&format!(" [env: {var}]"));
    }
    // A switch shows no default: it takes no value.
    let takes_values = arg.get_action().takes_values();
    if let [default] = arg.get_default_values()
        && !default.is_empty()
        && takes_values
    {
        spec.push_str(&format!(" [default: {}]", default.to_string_lossy()));
    }
    let help = |h: Option<&clap::builder::StyledStr>| h.map(|h| format!("{h}{spec}"));
    let (short, long) = (help(arg.get_help()), help(arg.get_long_help()));
    let arg = arg.hide_env(true).hide_default_value(takes_values);
    let arg = if arg.get_value_parser().type_id() == ValueParser::new(&PATH).type_id() {
        arg.value_hint(ValueHint::AnyPath)
    } else {
        arg
    };
    let arg = match short {
        Some(h) => arg.help(h),
        None => arg,
    };
    match long {
        Some(h) => arg.long_help(h),
        None => arg,
    }
}

fn inline_specs(command: clap::Command) -> clap::Command {
    command.mut_args(inline_spec).mut_subcommands(inline_specs)
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum LogFormat {
    Text,
    Json,
}

// Parsed once a process: the size of its largest command costs nothing.
#[allow(clippy::large_enum_variant)]
#[derive(Debug, Subcommand)]
pub enum Command {
    /// Screen a portfolio CSV: find each company, fetch its rating, keep the history in
    /// SQLite, and report red/black companies and every color change since the last run.
    #[command(after_help = "Examples:\n  \
        ratewatch screen samples/portfolio.csv --demo\n  \
        ratewatch screen customers.csv --base-url https://… --api-key-file ~/.ratewatch-key --quiet\n\n\
        Settings come from flags, then RATEWATCH_<SETTING> variables, then ratewatch.toml, then the defaults; `ratewatch config` shows them.\n\n\
        Exit codes: 0 no alert, 1 alerts, 2 usage or input error or database busy, 3 some rows failed (retried next run), were not screened or none could be rated, 4 nothing screened (key refused, service unreachable, database unusable).")]
    Screen(ScreenArgs),

    /// Find a company by registry identifier or by name and show its current rating.
    #[command(after_help = "Examples:\n  \
        ratewatch lookup --demo --country fr --service SIREN --id 552100554\n  \
        ratewatch lookup --demo --country de --name \"Müller Logistique\" --city Berlin --json")]
    Lookup(LookupArgs),

    /// List the service's country codes or identifier services.
    #[command(after_help = "Examples:\n  \
        ratewatch lookups countries --demo\n  \
        ratewatch lookups services --demo --json")]
    Lookups(LookupsArgs),

    /// List the recent runs, newest first: when, which portfolio, how it ended, its counts.
    #[command(after_help = "Examples:\n  \
        ratewatch runs\n  \
        ratewatch runs --limit 5 --json\n\n\
        Exit codes: 0 listed, 2 usage error or no database at --db, 4 database unusable.")]
    Runs(RunsArgs),

    /// Write a past run's report.csv, report.json and report.html again, byte for byte as
    /// the run wrote them (given the same --csv-dialect, --timestamped and --stale-after),
    /// and print its summary.
    #[command(after_help = "Examples:\n  \
        ratewatch report --run 12 --out reports/run-12\n  \
        ratewatch report --run 3 --db /var/lib/ratewatch/ratewatch.db\n\n\
        Exit codes: 0 written, 2 usage error, unknown run, a run whose rows are no longer kept\n\
        (keep_run_details_days) or no database at --db, 4 database unusable.")]
    Report(ReportArgs),

    /// Show a company's color timeline: each color it held, since when (as the service
    /// dates it), when ratewatch first and last saw it, and in which runs.
    ///
    /// COMPANY is the service's company id (UUID), your reference as in a portfolio's
    /// latest finished run (e.g. a customer number), or a part of the company's name (case
    /// and accents ignored).
    #[command(after_help = "Examples:\n  \
        ratewatch history C-1003\n  \
        ratewatch history \"zhao robotique\" --json\n  \
        ratewatch history fc1e733d-c34f-4564-940a-51e0f4d721c0 --csv\n\n\
        Exit codes: 0 shown, 1 no company matches, 2 usage error, several companies match (they are listed) or no database at --db, 4 database unusable.")]
    History(HistoryArgs),

    /// List the color changes ratewatch saw in a time window (default: the last 7 days),
    /// newest first, with the portfolio references that hold each company and the amount
    /// at stake when `[alerts]` names its column.
    #[command(after_help = "Examples:\n  \
        ratewatch changes\n  \
        ratewatch changes --since 2026-11-01 --until 2026-11-30 --csv > november.csv\n  \
        ratewatch changes --since 2026-11-20T02:00:00Z --json\n  \
        ratewatch changes --since 2026-11-01 --to red --min-amount 50000\n\n\
        Exit codes: 0 listed (none included), 2 usage error or no database at --db, 4 database unusable.")]
    Changes(ChangesArgs),

    /// What needs a person in the latest finished run of each portfolio (ambiguous rows
    /// with their candidates, unresolved and invalid rows), and the decisions that later
    /// runs apply. A run still going is not read: it may hold only part of the file.
    ///
    /// A decision is made on one row, named by its ref, for the search it makes (its name
    /// or identifier in the latest finished run): `accept` rates the row as that company without a
    /// search, `ignore` leaves it alone without a call, `reject` says none of its candidates
    /// is the company (no search, reported unresolved). An invalid row makes no search: it
    /// can only be ignored, for its fields as they are. A row whose name or identifier
    /// changes is screened as usual again. Without a subcommand: `review list`.
    #[command(after_help = "Examples:\n  \
        ratewatch review\n  \
        ratewatch review accept C-1006 2acb7423-8870-45f1-b840-7217b5aa617e\n  \
        ratewatch review accept C-1006 fc1e733d-c34f-4564-940a-51e0f4d721c0 --force --base-url URL\n  \
        ratewatch review ignore C-1042\n  \
        ratewatch review revoke C-1006\n  \
        ratewatch review export --out review.csv && ratewatch review import review.csv\n\n\
        Exit codes: 0 done, 2 usage error, unknown ref, a company the row was not offered (without\n\
        --force) or the service does not know, no database at --db, or the database kept locked by\n\
        another writer past 10 s (try again), 4 database unusable, or with --force the key refused or\n\
        the service unreachable.")]
    Review(ReviewArgs),

    /// Mark companies' alerts as seen: each stays in the reports, marked, and leaves the
    /// summary (and the exit code) until the company's color changes again, or until
    /// --until.
    ///
    /// Each COMPANY is the service's company id (UUID), your reference as in a portfolio's
    /// latest finished run, or a part of the company's name; it is acknowledged at its
    /// latest color. All are recorded in one write, or none (one that matches no company,
    /// or several). Each acknowledgement is kept with who made it (--by, else the
    /// operating-system user) and, once it ends, how.
    #[command(after_help = "Examples:\n  \
        ratewatch ack C-1004 --note \"insolvency known, credit stopped\"\n  \
        ratewatch ack C-1004 C-1010 C-1017 --note \"cash on delivery\" --by \"Marie Durand\"\n  \
        ratewatch ack fc1e733d-c34f-4564-940a-51e0f4d721c0 --until 2026-12-31\n\n\
        Exit codes: 0 recorded, 1 a company matches none (nothing recorded), 2 usage error, several companies match, no database at --db, or the database kept locked by another writer past 10 s (try again), 4 database unusable.")]
    Ack(AckArgs),

    /// Withdraw the acknowledgements in force of companies: their alerts are listed again.
    /// The acknowledgements are kept, ended, with who withdrew them and why.
    #[command(after_help = "Examples:\n  \
        ratewatch unack C-1004 --note \"guarantee expired\"\n\n\
        Exit codes: 0 withdrawn, 1 a company matches none (nothing changed) or had no acknowledgement in force, 2 usage error, several companies match, no database at --db, or the database kept locked past 10 s, 4 database unusable.")]
    Unack(UnackArgs),

    /// List the acknowledgements in force: the company, its color when acknowledged, when,
    /// by whom, until when, and the note.
    ///
    /// One is in force until its company's color changes, its --until passes on this
    /// machine's clock (as `screen` judges it at a run's start), or it is replaced or
    /// withdrawn. --all lists every acknowledgement ever made, those that ended with how
    /// and when.
    #[command(after_help = "Examples:\n  \
        ratewatch acks\n  \
        ratewatch acks --all --json\n\n\
        Exit codes: 0 listed (none included), 2 usage error or no database at --db, 4 database unusable.")]
    Acks(AcksArgs),

    /// List every acknowledgement and review decision, when it was made and when it ended,
    /// oldest first: who, what, on which company or row, the note, and how it ended. For an
    /// auditor or an insurer's claim; --csv and --json give UTC times, for programs.
    #[command(after_help = "Examples:\n  \
        ratewatch audit --since 2026-11-01\n  \
        ratewatch audit --since 2026-01-01 --until 2026-12-31 --csv --csv-dialect excel > audit-2026.csv\n  \
        ratewatch audit --json\n\n\
        Exit codes: 0 listed (none included), 2 usage error or no database at --db, 4 database unusable.")]
    Audit(AuditArgs),

    /// Try the alert rules of ratewatch.toml's [alerts] on a past run (default: the
    /// latest): what they would have listed, worst first, and what they would have counted.
    /// Nothing is changed.
    #[command(after_help = "Examples:\n  \
        ratewatch alerts test\n  \
        ratewatch alerts test --run 12 --config strict.toml\n\n\
        Exit codes: 0 nothing would be listed, 1 alerts would be listed, 2 usage error, unknown run or no database at --db, 4 database unusable.")]
    Alerts(AlertsArgs),

    /// Count the API calls the runs made, by endpoint, per day or per month (default: the
    /// current month, by day), from the runs' records: no call to the service.
    ///
    /// A run's calls are those of every process that worked on it (a resumed run's
    /// included), dated by the run's start in UTC. A run records them when it ends: one in
    /// progress, or killed, counts none yet.
    #[command(after_help = "Examples:\n  \
        ratewatch usage\n  \
        ratewatch usage --since 2026-01-01 --by month\n  \
        ratewatch usage --since 2026-11-01 --until 2026-11-30 --csv > november-calls.csv\n\n\
        Exit codes: 0 counted (no run included), 2 usage error or no database at --db, 4 database unusable.")]
    Usage(UsageArgs),

    /// Serve a local web application over the database: the inbox of alerts to acknowledge,
    /// the review queue to decide, each company's and portfolio's page, and a search.
    ///
    /// Prints its URL as the first line of stdout, then serves until Ctrl-C or SIGTERM.
    /// Nightly runs go on beside it: pages read the database without blocking them, and a
    /// decision or an acknowledgement made during a run waits its turn and is kept. The
    /// only changes it makes are decisions and acknowledgements (none with --read-only),
    /// each recorded with who made it: the person signed in with --users, else `web page`.
    /// It never needs or shows the API key.
    #[command(after_help = "Examples:\n  \
        ratewatch serve\n  \
        ratewatch serve --db /var/lib/ratewatch/ratewatch.db --bind 127.0.0.1:0 --read-only\n  \
        ratewatch serve --bind 0.0.0.0:8080 --token-file ~/.ratewatch-serve-token\n  \
        head -c 32 /dev/urandom | base64 | tee ~/marie.token | ratewatch serve --hash-token marie >> users.txt\n  \
        ratewatch serve --bind 0.0.0.0:8080 --users users.txt\n\n\
        Exit codes: 0 stopped by Ctrl-C or SIGTERM (or the line printed), 2 usage error, no database at\n\
        --db, a wrong line in --users's file, another address without --token-file or --users, or the\n\
        address in use.")]
    Serve(ServeArgs),

    /// Read the service's history of the ratings this key requested and record those made
    /// elsewhere (the service's portal, other tools) in the database, beside what the runs
    /// saw: a lost database is rebuilt, and an audit sees every lookup of the account.
    ///
    /// A request ratewatch already observed, or one an earlier sync read, is not stored
    /// again, so running it twice adds nothing the second time. Nothing is written unless
    /// every page is read. Holds the database's run lock, as `screen` does.
    #[command(after_help = "Examples:\n  \
        ratewatch sync-history --base-url https://… --api-key-file ~/.ratewatch-key\n  \
        ratewatch sync-history --db rebuilt.db --base-url https://…\n\n\
        Exit codes: 0 synced, 2 usage error or database in use by a run, 4 nothing recorded (key refused, not the service, bad pagination, service unreachable or throttled, database unusable).")]
    SyncHistory(SyncHistoryArgs),

    /// Write a portfolio CSV made from the simulator's dataset (for trying and benchmarking
    /// `screen`): 70% identifier rows, 30% name rows, 10% duplicates.
    #[command(after_help = "Example:\n  \
        ratewatch demo-portfolio --rows 100000 > big.csv")]
    DemoPortfolio(DemoPortfolioArgs),

    /// Serve the embedded simulator of the rating service over HTTP on 127.0.0.1.
    ///
    /// Prints its base URL as the first line of stdout, then serves until killed.
    #[command(after_help = "Example:\n  \
        ratewatch demo-server --port 0 --latency-ms 50 --rate-limit 200")]
    DemoServer(DemoServerArgs),

    /// Show the settings `screen` would use and where each comes from: a flag, a
    /// RATEWATCH_* variable, the config file or the default. The API key is shown as set
    /// or unset, never its value.
    #[command(after_help = "Examples:\n  \
        ratewatch config\n  \
        ratewatch --config /etc/ratewatch.toml config --concurrency 32 --json\n  \
        ratewatch config --get out")]
    Config(ConfigArgs),

    /// Print a shell completion script to stdout.
    #[command(after_help = "Examples:\n  \
        ratewatch completions bash > ~/.local/share/bash-completion/completions/ratewatch\n  \
        ratewatch completions zsh > ~/.zfunc/_ratewatch\n  \
        ratewatch completions fish > ~/.config/fish/completions/ratewatch.fish")]
    Completions(CompletionsArgs),

    /// Print the manual page (roff) of ratewatch or of one command, or write every page
    /// into a folder.
    #[command(after_help = "Examples:\n  \
        ratewatch man | man -l -\n  \
        ratewatch man screen | man -l -\n  \
        ratewatch man --out /usr/local/share/man/man1")]
    Man(ManArgs),
}

/// Where the service is and how to authenticate.
#[derive(Debug, Clone, Args)]
#[command(next_help_heading = "Service")]
pub struct ServiceArgs {
    /// Use the embedded simulator instead of a real environment (no key, no network).
    // Not a clap conflict, which would count RATEWATCH_BASE_URL as given: settings refuse
    // `--demo` beside the flags only.
    #[arg(long)]
    pub demo: bool,

    /// The environment's root URL; `/v2/` is added unless present.
    #[arg(long, env = "RATEWATCH_BASE_URL", value_name = "URL", default_value = "", value_parser = &URL)]
    pub base_url: Given<String>,

    /// Read the API key from this file (otherwise from RATEWATCH_API_KEY).
    #[arg(long, env = "RATEWATCH_API_KEY_FILE", hide_env = true, value_name = "PATH", default_value = "", value_parser = &PATH)]
    pub api_key_file: Given<PathBuf>,

    /// Seconds before a request is abandoned (and retried, for `screen`).
    #[arg(long, env = "RATEWATCH_TIMEOUT", hide_env = true, value_name = "SECS", default_value = "30", value_parser = &SECONDS)]
    pub timeout: Given<f64>,

    /// Seconds to wait for a connection to the service.
    #[arg(long, env = "RATEWATCH_CONNECT_TIMEOUT", hide_env = true, value_name = "SECS", default_value = "10", value_parser = &SECONDS)]
    pub connect_timeout: Given<f64>,
}

/// How the report files are written (shared by `screen` and `report`).
#[derive(Debug, Clone, Args)]
pub struct ReportFormatArgs {
    /// Name the reports after the run's start time in UTC (report-20261121T020000Z.csv, …)
    /// so that each run keeps its own.
    #[arg(long, env = "RATEWATCH_TIMESTAMPED", hide_env = true, action = ArgAction::SetTrue, value_parser = &SWITCH)]
    pub timestamped: Given<bool>,

    #[command(flatten)]
    pub dialect: CsvFileDialectArgs,

    /// Where `ratewatch serve` is reached (https://credit.example.com/ratewatch/): every
    /// message and report.html then links to its inbox and to each alert's company page.
    #[arg(long, env = "RATEWATCH_PAGE_URL", hide_env = true, value_name = "URL", default_value = "", value_parser = &PAGE)]
    pub page_url: Given<String>,
}

/// The `csv_dialect` setting: how a CSV file that ratewatch writes is spelled (report.csv,
/// and `review export`'s file, which a spreadsheet opens too).
#[derive(Debug, Clone, Args)]
pub struct CsvFileDialectArgs {
    /// The CSV for programs (standard: comma, LF) or for Excel in a European locale (excel:
    /// semicolon, CRLF, UTF-8 BOM, identifiers kept as text).
    #[arg(long, env = "RATEWATCH_CSV_DIALECT", hide_env = true, value_name = "DIALECT", default_value = "standard", value_parser = &DIALECT)]
    pub csv_dialect: Given<Dialect>,
}

/// `screen`'s `--quiet`, apart so that `config` can read it without the flag.
#[derive(Debug, Clone, Args)]
pub struct QuietArgs {
    /// Print alerts only (nothing when nothing is flagged); a run with failed rows, or
    /// where nothing could be screened, still prints one line saying so.
    #[arg(short, long, env = "RATEWATCH_QUIET", hide_env = true, action = ArgAction::SetTrue, value_parser = &SWITCH)]
    pub quiet: Given<bool>,
}

#[derive(Debug, Args)]
pub struct ScreenArgs {
    /// The portfolio CSV: a `country` column plus `service` and `id`, or `name` (with
    /// optional `streetnumber`, `streetname`, `city`, `postcode`, `phonenumber`), optional
    /// `ref` and `company_id`. Comma, semicolon or tab separated; UTF-8.
    pub portfolio: PathBuf,

    #[command(flatten)]
    pub reports: ReportFormatArgs,

    /// Search every row again instead of using cached resolutions.
    #[arg(long)]
    pub refresh_resolutions: bool,

    /// Name of the portfolio in the database and reports (default: the file's stem; a
    /// dated export, `cust-2026-11-27.csv`, holding mostly the refs of a portfolio named as
    /// it is but for the date, is screened as that portfolio, with a NOTE).
    #[arg(long, value_name = "NAME")]
    pub portfolio_name: Option<String>,

    #[command(flatten)]
    pub quiet: QuietArgs,

    /// Refuse to screen a portfolio that lost more than half its rows since the last run
    /// of the same portfolio (a truncated export), instead of only saying so first.
    #[arg(long)]
    pub fail_on_shrink: bool,

    /// Count what the run would cost without making it: read and check every row, answer
    /// what the cache knows, and print the calls the run would make, by endpoint. Nothing
    /// is called and nothing is written.
    #[arg(long)]
    pub dry_run: bool,

    #[command(flatten)]
    pub settings: RunArgs,
}

/// The settings of a screening run that `ratewatch.toml` and `RATEWATCH_*` variables can
/// also give (shared by `screen` and `config`). A setting with no default has an empty one:
/// unset.
#[derive(Debug, Clone, Args)]
#[command(next_help_heading = "Settings")]
pub struct RunArgs {
    /// The SQLite database with history and caches.
    #[arg(long, env = "RATEWATCH_DB", value_name = "PATH", default_value = "ratewatch.db", value_parser = &PATH)]
    pub db: Given<PathBuf>,

    /// Folder for report.csv, report.json and report.html.
    #[arg(long, env = "RATEWATCH_OUT", hide_env = true, value_name = "DIR", default_value = ".", value_parser = &PATH)]
    pub out: Given<PathBuf>,

    /// Days reports are kept: with --timestamped, a run removes the files of --out named
    /// report-YYYYMMDDTHHMMSSZ.csv, .json or .html whose run started longer ago (no other
    /// file); samples/nightly.sh removes its day folders that old. 0 keeps them all.
    #[arg(long, env = "RATEWATCH_KEEP_REPORTS_DAYS", hide_env = true, value_name = "DAYS", default_value = "90", value_parser = &DAYS)]
    pub keep_reports_days: Given<u32>,

    /// Days each run's rows are kept in the database: once a run's reports are delivered,
    /// the rows of runs that started longer before it are deleted (their summaries, the
    /// color history, acknowledgements and decisions stay; the latest finished run of
    /// each portfolio always keeps its rows). 0 keeps them all.
    #[arg(long, env = "RATEWATCH_KEEP_RUN_DETAILS_DAYS", hide_env = true, value_name = "DAYS", default_value = "90", value_parser = &DAYS)]
    pub keep_run_details_days: Given<u32>,

    /// Requests in flight at most (resolution and rating together).
    #[arg(long, env = "RATEWATCH_CONCURRENCY", hide_env = true, value_name = "N", default_value = "8", value_parser = &CONCURRENCY)]
    pub concurrency: Given<u16>,

    /// Rating endpoint: the current one, or the deprecated one for accounts that need it.
    #[arg(long, env = "RATEWATCH_ENDPOINT", hide_env = true, value_name = "ENDPOINT", default_value = "current", value_parser = &ENDPOINT)]
    pub endpoint: Given<RatingEndpoint>,

    /// Cached resolutions older than this many days are searched again.
    #[arg(long, env = "RATEWATCH_RESOLUTION_MAX_AGE", hide_env = true, value_name = "DAYS", default_value = "30", value_parser = &DAYS)]
    pub resolution_max_age: Given<u32>,

    /// Use a company's rating as last seen, without a call, when a run that started less than
    /// this many hours ago saw it (several portfolios screened the same night share their
    /// companies' ratings); `[refresh]` in the config file sets an age per color, and red is
    /// asked again within a day whatever is set; 0 always fetches.
    #[arg(long, env = "RATEWATCH_RATING_MAX_AGE", hide_env = true, value_name = "HOURS", default_value = "0", value_parser = &HOURS)]
    pub rating_max_age: Given<u32>,

    /// Mark a rating stale in the reports when the service has not recalculated it (its
    /// lastRefreshDate) for more than this many days before the run started.
    #[arg(long, env = "RATEWATCH_STALE_AFTER", hide_env = true, value_name = "DAYS", default_value = "30", value_parser = &DAYS)]
    pub stale_after: Given<u32>,

    /// Retries of a request that failed in a passing way (network, timeout, 5xx, 408).
    #[arg(long, env = "RATEWATCH_RETRIES", hide_env = true, value_name = "N", default_value = "3", value_parser = &COUNT)]
    pub retries: Given<u32>,

    /// First retry delay in milliseconds; it doubles each retry (with jitter), up to 10 s.
    #[arg(long, env = "RATEWATCH_RETRY_DELAY_MS", hide_env = true, value_name = "MS", default_value = "500", value_parser = &MILLISECONDS)]
    pub retry_delay_ms: Given<u64>,

    /// Never send more than this many requests per second (a known quota is never hit).
    #[arg(long, env = "RATEWATCH_MAX_RPS", hide_env = true, value_name = "RPS", default_value = "", value_parser = &RPS)]
    pub max_rps: Given<f64>,

    /// Make at most this many API calls in this run; rows beyond it fail with "call budget
    /// reached" and are screened on the next run.
    #[arg(long, env = "RATEWATCH_MAX_CALLS", hide_env = true, value_name = "N", default_value = "", value_parser = &CALLS)]
    pub max_calls: Given<u64>,

    /// Read a field of the portfolio from a column of your own: FIELD=HEADER, e.g.
    /// `--column country=Pays --column "ref=Référence client"` (repeatable; `[columns]` in
    /// ratewatch.toml does the same). Fields: country, service, id, name, streetnumber,
    /// streetname, city, postcode, phonenumber, ref, company_id.
    #[arg(long, value_name = "FIELD=HEADER", value_parser = crate::stages::columns::parse_mapping)]
    pub column: Vec<(String, String)>,

    /// The country of a row whose country is empty (many ERPs leave it out for their own
    /// country's customers), e.g. `--default-country FR`: a code the service knows. The
    /// summary counts the rows that took it and the reports mark them (`country_defaulted`);
    /// unset, such a row is invalid (`country: missing`).
    #[arg(long, env = "RATEWATCH_DEFAULT_COUNTRY", hide_env = true, value_name = "CC", default_value = "", value_parser = &COUNTRY)]
    pub default_country: Given<String>,

    /// Make at most this many API calls in a calendar month (UTC), all runs on the database
    /// together, as they recorded them: a run may make what the month has left (and no more
    /// than --max-calls); once it is spent, a run makes no call and its rows wait.
    #[arg(long, env = "RATEWATCH_MAX_CALLS_PER_MONTH", hide_env = true, value_name = "N", default_value = "", value_parser = &CALLS)]
    pub max_calls_per_month: Given<u64>,

    /// Longest the run waits for the service's rate limit, in one pause or in all; a
    /// longer Retry-After (a spent quota) stops the run, and the next run resumes it.
    #[arg(long, env = "RATEWATCH_MAX_WAIT", hide_env = true, value_name = "SECONDS", default_value = "600", value_parser = &SECONDS)]
    pub max_wait: Given<f64>,

    /// Longest the service may stay silent — calls timing out or failing to connect, with
    /// no answer in between — before calls stop: the rows left are `not screened: service
    /// not answering`, and the next run resumes them.
    #[arg(long, env = "RATEWATCH_MAX_SILENCE", hide_env = true, value_name = "SECONDS", default_value = "60", value_parser = &SECONDS)]
    pub max_silence: Given<f64>,

    /// Longest the run makes calls; past it, calls stop, the rows left are `not screened`
    /// and the next run resumes them, so the next night always finds the database free.
    #[arg(long, env = "RATEWATCH_MAX_RUN_TIME", hide_env = true, value_name = "SECONDS", default_value = "7200", value_parser = &SECONDS)]
    pub max_run_time: Given<f64>,

    /// After the run (its reports written), POST its heading and the alerts its summary
    /// lists to this http or https URL, as --webhook-format says; tried 3 times at most, and
    /// never a reason for the run to fail: a delivery that fails is a warning on stderr. Only
    /// the URL's scheme, host and port are ever shown.
    #[arg(long, env = "RATEWATCH_NOTIFY_WEBHOOK", value_name = "URL", default_value = "", value_parser = &WEBHOOK)]
    pub notify_webhook: Given<String>,

    /// What --notify-webhook posts: a JSON document for programs (json), a Slack message
    /// (slack) or an Adaptive Card for a Teams workflow (teams).
    #[arg(long, env = "RATEWATCH_WEBHOOK_FORMAT", hide_env = true, value_name = "FORMAT", default_value = "json", value_parser = &WEBHOOK_FORMAT)]
    pub webhook_format: Given<Format>,

    /// Sign every body --notify-webhook posts with the secret in this file (HMAC-SHA256 in
    /// the X-Ratewatch-Signature header), so that the receiver can tell ratewatch from
    /// anyone else. The secret is never shown.
    #[arg(long, env = "RATEWATCH_WEBHOOK_SECRET_FILE", hide_env = true, value_name = "PATH", default_value = "", value_parser = &PATH)]
    pub webhook_secret_file: Given<PathBuf>,

    /// After the run, write its figures (rows by status and color, alerts, calls, duration,
    /// success, the last complete run's time) to this file in Prometheus' text format, for
    /// node_exporter's textfile collector; also when the run fails.
    #[arg(long, env = "RATEWATCH_METRICS_FILE", hide_env = true, value_name = "PATH", default_value = "", value_parser = &PATH)]
    pub metrics_file: Given<PathBuf>,

    #[command(flatten)]
    pub service_args: ServiceArgs,
}

/// One of the service's five colors, named in English, French or German, any case
/// (`red`, `rouge`, `Rot`; see `locale::color_named`); `--help` lists the English names,
/// and a word that names none is clap's to word, with them.
#[derive(Debug, Clone, Copy)]
pub struct ColorWord;

impl ColorWord {
    const NAMES: [&str; 5] = ["green", "yellow", "red", "black", "white"];
}

impl clap::builder::TypedValueParser for ColorWord {
    type Value = Color;

    fn parse_ref(
        &self,
        cmd: &clap::Command,
        arg: Option<&Arg>,
        value: &std::ffi::OsStr,
    ) -> Result<Color, clap::Error> {
        match value.to_str().and_then(crate::locale::color_named) {
            Some(color) => Ok(color),
            None => clap::builder::PossibleValuesParser::new(Self::NAMES)
                .parse_ref(cmd, arg, value)
                .map(|name| Color::parse(&name)),
        }
    }

    fn possible_values(
        &self,
    ) -> Option<Box<dyn Iterator<Item = clap::builder::PossibleValue> + '_>> {
        Some(Box::new(
            Self::NAMES
                .into_iter()
                .map(clap::builder::PossibleValue::new),
        ))
    }
}

#[derive(Debug, Args)]
#[command(group(clap::ArgGroup::new("by").required(true).args(["id", "name"])))]
pub struct LookupArgs {
    /// ISO 3166-1 alpha-2 country code (any case).
    #[arg(long, value_name = "CC")]
    pub country: String,

    /// Identifier service (SIREN, CRO, KVK, …; see `ratewatch lookups services`).
    #[arg(long, requires = "id", value_name = "CODE")]
    pub service: Option<String>,

    /// Identifier value.
    #[arg(long, requires = "service", conflicts_with = "name", value_name = "ID")]
    pub id: Option<String>,

    /// Company name (special characters allowed).
    #[arg(long)]
    pub name: Option<String>,

    /// Narrow a name search to this street number.
    #[arg(long, requires = "name", value_name = "NUMBER")]
    pub street_number: Option<String>,

    /// Narrow a name search to this street name.
    #[arg(long, requires = "name", value_name = "STREET")]
    pub street_name: Option<String>,

    /// Narrow a name search to this city.
    #[arg(long, requires = "name")]
    pub city: Option<String>,

    /// Narrow a name search to this postcode.
    #[arg(long, requires = "name")]
    pub postcode: Option<String>,

    /// Narrow a name search to this phone number.
    #[arg(long, requires = "name", value_name = "PHONE")]
    pub phone: Option<String>,

    /// Print JSON for scripts instead of a table.
    #[arg(long)]
    pub json: bool,

    #[command(flatten)]
    pub service_args: ServiceArgs,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum LookupList {
    /// Country codes (spec 4.7).
    Countries,
    /// Identifier services per country (spec 4.8).
    Services,
}

#[derive(Debug, Args)]
pub struct LookupsArgs {
    /// Which list to show.
    pub list: LookupList,

    /// Print JSON for scripts instead of a table.
    #[arg(long)]
    pub json: bool,

    #[command(flatten)]
    pub service_args: ServiceArgs,
}

#[derive(Debug, Args)]
pub struct DemoPortfolioArgs {
    /// Rows to write.
    #[arg(long, value_name = "N", default_value_t = 1_000)]
    pub rows: u64,

    /// Seed of the simulated dataset (as `demo-server --seed`).
    #[arg(long, default_value_t = crate::sim::DEFAULT_SEED)]
    pub seed: u64,

    /// Companies per country of the dataset (as `demo-server --companies-per-country`).
    #[arg(long, value_name = "N", default_value_t = crate::sim::DEFAULT_PER_COUNTRY)]
    pub companies_per_country: u32,
}

#[derive(Debug, Args)]
pub struct DemoServerArgs {
    /// Port on 127.0.0.1; 0 picks a free one.
    #[arg(long, default_value_t = 0)]
    pub port: u16,

    /// Simulated day whose colors are served; its ratings are dated today, those of the
    /// days before it on the days before.
    #[arg(long, default_value_t = 1, allow_negative_numbers = true)]
    pub day: i64,

    /// Delay added to every answer, in milliseconds.
    #[arg(long, value_name = "MS", default_value_t = 0)]
    pub latency_ms: u64,

    /// Requests per second allowed; beyond it, 429 with Retry-After.
    #[arg(long, value_name = "RPS")]
    pub rate_limit: Option<f64>,

    /// Share of requests (0–1) answered 502/503 with an HTML page.
    #[arg(long, value_name = "P", default_value_t = 0.0)]
    pub fail_rate: f64,

    /// Share of requests (0–1) whose connection is dropped without an answer.
    #[arg(long, value_name = "P", default_value_t = 0.0)]
    pub drop_rate: f64,

    /// Share of requests (0–1) answered only after --slow-ms.
    #[arg(long, value_name = "P", default_value_t = 0.0)]
    pub slow_rate: f64,

    /// Share of good answers (0–1) spoiled: cut short, an HTML page, or JSON of the wrong
    /// shape.
    #[arg(long, value_name = "P", default_value_t = 0.0)]
    pub corrupt_rate: f64,

    /// Delay of a slow answer, in milliseconds.
    #[arg(long, value_name = "MS", default_value_t = 5_000)]
    pub slow_ms: u64,

    /// The API key the simulator accepts.
    #[arg(long, default_value = crate::sim::DEFAULT_KEY)]
    pub key: String,

    /// Seed of the simulated dataset.
    #[arg(long, default_value_t = crate::sim::DEFAULT_SEED)]
    pub seed: u64,

    /// Companies in each of the ten rated countries (at most 1,000,000).
    #[arg(long, value_name = "N", default_value_t = crate::sim::DEFAULT_PER_COUNTRY)]
    pub companies_per_country: u32,
}

#[derive(Debug, Args)]
pub struct ConfigArgs {
    /// Print JSON for scripts instead of a table.
    #[arg(long)]
    pub json: bool,

    /// Print one setting's value alone (an empty line when it is unset), e.g. `--get out`.
    #[arg(long, value_name = "KEY", conflicts_with = "json")]
    pub get: Option<String>,

    #[command(flatten)]
    pub settings: RunArgs,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum Shell {
    Bash,
    Zsh,
    Fish,
}

#[derive(Debug, Args)]
pub struct CompletionsArgs {
    /// The shell to complete for.
    pub shell: Shell,
}

#[derive(Debug, Args)]
pub struct ManArgs {
    /// The command whose page to print (default: ratewatch's own page).
    #[arg(value_name = "COMMAND", conflicts_with = "out")]
    pub command: Option<String>,

    /// Write every page (ratewatch.1, ratewatch-screen.1, …) into this folder instead.
    #[arg(long, value_name = "DIR")]
    pub out: Option<PathBuf>,
}

/// The database a reading command reads.
#[derive(Debug, Clone, Args)]
pub struct DatabaseArgs {
    /// The SQLite database that `ratewatch screen` writes. Opened read-only: never created
    /// or changed, and a run in progress is not disturbed.
    #[arg(long, env = "RATEWATCH_DB", value_name = "PATH", default_value = "ratewatch.db", value_parser = &PATH)]
    pub db: Given<PathBuf>,
}

/// How a reading command prints: a table for people, or JSON or CSV for scripts.
#[derive(Debug, Clone, Args)]
pub struct ListingArgs {
    /// Print JSON for scripts instead of a table.
    #[arg(long, conflicts_with = "csv")]
    pub json: bool,

    /// Print CSV for scripts and spreadsheets instead of a table.
    #[arg(long)]
    pub csv: bool,
}

/// The dialect of a listing's CSV (shared by `runs`, `history` and `changes`).
#[derive(Debug, Clone, Args)]
pub struct CsvDialectArgs {
    /// With --csv: for programs (standard: comma, LF) or for Excel in a European locale
    /// (excel: semicolon, CRLF, UTF-8 BOM, references kept as text), as report.csv.
    #[arg(long, value_enum, value_name = "DIALECT", default_value_t = Dialect::Standard, requires = "csv", hide_possible_values = true)]
    pub csv_dialect: Dialect,
}

#[derive(Debug, Args)]
pub struct RunsArgs {
    /// How many runs to list, newest first.
    #[arg(long, value_name = "N", default_value_t = 20, value_parser = clap::value_parser!(u64).range(1..))]
    pub limit: u64,

    #[command(flatten)]
    pub database: DatabaseArgs,

    #[command(flatten)]
    pub listing: ListingArgs,

    #[command(flatten)]
    pub dialect: CsvDialectArgs,
}

#[derive(Debug, Args)]
pub struct ReportArgs {
    /// The run whose reports to write (`ratewatch runs` lists them).
    #[arg(long, value_name = "N")]
    pub run: i64,

    /// Folder for report.csv, report.json and report.html.
    #[arg(long, env = "RATEWATCH_OUT", value_name = "DIR", default_value = ".", value_parser = &PATH)]
    pub out: Given<PathBuf>,

    #[command(flatten)]
    pub reports: ReportFormatArgs,

    /// Mark a rating stale when the service had not recalculated it for more than this many
    /// days before the run started; give the run's own value to write its reports again
    /// byte for byte.
    #[arg(long, env = "RATEWATCH_STALE_AFTER", value_name = "DAYS", default_value = "30", value_parser = &DAYS)]
    pub stale_after: Given<u32>,

    #[command(flatten)]
    pub database: DatabaseArgs,
}

#[derive(Debug, Args)]
pub struct HistoryArgs {
    /// Company id (UUID), your reference, or part of the company's name.
    #[arg(value_name = "COMPANY")]
    pub company: String,

    #[command(flatten)]
    pub database: DatabaseArgs,

    #[command(flatten)]
    pub listing: ListingArgs,

    #[command(flatten)]
    pub dialect: CsvDialectArgs,
}

#[derive(Debug, Args)]
pub struct ChangesArgs {
    /// Changes seen from this date (UTC, start of the day) or time (2026-11-20T02:00:00Z);
    /// default: 7 days ago.
    #[arg(long, value_name = "DATE")]
    pub since: Option<String>,

    /// Changes seen up to this date (included, to the end of the day) or time; default:
    /// now.
    #[arg(long, value_name = "DATE")]
    pub until: Option<String>,

    /// Only changes to these colors, comma separated (--to red,black); French and German
    /// names too (rouge,noir; rot,schwarz).
    #[arg(long, value_name = "COLORS", value_parser = ColorWord, value_delimiter = ',')]
    pub to: Vec<Color>,

    /// Only companies whose amount at stake is at least N: the amount column of `[alerts]`
    /// (`amount`, else `min_exposure`'s) summed over the company's rows, read as
    /// spreadsheets write it (50000, "50 000,00").
    #[arg(long, value_name = "N", value_parser = parse_min_amount)]
    pub min_amount: Option<f64>,

    #[command(flatten)]
    pub database: DatabaseArgs,

    #[command(flatten)]
    pub listing: ListingArgs,

    #[command(flatten)]
    pub dialect: CsvDialectArgs,
}

/// `--min-amount`: an amount as `min_exposure` reads one.
fn parse_min_amount(text: &str) -> Result<f64, String> {
    crate::alerts::parse_amount(text)
        .ok_or_else(|| format!("{text:?} is not an amount (50000, \"50 000,00\")"))
}

/// How `usage` groups the runs' calls.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum UsagePeriod {
    /// One line per day (UTC) on which runs started.
    Day,
    /// One line per month (UTC) in which runs started.
    Month,
}

#[derive(Debug, Args)]
pub struct UsageArgs {
    /// Runs started from this date (UTC, start of the day) or time (2026-11-01T02:00:00Z);
    /// default: the start of the current month (UTC).
    #[arg(long, value_name = "DATE")]
    pub since: Option<String>,

    /// Runs started up to this date (included, to the end of the day) or time; default:
    /// now.
    #[arg(long, value_name = "DATE")]
    pub until: Option<String>,

    /// One line per day or per month.
    #[arg(long, value_enum, value_name = "PERIOD", default_value_t = UsagePeriod::Day)]
    pub by: UsagePeriod,

    #[command(flatten)]
    pub database: DatabaseArgs,

    #[command(flatten)]
    pub listing: ListingArgs,
}

#[derive(Debug, Args)]
#[command(args_conflicts_with_subcommands = true)]
pub struct ReviewArgs {
    #[command(subcommand)]
    pub action: Option<ReviewAction>,

    /// Without a subcommand: `review list`'s options.
    #[command(flatten)]
    pub list: ReviewListArgs,
}

#[allow(clippy::large_enum_variant)]
#[derive(Debug, Subcommand)]
pub enum ReviewAction {
    /// List the rows that need a person in the latest finished run of each portfolio, then
    /// the decisions made (when, and where from). CSV lists the rows only.
    List(ReviewListArgs),

    /// Take COMPANY_ID, one of the row's candidates, as the company of the row REF: later
    /// runs rate it without a search. Another company needs --force, and the service's word
    /// that it exists.
    Accept(ReviewAcceptArgs),

    /// Leave the row REF alone: later runs make no call for it and report it ignored (an
    /// invalid row, as long as its fields stay as they are).
    Ignore(ReviewRefArgs),

    /// Say that none of the candidates offered for the row REF is its company: later runs
    /// make no search for it and report it unresolved, until it gets an identifier.
    Reject(ReviewRefArgs),

    /// Revoke the decisions on the row REF: later runs screen it as before. They are kept,
    /// ended, with who revoked them and why.
    Revoke(ReviewRefArgs),

    /// Write the ambiguous, unresolved and invalid rows as CSV for a spreadsheet: one line
    /// per candidate, with an empty `decision` column to fill in for `review import`
    /// (`--csv-dialect excel` for an Excel whose list separator is `;`).
    Export(ReviewExportArgs),

    /// Record the decisions of a CSV that `review export` wrote, in either dialect or as a
    /// spreadsheet saved it: `accept` on a candidate's line, `ignore` on any line of a row,
    /// `reject` (not this candidate: a row whose every candidate is rejected is decided as
    /// `review reject`) or empty. Nothing is recorded if any line is wrong.
    Import(ReviewImportArgs),
}

/// Who a decision is recorded as.
#[derive(Debug, Clone, Args)]
pub struct ByArgs {
    /// Who decides, as recorded and shown to an audit (default: the operating-system user
    /// running the command).
    #[arg(long, value_name = "NAME")]
    pub by: Option<String>,
}

#[derive(Debug, Args)]
pub struct AckArgs {
    /// The companies: each its id (UUID), your reference, or a part of its name.
    #[arg(value_name = "COMPANY", required = true)]
    pub companies: Vec<String>,

    /// Why, for whoever reads `ratewatch acks` or an audit later.
    #[arg(long, value_name = "TEXT")]
    pub note: Option<String>,

    /// The acknowledgement ends at the start of this day (YYYY-MM-DD) or at this time
    /// (RFC 3339, UTC), even if the company does not change.
    #[arg(long, value_name = "DATE")]
    pub until: Option<String>,

    #[command(flatten)]
    pub by: ByArgs,

    #[command(flatten)]
    pub database: DecisionDatabaseArgs,
}

#[derive(Debug, Args)]
pub struct UnackArgs {
    /// The companies: each its id (UUID), your reference, or a part of its name.
    #[arg(value_name = "COMPANY", required = true)]
    pub companies: Vec<String>,

    /// Why it is withdrawn, kept with it.
    #[arg(long, value_name = "TEXT")]
    pub note: Option<String>,

    #[command(flatten)]
    pub by: ByArgs,

    #[command(flatten)]
    pub database: DecisionDatabaseArgs,
}

#[derive(Debug, Args)]
pub struct AcksArgs {
    /// List every acknowledgement, those that ended too, with how and when (STATUS and
    /// ENDED in the table; `expired`, `ended_at`, `ended_how` in --json and --csv).
    #[arg(long)]
    pub all: bool,

    #[command(flatten)]
    pub database: DatabaseArgs,

    #[command(flatten)]
    pub listing: ListingArgs,
}

#[derive(Debug, Args)]
pub struct AuditArgs {
    /// Events from this date (UTC, start of the day) or time (2026-11-20T02:00:00Z);
    /// default: since the first.
    #[arg(long, value_name = "DATE")]
    pub since: Option<String>,

    /// Events up to this date (included, to the end of the day) or time; default: now.
    #[arg(long, value_name = "DATE")]
    pub until: Option<String>,

    #[command(flatten)]
    pub database: DatabaseArgs,

    #[command(flatten)]
    pub listing: ListingArgs,

    #[command(flatten)]
    pub dialect: CsvDialectArgs,
}

#[derive(Debug, Args)]
pub struct AlertsArgs {
    #[command(subcommand)]
    pub action: AlertsAction,
}

#[derive(Debug, Subcommand)]
pub enum AlertsAction {
    /// What the rules of [alerts] would have listed on a past run, worst first.
    Test(AlertsTestArgs),
}

#[derive(Debug, Args)]
pub struct AlertsTestArgs {
    /// The run (default: the latest).
    #[arg(long, value_name = "N")]
    pub run: Option<i64>,

    #[command(flatten)]
    pub database: DatabaseArgs,
}

#[derive(Debug, Args)]
pub struct ReviewExportArgs {
    /// Write the CSV to this file instead of stdout.
    #[arg(long, value_name = "FILE")]
    pub out: Option<PathBuf>,

    #[command(flatten)]
    pub dialect: CsvFileDialectArgs,

    #[command(flatten)]
    pub database: DatabaseArgs,
}

#[derive(Debug, Args)]
pub struct ReviewImportArgs {
    /// The CSV with a filled `decision` column.
    #[arg(value_name = "FILE")]
    pub file: PathBuf,

    #[command(flatten)]
    pub by: ByArgs,

    #[command(flatten)]
    pub database: DecisionDatabaseArgs,
}

#[derive(Debug, Args)]
pub struct ReviewListArgs {
    #[command(flatten)]
    pub database: DatabaseArgs,

    #[command(flatten)]
    pub listing: ListingArgs,
}

#[derive(Debug, Args)]
pub struct SyncHistoryArgs {
    /// The SQLite database to record the requests in; created if there is none.
    #[arg(long, env = "RATEWATCH_DB", value_name = "PATH", default_value = "ratewatch.db", value_parser = &PATH)]
    pub db: Given<PathBuf>,

    #[command(flatten)]
    pub service_args: ServiceArgs,
}

#[derive(Debug, Args)]
pub struct ServeArgs {
    /// The address to listen on; port 0 picks a free one. Any address but a loopback one
    /// needs --token-file or --users.
    #[arg(long, value_name = "ADDR:PORT", default_value = "127.0.0.1:8080")]
    pub bind: std::net::SocketAddr,

    /// A file naming the people who may use the page, one per line: `NAME:SHA256`, the
    /// SHA-256 (64 hex digits) of that person's own token, as --hash-token prints it. Each
    /// signs in with their token, and each acknowledgement and decision records their name.
    #[arg(long, value_name = "PATH", conflicts_with = "token_file")]
    pub users: Option<PathBuf>,

    /// Print the line of --users's file for the person NAME, the token read from stdin (32
    /// characters at least, e.g. `head -c 32 /dev/urandom | base64`), then exit. The token
    /// itself is never printed.
    #[arg(long, value_name = "NAME")]
    pub hash_token: Option<String>,

    /// A file holding the one token every request must carry (the login form asks for it
    /// once and sets a cookie; scripts send `Authorization: Bearer TOKEN`): 32 characters at
    /// least, e.g. `head -c 32 /dev/urandom | base64 > FILE`. What is done with it is
    /// recorded as made by `web page`; --users names each person instead.
    #[arg(long, value_name = "PATH")]
    pub token_file: Option<PathBuf>,

    /// Change nothing: no acknowledgement, no decision (every POST is refused, no form is
    /// shown).
    #[arg(long)]
    pub read_only: bool,

    #[command(flatten)]
    pub database: DecisionDatabaseArgs,
}

/// The database a decision is recorded in.
#[derive(Debug, Clone, Args)]
pub struct DecisionDatabaseArgs {
    /// The SQLite database that `ratewatch screen` writes; the decision is recorded in it
    /// (never created here).
    #[arg(long, env = "RATEWATCH_DB", value_name = "PATH", default_value = "ratewatch.db", value_parser = &PATH)]
    pub db: Given<PathBuf>,
}

#[derive(Debug, Args)]
pub struct ReviewAcceptArgs {
    /// The row's reference (its `ref` column).
    #[arg(value_name = "REF")]
    pub reference: String,

    /// The service's company id (UUID): one of the candidates `review list` shows for the
    /// row (or the company it was rated as).
    #[arg(value_name = "COMPANY_ID")]
    pub company_id: uuid::Uuid,

    /// Accept a company that is not among the row's candidates (one found with
    /// `ratewatch lookup`, say), once the service confirms that it knows it: its rating is
    /// asked for, so this needs --base-url and a key (or --demo).
    #[arg(long)]
    pub force: bool,

    /// Why, kept with the decision.
    #[arg(long, value_name = "TEXT")]
    pub note: Option<String>,

    #[command(flatten)]
    pub by: ByArgs,

    #[command(flatten)]
    pub database: DecisionDatabaseArgs,

    // The service that confirms a company accepted with --force.
    #[command(flatten)]
    pub service_args: ServiceArgs,
}

#[derive(Debug, Args)]
pub struct ReviewRefArgs {
    /// The row's reference (its `ref` column).
    #[arg(value_name = "REF")]
    pub reference: String,

    /// Why, kept with the decision (for revoke: why it is revoked).
    #[arg(long, value_name = "TEXT")]
    pub note: Option<String>,

    #[command(flatten)]
    pub by: ByArgs,

    #[command(flatten)]
    pub database: DecisionDatabaseArgs,
}
