//! The search of `ratewatch serve` finds every customer of the latest runs, screened or
//! not: a ref that no company is rated for (unresolved, ambiguous, invalid, ignored,
//! failed) is listed with its status and why, linked to its place on the review page when
//! it has one.

use std::path::{Path, PathBuf};

use crate::common::{Workspace, sample_sim};
use crate::serve::Pages;

fn sample() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("samples/portfolio.csv")
}

/// The row of the search's "Not screened" table for `reference`, as HTML.
fn unscreened_row<'a>(page: &'a str, reference: &str) -> &'a str {
    let at = page
        .find(&format!("data-ref=\"{reference}\">"))
        .unwrap_or_else(|| panic!("{reference} not listed: {page}"));
    let row = &page[page[..at].rfind("<tr").unwrap()..];
    &row[..row.find("</tr>").unwrap()]
}

#[test]
fn every_ref_of_the_latest_run_is_found_whatever_its_status_and_says_why() {
    let sim = sample_sim();
    let ws = Workspace::new();
    ws.screen(&sim, &sample()).assert().code(3);
    // C-1018 left alone by a person: ignored by the next run.
    ws.ratewatch(["review", "ignore", "C-1018"])
        .db(ws.db())
        .assert()
        .success();
    ws.screen(&sim, &sample()).assert().code(3);
    let pages = Pages::of(&ws);

    for (reference, status, why, review) in [
        ("C-1009", "unresolved", "no company matches", true),
        ("C-1006", "ambiguous", "3 companies match", true),
        ("C-1019", "invalid", "service: &quot;CRO&quot; is not", true),
        ("C-1018", "ignored", "ignored by review (", true),
        ("C-1024", "failed", "phonenumber", false),
    ] {
        let page = pages.get(&format!("/search?q={reference}")).body;
        assert!(!page.contains("No company matches"), "{reference}: {page}");
        assert!(page.contains("Not screened (1)"), "{reference}: {page}");
        let row = unscreened_row(&page, reference);
        assert!(
            row.contains(&format!("<td class=\"status\">{status}</td>")),
            "{reference}: {row}"
        );
        assert!(row.contains(why), "{reference}: {row}");
        let link = format!("href=\"/review#ref-{reference}\"");
        assert_eq!(row.contains(&link), review, "{reference}: {row}");
        if !review {
            assert!(row.contains("screened again by the next run"), "{row}");
        }
    }
    // The review page has the place the link goes to.
    let review = pages.get("/review").body;
    for anchor in ["ref-C-1009", "ref-C-1006", "ref-C-1019", "ref-C-1018"] {
        assert!(
            review.contains(&format!("id=\"{anchor}\"")),
            "{anchor}: {review}"
        );
    }

    // A rated ref is a company, as before; a name in the file finds its rows not screened.
    let rated = pages.get("/search?q=C-1001").body;
    assert!(rated.contains("/company/"), "{rated}");
    assert!(!rated.contains("Not screened"), "{rated}");
    let by_name = pages.get("/search?q=nobody%20such").body;
    assert!(
        unscreened_row(&by_name, "C-1018").contains("Nobody Such Trading Ltd"),
        "{by_name}"
    );
    let nothing = pages.get("/search?q=C-9999").body;
    assert!(nothing.contains("No company matches"), "{nothing}");
}
