//! The reports of a run, one formatter per format behind one trait. Formatters get plain
//! data (the run's header, then its rows in input order), never a connection or HTTP, so
//! any past run's reports can be regenerated from the database alone. The files' names are
//! made here, and read back here to find the timestamped reports past their keeping.

pub mod csv;
pub mod html;
pub mod json;
mod side_by_side;
pub mod summary;

use std::fs::File;
use std::io::{self, BufWriter, Write};
use std::path::{Path, PathBuf};

use jiff::Timestamp;

use crate::digest::AlertDigest;
use crate::model::{MakePrintable, ResultRow, RunColors, RunInfo, Staleness};

/// The files of a run's reports.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ReportFiles {
    pub csv: PathBuf,
    pub json: PathBuf,
    pub html: PathBuf,
}

impl ReportFiles {
    /// `report.csv`, `report.json` and `report.html` in `dir`; `timestamped`, named after
    /// the run's start in UTC (`report-20261121T020000Z.csv`, …) so that nightly runs do
    /// not overwrite each other, and a regenerated report replaces its own run's files.
    pub fn new(dir: &Path, run: &RunInfo, timestamped: bool) -> ReportFiles {
        let stem = if timestamped {
            format!("report-{}", run.started_at.strftime("%Y%m%dT%H%M%SZ"))
        } else {
            "report".to_string()
        };
        ReportFiles {
            csv: dir.join(format!("{stem}.csv")),
            json: dir.join(format!("{stem}.json")),
            html: dir.join(format!("{stem}.html")),
        }
    }
}

/// The extensions of a run's report files.
const EXTENSIONS: [&str; 3] = ["csv", "json", "html"];

impl ReportFiles {
    /// The run's start that a timestamped report's file name carries
    /// (`report-20261121T020000Z.csv`, `.json` or `.html`); `None` for any other name, which
    /// is not a report ratewatch named so.
    pub fn started_at(name: &str) -> Option<Timestamp> {
        let (stem, extension) = name.rsplit_once('.')?;
        let stamp = stem.strip_prefix("report-")?;
        let shape = stamp.len() == 16
            && stamp.bytes().enumerate().all(|(i, b)| match i {
                8 => b == b'T',
                15 => b == b'Z',
                _ => b.is_ascii_digit(),
            });
        if !shape || !EXTENSIONS.contains(&extension) {
            return None;
        }
        let time = jiff::civil::DateTime::strptime("%Y%m%dT%H%M%S", &stamp[..15]).ok()?;
        time.to_zoned(jiff::tz::TimeZone::UTC)
            .ok()
            .map(|z| z.timestamp())
    }
}

/// What [`remove_old_reports`] did.
#[derive(Debug, Default)]
pub struct Removed {
    /// The files removed, oldest first.
    pub files: Vec<PathBuf>,
    /// The files that were due but could not be removed, and why.
    pub failed: Vec<(PathBuf, io::Error)>,
}

/// Removes the timestamped reports in `dir` ([`ReportFiles::new`]) of runs that started
/// more than `keep_days` days before `now`, so that runs into one folder do not pile up;
/// 0 keeps them all. Only regular files named exactly as ratewatch names them go: any other
/// file, a folder or a link is left alone, whatever its name or age.
pub fn remove_old_reports(dir: &Path, keep_days: u32, now: Timestamp) -> io::Result<Removed> {
    let mut removed = Removed::default();
    let cutoff = jiff::SignedDuration::from_hours(24 * i64::from(keep_days));
    let Some(cutoff) = (keep_days > 0)
        .then(|| now.checked_sub(cutoff).ok())
        .flatten()
    else {
        return Ok(removed);
    };
    let mut due = Vec::new();
    for entry in std::fs::read_dir(dir)? {
        let entry = entry?;
        let name = entry.file_name();
        let Some(started) = name.to_str().and_then(ReportFiles::started_at) else {
            continue;
        };
        if started < cutoff && entry.file_type()?.is_file() {
            due.push((started, entry.path()));
        }
    }
    due.sort();
    for (_, path) in due {
        match std::fs::remove_file(&path) {
            Ok(()) => removed.files.push(path),
            Err(e) => removed.failed.push((path, e)),
        }
    }
    Ok(removed)
}

