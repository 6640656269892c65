//! `--format html`: one self-contained page (inline CSS and SVG, no script, no font, no URL):
//! the picture, its legend, the scenario, the status at the end and the Events.

use core::fmt;

use probesim_core::{PodSpec, PodStatus};

use super::{svg, Esc, Scale, LEGEND, STYLE};
use crate::explain::{At, Took};
use crate::trace::{Part, Trace, What};
use crate::RunInfo;

/// The page's own style: readable on a phone (the picture scrolls sideways), printable.
const PAGE_STYLE: &str = "\
body{font:15px/1.45 sans-serif;color:#222;margin:0 auto;max-width:1100px;padding:12px}\
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

    writeln!(w, "<section id=\"picture\">")?;
    writeln!(w, "<h2>Timeline</h2>")?;
    writeln!(w, "<div class=\"scroll\">")?;
    svg(w, info, pod, trace)?;
    writeln!(w, "</div>")?;
    writeln!(w, "</section>")?;

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
    events_table(w, pod, trace)?;
    writeln!(w, "</section>")?;

    writeln!(
        w,
        "<footer class=\"meta\"><p>Made by probesim, a deterministic simulation of the kubelet: the same scenario and seed give the same page.</p></footer>"
    )?;
    writeln!(w, "</body>")?;
    writeln!(w, "</html>")
}

/// The Kubernetes Events as recorded, one row each; folded cycles as one row.
fn events_table(w: &mut impl fmt::Write, pod: &PodSpec, trace: &Trace) -> fmt::Result {
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
                for item in &trace.items[from..to] {
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
                let n = trace.items[from..to]
                    .iter()
                    .filter(|i| matches!(i.what, What::Event { .. }))
                    .count();
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
    writeln!(w, "</tbody>")?;
    writeln!(w, "</table></div>")
}
