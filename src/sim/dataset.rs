//! The simulated companies and their colors: a pure function of a seed.
//!
//! Nothing is stored. A company is a number `n` within a country; its UUID, registry
//! identifiers and name are reversible encodings of that number, so a lookup by any of
//! them finds the company again without a scan, whatever the dataset's size, and a
//! restarted simulator with the same seed knows the same companies. Colors are a pure
//! function of (company, simulated day); the dates on them follow a [`Calendar`], which
//! puts the served day on today (the demo stays fresh on the local clock).
//!
//! This module never decides what an HTTP answer looks like; that is `server`'s job.

use jiff::Timestamp;
use jiff::civil::Date;
use uuid::Uuid;

use super::catalog::{self, Check, IdFormat, RatedCountry};
use crate::api::models::{Address, ApiTime, Company, Country, ExternalId, IdentifierService};
use crate::model::Color;

/// Largest dataset: six-digit registries (Irish CNIE, German HRB) hold a million numbers.
pub const MAX_PER_COUNTRY: u32 = 1_000_000;

/// Most candidates a name search returns, as real services cap their result lists.
pub const MAX_NAME_RESULTS: usize = 20;

/// Day 0 of a calendar that dates no day ([`Calendar::default`]).
pub const EPOCH: Date = jiff::civil::date(2026, 1, 1);

/// Per-day chance, in thousandths, that a company's rating is recalculated with news.
const EVENT_PER_MILLE: u64 = 40;
/// How far back the color function looks for the last event before using the initial one.
const HISTORY_FLOOR: i64 = -400;

/// A company of the dataset: the `n`th of country `country` (index into `catalog::RATED`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct CompanyRef {
    pub country: usize,
    pub n: u32,
}

/// A company's rating on one simulated day.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DayRating {
    pub color: Color,
    pub last_change: ApiTime,
    pub last_refresh: ApiTime,
}

/// The optional filters of a name search, as received.
#[derive(Debug, Clone, Default)]
pub struct NameFilters {
    pub street_number: Option<String>,
    pub street_name: Option<String>,
    pub city: Option<String>,
    pub postcode: Option<String>,
    pub phone_number: Option<String>,
}

/// What the words of a name query ask of a name: a fixed word in some of its three
/// positions, a numbered block, the Holding member, and the legal forms (a bit each, by
/// index in the country's list) that hold every legal-form word of the query.
#[derive(Debug)]
struct NameNeeds {
    words: [Option<usize>; 3],
    block: Option<u64>,
    holding: bool,
    forms: u32,
}

/// A reversible affine scramble `x = (n·a + b) mod m`.
#[derive(Debug, Clone, Copy)]
struct Scramble {
    a: u128,
    a_inv: u128,
    b: u128,
    m: u128,
}

impl Scramble {
    fn new(m: u64, h: u64) -> Self {
        let m = m as u128;
        let mut a = (h as u128 | 1) % m;
        while gcd(a, m) != 1 || a < 2 {
            a = (a + 2) % m;
        }
        Scramble {
            a,
            a_inv: mod_inverse(a, m),
            b: (mix(h) as u128) % m,
            m,
        }
    }
    fn forward(&self, n: u64) -> u64 {
        ((n as u128 * self.a + self.b) % self.m) as u64
    }
    fn backward(&self, x: u64) -> u64 {
        (((x as u128 + self.m - self.b) % self.m * self.a_inv) % self.m) as u64
    }
}

/// Where simulated days fall: one day after another, except that a dated day falls on
/// its date.
///
/// The simulator dates the day it serves (today, unless told otherwise), so its ratings
/// are recalculated in the days before today and the demo is never stale on this
/// machine's clock. A `--demo` run dates each day earlier demo runs served on the day it
/// served it, so a day's ratings keep their dates from one run to the next (moved dates
/// would make every rating look recalculated), and a day served again later (several runs
/// in one day) falls on a later date, never on one still to come. Days between two dated
/// ones are one day apart until the later date (where they stay); days before the first
/// run back from it; days after the last one on from it. With no day dated, day 0 is
/// [`EPOCH`].
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Calendar {
    /// (day, date), by day, with dates that never go back.
    dated: Vec<(i64, Date)>,
}

impl Calendar {
    /// Days on their dates (a later day on a date before an earlier one's falls on that
    /// one's: the calendar never goes back).
    pub fn dated(days: impl IntoIterator<Item = (i64, Date)>) -> Calendar {
        let mut dated: Vec<(i64, Date)> = days.into_iter().collect();
        dated.sort_by_key(|(day, _)| *day);
        dated.dedup_by_key(|(day, _)| *day);
        for i in 1..dated.len() {
            dated[i].1 = dated[i].1.max(dated[i - 1].1);
        }
        Calendar { dated }
    }

    /// The same, with `day` on `date` unless it is dated already.
    pub fn with_day_on(self, day: i64, date: Date) -> Calendar {
        if self.dated.iter().any(|(d, _)| *d == day) {
            return self;
        }
        let mut dated = self.dated;
        dated.push((day, date));
        Calendar::dated(dated)
    }

    /// The date of a simulated day.
    pub fn date(&self, day: i64) -> Date {
        let plus = |date: Date, days: i64| {
            date.checked_add(jiff::Span::new().days(days))
                .unwrap_or(date)
        };
        let after = self.dated.partition_point(|(d, _)| *d <= day);
        match (
            after.checked_sub(1).map(|i| self.dated[i]),
            self.dated.get(after),
        ) {
            (None, None) => plus(EPOCH, day),
            (None, Some(&(next, date))) => plus(date, day - next),
            (Some((from, date)), next) => {
                let date = plus(date, day - from);
                next.map_or(date, |&(_, next)| date.min(next))
            }
        }
    }

    /// Where a simulated day starts, in seconds since 1970 (UTC).
    fn day_start(&self, day: i64) -> i64 {
        self.date(day)
            .to_zoned(jiff::tz::TimeZone::UTC)
            .map(|z| z.timestamp().as_second())
            .unwrap_or(0)
    }
}

/// The whole simulated world for one seed.
#[derive(Debug, Clone)]
pub struct Dataset {
    seed: u64,
    per_country: u32,
    names: Scramble,
    name_space: u64,
    calendar: Calendar,
}