/// Where and how a run's reports are written.
#[derive(Debug, Clone)]
pub struct ReportOptions {
    /// The folder of the report files.
    pub out: PathBuf,
    /// The summary on stdout lists alerts only.
    pub quiet: bool,
    pub csv_dialect: csv::Dialect,
    /// File names carry the run's start time (see [`ReportFiles::new`]).
    pub timestamped: bool,
    /// A rating not recalculated for more days than this before the run's start is stale.
    pub stale_after_days: u32,
    /// Which companies are alerts, how often standing ones are listed, what a storm is.
    pub alerts: crate::alerts::Rules,
    /// Where `ratewatch serve` is reached (`page_url`): the summary and report.html link
    /// to its pages, and so does every message the run sends.
    pub page: Option<crate::links::PageUrl>,
    /// The language and time zone of the summary (the report files' data never follow them).
    pub reader: crate::locale::Reader,
}

/// What the reports say of a run besides its rows, read by the caller.
#[derive(Debug, Clone)]
pub struct RunData {
    pub info: RunInfo,
    /// The colors of the runs up to this one.
    pub trend: Vec<RunColors>,
    /// The alerts as the run decided them, as every channel says them.
    pub digest: AlertDigest,
}

/// A run's rows as the caller reads them, one at a time (a portfolio is never held
/// whole): each is handed to the function given, whose error ends the reading.
pub trait Rows<E>:
    FnOnce(&mut dyn FnMut(ResultRow) -> io::Result<()>) -> Result<io::Result<()>, E>
{
}
impl<E, F> Rows<E> for F where
    F: FnOnce(&mut dyn FnMut(ResultRow) -> io::Result<()>) -> Result<io::Result<()>, E>
{
}

/// Writes report.csv, report.json and report.html into the folder and the summary to
/// `summary` (stdout, for the commands), all in one pass over the run's `rows` (in input
/// order), then its `alert_rows` (grouped by company, listed ones first). The rows are read
/// and summed up on this thread, each file formatted on its own (`side_by_side`).
///
/// The summary is printed whatever happens to the files: when the folder cannot be
/// written (read-only, full, a file in its place), the alerts still reach the cron mail,
/// and the error is returned after them. A file that failed is left as it was before.
pub fn write_reports<E: From<io::Error>>(
    run: RunData,
    rows: impl Rows<E>,
    alert_rows: impl Rows<E>,
    options: &ReportOptions,
    summary: impl Output,
) -> Result<RunInfo, E> {
    let RunData {
        mut info,
        mut trend,
        digest,
    } = run;
    // Every text of the reports made printable here, once for every format: what the
    // portfolio held, or what an older database kept before the service's text was
    // cleaned on arrival.
    info.make_printable();
    // On this machine's clock: the run's start (the service's dates judge nothing).
    let staleness = Staleness::new(info.started_at, options.stale_after_days);
    trend.make_printable();
    let mut trouble: Option<io::Error> = None;
    let (mut formats, paths) = open_files(&info, options, trend, &digest).unwrap_or_else(|e| {
        trouble = Some(e);
        (Vec::new(), Vec::new())
    });
    let mut summary: Box<dyn Format + '_> = Box::new(summary::Summary::new(
        summary,
        options.quiet,
        paths,
        options.stale_after_days,
        digest,
        options.page.clone(),
        options.reader.clone(),
    ));
    summary.begin(&info)?;
    if let Err(e) = formats.iter_mut().try_for_each(|f| f.begin(&info)) {
        trouble.get_or_insert(e);
        formats.clear();
    }
    let ready = std::thread::scope(|scope| -> Result<_, E> {
        let mut files = side_by_side::Writers::start(scope, formats);
        rows(&mut |mut row| {
            // The one place the rule is applied: every format reads the row's `stale`.
            staleness.mark(&mut row);
            row.make_printable();
            summary.row(&row)?;
            files.row(row);
            Ok(())
        })?
        .or_else(ignore_broken_pipe)?;
        // The alerts' rows again, grouped by company, listed ones first as the summary has
        // them: for the formats that show the alerts apart (report.html).
        alert_rows(&mut |mut row| {
            staleness.mark(&mut row);
            row.make_printable();
            files.alert_row(row);
            Ok(())
        })??;
        Ok(files.end())
    })?;
    match ready {
        Ok(formats) => {
            for f in formats {
                if let Err(e) = f.finish() {
                    trouble.get_or_insert(e);
                }
            }
        }
        Err(e) => {
            trouble.get_or_insert(e);
        }
    }
    summary.finish().or_else(ignore_broken_pipe)?;
    match trouble {
        Some(e) => Err(E::from(e)),
        None => Ok(info),
    }
}

