#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    clippy::indexing_slicing
)]
//! `planc fmt --to json|plan`: the conversion between the text and JSON
//! forms (`crates/planc-view/src/fmt/convert.rs`).
//!
//! - Every example, and every generated plan, catalogue and policy,
//!   converts text → JSON → text and JSON → text → JSON, and each form
//!   compiles to the IR of the original (but for `source` and spans); a
//!   second conversion writes the same bytes as the first.
//! - What the JSON form (or the text form) cannot express is refused with
//!   a diagnostic (E0701 into JSON, E0702 into text) at the construct's
//!   span, never written with another meaning.
//! - Every ok fixture converts, or is refused, without a panic; what
//!   converts reads back without errors.

#[path = "support/formless.rs"]
mod formless;
#[path = "support/gen.rs"]
mod plangen;

use std::path::{Path, PathBuf};

use planc::driver::{self, Job};
use planc::fmt::convert::{to_json, to_text};
use planc::syntax::{self, ast};
use planc::{Diagnostic, FileId};
use proptest::prelude::*;

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

fn read(p: &Path) -> String {
    std::fs::read_to_string(p).unwrap()
}

fn no_errors(what: &str, text: &str, diags: &[Diagnostic]) {
    let errors: Vec<&Diagnostic> = diags.iter().filter(|d| d.is_error()).collect();
    assert!(errors.is_empty(), "{what}: {errors:#?}\n{text}");
}

/// The kind of document a text is, which decides how it is read.
#[derive(Clone, Copy, Debug)]
enum Doc {
    Text,
    Plan,
    Catalog,
    Policy,
}

/// Reads a document, which must read without errors.
fn parse(doc: Doc, text: &str) -> ast::Module {
    let (module, diags) = match doc {
        Doc::Text => syntax::parse_text(FileId(0), text),
        Doc::Plan => {
            let (m, d) = syntax::read_json_plan(FileId(0), text);
            (m, d)
        }
        Doc::Catalog => {
            let (m, d) = syntax::read_json_catalog(FileId(0), text);
            (m, d)
        }
        Doc::Policy => {
            let (m, d) = syntax::read_json_policy(FileId(0), text);
            (m, d)
        }
    };
    no_errors(&format!("reading {doc:?}"), text, &diags);
    module
}

fn json(doc: Doc, text: &str) -> String {
    to_json(&parse(doc, text)).unwrap_or_else(|e| panic!("to_json: {e:?}\n{text}"))
}

fn text(doc: Doc, text: &str) -> String {
    to_text(&parse(doc, text)).unwrap_or_else(|e| panic!("to_text: {e:?}\n{text}"))
}

/// A JSON plan in the text form, made explicit with the catalogue of
/// `tools` (text): dates as date literals, `result_count` with its path.
fn explicit_text(plan_json: &str, tools: &str) -> String {
    let mut module = parse(Doc::Plan, plan_json);
    let tools = parse(Doc::Text, tools);
    let mut diags = Vec::new();
    let catalog = planc::catalog::Catalog::build(tools.tools(), &mut diags);
    planc::fmt::convert::make_explicit(&mut module, &catalog);
    to_text(&module).unwrap_or_else(|e| panic!("to_text: {e:?}\n{plan_json}"))
}

/// What one compilation reads: the plan, the catalogue files and the policy
/// (file names with their texts; the extension decides the front end).
#[derive(Clone)]
struct Inputs {
    plan: (String, String),
    catalog: Vec<(String, String)>,
    policy: Option<(String, String)>,
    actor: Option<Vec<String>>,
}

/// The IR of the one plan, without what depends on the form it was read
/// from (`support/formless.rs`: the source, the spans, and the order of a
/// step's guards, which follows the policy's form).
fn ir(inputs: &Inputs) -> serde_json::Value {
    let mut job = Job::default();
    let p = job
        .sources
        .add(inputs.plan.0.clone(), inputs.plan.1.clone());
    job.plans.push(p);
    for (name, t) in &inputs.catalog {
        let id = job.sources.add(name.clone(), t.clone());
        job.catalog.push(id);
    }
    if let Some((name, t)) = &inputs.policy {
        let id = job.sources.add(name.clone(), t.clone());
        job.policy.push(id);
    }
    job.actor = inputs.actor.clone();
    let outcome = driver::run(&mut job);
    let files: Vec<String> = job
        .sources
        .files()
        .map(|f| format!("--- {}\n{}", f.name, f.text))
        .collect();
    assert!(
        !outcome.has_errors(),
        "{:#?}\n{}",
        outcome.diagnostics,
        files.join("\n")
    );
    let mut irs = driver::lower(&job, &outcome).unwrap();
    assert_eq!(irs.len(), 1);
    serde_json::to_value(formless::formless(irs.remove(0))).unwrap()
}

fn with_plan(base: &Inputs, name: &str, text: String) -> Inputs {
    Inputs {
        plan: (name.to_string(), text),
        ..base.clone()
    }
}

fn assert_same_ir(base: &Inputs, want: &serde_json::Value, what: &str, inputs: &Inputs) {
    let got = ir(inputs);
    assert!(
        &got == want,
        "{what}: IR differs from {}\n--- plan\n{}\n--- want\n{}\n--- got\n{}",
        base.plan.0,
        inputs.plan.1,
        serde_json::to_string_pretty(want).unwrap(),
        serde_json::to_string_pretty(&got).unwrap()
    );
}

