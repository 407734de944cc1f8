//! The deferred key tables: how a cached search (`resolutions.input_key`), a stored input
//! row (its fields) and a company (`companies.company_id`, the service's UUID) are found
//! again without an index on the key itself.
//!
//! Such keys arrive in random order: an index on them takes each new key on a random
//! page, and a writer that commits every second writes nearly every page of it again each
//! second once it is large. So the rows are appended (sequential ids), and the writer
//! keeps the keys of the rows it added in memory ([`PendingKeys`]), writing them to
//! `resolution_keys` / `input_keys` / `company_keys` sorted, tens of thousands at a time: each page of a
//! key table is then written once per batch rather than once per second. The key tables
//! hold a hash of the key (4 bytes) and the row's id; a lookup reads the rows with that
//! hash and compares the full key, so a collision never mixes two searches.
//!
//! A run killed between two batches leaves rows without keys: they are the rows above the
//! highest id a key table holds, and [`catch_up`] adds their keys when the store is next
//! opened for writing (each screening opens it once, before its writer starts).

use std::collections::HashMap;
use std::sync::LazyLock;

use rusqlite::types::ToSqlOutput;
use rusqlite::{Connection, OptionalExtension, params};
use sha2::{Digest, Sha256};
use uuid::Uuid;

use super::StoreError;
use super::batch::{Shapes, insert};

/// Keys held in memory before they are written, at the least: bounds the memory, and
/// makes each batch large enough that a page of a key table takes many keys at once.
pub(super) const PENDING_KEYS: usize = 50_000;
/// At the most. Between the two, a batch holds a quarter as many keys as the key tables
/// already do: each batch writes nearly every page of them, so batches that grow with
/// the tables write them a bounded number of times over a run (a fixed size would write a
/// million-row table twenty times as often). A pending key takes about 16 bytes.
pub(super) const MAX_PENDING_KEYS: usize = 300_000;

/// How many keys to hold before writing them, for key tables holding `stored`.
pub(super) fn pending_limit(stored: u64) -> usize {
    usize::try_from(stored / 4)
        .unwrap_or(MAX_PENDING_KEYS)
        .clamp(PENDING_KEYS, MAX_PENDING_KEYS)
}

/// The hash under which a search key is found in `resolution_keys`: the first 4 bytes of
/// its SHA-256, big-endian, signed. Four bytes are stored in four (SQLite keeps an integer
/// in as few bytes as hold it): a key table's entry is a third smaller than with eight, and
/// at a million keys two share a hash about once, which the full key then tells apart.
pub(crate) fn search_hash(key: &str) -> i64 {
    first_four(&Sha256::digest(key.as_bytes()))
}

/// The hash under which an input row is found in `input_keys`: the first 4 bytes of a
/// SHA-256 of its fields, in the order of the table's columns (each given as a separator
/// and its text, or another separator when absent), big-endian, signed.
pub(super) fn input_hash<'a>(fields: impl IntoIterator<Item = Option<&'a str>>) -> i64 {
    let mut sha = Sha256::new();
    for field in fields {
        match field {
            Some(text) => {
                sha.update(b"\x1f");
                sha.update(text.as_bytes());
            }
            None => sha.update(b"\x1e"),
        }
    }
    first_four(&sha.finalize())
}

fn first_four(sha: &[u8]) -> i64 {
    let bytes: [u8; 4] = sha[..4].try_into().expect("a SHA-256 has 32 bytes");
    i64::from(i32::from_be_bytes(bytes))
}

/// The hash under which a company is found in `company_keys`: its UUID's four 32-bit
/// words XORed, signed. The service's UUIDs are random, so no hashing is needed; a UUID of
/// another kind (time-based, with a fixed part) still spreads over the other words.
pub(crate) fn company_hash(company: Uuid) -> i64 {
    let n = company.as_u128();
    i64::from((n ^ (n >> 32) ^ (n >> 64) ^ (n >> 96)) as u32 as i32)
}