/// The summary alone, with no report file: for a run whose results the database could not
/// keep (a full disk), said on stdout all the same. Nothing is written under
/// `options.out`, so the last reports written stay as they were.
pub fn write_summary<E: From<io::Error>>(
    run: RunData,
    rows: impl Rows<E>,
    options: &ReportOptions,
    summary: impl Output,
) -> Result<(), E> {
    let RunData {
        mut info, digest, ..
    } = run;
    info.make_printable();
    let staleness = Staleness::new(info.started_at, options.stale_after_days);
    // Loud whatever `quiet` says: the night did not go as it should.
    let mut summary: Box<dyn Format + '_> = Box::new(summary::Summary::new(
        summary,
        false,
        Vec::new(),
        options.stale_after_days,
        digest,
        options.page.clone(),
        options.reader.clone(),
    ));
    summary.begin(&info)?;
    rows(&mut |mut row| {
        staleness.mark(&mut row);
        row.make_printable();
        summary.row(&row)
    })?
    .or_else(ignore_broken_pipe)?;
    summary.finish().or_else(ignore_broken_pipe)?;
    Ok(())
}

/// The report files' formatters, and their paths.
type Files = (Vec<side_by_side::SendFormat>, Vec<String>);

/// The report files' formatters, and their paths for the summary. `digest` gives what the
/// alerts tables show beside each alert (`[alerts] show`) and the amount column's heading.
fn open_files(
    info: &RunInfo,
    options: &ReportOptions,
    trend: Vec<RunColors>,
    digest: &AlertDigest,
) -> io::Result<Files> {
    let out = &options.out;
    std::fs::create_dir_all(out)?;
    remove_leftovers(out);
    let files = ReportFiles::new(out, info, options.timestamped);
    let csv_name = files
        .csv
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    let formats: Vec<side_by_side::SendFormat> = vec![
        Box::new(csv::CsvReport::new(
            AtomicFile::create(&files.csv)?,
            options.csv_dialect,
        )),
        Box::new(json::JsonReport::new(
            AtomicFile::create(&files.json)?,
            digest.figures.as_ref(),
        )),
        Box::new(
            html::HtmlReport::new(
                AtomicFile::create(&files.html)?,
                &csv_name,
                out,
                options.stale_after_days,
                trend,
                digest.amount_column.clone(),
                digest.columns.clone(),
            )?
            .with(digest.figures.clone(), options.page.clone())
            .read_by(options.reader.clone()),
        ),
    ];
    let paths = [&files.csv, &files.json, &files.html]
        .iter()
        .map(|p| p.display().to_string())
        .collect();
    Ok((formats, paths))
}

/// Removes the temporary report files that a killed process left in `out` (see
/// [`AtomicFile`]): `.report.json.4242.tmp`. A file of a process still alive is another
/// run writing there now and is left alone; where that cannot be told (no `/proc`), only
/// files a day old go.
fn remove_leftovers(out: &Path) {
    let Ok(entries) = std::fs::read_dir(out) else {
        return;
    };
    let proc = Path::new("/proc/self").exists();
    for entry in entries.flatten() {
        let name = entry.file_name().to_string_lossy().into_owned();
        let Some(pid) = leftover_pid(&name) else {
            continue;
        };
        let gone = match proc {
            true => pid != std::process::id() && !Path::new("/proc").join(pid.to_string()).exists(),
            false => entry
                .metadata()
                .and_then(|m| m.modified())
                .is_ok_and(|t| t.elapsed().is_ok_and(|age| age.as_secs() > 86_400)),
        };
        if gone && std::fs::remove_file(entry.path()).is_ok() {
            tracing::info!(file = %entry.path().display(), "removed a report file a stopped run left unfinished");
        }
    }
}

