//! Reading a manifest's fields into the types of [`super`], with strict decoding's errors: the
//! fields probesim reads, the real fields it accepts and ignores, per object and workload kind.

use probesim_core::ProbeKind;

use crate::decode::{self, Diags};
use crate::error::Diagnostic;
use crate::field_path::FieldPath;
use crate::workload::WorkloadKind;
use crate::yaml::{Mark, Node, Value};

use super::{
    At, ContainerManifest, EnvManifest, ExecManifest, ExitCodesManifest, GrpcManifest,
    HeaderManifest, HttpGetManifest, IntOrString, Metadata, PodManifest, PodSpecManifest,
    PortManifest, PreStopManifest, ProbeManifest, RestartRuleManifest, TcpSocketManifest,
};

pub(super) const OBJECT_FIELDS: &[&str] = &["apiVersion", "kind", "metadata", "spec", "status"];

/// The fields of a workload's spec besides its pod template: accepted and not read.
pub(super) fn workload_spec_ignored(kind: WorkloadKind) -> &'static [&'static str] {
    match kind {
        WorkloadKind::Pod => &[],
        WorkloadKind::Deployment => &[
            "replicas",
            "selector",
            "strategy",
            "minReadySeconds",
            "revisionHistoryLimit",
            "paused",
            "progressDeadlineSeconds",
            "rollbackTo",
        ],
        WorkloadKind::ReplicaSet | WorkloadKind::ReplicationController => {
            &["replicas", "minReadySeconds", "selector"]
        }
        WorkloadKind::StatefulSet => &[
            "replicas",
            "selector",
            "volumeClaimTemplates",
            "serviceName",
            "podManagementPolicy",
            "updateStrategy",
            "revisionHistoryLimit",
            "minReadySeconds",
            "persistentVolumeClaimRetentionPolicy",
            "ordinals",
        ],
        WorkloadKind::DaemonSet => &[
            "selector",
            "updateStrategy",
            "minReadySeconds",
            "revisionHistoryLimit",
            "templateGeneration",
        ],
        WorkloadKind::Job => JOB_SPEC_IGNORED,
        WorkloadKind::CronJob => &[
            "schedule",
            "timeZone",
            "startingDeadlineSeconds",
            "concurrencyPolicy",
            "suspend",
            "successfulJobsHistoryLimit",
            "failedJobsHistoryLimit",
        ],
    }
}

pub(super) const JOB_SPEC_IGNORED: &[&str] = &[
    "parallelism",
    "completions",
    "activeDeadlineSeconds",
    "podFailurePolicy",
    "successPolicy",
    "backoffLimit",
    "backoffLimitPerIndex",
    "maxFailedIndexes",
    "selector",
    "manualSelector",
    "ttlSecondsAfterFinished",
    "completionMode",
    "suspend",
    "podReplacementPolicy",
    "managedBy",
];

pub(super) const TEMPLATE_FIELDS: &[&str] = &["metadata", "spec"];

pub(super) const METADATA_FIELDS: &[&str] = &["name", "generateName", "namespace", "uid"];

pub(super) const METADATA_IGNORED: &[&str] = &[
    "selfLink",
    "resourceVersion",
    "generation",
    "creationTimestamp",
    "deletionTimestamp",
    "deletionGracePeriodSeconds",
    "labels",
    "annotations",
    "ownerReferences",
    "finalizers",
    "managedFields",
];

pub(super) const POD_SPEC_FIELDS: &[&str] = &[
    "containers",
    "initContainers",
    "restartPolicy",
    "terminationGracePeriodSeconds",
    "activeDeadlineSeconds",
    "hostNetwork",
    "readinessGates",
];

pub(super) const POD_SPEC_IGNORED: &[&str] = &[
    "volumes",
    "ephemeralContainers",
    "dnsPolicy",
    "nodeSelector",
    "serviceAccountName",
    "serviceAccount",
    "automountServiceAccountToken",
    "nodeName",
    "hostPID",
    "hostIPC",
    "shareProcessNamespace",
    "securityContext",
    "imagePullSecrets",
    "hostname",
    "subdomain",
    "affinity",
    "schedulerName",
    "tolerations",
    "hostAliases",
    "priorityClassName",
    "priority",
    "dnsConfig",
    "runtimeClassName",
    "enableServiceLinks",
    "preemptionPolicy",
    "overhead",
    "topologySpreadConstraints",
    "setHostnameAsFQDN",
    "os",
    "hostUsers",
    "schedulingGates",
    "resourceClaims",
    "resources",
    "hostnameOverride",
    "workloadRef",
];