/// The internal key of the company with this UUID, through `company_keys`.
pub(crate) fn find_company(conn: &Connection, company: Uuid) -> rusqlite::Result<Option<i64>> {
    conn.prepare_cached(
        "SELECT c.id FROM company_keys k JOIN companies c ON c.id = k.company
         WHERE k.hash = ?1 AND c.company_id = ?2",
    )?
    .query_row(params![company_hash(company), company.as_bytes()], |r| {
        r.get(0)
    })
    .optional()
}

/// The internal key of the company with this UUID among those whose key is not written
/// yet (a run stopped, or running in another process): the rows above `highest`, the key
/// table's highest (see [`highest_company_key`]).
pub(crate) fn find_unkeyed_company(
    conn: &Connection,
    company: Uuid,
    highest: i64,
) -> rusqlite::Result<Option<i64>> {
    conn.prepare_cached("SELECT id FROM companies WHERE id > ?1 AND company_id = ?2")?
        .query_row(params![highest, company.as_bytes()], |r| r.get(0))
        .optional()
}

/// The highest company id `company_keys` holds: the companies above it have no key yet.
/// A scan of the key table (tens of milliseconds at a million companies): a reader asks
/// once and keeps the answer, which stays true as keys are only ever added.
pub(crate) fn highest_company_key(conn: &Connection) -> rusqlite::Result<i64> {
    conn.query_row(
        "SELECT coalesce(max(company), 0) FROM company_keys",
        [],
        |r| r.get(0),
    )
}

/// The rows of one table added since their keys were last written: each row's id by the
/// hash of its key, as the key table will hold them. A lookup gets the ids under a hash
/// and compares the full key in the row. Held compactly (a hash and an id, 8 bytes), so
/// that a batch can hold hundreds of thousands; the rare second row under one hash waits
/// in `shared`.
#[derive(Debug, Default)]
pub(super) struct Pending {
    by_hash: HashMap<i32, u32>,
    shared: Vec<(i64, i64)>,
}

impl Pending {
    pub fn insert(&mut self, hash: i64, id: i64) {
        let small = (i32::try_from(hash), u32::try_from(id));
        if let (Ok(hash), Ok(id)) = small
            && let std::collections::hash_map::Entry::Vacant(e) = self.by_hash.entry(hash)
        {
            e.insert(id);
            return;
        }
        self.shared.push((hash, id));
    }

    /// The ids of the rows whose key has this hash.
    pub fn ids(&self, hash: i64) -> impl Iterator<Item = i64> + '_ {
        let first = i32::try_from(hash)
            .ok()
            .and_then(|h| self.by_hash.get(&h))
            .map(|id| i64::from(*id));
        first.into_iter().chain(
            self.shared
                .iter()
                .filter(move |(h, _)| *h == hash)
                .map(|(_, id)| *id),
        )
    }

    pub fn len(&self) -> usize {
        self.by_hash.len() + self.shared.len()
    }

    /// Adds the rows of another.
    pub fn extend(&mut self, other: Pending) {
        for (hash, id) in other.entries() {
            self.insert(hash, id);
        }
    }

    fn forget_above(&mut self, id: i64) {
        self.by_hash.retain(|_, kept| i64::from(*kept) <= id);
        self.shared.retain(|(_, kept)| *kept <= id);
    }

    /// (hash, id) of every row, for the key table.
    fn entries(self) -> Vec<(i64, i64)> {
        let mut entries = self.shared;
        entries.extend(
            self.by_hash
                .into_iter()
                .map(|(h, id)| (i64::from(h), i64::from(id))),
        );
        entries
    }
}

/// Keys of the rows a writer added since it last wrote them.
#[derive(Debug, Default)]
pub(super) struct PendingKeys {
    pub resolutions: Pending,
    pub inputs: Pending,
    pub companies: Pending,
}

