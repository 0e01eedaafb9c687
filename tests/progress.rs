//! Progress records, invalidation and plan deltas (`docs/replanning.md`), on the
//! configuration example of the replanning article: five steps, the report
//! independent of the schema, the database's precondition failing.

#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    clippy::indexing_slicing
)]

use std::path::{Path, PathBuf};

use planc::driver::{self, Job};
use planc::ir::PlanIr;
use planc::progress::{self, Event, ProgressRecord, Scope, Status};

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// The IR of a plan file, with the catalogue and policy of its planc.toml.
fn compile(plan: &Path) -> PlanIr {
    let mut job = Job::default();
    let id = job.sources.add(
        plan.display().to_string(),
        std::fs::read_to_string(plan).unwrap(),
    );
    job.plans.push(id);
    let mut settings =
        planc::project::settings(plan.parent().unwrap(), &Default::default()).unwrap();
    // Compiled afresh, not as a replan of the project's progress record.
    settings.progress = None;
    settings
        .add_to(&mut job, |p| p.display().to_string())
        .unwrap();
    let outcome = driver::run(&mut job);
    assert!(!outcome.has_errors(), "{:?}", outcome.diagnostics);
    driver::lower(&job, &outcome).unwrap().pop().unwrap()
}

fn record(path: &Path) -> ProgressRecord {
    let text = std::fs::read_to_string(path).unwrap();
    let read = progress::read::read(planc::FileId(0), &text);
    assert!(read.diagnostics.is_empty(), "{:?}", read.diagnostics);
    read.record.unwrap()
}

/// Both forms of the configuration example.
fn forms() -> [PathBuf; 2] {
    [
        root().join("examples/config_dag/provision.plan"),
        root().join("examples/config_dag/provision.plan.json"),
    ]
}

fn example_record() -> ProgressRecord {
    record(&root().join("examples/config_dag/progress.json"))
}

/// (name, before, after, reusable) of every step.
fn table(inv: &progress::Invalidation) -> Vec<(&str, Status, Status, bool)> {
    inv.steps
        .iter()
        .map(|s| (s.name.as_str(), s.before, s.after, s.reusable))
        .collect()
}

use Status::{Complete, Invalid, Pending};

/// The article's trace: S1–S3 complete, S4's precondition fails. S4 alone
/// is invalid; S5, downstream in execution order but not in the dependency
/// graph, stays pending and runnable.
#[test]
fn trace_s1_to_s5_in_both_forms() {
    for plan in forms() {
        let ir = compile(&plan);
        let inv = progress::invalidate(
            &ir,
            &example_record(),
            &Event::Precondition("provision_db".into()),
        )
        .unwrap();
        assert_eq!(
            table(&inv),
            vec![
                ("fetch_config", Complete, Complete, true),
                ("parse_config", Complete, Complete, true),
                ("fetch_schema", Complete, Complete, true),
                ("provision_db", Pending, Invalid, false),
                ("generate_report", Pending, Pending, true),
            ],
            "{}",
            plan.display()
        );
        assert_eq!(inv.scope, Scope::Local);
        assert_eq!(inv.invalidated().collect::<Vec<_>>(), vec!["provision_db"]);
    }
}

/// "If the event had been the config file changed on disk, S1 and S2 would
/// both be invalid, and S5 would fall with them."
#[test]
fn a_changed_config_takes_the_report_with_it() {
    for plan in forms() {
        let ir = compile(&plan);
        let inv =
            progress::invalidate(&ir, &example_record(), &Event::Changed("config_raw".into()))
                .unwrap();
        assert_eq!(
            table(&inv),
            vec![
                ("fetch_config", Complete, Invalid, false),
                ("parse_config", Complete, Invalid, false),
                ("fetch_schema", Complete, Complete, true),
                ("provision_db", Pending, Invalid, false),
                ("generate_report", Pending, Invalid, false),
            ]
        );
        assert_eq!(inv.scope, Scope::Subgraph);
        let cause = |n: &str| {
            inv.steps
                .iter()
                .find(|s| s.name == n)
                .and_then(|s| s.cause.clone())
        };
        assert_eq!(cause("parse_config").as_deref(), Some("fetch_config"));
        assert_eq!(cause("generate_report").as_deref(), Some("parse_config"));
    }
}

