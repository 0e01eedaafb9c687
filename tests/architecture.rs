//! The structure drawing of `ARCHITECTURE.md` ("The crates"), checked.
//!
//! Cargo already refuses a circle between crates, so no import runs back
//! up a layer from one crate to another. What it cannot see is checked
//! here: the library crates do not depend on the command line's or the
//! language server's crates, and inside a crate the top-level modules'
//! `crate::` imports make no circle beyond the ones listed in
//! [`KNOWN_CIRCLES`], which are still to be broken (a new circle fails;
//! breaking one means taking it off the list).

// Helpers of the tests: a missing file is a failed test.
#![allow(clippy::unwrap_used, clippy::indexing_slicing)]

use std::collections::{BTreeMap, BTreeSet};
use std::fs;
use std::path::{Path, PathBuf};

/// The crates of the workspace, bottom layer first.
const LAYERS: &[&str] = &[
    "planc-lang",
    "planc-exec",
    "planc-check",
    "planc-view",
    "planc-lsp",
];

/// Dependencies no library crate may have: the command line's and the
/// language server's (the Python and JavaScript bindings must build
/// without them). `planc-lsp` is the language server's own crate.
const SHELL_ONLY: &[&str] = &[
    "clap",
    "clap_complete",
    "clap_mangen",
    "lsp-server",
    "lsp-types",
    "mimalloc",
];

/// The circles between top-level modules that remain inside a crate,
/// each as the set of modules it joins: none now. A circle found is a new
/// one, to be broken by moving code below both sides, not listed here.
const KNOWN_CIRCLES: &[(&str, &[&str])] = &[];

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// The names under `[dependencies]` of a manifest, with whether each is
/// optional.
fn dependencies(manifest: &Path) -> Vec<(String, bool)> {
    let text = fs::read_to_string(manifest).unwrap();
    let mut out = Vec::new();
    let mut inside = false;
    for line in text.lines() {
        let line = line.trim();
        if line.starts_with('[') {
            inside = line == "[dependencies]";
            continue;
        }
        if !inside || line.is_empty() || line.starts_with('#') {
            continue;
        }
        if let Some((name, spec)) = line.split_once(['=', '.']) {
            out.push((name.trim().to_string(), spec.contains("optional = true")));
        }
    }
    out
}

#[test]
fn library_crates_do_not_depend_on_the_shells() {
    for krate in LAYERS {
        let deps = dependencies(&root().join("crates").join(krate).join("Cargo.toml"));
        assert!(!deps.is_empty(), "{krate}: no dependencies read");
        for (name, _) in &deps {
            let allowed = *krate == "planc-lsp" && name.starts_with("lsp-");
            assert!(
                allowed || !SHELL_ONLY.contains(&name.as_str()),
                "{krate} depends on `{name}`, a dependency of the command line or the language server only"
            );
        }
    }
    // The root package: the shells' dependencies only behind its features.
    let deps = dependencies(&root().join("Cargo.toml"));
    for (name, optional) in &deps {
        if SHELL_ONLY.contains(&name.as_str()) || name == "planc-lsp" {
            assert!(
                optional,
                "the root package depends on `{name}` without a feature"
            );
        }
    }
}

#[test]
fn a_crate_depends_only_on_the_layers_below_it() {
    for (i, krate) in LAYERS.iter().enumerate() {
        let deps = dependencies(&root().join("crates").join(krate).join("Cargo.toml"));
        for (name, _) in deps.iter().filter(|(n, _)| n.starts_with("planc-")) {
            let below = LAYERS.get(..i).unwrap_or_default();
            assert!(
                below.contains(&name.as_str()),
                "{krate} depends on {name}, which is not a layer below it"
            );
        }
    }
}

fn rust_files(dir: &Path, out: &mut Vec<PathBuf>) {
    for entry in fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.is_dir() {
            rust_files(&path, out);
        } else if path.extension().is_some_and(|e| e == "rs") {
            out.push(path);
        }
    }
}

/// The top-level module a file of `src` belongs to (`check` for
/// `src/check/plan/args.rs`, `source` for `src/source.rs`).
fn top_module(src: &Path, file: &Path) -> String {
    let rel = file.strip_prefix(src).unwrap();
    let first = rel
        .components()
        .next()
        .unwrap()
        .as_os_str()
        .to_string_lossy();
    first.trim_end_matches(".rs").to_string()
}

