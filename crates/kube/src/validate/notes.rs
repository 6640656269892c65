//! What the API server accepts but the simulation should point out: a probe whose named port
//! matches none of its container's ports (P39). The kubelet resolves the name at every attempt
//! and, finding no `containerPort` of that name, returns an error (`strconv.Atoi: parsing
//! "<name>": invalid syntax`); an errored attempt is discarded (P31), so the probe never acts.

use probesim_core::{Port, ProbeKind};

use crate::manifest::{At, ContainerManifest, IntOrString, PodManifest};
use crate::yaml::Mark;

use super::build::resolve_port;

/// One note per probe port that names no port of its container, in the order of the manifest:
/// where the port is written, and `<field path>: <what happens> (<the names that exist>)`.
#[must_use]
pub fn unmatched_port_names(m: &PodManifest) -> Vec<(Mark, String)> {
    let spec = m.kind.pod_spec_path();
    let mut notes = Vec::new();
    let lists = [
        ("containers", &m.spec.containers),
        ("initContainers", &m.spec.init_containers),
    ];
    for (list, containers) in lists {
        for (i, c) in containers.iter().enumerate() {
            let path = spec.child(list).index(i);
            for kind in [
                ProbeKind::Liveness,
                ProbeKind::Readiness,
                ProbeKind::Startup,
            ] {
                let Some(probe) = &c.probes[kind.index()] else {
                    continue;
                };
                let ports = [
                    (
                        "httpGet",
                        probe.http_get.as_ref().and_then(|h| h.port.as_ref()),
                    ),
                    (
                        "tcpSocket",
                        probe.tcp_socket.as_ref().and_then(|t| t.port.as_ref()),
                    ),
                ];
                for (handler, port) in ports {
                    let Some(port) = port else { continue };
                    if let Some(text) = unmatched(c, port) {
                        let at = path.child(kind.field()).child(handler).child("port");
                        notes.push((port.mark, format!("{at}: {text}")));
                    }
                }
            }
        }
    }
    notes
}

/// The note for a port that names no port of `c`, or `None`.
fn unmatched(c: &ContainerManifest, port: &At<IntOrString>) -> Option<String> {
    let IntOrString::Str(name) = &port.value else {
        return None;
    };
    if !matches!(resolve_port(&port.value, &c.ports), Port::Unparsable(_)) {
        return None;
    }
    let names: Vec<String> = c
        .ports
        .iter()
        .filter_map(|p| p.name.as_ref())
        .map(|n| format!("{:?}", n.value))
        .collect();
    let container = c.name.as_ref().map_or("", |n| n.value.as_str());
    let exist = if names.is_empty() {
        format!("container {container:?} names no ports")
    } else {
        format!("container {container:?} names {}", names.join(", "))
    };
    Some(format!(
        "the port {name:?} matches no port of the container, so the kubelet errors at every attempt and the probe never acts ({exist})"
    ))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::field_path::FieldPath;
    use crate::{manifest, yaml};

    fn notes(text: &str) -> Vec<String> {
        let node = yaml::parse(text).unwrap();
        let m = manifest::read(&node, &FieldPath::root()).unwrap();
        unmatched_port_names(&m)
            .into_iter()
            .map(|(mark, text)| format!("{}: {text}", mark.line))
            .collect()
    }

    #[test]
    fn a_named_port_without_its_container_port_is_noted() {
        // P39: `healthz` is not among the container's port names; `http` is, and 8080 is a
        // number.
        let text = "apiVersion: v1\nkind: Pod\nmetadata: {name: web}\nspec:\n  containers:\n  - name: web\n    image: nginx\n    ports:\n    - {name: http, containerPort: 8080}\n    - {name: admin, containerPort: 9000}\n    livenessProbe:\n      httpGet: {path: /, port: healthz}\n    readinessProbe:\n      tcpSocket: {port: http}\n    startupProbe:\n      httpGet: {path: /, port: 8080}\n";
        assert_eq!(
            notes(text),
            ["12: spec.containers[0].livenessProbe.httpGet.port: the port \"healthz\" matches no port of the container, so the kubelet errors at every attempt and the probe never acts (container \"web\" names \"http\", \"admin\")"]
        );
    }

    #[test]
    fn a_sidecar_without_ports_is_noted_too() {
        let text = "apiVersion: v1\nkind: Pod\nmetadata: {name: web}\nspec:\n  initContainers:\n  - name: proxy\n    image: envoy\n    restartPolicy: Always\n    readinessProbe:\n      tcpSocket: {port: admin}\n  containers:\n  - name: web\n    image: nginx\n";
        assert_eq!(
            notes(text),
            ["10: spec.initContainers[0].readinessProbe.tcpSocket.port: the port \"admin\" matches no port of the container, so the kubelet errors at every attempt and the probe never acts (container \"proxy\" names no ports)"]
        );
    }
}
