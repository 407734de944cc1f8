//! Which portfolio a file is screened as. Its name is `--portfolio-name`, else the file's
//! stem; but an ERP that dates its exports (`cust-2026-11-27.csv`) would make each night
//! a portfolio of its own, whose news is judged against nothing. A dated file whose name
//! no run has used yet, and whose refs are mostly those of the latest finished run of a
//! portfolio named as it is but for the date, is screened under that portfolio's name,
//! and a NOTE says so.

use crate::store::{Store, StoreError};

/// Refs of the file compared with a portfolio's: enough to tell the same customers from
/// others, few enough to compare at once.
pub const REFS_COMPARED: usize = 2_000;

/// The share of the compared refs a portfolio must hold to be the file's: most of them,
/// as a night's export of the same customers holds (a few come and go).
const SAME_CUSTOMERS_PERCENT: u64 = 80;

/// The name a file is screened under, and the NOTE that says it is not the file's own.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Named {
    pub name: String,
    pub note: Option<String>,
}

/// The portfolio a file named `stem` is screened as, `refs` being the first of its refs
/// (at most [`REFS_COMPARED`]). A name given by `--portfolio-name` is taken as it is.
pub fn portfolio_name(
    given: Option<&str>,
    stem: &str,
    refs: &[String],
    store: &mut Store,
) -> Result<Named, StoreError> {
    let own = |name: &str| Named {
        name: name.to_string(),
        note: None,
    };
    if let Some(name) = given {
        return Ok(own(name));
    }
    let Some(pattern) = undated(stem) else {
        return Ok(own(stem));
    };
    if refs.is_empty() || store.has_runs(stem)? {
        return Ok(own(stem));
    }
    // The newest finished portfolio of the same name but for its date.
    let Some((name, run_id)) = store
        .finished_portfolios()?
        .into_iter()
        .filter(|(name, _)| undated(name).as_deref() == Some(pattern.as_str()))
        .max_by_key(|(_, run_id)| *run_id)
    else {
        return Ok(own(stem));
    };
    let held = store.refs_held(run_id, refs)?;
    let asked = refs.len() as u64;
    if held * 100 < asked * SAME_CUSTOMERS_PERCENT {
        return Ok(own(stem));
    }
    Ok(Named {
        note: Some(format!(
            "NOTE: {stem} screened as portfolio {name}: its name but for the date, and {}% of its refs are that portfolio's; --portfolio-name names it otherwise",
            held * 100 / asked
        )),
        name,
    })
}

/// The name with its date replaced by `{date}` (`cust-{date}`), or `None` when it holds
/// no date. A date is eight digits in one run, or in three groups joined by `-`, `_` or
/// `.`, one of them a year from 1990 to 2099: `2026-11-27`, `20261127`, `27.11.2026`.
pub fn undated(name: &str) -> Option<String> {
    let chars: Vec<char> = name.chars().collect();
    let mut out = String::new();
    let mut found = false;
    let mut i = 0;
    while i < chars.len() {
        if !chars[i].is_ascii_digit() {
            out.push(chars[i]);
            i += 1;
            continue;
        }
        // The longest run of digits and separators from here, ending on a digit.
        let mut end = i;
        let mut j = i;
        while j < chars.len() && (chars[j].is_ascii_digit() || matches!(chars[j], '-' | '_' | '.'))
        {
            if chars[j].is_ascii_digit() {
                end = j + 1;
            }
            j += 1;
        }
        let run: String = chars[i..end].iter().collect();
        if is_date(&run) {
            out.push_str("{date}");
            found = true;
        } else {
            out.push_str(&run);
        }
        i = end;
    }
    found.then_some(out)
}

fn is_date(run: &str) -> bool {
    let year = |g: &str| g.len() == 4 && g.parse::<u32>().is_ok_and(|y| (1990..=2099).contains(&y));
    let groups: Vec<&str> = run.split(['-', '_', '.']).collect();
    match groups[..] {
        [eight] if eight.len() == 8 => year(&eight[..4]) || year(&eight[4..]),
        [a, b, c] => {
            let short = |g: &str| (1..=2).contains(&g.len());
            (year(a) && short(b) && short(c)) || (short(a) && short(b) && year(c))
        }
        _ => false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_date_in_a_name_is_found_in_the_ways_exports_write_it() {
        for name in [
            "cust-2026-11-27",
            "cust-20261127",
            "cust-27.11.2026",
            "cust-2026_11_27",
            "cust-27-11-2026",
        ] {
            assert_eq!(undated(name).as_deref(), Some("cust-{date}"), "{name}");
        }
        assert_eq!(
            undated("export_2026-11-27_v2").as_deref(),
            Some("export_{date}_v2")
        );
        for name in [
            "customers",
            "cust-12345678",
            "q3-2026",
            "cust-2026-11",
            "book_2",
        ] {
            assert_eq!(undated(name), None, "{name}");
        }
    }
}