/// The process id in the name of a temporary report file (`.report.json.4242.tmp`).
fn leftover_pid(name: &str) -> Option<u32> {
    let rest = name.strip_prefix(".report")?.strip_suffix(".tmp")?;
    let (_, pid) = rest.rsplit_once('.')?;
    pid.parse().ok()
}

/// A closed stdout (`ratewatch … | head`) is not an error.
fn ignore_broken_pipe(e: io::Error) -> io::Result<()> {
    match e.kind() {
        io::ErrorKind::BrokenPipe => Ok(()),
        _ => Err(e),
    }
}

/// One report format: told the run, then each row, then asked to finish.
pub trait Format {
    fn begin(&mut self, run: &RunInfo) -> io::Result<()>;
    fn row(&mut self, row: &ResultRow) -> io::Result<()>;
    /// After every row: the rows of the run's alerts again, the listed alerts first (worst
    /// first), then the standing ones, then the acknowledged ones, a company's rows
    /// together. Only a format that shows the alerts apart needs them.
    fn alert_row(&mut self, _row: &ResultRow) -> io::Result<()> {
        Ok(())
    }
    /// Completes the output (for a file: moves it into place).
    fn finish(self: Box<Self>) -> io::Result<()>;
}

/// Where a formatter writes: something that can be closed once complete.
pub trait Output: Write {
    fn close(self) -> io::Result<()>;
}

impl Output for AtomicFile {
    fn close(self) -> io::Result<()> {
        self.commit()
    }
}

impl Output for &mut Vec<u8> {
    fn close(self) -> io::Result<()> {
        Ok(())
    }
}

impl Output for io::Stdout {
    fn close(mut self) -> io::Result<()> {
        self.flush()
    }
}

/// A file that appears whole or not at all: written beside its destination under a
/// temporary name, flushed to disk, then renamed over it.
pub struct AtomicFile {
    temp: PathBuf,
    dest: PathBuf,
    out: Option<BufWriter<File>>,
}

impl AtomicFile {
    pub fn create(dest: &Path) -> io::Result<AtomicFile> {
        let name = dest
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_else(|| "report".into());
        let temp = dest.with_file_name(format!(".{name}.{}.tmp", std::process::id()));
        let out = BufWriter::with_capacity(1 << 16, File::create(&temp)?);
        Ok(AtomicFile {
            temp,
            dest: dest.to_path_buf(),
            out: Some(out),
        })
    }

    /// Flushes, syncs and moves the file into place.
    pub fn commit(mut self) -> io::Result<()> {
        let out = self.out.take().expect("committed once");
        let file = out.into_inner().map_err(|e| e.into_error())?;
        file.sync_all()?;
        std::fs::rename(&self.temp, &self.dest)
    }
}

impl Write for AtomicFile {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        self.out.as_mut().expect("not committed").write(buf)
    }
    fn flush(&mut self) -> io::Result<()> {
        self.out.as_mut().expect("not committed").flush()
    }
}

