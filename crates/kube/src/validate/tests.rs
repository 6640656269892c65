//! Defaulting, validation (with the apiserver's messages) and conversion of pod manifests.

use probesim_core::{Handler, Port, PullPolicy, RestartPolicy, Scheme};

use super::*;

use crate::{manifest, yaml};

fn load(text: &str) -> Result<ValidatedPod, Vec<String>> {
    let node = yaml::parse(text).unwrap();
    let mut m = manifest::read(&node, &FieldPath::root())
        .map_err(|d| d.iter().map(ToString::to_string).collect::<Vec<_>>())?;
    validate(&mut m).map_err(|d| d.iter().map(ToString::to_string).collect())
}

/// A pod with one container `kubia` whose extra lines are `container` (indented 4).
fn pod(container: &str) -> String {
    let mut text = String::from(
            "apiVersion: v1\nkind: Pod\nmetadata: {name: kubia}\nspec:\n  containers:\n  - name: kubia\n    image: luksa/kubia:1.0\n",
        );
    for line in container.lines() {
        text.push_str("    ");
        text.push_str(line);
        text.push('\n');
    }
    text
}

fn errors(container: &str) -> Vec<String> {
    load(&pod(container)).unwrap_err()
}

#[test]
fn defaults_are_the_apiservers() {
    let v = load(&pod(
        "livenessProbe:\n  httpGet: {port: 8080}\n  periodSeconds: 0\n\
             readinessProbe:\n  grpc: {port: 9090}",
    ))
    .unwrap();
    let p = &v.pod;
    assert_eq!(p.namespace, "default");
    assert_eq!(p.restart_policy, RestartPolicy::Always);
    assert_eq!(p.termination_grace_period_seconds, 30);
    assert_eq!(p.pod_ip, DEFAULT_POD_IP);
    assert_eq!(p.uid, PodSpec::new("kubia").uid);
    let c = &p.containers[0];
    assert_eq!(c.pull_policy, PullPolicy::IfNotPresent);
    let live = c.probe(ProbeKind::Liveness).unwrap();
    // P53: 0 and absent both default.
    assert_eq!(
        (
            live.timeout_seconds(),
            live.period_seconds(),
            live.success_threshold(),
            live.failure_threshold(),
            live.initial_delay_seconds()
        ),
        (1, 10, 1, 3, 0)
    );
    // P54
    assert_eq!(
        live.handler(),
        &Handler::HttpGet {
            scheme: Scheme::Http,
            host: None,
            port: Port::Number(8080),
            path: "/".into()
        }
    );
    assert_eq!(
        c.probe(ProbeKind::Readiness).unwrap().handler(),
        &Handler::Grpc {
            port: 9090,
            service: String::new()
        }
    );
}

#[test]
fn image_pull_policy_follows_the_tag() {
    for (image, policy) in [
        ("luksa/kubia", PullPolicy::Always),
        ("luksa/kubia:latest", PullPolicy::Always),
        ("luksa/kubia:1.0", PullPolicy::IfNotPresent),
        ("localhost:5000/kubia", PullPolicy::Always),
        ("kubia@sha256:abcd", PullPolicy::IfNotPresent),
        (
            "kubia:latest@sha256:0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef",
            PullPolicy::Always,
        ),
        // A reference that does not parse has no tag for the defaulting code.
        ("kubia:latest@sha256:abcd", PullPolicy::IfNotPresent),
        ("Nginx", PullPolicy::IfNotPresent),
        ("Registry.Example.com/team/app", PullPolicy::Always),
        (
            "registry.example.com:5000/team/app:latest",
            PullPolicy::Always,
        ),
        ("team/App:latest", PullPolicy::IfNotPresent),
        ("app:la$test", PullPolicy::IfNotPresent),
        ("my_org/my--app", PullPolicy::Always),
        ("my_org/-app", PullPolicy::IfNotPresent),
    ] {
        let text = pod("").replace("luksa/kubia:1.0", image);
        assert_eq!(
            load(&text).unwrap().pod.containers[0].pull_policy,
            policy,
            "{image}"
        );
    }
    let text = pod("imagePullPolicy: Never");
    assert_eq!(
        load(&text).unwrap().pod.containers[0].pull_policy,
        PullPolicy::Never
    );
}

