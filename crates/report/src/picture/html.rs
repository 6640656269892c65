//! `--format html`: one self-contained page (inline CSS and SVG, no script, no font, no URL):
//! the picture with the `explain` story beside it (each step a link to its instant in the
//! picture), its legend, the scenario, the status at the end and the Events.
//!
//! On a wide screen the picture stays in view (sticky) beside the story, which scrolls; on a
//! narrow one (a phone) the story comes under the picture, and the picture scrolls sideways.

use core::fmt;

use probesim_core::{PodSpec, PodStatus, SimTime};
use probesim_script::parse_duration;

use super::{svg_marked, Esc, Scale, LEGEND, STYLE};
use crate::explain::{At, Took};
use crate::trace::{Part, Trace, What};
use crate::RunInfo;

/// The page's own style: readable on a phone (the picture scrolls sideways), printable.
const PAGE_STYLE: &str = "\
body{font:15px/1.45 sans-serif;color:#222;margin:0 auto;max-width:1500px;padding:12px}\
.teach{display:grid;grid-template-columns:minmax(0,1fr);gap:12px}\
@media (min-width:1100px){.teach{grid-template-columns:minmax(0,1fr) 360px}#picture{position:sticky;top:0;align-self:start}#story ol{max-height:calc(100vh - 70px);overflow-y:auto}}\
#story ol{list-style:none;padding:0;margin:0;font-size:14px}#story li{padding:3px 4px;border-bottom:1px solid #f0f0f0}#story li:target{background:#fff4c2}#picture{background:#fff}\
#story a.t{font-variant-numeric:tabular-nums;font-weight:bold;text-decoration:none;color:#1a5fb4;white-space:nowrap}#story a.t:hover{text-decoration:underline}\
.cursor{stroke:#d62728;stroke-width:2;stroke-dasharray:4 3;opacity:0}.verdict p{margin:.3em 0}\
h1{font-size:1.4em;margin:.2em 0}h2{font-size:1.1em;margin:1.2em 0 .4em;border-bottom:1px solid #ddd}\
.meta{color:#555}.scroll{overflow-x:auto;border:1px solid #eee}.scroll svg{display:block;width:100%;min-width:720px;height:auto}\
dl.legend{display:grid;grid-template-columns:auto 1fr;gap:2px 10px}dl.legend dt svg{vertical-align:middle}\
pre{background:#f7f7f7;padding:8px;overflow-x:auto;font-size:13px}\
table{border-collapse:collapse;font-size:13px;width:100%}th,td{text-align:left;padding:2px 6px;border-bottom:1px solid #eee;vertical-align:top}\
td.num{text-align:right;white-space:nowrap}td{overflow-wrap:anywhere}tr.folded td{background:#f4f4f4;font-style:italic}\
@media (max-width:600px){body{font-size:14px;padding:6px}td,th{padding:2px 3px}dl.legend{grid-template-columns:1fr}dl.legend dd{margin:0 0 6px 20px}}\
@media print{.scroll{overflow:visible;border:none}.scroll svg{width:100%;height:auto}body{max-width:none}h2{break-after:avoid}tr{break-inside:avoid}}";

/// What the legend says each mark means.
const MEANING: [&str; 13] = [
    "a container instance runs (from its start to its kill or exit)",
    "killed, waiting for the process to stop within the grace period; SIGKILL at its end",
    "exited; the kubelet refuses to start it until the crash-loop back-off expires (CrashLoopBackOff)",
    "exited, not running",
    "the container (thin band under it) or the pod (pod Ready lane) is Ready: Services send it traffic",
    "one probe run that succeeded (its width is how long it ran)",
    "one probe run that failed; the hover title shows the run toward failureThreshold (2/3)",
    "success with a warning (HTTP 3xx not followed)",
    "the prober itself failed: the result is discarded",
    "the worker's stored verdict changed: a threshold was crossed (the circle: its initial value for a new container)",
    "after a decisive liveness or startup failure the worker does nothing until a new container appears",
    "a Kubernetes Event (blue: Normal, red: Warning); hover for its reason, message and count",
    "the same cycle repeats: drawn once before this column, folded here with its count (never dropped)",
];

