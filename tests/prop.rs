//! Property tests over generated plans (`support/gen.rs`): well-typed plans
//! over a generated catalogue and policy (ceilings, and allowlists and
//! patterns over strings whose literals are drawn from them and whose
//! references get guards; `trusted` arguments fed no untrusted binding;
//! totals the plan's literals stay within; `calls` bounds the plan keeps),
//! written as `.plan` text and as the JSON plan form, and mutations of
//! them.
//!
//! - Soundness: a generated plan compiles without errors, and its IR is
//!   valid against `schema/plan-ir.schema.json` and satisfies the invariants
//!   of `docs/ir.md` (`support/invariants.rs`, which shares no code
//!   with the checker).
//! - The text and JSON forms give the same IR (but for `source` and each
//!   step's `span`), and so do the text and JSON (MCP tool list, JSON
//!   policy) forms of the catalogue and policy; compiling twice gives the
//!   same bytes.
//! - Each mutation (forward reference, literal over a ceiling, unknown tool,
//!   missing scope, ill-typed argument, a literal outside an allowlist or a
//!   pattern, an untrusted binding into a `trusted` argument, a total or a
//!   `calls` bound one below what the plan needs) is rejected with its
//!   code, in the
//!   step it was made in, at the span it was made at in the text form, and
//!   with the JSON pointer of what it changed in the JSON form.
//! - `planc fmt`'s layout of a generated plan, catalogue and policy, with
//!   whitespace and comments strewn between their tokens, is a fixed point
//!   and compiles to the same IR.
//! - Random sequences of tokens never make the compiler panic.
//!
//! Cases per property: 64 by default, `PROPTEST_CASES` to change it.

#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    clippy::indexing_slicing
)]

#[path = "support/formless.rs"]
mod formless;
#[path = "support/invariants.rs"]
mod invariants;
#[path = "support/gen.rs"]
mod plangen;

use formless::formless;
use std::collections::BTreeSet;
use std::sync::OnceLock;

use planc::diagnostics::render;
use planc::driver::{self, Job, Outcome, Trees};
use planc::fmt::layout::layout;
use planc::ir::{CmpOp, Effect, Literal, PlanIr};
use planc::{Code, Diagnostic};
use plangen::{Choices, Plan, Ty, Val, World};
use proptest::prelude::*;

fn config() -> ProptestConfig {
    let cases = std::env::var("PROPTEST_CASES")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(64);
    ProptestConfig {
        cases,
        // Shrinking a failing plan is worth a few seconds, not minutes.
        max_shrink_iters: 2048,
        ..ProptestConfig::default()
    }
}

/// A stream of choices: long enough for the largest world and plan.
fn choices() -> impl Strategy<Value = Vec<u32>> {
    prop::collection::vec(any::<u32>(), 0..600)
}

fn validator() -> &'static jsonschema::Validator {
    static V: OnceLock<jsonschema::Validator> = OnceLock::new();
    V.get_or_init(|| {
        let path = concat!(env!("CARGO_MANIFEST_DIR"), "/schema/plan-ir.schema.json");
        let schema: serde_json::Value =
            serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap();
        jsonschema::validator_for(&schema).unwrap()
    })
}

/// A case: the world, the plan, and the texts the front ends read.
struct Case {
    world: World,
    plan: Plan,
}

fn case(data: &[u32]) -> Case {
    let mut c = Choices::new(data);
    let world = plangen::world(&mut c);
    let plan = plangen::plan(&mut c, &world);
    Case { world, plan }
}

struct Run {
    job: Job,
    outcome: Outcome,
}

/// Compiles `plan` (a `.plan` or `.json` file by its name) against the
/// world's catalogue and policy, both written as text.
fn compile(world: &World, name: &str, plan: &str) -> Run {
    compile_against(world, name, plan, false)
}

/// [`compile`], with the catalogue (an MCP tool list) and the policy in
/// their JSON forms when `json` is true.
fn compile_against(world: &World, name: &str, plan: &str, json: bool) -> Run {
    if json {
        compile_with(
            (name, plan),
            ("tools.json", &plangen::tools_json(world)),
            ("policy.json", &plangen::policy_json(world)),
        )
    } else {
        compile_with(
            (name, plan),
            ("tools.plan", &plangen::tools_text(world)),
            ("policy.plan", &plangen::policy_text(world)),
        )
    }
}

/// Compiles a plan against a catalogue and a policy, each a name and a text.
fn compile_with(plan: (&str, &str), tools: (&str, &str), policy: (&str, &str)) -> Run {
    compile_trees(plan, tools, policy, Trees::Keep)
}

/// [`compile`], the plan's syntax tree let go as it is checked, as
/// `planc compile` does.
fn compile_released(world: &World, name: &str, plan: &str) -> Run {
    run_with(world, name, plan, Trees::Release)
}

/// [`compile_released`], each step's model let go too, as `planc check`
/// does: its diagnostics, which must be [`compile`]'s.
fn diagnostics_only(world: &World, name: &str, plan: &str) -> String {
    let run = run_with(world, name, plan, Trees::Diagnostics);
    render::json(&run.job.sources, &run.outcome.diagnostics)
}

fn run_with(world: &World, name: &str, plan: &str, trees: Trees) -> Run {
    compile_trees(
        (name, plan),
        ("tools.plan", &plangen::tools_text(world)),
        ("policy.plan", &plangen::policy_text(world)),
        trees,
    )
}

