//! `planc.toml`: which catalogue files, which policy and which actor a plan
//! is checked against. This module and the shells (`main.rs`, `lsp/`) are
//! the only code that touches the file system; the compiler itself works on
//! text it is given.

use std::path::{Path, PathBuf};

use serde::Deserialize;

/// The name of the project file, looked for in the plan's folder and above.
pub const CONFIG_FILE: &str = "planc.toml";

/// The contents of a `planc.toml`, paths already resolved against its folder.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Config {
    /// Where the file was found.
    pub path: PathBuf,
    pub catalog: Vec<PathBuf>,
    pub policy: Option<PathBuf>,
    pub actor: Option<Vec<String>>,
    /// `[run] tools`: the tool backend of `planc run` (`fixture:FILE`, the
    /// file resolved against this file's folder, or `mcp:COMMAND ARGS…`).
    pub tools: Option<String>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawConfig {
    #[serde(default)]
    catalog: OneOrMany,
    policy: Option<String>,
    actor: Option<OneOrMany>,
    run: Option<RawRun>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawRun {
    tools: Option<String>,
}

#[derive(Deserialize, Default)]
#[serde(untagged)]
enum OneOrMany {
    #[default]
    None,
    One(String),
    Many(Vec<String>),
}

impl OneOrMany {
    fn into_vec(self) -> Vec<String> {
        match self {
            OneOrMany::None => Vec::new(),
            OneOrMany::One(s) => vec![s],
            OneOrMany::Many(v) => v,
        }
    }
}

impl Config {
    /// Reads the text of a `planc.toml` found at `path`; relative paths in it
    /// are resolved against its folder. The error is a message for the user.
    pub fn parse(path: &Path, text: &str) -> Result<Config, String> {
        let raw: RawConfig = toml::from_str(text)
            .map_err(|e| format!("{}: {}", path.display(), e.message().trim_end_matches('\n')))?;
        let base = path.parent().unwrap_or(Path::new(""));
        Ok(Config {
            path: path.to_path_buf(),
            catalog: raw
                .catalog
                .into_vec()
                .into_iter()
                .map(|p| normalize(&base.join(p)))
                .collect(),
            policy: raw.policy.map(|p| normalize(&base.join(p))),
            actor: raw.actor.map(OneOrMany::into_vec),
            tools: raw
                .run
                .and_then(|r| r.tools)
                .map(|t| match t.strip_prefix("fixture:") {
                    Some(file) => format!("fixture:{}", normalize(&base.join(file)).display()),
                    None => t,
                }),
        })
    }
}

/// Removes `.` components and folds `a/..` away, without touching the file
/// system, so that paths read as a person would write them.
pub fn normalize(path: &Path) -> PathBuf {
    use std::path::Component;
    let mut out: Vec<Component<'_>> = Vec::new();
    for c in path.components() {
        match c {
            Component::CurDir => {}
            Component::ParentDir => match out.last() {
                Some(Component::Normal(_)) => {
                    out.pop();
                }
                Some(Component::RootDir | Component::Prefix(_)) => {}
                _ => out.push(c),
            },
            _ => out.push(c),
        }
    }
    if out.is_empty() {
        return PathBuf::from(".");
    }
    out.iter().collect()
}

/// Looks for `planc.toml` in `start` (a folder) and its ancestors; the first
/// found is read. `Ok(None)` when there is none.
pub fn discover(start: &Path) -> Result<Option<Config>, String> {
    let mut dir = Some(start);
    while let Some(d) = dir {
        let candidate = d.join(CONFIG_FILE);
        if candidate.is_file() {
            let text = std::fs::read_to_string(&candidate)
                .map_err(|e| format!("cannot read `{}`: {e}", candidate.display()))?;
            return Config::parse(&candidate, &text).map(Some);
        }
        dir = d.parent();
    }
    Ok(None)
}

/// Reads a file as UTF-8 text, with a message naming the file and the
/// reason on failure (missing, unreadable, not UTF-8, too large).
pub fn read_source(path: &Path) -> Result<String, String> {
    let bytes = std::fs::read(path)
        .map_err(|e| format!("cannot read `{}`: {}", path.display(), io_reason(&e)))?;
    decode(&path.display().to_string(), bytes)
}

/// Decodes bytes read from a file or stdin. Invalid UTF-8 is refused with
/// the byte offset of the first bad byte.
pub fn decode(name: &str, bytes: Vec<u8>) -> Result<String, String> {
    String::from_utf8(bytes).map_err(|e| {
        format!(
            "`{name}` is not valid UTF-8: invalid byte at offset {}",
            e.utf8_error().valid_up_to()
        )
    })
}

/// Writes `bytes` to `path` atomically: into a temporary file of this
/// writer's own beside it, flushed to disk, then renamed over `path`. An
/// interrupted write leaves the old file whole, and concurrent writers never
/// show a reader half a file. The error is a message for the user.
pub fn write_atomic(path: &Path, bytes: &[u8]) -> Result<(), String> {
    use std::io::Write;
    use std::sync::atomic::{AtomicUsize, Ordering};
    static WRITES: AtomicUsize = AtomicUsize::new(0);
    let fail = |e: std::io::Error| format!("cannot write `{}`: {}", path.display(), io_reason(&e));
    let name = path
        .file_name()
        .ok_or_else(|| format!("cannot write `{}`: it names no file", path.display()))?;
    let n = WRITES.fetch_add(1, Ordering::Relaxed);
    let mut tmp_name = std::ffi::OsString::from(".");
    tmp_name.push(name);
    tmp_name.push(format!(".{}.{n}.tmp", std::process::id()));
    let tmp = path.with_file_name(tmp_name);
    let written = std::fs::File::create(&tmp)
        .and_then(|mut f| {
            f.write_all(bytes)?;
            f.sync_all()
        })
        .and_then(|()| std::fs::rename(&tmp, path));
    written.map_err(|e| {
        let _ = std::fs::remove_file(&tmp);
        fail(e)
    })
}

fn io_reason(e: &std::io::Error) -> String {
    match e.kind() {
        std::io::ErrorKind::NotFound => "no such file".to_string(),
        std::io::ErrorKind::PermissionDenied => "permission denied".to_string(),
        std::io::ErrorKind::IsADirectory => "it is a directory".to_string(),
        _ => e.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_and_resolves_relative_paths() {
        let c = Config::parse(
            Path::new("proj/planc.toml"),
            "catalog = [\"tools.plan\", \"mcp.json\"]\npolicy = \"policy.plan\"\nactor = [\"crm:read\"]\n",
        )
        .unwrap();
        assert_eq!(
            c.catalog,
            vec![
                PathBuf::from("proj/tools.plan"),
                PathBuf::from("proj/mcp.json")
            ]
        );
        assert_eq!(c.policy, Some(PathBuf::from("proj/policy.plan")));
        assert_eq!(c.actor, Some(vec!["crm:read".to_string()]));
    }

    #[test]
    fn writes_atomically_and_leaves_no_temporary_file() {
        let dir = std::env::temp_dir().join(format!("planc-write-atomic-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("out.json");
        write_atomic(&path, b"old").unwrap();
        write_atomic(&path, b"new").unwrap();
        assert_eq!(std::fs::read(&path).unwrap(), b"new");
        let names: Vec<_> = std::fs::read_dir(&dir)
            .unwrap()
            .map(|e| e.unwrap().file_name())
            .collect();
        assert_eq!(names, vec![std::ffi::OsString::from("out.json")]);
        // A folder that does not exist: a message naming the file, nothing written.
        let err = write_atomic(&dir.join("missing/out.json"), b"x").unwrap_err();
        assert!(
            err.contains("missing/out.json") && err.contains("no such file"),
            "{err}"
        );
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn normalizes_lexically() {
        assert_eq!(
            normalize(Path::new("a/b/../../../c/./d")),
            PathBuf::from("../c/d")
        );
        assert_eq!(normalize(Path::new("./x")), PathBuf::from("x"));
        assert_eq!(normalize(Path::new("/../x")), PathBuf::from("/x"));
    }

    #[test]
    fn a_single_catalogue_may_be_a_string() {
        let c = Config::parse(Path::new("planc.toml"), "catalog = \"tools.plan\"").unwrap();
        assert_eq!(c.catalog, vec![PathBuf::from("tools.plan")]);
        assert_eq!(c.policy, None);
    }

    #[test]
    fn run_tools_fixture_paths_resolve_against_the_file() {
        let c = Config::parse(
            Path::new("proj/planc.toml"),
            "[run]\ntools = \"fixture:rec/tools.json\"\n",
        )
        .unwrap();
        assert_eq!(c.tools.as_deref(), Some("fixture:proj/rec/tools.json"));
        let c = Config::parse(Path::new("p/planc.toml"), "[run]\ntools = \"mcp:srv --x\"").unwrap();
        assert_eq!(c.tools.as_deref(), Some("mcp:srv --x"));
    }

    #[test]
    fn unknown_keys_are_refused() {
        let e = Config::parse(Path::new("planc.toml"), "catalogue = []").unwrap_err();
        assert!(e.contains("unknown field `catalogue`"), "{e}");
    }

    #[test]
    fn invalid_utf8_names_the_offset() {
        let e = decode("x.plan", vec![b'a', 0xff]).unwrap_err();
        assert_eq!(e, "`x.plan` is not valid UTF-8: invalid byte at offset 1");
    }
}