#[test]
fn metadata_status_and_pod_fields_are_used() {
    let text = pod("").replace(
        "metadata: {name: kubia}",
        "metadata: {name: kubia, namespace: prod, uid: abc}\nstatus: {podIP: 10.1.2.3}",
    ) + "  restartPolicy: Never\n  terminationGracePeriodSeconds: 5\n";
    let p = load(&text).unwrap().pod;
    assert_eq!(
        (p.namespace.as_str(), p.uid.as_str(), p.pod_ip.as_str()),
        ("prod", "abc", "10.1.2.3")
    );
    assert_eq!(p.restart_policy, RestartPolicy::Never);
    assert_eq!(p.termination_grace_period_seconds, 5);
}

#[test]
fn negative_probe_numbers_are_rejected() {
    // P55
    let errs = errors(
            "livenessProbe:\n  exec: {command: [\"true\"]}\n  initialDelaySeconds: -1\n  timeoutSeconds: -2\n  periodSeconds: -3\n  failureThreshold: -4",
        );
    assert_eq!(
            errs,
            [
                "spec.containers[0].livenessProbe.initialDelaySeconds: Invalid value: -1: must be greater than or equal to 0",
                "spec.containers[0].livenessProbe.timeoutSeconds: Invalid value: -2: must be greater than or equal to 0",
                "spec.containers[0].livenessProbe.periodSeconds: Invalid value: -3: must be greater than or equal to 0",
                "spec.containers[0].livenessProbe.failureThreshold: Invalid value: -4: must be greater than or equal to 0",
            ]
        );
}

#[test]
fn exactly_one_handler() {
    // P56
    assert_eq!(
        errors("readinessProbe:\n  periodSeconds: 5"),
        ["spec.containers[0].readinessProbe: Required value: must specify a handler type"]
    );
    assert_eq!(
            errors("livenessProbe:\n  exec: {command: [\"true\"]}\n  httpGet: {port: 80}\n  grpc: {port: 9090}"),
            [
                "spec.containers[0].livenessProbe.httpGet: Forbidden: may not specify more than 1 handler type",
                "spec.containers[0].livenessProbe.grpc: Forbidden: may not specify more than 1 handler type",
            ]
        );
}

#[test]
fn handler_fields() {
    // P57
    assert_eq!(
        errors("livenessProbe:\n  exec: {}"),
        ["spec.containers[0].livenessProbe.exec.command: Required value"]
    );
    assert_eq!(
            errors("livenessProbe:\n  httpGet: {port: 80, scheme: FTP}"),
            ["spec.containers[0].livenessProbe.httpGet.scheme: Unsupported value: \"FTP\": supported values: \"HTTP\", \"HTTPS\""]
        );
    assert_eq!(
            errors("livenessProbe:\n  httpGet:\n    port: 80\n    httpHeaders: [{name: X_Bad, value: v}]"),
            ["spec.containers[0].livenessProbe.httpGet.httpHeaders: Invalid value: \"X_Bad\": a valid HTTP header must consist of alphanumeric characters or '-' (e.g. 'X-Header-Name', regex used for validation is '[-A-Za-z0-9]+')"]
        );
    assert_eq!(
            errors("livenessProbe:\n  grpc: {}"),
            ["spec.containers[0].livenessProbe.grpc.port: Invalid value: 0: must be between 1 and 65535, inclusive"]
        );
    assert_eq!(
            errors("livenessProbe:\n  tcpSocket: {port: 70000}"),
            ["spec.containers[0].livenessProbe.tcpSocket.port: Invalid value: 70000: must be between 1 and 65535, inclusive"]
        );
}

#[test]
fn port_names_follow_iana_svc_name() {
    // P58, ≥1.26 wording
    let prefix = "spec.containers[0].livenessProbe.httpGet.port: Invalid value:";
    assert_eq!(
        errors("livenessProbe:\n  httpGet: {port: \"8080\"}"),
        [format!(
            "{prefix} \"8080\": must contain at least one letter (a-z)"
        )]
    );
    assert_eq!(
            errors("livenessProbe:\n  httpGet: {port: -Very--long-port-name}"),
            [
                format!("{prefix} \"-Very--long-port-name\": must be no more than 15 characters"),
                format!("{prefix} \"-Very--long-port-name\": must contain only alpha-numeric characters (a-z, 0-9), and hyphens (-)"),
                format!("{prefix} \"-Very--long-port-name\": must not contain consecutive hyphens"),
                format!("{prefix} \"-Very--long-port-name\": must not begin or end with a hyphen"),
            ]
        );
}