fn compile_trees(
    plan: (&str, &str),
    tools: (&str, &str),
    policy: (&str, &str),
    trees: Trees,
) -> Run {
    let mut job = Job {
        trees,
        ..Job::default()
    };
    let p = job.sources.add(plan.0, plan.1);
    let t = job.sources.add(tools.0, tools.1);
    let pol = job.sources.add(policy.0, policy.1);
    job.plans.push(p);
    job.catalog.push(t);
    job.policy.push(pol);
    let outcome = driver::run(&mut job);
    Run { job, outcome }
}

fn listing(run: &Run) -> String {
    let files: Vec<String> = run
        .job
        .sources
        .files()
        .map(|f| format!("--- {}\n{}", f.name, f.text))
        .collect();
    format!(
        "{}\n{}",
        files.join("\n"),
        render::short(&run.job.sources, &run.outcome.diagnostics)
    )
}

/// The plain world the invariant checker compares against, from the model
/// (not from anything the compiler read).
fn plain_world(world: &World) -> invariants::World {
    let mut w = invariants::World {
        actor: world.actor.iter().cloned().collect::<BTreeSet<_>>(),
        ..invariants::World::default()
    };
    for t in &world.tools {
        w.tools.insert(
            t.name.clone(),
            if t.write { Effect::Write } else { Effect::Read },
        );
        w.rules.insert(
            t.name.clone(),
            invariants::ToolRule {
                scopes: t.scopes.clone(),
                approval: t.approval,
                ceilings: t
                    .params
                    .iter()
                    .filter_map(|p| {
                        p.ceiling
                            .map(|l| (p.name.clone(), CmpOp::Le, Literal::Int(l)))
                    })
                    .collect(),
                lists: t
                    .params
                    .iter()
                    .filter_map(|p| {
                        let values = p.allow.as_ref()?;
                        let literals = values
                            .iter()
                            .map(|v| Literal::String(v.as_str().into()))
                            .collect();
                        Some((p.name.clone(), false, literals))
                    })
                    .collect(),
                patterns: t
                    .params
                    .iter()
                    .filter_map(|p| Some((p.name.clone(), p.regex()?.to_string())))
                    .collect(),
                totals: t
                    .params
                    .iter()
                    .filter_map(|p| Some((p.name.clone(), Literal::Int(p.total?), None)))
                    .collect(),
                calls: t.calls.map(|n| n as u64),
            },
        );
    }
    w
}

/// Lowers a run that must have no errors, and checks its IR: the schema,
/// the invariants, and a read back into the IR types.
fn sound_ir(run: &Run, world: &World) -> Result<PlanIr, TestCaseError> {
    prop_assert!(
        !run.outcome.has_errors(),
        "a generated plan has errors:\n{}",
        listing(run)
    );
    let irs = driver::lower(&run.job, &run.outcome).map_err(TestCaseError::fail)?;
    prop_assert_eq!(irs.len(), 1);
    let ir = irs.into_iter().next().unwrap();
    let value = serde_json::to_value(&ir).unwrap();
    let errors: Vec<String> = validator()
        .iter_errors(&value)
        .map(|e| e.to_string())
        .collect();
    prop_assert!(
        errors.is_empty(),
        "IR not valid against the schema: {errors:?}"
    );
    let broken = invariants::violations(&ir, &plain_world(world));
    prop_assert!(
        broken.is_empty(),
        "IR breaks invariants: {broken:#?}\n{}",
        listing(run)
    );
    let back: PlanIr = serde_json::from_value(value).unwrap();
    prop_assert_eq!(&back, &ir);
    Ok(ir)
}

/// Everything a run prints: diagnostics as JSON, and the IR when there is one.
fn output(run: &Run) -> String {
    let mut out = render::json(&run.job.sources, &run.outcome.diagnostics);
    if let Ok(irs) = driver::lower(&run.job, &run.outcome) {
        for ir in &irs {
            out.push_str(&planc::ir::to_json(ir).unwrap());
        }
    }
    out
}

