//! `ratewatch history` and `ratewatch changes`: how companies' colors moved, from the
//! database alone (no call to the service). Neither writes the database.

use std::collections::HashMap;

use jiff::{SignedDuration, Timestamp};
use serde_json::{Value, json};

use super::output::{self, Style};
use super::{emit, open_read_only};
use crate::alerts::Rules;
use crate::error::{Error, ExitCode};
use crate::locale::{Arg, Currency, Reader};
use crate::model::{Change, Color};
use crate::report::csv::Dialect;
use crate::settings::cli::{ChangesArgs, HistoryArgs};
use crate::settings::config::Sources;
use crate::store::{ColorChange, ColorPeriod, CompanySummary, Disappearance, Holding, time_text};
use crate::when::{Bound, parse_time};

/// The window `changes` looks back over when no `--since` is given.
const DEFAULT_WINDOW: SignedDuration = SignedDuration::from_hours(7 * 24);

pub fn history(args: HistoryArgs, sources: Sources) -> Result<ExitCode, Error> {
    let db = &args.database.db.resolve(&sources)?.value;
    let db_error = |source| Error::Store {
        path: db.clone(),
        source,
    };
    let wanted = args.company.trim();
    if wanted.is_empty() {
        return Err(Error::Config(
            "COMPANY is empty: give a company id, your reference or part of the name".into(),
        ));
    }
    let reader = sources.reader()?;
    let store = open_read_only(db)?;
    let style = Style::of(&args.listing);
    let dialect = args.dialect.csv_dialect;
    let found = store.find_companies(wanted).map_err(db_error)?;
    let company = match found.as_slice() {
        [one] => one,
        _ => {
            let ids: Vec<&str> = found.iter().map(|c| c.company_id.as_str()).collect();
            let held = store.holdings(&ids).map_err(db_error)?;
            emit(&matches_text(
                &reader, &found, &held, wanted, style, dialect,
            )?)?;
            if found.is_empty() {
                return Ok(ExitCode::Attention);
            }
            return Err(Error::Config(format!(
                "{} companies match {wanted:?}: give the company id of the one you mean, or more of its name",
                found.len()
            )));
        }
    };
    let periods = store.color_periods(&company.company_id).map_err(db_error)?;
    let gone = store.disappearance(&company.company_id).map_err(db_error)?;
    let held = store
        .holdings(&[company.company_id.as_str()])
        .map_err(db_error)?
        .remove(&company.company_id)
        .unwrap_or_default();
    let text = match style {
        Style::Table => timeline_table(&reader, company, &held, &periods, gone.as_ref()),
        Style::Csv => output::csv_in(
            dialect,
            &[
                "company_id",
                "name",
                "city",
                "country",
                "color",
                "valid_from",
                "valid_to",
                "observed_at",
                "confirmed_at",
                "first_run_id",
                "last_run_id",
            ],
            &periods
                .iter()
                .map(|p| {
                    let mut row = company_cells(company);
                    row.extend([
                        p.color.to_string(),
                        p.valid_from.clone(),
                        output::or_empty(&p.valid_to),
                        p.observed_at.clone(),
                        p.confirmed_at.clone(),
                        run_text(p.first_run_id),
                        run_text(p.last_run_id),
                    ]);
                    row
                })
                .collect::<Vec<_>>(),
        )?,
        Style::Json => {
            let mut c = company_json(company);
            c["held_by"] = held_json(&held);
            output::json(&json!({
                "company": c,
                "gone": gone.as_ref().map(|g| json!({
                    "run_id": g.run_id,
                    "noticed_at": g.noticed_at,
                    "last_seen": g.last_seen,
                })),
                "periods": periods.iter().map(|p| json!({
                    "color": p.color,
                    "valid_from": p.valid_from,
                    "valid_to": p.valid_to,
                    "observed_at": p.observed_at,
                    "confirmed_at": p.confirmed_at,
                    "first_run_id": p.first_run_id,
                    "last_run_id": p.last_run_id,
                })).collect::<Vec<_>>(),
            }))?
        }
    };
    emit(&text)?;
    Ok(ExitCode::Clean)
}