#[test]
fn success_threshold_must_be_one_for_liveness_and_startup() {
    // P59
    assert_eq!(
            errors("livenessProbe:\n  exec: {command: [\"true\"]}\n  successThreshold: 2\nstartupProbe:\n  exec: {command: [\"true\"]}\n  successThreshold: -1\nreadinessProbe:\n  exec: {command: [\"true\"]}\n  successThreshold: 3"),
            [
                "spec.containers[0].livenessProbe.successThreshold: Invalid value: 2: must be 1",
                "spec.containers[0].startupProbe.successThreshold: Invalid value: -1: must be greater than or equal to 0",
                "spec.containers[0].startupProbe.successThreshold: Invalid value: -1: must be 1",
            ]
        );
}

#[test]
fn probe_grace_periods() {
    // P60
    assert_eq!(
            errors("livenessProbe:\n  exec: {command: [\"true\"]}\n  terminationGracePeriodSeconds: 0\nreadinessProbe:\n  exec: {command: [\"true\"]}\n  terminationGracePeriodSeconds: 5"),
            [
                "spec.containers[0].livenessProbe.terminationGracePeriodSeconds: Invalid value: 0: must be greater than 0",
                "spec.containers[0].readinessProbe.terminationGracePeriodSeconds: Invalid value: 5: must not be set for readinessProbes",
            ]
        );
    let v = load(&pod(
        "livenessProbe:\n  exec: {command: [\"true\"]}\n  terminationGracePeriodSeconds: 7",
    ))
    .unwrap();
    assert_eq!(
        v.pod.containers[0]
            .probe(ProbeKind::Liveness)
            .unwrap()
            .termination_grace_period_seconds(),
        Some(7)
    );
}

#[test]
fn init_container_probes_need_restart_policy_always() {
    // P61
    let text = pod("") + "  initContainers:\n  - name: init\n    image: busybox\n    readinessProbe: {exec: {command: [\"true\"]}}\n";
    assert_eq!(
            load(&text).unwrap_err(),
            ["spec.initContainers[0].readinessProbe: Forbidden: may not be set for init containers without restartPolicy=Always"]
        );
    let text = pod("") + "  initContainers:\n  - name: proxy\n    image: envoy:1\n    restartPolicy: Always\n    readinessProbe: {exec: {command: [\"true\"]}}\n";
    let v = load(&text).unwrap();
    assert!(v.init_containers[0].restartable);
    assert!(v.init_containers[0].probe(ProbeKind::Readiness).is_some());
    let text = pod("") + "  initContainers:\n  - name: proxy\n    image: envoy:1\n    restartPolicy: Never\n    livenessProbe: {exec: {command: [\"true\"]}, successThreshold: 2}\n";
    assert_eq!(
            load(&text).unwrap_err(),
            [
                "spec.initContainers[0].restartPolicy: Unsupported value: \"Never\": supported values: \"Always\"",
                "spec.initContainers[0].livenessProbe: Forbidden: may not be set for init containers without restartPolicy=Always",
            ]
        );
}

#[test]
fn pod_level_rules() {
    let text = pod("") + "  restartPolicy: Sometimes\n  terminationGracePeriodSeconds: -1\n";
    assert_eq!(
            load(&text).unwrap_err(),
            ["spec.restartPolicy: Unsupported value: \"Sometimes\": supported values: \"Always\", \"OnFailure\", \"Never\""]
        );
    let text = "apiVersion: v1\nkind: Pod\nmetadata: {name: Kubia}\nspec: {containers: []}\n";
    assert_eq!(
            load(text).unwrap_err(),
            [
                "metadata.name: Invalid value: \"Kubia\": a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')",
                "spec.containers: Required value",
            ]
        );
    let text = "apiVersion: v1\nkind: Pod\nspec: {containers: [{name: a, image: b}]}\n";
    assert_eq!(
        load(text).unwrap_err(),
        ["metadata.name: Required value: name or generateName is required"]
    );
    let text = "apiVersion: v1\nkind: Pod\nmetadata: {generateName: web-}\nspec: {containers: [{name: a, image: b}]}\n";
    let name = load(text).unwrap().pod.name;
    assert!(name.starts_with("web-") && name.len() == 9, "{name}");
}

#[test]
fn container_names_and_images() {
    let text = "apiVersion: v1\nkind: Pod\nmetadata: {name: p}\nspec:\n  containers:\n  - {name: Web, image: x}\n  - {name: a.b, image: x}\n  - {image: x}\n  - {name: x, image: x}\n  - {name: x}\n";
    assert_eq!(
            load(text).unwrap_err(),
            [
                "spec.containers[0].name: Invalid value: \"Web\": a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character (e.g. 'my-name',  or '123-abc', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?')",
                "spec.containers[1].name: Invalid value: \"a.b\": must not contain dots",
                "spec.containers[2].name: Required value",
                "spec.containers[4].image: Required value",
                "spec.containers[4].name: Duplicate value: \"x\"",
            ]
        );
}