/// The `crate::NAME` imports of the code of a file (comments and test
/// modules left out).
fn crate_refs(text: &str) -> BTreeSet<String> {
    let code = text.split("#[cfg(test)]\nmod tests {").next().unwrap_or("");
    let mut out = BTreeSet::new();
    for line in code.lines() {
        let line = line.split("//").next().unwrap_or("");
        let mut rest = line;
        while let Some(at) = rest.find("crate::") {
            let after = &rest[at + "crate::".len()..];
            let name: String = after
                .chars()
                .take_while(|c| c.is_ascii_alphanumeric() || *c == '_')
                .collect();
            if !name.is_empty() {
                out.insert(name);
            }
            rest = after;
        }
    }
    out
}

/// The import graph between a crate's top-level modules.
fn module_graph(src: &Path) -> BTreeMap<String, BTreeSet<String>> {
    let mut files = Vec::new();
    rust_files(src, &mut files);
    let modules: BTreeSet<String> = files
        .iter()
        .map(|f| top_module(src, f))
        .filter(|m| m != "lib" && m != "main")
        .collect();
    let mut graph: BTreeMap<String, BTreeSet<String>> = modules
        .iter()
        .map(|m| (m.clone(), BTreeSet::new()))
        .collect();
    for file in &files {
        let from = top_module(src, file);
        let is_test = file.file_name().is_some_and(|n| n == "tests.rs")
            || file.components().any(|c| c.as_os_str() == "tests");
        if is_test || !modules.contains(&from) {
            continue;
        }
        let text = fs::read_to_string(file).unwrap();
        for to in crate_refs(&text) {
            if to != from && modules.contains(&to) {
                graph.entry(from.clone()).or_default().insert(to);
            }
        }
    }
    graph
}

/// The strongly connected groups of more than one module.
fn circles(graph: &BTreeMap<String, BTreeSet<String>>) -> Vec<BTreeSet<String>> {
    let reach = |start: &String| {
        let mut seen = BTreeSet::new();
        let mut stack = vec![start.clone()];
        while let Some(m) = stack.pop() {
            for next in graph.get(&m).into_iter().flatten() {
                if seen.insert(next.clone()) {
                    stack.push(next.clone());
                }
            }
        }
        seen
    };
    let reaches: BTreeMap<&String, BTreeSet<String>> =
        graph.keys().map(|m| (m, reach(m))).collect();
    let mut out: Vec<BTreeSet<String>> = Vec::new();
    for (m, from_m) in &reaches {
        let group: BTreeSet<String> = from_m
            .iter()
            .filter(|n| reaches.get(n).is_some_and(|r| r.contains(*m)))
            .cloned()
            .collect();
        if group.len() > 1 && !out.contains(&group) {
            out.push(group);
        }
    }
    out
}

#[test]
fn module_circles_inside_a_crate_are_only_the_known_ones() {
    let mut crates: Vec<(&str, PathBuf)> = LAYERS
        .iter()
        .map(|k| (*k, root().join("crates").join(k).join("src")))
        .collect();
    crates.push(("planc", root().join("src")));
    for (krate, src) in crates {
        let known: BTreeSet<&str> = KNOWN_CIRCLES
            .iter()
            .filter(|(k, _)| *k == krate)
            .flat_map(|(_, mods)| mods.iter().copied())
            .collect();
        for group in circles(&module_graph(&src)) {
            let new: Vec<&String> = group
                .iter()
                .filter(|m| !known.contains(m.as_str()))
                .collect();
            assert!(
                new.is_empty(),
                "{krate}: the modules {group:?} import each other in a circle ({new:?} not in \
                 KNOWN_CIRCLES): import from a lower module only"
            );
        }
    }
}

#[test]
fn the_circle_finder_finds_a_circle() {
    let graph: BTreeMap<String, BTreeSet<String>> = [
        ("a", vec!["b"]),
        ("b", vec!["c"]),
        ("c", vec!["a"]),
        ("d", vec!["a"]),
    ]
    .into_iter()
    .map(|(k, v)| (k.to_string(), v.into_iter().map(String::from).collect()))
    .collect();
    let found = circles(&graph);
    let want: BTreeSet<String> = ["a", "b", "c"].into_iter().map(String::from).collect();
    assert_eq!(found, vec![want]);
    assert_eq!(
        crate_refs("use crate::ir::X; // crate::check\nfn f() { crate::progress::y() }"),
        ["ir", "progress"].into_iter().map(String::from).collect()
    );
}
