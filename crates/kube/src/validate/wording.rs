//! The apiserver's wording of name and port rules (`k8s.io/apimachinery` validation helpers),
//! as text the validator quotes.

pub(super) const PORT_RANGE: &str = "must be between 1 and 65535, inclusive";

pub(super) const HEADER_NAME: &str = "a valid HTTP header must consist of alphanumeric characters or '-' (e.g. 'X-Header-Name', regex used for validation is '[-A-Za-z0-9]+')";

pub(super) const DNS1123_LABEL: &str = "a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character (e.g. 'my-name',  or '123-abc', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?')";

pub(super) const DNS1123_SUBDOMAIN: &str = "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')";

/// `IsValidPortName` (IANA_SVC_NAME): the "one letter" rule was always checked, but said
/// "letter or number" up to 1.24 (P58; `letter_wording` is the newer text).
pub(super) fn port_name(name: &str, letter_wording: bool) -> Vec<&'static str> {
    let mut errs = Vec::new();
    if name.len() > 15 {
        errs.push("must be no more than 15 characters");
    }
    if name.is_empty()
        || !name
            .bytes()
            .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'-')
    {
        errs.push("must contain only alpha-numeric characters (a-z, 0-9), and hyphens (-)");
    }
    if !name.bytes().any(|b| b.is_ascii_lowercase()) {
        errs.push(if letter_wording {
            "must contain at least one letter (a-z)"
        } else {
            "must contain at least one letter or number (a-z, 0-9)"
        });
    }
    if name.contains("--") {
        errs.push("must not contain consecutive hyphens");
    }
    if name.starts_with('-') || name.ends_with('-') {
        errs.push("must not begin or end with a hyphen");
    }
    errs
}

/// `[a-z0-9]([-a-z0-9]*[a-z0-9])?`
pub(super) fn is_label(s: &str) -> bool {
    let b = s.as_bytes();
    let alnum = |c: &u8| c.is_ascii_lowercase() || c.is_ascii_digit();
    match (b.first(), b.last()) {
        (Some(first), Some(last)) => {
            alnum(first) && alnum(last) && b.iter().all(|c| alnum(c) || *c == b'-')
        }
        _ => false,
    }
}

/// `IsDNS1123Label`.
pub(super) fn dns1123_label(s: &str) -> Vec<String> {
    let mut errs = Vec::new();
    if s.len() > 63 {
        errs.push("must be no more than 63 characters".to_owned());
    }
    if !is_label(s) {
        if s.split('.').all(is_label) {
            errs.push("must not contain dots".to_owned());
        } else {
            errs.push(DNS1123_LABEL.to_owned());
        }
    }
    errs
}

/// `IsDNS1123Subdomain`.
pub(super) fn dns1123_subdomain(s: &str) -> Vec<String> {
    let mut errs = Vec::new();
    if s.len() > 253 {
        errs.push("must be no more than 253 characters".to_owned());
    }
    if !s.split('.').all(is_label) {
        errs.push(DNS1123_SUBDOMAIN.to_owned());
    }
    errs
}

/// `IsHTTPHeaderName`: `[-A-Za-z0-9]+`.
pub(super) fn is_http_header_name(s: &str) -> bool {
    !s.is_empty() && s.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'-')
}