pub(super) const STATUS_FIELDS: &[&str] = &["podIP"];

pub(super) const STATUS_IGNORED: &[&str] = &[
    "phase",
    "conditions",
    "message",
    "reason",
    "nominatedNodeName",
    "hostIP",
    "hostIPs",
    "podIPs",
    "startTime",
    "initContainerStatuses",
    "containerStatuses",
    "ephemeralContainerStatuses",
    "qosClass",
    "resize",
    "resourceClaimStatuses",
    "observedGeneration",
    "extendedResourceClaimStatus",
];

pub(super) const CONTAINER_FIELDS: &[&str] = &[
    "name",
    "image",
    "imagePullPolicy",
    "ports",
    "env",
    "livenessProbe",
    "readinessProbe",
    "startupProbe",
    "restartPolicy",
    "restartPolicyRules",
    "lifecycle",
];

pub(super) const LIFECYCLE_FIELDS: &[&str] = &["preStop"];

pub(super) const RESTART_RULE_FIELDS: &[&str] = &["action", "exitCodes"];

pub(super) const EXIT_CODES_FIELDS: &[&str] = &["operator", "values"];

pub(super) const LIFECYCLE_IGNORED: &[&str] = &["postStart", "stopSignal"];

pub(super) const PRE_STOP_FIELDS: &[&str] = &["sleep"];

pub(super) const PRE_STOP_IGNORED: &[&str] = &["exec", "httpGet", "tcpSocket"];

pub(super) const SLEEP_FIELDS: &[&str] = &["seconds"];

pub(super) const CONTAINER_IGNORED: &[&str] = &[
    "command",
    "args",
    "workingDir",
    "envFrom",
    "resources",
    "resizePolicy",
    "volumeMounts",
    "volumeDevices",
    "terminationMessagePath",
    "terminationMessagePolicy",
    "securityContext",
    "stdin",
    "stdinOnce",
    "tty",
];

pub(super) const PORT_FIELDS: &[&str] = &["name", "containerPort", "hostPort", "protocol"];

pub(super) const PORT_IGNORED: &[&str] = &["hostIP"];

pub(super) const ENV_FIELDS: &[&str] = &["name", "value"];

pub(super) const ENV_IGNORED: &[&str] = &["valueFrom"];

pub(super) const PROBE_FIELDS: &[&str] = &[
    "exec",
    "httpGet",
    "tcpSocket",
    "grpc",
    "initialDelaySeconds",
    "timeoutSeconds",
    "periodSeconds",
    "successThreshold",
    "failureThreshold",
    "terminationGracePeriodSeconds",
];

pub(super) const EXEC_FIELDS: &[&str] = &["command"];

pub(super) const HTTP_GET_FIELDS: &[&str] = &["path", "port", "host", "scheme", "httpHeaders"];

pub(super) const HEADER_FIELDS: &[&str] = &["name", "value"];

pub(super) const TCP_SOCKET_FIELDS: &[&str] = &["port", "host"];

pub(super) const GRPC_FIELDS: &[&str] = &["port", "service"];

/// Reads the manifest of the pod to simulate: a Pod, or a workload with a pod template.
/// `path` is where problems are reported (the root path for the apiserver's notation,
/// `spec.template.spec.containers[0]…`).
///
/// # Errors
/// Every type error and unknown field, a missing or unsupported `kind`, and an `apiVersion`
/// the kind is not served under.
pub fn read(node: &Node, path: &FieldPath) -> Result<PodManifest, Vec<Diagnostic>> {
    let mut d = Diags::new();
    let manifest = read_object(&mut d, node, path);
    // Report decoding problems in document order.
    d.sort_by_key(|x| x.mark);
    match manifest {
        Some(m) if d.is_empty() => Ok(m),
        _ => Err(d),
    }
}

pub(super) fn opt_string(
    d: &mut Diags,
    node: Option<&Node>,
    path: &FieldPath,
) -> Option<At<String>> {
    let node = node?;
    decode::string(d, node, path).map(|v| At::new(v, node.mark))
}

