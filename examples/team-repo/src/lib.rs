//! The team's repository holds manifests; its tests are in `tests/`.
