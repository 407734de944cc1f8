//! Links from what a run sends (the mail, Slack, Teams, the webhook document, report.html)
//! to the pages of `ratewatch serve`, when the team says where it runs (`page_url`): its
//! inbox, a company's page, a portfolio's page. The paths are those `serve::router`
//! answers; a test asks the router for each link made here.
//!
//! The address is checked once, when the setting is read: an http or https URL with a
//! host, and nothing that could be a secret or change where a path lands (no user or
//! password, no query, no fragment), since it is written into every message.

use std::fmt;

/// Where `ratewatch serve` is reached by those who read the messages, e.g.
/// `https://credit.example.com/ratewatch/`: its path always ends with `/`, so that a page's
/// path is added to it, not put in place of its last segment.
#[derive(Clone, PartialEq, Eq)]
pub struct PageUrl(url::Url);

impl PageUrl {
    /// Checks an address; the error says what is expected.
    pub fn parse(text: &str) -> Result<PageUrl, String> {
        let mut url = url::Url::parse(text.trim()).map_err(|e| {
            format!(
                "expected the http or https address of `ratewatch serve`, got something else ({e})"
            )
        })?;
        if !matches!(url.scheme(), "http" | "https") {
            return Err(format!(
                "expected an http or https address, got a {}: URL",
                url.scheme()
            ));
        }
        if url.host_str().is_none_or(str::is_empty) {
            return Err("expected an http or https address with a host".into());
        }
        if !url.username().is_empty() || url.password().is_some() {
            return Err(
                "the address is written into every message: it takes no user or password (the page has its own sign-in)"
                    .into(),
            );
        }
        if url.query().is_some() || url.fragment().is_some() {
            return Err(
                "expected the page's address without `?…` or `#…`: the page's own paths are added to it"
                    .into(),
            );
        }
        if !url.path().ends_with('/') {
            let path = format!("{}/", url.path());
            url.set_path(&path);
        }
        Ok(PageUrl(url))
    }

    /// The inbox: each portfolio's alerts to act on.
    pub fn inbox(&self) -> String {
        self.0.to_string()
    }

    /// A company's page, by the service's id of the company.
    pub fn company(&self, company_id: &str) -> String {
        self.join(&format!("company/{}", encoded(company_id)))
    }

    /// A portfolio's page: its latest run, its trend, its rows not monitored and why.
    pub fn portfolio(&self, name: &str) -> String {
        self.join(&format!("portfolio?name={}", encoded(name)))
    }

    fn join(&self, path: &str) -> String {
        match self.0.join(path) {
            Ok(url) => url.to_string(),
            Err(_) => format!("{}{path}", self.0),
        }
    }
}

/// A path segment or query value, percent-encoded: a name with a space, `&` or `/` stays
/// one value, and no character of it can end a chat's link (`|`, `>`).
fn encoded(text: &str) -> String {
    url::form_urlencoded::byte_serialize(text.as_bytes())
        .collect::<String>()
        .replace('+', "%20")
}

impl fmt::Debug for PageUrl {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "PageUrl({})", self.0)
    }
}

impl fmt::Display for PageUrl {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.0.as_str())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_page_address_takes_the_pages_paths_below_it() {
        let page = PageUrl::parse(" https://credit.example.com/ratewatch ").unwrap();
        assert_eq!(page.inbox(), "https://credit.example.com/ratewatch/");
        assert_eq!(
            page.company("fc1e733d-c34f-4564-940a-51e0f4d721c0"),
            "https://credit.example.com/ratewatch/company/fc1e733d-c34f-4564-940a-51e0f4d721c0"
        );
        assert_eq!(
            page.portfolio("clients FR & DE|x>"),
            "https://credit.example.com/ratewatch/portfolio?name=clients%20FR%20%26%20DE%7Cx%3E"
        );
        let root = PageUrl::parse("http://127.0.0.1:8080").unwrap();
        assert_eq!(root.inbox(), "http://127.0.0.1:8080/");
        assert_eq!(root.company("a/b"), "http://127.0.0.1:8080/company/a%2Fb");
    }

    #[test]
    fn an_address_that_is_no_page_s_is_refused_with_what_is_expected() {
        for (text, said) in [
            ("credit.example.com", "expected the http or https address"),
            ("ftp://credit.example.com/", "got a ftp: URL"),
            ("file:///srv/x", "got a file: URL"),
            ("https://user:pw@credit.example.com/", "no user or password"),
            (
                "https://credit.example.com/?token=x",
                "without `?…` or `#…`",
            ),
            ("https://credit.example.com/#inbox", "without `?…` or `#…`"),
        ] {
            let error = PageUrl::parse(text).unwrap_err();
            assert!(error.contains(said), "{text}: {error}");
            assert!(!error.contains("pw@"), "{error}");
        }
    }
}
