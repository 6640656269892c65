//! Reading Pod manifests: fields, types, positions and unknown-field errors.

use super::*;
use crate::field_path::FieldPath;
use crate::yaml;

fn read_text(text: &str) -> Result<PodManifest, Vec<String>> {
    let node = yaml::parse(text).unwrap();
    read(&node, &FieldPath::root()).map_err(|d| {
        d.iter()
            .map(|x| match x.mark {
                Some(m) => format!("{m}: {x}"),
                None => x.to_string(),
            })
            .collect()
    })
}

const POD: &str = "\
apiVersion: v1
kind: Pod
metadata:
  name: kubia
  labels: {app: kubia}
spec:
  nodeSelector: {disk: ssd}
  containers:
  - name: kubia
    image: luksa/kubia
    resources: {limits: {cpu: 1}}
    volumeMounts: [{name: x, mountPath: /x}]
    ports:
    - {name: http, containerPort: 8080}
    livenessProbe:
      httpGet: {path: /healthz, port: http}
      initialDelaySeconds: 5
";

#[test]
fn modelled_fields_are_read_and_unmodelled_ones_ignored() {
    let m = read_text(POD).unwrap();
    let c = &m.spec.containers[0];
    assert_eq!(c.name_str(), "kubia");
    assert_eq!(c.ports[0].container_port.as_ref().unwrap().value, 8080);
    let probe = c.probe(ProbeKind::Liveness).unwrap();
    let http = probe.http_get.as_ref().unwrap();
    assert_eq!(
        http.port.as_ref().unwrap().value,
        IntOrString::Str("http".into())
    );
    assert_eq!(probe.initial_delay_seconds.as_ref().unwrap().value, 5);
    assert_eq!(
        probe.initial_delay_seconds.as_ref().unwrap().mark,
        Mark::new(17, 28)
    );
}

#[test]
fn misspelt_fields_are_reported_with_a_suggestion_and_position() {
    let text = POD.replace("livenessProbe:", "livenesProbe:").replace(
        "disk: ssd",
        "disk: ssd}\n  restartPolicyy: Never\n  x: {y: 1",
    );
    let errs = read_text(&text).unwrap_err();
    assert_eq!(
            errs,
            [
                "8:3: spec: unknown field \"restartPolicyy\", did you mean \"restartPolicy\"?",
                "9:3: spec: unknown field \"x\"",
                "17:5: spec.containers[0]: unknown field \"livenesProbe\", did you mean \"livenessProbe\"?",
            ]
        );
}

#[test]
fn unknown_probe_fields_have_line_and_column() {
    let text = POD.replace("initialDelaySeconds", "initialDelaySecond");
    let errs = read_text(&text).unwrap_err();
    assert_eq!(
            errs,
            ["17:7: spec.containers[0].livenessProbe: unknown field \"initialDelaySecond\", did you mean \"initialDelaySeconds\"?"]
        );
    let text = POD.replace("path: /healthz", "pth: /healthz");
    let errs = read_text(&text).unwrap_err();
    assert_eq!(
            errs,
            ["16:17: spec.containers[0].livenessProbe.httpGet: unknown field \"pth\", did you mean \"path\"?"]
        );
}

#[test]
fn wrong_types_name_the_field_and_the_expected_type() {
    let text = POD.replace("initialDelaySeconds: 5", "initialDelaySeconds: \"5\"");
    let errs = read_text(&text).unwrap_err();
    assert_eq!(
            errs,
            ["17:28: spec.containers[0].livenessProbe.initialDelaySeconds: expected an integer, found the string \"5\""]
        );
    let text = POD.replace("port: http", "port: 1.5");
    let errs = read_text(&text).unwrap_err();
    assert_eq!(
            errs,
            ["16:39: spec.containers[0].livenessProbe.httpGet.port: expected an integer or a string, found 1.5"]
        );
    let text = POD.replace("containers:", "containers: {}\n  x:");
    assert!(read_text(&text).is_err());
}

#[test]
fn kinds_and_api_versions_are_checked() {
    let text = POD.replace("kind: Pod", "kind: Service");
    assert_eq!(
            read_text(&text).unwrap_err(),
            ["2:7: kind: unsupported kind \"Service\": probesim simulates the pod of a Pod, Deployment, ReplicaSet, StatefulSet, DaemonSet, ReplicationController, Job or CronJob"]
        );
    let text = POD.replace("kind: Pod", "kind: Deploymnet");
    assert!(read_text(&text).unwrap_err()[0].ends_with("; did you mean \"Deployment\"?"));
    // A Pod's body under a Deployment's kind: the spec is not a Deployment's.
    let text = POD.replace("kind: Pod", "kind: Deployment");
    assert_eq!(
            read_text(&text).unwrap_err(),
            [
                "1:13: apiVersion: no matches for kind \"Deployment\" in version \"v1\" (expected \"apps/v1\")",
                "7:3: spec: unknown field \"nodeSelector\", did you mean \"selector\"?",
                "8:3: spec: unknown field \"containers\" (a Deployment's pod spec goes under spec.template.spec)",
            ]
        );
    let text = POD.replace("apiVersion: v1\n", "");
    let errs = read_text(&text).unwrap_err();
    assert_eq!(errs, ["1:1: apiVersion: missing field, expected \"v1\""]);
    let text = POD.replace("kind: Pod\n", "");
    assert_eq!(
            read_text(&text).unwrap_err(),
            ["1:1: kind: missing field, expected one of \"Pod\", \"Deployment\", \"ReplicaSet\", \"StatefulSet\", \"DaemonSet\", \"ReplicationController\", \"Job\", \"CronJob\""]
        );
}

#[test]
fn workloads_are_read_through_their_templates() {
    let deployment = "\
apiVersion: apps/v1
kind: Deployment
metadata: {name: web, namespace: prod}
spec:
  replicas: 3
  selector: {matchLabels: {app: web}}
  strategy: {type: Recreate}
  template:
    metadata: {labels: {app: web}, annotations: {a: b}}
    spec:
      restartPolicy: Always
      containers:
      - name: web
        image: nginx:1.27
        livenessProbe: {httpGet: {port: 80}, periodSecond: 5}
status: {replicas: 3, whatever: [1]}
";
    assert_eq!(
            read_text(deployment).unwrap_err(),
            ["15:46: spec.template.spec.containers[0].livenessProbe: unknown field \"periodSecond\", did you mean \"periodSeconds\"?"]
        );
    let m = read_text(&deployment.replace(", periodSecond: 5", "")).unwrap();
    assert_eq!(m.kind, WorkloadKind::Deployment);
    assert_eq!(m.labels, [("app".to_owned(), "web".to_owned())]);
    assert_eq!(m.spec.containers[0].name_str(), "web");
    assert_eq!(m.metadata.namespace.as_ref().unwrap().value, "prod");
    let cron = "\
apiVersion: batch/v1
kind: CronJob
metadata: {name: backup}
spec:
  schedule: \"0 * * * *\"
  jobTemplate:
    metadata: {labels: {a: b}}
    spec:
      backoffLimit: 2
      template:
        spec:
          restartPolicy: OnFailure
          containers: [{name: b, image: b}]
          contaners: []
";
    assert_eq!(
            read_text(cron).unwrap_err(),
            ["14:11: spec.jobTemplate.spec.template.spec: unknown field \"contaners\", did you mean \"containers\"?"]
        );
    let text = cron.replace("jobTemplate", "jobTemplat");
    assert_eq!(
        read_text(&text).unwrap_err(),
        ["6:3: spec: unknown field \"jobTemplat\", did you mean \"jobTemplate\"?"]
    );
}
