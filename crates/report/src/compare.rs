//! Two runs side by side (`probesim compare`): their timelines merged by time with the lines
//! that only one run has marked, and the lines of two reports (kubectl rows, analysis figures)
//! that differ.
//!
//! The inputs are the texts the other views write (the timeline for people, `get -w`, the
//! analysis), so a comparison shows exactly what each run alone would show. Lines are compared
//! with their runs of spaces folded, so that a column that is wider in one run (a longer
//! container name, a longer horizon) is no difference.

use core::fmt::Write as _;

use probesim_script::parse_duration;

/// How a merged line is marked: in both runs, only in the first, only in the second.
const BOTH: &str = "   ";
const ONLY_A: &str = "A  ";
const ONLY_B: &str = "  B";

/// One event line of a timeline, with the lines that continue it.
#[derive(Debug)]
struct Line<'a> {
    /// The instant, in milliseconds.
    at: u64,
    /// The instant as written.
    time: &'a str,
    /// The rest of the line (container, kind, what), continuation lines included.
    rest: String,
    /// `rest` with its runs of spaces folded: what is compared.
    key: String,
}

/// The title row and the event lines of a timeline for people (the header and the final status
/// left out).
fn events(timeline: &str) -> (Option<&str>, Vec<Line<'_>>) {
    let mut lines = timeline.lines();
    let mut title = None;
    for l in lines.by_ref() {
        if l.split_whitespace().next() == Some("TIME") {
            title = Some(l);
            break;
        }
    }
    let mut out: Vec<Line<'_>> = Vec::new();
    for l in lines {
        if l.trim().is_empty() {
            break;
        }
        let trimmed = l.trim_start();
        let time = trimmed.split_whitespace().next().unwrap_or_default();
        match parse_duration(time) {
            Ok(d) if time.starts_with(|c: char| c.is_ascii_digit()) => {
                let rest = trimmed[time.len()..].trim_start().to_owned();
                out.push(Line {
                    at: d.as_millis(),
                    time,
                    key: fold(&rest),
                    rest,
                });
            }
            _ => {
                // A continuation of the previous line.
                if let Some(last) = out.last_mut() {
                    last.rest.push('\n');
                    last.rest.push_str(l);
                    last.key.push(' ');
                    last.key.push_str(&fold(l));
                }
            }
        }
    }
    (title, out)
}

/// `text` with every run of whitespace made one space.
fn fold(text: &str) -> String {
    text.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// Counts of a merged timeline.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Counts {
    /// Lines both runs have.
    pub both: usize,
    /// Lines only the first run has.
    pub only_a: usize,
    /// Lines only the second run has.
    pub only_b: usize,
}

/// Merges two timelines for people (as [`crate::render_with`] writes them) by time: a line both
/// runs have at the same instant is written once, a line only one has is marked `A` or `B`.
/// Returns the text (a title row, then one row per line) and the counts.
#[must_use]
pub fn timelines(a: &str, b: &str) -> (String, Counts) {
    let (title, la) = events(a);
    let (_, lb) = events(b);
    let width = la
        .iter()
        .chain(&lb)
        .map(|l| l.time.len())
        .max()
        .unwrap_or(0)
        .max("TIME".len());
    let mut out = String::new();
    let mut counts = Counts::default();
    if let Some(t) = title {
        let t = t.trim_start();
        let rest = t.strip_prefix("TIME").unwrap_or(t).trim_start();
        let _ = writeln!(out, "RUN  {:>width$}  {rest}", "TIME");
    }
    let (mut i, mut j) = (0, 0);
    while i < la.len() || j < lb.len() {
        let at = match (la.get(i), lb.get(j)) {
            (Some(x), Some(y)) => x.at.min(y.at),
            (Some(x), None) => x.at,
            (None, Some(y)) => y.at,
            (None, None) => break,
        };
        let a_end = i + la[i..].iter().take_while(|l| l.at == at).count();
        let b_end = j + lb[j..].iter().take_while(|l| l.at == at).count();
        let mut used = vec![false; b_end - j];
        for x in &la[i..a_end] {
            let found = lb[j..b_end]
                .iter()
                .enumerate()
                .position(|(k, y)| !used[k] && y.key == x.key);
            let mark = match found {
                Some(k) => {
                    used[k] = true;
                    counts.both += 1;
                    BOTH
                }
                None => {
                    counts.only_a += 1;
                    ONLY_A
                }
            };
            row(&mut out, mark, width, x);
        }
        for (k, y) in lb[j..b_end].iter().enumerate() {
            if !used[k] {
                counts.only_b += 1;
                row(&mut out, ONLY_B, width, y);
            }
        }
        (i, j) = (a_end, b_end);
    }
    (out, counts)
}

