//! The security suite: attacks a hostile planner (or a careless policy
//! author) tried on the checker, each kept closed. `tests/security/README.md`
//! names each attack and the invariant it would break.
//!
//! Most attacks are a folder under `tests/security/` holding the catalogue
//! (`catalog.plan`, and `catalog.json` as an MCP `tools/list` result), the
//! policy (`policy.plan`, `policy.json`) and the hostile plan (`plan.plan`,
//! `plan.json`). Every combination of the forms present is compiled, with the
//! catalogue and policy given as configuration, and must give exactly the
//! errors the folder's `expect` file lists (`FILE: CODES` lines apply when
//! that file is in the combination, a bare `CODES` line otherwise), and no
//! IR. `expect` may instead say `guard: STEP ARG`: the plan compiles, and the
//! IR carries a guard over that argument. A `fixed.plan` beside it is the
//! same plan made safe, and must compile clean: the attack is refused for
//! what it does, not for its shape.

#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    clippy::indexing_slicing
)]

use std::path::{Path, PathBuf};
use std::process::Command;

use planc::driver::{self, Job};
use planc::{Code, Severity};

#[path = "security/records.rs"]
mod records;
/// The executor's side: `tests/security/run.rs`.
#[path = "security/run.rs"]
mod run;

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/security")
}

/// Compiles `plan` against the catalogue and policy files given, as the
/// command line does when they come from flags or `planc.toml`.
fn compile(plan: &Path, catalog: &[&Path], policy: &[&Path]) -> (Job, driver::Outcome) {
    let mut job = Job::default();
    let add = |job: &mut Job, p: &Path| {
        let name = p
            .strip_prefix(env!("CARGO_MANIFEST_DIR"))
            .unwrap_or(p)
            .display()
            .to_string();
        if let Some(f) = job.sources.files().find(|f| f.name == name) {
            return f.id;
        }
        job.sources.add(name, std::fs::read_to_string(p).unwrap())
    };
    let id = add(&mut job, plan);
    job.plans.push(id);
    for c in catalog {
        let id = add(&mut job, c);
        job.catalog.push(id);
    }
    for p in policy {
        let id = add(&mut job, p);
        job.policy.push(id);
    }
    let outcome = driver::run(&mut job);
    (job, outcome)
}

fn error_codes(outcome: &driver::Outcome) -> Vec<Code> {
    let mut v: Vec<Code> = outcome
        .diagnostics
        .iter()
        .filter(|d| d.severity != Severity::Note)
        .map(|d| d.code)
        .collect();
    v.sort();
    v
}

fn parse_codes(s: &str) -> Vec<Code> {
    let mut v: Vec<Code> = s
        .split_whitespace()
        .map(|c| Code::parse(c).unwrap_or_else(|| panic!("`{c}` is not a code")))
        .collect();
    v.sort();
    v
}

/// What an attack folder expects of one combination of files.
enum Expect {
    Codes(Vec<Code>),
    Guard { step: String, arg: String },
}

fn expectation(dir: &Path, files: &[&Path]) -> Expect {
    let text = std::fs::read_to_string(dir.join("expect")).unwrap();
    let mut fallback = None;
    for line in text.lines().map(str::trim).filter(|l| !l.is_empty()) {
        if let Some(rest) = line.strip_prefix("guard:") {
            let mut w = rest.split_whitespace();
            return Expect::Guard {
                step: w.next().unwrap().to_string(),
                arg: w.next().unwrap().to_string(),
            };
        }
        match line.split_once(':') {
            Some((file, codes)) => {
                if files
                    .iter()
                    .any(|f| f.file_name().is_some_and(|n| n == file.trim()))
                {
                    return Expect::Codes(parse_codes(codes));
                }
            }
            None => fallback = Some(parse_codes(line)),
        }
    }
    Expect::Codes(fallback.unwrap_or_else(|| panic!("{}: no expectation", dir.display())))
}