pub(super) fn opt_int32(d: &mut Diags, node: Option<&Node>, path: &FieldPath) -> Option<At<i64>> {
    let node = node?;
    decode::int32(d, node, path).map(|v| At::new(v, node.mark))
}

pub(super) fn opt_int64(d: &mut Diags, node: Option<&Node>, path: &FieldPath) -> Option<At<i64>> {
    let node = node?;
    decode::int64(d, node, path).map(|v| At::new(v, node.mark))
}

pub(super) fn opt_int_or_string(
    d: &mut Diags,
    node: Option<&Node>,
    path: &FieldPath,
) -> Option<At<IntOrString>> {
    let node = node?;
    let value = match node.value() {
        Value::Str(s) => IntOrString::Str(s.to_owned()),
        Value::Int(_) => IntOrString::Int(decode::int32(d, node, path)?),
        _ => {
            decode::type_error(d, node, path, "an integer or a string");
            return None;
        }
    };
    Some(At::new(value, node.mark))
}

/// The kind of an object: `kind`, checked against the kinds probesim simulates.
pub(super) fn read_kind(
    d: &mut Diags,
    f: &decode::Fields<'_>,
    path: &FieldPath,
) -> Option<WorkloadKind> {
    let p = path.child("kind");
    let quoted: Vec<String> = WorkloadKind::ALL
        .iter()
        .map(|k| format!("{:?}", k.name()))
        .collect();
    let Some(n) = f.get("kind") else {
        decode::report(
            d,
            &p,
            Some(f.mark),
            format!("missing field, expected one of {}", quoted.join(", ")),
        );
        return None;
    };
    let Some(text) = n.as_str() else {
        decode::type_error(d, n, &p, "a kind like \"Pod\" or \"Deployment\"");
        return None;
    };
    if let Some(kind) = WorkloadKind::from_kind(text) {
        return Some(kind);
    }
    let hint = match decode::suggest(text, WorkloadKind::ALL.iter().map(|k| k.name())) {
        Some(s) => format!("; did you mean {s:?}?"),
        None => String::new(),
    };
    decode::report(
        d,
        &p,
        Some(n.mark),
        format!(
            "unsupported kind {text:?}: probesim simulates the pod of a {}{hint}",
            WorkloadKind::list()
        ),
    );
    None
}

/// The CronJob API version that releases before 1.21 serve (and 1.21–1.24 still do).
pub const BETA_CRON_JOB: &str = "batch/v1beta1";

pub(super) fn read_object(d: &mut Diags, node: &Node, path: &FieldPath) -> Option<PodManifest> {
    let f = decode::fields(d, node, path, OBJECT_FIELDS, &[])?;
    // `apiVersion` is reported before `kind`, as they are written, but checked against it.
    let mut kind_problems = Diags::new();
    let kind = read_kind(&mut kind_problems, &f, path);
    let p = path.child("apiVersion");
    match (f.get("apiVersion"), kind) {
        (None, Some(kind)) => decode::report(
            d,
            &p,
            Some(f.mark),
            format!("missing field, expected {:?}", kind.api_version()),
        ),
        (None, None) => decode::report(d, &p, Some(f.mark), "missing field"),
        (Some(n), Some(WorkloadKind::CronJob)) if n.as_str() == Some(BETA_CRON_JOB) => {}
        (Some(n), Some(kind)) if n.as_str() != Some(kind.api_version()) => {
            // As kubectl says it of a version the API server does not serve.
            let message = match n.as_str() {
                Some(version) => format!(
                    "no matches for kind {:?} in version {version:?} (expected {:?})",
                    kind.name(),
                    kind.api_version()
                ),
                None => format!("expected {:?}, found {}", kind.api_version(), n.describe()),
            };
            decode::report(d, &p, Some(n.mark), message);
        }
        (Some(n), None) if n.as_str().is_none() => {
            decode::type_error(d, n, &p, "a string like \"v1\"");
        }
        (Some(_), _) => {}
    }
    d.extend(kind_problems);
    let kind = kind?;
    let metadata = read_metadata(d, f.get("metadata"), f.mark, &path.child("metadata"));
    let spec_path = path.child("spec");
    let (labels, spec) = if kind == WorkloadKind::Pod {
        let labels = f
            .get("metadata")
            .map_or_else(Vec::new, |md| read_labels(d, md, &path.child("metadata")));
        (labels, read_spec(d, f.get("spec"), f.mark, &spec_path))
    } else {
        read_workload_spec(d, kind, f.get("spec"), f.mark, &spec_path)?
    };
    let pod_ip = match f.get("status") {
        Some(status) if kind == WorkloadKind::Pod => {
            let sp = path.child("status");
            let sf = decode::fields(d, status, &sp, STATUS_FIELDS, STATUS_IGNORED)?;
            opt_string(d, sf.get("podIP"), &sp.child("podIP"))
        }
        // A workload's status says nothing about its pods' addresses.
        _ => None,
    };
    let (metadata, spec) = (metadata?, spec?);
    let beta_cron_job = f
        .get("apiVersion")
        .filter(|n| kind == WorkloadKind::CronJob && n.as_str() == Some(BETA_CRON_JOB))
        .map(|n| n.mark);
    Some(PodManifest {
        mark: f.mark,
        kind,
        metadata,
        labels,
        spec,
        pod_ip,
        beta_cron_job,
    })
}