/// Converts both ways, checks every form against the IR of `base`, and that
/// converting again writes the same bytes. `base` reads its plan, catalogue
/// and policy from text.
fn round_trips(base: &Inputs, json_twin: Option<&str>) {
    let want = ir(base);
    let plan_text = &base.plan.1;

    let same = |what: &str, file: &str, plan: &str| {
        assert_same_ir(base, &want, what, &with_plan(base, file, plan.to_string()));
    };

    // The plan: text → JSON → text.
    let j = json(Doc::Text, plan_text);
    same("text → json", "p.json", &j);
    let jt = text(Doc::Plan, &j);
    same("text → json → text", "p.plan", &jt);
    assert_eq!(json(Doc::Text, &jt), j, "text → json is not stable");
    assert_eq!(text(Doc::Text, &jt), jt, "json → text is not stable");

    // The JSON twin: JSON → text → JSON.
    if let Some(twin) = json_twin {
        let t = text(Doc::Plan, twin);
        same("json → text", "p.plan", &t);
        let tj = json(Doc::Text, &t);
        same("json → text → json", "p.json", &tj);
        assert_eq!(
            json(Doc::Plan, twin),
            tj,
            "json → json differs from json → text → json"
        );
    }

    // The catalogue and the policy, each through JSON and back.
    let sides = base
        .catalog
        .iter()
        .enumerate()
        .map(|(i, c)| (Some(i), c, Doc::Catalog))
        .chain(base.policy.iter().map(|p| (None, p, Doc::Policy)));
    for (index, (name, src), doc) in sides {
        let put = |file: &str, text: String| {
            let mut inputs = base.clone();
            match index {
                Some(i) => inputs.catalog[i] = (file.to_string(), text),
                None => inputs.policy = Some((file.to_string(), text)),
            }
            inputs
        };
        let j = json(Doc::Text, src);
        assert_same_ir(
            base,
            &want,
            &format!("{name} → json"),
            &put("side.json", j.clone()),
        );
        let jt = text(doc, &j);
        let back = put("side.plan", jt.clone());
        assert_same_ir(base, &want, &format!("{name} → json → text"), &back);
        assert_eq!(json(Doc::Text, &jt), j, "{name}: json is not stable");
        assert_eq!(json(doc, &j), j, "{name}: json → json");
    }
}

// ---------------------------------------------------------------- the examples

#[test]
fn every_example_round_trips_to_the_same_ir() {
    let mut seen = 0;
    for dir in ["northwind", "config_dag", "pallet_credit"] {
        let dir = root().join("examples").join(dir);
        let config = planc::project::discover(&dir).unwrap().unwrap();
        let named = |p: &Path| {
            (
                p.file_name().unwrap().to_string_lossy().into_owned(),
                read(p),
            )
        };
        let catalog: Vec<(String, String)> = config.catalog.iter().map(|p| named(p)).collect();
        let policy = config.policy.as_deref().map(named);
        for e in std::fs::read_dir(&dir).unwrap() {
            let p = e.unwrap().path();
            let name = p.file_name().unwrap().to_string_lossy().into_owned();
            if !name.ends_with(".plan") || !read(&p).contains("\nplan ") {
                continue;
            }
            let twin = dir.join(format!("{name}.json"));
            assert!(twin.exists(), "{name} has no JSON twin");
            let base = Inputs {
                plan: named(&p),
                catalog: catalog.clone(),
                policy: policy.clone(),
                actor: config.actor.clone(),
            };
            // The twin is the same plan.
            assert_eq!(ir(&base), ir(&with_plan(&base, "twin.json", read(&twin))));
            round_trips(&base, Some(&read(&twin)));
            seen += 1;
        }
    }
    assert!(seen >= 4, "{seen} example plans");
}

/// `text` without what its JSON form leaves out
/// ([`planc::fmt::convert::left_out_of_json`]): a line that holds only a
/// comment goes whole (and the `///` lines after a doc comment's first),
/// a trailing comment with the spaces before it.
fn without_comments(text: &str) -> String {
    let module = parse(Doc::Text, text);
    let mut out = String::new();
    let mut at = 0;
    for start in planc::fmt::convert::left_out_of_json(text, &module) {
        let start = start as usize;
        let line_start = text[..start].rfind('\n').map_or(0, |i| i + 1);
        let mut end = text[start..].find('\n').map_or(text.len(), |i| start + i);
        if text[start..].starts_with("///") {
            while text[end..]
                .trim_start_matches('\n')
                .trim_start()
                .starts_with("///")
            {
                let next = end + 1;
                end = text[next..].find('\n').map_or(text.len(), |i| next + i);
            }
        }
        if text[line_start..start].trim().is_empty() {
            out.push_str(&text[at..line_start]);
            at = (end + 1).min(text.len());
        } else {
            out.push_str(text[at..start].trim_end());
            at = end;
        }
    }
    out.push_str(&text[at..]);
    out
}

/// Every `.plan` file of the examples (plans, catalogues, policies), laid
/// out, converted to JSON and back to text (with the catalogue of its
/// folder, as `planc fmt --to plan` reads it) and laid out, is the file
/// itself but for its plain comments, which JSON cannot hold.
#[test]
fn every_example_comes_back_from_json_as_it_was_laid_out() {
    let mut files = Vec::new();
    for dir in ["northwind", "config_dag", "pallet_credit"] {
        let dir = root().join("examples").join(dir);
        let config = planc::project::discover(&dir).unwrap().unwrap();
        let mut diags = Vec::new();
        let tools: Vec<ast::Module> = config
            .catalog
            .iter()
            .map(|p| parse(Doc::Text, &read(p)))
            .collect();
        let catalog =
            planc::catalog::Catalog::build(tools.iter().flat_map(|m| m.tools()), &mut diags);
        for e in std::fs::read_dir(&dir).unwrap() {
            let p = e.unwrap().path();
            if p.extension().is_some_and(|e| e == "plan") {
                files.push((p, catalog.clone()));
            }
        }
    }
    assert!(files.len() >= 10, "{} example files", files.len());
    for (path, catalog) in &files {
        let laid_out = planc::fmt::layout::layout(&read(path)).unwrap();
        let module = parse(Doc::Text, &laid_out);
        let doc = if module.plans().next().is_some() {
            Doc::Plan
        } else if module.policies().next().is_some() {
            Doc::Policy
        } else {
            Doc::Catalog
        };
        let j = to_json(&module).unwrap_or_else(|e| panic!("{}: {e:?}", path.display()));
        let mut back = parse(doc, &j);
        planc::fmt::convert::make_explicit(&mut back, catalog);
        let t = to_text(&back).unwrap_or_else(|e| panic!("{}: {e:?}", path.display()));
        let got = planc::fmt::layout::layout(&t).unwrap();
        let want = planc::fmt::layout::layout(&without_comments(&laid_out)).unwrap();
        assert_eq!(got, want, "{}: text → JSON → text", path.display());
    }
}