/// Writes the HTML report.
///
/// # Errors
/// Only the writer's.
#[allow(clippy::too_many_arguments)]
pub fn html(
    w: &mut impl fmt::Write,
    info: &RunInfo<'_>,
    description: Option<&str>,
    pod: &PodSpec,
    trace: &Trace,
    status: &PodStatus,
    final_status: &str,
    setting: &crate::explain::Setting<'_>,
) -> fmt::Result {
    writeln!(w, "<!DOCTYPE html>")?;
    writeln!(w, "<html lang=\"en\">")?;
    writeln!(w, "<head>")?;
    writeln!(w, "<meta charset=\"utf-8\">")?;
    writeln!(
        w,
        "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">"
    )?;
    writeln!(w, "<title>probesim: {}</title>", Esc(info.scenario))?;
    writeln!(w, "<style>{PAGE_STYLE}</style>")?;
    writeln!(w, "</head>")?;
    writeln!(w, "<body>")?;
    writeln!(w, "<header>")?;
    writeln!(w, "<h1>{}</h1>", Esc(info.scenario))?;
    if let Some(d) = description {
        writeln!(w, "<p>{}</p>", Esc(d))?;
    }
    if let Some(line) = info.overridden_line() {
        writeln!(w, "<p class=\"meta\">{}</p>", Esc(&line))?;
    }
    writeln!(
        w,
        "<p class=\"meta\">Kubernetes {} · seed {} · {} simulated · phase {} at the end, pod Ready {}</p>",
        Esc(info.kubernetes),
        info.seed,
        Took(info.duration),
        status.phase.as_str(),
        status.conditions.ready
    )?;
    writeln!(w, "</header>")?;

    // The story `probesim explain` tells, its steps linked to their instants in the picture.
    let mut story = String::new();
    crate::explain::explain(&mut story, info, None, pod, trace, setting)?;
    let (steps, verdict) = story_parts(&story);
    let marks: Vec<SimTime> = steps.iter().filter_map(|s| s.at).collect();
    let flags: Vec<(SimTime, String)> = setting
        .borderline
        .iter()
        .map(|b| (b.at, b.line()))
        .collect();

    // Following a step's link marks the step (`:target`) and shows the cursor at its instant.
    write!(w, "<style>")?;
    for (i, step) in steps.iter().enumerate() {
        if let Some(t) = step.at {
            write!(
                w,
                ".teach:has(#step-{}:target) #at-{}{{opacity:1}}",
                i + 1,
                t.as_millis()
            )?;
        }
    }
    if !flags.is_empty() {
        write!(w, "{}", super::flag::page_style())?;
    }
    writeln!(w, "</style>")?;
    writeln!(w, "<div class=\"teach\">")?;
    writeln!(w, "<section id=\"picture\">")?;
    writeln!(w, "<h2>Timeline</h2>")?;
    writeln!(w, "<div class=\"scroll\">")?;
    svg_marked(w, info, pod, trace, &marks, &flags)?;
    writeln!(w, "</div>")?;
    writeln!(w, "</section>")?;
    writeln!(w, "<section id=\"story\">")?;
    writeln!(w, "<h2>What happens, and why</h2>")?;
    writeln!(w, "<ol>")?;
    for (i, step) in steps.iter().enumerate() {
        match step.at {
            Some(_) => writeln!(
                w,
                "<li id=\"step-{}\"{}><a class=\"t\" href=\"#step-{}\">{}</a>{}</li>",
                i + 1,
                if step.flag {
                    " class=\"borderline\""
                } else {
                    ""
                },
                i + 1,
                Esc(step.time),
                Esc(step.text)
            )?,
            None => writeln!(w, "<li id=\"step-{}\">{}</li>", i + 1, Esc(step.line))?,
        }
    }
    writeln!(w, "</ol>")?;
    if !verdict.is_empty() {
        writeln!(
            w,
            "<div class=\"verdict\"><h2>Verdict</h2><p>{}</p></div>",
            Esc(&verdict)
        )?;
    }
    writeln!(w, "</section>")?;
    writeln!(w, "</div>")?;

    writeln!(w, "<section id=\"legend\">")?;
    writeln!(w, "<h2>Legend</h2>")?;
    writeln!(w, "<dl class=\"legend\">")?;
    for ((class, name), meaning) in LEGEND.iter().zip(MEANING) {
        let swatch = if *class == "normal" {
            "<line class=\"normal\" x1=\"4\" y1=\"0\" x2=\"4\" y2=\"14\"/><line class=\"warning\" x1=\"10\" y1=\"0\" x2=\"10\" y2=\"14\"/>".to_owned()
        } else {
            format!("<rect class=\"{class}\" width=\"14\" height=\"14\"/>")
        };
        writeln!(
            w,
            "<dt><svg width=\"14\" height=\"14\" aria-hidden=\"true\"><style>{STYLE}</style>{}{swatch}</svg> {name}</dt><dd>{meaning}</dd>",
            super::DEFS
        )?;
    }
    if !flags.is_empty() {
        super::flag::legend(w)?;
    }
    writeln!(w, "</dl>")?;
    writeln!(w, "</section>")?;

    writeln!(w, "<section id=\"scenario\">")?;
    writeln!(w, "<h2>Scenario</h2>")?;
    let mut text = String::new();
    crate::explain::write_pod(&mut text, pod)?;
    writeln!(w, "<pre>{}</pre>", Esc(&text))?;
    writeln!(w, "</section>")?;

    // The `kubectl describe pod` view at the end of the run (`--format describe`).
    writeln!(w, "<section id=\"describe\">")?;
    writeln!(w, "<h2>kubectl describe pod, at the end</h2>")?;
    writeln!(w, "<pre>{}</pre>", Esc(final_status.trim_matches('\n')))?;
    writeln!(w, "</section>")?;

    // Every Kubernetes Event the kubelet recorded, folded cycles as one row.
    writeln!(w, "<section id=\"events\">")?;
    writeln!(w, "<h2>Events</h2>")?;
    events_table(w, pod, trace, setting.borderline)?;
    writeln!(w, "</section>")?;

    writeln!(
        w,
        "<footer class=\"meta\"><p>Made by probesim, a deterministic simulation of the kubelet: the same scenario and seed give the same page.</p></footer>"
    )?;
    writeln!(w, "</body>")?;
    writeln!(w, "</html>")
}

