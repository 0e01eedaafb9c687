//! Texts for the tests that compare two ways of reading the same text
//! (`incremental`, `stepwise`, the skeletal readings): the repository's
//! plans and random edits of them.

/// A small deterministic generator (xorshift), so a failure reproduces.
pub struct Rng(pub u64);

impl Rng {
    pub fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }

    pub fn below(&mut self, n: usize) -> usize {
        (self.next() % n.max(1) as u64) as usize
    }
}

/// What a random edit types: pieces of the language and of broken text.
pub const SNIPPETS: &[&str] = &[
    "",
    "x",
    "1",
    "\"",
    "//",
    "}",
    "{",
    "(",
    ")",
    ",",
    "\n",
    " ",
    "${acct}",
    "a: 1",
    "///d\n",
    "[",
    "]",
    "post len($.r) == 1",
    "é",
    "2026-01-01",
    "-",
    ".",
    "$",
    ":",
    "12.5",
    "true",
    "bind b = $.x",
    "after find",
    "retry 1",
    "step z = a.b()",
    "\"s\"",
    "#",
    "\u{200b}",
];

/// Every `.plan` file of the repository's examples and tests, sorted.
pub fn plan_files() -> Vec<String> {
    files("plan")
}

/// Every `.json` file of the repository's examples and tests, sorted.
pub fn json_files() -> Vec<String> {
    files("json")
}

/// Every file of the repository's examples and tests whose name ends in
/// `.EXT`, sorted.
fn files(ext: &str) -> Vec<String> {
    // The repository's root, two folders above this crate's.
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    let mut dirs = vec![root.join("examples"), root.join("tests")];
    let mut texts = Vec::new();
    while let Some(dir) = dirs.pop() {
        let Ok(entries) = std::fs::read_dir(&dir) else {
            continue;
        };
        for e in entries.flatten() {
            let path = e.path();
            if path.is_dir() {
                dirs.push(path);
            } else if path.extension().is_some_and(|x| x == ext)
                && let Ok(text) = std::fs::read_to_string(&path)
            {
                texts.push(text);
            }
        }
    }
    texts.sort();
    texts
}