#[test]
fn container_ports_and_pull_policy() {
    // A number where a string belongs is a decoding error, reported before validation.
    assert_eq!(
        errors("ports:\n- {name: 8080, containerPort: 8080}"),
        ["spec.containers[0].ports[0].name: expected a string, found 8080"]
    );
    assert_eq!(
            errors("imagePullPolicy: Sometimes\nports:\n- {name: http, containerPort: 0}\n- {name: http, containerPort: 8080, protocol: tcp}\n- {name: \"8080\", containerPort: 70000}"),
            [
                "spec.containers[0].ports[0].containerPort: Required value",
                "spec.containers[0].ports[1].name: Duplicate value: \"http\"",
                "spec.containers[0].ports[1].protocol: Unsupported value: \"tcp\": supported values: \"SCTP\", \"TCP\", \"UDP\"",
                "spec.containers[0].ports[2].name: Invalid value: \"8080\": must contain at least one letter (a-z)",
                "spec.containers[0].ports[2].containerPort: Invalid value: 70000: must be between 1 and 65535, inclusive",
                "spec.containers[0].imagePullPolicy: Unsupported value: \"Sometimes\": supported values: \"Always\", \"IfNotPresent\", \"Never\"",
            ]
        );
}

#[test]
fn named_ports_resolve_like_the_kubelet() {
    // P39
    let v = load(&pod(
            "ports: [{name: http, containerPort: 8080}]\nlivenessProbe: {httpGet: {port: http, path: /healthz, scheme: HTTPS, host: example.com}}\nreadinessProbe: {tcpSocket: {port: metrics}}",
        ))
        .unwrap();
    let c = &v.pod.containers[0];
    assert_eq!(
        c.probe(ProbeKind::Liveness).unwrap().handler(),
        &Handler::HttpGet {
            scheme: Scheme::Https,
            host: Some("example.com".into()),
            port: Port::Number(8080),
            path: "/healthz".into()
        }
    );
    assert_eq!(
        c.probe(ProbeKind::Readiness).unwrap().handler(),
        &Handler::TcpSocket {
            host: None,
            port: Port::Unparsable("metrics".into())
        }
    );
}

#[test]
fn exec_commands_expand_literal_env_values() {
    // P48
    let v = load(&pod(
            "env:\n- {name: FILE, value: /tmp/healthy}\n- {name: FROM, valueFrom: {fieldRef: {fieldPath: status.podIP}}}\nlivenessProbe:\n  exec: {command: [cat, \"$(FILE)\", \"$$(FILE)\", \"$(NOPE)\", \"$(FROM)x\", \"a$b\", \"$(open\", \"end$\"]}",
        ))
        .unwrap();
    assert_eq!(
        v.pod.containers[0]
            .probe(ProbeKind::Liveness)
            .unwrap()
            .handler(),
        &Handler::Exec {
            command: [
                "cat",
                "/tmp/healthy",
                "$(FILE)",
                "$(NOPE)",
                "x",
                "a$b",
                "$(open",
                "end$"
            ]
            .map(String::from)
            .to_vec()
        }
    );
}

#[test]
fn env_names_are_required() {
    assert_eq!(
        errors("env: [{value: x}]"),
        ["spec.containers[0].env[0].name: Required value"]
    );
}

#[test]
fn a_regular_containers_restart_policy_and_rules_are_kept() {
    // ContainerRestartRules (KEP-5307): `ContainerShouldRestart` reads them.
    let v = load(&pod(
        "restartPolicy: Never\nrestartPolicyRules:\n- action: Restart\n  exitCodes: {operator: In, values: [42, 43]}\n- action: Restart\n  exitCodes: {operator: NotIn, values: [0, 1]}",
    ))
    .unwrap();
    let c = &v.pod.containers[0];
    assert_eq!(c.restart_policy, Some(RestartPolicy::Never));
    assert!(!c.restartable, "a regular container is no sidecar");
    assert_eq!(c.restart_rules.len(), 2);
    assert!(c.should_restart(RestartPolicy::Never, 42));
    assert!(c.should_restart(RestartPolicy::Never, 7), "NotIn [0, 1]");
    assert!(!c.should_restart(RestartPolicy::Never, 1));
    assert!(
        !c.should_restart(RestartPolicy::Always, 0),
        "its own Never wins"
    );
    let v = load(&pod("restartPolicy: OnFailure")).unwrap();
    let c = &v.pod.containers[0];
    assert!(c.should_restart(RestartPolicy::Never, 1));
    assert!(!c.should_restart(RestartPolicy::Always, 0));
    assert!(c.restarts_after_probe_kill(RestartPolicy::Never));
}

