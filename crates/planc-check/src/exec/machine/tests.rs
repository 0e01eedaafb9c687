//! The state machine, driven step by step as a driver would.

use super::*;
use crate::Compiler;

const TOOLS: &str = "tool kv.get(key: string) -> { value: string } read idempotent\n\
                     tool kv.put(key: string, value: string) -> { version: int } write\n";
const POLICY: &str = "policy p {\n    actor [kv:read, kv:write]\n    kv.get requires [kv:read]\n    kv.put requires [kv:write]\n}\n";
const PLAN: &str = r#"{"name": "copy", "steps": [
    {"name": "a", "tool": "kv.get", "args": {"key": "src"}, "retry": 1, "binds": {"v": "$.value"}},
    {"name": "b", "tool": "kv.get", "args": {"key": "other"}},
    {"name": "put", "tool": "kv.put", "args": {"key": "dst", "value": "${v}"},
     "post": {"probe": "field_exists", "path": "$.version"}}]}"#;

fn ir() -> Arc<PlanIr> {
    let c = Compiler::new(
        &[("tools.plan", TOOLS)],
        Some(("policy.plan", POLICY)),
        None,
    );
    let checked = c.check("plan.json", PLAN, SourceKind::Json);
    let mut irs = checked.ir.unwrap_or_default();
    assert_eq!(irs.len(), 1, "{:?}", checked.diagnostics);
    Arc::new(irs.remove(0))
}