proptest! {
    #![proptest_config(config())]

    /// A generated plan compiles clean in both forms, to sound IR, the same
    /// from either form and from run to run.
    #[test]
    fn generated_plans_lower_to_sound_identical_deterministic_ir(data in choices()) {
        let Case { world, plan } = case(&data);
        let (text, _) = plangen::plan_text(&plan);
        let json = plangen::plan_json(&plan);

        let from_text = compile(&world, "gen.plan", &text);
        let ir_text = sound_ir(&from_text, &world)?;
        let from_json = compile(&world, "gen.json", &json);
        let ir_json = sound_ir(&from_json, &world)?;
        prop_assert_eq!(
            formless(ir_text.clone()),
            formless(ir_json),
            "text and JSON forms give different IR\n{}\n{}",
            listing(&from_text),
            listing(&from_json)
        );

        // The same catalogue and policy read from their JSON forms give the
        // same IR.
        let against_json = compile_against(&world, "gen.plan", &text, true);
        let ir_against_json = sound_ir(&against_json, &world)?;
        prop_assert_eq!(
            formless(ir_text.clone()),
            formless(ir_against_json),
            "the JSON catalogue and policy give different IR\n{}",
            listing(&against_json)
        );

        // Deterministic: a second run prints the same bytes, and so does
        // a check that lets each step's tree go as its model is built.
        for (run, name, src) in [(&from_text, "gen.plan", &text), (&from_json, "gen.json", &json)] {
            let again = compile(&world, name, src);
            prop_assert_eq!(output(run), output(&again));
            let released = compile_released(&world, name, src);
            prop_assert!(released.outcome.parsed.iter().all(|p| p.file != released.job.plans[0]));
            prop_assert_eq!(output(run), output(&released));
            prop_assert_eq!(
                render::json(&run.job.sources, &run.outcome.diagnostics),
                diagnostics_only(&world, name, src)
            );
            // A check for its diagnostics only has no model to lower.
            let only = run_with(&world, name, src, Trees::Diagnostics);
            prop_assert!(driver::lower(&only.job, &only.outcome).is_err());
            // Lowering that drops each step's model as it goes builds the
            // same IR.
            let kept = driver::lower(&run.job, &run.outcome).map_err(TestCaseError::fail)?;
            let owned = driver::lower_owned(&released.job, released.outcome)
                .map_err(TestCaseError::fail)?;
            prop_assert_eq!(&kept, &owned);
            // Written as it is checked (`planc compile -o`), the same
            // bytes as the IR lowered whole.
            let mut stream = planc::ir::IrStream::new(
                std::io::Cursor::new(Vec::new()),
                std::io::Cursor::new(Vec::new()),
            );
            let mut job = run_with(&world, name, src, Trees::Keep).job;
            let streamed = driver::run_lowering(&mut job, &mut stream)
                .ok_or_else(|| TestCaseError::fail("not checked as it is written"))?;
            prop_assert_eq!(&streamed.diagnostics, &run.outcome.diagnostics);
            let [model] = streamed.checked.plans.as_slice() else {
                return Err(TestCaseError::fail("not one plan"));
            };
            let written = stream
                .finish(model)
                .map_err(TestCaseError::fail)?
                .into_inner();
            let mut whole = Vec::new();
            planc::ir::write_json(&kept[0], false, &mut whole).map_err(|e| TestCaseError::fail(e.to_string()))?;
            prop_assert_eq!(String::from_utf8_lossy(&written), String::from_utf8_lossy(&whole));
        }
    }
}

// ---------------------------------------------------------------- mutations

#[derive(Clone, Copy, Debug)]
enum Mutation {
    ForwardReference,
    OverCeiling,
    UnknownTool,
    MissingScope,
    IllTyped,
    OutsideList,
    OutsidePattern,
    UntrustedIntoTrusted,
    OverTotal,
    OverCalls,
}

impl Mutation {
    fn code(self) -> Code {
        match self {
            Mutation::ForwardReference => Code::E0106,
            Mutation::OverCeiling => Code::E0303,
            Mutation::UnknownTool => Code::E0101,
            Mutation::MissingScope => Code::E0302,
            Mutation::IllTyped => Code::E0201,
            Mutation::OutsideList => Code::E0311,
            Mutation::OutsidePattern => Code::E0312,
            Mutation::UntrustedIntoTrusted => Code::E0313,
            Mutation::OverTotal => Code::E0314,
            Mutation::OverCalls => Code::E0315,
        }
    }
}

/// Where a mutation was made: the step, and the argument (`None`: the tool
/// name).
struct Site {
    step: usize,
    arg: Option<String>,
}

/// Gives the argument `arg` of step `j` the value `value`: the site of a
/// mutation.
fn set_arg(plan: &mut Plan, j: usize, arg: String, value: Val) -> Option<Site> {
    let slot = plan
        .steps
        .get_mut(j)?
        .args
        .iter_mut()
        .find(|(a, _)| *a == arg)?;
    slot.1 = value;
    Some(Site {
        step: j,
        arg: Some(arg),
    })
}

