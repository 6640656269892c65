//! The kubelet's own prober unit tests (docs/rules.md#the-kubelets-own-unit-tests),
//! re-expressed against the engine.
//!
//! Each test is named after its Go original in `pkg/kubelet/prober` (`worker_test.go`,
//! `prober_manager_test.go`, `prober_test.go`, `feature_gate_test.go`), cites the rules it pins,
//! and runs for every modelled minor where the original's behaviour applies, asserting the older
//! behaviour where the spec gives one. Where the original drives a worker or the manager by hand
//! (`w.doProbe()`, `m.UpdatePodStatus`, fake workers, `SetPodStatus`), the test does the same
//! with the engine's internals; where it runs real workers, it runs the simulation.
//!
//! The Go fixtures (common_test.go) are mirrored: an exec probe with timeout 1, period 1 and both
//! thresholds 1 unless a test sets them, a pod with `restartPolicy: Never`, and a fake prober
//! whose answer the test switches. Hand-driven workers are observed alone, as in the Go tests:
//! the kubelet sync that a result update would cause is scheduled a second later and never
//! reached (the status-view writes of P44 still happen, synchronously).
//!
//! Not re-expressed, because the engine has nothing for them to pin:
//! - `TestHTTPHeaders` (prober_test.go): building the request's header map (P49). Scripts
//!   answer by endpoint, and no header changes an outcome or a text in the model.
//! - `TestHandleCrash` (worker_test.go, older trees): a panic inside doProbe is recovered (P21).
//!   The engine's doProbe cannot panic.
//! - `TestDoProbe`'s "pod deletion" row: the worker's own pod object carries a deletion
//!   timestamp (P28). A kubelet never creates workers for a pod already being deleted (≤1.21
//!   it kills such a pod before AddPod; from 1.22 a terminating pod never reaches SyncPod), and
//!   a worker's pod object is never refreshed, so the branch cannot fire in a whole kubelet;
//!   `test_do_probe_deletion_after_worker_creation` pins what happens instead.
//! - The `prober_test.go` cases that need a missing probe or handler, or an unknown outcome
//!   (validation refuses such pods), and the string-port rows of `TestGetURLParts` /
//!   `TestGetTCPAddrParts` that validation refuses ("118", "-1").

use core::ops::RangeInclusive;
use std::cell::Cell;
use std::rc::Rc;

use super::worker::{Lifecycle, Step};
use super::*;
use crate::profile::{NEWEST_MINOR, OLDEST_MINOR};
use crate::sink::VecSink;
use crate::spec::{ContainerSpec, Port, ProbeSpec, ProbeTiming, Scheme};

const ALL: RangeInclusive<u8> = OLDEST_MINOR..=NEWEST_MINOR;

/// The profiles of some minors.
fn profiles(minors: RangeInclusive<u8>) -> impl Iterator<Item = Profile> {
    minors.map(|m| Profile::for_minor(m).expect("a modelled minor"))
}

/// A profile with sidecars enabled (`SidecarContainers` is settable and off by default in 1.28).
fn with_sidecars(mut profile: Profile) -> Profile {
    if profile.minor() == 28 {
        profile
            .set_gate("SidecarContainers", true)
            .expect("settable in 1.28");
    }
    profile
}

/// `setTestProbe`'s defaults: timeout 1, period 1, both thresholds 1.
fn test_timing(f: impl FnOnce(&mut ProbeTiming)) -> ProbeTiming {
    let mut t = ProbeTiming {
        timeout_seconds: 1,
        period_seconds: 1,
        success_threshold: 1,
        failure_threshold: 1,
        ..ProbeTiming::default()
    };
    f(&mut t);
    t
}

/// `setTestProbe`: an exec probe (answered by the fake prober) with the test defaults.
fn exec_probe(f: impl FnOnce(&mut ProbeTiming)) -> ProbeSpec {
    let exec = Handler::Exec {
        command: vec!["/bin/true".into()],
    };
    ProbeSpec::new(exec, test_timing(f)).expect("valid probe")
}

/// `defaultProbe` of prober_manager_test.go: exec, timeout 1, period 1, success 1, failure 3.
fn default_probe() -> ProbeSpec {
    exec_probe(|t| t.failure_threshold = 3)
}

fn container(name: &str) -> ContainerSpec {
    ContainerSpec::new(name, "example/app:1.0")
}

/// `getTestPod` with one probe: one container, `restartPolicy: Never`.
fn test_pod(kind: ProbeKind, probe: ProbeSpec) -> PodSpec {
    let mut pod = PodSpec::new("test-pod")
        .with_container(container("test-container").with_probe(kind, probe));
    pod.restart_policy = RestartPolicy::Never;
    pod
}

/// The instant the hand-driven tests happen at.
const T0: SimTime = SimTime::from_secs(1000);

/// `getTestRunningStatusWithStarted(started)`: container `id` running since now.
fn running(id: u64, started: bool) -> ViewEntry {
    ViewEntry {
        id: Some(id),
        running: true,
        terminated: None,
        started_at: T0,
        started,
    }
}

/// A container that exists but is not running and has not terminated (Waiting).
fn waiting(id: u64) -> ViewEntry {
    ViewEntry {
        id: Some(id),
        ..ViewEntry::default()
    }
}

/// A terminated container.
fn terminated(id: u64, code: i32) -> ViewEntry {
    ViewEntry {
        id: Some(id),
        terminated: Some(code),
        ..ViewEntry::default()
    }
}

/// One worker driven by hand, like `newTestWorker` with the fake exec prober.
struct Bench {
    sim: Simulation,
    sink: VecSink,
    w: usize,
    c: usize,
    /// What the fake prober answers (`m.prober.exec = fakeExecProber{…}`).
    answer: Rc<Cell<Answer>>,
    /// How many attempts reached the prober.
    calls: Rc<Cell<u32>>,
}

impl Bench {
    fn new(profile: Profile, pod: PodSpec, c: usize, kind: ProbeKind) -> Bench {
        let answer = Rc::new(Cell::new(Answer::Ok));
        let calls = Rc::new(Cell::new(0));
        let mut behaviours = Behaviours::new(&pod);
        let (a, n) = (Rc::clone(&answer), Rc::clone(&calls));
        let b = behaviours.add(Box::new(move |_: &Attempt| {
            n.set(n.get() + 1);
            Response::now(a.get())
        }));
        behaviours.bind(c, kind, b);
        let kubelet = KubeletConfig {
            probe_sync_delay: SimDuration::from_secs(1),
            ..KubeletConfig::default()
        };
        let mut sim = Simulation::new(pod, profile, kubelet, 7, behaviours);
        sim.now = T0;
        let w = sim.worker_of(c, kind).expect("the probe has a worker");
        Bench {
            sim,
            sink: VecSink::default(),
            w,
            c,
            answer,
            calls,
        }
    }

    /// `newTestWorker(m, kind, probe)` on the one-container test pod.
    fn single(profile: Profile, kind: ProbeKind, f: impl FnOnce(&mut ProbeTiming)) -> Bench {
        Bench::new(profile, test_pod(kind, exec_probe(f)), 0, kind)
    }

    /// `m.statusManager.SetPodStatus(pod, status)`: the phase and this container's status as the
    /// worker reads them (P22–P30). A running container also gets a live process, so a probe
    /// reaches the fake prober.
    fn set_status(&mut self, phase: Phase, view: ViewEntry) {
        self.sim.status.written = true;
        self.sim.status.api.phase = phase;
        self.sim.status.view[self.c] = view;
        self.sim.edit_status(self.c, |s| s.started = view.started);
        let exited = match (view.running, view.terminated) {
            (true, _) => None,
            (false, Some(code)) => Some((T0, code)),
            (false, None) => {
                self.sim.runtime.containers[self.c].instances.newest = None;
                return;
            }
        };
        self.sim.runtime.containers[self.c].instances.newest = view.id.map(|id| Instance {
            id,
            restart_count: 0,
            started_at: view.started_at,
            exited,
        });
    }

    /// `m.statusManager.SetContainerStartup(pod, id, started)`.
    fn set_started(&mut self, started: bool) {
        self.sim.status.view[self.c].started = started;
        self.sim.edit_status(self.c, |s| s.started = started);
    }

