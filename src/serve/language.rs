//! The language each page is said in: the reader's choice made in the page (`?lang=fr`,
//! kept in the cookie `ratewatch_lang`), else the browser's `Accept-Language`, else the
//! setting `locale`. The time zone is the setting's. A value ratewatch does not speak is
//! ignored; forms keep posting the values programs read (`accept`, `red`), whatever the
//! language.

use axum::extract::{Request, State};
use axum::http::{HeaderMap, HeaderValue, header};
use axum::middleware::Next;
use axum::response::Response;

use super::Shared;
use crate::locale::{Locale, Page, Reader};

/// The cookie that keeps the language chosen in the page.
pub const COOKIE: &str = "ratewatch_lang";

/// Puts the request's [`Page`] in its extensions, for the guard and the handlers; a choice
/// made with `?lang=` is kept in the cookie.
pub async fn choose(State(app): State<Shared>, mut request: Request, next: Next) -> Response {
    let chosen = request.uri().query().and_then(asked);
    let locale = chosen
        .or_else(|| kept(request.headers()))
        .or_else(|| accepted(request.headers()))
        .unwrap_or(app.reader.locale);
    let reader = Reader {
        locale,
        zone: app.reader.zone.clone(),
    };
    request.extensions_mut().insert(Page::new(reader));
    let mut response = next.run(request).await;
    if let Some(locale) = chosen {
        let cookie = format!(
            "{COOKIE}={}; Path=/; SameSite=Lax; Max-Age=31536000",
            locale.code()
        );
        if let Ok(value) = HeaderValue::from_str(&cookie) {
            response.headers_mut().append(header::SET_COOKIE, value);
        }
    }
    response
}

/// The language a query asks for (`lang=de`), if ratewatch speaks it.
fn asked(query: &str) -> Option<Locale> {
    url::form_urlencoded::parse(query.as_bytes())
        .find(|(key, _)| key == "lang")
        .and_then(|(_, value)| spoken(&value))
}

/// A language code ratewatch speaks: `fr`, `de`, `en`; nothing else.
fn spoken(code: &str) -> Option<Locale> {
    Locale::ALL.into_iter().find(|l| l.code() == code.trim())
}

/// The language the cookie keeps, if it is one ratewatch speaks.
fn kept(headers: &HeaderMap) -> Option<Locale> {
    headers
        .get_all(header::COOKIE)
        .iter()
        .filter_map(|v| v.to_str().ok())
        .flat_map(|v| v.split(';'))
        .filter_map(|pair| pair.trim().split_once('='))
        .find(|(name, _)| *name == COOKIE)
        .and_then(|(_, value)| spoken(value))
}

/// The first language of `Accept-Language` ratewatch speaks, by the weights the browser
/// gives (`fr-CH, fr;q=0.9, en;q=0.8`): `fr-FR` is French, `de-CH` German; a weight of 0
/// refuses a language.
fn accepted(headers: &HeaderMap) -> Option<Locale> {
    let value = headers.get(header::ACCEPT_LANGUAGE)?.to_str().ok()?;
    let mut ranked: Vec<(f32, Locale)> = value
        .split(',')
        .filter_map(|item| {
            let mut parts = item.split(';');
            let locale = Locale::of_tag(parts.next()?)?;
            let weight = parts
                .filter_map(|p| p.trim().strip_prefix("q="))
                .find_map(|q| q.trim().parse::<f32>().ok())
                .unwrap_or(1.0);
            (weight > 0.0).then_some((weight, locale))
        })
        .collect();
    // The heaviest first; among equals, the first given.
    ranked.sort_by(|a, b| b.0.total_cmp(&a.0));
    ranked.first().map(|(_, locale)| *locale)
}

/// The links of the page's language switch: each language by its own name, to the page
/// `back` (a path of this server, with its query) in that language.
pub fn switch(back: &str) -> Vec<(&'static str, &'static str, String)> {
    let (path, query) = back.split_once('?').unwrap_or((back, ""));
    let kept: Vec<(String, String)> = url::form_urlencoded::parse(query.as_bytes())
        .filter(|(key, _)| key != "lang" && key != "said" && key != "error" && key != "sig")
        .map(|(k, v)| (k.into_owned(), v.into_owned()))
        .collect();
    Locale::ALL
        .into_iter()
        .map(|locale| {
            let mut query = url::form_urlencoded::Serializer::new(String::new());
            query.extend_pairs(&kept);
            query.append_pair("lang", locale.code());
            let name = match locale {
                Locale::En => "English",
                Locale::Fr => "Français",
                Locale::De => "Deutsch",
            };
            (locale.code(), name, format!("{path}?{}", query.finish()))
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn accept(value: &str) -> Option<Locale> {
        let mut headers = HeaderMap::new();
        headers.insert(header::ACCEPT_LANGUAGE, value.parse().unwrap());
        accepted(&headers)
    }

    #[test]
    fn accept_language_is_read_by_its_weights() {
        assert_eq!(accept("fr-FR"), Some(Locale::Fr));
        assert_eq!(accept("de-CH, fr;q=0.9"), Some(Locale::De));
        assert_eq!(accept("es-ES, de;q=0.5, fr;q=0.7"), Some(Locale::Fr));
        assert_eq!(accept("en;q=0.2, de-AT;q=0.8"), Some(Locale::De));
        assert_eq!(accept("fr;q=0, de;q=0.1"), Some(Locale::De));
        assert_eq!(accept("es, it, *"), None);
        assert_eq!(accept(""), None);
    }

    #[test]
    fn only_a_language_ratewatch_speaks_is_taken_from_the_query_or_the_cookie() {
        assert_eq!(asked("lang=de"), Some(Locale::De));
        assert_eq!(asked("name=book&lang=fr"), Some(Locale::Fr));
        assert_eq!(asked("lang=xx"), None);
        assert_eq!(asked("lang=fr-FR"), None);
        let mut headers = HeaderMap::new();
        headers.insert(
            header::COOKIE,
            "ratewatch_session=abc; ratewatch_lang=de".parse().unwrap(),
        );
        assert_eq!(kept(&headers), Some(Locale::De));
        headers.insert(header::COOKIE, "ratewatch_lang=klingon".parse().unwrap());
        assert_eq!(kept(&headers), None);
    }

    #[test]
    fn the_switch_keeps_the_page_and_its_query() {
        let links = switch("/portfolio?name=Book+A&lang=en");
        assert_eq!(links[1].2, "/portfolio?name=Book+A&lang=fr");
        assert_eq!(switch("/")[2].2, "/?lang=de");
    }
}
