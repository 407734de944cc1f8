//! The history sync use case (`ratewatch sync-history`): reads the service's list of the
//! ratings this key requested (service.md §4.6), page by page through the same limits as a run,
//! and records in the database what the account asked elsewhere (the service's web portal,
//! other tools), so that a lost database can be rebuilt and an audit sees every lookup.
//!
//! The database is not opened until every page is read, and then written in one
//! transaction: a failure anywhere (a wrong address, a bad pagination link, a quota)
//! leaves it as it was. One entry that does not read as a rating is not a failure: it is
//! set aside and counted, and the rest stored (as are those from the future: see
//! `store::account`). The run lock is held throughout, so a screening run cannot write meanwhile. What
//! becomes of each request is the store's to decide (`store::account`); no terminal here.

use std::path::PathBuf;

use crate::api::ApiError;
use crate::connection::{Service, ServiceSettings};
use crate::error::Error;
use crate::model::Rating;
use crate::stages::limit::{Limiter, Limits};
use crate::store::{AccountSync, RunLock, Store, StoreError};

/// The limiter's name for the calls of the history endpoint.
pub const ENDPOINT: &str = "ratings_history";

/// What a sync needs: the database, the service, the limits its calls go through.
#[derive(Debug, Clone)]
pub struct SyncRequest {
    pub db: PathBuf,
    pub service: ServiceSettings,
    pub limits: Limits,
}

/// What a sync read and what it stored.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Synced {
    pub pages: u64,
    /// Entries read, the malformed ones included.
    pub entries: u64,
    /// Entries that did not read as a rating (a malformed date…): set aside.
    pub malformed: u64,
    pub stored: AccountSync,
}

/// Reads the account's whole history, then records it in one transaction.
pub async fn sync(request: &SyncRequest) -> Result<Synced, Error> {
    let db = &request.db;
    let db_error = |source: StoreError| Error::Store {
        path: db.clone(),
        source,
    };
    let existed = db.exists();
    if std::fs::metadata(db).is_ok_and(|m| m.len() > 0) {
        // Another program's database, or a newer ratewatch's, is refused before any call.
        Store::open_read_only(db).map_err(db_error)?;
    }
    // Declared before the store, so it is dropped after it (see `RunLock`). Taken before
    // any call: a database in use says so at once, without spending a call.
    let lock = RunLock::acquire(db).map_err(db_error)?;
    let read = async {
        let conn = Service::open(&request.service, true, 1).await?;
        let limiter = Limiter::new(request.limits);
        read_history(&conn, &limiter).await
    };
    let (pages, history, malformed) = match read.await {
        Ok(read) => read,
        Err(e) => {
            // The database is opened only once the history is read: a failed sync leaves
            // it byte for byte as it was, and none where there was none (the lock made
            // an empty file to hold).
            drop(lock);
            if !existed && std::fs::metadata(db).is_ok_and(|m| m.len() == 0) {
                let _ = std::fs::remove_file(db);
            }
            return Err(e);
        }
    };
    let mut store = Store::open(db).map_err(db_error)?;
    let entries = history.len() as u64 + malformed;
    let stored = store.record_account_history(&history).map_err(db_error)?;
    drop(store);
    drop(lock);
    tracing::info!(
        pages,
        entries,
        added = stored.added,
        known = stored.known,
        synced_before = stored.synced_before,
        earlier = stored.earlier,
        new_companies = stored.new_companies,
        malformed,
        future = stored.future,
        "history synced"
    );
    Ok(Synced {
        pages,
        entries,
        malformed,
        stored,
    })
}

/// Every page of the history, each call through the limiter (its retries included), and
/// how many of its entries were set aside as malformed.
async fn read_history(conn: &Service, limiter: &Limiter) -> Result<(u64, Vec<Rating>, u64), Error> {
    let client = &conn.client;
    let fail = |e: ApiError| match e {
        // The service always has a history, if an empty one: "not found" there means the
        // address is not the service's.
        ApiError::NotFound { .. } => {
            let url = client
                .base_url()
                .join("ratings")
                .unwrap_or_else(|_| client.base_url().clone());
            Error::NotTheService {
                url: crate::text::redacted_url(url.as_str(), crate::text::UrlPath::Whole),
                source: e,
            }
        }
        e => conn.fail(e),
    };
    let mut pages = client.history_pages();
    let mut history = Vec::new();
    let mut malformed = 0u64;
    while let Some(url) = pages.next_url().map_err(fail)? {
        let page = limiter
            .call(ENDPOINT, || client.ratings_page(&url))
            .await
            .map_err(fail)?;
        pages.advance(&page).map_err(fail)?;
        tracing::debug!(
            page = pages.pages(),
            entries = page.results.len(),
            "history page read"
        );
        for why in &page.malformed {
            if malformed == 0 {
                tracing::warn!(page = pages.pages(), "a history entry set aside: {why}");
            } else {
                tracing::debug!(page = pages.pages(), "a history entry set aside: {why}");
            }
            malformed += 1;
        }
        history.extend(page.results.into_iter().map(Rating::from));
    }
    Ok((pages.pages() as u64, history, malformed))
}
