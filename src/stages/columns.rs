//! A portfolio's header mapped to the fields of a row: the user's names first (`[columns]`
//! in ratewatch.toml, `--column FIELD=HEADER`), then ratewatch's own, then identifier
//! services' codes (`SIREN`); headers compared without case, spaces, `_` or `-`. The
//! columns nothing reads are carried through to the reports.

use std::collections::{HashMap, HashSet};

/// The fields a portfolio's columns can hold, by the name a mapping gives them.
pub const FIELDS: [&str; 11] = [
    "country",
    "service",
    "id",
    "name",
    "streetnumber",
    "streetname",
    "city",
    "postcode",
    "phonenumber",
    "ref",
    "company_id",
];

/// Identifier services' codes: a column headed by one of them holds that service's
/// identifiers, so `SIREN` and `SIRET` columns side by side need no mapping. (The row
/// checks still ask the lookup lists whether a country uses it.)
pub use crate::identifiers::SERVICE_COLUMNS;

/// The user's own names for the file's headers: field (one of [`FIELDS`]) → header, from
/// `[columns]` in ratewatch.toml and `--column FIELD=HEADER`.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ColumnMap(pub Vec<(String, String)>);

impl ColumnMap {
    /// A `[columns]` table: field = "Header", one a line; a field or a header that does not
    /// read is a mistake at its key.
    pub fn from_table(
        table: &crate::toml_table::Table,
    ) -> Result<ColumnMap, crate::toml_table::Mistake> {
        let read = |(field, header): (&toml::Spanned<String>, &toml::Spanned<toml::Value>)| {
            let at = |message| (field.span(), format!("[columns]: {message}"));
            let name = field_name(field.get_ref()).map_err(at)?;
            let expected = || at(format!("{name}: expected the header as a string"));
            let header = header.get_ref().as_str().ok_or_else(expected)?;
            Ok((name, header.to_string()))
        };
        table
            .iter()
            .map(read)
            .collect::<Result<_, _>>()
            .map(ColumnMap)
    }

    /// The header mapped to `field`, if any.
    fn header_for(&self, field: &str) -> Option<&str> {
        self.0
            .iter()
            .rev()
            .find(|(f, _)| f == field)
            .map(|(_, h)| h.as_str())
    }
}

/// Reads `FIELD=HEADER`, checking the field's name.
pub fn parse_mapping(text: &str) -> Result<(String, String), String> {
    let (field, header) = text
        .split_once('=')
        .ok_or_else(|| format!("{text:?}: expected FIELD=HEADER, e.g. country=Pays"))?;
    let field = field_name(field)?;
    let header = header.trim();
    if header.is_empty() {
        return Err(format!("{text:?}: the header after `=` is empty"));
    }
    Ok((field, header.to_string()))
}

/// A field's name as a mapping gives it, checked against [`FIELDS`].
pub fn field_name(raw: &str) -> Result<String, String> {
    let key = squeeze(raw);
    FIELDS
        .iter()
        .find(|f| squeeze(f) == key || (key == "phone" && **f == "phonenumber"))
        .map(|f| f.to_string())
        .ok_or_else(|| {
            format!(
                "{raw:?} is not a field of a portfolio; the fields are {}",
                FIELDS.join(", ")
            )
        })
}

/// A header or field name compared without case, spaces, `_` or `-`.
fn squeeze(s: &str) -> String {
    s.trim()
        .chars()
        .filter(|ch| ch.is_alphanumeric())
        .flat_map(char::to_lowercase)
        .collect()
}

/// The portfolio's columns, by position.
#[derive(Debug, Clone, Default)]
pub(super) struct Columns {
    pub(super) country: Option<usize>,
    pub(super) service: Option<usize>,
    pub(super) id: Option<usize>,
    pub(super) name: Option<usize>,
    pub(super) street_number: Option<usize>,
    pub(super) street_name: Option<usize>,
    pub(super) city: Option<usize>,
    pub(super) postcode: Option<usize>,
    pub(super) phone: Option<usize>,
    pub(super) reference: Option<usize>,
    pub(super) company_id: Option<usize>,
    /// Columns headed by an identifier service's code, in the file's order.
    pub(super) identifiers: Vec<(String, usize)>,
    /// Headers of the columns nothing reads, carried through to the reports.
    pub(super) unused: Vec<String>,
    /// Their positions, in the same order.
    pub(super) carried: Vec<usize>,
}

