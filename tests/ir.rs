//! The IR of every example and every ok fixture: valid against the
//! committed JSON Schema, true to the invariants of `docs/ir.md`
//! (checked by the plain checker in `support/invariants.rs`), and the same
//! bytes from run to run.

#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    clippy::indexing_slicing
)]

#[path = "support/invariants.rs"]
mod invariants;

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

use invariants::{ToolRule, World};
use planc::driver::{self, Job, Outcome};
use planc::ir::{self, CmpOp, Effect, Literal, PlanIr};
use planc::syntax::ast;

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// A job for a plan file, with the catalogue and policy of its planc.toml.
fn job(plan: &Path) -> Job {
    let mut job = Job::default();
    let rel = |p: &Path| {
        p.strip_prefix(root())
            .unwrap_or(p)
            .to_string_lossy()
            .into_owned()
    };
    let id = job
        .sources
        .add(rel(plan), std::fs::read_to_string(plan).unwrap());
    job.plans.push(id);
    planc::project::settings(plan.parent().unwrap(), &Default::default())
        .unwrap()
        .add_to(&mut job, rel)
        .unwrap();
    job
}

/// The world the plain checker compares against, read from the syntax
/// trees of the catalogue and policy (not from the checker's models).
fn world(outcome: &Outcome) -> World {
    let mut w = World::default();
    // A tool's effect is the policy rule's (a compile without E0310 has
    // only statements that make the tool stricter or override a server's
    // hints), else the catalogue's, else `write`.
    let mut stated: std::collections::BTreeMap<String, Option<ast::Effect>> = Default::default();
    for p in &outcome.parsed {
        for t in p.module.tools() {
            stated.insert(
                t.name.node.clone().to_string(),
                t.effect.as_ref().map(|e| e.node),
            );
        }
    }
    // The `*` rule gives every catalogue tool no rule names its clauses.
    let named: BTreeSet<String> = outcome
        .parsed
        .iter()
        .flat_map(|p| p.module.policies())
        .flat_map(|pol| pol.rules.iter())
        .map(|r| r.tool.node.to_string())
        .collect();
    for p in &outcome.parsed {
        for pol in p.module.policies() {
            for r in &pol.rules {
                let Some(e) = &r.effect else { continue };
                if r.tool.node.as_str() == "*" {
                    for (name, slot) in stated.iter_mut() {
                        if !named.contains(name) {
                            *slot = Some(e.node);
                        }
                    }
                } else if let Some(slot) = stated.get_mut(r.tool.node.as_str()) {
                    *slot = Some(e.node);
                }
            }
        }
    }
    for (name, effect) in stated {
        let effect = match effect {
            Some(ast::Effect::Read) => Effect::Read,
            _ => Effect::Write,
        };
        w.tools.insert(name, effect);
    }
    for p in &outcome.parsed {
        for pol in p.module.policies() {
            if let Some(actor) = &pol.actor {
                w.actor = actor
                    .node
                    .iter()
                    .map(|s| s.node.to_string())
                    .collect::<BTreeSet<_>>();
            }
            for r in &pol.rules {
                let rule = ToolRule {
                    scopes: r.requires.iter().map(|s| s.node.to_string()).collect(),
                    approval: r.approval.is_some(),
                    ceilings: r
                        .ceilings
                        .iter()
                        .map(|c| (c.arg.node.to_string(), op(c.op.node), lit(&c.limit.node)))
                        .collect(),
                    lists: r
                        .arg_rules
                        .iter()
                        .filter_map(|a| match &a.kind {
                            ast::ArgRuleKind::In {
                                negated, values, ..
                            } => Some((
                                a.arg.node.to_string(),
                                *negated,
                                values.iter().map(|v| lit(&v.node)).collect(),
                            )),
                            _ => None,
                        })
                        .collect(),
                    patterns: r
                        .arg_rules
                        .iter()
                        .filter_map(|a| match &a.kind {
                            ast::ArgRuleKind::Matches(p) => {
                                Some((a.arg.node.to_string(), p.node.to_string()))
                            }
                            _ => None,
                        })
                        .collect(),
                    totals: r
                        .arg_rules
                        .iter()
                        .filter_map(|a| match &a.kind {
                            ast::ArgRuleKind::Total { max, per } => Some((
                                a.arg.node.to_string(),
                                lit(&max.node),
                                per.as_ref().map(|p| p.node.to_string()),
                            )),
                            _ => None,
                        })
                        .collect(),
                    calls: r.calls.map(|c| c.node),
                };
                w.rules.insert(r.tool.node.clone().to_string(), rule);
            }
        }
    }
    if let Some(default) = w.rules.remove("*") {
        for name in w.tools.keys() {
            if !named.contains(name) {
                w.rules.insert(name.clone(), default.clone());
            }
        }
    }
    w
}

