//! When a company's color began, as the view `color_periods` dates it, for the people's
//! outputs (the reports, the pages): the start of the period a rating belongs to. The
//! service's lastChangeDate of the latest rating is not it: the service moves that date
//! when it recalculates a rating with news, also when the color stays the same.
//!
//! A period starts at the rating marked `starts_period` (by the trigger `ratings_in_order`);
//! its start is that rating's lastChangeDate (its observation when it has none, and never
//! after it), but not before the previous period was last seen. This is the expression of
//! `color_periods.valid_from`, kept in step with the view by a test
//! (`tests/color_since.rs`), read here a few index searches per row rather than through
//! the view, which works out every period of the company. The walk back to the period's
//! first rating reads `ratings_by_company` newest first and stops at the first start; an
//! index of the period starts by company makes it one search (5.5 µs a row without one,
//! 3 µs with one, at 100,000 rows after 30 nights).

/// The SQL expression of the start of the color period that holds the rating whose id is
/// the expression `$rating`, of the company `$company` (both string literals): NULL when
/// `$rating` is NULL. A string literal itself, so that a constant list of columns holds it.
macro_rules! period_start {
    ($company:literal, $rating:literal) => {
        concat!(
            "(SELECT max(min(coalesce(s.last_change_date, s.observed_at), s.observed_at), ",
            "coalesce(pf.confirmed_at, p.observed_at, '')) ",
            "FROM ratings s ",
            "LEFT JOIN ratings p ON p.id = (SELECT id FROM ratings ",
            "WHERE company = s.company AND id < s.id ORDER BY id DESC LIMIT 1) ",
            "LEFT JOIN rating_confirmations pf ON pf.rating = p.id ",
            "WHERE s.id = (SELECT id FROM ratings WHERE company = ",
            $company,
            " AND starts_period = 1 AND id <= ",
            $rating,
            " ORDER BY id DESC LIMIT 1))"
        )
    };
}
pub(super) use period_start;
