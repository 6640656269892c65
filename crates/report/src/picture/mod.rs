//! `--format svg` and `--format html`: the run as a swim-lane picture.
//!
//! One lane per container for its instances (running, terminating with its grace period, waiting
//! in back-off), a thin Ready band under it, one lane per probe (each run a mark coloured by its
//! outcome, threshold crossings as tall marks, the hold after a decisive failure hatched), the
//! pod's Ready band, and the Kubernetes Events as ticks. Every mark has an SVG `<title>`, which
//! browsers show on hover. The time axis ticks from seconds to days.
//!
//! Long runs stay small: when the run does not fit the width at a readable scale, repeated
//! cycles ([`fold`]) are drawn once and each run of repetitions becomes one hatched column that
//! says how many cycles it holds; nothing is left out silently.
//!
//! The SVG is written by hand, with fixed-precision numbers and no hash order: the same events
//! give the same bytes.

use core::fmt::{self, Write as _};

use probesim_core::{EventType, KillReason, Outcome, PodSpec, ProbeKind, ProbeResult, SimTime};

use crate::explain::{At, Took};
use crate::trace::{fold, unfolded, Part, ResultCause, Trace, What};
use crate::RunInfo;

mod flag;
pub mod html;
mod lanes;
mod probes;
mod sink;

pub use sink::{PictureSink, MAX_PICTURE_BYTES};

use lanes::{bars, Bar, BarKind};
use probes::{probe_lane, Dense, DENSE_GAP};

/// Width of the label column on the left.
const LABEL_W: f64 = 150.0;
/// Space right of the plot.
const RIGHT_W: f64 = 16.0;
/// The plot's width bounds.
const MIN_PLOT: f64 = 640.0;
const MAX_PLOT: f64 = 1600.0;
/// Width of a column of folded repetitions.
const FOLD_W: f64 = 64.0;
/// Pixels between two probe runs at the readable scale.
const PROBE_GAP: f64 = 5.0;
/// Minimum distance between two labelled axis ticks.
const TICK_GAP: f64 = 72.0;

/// Tick steps, in seconds.
const STEPS: [u64; 24] = [
    1, 2, 5, 10, 15, 30, 60, 120, 300, 600, 900, 1800, 3600, 7200, 10_800, 21_600, 43_200, 86_400,
    172_800, 604_800, 1_209_600, 2_592_000, 7_776_000, 31_536_000,
];

/// One column of the plot: a stretch of time drawn to scale, or a fold.
#[derive(Clone, Copy, Debug)]
struct Column {
    t0: f64,
    t1: f64,
    x0: f64,
    x1: f64,
    fold: Option<Part>,
}

/// Maps virtual time to x.
#[derive(Debug)]
struct Scale {
    columns: Vec<Column>,
}

impl Scale {
    fn new(trace: &Trace, pod: &PodSpec) -> (Scale, Vec<Part>) {
        let horizon = secs(trace.end).max(1.0);
        let min_period = (0..pod.container_count())
            .flat_map(|c| {
                let spec = pod.container(c);
                ProbeKind::ALL
                    .into_iter()
                    .filter_map(move |k| spec.probe(k).map(|p| p.period_seconds()))
            })
            .min()
            .unwrap_or(10)
            .max(1);
        let per_sec = PROBE_GAP / f64::from(min_period);
        let parts = if horizon * per_sec <= MAX_PLOT {
            unfolded(trace)
        } else {
            fold(trace)
        };
        let folds = parts
            .iter()
            .filter(|p| matches!(p, Part::Repeated { .. }))
            .count() as f64;
        let shown: f64 = parts
            .iter()
            .filter(|p| matches!(p, Part::Shown { .. }))
            .map(|p| {
                let (a, b) = p.times();
                secs(b) - secs(a)
            })
            .sum::<f64>()
            .max(1.0);
        let room = (MAX_PLOT - folds * FOLD_W).max(MIN_PLOT / 2.0);
        let plot = (shown * per_sec).clamp(MIN_PLOT.min(room), room);
        let k = plot / shown;
        let mut x = LABEL_W;
        let mut columns = Vec::new();
        for part in &parts {
            let (a, b) = part.times();
            let (t0, t1) = (secs(a), secs(b));
            let (w, fold) = match part {
                Part::Shown { .. } => ((t1 - t0) * k, None),
                Part::Repeated { .. } => (FOLD_W, Some(*part)),
            };
            columns.push(Column {
                t0,
                t1,
                x0: x,
                x1: x + w,
                fold,
            });
            x += w;
        }
        (Scale { columns }, parts)
    }

