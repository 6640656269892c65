//! Finding the scenario files under a directory for `probesim check`.
//!
//! The walk never stops early and never opens what it cannot read as a file: a `*.yaml` (or
//! `*.yml`, `*.json`) whose type cannot be read (a broken symbolic link, a link loop), a
//! directory that cannot be listed (permission denied), and a `*.yaml` that is not a regular
//! file (a FIFO, a socket, a device, which reading could block on for ever) are each reported as
//! [`Entry::Unreadable`], in their place in the sorted order, and the walk goes on. A broken
//! link whose name is no scenario's (`README.md`) is passed over, as the file would be.
//!
//! The file system is behind [`Tree`], so the error paths are tested with a tree that fails
//! where the test says (the tests run as root, for whom no permission bit denies anything).

use std::io;
use std::path::{Path, PathBuf};

/// What the walk found, in sorted order.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Entry {
    /// A scenario file (`*.yaml`, `*.yml`, `*.json`) that is a regular file.
    Scenario(PathBuf),
    /// An entry that cannot be read, and why.
    Unreadable {
        /// The entry.
        path: PathBuf,
        /// Why (`cannot read directory: permission denied`).
        reason: String,
    },
}

/// What kind of thing a path is, following symbolic links.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    /// A directory.
    Dir,
    /// A regular file.
    File,
    /// Anything else: `a FIFO`, `a socket`, `a block device`, `a character device`.
    Other(&'static str),
}

/// The file system as the walk sees it.
pub trait Tree {
    /// The entries of a directory (an entry that cannot be read is an error in the list).
    fn entries(&mut self, dir: &Path) -> io::Result<Vec<io::Result<PathBuf>>>;
    /// What `path` is, following symbolic links.
    fn kind(&mut self, path: &Path) -> io::Result<Kind>;
    /// The resolved path of a directory, to notice one met again through a link.
    fn canonical(&mut self, dir: &Path) -> Option<PathBuf>;
}

/// The real file system.
pub struct Disk;

impl Tree for Disk {
    fn entries(&mut self, dir: &Path) -> io::Result<Vec<io::Result<PathBuf>>> {
        Ok(std::fs::read_dir(dir)?
            .map(|e| e.map(|e| e.path()))
            .collect())
    }

    fn kind(&mut self, path: &Path) -> io::Result<Kind> {
        Ok(kind_of(&std::fs::metadata(path)?.file_type()))
    }

    fn canonical(&mut self, dir: &Path) -> Option<PathBuf> {
        std::fs::canonicalize(dir).ok()
    }
}

/// Directory, regular file, or what else.
pub fn kind_of(t: &std::fs::FileType) -> Kind {
    if t.is_dir() {
        return Kind::Dir;
    }
    if t.is_file() {
        return Kind::File;
    }
    #[cfg(unix)]
    {
        use std::os::unix::fs::FileTypeExt;
        if t.is_fifo() {
            return Kind::Other("a FIFO");
        }
        if t.is_socket() {
            return Kind::Other("a socket");
        }
        if t.is_block_device() {
            return Kind::Other("a block device");
        }
        if t.is_char_device() {
            return Kind::Other("a character device");
        }
    }
    Kind::Other("not a regular file")
}

/// Does the name end in `.yaml`, `.yml` or `.json`?
pub fn is_scenario_name(path: &Path) -> bool {
    path.extension()
        .and_then(|e| e.to_str())
        .is_some_and(|e| matches!(e, "yaml" | "yml" | "json"))
}

/// The name of a directory whose scenarios a walk passes over: they state what the kubelet does
/// where the engine does not follow it yet, so their expectations fail until it does. Named on
/// the command line, such a directory is checked like any other.
pub const PENDING_DIR: &str = "pending";

/// Everything under `dir`, recursively, sorted by name within each directory, except what is
/// in a subdirectory named [`PENDING_DIR`].
pub fn walk(dir: &Path, tree: &mut impl Tree) -> Vec<Entry> {
    let mut out = Vec::new();
    walk_from(dir, tree, &mut Vec::new(), &mut out);
    out
}

/// Walks `dir`, skipping a directory met again through a symbolic link (one of `seen`, by its
/// resolved path), so that a link cycle is not followed for ever.
fn walk_from(dir: &Path, tree: &mut impl Tree, seen: &mut Vec<PathBuf>, out: &mut Vec<Entry>) {
    if let Some(real) = tree.canonical(dir) {
        if seen.contains(&real) {
            return;
        }
        seen.push(real);
    }
    let listed = match tree.entries(dir) {
        Ok(l) => l,
        Err(e) => {
            out.push(Entry::Unreadable {
                path: dir.to_path_buf(),
                reason: format!("cannot read directory: {}", crate::cmd::io_text(&e)),
            });
            return;
        }
    };
    let mut paths = Vec::new();
    for entry in listed {
        match entry {
            Ok(p) => paths.push(p),
            Err(e) => out.push(Entry::Unreadable {
                path: dir.to_path_buf(),
                reason: format!("cannot read a directory entry: {}", crate::cmd::io_text(&e)),
            }),
        }
    }
    paths.sort();
    for path in paths {
        match tree.kind(&path) {
            Ok(Kind::Dir) if path.file_name().is_some_and(|n| n == PENDING_DIR) => {}
            Ok(Kind::Dir) => walk_from(&path, tree, seen, out),
            Ok(Kind::File) if is_scenario_name(&path) => out.push(Entry::Scenario(path)),
            Ok(Kind::File) => {}
            Ok(Kind::Other(what)) if is_scenario_name(&path) => out.push(Entry::Unreadable {
                path,
                reason: format!("not a regular file ({what}): passed over unread"),
            }),
            Ok(Kind::Other(_)) => {}
            Err(e) if is_scenario_name(&path) => out.push(Entry::Unreadable {
                path,
                reason: format!("cannot read file type: {}", crate::cmd::io_text(&e)),
            }),
            // A broken link that could not be a scenario (`README.md` pointing nowhere) is
            // none of check's business, as a regular README.md is not.
            Err(_) => {}
        }
    }
}

