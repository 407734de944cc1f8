//! How old a company's latest rating may be and still be used without a call: an age per
//! color (`[refresh]` of the config file, which `stages::refresh` reads) over one age for
//! every color (`rating_max_age`; 0, the default, asks every company every night).
//!
//! Ages are judged on this machine's clock: from the start of the run that last observed
//! or confirmed the rating, never from the service's dates. This decides only; the store
//! finds the rating and the pipeline spares the call.

use jiff::SignedDuration;

use super::Color;

/// The longest a red company's rating is reused, whatever is configured: a company whose
/// last color was red is asked again within a day.
pub const RED_CAP: SignedDuration = SignedDuration::from_hours(24);

/// The longest slack granted: a nightly job that starts a few minutes earlier than the
/// night before still counts as a day later.
const SLACK: SignedDuration = SignedDuration::from_hours(1);

/// The refresh age of each color.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct RefreshAges {
    /// `rating_max_age`: the age of a color `[refresh]` leaves out; `None` (0): always ask.
    default: Option<SignedDuration>,
    /// `[refresh]`, color by color, as configured.
    by_color: Vec<(Color, SignedDuration)>,
}

impl RefreshAges {
    /// `default` is `rating_max_age` (zero: always ask); `by_color` the `[refresh]` table.
    pub fn new(default: SignedDuration, by_color: Vec<(Color, SignedDuration)>) -> Self {
        RefreshAges {
            default: (default > SignedDuration::ZERO).then_some(default),
            by_color,
        }
    }

    /// The age up to which a rating of this color is reused; `None`: always asked. A color
    /// `[refresh]` leaves out has `rating_max_age`; a color outside the five the shortest
    /// age `[refresh]` gives (or `rating_max_age` when it gives none); red never more than
    /// [`RED_CAP`].
    pub fn age(&self, color: &Color) -> Option<SignedDuration> {
        let given = |c: &Color| self.by_color.iter().find(|(k, _)| k == c).map(|(_, a)| *a);
        let age = match color {
            Color::Other(_) => self.by_color.iter().map(|(_, a)| *a).min().or(self.default),
            known => given(known).or(self.default),
        };
        let age = match color {
            Color::Red => age.map(|a| a.min(RED_CAP)),
            _ => age,
        };
        age.filter(|a| *a > SignedDuration::ZERO)
    }

    /// Whether a rating of this color, last seen `age` ago, is used without a call: when it
    /// is younger than its color's age, less a slack of a twenty-fourth of it (an hour at
    /// most), so that a nightly job starting a little early is not a night late.
    pub fn reuses(&self, color: &Color, age: SignedDuration) -> bool {
        self.age(color).is_some_and(|max| {
            let slack = (max / 24).min(SLACK);
            age < max - slack
        })
    }

    /// Whether any rating could be reused: else nothing needs looking up.
    pub fn any(&self) -> bool {
        self.default.is_some() || self.by_color.iter().any(|(_, a)| *a > SignedDuration::ZERO)
    }

    /// The `[refresh]` table as configured.
    pub fn by_color(&self) -> &[(Color, SignedDuration)] {
        &self.by_color
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn hours(h: i64) -> SignedDuration {
        SignedDuration::from_hours(h)
    }

    #[test]
    fn by_default_every_rating_is_asked_again() {
        let ages = RefreshAges::new(SignedDuration::ZERO, vec![]);
        assert!(!ages.any());
        for color in [
            Color::Green,
            Color::Yellow,
            Color::White,
            Color::Red,
            Color::Black,
        ] {
            assert_eq!(ages.age(&color), None);
            assert!(!ages.reuses(&color, SignedDuration::ZERO));
        }
    }

    #[test]
    fn a_color_left_out_has_rating_max_age_and_an_unknown_one_the_shortest_given() {
        let ages = RefreshAges::new(
            hours(12),
            vec![(Color::Green, hours(168)), (Color::Yellow, hours(48))],
        );
        assert_eq!(ages.age(&Color::Green), Some(hours(168)));
        assert_eq!(ages.age(&Color::Yellow), Some(hours(48)));
        assert_eq!(ages.age(&Color::White), Some(hours(12)));
        assert_eq!(ages.age(&Color::Other("purple".into())), Some(hours(48)));
        // Nothing in [refresh]: an unknown color has rating_max_age too.
        let plain = RefreshAges::new(hours(12), vec![]);
        assert_eq!(plain.age(&Color::Other("purple".into())), Some(hours(12)));
        // A color given 0 is asked every run, even over rating_max_age.
        let zero = RefreshAges::new(hours(12), vec![(Color::Black, hours(0))]);
        assert_eq!(zero.age(&Color::Black), None);
    }

    #[test]
    fn red_is_asked_again_within_a_day_whatever_is_configured() {
        let ages = RefreshAges::new(hours(72), vec![(Color::Red, hours(720))]);
        assert_eq!(ages.age(&Color::Red), Some(RED_CAP));
        let by_default = RefreshAges::new(hours(72), vec![]);
        assert_eq!(by_default.age(&Color::Red), Some(RED_CAP));
        assert!(!ages.reuses(&Color::Red, hours(24)));
        // Shorter than a day is kept.
        let short = RefreshAges::new(hours(0), vec![(Color::Red, hours(12))]);
        assert_eq!(short.age(&Color::Red), Some(hours(12)));
    }

    #[test]
    fn a_rating_younger_than_its_age_less_the_slack_is_reused() {
        let ages = RefreshAges::new(
            SignedDuration::ZERO,
            vec![(Color::Green, hours(168)), (Color::Red, hours(24))],
        );
        let minutes = |m: i64| SignedDuration::from_mins(m);
        // The night before, a minute later than tonight: a night old, asked.
        assert!(!ages.reuses(&Color::Red, hours(24) - minutes(1)));
        assert!(ages.reuses(&Color::Red, hours(22)));
        assert!(ages.reuses(&Color::Green, hours(6 * 24)));
        assert!(!ages.reuses(&Color::Green, hours(7 * 24) - minutes(5)));
        // Yellow is left out, and rating_max_age is 0: asked.
        assert!(!ages.reuses(&Color::Yellow, SignedDuration::ZERO));
        // Short ages get a short slack: 12h → half an hour.
        let half_day = RefreshAges::new(hours(12), vec![]);
        assert!(half_day.reuses(&Color::Green, hours(11) + minutes(29)));
        assert!(!half_day.reuses(&Color::Green, hours(11) + minutes(31)));
    }
}