    /// `w.doProbe()`: whether the worker keeps running.
    fn do_probe(&mut self) -> bool {
        let mut out = Out {
            sink: &mut self.sink,
            error: None,
            stop: false,
        };
        match self.sim.do_probe(self.w, &mut out) {
            Step::Continue => true,
            Step::Stop => false,
            Step::InFlight => panic!("the fake prober answers at once"),
        }
    }

    /// `resultsManager.Get(id)`.
    fn cached(&self, id: u64) -> Option<ProbeResult> {
        self.sim.prober.cache[self.w]
            .filter(|(cid, _)| *cid == id)
            .map(|(_, r)| r)
    }

    /// `expectResult`: the cached result for the worker's current container.
    fn result(&self) -> Option<ProbeResult> {
        self.worker().container_id.and_then(|id| self.cached(id))
    }

    fn worker(&self) -> &Worker {
        &self.sim.prober.workers[self.w]
    }

    fn set_answer(&self, answer: Answer) {
        self.answer.set(answer);
    }

    /// The texts of the Kubernetes Events recorded so far.
    fn events(&self) -> Vec<&str> {
        self.sink
            .records
            .iter()
            .filter(|r| r.kind == "event")
            .map(|r| r.text.as_str())
            .collect()
    }
}

const SUCCESS: Answer = Answer::Ok;
const FAILURE: Answer = Answer::Exit(1);

fn ctx(profile: &Profile, what: impl fmt::Display) -> String {
    format!("1.{} {what}", profile.minor())
}

// ---------------------------------------------------------------------------------------------
// worker_test.go (docs/rules.md#the-kubelets-own-unit-tests)

/// One row of `TestDoProbe`'s table.
struct DoProbeCase {
    name: &'static str,
    status: Option<(Phase, ViewEntry)>,
    initial_delay: i32,
    keeps_running: bool,
    cached: Option<ProbeResult>,
}

/// `TestDoProbe` (worker_test.go): one doProbe per probe type against each pod status the
/// status manager may hold, on a fresh worker each time.
///
/// P22 (no status: continue, nothing cached), P23 (terminal phase: stop, nothing cached), P24
/// (no status for the container: continue, nothing cached), P25 (first sight records the initial
/// value), P27 (not running: Failure, and stop once terminated in a `Never` pod), P29 (a negative
/// initial delay probes at once), P30 (`started` true for liveness/readiness, false for startup,
/// as the original sets it), P33/P34 (thresholds of 1).
///
/// The original's "pod deletion" row (the worker's own pod object carries a deletion timestamp:
/// liveness and startup record Success and stop, P28) has no counterpart in the engine: see
/// [`test_do_probe_deletion_after_worker_creation`].
#[test]
fn test_do_probe() {
    use ProbeResult::{Failure, Success};
    for profile in profiles(ALL) {
        for kind in ProbeKind::ALL {
            let started = kind != ProbeKind::Startup;
            let cases = [
                DoProbeCase {
                    name: "no status",
                    status: None,
                    initial_delay: 0,
                    keeps_running: true,
                    cached: None,
                },
                DoProbeCase {
                    name: "pod failed",
                    status: Some((Phase::Failed, running(1, started))),
                    initial_delay: 0,
                    keeps_running: false,
                    cached: None,
                },
                // Not in the original: P23 names both terminal phases.
                DoProbeCase {
                    name: "pod succeeded",
                    status: Some((Phase::Succeeded, running(1, started))),
                    initial_delay: 0,
                    keeps_running: false,
                    cached: None,
                },
                DoProbeCase {
                    name: "no container status",
                    status: Some((Phase::Running, ViewEntry::default())),
                    initial_delay: 0,
                    keeps_running: true,
                    cached: None,
                },
                DoProbeCase {
                    name: "container waiting",
                    status: Some((Phase::Running, waiting(1))),
                    initial_delay: 0,
                    keeps_running: true,
                    cached: Some(Failure),
                },
                DoProbeCase {
                    name: "container terminated",
                    status: Some((Phase::Running, terminated(1, 0))),
                    initial_delay: 0,
                    keeps_running: false,
                    cached: Some(Failure),
                },
                DoProbeCase {
                    name: "probe successful",
                    status: Some((Phase::Running, running(1, started))),
                    initial_delay: 0,
                    keeps_running: true,
                    cached: Some(Success),
                },
                DoProbeCase {
                    name: "initial delay passed",
                    status: Some((Phase::Running, running(1, started))),
                    initial_delay: -100,
                    keeps_running: true,
                    cached: Some(Success),
                },
            ];
            for case in cases {
                let mut b = Bench::single(profile.clone(), kind, |t| {
                    t.initial_delay_seconds = case.initial_delay;
                });
                if let Some((phase, view)) = case.status {
                    b.set_status(phase, view);
                }
                let what = ctx(&profile, format_args!("{kind}, {}", case.name));
                assert_eq!(b.do_probe(), case.keeps_running, "{what}: continue");
                assert_eq!(b.cached(1), case.cached, "{what}: cached result");
            }
        }
    }
}

/// `TestDoProbe`'s matrix on a restartable init container (the later variant U-WT2, whose
/// provenance the spec could not verify; its expectations that a Waiting sidecar stops its
/// readiness worker and that a terminated sidecar stops every worker contradict P27, so the spec
/// is followed here). ≥1.28 only: sidecars do not exist before.
///
/// P24 (the status is found among the init container statuses), P25, P27 (Waiting: Failure,
/// continue; terminated in a `Never` pod: Failure, then stop ≤1.33, continue ≥1.34 where a
/// terminated restartable init container keeps its workers), P34.
#[test]
fn test_do_probe_restartable_init_container() {
    use ProbeResult::{Failure, Success};
    for profile in profiles(28..=NEWEST_MINOR).map(with_sidecars) {
        let survives = profile.minor() >= 34;
        for kind in ProbeKind::ALL {
            let started = kind != ProbeKind::Startup;
            let cases = [
                ("running", running(1, started), true, Success),
                ("waiting", waiting(1), true, Failure),
                ("terminated", terminated(1, 0), survives, Failure),
            ];
            for (name, view, keeps_running, cached) in cases {
                let mut proxy = container("test-container").with_probe(kind, exec_probe(|_| {}));
                proxy.restartable = true;
                let mut pod = PodSpec::new("test-pod")
                    .with_init_container(proxy)
                    .with_container(container("main-container"));
                pod.restart_policy = RestartPolicy::Never;
                let mut b = Bench::new(profile.clone(), pod, 0, kind);
                b.set_status(Phase::Running, view);
                let what = ctx(&profile, format_args!("{kind}, sidecar {name}"));
                assert_eq!(b.do_probe(), keeps_running, "{what}: continue");
                assert_eq!(b.cached(1), Some(cached), "{what}: cached result");
            }
        }
    }
}

/// The counterpart of `TestDoProbe`'s "pod deletion" row that the engine can express.
///
/// P28 looks at the pod object the worker captured when it was created (P9), which is never
/// refreshed; the engine never creates a worker from a pod that already has a deletion timestamp
/// (AddPod runs only in syncs of pods that are not terminating, P8), so the row itself (liveness
/// and startup record Success and stop, readiness continues) cannot be set up. What can: a
/// deletion that arrives after the worker was created does not reach it, so a failing liveness
/// or startup probe still records Failure and the worker keeps running (issue #107473; the
/// effective mechanism from 1.23 is P12, `StopLivenessAndStartup`).
#[test]
fn test_do_probe_deletion_after_worker_creation() {
    for profile in profiles(ALL) {
        for kind in [ProbeKind::Liveness, ProbeKind::Startup] {
            let mut b = Bench::single(profile.clone(), kind, |_| {});
            b.set_status(Phase::Running, running(1, kind != ProbeKind::Startup));
            b.sim.pod_worker.deleting = Some(SimDuration::from_secs(30));
            b.sim.status.api.deletion_timestamp = Some(T0);
            b.set_answer(FAILURE);
            let what = ctx(&profile, kind);
            assert!(b.do_probe(), "{what}: continue");
            assert_eq!(b.cached(1), Some(ProbeResult::Failure), "{what}");
        }
    }
}

