//! The IR's fingerprint (`docs/ir.md`, "Fingerprint"): the same for every
//! spelling of one plan (layout, comments, the text or the JSON form, the
//! file's name), different for every change to what runs.

#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    clippy::indexing_slicing
)]

use std::path::{Path, PathBuf};

use planc::driver::{self, Job};
use planc::ir::{self, Approval, Effect, Literal, OnUnmet, PlanIr, Value};

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// The job of the plan file `name` holding `text`, in the folder `dir`
/// (with that folder's `planc.toml`).
fn job_for(dir: &Path, name: &str, text: &str) -> Job {
    let mut job = Job::default();
    let id = job.sources.add(name.to_string(), text.to_string());
    job.plans.push(id);
    planc::project::settings(dir, &Default::default())
        .unwrap()
        .add_to(&mut job, |p: &Path| {
            p.strip_prefix(root())
                .unwrap_or(p)
                .to_string_lossy()
                .into_owned()
        })
        .unwrap();
    job
}

/// Compiles `text` as the plan file `name` in the folder `dir` (with that
/// folder's `planc.toml`).
fn compile_text(dir: &Path, name: &str, text: &str) -> PlanIr {
    let mut job = job_for(dir, name, text);
    let outcome = driver::run(&mut job);
    assert!(!outcome.has_errors(), "{name}: {:?}", outcome.diagnostics);
    let mut irs = driver::lower(&job, &outcome).unwrap();
    assert_eq!(irs.len(), 1);
    irs.remove(0)
}

fn compile(rel: &str) -> PlanIr {
    let path = root().join(rel);
    compile_text(
        path.parent().unwrap(),
        rel,
        &std::fs::read_to_string(&path).unwrap(),
    )
}

fn is_fingerprint(f: &str) -> bool {
    f.len() == 71
        && f.starts_with("sha256:")
        && f[7..]
            .bytes()
            .all(|b| b.is_ascii_digit() || (b'a'..=b'f').contains(&b))
}

#[test]
fn lowering_fills_the_fingerprint_and_it_recomputes() {
    for rel in [
        "examples/northwind/downgrade.plan",
        "examples/config_dag/provision.plan",
        "examples/config_dag/replan.plan",
        "examples/pallet_credit/credit.plan",
    ] {
        let ir = compile(rel);
        assert!(is_fingerprint(&ir.fingerprint), "{rel}: {}", ir.fingerprint);
        assert_eq!(ir::fingerprint(&ir).unwrap(), ir.fingerprint, "{rel}");
        // The digest streamed a step at a time is the digest of the whole
        // canonical text, which leaves out only the IR's fingerprint, its
        // source and the steps' spans.
        let canonical = ir::fingerprint::canonical_ir(&ir).unwrap();
        assert_eq!(
            ir::fingerprint::digest_of(&canonical),
            ir.fingerprint,
            "{rel}"
        );
        assert!(
            canonical.starts_with("{\"approvals\":"),
            "{rel}: {canonical}"
        );
        assert!(canonical.contains(",\"steps\":[{"), "{rel}");
        assert!(!canonical.contains("\"span\":") && !canonical.contains("\"source\":"));
        assert!(!canonical.contains("\"fingerprint\":"), "{rel}");
        let mut none = ir.clone();
        none.steps.clear();
        let canonical = ir::fingerprint::canonical_ir(&none).unwrap();
        assert!(canonical.contains(",\"steps\":[]"), "{rel}: {canonical}");
        assert_eq!(
            ir::fingerprint(&none).unwrap(),
            ir::fingerprint::digest_of(&canonical),
            "{rel}"
        );
        // Through the IR's JSON and back: the same.
        let back = ir::from_json(&ir::to_json(&ir).unwrap()).unwrap();
        assert_eq!(ir::fingerprint(&back).unwrap(), ir.fingerprint, "{rel}");
        let back = ir::from_json(&ir::to_json_compact(&ir).unwrap()).unwrap();
        assert_eq!(ir::fingerprint(&back).unwrap(), ir.fingerprint, "{rel}");
    }
}

#[test]
fn the_text_and_the_json_form_have_one_fingerprint() {
    for (text, json) in [
        (
            "examples/northwind/downgrade.plan",
            "examples/northwind/downgrade.plan.json",
        ),
        (
            "examples/config_dag/provision.plan",
            "examples/config_dag/provision.plan.json",
        ),
        (
            "examples/pallet_credit/credit.plan",
            "examples/pallet_credit/credit.plan.json",
        ),
    ] {
        let (a, b) = (compile(text), compile(json));
        assert_ne!(a.source, b.source);
        assert_ne!(a.steps[0].span, b.steps[0].span);
        assert_eq!(a.fingerprint, b.fingerprint, "{text} / {json}");
    }
}

