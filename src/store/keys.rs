//! The deferred key tables: how a cached search (`resolutions.input_key`) and a stored
//! input row (`inputs.digest`) are found again without an index on the key itself.
//!
//! Such keys arrive in random order: an index on them takes each new key on a random
//! page, and a writer that commits every second writes nearly every page of it again each
//! second once it is large. So the rows are appended (sequential ids), and the writer
//! keeps the keys of the rows it added in memory ([`PendingKeys`]), writing them to
//! `resolution_keys` / `input_keys` sorted, tens of thousands at a time: each page of a
//! key table is then written once per batch rather than once per second. The key tables
//! hold a hash of the key (8 bytes) and the row's id; a lookup reads the rows with that
//! hash and compares the full key, so a collision never mixes two searches.
//!
//! A run killed between two batches leaves rows without keys: they are the rows above the
//! highest id a key table holds, and [`catch_up`] adds their keys when the store is next
//! opened for writing (each screening opens it once, before its writer starts).

use std::collections::HashMap;

use rusqlite::{Connection, params};
use sha2::{Digest, Sha256};

use super::StoreError;

/// Keys held in memory before they are written: bounds the memory, and makes each batch
/// large enough that a page of a key table takes many keys at once.
pub(super) const PENDING_KEYS: usize = 50_000;

/// A digest of an input row, as `inputs.digest` holds it.
pub(super) type InputDigest = [u8; 16];

/// The hash under which a search key is found in `resolution_keys`: the first 8 bytes of
/// its SHA-256, big-endian.
pub(crate) fn search_hash(key: &str) -> i64 {
    let sha = Sha256::digest(key.as_bytes());
    i64::from_be_bytes(sha[..8].try_into().expect("a SHA-256 has 32 bytes"))
}

/// The hash under which an input row is found in `input_keys`: the first 8 bytes of its
/// digest (already a SHA-256), big-endian.
pub(super) fn digest_hash(digest: &[u8]) -> i64 {
    let mut bytes = [0u8; 8];
    let n = digest.len().min(8);
    bytes[..n].copy_from_slice(&digest[..n]);
    i64::from_be_bytes(bytes)
}

/// Keys of the rows a writer added since it last wrote them, with each row's id.
#[derive(Debug, Default)]
pub(super) struct PendingKeys {
    pub resolutions: HashMap<String, i64>,
    pub inputs: HashMap<InputDigest, i64>,
}

impl PendingKeys {
    pub fn len(&self) -> usize {
        self.resolutions.len() + self.inputs.len()
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Forgets the rows above these ids: their transaction was rolled back.
    pub fn forget_above(&mut self, resolution: i64, input: i64) {
        self.resolutions.retain(|_, id| *id <= resolution);
        self.inputs.retain(|_, id| *id <= input);
    }

    /// Writes the keys, sorted, in the connection's open transaction. An entry already
    /// there (added by [`catch_up`] in another process meanwhile) is left as it is.
    pub fn write(self, conn: &Connection) -> rusqlite::Result<()> {
        let resolutions = self
            .resolutions
            .into_iter()
            .map(|(key, id)| (search_hash(&key), id));
        insert_sorted(conn, RESOLUTION_KEYS, resolutions.collect())?;
        let inputs = self
            .inputs
            .into_iter()
            .map(|(digest, id)| (digest_hash(&digest), id));
        insert_sorted(conn, INPUT_KEYS, inputs.collect())
    }
}

const RESOLUTION_KEYS: &str =
    "INSERT OR IGNORE INTO resolution_keys (hash, resolution) VALUES (?1, ?2)";
const INPUT_KEYS: &str = "INSERT OR IGNORE INTO input_keys (hash, input) VALUES (?1, ?2)";

fn insert_sorted(conn: &Connection, sql: &str, mut keys: Vec<(i64, i64)>) -> rusqlite::Result<()> {
    if keys.is_empty() {
        return Ok(());
    }
    keys.sort_unstable();
    let mut stmt = conn.prepare_cached(sql)?;
    for (hash, id) in keys {
        stmt.execute(params![hash, id])?;
    }
    Ok(())
}

/// Adds the keys of the rows a killed run left without: those above the highest id each
/// key table holds. A no-op (two short reads) when nothing is missing.
pub(super) fn catch_up(conn: &Connection) -> Result<(), StoreError> {
    let ctx = "adding the keys of rows a stopped run left without";
    let missing = |sql: &str, hash: fn(&rusqlite::Row<'_>) -> rusqlite::Result<i64>| {
        let mut stmt = conn.prepare(sql)?;
        stmt.query_map([], |r| Ok((hash(r)?, r.get::<_, i64>(1)?)))?
            .collect::<rusqlite::Result<Vec<(i64, i64)>>>()
    };
    let resolutions = missing(
        "SELECT input_key, id FROM resolutions
         WHERE id > (SELECT coalesce(max(resolution), 0) FROM resolution_keys)",
        |r| r.get::<_, String>(0).map(|k| search_hash(&k)),
    )
    .map_err(StoreError::at(ctx))?;
    let inputs = missing(
        "SELECT digest, id FROM inputs
         WHERE id > (SELECT coalesce(max(input), 0) FROM input_keys)",
        |r| {
            let digest = r.get_ref(0)?;
            Ok(digest_hash(digest.as_bytes().unwrap_or_default()))
        },
    )
    .map_err(StoreError::at(ctx))?;
    if resolutions.is_empty() && inputs.is_empty() {
        return Ok(());
    }
    tracing::info!(
        resolutions = resolutions.len(),
        inputs = inputs.len(),
        "adding the keys of rows a stopped run left without"
    );
    let tx = conn.unchecked_transaction().map_err(StoreError::at(ctx))?;
    insert_sorted(&tx, RESOLUTION_KEYS, resolutions)
        .and_then(|()| insert_sorted(&tx, INPUT_KEYS, inputs))
        .and_then(|()| tx.commit())
        .map_err(StoreError::at(ctx))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_hash_is_the_first_eight_bytes_big_endian() {
        // SHA-256("abc") = ba7816bf8f01cfea...
        assert_eq!(search_hash("abc"), 0xba7816bf8f01cfea_u64 as i64);
        assert_eq!(
            digest_hash(&[1, 2, 3, 4, 5, 6, 7, 8, 9, 10]),
            0x0102030405060708
        );
    }
}