/// `TestInitialDelay` (worker_test.go): inside the initial delay nothing is probed and the
/// cache holds the initial value (liveness Success, readiness Failure, startup Unknown); once
/// the container started 100 s ago the probe runs and Success is cached.
///
/// P9 (initial values), P25, P29 (elapsed whole seconds since the start in the status view;
/// the 9.999 s step is not in the original), P30.
#[test]
fn test_initial_delay() {
    for profile in profiles(ALL) {
        for kind in ProbeKind::ALL {
            let started = kind != ProbeKind::Startup;
            let mut b = Bench::single(profile.clone(), kind, |t| t.initial_delay_seconds = 10);
            b.set_status(Phase::Running, running(1, started));
            let initial = match kind {
                ProbeKind::Liveness => ProbeResult::Success,
                ProbeKind::Readiness => ProbeResult::Failure,
                ProbeKind::Startup => ProbeResult::Unknown,
            };
            let what = ctx(&profile, kind);
            assert!(b.do_probe(), "{what}: during initial delay");
            assert_eq!(b.result(), Some(initial), "{what}: during initial delay");
            // P29: 9.999 s truncate to 9, still inside a delay of 10.
            b.sim.now = T0.saturating_add(SimDuration::from_millis(9999));
            assert!(b.do_probe(), "{what}: 9.999 s in");
            assert_eq!(b.result(), Some(initial), "{what}: 9.999 s in");
            assert_eq!(b.calls.get(), 0, "{what}: nothing probed inside the delay");
            // 100 seconds later...
            b.sim.now = T0;
            let mut later = running(1, started);
            later.started_at = SimTime::from_secs(900);
            b.set_status(Phase::Running, later);
            assert!(b.do_probe(), "{what}: after initial delay");
            assert_eq!(
                b.result(),
                Some(ProbeResult::Success),
                "{what}: after initial delay"
            );
        }
    }
}

/// `TestFailureThreshold` (worker_test.go): readiness with a failure threshold of 3: after
/// three successes, two failures leave Success cached, the third and later failures cache
/// Failure; the cycle repeats identically.
///
/// P33 (run counting), P34 (thresholds; every probe at or beyond the threshold re-records),
/// P35 (readiness never holds).
#[test]
fn test_failure_threshold() {
    use ProbeResult::{Failure, Success};
    for profile in profiles(ALL) {
        let mut b = Bench::single(profile.clone(), ProbeKind::Readiness, |t| {
            t.success_threshold = 1;
            t.failure_threshold = 3;
        });
        b.set_status(Phase::Running, running(1, true));
        for round in 0..2 {
            b.set_answer(SUCCESS);
            for j in 1..=3 {
                assert!(b.do_probe());
                assert_eq!(
                    b.result(),
                    Some(Success),
                    "{}",
                    ctx(&profile, format_args!("success {j} ({round})"))
                );
            }
            b.set_answer(FAILURE);
            for j in 1..=2 {
                assert!(b.do_probe());
                assert_eq!(
                    b.result(),
                    Some(Success),
                    "{}",
                    ctx(&profile, format_args!("failing {j} ({round})"))
                );
            }
            for j in 3..=5 {
                assert!(b.do_probe());
                assert_eq!(
                    b.result(),
                    Some(Failure),
                    "{}",
                    ctx(&profile, format_args!("failure {j} ({round})"))
                );
                assert!(!b.worker().on_hold);
            }
        }
    }
}

/// `TestSuccessThreshold` (worker_test.go): readiness with a success threshold of 3 and a
/// failure threshold of 1, starting from a cached Failure: two successes keep Failure, the third
/// and later cache Success; one failure immediately caches Failure; the cycle repeats.
///
/// P25 (the first doProbe records the initial Failure over the pre-set one), P33, P34.
#[test]
fn test_success_threshold() {
    use ProbeResult::{Failure, Success};
    for profile in profiles(ALL) {
        let mut b = Bench::single(profile.clone(), ProbeKind::Readiness, |t| {
            t.success_threshold = 3;
            t.failure_threshold = 1;
        });
        b.set_status(Phase::Running, running(1, true));
        // Start out failure.
        b.sim.prober.cache[b.w] = Some((1, Failure));
        for round in 0..2 {
            for j in 1..=2 {
                assert!(b.do_probe());
                assert_eq!(
                    b.result(),
                    Some(Failure),
                    "{}",
                    ctx(&profile, format_args!("success {j} ({round})"))
                );
            }
            for j in 3..=5 {
                assert!(b.do_probe());
                assert_eq!(
                    b.result(),
                    Some(Success),
                    "{}",
                    ctx(&profile, format_args!("success {j} ({round})"))
                );
            }
            b.set_answer(FAILURE);
            assert!(b.do_probe());
            assert_eq!(
                b.result(),
                Some(Failure),
                "{}",
                ctx(&profile, format_args!("1 failure ({round})"))
            );
            b.set_answer(SUCCESS);
        }
    }
}

/// `TestStartupProbeSuccessThreshold` (worker_test.go, ≥1.32): a startup probe with a success
/// threshold of 1 caches Success at its first success and the worker is then on hold with its
/// run reset to 0. Before 1.32 a startup Success did not hold the worker and the run stays 1.
///
/// P34, P35 (≥1.32: startup holds after any recorded verdict; ≤1.31 only after Failure).
#[test]
fn test_startup_probe_success_threshold() {
    for profile in profiles(ALL) {
        let mut b = Bench::single(profile.clone(), ProbeKind::Startup, |t| {
            t.success_threshold = 1;
            t.failure_threshold = 3;
        });
        b.set_status(Phase::Running, running(1, false));
        b.set_answer(SUCCESS);
        let what = ctx(&profile, "startup");
        assert!(!b.worker().on_hold, "{what}");
        assert!(b.do_probe(), "{what}");
        assert_eq!(b.result(), Some(ProbeResult::Success), "{what}");
        if profile.minor() >= 32 {
            assert!(b.worker().on_hold, "{what}: held after its Success");
            assert_eq!(b.worker().result_run, 0, "{what}");
        } else {
            assert!(
                !b.worker().on_hold,
                "{what}: not held after a Success before 1.32"
            );
            assert_eq!(b.worker().result_run, 1, "{what}");
        }
    }
}

/// `TestStartupProbeFailureThreshold` (worker_test.go; added with 1.32, but the behaviour is
/// the same in every modelled minor): a startup probe with a failure threshold of 3 keeps
/// Unknown with runs 1 and 2, caches Failure at the third failure with the run reset to 0, and
/// is then on hold (no further probe reaches the prober).
///
/// P9 (startup's initial Unknown), P26 (held: no probe), P33, P34, P35 (a startup Failure holds
/// in every minor), P36a.
#[test]
fn test_startup_probe_failure_threshold() {
    use ProbeResult::{Failure, Unknown};
    for profile in profiles(ALL) {
        let mut b = Bench::single(profile.clone(), ProbeKind::Startup, |t| {
            t.success_threshold = 1;
            t.failure_threshold = 3;
        });
        b.set_status(Phase::Running, running(1, false));
        b.set_answer(FAILURE);
        for i in 1..=3 {
            let what = ctx(&profile, format_args!("failure {i}"));
            assert!(!b.worker().on_hold, "{what}");
            assert!(b.do_probe(), "{what}");
            if i < 3 {
                assert_eq!(b.result(), Some(Unknown), "{what}");
                assert_eq!(b.worker().result_run, i, "{what}");
            } else {
                assert_eq!(b.result(), Some(Failure), "{what}");
                assert_eq!(b.worker().result_run, 0, "{what}");
            }
        }
        assert!(b.worker().on_hold, "{}", ctx(&profile, "held"));
        assert!(b.do_probe());
        assert_eq!(b.calls.get(), 3, "{}", ctx(&profile, "no probe while held"));
        assert_eq!(b.worker().result_run, 0);
    }
}

/// `TestCleanUp` (worker_test.go): a running worker of each type caches Success; `stop()` called
/// ten times is harmless; the worker exits, its cached result is removed and it is gone from the
/// manager's map. Here the worker runs in a whole simulation.
///
/// P13 (stop is idempotent and noticed at the next wait), P16, P20 (exit clean-up).
#[test]
fn test_clean_up() {
    for profile in profiles(ALL) {
        for kind in ProbeKind::ALL {
            let pod = test_pod(kind, exec_probe(|_| {}));
            let behaviours = Behaviours::new(&pod);
            let mut sim = Simulation::new(
                pod,
                profile.clone(),
                KubeletConfig::default(),
                7,
                behaviours,
            );
            let mut sink = VecSink::default();
            sim.run_until(SimTime::from_secs(5), &mut sink)
                .expect("run");
            let w = sim.worker_of(0, kind).expect("worker");
            let id = sim.status.view[0].id.expect("the container is running");
            let what = ctx(&profile, kind);
            assert!(sim.prober.workers[w].alive(), "{what}");
            assert_eq!(
                sim.prober.cache[w],
                Some((id, ProbeResult::Success)),
                "{what}"
            );
            for _ in 0..10 {
                sim.stop_worker(w);
            }
            settle(&mut sim, &mut sink);
            assert!(!sim.prober.workers[w].alive(), "{what}: the worker exited");
            assert_eq!(sim.prober.cache[w], None, "{what}: its result is removed");
        }
    }
}