/// Applies a mutation at a place chosen by `pick`; `None` when the plan has
/// no place for it.
fn mutate(m: Mutation, world: &mut World, plan: &mut Plan, pick: &mut Choices<'_>) -> Option<Site> {
    let param_ty = |world: &World, step: &plangen::Step, arg: &str| -> Option<Ty> {
        let tool = world.tools.get(step.tool_index?)?;
        tool.params.iter().find(|p| p.name == arg).map(|p| p.ty)
    };
    match m {
        Mutation::ForwardReference => {
            // An argument of step j takes a binding of a later step k.
            let mut sites = Vec::new();
            for (j, s) in plan.steps.iter().enumerate() {
                for (arg, _) in &s.args {
                    let ty = param_ty(world, s, arg)?;
                    for later in plan.steps.iter().skip(j + 1) {
                        for b in &later.binds {
                            if b.ty == Some(ty) {
                                sites.push((j, arg.clone(), b.name.clone()));
                            }
                        }
                    }
                }
            }
            let (j, arg, binding) = pick.pick(&sites)?.clone();
            set_arg(plan, j, arg, Val::Ref(binding, None))
        }
        Mutation::OverCeiling => {
            let mut sites = Vec::new();
            for (j, s) in plan.steps.iter().enumerate() {
                let Some(tool) = s.tool_index.and_then(|t| world.tools.get(t)) else {
                    continue;
                };
                for p in &tool.params {
                    if let Some(limit) = p.ceiling {
                        sites.push((j, p.name.clone(), p.ty, limit));
                    }
                }
            }
            let (j, arg, ty, limit) = pick.pick(&sites)?.clone();
            let over = match ty {
                Ty::Int => Val::Int(limit + 1 + pick.below(1000) as i64),
                _ => Val::Dec(limit * 100 + 1 + pick.below(100_000) as i64),
            };
            set_arg(plan, j, arg, over)
        }
        Mutation::UnknownTool => {
            let j = pick.below(plan.steps.len());
            let step = plan.steps.get_mut(j)?;
            step.tool = "nosuch.tool".to_string();
            step.tool_index = None;
            Some(Site { step: j, arg: None })
        }
        Mutation::MissingScope => {
            let j = pick.below(plan.steps.len());
            let tool = world.tools.get(plan.steps.get(j)?.tool_index?)?;
            let scope = pick.pick(&tool.scopes)?.clone();
            world.actor.retain(|s| *s != scope);
            Some(Site { step: j, arg: None })
        }
        Mutation::OutsideList | Mutation::OutsidePattern => {
            // A literal in no allowlist and matched by no pattern.
            let mut sites = Vec::new();
            for (j, s) in plan.steps.iter().enumerate() {
                let Some(tool) = s.tool_index.and_then(|t| world.tools.get(t)) else {
                    continue;
                };
                for p in &tool.params {
                    let ruled = match m {
                        Mutation::OutsideList => p.allow.is_some(),
                        _ => p.pattern.is_some(),
                    };
                    if ruled && s.args.iter().any(|(a, _)| *a == p.name) {
                        sites.push((j, p.name.clone()));
                    }
                }
            }
            let (j, arg) = pick.pick(&sites)?.clone();
            set_arg(plan, j, arg, Val::Str("zz outside".to_string()))
        }
        Mutation::UntrustedIntoTrusted => {
            // A string argument of step j, required `trusted`, takes what an
            // earlier step i binds from its tool's output, the tool made
            // untrusted.
            let mut sites = Vec::new();
            for (j, s) in plan.steps.iter().enumerate() {
                let Some(t) = s.tool_index else {
                    continue;
                };
                let Some(tool) = world.tools.get(t) else {
                    continue;
                };
                for (k, p) in tool.params.iter().enumerate() {
                    if p.ty != Ty::Str || !s.args.iter().any(|(a, _)| *a == p.name) {
                        continue;
                    }
                    for (i, earlier) in plan.steps[..j].iter().enumerate() {
                        if let Some(from) = earlier.tool_index {
                            sites.push((i, from, j, t, k, p.name.clone()));
                        }
                    }
                }
            }
            let (i, from, j, t, k, arg) = pick.pick(&sites)?.clone();
            world.tools.get_mut(from)?.untrusted = true;
            world.tools.get_mut(t)?.params.get_mut(k)?.trusted = true;
            let name = format!("u{i}");
            plan.steps.get_mut(i)?.binds.push(plangen::Bind {
                name: name.clone(),
                path: "$.s",
                ty: Some(Ty::Str),
            });
            set_arg(plan, j, arg, Val::Ref(name, None))
        }
        Mutation::OverTotal => {
            // The total of a tool's integer argument (given by every call:
            // no default) becomes one less than the plan's literals add up
            // to at a call: that call is refused.
            let mut sites = Vec::new();
            for (t, tool) in world.tools.iter().enumerate() {
                for (k, p) in tool.params.iter().enumerate() {
                    if p.ty != Ty::Int || p.default.is_some() {
                        continue;
                    }
                    let mut sum = 0;
                    for (j, s) in plan.steps.iter().enumerate() {
                        if s.tool_index != Some(t) {
                            continue;
                        }
                        if let Some((_, Val::Int(v))) = s.args.iter().find(|(a, _)| *a == p.name) {
                            sum += v;
                            if *v > 0 {
                                sites.push((t, k, j, sum - 1, p.name.clone()));
                            }
                        }
                    }
                }
            }
            let (t, k, j, max, arg) = pick.pick(&sites)?.clone();
            world.tools.get_mut(t)?.params.get_mut(k)?.total = Some(max);
            Some(Site {
                step: j,
                arg: Some(arg),
            })
        }
        Mutation::OverCalls => {
            // A tool's `calls` becomes one less than the plan's calls of
            // it: the last call is refused.
            let mut sites = Vec::new();
            for (t, _) in world.tools.iter().enumerate() {
                let calls: Vec<usize> = plan
                    .steps
                    .iter()
                    .enumerate()
                    .filter(|(_, s)| s.tool_index == Some(t))
                    .map(|(j, _)| j)
                    .collect();
                if let Some(&last) = calls.last() {
                    sites.push((t, calls.len() - 1, last));
                }
            }
            let (t, max, j) = *pick.pick(&sites)?;
            world.tools.get_mut(t)?.calls = Some(max);
            Some(Site { step: j, arg: None })
        }
        Mutation::IllTyped => {
            let mut sites = Vec::new();
            for (j, s) in plan.steps.iter().enumerate() {
                for (arg, _) in &s.args {
                    sites.push((j, arg.clone(), param_ty(world, s, arg)?));
                }
            }
            let (j, arg, ty) = pick.pick(&sites)?.clone();
            let wrong = match ty {
                Ty::Bool => Val::Int(7),
                _ => Val::Bool(true),
            };
            set_arg(plan, j, arg, wrong)
        }
    }
}

fn mutation() -> impl Strategy<Value = Mutation> {
    prop_oneof![
        Just(Mutation::ForwardReference),
        Just(Mutation::OverCeiling),
        Just(Mutation::UnknownTool),
        Just(Mutation::MissingScope),
        Just(Mutation::IllTyped),
        Just(Mutation::OutsideList),
        Just(Mutation::OutsidePattern),
        Just(Mutation::UntrustedIntoTrusted),
        Just(Mutation::OverTotal),
        Just(Mutation::OverCalls),
    ]
}

fn with_code(diags: &[Diagnostic], code: Code) -> Vec<&Diagnostic> {
    diags.iter().filter(|d| d.code == code).collect()
}

