//! A project and a long plan for the language server's latency
//! measurements (the ignored test in `tests/lsp_e2e.rs`, `benches/lsp.rs`)
//! and its clean check (`tests/lsp.rs`): `steps` steps against
//! `tests/ui/check/tools.plan`, each resolving a customer from the previous
//! one's binding.

// Each user takes what it needs.
#![allow(dead_code)]

/// The plan's text; `${acct499}` occurs once when `steps` > 500, which the
/// measurements misspell and fix in turn.
pub fn big_plan(steps: usize) -> String {
    let mut s = String::from("plan big \"many steps\" {\n");
    s.push_str(
        "    step s0 = customer.resolve(email: \"a@b.c\") {\n        post len($.results) == 1\n        bind acct0 = $.results[0].id\n    }\n",
    );
    for i in 1..steps {
        s.push_str(&format!(
            "    step s{i} = customer.resolve(email: \"${{acct{}}}@x.y\") {{\n        post len($.results) == 1\n        bind acct{i} = $.results[0].id\n    }}\n",
            i - 1
        ));
    }
    s.push_str("}\n");
    s
}

/// The catalogue and the policy the plan is checked against.
pub const TOOLS: &str = include_str!("../ui/check/tools.plan");
pub const POLICY: &str = include_str!("../ui/check/policy.plan");

/// A new folder under the temporary directory, named `NAME-PID`, with
/// `planc.toml`, `tools.plan` and `policy.plan`.
pub fn project(name: &str) -> std::path::PathBuf {
    let dir = std::env::temp_dir().join(format!("{name}-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(
        dir.join("planc.toml"),
        "catalog = [\"tools.plan\"]\npolicy = \"policy.plan\"\n",
    )
    .unwrap();
    std::fs::write(dir.join("tools.plan"), TOOLS).unwrap();
    std::fs::write(dir.join("policy.plan"), POLICY).unwrap();
    dir
}