/// An intent change: every pending step is invalid, complete work stays.
#[test]
fn a_goal_change_keeps_the_world() {
    let ir = compile(&forms()[0]);
    let inv = progress::invalidate(&ir, &example_record(), &Event::Goal).unwrap();
    assert_eq!(inv.scope, Scope::Full);
    for s in &inv.steps {
        match s.before {
            Pending => assert_eq!((s.after, s.reusable), (Invalid, false), "{}", s.name),
            _ => assert_eq!((s.after, s.reusable), (Complete, true), "{}", s.name),
        }
    }
}

/// Marking, not deletion: applying an invalidation keeps every step, and a
/// complete step made invalid keeps its artifacts, marked (not reusable).
#[test]
fn apply_marks_and_keeps_every_step() {
    let ir = compile(&forms()[0]);
    let mut rec = example_record();
    let inv = progress::invalidate(&ir, &rec, &Event::Changed("config_raw".into())).unwrap();
    inv.apply(&ir, &mut rec);
    assert_eq!(rec.steps.len(), 5);
    let fetch = rec.step("fetch_config").unwrap();
    assert_eq!(fetch.status, Invalid);
    assert!(fetch.binds.contains_key("config_raw"));
    assert_eq!(rec.step("fetch_schema").unwrap().status, Complete);
    assert!(rec.artifact("schema_version").is_some());
}

#[test]
fn unknown_steps_and_artifacts_are_errors() {
    let ir = compile(&forms()[0]);
    let rec = example_record();
    assert!(progress::invalidate(&ir, &rec, &Event::Failed("nope".into())).is_err());
    assert!(progress::invalidate(&ir, &rec, &Event::Changed("nope".into())).is_err());
    for bad in [
        "",
        "failed",
        "failed:",
        "precondition:a b",
        "changed:1x",
        "goal:x",
    ] {
        assert!(Event::parse(bad).is_err(), "{bad}");
    }
    assert_eq!(
        Event::parse("precondition:provision_db")
            .unwrap()
            .to_string(),
        "precondition:provision_db"
    );
}

/// The repair of the example: the database's subgraph is rewritten, the
/// three complete steps are reused, the report is unchanged.
#[test]
fn the_replan_diff_reuses_complete_work() {
    let old = compile(&forms()[0]);
    for new in ["replan.plan", "replan.plan.json"] {
        let new = compile(&root().join("examples/config_dag").join(new));
        let d = progress::diff(&old, &new, Some(&example_record()));
        assert_eq!(d.added, vec!["migrate_schema"]);
        assert!(d.removed.is_empty());
        assert_eq!(d.changed.len(), 1);
        assert_eq!(d.changed[0].step, "provision_db");
        let fields: Vec<&str> = d.changed[0]
            .fields
            .iter()
            .map(|f| f.field.as_str())
            .collect();
        // The migrated schema feeds the database, and its precondition
        // tests the migrated tables.
        assert_eq!(fields, vec!["args.schema_version", "pre"]);
        assert_eq!(
            d.unchanged,
            vec![
                "fetch_config",
                "parse_config",
                "fetch_schema",
                "generate_report"
            ]
        );
        assert_eq!(
            d.reused,
            vec!["fetch_config", "parse_config", "fetch_schema"]
        );
        assert!(d.completed.is_empty());
        // Backwards: the migration is removed; nothing had completed there.
        let back = progress::diff(&new, &old, Some(&example_record()));
        assert_eq!(back.removed, vec!["migrate_schema"]);
    }
}

/// A removed or changed step that had completed is reported as history.
#[test]
fn completed_steps_that_change_are_history() {
    let old = compile(&forms()[0]);
    let new = compile(&root().join("examples/config_dag/replan.plan"));
    let mut rec = example_record();
    rec.step_mut("provision_db").unwrap().status = Status::Complete;
    let d = progress::diff(&old, &new, Some(&rec));
    assert_eq!(d.completed, vec!["provision_db"]);
    let text = progress::diff::render_human(&d);
    assert!(
        text.contains("~ provision_db (had completed: not undone)"),
        "{text}"
    );
    assert!(
        text.contains("args.schema_version: schema_version -> migrated_version"),
        "{text}"
    );
}

// ------------------------------------------------------- replans (9.3)

/// The catalogue and policy of the replan table.
const REPLAN_WORLD: &str = r#"
tool orders.get(order_id: int) -> { total_eur: decimal } read idempotent
tool refunds.issue(order_id: int, amount_eur: decimal) -> { refund_id: string } write
tool report.make(title: string) -> { report_id: string } read idempotent