proptest! {
    #![proptest_config(config())]

    /// A mutation that introduces an error is reported with its code, in the
    /// step it was made in, by both front ends; in the text form, at the
    /// argument value or tool name it changed.
    #[test]
    fn mutations_are_rejected_with_their_code(
        data in choices(),
        m in mutation(),
        where_ in prop::collection::vec(any::<u32>(), 3),
    ) {
        let Case { mut world, mut plan } = case(&data);
        let mut pick = Choices::new(&where_);
        let Some(site) = mutate(m, &mut world, &mut plan, &mut pick) else {
            // The plan has no place for this mutation.
            return Ok(());
        };
        let step_name = plan.steps[site.step].name.clone();
        let (text, spans) = plangen::plan_text(&plan);
        let json = plangen::plan_json(&plan);
        let code = m.code();

        let run = compile(&world, "gen.plan", &text);
        let found = with_code(&run.outcome.diagnostics, code);
        prop_assert!(
            found.iter().any(|d| d.step.as_deref() == Some(&step_name)),
            "{m:?}: no {} in step `{step_name}`\n{}", code.as_str(), listing(&run)
        );
        let span = match &site.arg {
            None => spans[site.step].tool.clone(),
            Some(a) => spans[site.step].args.iter().find(|(n, _)| n == a).unwrap().1.clone(),
        };
        prop_assert!(
            found.iter().any(|d| {
                let r = d.span.range();
                d.span.file == run.job.plans[0] && r.start >= span.start && r.end <= span.end
            }),
            "{m:?}: no {} within {span:?} (`{}`)\n{}",
            code.as_str(), &text[span.clone()], listing(&run)
        );
        prop_assert!(driver::lower(&run.job, &run.outcome).is_err());
        // The check that lets each step's tree go as its model is built
        // reports the same.
        let released = compile_released(&world, "gen.plan", &text);
        prop_assert_eq!(output(&run), output(&released));
        prop_assert_eq!(
            render::json(&run.job.sources, &run.outcome.diagnostics),
            diagnostics_only(&world, "gen.plan", &text)
        );

        let run = compile(&world, "gen.json", &json);
        let found = with_code(&run.outcome.diagnostics, code);
        prop_assert!(
            found.iter().any(|d| d.step.as_deref() == Some(&step_name)),
            "{m:?} (JSON): no {} in step `{step_name}`\n{}", code.as_str(), listing(&run)
        );
        // In JSON, the place is the RFC 6901 pointer of the report.
        let pointer = match &site.arg {
            None => format!("/steps/{}/tool", site.step),
            Some(a) => format!("/steps/{}/args/{a}", site.step),
        };
        let report = render::json_report(&run.job.sources, &run.outcome.diagnostics);
        prop_assert!(
            report
                .diagnostics
                .iter()
                .any(|d| d.code == code.as_str() && d.pointer.as_deref() == Some(pointer.as_str())),
            "{m:?} (JSON): no {} at `{pointer}`\n{}",
            code.as_str(),
            render::json(&run.job.sources, &run.outcome.diagnostics)
        );
    }
}

// ---------------------------------------------------------------- token soup

/// Tokens the lexer accepts, of every kind.
const TOKENS: &[&str] = &[
    "tool",
    "policy",
    "plan",
    "step",
    "post",
    "bind",
    "on_unmet",
    "retry",
    "after",
    "replans",
    "max_steps",
    "actor",
    "requires",
    "approval",
    "human",
    "where",
    "read",
    "write",
    "idempotent",
    "untrusted",
    "len",
    "exists",
    "not",
    "in",
    "replan",
    "halt",
    "escalate",
    "string",
    "int",
    "decimal",
    "bool",
    "date",
    "datetime",
    "null",
    "any",
    "true",
    "false",
    "x",
    "amount_eur",
    "customer.resolve",
    "billing.issue_credit",
    "facts.plan",
    "billing:write",
    "crm:read",
    "$",
    "$.results",
    "$.results[0].id",
    "$[3]",
    "0",
    "-1",
    "500",
    "12.50",
    "-0.5",
    "2026-03-04",
    "2026-03-04T10:00:00Z",
    "2026-03-04T10:00:00.5+01:00",
    "\"\"",
    "\"text\"",
    "\"on ${period_end}\"",
    "\"\\${x}\"",
    "\"\\u{1F600}\"",
    "\"a\" | \"b\"",
    "/// doc\n",
    "// comment\n",
    "(",
    ")",
    "[",
    "]",
    "{",
    "}",
    ",",
    ":",
    "=",
    "->",
    "?",
    "|",
    "==",
    "!=",
    "<",
    "<=",
    ">",
    ">=",
];

/// `text` with whitespace or a comment added before some of its tokens
/// (which `extra` picks): a space, a line break, blank lines, a tab, a
/// comment to the end of the line.
fn strew(text: &str, extra: &[u8]) -> String {
    let lexed = planc::syntax::lexer::lex(planc::FileId(0), text);
    let mut out = String::new();
    let mut at = 0;
    for (k, (_, span)) in lexed.tokens.iter().enumerate() {
        out.push_str(&text[at..span.start]);
        out.push_str(match extra.get(k).copied().unwrap_or(u8::MAX) % 8 {
            0 => " ",
            1 => "\n",
            2 => "\n\n\n",
            3 => "\t ",
            4 => " // a comment\n",
            _ => "",
        });
        out.push_str(&text[span.start..span.end]);
        at = span.end;
    }
    out.push_str(&text[at..]);
    out
}