/// None or several companies found: the list to choose from, with the references that
/// hold each.
fn matches_text(
    reader: &Reader,
    found: &[CompanySummary],
    held: &HashMap<String, Vec<Holding>>,
    wanted: &str,
    style: Style,
    dialect: Dialect,
) -> Result<String, Error> {
    let no_holding = Vec::new();
    let held_by = |c: &CompanySummary| held.get(&c.company_id).unwrap_or(&no_holding);
    let with_portfolio = portfolios(held.values().flatten()) > 1;
    let rows = |separator: &str| -> Vec<Vec<String>> {
        found
            .iter()
            .map(|c| {
                let mut row = vec![refs_text(held_by(c), with_portfolio, separator)];
                row.extend(company_cells(c));
                row
            })
            .collect()
    };
    let l = reader.locale;
    let wanted_arg = || Arg::from(format!("{wanted:?}"));
    Ok(match style {
        Style::Table if found.is_empty() => {
            format!("{}\n", l.text("matches-none", &[("wanted", wanted_arg())]))
        }
        Style::Table => {
            let count = Arg::from(found.len() as u64);
            let headers = l.headers(&["REF", "ID", "NAME", "CITY", "COUNTRY"]);
            let headers: Vec<&str> = headers.iter().map(String::as_str).collect();
            format!(
                "{}\n\n{}",
                l.text(
                    "matches-some",
                    &[("count", count), ("wanted", wanted_arg())]
                ),
                output::table(&headers, &rows(", "))
            )
        }
        Style::Csv => output::csv_in(
            dialect,
            &["refs", "company_id", "name", "city", "country"],
            &rows("; "),
        )?,
        Style::Json => output::json(&json!({
            "matches": found.iter().map(|c| {
                let mut v = company_json(c);
                v["held_by"] = held_json(held_by(c));
                v
            }).collect::<Vec<_>>()
        }))?,
    })
}

/// A company's colors over time as the reader reads them: the labels, colors and headers
/// in their words, the times in their zone.
fn timeline_table(
    reader: &Reader,
    company: &CompanySummary,
    held: &[Holding],
    periods: &[ColorPeriod],
    gone: Option<&Disappearance>,
) -> String {
    let l = reader.locale;
    let unknown = l.word("history-name-unknown");
    let name = company.name.as_deref().unwrap_or(&unknown);
    let place = [&company.city, &company.country]
        .into_iter()
        .flatten()
        .map(String::as_str)
        .collect::<Vec<_>>()
        .join(", ");
    let mut out = if place.is_empty() {
        format!("{}\n", crate::text::printable(name))
    } else {
        crate::text::printable(&format!("{name} ({place})")) + "\n"
    };
    // The labels aligned on the longer one, a space beyond it.
    let (id_label, held_label) = (l.word("history-company-id"), l.word("history-held-by"));
    let width = id_label.chars().count().max(held_label.chars().count()) + 1;
    out.push_str(&format!("{id_label:<width$} {}\n", company.company_id));
    let holders = refs_text(held, portfolios(held.iter()) > 1, ", ");
    out.push_str(&format!(
        "{held_label:<width$} {}\n\n",
        if holders.is_empty() {
            l.word("history-held-by-none")
        } else {
            crate::text::printable(&holders)
        }
    ));
    if periods.is_empty() {
        out.push_str(&format!("{}\n", l.word("history-no-rating")));
        return out;
    }
    let rows: Vec<Vec<String>> = periods
        .iter()
        .map(|p| {
            vec![
                l.color(&p.color),
                reader.stamp_text(&p.valid_from),
                p.valid_to
                    .as_deref()
                    .map_or_else(|| "-".into(), |t| reader.stamp_text(t)),
                reader.stamp_text(&p.observed_at),
                reader.stamp_text(&p.confirmed_at),
                match (p.first_run_id, p.last_run_id) {
                    (Some(a), Some(b)) if a != b => format!("{a}–{b}"),
                    (a, b) => run_text(a.or(b)),
                },
            ]
        })
        .collect();
    let headers = l.headers(&[
        "COLOR",
        "SINCE",
        "UNTIL",
        "FIRST_SEEN",
        "LAST_CONFIRMED",
        "RUNS",
    ]);
    let headers: Vec<&str> = headers.iter().map(String::as_str).collect();
    out.push_str(&output::table(&headers, &rows));
    if let Some(g) = gone {
        let gone = l.text(
            "history-gone",
            &[
                ("run", Arg::from(g.run_id.to_string())),
                ("noticed", Arg::from(reader.stamp_text(&g.noticed_at))),
                ("seen", Arg::from(reader.stamp_text(&g.last_seen))),
            ],
        );
        out.push_str(&format!("\n{gone}\n"));
    }
    out
}

