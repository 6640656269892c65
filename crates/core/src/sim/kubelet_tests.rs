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

use super::worker::{DoProbe, Lifecycle};
use super::*;
use crate::behaviour::Answer;
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
    w: WorkerId,
    c: ContainerId,
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
        let c = ContainerId::new(c);
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
        let step = self.sim.do_probe(self.w, &mut out);
        match step {
            DoProbe::Continue => true,
            DoProbe::Stop => false,
            DoProbe::InFlight => panic!("the fake prober answers at once"),
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
            let w = sim.worker_of(ContainerId::new(0), kind).expect("worker");
            let id = sim.status.view[ContainerId::new(0)]
                .id
                .expect("the container is running");
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

/// Runs what is due at the current instant: stopped workers notice at their wait (P13) and exit
/// (P20), like `waitForWorkerExit`.
fn settle(sim: &mut Simulation, sink: &mut VecSink) {
    let now = sim.now();
    sim.run_until(now, sink).expect("run");
}

mod manager;
mod prober;