fn op(o: ast::CmpOp) -> CmpOp {
    match o {
        ast::CmpOp::Eq => CmpOp::Eq,
        ast::CmpOp::Ne => CmpOp::Ne,
        ast::CmpOp::Lt => CmpOp::Lt,
        ast::CmpOp::Le => CmpOp::Le,
        ast::CmpOp::Gt => CmpOp::Gt,
        ast::CmpOp::Ge => CmpOp::Ge,
    }
}

fn lit(l: &ast::Literal) -> Literal {
    match l {
        ast::Literal::Int(t) => Literal::Int(t.parse().unwrap()),
        ast::Literal::Decimal(t) => Literal::Decimal(t.clone()),
        ast::Literal::String(s) => Literal::String(s.clone()),
        ast::Literal::Bool(b) => Literal::Bool(*b),
        ast::Literal::Null => Literal::Null,
        ast::Literal::Date(d) => Literal::Date(d.clone()),
        ast::Literal::Datetime(d) => Literal::Datetime(d.clone()),
    }
}

fn compile(plan: &Path) -> (Vec<PlanIr>, World, String) {
    let mut j = job(plan);
    let outcome = driver::run(&mut j);
    assert!(
        !outcome.has_errors(),
        "{}: {:?}",
        plan.display(),
        outcome.diagnostics
    );
    let irs = driver::lower(&j, &outcome).unwrap();
    let text: String = irs.iter().map(|i| ir::to_json(i).unwrap()).collect();
    (irs, world(&outcome), text)
}

fn validator() -> jsonschema::Validator {
    let schema: serde_json::Value = serde_json::from_str(
        &std::fs::read_to_string(root().join("schema/plan-ir.schema.json")).unwrap(),
    )
    .unwrap();
    jsonschema::validator_for(&schema).unwrap()
}

/// Every ok fixture that holds a plan (the front end's own fixtures, the
/// progress records and the conversion's fixtures, which are not checked,
/// aside).
fn ok_fixtures(dir: &Path, out: &mut Vec<PathBuf>) {
    for e in std::fs::read_dir(dir).unwrap() {
        let p = e.unwrap().path();
        if p.is_dir() {
            // `tests/ui/fmt/` is converted, not checked: no catalogue.
            if !p.ends_with("syntax") && !p.ends_with("progress") && !p.ends_with("fmt") {
                ok_fixtures(&p, out);
            }
        } else if p.parent().is_some_and(|d| d.ends_with("ok")) {
            let text = std::fs::read_to_string(&p).unwrap_or_default();
            let plan = match p.extension().and_then(|x| x.to_str()) {
                Some("plan") => text.lines().any(|l| l.trim_start().starts_with("plan ")),
                Some("json") => {
                    text.contains("\"steps\"") && !text.contains("\"progress_version\"")
                }
                _ => false,
            };
            if plan {
                out.push(p);
            }
        }
    }
}