pub fn changes(args: ChangesArgs, sources: Sources) -> Result<ExitCode, Error> {
    let db = &args.database.db.resolve(&sources)?.value;
    let db_error = |source| Error::Store {
        path: db.clone(),
        source,
    };
    let (since, until) = window(
        args.since.as_deref(),
        args.until.as_deref(),
        Timestamp::now() - DEFAULT_WINDOW,
    )?;
    let to: Vec<Color> = args.to.clone();
    let reader = sources.reader()?;
    let dialect = args.dialect.csv_dialect;
    let rules = sources.alert_rules();
    let amount_column = rules.amount_column().map(str::to_string);
    if args.min_amount.is_some() && amount_column.is_none() {
        return Err(Error::Config(
            "--min-amount reads the amount column, and none is named: set `amount = \"HEADER\"` in [alerts] of ratewatch.toml (the portfolio's column of the amount at stake)".into(),
        ));
    }
    let store = open_read_only(db)?;
    let mut changes = store
        .color_changes(&since, until.as_deref(), &to)
        .map_err(db_error)?;
    let ids: Vec<&str> = changes
        .iter()
        .map(|c| c.company.company_id.as_str())
        .collect();
    let held = store.holdings(&ids).map_err(db_error)?;
    let no_holding = Vec::new();
    let held_by = |c: &ColorChange| held.get(&c.company.company_id).unwrap_or(&no_holding);
    let amount_of = |c: &ColorChange| amount_held(&rules, held_by(c));
    // Below the threshold, or no amount to read: left out, and the latter said.
    let mut unreadable = 0;
    if let Some(min) = args.min_amount {
        changes.retain(|c| match amount_of(c) {
            Some(amount) => amount >= min,
            None => {
                unreadable += 1;
                false
            }
        });
    }
    let with_portfolio = portfolios(held.values().flatten()) > 1;

    let text = match Style::of(&args.listing) {
        Style::Table => {
            let l = reader.locale;
            let s = |text: String| Arg::from(text);
            let mut window = match &until {
                Some(until) => l.text(
                    "window-between",
                    &[
                        ("since", s(reader.stamp_text(&since))),
                        ("until", s(reader.stamp_text(until))),
                    ],
                ),
                None => l.text("window-since", &[("since", s(reader.stamp_text(&since)))]),
            };
            if !to.is_empty() {
                let names: Vec<String> = to.iter().map(|c| l.color(c)).collect();
                let colors = names.join(&format!(" {} ", l.word("or")));
                window = l.text("window-to", &[("colors", s(colors)), ("window", s(window))]);
            }
            let column = amount_column.as_deref().unwrap_or_default().trim();
            let currency = Currency::of_header(column);
            let amount = |a: f64| l.amount(a, currency);
            if let Some(min) = args.min_amount {
                window = l.text(
                    "window-amount",
                    &[
                        ("window", s(window)),
                        ("amount", s(amount(min))),
                        ("column", s(format!("{column:?}"))),
                    ],
                );
            }
            let unread = match unreadable {
                0 => String::new(),
                n => {
                    let line = l.text(
                        "amount-unreadable",
                        &[
                            ("count", Arg::from(n)),
                            ("column", s(format!("{column:?}"))),
                        ],
                    );
                    format!("\n{line}\n")
                }
            };
            if changes.is_empty() {
                let none = l.text("changes-none", &[("window", s(window))]);
                format!("{none}\n{unread}")
            } else {
                let rows: Vec<Vec<String>> = changes
                    .iter()
                    .map(|c| {
                        let mut row = vec![
                            refs_text(held_by(c), with_portfolio, ", "),
                            c.company
                                .name
                                .clone()
                                .unwrap_or_else(|| c.company.company_id.clone()),
                            output::or_empty(&c.company.country),
                            format!("{} → {}", l.color(&c.from), l.color(&c.to)),
                            reader.stamp_text(&c.changed_at),
                            reader.stamp_text(&c.observed_at),
                            run_text(c.run_id),
                        ];
                        if amount_column.is_some() {
                            row.insert(1, amount_of(c).map(amount).unwrap_or_default());
                        }
                        row
                    })
                    .collect();
                let mut headers = l.headers(&[
                    "REF", "COMPANY", "COUNTRY", "CHANGE", "CHANGED", "SEEN", "RUN",
                ]);
                // The amount beside the refs, headed by its column as the file names it.
                if amount_column.is_some() {
                    headers.insert(1, column.to_string());
                }
                let headers: Vec<&str> = headers.iter().map(String::as_str).collect();
                let count = Arg::from(changes.len() as u64);
                let seen = l.text("changes-seen", &[("count", count), ("window", s(window))]);
                format!("{seen}\n\n{}{unread}", output::table(&headers, &rows))
            }
        }
        Style::Csv => output::csv_in(
            dialect,
            &[
                "refs",
                "company_id",
                "name",
                "city",
                "country",
                "from_color",
                "to_color",
                "change",
                "changed_at",
                "observed_at",
                "run_id",
                "amount",
            ],
            &changes
                .iter()
                .map(|c| {
                    let mut row = vec![refs_text(held_by(c), with_portfolio, "; ")];
                    row.extend(company_cells(&c.company));
                    row.extend([
                        c.from.to_string(),
                        c.to.to_string(),
                        change_kind(c).as_str().to_string(),
                        c.changed_at.clone(),
                        c.observed_at.clone(),
                        run_text(c.run_id),
                        amount_of(c).map(|a| a.to_string()).unwrap_or_default(),
                    ]);
                    row
                })
                .collect::<Vec<_>>(),
        )?,
        Style::Json => output::json(&json!({
            "since": since,
            "until": until,
            "to": to,
            "amount_column": amount_column,
            "min_amount": args.min_amount,
            "changes": changes.iter().map(|c| {
                let mut v = company_json(&c.company);
                v["from_color"] = json!(c.from);
                v["to_color"] = json!(c.to);
                v["change"] = json!(change_kind(c));
                v["changed_at"] = json!(c.changed_at);
                v["observed_at"] = json!(c.observed_at);
                v["run_id"] = json!(c.run_id);
                v["held_by"] = held_json(held_by(c));
                v["amount"] = json!(amount_of(c));
                v
            }).collect::<Vec<_>>(),
        }))?,
    };
    emit(&text)?;
    Ok(ExitCode::Clean)
}