#[test]
fn restart_policy_rules_are_validated_as_the_api_server_does() {
    assert_eq!(
        errors("restartPolicy: Sometimes"),
        ["spec.containers[0].restartPolicy: Unsupported value: \"Sometimes\": supported values: \"Always\", \"OnFailure\", \"Never\""]
    );
    assert_eq!(
        errors("restartPolicyRules:\n- action: Restart\n  exitCodes: {operator: In, values: [1]}"),
        ["spec.containers[0].restartPolicy: Required value: must be specified when restartPolicyRules are used"]
    );
    assert_eq!(
        errors(
            "restartPolicy: Never\nrestartPolicyRules:\n- action: RestartPod\n  exitCodes: {operator: Equals, values: [1, 1]}\n- action: Restart\n- exitCodes: {values: [2]}"
        ),
        [
            "spec.containers[0].restartPolicyRules[0].action: Unsupported value: \"RestartPod\": supported values: \"Restart\"",
            "spec.containers[0].restartPolicyRules[0].exitCodes.operator: Unsupported value: \"Equals\": supported values: \"In\", \"NotIn\"",
            "spec.containers[0].restartPolicyRules[0].exitCodes.values[1]: Duplicate value: 1",
            "spec.containers[0].restartPolicyRules[1].exitCodes: Required value: must be specified",
            "spec.containers[0].restartPolicyRules[2].action: Required value",
            "spec.containers[0].restartPolicyRules[2].exitCodes.operator: Required value",
        ]
    );
    let many: Vec<String> = (0..256).map(|i| i.to_string()).collect();
    let text = format!(
        "restartPolicy: Never\nrestartPolicyRules:\n- action: Restart\n  exitCodes: {{operator: In, values: [{}]}}",
        many.join(", ")
    );
    assert_eq!(
        errors(&text),
        ["spec.containers[0].restartPolicyRules[0].exitCodes.values: Too many: 256: must have at most 255 items"]
    );
    let rule = "- action: Restart\n  exitCodes: {operator: In, values: [1]}\n";
    let text = format!(
        "restartPolicy: Never\nrestartPolicyRules:\n{}",
        rule.repeat(21)
    );
    assert_eq!(
        errors(&text),
        ["spec.containers[0].restartPolicyRules: Too many: 21: must have at most 20 items"]
    );
    // An init container's rules are not simulated.
    let text = pod("") + "  initContainers:\n  - name: seed\n    image: busybox:1\n    restartPolicyRules: [{action: Restart, exitCodes: {operator: In, values: [1]}}]\n";
    assert_eq!(
        load(&text).unwrap_err(),
        ["spec.initContainers[0].restartPolicyRules: restart rules of init containers (ContainerRestartRules) are not modelled by probesim"]
    );
}

/// A workload of `kind` whose pod spec has one container `web` and `extra` lines.
fn workload(kind: &str, extra: &str) -> String {
    let (api, template) = match kind {
        "Job" => ("batch/v1", "template"),
        "CronJob" => ("batch/v1", "jobTemplate:\n    spec:\n      template"),
        "ReplicationController" => ("v1", "template"),
        _ => ("apps/v1", "template"),
    };
    let indent = if kind == "CronJob" {
        "        "
    } else {
        "    "
    };
    let mut text = format!(
            "apiVersion: {api}\nkind: {kind}\nmetadata: {{name: web}}\nspec:\n  {template}:\n{indent}spec:\n{indent}  containers:\n{indent}  - {{name: web, image: nginx:1.27}}\n"
        );
    for line in extra.lines() {
        text.push_str(indent);
        text.push_str("  ");
        text.push_str(line);
        text.push('\n');
    }
    text
}

