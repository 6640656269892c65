//! The apiserver's defaults for a pod (`SetDefaults_Pod` and friends): probe fields, restart
//! policy, grace period, pull policy from the image tag, port protocols, host ports.

use crate::manifest::{At, ContainerManifest, PodManifest, ProbeManifest};
use crate::workload::WorkloadKind;

/// Applies the apiserver's defaults in place. Idempotent.
pub fn apply_defaults(m: &mut PodManifest) {
    if m.metadata
        .namespace
        .as_ref()
        .is_none_or(|n| n.value.is_empty())
    {
        m.metadata.namespace = Some(At::new("default".to_owned(), m.metadata.mark));
    }
    let spec = &mut m.spec;
    if spec
        .restart_policy
        .as_ref()
        .is_none_or(|p| p.value.is_empty())
    {
        spec.restart_policy = Some(At::new("Always".to_owned(), spec.mark));
    }
    if spec.termination_grace_period_seconds.is_none() {
        // R21: API defaulting sets the pod's grace period to 30 s.
        spec.termination_grace_period_seconds = Some(At::new(30, spec.mark));
    }
    for c in spec
        .containers
        .iter_mut()
        .chain(spec.init_containers.iter_mut())
    {
        default_container(c);
    }
    default_host_ports(m);
}

/// `SetDefaults_Pod` with `hostNetwork`: an unset host port is the container port (Pods only;
/// a template's pods get it when they are created).
pub(super) fn default_host_ports(m: &mut PodManifest) {
    if m.kind != WorkloadKind::Pod || !m.spec.host_network {
        return;
    }
    let spec = &mut m.spec;
    for c in spec
        .containers
        .iter_mut()
        .chain(spec.init_containers.iter_mut())
    {
        for port in &mut c.ports {
            if port.host_port.as_ref().is_none_or(|hp| hp.value == 0) {
                if let Some(cp) = port.container_port.clone() {
                    port.host_port = Some(cp);
                }
            }
        }
    }
}

pub(super) fn default_container(c: &mut ContainerManifest) {
    if c.image_pull_policy
        .as_ref()
        .is_none_or(|p| p.value.is_empty())
    {
        let image = c.image.as_ref().map_or("", |i| i.value.as_str());
        let policy = if image_tag(image) == Some("latest") {
            "Always"
        } else {
            "IfNotPresent"
        };
        c.image_pull_policy = Some(At::new(policy.to_owned(), c.mark));
    }
    for p in &mut c.ports {
        if p.protocol.as_ref().is_none_or(|x| x.value.is_empty()) {
            p.protocol = Some(At::new("TCP".to_owned(), p.mark));
        }
    }
    for probe in c.probes.iter_mut().flatten() {
        default_probe(probe);
    }
}

/// P53, P54.
pub(super) fn default_probe(p: &mut ProbeManifest) {
    let mark = p.mark;
    for (field, default) in [
        (&mut p.timeout_seconds, 1),
        (&mut p.period_seconds, 10),
        (&mut p.success_threshold, 1),
        (&mut p.failure_threshold, 3),
    ] {
        match field {
            Some(v) if v.value != 0 => {}
            Some(v) => v.value = default,
            None => *field = Some(At::new(default, mark)),
        }
    }
    if let Some(h) = &mut p.http_get {
        if h.path.as_ref().is_none_or(|x| x.value.is_empty()) {
            h.path = Some(At::new("/".to_owned(), h.mark));
        }
        if h.scheme.as_ref().is_none_or(|x| x.value.is_empty()) {
            h.scheme = Some(At::new("HTTP".to_owned(), h.mark));
        }
    }
    if let Some(g) = &mut p.grpc {
        if g.service.is_none() {
            g.service = Some(At::new(String::new(), g.mark));
        }
    }
}