/// The guards of step `step` in the IR, as `arg` names.
fn guards(job: &Job, outcome: &driver::Outcome, step: &str) -> Vec<String> {
    let irs = driver::lower(job, outcome).unwrap();
    let v = serde_json::to_value(&irs[0]).unwrap();
    let s = v["steps"]
        .as_array()
        .unwrap()
        .iter()
        .find(|s| s["name"] == step)
        .unwrap_or_else(|| panic!("no step `{step}` in the IR"));
    s["authz"]["guards"]
        .as_array()
        .unwrap()
        .iter()
        .map(|g| g["arg"].as_str().unwrap().to_string())
        .collect()
}

fn present(dir: &Path, names: &[&str]) -> Vec<PathBuf> {
    names
        .iter()
        .map(|n| dir.join(n))
        .filter(|p| p.is_file())
        .collect()
}

#[test]
fn every_attack_in_every_form_is_refused() {
    let mut dirs: Vec<PathBuf> = std::fs::read_dir(root())
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.is_dir() && p.join("expect").is_file() && !p.join("planc.toml").exists())
        .collect();
    dirs.sort();
    assert!(dirs.len() >= 6, "the attack folders are missing");
    let mut failures = Vec::new();
    let mut combinations = 0;
    for dir in &dirs {
        let catalogs = present(dir, &["catalog.plan", "catalog.json"]);
        let policies = present(dir, &["policy.plan", "policy.json"]);
        let plans = present(dir, &["plan.plan", "plan.json"]);
        assert!(!catalogs.is_empty() && !policies.is_empty() && !plans.is_empty());
        for c in &catalogs {
            for p in &policies {
                for plan in &plans {
                    combinations += 1;
                    let files = [c.as_path(), p.as_path(), plan.as_path()];
                    let (job, outcome) = compile(plan, &[c], &[p]);
                    let got = error_codes(&outcome);
                    let what = format!(
                        "{} with {} and {}",
                        plan.strip_prefix(root()).unwrap().display(),
                        c.file_name().unwrap().to_string_lossy(),
                        p.file_name().unwrap().to_string_lossy()
                    );
                    match expectation(dir, &files) {
                        Expect::Codes(want) => {
                            if got != want {
                                failures.push(format!("{what}: expected {want:?}, got {got:?}"));
                            }
                            if driver::lower(&job, &outcome).is_ok() {
                                failures.push(format!("{what}: an IR was produced"));
                            }
                        }
                        Expect::Guard { step, arg } => {
                            if outcome.has_errors() {
                                failures.push(format!("{what}: errors {got:?}"));
                                continue;
                            }
                            if !guards(&job, &outcome, &step).contains(&arg) {
                                failures.push(format!(
                                    "{what}: step `{step}` has no guard over `{arg}`"
                                ));
                            }
                        }
                    }
                }
            }
        }
        // The same plan made safe compiles, against every form.
        if let Some(fixed) = present(dir, &["fixed.plan"]).first() {
            for c in &catalogs {
                for p in &policies {
                    let (_, outcome) = compile(fixed, &[c], &[p]);
                    let got = error_codes(&outcome);
                    if !got.is_empty() {
                        failures.push(format!(
                            "{}: the fixed plan gives {got:?}",
                            fixed.strip_prefix(root()).unwrap().display()
                        ));
                    }
                }
            }
        }
    }
    assert!(combinations >= 20, "only {combinations} combinations ran");
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

// ------------------------------------------------- finding 3: planner's tools

