//! `--format get`: what `kubectl get pod NAME -w` prints while the pod lives.

use probesim_kube::printable::printable_lines;
use std::io::{self, Write};

use probesim_core::{Event, Flow, PodSpec, PodStatus, Profile, SimTime, Sink};

use crate::tabwriter::TabWriter;
use crate::text::{kubectl_row, KubectlRow};
use crate::tracker::PodTracker;

/// `--format get`: the `kubectl get pod NAME -w` view of the run.
///
/// The watch starts when the kubelet first reports the pod (the timeline's origin): the header
/// and the first row (the status once the origin's events are in) are one flush of kubectl's
/// tabwriter, then every instant at which READY,
/// STATUS or the restart count changes prints one row, flushed on its own, as kubectl prints
/// each watch event. Cells are the API server's printer at that instant ([`kubectl_row`],
/// R46–R50; RESTARTS with `N (Xs ago)` from 1.22, AGE since the origin). Changes at one instant
/// make one row (the status manager writes them in one update). When the pod object is
/// removed, the watch's `DELETED` event prints its last row once more.
///
/// The layout is kubectl's (cli-runtime `printers/tabwriter.go`): columns are the widest cell
/// plus 3 spaces, at least 6, and with `RememberWidths` a column never shrinks: a row whose
/// cell is wider than any before pushes the following columns right, out of line with the
/// header, exactly as a terminal running `kubectl get -w` shows it.
///
/// ```text
/// NAME             READY   STATUS              RESTARTS   AGE
/// kubia-liveness   0/1     ContainerCreating   0          0s
/// kubia-liveness   1/1     Running             0          1s
/// kubia-liveness   0/1     Error               0          110s
/// kubia-liveness   1/1     Running             1 (1s ago)   111s
/// ```
#[derive(Debug)]
pub struct GetSink<W: Write> {
    w: W,
    pod: PodSpec,
    profile: Profile,
    tracker: PodTracker,
    tabs: TabWriter,
    /// READY, STATUS and the restart count of the last row printed.
    last: Option<(String, String, String)>,
    /// The instant whose changes are not printed yet.
    at: SimTime,
    text: String,
    out: String,
}

impl<W: Write> GetSink<W> {
    /// Starts the watch from `initial`, the status before the first event. Nothing is written
    /// before the first instant's events are in: the header and the first row (the status at
    /// the origin) come in one flush.
    ///
    /// # Errors
    /// None yet; the signature matches the other sinks.
    pub fn new(
        w: W,
        pod: &PodSpec,
        initial: &PodStatus,
        profile: &Profile,
    ) -> io::Result<GetSink<W>> {
        let mut sink = GetSink {
            w,
            pod: pod.clone(),
            profile: profile.clone(),
            tracker: PodTracker::new(initial.clone(), profile),
            tabs: TabWriter::get(),
            last: None,
            at: SimTime::ZERO,
            text: KubectlRow::HEADERS.join("\t"),
            out: String::new(),
        };
        sink.text.push('\n');
        Ok(sink)
    }

    /// Prints the row of the instant `self.at` when its READY, STATUS or restart count differ
    /// from the last row (the header, when still pending, goes in the same flush).
    fn print_if_changed(&mut self) -> io::Result<()> {
        let row = kubectl_row(self.at, &self.pod, self.tracker.status(), &self.profile);
        let count = row
            .restarts
            .split(' ')
            .next()
            .unwrap_or_default()
            .to_owned();
        let key = (row.ready.clone(), row.status.clone(), count);
        if self.last.as_ref() == Some(&key) {
            return Ok(());
        }
        self.last = Some(key);
        self.text.push_str(&row.cells().join("\t"));
        self.text.push('\n');
        self.out.clear();
        self.tabs.flush(&self.text, &mut self.out);
        self.text.clear();
        self.w.write_all(printable_lines(&self.out).as_bytes())
    }

    /// Prints the last instant's row if it changed, and returns the writer, flushed.
    ///
    /// # Errors
    /// Writing or flushing failed.
    pub fn finish(mut self, _end: SimTime, _pod: &PodSpec, _status: &PodStatus) -> io::Result<W> {
        self.print_if_changed()?;
        self.w.flush()?;
        Ok(self.w)
    }
}

impl<W: Write> Sink for GetSink<W> {
    type Error = io::Error;

    fn event(&mut self, event: &Event<'_>) -> io::Result<Flow> {
        if event.t > self.at {
            self.print_if_changed()?;
            self.at = event.t;
        }
        self.tracker.apply(&self.pod, event.t, &event.kind);
        if matches!(event.kind, probesim_core::EventKind::Deleted) {
            // The last update is printed, then the watch's DELETED event prints the pod's
            // last row once more.
            self.print_if_changed()?;
            self.last = None;
            self.print_if_changed()?;
        }
        Ok(Flow::Continue)
    }
}

#[cfg(test)]
mod tests {
    use probesim_core::{ContainerState, ContainerStatus, EventKind, Phase, SimTime, Terminated};

    use super::*;
    use crate::fixtures::{pod, status};

    fn at(t: u64, kind: EventKind<'_>) -> Event<'_> {
        Event {
            t: SimTime::from_secs(t),
            kind,
        }
    }

    #[test]
    fn changes_at_one_instant_make_one_row_and_the_ago_alone_makes_none() {
        // R46–R49: the printer's cells at each instant that changes READY, STATUS or the
        // restart count.
        let pod = pod();
        let mut initial = status(vec![ContainerStatus::default()], false);
        initial.phase = Phase::Pending;
        let running = ContainerStatus {
            state: ContainerState::Running {
                started_at: SimTime::from_secs(1),
            },
            ..ContainerStatus::default()
        };
        let restarted = ContainerStatus {
            state: ContainerState::Running {
                started_at: SimTime::from_secs(40),
            },
            restart_count: 1,
            last_state: Some(Terminated {
                exit_code: 137,
                reason: probesim_core::ExitReason::Error,
                started_at: SimTime::from_secs(1),
                finished_at: SimTime::from_secs(40),
            }),
            ..ContainerStatus::default()
        };
        let events = [
            at(
                1,
                EventKind::Status {
                    container: "kubia",
                    status: &running,
                },
            ),
            at(
                1,
                EventKind::Phase {
                    phase: Phase::Running,
                },
            ),
            at(
                1,
                EventKind::Ready {
                    container: "kubia",
                    ready: true,
                },
            ),
            at(
                41,
                EventKind::Status {
                    container: "kubia",
                    status: &restarted,
                },
            ),
            // Nothing visible changes: no row.
            at(
                50,
                EventKind::Started {
                    container: "kubia",
                    started: true,
                },
            ),
        ];
        let mut sink = GetSink::new(Vec::new(), &pod, &initial, &Profile::newest()).unwrap();
        for e in &events {
            sink.event(e).unwrap();
        }
        let out = sink.finish(SimTime::from_secs(60), &pod, &initial).unwrap();
        assert_eq!(
            String::from_utf8(out).unwrap(),
            "\
NAME              READY   STATUS              RESTARTS   AGE
kubia-unhealthy   0/1     ContainerCreating   0          0s
kubia-unhealthy   1/1     Running             0          1s
kubia-unhealthy   1/1     Running             1 (1s ago)   41s
"
        );
    }
}