/// The tag of an image reference as the defaulting code sees it (`parsers.ParseImageName` over
/// the distribution `ParseNormalizedNamed`): `latest` when there is neither tag nor digest,
/// `None` when there is a digest and no tag, and `None` too when the reference does not parse
/// (uppercase in the repository path, a malformed tag or digest, a 64-hex-digit name, more
/// than 255 characters), which the defaulting code reads as "no tag".
#[must_use]
pub fn image_tag(image: &str) -> Option<&str> {
    let (rest, digest) = match image.split_once('@') {
        Some((rest, digest)) => (rest, Some(digest)),
        None => (image, None),
    };
    if digest.is_some_and(|d| !is_digest(d)) {
        return None;
    }
    // A tag is what follows the last `:` after the last `/` (an earlier `:` is a port).
    let last_slash = rest.rfind('/').map_or(0, |i| i + 1);
    let (name, tag) = match rest[last_slash..].rfind(':') {
        Some(i) => (&rest[..last_slash + i], Some(&rest[last_slash + i + 1..])),
        None => (rest, None),
    };
    if !is_repository_name(name) || tag.is_some_and(|t| !is_tag(t)) {
        return None;
    }
    match (tag, digest) {
        (Some(tag), _) => Some(tag),
        (None, Some(_)) => None,
        (None, None) => Some("latest"),
    }
}

/// `[domain/]path`, as `ParseNormalizedNamed` accepts it.
pub(super) fn is_repository_name(name: &str) -> bool {
    if name.is_empty() || name.len() > 255 {
        return false;
    }
    // 64 hex digits alone look like an image ID, which a name may not be.
    if name.len() == 64 && name.bytes().all(|b| matches!(b, b'0'..=b'9' | b'a'..=b'f')) {
        return false;
    }
    // The first component is a registry when it has a `.` or `:`, is `localhost`, or has an
    // uppercase letter (which a path component may not have).
    let (domain, path) = match name.split_once('/') {
        Some((first, rest))
            if first.contains(['.', ':'])
                || first == "localhost"
                || first.bytes().any(|b| b.is_ascii_uppercase()) =>
        {
            (Some(first), rest)
        }
        _ => (None, name),
    };
    domain.is_none_or(is_domain) && path.split('/').all(is_path_component)
}

/// `host[:port]`: dot-separated labels of letters, digits and inner hyphens, or `[IPv6]`.
pub(super) fn is_domain(domain: &str) -> bool {
    let (host, port) = match domain.rsplit_once(':') {
        Some((host, port)) if !host.ends_with(':') => (host, Some(port)),
        _ => (domain, None),
    };
    if port.is_some_and(|p| p.is_empty() || !p.bytes().all(|b| b.is_ascii_digit())) {
        return false;
    }
    if let Some(ip) = host.strip_prefix('[').and_then(|h| h.strip_suffix(']')) {
        return !ip.is_empty() && ip.bytes().all(|b| b.is_ascii_hexdigit() || b == b':');
    }
    !host.is_empty()
        && host.split('.').all(|label| {
            !label.is_empty()
                && label
                    .bytes()
                    .all(|b| b.is_ascii_alphanumeric() || b == b'-')
                && !label.starts_with('-')
                && !label.ends_with('-')
        })
}

/// Lowercase letters and digits, joined by `.`, `_`, `__` or any run of `-`.
pub(super) fn is_path_component(component: &str) -> bool {
    let bytes = component.as_bytes();
    let alnum = |b: u8| b.is_ascii_lowercase() || b.is_ascii_digit();
    if !bytes.first().copied().is_some_and(alnum) || !bytes.last().copied().is_some_and(alnum) {
        return false;
    }
    let mut i = 0;
    while i < bytes.len() {
        if alnum(bytes[i]) {
            i += 1;
            continue;
        }
        let start = i;
        while i < bytes.len() && !alnum(bytes[i]) {
            i += 1;
        }
        let separator = &component[start..i];
        let ok = matches!(separator, "." | "_" | "__") || separator.bytes().all(|b| b == b'-');
        if !ok {
            return false;
        }
    }
    true
}

/// A word character, then up to 127 word characters, `.` or `-`.
pub(super) fn is_tag(tag: &str) -> bool {
    let word = |b: u8| b.is_ascii_alphanumeric() || b == b'_';
    let bytes = tag.as_bytes();
    bytes.len() <= 128
        && bytes.first().copied().is_some_and(word)
        && bytes.iter().all(|&b| word(b) || b == b'.' || b == b'-')
}

/// `algorithm:hex` for the algorithms the digest package knows, with their exact lengths of
/// lowercase hex digits.
pub(super) fn is_digest(digest: &str) -> bool {
    let Some((algorithm, hex)) = digest.split_once(':') else {
        return false;
    };
    let length = match algorithm {
        "sha256" => 64,
        "sha384" => 96,
        "sha512" => 128,
        _ => return false,
    };
    hex.len() == length && hex.bytes().all(|b| matches!(b, b'0'..=b'9' | b'a'..=b'f'))
}
