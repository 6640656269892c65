//! `probesim compare`: two runs side by side.

use std::io::{self, Write};

use probesim_analysis::report::{self, WorkloadReport};
use probesim_analysis::subject::Subject;
use probesim_report::compare::{differing, stacked, timelines};
use probesim_report::{render_with, Format, ViewOptions};
use probesim_scenario::scenario::Scenario;

use crate::args::CompareArgs;
use crate::cmd::analyze::machine_sweep;
use crate::cmd::print_error;
use crate::cmd::run::{load_scenario, Loaded};
use crate::exit::ExitStatus;

#[derive(Clone, Copy, PartialEq, Eq)]
enum Output {
    Text,
    Svg,
    Html,
}

pub fn compare(args: &CompareArgs) -> ExitStatus {
    let output = match args.format.as_str() {
        "text" => Output::Text,
        "svg" => Output::Svg,
        "html" => Output::Html,
        other => {
            print_error(&format!(
                "--format: unknown format {other:?} (expected text, svg or html)"
            ));
            return ExitStatus::Error;
        }
    };
    let m = &args.manifest;
    let edited = !(m.set.is_empty()
        && m.app.is_empty()
        && m.exit.is_empty()
        && m.sigterm.is_empty()
        && m.pull.is_empty());
    if args.b.is_none() && !edited {
        print_error(
            "compare needs two runs: a second file (probesim compare A B), or edits of the first \
             (probesim compare A --set livenessProbe.failureThreshold=1)",
        );
        return ExitStatus::Error;
    }
    let mut runs = Vec::new();
    for b in [false, true] {
        match load_scenario(&args.as_run(b)) {
            Ok(Loaded::Scenario(s)) => runs.push(*s),
            Ok(Loaded::Done(status)) | Err(status) => return status,
        }
    }
    let (a, b) = (&runs[0], &runs[1]);
    let out = match output {
        Output::Text => text(a, b, !args.no_analysis),
        Output::Svg => picture(a, b).map(|(svg, _)| svg),
        Output::Html => html(a, b),
    };
    let out = match out {
        Ok(o) => o,
        Err(e) => {
            print_error(&e);
            return ExitStatus::Error;
        }
    };
    let mut stdout = io::stdout().lock();
    match stdout
        .write_all(out.as_bytes())
        .and_then(|()| stdout.flush())
    {
        Ok(()) => ExitStatus::Success,
        Err(e) if e.kind() == io::ErrorKind::BrokenPipe => ExitStatus::Success,
        Err(e) => {
            print_error(&format!("cannot write to standard output: {e}"));
            ExitStatus::Error
        }
    }
}

/// One view of a run, as `probesim run --format F` writes it (the timeline without colour).
fn view(scenario: &Scenario, format: Format) -> Result<String, String> {
    let options = ViewOptions {
        readable: true,
        ..ViewOptions::default()
    };
    let bytes = render_with(scenario, format, &options, Vec::new())
        .map_err(|e| format!("{}: {e}", scenario.file))?;
    Ok(String::from_utf8_lossy(&bytes).into_owned())
}

/// The run's header line and its edits, as the timeline starts.
fn header(timeline: &str) -> String {
    timeline
        .lines()
        .take_while(|l| !l.trim().is_empty())
        .map(|l| format!("{l}\n"))
        .collect()
}

fn text(a: &Scenario, b: &Scenario, analysis: bool) -> Result<String, String> {
    let (ta, tb) = (view(a, Format::Timeline)?, view(b, Format::Timeline)?);
    let mut out = String::new();
    out.push_str(&stacked(
        &format!("{}\n{}", a.file, header(&ta)),
        &format!("{}\n{}", b.file, header(&tb)),
    ));
    let (merged, counts) = timelines(&ta, &tb);
    out.push_str(&format!(
        "\nThe timelines by time: {} lines in both, {} only in A (marked A), {} only in B (marked B)\n\n",
        counts.both, counts.only_a, counts.only_b
    ));
    out.push_str(&merged);
    let (ga, gb) = (view(a, Format::Get)?, view(b, Format::Get)?);
    out.push_str("\nkubectl get pod -w\n");
    out.push_str(&stacked(&ga, &gb));
    if analysis {
        let (fa, fb) = (figures(a)?, figures(b)?);
        // A figure row starts with its name, under a `container NAME:` line.
        let key = |l: &str| {
            let t = l.trim_start();
            let indent = l.len() - t.len();
            (indent == 4 && !t.is_empty())
                .then(|| t.split_whitespace().next().map(str::to_owned))?
        };
        let rows = differing(&fa, &fb, key);
        if rows.is_empty() {
            out.push_str("\nThe analysis figures are the same.\n");
        } else {
            out.push_str("\nThe analysis figures that differ\n");
            for (x, y) in rows {
                for (mark, line) in [("A", x), ("B", y)] {
                    match line {
                        Some(l) => out.push_str(&format!("{mark}  {}\n", l.trim_start())),
                        None => out.push_str(&format!("{mark}  (none)\n")),
                    }
                }
            }
        }
    }
    Ok(out)
}