/// Deteriorated, improved, or changed (to or from white or an unknown color).
fn change_kind(c: &ColorChange) -> Change {
    Change::classify(Some((&c.from, None::<()>)), &c.to, None)
}

/// The window `[since, until)` of `--since` and `--until` as stored times (`until`: none
/// for now), `since` being `default_since` when not given. An empty window is refused.
pub(super) fn window(
    since: Option<&str>,
    until: Option<&str>,
    default_since: Timestamp,
) -> Result<(String, Option<String>), Error> {
    let since = match since {
        Some(text) => parse_time("--since", text, Bound::From)?,
        None => default_since,
    };
    let until = until
        .map(|text| parse_time("--until", text, Bound::To))
        .transpose()?;
    let (since, until) = (time_text(since), until.map(time_text));
    if let Some(until) = &until
        && *until <= since
    {
        return Err(Error::Config(format!(
            "--until ends the window at {until}, which is not after --since {since}"
        )));
    }
    Ok((since, until))
}

fn company_cells(c: &CompanySummary) -> Vec<String> {
    vec![
        c.company_id.clone(),
        output::or_empty(&c.name),
        output::or_empty(&c.city),
        output::or_empty(&c.country),
    ]
}

fn company_json(c: &CompanySummary) -> Value {
    json!({"company_id": c.company_id, "name": c.name, "city": c.city, "country": c.country})
}

