//! What the registries' numbers look like: the lengths and check digits of the identifier
//! services whose rules are public, used to restore the leading zeros a spreadsheet ate and
//! to point at a likely typo.
//!
//! Only hints: a row is still searched as given (after its zeros are restored), and the
//! service says whether the company exists. A registry without rules here is never flagged.

/// Identifier services of the spec's table (4.8) and `VAT`: the codes a portfolio heads
/// its registry columns with (and carries them under), and the reports know them by.
pub const SERVICE_COLUMNS: [&str; 27] = [
    "SIREN", "SIRET", "CRO", "EXDIURN", "CNIE", "CIF", "DUN", "RCBE", "ONSS", "EURODB", "KVK",
    "GRAY", "TVANL", "MERCAT", "RCLU", "BWI", "COC", "CREF", "FCDE", "COFIS", "CCIAA", "TVAIT",
    "SIACID", "RNCN", "OCCN", "VATCN", "VAT",
];

/// Spreadsheets turn `012345678` into `12345678`. For registries whose numbers have a
/// fixed length, an all-digit identifier that is too short gets its zeros back.
pub fn restore_leading_zeros(service: &str, id: &str) -> String {
    let width = match service.to_uppercase().as_str() {
        "SIREN" | "DUN" => 9,
        "SIRET" => 14,
        "CRO" | "KVK" => 8,
        "RCBE" => 10,
        "COFIS" => 11,
        _ => return id.to_string(),
    };
    if id.chars().all(|c| c.is_ascii_digit()) && id.len() < width {
        format!("{id:0>width$}")
    } else {
        id.to_string()
    }
}

/// What looks wrong with an identifier, for the registries whose rules are known; `None`
/// when it follows them (or nothing is known of its registry). Spaces, dots, dashes and
/// slashes are separators, as people write them (`0417.497.106`, `15-048-3782`).
///
/// - SIREN (9 digits) and SIRET (14): Luhn; La Poste's SIRETs, under SIREN 356000000, sum
///   their digits to a multiple of 5 instead.
/// - KVK (8 digits), DUN (DUNS, 9 digits), CNIE (Irish company number, up to 6 digits).
/// - CRO (UK company number): 8 digits, or 2 letters and 6 digits (`SC123456`).
/// - RCBE (Belgian enterprise number): 10 digits, the last two 97 − (the first 8 mod 97).
/// - CIF (Spain): a letter, 7 digits and a control that is a digit or a letter, computed
///   as Luhn's check digit over the 7 digits (`JABCDEFGHI` for the letter form).
/// - COFIS (Italian codice fiscale): a company's 11 digits with Luhn's check digit, or a
///   person's 16 letters and digits.
/// - TVAIT (Italian VAT): 11 digits with Luhn's check digit, `IT` before them or not.
/// - TVANL (Dutch VAT): `NL`, 9 digits, `B` and 2 digits.
pub fn identifier_warning(service: &str, id: &str) -> Option<String> {
    let service = service.to_uppercase();
    let compact: String = id
        .chars()
        .filter(|c| !matches!(c, ' ' | '.' | '-' | '/'))
        .collect::<String>()
        .to_uppercase();
    let digits = |s: &str| !s.is_empty() && s.bytes().all(|b| b.is_ascii_digit());
    let letters = |s: &str| !s.is_empty() && s.bytes().all(|b| b.is_ascii_uppercase());
    let shape = |ok: bool, what: &str| (!ok).then(|| format!("a {service} is {what}, not {id:?}"));
    let check =
        |ok: bool| (!ok).then(|| format!("the {service} {id} fails its check digit: a typo?"));
    let fixed = |n: usize| digits(&compact) && compact.len() == n;
    match service.as_str() {
        "SIREN" => shape(fixed(9), "9 digits").or_else(|| check(luhn(&compact))),
        "SIRET" => shape(fixed(14), "14 digits").or_else(|| {
            // La Poste's establishments share one SIREN; Luhn cannot hold for all of them.
            check(if compact.starts_with("356000000") {
                digit_sum(&compact).is_multiple_of(5)
            } else {
                luhn(&compact)
            })
        }),
        "KVK" => shape(fixed(8), "8 digits"),
        "DUN" => shape(fixed(9), "9 digits (a DUNS number)"),
        "CNIE" => shape(
            digits(&compact) && compact.len() <= 6,
            "a number of up to 6 digits",
        ),
        "CRO" => shape(
            fixed(8) || (compact.len() == 8 && letters(&compact[..2]) && digits(&compact[2..])),
            "8 digits, or 2 letters and 6 digits",
        ),
        "RCBE" => shape(
            fixed(10) && matches!(compact.as_bytes()[0], b'0' | b'1'),
            "10 digits starting with 0 or 1",
        )
        .or_else(|| {
            let body: u64 = compact[..8].parse().ok()?;
            let control: u64 = compact[8..].parse().ok()?;
            check(97 - body % 97 == control)
        }),
        "CIF" => {
            let well_formed = compact.len() == 9
                && compact.is_ascii()
                && "ABCDEFGHJNPQRSUVW".contains(&compact[..1])
                && digits(&compact[1..8])
                && compact.as_bytes()[8].is_ascii_alphanumeric();
            shape(
                well_formed,
                "a letter, 7 digits and a control digit or letter",
            )
            .or_else(|| {
                let n = luhn_digit(&compact[1..8]);
                let control = compact.as_bytes()[8];
                check(control == b'0' + n || control == b"JABCDEFGHI"[usize::from(n)])
            })
        }
        "COFIS" if compact.len() == 16 => shape(
            compact.bytes().all(|b| b.is_ascii_alphanumeric()),
            "11 digits (a company) or 16 letters and digits (a person)",
        ),
        "COFIS" => shape(
            fixed(11),
            "11 digits (a company) or 16 letters and digits (a person)",
        )
        .or_else(|| check(luhn(&compact))),
        "TVAIT" => {
            let number = compact.strip_prefix("IT").unwrap_or(&compact);
            shape(
                digits(number) && number.len() == 11,
                "11 digits, with IT before them or not",
            )
            .or_else(|| check(luhn(number)))
        }
        "TVANL" => shape(
            compact.len() == 14
                && compact.starts_with("NL")
                && digits(&compact[2..11])
                && &compact[11..12] == "B"
                && digits(&compact[12..]),
            "NL, 9 digits, B and 2 digits (NL123456789B01)",
        ),
        _ => None,
    }
}

