//! What review decided, as a run applies it: decisions by the row's reference and the
//! search they were made for, and the errors a decided row is reported with (`review`
//! reads them back).

use std::collections::HashMap;

use crate::model::{Decision, InputRow, Verdict};
use crate::resolve::Query;

/// The decisions of `ratewatch review` by the row's reference, loaded once at the start of
/// a run (they are few). A decision applies only to the search it was made for: a row whose
/// name or identifier changed asks another question.
#[derive(Debug, Clone, Default)]
pub struct Decisions(HashMap<String, Vec<Decision>>);

impl Decisions {
    pub fn new(decisions: impl IntoIterator<Item = Decision>) -> Self {
        let mut by_ref: HashMap<String, Vec<Decision>> = HashMap::new();
        for d in decisions {
            by_ref.entry(d.reference.clone()).or_default().push(d);
        }
        Decisions(by_ref)
    }

    /// The decision on a row with this reference making this search.
    pub fn find(&self, reference: Option<&str>, query: &Query) -> Option<&Decision> {
        if self.0.is_empty() {
            return None;
        }
        let made = self.0.get(reference?)?;
        let key = query.cache_key();
        made.iter().find(|d| d.search_key == key)
    }

    /// The decision to leave an invalid row alone, made for its reference and its fields
    /// as they are now ([`invalid_key`]): a row changed in the export (fixed, or wrong in
    /// another way) is not the row that was decided on. Only `ignore` is said of an
    /// invalid row: it has no search to accept or reject a company for.
    pub fn ignored_invalid(&self, row: &InputRow) -> Option<&Decision> {
        if self.0.is_empty() {
            return None;
        }
        let made = self.0.get(row.reference.as_deref()?)?;
        let key = invalid_key(row);
        made.iter()
            .find(|d| d.search_key == key && d.verdict == Verdict::Ignore)
    }
}

/// The `search_key` of a decision on an invalid row, which makes no search: `invalid|` and
/// the SHA-256, in hex, of the row's fields as read from the portfolio after its ref (country, service, id,
/// name, street number, street name, city, postcode, phone, company_id; each as byte 0x1f
/// and its text, or byte 0x1e when blank). The columns ratewatch only carries (an
/// exposure, a sales owner) are left out: they change from night to night while the row
/// stays the same. The prefix keeps it apart from every search's key.
pub fn invalid_key(row: &InputRow) -> String {
    use sha2::{Digest, Sha256};
    let mut sha = Sha256::new();
    for field in [
        &row.country,
        &row.service,
        &row.id,
        &row.name,
        &row.street_number,
        &row.street_name,
        &row.city,
        &row.postcode,
        &row.phone,
        &row.company_id,
    ] {
        match field {
            Some(text) => {
                sha.update(b"\x1f");
                sha.update(text.as_bytes());
            }
            None => sha.update(b"\x1e"),
        }
    }
    let hex: String = sha.finalize().iter().map(|b| format!("{b:02x}")).collect();
    format!("invalid|{hex}")
}

/// How the error of a row starts when the company a review accepted for it is unknown to
/// the service: the row needs a person again.
pub const ACCEPTED_UNKNOWN: &str = "the company accepted by review";

/// The error of a row whose every candidate a review rejected.
pub const REJECTED: &str = "none of the candidates is this company, said the review";

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_invalid_row_is_decided_on_as_it_stands_whatever_it_carries() {
        let row = InputRow {
            line: 21,
            reference: Some("C-1021".into()),
            country: Some("XX".into()),
            name: Some("Acme".into()),
            ..InputRow::default()
        };
        let key = invalid_key(&row);
        assert!(key.starts_with("invalid|") && key.len() == "invalid|".len() + 64);
        let carried = InputRow {
            line: 40,
            extra: vec![("Encours".into(), "120000".into())],
            ..row.clone()
        };
        assert_eq!(invalid_key(&carried), key, "another line, another exposure");
        let renamed = InputRow {
            name: Some("Acme Ltd".into()),
            ..row.clone()
        };
        assert_ne!(invalid_key(&renamed), key);
        let moved = InputRow {
            name: None,
            city: Some("Acme".into()),
            ..row.clone()
        };
        assert_ne!(invalid_key(&moved), key, "a value in another field");

        let decided = |verdict| {
            Decisions::new([Decision {
                reference: "C-1021".into(),
                search_key: key.clone(),
                verdict,
                decided_at: "2026-11-21T02:00:00Z".into(),
                source: "command line".into(),
            }])
        };
        assert!(decided(Verdict::Ignore).ignored_invalid(&row).is_some());
        assert!(decided(Verdict::Ignore).ignored_invalid(&renamed).is_none());
        assert!(decided(Verdict::Reject).ignored_invalid(&row).is_none());
        let other_ref = InputRow {
            reference: Some("C-1022".into()),
            ..row.clone()
        };
        assert!(
            decided(Verdict::Ignore)
                .ignored_invalid(&other_ref)
                .is_none()
        );
    }
}