/// `TestOnHoldOnLivenessOrStartupCheckFailure` (worker_test.go): with a failure threshold of 1
/// a failure caches Failure and holds the worker; while held a succeeding prober changes
/// nothing; a new container ID lifts the hold, removes the old ID's entry, and the next probe
/// caches Success. Afterwards liveness is not held; startup is held again from 1.32 because it
/// recorded a verdict (Success), and not before.
///
/// P25 (new container: old entry removed, initial value, hold lifted), P26, P35.
#[test]
fn test_on_hold_on_liveness_or_startup_check_failure() {
    for profile in profiles(ALL) {
        for kind in [ProbeKind::Liveness, ProbeKind::Startup] {
            let started = kind != ProbeKind::Startup;
            let mut b = Bench::single(profile.clone(), kind, |t| {
                t.success_threshold = 1;
                t.failure_threshold = 1;
            });
            b.set_status(Phase::Running, running(1, started));
            let what = ctx(&profile, kind);
            b.set_answer(FAILURE);
            assert!(b.do_probe(), "{what}: first probe");
            assert_eq!(
                b.result(),
                Some(ProbeResult::Failure),
                "{what}: first probe"
            );
            assert!(b.worker().on_hold, "{what}: held after the failure");
            b.set_answer(SUCCESS);
            assert!(b.do_probe(), "{what}: while on hold");
            assert_eq!(
                b.result(),
                Some(ProbeResult::Failure),
                "{what}: while on hold"
            );
            assert!(b.worker().on_hold, "{what}: still held");
            assert_eq!(b.calls.get(), 1, "{what}: no probe while held");
            // A new container ID lifts the hold.
            b.set_status(Phase::Running, running(2, started));
            assert!(b.do_probe(), "{what}: hold lifted");
            assert_eq!(
                b.cached(2),
                Some(ProbeResult::Success),
                "{what}: hold lifted"
            );
            assert_eq!(
                b.cached(1),
                None,
                "{what}: the old container's entry is gone"
            );
            let held = kind == ProbeKind::Startup && profile.minor() >= 32;
            assert_eq!(b.worker().on_hold, held, "{what}: hold after the Success");
        }
    }
}

/// `TestResultRunOnLivenessCheckFailure` (worker_test.go): liveness with a failure threshold of
/// 3: success (run 1), failure (run 1, Success stays cached), failure (run 2), failure: Failure
/// cached and the run reset to 0 so a restarted container gets its full threshold again.
///
/// P33, P34, P35.
#[test]
fn test_result_run_on_liveness_check_failure() {
    use ProbeResult::{Failure, Success};
    for profile in profiles(ALL) {
        let mut b = Bench::single(profile.clone(), ProbeKind::Liveness, |t| {
            t.success_threshold = 1;
            t.failure_threshold = 3;
        });
        b.set_status(Phase::Running, running(1, true));
        let steps = [
            (SUCCESS, Success, 1),
            (FAILURE, Success, 1),
            (FAILURE, Success, 2),
            (FAILURE, Failure, 0),
        ];
        for (i, (answer, cached, run)) in steps.into_iter().enumerate() {
            b.set_answer(answer);
            let what = ctx(&profile, format_args!("step {i}"));
            assert!(b.do_probe(), "{what}");
            assert_eq!(b.result(), Some(cached), "{what}");
            assert_eq!(b.worker().result_run, run, "{what}");
        }
    }
}

/// `TestResultRunOnStartupCheckFailure` (worker_test.go): startup with a failure threshold of 3
/// on a container that has not started: runs 1 and 2 keep Unknown, the third failure caches
/// Failure and resets the run to 0.
///
/// P9, P33, P34, P35, P36a.
#[test]
fn test_result_run_on_startup_check_failure() {
    use ProbeResult::{Failure, Unknown};
    for profile in profiles(ALL) {
        let mut b = Bench::single(profile.clone(), ProbeKind::Startup, |t| {
            t.success_threshold = 1;
            t.failure_threshold = 3;
        });
        b.set_status(Phase::Running, running(1, false));
        b.set_answer(FAILURE);
        for (i, (cached, run)) in [(Unknown, 1), (Unknown, 2), (Failure, 0)]
            .into_iter()
            .enumerate()
        {
            let what = ctx(&profile, format_args!("failure {}", i + 1));
            assert!(b.do_probe(), "{what}");
            assert_eq!(b.result(), Some(cached), "{what}");
            assert_eq!(b.worker().result_run, run, "{what}");
        }
    }
}

/// `TestLivenessProbeDisabledByStarted` (worker_test.go): while `started` is false a failing
/// liveness probe is not executed and its initial Success stays; once `started` is true the same
/// failure caches Failure.
///
/// P30 (liveness waits for `started`), P9, P34.
#[test]
fn test_liveness_probe_disabled_by_started() {
    for profile in profiles(ALL) {
        let mut b = Bench::single(profile.clone(), ProbeKind::Liveness, |t| {
            t.success_threshold = 1;
            t.failure_threshold = 1;
        });
        b.set_status(Phase::Running, running(1, false));
        b.set_answer(FAILURE);
        let what = ctx(&profile, "liveness");
        assert!(b.do_probe(), "{what}: not started");
        assert_eq!(
            b.result(),
            Some(ProbeResult::Success),
            "{what}: not started"
        );
        assert_eq!(b.calls.get(), 0, "{what}: not probed before started");
        b.set_started(true);
        assert!(b.do_probe(), "{what}: started");
        assert_eq!(b.result(), Some(ProbeResult::Failure), "{what}: started");
    }
}

/// `TestStartupProbeDisabledByStarted` (worker_test.go): startup with a failure threshold of 2:
/// a failure keeps Unknown, a success caches Success; once `started` is true a failing prober is
/// no longer run and Success stays (from 1.32 the worker is also held after its Success).
///
/// P30 (startup stops probing once started, and keeps running), P34, P35.
#[test]
fn test_startup_probe_disabled_by_started() {
    for profile in profiles(ALL) {
        let mut b = Bench::single(profile.clone(), ProbeKind::Startup, |t| {
            t.success_threshold = 1;
            t.failure_threshold = 2;
        });
        b.set_status(Phase::Running, running(1, false));
        let what = ctx(&profile, "startup");
        b.set_answer(FAILURE);
        assert!(b.do_probe(), "{what}: not started, failure");
        assert_eq!(
            b.result(),
            Some(ProbeResult::Unknown),
            "{what}: not started, failure"
        );
        b.set_answer(SUCCESS);
        assert!(b.do_probe(), "{what}: success");
        assert_eq!(b.result(), Some(ProbeResult::Success), "{what}: success");
        b.set_started(true);
        b.set_answer(FAILURE);
        assert!(b.do_probe(), "{what}: started, failure");
        assert_eq!(
            b.result(),
            Some(ProbeResult::Success),
            "{what}: started, failure"
        );
        assert_eq!(b.calls.get(), 2, "{what}: not probed once started");
    }
}

// ---------------------------------------------------------------------------------------------
// prober_manager_test.go (docs/rules.md#the-kubelets-own-unit-tests). The engine simulates
// one pod, so "the manager's map" is the
// set of live workers of one simulation and several pods are several simulations.

/// The live workers as (container name, probe type), in creation order.
fn alive(sim: &Simulation) -> Vec<(&str, ProbeKind)> {
    sim.prober
        .workers
        .iter()
        .filter(|w| w.alive())
        .map(|w| (sim.pod.container(w.container).name.as_str(), w.kind))
        .collect()
}

/// `RemovePod`: `stop()` on every worker of the pod (P10), as the engine does once a deleted
/// pod's containers are gone.
fn remove_pod(sim: &mut Simulation) {
    for w in 0..sim.prober.workers.len() {
        sim.stop_worker(w);
    }
}