impl Drop for AtomicFile {
    fn drop(&mut self) {
        if self.out.is_some() {
            let _ = std::fs::remove_file(&self.temp);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn leftovers_are_told_by_their_name() {
        assert_eq!(leftover_pid(".report.json.4242.tmp"), Some(4242));
        assert_eq!(leftover_pid(".report-20261121T020000Z.html.7.tmp"), Some(7));
        assert_eq!(leftover_pid("report.json"), None);
        assert_eq!(leftover_pid(".other.json.4242.tmp"), None);
        assert_eq!(leftover_pid(".report.json.tmp"), None);
    }

    #[test]
    fn atomic_file_appears_only_on_commit() {
        let dir = tempfile::tempdir().unwrap();
        let dest = dir.path().join("r.csv");
        let mut f = AtomicFile::create(&dest).unwrap();
        f.write_all(b"half").unwrap();
        assert!(!dest.exists());
        drop(f);
        assert!(!dest.exists());
        assert_eq!(
            std::fs::read_dir(dir.path()).unwrap().count(),
            0,
            "no temp left behind"
        );
        let mut f = AtomicFile::create(&dest).unwrap();
        f.write_all(b"whole").unwrap();
        f.commit().unwrap();
        assert_eq!(std::fs::read(&dest).unwrap(), b"whole");
    }

    #[test]
    fn a_timestamped_name_gives_back_its_runs_start_and_no_other_name_does() {
        let run = RunInfo::example();
        let files = ReportFiles::new(Path::new("out"), &run, true);
        for path in [&files.csv, &files.json, &files.html] {
            let name = path.file_name().unwrap().to_str().unwrap();
            assert_eq!(
                ReportFiles::started_at(name),
                Some(run.started_at),
                "{name}"
            );
        }
        for name in [
            "report.csv",
            "report-20261121T020000Z.csv.bak",
            "report-20261121T020000Z.pdf",
            "report-20261121T020000Z",
            "report-20261121T0200000Z.csv",
            "report-20261121T020000.csv",
            "report-2026112xT020000Z.csv",
            "report-20261321T020000Z.csv",
            "Report-20261121T020000Z.csv",
            "my-report-20261121T020000Z.csv",
            ".report-20261121T020000Z.csv.42.tmp",
            "report-+0261121T020000Z.csv",
        ] {
            assert_eq!(ReportFiles::started_at(name), None, "{name}");
        }
    }

    #[test]
    fn old_timestamped_reports_go_and_nothing_else_does() {
        let dir = tempfile::tempdir().unwrap();
        let now = crate::model::time("2026-11-21T02:00:00Z");
        let write = |name: &str| std::fs::write(dir.path().join(name), name).unwrap();
        // 91 days before `now`; then just under 90, and 89.
        let old = [
            "report-20260822T020000Z.csv",
            "report-20260822T020000Z.json",
        ];
        let kept = [
            "report-20260823T030000Z.html",
            "report-20260824T020000Z.csv",
            "report-20261121T020000Z.csv",
            "report.csv",
            "notes-20200101T000000Z.csv",
            "report-20200101T000000Z.xlsx",
        ];
        for name in old.iter().chain(&kept) {
            write(name);
        }
        // A folder and a link named as a report are not reports.
        std::fs::create_dir(dir.path().join("report-20200101T000000Z.html")).unwrap();
        std::os::unix::fs::symlink(
            dir.path().join("report.csv"),
            dir.path().join("report-20200101T000000Z.json"),
        )
        .unwrap();

        let none = remove_old_reports(dir.path(), 0, now).unwrap();
        assert!(
            none.files.is_empty() && none.failed.is_empty(),
            "0 keeps all"
        );
        let removed = remove_old_reports(dir.path(), 90, now).unwrap();
        let names: Vec<_> = removed
            .files
            .iter()
            .map(|p| p.file_name().unwrap().to_str().unwrap())
            .collect();
        assert_eq!(names, old);
        assert!(removed.failed.is_empty());
        let mut left: Vec<String> = std::fs::read_dir(dir.path())
            .unwrap()
            .map(|e| e.unwrap().file_name().into_string().unwrap())
            .collect();
        left.sort();
        let mut expected: Vec<String> = kept.iter().map(|n| n.to_string()).collect();
        expected.extend([
            "report-20200101T000000Z.html".into(),
            "report-20200101T000000Z.json".into(),
        ]);
        expected.sort();
        assert_eq!(left, expected);
        assert!(
            remove_old_reports(dir.path(), 90, now)
                .unwrap()
                .files
                .is_empty()
        );
        assert!(remove_old_reports(&dir.path().join("gone"), 90, now).is_err());
    }

    #[test]
    fn timestamped_names_come_from_the_runs_start_in_utc() {
        let mut run = RunInfo {
            id: 7,
            ..RunInfo::example()
        };
        let dir = Path::new("out");
        let plain = ReportFiles::new(dir, &run, false);
        assert_eq!(plain.csv, dir.join("report.csv"));
        assert_eq!(plain.html, dir.join("report.html"));
        let stamped = ReportFiles::new(dir, &run, true);
        assert_eq!(stamped.csv, dir.join("report-20261121T020000Z.csv"));
        assert_eq!(stamped.json, dir.join("report-20261121T020000Z.json"));
        assert_eq!(stamped.html, dir.join("report-20261121T020000Z.html"));
        run.started_at = crate::model::time("2026-11-21T03:00:00+01:00");
        assert_eq!(
            ReportFiles::new(dir, &run, true).csv,
            dir.join("report-20261121T020000Z.csv"),
            "in UTC"
        );
    }
}