impl Dataset {
    /// `per_country` companies in each of the ten rated countries (at most
    /// [`MAX_PER_COUNTRY`]).
    pub fn new(seed: u64, per_country: u32) -> Self {
        let per_country = per_country.clamp(1, MAX_PER_COUNTRY);
        let name_space =
            (catalog::FIRST.len() * catalog::SECOND.len() * catalog::THIRD.len()) as u64;
        Dataset {
            seed,
            per_country,
            names: Scramble::new(name_space, hash(seed, &[0x4e41_4d45])),
            name_space,
            calendar: Calendar::default(),
        }
    }

    /// The same world with its ratings dated by `calendar`.
    pub fn with_calendar(mut self, calendar: Calendar) -> Self {
        self.calendar = calendar;
        self
    }

    /// Where its days fall.
    pub fn calendar(&self) -> &Calendar {
        &self.calendar
    }

    pub fn per_country(&self) -> u32 {
        self.per_country
    }

    /// Every company, country by country.
    pub fn companies(&self) -> impl Iterator<Item = CompanyRef> + '_ {
        (0..catalog::RATED.len())
            .flat_map(move |country| (0..self.per_country).map(move |n| CompanyRef { country, n }))
    }

    /// Index of a rated country, any case.
    pub fn country_index(code: &str) -> Option<usize> {
        catalog::RATED
            .iter()
            .position(|c| c.code.eq_ignore_ascii_case(code.trim()))
    }

    // ----- identity -------------------------------------------------------------------

    /// The company's UUID: a keyed permutation of (country, n) with a keyed check, so that
    /// it looks random, maps back, and a made-up UUID is (almost surely) unknown.
    pub fn uuid(&self, r: CompanyRef) -> Uuid {
        let payload = feistel(self.seed, ((r.country as u64) << 32) | r.n as u64, false);
        let check = hash(self.seed, &[payload, 0x55_55]);
        let p = payload.to_be_bytes();
        let c = check.to_be_bytes();
        Uuid::from_bytes([
            p[0],
            p[1],
            p[2],
            p[3],
            p[4],
            p[5],
            0x40 | (c[0] & 0x0f),
            p[6],
            0x80 | (c[1] & 0x3f),
            p[7],
            c[2],
            c[3],
            c[4],
            c[5],
            c[6],
            c[7],
        ])
    }

    /// The company behind a UUID, if it is one of ours.
    pub fn find_uuid(&self, id: Uuid) -> Option<CompanyRef> {
        let b = id.as_bytes();
        let payload = u64::from_be_bytes([b[0], b[1], b[2], b[3], b[4], b[5], b[7], b[9]]);
        let plain = feistel(self.seed, payload, true);
        let r = CompanyRef {
            country: (plain >> 32) as usize,
            n: plain as u32,
        };
        (r.country < catalog::RATED.len() && r.n < self.per_country && self.uuid(r) == id)
            .then_some(r)
    }

    /// The company's registry identifiers: always the country's main one, others by chance.
    pub fn external_ids(&self, r: CompanyRef) -> Vec<ExternalId> {
        let country = &catalog::RATED[r.country];
        country
            .services
            .iter()
            .filter(|s| self.has_service(r, s.code, s.presence))
            .map(|s| ExternalId {
                external_id: self.encode_id(r, s.code, &s.format),
                external_service: s.code.to_string(),
            })
            .collect()
    }

    /// The company holding identifier `id` of `service` in the rated country `country`.
    /// Spaces, dots and dashes are ignored and letters may be in any case.
    pub fn find_external(&self, country: usize, service: &str, id: &str) -> Option<CompanyRef> {
        let spec = catalog::RATED[country]
            .services
            .iter()
            .find(|s| s.code.eq_ignore_ascii_case(service))?;
        let wanted = id_key(id);
        let n = self.decode_id(country, spec.code, &spec.format, &wanted)?;
        let r = CompanyRef { country, n };
        (self.has_service(r, spec.code, spec.presence)
            && id_key(&self.encode_id(r, spec.code, &spec.format)) == wanted)
            .then_some(r)
    }

    fn has_service(&self, r: CompanyRef, code: &str, presence: u8) -> bool {
        presence >= 100
            || hash(self.seed, &[r.country as u64, r.n as u64, str_key(code)]) % 100
                < presence as u64
    }

    fn id_scramble(&self, country: usize, code: &str, format: &IdFormat) -> Scramble {
        let key = format.number_of.unwrap_or(code);
        Scramble::new(
            10u64.pow(format.digits),
            hash(self.seed, &[country as u64, str_key(key), 0x1d]),
        )
    }

    fn encode_id(&self, r: CompanyRef, code: &str, format: &IdFormat) -> String {
        let x = self
            .id_scramble(r.country, code, format)
            .forward(r.n as u64);
        let mut digits = format!("{:0width$}", x, width = format.digits as usize);
        match format.check {
            Check::None => {}
            Check::Luhn => digits.push(luhn_digit(&format!(
                "{}{digits}",
                lead_digits(format.prefix)
            ))),
            Check::Mod97 => {
                let whole: u64 = format!("{}{digits}", lead_digits(format.prefix))
                    .parse()
                    .unwrap_or(0);
                digits.push_str(&format!("{:02}", 97 - whole % 97));
            }
        }
        if format.siret {
            // The establishment number: four digits, then the digit that makes all 14 pass Luhn.
            let nic = format!(
                "{:04}",
                10 + (hash(self.seed, &[r.country as u64, r.n as u64, 0x51]) % 90)
            );
            let body = format!("{digits}{nic}");
            digits = format!("{body}{}", luhn_digit(&body));
        }
        let mut out = String::new();
        for (i, ch) in format.prefix.chars().chain(digits.chars()).enumerate() {
            if format.groups.contains(&i) {
                out.push(format.separator);
            }
            out.push(ch);
        }
        out.push_str(format.suffix);
        out
    }

    fn decode_id(&self, country: usize, code: &str, format: &IdFormat, key: &str) -> Option<u32> {
        let prefix = id_key(format.prefix);
        let rest = key.strip_prefix(prefix.as_str())?;
        let rest = rest.strip_suffix(id_key(format.suffix).as_str())?;
        let digits: String = rest.chars().filter(|c| c.is_ascii_digit()).collect();
        let scrambled = digits.get(..format.digits as usize)?;
        let x: u64 = scrambled.parse().ok()?;
        let n = self.id_scramble(country, code, format).backward(x);
        (n < self.per_country as u64).then_some(n as u32)
    }

    // ----- names and addresses ---------------------------------------------------------

    /// Companies come in same-name groups: in every ten numbers, the first three share a
    /// base name (the first two exactly, in different cities; the third adds "Holding"),
    /// the other seven have names of their own.
    fn name_key(n: u32) -> (u64, u32) {
        if n % 10 < 3 {
            ((n - n % 10) as u64, n % 10)
        } else {
            (n as u64, 0)
        }
    }

    fn base_words(&self, key: u64) -> String {
        let (block, rest) = (key / self.name_space, key % self.name_space);
        let combo = self.names.forward(rest) as usize;
        let (l2, l3) = (catalog::SECOND.len(), catalog::THIRD.len());
        let mut name = format!(
            "{} {} {}",
            catalog::FIRST[combo / (l2 * l3)],
            catalog::SECOND[combo / l3 % l2],
            catalog::THIRD[combo % l3]
        );
        if block > 0 {
            name.push_str(&format!(" {}", block + 1));
        }
        name
    }

    fn legal_form(&self, r: CompanyRef) -> &'static str {
        let (key, _) = Self::name_key(r.n);
        catalog::RATED[r.country].legal_forms[self.legal_form_index(r.country, key)]
    }

    /// The legal form, as an index into the country's list, of every company named from
    /// base-name `key`.
    fn legal_form_index(&self, country: usize, key: u64) -> usize {
        let forms = catalog::RATED[country].legal_forms;
        (hash(self.seed, &[country as u64, key, 0x1f]) % forms.len() as u64) as usize
    }

    /// The company's exact registered name.
    pub fn name(&self, r: CompanyRef) -> String {
        let (key, member) = Self::name_key(r.n);
        let base = self.base_words(key);
        let form = self.legal_form(r);
        if member == 2 {
            format!("{base} {} {form}", catalog::HOLDING)
        } else {
            format!("{base} {form}")
        }
    }

    /// The full company record of service.md §2.1.
    pub fn company(&self, r: CompanyRef) -> Company {
        let (address, phone_number) = self.contact(r);
        Company {
            id: self.uuid(r),
            name: self.name(r),
            address,
            phone_number,
            legal_form_code: self
                .legal_form(r)
                .to_uppercase()
                .replace([' ', '.', '&'], ""),
            external_ids: self.external_ids(r),
        }
    }

    /// The company's address and phone number: what a name search's filters look at,
    /// without the cost of encoding its identifiers for every candidate.
    fn contact(&self, r: CompanyRef) -> (Address, Option<String>) {
        let country: &RatedCountry = &catalog::RATED[r.country];
        let h = hash(self.seed, &[r.country as u64, r.n as u64, 0xadd]);
        let (key, member) = Self::name_key(r.n);
        // Members of a same-name group live in different cities so a city filter tells
        // them apart.
        let city_index = (hash(self.seed, &[r.country as u64, key, 0xc1]) as usize
            + member as usize * 3)
            % country.cities.len();
        let (city, postcode_shape) = country.cities[city_index];
        let phone = (!h.is_multiple_of(4)).then(|| fill_pattern(country.phone, mix(h ^ 0x9e)));
        let address = Address {
            street_number: ((h >> 8) % 180 + 1).to_string(),
            street_name: country.streets[((h >> 16) % country.streets.len() as u64) as usize]
                .to_string(),
            post_code: fill_pattern(postcode_shape, mix(h ^ 0x70)),
            city: city.to_string(),
            state_code: String::new(),
            country_code: country.code.to_string(),
            r#type: "main".to_string(),
        };
        (address, phone)
    }

    /// Companies of `country` whose name holds every word of `name`, in any order (case,
    /// accents and punctuation ignored, as [`normalize`] does), and that pass every given
    /// filter: at most [`MAX_NAME_RESULTS`], in a fixed order, a name equal to the query
    /// first.
    ///
    /// Nothing is scanned: each query word fills one position of a name (first, second or
    /// third word, block number, Holding, a word of some legal forms), and only the base
    /// names those positions allow are decoded, until the cap.
    pub fn search_name(
        &self,
        country: usize,
        name: &str,
        filters: &NameFilters,
    ) -> Vec<CompanyRef> {
        let Some(needs) = self.name_needs(country, &normalize(name)) else {
            return Vec::new();
        };
        let any = |fixed: Option<usize>, len: usize| fixed.map_or(0..len, |i| i..i + 1);
        let last_block = (self.per_country as u64 - 1) / self.name_space;
        let blocks: Vec<u64> = (0..=last_block)
            .filter(|b| needs.block.is_none_or(|wanted| wanted == *b))
            .collect();
        let (l2, l3) = (catalog::SECOND.len(), catalog::THIRD.len());
        let mut found = Vec::new();
        // This order meets a name equal to the query before the cap can cut it off: only a
        // query with all three words can equal a name, and then block 0 (no number) comes
        // before numbered blocks and a group's twins before its Holding member.
        for i1 in any(needs.words[0], catalog::FIRST.len()) {
            for i2 in any(needs.words[1], l2) {
                for i3 in any(needs.words[2], l3) {
                    let combo = ((i1 * l2 + i2) * l3 + i3) as u64;
                    for &b in &blocks {
                        let key = b * self.name_space + self.names.backward(combo);
                        if key >= self.per_country as u64
                            || needs.forms & (1 << self.legal_form_index(country, key)) == 0
                        {
                            continue;
                        }
                        // The companies named from `key` (see `name_key`).
                        let members: &[u64] = match (key % 10, needs.holding) {
                            (0, true) => &[2],
                            (0, false) => &[0, 1, 2],
                            (3.., false) => &[0],
                            _ => &[],
                        };
                        for m in members {
                            let n = key + m;
                            if n >= self.per_country as u64 {
                                break;
                            }
                            let r = CompanyRef {
                                country,
                                n: n as u32,
                            };
                            if self.passes(r, filters) {
                                found.push(r);
                                if found.len() >= MAX_NAME_RESULTS {
                                    return found;
                                }
                            }
                        }
                    }
                }
            }
        }
        found
    }

    /// What the words of a normalized query ask of a name, or `None` when no name of
    /// `country` can hold them all. Each word fits one position only (a catalog test keeps
    /// it so), so the needs are a plain conjunction.
    fn name_needs(&self, country: usize, wanted: &str) -> Option<NameNeeds> {
        if wanted.is_empty() {
            return None;
        }
        let forms = catalog::RATED[country].legal_forms;
        let mut needs = NameNeeds {
            words: [None; 3],
            block: None,
            holding: false,
            forms: (1 << forms.len()) - 1,
        };
        for word in wanted.split(' ') {
            let listed = [catalog::FIRST, catalog::SECOND, catalog::THIRD]
                .iter()
                .enumerate()
                .find_map(|(pos, list)| {
                    list.iter()
                        .position(|w| normalize(w) == word)
                        .map(|i| (pos, i))
                });
            if let Some((pos, i)) = listed {
                // Two different words for one position: no name has both.
                if *needs.words[pos].get_or_insert(i) != i {
                    return None;
                }
            } else if word == normalize(catalog::HOLDING) {
                needs.holding = true;
            } else if let Some(number) = word
                .parse::<u64>()
                .ok()
                .filter(|n| *n >= 2 && n.to_string() == word)
            {
                // Block b's names carry the number b + 1 (see `base_words`).
                if *needs.block.get_or_insert(number - 1) != number - 1 {
                    return None;
                }
            } else {
                let with_word = forms
                    .iter()
                    .enumerate()
                    .filter(|(_, f)| normalize(f).split(' ').any(|t| t == word))
                    .fold(0, |mask, (i, _)| mask | 1 << i);
                // A word in no legal form either is in no name.
                needs.forms &= with_word;
                if needs.forms == 0 {
                    return None;
                }
            }
        }
        Some(needs)
    }

    fn passes(&self, r: CompanyRef, f: &NameFilters) -> bool {
        let (address, phone_number) = self.contact(r);
        let same = |want: &Option<String>, have: &str| {
            want.as_deref()
                .map(|w| normalize(w).is_empty() || normalize(w) == normalize(have))
                .unwrap_or(true)
        };
        let digits = |s: &str| s.chars().filter(char::is_ascii_digit).collect::<String>();
        let postcode_ok = f
            .postcode
            .as_deref()
            .map(|p| id_key(p) == id_key(&address.post_code))
            .unwrap_or(true);
        let phone_ok = f
            .phone_number
            .as_deref()
            .map(|p| phone_number.as_deref().map(digits) == Some(digits(p)))
            .unwrap_or(true);
        let street_ok = f
            .street_name
            .as_deref()
            .map(|s| normalize(&address.street_name).contains(&normalize(s)))
            .unwrap_or(true);
        same(&f.city, &address.city)
            && same(&f.street_number, &address.street_number)
            && postcode_ok
            && phone_ok
            && street_ok
    }

    // ----- colors -----------------------------------------------------------------------

    /// The company's rating on simulated `day`, dated by the dataset's [`Calendar`].
    ///
    /// Most companies are green, some yellow, fewer red; about 4 % are white (no
    /// information) throughout; about 1.5 % go insolvent on a day of their own, turning
    /// red three weeks before and black for good after. On any day about 4 % of the
    /// others are recalculated with news, which redraws their color (often the same one:
    /// then only lastChangeDate moves).
    pub fn rating(&self, r: CompanyRef, day: i64) -> DayRating {
        let cid = ((r.country as u64) << 32) | r.n as u64;
        let profile = hash(self.seed, &[cid, 0x9f]);
        let (color, change_day) = if profile % 100 < 4 {
            (Color::White, HISTORY_FLOOR - (profile >> 8) as i64 % 365)
        } else {
            let insolvency = (hash(self.seed, &[cid, 0x1b]) % 1000 < 15)
                .then(|| (hash(self.seed, &[cid, 0x1c]) % 500) as i64 - 150);
            match insolvency {
                Some(d0) if day >= d0 => (Color::Black, d0),
                Some(d0) if day >= d0 - 21 => (Color::Red, d0 - 21),
                _ => {
                    let event = (HISTORY_FLOOR..=day).rev().find(|&d| {
                        hash(self.seed, &[cid, d as u64, 0xe7]) % 1000 < EVENT_PER_MILLE
                    });
                    match event {
                        Some(e) => (draw_color(hash(self.seed, &[cid, e as u64, 0xc0])), e),
                        None => (
                            draw_color(hash(self.seed, &[cid, 0xc0])),
                            HISTORY_FLOOR - 1 - (profile >> 16) as i64 % 365,
                        ),
                    }
                }
            }
        };
        // Ratings are recalculated in the night before their day (22:00 to midnight UTC),
        // so the served day's are never dated after now, and weekly on a weekday of the
        // company's own.
        let change_secs = self.calendar.day_start(change_day) - 7_200
            + (hash(self.seed, &[cid, change_day as u64, 0x7a]) % 5_400) as i64;
        let phase = (profile >> 24) as i64 % 7;
        let refresh_day = day - (day - phase).rem_euclid(7);
        let refresh_secs =
            self.calendar.day_start(refresh_day) - 1_800 + (profile >> 32) as i64 % 1_800;
        let last_change = self.wire_time(cid, 1, change_secs);
        let last_refresh = if refresh_secs > change_secs {
            self.wire_time(cid, 2, refresh_secs)
        } else {
            last_change.clone()
        };
        DayRating {
            color,
            last_change,
            last_refresh,
        }
    }

    /// A time as the service might spell it: with or without `Z`, with 0–9 fractional
    /// digits. The spelling is fixed for a given (company, field, second), so the same
    /// fact always reads back as the same instant.
    fn wire_time(&self, cid: u64, field: u64, secs: i64) -> ApiTime {
        let h = hash(self.seed, &[cid, field, secs as u64, 0xf0]);
        let digits = [0u32, 0, 1, 3, 3, 6, 6, 9][(h % 8) as usize];
        let frac = if digits == 0 {
            0
        } else {
            (h >> 8) % 10u64.pow(digits)
        };
        let nanos = frac * 10u64.pow(9 - digits);
        let instant = Timestamp::new(secs, nanos as i32).unwrap_or(Timestamp::UNIX_EPOCH);
        let mut raw = instant.strftime("%Y-%m-%dT%H:%M:%S").to_string();
        if digits > 0 {
            raw.push_str(&format!(".{:0width$}", frac, width = digits as usize));
        }
        if (h >> 40).is_multiple_of(2) {
            raw.push('Z');
        }
        ApiTime::with_raw(instant, raw)
    }
}

