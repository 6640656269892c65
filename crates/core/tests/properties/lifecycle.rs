//! Properties of a pod's life beyond its probes: deletion, kubelet restarts, init containers
//! and sidecars.

use super::*;

fn deleted_case() -> impl Strategy<Value = Case> {
    (case(), deletion()).prop_map(|(mut c, d)| {
        c.delete = Some(d);
        c
    })
}

/// A [`Case`] that restarts the kubelet.
fn restarted_case() -> impl Strategy<Value = Case> {
    (case(), kubelet_restart()).prop_map(|(mut c, at)| {
        c.kubelet_restart = Some(at);
        c
    })
}

/// A [`Case`] whose pod has at least one init container.
fn init_case() -> impl Strategy<Value = Case> {
    case_with(profile(), |p| {
        pod_for(p).prop_filter("an init container", |pod| !pod.init_containers.is_empty())
    })
}

/// A [`Case`] whose profile runs sidecars (R58) and whose pod has at least one.
fn sidecar_case() -> impl Strategy<Value = Case> {
    case_with(
        profile().prop_filter("sidecars run", |p| p.gate(Gate::SidecarContainers)),
        |p| {
            pod_for(p).prop_filter("a sidecar", |pod| {
                pod.init_containers.iter().any(|c| c.restartable)
            })
        },
    )
}