#[test]
fn reformatting_and_renaming_the_file_keep_the_fingerprint() {
    let rel = "examples/pallet_credit/credit.plan";
    let dir = root().join("examples/pallet_credit");
    let original = std::fs::read_to_string(root().join(rel)).unwrap();
    let base = compile_text(&dir, rel, &original);
    // Comments, blank lines, indentation and a call on one line.
    let reformatted = format!(
        "// a comment first\n\n{}",
        original
            .replace("    step", "\n  step")
            .replace(
                "credits.issue(\n        order_id: 4921,\n        amount_eur: credit_amount,\n        reason: \"damaged pallet on order 4921\",\n    )",
                "credits.issue(order_id: 4921, amount_eur: credit_amount, reason: \"damaged pallet on order 4921\")"
            )
            .replace("post $.amount_eur > 0", "post $.amount_eur > 0 // positive")
    );
    assert_ne!(reformatted, original);
    let moved = compile_text(&dir, "elsewhere/other-name.plan", &reformatted);
    assert_ne!(moved.steps[3].span, base.steps[3].span);
    assert_eq!(moved.fingerprint, base.fingerprint);
    // `planc fmt`'s own layout of it, too.
    let formatted = planc::fmt::layout::layout(&reformatted).unwrap();
    assert_eq!(
        compile_text(&dir, rel, &formatted).fingerprint,
        base.fingerprint
    );
}

#[test]
fn every_change_to_the_plan_text_changes_it() {
    let rel = "examples/pallet_credit/credit.plan";
    let dir = root().join("examples/pallet_credit");
    let original = std::fs::read_to_string(root().join(rel)).unwrap();
    let base = compile_text(&dir, rel, &original).fingerprint;
    for (from, to) in [
        ("order_id: 4921)", "order_id: 4922)"),
        (
            "\"damaged pallet freight credit\"",
            "\"damaged pallet credit\"",
        ),
        ("replans 2", "replans 3"),
        ("on_unmet halt", "on_unmet escalate"),
        ("post $.amount_eur > 0", "post $.amount_eur > 1"),
        ("post len($.chunks) >= 1\n", ""),
        ("plan damaged_pallet_credit", "plan damaged_pallet_credit_2"),
        ("for the damaged pallet and", "for the damaged pallet, and"),
        (
            "post exists($.reply_id)",
            "post exists($.reply_id)\n        on_unmet halt",
        ),
    ] {
        assert!(original.contains(from), "{from}");
        let changed = original.replacen(from, to, 1);
        let got = compile_text(&dir, rel, &changed).fingerprint;
        assert_ne!(got, base, "{from} -> {to}");
    }
}