/// The Luhn test over a string of digits.
fn luhn(digits: &str) -> bool {
    match digits.as_bytes().split_last() {
        Some((&last, body)) => luhn_digit(&digits[..body.len()]) == last - b'0',
        None => false,
    }
}

/// The digit that makes `body` followed by it pass the Luhn test.
fn luhn_digit(body: &str) -> u8 {
    let sum: u32 = body
        .bytes()
        .rev()
        .enumerate()
        .map(|(i, b)| {
            let d = u32::from(b - b'0');
            if i % 2 == 0 {
                let d = d * 2;
                if d > 9 { d - 9 } else { d }
            } else {
                d
            }
        })
        .sum();
    ((10 - sum % 10) % 10) as u8
}

fn digit_sum(digits: &str) -> u32 {
    digits.bytes().map(|b| u32::from(b - b'0')).sum()
}

/// An identifier as registries compare them: separators (spaces, dots, dashes, slashes)
/// dropped, letters in upper case, and leading zeros dropped, since a spreadsheet eats
/// them on one side and not the other (`012345678` and `12345678` are one SIREN).
pub fn identifier_key(id: &str) -> String {
    let compact: String = id
        .chars()
        .filter(|c| !matches!(c, ' ' | '.' | '-' | '/') && !c.is_whitespace())
        .flat_map(char::to_uppercase)
        .collect();
    let key = compact.trim_start_matches('0');
    if key.is_empty() && !compact.is_empty() {
        "0".into()
    } else {
        key.into()
    }
}

/// Whether a company whose registry identifiers are `held` (service code, identifier)
/// holds identifier `id` of `service`: the same service and the same identifier once
/// compared as [`identifier_key`] does. A French establishment's SIRET is its company's
/// SIREN and five digits, so a SIRET is held by the company holding its SIREN, and a
/// SIREN by the company holding one of its SIRETs.
pub fn holds_identifier(held: &[(String, String)], service: &str, id: &str) -> bool {
    let wanted = identifier_key(id);
    let asked = service.to_uppercase();
    held.iter().any(
        |(s, held_id)| match (asked.as_str(), s.to_uppercase().as_str()) {
            (a, h) if a == h => identifier_key(held_id) == wanted,
            ("SIRET", "SIREN") => full_siret(id).get(..9) == Some(&full_siren(held_id)),
            ("SIREN", "SIRET") => full_siret(held_id).get(..9) == Some(&full_siren(id)),
            _ => false,
        },
    )
}

/// A SIREN with its nine digits (leading zeros restored).
fn full_siren(id: &str) -> String {
    let digits: String = id.chars().filter(char::is_ascii_digit).collect();
    format!("{digits:0>9}")
}

