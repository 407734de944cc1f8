//! Who made a decision or an acknowledgement, and how it ended: what an auditor or an
//! insurer asks of each one. Every acknowledgement and every review decision is kept; a
//! later event ends it (the company's color changed, its `until` passed, a later one
//! replaced it, a person withdrew or revoked it) and never erases it.

/// How a person's name reads where none was recorded (made before ratewatch recorded who).
pub const NOT_RECORDED: &str = "(not recorded)";

/// Who is recorded for what is done on the page when it knows no person: a server without
/// `--users`.
pub const WEB_PAGE: &str = "web page";

/// The longest name recorded as who made a decision.
pub const NAME_MAX_CHARS: usize = 100;

/// Who made a record, as a person reads it: the name, or [`NOT_RECORDED`].
pub fn who(by: Option<&str>) -> &str {
    by.unwrap_or(NOT_RECORDED)
}

/// A name given as who decides (`--by`, a line of `serve --users`), trimmed; why not when
/// it cannot be one: empty, longer than [`NAME_MAX_CHARS`], or holding a control character
/// or one that reorders text (it would be recorded, and shown to an auditor, as something
/// else).
pub fn person_name(given: &str) -> Result<String, String> {
    let name = given.trim();
    if name.is_empty() {
        return Err("the name is empty".into());
    }
    if name.chars().count() > NAME_MAX_CHARS {
        return Err(format!("the name is over {NAME_MAX_CHARS} characters"));
    }
    if crate::text::printable(name) != name {
        return Err("the name holds a control character or one that reorders text".into());
    }
    Ok(name.to_string())
}

/// How a record ended: when, how, by whom, why, and the run that saw the change that
/// ended it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Ended {
    /// UTC ISO 8601, as stored.
    pub at: String,
    /// `color changed`, `expired`, `replaced`, `withdrawn` or `revoked`.
    pub how: String,
    /// Who replaced, withdrew or revoked it; none for what time or a run ended.
    pub by: Option<String>,
    /// Why it was withdrawn or revoked, when the person said.
    pub note: Option<String>,
    /// The run that saw the company at another color.
    pub run_id: Option<i64>,
}

impl Ended {
    /// `color changed (run 12)`, `withdrawn by marie: paid in full`, `expired`.
    pub fn describe(&self) -> String {
        let mut text = self.how.clone();
        if let Some(run) = self.run_id {
            text.push_str(&format!(" (run {run})"));
        }
        if let Some(by) = &self.by {
            text.push_str(&format!(" by {by}"));
        }
        if let Some(note) = &self.note {
            text.push_str(&format!(": {note}"));
        }
        text
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_name_is_printable_text_of_reasonable_length() {
        assert_eq!(person_name("  Marie Durand ").unwrap(), "Marie Durand");
        assert!(person_name(" ").is_err());
        assert!(person_name("a\u{1b}[2Jb").is_err());
        assert!(person_name("evil\u{202e}txt").is_err());
        assert!(person_name(&"x".repeat(NAME_MAX_CHARS + 1)).is_err());
        assert!(person_name("Zoë O'Brien (DAF)").is_ok());
    }

    #[test]
    fn an_ending_says_how_by_whom_and_why() {
        let ended = Ended {
            at: "2026-11-24T02:00:00Z".into(),
            how: "color changed".into(),
            by: None,
            note: None,
            run_id: Some(12),
        };
        assert_eq!(ended.describe(), "color changed (run 12)");
        let withdrawn = Ended {
            how: "withdrawn".into(),
            by: Some("marie".into()),
            note: Some("paid in full".into()),
            run_id: None,
            ..ended
        };
        assert_eq!(withdrawn.describe(), "withdrawn by marie: paid in full");
        assert_eq!(who(None), NOT_RECORDED);
        assert_eq!(who(Some("paul")), "paul");
    }
}
