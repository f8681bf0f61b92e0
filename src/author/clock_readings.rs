//! Clock readings in a recorded answer, loosened before the two answers are
//! merged (`two_answers.rs`). Two runs made at once read the clock within the
//! same second or minute, so the part of a timestamp they share (the date, the
//! hour, often the seconds) would be written as it was and fail every later run:
//! a file's modification time, a "last accessed" line. A reading is a date within
//! [`NEAR`] of the recording (ISO 8601, or written with month and weekday names
//! beside a time of day) or a Unix time in seconds or milliseconds as near; each is
//! made a placeholder and said, like any other loosening.

use std::sync::LazyLock;
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use chrono::{DateTime, Datelike, NaiveDate, Utc};
use regex::Regex;
use serde_json::Value;

/// How far from the recording a date may be and still be read as the clock's:
/// two days, for a server that writes local time in any time zone.
const NEAR: Duration = Duration::from_secs(2 * 24 * 3600);

/// The clock the readings are compared with.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Recorded {
    /// Seconds since the Unix epoch at the recording.
    now: i64,
}

impl Recorded {
    /// The recording happening now.
    pub(crate) fn now() -> Self {
        Self::at(SystemTime::now())
    }

    pub(crate) fn at(time: SystemTime) -> Self {
        let now = time
            .duration_since(UNIX_EPOCH)
            .map_or(0, |d| i64::try_from(d.as_secs()).unwrap_or(i64::MAX));
        Recorded { now }
    }

    fn near_seconds(&self, seconds: i64) -> bool {
        seconds.abs_diff(self.now) <= NEAR.as_secs()
    }

    /// A Unix time in seconds (10 digits) or milliseconds (13) near the recording.
    fn near_unix_time(&self, digits: &str) -> bool {
        let Ok(n) = digits.parse::<i64>() else {
            return false;
        };
        match digits.len() {
            10 => self.near_seconds(n),
            13 => self.near_seconds(n / 1000),
            _ => false,
        }
    }

    fn near_date(&self, year: i32, month: u32, day: u32) -> bool {
        NaiveDate::from_ymd_opt(year, month, day)
            .and_then(|date| date.and_hms_opt(12, 0, 0))
            .is_some_and(|noon| self.near_seconds(noon.and_utc().timestamp()))
    }

    fn year(&self) -> i32 {
        DateTime::<Utc>::from_timestamp(self.now, 0).map_or(1970, |t| t.year())
    }
}

/// `value` with every clock reading in its strings (and, in a `json:` value, its
/// numbers) made a placeholder, and a line per reading for the notes.
pub(crate) fn loosen(
    value: &Value,
    clock: Recorded,
    in_json: bool,
    out: &mut Vec<String>,
) -> Value {
    match value {
        Value::String(text) => Value::String(loosen_text(text, clock, out)),
        Value::Number(n) if in_json => match n.as_i64() {
            Some(i) if clock.near_unix_time(&i.to_string()) => {
                out.push(format!(
                    "`{{integer}}` for {i}, a Unix time of the recording"
                ));
                Value::String("{integer}".to_string())
            }
            _ => value.clone(),
        },
        Value::Array(items) => Value::Array(
            items
                .iter()
                .map(|item| loosen(item, clock, true, out))
                .collect(),
        ),
        Value::Object(map) => Value::Object(
            map.iter()
                .map(|(key, item)| (key.clone(), loosen(item, clock, true, out)))
                .collect(),
        ),
        _ => value.clone(),
    }
}

/// A pattern of this file, which compiles.
fn fixed(pattern: &str) -> Regex {
    Regex::new(pattern).unwrap_or_else(|e| unreachable!("a fixed pattern: {e}"))
}

/// ISO 8601 dates, with a time of day or not.
static ISO: LazyLock<Regex> = LazyLock::new(|| {
    fixed(
        r"\b(\d{4})-(\d{2})-(\d{2})(?:[T ]\d{2}:\d{2}(?::\d{2}(?:[.,]\d+)?)?(?:Z|[+-]\d{2}:?\d{2})?)?",
    )
});

/// A month's name, or its first three letters.
static MONTH: LazyLock<Regex> =
    LazyLock::new(|| fixed(r"\b(Jan|Feb|Mar|Apr|May|Jun|Jul|Aug|Sep|Oct|Nov|Dec)[a-z]*\.?"));