#[test]
fn controllers_narrow_the_restart_policy() {
    assert_eq!(
            load(&workload("Deployment", "restartPolicy: Never")).unwrap_err(),
            ["spec.template.spec.restartPolicy: Unsupported value: \"Never\": supported values: \"Always\""]
        );
    // Not a restart policy at all: the pod's message, then the controller's.
    assert_eq!(
            load(&workload("DaemonSet", "restartPolicy: Sometimes")).unwrap_err(),
            [
                "spec.template.spec.restartPolicy: Unsupported value: \"Sometimes\": supported values: \"Always\", \"OnFailure\", \"Never\"",
                "spec.template.spec.restartPolicy: Unsupported value: \"Sometimes\": supported values: \"Always\"",
            ]
        );
    // A Job's template defaults to Always like any pod, which a Job refuses: for
    // validateJobSpec any other policy than OnFailure or Never is a missing one.
    assert_eq!(
            load(&workload("Job", "")).unwrap_err(),
            ["spec.template.spec.restartPolicy: Required value: valid values: \"OnFailure\", \"Never\""]
        );
    assert_eq!(
            load(&workload("CronJob", "")).unwrap_err(),
            ["spec.jobTemplate.spec.template.spec.restartPolicy: Required value: valid values: \"OnFailure\", \"Never\""]
        );
    let job = load(&workload("Job", "restartPolicy: OnFailure")).unwrap();
    assert_eq!(job.pod.restart_policy, RestartPolicy::OnFailure);
    for kind in ["ReplicaSet", "StatefulSet", "ReplicationController"] {
        assert!(load(&workload(kind, "")).is_ok(), "{kind}");
    }
}

#[test]
fn active_deadlines_are_checked_and_forbidden_where_pods_run_for_ever() {
    assert_eq!(
            load(&workload("Deployment", "activeDeadlineSeconds: 30")).unwrap_err(),
            ["spec.template.spec.activeDeadlineSeconds: Forbidden: activeDeadlineSeconds in ReplicaSet is not Supported"]
        );
    assert_eq!(
            load(&workload("StatefulSet", "activeDeadlineSeconds: 30")).unwrap_err(),
            ["spec.template.spec.activeDeadlineSeconds: Forbidden: activeDeadlineSeconds in StatefulSet is not Supported"]
        );
    assert_eq!(
            load(&workload("Job", "restartPolicy: Never\nactiveDeadlineSeconds: 0")).unwrap_err(),
            ["spec.template.spec.activeDeadlineSeconds: Invalid value: 0: must be between 1 and 2147483647, inclusive"]
        );
    assert!(load(&(pod("") + "  activeDeadlineSeconds: 60\n")).is_ok());
}

#[test]
fn workload_errors_use_the_workloads_paths() {
    let text = workload(
        "Deployment",
        "initContainers: [{name: web, image: busybox}]",
    )
    .replace(
        "nginx:1.27}",
        "nginx:1.27, livenessProbe: {exec: {command: [x]}, successThreshold: 2}}",
    );
    assert_eq!(
            load(&text).unwrap_err(),
            [
                "spec.template.spec.containers[0].livenessProbe.successThreshold: Invalid value: 2: must be 1",
                "spec.template.spec.initContainers[0].name: Duplicate value: \"web\"",
            ]
        );
    let long = "a".repeat(53);
    let text = workload("CronJob", "restartPolicy: Never")
        .replace("name: web}", &format!("name: {long}}}"));
    assert_eq!(
        load(&text).unwrap_err(),
        [format!(
            "metadata.name: Invalid value: \"{long}\": must be no more than 52 characters"
        )]
    );
    let text = workload("Deployment", "").replace("metadata: {name: web}\n", "");
    assert_eq!(
        load(&text).unwrap_err(),
        ["metadata.name: Required value: name or generateName is required"]
    );
}

#[test]
fn pods_are_named_as_their_controllers_name_them() {
    let name = |kind: &str, extra: &str| load(&workload(kind, extra)).unwrap().pod.name;
    let d = name("Deployment", "");
    assert!(
        d.starts_with("web-") && d.len() == "web-".len() + 10 + 1 + 5,
        "{d}"
    );
    assert_eq!(name("StatefulSet", ""), "web-0");
    let j = name("Job", "restartPolicy: Never");
    assert!(j.starts_with("web-") && j.len() == 9, "{j}");
    let c = name("CronJob", "restartPolicy: Never");
    assert!(
        c.starts_with("web-29") && c.len() == "web-".len() + 8 + 1 + 5,
        "{c}"
    );
    // Deterministic, and the workload's uid is not the pod's.
    assert_eq!(name("Deployment", ""), d);
    let text = workload("DaemonSet", "").replace("name: web}", "name: web, uid: abc}");
    assert_ne!(load(&text).unwrap().pod.uid, "abc");
}