fn plans_to_check() -> Vec<PathBuf> {
    let mut out = Vec::new();
    for dir in [
        "examples/northwind",
        "examples/config_dag",
        "examples/pallet_credit",
    ] {
        for e in std::fs::read_dir(root().join(dir)).unwrap() {
            let p = e.unwrap().path();
            let name = p.file_name().unwrap().to_string_lossy().into_owned();
            let is_plan = (p.extension().is_some_and(|x| x == "plan")
                && std::fs::read_to_string(&p).unwrap().contains("\nplan "))
                || name.ends_with(".plan.json");
            if is_plan {
                out.push(p);
            }
        }
    }
    ok_fixtures(&root().join("tests/ui"), &mut out);
    out.sort();
    out
}

#[test]
fn examples_lower_to_valid_sound_deterministic_ir() {
    let validator = validator();
    let plans = plans_to_check();
    assert!(plans.len() >= 20, "{plans:?}");
    for plan in plans {
        let (irs, world, text) = compile(&plan);
        assert!(!irs.is_empty(), "{}: no plan", plan.display());
        for ir in &irs {
            let v = serde_json::to_value(ir).unwrap();
            let errors: Vec<String> = validator.iter_errors(&v).map(|e| e.to_string()).collect();
            assert!(
                errors.is_empty(),
                "{}: IR not valid against the schema: {errors:?}",
                plan.display()
            );
            let broken = invariants::violations(ir, &world);
            assert!(broken.is_empty(), "{}: {broken:#?}", plan.display());
            // The IR reads back into its own types, from the text `planc
            // compile` writes (a `serde_json::Value` would round recorded
            // numbers through `f64`).
            let back: PlanIr = serde_json::from_str(&ir::to_json(ir).unwrap()).unwrap();
            assert_eq!(&back, ir);
        }
        let (_, _, again) = compile(&plan);
        assert_eq!(
            text,
            again,
            "{}: output differs between runs",
            plan.display()
        );
    }
}

#[test]
fn northwind_ir_has_the_guard_the_approval_and_the_waves() {
    let (irs, _, _) = compile(&root().join("examples/northwind/downgrade.plan"));
    let ir = &irs[0];
    let credit = ir.steps.iter().find(|s| s.name == "credit_note").unwrap();
    assert_eq!(credit.authz.guards.len(), 1);
    assert_eq!(credit.authz.guards[0].arg, "amount_eur");
    assert_eq!(credit.authz.guards[0].op, planc::ir::GuardOp::Le);
    assert_eq!(ir.approvals, vec!["change".to_string()]);
    assert_eq!(ir.schedule[0], vec!["resolve".to_string()]);
    // The plan's reads and writes: the credit waits for the change (effect).
    assert!(
        credit
            .depends_on
            .iter()
            .any(|d| d.step == "change" && d.reason == ir::DependencyReason::Effect)
    );
}

/// The model names the step a dependency, a reference or a precondition
/// points to by its index, the IR by its name: for a step written below
/// (`after`) as for one written above.
#[test]
fn the_ir_names_the_step_each_edge_and_reference_points_to() {
    use ir::{DependencyReason, PreProbe, Subject, Value};
    let (irs, _, _) = compile(&root().join("tests/ui/check/ok/forward_after.plan"));
    let step = |name: &str| irs[0].steps.iter().find(|s| s.name == name).unwrap();
    let edges = |name: &str| -> Vec<(String, DependencyReason)> {
        let deps = &step(name).depends_on;
        deps.iter()
            .map(|d| (d.step.to_string(), d.reason))
            .collect()
    };
    let refers_to = |v: &Value| match v {
        Value::Ref { step, .. } => step.to_string(),
        other => panic!("not a reference: {other:?}"),
    };
    assert_eq!(
        edges("prorate"),
        [
            ("sub".to_string(), DependencyReason::Data),
            ("credit".to_string(), DependencyReason::After)
        ]
    );
    assert_eq!(
        edges("credit"),
        [("sub".to_string(), DependencyReason::Data)]
    );
    let prorate = step("prorate");
    assert_eq!(
        refers_to(prorate.args.get("subscription_id").unwrap()),
        "sub"
    );
    assert_eq!(refers_to(prorate.args.get("effective").unwrap()), "sub");
    match &prorate.pre[..] {
        [
            PreProbe::Compare {
                subject: Subject::Ref { step, .. },
                ..
            },
        ] => assert_eq!(step, "sub"),
        other => panic!("{other:?}"),
    }
    match step("credit").args.get("reason").unwrap() {
        Value::Interpolate { parts } => assert_eq!(refers_to(&parts[1]), "sub"),
        other => panic!("{other:?}"),
    }
}