proptest! {
    #![proptest_config(config(CASES))]

    /// Once the kubelet has begun terminating a deleted pod, every sync is a terminating one
    /// and no container starts (R17: nothing is restarted while the pod is being deleted); once
    /// the pod object is removed no probe begins and no sync runs (P10, RemovePod).
    #[test]
    fn a_deleted_pod_starts_nothing_and_once_removed_probes_nothing(
        case in deleted_case(),
        horizon in horizon(),
    ) {
        let run = run(&case, horizon);
        let mut deleted: Option<SimTime> = None;
        let mut terminating: Option<SimTime> = None;
        let mut removed: Option<SimTime> = None;
        for (t, seen) in &run.events {
            match *seen {
                Seen::Delete { .. } => deleted = Some(*t),
                Seen::Sync(trigger) if deleted.is_some() => {
                    prop_assert!(
                        removed.is_none(),
                        "t={}: a {:?} sync after the pod was removed", t, trigger
                    );
                    prop_assert!(
                        matches!(trigger, SyncTrigger::Terminating | SyncTrigger::Terminated),
                        "t={}: a {:?} sync of a deleted pod", t, trigger
                    );
                    terminating.get_or_insert(*t);
                }
                Seen::Start { c, .. } => {
                    prop_assert!(
                        terminating.is_none(),
                        "t={}: container {} started while the pod terminates (since {:?})",
                        t, c, terminating
                    );
                }
                Seen::Deleted => {
                    prop_assert!(deleted.is_some(), "t={}: removed without a deletion", t);
                    removed = Some(*t);
                }
                Seen::Probe { c, probe, began, .. } => {
                    if let Some(since) = removed {
                        prop_assert!(
                            began < since || (began == since && began < *t),
                            "t={}: container {} {} probe began at {}, after the pod was removed \
                             at {}",
                            t, c, probe, began, since
                        );
                    }
                }
                _ => {}
            }
        }
    }

    /// A deleted pod is gone in the end: once the deletion had time to finish, the pod object
    /// is removed and no container of it runs, in the status or in the runtime. From 1.27 its
    /// phase is Succeeded or Failed — Succeeded exactly when every regular container terminated
    /// with 0 (R43, podIsTerminal; `TerminatePod`). A pod already Succeeded or Failed when
    /// deleted stays as it was.
    #[test]
        fn a_deleted_pod_ends_succeeded_or_failed_with_every_container_stopped(
        case in deleted_case(),
        horizon in horizon(),
    ) {
        let run = run(&case, horizon);
        let (at, grace) = case.delete.expect("a deletion");
        let delete = run.events.iter().find_map(|(t, s)| match s {
            Seen::Delete { grace } => Some((*t, *grace)),
            _ => None,
        });
        let Some((t, resolved)) = delete else {
            let terminal_before = run.events.iter().any(|(t, s)| {
                *t <= at && matches!(s, Seen::Phase(p) if p.is_terminal())
            });
            prop_assert!(
                at > horizon || terminal_before,
                "the deletion at {} never happened (phase {:?})", at, run.status.phase
            );
            return Ok(());
        };
        prop_assert_eq!(t, at);
        let pod_grace = u64::try_from(case.pod.termination_grace_period_seconds).unwrap_or(0);
        prop_assert_eq!(resolved, grace.unwrap_or(SimDuration::from_secs(pod_grace)));
        if t.saturating_add(SETTLE) > horizon {
            return Ok(());
        }
        let status = &run.status;
        prop_assert!(status.removed, "not removed {} after the deletion at {}", SETTLE, t);
        prop_assert!(run.events.iter().any(|(_, s)| *s == Seen::Deleted));
        prop_assert_eq!(status.deletion_timestamp, Some(t));
        if case.profile.terminal_phase_forcing {
            prop_assert!(
                status.phase.is_terminal(),
                "phase {:?} after the deletion at {}", status.phase, t
            );
            let completed = status
                .containers
                .iter()
                .all(|s| matches!(s.state, ContainerState::Terminated(x) if x.exit_code == 0));
            prop_assert_eq!(
                status.phase == Phase::Succeeded, completed,
                "phase {:?} with regular containers {:?}", status.phase, status.containers
            );
        }
        let n = case.pod.container_count();
        let alive = running_after(&run.events, n);
        for (c, running) in alive.into_iter().enumerate() {
            prop_assert!(!running, "container {} still runs after the deletion at {}", c, t);
            let shown = status.container(c);
            prop_assert!(!is_running(shown), "container {} shown running: {:?}", c, shown);
        }
    }

    /// A deletion's kills use the deletion's grace period (R22 step 1, raised to 2 s, R21),
    /// except that a sidecar's wait for its turn comes off it (R24, R61).
    #[test]
    fn deletion_kills_use_the_deletions_grace_period(
        case in deleted_case(),
        horizon in horizon(),
    ) {
        let run = run(&case, horizon);
        let mut grace: Option<SimDuration> = None;
        let min = SimDuration::from_secs(2);
        for (t, seen) in &run.events {
            match *seen {
                Seen::Delete { grace: g } => grace = Some(g.max(min)),
                Seen::Kill { c, reason: KillReason::Deletion, grace: g } => {
                    let Some(full) = grace else {
                        prop_assert!(false, "t={}: a deletion kill before the deletion", t);
                        continue;
                    };
                    if is_sidecar(&case.pod, c) {
                        prop_assert!(
                            min <= g && g <= full,
                            "t={}: sidecar {} killed with {} of {}", t, c, g, full
                        );
                    } else {
                        prop_assert_eq!(g, full, "t={}: container {} killed with {}", t, c, g);
                    }
                }
                _ => {}
            }
        }
    }

    /// From the first sync of a terminating pod on, the liveness and startup probes of its
    /// regular containers stop (P12, ≥1.23): none begins afterwards.
    #[test]
    fn a_terminating_pod_stops_liveness_and_startup_probes(
        case in deleted_case().prop_filter("1.23 or later", |c| {
            c.profile.stop_liveness_on_termination
        }),
        horizon in horizon(),
    ) {
        let run = run(&case, horizon);
        let mut deleted = false;
        let mut since: Option<SimTime> = None;
        for (t, seen) in &run.events {
            match *seen {
                Seen::Delete { .. } => deleted = true,
                Seen::Sync(_) if deleted => {
                    since.get_or_insert(*t);
                }
                Seen::Probe { c, probe, began, .. } => {
                    let Some(since) = since else { continue };
                    if case.pod.is_init(c) || probe == ProbeKind::Readiness {
                        continue;
                    }
                    prop_assert!(
                        began < since || (began == since && began < *t),
                        "t={}: container {} {} probe began at {}, after termination began at {}",
                        t, c, probe, began, since
                    );
                }
                _ => {}
            }
        }
    }

    /// A kubelet restart stops no container: each container running just before it keeps its
    /// process (it exits at that instant only if it was being killed or its own exit was due
    /// then), and the new kubelet's status shows it running with the same restartCount (R36,
    /// P45). restartCount never decreases (R36).
    #[test]
    fn a_kubelet_restart_keeps_running_containers_and_their_restart_counts(
        case in restarted_case(),
        horizon in horizon(),
    ) {
        let run = run(&case, horizon);
        let n = case.pod.container_count();
        let mut alive = vec![false; n];
        let mut since = vec![SimTime::ZERO; n];
        let mut count = vec![0_u32; n];
        let mut killed = vec![false; n];
        let mut restart: Option<(SimTime, Vec<bool>)> = None;
        let mut api = vec![ContainerStatus::default(); n];
        for (i, (t, seen)) in run.events.iter().enumerate() {
            match *seen {
                Seen::KubeletRestart => restart = Some((*t, alive.clone())),
                Seen::Start { c, restart_count } => {
                    (alive[c], since[c], count[c], killed[c]) = (true, *t, restart_count, false);
                }
                Seen::Kill { c, .. } => killed[c] = true,
                Seen::Exit { c, .. } => {
                    if kept_through(restart.as_ref(), *t, c) && alive[c] {
                        let due = case
                            .pod
                            .container(c)
                            .app
                            .exit
                            .is_some_and(|e| since[c].saturating_add(e.after) == *t);
                        prop_assert!(
                            killed[c] || due,
                            "t={}: container {} exited at the kubelet restart", t, c
                        );
                    }
                    alive[c] = false;
                }
                Seen::Status { c, status } => {
                    prop_assert!(
                        status.restart_count >= api[c].restart_count,
                        "t={}: restartCount of container {} went from {} to {}",
                        t, c, api[c].restart_count, status.restart_count
                    );
                    api[c] = status;
                }
                _ => {}
            }
            let instant_ends = run.events.get(i + 1).is_none_or(|(next, _)| next > t);
            if !instant_ends {
                continue;
            }
            for c in 0..n {
                if kept_through(restart.as_ref(), *t, c) && alive[c] {
                    prop_assert!(
                        is_running(&api[c]) && api[c].restart_count == count[c],
                        "t={}: container {} (restartCount {}) shown as {:?} after the restart",
                        t, c, count[c], api[c]
                    );
                }
            }
        }
    }

    /// Regular init containers run one at a time and in order, before any regular container:
    /// one starts only while no other runs, after every one before it exited with 0, and never
    /// once a regular container has started; and no regular container starts before every
    /// regular init container has exited with 0 (R18).
    #[test]
    fn regular_init_containers_run_one_at_a_time_in_order_before_the_app(
        case in init_case(),
        horizon in horizon(),
    ) {
        let run = run(&case, horizon);
        let pod = &case.pod;
        let n = pod.container_count();
        let inits: Vec<usize> = (0..pod.init_containers.len())
            .filter(|&c| is_regular_init(pod, c))
            .collect();
        let mut alive = vec![false; n];
        let mut last_exit: Vec<Option<i32>> = vec![None; n];
        let mut app_started = false;
        for (t, seen) in &run.events {
            match *seen {
                Seen::Start { c, .. } if is_regular_init(pod, c) => {
                    prop_assert!(
                        !app_started,
                        "t={}: init container {} started after the app", t, c
                    );
                    for &j in &inits {
                        prop_assert!(
                            j == c || !alive[j],
                            "t={}: init containers {} and {} run together", t, c, j
                        );
                        if j < c {
                            prop_assert_eq!(
                                last_exit[j], Some(0),
                                "t={}: init container {} started before {} completed", t, c, j
                            );
                        }
                    }
                }
                Seen::Start { c, .. } if !pod.is_init(c) => {
                    for &j in &inits {
                        prop_assert!(
                            !alive[j] && last_exit[j] == Some(0),
                            "t={}: container {} started before init container {} completed", t, c, j
                        );
                    }
                    app_started = true;
                }
                _ => {}
            }
            match *seen {
                Seen::Start { c, .. } => alive[c] = true,
                Seen::Exit { c, code } => (alive[c], last_exit[c]) = (false, Some(code)),
                _ => {}
            }
        }
    }

    /// A sidecar that exits while the pod goes on is started again, or refused by back-off,
    /// whatever the pod's restartPolicy (R60, R61): within a few minutes comes a start or a
    /// back-off for it, unless in the meantime the pod is deleted, killed as a whole, or ends.
    #[test]
    fn a_sidecar_is_restarted_whatever_the_restart_policy(
        case in sidecar_case(),
        horizon in horizon(),
    ) {
        let run = run(&case, horizon);
        let n = case.pod.container_count();
        // The pod ends (or is killed as a whole): a sidecar need not come back.
        let ends = |s: &Seen| match *s {
            Seen::Phase(p) => p.is_terminal(),
            Seen::Delete { .. } => true,
            Seen::Kill { reason, .. } => {
                matches!(reason, KillReason::Unknown | KillReason::Deletion)
            }
            _ => false,
        };
        let mut ended = false;
        let mut killed_with_pod = vec![false; n];
        for (i, (t, seen)) in run.events.iter().enumerate() {
            ended |= ends(seen);
            match *seen {
                Seen::Start { c, .. } => killed_with_pod[c] = false,
                Seen::Kill { c, reason: KillReason::Unknown | KillReason::Deletion, .. } => {
                    killed_with_pod[c] = true;
                }
                Seen::Exit { c, .. } if is_sidecar(&case.pod, c) && !killed_with_pod[c] => {
                    let window = t.saturating_add(SETTLE);
                    if ended || window > horizon {
                        continue;
                    }
                    let next = run.events[i + 1..]
                        .iter()
                        .take_while(|(u, _)| *u <= window)
                        .find(|(_, s)| {
                            ends(s)
                                || matches!(*s, Seen::Start { c: x, .. } if x == c)
                                || matches!(*s, Seen::BackOff { c: x, .. } if x == c)
                        });
                    prop_assert!(
                        next.is_some(),
                        "t={}: sidecar {} exited under {:?} and was not restarted by {}",
                        t, c, case.pod.restart_policy, window
                    );
                }
                _ => {}
            }
        }
    }

    /// When the whole pod is killed (R15, R61) or deleted, every running container's kill
    /// begins at the same instant (the kubelet stops them all at once; only a sidecar's signal
    /// waits for its turn): at a sidecar's kill, every regular container and every later
    /// sidecar that still runs has been killed at that instant, just before.
    #[test]
    fn a_pod_kill_begins_every_container_kill_at_once(
        case in sidecar_case(),
        horizon in horizon(),
    ) {
        let run = run(&case, horizon);
        let pod = &case.pod;
        let n = pod.container_count();
        let mut alive = vec![false; n];
        let mut killed_at: Vec<Option<SimTime>> = vec![None; n];
        for (t, seen) in &run.events {
            match *seen {
                Seen::Start { c, .. } => alive[c] = true,
                Seen::Exit { c, .. } => alive[c] = false,
                Seen::Kill { c, reason: KillReason::Unknown | KillReason::Deletion, .. }
                    if is_sidecar(pod, c) =>
                {
                    for other in c + 1..n {
                        prop_assert!(
                            !alive[other] || killed_at[other] == Some(*t),
                            "t={}: sidecar {} killed while container {} runs on unkilled", t, c, other
                        );
                    }
                    killed_at[c] = Some(*t);
                }
                Seen::Kill { c, .. } => killed_at[c] = Some(*t),
                _ => {}
            }
        }
    }

    /// In a pod kill a sidecar outlives what it waits for: it exits no earlier than the regular
    /// containers and the later sidecars, unless its own grace period ran out first (R24, R61:
    /// the signal waits for its turn at most for what is left of the grace period) or its
    /// process ends by itself. (1.28 has no such ordering, and a kubelet restart forgets the
    /// kill: the new kubelet may start a sidecar again while the old kill runs its course.)
    #[test]
    fn sidecars_exit_after_what_they_wait_for(
        case in sidecar_case().prop_filter("no kubelet restart", |c| c.kubelet_restart.is_none()),
        horizon in horizon(),
    ) {
        let run = run(&case, horizon);
        let pod = &case.pod;
        let n = pod.container_count();
        let mut alive = vec![false; n];
        // A sidecar's kill in a pod kill: when its grace period ends, counted from the kill.
        let mut patience: Vec<Option<SimTime>> = vec![None; n];
        for (t, seen) in &run.events {
            match *seen {
                Seen::Start { c, .. } => alive[c] = true,
                // A grace period of 2 s may be the floor of a zero one, which waits for nothing.
                Seen::Kill { c, grace, reason: KillReason::Unknown | KillReason::Deletion }
                    if is_sidecar(pod, c)
                        && case.profile.sidecar_termination_ordering
                        && pod.container(c).app.exit.is_none()
                        && grace > SimDuration::from_secs(2) =>
                {
                    // A kill does not cancel an earlier one's deadline (a kubelet restart can
                    // kill again a container that is already being stopped).
                    let limit = t.saturating_add(grace);
                    patience[c] = Some(patience[c].map_or(limit, |p| p.min(limit)));
                }
                Seen::Exit { c, .. } => {
                    alive[c] = false;
                    if let Some(limit) = patience[c].take() {
                        if *t < limit {
                            // What it waits for: the regular containers and the later sidecars
                            // (regular init containers are nobody's prerequisite).
                            let waited_for = (c + 1..n)
                                .filter(|&o| !pod.is_init(o) || is_sidecar(pod, o));
                            for other in waited_for {
                                prop_assert!(
                                    !alive[other],
                                    "t={}: sidecar {} exited while container {} still runs", t, c, other
                                );
                            }
                        }
                    }
                }
                _ => {}
            }
        }
    }

    /// A pod that reached Succeeded or Failed keeps no container running: the kubelet kills
    /// what is left (R45: SyncTerminatingPod, ≥1.22), sidecars included (R61, R62).
    #[test]
        fn a_terminal_pod_keeps_no_container_running(case in case(), horizon in horizon()) {
        let run = run(&case, horizon);
        let terminal = run.events.iter().find_map(|(t, s)| match s {
            Seen::Phase(p) if p.is_terminal() => Some((*t, *p)),
            _ => None,
        });
        let Some((t, phase)) = terminal else { return Ok(()) };
        if t.saturating_add(SETTLE) > horizon {
            return Ok(());
        }
        let alive = running_after(&run.events, case.pod.container_count());
        for (c, running) in alive.iter().enumerate() {
            prop_assert!(!running, "container {} still runs in a pod {:?} since {}", c, phase, t);
        }
    }
}