/// Runs what is due at the current instant: stopped workers notice at their wait (P13) and exit
/// (P20), like `waitForWorkerExit`.
fn settle(sim: &mut Simulation, sink: &mut VecSink) {
    let now = sim.now();
    sim.run_until(now, sink).expect("run");
}

/// A simulation that has run its first sync, which calls AddPod (P8).
fn added(pod: PodSpec, profile: Profile, sink: &mut VecSink) -> Simulation {
    let behaviours = Behaviours::new(&pod);
    let mut sim = Simulation::new(pod, profile, KubeletConfig::default(), 7, behaviours);
    sim.run_until(SimTime::ZERO, sink).expect("run");
    sim
}

/// `TestAddRemovePods` (prober_manager_test.go): a pod without probes creates no workers; a
/// pod whose containers have one readiness, one liveness and one startup probe creates exactly
/// one worker per probe; removing the unprobed pod changes nothing; removing the probed pod makes
/// all its workers exit; removing it again is a no-op.
///
/// P4, P6 (one worker per container and probe type, in spec order), P8, P10, P13, P20.
#[test]
fn test_add_remove_pods() {
    for profile in profiles(ALL) {
        let mut sink = VecSink::default();
        let no_probes = PodSpec::new("no-probe-pod")
            .with_container(container("no_probe1"))
            .with_container(container("no_probe2"))
            .with_container(container("no_probe3"));
        let unprobed = added(no_probes, profile.clone(), &mut sink);
        assert!(
            unprobed.prober.workers.is_empty(),
            "{}",
            ctx(&profile, "no probes, no workers")
        );
        let probed = PodSpec::new("probe-pod")
            .with_container(container("probe1"))
            .with_container(
                container("readiness").with_probe(ProbeKind::Readiness, default_probe()),
            )
            .with_container(container("probe2"))
            .with_container(container("liveness").with_probe(ProbeKind::Liveness, default_probe()))
            .with_container(container("probe3"))
            .with_container(container("startup").with_probe(ProbeKind::Startup, default_probe()));
        let mut sim = added(probed, profile.clone(), &mut sink);
        let expected = [
            ("readiness", ProbeKind::Readiness),
            ("liveness", ProbeKind::Liveness),
            ("startup", ProbeKind::Startup),
        ];
        assert_eq!(alive(&sim), expected, "{}", ctx(&profile, "added"));
        // The original's "removing the unprobed pod leaves the other's workers" has no
        // counterpart: a simulation holds one pod, so two pods never share workers.
        // Removing the probed pod.
        remove_pod(&mut sim);
        settle(&mut sim, &mut sink);
        assert!(alive(&sim).is_empty(), "{}", ctx(&profile, "removed"));
        assert!(sim.prober.cache.iter().all(Option::is_none));
        // Removing it again.
        remove_pod(&mut sim);
        settle(&mut sim, &mut sink);
        assert!(alive(&sim).is_empty(), "{}", ctx(&profile, "removed twice"));
    }
}

/// `TestAddPodContinuesAfterExistingWorker` (prober_manager_test.go, ≥1.37): two containers
/// with a readiness probe each; container b's worker vanishes while a's still exists; a second
/// AddPod re-creates b's. Through 1.36 AddPod returns at the first existing worker, so b's stays
/// missing; a worker missing *before* every live one is re-created in every minor.
///
/// P7 (≥1.37 skips the existing key, ≤1.36 returns), P6, P9, P20.
#[test]
fn test_add_pod_continues_after_existing_worker() {
    for profile in profiles(ALL) {
        let pod = || {
            PodSpec::new("test-pod")
                .with_container(
                    container("container_a").with_probe(ProbeKind::Readiness, default_probe()),
                )
                .with_container(
                    container("container_b").with_probe(ProbeKind::Readiness, default_probe()),
                )
        };
        let both = [
            ("container_a", ProbeKind::Readiness),
            ("container_b", ProbeKind::Readiness),
        ];
        let mut sink = VecSink::default();
        let mut sim = added(pod(), profile.clone(), &mut sink);
        assert_eq!(alive(&sim), both, "{}", ctx(&profile, "first AddPod"));
        // container_b's worker is gone while container_a's is still present.
        let wb = sim.worker_of(1, ProbeKind::Readiness).expect("worker");
        sim.exit_worker(wb);
        sim.add_pod();
        if profile.minor() >= 37 {
            assert_eq!(alive(&sim), both, "{}", ctx(&profile, "b re-created"));
        } else {
            assert_eq!(
                alive(&sim),
                [("container_a", ProbeKind::Readiness)],
                "{}",
                ctx(&profile, "b stays missing")
            );
        }
        // container_a's worker is gone instead: AddPod reaches it before any live worker.
        let mut sim = added(pod(), profile.clone(), &mut sink);
        let wa = sim.worker_of(0, ProbeKind::Readiness).expect("worker");
        sim.exit_worker(wa);
        sim.add_pod();
        assert_eq!(alive(&sim), both, "{}", ctx(&profile, "a re-created"));
    }
}

/// The pod of `TestAddRemovePodsWithRestartableInitContainer`: a regular init container, one
/// init container with all three probes (a sidecar when `restartable`), one regular container.
fn restartable_init_pod(restartable: bool) -> PodSpec {
    let mut probed = container("restartable-init")
        .with_probe(ProbeKind::Liveness, default_probe())
        .with_probe(ProbeKind::Readiness, default_probe())
        .with_probe(ProbeKind::Startup, default_probe());
    probed.restartable = restartable;
    PodSpec::new("restartable-init-container-pod")
        .with_init_container(container("init"))
        .with_init_container(probed)
        .with_container(container("main"))
}

/// `TestAddRemovePodsWithRestartableInitContainer` (prober_manager_test.go, ≥1.28): probes on
/// an init container with `restartPolicy: Always` create three workers, which RemovePod removes
/// (twice is a no-op); without that policy no workers are created.
///
/// P6 (restartable init containers get workers, after the regular containers), P10, P20.
#[test]
fn test_add_remove_pods_with_restartable_init_container() {
    for profile in profiles(28..=NEWEST_MINOR).map(with_sidecars) {
        let mut sink = VecSink::default();
        let mut sim = added(restartable_init_pod(true), profile.clone(), &mut sink);
        let expected = [
            ("restartable-init", ProbeKind::Startup),
            ("restartable-init", ProbeKind::Readiness),
            ("restartable-init", ProbeKind::Liveness),
        ];
        assert_eq!(
            alive(&sim),
            expected,
            "{}",
            ctx(&profile, "pod with sidecar")
        );
        remove_pod(&mut sim);
        settle(&mut sim, &mut sink);
        assert!(alive(&sim).is_empty(), "{}", ctx(&profile, "removed"));
        remove_pod(&mut sim);
        settle(&mut sim, &mut sink);
        assert!(alive(&sim).is_empty(), "{}", ctx(&profile, "removed twice"));

        let sim = added(restartable_init_pod(false), profile.clone(), &mut sink);
        assert!(
            sim.prober.workers.is_empty(),
            "{}",
            ctx(&profile, "pod without sidecar")
        );
    }
}

/// The pods of `TestCleanupPods`: three containers with a readiness, a liveness and a startup
/// probe.
fn three_probers(name: &str) -> PodSpec {
    PodSpec::new(name)
        .with_container(container("prober1").with_probe(ProbeKind::Readiness, default_probe()))
        .with_container(container("prober2").with_probe(ProbeKind::Liveness, default_probe()))
        .with_container(container("prober3").with_probe(ProbeKind::Startup, default_probe()))
}