policy agent {
    actor [orders:read, refunds:write, reports:write]
    orders.get requires [orders:read]
    refunds.issue requires [refunds:write] where amount_eur <= 500
    report.make requires [reports:write]
}
"#;

/// Checks `plan` (with [`REPLAN_WORLD`]) against the record `steps` (the
/// JSON of its `steps` list): the errors and warnings, the notes, and the
/// IR's reused steps when it compiles.
fn replan(
    steps: &str,
    replans_used: u64,
    plan: &str,
) -> (Vec<String>, Vec<String>, Option<PlanIr>) {
    let record = format!(
        r#"{{"progress_version": "1.0", "plan": "before", "replans_used": {replans_used}, "steps": {steps}}}"#
    );
    let mut job = Job::default();
    let id = job
        .sources
        .add("replan.plan", format!("{REPLAN_WORLD}\n{plan}"));
    job.plans.push(id);
    job.progress = Some(job.sources.add_with_kind(
        "progress.json",
        record,
        planc::SourceKind::Json,
    ));
    let outcome = driver::run(&mut job);
    let pick = |notes: bool| -> Vec<String> {
        outcome
            .diagnostics
            .iter()
            .filter(|d| (d.severity == planc::Severity::Note) == notes)
            .map(|d| d.code.to_string())
            .collect()
    };
    let ir = driver::lower(&job, &outcome)
        .ok()
        .map(|mut irs| irs.remove(0));
    (pick(false), pick(true), ir)
}

const ORDER_DONE: &str = r#"{"name": "order", "tool": "orders.get", "status": "complete",
  "effect": "read", "idempotent": true, "args": {"order_id": 4921}, "binds": {"total": 120.00}}"#;
const REFUND_DONE: &str = r#"{"name": "refund", "tool": "refunds.issue", "status": "complete",
  "effect": "write", "idempotent": false, "args": {"order_id": 4921, "amount_eur": 120.00},
  "binds": {"refund_id": "rf_1"}}"#;
const ORDER_INVALID: &str = r#"{"name": "order", "tool": "orders.get", "status": "invalid",
  "effect": "read", "idempotent": true, "args": {"order_id": 4921}, "binds": {"total": 120.00}}"#;

const STEP_ORDER: &str = "step order = orders.get(order_id: 4921) { bind total = $.total_eur }";
const STEP_REFUND: &str =
    "step refund = refunds.issue(order_id: 4921, amount_eur: total) { post exists($.refund_id) }";
const STEP_REPORT: &str =
    "step report = report.make(title: \"refunds\") { post exists($.report_id) }";

/// A row of the table: its name, the record's steps, `replans_used`, the
/// plan, the errors and warnings, the notes.
type Row = (
    &'static str,
    String,
    u64,
    String,
    &'static [&'static str],
    &'static [&'static str],
);