impl PendingKeys {
    pub fn len(&self) -> usize {
        self.resolutions.len() + self.inputs.len() + self.companies.len()
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Forgets the rows above these ids: their transaction was rolled back.
    pub fn forget_above(&mut self, resolution: i64, input: i64, company: i64) {
        self.resolutions.forget_above(resolution);
        self.inputs.forget_above(input);
        self.companies.forget_above(company);
    }

    /// Writes the keys, sorted, in the connection's open transaction. An entry already
    /// there (added by [`catch_up`] in another process meanwhile) is left as it is.
    pub fn write(self, conn: &Connection) -> rusqlite::Result<()> {
        insert_sorted(conn, &RESOLUTION_KEYS, self.resolutions.entries())?;
        insert_sorted(conn, &INPUT_KEYS, self.inputs.entries())?;
        insert_sorted(conn, &COMPANY_KEYS, self.companies.entries())
    }
}

/// The key tables' inserts: a full statement's worth of keys at a time, then one by one.
static RESOLUTION_KEYS: LazyLock<Shapes> = LazyLock::new(|| {
    Shapes::full_and_one(
        "INSERT OR IGNORE INTO resolution_keys (hash, resolution)",
        2,
        "",
    )
});
static INPUT_KEYS: LazyLock<Shapes> =
    LazyLock::new(|| Shapes::full_and_one("INSERT OR IGNORE INTO input_keys (hash, input)", 2, ""));
pub(super) static COMPANY_KEYS: LazyLock<Shapes> = LazyLock::new(|| {
    Shapes::full_and_one("INSERT OR IGNORE INTO company_keys (hash, company)", 2, "")
});
/// The columns of `inputs` after its id, in their order: the fields of a row as given.
pub(super) const INPUT_COLUMNS: &str = "ref, country, service, external_id, name, \
    street_number, street_name, city, postcode, phone, given_company_id, extra";
/// How many they are.
pub(super) const INPUT_FIELDS: usize = 12;

/// Writes `keys` to a key table in the order of the table's primary key.
pub(super) fn insert_sorted(
    conn: &Connection,
    table: &Shapes,
    mut keys: Vec<(i64, i64)>,
) -> rusqlite::Result<()> {
    keys.sort_unstable();
    insert(conn, table, &keys, true, |(hash, id)| {
        [ToSqlOutput::from(*hash), ToSqlOutput::from(*id)]
    })
    .map(drop)
}

/// Adds the keys of the rows a killed run left without: those above the highest id each
/// key table holds. A no-op (two short reads) when nothing is missing.
pub(super) fn catch_up(conn: &Connection) -> Result<(), StoreError> {
    let ctx = "adding the keys of rows a stopped run left without";
    /// The rows above a key table's highest id (their id first), and their key's hash.
    type Missing = (
        String,
        &'static LazyLock<Shapes>,
        fn(&rusqlite::Row<'_>) -> rusqlite::Result<i64>,
    );
    let tables: [Missing; 3] = [
        (
            "SELECT id, input_key FROM resolutions
             WHERE id > (SELECT coalesce(max(resolution), 0) FROM resolution_keys)"
                .into(),
            &RESOLUTION_KEYS,
            |r| r.get::<_, String>(1).map(|k| search_hash(&k)),
        ),
        (
            format!(
                "SELECT id, {INPUT_COLUMNS} FROM inputs
                 WHERE id > (SELECT coalesce(max(input), 0) FROM input_keys)"
            ),
            &INPUT_KEYS,
            |r| {
                let fields = (1..=INPUT_FIELDS)
                    .map(|i| r.get_ref(i)?.as_str_or_null().map_err(Into::into))
                    .collect::<rusqlite::Result<Vec<_>>>()?;
                Ok(input_hash(fields))
            },
        ),
        (
            "SELECT id, company_id FROM companies
             WHERE id > (SELECT coalesce(max(company), 0) FROM company_keys)"
                .into(),
            &COMPANY_KEYS,
            |r| Ok(company_hash(read_uuid(r, 1)?)),
        ),
    ];
    // One table at a time, in one transaction: after an upgrade that emptied the key
    // tables (0011), a million rows' keys are held at once, not three million.
    let tx = conn.unchecked_transaction().map_err(StoreError::at(ctx))?;
    let mut added = 0;
    for (select, insert, hash) in tables {
        let missing = tx
            .prepare(&select)
            .and_then(|mut stmt| {
                stmt.query_map([], |r| Ok((hash(r)?, r.get::<_, i64>(0)?)))?
                    .collect::<rusqlite::Result<Vec<(i64, i64)>>>()
            })
            .map_err(StoreError::at(ctx))?;
        added += missing.len();
        insert_sorted(&tx, insert, missing).map_err(StoreError::at(ctx))?;
    }
    if added == 0 {
        return Ok(());
    }
    tracing::info!(
        keys = added,
        "added the keys of rows a stopped run left without"
    );
    tx.commit().map_err(StoreError::at(ctx))
}

/// A UUID stored as 16 bytes (`companies.company_id`).
pub(crate) fn read_uuid(r: &rusqlite::Row<'_>, at: usize) -> rusqlite::Result<Uuid> {
    let bytes: [u8; 16] = r.get(at)?;
    Ok(Uuid::from_bytes(bytes))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_input_row_has_as_many_fields_as_columns_named() {
        assert_eq!(INPUT_COLUMNS.split(',').count(), INPUT_FIELDS);
    }

    #[test]
    fn a_hash_is_four_bytes_big_endian_signed() {
        // SHA-256("abc") = ba7816bf...
        assert_eq!(search_hash("abc"), i64::from(0xba7816bf_u32 as i32));
        // SHA-256("\x1fabc\x1e") computed apart: the fields' separators are part of it.
        let sha = Sha256::digest(b"\x1fabc\x1e");
        assert_eq!(
            input_hash([Some("abc"), None]),
            i64::from(i32::from_be_bytes(sha[..4].try_into().unwrap()))
        );
        assert_ne!(
            input_hash([Some("abc"), None]),
            input_hash([None, Some("abc")])
        );
        assert_ne!(input_hash([Some("")]), input_hash([None]));
        let id = Uuid::from_u128(0x0123_4567_89ab_cdef_0000_0000_0000_00ff);
        assert_eq!(
            company_hash(id),
            i64::from((0x0123_4567_u32 ^ 0x89ab_cdef ^ 0xff) as i32)
        );
    }

    #[test]
    fn pending_rows_are_found_by_hash_shared_ones_included_and_forgotten_above_an_id() {
        let mut p = Pending::default();
        p.insert(7, 1);
        p.insert(-3, 2);
        p.insert(7, 3);
        p.insert(1 << 40, 4);
        p.insert(5, 1 << 40);
        assert_eq!(p.len(), 5);
        assert_eq!(p.ids(7).collect::<Vec<_>>(), [1, 3]);
        assert_eq!(p.ids(-3).collect::<Vec<_>>(), [2]);
        assert_eq!(p.ids(1 << 40).collect::<Vec<_>>(), [4]);
        assert_eq!(p.ids(5).collect::<Vec<_>>(), [1 << 40]);
        assert_eq!(p.ids(8).count(), 0);
        p.forget_above(2);
        assert_eq!(p.ids(7).collect::<Vec<_>>(), [1]);
        let mut entries = p.entries();
        entries.sort_unstable();
        assert_eq!(entries, [(-3, 2), (7, 1)]);
    }

    #[test]
    fn a_batch_grows_with_the_key_tables_between_its_bounds() {
        assert_eq!(pending_limit(0), PENDING_KEYS);
        assert_eq!(pending_limit(400_000), 100_000);
        assert_eq!(pending_limit(10_000_000), MAX_PENDING_KEYS);
    }
}