/// The effect and idempotence a policy states for tools whose catalogue
/// (OpenAI functions) says nothing reach the IR: the lookup is a read, so
/// the refund does not wait for it as a write would; both are idempotent.
#[test]
fn effects_stated_by_the_policy_reach_the_ir() {
    let (irs, _, _) = compile(&root().join("tests/ui/effects/ok/stated_by_the_policy.json"));
    let ir = &irs[0];
    let step = |n: &str| ir.steps.iter().find(|s| s.name == n).unwrap();
    let (lookup, refund) = (step("step_0"), step("step_1"));
    assert_eq!(lookup.effect, ir::Effect::Read);
    assert!(lookup.idempotent);
    assert_eq!(refund.effect, ir::Effect::Write);
    assert!(refund.idempotent);
    assert!(refund.depends_on.is_empty(), "{:?}", refund.depends_on);
}

#[test]
fn config_dag_report_runs_beside_the_database() {
    let (irs, _, _) = compile(&root().join("examples/config_dag/provision.plan"));
    let wave_of = |name: &str| {
        irs[0]
            .schedule
            .iter()
            .position(|w| w.iter().any(|s| s == name))
            .unwrap()
    };
    assert_eq!(wave_of("fetch_config"), 0);
    assert_eq!(wave_of("fetch_schema"), 0);
    assert_eq!(wave_of("provision_db"), wave_of("generate_report"));
}

/// The IR as JSON without the fields that name where it was read from.
fn without_source(ir: &PlanIr) -> serde_json::Value {
    let mut v = serde_json::to_value(ir).unwrap();
    v.as_object_mut().unwrap().remove("source");
    for step in v["steps"].as_array_mut().unwrap() {
        step.as_object_mut().unwrap().remove("span");
    }
    v
}

#[test]
fn text_and_json_forms_compile_to_the_same_ir() {
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
            "examples/config_dag/replan.plan",
            "examples/config_dag/replan.plan.json",
        ),
        (
            "examples/pallet_credit/credit.plan",
            "examples/pallet_credit/credit.plan.json",
        ),
    ] {
        let (a, _, _) = compile(&root().join(text));
        let (b, _, _) = compile(&root().join(json));
        assert_eq!(a.len(), 1);
        assert_eq!(b.len(), 1);
        let (a, b) = (without_source(&a[0]), without_source(&b[0]));
        if a != b {
            panic!(
                "{text} and {json} differ:\n--- text\n{}\n--- json\n{}",
                serde_json::to_string_pretty(&a).unwrap(),
                serde_json::to_string_pretty(&b).unwrap()
            );
        }
    }
}

#[test]
fn the_ok_fixtures_are_among_the_plans_checked() {
    let plans = plans_to_check();
    let fixtures = plans
        .iter()
        .filter(|p| p.starts_with(root().join("tests/ui")))
        .count();
    assert!(
        fixtures >= 15,
        "only {fixtures} ok fixtures hold plans: {plans:?}"
    );
}

/// A stream into memory ([`ir::IrStream`] as `planc compile -o` uses it,
/// with buffers for files).
type MemStream = ir::IrStream<std::io::Cursor<Vec<u8>>, std::io::Cursor<Vec<u8>>>;

fn mem_stream() -> MemStream {
    ir::IrStream::new(
        std::io::Cursor::new(Vec::new()),
        std::io::Cursor::new(Vec::new()),
    )
}