/// `TestCleanupPods` (prober_manager_test.go): CleanupPods stops every worker of the pods outside
/// the desired set. Keeping the workers of the pods in the set has no counterpart (a simulation
/// holds one pod), so the kept pod here only shows that its workers run on. The engine's own
/// clean-up is also checked end to end: a deleted pod whose containers are gone has no workers
/// left.
///
/// P11, P10, P12 (≥1.23: liveness and startup stop when termination begins), P13, P20.
#[test]
fn test_cleanup_pods() {
    for profile in profiles(ALL) {
        let mut sink = VecSink::default();
        let mut to_clean = added(three_probers("pod-cleanup"), profile.clone(), &mut sink);
        let keep = added(three_probers("pod-keep"), profile.clone(), &mut sink);
        // CleanupPods({pod-keep}).
        remove_pod(&mut to_clean);
        settle(&mut to_clean, &mut sink);
        assert!(
            alive(&to_clean).is_empty(),
            "{}",
            ctx(&profile, "cleaned up")
        );
        assert_eq!(
            alive(&keep),
            [
                ("prober1", ProbeKind::Readiness),
                ("prober2", ProbeKind::Liveness),
                ("prober3", ProbeKind::Startup),
            ],
            "{}",
            ctx(&profile, "kept")
        );

        // End to end: the pod is deleted at 5 s and its containers die at once.
        let pod = three_probers("pod-deleted");
        let behaviours = Behaviours::new(&pod);
        let mut sim = Simulation::new(
            pod,
            profile.clone(),
            KubeletConfig::default(),
            7,
            behaviours,
        );
        sim.delete_at(SimTime::from_secs(5), None);
        let mut sink = VecSink::default();
        sim.run_until(SimTime::from_secs(30), &mut sink)
            .expect("run");
        assert!(
            sink.of_kind("deleted").count() == 1,
            "{}",
            ctx(&profile, "pod removed")
        );
        assert!(
            alive(&sim).is_empty(),
            "{}",
            ctx(&profile, "no workers after deletion")
        );
    }
}

/// `TestCleanupRepeated` (prober_manager_test.go): CleanupPods with an empty desired set, ten
/// times over 100 pods with three workers each, is safe and leaves no worker.
///
/// P11, P13 (stop is idempotent).
#[test]
fn test_cleanup_repeated() {
    for profile in profiles(ALL) {
        let mut sink = VecSink::default();
        let mut pods: Vec<Simulation> = (0..100)
            .map(|i| {
                let pod = PodSpec::new(format!("pod-{i}")).with_container(
                    container("prober1")
                        .with_probe(ProbeKind::Readiness, default_probe())
                        .with_probe(ProbeKind::Liveness, default_probe())
                        .with_probe(ProbeKind::Startup, default_probe()),
                );
                added(pod, profile.clone(), &mut sink)
            })
            .collect();
        assert!(pods.iter().all(|sim| alive(sim).len() == 3));
        for _ in 0..10 {
            for sim in &mut pods {
                remove_pod(sim);
            }
        }
        for sim in &mut pods {
            settle(sim, &mut sink);
        }
        assert!(
            pods.iter().all(|sim| alive(sim).is_empty()),
            "{}",
            ctx(&profile, "all gone")
        );
    }
}

/// A container instance as the runtime (PLEG snapshot) reports it: running, or exited with a
/// code.
fn instance(id: u64, exited: Option<i32>) -> Instances {
    Instances {
        newest: Some(Instance {
            id,
            restart_count: 0,
            started_at: SimTime::ZERO,
            exited: exited.map(|code| (SimTime::ZERO, code)),
        }),
        previous: None,
    }
}

/// `m.workers[key] = &worker{}`: a fake worker the manager sees but that never runs.
fn fake_worker(sim: &mut Simulation, container: usize, kind: ProbeKind) -> usize {
    sim.prober.workers.push(Worker {
        state: Lifecycle::Sleeping,
        ..Worker::idle(container, kind, SimDuration::from_secs(1))
    });
    sim.prober.cache.push(None);
    sim.shortcuts.agenda.push(&sim.prober.workers);
    sim.prober.worker_by[container][kind.index()].get_or_insert(sim.prober.workers.len() - 1);
    sim.shortcuts.is_dirty.push(false);
    sim.shortcuts.listed.push(false);
    sim.shortcuts.steady.push(None);
    sim.shortcuts.lane.push_worker();
    sim.prober.workers.len() - 1
}

/// `m.UpdatePodStatus(pod, status)`: the engine runs it as part of the status generation of a
/// pod sync (P8).
fn update_pod_status(sim: &mut Simulation) {
    let mut sink = VecSink::default();
    let mut out = Out {
        sink: &mut sink,
        error: None,
        stop: false,
    };
    sim.generate_status(&mut out);
}

/// `TestUpdatePodStatus` (prober_manager_test.go): readiness of running containers from fake
/// workers and cached results. Only a liveness worker → ready; cached readiness Success →
/// ready; readiness worker without entry → not ready; cached Failure → not ready; startup worker
/// without entry → not started, not ready; cached startup Success and no readiness worker →
/// ready; terminated → not ready even with a cached Success.
///
/// P45 (started, then ready only when started; "no probe ⇒ ready"), and, not in the original,
/// which readiness workers get a manual trigger: none in 1.19/1.20, only the one without an
/// entry in 1.21, every started container that is not ready from 1.22 (P18, P45).
#[test]
fn test_update_pod_status() {
    let names = [
        "unprobed_container",
        "probed_container_ready",
        "probed_container_pending",
        "probed_container_unready",
        "not_started_container_no_readiness",
        "started_container_no_readiness",
        "terminated_container",
    ];
    let probes = [
        ProbeKind::Liveness,
        ProbeKind::Readiness,
        ProbeKind::Readiness,
        ProbeKind::Readiness,
        ProbeKind::Startup,
        ProbeKind::Startup,
        ProbeKind::Readiness,
    ];
    for profile in profiles(ALL) {
        let mut pod = PodSpec::new("test-pod");
        for (name, kind) in names.into_iter().zip(probes) {
            pod = pod.with_container(container(name).with_probe(kind, default_probe()));
        }
        let mut sim = Simulation::new(
            pod.clone(),
            profile.clone(),
            KubeletConfig::default(),
            7,
            Behaviours::new(&pod),
        );
        for w in &mut sim.prober.workers {
            w.state = Lifecycle::Sleeping;
        }
        for c in 0..names.len() {
            sim.set_snapshot(c, instance(0, (c == 6).then_some(0)));
        }
        let cache = [
            (1, ProbeKind::Readiness, ProbeResult::Success),
            (3, ProbeKind::Readiness, ProbeResult::Failure),
            (5, ProbeKind::Startup, ProbeResult::Success),
            (6, ProbeKind::Readiness, ProbeResult::Success),
        ];
        for (c, kind, result) in cache {
            let w = sim.worker_of(c, kind).expect("worker");
            sim.prober.cache[w] = Some((0, result));
        }
        update_pod_status(&mut sim);
        let ready: Vec<bool> = sim.status.api.containers.iter().map(|s| s.ready).collect();
        assert_eq!(
            ready,
            [true, true, false, false, false, true, false],
            "{}",
            ctx(&profile, "ready")
        );
        let started: Vec<bool> = sim
            .status
            .api
            .containers
            .iter()
            .map(|s| s.started)
            .collect();
        assert_eq!(
            started,
            [true, true, true, true, false, true, false],
            "{}",
            ctx(&profile, "started")
        );
        let triggered = |c: usize| {
            let w = sim.worker_of(c, ProbeKind::Readiness).expect("worker");
            sim.prober.workers[w].pending_trigger
        };
        let minor = profile.minor();
        assert!(!triggered(1), "{}", ctx(&profile, "ready: no trigger"));
        assert_eq!(
            triggered(2),
            minor >= 21,
            "{}",
            ctx(&profile, "pending: trigger")
        );
        assert_eq!(
            triggered(3),
            minor >= 22,
            "{}",
            ctx(&profile, "unready: trigger")
        );
        assert!(!triggered(6), "{}", ctx(&profile, "terminated: no trigger"));
    }
}

/// The three init containers of `TestUpdatePodStatusWithInitContainers`, as sidecars or not,
/// with fake startup workers on the first two and a cached startup Success for the second.
fn init_container_status(profile: Profile, restartable: bool) -> Simulation {
    let mut pod = PodSpec::new("test-pod");
    for name in [
        "not_started_container",
        "started_container",
        "terminated_container",
    ] {
        let mut c = container(name);
        c.restartable = restartable;
        pod = pod.with_init_container(c);
    }
    let mut sim = Simulation::new(
        pod.clone(),
        profile,
        KubeletConfig::default(),
        7,
        Behaviours::new(&pod),
    );
    fake_worker(&mut sim, 0, ProbeKind::Startup);
    let started = fake_worker(&mut sim, 1, ProbeKind::Startup);
    sim.prober.cache[started] = Some((0, ProbeResult::Success));
    sim.set_snapshot(0, instance(0, None));
    sim.set_snapshot(1, instance(0, None));
    sim.set_snapshot(2, instance(0, Some(0)));
    update_pod_status(&mut sim);
    sim
}

