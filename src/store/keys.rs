//! A company's UUID read back from a row: `companies.company_id` holds it as lowercase
//! text with hyphens, under a UNIQUE index (see `find_company`).

use uuid::Uuid;

/// The UUID in column `at` of a row (`companies.company_id`).
pub(crate) fn read_uuid(r: &rusqlite::Row<'_>, at: usize) -> rusqlite::Result<Uuid> {
    let text: String = r.get(at)?;
    Uuid::parse_str(&text).map_err(|e| {
        rusqlite::Error::FromSqlConversionFailure(at, rusqlite::types::Type::Text, e.into())
    })
}