/// The lookup list of countries (service.md §4.7): rated ones, French territories and others.
pub fn countries() -> Vec<Country> {
    let rated = catalog::RATED.iter().map(|c| (c.code, c.name));
    rated
        .chain(catalog::FRENCH_TERRITORIES)
        .chain(catalog::UNRATED)
        .map(|(code, name)| Country {
            country_code: code.to_string(),
            country_name: name.to_string(),
        })
        .collect()
}

/// The lookup list of identifier services (service.md §4.8).
pub fn services() -> Vec<IdentifierService> {
    let mut out = Vec::new();
    for c in &catalog::RATED {
        for s in c.services {
            out.push(IdentifierService {
                identifier_code: s.code.to_string(),
                identifier_country: c.code.to_string(),
                identifier_label: s.label.to_string(),
            });
            if c.code == "FR" {
                for (t, _) in catalog::FRENCH_TERRITORIES {
                    out.push(IdentifierService {
                        identifier_code: s.code.to_string(),
                        identifier_country: t.to_string(),
                        identifier_label: s.label.to_string(),
                    });
                }
            }
        }
    }
    out
}

/// Case, accents and punctuation folded away, words separated by single spaces: how the
/// simulated service compares names.
pub fn normalize(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for ch in s.chars().flat_map(char::to_lowercase) {
        let base = match ch {
            'à' | 'á' | 'â' | 'ã' | 'ä' | 'å' => 'a',
            'ç' => 'c',
            'è' | 'é' | 'ê' | 'ë' => 'e',
            'ì' | 'í' | 'î' | 'ï' => 'i',
            'ñ' => 'n',
            'ò' | 'ó' | 'ô' | 'õ' | 'ö' => 'o',
            'ù' | 'ú' | 'û' | 'ü' => 'u',
            'ý' | 'ÿ' => 'y',
            'ß' => 's',
            c if c.is_alphanumeric() => c,
            // "S.A." is "SA", "l'Étoile" is "letoile".
            '.' | '\'' => continue,
            _ => ' ',
        };
        if base == ' ' {
            if !out.is_empty() && !out.ends_with(' ') {
                out.push(' ');
            }
        } else {
            out.push(base);
        }
    }
    out.trim_end().to_string()
}

