//! Statements that write many rows at once: one `INSERT … VALUES (…), (…)` a few sizes
//! long, each size prepared once. Binding, stepping and resetting a statement cost more
//! than a small row, so the writer's rows go [`ROWS_PER_STATEMENT`] to a statement.

use rusqlite::types::ToSqlOutput;
use rusqlite::{Connection, params_from_iter};

/// Rows written by one statement: a few dozen, well under SQLite's limit of bound
/// parameters, and a statement text short enough to prepare once and keep.
pub(super) const ROWS_PER_STATEMENT: usize = 32;

/// The sizes of one insert: `head VALUES (?, …), … tail` for each.
pub(super) struct Shapes(Vec<(usize, String)>);

impl Shapes {
    /// [`ROWS_PER_STATEMENT`] rows, and one: what is left over goes one by one (two
    /// statements kept prepared, where rows left over are few).
    pub(super) fn full_and_one(head: &str, columns: usize, tail: &str) -> Shapes {
        Shapes::of(&[1, ROWS_PER_STATEMENT], head, columns, tail)
    }
    fn of(sizes: &[usize], head: &str, columns: usize, tail: &str) -> Shapes {
        let row = format!("({})", vec!["?"; columns].join(", "));
        Shapes(
            sizes
                .iter()
                .map(|&n| {
                    let values = vec![row.as_str(); n].join(", ");
                    (n, format!("{head} VALUES {values} {tail}"))
                })
                .collect(),
        )
    }
    /// The largest statement for at most `left` rows (full ones only unless `all`), and
    /// its size.
    pub(super) fn largest(&self, left: usize, all: bool) -> Option<(usize, &str)> {
        self.0
            .iter()
            .rev()
            .find(|(n, _)| *n <= left && (all || *n == ROWS_PER_STATEMENT))
            .map(|(n, sql)| (*n, sql.as_str()))
    }
}

/// Inserts `rows` in their order, each statement the largest that fits: all of them, or
/// (`all` false) only full statements' worth. Returns how many were written.
pub(super) fn insert<T, const N: usize>(
    conn: &Connection,
    shapes: &Shapes,
    rows: &[T],
    all: bool,
    values: impl for<'a> Fn(&'a T) -> [ToSqlOutput<'a>; N],
) -> rusqlite::Result<usize> {
    let mut done = 0;
    while let Some((n, sql)) = shapes.largest(rows.len() - done, all) {
        let these = &rows[done..done + n];
        conn.prepare_cached(sql)?
            .execute(params_from_iter(these.iter().flat_map(&values)))?;
        done += n;
    }
    Ok(done)
}