#[test]
fn every_change_to_what_runs_in_the_ir_changes_it() {
    let base = compile("examples/northwind/downgrade.plan");
    let fp = base.fingerprint.clone();
    let credit = compile("examples/pallet_credit/credit.plan");
    // Which step has a guard and which an approval.
    let guarded = base
        .steps
        .iter()
        .position(|s| !s.authz.guards.is_empty())
        .expect("northwind has a guard");
    let approved = base
        .steps
        .iter()
        .position(|s| s.authz.approval.is_some())
        .expect("northwind has an approval");
    type Edit = Box<dyn Fn(&mut PlanIr)>;
    let edits: Vec<(&str, Edit)> = vec![
        ("ir_version", Box::new(|ir| ir.ir_version = "1.9".into())),
        ("name", Box::new(|ir| ir.name = "other".into())),
        ("goal", Box::new(|ir| ir.goal = Some("other".into()))),
        ("budget", Box::new(|ir| ir.budget.replans = Some(99))),
        ("max_steps", Box::new(|ir| ir.budget.max_steps = Some(1))),
        ("schedule", Box::new(|ir| ir.schedule.reverse())),
        ("approvals", Box::new(|ir| ir.approvals.clear())),
        ("scopes", Box::new(|ir| ir.scopes.push("admin:all".into()))),
        ("steps order", Box::new(|ir| ir.steps.swap(0, 1))),
        (
            "step dropped",
            Box::new(|ir| {
                ir.steps.pop();
            }),
        ),
        (
            "step name",
            Box::new(|ir| ir.steps[0].name = "renamed".into()),
        ),
        ("index", Box::new(|ir| ir.steps[0].index = 7)),
        (
            "tool",
            Box::new(|ir| ir.steps[0].tool = "other.tool".into()),
        ),
        ("retry", Box::new(|ir| ir.steps[0].retry += 1)),
        (
            "effect",
            Box::new(|ir| {
                ir.steps[0].effect = match ir.steps[0].effect {
                    Effect::Read => Effect::Write,
                    Effect::Write => Effect::Read,
                }
            }),
        ),
        ("idempotent", Box::new(|ir| ir.steps[0].idempotent ^= true)),
        (
            "on_unmet",
            Box::new(|ir| {
                ir.steps[0].on_unmet = match ir.steps[0].on_unmet {
                    OnUnmet::Halt => OnUnmet::Replan,
                    _ => OnUnmet::Halt,
                }
            }),
        ),
        ("post dropped", Box::new(|ir| ir.steps[0].post.clear())),
        (
            "binds",
            Box::new(|ir| ir.steps[0].binds = Default::default()),
        ),
        (
            "untrusted",
            Box::new(|ir| ir.steps[0].untrusted_inputs.push("x".into())),
        ),
        (
            "depends_on",
            Box::new(|ir| {
                for s in &mut ir.steps {
                    s.depends_on.clear();
                }
            }),
        ),
        ("reuse", Box::new(|ir| ir.steps[0].reuse = Some(true))),
        (
            "artifacts",
            Box::new(|ir| {
                ir.steps[0].artifacts = Some(
                    [(
                        "x".to_string(),
                        planc::progress::JsonValue::parse("5000").unwrap(),
                    )]
                    .into_iter()
                    .collect(),
                )
            }),
        ),
        (
            "argument added",
            Box::new(|ir| {
                ir.steps[0].args.insert(
                    "extra".into(),
                    Value::Literal {
                        literal: Literal::Bool(true),
                    },
                );
            }),
        ),
        (
            "guard removed",
            Box::new(move |ir| ir.steps[guarded].authz.guards.clear()),
        ),
        (
            "guard raised",
            Box::new(move |ir| {
                ir.steps[guarded].authz.guards[0].limit =
                    planc::ir::GuardLimit::One(Literal::Decimal("999999".into()))
            }),
        ),
        (
            "guard op",
            Box::new(move |ir| {
                ir.steps[guarded].authz.guards[0].op = planc::ir::GuardOp::Ne;
            }),
        ),
        (
            "approval dropped",
            Box::new(move |ir| ir.steps[approved].authz.approval = None),
        ),
        (
            "approval added",
            Box::new(|ir| {
                for s in &mut ir.steps {
                    s.authz.approval = Some(Approval::Human);
                }
            }),
        ),
        (
            "authz scopes",
            Box::new(|ir| ir.steps[0].authz.scopes.clear()),
        ),
    ];
    for (what, edit) in &edits {
        let mut ir = base.clone();
        edit(&mut ir);
        assert_ne!(ir, base, "{what}: the edit changed nothing");
        assert_ne!(ir::fingerprint(&ir).unwrap(), fp, "{what}");
    }
    // Every literal argument of the credit plan, changed in its value.
    for (i, step) in credit.steps.iter().enumerate() {
        for (name, value) in step.args.iter() {
            let Value::Literal { literal } = value else {
                continue;
            };
            let other = match literal {
                Literal::Int(n) => Literal::Int(n + 1),
                Literal::String(s) => Literal::String(format!("{s}!").into()),
                Literal::Decimal(d) => Literal::Decimal(format!("{d}1").into()),
                _ => continue,
            };
            let mut ir = credit.clone();
            ir.steps[i]
                .args
                .insert(name.clone(), Value::Literal { literal: other });
            assert_ne!(
                ir::fingerprint(&ir).unwrap(),
                credit.fingerprint,
                "{}.{name}",
                step.name
            );
            // An int written as a decimal of the same value is another IR.
            if let Literal::Int(n) = literal {
                let mut ir = credit.clone();
                ir.steps[i].args.insert(
                    name.clone(),
                    Value::Literal {
                        literal: Literal::Decimal(n.to_string().into()),
                    },
                );
                assert_ne!(ir::fingerprint(&ir).unwrap(), credit.fingerprint);
            }
        }
    }
    // What does not run: the source name, spans and the fingerprint field.
    let mut ir = base.clone();
    ir.source = "moved.plan".into();
    ir.fingerprint = "sha256:0".into();
    for s in &mut ir.steps {
        s.span.start += 10;
        s.span.line += 1;
        s.span.file = "moved.plan".into();
    }
    assert_eq!(ir::fingerprint(&ir).unwrap(), fp);
}