/// The planner declares the tool the configured catalogue lacks (finding 3):
/// its declaration is refused and does not join the catalogue, so the step
/// names an unknown tool.
#[test]
fn a_plan_cannot_supply_a_tool_signature() {
    let dir = root().join("plan_declares_tool");
    let (job, outcome) = compile(
        &dir.join("plan.plan"),
        &[&dir.join("catalog.plan")],
        &[&dir.join("policy.plan")],
    );
    assert_eq!(error_codes(&outcome), vec![Code::E0005, Code::E0101]);
    assert!(outcome.checked.catalog.get("billing.refund").is_none());
    let e = outcome
        .diagnostics
        .iter()
        .find(|d| d.code == Code::E0005)
        .unwrap();
    assert!(
        e.help.as_deref().unwrap().contains("catalog.plan"),
        "the help names where the real catalogue lives: {e:?}"
    );
    assert!(driver::lower(&job, &outcome).is_err());
}

/// A plan file may not bring its own policy either, even when only the
/// catalogue is configured.
#[test]
fn a_plan_cannot_supply_a_policy() {
    let dir = root().join("both_roles");
    let (_, outcome) = compile(&dir.join("plan.plan"), &[&dir.join("rules.plan")], &[]);
    let codes = error_codes(&outcome);
    assert!(codes.contains(&Code::E0005), "{codes:?}");
    // With no policy in force, every tool is denied.
    assert!(codes.contains(&Code::E0301), "{codes:?}");
}

/// A JSON catalogue given as the plan, while a catalogue is configured, is
/// refused once for the file: its tools do not join.
#[test]
fn a_json_catalogue_given_as_a_plan_is_refused() {
    let dir = root().join("incomparable_literal");
    let other = root().join("optional_absent");
    let (_, outcome) = compile(
        &dir.join("catalog.json"),
        &[&other.join("catalog.plan")],
        &[&other.join("policy.plan")],
    );
    assert_eq!(error_codes(&outcome), vec![Code::E0005]);
    assert!(outcome.checked.catalog.get("billing.refund").is_some());
    assert!(
        outcome
            .checked
            .catalog
            .get("billing.refund")
            .unwrap()
            .params[1]
            .name
            == "amount_eur",
        "the configured catalogue's refund is in force, not the plan file's"
    );
}

/// With no configuration at all, one file may still hold all three.
#[test]
fn without_configuration_one_file_holds_all_three() {
    let mut job = Job::default();
    let text = "tool t.x(a: int) -> { id: string } write\n\
                policy p { actor [s] t.x requires [s] where a <= 5 }\n\
                plan q \"g\" { step one = t.x(a: 3) { post exists($.id) } }\n";
    let id = job.sources.add("all.plan", text);
    job.plans.push(id);
    let outcome = driver::run(&mut job);
    assert!(
        outcome.diagnostics.iter().all(|d| !d.is_error()),
        "{:?}",
        outcome.diagnostics
    );
}

// ------------------------------------------- finding 4: a file in two roles

fn planc() -> Command {
    Command::new(env!("CARGO_BIN_EXE_planc"))
}

fn json_codes(out: &std::process::Output) -> (Vec<Code>, serde_json::Value) {
    let v: serde_json::Value = serde_json::from_slice(&out.stdout)
        .unwrap_or_else(|e| panic!("{e}: {}", String::from_utf8_lossy(&out.stderr)));
    let mut codes: Vec<Code> = v["diagnostics"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|d| d["severity"] != "note")
        .map(|d| Code::parse(d["code"].as_str().unwrap()).unwrap())
        .collect();
    codes.sort();
    (codes, v)
}

/// `planc.toml` names one file as both the catalogue and the policy: it is
/// read in both roles, so its ceiling governs, and the plan's own policy is
/// refused (finding 4).
#[test]
fn a_file_named_in_two_roles_is_read_in_both() {
    let dir = root().join("both_roles");
    let out = planc()
        .args(["check", "--format", "json"])
        .arg(dir.join("plan.plan"))
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    let (codes, v) = json_codes(&out);
    assert_eq!(
        codes,
        parse_codes(&std::fs::read_to_string(dir.join("expect")).unwrap())
    );
    assert!(
        v["config"]
            .as_str()
            .unwrap()
            .ends_with("both_roles/planc.toml"),
        "the JSON document names the configuration: {v}"
    );
}