/// What a pod template gives: its labels and its pod spec (`None` when the spec has errors).
pub(super) type TemplateParts = (Vec<(String, String)>, Option<PodSpecManifest>);

/// A workload's `spec`: its pod template (through the job template of a CronJob), returning
/// the template's labels and pod spec.
pub(super) fn read_workload_spec(
    d: &mut Diags,
    kind: WorkloadKind,
    node: Option<&Node>,
    parent: Mark,
    path: &FieldPath,
) -> Option<TemplateParts> {
    let Some(node) = node else {
        return Some((
            Vec::new(),
            read_spec(d, None, parent, &kind.pod_spec_path()),
        ));
    };
    let (known, ignored): (&[&str], &[&str]) = if kind == WorkloadKind::CronJob {
        (&["jobTemplate"], workload_spec_ignored(kind))
    } else {
        (&["template"], workload_spec_ignored(kind))
    };
    let before = d.len();
    let f = decode::fields(d, node, path, known, ignored)?;
    // A pod's spec written straight under the workload's spec: say where it goes.
    for problem in &mut d[before..] {
        let misplaced = POD_SPEC_FIELDS
            .iter()
            .chain(POD_SPEC_IGNORED)
            .any(|field| problem.message == format!("unknown field {field:?}"));
        if misplaced {
            problem.message.push_str(&format!(
                " (a {kind}'s pod spec goes under {})",
                kind.pod_spec_path()
            ));
        }
    }
    let mut pod_failure_policy = None;
    let (template, template_path, template_parent) = if kind == WorkloadKind::CronJob {
        let jp = path.child("jobTemplate");
        match f.get("jobTemplate") {
            None => (None, jp.child("spec").child("template"), f.mark),
            Some(job_template) => {
                let jf = decode::fields(d, job_template, &jp, TEMPLATE_FIELDS, &[])?;
                // The job template's metadata is accepted as it is.
                let jsp = jp.child("spec");
                match jf.get("spec") {
                    None => (None, jsp.child("template"), jf.mark),
                    Some(job_spec) => {
                        let sf =
                            decode::fields(d, job_spec, &jsp, &["template"], JOB_SPEC_IGNORED)?;
                        pod_failure_policy = sf.get("podFailurePolicy").map(|n| n.mark);
                        (sf.get("template"), jsp.child("template"), sf.mark)
                    }
                }
            }
        }
    } else {
        if kind == WorkloadKind::Job {
            pod_failure_policy = f.get("podFailurePolicy").map(|n| n.mark);
        }
        (f.get("template"), path.child("template"), f.mark)
    };
    let Some(template) = template else {
        return Some((
            Vec::new(),
            read_spec(d, None, template_parent, &template_path.child("spec")),
        ));
    };
    let tf = decode::fields(d, template, &template_path, TEMPLATE_FIELDS, &[])?;
    let mut labels = Vec::new();
    if let Some(md) = tf.get("metadata") {
        let mp = template_path.child("metadata");
        let known: Vec<&str> = METADATA_FIELDS
            .iter()
            .chain(METADATA_IGNORED)
            .copied()
            .collect();
        decode::fields(d, md, &mp, &known, &[])?;
        labels = read_labels(d, md, &mp);
    }
    let spec = read_spec(d, tf.get("spec"), tf.mark, &template_path.child("spec")).map(|s| {
        PodSpecManifest {
            pod_failure_policy,
            ..s
        }
    });
    Some((labels, spec))
}

