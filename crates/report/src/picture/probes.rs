//! The probe lanes of the picture: one mark per probe run coloured by its outcome, runs too
//! close to tell apart drawn as one dense mark, the verdicts and the holds after a decisive
//! failure.

use super::*;

#[allow(clippy::too_many_arguments)]
pub(super) fn probe_lane(
    w: &mut impl fmt::Write,
    scale: &Scale,
    l: &Lane,
    pod: &PodSpec,
    trace: &Trace,
    c: usize,
    kind: ProbeKind,
) -> fmt::Result {
    let spec = pod.container(c).probe(kind);
    let fail_at = spec.map_or(1, |p| p.failure_threshold().unsigned_abs());
    let succeed_at = spec.map_or(1, |p| p.success_threshold().unsigned_abs());
    let (mut fails, mut oks) = (0u32, 0u32);
    let mut hold: Option<SimTime> = None;
    // Runs closer together than a pixel, with the same outcome, are drawn as one mark.
    let mut dense: Option<Dense> = None;
    let taken = |w: &What| match *w {
        What::Start { c: sc, .. } => sc == c,
        What::Probe { c: pc, probe, .. } | What::Result { c: pc, probe, .. } => {
            pc == c && probe == kind
        }
        _ => false,
    };
    for (i, item) in trace.replay_where(taken) {
        match item.what {
            What::Start { c: sc, .. } if sc == c => {
                if let Some(h) = hold.take() {
                    // Marks keep the order of what they show.
                    if let Some(d) = dense.take() {
                        d.draw(w, l, kind)?;
                    }
                    band(
                        w,
                        scale,
                        l,
                        h,
                        item.t,
                        "hold",
                        format_args!(
                            "{kind} worker on hold from t={} until a new container appears (P35)",
                            At(h)
                        ),
                    )?;
                }
            }
            What::Probe {
                c: pc,
                probe,
                outcome,
                took,
                output,
            } if pc == c && probe == kind => {
                match outcome {
                    Outcome::Success | Outcome::Warning => {
                        oks += 1;
                        fails = 0;
                    }
                    Outcome::Failure => {
                        fails += 1;
                        oks = 0;
                    }
                    Outcome::Error => {}
                }
                if scale.folded(item.t) {
                    continue;
                }
                let (class, what, run) = match outcome {
                    Outcome::Success => (
                        "ok",
                        "success",
                        format!(" {}/{succeed_at}", oks.min(succeed_at.max(oks))),
                    ),
                    Outcome::Warning => ("warn", "warning", String::new()),
                    Outcome::Failure => ("fail", "failure", format!(" {fails}/{fail_at}")),
                    Outcome::Error => ("err", "error (discarded)", String::new()),
                };
                let start =
                    SimTime::from_millis(item.t.as_millis().saturating_sub(took.as_millis()));
                let x1 = scale.x(item.t);
                let x0 = scale.x(start).min(x1 - 2.0);
                if let Some(d) = dense.as_mut().filter(|d| d.takes(class, x0)) {
                    d.add(item.t, x1);
                    continue;
                }
                if let Some(d) = dense.take() {
                    d.draw(w, l, kind)?;
                }
                let text = trace.text(output);
                let mut title = format!("t={} {kind} {what}{run}", At(item.t));
                if !took.is_zero() {
                    let _ = write!(title, ", took {}", Took(took));
                }
                if !text.is_empty() {
                    let _ = write!(title, ": {text}");
                }
                dense = Some(Dense {
                    class,
                    what,
                    x0,
                    x1: x0 + (x1 - x0).max(2.0),
                    first: item.t,
                    last: item.t,
                    count: 1,
                    title,
                });
            }
            What::Result {
                c: rc,
                probe,
                result,
            } if rc == c && probe == kind => {
                let cause = trace.result_cause(i);
                let initial = cause != Some(ResultCause::Crossing);
                if result == ProbeResult::Failure
                    && matches!(kind, ProbeKind::Liveness | ProbeKind::Startup)
                    && !initial
                {
                    // The worker holds, and its run starts again from zero (P35).
                    hold = Some(item.t);
                    fails = 0;
                }
                if scale.folded(item.t) {
                    continue;
                }
                if let Some(d) = dense.take() {
                    d.draw(w, l, kind)?;
                }
                let x = scale.x(item.t);
                if initial {
                    let what = if cause == Some(ResultCause::NotRunning) {
                        "the container is not running, so the worker stores"
                    } else {
                        "worker's initial value for the new container:"
                    };
                    let rule = if cause == Some(ResultCause::NotRunning) {
                        "P27"
                    } else {
                        "P25"
                    };
                    writeln!(
                        w,
                        "<circle class=\"init\" cx=\"{}\" cy=\"{}\" r=\"2.5\"><title>t={} {kind} {what} {} ({rule})</title></circle>",
                        N(x),
                        N(l.y + l.h / 2.0),
                        At(item.t),
                        result.as_str()
                    )?;
                } else {
                    let why = match result {
                        ProbeResult::Failure => format!("failureThreshold {fail_at} reached"),
                        ProbeResult::Success => format!("successThreshold {succeed_at} reached"),
                        ProbeResult::Unknown => "reset".into(),
                    };
                    writeln!(
                        w,
                        "<path class=\"verdict\" d=\"M{} {}l4 -5h-8z\"><title>t={} {kind} verdict: {} ({why})</title></path><rect class=\"verdict\" x=\"{}\" y=\"{}\" width=\"1.5\" height=\"{}\"/>",
                        N(x),
                        N(l.y),
                        At(item.t),
                        result.as_str(),
                        N(x - 0.75),
                        N(l.y),
                        N(l.h),
                    )?;
                }
            }
            What::Kill { c: kc, reason, .. } if kc == c && reason == KillReason::Deletion => {}
            _ => {}
        }
    }
    if let Some(d) = dense.take() {
        d.draw(w, l, kind)?;
    }
    if let Some(h) = hold {
        band(
            w,
            scale,
            l,
            h,
            trace.end,
            "hold",
            format_args!(
                "{kind} worker on hold from t={} until a new container appears (P35)",
                At(h)
            ),
        )?;
    }
    Ok(())
}