/// The mutation table of the replanning properties: each row a record, a
/// replan, and the codes it must get (errors and warnings exactly; the
/// notes listed must be among those given).
#[test]
fn replans_against_records_get_their_codes() {
    let plan = |steps: &[&str], budget: &str| {
        format!(
            "plan after \"refund\" {{\n{budget}\n{}\n}}\n",
            steps.join("\n")
        )
    };
    let rows: Vec<Row> = vec![
        // Artifact reuse: the completed steps, unchanged, are reused.
        (
            "reuse",
            format!("[{ORDER_DONE}, {REFUND_DONE}]"),
            0,
            plan(&[STEP_ORDER, STEP_REFUND], ""),
            &[],
            &["N0303", "N0303"],
        ),
        // A recorded artifact used without its step: in scope, its value a
        // literal within the ceiling (no guard, no N0302).
        (
            "recorded artifact in scope",
            format!("[{ORDER_DONE}]"),
            0,
            plan(
                &["step refund = refunds.issue(order_id: 4921, amount_eur: total) { post exists($.refund_id) }"],
                "",
            ),
            &[],
            &[],
        ),
        // The recorded value over the ceiling: refused now.
        (
            "recorded value over a ceiling",
            r#"[{"name": "order", "tool": "orders.get", "status": "complete", "args": {"order_id": 1},
                "binds": {"total": 650.00}}]"#
                .to_string(),
            0,
            plan(
                &["step refund = refunds.issue(order_id: 1, amount_eur: total) { post exists($.refund_id) }"],
                "",
            ),
            &["E0303"],
            &[],
        ),
        // An invalidated artifact is not reused.
        (
            "invalidated artifact",
            format!("[{ORDER_INVALID}]"),
            0,
            plan(
                &["step refund = refunds.issue(order_id: 4921, amount_eur: total) { post exists($.refund_id) }"],
                "",
            ),
            &["E0308"],
            &[],
        ),
        // ... and binding it again repairs the plan.
        (
            "invalidated artifact bound again",
            format!("[{ORDER_INVALID}]"),
            0,
            plan(&[STEP_ORDER, STEP_REFUND], ""),
            &[],
            &["N0302"],
        ),
        // An independent branch stays available: the invalid step's
        // artifact is not needed by the report.
        (
            "independent branch",
            format!("[{ORDER_INVALID}, {REFUND_DONE}]"),
            0,
            plan(&[STEP_REPORT], ""),
            &[],
            &[],
        ),
        // A mutating action is not duplicated: changed under its name...
        (
            "write changed",
            format!("[{ORDER_DONE}, {REFUND_DONE}]"),
            0,
            plan(
                &["step refund = refunds.issue(order_id: 4921, amount_eur: 99.00) { post exists($.refund_id) }"],
                "",
            ),
            &["E0306"],
            &[],
        ),
        // ... repeated under another name...
        (
            "write renamed",
            format!("[{ORDER_DONE}, {REFUND_DONE}]"),
            0,
            plan(
                &["step refund_2 = refunds.issue(order_id: 4921, amount_eur: 120.00) { post exists($.refund_id) }"],
                "",
            ),
            &["E0307"],
            &[],
        ),
        // ... or possibly repeated, an argument known only at dispatch.
        (
            "write maybe repeated",
            format!("[{REFUND_DONE}]"),
            0,
            plan(
                &[
                    "step lookup = orders.get(order_id: 4921) { bind amount = $.total_eur }",
                    "step refund_2 = refunds.issue(order_id: 4921, amount_eur: amount) { post exists($.refund_id) }",
                ],
                "",
            ),
            &["W0405"],
            &["N0302"],
        ),
        // A read changed under its name simply runs again.
        (
            "read changed",
            format!("[{ORDER_DONE}]"),
            0,
            plan(&["step order = orders.get(order_id: 7) { post exists($.total_eur) }"], ""),
            &[],
            &[],
        ),
        // The replan budget terminates the loop.
        (
            "budget spent",
            format!("[{ORDER_DONE}]"),
            2,
            plan(&[STEP_REPORT], "replans 2"),
            &["E0305"],
            &[],
        ),
        (
            "budget left",
            format!("[{ORDER_DONE}]"),
            1,
            plan(&[STEP_REPORT], "replans 2"),
            &[],
            &[],
        ),
    ];
    for (name, steps, used, text, errors, notes) in rows {
        let (got, got_notes, ir) = replan(&steps, used, &text);
        assert_eq!(got, errors, "{name}: {text}");
        for n in notes {
            assert!(
                got_notes.iter().any(|g| g == n),
                "{name}: no {n} in {got_notes:?}"
            );
        }
        if name == "recorded artifact in scope" {
            assert!(
                !got_notes.iter().any(|g| g == "N0302"),
                "{name}: {got_notes:?}"
            );
            let ir = ir.clone().unwrap();
            assert!(ir.steps[0].authz.guards.is_empty(), "{name}: a guard");
            let progress = ir.progress.unwrap();
            assert_eq!(progress.artifacts_in["total"].to_string(), "120.00");
            assert_eq!(ir.steps[0].reuse, Some(false));
        }
        if name == "reuse" {
            let ir = ir.unwrap();
            assert!(ir.steps.iter().all(|s| s.reuse == Some(true)), "{name}");
            assert_eq!(
                ir.steps[0].artifacts.as_ref().unwrap()["total"].to_string(),
                "120.00"
            );
        }
    }
    // Without a record, the IR has neither `progress` nor `reuse`.
    let text = format!("{REPLAN_WORLD}\n{}", plan(&[STEP_ORDER, STEP_REFUND], ""));
    let mut job = Job::default();
    let id = job.sources.add("plain.plan", text);
    job.plans.push(id);
    let outcome = driver::run(&mut job);
    let ir = driver::lower(&job, &outcome).unwrap().remove(0);
    let json = planc::ir::to_json(&ir).unwrap();
    assert!(!json.contains("\"reuse\"") && !json.contains("\"progress\""));
}