/// An identifier as compared: upper case, without spaces, dots or dashes.
fn id_key(s: &str) -> String {
    s.chars()
        .filter(|c| !matches!(c, ' ' | '.' | '-'))
        .flat_map(char::to_uppercase)
        .collect()
}

fn lead_digits(prefix: &str) -> String {
    prefix.chars().filter(char::is_ascii_digit).collect()
}

/// The digit that, appended, makes `digits` pass the Luhn test.
pub fn luhn_digit(digits: &str) -> char {
    let sum: u32 = digits
        .bytes()
        .rev()
        .enumerate()
        .map(|(i, b)| {
            let d = (b - b'0') as u32;
            if i % 2 == 0 {
                let d2 = d * 2;
                if d2 > 9 { d2 - 9 } else { d2 }
            } else {
                d
            }
        })
        .sum();
    char::from(b'0' + ((10 - sum % 10) % 10) as u8)
}

/// Whether a string of digits passes the Luhn test.
pub fn luhn_valid(digits: &str) -> bool {
    let (body, last) = digits.split_at(digits.len() - 1);
    luhn_digit(body).to_string() == last
}

fn draw_color(h: u64) -> Color {
    match h % 100 {
        0..=74 => Color::Green,
        75..=91 => Color::Yellow,
        92..=98 => Color::Red,
        _ => Color::White,
    }
}