/// `TestUpdatePodStatusWithInitContainers` (prober_manager_test.go, ≥1.28): regular init
/// containers: not started (startup worker, no entry) → started false, ready false; startup
/// Success → started true but ready false; terminated with exit 0 → started false, ready true.
/// Sidecars: not started → false/false; started, no readiness worker → true/true; terminated →
/// false/false.
///
/// P46 (≥1.28: started per P45.1 for every init container; a regular one is ready once it exited
/// 0; a sidecar's ready per P45.3), P45.
#[test]
fn test_update_pod_status_with_init_containers() {
    for profile in profiles(28..=NEWEST_MINOR).map(with_sidecars) {
        let sim = init_container_status(profile.clone(), false);
        let started: Vec<bool> = sim
            .status
            .api
            .init_containers
            .iter()
            .map(|s| s.started)
            .collect();
        let ready: Vec<bool> = sim
            .status
            .api
            .init_containers
            .iter()
            .map(|s| s.ready)
            .collect();
        assert_eq!(
            started,
            [false, true, false],
            "{}",
            ctx(&profile, "init: started")
        );
        assert_eq!(
            ready,
            [false, false, true],
            "{}",
            ctx(&profile, "init: ready")
        );

        let sim = init_container_status(profile.clone(), true);
        let started: Vec<bool> = sim
            .status
            .api
            .init_containers
            .iter()
            .map(|s| s.started)
            .collect();
        let ready: Vec<bool> = sim
            .status
            .api
            .init_containers
            .iter()
            .map(|s| s.ready)
            .collect();
        assert_eq!(
            started,
            [false, true, false],
            "{}",
            ctx(&profile, "sidecar: started")
        );
        assert_eq!(
            ready,
            [false, true, false],
            "{}",
            ctx(&profile, "sidecar: ready")
        );
    }
}

/// Not a kubelet test: the ≤1.27 rule the original's ≥1.28 expectations replaced. Before 1.28
/// `UpdatePodStatus` only sets `ready` for init containers (Terminated with exit code 0) and
/// never sets `started`, so a running init container shows `started` unset (false).
///
/// P46 (≤1.27).
#[test]
fn test_update_pod_status_with_init_containers_before_1_28() {
    for profile in profiles(OLDEST_MINOR..=27) {
        let mut pod = PodSpec::new("test-pod")
            .with_init_container(container("running_container"))
            .with_init_container(container("terminated_container"));
        pod = pod.with_container(container("main"));
        let mut sim = Simulation::new(
            pod.clone(),
            profile.clone(),
            KubeletConfig::default(),
            7,
            Behaviours::new(&pod),
        );
        sim.set_snapshot(0, instance(0, None));
        sim.set_snapshot(1, instance(0, Some(0)));
        update_pod_status(&mut sim);
        let started: Vec<bool> = sim
            .status
            .api
            .init_containers
            .iter()
            .map(|s| s.started)
            .collect();
        let ready: Vec<bool> = sim
            .status
            .api
            .init_containers
            .iter()
            .map(|s| s.ready)
            .collect();
        assert_eq!(ready, [false, true], "{}", ctx(&profile, "init: ready"));
        assert_eq!(
            started,
            [false, false],
            "{}",
            ctx(&profile, "init: started never set")
        );
    }
}

/// `TestUpdateReadiness` (prober_manager_test.go): end to end with a real readiness worker and
/// the kubelet's handling of readiness updates: the container becomes ready while the prober
/// succeeds and unready once it fails.
///
/// P42 (updates on change), P44 (the readiness update writes `ready` into the status view;
/// ≥1.21 by the kubelet sync loop, 1.19 by the manager's own loop), P34.
#[test]
fn test_update_readiness() {
    for profile in profiles(ALL) {
        let pod = test_pod(ProbeKind::Readiness, exec_probe(|_| {}));
        let mut behaviours = Behaviours::new(&pod);
        let b = behaviours.add(Box::new(|a: &Attempt| {
            Response::now(if a.now < SimTime::from_secs(10) {
                SUCCESS
            } else {
                FAILURE
            })
        }));
        behaviours.bind(0, ProbeKind::Readiness, b);
        let mut sim = Simulation::new(
            pod,
            profile.clone(),
            KubeletConfig::default(),
            7,
            behaviours,
        );
        let mut sink = VecSink::default();
        sim.run_until(SimTime::from_millis(9500), &mut sink)
            .expect("run");
        assert!(
            sim.status().containers[0].ready,
            "{}",
            ctx(&profile, "ready")
        );
        sim.run_until(SimTime::from_secs(12), &mut sink)
            .expect("run");
        assert!(
            !sim.status().containers[0].ready,
            "{}",
            ctx(&profile, "unready")
        );
    }
}

// ---------------------------------------------------------------------------------------------
// prober_test.go and feature_gate_test.go (docs/rules.md#the-kubelets-own-unit-tests)

/// `TestProbe` (prober_test.go), the cases the engine can express, for every probe type:
/// a failing probe → Failure; a succeeding one → Success; an exec error → Failure with an
/// error, which the worker throws away after three attempts with one "errored" event. Not in the
/// original: an HTTP warning (a 3xx) counts as Success.
///
/// P3 (outcome → result), P31 (errors discarded: no run counting, nothing recorded), P40 (three
/// attempts for errors only), P41 (events).
///
/// Not expressible: "no probe" (workers exist only for probes that are set, P6/P37) and "no
/// handler" (a probe always has a handler after validation); "unknown outcome without error"
/// does not occur, the engine's handlers classify such answers as failures directly.
#[test]
fn test_probe() {
    for profile in profiles(ALL) {
        for kind in ProbeKind::ALL {
            let started = kind != ProbeKind::Startup;
            let title = kind.title();
            let cases = [
                (FAILURE, Some(ProbeResult::Failure), 1),
                (SUCCESS, Some(ProbeResult::Success), 1),
                (Answer::Error, None, 3),
            ];
            for (answer, result, attempts) in cases {
                let mut b = Bench::single(profile.clone(), kind, |_| {});
                b.set_status(Phase::Running, running(1, started));
                b.set_answer(answer);
                let what = ctx(&profile, format_args!("{kind}, {answer}"));
                assert!(b.do_probe(), "{what}");
                assert_eq!(b.calls.get(), attempts, "{what}: attempts");
                match result {
                    Some(r) => {
                        assert_eq!(b.worker().last_result, r, "{what}");
                        assert_eq!(b.result(), Some(r), "{what}");
                    }
                    None => {
                        // The initial value only; nothing was counted (P33 would have made the
                        // run 1 whatever the result).
                        assert_eq!(b.worker().last_result, ProbeResult::Success, "{what}");
                        assert_eq!(b.worker().result_run, 0, "{what}");
                        assert_eq!(b.result(), Some(b.worker().initial_value()), "{what}");
                    }
                }
                let unhealthy: Vec<_> = b
                    .events()
                    .into_iter()
                    .filter(|e| e.contains("Unhealthy"))
                    .collect();
                match answer {
                    Answer::Error => assert_eq!(
                        unhealthy,
                        [format!("Warning Unhealthy: {title} probe errored: rpc error: code = Unknown desc = probe error (scripted)")],
                        "{what}"
                    ),
                    Answer::Ok => assert!(unhealthy.is_empty(), "{what}"),
                    _ => assert_eq!(unhealthy, [format!("Warning Unhealthy: {title} probe failed: ")], "{what}"),
                }
            }
            // A warning is a success for the worker (P3.2).
            let http = Handler::HttpGet {
                scheme: Scheme::Http,
                host: None,
                port: Port::Number(8080),
                path: "/".into(),
            };
            let probe = ProbeSpec::new(http, test_timing(|_| {})).expect("valid probe");
            let mut b = Bench::new(profile.clone(), test_pod(kind, probe), 0, kind);
            b.set_status(Phase::Running, running(1, started));
            b.set_answer(Answer::Status(302));
            assert!(b.do_probe());
            assert_eq!(
                b.result(),
                Some(ProbeResult::Success),
                "{}",
                ctx(&profile, "3xx")
            );
        }
    }
}