/// What may stand before a month's name in the same date: a weekday's name
/// and the day (`Mon, 30 `, `Mon `, `30 `).
static BEFORE_MONTH: LazyLock<Regex> =
    LazyLock::new(|| fixed(r"(?:\b(?:Mon|Tue|Wed|Thu|Fri|Sat|Sun)[a-z]*,? +)?(?:\b(\d{1,2}) +)?$"));

/// A weekday's name just before a month's (`Mon `, `Tue, `).
static WEEKDAY_BEFORE: LazyLock<Regex> =
    LazyLock::new(|| fixed(r"\b(?:Mon|Tue|Wed|Thu|Fri|Sat|Sun)[a-z]*,? +$"));

/// The day just after a month's name (`Nov 30`, `Nov  3,`).
static DAY_AFTER: LazyLock<Regex> = LazyLock::new(|| fixed(r"^ +(\d{1,2})\b"));

/// A time of day (`17:18`).
static TIME_OF_DAY: LazyLock<Regex> = LazyLock::new(|| fixed(r"\b\d{1,2}:\d{2}\b"));

/// A four-digit year.
static FOUR_DIGIT_YEAR: LazyLock<Regex> = LazyLock::new(|| fixed(r"\b(\d{4})\b"));

/// Where a date written with names starts in `line`: a month's name with its
/// day (before or after it) and a time of day soon after, in any order with the
/// year or without it (`Mon Nov 30 2026 17:18:16 GMT`, `Mon Nov 30 17:18:16 UTC
/// 2026`, `Tue, 1 Dec 2026 09:00:00`, `ls -l`'s `Nov 30 17:18`), the date near
/// the recording (the recording's year when none is written).
fn named_start(line: &str, clock: Recorded) -> Option<usize> {
    const MONTHS: [&str; 12] = [
        "Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec",
    ];
    MONTH.captures_iter(line).find_map(|found| {
        let whole = found.get(0)?;
        let month = MONTHS.iter().position(|m| *m == &found[1])? + 1;
        let window: String = line[whole.end()..].chars().take(32).collect();
        if !TIME_OF_DAY.is_match(&window) {
            return None;
        }
        let before = BEFORE_MONTH.captures(&line[..whole.start()])?;
        // The day after the name wins (`ls -l`'s `6 Nov 30` is a size, then the
        // date); then the date starts at a weekday's name before it, if any.
        let (day, start) = match DAY_AFTER.captures(&window).and_then(|c| c.get(1)) {
            Some(day) => {
                let weekday = WEEKDAY_BEFORE.find(&line[..whole.start()]);
                (day, weekday.map_or(whole.start(), |w| w.start()))
            }
            None => (
                before.get(1)?,
                before.get(0).map_or(whole.start(), |b| b.start()),
            ),
        };
        let day = day.as_str().parse::<u32>().ok()?;
        let year = FOUR_DIGIT_YEAR
            .captures(&window)
            .and_then(|c| c[1].parse::<i32>().ok())
            .unwrap_or_else(|| clock.year());
        let month = u32::try_from(month).ok()?;
        clock.near_date(year, month, day).then_some(start)
    })
}

/// Ten or thirteen digits standing alone.
static UNIX: LazyLock<Regex> = LazyLock::new(|| fixed(r"\b\d{10}(?:\d{3})?\b"));

/// A run of digits.
static DIGIT_RUNS: LazyLock<Regex> = LazyLock::new(|| fixed(r"\d+"));

/// Each line of `text` with its clock readings loosened: an ISO date's numbers
/// each `{int}`, a named date and the rest of its line `[..]`, a Unix time `{int}`.
fn loosen_text(text: &str, clock: Recorded, out: &mut Vec<String>) -> String {
    text.split('\n')
        .enumerate()
        .map(|(n, line)| loosen_line(line, n + 1, clock, out))
        .collect::<Vec<_>>()
        .join("\n")
}