// ------------------------------------------- finding 5: types too deep

/// A text result type nested past the limit (`[[…]?]?`, brackets within the
/// parser's cap, the `?` doubling the depth).
fn deep_text_type(levels: usize) -> String {
    let mut t = "decimal".to_string();
    for _ in 0..levels {
        t = format!("[{t}]?");
    }
    t
}

/// A JSON Schema nested `["array", "null"]` levels deep.
fn deep_schema(levels: usize) -> String {
    let mut s = r#"{"type": "number"}"#.to_string();
    for _ in 0..levels {
        s = format!(r#"{{"type": ["array", "null"], "items": {s}}}"#);
    }
    s
}

fn deep_catalogues(levels: usize) -> (String, String) {
    let text = format!(
        "tool data.fetch(id: string) -> {{ deep: {} }} read idempotent\n\
         tool billing.issue_credit(account_id: string, amount_eur: decimal) -> {{ credit_id: string }} write\n",
        deep_text_type(levels)
    );
    let json = format!(
        r#"{{"tools": [
  {{"name": "data.fetch", "annotations": {{"readOnlyHint": true}},
    "inputSchema": {{"type": "object", "properties": {{"id": {{"type": "string"}}}}, "required": ["id"]}},
    "outputSchema": {{"type": "object", "properties": {{"deep": {}}}, "required": ["deep"]}}}},
  {{"name": "billing.issue_credit",
    "inputSchema": {{"type": "object", "properties": {{"account_id": {{"type": "string"}}, "amount_eur": {{"type": "number"}}}}, "required": ["account_id", "amount_eur"]}},
    "outputSchema": {{"type": "object", "properties": {{"credit_id": {{"type": "string"}}}}, "required": ["credit_id"]}}}}
]}}"#,
        deep_schema(levels)
    );
    (text, json)
}

#[test]
fn a_type_too_deep_is_an_error_at_the_type_not_any() {
    let policy = "policy agent { actor [data:read, billing:write]\n\
                  data.fetch requires [data:read]\n\
                  billing.issue_credit requires [billing:write] where amount_eur <= 500 }\n";
    let plan = "plan p \"g\" {\n\
                step f = data.fetch(id: \"x\") { post exists($.deep) bind deep = $.deep }\n\
                step c = billing.issue_credit(account_id: \"a\", amount_eur: deep) { post exists($.credit_id) }\n}\n";
    // 40 levels of `[T]?` are 80 type levels; 33 JSON Schema levels 66.
    let (text, _) = deep_catalogues(40);
    let (_, json) = deep_catalogues(33);
    for (name, catalog) in [("deep.plan", text), ("deep.json", json)] {
        let mut job = Job::default();
        let c = job.sources.add(name, catalog);
        let p = job.sources.add("policy.plan", policy);
        let id = job.sources.add("plan.plan", plan);
        job.plans.push(id);
        job.catalog.push(c);
        job.policy.push(p);
        let outcome = driver::run(&mut job);
        let e = outcome
            .diagnostics
            .iter()
            .find(|d| d.code == Code::E0003)
            .unwrap_or_else(|| panic!("{name}: no E0003: {:?}", outcome.diagnostics));
        assert_eq!(
            e.span.file, c,
            "{name}: the error is at the type, in the catalogue"
        );
        assert!(driver::lower(&job, &outcome).is_err());
    }
    // Just within the limit, the same catalogue is fine.
    let (text, json) = deep_catalogues(30);
    for (name, catalog) in [("ok.plan", text), ("ok.json", json)] {
        let mut job = Job::default();
        let c = job.sources.add(name, catalog);
        job.catalog.push(c);
        let outcome = driver::run(&mut job);
        assert!(
            outcome.diagnostics.iter().all(|d| d.code != Code::E0003),
            "{name}: {:?}",
            outcome.diagnostics
        );
    }
}

// ------------------------------------------- finding 8: configuration