/// Header names are matched case-insensitively, ignoring spaces, `_` and `-`; the user's
/// mapping comes first, then ratewatch's own names, then identifier services' codes.
pub(super) fn map_columns(
    headers: &csv::StringRecord,
    mapping: &ColumnMap,
) -> Result<Columns, String> {
    let mut c = Columns::default();
    let mut seen: HashMap<&'static str, usize> = HashMap::new();
    let mut claimed: HashSet<usize> = HashSet::new();
    let found = || {
        headers
            .iter()
            .map(|h| format!("{h:?}"))
            .collect::<Vec<_>>()
            .join(", ")
    };
    for field in FIELDS {
        let Some(wanted) = mapping.header_for(field) else {
            continue;
        };
        let Some(i) = headers.iter().position(|h| squeeze(h) == squeeze(wanted)) else {
            return Err(format!(
                "the column mapping reads {field} from {wanted:?}, but the header has no such column (found {})",
                found()
            ));
        };
        *slot(&mut c, field) = Some(i);
        seen.insert(field, i);
        claimed.insert(i);
    }
    for (i, raw) in headers.iter().enumerate() {
        if claimed.contains(&i) {
            continue;
        }
        let key = squeeze(raw);
        let name = match key.as_str() {
            "country" | "countrycode" => "country",
            "service" | "idservice" | "identifierservice" => "service",
            "id" | "externalid" | "identifier" => "id",
            "name" | "companyname" => "name",
            "streetnumber" => "streetnumber",
            "streetname" | "street" => "streetname",
            "city" | "town" => "city",
            "postcode" | "postalcode" | "zip" | "zipcode" => "postcode",
            "phonenumber" | "phone" => "phonenumber",
            "ref" | "reference" => "ref",
            "companyid" => "company_id",
            _ => {
                match SERVICE_COLUMNS
                    .iter()
                    .find(|s| s.eq_ignore_ascii_case(&key))
                {
                    Some(code) => c.identifiers.push((code.to_string(), i)),
                    None => {
                        c.unused.push(raw.trim().to_string());
                        c.carried.push(i);
                    }
                }
                continue;
            }
        };
        if mapping.header_for(name).is_some() {
            // The user said where this field is; a column of the same name is not it.
            c.unused.push(raw.trim().to_string());
            c.carried.push(i);
            continue;
        }
        if let Some(first) = seen.insert(name, i) {
            return Err(format!(
                "columns {} and {} are both `{name}`; keep one",
                first + 1,
                i + 1
            ));
        }
        *slot(&mut c, name) = Some(i);
    }
    if c.country.is_none() {
        return Err(format!(
            "no `country` column (found {}); the header needs country plus service and id, or name (a `[columns]` mapping in ratewatch.toml or --column country=HEADER names your own)",
            found()
        ));
    }
    if c.id.is_some() != c.service.is_some() {
        return Err("`service` and `id` columns go together: one is missing".into());
    }
    if c.id.is_none() && c.name.is_none() && c.company_id.is_none() && c.identifiers.is_empty() {
        return Err(format!(
            "no `service` + `id`, identifier (SIREN, KVK, …), `name` or `company_id` column (found {}): nothing to look companies up by; a `[columns]` mapping in ratewatch.toml or --column FIELD=HEADER names your own headers",
            found()
        ));
    }
    Ok(c)
}

/// The column slot of a field of [`FIELDS`].
fn slot<'a>(c: &'a mut Columns, field: &str) -> &'a mut Option<usize> {
    match field {
        "country" => &mut c.country,
        "service" => &mut c.service,
        "id" => &mut c.id,
        "name" => &mut c.name,
        "streetnumber" => &mut c.street_number,
        "streetname" => &mut c.street_name,
        "city" => &mut c.city,
        "postcode" => &mut c.postcode,
        "phonenumber" => &mut c.phone,
        "ref" => &mut c.reference,
        _ => &mut c.company_id,
    }
}