/// An httpGet liveness probe on the test pod, with the pod IP of the original's fixtures.
fn http_bench(profile: Profile, handler: Handler) -> Bench {
    let probe = ProbeSpec::new(handler, test_timing(|_| {})).expect("valid probe");
    let mut pod = test_pod(ProbeKind::Liveness, probe);
    pod.pod_ip = "127.0.0.1".into();
    let mut b = Bench::new(profile, pod, 0, ProbeKind::Liveness);
    b.set_status(Phase::Running, running(1, true));
    b
}

/// The output of one refused HTTP or TCP probe against `handler`.
fn refused_output(profile: Profile, handler: Handler) -> String {
    let mut b = http_bench(profile, handler);
    b.set_answer(Answer::Refused);
    assert!(b.do_probe());
    let event = b
        .events()
        .into_iter()
        .find(|e| e.contains("Unhealthy"))
        .expect("a failure event");
    event
        .strip_prefix("Warning Unhealthy: Liveness probe failed: ")
        .expect("the failure template")
        .to_owned()
}

/// `TestFormatURL` (prober_test.go): scheme, host, port and path (with a query kept) make the
/// probe URL, here as the Go HTTP client prints it in a refused probe's output.
///
/// P49 (URL construction), P50 (transport errors show the URL).
#[test]
fn test_format_url() {
    let cases = [
        (Scheme::Http, "localhost", 93, "", "http://localhost:93"),
        (
            Scheme::Https,
            "localhost",
            93,
            "/path",
            "https://localhost:93/path",
        ),
        (
            Scheme::Http,
            "localhost",
            93,
            "?foo",
            "http://localhost:93?foo",
        ),
        (
            Scheme::Https,
            "localhost",
            93,
            "/path?bar",
            "https://localhost:93/path?bar",
        ),
    ];
    for profile in profiles(ALL) {
        for (scheme, host, port, path, url) in cases {
            let handler = Handler::HttpGet {
                scheme,
                host: Some(host.into()),
                port: Port::Number(port),
                path: path.into(),
            };
            let output = refused_output(profile.clone(), handler);
            assert_eq!(
                output,
                format!("Get \"{url}\": dial tcp {host}:{port}: connect: connection refused"),
                "{}",
                ctx(&profile, url)
            );
        }
    }
}

/// `TestGetURLParts`' last case (host "hostname", port 76, path "path") through the kubelet's
/// `formatURL`: the path is parsed as a URL reference and Go's `URL.String` puts a `/` between
/// the host and a path that does not start with one, so the URL is `http://hostname:76/path`.
/// API validation only requires the path to be non-empty, so such a path reaches the kubelet.
///
/// P49.
#[test]
fn test_format_url_relative_path() {
    for profile in profiles(ALL) {
        let handler = Handler::HttpGet {
            scheme: Scheme::Http,
            host: Some("hostname".into()),
            port: Port::Number(76),
            path: "path".into(),
        };
        assert_eq!(
            refused_output(profile.clone(), handler),
            "Get \"http://hostname:76/path\": dial tcp hostname:76: connect: connection refused",
            "{}",
            ctx(&profile, "relative path")
        );
    }
}

/// The engine's side of `TestGetURLParts` / `TestGetTCPAddrParts`: the port arrives resolved
/// (named-port lookup and decimal parsing happen when a scenario is validated, in
/// crates/scenario), so what is left is how an unusable port fails (the resolution error at every
/// attempt, retried, reported once as "errored", nothing recorded, the application never
/// reached) and where a usable one sends the probe: `make` builds a handler without a host,
/// whose refused output on port 76 is `first`; `given` has a host and its refused output is
/// `second`.
fn port_parts(make: impl Fn(Port) -> Handler, given: Handler, first: &str, second: &str) {
    let bad = [
        (Port::OutOfRange(-1), "invalid port number: -1"),
        (
            Port::Unparsable(String::new()),
            "strconv.Atoi: parsing \"\": invalid syntax",
        ),
        (
            Port::Unparsable("not-found".into()),
            "strconv.Atoi: parsing \"not-found\": invalid syntax",
        ),
    ];
    for profile in profiles(ALL) {
        for (port, error) in bad.clone() {
            let mut b = http_bench(profile.clone(), make(port));
            assert!(b.do_probe());
            let what = ctx(&profile, error);
            assert_eq!(b.calls.get(), 0, "{what}: the application is not reached");
            assert_eq!(
                b.result(),
                Some(ProbeResult::Success),
                "{what}: only the initial value"
            );
            assert_eq!(b.worker().result_run, 0, "{what}");
            assert_eq!(
                b.events(),
                [format!(
                    "Warning Unhealthy: Liveness probe errored: {error}"
                )],
                "{what}"
            );
        }
        // Usable ports: the probe's host, else the pod IP (127.0.0.1 in these fixtures).
        let output = refused_output(profile.clone(), make(Port::Number(76)));
        assert_eq!(output, first, "{}", ctx(&profile, first));
        let output = refused_output(profile.clone(), given.clone());
        assert_eq!(output, second, "{}", ctx(&profile, second));
    }
}

/// `TestGetURLParts` (prober_test.go), the engine's side (see [`port_parts`]): an httpGet probe
/// with an unusable port errors with the resolution error; a usable one targets the probe's
/// host, else the pod IP.
///
/// P39 (resolution errors and their texts), P40, P31, P41, P49.
#[test]
fn test_get_url_parts() {
    let http = |port| Handler::HttpGet {
        scheme: Scheme::Http,
        host: None,
        port,
        path: String::new(),
    };
    let given = Handler::HttpGet {
        scheme: Scheme::Http,
        host: Some("hostname".into()),
        port: Port::Number(118),
        path: "/path".into(),
    };
    port_parts(
        http,
        given,
        "Get \"http://127.0.0.1:76\": dial tcp 127.0.0.1:76: connect: connection refused",
        "Get \"http://hostname:118/path\": dial tcp hostname:118: connect: connection refused",
    );
}

/// `TestGetTCPAddrParts` (prober_test.go), the engine's side (see [`port_parts`]): the same for
/// a tcpSocket probe.
///
/// P39, P40, P31, P41, P51.
#[test]
fn test_get_tcp_addr_parts() {
    let tcp = |port| Handler::TcpSocket { host: None, port };
    let given = Handler::TcpSocket {
        host: Some("1.2.3.4".into()),
        port: Port::Number(118),
    };
    port_parts(
        tcp,
        given,
        "dial tcp 127.0.0.1:76: connect: connection refused",
        "dial tcp 1.2.3.4:118: connect: connection refused",
    );
}

/// `TestProbeScheduleFeatureGate` (feature_gate_test.go, master), the part that is released
/// behaviour: with `MutableContainerProbes` off (every modelled minor), a probe that takes 3 s
/// with a period of 10 s starts every 10 s (fixed rate). The gate-on schedule (every 13 s) is
/// upstream work not in any release modelled (docs/rules.md#upstream-work-that-is-not-simulated).
///
/// P15, P17.
#[test]
fn test_probe_schedule_feature_gate() {
    for profile in profiles(ALL) {
        let probe = exec_probe(|t| {
            t.period_seconds = 10;
            t.timeout_seconds = 5;
        });
        let pod = test_pod(ProbeKind::Liveness, probe);
        let mut behaviours = Behaviours::new(&pod);
        let b = behaviours.add(Box::new(|_: &Attempt| Response {
            answer: SUCCESS,
            latency: SimDuration::from_secs(3),
        }));
        behaviours.bind(0, ProbeKind::Liveness, b);
        let mut sim = Simulation::new(
            pod,
            profile.clone(),
            KubeletConfig::default(),
            7,
            behaviours,
        );
        let mut sink = VecSink::default();
        sim.run_until(SimTime::from_secs(60), &mut sink)
            .expect("run");
        // A probe record is written when the probe ends: it began 3 s earlier.
        let starts: Vec<u64> = sink
            .of_kind("probe")
            .map(|r| r.t.as_millis().saturating_sub(3000))
            .collect();
        assert!(
            starts.len() >= 4,
            "{}",
            ctx(&profile, format_args!("{starts:?}"))
        );
        for pair in starts.windows(2) {
            assert_eq!(
                pair[1] - pair[0],
                10_000,
                "{}",
                ctx(&profile, format_args!("{starts:?}"))
            );
        }
    }
}
