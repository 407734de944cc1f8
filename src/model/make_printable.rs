//! What every report and listing shows is printable: each text through the one rule of
//! `text`, each color in its bounded form.

use super::{Candidate, Color, ResultRow, RunColors, RunInfo};

/// Makes each text of a value [`crate::text::printable`] in place, and each color its
/// bounded form: what every report and listing shows, whatever the portfolio held or an
/// older database kept.
pub trait MakePrintable {
    fn make_printable(&mut self);
}

impl MakePrintable for String {
    fn make_printable(&mut self) {
        crate::text::make_printable(self);
    }
}

impl MakePrintable for Color {
    fn make_printable(&mut self) {
        if let Color::Other(s) = self {
            *self = Color::parse(s);
        }
    }
}

impl<T: MakePrintable> MakePrintable for Option<T> {
    fn make_printable(&mut self) {
        if let Some(v) = self {
            v.make_printable();
        }
    }
}

impl<T: MakePrintable> MakePrintable for Vec<T> {
    fn make_printable(&mut self) {
        self.iter_mut().for_each(MakePrintable::make_printable);
    }
}

impl MakePrintable for (String, String) {
    fn make_printable(&mut self) {
        self.0.make_printable();
        self.1.make_printable();
    }
}

impl MakePrintable for Candidate {
    fn make_printable(&mut self) {
        self.name.make_printable();
        self.city.make_printable();
        self.postcode.make_printable();
        self.found_without.make_printable();
    }
}

impl MakePrintable for ResultRow {
    fn make_printable(&mut self) {
        for text in [
            &mut self.reference,
            &mut self.country,
            &mut self.service,
            &mut self.id,
            &mut self.name,
            &mut self.company_name,
            &mut self.error,
        ] {
            text.make_printable();
        }
        self.color.make_printable();
        self.previous_color.make_printable();
        self.candidates.make_printable();
        self.extra.make_printable();
    }
}

impl MakePrintable for RunInfo {
    fn make_printable(&mut self) {
        for text in [
            &mut self.portfolio,
            &mut self.input_path,
            &mut self.portfolio_sha256,
        ] {
            text.make_printable();
        }
        bound_colors(&mut self.by_color);
        for (endpoint, _) in &mut self.calls {
            endpoint.make_printable();
        }
        self.extra_columns.make_printable();
        self.notes.make_printable();
    }
}

impl MakePrintable for RunColors {
    fn make_printable(&mut self) {
        bound_colors(&mut self.by_color);
        bound_colors(&mut self.new_by_color);
        bound_colors(&mut self.amount_by_color);
    }
}

/// A color an older database kept raw reads as any color read from it does.
fn bound_colors<T>(by_color: &mut [(String, T)]) {
    for (color, _) in by_color {
        *color = Color::parse(color).as_str().to_string();
    }
}

#[cfg(test)]
mod tests {
    use uuid::Uuid;

    use super::*;

    #[test]
    fn every_text_of_a_row_and_a_run_is_made_printable() {
        let evil = "A\u{1b}[2J\u{202e}B";
        let mut row = ResultRow {
            reference: Some(evil.into()),
            name: Some(evil.into()),
            company_name: Some(evil.into()),
            error: Some(evil.into()),
            color: Some(Color::Other(evil.into())),
            previous_color: Some(Color::Other("x".repeat(100))),
            candidates: vec![Candidate {
                id: Uuid::nil(),
                name: evil.into(),
                city: evil.into(),
                postcode: evil.into(),
                found_without: None,
            }],
            extra: vec![(evil.into(), evil.into())],
            ..ResultRow::example(2)
        };
        row.make_printable();
        let text = serde_json::to_string(&row).unwrap();
        assert!(
            !text.contains("\\u001b") && !text.contains('\u{202e}'),
            "{text}"
        );
        assert_eq!(row.company_name.as_deref(), Some("A [2JB"));
        assert_eq!(row.color.as_ref().map(Color::as_str), Some("a??2j?b"));
        assert_eq!(row.extra, [("A [2JB".to_string(), "A [2JB".to_string())]);
        let mut run = RunInfo {
            portfolio: evil.into(),
            by_color: vec![(evil.into(), 1), ("red".into(), 2)],
            notes: vec![evil.into()],
            extra_columns: vec![evil.into()],
            ..RunInfo::example()
        };
        run.make_printable();
        assert_eq!(run.portfolio, "A [2JB");
        assert_eq!(
            run.by_color,
            [("a??2j?b".to_string(), 1), ("red".to_string(), 2)]
        );
        assert_eq!(
            (&run.notes[0][..], &run.extra_columns[0][..]),
            ("A [2JB", "A [2JB")
        );
    }
}