fn scratch(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("planc-security-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(dir.join("project/plans")).unwrap();
    dir
}

/// A `planc.toml` in a parent folder says `actor = ["*"]`. Given
/// `--catalog` and `--policy`, planc does not consult it: the actor comes
/// from the policy alone. `--no-config` ignores it always.
#[test]
fn a_parent_planc_toml_cannot_widen_the_actor() {
    let dir = scratch("widen");
    let sec = root().join("optional_absent");
    std::fs::write(dir.join("planc.toml"), "actor = [\"*\"]\n").unwrap();
    std::fs::write(
        dir.join("project/policy.plan"),
        "policy agent {\n    actor [crm:read]\n    billing.refund requires [billing:write]\n}\n",
    )
    .unwrap();
    let plan = dir.join("project/plans/refund.plan");
    std::fs::write(
        &plan,
        "plan refund \"refund\" {\n    step r = billing.refund(order_id: \"o\", amount_eur: 5) { post exists($.refund_id) }\n}\n",
    )
    .unwrap();
    let catalog = sec.join("catalog.plan");
    let policy = dir.join("project/policy.plan");
    let run = |extra: &[&str]| {
        planc()
            .args(["check", "--format", "json"])
            .args(extra)
            .arg("--catalog")
            .arg(&catalog)
            .arg("--policy")
            .arg(&policy)
            .arg(&plan)
            .output()
            .unwrap()
    };
    for extra in [&[][..], &["--no-config"][..]] {
        let out = run(extra);
        let (codes, v) = json_codes(&out);
        assert_eq!(codes, vec![Code::E0302], "{extra:?}: {v}");
        assert!(
            v.get("config").is_none(),
            "{extra:?}: no planc.toml was used: {v}"
        );
    }
    // With only one of the two flags, the planc.toml is used, and named.
    let out = planc()
        .args(["check", "--format", "json", "--catalog"])
        .arg(&catalog)
        .arg(&plan)
        .output()
        .unwrap();
    let (_, v) = json_codes(&out);
    assert!(v["config"].as_str().unwrap().ends_with("planc.toml"), "{v}");
    // ... unless refused.
    let out = planc()
        .args(["check", "--format", "human", "--no-config", "--catalog"])
        .arg(&catalog)
        .arg(&plan)
        .output()
        .unwrap();
    assert!(!String::from_utf8_lossy(&out.stderr).contains("planc.toml"));
    let out = planc()
        .args([
            "check",
            "--format",
            "human",
            "--color",
            "never",
            "--catalog",
        ])
        .arg(&catalog)
        .arg(&plan)
        .output()
        .unwrap();
    assert!(
        String::from_utf8_lossy(&out.stderr).contains("planc.toml`"),
        "the human report names the configuration: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    let _ = std::fs::remove_dir_all(&dir);
}

// ------------------------------------------- finding 9: openWorldHint

/// planc marks a tool untrusted only on an explicit `openWorldHint: true`
/// (the protocol's default is true; planc keeps explicit-true, documented
/// in docs/threat-model.md); the policy can say so itself.
#[test]
fn open_world_hint_is_explicit_and_the_policy_can_mark_trust() {
    let catalog = r#"{"tools": [
      {"name": "web.fetch", "annotations": {"readOnlyHint": true, "openWorldHint": true},
       "inputSchema": {"type": "object", "properties": {"url": {"type": "string"}}, "required": ["url"]},
       "outputSchema": {"type": "object", "properties": {"text": {"type": "string"}}, "required": ["text"]}},
      {"name": "kb.fetch", "annotations": {"readOnlyHint": true},
       "inputSchema": {"type": "object", "properties": {"url": {"type": "string"}}, "required": ["url"]},
       "outputSchema": {"type": "object", "properties": {"text": {"type": "string"}}, "required": ["text"]}},
      {"name": "mail.send",
       "inputSchema": {"type": "object", "properties": {"body": {"type": "string"}}, "required": ["body"]},
       "outputSchema": {"type": "object", "properties": {"id": {"type": "string"}}, "required": ["id"]}}
    ]}"#;
    let plan = |tool: &str| {
        format!(
            "plan p \"g\" {{\n step f = {tool}(url: \"u\") {{ post exists($.text) bind text = $.text }}\n step s = mail.send(body: text) {{ post exists($.id) }}\n}}\n"
        )
    };
    let policy = |tool: &str, untrusted: &str| {
        let rule = |t: &str| {
            if t == tool {
                format!(r#"{{"scopes": ["r"]{untrusted}}}"#)
            } else {
                r#"{"scopes": ["r"]}"#.to_string()
            }
        };
        format!(
            r#"{{"actor": {{"scopes": ["r", "w"]}}, "tools": {{"web.fetch": {}, "kb.fetch": {}, "mail.send": {{"scopes": ["w"]}}}}}}"#,
            rule("web.fetch"),
            rule("kb.fetch")
        )
    };
    let warns = |tool: &str, flag: &str| {
        let mut job = Job::default();
        let c = job.sources.add("tools.json", catalog);
        let p = job.sources.add("policy.json", policy(tool, flag));
        let id = job.sources.add("plan.plan", plan(tool));
        job.plans.push(id);
        job.catalog.push(c);
        job.policy.push(p);
        let outcome = driver::run(&mut job);
        assert!(!outcome.has_errors(), "{:?}", outcome.diagnostics);
        outcome.diagnostics.iter().any(|d| d.code == Code::W0404)
    };
    assert!(
        warns("web.fetch", ""),
        "explicit openWorldHint: true taints"
    );
    assert!(
        !warns("kb.fetch", ""),
        "no hint: trusted (documented choice)"
    );
    assert!(
        warns("kb.fetch", r#", "untrusted": true"#),
        "the policy can taint"
    );
    assert!(
        !warns("web.fetch", r#", "untrusted": false"#),
        "the policy can trust, overriding the catalogue"
    );
    // The same both ways in a text policy.
    let text_policy = |clause: &str| {
        format!(
            "policy p {{ actor [r, w]\n web.fetch requires [r]{clause}\n kb.fetch requires [r]\n mail.send requires [w] }}\n"
        )
    };
    for (clause, tainted) in [
        ("", true),
        (" untrusted false", false),
        (" untrusted", true),
    ] {
        let mut job = Job::default();
        let c = job.sources.add("tools.json", catalog);
        let p = job.sources.add("policy.plan", text_policy(clause));
        let id = job.sources.add("plan.plan", plan("web.fetch"));
        job.plans.push(id);
        job.catalog.push(c);
        job.policy.push(p);
        let outcome = driver::run(&mut job);
        assert!(!outcome.has_errors(), "{clause}: {:?}", outcome.diagnostics);
        let w = outcome.diagnostics.iter().any(|d| d.code == Code::W0404);
        assert_eq!(w, tainted, "`{clause}`");
    }
}

// ------------------------------------------- the fuzz oracle's own seed

#[path = "support/invariants.rs"]
mod invariants;

/// The `invariants` fuzz target's catalogue, policy and seed plan: the seed
/// is accepted, its IR keeps the invariants as the oracle reads them (so the
/// target starts from a sound corpus), and the guards are there.
#[test]
fn the_fuzz_oracle_accepts_its_seed() {
    let fuzz = Path::new(env!("CARGO_MANIFEST_DIR")).join("fuzz/fixtures");
    let (job, outcome) = compile(
        &fuzz.join("refund.plan"),
        &[&fuzz.join("tools.plan")],
        &[&fuzz.join("policy.plan")],
    );
    assert!(!outcome.has_errors(), "{:?}", outcome.diagnostics);
    let irs = driver::lower(&job, &outcome).unwrap();
    assert_eq!(
        guards(&job, &outcome, "change"),
        vec!["plan".to_string(), "plan".to_string()],
        "the enum proof keeps its guards (the ceiling `!=` and the allowlist)"
    );
    assert_eq!(guards(&job, &outcome, "again"), vec!["amount".to_string()]);
    let w = invariants::fixture_world();
    for ir in &irs {
        let broken = invariants::violations(ir, &w);
        assert!(broken.is_empty(), "{broken:?}");
    }
    // The oracle catches the findings' IRs: strip the guards, or drop an
    // argument under a ceiling, and it objects.
    let mut ir = irs[0].clone();
    for s in &mut ir.steps {
        s.authz.guards.clear();
    }
    assert!(!invariants::violations(&ir, &w).is_empty());
    let mut ir = irs[0].clone();
    for s in &mut ir.steps {
        s.args.remove("fee");
    }
    assert!(!invariants::violations(&ir, &w).is_empty());
    // The trust rules too: the allowlist's guard or the call count dropped.
    let mut ir = irs[0].clone();
    for s in &mut ir.steps {
        s.authz.guards.retain(|g| g.op != planc::ir::GuardOp::In);
    }
    assert!(!invariants::violations(&ir, &w).is_empty());
    let mut ir = irs[0].clone();
    for s in &mut ir.steps {
        s.authz.calls_max = None;
    }
    assert!(!invariants::violations(&ir, &w).is_empty());
}

// ------------------------------------------- finding 7: near-miss rule names

/// A policy rule for a tool not in the catalogue stays allowed (shared
/// policies), but one a letter away from a catalogue tool is W0407.
#[test]
fn a_misspelt_rule_warns_with_the_tool_it_is_close_to() {
    let mut job = Job::default();
    let text = "tool billing.issue_credit(account_id: string, amount_eur: decimal) -> { credit_id: string } write\n\
                policy p { actor [b] billing.issue_credit requires [b]\n billing.isue_credit requires [b] approval human\n crm.other requires [b] }\n";
    let id = job.sources.add("p.plan", text);
    job.plans.push(id);
    let outcome = driver::run(&mut job);
    let w: Vec<_> = outcome
        .diagnostics
        .iter()
        .filter(|d| d.code == Code::W0407)
        .collect();
    assert_eq!(w.len(), 1, "{:?}", outcome.diagnostics);
    assert!(
        w[0].help
            .as_deref()
            .unwrap()
            .contains("billing.issue_credit")
    );
}

// ----------------------------------------------------- the `*` default rule

/// A tool the policy does not name is governed by its `*` rule, ceilings
/// included: over the ceiling is refused in every form (the attack folder
/// `default_rule/`), a referenced amount gets a guard; and without a `*`
/// rule the unnamed tool is still denied, however small the amount.
#[test]
fn the_default_rule_binds_unnamed_tools_and_its_absence_denies_them() {
    let dir = root().join("default_rule");
    let catalogs = present(&dir, &["catalog.plan", "catalog.json"]);
    let with = present(&dir, &["policy.plan", "policy.json"]);
    let without = present(&dir, &["no_default.plan", "no_default.json"]);
    assert_eq!((catalogs.len(), with.len(), without.len()), (2, 2, 2));
    for c in &catalogs {
        for p in &with {
            let (job, outcome) = compile(&dir.join("guarded.plan"), &[c], &[p]);
            assert!(!outcome.has_errors(), "{:?}", outcome.diagnostics);
            assert_eq!(guards(&job, &outcome, "pay"), vec!["amount".to_string()]);
        }
        for p in &without {
            for plan in ["plan.plan", "plan.json", "fixed.plan", "guarded.plan"] {
                let (job, outcome) = compile(&dir.join(plan), &[c], &[p]);
                let got = error_codes(&outcome);
                assert_eq!(got, vec![Code::E0301], "{plan} with {}", p.display());
                assert!(driver::lower(&job, &outcome).is_err(), "{plan}: an IR");
            }
        }
    }
}