proptest! {
    #![proptest_config(config())]

    /// The layout of a generated plan, catalogue and policy, whatever
    /// whitespace and comments are strewn in them, is a fixed point and
    /// compiles to the same IR as the original.
    #[test]
    fn layout_keeps_what_a_plan_means(
        data in choices(),
        extra in prop::collection::vec(any::<u8>(), 0..600),
    ) {
        let Case { world, plan } = case(&data);
        let (text, _) = plangen::plan_text(&plan);
        let tools = plangen::tools_text(&world);
        let policy = plangen::policy_text(&world);
        let mut laid = Vec::new();
        for src in [&text, &tools, &policy] {
            let strewn = strew(src, &extra);
            let out = layout(&strewn)
                .map_err(|e| TestCaseError::fail(format!("{e:?}\n{strewn}")))?;
            prop_assert_eq!(layout(&out).unwrap(), out.clone(), "not a fixed point:\n{}", strewn);
            laid.push(out);
        }
        let original = compile(&world, "gen.plan", &text);
        let ir = sound_ir(&original, &world)?;
        let run = compile_with(
            ("gen.plan", &laid[0]),
            ("tools.plan", &laid[1]),
            ("policy.plan", &laid[2]),
        );
        let laid_ir = sound_ir(&run, &world)?;
        prop_assert_eq!(formless(laid_ir), formless(ir), "{}", listing(&run));
    }
}

fn token_soup() -> impl Strategy<Value = String> {
    prop::collection::vec(prop::sample::select(TOKENS), 0..200).prop_map(|t| t.join(" "))
}

proptest! {
    #![proptest_config(config())]

    /// Any sequence of tokens parses, checks against the Northwind catalogue
    /// and policy, and renders without a panic, with every span inside its
    /// file.
    #[test]
    fn token_soup_never_panics(text in token_soup()) {
        let mut job = Job::default();
        let p = job.sources.add("soup.plan", text.clone());
        let t = job.sources.add(
            "tools.plan",
            include_str!("../examples/northwind/tools.plan"),
        );
        let pol = job.sources.add(
            "policy.plan",
            include_str!("../examples/northwind/policy.plan"),
        );
        job.plans.push(p);
        job.catalog.push(t);
        job.policy.push(pol);
        let outcome = driver::run(&mut job);
        for d in &outcome.diagnostics {
            let f = job.sources.get(d.span.file).unwrap();
            prop_assert!(d.span.range().end <= f.text.len(), "{d:?}");
        }
        let _ = render::human(&job.sources, &outcome.diagnostics, false);
        let _ = render::sarif(&job.sources, &outcome.diagnostics, &Default::default());
        if !outcome.has_errors() {
            prop_assert!(driver::lower(&job, &outcome).is_ok());
        }
    }
}

/// The steps each step reads a binding of, from the IR's references alone
/// (not through planc's own graph).
fn readers_of(ir: &PlanIr) -> Vec<(String, BTreeSet<String>)> {
    fn walk(v: &planc::ir::Value, out: &mut BTreeSet<String>) {
        use planc::ir::Value as V;
        match v {
            V::Literal { .. } => {}
            V::Ref { step, .. } => {
                out.insert(step.clone().to_string());
            }
            V::List { items } | V::Interpolate { parts: items } => {
                items.iter().for_each(|i| walk(i, out));
            }
            V::Record { fields } => fields.values().for_each(|f| walk(f, out)),
        }
    }
    ir.steps
        .iter()
        .map(|s| {
            let mut from = BTreeSet::new();
            s.args.values().for_each(|v| walk(v, &mut from));
            (s.name.to_string(), from)
        })
        .collect()
}

/// Whether `to` reads data from `from`, transitively (or is it).
fn data_path(reads: &[(String, BTreeSet<String>)], from: &str, to: &str) -> bool {
    let mut reached = BTreeSet::from([from.to_owned()]);
    loop {
        let before = reached.len();
        for (step, inputs) in reads {
            if inputs.iter().any(|i| reached.contains(i)) {
                reached.insert(step.clone());
            }
        }
        if reached.len() == before {
            return reached.contains(to);
        }
    }
}

// ------------------------------------------------------- hostile plans

/// Compiles a hostile plan against the fixtures' catalogue and `policy`,
/// both configured.
fn compile_hostile(plan: &str, policy: &str) -> Run {
    compile_with(
        ("hostile.plan", plan),
        ("tools.plan", plangen::HOSTILE_TOOLS),
        ("policy.plan", policy),
    )
}