    fn right(&self) -> f64 {
        self.columns.last().map_or(LABEL_W, |c| c.x1)
    }

    fn x(&self, t: SimTime) -> f64 {
        let t = secs(t);
        for c in &self.columns {
            if t <= c.t1 {
                let span = (c.t1 - c.t0).max(f64::MIN_POSITIVE);
                return c.x0 + (t - c.t0).max(0.0) / span * (c.x1 - c.x0);
            }
        }
        self.right()
    }

    /// Whether an instant is inside a fold (its marks are not drawn one by one).
    fn folded(&self, t: SimTime) -> bool {
        let t = secs(t);
        self.columns
            .iter()
            .any(|c| c.fold.is_some() && t > c.t0 && t < c.t1)
    }
}

fn secs(t: SimTime) -> f64 {
    t.as_millis() as f64 / 1000.0
}

/// A number with at most one decimal, `.0` left out.
struct N(f64);

impl fmt::Display for N {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let tenths = (self.0 * 10.0).round() as i64;
        if tenths % 10 == 0 {
            write!(f, "{}", tenths / 10)
        } else {
            write!(f, "{}.{}", tenths / 10, (tenths % 10).abs())
        }
    }
}

/// Text escaped for XML.
struct Esc<'a>(&'a str);

impl fmt::Display for Esc<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for ch in self.0.chars() {
            match ch {
                '&' => f.write_str("&amp;")?,
                '<' => f.write_str("&lt;")?,
                '>' => f.write_str("&gt;")?,
                '"' => f.write_str("&quot;")?,
                c => f.write_char(c)?,
            }
        }
        Ok(())
    }
}

/// A tick label: `0`, `30s`, `1m30s`, `2h`, `1d12h`.
fn tick_label(s: u64) -> String {
    if s == 0 {
        return "0".into();
    }
    let mut out = String::new();
    for (n, name) in [
        (s / 86_400, "d"),
        ((s % 86_400) / 3600, "h"),
        ((s % 3600) / 60, "m"),
        (s % 60, "s"),
    ] {
        if n > 0 {
            let _ = write!(out, "{n}{name}");
        }
    }
    out
}

/// The CSS classes of the picture (shared with the HTML report's legend).
pub(crate) const STYLE: &str = "\
.lbl{font:12px sans-serif;fill:#222}.sub{font:11px sans-serif;fill:#555}\
.ttl{font:bold 13px sans-serif;fill:#111}.ax{font:10px sans-serif;fill:#444}\
.grid{stroke:#ddd;stroke-width:1}.run{fill:#4a90d9}.term{fill:#f0a030}\
.wait{fill:url(#hatch-wait)}.gone{fill:#ccc}.make{fill:#a0c4e8}.rdy{fill:#2e9e44}\
.ok{fill:#2e9e44}.fail{fill:#d62728}.warn{fill:#e0a800}.err{fill:#8e44ad}\
.verdict{fill:#111}.init{fill:none;stroke:#777;stroke-width:1}.hold{fill:url(#hatch-hold)}\
.normal{stroke:#1f77b4;stroke-width:1.5}.warning{stroke:#d62728;stroke-width:1.5}\
.fold{fill:url(#hatch-fold);stroke:#888;stroke-dasharray:3 2}.foldt{font:10px sans-serif;fill:#333}";

const DEFS: &str = "<defs>\
<pattern id=\"hatch-wait\" width=\"6\" height=\"6\" patternUnits=\"userSpaceOnUse\" patternTransform=\"rotate(45)\"><rect width=\"6\" height=\"6\" fill=\"#eee\"/><line x1=\"0\" y1=\"0\" x2=\"0\" y2=\"6\" stroke=\"#999\" stroke-width=\"2\"/></pattern>\
<pattern id=\"hatch-hold\" width=\"5\" height=\"5\" patternUnits=\"userSpaceOnUse\" patternTransform=\"rotate(-45)\"><rect width=\"5\" height=\"5\" fill=\"#fff\"/><line x1=\"0\" y1=\"0\" x2=\"0\" y2=\"5\" stroke=\"#d62728\" stroke-opacity=\".45\" stroke-width=\"1.5\"/></pattern>\
<pattern id=\"hatch-fold\" width=\"8\" height=\"8\" patternUnits=\"userSpaceOnUse\" patternTransform=\"rotate(45)\"><rect width=\"8\" height=\"8\" fill=\"#f4f4f4\"/><line x1=\"0\" y1=\"0\" x2=\"0\" y2=\"8\" stroke=\"#ccc\" stroke-width=\"3\"/></pattern>\
</defs>";

