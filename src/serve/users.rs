//! The people who may use the page (`ratewatch serve --users FILE`), so that each
//! acknowledgement and decision names the person who made it.
//!
//! The file holds one person per line, `NAME:SHA256`: a name, and the SHA-256 of that
//! person's own token in hexadecimal (`ratewatch serve --hash-token NAME` prints the line,
//! the token read from stdin). The file never holds a token: whoever reads it cannot sign
//! in. A token is random and 32 characters at least, so a plain SHA-256 is enough to keep
//! it from being found again. Blank lines and lines starting with `#` are left out.

use sha2::{Digest, Sha256};

use super::guard::check_token;
use crate::error::Error;
use crate::model::person_name;

/// One person of the file: the name recorded with what they do, and the SHA-256 of their
/// token.
#[derive(Clone, PartialEq, Eq)]
pub struct User {
    pub name: String,
    pub token_sha256: [u8; 32],
}

/// The hash is not a secret, but it has no business in a log either.
impl std::fmt::Debug for User {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("User").field("name", &self.name).finish()
    }
}

/// The SHA-256 of a token, without the spaces and line breaks around it.
pub fn token_sha256(token: &str) -> [u8; 32] {
    Sha256::digest(token.trim().as_bytes()).into()
}

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

/// The line of the users file for the person `name` with `token`: `NAME:SHA256`. A name
/// that cannot be one, or a token too short to be safe, is refused (the token never said).
pub fn users_line(name: &str, token: &str) -> Result<String, Error> {
    let name = person_name(name).map_err(|why| Error::Config(format!("--hash-token: {why}")))?;
    if name.contains(':') {
        return Err(Error::Config(
            "--hash-token: the name holds a `:`, which separates it from the hash".into(),
        ));
    }
    check_token(token, "the token read from stdin")?;
    Ok(format!("{name}:{}", hex(&token_sha256(token))))
}

/// The people of a users file's `text`; `file` names it in errors, which say the line and
/// the field. A file naming nobody, a name twice or a token twice is refused.
pub fn parse_users(text: &str, file: &str) -> Result<Vec<User>, Error> {
    let mut users: Vec<(usize, User)> = Vec::new();
    for (i, line) in text.lines().enumerate() {
        let number = i + 1;
        let line = line.trim();
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        let wrong = |what: String| Error::Config(format!("{file}: line {number}: {what}"));
        let Some((name, hash)) = line.rsplit_once(':') else {
            return Err(wrong(
                "no `:` between the name and the token's SHA-256 (a line is NAME:SHA256, as \
                 `ratewatch serve --hash-token NAME` prints it)"
                    .into(),
            ));
        };
        let name = person_name(name).map_err(|why| wrong(format!("name: {why}")))?;
        let hash = hash.trim();
        let token_sha256 = parse_hex(hash).ok_or_else(|| {
            wrong(format!(
                "SHA-256: {} characters where 64 hexadecimal digits are expected (the line \
                 `ratewatch serve --hash-token {name}` prints, never the token itself)",
                hash.chars().count()
            ))
        })?;
        if let Some((other, _)) = users.iter().find(|(_, u)| u.name == name) {
            return Err(wrong(format!("name: {name:?} is on line {other} already")));
        }
        if let Some((other, _)) = users.iter().find(|(_, u)| u.token_sha256 == token_sha256) {
            return Err(wrong(format!(
                "SHA-256: the same token as line {other}'s: each person needs a token of their own"
            )));
        }
        users.push((number, User { name, token_sha256 }));
    }
    if users.is_empty() {
        return Err(Error::Config(format!(
            "{file}: no user: write one line NAME:SHA256 per person (`ratewatch serve --hash-token NAME` prints it)"
        )));
    }
    Ok(users.into_iter().map(|(_, u)| u).collect())
}

/// 64 hexadecimal digits as 32 bytes.
fn parse_hex(text: &str) -> Option<[u8; 32]> {
    if text.len() != 64 || !text.is_ascii() {
        return None;
    }
    let mut bytes = [0u8; 32];
    for (i, byte) in bytes.iter_mut().enumerate() {
        *byte = u8::from_str_radix(&text[2 * i..2 * i + 2], 16).ok()?;
    }
    Some(bytes)
}

#[cfg(test)]
mod tests {
    use super::*;

    const MARIE: &str = "marie-s-token-of-thirty-two-chars-at-least";
    const PAUL: &str = "paul-s-token-of-thirty-two-characters-or-more";

    #[test]
    fn a_line_made_for_a_person_is_read_back_and_never_holds_the_token() {
        let marie = users_line("Marie Durand", &format!("{MARIE}\n")).unwrap();
        assert!(!marie.contains(MARIE), "{marie}");
        assert_eq!(marie.len(), "Marie Durand:".len() + 64);
        let paul = users_line("paul", PAUL).unwrap();
        let text = format!("# credit team\n{marie}\n\n  {paul}  \n");
        let users = parse_users(&text, "users.txt").unwrap();
        assert_eq!(users.len(), 2);
        assert_eq!(users[0].name, "Marie Durand");
        assert_eq!(users[0].token_sha256, token_sha256(MARIE));
        assert_eq!(users[1].name, "paul");
        assert!(
            !format!("{users:?}").contains(&marie[13..]),
            "no hash in Debug"
        );
    }

    #[test]
    fn a_wrong_line_is_named_with_its_field_and_a_short_token_refused() {
        let marie = users_line("marie", MARIE).unwrap();
        let err = |text: &str| parse_users(text, "users.txt").unwrap_err().to_string();
        assert!(
            err("marie\n").starts_with("users.txt: line 1: no `:`"),
            "{}",
            err("marie\n")
        );
        let short = err("# x\nmarie:abc\n");
        assert!(
            short.starts_with("users.txt: line 2: SHA-256: 3 characters"),
            "{short}"
        );
        let twice = err(&format!(
            "{marie}\n{}\n",
            users_line("marie", PAUL).unwrap()
        ));
        assert!(
            twice.contains("line 2: name: \"marie\" is on line 1"),
            "{twice}"
        );
        let shared = err(&format!(
            "{marie}\n{}\n",
            users_line("paul", MARIE).unwrap()
        ));
        assert!(
            shared.contains("line 2: SHA-256: the same token"),
            "{shared}"
        );
        assert!(err(&format!(":{}\n", &marie[6..])).contains("line 1: name: the name is empty"));
        assert!(err("# nobody\n").contains("no user"));
        let refused = users_line("marie", "short-token").unwrap_err().to_string();
        assert!(
            refused.contains("fewer than 32") && !refused.contains("short-token"),
            "{refused}"
        );
        assert!(users_line("a:b", MARIE).is_err());
    }
}
