//! Field paths in the apiserver's notation: `spec.containers[0].livenessProbe.periodSeconds`.
//!
//! Pod contents are rendered relative to the Pod object, exactly as the apiserver renders them
//! (no `pod.` prefix); scenario-level fields start with their scenario key (`kubelet.resync`,
//! `apps.kubia.exit`, `expect[2].at`). Map keys that are not plain identifiers are quoted
//! (`apps.kubia.endpoints."tcp :9090"`).

use core::fmt;

/// One step of a [`FieldPath`].
#[derive(Clone, Debug, PartialEq, Eq)]
enum Segment {
    /// A struct field (`livenessProbe`).
    Field(String),
    /// A list index (`[0]`).
    Index(usize),
    /// A key of a user-defined map (`apps.kubia`, `endpoints."http :8080/"`).
    Key(String),
}

/// A path from the document's root to one field.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct FieldPath {
    segments: Vec<Segment>,
}

impl FieldPath {
    /// The empty path (the document itself).
    #[must_use]
    pub fn root() -> FieldPath {
        FieldPath::default()
    }

    /// A path of one field (`spec`, `kubelet`).
    #[must_use]
    pub fn new(field: &str) -> FieldPath {
        FieldPath::root().child(field)
    }

    /// This path extended by a struct field.
    #[must_use]
    pub fn child(&self, field: &str) -> FieldPath {
        self.with(Segment::Field(field.to_owned()))
    }

    /// This path extended by a list index.
    #[must_use]
    pub fn index(&self, i: usize) -> FieldPath {
        self.with(Segment::Index(i))
    }

    /// This path extended by a map key, quoted when it is not a plain identifier.
    #[must_use]
    pub fn key(&self, key: &str) -> FieldPath {
        self.with(Segment::Key(key.to_owned()))
    }

    /// Is this the empty path?
    #[must_use]
    pub fn is_root(&self) -> bool {
        self.segments.is_empty()
    }

    fn with(&self, segment: Segment) -> FieldPath {
        let mut segments = Vec::with_capacity(self.segments.len() + 1);
        segments.extend(self.segments.iter().cloned());
        segments.push(segment);
        FieldPath { segments }
    }
}

fn is_plain_key(key: &str) -> bool {
    !key.is_empty()
        && key
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '-' || c == '_')
}

impl fmt::Display for FieldPath {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for (i, segment) in self.segments.iter().enumerate() {
            match segment {
                Segment::Field(name) => {
                    if i > 0 {
                        f.write_str(".")?;
                    }
                    f.write_str(name)?;
                }
                Segment::Key(key) => {
                    if i > 0 {
                        f.write_str(".")?;
                    }
                    if is_plain_key(key) {
                        f.write_str(key)?;
                    } else {
                        write!(f, "{key:?}")?;
                    }
                }
                Segment::Index(n) => write!(f, "[{n}]")?,
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn paths_render_like_the_apiserver() {
        let p = FieldPath::new("spec")
            .child("containers")
            .index(0)
            .child("livenessProbe")
            .child("periodSeconds");
        assert_eq!(
            p.to_string(),
            "spec.containers[0].livenessProbe.periodSeconds"
        );
    }

    #[test]
    fn map_keys_are_quoted_only_when_needed() {
        let p = FieldPath::new("apps")
            .key("kubia")
            .child("endpoints")
            .key("tcp :9090");
        assert_eq!(p.to_string(), r#"apps.kubia.endpoints."tcp :9090""#);
        assert_eq!(
            FieldPath::new("expect").index(2).child("at").to_string(),
            "expect[2].at"
        );
        assert!(FieldPath::root().is_root());
        assert_eq!(FieldPath::root().to_string(), "");
    }
}