/// The analysis of a run's pod, as `probesim analyze` prints it.
fn figures(scenario: &Scenario) -> Result<String, String> {
    let subject = Subject::of(scenario, &scenario.name, None);
    let report = WorkloadReport::of(subject, machine_sweep()).map_err(|e| e.to_string())?;
    Ok(report::text(&scenario.profile.version(), &[report]))
}

/// The two pictures, A above B, in one SVG; and its size.
fn picture(a: &Scenario, b: &Scenario) -> Result<(String, (u64, u64)), String> {
    let (sa, sb) = (view(a, Format::Svg)?, view(b, Format::Svg)?);
    let (wa, ha) = size(&sa).ok_or("the picture of run A has no size")?;
    let (wb, hb) = size(&sb).ok_or("the picture of run B has no size")?;
    let (width, gap) = (wa.max(wb), 28);
    let height = 24 + ha + gap + hb;
    let mut out = format!(
        "<svg xmlns=\"http://www.w3.org/2000/svg\" viewBox=\"0 0 {width} {height}\" width=\"{width}\" height=\"{height}\" role=\"img\" aria-label=\"two runs compared\">\n"
    );
    out.push_str("<style>.cmp{font:bold 14px sans-serif;fill:#111}</style>\n");
    out.push_str("<text class=\"cmp\" x=\"8\" y=\"17\">A</text>\n");
    out.push_str(&nested(&sa, 24));
    out.push_str(&format!(
        "<text class=\"cmp\" x=\"8\" y=\"{}\">B</text>\n",
        24 + ha + 19
    ));
    out.push_str(&nested(&sb, 24 + ha + gap));
    out.push_str("</svg>\n");
    Ok((out, (width, height)))
}

/// The `width` and `height` of an SVG's root element.
fn size(svg: &str) -> Option<(u64, u64)> {
    let root = &svg[..svg.find('>')?];
    let attr = |name: &str| -> Option<u64> {
        let at = root.find(&format!(" {name}=\""))? + name.len() + 3;
        root[at..].split('"').next()?.parse().ok()
    };
    Some((attr("width")?, attr("height")?))
}

/// An SVG placed `y` down inside another: its root element gains `y`.
fn nested(svg: &str, y: u64) -> String {
    let svg = svg.trim_end();
    match svg.strip_prefix("<svg ") {
        Some(rest) => format!("<svg y=\"{y}\" {rest}\n"),
        None => String::new(),
    }
}

fn escape(text: &str) -> String {
    text.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
        .replace('"', "&quot;")
}

fn html(a: &Scenario, b: &Scenario) -> Result<String, String> {
    let (svg, (width, _)) = picture(a, b)?;
    let (ta, tb) = (view(a, Format::Timeline)?, view(b, Format::Timeline)?);
    let (merged, counts) = timelines(&ta, &tb);
    let mut out = String::from("<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n");
    out.push_str(&format!(
        "<title>probesim compare: {} and {}</title>\n",
        escape(&a.name),
        escape(&b.name)
    ));
    out.push_str(&format!("<style>body{{font:15px/1.45 system-ui,sans-serif;margin:1rem auto;max-width:{}px;padding:0 1rem;color:#111}}figure{{margin:0;overflow-x:auto}}svg{{max-width:100%;height:auto}}pre{{overflow-x:auto;font-size:12px;background:#f6f6f6;padding:.5rem}}.meta{{color:#555}}</style>\n</head>\n<body>\n", width.max(600)));
    out.push_str("<h1>Two runs compared</h1>\n");
    for (mark, t) in [("A", &ta), ("B", &tb)] {
        out.push_str(&format!(
            "<p class=\"meta\"><b>{mark}</b> {}</p>\n",
            escape(header(t).trim_end()).replace('\n', "<br>")
        ));
    }
    out.push_str(&format!("<figure>\n{svg}</figure>\n"));
    out.push_str(&format!(
        "<h2>The timelines by time</h2>\n<p>{} lines in both, {} only in A (marked A), {} only in B (marked B).</p>\n<pre>{}</pre>\n</body>\n</html>\n",
        counts.both,
        counts.only_a,
        counts.only_b,
        escape(&merged)
    ));
    Ok(out)
}