/// What the stream writes for `plan`, checked as `planc compile -o` does;
/// `None` for a job checked otherwise (its roles not fixed, a progress
/// record).
fn try_streamed(plan: &Path, stream: &mut MemStream) -> Option<Outcome> {
    driver::run_lowering(&mut job(plan), stream)
}

fn streamed(plan: &Path, stream: &mut MemStream) -> Outcome {
    try_streamed(plan, stream).expect("a job the stream checks")
}

/// The bytes `planc compile` writes to a file or a pipe, the IR lowered
/// whole.
fn compact(ir: &PlanIr) -> Vec<u8> {
    let mut out = Vec::new();
    ir::write_json(ir, false, &mut out).unwrap();
    out
}

#[test]
fn every_plan_written_as_it_is_checked_is_the_ir_lowered_whole() {
    let mut streamed_plans = 0;
    for plan in plans_to_check() {
        let (irs, _, _) = compile(&plan);
        let mut stream = mem_stream();
        let Some(outcome) = try_streamed(&plan, &mut stream) else {
            let j = job(&plan);
            assert!(
                j.progress.is_some() || !j.roles_fixed(),
                "{}",
                plan.display()
            );
            continue;
        };
        assert!(!outcome.has_errors(), "{}", plan.display());
        match (irs.as_slice(), outcome.checked.plans.as_slice()) {
            ([ir], [model]) => {
                assert!(
                    model.steps_dropped,
                    "{}: the models were kept",
                    plan.display()
                );
                let written = stream.finish(model).unwrap().into_inner();
                assert_eq!(
                    String::from_utf8_lossy(&written),
                    String::from_utf8_lossy(&compact(ir)),
                    "{}",
                    plan.display()
                );
                streamed_plans += 1;
            }
            // A file of several plans is refused (`compile` wants one).
            (_, [first, ..]) => {
                let e = stream.finish(first).unwrap_err();
                assert!(e.contains("plans were checked, not one"), "{e}");
            }
            (_, []) => panic!("{}: no plan", plan.display()),
        }
    }
    assert!(streamed_plans >= 20, "{streamed_plans}");
}

#[test]
fn a_stream_refuses_a_plan_it_was_not_given() {
    let northwind = root().join("examples/northwind/downgrade.plan");
    let config = root().join("examples/config_dag/provision.plan");
    let other = streamed(&config, &mut mem_stream());
    let [other] = other.checked.plans.as_slice() else {
        panic!()
    };
    // The IR written for one plan, finished as another's, or as nothing's:
    // what a caller mixing up two checks would keep is refused.
    let mut stream = mem_stream();
    let outcome = streamed(&northwind, &mut stream);
    let e = stream.finish(other).unwrap_err();
    assert!(e.contains("the IR written is plan"), "{e}");
    assert!(!outcome.has_errors());
    let e = mem_stream().finish(other).unwrap_err();
    assert_eq!(e, "0 plans were checked, not one");
}

#[test]
fn a_stream_begun_again_writes_only_the_second_check() {
    let plan = root().join("examples/northwind/downgrade.plan");
    let (irs, _, _) = compile(&plan);
    let mut stream = mem_stream();
    // A check that gave the stream every step, then gave up (as a
    // skeletal reading that gave up would): what it gave is forgotten.
    streamed(&plan, &mut stream);
    planc::check::StepSink::restart(&mut stream);
    let outcome = streamed(&plan, &mut stream);
    let [model] = outcome.checked.plans.as_slice() else {
        panic!()
    };
    let written = stream.finish(model).unwrap().into_inner();
    assert_eq!(written, compact(&irs[0]));
}