/// One step of the story: `t=80s: …`.
struct Step<'a> {
    /// The whole line.
    line: &'a str,
    /// `t=80s` (of `t=80s–110s`, the whole range).
    time: &'a str,
    /// What follows the time (`: third liveness failure …`).
    text: &'a str,
    /// The instant the step starts at, when its time reads as one.
    at: Option<SimTime>,
    /// A borderline decision's mark (`⚠ borderline at t=…`, [`crate::borderline`]).
    flag: bool,
}

/// The steps of the story's "What happens" part, and its verdict as one paragraph.
fn story_parts(story: &str) -> (Vec<Step<'_>>, String) {
    let mut steps = Vec::new();
    let mut verdict = String::new();
    let mut part = "";
    for line in story.lines() {
        if !line.starts_with(' ') && !line.trim().is_empty() {
            part = line;
            continue;
        }
        let trimmed = line.trim();
        if trimmed.is_empty() {
            continue;
        }
        match part {
            "What happens" => {
                let flag = trimmed.starts_with(super::flag::PREFIX);
                let (time, text) = match trimmed.find(':') {
                    Some(i) if trimmed.starts_with("t=") || flag => trimmed.split_at(i),
                    _ => ("", trimmed),
                };
                let start = time
                    .strip_prefix("t=")
                    .or_else(|| time.strip_prefix(super::flag::PREFIX))
                    .and_then(|t| t.split(' ').next())
                    .and_then(|t| t.split('–').next())
                    .and_then(|t| parse_duration(t).ok());
                steps.push(Step {
                    line: trimmed,
                    time,
                    text,
                    at: start.map(|d| SimTime::ZERO.saturating_add(d)),
                    flag,
                });
            }
            "Verdict" => {
                if !verdict.is_empty() {
                    verdict.push(' ');
                }
                verdict.push_str(trimmed);
            }
            _ => {}
        }
    }
    (steps, verdict)
}

/// The Kubernetes Events as recorded, one row each; folded cycles as one row.
fn events_table(
    w: &mut impl fmt::Write,
    pod: &PodSpec,
    trace: &Trace,
    flags: &[crate::borderline::Borderline],
) -> fmt::Result {
    let mut flagged = 0;
    let (_, parts) = Scale::new(trace, pod);
    writeln!(w, "<div class=\"scroll\"><table>")?;
    writeln!(
        w,
        "<thead><tr><th>Time</th><th>Type</th><th>Reason</th><th>Object</th><th>Message</th><th>Count</th></tr></thead>"
    )?;
    writeln!(w, "<tbody>")?;
    for part in parts {
        match part {
            Part::Shown { from, to, .. } => {
                for (j, item) in trace.items.iter().enumerate().take(to).skip(from) {
                    super::flag::rows(w, flags, &mut flagged, j)?;
                    let What::Event {
                        c,
                        event_type,
                        reason,
                        message,
                        count,
                        sent,
                    } = item.what
                    else {
                        continue;
                    };
                    let object = c.map_or_else(
                        || "pod".to_owned(),
                        |c| {
                            let kind = if trace.init[c] {
                                "initContainers"
                            } else {
                                "containers"
                            };
                            format!("spec.{kind}{{{}}}", trace.names[c])
                        },
                    );
                    let mut count_text = count.to_string();
                    if !sent {
                        count_text.push_str(" (not sent)");
                    }
                    writeln!(
                        w,
                        "<tr><td class=\"num\">{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td class=\"num\">{}</td></tr>",
                        At(item.t),
                        event_type.as_str(),
                        reason,
                        Esc(&object),
                        Esc(trace.text(message)),
                        count_text
                    )?;
                }
            }
            Part::Repeated {
                from,
                to,
                t0,
                t1,
                times,
                cycle,
                ..
            } => {
                super::flag::rows(w, flags, &mut flagged, from)?;
                let n = trace.count(from, to, |w| matches!(w, What::Event { .. }));
                writeln!(
                    w,
                    "<tr class=\"folded\"><td class=\"num\">{}</td><td colspan=\"5\">{n} events from t={} to t={}: {times} more repetitions of the {} cycle above, folded (probesim run --format json lists each)</td></tr>",
                    At(t0),
                    At(t0),
                    At(t1),
                    Took(cycle)
                )?;
            }
        }
    }
    super::flag::rows(w, flags, &mut flagged, usize::MAX)?;
    writeln!(w, "</tbody>")?;
    writeln!(w, "</table></div>")
}