/// `metadata.labels`: they tell which Services select the pod. A value that is not a string
/// (an unquoted `true` or `8080`) is an error, as the API server's decoding makes it.
pub(super) fn read_labels(
    d: &mut Diags,
    metadata: &Node,
    path: &FieldPath,
) -> Vec<(String, String)> {
    let Some(entries) = metadata.get("labels").and_then(Node::as_map) else {
        return Vec::new();
    };
    let mut labels = Vec::new();
    for (k, v) in entries {
        match v.as_str() {
            Some(value) => labels.push((k.text.clone(), value.to_owned())),
            None if v.is_null() => labels.push((k.text.clone(), String::new())),
            None => decode::type_error(
                d,
                v,
                &path.child("labels").key(&k.text),
                "a string (quote it)",
            ),
        }
    }
    labels
}

pub(super) fn read_metadata(
    d: &mut Diags,
    node: Option<&Node>,
    parent: Mark,
    path: &FieldPath,
) -> Option<Metadata> {
    let Some(node) = node else {
        return Some(Metadata {
            mark: parent,
            name: None,
            generate_name: None,
            namespace: None,
            uid: None,
        });
    };
    let f = decode::fields(d, node, path, METADATA_FIELDS, METADATA_IGNORED)?;
    Some(Metadata {
        mark: f.mark,
        name: opt_string(d, f.get("name"), &path.child("name")),
        generate_name: opt_string(d, f.get("generateName"), &path.child("generateName")),
        namespace: opt_string(d, f.get("namespace"), &path.child("namespace")),
        uid: opt_string(d, f.get("uid"), &path.child("uid")),
    })
}

pub(super) fn read_spec(
    d: &mut Diags,
    node: Option<&Node>,
    parent: Mark,
    path: &FieldPath,
) -> Option<PodSpecManifest> {
    let Some(node) = node else {
        return Some(PodSpecManifest {
            mark: parent,
            containers: Vec::new(),
            init_containers: Vec::new(),
            restart_policy: None,
            termination_grace_period_seconds: None,
            active_deadline_seconds: None,
            pod_failure_policy: None,
            host_network: false,
            readiness_gates: None,
        });
    };
    let f = decode::fields(d, node, path, POD_SPEC_FIELDS, POD_SPEC_IGNORED)?;
    let containers = read_containers(d, f.get("containers"), &path.child("containers"));
    let init_containers =
        read_containers(d, f.get("initContainers"), &path.child("initContainers"));
    Some(PodSpecManifest {
        mark: f.mark,
        containers,
        init_containers,
        restart_policy: opt_string(d, f.get("restartPolicy"), &path.child("restartPolicy")),
        termination_grace_period_seconds: opt_int64(
            d,
            f.get("terminationGracePeriodSeconds"),
            &path.child("terminationGracePeriodSeconds"),
        ),
        active_deadline_seconds: opt_int64(
            d,
            f.get("activeDeadlineSeconds"),
            &path.child("activeDeadlineSeconds"),
        ),
        pod_failure_policy: None,
        host_network: f
            .get("hostNetwork")
            .and_then(|n| decode::boolean(d, n, &path.child("hostNetwork")))
            .unwrap_or(false),
        readiness_gates: f
            .get("readinessGates")
            .and_then(Node::as_seq)
            .filter(|gates| !gates.is_empty())
            .zip(f.get("readinessGates"))
            .map(|(gates, n)| At::new(gates.len(), n.mark)),
    })
}

pub(super) fn read_containers(
    d: &mut Diags,
    node: Option<&Node>,
    path: &FieldPath,
) -> Vec<ContainerManifest> {
    let Some(node) = node else {
        return Vec::new();
    };
    let Some(items) = decode::list(d, node, path) else {
        return Vec::new();
    };
    items
        .iter()
        .enumerate()
        .filter_map(|(i, item)| read_container(d, item, &path.index(i)))
        .collect()
}