fn row(out: &mut String, mark: &str, width: usize, line: &Line<'_>) {
    let _ = writeln!(out, "{mark}  {:>width$}  {}", line.time, line.rest);
}

/// The lines of two reports that differ, paired by a key: `key` gives a line's key (`None`
/// for a line that is not compared), and the lines of the same key are compared with their
/// spaces folded. Returns, in the first report's order then the second's, each key whose lines
/// differ with the line of each report (`None` when that report has no such line).
#[must_use]
pub fn differing<'a>(
    a: &'a str,
    b: &'a str,
    key: impl Fn(&str) -> Option<String>,
) -> Vec<(Option<&'a str>, Option<&'a str>)> {
    let keyed = |text: &'a str| -> Vec<(String, &'a str)> {
        text.lines()
            .filter_map(|l| key(l).map(|k| (k, l)))
            .collect()
    };
    let (ka, kb) = (keyed(a), keyed(b));
    let mut out = Vec::new();
    for (k, la) in &ka {
        match kb.iter().find(|(kk, _)| kk == k) {
            Some((_, lb)) if fold(la) == fold(lb) => {}
            Some((_, lb)) => out.push((Some(*la), Some(*lb))),
            None => out.push((Some(*la), None)),
        }
    }
    for (k, lb) in &kb {
        if !ka.iter().any(|(kk, _)| kk == k) {
            out.push((None, Some(*lb)));
        }
    }
    out
}

/// Writes two blocks of text one above the other, each line prefixed by its run's letter.
#[must_use]
pub fn stacked(a: &str, b: &str) -> String {
    let mut out = String::new();
    for (mark, text) in [(ONLY_A, a), (ONLY_B, b)] {
        for l in text.lines() {
            let _ = writeln!(out, "{}  {l}", mark.trim_end());
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    const A: &str = "kubia: Kubernetes 1.37, seed 0, duration 2m (120s)\n\n   TIME  CONTAINER  KIND   WHAT\n     0s  kubia      start  new instance\n    10s  kubia      probe  liveness success\n    20s  kubia      probe  liveness failure 1/3\n         continued\n     1m  kubia      kill   LivenessProbe\n\nAt 2m: phase Running\n";
    // The same run with a longer container column and a different end.
    const B: &str = "kubia: Kubernetes 1.37, seed 0, duration 2m (120s)\n\n   TIME  CONTAINER    KIND   WHAT\n     0s  kubia        start  new instance\n    10s  kubia        probe  liveness success\n    20s  kubia        probe  liveness failure 1/1\n    20s  kubia        kill   LivenessProbe\n\nAt 2m: phase Running\n";

    #[test]
    fn timelines_merge_by_time_and_mark_what_one_run_has() {
        let (text, counts) = timelines(A, B);
        assert_eq!(
            text,
            "RUN  TIME  CONTAINER  KIND   WHAT
       0s  kubia      start  new instance
      10s  kubia      probe  liveness success
A     20s  kubia      probe  liveness failure 1/3
         continued
  B   20s  kubia        probe  liveness failure 1/1
  B   20s  kubia        kill   LivenessProbe
A      1m  kubia      kill   LivenessProbe
"
        );
        assert_eq!(
            counts,
            Counts {
                both: 2,
                only_a: 2,
                only_b: 2
            }
        );
        // A run compared with itself has no differences.
        let (_, same) = timelines(A, A);
        assert_eq!((same.only_a, same.only_b, same.both), (0, 0, 4));
    }

    #[test]
    fn report_lines_are_paired_by_key() {
        let a = "  x  min 1s  max 2s\n  y  min 1s\n  z  3\n";
        let b = "  x  min 1s    max 2s\n  y  min 5s\n  w  4\n";
        let key = |l: &str| l.split_whitespace().next().map(str::to_owned);
        assert_eq!(
            differing(a, b, key),
            [
                (Some("  y  min 1s"), Some("  y  min 5s")),
                (Some("  z  3"), None),
                (None, Some("  w  4")),
            ]
        );
    }
}