proptest! {
    #![proptest_config(config())]

    /// For a generated plan and a generated progress record, no event
    /// changes the status of a step that has no data path from the event's
    /// step (or the artifact's producer); the event's own step is invalid;
    /// `goal` touches pending steps only. And a plan's delta with itself,
    /// or with its other form, is empty.
    #[test]
    fn invalidation_follows_data_paths_only(data in choices(), statuses in prop::collection::vec(0u8..3, 0..40)) {
        use planc::progress::{self, Event, ProgressRecord, Status, StepRecord};
        let Case { world, plan } = case(&data);
        let (text, _) = plangen::plan_text(&plan);
        let run = compile(&world, "gen.plan", &text);
        let ir = sound_ir(&run, &world)?;
        let mut record = ProgressRecord::new(ir.name.clone());
        for (i, s) in ir.steps.iter().enumerate() {
            let mut step = StepRecord::pending(s.name.as_str(), s.tool.as_str());
            step.status = match statuses.get(i).copied().unwrap_or(0) {
                0 => Status::Pending,
                1 => Status::Complete,
                _ => Status::Failed,
            };
            record.steps.push(step);
        }
        let reads = readers_of(&ir);
        let mut events: Vec<(Event, String)> = Vec::new();
        for s in &ir.steps {
            events.push((Event::Precondition(s.name.clone().to_string()), s.name.clone().to_string()));
            events.push((Event::Failed(s.name.clone().to_string()), s.name.clone().to_string()));
            for b in s.binds.keys() {
                events.push((Event::Changed(b.clone().to_string()), s.name.clone().to_string()));
            }
        }
        for (event, root) in &events {
            let inv = progress::invalidate(&ir, &record, event).map_err(|e| TestCaseError::fail(e.to_string()))?;
            prop_assert_eq!(inv.steps.len(), ir.steps.len());
            for s in &inv.steps {
                if s.name == *root {
                    prop_assert_eq!(s.after, Status::Invalid);
                } else if s.after != s.before {
                    prop_assert!(
                        data_path(&reads, root, &s.name),
                        "{event}: `{}` changed ({} -> {}) with no data path from `{root}`",
                        s.name, s.before, s.after
                    );
                } else if data_path(&reads, root, &s.name) {
                    prop_assert_eq!(s.after, Status::Invalid, "{}: `{}` is downstream", event, s.name);
                }
                prop_assert_eq!(s.reusable, matches!(s.after, Status::Complete | Status::Pending));
            }
        }
        let inv = progress::invalidate(&ir, &record, &Event::Goal).unwrap();
        for s in &inv.steps {
            let expected = if s.before == Status::Pending { Status::Invalid } else { s.before };
            prop_assert_eq!(s.after, expected);
        }

        prop_assert!(progress::diff(&ir, &ir, Some(&record)).is_empty());
        let json = plangen::plan_json(&plan);
        let from_json = sound_ir(&compile(&world, "gen.json", &json), &world)?;
        let d = progress::diff(&ir, &from_json, None);
        prop_assert!(d.is_empty(), "{d:?}");
        prop_assert_eq!(d.unchanged.len(), ir.steps.len());
    }

    /// Hostile values under ceilings over `any`, optional and enum-fed
    /// parameters: whatever is accepted keeps every invariant, as the
    /// independent checker reads the policy (accepted => invariants hold).
    #[test]
    fn hostile_values_under_ceilings_never_break_the_invariants(data in choices()) {
        let mut c = Choices::new(&data);
        let plan = plangen::hostile_plan(&mut c, false);
        let run = compile_hostile(&plan, plangen::HOSTILE_POLICY);
        if !run.outcome.has_errors() {
            let world = invariants::fixture_world();
            for ir in driver::lower(&run.job, &run.outcome).unwrap() {
                let broken = invariants::violations(&ir, &world);
                prop_assert!(broken.is_empty(), "{broken:?}\n{plan}");
            }
        }
    }

    /// A plan file that declares a tool or a policy, while both are
    /// configured, is refused with E0005, whatever else it holds.
    #[test]
    fn plan_files_carrying_declarations_are_refused(data in choices()) {
        let mut c = Choices::new(&data);
        let plan = plangen::hostile_plan(&mut c, true);
        let run = compile_hostile(&plan, plangen::HOSTILE_POLICY);
        prop_assert!(
            run.outcome.diagnostics.iter().any(|d| d.code == Code::E0005),
            "{plan}"
        );
        prop_assert!(driver::lower(&run.job, &run.outcome).is_err());
    }

    /// A policy broken in one clause is an error (no IR), never a policy
    /// read as less than its author wrote: what a broken policy lets
    /// through would break the invariants of the intact one.
    #[test]
    fn malformed_policies_fail_closed(data in choices()) {
        let mut c = Choices::new(&data);
        let Some(policy) = plangen::malformed_policy(&mut c) else {
            return Ok(());
        };
        let plan = plangen::hostile_plan(&mut c, false);
        let run = compile_hostile(&plan, &policy);
        prop_assert!(run.outcome.has_errors(), "accepted:\n{policy}\n{plan}");
        let in_policy = run.outcome.diagnostics.iter().any(|d| {
            d.is_error() && run.job.sources.get(d.span.file).is_some_and(|f| f.name == "policy.plan")
        });
        prop_assert!(in_policy, "no error in the policy:\n{policy}");
    }
}

// ------------------------------------------------------- replans

/// Every artifact the IR's references read, shaped so that each member path
/// exists (an object at every step of it).
fn shape(v: &planc::ir::Value, out: &mut planc::exec::eval::Artifacts) {
    use planc::ir::Value;
    use planc::progress::JsonValue;
    match v {
        Value::Literal { .. } => {}
        Value::Ref { binding, path, .. } => {
            let mut at = out
                .entry(binding.clone().to_string())
                .or_insert_with(|| JsonValue::Object(Default::default()));
            for m in path {
                if !matches!(at, JsonValue::Object(_)) {
                    *at = JsonValue::Object(Default::default());
                }
                let JsonValue::Object(o) = at else { return };
                at = o
                    .entry(m.clone().to_string())
                    .or_insert_with(|| JsonValue::Object(Default::default()));
            }
        }
        Value::List { items } => items.iter().for_each(|x| shape(x, out)),
        Value::Record { fields } => fields.values().for_each(|x| shape(x, out)),
        Value::Interpolate { parts } => parts.iter().for_each(|x| shape(x, out)),
    }
}