/// A SIRET with its fourteen digits (leading zeros restored).
fn full_siret(id: &str) -> String {
    let digits: String = id.chars().filter(char::is_ascii_digit).collect();
    format!("{digits:0>14}")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_identifier_is_held_as_registries_compare_them() {
        let held = |pairs: &[(&str, &str)]| -> Vec<(String, String)> {
            pairs
                .iter()
                .map(|(s, i)| (s.to_string(), i.to_string()))
                .collect()
        };
        let acme = held(&[("SIREN", "552100554"), ("TVAIT", "IT 00743110157")]);
        assert!(holds_identifier(&acme, "siren", "552 100 554"));
        assert!(holds_identifier(&acme, "TVAIT", "it00743110157"));
        assert!(!holds_identifier(&acme, "SIREN", "552100555"));
        assert!(
            !holds_identifier(&acme, "DUN", "552100554"),
            "another registry"
        );
        // A SIRET is its company's SIREN and five digits, both ways.
        assert!(holds_identifier(&acme, "SIRET", "552 100 554 00013"));
        assert!(!holds_identifier(&acme, "SIRET", "55210055500013"));
        let shop = held(&[("SIRET", "05210055400013")]);
        assert!(
            holds_identifier(&shop, "SIREN", "52100554"),
            "its zero eaten"
        );
        assert!(!holds_identifier(&shop, "SIREN", "552100554"));
        assert!(!holds_identifier(&[], "SIREN", "552100554"), "nothing held");
        assert_eq!(identifier_key("000"), "0");
    }

    fn flagged(service: &str, id: &str) -> String {
        identifier_warning(service, id).unwrap_or_else(|| panic!("{service} {id} passes"))
    }

    #[test]
    fn leading_zeros_come_back_for_fixed_length_registries_only() {
        assert_eq!(restore_leading_zeros("siren", "5210055"), "005210055");
        assert_eq!(restore_leading_zeros("RCBE", "417497106"), "0417497106");
        assert_eq!(restore_leading_zeros("DUN", "50483782"), "050483782");
        assert_eq!(restore_leading_zeros("SIREN", "552 100 554"), "552 100 554");
        assert_eq!(restore_leading_zeros("FCDE", "123"), "123");
    }

    #[test]
    fn french_numbers_follow_luhn_except_la_postes_establishments() {
        assert_eq!(identifier_warning("SIREN", "552100554"), None);
        assert_eq!(identifier_warning("SIREN", "552 100 554"), None);
        assert!(flagged("SIREN", "552100555").contains("check digit"));
        assert!(flagged("siren", "55210055").contains("9 digits"));
        assert_eq!(identifier_warning("SIRET", "55210055400013"), None);
        assert!(flagged("SIRET", "55210055400014").contains("check digit"));
        // La Poste's establishments: digits summing to a multiple of 5, whatever Luhn says.
        assert_eq!(identifier_warning("SIRET", "35600000000010"), None);
        assert!(identifier_warning("SIRET", "35600000000011").is_some());
    }

    #[test]
    fn lengths_and_shapes_of_the_other_registries() {
        assert!(flagged("KVK", "1234567").contains("8 digits"));
        assert_eq!(identifier_warning("KVK", "12345678"), None);
        assert_eq!(identifier_warning("DUN", "15-048-3782"), None);
        assert!(flagged("DUN", "15-048-378").contains("9 digits"));
        assert_eq!(identifier_warning("CNIE", "123456"), None);
        assert!(identifier_warning("CNIE", "1234567").is_some());
        assert_eq!(identifier_warning("CRO", "01815954"), None);
        assert_eq!(identifier_warning("CRO", "SC123456"), None);
        assert!(flagged("CRO", "S1234567").contains("2 letters and 6 digits"));
        assert_eq!(identifier_warning("TVANL", "NL540640499B01"), None);
        assert!(identifier_warning("TVANL", "NL540640499").is_some());
        assert_eq!(identifier_warning("COFIS", "RSSMRA85T10A562S"), None);
        assert_eq!(identifier_warning("FCDE", "anything at all"), None);
    }

    #[test]
    fn check_digits_of_belgian_spanish_and_italian_numbers() {
        // AB InBev's enterprise number: 97 - (4174971 mod 97) = 6.
        assert_eq!(identifier_warning("RCBE", "0417.497.106"), None);
        assert!(flagged("RCBE", "0417.497.107").contains("check digit"));
        assert!(flagged("RCBE", "2417.497.106").contains("starting with 0 or 1"));
        // The textbook CIF: B1234567 and control 4, or D in the letter form.
        assert_eq!(identifier_warning("CIF", "B12345674"), None);
        assert_eq!(identifier_warning("CIF", "P1234567D"), None);
        assert!(flagged("CIF", "B12345675").contains("check digit"));
        assert!(flagged("CIF", "12345674B").contains("a letter, 7 digits"));
        let body = "0912804144";
        let company = format!("{body}{}", luhn_digit(body));
        assert_eq!(identifier_warning("COFIS", &company), None);
        assert_eq!(identifier_warning("TVAIT", &format!("IT{company}")), None);
        assert_eq!(identifier_warning("TVAIT", &company), None);
        let wrong = format!("{body}{}", (luhn_digit(body) + 1) % 10);
        assert!(flagged("COFIS", &wrong).contains("check digit"));
        assert!(flagged("TVAIT", &wrong).contains("check digit"));
    }
}