#[cfg(test)]
mod tests {
    use std::collections::BTreeMap;

    use super::*;

    /// A tree held in memory: each path is a directory (its children), a file, or an error.
    #[derive(Default)]
    struct Fake(BTreeMap<PathBuf, Node>);

    enum Node {
        Dir(Vec<&'static str>),
        File,
        Fifo,
        Unlistable(io::ErrorKind),
        Broken,
    }

    impl Fake {
        fn with(mut self, path: &str, node: Node) -> Fake {
            self.0.insert(PathBuf::from(path), node);
            self
        }
    }

    impl Tree for Fake {
        fn entries(&mut self, dir: &Path) -> io::Result<Vec<io::Result<PathBuf>>> {
            match self.0.get(dir) {
                Some(Node::Dir(names)) => Ok(names.iter().map(|n| Ok(dir.join(n))).collect()),
                Some(Node::Unlistable(kind)) => Err(io::Error::from(*kind)),
                _ => Err(io::Error::from(io::ErrorKind::NotFound)),
            }
        }
        fn kind(&mut self, path: &Path) -> io::Result<Kind> {
            match self.0.get(path) {
                Some(Node::Dir(_) | Node::Unlistable(_)) => Ok(Kind::Dir),
                Some(Node::File) => Ok(Kind::File),
                Some(Node::Fifo) => Ok(Kind::Other("a FIFO")),
                Some(Node::Broken) | None => Err(io::Error::from(io::ErrorKind::NotFound)),
            }
        }
        fn canonical(&mut self, dir: &Path) -> Option<PathBuf> {
            Some(dir.to_path_buf())
        }
    }

    fn unreadable(path: &str, reason: &str) -> Entry {
        Entry::Unreadable {
            path: PathBuf::from(path),
            reason: reason.to_owned(),
        }
    }

    fn scenario(path: &str) -> Entry {
        Entry::Scenario(PathBuf::from(path))
    }

    #[test]
    fn an_unlistable_directory_is_reported_and_the_walk_goes_on() {
        // Files sorted after the directory that cannot be listed are still found.
        let mut tree = Fake::default()
            .with("s", Node::Dir(vec!["c.yaml", "b", "a.yaml"]))
            .with("s/a.yaml", Node::File)
            .with("s/b", Node::Unlistable(io::ErrorKind::PermissionDenied))
            .with("s/c.yaml", Node::File);
        assert_eq!(
            walk(Path::new("s"), &mut tree),
            vec![
                scenario("s/a.yaml"),
                unreadable("s/b", "cannot read directory: permission denied"),
                scenario("s/c.yaml"),
            ]
        );
    }

    #[test]
    fn a_pending_subdirectory_is_passed_over_but_checked_when_named() {
        let tree = || {
            Fake::default()
                .with("s", Node::Dir(vec!["pending", "a.yaml"]))
                .with("s/a.yaml", Node::File)
                .with("s/pending", Node::Dir(vec!["p.yaml"]))
                .with("s/pending/p.yaml", Node::File)
        };
        assert_eq!(
            walk(Path::new("s"), &mut tree()),
            vec![scenario("s/a.yaml")]
        );
        assert_eq!(
            walk(Path::new("s/pending"), &mut tree()),
            vec![scenario("s/pending/p.yaml")]
        );
    }

    #[test]
    fn a_fifo_named_like_a_scenario_is_passed_over_unread() {
        let mut tree = Fake::default()
            .with("s", Node::Dir(vec!["pipe.yaml", "pipe", "z.yml"]))
            .with("s/pipe.yaml", Node::Fifo)
            .with("s/pipe", Node::Fifo)
            .with("s/z.yml", Node::File);
        assert_eq!(
            walk(Path::new("s"), &mut tree),
            vec![
                unreadable(
                    "s/pipe.yaml",
                    "not a regular file (a FIFO): passed over unread"
                ),
                scenario("s/z.yml"),
            ]
        );
    }

    #[test]
    fn an_entry_whose_type_cannot_be_read_is_reported() {
        let mut tree = Fake::default()
            .with(
                "s",
                Node::Dir(vec!["README.md", "gone.yaml", "ok.json", "notes.txt"]),
            )
            // A broken link that is no scenario by its name is passed over, like README.md.
            .with("s/README.md", Node::Broken)
            .with("s/gone.yaml", Node::Broken)
            .with("s/ok.json", Node::File)
            .with("s/notes.txt", Node::File);
        assert_eq!(
            walk(Path::new("s"), &mut tree),
            vec![
                unreadable(
                    "s/gone.yaml",
                    "cannot read file type: no such file or directory"
                ),
                scenario("s/ok.json"),
            ]
        );
    }

    #[test]
    fn the_walked_directory_itself_may_be_unlistable() {
        let mut tree = Fake::default().with("s", Node::Unlistable(io::ErrorKind::PermissionDenied));
        assert_eq!(
            walk(Path::new("s"), &mut tree),
            vec![unreadable("s", "cannot read directory: permission denied")]
        );
    }
}