/// The plan fingerprint of an IR compiled against a record is the
/// fingerprint of that IR with what it took from the record removed
/// (`progress`, each step's `reuse` and `artifacts`), and of the same plan
/// compiled without the record.
#[test]
fn the_plan_fingerprint_leaves_out_what_came_from_the_record() {
    let dir = root().join("examples/config_dag");
    let text = std::fs::read_to_string(dir.join("replan.plan")).unwrap();
    let alone = compile_text(&dir, "examples/config_dag/replan.plan", &text);
    let mut job = job_for(&dir, "examples/config_dag/replan.plan", &text);
    let record = std::fs::read_to_string(dir.join("progress.json")).unwrap();
    job.progress = Some(job.sources.add_with_kind(
        "progress.json",
        record,
        planc::SourceKind::Json,
    ));
    let outcome = driver::run(&mut job);
    assert!(!outcome.has_errors(), "{:?}", outcome.diagnostics);
    let replan = driver::lower(&job, &outcome).unwrap().remove(0);
    assert!(replan.progress.is_some());
    assert!(replan.steps.iter().any(|s| s.reuse == Some(true)));
    assert_ne!(replan.fingerprint, alone.fingerprint);
    let mut stripped = replan.clone();
    stripped.progress = None;
    for s in &mut stripped.steps {
        s.reuse = None;
        s.artifacts = None;
    }
    let plan = ir::plan_fingerprint(&replan).unwrap();
    assert_eq!(plan, ir::fingerprint(&stripped).unwrap());
    assert_eq!(plan, alone.fingerprint);
    assert_eq!(ir::plan_fingerprint(&alone).unwrap(), alone.fingerprint);
}

/// A JSON value whose objects give their members in reverse order, so
/// that the canonical writer has to put every object of it in order.
struct Reversed<'a>(&'a serde_json::Value);

impl serde::Serialize for Reversed<'_> {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        use serde::ser::{SerializeMap, SerializeSeq};
        match self.0 {
            serde_json::Value::Object(m) => {
                let mut map = s.serialize_map(Some(m.len()))?;
                for (k, v) in m.iter().rev() {
                    map.serialize_entry(k, &Reversed(v))?;
                }
                map.end()
            }
            serde_json::Value::Array(a) => {
                let mut seq = s.serialize_seq(Some(a.len()))?;
                for v in a {
                    seq.serialize_element(&Reversed(v))?;
                }
                seq.end()
            }
            other => other.serialize(s),
        }
    }
}

/// RFC 8785 as it reads, written plainly: members sorted by the UTF-16
/// code units of their keys, strings as `JSON.stringify` writes them
/// (serde_json's escapes are the same), integers in decimal.
fn reference_canonical(v: &serde_json::Value) -> String {
    match v {
        serde_json::Value::Object(m) => {
            let mut members: Vec<_> = m.iter().collect();
            members.sort_by(|a, b| a.0.encode_utf16().cmp(b.0.encode_utf16()));
            let inner: Vec<String> = members
                .iter()
                .map(|(k, v)| {
                    format!(
                        "{}:{}",
                        serde_json::to_string(k).unwrap(),
                        reference_canonical(v)
                    )
                })
                .collect();
            format!("{{{}}}", inner.join(","))
        }
        serde_json::Value::Array(a) => {
            let inner: Vec<String> = a.iter().map(reference_canonical).collect();
            format!("[{}]", inner.join(","))
        }
        other => serde_json::to_string(other).unwrap(),
    }
}

proptest::proptest! {
    /// The canonical writer against the rule written plainly, on values
    /// whose keys mix the characters UTF-16 sorts differently from UTF-8
    /// (U+E000 to U+FFFF against those above U+FFFF), escapes, and nested
    /// objects given out of order.
    #[test]
    fn canonical_json_is_rfc_8785_whatever_the_members_order(
        v in {
            use proptest::prelude::*;
            let key = proptest::collection::vec(
                prop_oneof![
                    Just('a'), Just('b'), Just('"'), Just('\\'), Just('\n'), Just('\u{1}'),
                    Just('é'), Just('\u{e000}'), Just('\u{fb33}'), Just('\u{ffff}'),
                    Just('\u{10000}'), Just('\u{1f600}'),
                ],
                0..4,
            )
            .prop_map(|cs| cs.into_iter().collect::<String>());
            let leaf = prop_oneof![
                Just(serde_json::Value::Null),
                any::<bool>().prop_map(serde_json::Value::from),
                any::<i64>().prop_map(serde_json::Value::from),
                key.clone().prop_map(serde_json::Value::from),
            ];
            leaf.prop_recursive(4, 48, 6, move |inner| {
                prop_oneof![
                    proptest::collection::vec(inner.clone(), 0..5).prop_map(serde_json::Value::from),
                    proptest::collection::btree_map(key.clone(), inner, 0..6)
                        .prop_map(|m| serde_json::Value::Object(m.into_iter().collect())),
                ]
            })
        }
    ) {
        let ours = ir::fingerprint::canonical(&Reversed(&v)).unwrap();
        proptest::prop_assert_eq!(&ours, &reference_canonical(&v));
        proptest::prop_assert_eq!(ir::fingerprint::canonical(&v).unwrap(), ours);
    }
}