fn loosen_line(line: &str, number: usize, clock: Recorded, out: &mut Vec<String>) -> String {
    // A named date cuts the line, so it goes first.
    if let Some(start) = named_start(line, clock) {
        let head = loosen_line(&line[..start], number, clock, out);
        out.push(format!(
            "`[..]` in line {number}: a clock reading of the recording ({})",
            crate::visible::excerpt(&line[start..], 60)
        ));
        return format!("{head}[..]");
    }
    let mut line = line.to_string();
    let mut isos = Vec::new();
    for found in ISO.captures_iter(&line) {
        let number_of = |i: usize| found[i].parse::<u32>().unwrap_or(0);
        let year = i32::try_from(number_of(1)).unwrap_or(0);
        if clock.near_date(year, number_of(2), number_of(3)) {
            if let Some(whole) = found.get(0) {
                isos.push(whole.range());
            }
        }
    }
    for range in isos.into_iter().rev() {
        let reading = line[range.clone()].to_string();
        let digits = DIGIT_RUNS.replace_all(&reading, "{int}").into_owned();
        out.push(format!(
            "`{digits}` in line {number}: a clock reading of the recording ({reading})"
        ));
        line.replace_range(range, &digits);
    }
    let unix_times: Vec<_> = UNIX
        .find_iter(&line)
        .filter(|m| clock.near_unix_time(m.as_str()))
        .map(|m| m.range())
        .collect();
    for range in unix_times.into_iter().rev() {
        out.push(format!(
            "`{{int}}` in line {number}: a Unix time of the recording ({})",
            &line[range.clone()]
        ));
        line.replace_range(range, "{int}");
    }
    line
}

#[cfg(test)]
mod tests {
    use super::*;

    /// 2026-11-30 17:18:16 UTC.
    fn clock() -> Recorded {
        Recorded { now: 1_796_059_096 }
    }

    fn loosened(text: &str) -> (String, Vec<String>) {
        let mut notes = Vec::new();
        let value = loosen(&Value::String(text.to_string()), clock(), false, &mut notes);
        (value.as_str().unwrap_or_default().to_string(), notes)
    }

    #[test]
    fn a_date_with_names_and_the_rest_of_its_line_is_loosened() {
        let (text, notes) = loosened(
            "size: 22\nmodified: Mon Nov 30 2026 17:18:16 GMT+0000 (Coordinated Universal Time)\nisFile: true",
        );
        assert_eq!(text, "size: 22\nmodified: [..]\nisFile: true");
        assert_eq!(notes.len(), 1, "{notes:?}");
        for (line, want) in [
            (
                "Last-Modified: Tue, 1 Dec 2026 09:00:00 GMT",
                "Last-Modified: [..]",
            ),
            ("Mon Nov 30 17:18:16 UTC 2026", "[..]"),
            (
                "-rw-r--r-- 1 root root 6 Nov 30 17:18 a.txt",
                "-rw-r--r-- 1 root root 6 [..]",
            ),
        ] {
            assert_eq!(loosened(line).0, want);
        }
    }

    #[test]
    fn an_iso_date_near_the_recording_has_its_numbers_loosened() {
        let (text, notes) = loosened("mtime 2026-11-30T17:18:16.123Z, size 4");
        assert_eq!(
            text,
            "mtime {int}-{int}-{int}T{int}:{int}:{int}.{int}Z, size 4"
        );
        assert_eq!(notes.len(), 1);
        let (text, _) = loosened("on 2026-12-01 at noon");
        assert_eq!(text, "on {int}-{int}-{int} at noon");
    }

    #[test]
    fn a_unix_time_near_the_recording_is_loosened_in_text_and_json() {
        let (text, _) = loosened("mtime=1796059090 ms=1796059090123 id=1234567890");
        assert_eq!(text, "mtime={int} ms={int} id=1234567890");
        let mut notes = Vec::new();
        let json = serde_json::json!({ "mtime": 1_796_059_090, "size": 4 });
        let value = loosen(&json, clock(), true, &mut notes);
        assert_eq!(
            value,
            serde_json::json!({ "mtime": "{integer}", "size": 4 })
        );
    }

    #[test]
    fn dates_far_from_the_recording_and_other_numbers_are_kept() {
        for text in [
            "released 2019-04-01T10:00:00Z",
            "copyright Mon Jan 1 2001 00:00:00",
            "-rw-r--r-- 1 root root 6 Mar  3 10:00 old.txt",
            "in May we meet",
            "version 2026.8.31",
            "line 17:18 of app.py",
            "took 1234 ms",
        ] {
            let (kept, notes) = loosened(text);
            assert_eq!(kept, text);
            assert!(notes.is_empty(), "{notes:?}");
        }
    }
}