pub(super) fn read_pre_stop(
    d: &mut Diags,
    node: &Node,
    path: &FieldPath,
) -> Option<PreStopManifest> {
    let f = decode::fields(d, node, path, LIFECYCLE_FIELDS, LIFECYCLE_IGNORED)?;
    let hook = f.get("preStop")?;
    let hp = path.child("preStop");
    let h = decode::fields(d, hook, &hp, PRE_STOP_FIELDS, PRE_STOP_IGNORED)?;
    let sleep_seconds = h.get("sleep").and_then(|n| {
        let sp = hp.child("sleep");
        let s = decode::fields(d, n, &sp, SLEEP_FIELDS, &[])?;
        opt_int64(d, s.get("seconds"), &sp.child("seconds"))
    });
    Some(PreStopManifest {
        mark: h.mark,
        sleep_seconds,
    })
}

pub(super) fn read_container(
    d: &mut Diags,
    node: &Node,
    path: &FieldPath,
) -> Option<ContainerManifest> {
    let f = decode::fields(d, node, path, CONTAINER_FIELDS, CONTAINER_IGNORED)?;
    let mut ports = Vec::new();
    if let Some(n) = f.get("ports") {
        let pp = path.child("ports");
        for (i, item) in decode::list(d, n, &pp)
            .unwrap_or_default()
            .iter()
            .enumerate()
        {
            let ip = pp.index(i);
            if let Some(pf) = decode::fields(d, item, &ip, PORT_FIELDS, PORT_IGNORED) {
                ports.push(PortManifest {
                    mark: pf.mark,
                    name: opt_string(d, pf.get("name"), &ip.child("name")),
                    container_port: opt_int32(
                        d,
                        pf.get("containerPort"),
                        &ip.child("containerPort"),
                    ),
                    host_port: opt_int32(d, pf.get("hostPort"), &ip.child("hostPort")),
                    protocol: opt_string(d, pf.get("protocol"), &ip.child("protocol")),
                });
            }
        }
    }
    let mut env = Vec::new();
    if let Some(n) = f.get("env") {
        let ep = path.child("env");
        for (i, item) in decode::list(d, n, &ep)
            .unwrap_or_default()
            .iter()
            .enumerate()
        {
            let ip = ep.index(i);
            if let Some(ef) = decode::fields(d, item, &ip, ENV_FIELDS, ENV_IGNORED) {
                env.push(EnvManifest {
                    mark: ef.mark,
                    name: opt_string(d, ef.get("name"), &ip.child("name")),
                    value: opt_string(d, ef.get("value"), &ip.child("value")),
                });
            }
        }
    }
    let mut probes = [None, None, None];
    for kind in ProbeKind::ALL {
        if let Some(n) = f.get(kind.field()) {
            probes[kind.index()] = read_probe(d, n, &path.child(kind.field()));
        }
    }
    let pre_stop = f
        .get("lifecycle")
        .and_then(|n| read_pre_stop(d, n, &path.child("lifecycle")));
    Some(ContainerManifest {
        mark: f.mark,
        name: opt_string(d, f.get("name"), &path.child("name")),
        image: opt_string(d, f.get("image"), &path.child("image")),
        image_pull_policy: opt_string(d, f.get("imagePullPolicy"), &path.child("imagePullPolicy")),
        ports,
        env,
        probes,
        restart_policy: opt_string(d, f.get("restartPolicy"), &path.child("restartPolicy")),
        restart_policy_rules: f.get("restartPolicyRules").map(|n| n.mark),
        restart_rules: f
            .get("restartPolicyRules")
            .map(|n| read_restart_rules(d, n, &path.child("restartPolicyRules")))
            .unwrap_or_default(),
        pre_stop,
    })
}

/// A container's `restartPolicyRules` (KEP-5307).
fn read_restart_rules(d: &mut Diags, node: &Node, path: &FieldPath) -> Vec<RestartRuleManifest> {
    let mut rules = Vec::new();
    for (i, item) in decode::list(d, node, path)
        .unwrap_or_default()
        .iter()
        .enumerate()
    {
        let p = path.index(i);
        let Some(f) = decode::fields(d, item, &p, RESTART_RULE_FIELDS, &[]) else {
            continue;
        };
        let exit_codes = f.get("exitCodes").and_then(|n| {
            let ep = p.child("exitCodes");
            let e = decode::fields(d, n, &ep, EXIT_CODES_FIELDS, &[])?;
            let vp = ep.child("values");
            let values = e.get("values").map_or_else(Vec::new, |v| {
                decode::list(d, v, &vp)
                    .unwrap_or_default()
                    .iter()
                    .enumerate()
                    .filter_map(|(j, n)| opt_int32(d, Some(n), &vp.index(j)))
                    .collect()
            });
            Some(ExitCodesManifest {
                mark: e.mark,
                operator: opt_string(d, e.get("operator"), &ep.child("operator")),
                values_mark: e.get("values").map(|v| v.mark),
                values,
            })
        });
        rules.push(RestartRuleManifest {
            mark: f.mark,
            action: opt_string(d, f.get("action"), &p.child("action")),
            exit_codes,
        });
    }
    rules
}