/// Probe runs with the same outcome that follow each other less than [`DENSE_GAP`] apart on the
/// page, drawn as one mark: a day of a probe run every second is 86,400 runs on at most
/// [`MAX_PLOT`] pixels, so the picture is bounded by its width, not by the horizon. A lone run
/// keeps its own mark and title.
pub(super) struct Dense {
    pub(super) class: &'static str,
    pub(super) what: &'static str,
    pub(super) x0: f64,
    pub(super) x1: f64,
    pub(super) first: SimTime,
    pub(super) last: SimTime,
    pub(super) count: u64,
    /// The first run's title, used when it stays alone.
    pub(super) title: String,
}

/// The gap (in pixels) under which consecutive runs of one outcome merge into one mark.
pub(super) const DENSE_GAP: f64 = 1.0;

impl Dense {
    /// Whether a run of `class` starting at `x0` continues this mark.
    pub(super) fn takes(&self, class: &str, x0: f64) -> bool {
        self.class == class && x0 - self.x1 < DENSE_GAP
    }

    pub(super) fn add(&mut self, t: SimTime, x1: f64) {
        self.x1 = self.x1.max(x1);
        self.last = t;
        self.count += 1;
    }

    /// Draws the events as one tick (at the first), titled with the first one's title when
    /// it is alone.
    pub(super) fn draw_tick(&self, w: &mut impl fmt::Write, l: &Lane) -> fmt::Result {
        let title = if self.count == 1 {
            self.title.clone()
        } else {
            format!(
                "t={} to t={}: {} {} events (too close together to draw one by one at this scale); the first: {}",
                At(self.first),
                At(self.last),
                self.count,
                self.what,
                self.title
            )
        };
        writeln!(
            w,
            "<line class=\"{}\" x1=\"{x}\" y1=\"{}\" x2=\"{x}\" y2=\"{}\"><title>{}</title></line>",
            self.class,
            N(l.y),
            N(l.y + l.h),
            Esc(&title),
            x = N(self.x0)
        )
    }

    pub(super) fn draw(&self, w: &mut impl fmt::Write, l: &Lane, kind: ProbeKind) -> fmt::Result {
        let title = if self.count == 1 {
            self.title.clone()
        } else {
            format!(
                "t={} to t={}: {} {kind} runs, each a {} (too close together to draw one by one at this scale)",
                At(self.first),
                At(self.last),
                self.count,
                self.what
            )
        };
        writeln!(
            w,
            "<rect class=\"{}\" x=\"{}\" y=\"{}\" width=\"{}\" height=\"{}\" rx=\"1\"><title>{}</title></rect>",
            self.class,
            N(self.x0),
            N(l.y + 2.0),
            N(self.x1 - self.x0),
            N(l.h - 4.0),
            Esc(&title)
        )
    }
}