/// The least value of a type, as a tool would have returned it.
fn sample(ty: &planc::catalog::Ty) -> planc::progress::JsonValue {
    use planc::catalog::Ty;
    use planc::progress::{JsonNumber, JsonValue};
    let number = |n: &str| JsonNumber::new(n).map_or(JsonValue::Null, JsonValue::Number);
    match ty {
        Ty::String => JsonValue::String("recorded".into()),
        Ty::Int | Ty::Decimal => number("0"),
        Ty::Bool => JsonValue::Bool(false),
        Ty::Date => JsonValue::String("2026-01-01".into()),
        Ty::Datetime => JsonValue::String("2026-01-01T00:00:00Z".into()),
        Ty::Null | Ty::Any | Ty::Error => JsonValue::Null,
        Ty::Optional(inner) => sample(inner),
        Ty::List(elem) => JsonValue::Array(vec![sample(elem)]),
        Ty::Map(values) => {
            JsonValue::Object(std::iter::once(("key".to_string(), sample(values))).collect())
        }
        Ty::Record(fields) => JsonValue::Object(
            fields
                .iter()
                .map(|f| (f.name.to_string(), sample(&f.ty)))
                .collect(),
        ),
        Ty::Enum(values) => values.first().map_or(JsonValue::Null, |v| {
            JsonValue::String(v.clone().to_string())
        }),
        Ty::Lit(v) => JsonValue::parse(&v.display()).unwrap_or(JsonValue::Null),
        Ty::Union(members) => members.first().map_or(JsonValue::Null, sample),
    }
}

proptest! {
    #![proptest_config(config())]

    /// A replan identical to the plan, checked against a record in which
    /// every step completed with the arguments it resolves to: no error, no
    /// repeated effect, and every step reused (`"reuse": true`, with its
    /// binds' recorded values), so that nothing is left to run.
    #[test]
    fn a_replan_of_a_completed_plan_reuses_every_step(data in choices()) {
        use planc::exec::eval;
        use planc::progress::{JsonValue, ProgressRecord, Status, StepRecord};
        let Case { world, plan } = case(&data);
        let (text, _) = plangen::plan_text(&plan);
        let run = compile(&world, "gen.plan", &text);
        let ir = sound_ir(&run, &world)?;
        // A recorded string is one sample value: under an allowlist or a
        // pattern it is (rightly) E0311 or E0312, which is not what this
        // property is about.
        prop_assume!(!ir.steps.iter().any(|s| s.authz.guards.iter().any(|g| {
            matches!(g.limit, planc::ir::GuardLimit::List(_)) || g.op == planc::ir::GuardOp::Matches
        })));
        // Every binding recorded as a value of its declared type (a
        // reused step's recorded values must fit it: E0309), the least
        // one, so that it is within the generated `<=` ceilings.
        let mut artifacts = eval::Artifacts::new();
        if let Some(checked) = run.outcome.checked.plans.first() {
            for b in &checked.bindings {
                artifacts.insert(b.name.clone().to_string(), sample(&b.ty));
            }
        }
        for s in &ir.steps {
            s.args.values().for_each(|v| shape(v, &mut artifacts));
        }
        let mut record = ProgressRecord::new(ir.name.clone());
        // Written by this plan's own run: it names the plan's fingerprint,
        // so the plan again is a resume even with its replans spent.
        record.fingerprint = Some(ir.fingerprint.clone());
        for s in &ir.steps {
            let mut step = StepRecord::pending(s.name.as_str(), s.tool.as_str());
            step.status = Status::Complete;
            step.effect = Some(s.effect);
            step.idempotent = Some(s.idempotent);
            step.attempts = 1;
            step.args = eval::resolve_args(s, &artifacts)
                .map_err(|e| TestCaseError::fail(format!("{e:?}")))?;
            for b in s.binds.keys() {
                let v = artifacts
                    .entry(b.clone().to_string())
                    .or_insert_with(|| JsonValue::String(format!("{b} as recorded")));
                step.binds.insert(b.clone().to_string(), v.clone());
            }
            record.steps.push(step);
        }
        let mut job = run.job.clone();
        let text = serde_json::to_string_pretty(&record).unwrap();
        job.progress = Some(job.sources.add_with_kind("progress.json", text, planc::SourceKind::Json));
        let outcome = driver::run(&mut job);
        let listed = listing(&Run { job: job.clone(), outcome: outcome.clone() });
        prop_assert!(!outcome.has_errors(), "a replan of a completed plan has errors:\n{listed}");
        prop_assert!(
            !outcome.diagnostics.iter().any(|d| matches!(d.code, Code::W0405 | Code::E0306 | Code::E0307)),
            "{listed}"
        );
        let irs = driver::lower(&job, &outcome).map_err(TestCaseError::fail)?;
        let replan = irs.first().unwrap();
        // The plan compiled against its own record is that plan: the
        // executor takes it for a resume (`docs/ir.md`, "Fingerprint").
        prop_assert_eq!(
            planc::ir::plan_fingerprint(replan).map_err(TestCaseError::fail)?,
            ir.fingerprint.clone(),
            "{}", listed
        );
        for s in &replan.steps {
            prop_assert_eq!(s.reuse, Some(true), "`{}` is not reused:\n{}", s.name, listed);
            let recorded = &record.step(&s.name).unwrap().binds;
            prop_assert_eq!(s.artifacts.as_ref(), Some(recorded));
        }
        let reused = outcome.diagnostics.iter().filter(|d| d.code == Code::N0303).count();
        prop_assert_eq!(reused, ir.steps.len());
    }
}