fn fill_pattern(pattern: &str, mut h: u64) -> String {
    pattern
        .chars()
        .map(|c| {
            let out = match c {
                '#' => char::from(b'0' + (h % 10) as u8),
                '@' => char::from(b'A' + (h % 26) as u8),
                other => return other,
            };
            h = mix(h);
            out
        })
        .collect()
}

/// splitmix64's finalizer: a fast, well-mixed 64-bit hash step.
fn mix(mut z: u64) -> u64 {
    z = z.wrapping_add(0x9e37_79b9_7f4a_7c15);
    z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    z ^ (z >> 31)
}

fn hash(seed: u64, parts: &[u64]) -> u64 {
    parts.iter().fold(mix(seed), |acc, p| {
        mix(acc ^ p.wrapping_mul(0x100_0000_01b3))
    })
}

fn str_key(s: &str) -> u64 {
    s.bytes().fold(0xcbf2_9ce4_8422_2325, |h, b| {
        (h ^ b as u64).wrapping_mul(0x100_0000_01b3)
    })
}

/// A four-round Feistel network over 64 bits keyed by the seed: a bijection.
fn feistel(seed: u64, x: u64, inverse: bool) -> u64 {
    let (mut l, mut r) = ((x >> 32) as u32, x as u32);
    let round = |i: u64, half: u32| hash(seed, &[i, half as u64, 0xfe]) as u32;
    if inverse {
        for i in (0..4).rev() {
            let prev_r = l;
            let prev_l = r ^ round(i, prev_r);
            (l, r) = (prev_l, prev_r);
        }
    } else {
        for i in 0..4 {
            (l, r) = (r, l ^ round(i, r));
        }
    }
    ((l as u64) << 32) | r as u64
}

fn gcd(a: u128, b: u128) -> u128 {
    if b == 0 { a } else { gcd(b, a % b) }
}

