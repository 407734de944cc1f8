//! A time zone of the IANA database (`Europe/Paris`), kept with its name: the name is what
//! the settings show, the zone what turns a UTC time into the reader's.

use std::str::FromStr;

use jiff::tz::TimeZone;
use serde::{Serialize, Serializer};

/// A named time zone; UTC by default.
#[derive(Debug, Clone)]
pub struct Zone {
    name: String,
    zone: TimeZone,
}

impl Zone {
    pub fn utc() -> Zone {
        Zone {
            name: "UTC".into(),
            zone: TimeZone::UTC,
        }
    }

    /// The zone of this IANA name (`Europe/Paris`, `UTC`; any case), from the machine's
    /// database or else the one ratewatch carries.
    pub fn named(name: &str) -> Option<Zone> {
        let name = name.trim();
        let zone = TimeZone::get(name).ok()?;
        // The database's own spelling: `europe/paris` is shown as `Europe/Paris`.
        let name = zone.iana_name().unwrap_or(name).to_string();
        Some(Zone { name, zone })
    }

    /// The machine's zone, and the variable that named it: `TZ` (`Europe/Paris`,
    /// `:Europe/Paris`, a path into a zoneinfo folder), else the zone `/etc/localtime` links
    /// to or `/etc/timezone` names, else UTC.
    pub fn of_machine(env: impl Fn(&str) -> Option<String>) -> (Zone, Option<&'static str>) {
        if let Some(zone) = env("TZ").as_deref().and_then(Zone::of_tz) {
            return (zone, Some("TZ"));
        }
        let linked = std::fs::read_link("/etc/localtime")
            .ok()
            .and_then(|p| Zone::of_tz(&p.to_string_lossy()));
        let named = || {
            std::fs::read_to_string("/etc/timezone")
                .ok()
                .and_then(|n| Zone::named(&n))
        };
        (linked.or_else(named).unwrap_or_else(Zone::utc), None)
    }

    /// A `TZ` value naming a zone of the database.
    fn of_tz(value: &str) -> Option<Zone> {
        let value = value.trim().trim_start_matches(':');
        let name = value
            .rsplit_once("zoneinfo/")
            .map_or(value, |(_, name)| name);
        Zone::named(name)
    }

    /// Whether this is UTC under any of the names the database gives it (`UTC`,
    /// `Etc/UTC`, `Zulu`, …): a machine set to `Etc/UTC` reads UTC as one set to `UTC` does.
    pub fn is_utc(&self) -> bool {
        const NAMES: [&str; 8] = [
            "UTC",
            "Etc/UTC",
            "UCT",
            "Etc/UCT",
            "Universal",
            "Etc/Universal",
            "Zulu",
            "Etc/Zulu",
        ];
        NAMES.iter().any(|n| n.eq_ignore_ascii_case(&self.name))
    }

    /// The name as the database spells it.
    pub fn name(&self) -> &str {
        &self.name
    }

    pub fn time_zone(&self) -> &TimeZone {
        &self.zone
    }
}

impl Default for Zone {
    fn default() -> Self {
        Zone::utc()
    }
}

impl PartialEq for Zone {
    fn eq(&self, other: &Self) -> bool {
        self.name == other.name
    }
}

impl FromStr for Zone {
    type Err = String;

    fn from_str(name: &str) -> Result<Self, Self::Err> {
        Zone::named(name).ok_or_else(|| format!("{name:?} is not a time zone of the IANA database"))
    }
}

impl std::fmt::Display for Zone {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.name)
    }
}

/// As `ratewatch config` shows it: its name.
impl Serialize for Zone {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_str(&self.name)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_zone_is_named_as_the_database_spells_it() {
        assert_eq!(Zone::named("Europe/Paris").unwrap().name(), "Europe/Paris");
        assert_eq!(
            Zone::named("europe/berlin").unwrap().name(),
            "Europe/Berlin"
        );
        assert_eq!(Zone::named("UTC").unwrap().name(), "UTC");
        assert!(Zone::named("Europe/Lyon").is_none());
        assert!(Zone::named("").is_none());
        assert!("Mars/Olympus".parse::<Zone>().is_err());
    }

    #[test]
    fn tz_names_a_zone_in_every_way_it_is_written() {
        let tz = |value: &'static str| move |var: &str| (var == "TZ").then(|| value.to_string());
        for value in [
            "Europe/Paris",
            ":Europe/Paris",
            "/usr/share/zoneinfo/Europe/Paris",
        ] {
            let (zone, var) = Zone::of_machine(tz(value));
            assert_eq!((zone.name(), var), ("Europe/Paris", Some("TZ")), "{value}");
        }
        // A zone the database does not know is not the reader's: the machine's is.
        let (_, var) = Zone::of_machine(tz("Nowhere/Atlantis"));
        assert_eq!(var, None);
    }
}