#[test]
fn a_stream_keeps_nothing_of_a_plan_with_an_error() {
    let dir = std::env::temp_dir().join(format!("planc-ir-stream-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let text = std::fs::read_to_string(root().join("examples/northwind/downgrade.plan")).unwrap();
    // The last step calls a tool the catalogue does not have: every step
    // before it was written to the stream.
    let broken = format!("{}\n", text.trim_end().trim_end_matches('}'))
        + "  step last = no.such_tool()\n}\n";
    let file = dir.join("downgrade.plan");
    std::fs::write(&file, broken).unwrap();
    for name in ["planc.toml", "tools.plan", "policy.plan"] {
        let from = root().join("examples/northwind").join(name);
        if from.exists() {
            std::fs::copy(&from, dir.join(name)).unwrap();
        }
    }
    let mut stream = mem_stream();
    let outcome = streamed(&file, &mut stream);
    assert!(outcome.has_errors(), "{:?}", outcome.diagnostics);
    let [model] = outcome.checked.plans.as_slice() else {
        panic!()
    };
    let e = stream.finish(model).unwrap_err();
    assert!(e.contains("unknown tool"), "{e}");
    let _ = std::fs::remove_dir_all(&dir);
}

/// A file one edits while `planc compile -o` writes it: every `1` after
/// its first hundred bytes becomes a `2`.
struct Tampered(std::io::Cursor<Vec<u8>>);

impl std::io::Read for Tampered {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        self.0.read(buf)
    }
}

impl std::io::Write for Tampered {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        let at = self.0.position();
        let edited: Vec<u8> = buf
            .iter()
            .enumerate()
            .map(|(i, &b)| {
                if at + i as u64 > 100 && b == b'1' {
                    b'2'
                } else {
                    b
                }
            })
            .collect();
        self.0.write_all(&edited)?;
        Ok(buf.len())
    }
    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

impl std::io::Seek for Tampered {
    fn seek(&mut self, to: std::io::SeekFrom) -> std::io::Result<u64> {
        self.0.seek(to)
    }
}

impl ir::Scratch for Tampered {
    fn truncate(&mut self, len: u64) -> std::io::Result<()> {
        self.0.truncate(len)
    }
}

/// What the stream's `finish` says of a compile of the example whose IR
/// file or scratch file is edited as it is written.
fn tampered_finish(out_tampered: bool) -> Result<Vec<u8>, String> {
    let plan = root().join("examples/northwind/downgrade.plan");
    let cursor = || std::io::Cursor::new(Vec::new());
    let mut j = job(&plan);
    if out_tampered {
        let mut stream = ir::IrStream::new(Tampered(cursor()), cursor());
        let outcome = driver::run_lowering(&mut j, &mut stream).unwrap();
        stream
            .finish(&outcome.checked.plans[0])
            .map(|t| t.0.into_inner())
    } else {
        let mut stream = ir::IrStream::new(cursor(), Tampered(cursor()));
        let outcome = driver::run_lowering(&mut j, &mut stream).unwrap();
        stream
            .finish(&outcome.checked.plans[0])
            .map(|c| c.into_inner())
    }
}

#[test]
fn a_scratch_file_or_an_ir_file_edited_while_compiling_is_refused() {
    // Either file read back is not what was written: nothing is kept (an
    // edited scratch file would have given the IR a fingerprint not its
    // own, an edited IR file steps its fingerprint is not of).
    for out_tampered in [false, true] {
        let e = tampered_finish(out_tampered).unwrap_err();
        assert!(e.contains("changed while the IR was written"), "{e}");
    }
    // Untouched, the same stream keeps the IR the whole lowering gives.
    let plan = root().join("examples/northwind/downgrade.plan");
    let mut stream = ir::IrStream::new(
        std::io::Cursor::new(Vec::new()),
        std::io::Cursor::new(Vec::new()),
    );
    let mut j = job(&plan);
    let outcome = driver::run_lowering(&mut j, &mut stream).unwrap();
    let written = stream
        .finish(&outcome.checked.plans[0])
        .unwrap()
        .into_inner();
    let read = ir::from_json(std::str::from_utf8(&written).unwrap()).unwrap();
    let (irs, _, _) = compile(&plan);
    assert_eq!(read.fingerprint, irs[0].fingerprint);
}