/// A lane of the picture: its key (`kubia/liveness`), its label and its height.
#[derive(Clone, Debug)]
struct Lane {
    key: String,
    label: String,
    sub: &'static str,
    y: f64,
    h: f64,
}

/// Writes the picture of a run as one `<svg>` element.
///
/// # Errors
/// Only the writer's.
pub fn svg(
    w: &mut impl fmt::Write,
    info: &RunInfo<'_>,
    pod: &PodSpec,
    trace: &Trace,
) -> fmt::Result {
    svg_marked(w, info, pod, trace, &[], &[])
}

/// [`svg`] with a hidden cursor at each of `marks`, a vertical line with the id `at-<ms>` that
/// the page shows when a link to it is followed (`:target`): the explanation's steps point at
/// their place in the picture this way, without a script. Each of `flags` (an instant and its
/// text) is a borderline decision's mark ([`flag`]).
pub(crate) fn svg_marked(
    w: &mut impl fmt::Write,
    info: &RunInfo<'_>,
    pod: &PodSpec,
    trace: &Trace,
    marks: &[SimTime],
    flags: &[(SimTime, String)],
) -> fmt::Result {
    let (scale, _) = Scale::new(trace, pod);
    // Lanes.
    // Lanes: (key, label, sub-label, height, gap after).
    let mut specs: Vec<(String, String, &'static str, f64, f64)> = Vec::new();
    for c in 0..trace.names.len() {
        let name = &trace.names[c];
        let role = if trace.init[c] {
            "init container"
        } else {
            "container"
        };
        specs.push((format!("{name}/container"), name.clone(), role, 18.0, 4.0));
        specs.push((format!("{name}/ready"), "ready".into(), "", 8.0, 8.0));
        for kind in Trace::probes(pod, c) {
            specs.push((
                format!("{name}/{kind}"),
                format!("{kind} probe"),
                "",
                16.0,
                6.0,
            ));
        }
        if let Some(last) = specs.last_mut() {
            last.4 += 6.0;
        }
    }
    specs.push(("pod/ready".into(), "pod Ready".into(), "", 8.0, 8.0));
    specs.push(("events".into(), "events".into(), "", 16.0, 0.0));
    let mut lanes: Vec<Lane> = Vec::new();
    let mut y = 58.0;
    for (key, label, sub, h, gap) in specs {
        lanes.push(Lane {
            key,
            label,
            sub,
            y,
            h,
        });
        y += h + gap;
    }
    let plot_bottom = y + 4.0;
    let legend_y = plot_bottom + 22.0;
    let width = scale.right() + RIGHT_W;
    let height = legend_y + legend_rows(width) as f64 * LEGEND_ROW + 10.0;
    let lane_of = |key: &str| lanes.iter().find(|l| l.key == key).cloned();

    writeln!(
        w,
        "<svg xmlns=\"http://www.w3.org/2000/svg\" viewBox=\"0 0 {} {}\" width=\"{}\" height=\"{}\" role=\"img\" aria-label=\"timeline of {}\">",
        N(width),
        N(height),
        N(width),
        N(height),
        Esc(info.scenario)
    )?;
    writeln!(w, "<style>{STYLE}</style>{DEFS}")?;
    writeln!(
        w,
        "<text class=\"ttl\" x=\"8\" y=\"18\">{}: Kubernetes {}, seed {}, {} simulated{}</text>",
        Esc(info.scenario),
        Esc(info.kubernetes),
        info.seed,
        Took(info.duration),
        Esc(&info
            .overridden_line()
            .map_or_else(String::new, |l| format!(" · {l}")))
    )?;
    axis(w, &scale, plot_bottom)?;
    // Lane labels.
    for l in &lanes {
        let mid = l.y + l.h / 2.0 + 4.0;
        write!(
            w,
            "<text class=\"lbl\" x=\"8\" y=\"{}\">{}",
            N(mid),
            Esc(&l.label)
        )?;
        if !l.sub.is_empty() {
            write!(w, "<tspan class=\"sub\"> {}</tspan>", l.sub)?;
        }
        writeln!(w, "</text>")?;
    }
    // Containers: instance bars and ready bands.
    for c in 0..trace.names.len() {
        let name = &trace.names[c];
        if let Some(l) = lane_of(&format!("{name}/container")) {
            open_lane(w, &l)?;
            bars(
                trace,
                c,
                |a, b| scale.x(b) - scale.x(a) >= 0.05,
                |bar| draw_bar(w, &scale, &l, bar),
            )?;
            writeln!(w, "</g>")?;
        }
        if let Some(l) = lane_of(&format!("{name}/ready")) {
            open_lane(w, &l)?;
            ready_spans(trace, Some(c), |a, b| {
                band(
                    w,
                    &scale,
                    &l,
                    a,
                    b,
                    "rdy",
                    format_args!("{name} ready from t={} to t={}", At(a), At(b)),
                )
            })?;
            writeln!(w, "</g>")?;
        }
        for kind in Trace::probes(pod, c) {
            if let Some(l) = lane_of(&format!("{name}/{kind}")) {
                open_lane(w, &l)?;
                probe_lane(w, &scale, &l, pod, trace, c, kind)?;
                writeln!(w, "</g>")?;
            }
        }
    }
    if let Some(l) = lane_of("pod/ready") {
        open_lane(w, &l)?;
        ready_spans(trace, None, |a, b| {
            band(
                w,
                &scale,
                &l,
                a,
                b,
                "rdy",
                format_args!("pod Ready from t={} to t={}", At(a), At(b)),
            )
        })?;
        writeln!(w, "</g>")?;
    }
    if let Some(l) = lane_of("events") {
        open_lane(w, &l)?;
        let mut ticks: Option<Dense> = None;
        let is_event = |w: &What| matches!(w, What::Event { .. });
        let events = trace.count(0, trace.items.len(), is_event);
        let crowded = events as f64 > scale.right() - LABEL_W;
        for (_, item) in trace.replay_where(is_event) {
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
            if scale.folded(item.t) {
                continue;
            }
            let x = scale.x(item.t);
            let class = match event_type {
                EventType::Normal => "normal",
                EventType::Warning => "warning",
            };
            // With more events than pixels, events closer together than a pixel, of one type,
            // are one tick (a short run keeps a tick per event, hover titles and all).
            if let Some(d) = ticks
                .as_mut()
                .filter(|d| crowded && d.class == class && x - d.x1 < DENSE_GAP)
            {
                d.add(item.t, x);
                continue;
            }
            if let Some(d) = ticks.take() {
                d.draw_tick(w, &l)?;
            }
            let object = c.map_or("pod", |c| trace.names[c].as_str());
            let mut title = format!(
                "t={} {} {reason} ({object}): {}",
                At(item.t),
                event_type.as_str(),
                trace.text(message)
            );
            if count > 1 {
                let _ = write!(title, " (x{count})");
            }
            if !sent {
                title.push_str(" (not sent: spam filter)");
            }
            ticks = Some(Dense {
                class,
                what: event_type.as_str(),
                x0: x,
                x1: x,
                first: item.t,
                last: item.t,
                count: 1,
                title,
            });
        }
        if let Some(d) = ticks.take() {
            d.draw_tick(w, &l)?;
        }
        writeln!(w, "</g>")?;
    }
    // Folds, over every lane.
    let top = lanes.first().map_or(58.0, |l| l.y) - 4.0;
    for col in &scale.columns {
        let Some(Part::Repeated {
            t0,
            t1,
            times,
            cycle,
            instances,
            from,
            to,
        }) = col.fold
        else {
            continue;
        };
        let restarts = trace.count(from, to, |w| matches!(w, What::Start { .. }));
        let title = format!(
            "repeated: {times} more cycles of {}{}, t={} to t={}; {restarts} restarts in all, drawn once before this column",
            Took(cycle),
            match instances {
                0 => String::new(),
                1 => " (1 instance each)".to_owned(),
                n => format!(" ({n} instances each)"),
            },
            At(t0),
            At(t1)
        );
        writeln!(
            w,
            "<g class=\"folded\" data-lane=\"repeated\"><rect class=\"fold\" x=\"{}\" y=\"{}\" width=\"{}\" height=\"{}\"><title>{}</title></rect><text class=\"foldt\" x=\"{}\" y=\"{}\" text-anchor=\"middle\">×{times}</text><text class=\"foldt\" x=\"{}\" y=\"{}\" text-anchor=\"middle\">{} cycle</text><text class=\"foldt\" x=\"{}\" y=\"{}\" text-anchor=\"middle\">repeated</text></g>",
            N(col.x0 + 2.0),
            N(top),
            N(col.x1 - col.x0 - 4.0),
            N(plot_bottom - top),
            Esc(&title),
            N((col.x0 + col.x1) / 2.0),
            N(top + 14.0),
            N((col.x0 + col.x1) / 2.0),
            N(top + 26.0),
            Took(cycle),
            N((col.x0 + col.x1) / 2.0),
            N(top + 38.0),
        )?;
    }
    legend(w, legend_y, width)?;
    let mut seen = Vec::new();
    for &t in marks {
        if seen.contains(&t) {
            continue;
        }
        seen.push(t);
        let x = scale.x(t);
        writeln!(
            w,
            "<line id=\"at-{}\" class=\"cursor\" x1=\"{}\" y1=\"40\" x2=\"{}\" y2=\"{}\"><title>t={}</title></line>",
            t.as_millis(),
            N(x),
            N(x),
            N(plot_bottom),
            At(t)
        )?;
    }
    flag::draw(w, &scale, plot_bottom, flags)?;
    writeln!(w, "</svg>")
}

fn open_lane(w: &mut impl fmt::Write, l: &Lane) -> fmt::Result {
    writeln!(w, "<g class=\"lane\" data-lane=\"{}\">", Esc(&l.key))
}

fn axis(w: &mut impl fmt::Write, scale: &Scale, bottom: f64) -> fmt::Result {
    let y = 40.0;
    writeln!(
        w,
        "<g class=\"axis\"><line class=\"grid\" x1=\"{}\" y1=\"{y}\" x2=\"{}\" y2=\"{y}\"/>",
        N(LABEL_W),
        N(scale.right())
    )?;
    let mut last_x = f64::MIN;
    for col in &scale.columns {
        if col.fold.is_some() {
            continue;
        }
        let per_sec = (col.x1 - col.x0) / (col.t1 - col.t0).max(f64::MIN_POSITIVE);
        let step = STEPS
            .into_iter()
            .find(|s| *s as f64 * per_sec >= TICK_GAP)
            .unwrap_or(STEPS[STEPS.len() - 1]);
        let mut t = (col.t0 / step as f64).ceil() as u64 * step;
        while (t as f64) <= col.t1 {
            let x = col.x0 + (t as f64 - col.t0) * per_sec;
            if x - last_x >= TICK_GAP * 0.75 {
                writeln!(
                    w,
                    "<line class=\"grid\" x1=\"{x}\" y1=\"{}\" x2=\"{x}\" y2=\"{}\"/><text class=\"ax\" x=\"{x}\" y=\"{}\" text-anchor=\"middle\">{}</text>",
                    N(y),
                    N(bottom),
                    N(y - 6.0),
                    tick_label(t),
                    x = N(x)
                )?;
                last_x = x;
            }
            t += step;
        }
    }
    writeln!(w, "</g>")
}

fn band(
    w: &mut impl fmt::Write,
    scale: &Scale,
    l: &Lane,
    a: SimTime,
    b: SimTime,
    class: &str,
    title: impl fmt::Display,
) -> fmt::Result {
    let (x0, x1) = (scale.x(a), scale.x(b));
    if x1 - x0 < 0.05 {
        // Too thin to draw (inside a fold): its title is never written.
        return Ok(());
    }
    writeln!(
        w,
        "<rect class=\"{class}\" x=\"{}\" y=\"{}\" width=\"{}\" height=\"{}\"><title>{}</title></rect>",
        N(x0),
        N(l.y),
        N(x1 - x0),
        N(l.h),
        Esc(&title.to_string())
    )
}

fn draw_bar(w: &mut impl fmt::Write, scale: &Scale, l: &Lane, bar: &Bar) -> fmt::Result {
    let class = match bar.kind {
        BarKind::Creating => "make",
        BarKind::Running => "run",
        BarKind::Terminating => "term",
        BarKind::BackOff => "wait",
        BarKind::Stopped => "gone",
    };
    band(w, scale, l, bar.from, bar.to, class, &bar.title)
}

/// Hands `each` the intervals during which a container (or, with `None`, the pod) is Ready, in
/// time order.
fn ready_spans(
    trace: &Trace,
    c: Option<usize>,
    mut each: impl FnMut(SimTime, SimTime) -> fmt::Result,
) -> fmt::Result {
    let mut since = None;
    let taken = |w: &What| match (w, c) {
        (What::Ready { c: rc, .. }, Some(c)) => *rc == c,
        (What::PodReady { .. }, None) => true,
        _ => false,
    };
    for (_, item) in trace.replay_where(taken) {
        let ready = match (item.what, c) {
            (What::Ready { c: rc, ready }, Some(c)) if rc == c => ready,
            (What::PodReady { ready }, None) => ready,
            _ => continue,
        };
        match (ready, since) {
            (true, None) => since = Some(item.t),
            (false, Some(s)) => {
                each(s, item.t)?;
                since = None;
            }
            _ => {}
        }
    }
    if let Some(s) = since {
        each(s, trace.end)?;
    }
    Ok(())
}

/// The legend's entries: CSS class, shape, text.
pub(crate) const LEGEND: [(&str, &str); 13] = [
    ("run", "running instance"),
    ("term", "terminating (grace period)"),
    ("wait", "waiting in back-off"),
    ("gone", "stopped"),
    ("rdy", "Ready"),
    ("ok", "probe success"),
    ("fail", "probe failure"),
    ("warn", "warning"),
    ("err", "prober error"),
    ("verdict", "verdict change"),
    ("hold", "worker on hold"),
    ("normal", "Normal / Warning event"),
    ("fold", "repeated cycles"),
];

/// Height of one row of the legend.
const LEGEND_ROW: f64 = 18.0;

/// The width of a legend entry.
fn entry_width(text: &str) -> f64 {
    22.0 + text.len() as f64 * 6.0
}

/// The legend's rows for a picture `width` wide.
fn legend_rows(width: f64) -> usize {
    let mut rows = 1;
    let mut x = 8.0;
    for (_, text) in LEGEND {
        if x + entry_width(text) > width && x > 8.0 {
            rows += 1;
            x = 8.0;
        }
        x += entry_width(text);
    }
    rows
}

fn legend(w: &mut impl fmt::Write, top: f64, width: f64) -> fmt::Result {
    writeln!(w, "<g class=\"legend\">")?;
    let mut x = 8.0;
    let mut y = top;
    for (class, text) in LEGEND {
        if x + entry_width(text) > width && x > 8.0 {
            x = 8.0;
            y += LEGEND_ROW;
        }
        if class == "normal" {
            writeln!(
                w,
                "<line class=\"normal\" x1=\"{x}\" y1=\"{}\" x2=\"{x}\" y2=\"{}\"/><line class=\"warning\" x1=\"{x2}\" y1=\"{}\" x2=\"{x2}\" y2=\"{}\"/>",
                N(y - 10.0),
                N(y + 2.0),
                N(y - 10.0),
                N(y + 2.0),
                x = N(x + 3.0),
                x2 = N(x + 8.0)
            )?;
        } else {
            writeln!(
                w,
                "<rect class=\"{class}\" x=\"{}\" y=\"{}\" width=\"12\" height=\"12\"/>",
                N(x),
                N(y - 10.0)
            )?;
        }
        writeln!(
            w,
            "<text class=\"sub\" x=\"{}\" y=\"{}\">{text}</text>",
            N(x + 16.0),
            N(y)
        )?;
        x += entry_width(text);
    }
    writeln!(w, "</g>")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tick_labels_read_like_durations() {
        assert_eq!(tick_label(0), "0");
        assert_eq!(tick_label(30), "30s");
        assert_eq!(tick_label(90), "1m30s");
        assert_eq!(tick_label(7200), "2h");
        assert_eq!(tick_label(129_600), "1d12h");
    }

    #[test]
    fn numbers_have_one_decimal_at_most() {
        assert_eq!(N(12.0).to_string(), "12");
        assert_eq!(N(12.34).to_string(), "12.3");
        assert_eq!(N(0.05).to_string(), "0.1");
    }

    #[test]
    fn text_is_escaped_for_xml() {
        assert_eq!(
            Esc("a<b & \"c\">").to_string(),
            "a&lt;b &amp; &quot;c&quot;&gt;"
        );
    }
}