pub(super) fn read_probe(d: &mut Diags, node: &Node, path: &FieldPath) -> Option<ProbeManifest> {
    let f = decode::fields(d, node, path, PROBE_FIELDS, &[])?;
    let exec = f.get("exec").and_then(|n| {
        let p = path.child("exec");
        let ef = decode::fields(d, n, &p, EXEC_FIELDS, &[])?;
        let mut command = Vec::new();
        if let Some(c) = ef.get("command") {
            let cp = p.child("command");
            for (i, item) in decode::list(d, c, &cp)
                .unwrap_or_default()
                .iter()
                .enumerate()
            {
                if let Some(s) = decode::string(d, item, &cp.index(i)) {
                    command.push(At::new(s, item.mark));
                }
            }
        }
        Some(ExecManifest {
            mark: ef.mark,
            command,
        })
    });
    let http_get = f.get("httpGet").and_then(|n| {
        let p = path.child("httpGet");
        let hf = decode::fields(d, n, &p, HTTP_GET_FIELDS, &[])?;
        let mut http_headers = Vec::new();
        if let Some(h) = hf.get("httpHeaders") {
            let hp = p.child("httpHeaders");
            for (i, item) in decode::list(d, h, &hp)
                .unwrap_or_default()
                .iter()
                .enumerate()
            {
                let ip = hp.index(i);
                if let Some(entry) = decode::fields(d, item, &ip, HEADER_FIELDS, &[]) {
                    http_headers.push(HeaderManifest {
                        mark: entry.mark,
                        name: opt_string(d, entry.get("name"), &ip.child("name")),
                        value: opt_string(d, entry.get("value"), &ip.child("value")),
                    });
                }
            }
        }
        Some(HttpGetManifest {
            mark: hf.mark,
            path: opt_string(d, hf.get("path"), &p.child("path")),
            port: opt_int_or_string(d, hf.get("port"), &p.child("port")),
            host: opt_string(d, hf.get("host"), &p.child("host")),
            scheme: opt_string(d, hf.get("scheme"), &p.child("scheme")),
            http_headers,
        })
    });
    let tcp_socket = f.get("tcpSocket").and_then(|n| {
        let p = path.child("tcpSocket");
        let tf = decode::fields(d, n, &p, TCP_SOCKET_FIELDS, &[])?;
        Some(TcpSocketManifest {
            mark: tf.mark,
            port: opt_int_or_string(d, tf.get("port"), &p.child("port")),
            host: opt_string(d, tf.get("host"), &p.child("host")),
        })
    });
    let grpc = f.get("grpc").and_then(|n| {
        let p = path.child("grpc");
        let gf = decode::fields(d, n, &p, GRPC_FIELDS, &[])?;
        Some(GrpcManifest {
            mark: gf.mark,
            port: opt_int32(d, gf.get("port"), &p.child("port")),
            service: opt_string(d, gf.get("service"), &p.child("service")),
        })
    });
    Some(ProbeManifest {
        mark: f.mark,
        exec,
        http_get,
        tcp_socket,
        grpc,
        initial_delay_seconds: opt_int32(
            d,
            f.get("initialDelaySeconds"),
            &path.child("initialDelaySeconds"),
        ),
        timeout_seconds: opt_int32(d, f.get("timeoutSeconds"), &path.child("timeoutSeconds")),
        period_seconds: opt_int32(d, f.get("periodSeconds"), &path.child("periodSeconds")),
        success_threshold: opt_int32(
            d,
            f.get("successThreshold"),
            &path.child("successThreshold"),
        ),
        failure_threshold: opt_int32(
            d,
            f.get("failureThreshold"),
            &path.child("failureThreshold"),
        ),
        termination_grace_period_seconds: opt_int64(
            d,
            f.get("terminationGracePeriodSeconds"),
            &path.child("terminationGracePeriodSeconds"),
        ),
    })
}
