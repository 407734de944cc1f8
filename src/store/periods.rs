//! When a company's color began, as the view `color_periods` dates it, for the people's
//! outputs (the reports, the pages): the start of the period a rating belongs to. The
//! service's lastChangeDate of the latest rating is not it: the service moves that date
//! when it recalculates a rating with news, also when the color stays the same.
//!
//! Each period is a row of `color_period_bounds`, kept by the trigger `ratings_in_order`
//! as ratings are added; the period holding a rating is the company's last one that began
//! at or before it, one search of `color_period_bounds_by_company`. A test
//! (`tests/color_since.rs`) keeps the outputs in step with the view.

/// The SQL expression of the start of the color period that holds the rating whose id is
/// the expression `$rating`, of the company `$company` (both string literals): NULL when
/// `$rating` is NULL. A string literal itself, so that a constant list of columns holds it.
macro_rules! period_start {
    ($company:literal, $rating:literal) => {
        concat!(
            "(SELECT b.valid_from FROM color_period_bounds b WHERE b.company = ",
            $company,
            " AND b.first_rating_id <= ",
            $rating,
            " ORDER BY b.first_rating_id DESC LIMIT 1)"
        )
    };
}
pub(super) use period_start;
