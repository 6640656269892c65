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
/// tabwriter. Then every watch event of the pod prints one row, flushed on its own, as kubectl
/// prints each event it receives without comparing it with the last (kubectl
/// `pkg/cmd/get/get.go`, `watch`): a row also when no column changed. A watch event is a change
/// of the pod object: the kubelet's status manager drops a status equal to the one it last
/// wrote, and a status patch that changes nothing is not sent (pkg/kubelet/status, pkg/util/pod
/// `PatchPodStatus`), so each instant at which the API status (any container's state, restart
/// count, `ready`, `started`, a back-off message, the phase or a condition) or the deletion
/// timestamp changes is one event; a condition's transition time only moves with its status.
/// Changes at one instant make one row (the status manager writes them in one update). When the
/// pod object is removed, the watch's `DELETED` event prints its last row once more. Cells are
/// the API server's printer at that instant ([`kubectl_row`], R46–R50; RESTARTS with
/// `N (Xs ago)` from 1.22, AGE since the origin).
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
    /// The API status of the last row printed.
    last: Option<PodStatus>,
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

    /// Prints the row of the instant `self.at` when the pod's API status differs from the one
    /// of the last row, visible in a column or not (the header, when still pending, goes in the
    /// same flush).
    fn print_if_changed(&mut self) -> io::Result<()> {
        let status = self.tracker.status();
        match &mut self.last {
            Some(last) if same_object(last, status) => return Ok(()),
            Some(last) => last.clone_from(status),
            None => self.last = Some(status.clone()),
        }
        let row = kubectl_row(self.at, &self.pod, status, &self.profile);
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

/// Whether two statuses are the same pod object for a watch: everything the API holds, the
/// removal aside (a removal is the `DELETED` event, printed on its own).
fn same_object(a: &PodStatus, b: &PodStatus) -> bool {
    // Destructured, so that a field added to the status is not left out silently.
    let PodStatus {
        phase,
        conditions,
        init_containers,
        containers,
        deletion_timestamp,
        removed: _,
    } = a;
    *phase == b.phase
        && *conditions == b.conditions
        && *init_containers == b.init_containers
        && *containers == b.containers
        && *deletion_timestamp == b.deletion_timestamp
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
    fn every_change_of_the_api_status_makes_one_row_and_the_ago_alone_makes_none() {
        // R46–R49: the printer's cells at each instant that changes the pod object, as kubectl
        // prints every watch event: `started` alone changes no column and still makes a row;
        // a write of the same value is no watch event (the status manager drops an unchanged
        // status); changes at one instant are one row.
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
            // Nothing visible changes, but the object does: a row.
            at(
                50,
                EventKind::Started {
                    container: "kubia",
                    started: true,
                },
            ),
            // The same value again: the object does not change, no row.
            at(
                55,
                EventKind::Ready {
                    container: "kubia",
                    ready: true,
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
kubia-unhealthy   1/1     Running             1 (10s ago)   50s
"
        );
    }
}