fn mod_inverse(a: u128, m: u128) -> u128 {
    let (mut t, mut new_t) = (0i128, 1i128);
    let (mut r, mut new_r) = (m as i128, a as i128);
    while new_r != 0 {
        let q = r / new_r;
        (t, new_t) = (new_t, t - q * new_t);
        (r, new_r) = (new_r, r - q * new_r);
    }
    t.rem_euclid(m as i128) as u128
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::HashSet;

    fn ds() -> Dataset {
        Dataset::new(7, 2_000)
    }

    #[test]
    fn every_name_word_is_one_token_of_one_position_only() {
        // The name search relies on it: a query word tells which position it fills.
        let mut seen = HashSet::new();
        for list in [
            catalog::FIRST,
            catalog::SECOND,
            catalog::THIRD,
            &[catalog::HOLDING],
        ] {
            for w in list {
                let n = normalize(w);
                assert!(!n.is_empty() && !n.contains(' '), "{w:?} -> {n:?}");
                assert!(n.parse::<u64>().is_err(), "{w:?} reads as a block number");
                assert!(seen.insert(n), "duplicate word {w}");
            }
        }
        for form in catalog::RATED.iter().flat_map(|c| c.legal_forms) {
            for t in normalize(form).split(' ') {
                assert!(!seen.contains(t) && t.parse::<u64>().is_err(), "{form:?}");
            }
        }
    }

    #[test]
    fn uuids_round_trip_and_strangers_are_unknown() {
        let d = ds();
        for r in d.companies().step_by(97) {
            let u = d.uuid(r);
            assert_eq!(u.get_version_num(), 4);
            assert_eq!(d.find_uuid(u), Some(r));
        }
        assert_eq!(d.find_uuid(Uuid::nil()), None);
        assert_eq!(
            d.find_uuid(Uuid::from_u128(0x1234_5678_9abc_4def_8123_4567_89ab_cdef)),
            None
        );
    }

    #[test]
    fn every_identifier_finds_its_company() {
        let d = ds();
        let mut slash = false;
        for r in d.companies().step_by(13) {
            let ids = d.external_ids(r);
            assert!(!ids.is_empty());
            for e in &ids {
                slash |= e.external_id.contains('/');
                assert_eq!(
                    d.find_external(r.country, &e.external_service, &e.external_id),
                    Some(r),
                    "{e:?}"
                );
                // Shaped as the real registries' numbers: no typo warning on them.
                assert_eq!(
                    crate::identifiers::identifier_warning(&e.external_service, &e.external_id),
                    None,
                    "{e:?}"
                );
            }
        }
        assert!(slash, "some identifier must contain a slash");
    }

    #[test]
    fn french_identifiers_are_valid() {
        let d = ds();
        for n in 0..200 {
            let ids = d.external_ids(CompanyRef { country: 0, n });
            let siren = &ids
                .iter()
                .find(|e| e.external_service == "SIREN")
                .unwrap()
                .external_id;
            let siret = &ids
                .iter()
                .find(|e| e.external_service == "SIRET")
                .unwrap()
                .external_id;
            assert_eq!(siren.len(), 9);
            assert!(luhn_valid(siren), "{siren}");
            assert_eq!(siret.len(), 14);
            assert!(siret.starts_with(siren.as_str()));
            assert!(luhn_valid(siret), "{siret}");
        }
    }

    #[test]
    fn a_wrong_check_digit_is_not_found() {
        let d = ds();
        let r = CompanyRef { country: 0, n: 5 };
        let siren = d.external_ids(r)[0].external_id.clone();
        let last = siren.chars().last().unwrap();
        let bad = format!("{}{}", &siren[..8], if last == '0' { '1' } else { '0' });
        assert_eq!(d.find_external(0, "SIREN", &bad), None);
        assert_eq!(d.find_external(0, "siren", &siren), Some(r));
    }

    #[test]
    fn same_name_groups_split_by_city() {
        let d = ds();
        let a = CompanyRef { country: 0, n: 40 };
        let b = CompanyRef { country: 0, n: 41 };
        let holding = CompanyRef { country: 0, n: 42 };
        assert_eq!(d.name(a), d.name(b));
        assert!(d.name(holding).contains("Holding"));
        let name = d.name(a);
        let base: String = name.rsplit_once(' ').unwrap().0.to_string();
        let by_base = d.search_name(0, &base, &NameFilters::default());
        assert!(by_base.contains(&a) && by_base.contains(&b) && by_base.contains(&holding));
        // The Holding's name holds every word of its twins' name too: it comes after them.
        let by_name = d.search_name(0, &name.to_uppercase(), &NameFilters::default());
        assert_eq!(by_name, vec![a, b, holding]);
        let city = d.company(a).address.city;
        assert_ne!(city, d.company(b).address.city);
        let f = NameFilters {
            city: Some(city.to_lowercase()),
            ..Default::default()
        };
        assert_eq!(d.search_name(0, &name, &f), vec![a]);
        let f = NameFilters {
            postcode: Some(d.company(b).address.post_code),
            ..Default::default()
        };
        assert_eq!(d.search_name(0, &name, &f), vec![b]);
    }

    #[test]
    fn names_are_found_without_accents_or_punctuation() {
        let d = ds();
        for r in d.companies().step_by(211) {
            let name = d.name(r);
            let plain = normalize(&name);
            assert!(
                d.search_name(r.country, &plain, &NameFilters::default())
                    .contains(&r),
                "{name}"
            );
        }
        assert!(
            d.search_name(0, "Nobody Such Company", &NameFilters::default())
                .is_empty()
        );
    }

    /// The rule itself, checked against every company of the country: every word of the
    /// query is a word of the name, and the filters pass.
    fn matching(d: &Dataset, country: usize, query: &str, f: &NameFilters) -> HashSet<CompanyRef> {
        let wanted = normalize(query);
        (0..d.per_country())
            .map(|n| CompanyRef { country, n })
            .filter(|r| {
                let name = normalize(&d.name(*r));
                let words: HashSet<&str> = name.split(' ').collect();
                !wanted.is_empty()
                    && wanted.split(' ').all(|w| words.contains(w))
                    && d.passes(*r, f)
            })
            .collect()
    }

    /// Searches and checks the answer against [`matching`]: no repeats, only companies that
    /// match, and all of them unless there are more than the cap, then exactly the cap.
    fn search_checked(
        d: &Dataset,
        country: usize,
        query: &str,
        f: &NameFilters,
    ) -> Vec<CompanyRef> {
        let got = d.search_name(country, query, f);
        let all = matching(d, country, query, f);
        assert_eq!(
            got.iter().collect::<HashSet<_>>().len(),
            got.len(),
            "{query:?} repeats"
        );
        assert!(
            got.iter().all(|r| all.contains(r)),
            "{query:?} found a non-match"
        );
        assert_eq!(
            got.len(),
            all.len().min(MAX_NAME_RESULTS),
            "{query:?}: {} match",
            all.len()
        );
        got
    }

    /// The first, second and third words of a company's name, normalized.
    fn words(d: &Dataset, r: CompanyRef) -> Vec<String> {
        normalize(&d.name(r))
            .split(' ')
            .take(3)
            .map(String::from)
            .collect()
    }

    fn country(code: &str) -> usize {
        Dataset::country_index(code).unwrap()
    }

    #[test]
    fn a_middle_word_alone_finds_the_names_that_hold_it() {
        let d = ds();
        let motors = search_checked(&d, 0, "Motors", &NameFilters::default());
        assert_eq!(motors.len(), MAX_NAME_RESULTS);
        for r in &motors {
            assert_eq!(words(&d, *r)[1], "motors", "{}", d.name(*r));
        }
        // Second and third word together: few enough to see every one, the company included.
        for r in d.companies().step_by(157) {
            let w = words(&d, r);
            let query = format!("{} {}", w[1], w[2]);
            let got = search_checked(&d, r.country, &query, &NameFilters::default());
            if got.len() < MAX_NAME_RESULTS {
                assert!(got.contains(&r), "{query:?} misses {}", d.name(r));
            }
        }
    }

    #[test]
    fn a_legal_form_alone_finds_companies_of_that_form() {
        let d = ds();
        let none = NameFilters::default();
        let forms = |country: usize, query: &str| -> HashSet<&'static str> {
            search_checked(&d, country, query, &none)
                .into_iter()
                .map(|r| d.legal_form(r))
                .collect()
        };
        let de = country("DE");
        // "GmbH" is a word of two German forms; "Co. KG" of one only.
        let gmbh = forms(de, "GmbH");
        assert!(gmbh.iter().all(|f| f.starts_with("GmbH")), "{gmbh:?}");
        assert_eq!(forms(de, "Co. KG"), HashSet::from(["GmbH & Co. KG"]));
        assert_eq!(forms(de, "kg & co"), HashSet::from(["GmbH & Co. KG"]));
        // "S.A." is the word "sa", which "SAS" is not.
        assert_eq!(forms(0, "S.A."), HashSet::from(["SA"]));
        assert_eq!(forms(country("CN"), "Ltd"), HashSet::from(["Co. Ltd"]));
    }

    #[test]
    fn words_in_any_order_find_the_company() {
        let d = ds();
        for r in d.companies().step_by(173) {
            let name = normalize(&d.name(r));
            let shuffled: Vec<&str> = name.split(' ').rev().collect();
            let query = shuffled.join(" ");
            let f = NameFilters {
                city: Some(d.company(r).address.city),
                ..Default::default()
            };
            let got = search_checked(&d, r.country, &query, &f);
            assert!(got.contains(&r), "{query:?} misses {}", d.name(r));
            // Part of the name out of order: the legal form's last word, then the first word.
            let some = format!("{} {}", shuffled[0], words(&d, r)[0]);
            search_checked(&d, r.country, &some, &NameFilters::default());
        }
    }

    #[test]
    fn case_accents_and_punctuation_are_ignored() {
        let d = ds();
        let none = NameFilters::default();
        let r = d
            .companies()
            .find(|r| {
                let name = d.name(*r);
                !name.is_ascii() && name.contains('&') && r.n % 10 >= 3
            })
            .expect("a name with an accent and an ampersand");
        let name = d.name(r);
        let plain = normalize(&name).to_uppercase().replace(' ', ", ");
        assert!(plain.is_ascii(), "{plain}");
        let as_written = d.search_name(r.country, &name, &none);
        assert!(as_written.contains(&r), "{name}");
        assert_eq!(
            d.search_name(r.country, &plain, &none),
            as_written,
            "{plain}"
        );
        let shouted = name.to_uppercase().replace(' ', " - ");
        assert_eq!(
            d.search_name(r.country, &shouted, &none),
            as_written,
            "{shouted}"
        );
    }

    #[test]
    fn a_name_equal_to_the_query_comes_first() {
        // 400,000 a country: names repeat with a block number, so a full name has more
        // matches than its exact holders.
        for d in [ds(), Dataset::new(7, 400_000)] {
            let mut followed = 0;
            for r in d.companies().step_by(d.per_country() as usize / 40) {
                let name = d.name(r);
                let got = d.search_name(r.country, &name, &NameFilters::default());
                let exact = |x: &CompanyRef| normalize(&d.name(*x)) == normalize(&name);
                let head = got.iter().take_while(|x| exact(x)).count();
                assert!(got[..head].contains(&r), "{name}: {got:?}");
                assert!(
                    !got[head..].iter().any(exact),
                    "{name}: an exact match comes late"
                );
                followed += usize::from(head < got.len());
            }
            assert!(
                followed > 0,
                "some full name must match more than its holders"
            );
        }
    }

    #[test]
    fn results_stop_at_the_cap_at_any_size() {
        let small = search_checked(&ds(), country("DE"), "GmbH", &NameFilters::default());
        assert_eq!(small.len(), MAX_NAME_RESULTS);
        let big = Dataset::new(7, MAX_PER_COUNTRY);
        for query in ["GmbH", "Holding", "9", "9 Holding", "KG Motors"] {
            let got = big.search_name(country("DE"), query, &NameFilters::default());
            assert_eq!(got.len(), MAX_NAME_RESULTS, "{query}");
            for r in &got {
                let name = normalize(&big.name(*r));
                let words: HashSet<&str> = name.split(' ').collect();
                assert!(
                    normalize(query).split(' ').all(|w| words.contains(w)),
                    "{name}"
                );
            }
            let again = Dataset::new(7, MAX_PER_COUNTRY);
            assert_eq!(
                again.search_name(country("DE"), query, &NameFilters::default()),
                got
            );
        }
    }

    #[test]
    fn a_word_in_no_name_finds_nothing() {
        let d = ds();
        let big = Dataset::new(7, MAX_PER_COUNTRY);
        let none = NameFilters::default();
        for query in [
            "Nobody",
            "Martin Nobody",
            "Martin Transports Atlantique Nowhere SAS",
            // Two first words: no name has both.
            "Martin Dubois",
            // Block numbers start at 2; "02" is not the word "2".
            "Martin 1",
            "Martin 02",
            "",
            " & ",
        ] {
            assert!(search_checked(&d, 0, query, &none).is_empty(), "{query:?}");
            assert!(big.search_name(0, query, &none).is_empty(), "{query:?}");
        }
        // Not a French legal form, and beyond the last block of a small dataset.
        assert!(d.search_name(0, "Martin GmbH", &none).is_empty());
        assert!(d.search_name(0, "Martin 2", &none).is_empty());
        assert!(!big.search_name(0, "Martin 9", &none).is_empty());
        assert!(big.search_name(0, "Martin 10", &none).is_empty());
    }

    #[test]
    fn a_city_still_narrows_a_name_search() {
        let d = ds();
        for city in ["Lyon", "lyon", "LYON"] {
            let f = NameFilters {
                city: Some(city.to_string()),
                ..Default::default()
            };
            let got = search_checked(&d, 0, "Motors", &f);
            assert!(!got.is_empty());
            assert!(got.iter().all(|r| d.company(*r).address.city == "Lyon"));
        }
        let f = NameFilters {
            city: Some("Lyon".into()),
            ..Default::default()
        };
        let unfiltered = d.search_name(0, "Motors", &NameFilters::default());
        assert_ne!(d.search_name(0, "Motors", &f), unfiltered);
        let nowhere = NameFilters {
            city: Some("Atlantis".into()),
            ..Default::default()
        };
        assert!(d.search_name(0, "Motors", &nowhere).is_empty());
    }

    /// A filter finds only the company registered with that value: an establishment's
    /// postcode, another street or number, a legal form the company does not have find
    /// nothing; the same name without its legal form finds it.
    #[test]
    fn a_filter_or_legal_form_that_is_not_the_registered_one_finds_nothing() {
        let d = ds();
        let r = CompanyRef { country: 0, n: 4 };
        let c = d.company(r);
        let a = &c.address;
        let registered = NameFilters {
            street_number: Some(a.street_number.clone()),
            street_name: Some(a.street_name.to_lowercase()),
            city: Some(a.city.clone()),
            postcode: Some(a.post_code.clone()),
            phone_number: None,
        };
        assert_eq!(search_checked(&d, 0, &c.name, &registered), [r]);
        let other_postcode = format!(
            "{}{}",
            &a.post_code[..4],
            if a.post_code.ends_with('1') { 2 } else { 1 }
        );
        let street = catalog::RATED[0]
            .streets
            .iter()
            .find(|s| **s != a.street_name)
            .unwrap();
        let number = (a.street_number.parse::<u32>().unwrap() + 1).to_string();
        for wrong in [
            NameFilters {
                postcode: Some(other_postcode),
                ..registered.clone()
            },
            NameFilters {
                street_name: Some(street.to_string()),
                ..registered.clone()
            },
            NameFilters {
                street_number: Some(number),
                ..registered.clone()
            },
        ] {
            assert!(d.search_name(0, &c.name, &wrong).is_empty(), "{wrong:?}");
        }
        let form = catalog::RATED[0]
            .legal_forms
            .iter()
            .find(|f| c.name.ends_with(&format!(" {f}")))
            .unwrap();
        let base = c.name.trim_end_matches(form).trim_end();
        let other = catalog::RATED[0]
            .legal_forms
            .iter()
            .find(|f| *f != form)
            .unwrap();
        assert!(
            d.search_name(0, &format!("{base} {other}"), &registered)
                .is_empty()
        );
        assert!(
            d.search_name(0, &format!("{base} GmbH"), &NameFilters::default())
                .is_empty()
        );
        assert_eq!(search_checked(&d, 0, base, &registered), [r]);
    }

    #[test]
    fn colors_are_deterministic_and_mostly_green_with_some_daily_change() {
        let d = ds();
        let again = Dataset::new(7, 2_000);
        let mut counts = std::collections::HashMap::new();
        let (mut changed, mut evolved, mut total) = (0, 0, 0);
        for r in d.companies() {
            let today = d.rating(r, 10);
            assert_eq!(today, again.rating(r, 10));
            let tomorrow = d.rating(r, 11);
            *counts.entry(today.color.as_str().to_string()).or_insert(0) += 1;
            total += 1;
            if today.color != tomorrow.color {
                changed += 1;
            } else if today.last_change.instant != tomorrow.last_change.instant {
                evolved += 1;
            }
            assert!(today.last_refresh.instant >= today.last_change.instant);
        }
        let share = |c: &str| counts.get(c).copied().unwrap_or(0) as f64 / total as f64;
        assert!(share("green") > 0.6, "{counts:?}");
        assert!(share("yellow") > 0.08 && share("yellow") < share("green"));
        assert!(share("red") > 0.02 && share("red") < share("yellow"));
        assert!(share("black") > 0.0 && share("white") > 0.02);
        let change_rate = changed as f64 / total as f64;
        assert!((0.005..0.06).contains(&change_rate), "{change_rate}");
        assert!(
            evolved > 0,
            "lastChangeDate must sometimes move without a color change"
        );
    }

    #[test]
    fn times_vary_in_spelling_but_not_in_meaning() {
        let d = ds();
        let mut spellings = HashSet::new();
        for r in d.companies().take(300) {
            let t = d.rating(r, 3).last_change;
            assert_eq!(t.raw.parse::<ApiTime>().unwrap().instant, t.instant);
            let frac = t
                .raw
                .split_once('.')
                .map(|(_, f)| f.trim_end_matches('Z').len())
                .unwrap_or(0);
            spellings.insert((frac, t.raw.ends_with('Z')));
        }
        assert!(spellings.len() >= 6, "{spellings:?}");
    }

    #[test]
    fn feistel_and_scramble_are_bijections() {
        for x in [0u64, 1, 42, u64::MAX, 0xdead_beef] {
            assert_eq!(feistel(3, feistel(3, x, false), true), x);
        }
        let s = Scramble::new(1_000_000, 99);
        for n in [0u64, 1, 999_999, 123_456] {
            assert_eq!(s.backward(s.forward(n)), n);
        }
    }

    #[test]
    fn a_calendar_keeps_dated_days_on_their_dates_and_never_goes_back() {
        use jiff::civil::date;
        assert_eq!(Calendar::default().date(0), EPOCH);
        assert_eq!(Calendar::default().date(2), date(2026, 1, 3));
        // The served day on today: the days before it before it.
        let today = date(2026, 11, 26);
        let served = Calendar::default().with_day_on(3, today);
        assert_eq!(served.date(3), today);
        assert_eq!(served.date(-397), date(2025, 10, 22));
        assert_eq!(served.date(4), date(2026, 11, 27));
        // Three runs in a day, then one a week later: a day keeps its date once dated.
        let runs = Calendar::dated([(1, today), (2, today), (3, today)]);
        assert_eq!(runs.clone().with_day_on(2, date(2026, 12, 3)), runs);
        let later = runs.with_day_on(4, date(2026, 12, 3));
        assert_eq!(
            (0..=5).map(|d| later.date(d)).collect::<Vec<_>>(),
            [
                date(2026, 11, 25),
                today,
                today,
                today,
                date(2026, 12, 3),
                date(2026, 12, 4)
            ]
        );
        // Undated days between two dated ones, and a clock that went back.
        let gap = Calendar::dated([(1, date(2026, 11, 20)), (9, date(2026, 11, 23))]);
        assert_eq!(gap.date(2), date(2026, 11, 21));
        assert_eq!(gap.date(6), date(2026, 11, 23));
        let back = Calendar::dated([(1, today), (2, date(2026, 11, 1))]);
        assert_eq!(back.date(2), today);
        // The dataset's ratings follow it, their colors do not.
        let d = ds();
        let moved = ds().with_calendar(served.clone());
        for r in d.companies().take(200) {
            let (a, b) = (d.rating(r, 3), moved.rating(r, 3));
            assert_eq!(a.color, b.color);
            let today_starts = today.to_zoned(jiff::tz::TimeZone::UTC).unwrap().timestamp();
            assert!(
                b.last_refresh.instant < today_starts,
                "before the served day"
            );
            assert!(b.last_change.instant < today_starts);
            assert!(
                b.last_refresh.instant > today_starts - jiff::SignedDuration::from_hours(24 * 8)
            );
        }
    }
}
