//! The explain pages as files, for the `codeDescription` of each published
//! diagnostic: the protocol links a code to a document by URI, and an editor
//! opens that document when the code is clicked. The pages are compiled into
//! the binary (`planc explain CODE`); the server writes them once into the
//! user's cache folder, under the planc version, and links to them there.

use std::collections::HashMap;
use std::path::{Path, PathBuf};

use lsp_types::Uri;

use super::uri;
use crate::Code;
use crate::diagnostics::explain;

/// The URI of each code's page, or an empty map when no folder could be
/// written (diagnostics are then published without a `codeDescription`).
pub fn write() -> HashMap<Code, Uri> {
    let Some(dir) = cache_dir() else {
        return HashMap::new();
    };
    let dir = dir
        .join("planc")
        .join(env!("CARGO_PKG_VERSION"))
        .join("explain");
    write_into(&dir).unwrap_or_default()
}

/// Writes every page into `dir` (those already there with the same text are
/// left alone) and returns their URIs.
pub fn write_into(dir: &Path) -> Option<HashMap<Code, Uri>> {
    std::fs::create_dir_all(dir).ok()?;
    let mut uris = HashMap::new();
    for &code in Code::ALL {
        let path = dir.join(format!("{code}.md"));
        let text = explain::page(code);
        let current = |path: &Path| std::fs::read_to_string(path).ok().as_deref() == Some(text);
        if !current(&path) {
            // Other servers (or threads) may be writing the same page: the
            // atomic write keeps any reader from seeing half a page.
            if crate::project::write_atomic(&path, text.as_bytes()).is_err() {
                // Someone else's copy will do.
                if !current(&path) {
                    return None;
                }
            }
        }
        uris.insert(code, uri::from_path(&path)?);
    }
    Some(uris)
}

/// `$XDG_CACHE_HOME`, `~/.cache`, `%LOCALAPPDATA%`, or the temporary folder.
fn cache_dir() -> Option<PathBuf> {
    let var = |name: &str| {
        std::env::var_os(name)
            .map(PathBuf::from)
            .filter(|p| p.is_absolute())
    };
    var("XDG_CACHE_HOME")
        .or_else(|| var("HOME").map(|h| h.join(".cache")))
        .or_else(|| var("LOCALAPPDATA"))
        .or_else(|| Some(std::env::temp_dir()))
}