fn held_json(held: &[Holding]) -> Value {
    json!(
        held.iter()
            .map(|h| json!({"portfolio": h.portfolio, "ref": h.reference, "line": h.line}))
            .collect::<Vec<_>>()
    )
}

/// The amount at stake of the rows holding a company, as the alerts read it: the amount
/// column summed over its rows; `None` when no row holds a readable amount.
fn amount_held(rules: &Rules, held: &[Holding]) -> Option<f64> {
    held.iter()
        .filter_map(|h| rules.amount_of(&h.extra, h.extra_unreliable))
        .reduce(|a, b| a + b)
}

/// How many portfolios these rows come from.
fn portfolios<'a>(held: impl Iterator<Item = &'a Holding>) -> usize {
    let mut names: Vec<&str> = held.map(|h| h.portfolio.as_str()).collect();
    names.sort_unstable();
    names.dedup();
    names.len()
}

/// The references holding a company, each once: `C-1001, C-1002`, or
/// `customers:C-1001, suppliers:S-77` when the database holds several portfolios. A row
/// without a reference is named by its line.
fn refs_text(held: &[Holding], with_portfolio: bool, separator: &str) -> String {
    let mut seen: HashMap<String, ()> = HashMap::new();
    let mut refs = Vec::new();
    for h in held {
        let reference = h
            .reference
            .clone()
            .unwrap_or_else(|| format!("line {}", h.line));
        let text = if with_portfolio {
            format!("{}:{reference}", h.portfolio)
        } else {
            reference
        };
        if seen.insert(text.clone(), ()).is_none() {
            refs.push(text);
        }
    }
    refs.join(separator)
}

fn run_text(run: Option<i64>) -> String {
    run.map(|r| r.to_string()).unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn dates_bound_whole_days_and_times_whole_seconds() {
        for (flag, bound, given, stored) in [
            ("--since", Bound::From, "2026-11-01", "2026-11-01T00:00:00Z"),
            ("--until", Bound::To, "2026-11-30", "2026-12-01T00:00:00Z"),
            (
                "--since",
                Bound::From,
                "2026-11-20T03:00:00+01:00",
                "2026-11-20T02:00:00Z",
            ),
            (
                "--until",
                Bound::To,
                "2026-11-20T02:00:00.5Z",
                "2026-11-20T02:00:01Z",
            ),
            // No offset: UTC.
            (
                "--since",
                Bound::From,
                "2026-11-20T02:00:00",
                "2026-11-20T02:00:00Z",
            ),
        ] {
            let at = parse_time(flag, given, bound).unwrap();
            assert_eq!(time_text(at), stored, "{flag} {given}");
        }
    }

    #[test]
    fn a_bad_time_names_the_flag_and_the_forms_it_takes() {
        let err = parse_time("--since", "last week", Bound::From).unwrap_err();
        let text = err.to_string();
        assert!(text.starts_with("--since \"last week\""), "{text}");
        assert!(text.contains("2026-11-01T02:00:00Z"), "{text}");
        assert!(parse_time("--until", "2026-02-30", Bound::To).is_err());
    }

    #[test]
    fn references_are_listed_once_with_their_portfolio_when_there_are_several() {
        let h = |p: &str, r: Option<&str>, line| Holding {
            portfolio: p.into(),
            reference: r.map(String::from),
            line,
            extra: vec![],
            extra_unreliable: false,
        };
        let held = [
            h("customers", Some("C-1"), 2),
            h("customers", Some("C-1"), 9),
            h("customers", None, 4),
            h("suppliers", Some("S-7"), 3),
        ];
        assert_eq!(refs_text(&held[..3], false, ", "), "C-1, line 4");
        assert_eq!(portfolios(held.iter()), 2);
        assert_eq!(
            refs_text(&held, true, "; "),
            "customers:C-1; customers:line 4; suppliers:S-7"
        );
    }
}
