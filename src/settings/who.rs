//! Who a decision made on the command line is recorded as: `--by NAME` when given, else
//! the operating-system user running the command, as its login sets it (`LOGNAME`, `USER`,
//! `LNAME`, `USERNAME`, in the order Python's `getpass` reads them), else the user of the
//! process's id as the password file names it (or `uid N`). No crate is needed for that:
//! the id is the owner of `/proc/self`, which needs no unsafe call to `getuid`.

use crate::error::Error;
use crate::model::person_name;

/// The variables the login sets to the user's name, in the order they are read.
const USER_VARIABLES: [&str; 4] = ["LOGNAME", "USER", "LNAME", "USERNAME"];

/// Who a decision is recorded as: `given` (`--by`), checked, else [`os_user`]. `env` reads
/// a variable (`std::env::var`, or a test's).
pub fn decided_by(
    given: Option<&str>,
    env: impl Fn(&str) -> Option<String>,
) -> Result<String, Error> {
    match given {
        Some(name) => person_name(name).map_err(|why| Error::Config(format!("--by: {why}"))),
        None => Ok(os_user(env)),
    }
}

/// The operating-system user running the command: the first of [`USER_VARIABLES`] that
/// holds a name, else the name of the process's user id, else `uid N`, else `(unknown user)`.
pub fn os_user(env: impl Fn(&str) -> Option<String>) -> String {
    USER_VARIABLES
        .iter()
        .find_map(|var| env(var).and_then(|v| person_name(&v).ok()))
        .or_else(user_of_process)
        .unwrap_or_else(|| "(unknown user)".to_string())
}

/// The name of the process's user in `/etc/passwd`, or `uid N` when it has none there (a
/// container's user, one known to a directory service only).
#[cfg(unix)]
fn user_of_process() -> Option<String> {
    use std::os::unix::fs::MetadataExt;
    let uid = std::fs::metadata("/proc/self").ok()?.uid();
    let passwd = std::fs::read_to_string("/etc/passwd").unwrap_or_default();
    Some(user_named(&passwd, uid).unwrap_or_else(|| format!("uid {uid}")))
}

#[cfg(not(unix))]
fn user_of_process() -> Option<String> {
    None
}

/// The name `passwd` (the text of `/etc/passwd`: `name:x:uid:…` lines) gives user `uid`.
#[cfg_attr(not(unix), allow(dead_code))]
fn user_named(passwd: &str, uid: u32) -> Option<String> {
    passwd.lines().find_map(|line| {
        let mut fields = line.split(':');
        let name = fields.next()?;
        let id = fields.nth(1)?.parse::<u32>().ok()?;
        (id == uid).then(|| person_name(name).ok()).flatten()
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn by_wins_then_the_login_s_variables_in_order() {
        let env = |var: &str| match var {
            "USER" => Some("paul".to_string()),
            "LOGNAME" => Some("  ".to_string()),
            _ => None,
        };
        assert_eq!(decided_by(Some(" Marie "), env).unwrap(), "Marie");
        assert_eq!(
            decided_by(None, env).unwrap(),
            "paul",
            "a blank one is passed"
        );
        let refused = decided_by(Some("\u{1b}[31m"), env).unwrap_err().to_string();
        assert!(refused.contains("--by"), "{refused}");
        let login = |var: &str| (var == "LOGNAME").then(|| "marie".to_string());
        assert_eq!(os_user(login), "marie");
        // With no variable at all, the process's own user: never empty.
        assert!(!os_user(|_| None).is_empty());
    }

    #[test]
    fn a_user_id_is_named_from_the_password_file() {
        let passwd =
            "root:x:0:0:root:/root:/bin/bash\n# note\nmarie:x:1000:1000::/home/marie:/bin/sh\n";
        assert_eq!(user_named(passwd, 1000).as_deref(), Some("marie"));
        assert_eq!(user_named(passwd, 0).as_deref(), Some("root"));
        assert_eq!(user_named(passwd, 42), None);
    }
}