fn value(v: &str) -> Result<Data, ToolError> {
    Ok(Data::parse_text(&format!(r#"{{"value": "{v}", "version": 1}}"#)).unwrap())
}

fn busy() -> Result<Data, ToolError> {
    Err(ToolError {
        code: "busy".into(),
        message: "try again".into(),
        retryable: true,
    })
}

/// One whole run, step by step: what a driver sees.
fn drive(m: &mut Machine) -> Vec<Output> {
    let mut out = m.drain();
    let round = m.next(true).unwrap();
    let names: Vec<&str> = round.iter().map(|d| d.step.as_str()).collect();
    assert_eq!(names, ["a", "b"]);
    assert!(round.iter().all(|d| d.attempt == 1));
    // Nothing more is due while both are in flight, and the run is not over.
    assert!(m.next(true).unwrap().is_empty());
    assert!(m.finished().is_none());
    assert_eq!(m.in_flight(), ["a", "b"]);
    // `a` fails once, retryably: its retry is due next, attempt 2.
    let retry = m.complete("a", busy()).unwrap().unwrap();
    assert_eq!((retry.step.as_str(), retry.attempt), ("a", 2));
    assert!(m.complete("b", value("w")).unwrap().is_none());
    assert!(m.next(true).unwrap().is_empty());
    assert!(m.complete("a", value("v")).unwrap().is_none());
    let [put] = m.next(true).unwrap().try_into().unwrap();
    assert_eq!(put.args.get("value"), Some(&Data::from("v")));
    assert!(m.complete("put", value("x")).unwrap().is_none());
    assert!(m.next(true).unwrap().is_empty());
    assert_eq!(m.finished(), Some(&Stop::Complete));
    out.extend(m.drain());
    out
}

#[test]
fn the_machine_is_driven_step_by_step_and_decides_the_same_each_time() {
    let approved = BTreeSet::new();
    let mut one = Machine::new(ir(), &approved, None).unwrap();
    let mut two = Machine::new(ir(), &approved, None).unwrap();
    let first = drive(&mut one);
    assert_eq!(first, drive(&mut two));
    let events: Vec<String> = first
        .iter()
        .filter_map(|o| match o {
            Output::Trace(e) => Some(format!(
                "{} {}",
                e.get("event").and_then(Data::as_str).unwrap_or("?"),
                e.get("step").and_then(Data::as_str).unwrap_or("-")
            )),
            Output::Progress(_) => None,
        })
        .collect();
    assert_eq!(
        events,
        [
            "dispatch a",
            "dispatch b",
            "result a",
            "retry a",
            "dispatch a",
            "result b",
            "complete b",
            "result a",
            "complete a",
            "dispatch put",
            "result put",
            "complete put",
            "stop -"
        ]
    );
    assert_eq!(one.record().step("a").map(|s| s.attempts), Some(2));
}

#[test]
fn results_for_steps_not_in_flight_are_refused() {
    let mut m = Machine::new(ir(), &BTreeSet::new(), None).unwrap();
    let not_yet = MachineError::NotInFlight("a".into());
    assert_eq!(m.complete("a", value("v")), Err(not_yet.clone()));
    m.next(true).unwrap();
    assert_eq!(
        m.complete("nope", value("v")),
        Err(MachineError::NoSuchStep("nope".into()))
    );
    assert!(m.complete("a", value("v")).unwrap().is_none());
    assert_eq!(
        m.complete("a", value("v")),
        Err(not_yet),
        "already complete"
    );
    assert_eq!(m.redispatch("a"), Err(MachineError::RedispatchAfterStart));
}

/// Marking, not deletion: a complete step the executor invalidates
/// keeps its recorded artifacts, so that a replan still using one is
/// told it is no longer usable (E0308).
#[test]
fn an_invalidated_complete_step_keeps_its_binds_in_the_record() {
    const CHAIN: &str = r#"{"name": "chain", "steps": [
        {"name": "c", "tool": "kv.get", "args": {"key": "flag"}, "binds": {"w": "$.value"}},
        {"name": "a", "tool": "kv.get", "args": {"key": "src"}, "binds": {"v": "$.value"},
         "pre": {"probe": "field_equals", "path": "w", "value": "go"}},
        {"name": "b", "tool": "kv.get", "args": {"key": "${v}"}, "binds": {"y": "$.value"}}]}"#;
    let c = Compiler::new(
        &[("tools.plan", TOOLS)],
        Some(("policy.plan", POLICY)),
        None,
    );
    let checked = c.check("plan.json", CHAIN, SourceKind::Json);
    let ir = Arc::new(checked.ir.unwrap_or_default().remove(0));
    // An earlier run (of another plan) bound `v` and completed `b`
    // with it: `b` is complete here without being dispatched.
    let prior: ProgressRecord = serde_json::from_str(
        r#"{"progress_version": "1.0", "plan": "old", "replans_used": 0, "steps": [
          {"name": "old_a", "tool": "kv.get", "status": "complete", "attempts": 1,
           "args": {"key": "src"}, "binds": {"v": "k1"}},
          {"name": "b", "tool": "kv.get", "status": "complete", "attempts": 1,
           "args": {"key": "k1"}, "binds": {"y": "z"}}]}"#,
    )
    .unwrap();
    let mut m = Machine::new(ir, &BTreeSet::new(), Some(&prior)).unwrap();
    assert_eq!(
        m.record().step("b").map(|s| s.status),
        Some(Status::Complete)
    );
    let [first] = m.next(true).unwrap().try_into().unwrap();
    assert_eq!(first.step, "c");
    m.complete("c", value("stop")).unwrap();
    // `a`'s precondition fails: `a` and its data dependent `b` are
    // invalid; `b` keeps what it had committed, marked.
    assert!(m.next(true).unwrap().is_empty());
    let record = m.record();
    let b = record.step("b").unwrap();
    assert_eq!(b.status, Status::Invalid);
    assert_eq!(b.binds.get("y").and_then(|v| v.as_str()), Some("z"));
    assert_eq!(record.step("a").map(|s| s.status), Some(Status::Invalid));
}

#[test]
fn one_at_a_time_when_not_together() {
    let mut m = Machine::new(ir(), &BTreeSet::new(), None).unwrap();
    let round = m.next(false).unwrap();
    assert_eq!(round.len(), 1);
    assert!(
        m.next(false).unwrap().is_empty(),
        "one call in flight at most"
    );
    m.complete("a", value("v")).unwrap();
    assert_eq!(m.next(false).unwrap().len(), 1);
}
