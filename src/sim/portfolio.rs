//! Portfolios made from the simulated dataset, for demos, tests and benchmarks: mostly
//! identifier rows, some name rows (with the city, as a careful user would give), and a
//! share of duplicates, as real ERP exports have.

use std::io::Write;

use super::catalog;
use super::dataset::{CompanyRef, Dataset};

/// Writes `rows` rows: 70 % identifier rows, 30 % name rows, every tenth row a repeat of
/// an earlier one. Row `i` is a pure function of `i`, so any size is written in constant
/// memory.
pub fn write(data: &Dataset, rows: u64, out: impl Write) -> csv::Result<()> {
    let mut w = csv::Writer::from_writer(out);
    w.write_record(["ref", "country", "service", "id", "name", "city"])?;
    let capacity = data.per_country() as u64 * catalog::RATED.len() as u64;
    for i in 0..rows {
        // Every tenth row repeats an earlier row that is not itself a repeat.
        let source = match i % 10 {
            9 => (i / 2) - u64::from((i / 2) % 10 == 9),
            _ => i,
        };
        // The source's rank among rows that are not repeats: one company each.
        let fresh = source - (source + 1) / 10;
        let r = CompanyRef {
            country: (fresh % 10) as usize,
            n: ((fresh / 10) % (capacity / 10).max(1)) as u32,
        };
        let c = data.company(r);
        let reference = format!("R{:07}", i + 1);
        if (fresh / 10 + fresh * 3) % 10 < 3 {
            w.write_record([
                reference.as_str(),
                c.address.country_code.as_str(),
                "",
                "",
                c.name.as_str(),
                c.address.city.as_str(),
            ])?;
        } else {
            let e = &c.external_ids[(fresh as usize / 10) % c.external_ids.len()];
            w.write_record([
                reference.as_str(),
                c.address.country_code.as_str(),
                e.external_service.as_str(),
                e.external_id.as_str(),
                "",
                "",
            ])?;
        }
    }
    w.flush()?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::HashSet;

    #[test]
    fn a_generated_portfolio_has_the_promised_mix() {
        let data = Dataset::new(1, 1_000);
        let mut buf = Vec::new();
        write(&data, 1_000, &mut buf).unwrap();
        let mut reader = csv::Reader::from_reader(&buf[..]);
        let records: Vec<csv::StringRecord> = reader.records().map(Result::unwrap).collect();
        assert_eq!(records.len(), 1_000);
        let by_name = records.iter().filter(|r| !r[4].is_empty()).count();
        assert!((250..=350).contains(&by_name), "{by_name}");
        let distinct: HashSet<String> = records
            .iter()
            .map(|r| format!("{}|{}|{}|{}|{}", &r[1], &r[2], &r[3], &r[4], &r[5]))
            .collect();
        assert_eq!(distinct.len(), 900, "ten percent duplicates");
        for r in records.iter().filter(|r| !r[3].is_empty()).take(50) {
            let country = Dataset::country_index(&r[1]).unwrap();
            assert!(data.find_external(country, &r[2], &r[3]).is_some(), "{r:?}");
        }
    }
}