#[test]
fn the_northwind_plan_as_json_reads_like_the_design() {
    let j = json(
        Doc::Text,
        &read(&root().join("examples/northwind/downgrade.plan")),
    );
    let first = r#"{
  "name": "downgrade_northwind",
  "goal": "downgrade Northwind Traders to Starter at end of period",
  "budget": {
    "replans": 2
  },
  "steps": [
    {
      "n": 0,
      "name": "resolve",
      "tool": "customer.resolve",
      "args": {
        "email": "a.kohl@northwind-traders.co.uk",
        "include_children": true
      },
      "post": {
        "probe": "result_count",
        "path": "$.results",
        "equals": 1
      },
      "binds": {
        "account_id": "$.results[0].id"
      },
      "on_unmet": "replan"
    },"#;
    assert!(j.starts_with(first), "{j}");
    assert!(j.contains(r#""reason": "downgrade to starter effective ${period_end}""#));
    assert!(j.contains(r#""amount_eur": "${credit}""#));
}

// ---------------------------------------------------------------- generated plans

fn config() -> ProptestConfig {
    let cases = std::env::var("PROPTEST_CASES")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(48);
    ProptestConfig {
        cases,
        max_shrink_iters: 1024,
        ..ProptestConfig::default()
    }
}

proptest! {
    #![proptest_config(config())]

    /// Generated plans, catalogues and policies convert both ways to the
    /// same IR, from the text form and from the JSON form.
    #[test]
    fn generated_plans_round_trip_to_the_same_ir(data in prop::collection::vec(any::<u32>(), 0..600)) {
        let mut c = plangen::Choices::new(&data);
        let world = plangen::world(&mut c);
        let plan = plangen::plan(&mut c, &world);
        let base = Inputs {
            plan: ("gen.plan".to_string(), plangen::plan_text(&plan).0),
            catalog: vec![("tools.plan".to_string(), plangen::tools_text(&world))],
            policy: Some(("policy.plan".to_string(), plangen::policy_text(&world))),
            actor: None,
        };
        round_trips(&base, Some(&plangen::plan_json(&plan)));

        // Made explicit with the catalogue, the JSON plan's text form is the
        // same plan still, and is stable.
        let explicit = explicit_text(&plangen::plan_json(&plan), &base.catalog[0].1);
        let want = ir(&base);
        assert_same_ir(&base, &want, "json → explicit text", &with_plan(&base, "p.plan", explicit.clone()));
        assert_eq!(text(Doc::Text, &explicit), explicit, "explicit text is not stable");

        // The generator's own JSON catalogue and policy, through text.
        let want = ir(&base);
        let mut from_json = base.clone();
        from_json.catalog = vec![(
            "tools.plan".to_string(),
            text(Doc::Catalog, &plangen::tools_json(&world)),
        )];
        from_json.policy = Some((
            "policy.plan".to_string(),
            text(Doc::Policy, &plangen::policy_json(&world)),
        ));
        assert_same_ir(&base, &want, "json catalogue and policy → text", &from_json);
    }
}

// ---------------------------------------------------------------- exactness

#[test]
fn strings_keep_every_character_both_ways() {
    let src = r#"plan p {
    step a = t.x(s: "q\"b\\s\nn\tt\rr\0z \$5 \${x} $ end \u{1F600} \u{7} \u{2028}", n: 007, d: -00.50, e: 500.00)
}
"#;
    let j = json(Doc::Text, src);
    assert!(
        j.contains(r#""s": "q\"b\\s\nn\tt\rr\u0000z $5 $${x} $ end 😀 \u0007 "#),
        "{j}"
    );
    assert!(j.contains(r#""n": 7,"#), "{j}");
    assert!(j.contains(r#""d": -0.50,"#), "{j}");
    assert!(j.contains(r#""e": 500.00"#), "{j}");
    let t = text(Doc::Plan, &j);
    assert!(
        t.contains(r#"s: "q\"b\\s\nn\tt\rr\0z $5 \${x} $ end 😀 \u{7} \u{2028}""#),
        "{t}"
    );
    // Read back from either form, the same tree writes the same JSON.
    assert_eq!(json(Doc::Text, &t), j);
}

#[test]
fn interpolation_and_escaped_dollars_survive() {
    let src = r#"plan p {
    step a = t.x() {
        bind x = $.v
    }

    step b = t.y(s: "\${lit} and ${x.m}!", u: "${x}${x}", w: "a$b $ {c}")
}
"#;
    let j = json(Doc::Text, src);
    assert!(j.contains(r#""s": "$${lit} and ${x.m}!""#), "{j}");
    assert!(j.contains(r#""u": "${x}${x}""#), "{j}");
    assert!(j.contains(r#""w": "a$b $ {c}""#), "{j}");
    let t = text(Doc::Plan, &j);
    assert!(t.contains(r#"s: "\${lit} and ${x.m}!""#), "{t}");
    assert_eq!(text(Doc::Text, &t), t);
    assert_eq!(json(Doc::Text, &t), j);
}

#[test]
fn json_values_the_text_form_spells_differently() {
    // A control character, `${` escaped as `$${`, a string that looks like
    // a date (stays a string), an exponent (a decimal with no point stays a
    // decimal through JSON), and a step named by its number.
    let src = r#"{"steps": [
        {"n": 3, "tool": "t.x", "args": {"c": "a\u0001b", "e": "$$${x}", "d": "2026-03-04",
                                         "x": 1.5e3, "y": 2.50E-1, "z": -0}},
        {"id": "later", "tool": "t.y", "after": [3]}
    ]}"#;
    let j = json(Doc::Plan, src);
    assert!(j.contains(r#""x": 1500e0"#), "{j}");
    assert!(j.contains(r#""y": 0.25"#), "{j}");
    assert!(j.contains(r#""z": -0"#), "{j}");
    assert!(j.contains(r#""e": "$$${x}""#), "{j}");
    assert_eq!(json(Doc::Plan, &j), j);
    let err = to_text(&parse(Doc::Plan, src)).unwrap_err();
    assert_eq!(&src[span(&err)], "1.5e3");
    let src = src.replace("1.5e3", "1500.0");
    let t = text(Doc::Plan, &src);
    assert!(t.contains(r#"c: "a\u{1}b""#), "{t}");
    assert!(t.contains(r#"e: "$\${x}""#), "{t}");
    assert!(t.contains(r#"d: "2026-03-04""#), "{t}");
    assert!(t.contains("step step_3 = t.x("), "{t}");
    assert!(
        t.contains("step later = t.y() {\n        after step_3\n"),
        "{t}"
    );
    assert_eq!(json(Doc::Text, &t), json(Doc::Plan, &src));
}

#[test]
fn types_defaults_and_effects_convert_exactly() {
    let src = r#"/// Two lines
/// of doc.
tool a.b(
    /// the id
    id: string,
    when: date?,
    at: datetime = 2026-03-04T10:00:00+01:00,
    kind: "x" | "y"? = null,
    n: int = 3,
    d: decimal = 1.50,
    tags: [string] = ["a", "\${b}"],
    rec: { k: int, o?: bool, z: any?, nul: null } = { k: 1, o: true, z: {}, nul: null },
    anything: any,
    maybe: any?,
) -> {
    /// the result
    r: [{ id: string, e: "a" | "b" }]?,
    opt?: decimal,
    empty: {},
} read idempotent untrusted

tool w(x: int) -> any write
"#;
    let j = json(Doc::Text, src);
    let t = text(Doc::Catalog, &j);
    assert_eq!(json(Doc::Text, &t), j, "{t}");
    assert_eq!(text(Doc::Text, &t), t);
    assert!(t.starts_with("/// Two lines\n/// of doc.\ntool a.b(\n    /// the id\n    id: string,\n    when: date?,\n"), "{t}");
    assert!(t.contains(r#"kind: "x" | "y"? = null"#), "{t}");
    assert!(t.contains(r#"tags: [string] = ["a", "\${b}"]"#), "{t}");
    assert!(t.contains("} read idempotent untrusted\n"), "{t}");
    assert!(t.contains("tool w(x: int) -> any write\n"), "{t}");
    assert!(
        j.contains(r#""default": "2026-03-04T10:00:00+01:00""#),
        "{j}"
    );
    assert!(j.contains(r#""default": 1.50"#), "{j}");
    // A required `any` parameter stays required; `any?` may be left out.
    assert!(
        j.contains(
            r#""required": [
          "id",
          "anything"
        ]"#
        ),
        "{j}"
    );
}

#[test]
fn policies_convert_with_every_clause() {
    let src = r#"policy p {
    actor [crm:read, billing:*, plain]
    max_steps 12

    a.b requires [crm:read] approval human where x >= 2026-01-01, amount <= 500.00, y >= -3
    c requires [] untrusted
    d
}
"#;
    let j = json(Doc::Text, src);
    let want = r#"{
  "name": "p",
  "actor": {
    "scopes": [
      "crm:read",
      "billing:*",
      "plain"
    ]
  },
  "tools": {
    "a.b": {
      "scopes": [
        "crm:read"
      ],
      "min": {
        "x": "2026-01-01",
        "y": -3
      },
      "max": {
        "amount": 500.00
      },
      "approval": "human"
    },
    "c": {
      "scopes": [],
      "untrusted": true
    },
    "d": {
      "scopes": []
    }
  },
  "max_steps": 12
}
"#;
    assert_eq!(j, want);
    let t = text(Doc::Policy, &j);
    assert_eq!(
        t,
        "policy p {\n    actor [crm:read, billing:*, plain]\n    max_steps 12\n\n    a.b requires [crm:read] approval human where x >= \"2026-01-01\", y >= -3, amount <= 500.00\n    c requires [] untrusted\n    d requires []\n}\n"
    );
}

/// The `*` default rule is `*` in the text form and the key `"*"` in the
/// JSON form, and comes back as it was both ways.
#[test]
fn the_default_rule_converts_both_ways() {
    let src = "policy p {\n    a.b requires [crm:read]\n    * requires [billing:write] approval human where amount <= 500\n}\n";
    let j = json(Doc::Text, src);
    let want = r#"{
  "name": "p",
  "tools": {
    "a.b": {
      "scopes": [
        "crm:read"
      ]
    },
    "*": {
      "scopes": [
        "billing:write"
      ],
      "max": {
        "amount": 500
      },
      "approval": "human"
    }
  }
}
"#;
    assert_eq!(j, want);
    assert_eq!(text(Doc::Policy, &j), src);
}

#[test]
fn policy_effects_and_idempotence_convert_both_ways() {
    let src = r#"policy p {
    orders_lookup requires [orders:read] effect read idempotent
    orders_refund effect write idempotent false
    orders_note untrusted false idempotent
}
"#;
    let j = json(Doc::Text, src);
    for want in [
        r#""effect": "read",
      "idempotent": true"#,
        r#""effect": "write",
      "idempotent": false"#,
        r#""untrusted": false,
      "idempotent": true"#,
    ] {
        assert!(j.contains(want), "{want} in {j}");
    }
    let t = text(Doc::Policy, &j);
    for want in [
        "orders_lookup requires [orders:read] effect read idempotent\n",
        "effect write idempotent false\n",
        "untrusted false idempotent\n",
    ] {
        assert!(t.contains(want), "{want} in {t}");
    }
    assert_eq!(json(Doc::Text, &t), j);
}

#[test]
fn catalogue_hints_convert_as_stated() {
    // A hint that is absent stays absent; `false` stays a statement in
    // JSON. The text form states every effect: no hint is `write` there.
    let src = r#"{"tools": [
  {"name": "a", "inputSchema": {"type": "object"}},
  {"name": "b", "inputSchema": {"type": "object"}, "annotations": {"readOnlyHint": true, "idempotentHint": false}}
]}"#;
    let t = text(Doc::Catalog, src);
    assert!(t.contains("tool a() -> any write\n"), "{t}");
    assert!(t.contains("tool b() -> any read\n"), "{t}");
    let j = json(Doc::Catalog, src);
    assert_eq!(j.matches("readOnlyHint").count(), 1, "{j}");
    assert!(j.contains(r#""idempotentHint": false"#), "{j}");
    // From text, `idempotent` is stated only where written.
    let j = json(
        Doc::Text,
        "tool c() -> any write\ntool d() -> any read idempotent\n",
    );
    assert_eq!(j.matches("idempotentHint").count(), 1, "{j}");
    assert_eq!(j.matches("readOnlyHint").count(), 2, "{j}");
}

#[test]
fn probes_of_every_form_convert() {
    let src = r#"plan p "goal \${x}" {
    max_steps 4

    step a = t.x() {
        post len($.items) == 0
        post len($.items) >= 2
        post $.s == "ok"
        post $.n != 3
        post $.d < 1.5
        post $.t <= 2026-03-04T10:00:00Z
        post $.e in ["a", "b"]
        post $.e not in []
        post exists($.x[0].y)
        retry 2
        on_unmet escalate
        after a
        after b, c
    }
}
"#;
    let j = json(Doc::Text, src);
    for probe in [
        r#""probe": "result_count",
          "path": "$.items",
          "equals": 0"#,
        r#""probe": "result_count",
          "path": "$.items",
          "op": ">=",
          "value": 2"#,
        r#""probe": "field_equals""#,
        r#""probe": "field_compare",
          "path": "$.n",
          "op": "!=""#,
        r#""probe": "field_not_in""#,
        r#""probe": "field_exists",
          "path": "$.x[0].y""#,
        r#""goal": "goal ${x}""#,
    ] {
        assert!(j.contains(probe), "{probe}\n{j}");
    }
    let t = text(Doc::Plan, &j);
    assert_eq!(json(Doc::Text, &t), j);
    assert!(t.contains("        after a, b, c\n"), "{t}");
    // `result_count` without `path`: JSON only.
    let count_default =
        r#"{"steps": [{"tool": "t.x", "post": {"probe": "result_count", "op": ">", "value": 1}}]}"#;
    let j = json(Doc::Plan, count_default);
    assert!(
        j.contains("\"probe\": \"result_count\",\n        \"op\": \">\",\n        \"value\": 1\n"),
        "{j}"
    );
}

// ---------------------------------------------------------------- refusals

fn span(e: &Diagnostic) -> std::ops::Range<usize> {
    e.span.start as usize..e.span.end as usize
}

/// `src` read as `doc` is refused, at the span whose text is `at`, with a
/// message that says `says`.
fn refused(
    doc: Doc,
    src: &str,
    to: fn(&ast::Module) -> Result<String, Box<Diagnostic>>,
    at: &str,
    says: &str,
) {
    let module = parse(doc, src);
    let err = match to(&module) {
        Ok(out) => panic!("converted, should be refused ({says}):\n{src}\n---\n{out}"),
        Err(e) => e,
    };
    assert_eq!(&src[span(&err)], at, "{err:?}");
    assert!(
        err.message.contains(says),
        "{:?} does not say {says:?}",
        err.message
    );
    // Text is refused on its way into JSON, JSON on its way into text.
    let code = if matches!(doc, Doc::Text) {
        planc::Code::E0701
    } else {
        planc::Code::E0702
    };
    assert_eq!(err.code, code, "{err:?}");
    assert!(err.help.is_some() && !err.label.is_empty(), "{err:?}");
}

const STEP0: &str = "step a = t.x() {\n        bind x = $.v\n    }\n";

#[test]
fn what_json_cannot_express_is_refused_at_its_span() {
    let plan = |step: &str| format!("plan p {{\n    {STEP0}    {step}\n}}\n");
    let cases: Vec<(String, &str, &str)> = vec![
        (
            plan(r#"step b = t.y(s: "${x}")"#),
            r#""${x}""#,
            "the reference itself",
        ),
        (
            plan(r#"step b = t.y(s: "cost $${x}")"#),
            "x",
            "literal `$` right before",
        ),
        (
            plan(r#"step b = t.y(s: [{ m: "$$${x.y}" }])"#),
            "x.y",
            "literal `$` right before",
        ),
        (
            plan("step b = t.y(a: 1, a: 2)"),
            "a",
            "argument `a` is given twice",
        ),
        (
            plan("step b = t.y(r: { k: 1, k: 2 })"),
            "k",
            "record entry `k` is given twice",
        ),
        (
            plan("step b = t.y() {\n bind y = $.a\n bind y = $.b }"),
            "y",
            "binding `y` is given twice",
        ),
        (
            plan("step b = t.y() { on_unmet halt on_unmet replan }"),
            "on_unmet replan",
            "second `on_unmet`",
        ),
        (
            plan("step b = t.y() { retry 1 retry 2 }"),
            "retry 2",
            "second `retry`",
        ),
        (
            plan("step b = t.y() { post len($.a) == -1 }"),
            "-1",
            "`len` compared with `-1`",
        ),
        (
            "tool t.x() -> any read\nplan p {}\n".to_string(),
            "plan p {}",
            "tool declarations and a plan",
        ),
        (
            "plan p {}\npolicy q {}\n".to_string(),
            "policy q {}",
            "a plan and a policy",
        ),
        (
            "plan p {}\nplan q {}\n".to_string(),
            "plan q {}",
            "a second plan",
        ),
        (
            "policy p {}\npolicy q {}\n".to_string(),
            "policy q {}",
            "a second policy",
        ),
        (
            "policy p {\n    t.x where a > 3\n}\n".to_string(),
            ">",
            "`max` (`<=`) and `min` (`>=`)",
        ),
        (
            "policy p {\n    t.x where a <= 3, b < 3\n}\n".to_string(),
            "<",
            "`b < 3`",
        ),
        (
            "policy p {\n    t.x where a == 3\n}\n".to_string(),
            "==",
            "`a == 3`",
        ),
        (
            "policy p {\n    t.x where a != \"s\"\n}\n".to_string(),
            "!=",
            "`a != \"s\"`",
        ),
        (
            "policy p {\n    t.x where a <= 3, a <= 4\n}\n".to_string(),
            "a",
            "ceiling over `a` is given twice",
        ),
        (
            "policy p {\n    t.x\n    t.x requires [a]\n}\n".to_string(),
            "t.x",
            "rule for tool `t.x` is given twice",
        ),
        (
            "tool t.x(a: string = foo) -> any read\n".to_string(),
            "foo",
            "names a binding",
        ),
        (
            "tool t.x(a: int, a: int) -> any read\n".to_string(),
            "a",
            "parameter `a` is given twice",
        ),
        (
            "tool t.x() -> { f: int, f: int } read\n".to_string(),
            "f",
            "record field `f` is given twice",
        ),
    ];
    for (src, at, says) in &cases {
        // A second `a` or `k`: the span is the second one.
        let module = parse(Doc::Text, src);
        let err = to_json(&module).expect_err(src);
        let hit = &src[span(&err)];
        assert_eq!(hit, *at, "{src}\n{err:?}");
        if ["a", "k", "y", "f"].contains(at) || *at == "t.x" {
            assert!(
                span(&err).start > src.find(at).unwrap(),
                "the first `{at}` is fine: {src}"
            );
        }
        assert!(
            err.message.contains(says),
            "{:?} does not say {says:?}",
            err.message
        );
    }
    // Nothing to convert.
    assert!(to_json(&ast::Module::default()).is_err());
}

#[test]
fn what_text_cannot_spell_is_refused_at_its_span() {
    refused(
        Doc::Plan,
        r#"{"steps": [{"tool": "t.x", "post": {"probe": "result_count", "equals": 1}}]}"#,
        to_text,
        r#"{"probe": "result_count", "equals": 1}"#,
        "without `path`",
    );
    refused(
        Doc::Plan,
        r#"{"steps": [{"tool": "t.x", "args": {"first-name": "a"}}]}"#,
        to_text,
        "first-name",
        "argument `first-name`",
    );
    refused(
        Doc::Plan,
        r#"{"steps": [{"tool": "t.x", "args": {"r": {"a b": 1}}}]}"#,
        to_text,
        "a b",
        "record entry `a b`",
    );
    refused(
        Doc::Plan,
        r#"{"steps": [{"tool": "get-weather"}]}"#,
        to_text,
        "get-weather",
        "tool name `get-weather`",
    );
    refused(
        Doc::Plan,
        r#"{"steps": [{"tool": "t.x", "binds": {"true": "$.v"}}, {"tool": "t.y", "args": {"b": "${true}"}}]}"#,
        to_text,
        r#""${true}""#,
        "binding `true`",
    );
    refused(
        Doc::Plan,
        r#"{"steps": [{"tool": "t.x", "args": {"v": 2e2}}]}"#,
        to_text,
        "2e2",
        "decimal `200`",
    );
    refused(
        Doc::Catalog,
        r#"{"tools": [{"name": "get-weather", "inputSchema": {"type": "object"}}]}"#,
        to_text,
        "get-weather",
        "tool name `get-weather`",
    );
    refused(
        Doc::Catalog,
        r#"{"tools": [{"name": "w", "inputSchema": {"type": "object", "properties": {"a-b": {}}}}]}"#,
        to_text,
        "a-b",
        "parameter `a-b`",
    );
    refused(
        Doc::Policy,
        r#"{"tools": {"actor": {"scopes": []}}}"#,
        to_text,
        "actor",
        "tool named `actor`",
    );
    refused(
        Doc::Policy,
        r#"{"tools": {"max_steps": {}}}"#,
        to_text,
        "max_steps",
        "tool named `max_steps`",
    );
}

// ---------------------------------------------------------------- fixtures

fn ok_fixtures(dir: &Path, out: &mut Vec<PathBuf>) {
    for e in std::fs::read_dir(dir).unwrap() {
        let p = e.unwrap().path();
        if p.is_dir() {
            ok_fixtures(&p, out);
        } else if p.parent().is_some_and(|d| d.ends_with("ok"))
            && p.extension().is_some_and(|x| x == "plan" || x == "json")
        {
            out.push(p);
        }
    }
}

/// Every ok fixture converts, or is refused, without a panic; what converts
/// reads back without errors and converts again to the same bytes.
#[test]
fn ok_fixtures_convert_or_are_refused_without_panic() {
    let mut files = Vec::new();
    ok_fixtures(&root().join("tests/ui"), &mut files);
    files.sort();
    assert!(files.len() >= 30, "{files:?}");
    let (mut converted, mut refused) = (0, 0);
    for p in files {
        let src = read(&p);
        let is_json = p.extension().is_some_and(|x| x == "json");
        let (module, _) = if is_json {
            let (m, d) = syntax::read_json_document(FileId(0), &src);
            (m, d)
        } else {
            syntax::parse_text(FileId(0), &src)
        };
        match to_text(&module) {
            Ok(t) => {
                let (again, diags) = syntax::parse_text(FileId(0), &t);
                no_errors(&format!("{} → text", p.display()), &t, &diags);
                assert_eq!(to_text(&again).unwrap(), t, "{}", p.display());
                converted += 1;
            }
            Err(e) => {
                eprintln!("{}: to_text refused: {}", p.display(), e.message);
                refused += 1;
            }
        }
        match to_json(&module) {
            Ok(j) => {
                let (again, diags) = syntax::read_json_document(FileId(0), &j);
                no_errors(&format!("{} → json", p.display()), &j, &diags);
                assert_eq!(to_json(&again).unwrap(), j, "{}", p.display());
                converted += 1;
            }
            Err(e) => {
                eprintln!("{}: to_json refused: {}", p.display(), e.message);
                refused += 1;
            }
        }
    }
    assert!(
        converted > refused,
        "{converted} converted, {refused} refused"
    );
}

// ---------------------------------------------------------------- made explicit

const EXPLICIT_TOOLS: &str = "tool crm.find(email: string, as_of: date, at: datetime, note: string) -> { results: [{ id: string }], total: int } read\n\
tool crm.list(n: int) -> [string] read\n";

/// What a JSON plan leaves to the catalogue, the text form says: a date
/// string for a `date` parameter becomes a date literal (not for a
/// `string` one), and `result_count` without `path` counts the list the
/// checker would: the result's one list field, or the result itself.
#[test]
fn json_plans_become_explicit_text_with_the_catalogue() {
    let plan = r#"{"name": "p", "goal": "g", "steps": [
        {"name": "a", "tool": "crm.find", "args": {"email": "x@y.z", "as_of": "2026-03-04",
          "at": "2026-03-04T10:00:00Z", "note": "2026-03-04"},
         "post": {"probe": "result_count", "equals": 1}},
        {"name": "b", "tool": "crm.list", "args": {"n": 2},
         "post": {"probe": "result_count", "op": ">=", "value": 1}}
    ]}"#;
    let t = explicit_text(plan, EXPLICIT_TOOLS);
    assert!(t.contains("as_of: 2026-03-04,"), "{t}");
    assert!(t.contains("at: 2026-03-04T10:00:00Z,"), "{t}");
    assert!(t.contains("note: \"2026-03-04\""), "{t}");
    assert!(t.contains("post len($.results) == 1"), "{t}");
    assert!(t.contains("post len($) >= 1"), "{t}");
    // Without the catalogue, the probe has no text form: refused, as before.
    assert!(to_text(&parse(Doc::Plan, plan)).is_err());
    // The explicit text compiles to the JSON plan's IR.
    let base = Inputs {
        plan: ("p.json".to_string(), plan.to_string()),
        catalog: vec![("tools.plan".to_string(), EXPLICIT_TOOLS.to_string())],
        policy: Some((
            "policy.plan".to_string(),
            "policy q {\n    actor [crm:read]\n    crm.find requires [crm:read]\n    crm.list requires [crm:read]\n}\n".to_string(),
        )),
        actor: None,
    };
    let want = ir(&base);
    assert_same_ir(
        &base,
        &want,
        "explicit text",
        &with_plan(&base, "p.plan", t),
    );
}

fn planc(dir: &Path, args: &[&str]) -> std::process::Output {
    std::process::Command::new(env!("CARGO_BIN_EXE_planc"))
        .current_dir(dir)
        .args(args)
        .output()
        .unwrap()
}

/// `planc fmt --to json` says what it leaves out; `--to plan` finds the
/// catalogue through `planc.toml` beside the file.
#[test]
fn the_command_names_what_json_leaves_out_and_reads_the_catalogue() {
    let repo = root();
    let o = planc(
        &repo,
        &["fmt", "--to", "json", "examples/northwind/downgrade.plan"],
    );
    assert_eq!(o.status.code(), Some(0));
    let err = String::from_utf8_lossy(&o.stderr);
    assert_eq!(
        err.trim_end(),
        "examples/northwind/downgrade.plan:1:1: note: the JSON form holds no comments: 1 comment left out \
         (doc comments of tools, parameters and fields are kept as descriptions)"
    );
    let o = planc(
        &repo,
        &["fmt", "--to", "json", "examples/northwind/tools.plan"],
    );
    assert!(String::from_utf8_lossy(&o.stderr).contains("tools.plan:1:1: note:"));
    // Nothing to leave out, nothing said.
    let o = planc(
        &repo,
        &["fmt", "--to", "json", "examples/pallet_credit/policy.plan"],
    );
    assert_eq!(o.status.code(), Some(0));
    assert!(
        o.stderr.is_empty(),
        "{}",
        String::from_utf8_lossy(&o.stderr)
    );

    // The Northwind plan through JSON and back: its date is a date again.
    let dir = std::env::temp_dir().join(format!("planc-explicit-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    for f in ["tools.plan", "policy.plan", "planc.toml"] {
        std::fs::copy(repo.join("examples/northwind").join(f), dir.join(f)).unwrap();
    }
    let json = planc(
        &repo,
        &["fmt", "--to", "json", "examples/northwind/downgrade.plan"],
    )
    .stdout;
    std::fs::write(dir.join("p.json"), &json).unwrap();
    let o = planc(&dir, &["fmt", "--to", "plan", "p.json"]);
    assert_eq!(
        o.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&o.stderr)
    );
    let back = String::from_utf8(o.stdout).unwrap();
    assert!(back.contains("as_of: 2026-03-04)"), "{back}");
    // Without a catalogue nearby, the date stays a string (still the same
    // plan for the checker, which reads it against the parameter's type).
    std::fs::remove_file(dir.join("planc.toml")).unwrap();
    let o = planc(&dir, &["fmt", "--to", "plan", "p.json"]);
    assert!(
        String::from_utf8(o.stdout)
            .unwrap()
            .contains("as_of: \"2026-03-04\")")
    );
    let _ = std::fs::remove_dir_all(&dir);
}

/// Forms that are empty but say something (an actor with no scopes, a rule
/// that requires none, an empty record or list, a plan with no steps) come
/// back from JSON as they were written.
#[test]
fn empty_forms_survive_json_both_ways() {
    let cases = [
        (
            Doc::Policy,
            "policy p {\n    actor []\n\n    config.parse requires []\n    a.b requires [] approval human\n}\n",
        ),
        (Doc::Policy, "policy p {\n    max_steps 0\n}\n"),
        (Doc::Catalog, "tool t.x() -> {} read\n"),
        (
            Doc::Catalog,
            "tool t.x(a: [string] = [], b: { c: int } = {}) -> any read\n",
        ),
        (Doc::Plan, "plan p {\n}\n"),
        (Doc::Plan, "plan p {\n    replans 0\n    max_steps 0\n}\n"),
        (
            Doc::Plan,
            "plan p {\n    step a = t.x(l: [], r: {}, s: \"\") {\n        post $.x in []\n        post $.y not in []\n        post $.s == \"\"\n    }\n}\n",
        ),
    ];
    for (doc, src) in cases {
        let j = json(Doc::Text, src);
        assert_eq!(text(doc, &j), src, "{j}");
        assert_eq!(planc::fmt::layout::layout(src).unwrap(), src);
    }
    // A rule written without `requires` means `requires []`, which is how
    // it comes back.
    let j = json(Doc::Text, "policy p {\n    a.b approval human\n}\n");
    assert_eq!(
        text(Doc::Policy, &j),
        "policy p {\n    a.b requires [] approval human\n}\n"
    );
}

#[test]
fn maps_and_quoted_keys_round_trip() {
    // Map types in the catalogue, quoted keys (with escapes) in bind,
    // post and pre paths, `keys` and `len` over maps: text → JSON → text
    // and JSON → text → JSON give the same IR and the same bytes.
    let tools = r#"tool hotels.ratings(city: string) -> {
    ratings: { [string]: decimal },
    reviews: { [string]: [string] },
} read idempotent
tool hotels.book(hotel: string, rating: decimal, extra: { [string]: int }?) -> { id: string } write
"#;
    let policy = r#"policy travel {
    actor [hotels:read, hotels:book]
    hotels.ratings requires [hotels:read]
    hotels.book requires [hotels:book]
}
"#;
    let plan = r#"plan stay "book the best-rated hotel" {
    step rate = hotels.ratings(city: "Paris") {
        post len($.ratings) >= 1
        post keys($.ratings) contains "Le Marais Boutique"
        post $.ratings["Le Marais Boutique"] >= 4.0
        post exists($.reviews["say \"hi\" \\ \u{7}"][0])
        bind rating = $.ratings["Le Marais Boutique"]
        bind all = $.ratings
    }
    step book = hotels.book(hotel: "Le Marais Boutique", rating: rating, extra: { nights: 2 }) {
        pre all["Le Marais Boutique"] > 4.1
        pre keys(all) contains "Montmartre Inn"
        pre len(all) >= 2
        post exists($.id)
    }
}
"#;
    let base = Inputs {
        plan: ("stay.plan".to_string(), plan.to_string()),
        catalog: vec![("tools.plan".to_string(), tools.to_string())],
        policy: Some(("policy.plan".to_string(), policy.to_string())),
        actor: None,
    };
    let j = json(Doc::Text, plan);
    for spelt in [
        r#""path": "$.ratings[\"Le Marais Boutique\"]""#,
        r#""probe": "keys_contain""#,
        r#""path": "all[\"Le Marais Boutique\"]""#,
        r#""$.reviews[\"say \\\"hi\\\" \\\\ \\u{7}\"][0]""#,
    ] {
        assert!(j.contains(spelt), "{spelt}\n{j}");
    }
    let twin = j.clone();
    round_trips(&base, Some(&twin));
    // The IR keeps the key's text form, which its executor reads back.
    let ir = ir(&base);
    let step = &ir["steps"][0];
    assert_eq!(
        step["binds"]["rating"],
        r#"$.ratings["Le Marais Boutique"]"#
    );
    assert_eq!(step["post"][1]["probe"], "keys_contain");
    assert_eq!(step["post"][1]["key"], "Le Marais Boutique");
    assert_eq!(ir["ir_version"], "1.3");
}
