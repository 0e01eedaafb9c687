//! The review page: one self-contained HTML file for the person who
//! approves a plan. It says what the plan is for, under which budget, actor
//! and scopes; what approving it means (the approvals and what each covers,
//! the guards the executor enforces, the writes in their order); the
//! dependency graph as inline SVG; and a card per step with its call,
//! preconditions, postconditions, binds and the compile's findings. With a progress
//! record, each step's status and the invalidated subgraph; against an
//! earlier plan, the delta (added, removed and changed steps, field by
//! field).
//!
//! The plan is written by a planner that may be hostile: every piece of it
//! reaches the page through [`esc`], the page loads nothing (a content
//! security policy forbids it) and runs no script. Status and class are
//! said in words and shapes, never by colour alone; the page reflows to a
//! phone's width and prints on A4.

use std::fmt::Write;

use super::Finding;
use super::graph::{Change, Classes, Graph, Node, reason_name};
use super::svg::{self, Direction};
use crate::diagnostics::Severity;
use crate::ir::{DependencyReason, Effect, OnUnmet, PlanIr, StepIr, Value};
use crate::progress::diff::as_text;
use crate::progress::{PlanDiff, ProgressRecord, Status, StepRecord};

/// Text made safe for HTML, in element content and in quoted attribute
/// values alike.
pub fn esc(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&#39;"),
            c => out.push(c),
        }
    }
    out
}

/// A message of planc's (lowercase, user input in backticks), escaped, its
/// backticked parts set as code. An unpaired backtick stays as it is.
fn message(s: &str) -> String {
    let parts: Vec<&str> = s.split('`').collect();
    let pairs = (parts.len() - 1) / 2;
    let mut out = String::with_capacity(s.len() + 16);
    for (k, part) in parts.iter().enumerate() {
        if k % 2 == 1 && k <= 2 * pairs {
            out.push_str(&code(part));
        } else {
            if k > 2 * pairs {
                out.push('`');
            }
            out.push_str(&esc(part));
        }
    }
    out
}

/// What the page is made from.
pub struct Review<'a> {
    pub ir: &'a PlanIr,
    /// The policy in force, by name.
    pub policy: Option<&'a str>,
    /// The actor's scopes the plan was checked with.
    pub actor: &'a [String],
    /// The plan's documentation comment.
    pub doc: &'a str,
    /// The compile's warnings and notes.
    pub findings: &'a [Finding],
    /// What made the page, for its footer: `planc 0.1.0`.
    pub generator: &'a str,
    /// The run's progress record (`--progress`).
    pub progress: Option<Recorded<'a>>,
    /// The earlier plan and the delta from it (`--against`).
    pub against: Option<Against<'a>>,
}

/// A progress record and the file it was read from.
#[derive(Clone, Copy)]
pub struct Recorded<'a> {
    pub record: &'a ProgressRecord,
    pub source: &'a str,
}

/// The plan this one replaces, and what changed.
#[derive(Clone, Copy)]
pub struct Against<'a> {
    pub old: &'a PlanIr,
    pub diff: &'a PlanDiff,
}

const STYLE: &str = include_str!("review.css");

/// `1 step`, `3 steps`.
fn count(n: usize, one: &str, many: &str) -> String {
    format!("{n} {}", if n == 1 { one } else { many })
}

fn code(s: &str) -> String {
    format!("<code>{}</code>", esc(s))
}

/// The anchor of a step's card.
fn card_id(step: &StepIr) -> String {
    format!("step-{}", step.index)
}

fn step_link(step: &StepIr) -> String {
    format!(
        "<a href=\"#{}\"><code>{}</code></a>",
        card_id(step),
        esc(&step.name)
    )
}

/// The call as the text form writes it: one argument a line when there
/// are several.
fn call(step: &StepIr) -> String {
    let args: Vec<String> = step
        .args
        .iter()
        .map(|(name, value)| format!("{name}: {value}"))
        .collect();
    let one_line = format!("{}({})", step.tool, args.join(", "));
    if args.len() <= 1 && one_line.chars().count() <= 60 {
        one_line
    } else {
        let mut s = format!("{}(\n", step.tool);
        for a in &args {
            let _ = writeln!(s, "    {a},");
        }
        s.push(')');
        s
    }
}

/// Where a value comes from at run time: every reference in it.
fn refs<'v>(value: &'v Value, out: &mut Vec<(&'v str, &'v str)>) {
    match value {
        Value::Literal { .. } => {}
        Value::Ref { binding, step, .. } => {
            if !out.contains(&(binding.as_str(), step.as_str())) {
                out.push((binding, step));
            }
        }
        Value::List { items } | Value::Interpolate { parts: items } => {
            for v in items {
                refs(v, out);
            }
        }
        Value::Record { fields } => {
            for v in fields.values() {
                refs(v, out);
            }
        }
    }
}

/// `sub_id (bound by `subscription`)`, as HTML, or `None` when the step's
/// arguments are all written in the plan.
fn run_time_values(step: &StepIr) -> Option<String> {
    let mut found = Vec::new();
    for v in step.args.values() {
        refs(v, &mut found);
    }
    if found.is_empty() {
        return None;
    }
    Some(
        found
            .iter()
            .map(|(b, s)| format!("{} (bound by {})", code(b), code(s)))
            .collect::<Vec<_>>()
            .join(", "),
    )
}

fn on_unmet(o: OnUnmet) -> &'static str {
    match o {
        OnUnmet::Replan => "ask for a new plan",
        OnUnmet::Halt => "stop the run",
        OnUnmet::Escalate => "hand over to a person",
    }
}

fn tags(classes: Classes) -> String {
    let mut s = String::from("<span class=\"tags\">");
    for name in classes.names() {
        let text = if name == "untrusted" {
            "untrusted input"
        } else {
            name
        };
        let _ = write!(s, "<span class=\"tag tag-{name}\">{text}</span>");
    }
    s.push_str("</span>");
    s
}

fn severity_word(s: Severity) -> &'static str {
    s.as_str()
}

fn finding_item(f: &Finding) -> String {
    let mut s = format!(
        "<li class=\"finding finding-{sev}\"><p><span class=\"sev\">{sev}</span> \
         <code class=\"code\">{code}</code> {msg}</p>",
        sev = severity_word(f.severity),
        code = f.code,
        msg = message(&f.message)
    );
    if let Some(help) = &f.help {
        let _ = write!(s, "<p class=\"help\">help: {}</p>", message(help));
    }
    for n in &f.notes {
        let _ = write!(s, "<p class=\"help\">{}</p>", message(n));
    }
    let _ = write!(s, "<p class=\"at\">{}</p></li>", esc(&f.at));
    s
}

pub fn page(r: &Review<'_>) -> String {
    let ir = r.ir;
    let mut graph = Graph::of(ir);
    if let Some(p) = r.progress {
        graph.mark_progress(ir, p.record);
    }
    if let Some(a) = r.against {
        graph.mark_delta(a.diff);
    }
    let mut h = String::with_capacity(32 * 1024);
    let title = ir.goal.as_deref().unwrap_or(&ir.name);
    let _ = write!(
        h,
        "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n\
         <meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n\
         <meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; style-src 'unsafe-inline'\">\n\
         <meta name=\"generator\" content=\"{}\">\n\
         <title>Review: {}</title>\n<style>\n{STYLE}</style>\n</head>\n<body>\n",
        esc(r.generator),
        esc(title)
    );
    header(&mut h, r, &graph);
    h.push_str("<main>\n");
    approve(&mut h, r);
    if let Some(a) = r.against {
        delta(&mut h, r, a);
    }
    if let Some(p) = r.progress {
        progress(&mut h, r, p, &graph);
    }
    order(&mut h, &graph);
    steps(&mut h, r, &graph);
    plan_findings(&mut h, r);
    h.push_str("</main>\n");
    let _ = write!(
        h,
        "<footer><p>Made by {} from <code>{}</code> (IR {}). This page loads nothing and runs no script.</p></footer>\n\
         </body>\n</html>\n",
        esc(r.generator),
        esc(&ir.source),
        esc(&ir.ir_version)
    );
    h
}

fn header(h: &mut String, r: &Review<'_>, graph: &Graph) {
    let ir = r.ir;
    let writes = ir
        .steps
        .iter()
        .filter(|s| s.effect == Effect::Write)
        .count();
    h.push_str("<header class=\"top\">\n<p class=\"kicker\">Plan review</p>\n");
    match &ir.goal {
        Some(goal) => {
            let _ = writeln!(h, "<h1 id=\"goal\">{}</h1>", esc(goal));
        }
        None => {
            let _ = writeln!(
                h,
                "<h1 id=\"goal\">Plan <code>{}</code> <span class=\"muted\">(no goal given)</span></h1>",
                esc(&ir.name)
            );
        }
    }
    let _ = writeln!(
        h,
        "<p class=\"meta\">plan {} · {}</p>",
        code(&ir.name),
        code(&ir.source)
    );
    if !r.doc.trim().is_empty() {
        let _ = writeln!(h, "<p class=\"doc\">{}</p>", message(r.doc.trim()));
    }
    h.push_str("<dl class=\"facts\">\n");
    let _ = writeln!(
        h,
        "<div><dt>Steps</dt><dd id=\"fact-steps\">{} in {}; {}</dd></div>",
        count(ir.steps.len(), "step", "steps"),
        count(graph.waves.len(), "wave", "waves"),
        count(writes, "write", "writes")
    );
    let replans = match ir.budget.replans {
        Some(n) => count(n as usize, "replan", "replans"),
        None => "no replans".to_string(),
    };
    let max_steps = match ir.budget.max_steps {
        Some(n) => format!("at most {}", count(n as usize, "step", "steps")),
        None => "no step limit".to_string(),
    };
    let _ = writeln!(
        h,
        "<div><dt>Budget</dt><dd id=\"fact-budget\">{replans}; {max_steps}</dd></div>"
    );
    let actor = if r.actor.is_empty() {
        "no scopes".to_string()
    } else {
        scope_list(r.actor)
    };
    let policy = match r.policy {
        Some(p) => format!(" under policy {}", code(p)),
        None => " (no policy)".to_string(),
    };
    let _ = writeln!(
        h,
        "<div><dt>Actor</dt><dd id=\"fact-actor\">{actor}{policy}</dd></div>"
    );
    let needs = if ir.scopes.is_empty() {
        "none".to_string()
    } else {
        scope_list(&ir.scopes)
    };
    let _ = writeln!(
        h,
        "<div><dt>Scopes the run uses</dt><dd id=\"fact-scopes\">{needs}</dd></div>"
    );
    if let Some(a) = r.against {
        let d = a.diff;
        let _ = writeln!(
            h,
            "<div><dt>Changes</dt><dd id=\"fact-delta\"><a href=\"#delta\">{} added, {} removed, {} changed</a>; {} unchanged</dd></div>",
            d.added.len(),
            d.removed.len(),
            d.changed.len(),
            d.unchanged.len()
        );
    }
    if let Some(p) = r.progress {
        let _ = writeln!(
            h,
            "<div><dt>Progress</dt><dd id=\"fact-progress\"><a href=\"#progress\">{}</a>; {}</dd></div>",
            status_counts(graph),
            match ir.budget.replans {
                Some(n) => format!("{} of {n} replans used", p.record.replans_used),
                None => count(
                    p.record.replans_used as usize,
                    "replan used",
                    "replans used"
                ),
            }
        );
    }
    h.push_str("</dl>\n</header>\n");
}

fn scope_list(scopes: &[String]) -> String {
    scopes.iter().map(|s| code(s)).collect::<Vec<_>>().join(" ")
}

fn step_named<'i>(ir: &'i PlanIr, name: &str) -> Option<&'i StepIr> {
    ir.steps.iter().find(|s| s.name == name)
}

fn approve(h: &mut String, r: &Review<'_>) {
    let ir = r.ir;
    h.push_str("<section id=\"approve\" aria-labelledby=\"approve-h\">\n<h2 id=\"approve-h\">What approving this plan means</h2>\n");
    let writes: Vec<&StepIr> = ir
        .steps
        .iter()
        .filter(|s| s.effect == Effect::Write)
        .collect();
    let reads = ir.steps.len() - writes.len();
    let _ = writeln!(
        h,
        "<p class=\"lead\">The executor will run these {} exactly as written: the tools, the arguments, \
         the order below. Of these, {} only {}; {} {} something outside the run. Nothing else runs: \
         a new plan is checked and reviewed again.</p>",
        count(ir.steps.len(), "step", "steps"),
        reads,
        if reads == 1 { "reads" } else { "read" },
        writes.len(),
        if writes.len() == 1 {
            "changes"
        } else {
            "change"
        }
    );

    // Approvals.
    let _ = writeln!(
        h,
        "<h3>Your approval is asked for {}</h3>",
        count(ir.approvals.len(), "step", "steps")
    );
    if ir.approvals.is_empty() {
        h.push_str("<p>The policy asks for no approval before any step: approving the plan approves all of it.</p>\n");
    } else {
        h.push_str("<p>The policy wants a person to approve these before the run starts. Your approval covers each call exactly as shown; a value bound at run time is whatever the step named produces, within any guard below.</p>\n<ul class=\"items\" id=\"approvals\">\n");
        for name in &ir.approvals {
            let Some(step) = step_named(ir, name) else {
                continue;
            };
            let _ = write!(
                h,
                "<li class=\"item\"><p>{} {}</p><pre class=\"call\">{}</pre>",
                step_link(step),
                tags(Classes::of(step)),
                esc(&call(step))
            );
            if let Some(values) = run_time_values(step) {
                let _ = write!(
                    h,
                    "<p class=\"small\">Values bound at run time: {values}.</p>"
                );
            }
            let _ = writeln!(
                h,
                "<p class=\"small\">{}; when a postcondition fails: {}.</p></li>",
                if step.idempotent {
                    "idempotent"
                } else {
                    "not idempotent: runs once, never retried"
                },
                on_unmet(step.on_unmet)
            );
        }
        h.push_str("</ul>\n");
    }

    // Guards.
    let guards: Vec<(&StepIr, &crate::ir::Guard)> = ir
        .steps
        .iter()
        .flat_map(|s| s.authz.guards.iter().map(move |g| (s, g)))
        .collect();
    let _ = writeln!(
        h,
        "<h3>The executor enforces {}</h3>",
        count(guards.len(), "guard", "guards")
    );
    if guards.is_empty() {
        h.push_str("<p>No ceiling depends on a value known only at run time: every limit of the policy was checked against the plan itself.</p>\n");
    } else {
        h.push_str("<p>These limits come from the policy, over values the plan does not know yet. The executor checks each once the value is bound and refuses the step if it fails.</p>\n\
                    <table class=\"guards\" id=\"guards\"><thead><tr><th scope=\"col\">Step</th><th scope=\"col\">Guard</th><th scope=\"col\">Value comes from</th></tr></thead><tbody>\n");
        for (step, g) in guards {
            let from = step
                .args
                .get(&g.arg)
                .map(|v| {
                    let mut found = Vec::new();
                    refs(v, &mut found);
                    if found.is_empty() {
                        code(&v.to_string())
                    } else {
                        found
                            .iter()
                            .map(|(b, s)| format!("{}, bound by {}", code(b), code(s)))
                            .collect::<Vec<_>>()
                            .join("; ")
                    }
                })
                .unwrap_or_default();
            let _ = writeln!(
                h,
                "<tr><td>{}</td><td>{}</td><td>{from}</td></tr>",
                step_link(step),
                code(&g.to_string())
            );
        }
        h.push_str("</tbody></table>\n");
    }

    // Writes.
    let _ = writeln!(
        h,
        "<h3>{} in this order</h3>",
        if writes.len() == 1 {
            "1 write".to_string()
        } else {
            format!("{} writes", writes.len())
        }
    );
    if writes.is_empty() {
        h.push_str("<p>The plan changes nothing: every step reads.</p>\n");
    } else {
        h.push_str("<p>Writes keep the order they are written in; each waits for the one before.</p>\n<ol class=\"items\" id=\"writes\">\n");
        for step in &writes {
            let _ = writeln!(
                h,
                "<li class=\"item\"><p>{} {}</p><pre class=\"call\">{}</pre><p class=\"small\">{}{}; when a postcondition fails: {}.</p></li>",
                step_link(step),
                tags(Classes::of(step)),
                esc(&call(step)),
                if step.idempotent {
                    "idempotent"
                } else {
                    "not idempotent"
                },
                if step.retry > 0 {
                    format!(
                        ", retried up to {} on a tool error",
                        count(step.retry as usize, "time", "times")
                    )
                } else {
                    String::new()
                },
                on_unmet(step.on_unmet)
            );
        }
        h.push_str("</ol>\n");
    }

    // Untrusted data.
    let fed: Vec<&StepIr> = ir
        .steps
        .iter()
        .filter(|s| !s.untrusted_inputs.is_empty())
        .collect();
    if !fed.is_empty() {
        let _ = writeln!(
            h,
            "<h3>Untrusted data reaches {}</h3>\n<p>Text from a tool marked untrusted (retrieved documents, web pages) fills these arguments. It is passed as data; it cannot change the plan.</p>\n<ul class=\"items\" id=\"untrusted\">",
            count(fed.len(), "step", "steps")
        );
        for step in fed {
            let _ = writeln!(
                h,
                "<li class=\"item\"><p>{}: {}</p></li>",
                step_link(step),
                step.untrusted_inputs
                    .iter()
                    .map(|a| code(a))
                    .collect::<Vec<_>>()
                    .join(", ")
            );
        }
        h.push_str("</ul>\n");
    }
    h.push_str("</section>\n");
}

fn order(h: &mut String, graph: &Graph) {
    h.push_str("<section id=\"order\" aria-labelledby=\"order-h\">\n<h2 id=\"order-h\">Order of the run</h2>\n");
    let _ = writeln!(
        h,
        "<p>The steps of a wave may run together; each waits for the steps it depends on, in the waves before it. {}.</p>",
        count(graph.waves.len(), "wave", "waves")
    );
    h.push_str("<ul class=\"legend\">");
    for (reason, text) in [
        (DependencyReason::Data, "uses a value the other binds"),
        (
            DependencyReason::After,
            "written after it (<code>after</code>)",
        ),
        (DependencyReason::Effect, "both write: kept in order"),
    ] {
        let _ = write!(
            h,
            "<li>{} <b>{}</b> {text}</li>",
            svg::edge_sample(reason),
            reason_name(reason)
        );
    }
    h.push_str("<li><span class=\"key key-read\"></span> read</li><li><span class=\"key key-write\"></span> write (heavy border)</li><li><span class=\"key key-approval\"></span> needs approval (double border)</li><li><span class=\"key key-untrusted\"></span> untrusted input (dashed)</li>");
    if graph.nodes.iter().any(|n| n.status.is_some()) {
        h.push_str("<li><span class=\"key key-complete\"></span> complete (shaded)</li><li><span class=\"key key-invalidated\"></span> invalidated subgraph (heavy outline; its data edges heavy)</li>");
    }
    h.push_str("</ul>\n");
    if graph.nodes.iter().any(|n| n.state().is_some()) {
        h.push_str("<p class=\"small\">Each step's last line says its status and whether it is added or changed.</p>\n");
    }
    let _ = writeln!(
        h,
        "<div class=\"dag-frame dag-frame-across\">{}</div>\n<div class=\"dag-frame dag-frame-down\">{}</div>",
        svg::draw(graph, Direction::Across, "dag-across"),
        svg::draw(graph, Direction::Down, "dag-down")
    );
    h.push_str("</section>\n");
}

fn steps(h: &mut String, r: &Review<'_>, graph: &Graph) {
    let ir = r.ir;
    h.push_str("<section id=\"steps\" aria-labelledby=\"steps-h\">\n<h2 id=\"steps-h\">Steps</h2>\n<div class=\"cards\">\n");
    for step in &ir.steps {
        let classes = Classes::of(step);
        let node = graph.nodes.get(step.index);
        let wave = node.map(|n| n.wave + 1).unwrap_or(0);
        let mut class_names: Vec<String> = classes.names().iter().map(|c| c.to_string()).collect();
        class_names.extend(node.map(Node::state_classes).unwrap_or_default());
        let status_attr = node
            .and_then(|n| n.status)
            .map(|s| format!(" data-status=\"{s}\""))
            .unwrap_or_default();
        let _ = writeln!(
            h,
            "<article class=\"card {}\" id=\"{}\" data-step=\"{}\"{status_attr}>",
            class_names.join(" "),
            card_id(step),
            esc(&step.name)
        );
        let state = node
            .and_then(Node::state)
            .map(|s| format!(" <span class=\"state\">{}</span>", esc(&s)))
            .unwrap_or_default();
        let _ = writeln!(
            h,
            "<header><h3><span class=\"num\">{}.</span> <code>{}</code></h3>{}{state}</header>",
            step.index + 1,
            esc(&step.name),
            tags(classes)
        );
        let _ = writeln!(h, "<pre class=\"call\">{}</pre>", esc(&call(step)));
        h.push_str("<dl class=\"props\">\n");
        let waits = if step.depends_on.is_empty() {
            "nothing".to_string()
        } else {
            step.depends_on
                .iter()
                .map(|d| {
                    let link = step_named(ir, &d.step)
                        .map(step_link)
                        .unwrap_or_else(|| code(&d.step));
                    format!("{link} ({})", reason_name(d.reason))
                })
                .collect::<Vec<_>>()
                .join(", ")
        };
        let _ = writeln!(
            h,
            "<div><dt>Runs</dt><dd>in wave {wave}; waits for {waits}</dd></div>"
        );
        if let (Some(p), Some(n)) = (r.progress, node) {
            let _ = writeln!(
                h,
                "<div class=\"status-row\"><dt>Status</dt><dd>{}</dd></div>",
                status_text(n, p.record.step(&step.name))
            );
        }
        if let Some(a) = r.against {
            let change = match node.and_then(|n| n.change) {
                Some(Change::Added) => {
                    "added: the earlier plan has no step of this name".to_string()
                }
                Some(Change::Changed) => a
                    .diff
                    .changed
                    .iter()
                    .find(|c| c.step == step.name)
                    .map(|c| {
                        format!(
                            "changed: {}",
                            c.fields
                                .iter()
                                .map(|f| code(&f.field))
                                .collect::<Vec<_>>()
                                .join(", ")
                        )
                    })
                    .unwrap_or_default(),
                None => "unchanged".to_string(),
            };
            let _ = writeln!(
                h,
                "<div class=\"change-row\"><dt>Since the earlier plan</dt><dd>{change}</dd></div>"
            );
        }
        if !step.pre.is_empty() {
            let _ = writeln!(
                h,
                "<div class=\"pre-row\"><dt>Pre</dt><dd><ul class=\"plain\">{}</ul></dd></div>",
                step.pre
                    .iter()
                    .map(|p| format!("<li>{}</li>", code(&p.to_string())))
                    .collect::<String>()
            );
        }
        if !step.post.is_empty() {
            let _ = writeln!(
                h,
                "<div><dt>Post</dt><dd><ul class=\"plain\">{}</ul></dd></div>",
                step.post
                    .iter()
                    .map(|p| format!("<li>{}</li>", code(&p.to_string())))
                    .collect::<String>()
            );
        }
        if !step.binds.is_empty() {
            let _ = writeln!(
                h,
                "<div><dt>Binds</dt><dd><ul class=\"plain\">{}</ul></dd></div>",
                step.binds
                    .iter()
                    .map(|(name, path)| format!("<li>{}</li>", code(&format!("{name} = {path}"))))
                    .collect::<String>()
            );
        }
        let _ = writeln!(
            h,
            "<div><dt>If a post fails</dt><dd>{}</dd></div>",
            on_unmet(step.on_unmet)
        );
        let effect = format!(
            "{}{}{}",
            if step.effect == Effect::Write {
                "write"
            } else {
                "read"
            },
            if step.idempotent {
                ", idempotent"
            } else {
                ", not idempotent"
            },
            if step.retry > 0 {
                format!(
                    "; retried up to {} on a tool error",
                    count(step.retry as usize, "time", "times")
                )
            } else {
                String::new()
            }
        );
        let _ = writeln!(h, "<div><dt>Effect</dt><dd>{effect}</dd></div>");
        let scopes = if step.authz.scopes.is_empty() {
            "none".to_string()
        } else {
            scope_list(&step.authz.scopes)
        };
        let approval = if step.authz.approval.is_some() {
            "; a person approves it before the run"
        } else {
            ""
        };
        let _ = writeln!(h, "<div><dt>Scopes</dt><dd>{scopes}{approval}</dd></div>");
        if !step.authz.guards.is_empty() {
            let _ = writeln!(
                h,
                "<div><dt>Guards</dt><dd>{}</dd></div>",
                step.authz
                    .guards
                    .iter()
                    .map(|g| code(&g.to_string()))
                    .collect::<Vec<_>>()
                    .join(", ")
            );
        }
        if !step.untrusted_inputs.is_empty() {
            let _ = writeln!(
                h,
                "<div><dt>Untrusted inputs</dt><dd>{}</dd></div>",
                step.untrusted_inputs
                    .iter()
                    .map(|a| code(a))
                    .collect::<Vec<_>>()
                    .join(", ")
            );
        }
        h.push_str("</dl>\n");
        let mine: Vec<&Finding> = r
            .findings
            .iter()
            .filter(|f| f.step.as_deref() == Some(step.name.as_str()))
            .collect();
        if !mine.is_empty() {
            h.push_str("<ul class=\"findings\">");
            for f in mine {
                h.push_str(&finding_item(f));
            }
            h.push_str("</ul>\n");
        }
        let _ = writeln!(
            h,
            "<p class=\"at\">{}:{}:{}</p>\n</article>",
            esc(&step.span.file),
            step.span.line,
            step.span.column
        );
    }
    h.push_str("</div>\n</section>\n");
}

/// `3 complete, 2 pending`: how many of the plan's steps have each
/// status, what has run first.
fn status_counts(graph: &Graph) -> String {
    let order = [
        Status::Complete,
        Status::Failed,
        Status::Invalid,
        Status::Pending,
    ];
    let counts: Vec<String> = order
        .iter()
        .filter_map(|s| {
            let n = graph.nodes.iter().filter(|n| n.status == Some(*s)).count();
            (n > 0).then(|| format!("{n} {s}"))
        })
        .collect();
    if counts.is_empty() {
        "no steps".to_string()
    } else {
        counts.join(", ")
    }
}

/// Why a recorded step did not complete, in words: `precondition_unmet:
/// expected `...`, observed `...``.
fn failure_text(step: &StepRecord) -> Option<String> {
    let f = step.failure.as_ref()?;
    let mut s = esc(f.kind.as_str());
    if let Some(c) = &f.code {
        let _ = write!(s, " {}", code(c));
    }
    if let Some(e) = &f.expected {
        let _ = write!(s, "; expected {}", code(&e.to_string()));
    }
    if let Some(o) = &f.observed {
        let _ = write!(s, "; observed {}", code(&o.to_string()));
    }
    Some(s)
}

/// A step's status as its card says it: the word, the attempts, why it
/// did not complete, and how it came into the invalidated subgraph.
fn status_text(n: &Node, recorded: Option<&StepRecord>) -> String {
    let status = n.status.unwrap_or(Status::Pending);
    let mut s = format!("<span class=\"status\">{status}</span>");
    match recorded {
        None => s.push_str(" (the record does not have it: it has not run)"),
        Some(rec) => {
            if rec.attempts > 0 {
                let _ = write!(
                    s,
                    " after {}",
                    count(rec.attempts as usize, "attempt", "attempts")
                );
            }
            if let Some(f) = failure_text(rec) {
                let _ = write!(s, ": {f}");
            }
        }
    }
    if let Some(cause) = &n.invalidated {
        if *cause == n.name {
            s.push_str("; the invalidated subgraph starts here");
        } else {
            let _ = write!(
                s,
                "; in the invalidated subgraph: it reads data from {}",
                code(cause)
            );
        }
    }
    s
}

/// The delta from the earlier plan: what was added, removed and changed
/// (field by field), and what stays.
fn delta(h: &mut String, r: &Review<'_>, a: Against<'_>) {
    let d = a.diff;
    h.push_str("<section id=\"delta\" aria-labelledby=\"delta-h\">\n<h2 id=\"delta-h\">What changed since the earlier plan</h2>\n");
    let _ = writeln!(
        h,
        "<p>Compared with {} (plan {}), step by step by name: {} added, {} removed, {} changed, {} unchanged.</p>",
        code(&a.old.source),
        code(&a.old.name),
        d.added.len(),
        d.removed.len(),
        d.changed.len(),
        d.unchanged.len()
    );
    if d.is_empty() {
        h.push_str("<p>The two plans have the same steps, alike in every field.</p>\n");
    }
    let had_completed = |name: &str| d.completed.iter().any(|c| c == name);
    if !d.added.is_empty() {
        let _ = writeln!(
            h,
            "<h3>{} added</h3>\n<ul class=\"items\" id=\"delta-added\">",
            count(d.added.len(), "step", "steps")
        );
        for name in &d.added {
            let Some(step) = step_named(r.ir, name) else {
                continue;
            };
            let _ = writeln!(
                h,
                "<li class=\"item\"><p>{} {}</p><pre class=\"call\">{}</pre></li>",
                step_link(step),
                tags(Classes::of(step)),
                esc(&call(step))
            );
        }
        h.push_str("</ul>\n");
    }
    if !d.removed.is_empty() {
        let _ = writeln!(
            h,
            "<h3>{} removed</h3>\n<ul class=\"items\" id=\"delta-removed\">",
            count(d.removed.len(), "step", "steps")
        );
        for name in &d.removed {
            let was = step_named(a.old, name)
                .map(|s| format!(" {}", code(&s.tool)))
                .unwrap_or_default();
            let done = if had_completed(name) {
                ": it had completed, and what it did is not undone"
            } else {
                ""
            };
            let _ = writeln!(
                h,
                "<li class=\"item\"><p>{}{was}{done}</p></li>",
                code(name)
            );
        }
        h.push_str("</ul>\n");
    }
    if !d.changed.is_empty() {
        let _ = writeln!(
            h,
            "<h3>{} changed</h3>\n<ul class=\"items\" id=\"delta-changed\">",
            count(d.changed.len(), "step", "steps")
        );
        for c in &d.changed {
            let link = step_named(r.ir, &c.step)
                .map(step_link)
                .unwrap_or_else(|| code(&c.step));
            let done = if had_completed(&c.step) {
                ": it had completed; as changed, it runs again"
            } else {
                ""
            };
            let _ = write!(
                h,
                "<li class=\"item\" data-step=\"{}\"><p>{link}{done}</p>\
                 <table class=\"fields\"><thead><tr><th scope=\"col\">Field</th><th scope=\"col\">Before</th><th scope=\"col\">Now</th></tr></thead><tbody>",
                esc(&c.step)
            );
            for f in &c.fields {
                let _ = write!(
                    h,
                    "<tr><td>{}</td><td>{}</td><td>{}</td></tr>",
                    code(&f.field),
                    code(&as_text(&f.old)),
                    code(&as_text(&f.new))
                );
            }
            h.push_str("</tbody></table></li>\n");
        }
        h.push_str("</ul>\n");
    }
    if !d.unchanged.is_empty() {
        let names = |list: &[String]| {
            list.iter()
                .map(|n| {
                    step_named(r.ir, n)
                        .map(step_link)
                        .unwrap_or_else(|| code(n))
                })
                .collect::<Vec<_>>()
                .join(", ")
        };
        let _ = write!(
            h,
            "<p id=\"delta-unchanged\">Unchanged: {}.",
            names(&d.unchanged)
        );
        if !d.reused.is_empty() {
            let _ = write!(
                h,
                " Of these, the record says {} complete: reused, not run again ({}).",
                if d.reused.len() == 1 {
                    "one is"
                } else {
                    "these are"
                },
                names(&d.reused)
            );
        }
        h.push_str("</p>\n");
    }
    h.push_str("</section>\n");
}

/// Where the run stands: each step's status in the record, the
/// invalidated subgraph, and what the record has that the plan does not.
fn progress(h: &mut String, r: &Review<'_>, p: Recorded<'_>, graph: &Graph) {
    let record = p.record;
    h.push_str("<section id=\"progress\" aria-labelledby=\"progress-h\">\n<h2 id=\"progress-h\">Where the run stands</h2>\n");
    let of_plan = if record.plan == r.ir.name {
        String::new()
    } else {
        format!(
            ", a record of plan {}: this plan is its replan",
            code(&record.plan)
        )
    };
    let _ = writeln!(
        h,
        "<p>From the progress record {}{of_plan}: {}.</p>",
        code(p.source),
        status_counts(graph)
    );
    h.push_str("<table class=\"statuses\" id=\"statuses\"><thead><tr><th scope=\"col\">Step</th><th scope=\"col\">Status</th></tr></thead><tbody>\n");
    for (n, step) in graph.nodes.iter().zip(&r.ir.steps) {
        let _ = writeln!(
            h,
            "<tr class=\"{}\" data-step=\"{}\"><td>{}</td><td>{}</td></tr>",
            n.state_classes().join(" "),
            esc(&n.name),
            step_link(step),
            status_text(n, record.step(&n.name))
        );
    }
    h.push_str("</tbody></table>\n");

    let invalid: Vec<&Node> = graph
        .nodes
        .iter()
        .filter(|n| n.invalidated.is_some())
        .collect();
    h.push_str("<h3>The invalidated subgraph</h3>\n");
    if invalid.is_empty() {
        h.push_str("<p id=\"invalidated-none\">No step of the plan is invalid or failed, nor reads data from one: nothing needs repair.</p>\n");
    } else {
        let _ = writeln!(
            h,
            "<p>{} cannot run as recorded: a repair rewrites {}. Every other step stands; complete ones are reused.</p>\n<ul class=\"items\" id=\"invalidated\">",
            count(invalid.len(), "step", "steps"),
            if invalid.len() == 1 { "it" } else { "them" }
        );
        for n in invalid {
            let Some(step) = r.ir.steps.get(n.index) else {
                continue;
            };
            let why = match &n.invalidated {
                Some(c) if *c != n.name => format!("reads data from {}", code(c)),
                _ => {
                    let status = n.status.unwrap_or(Status::Pending);
                    match record.step(&n.name).and_then(failure_text) {
                        Some(f) => format!("{status}: {f}"),
                        None => status.to_string(),
                    }
                }
            };
            let _ = writeln!(
                h,
                "<li class=\"item\"><p>{}: {why}</p></li>",
                step_link(step)
            );
        }
        h.push_str("</ul>\n");
    }

    let only: Vec<&StepRecord> = record
        .steps
        .iter()
        .filter(|s| step_named(r.ir, &s.name).is_none())
        .collect();
    if !only.is_empty() {
        let _ = writeln!(
            h,
            "<h3>In the record, not in this plan</h3>\n<p>What a complete step did has happened: it is not undone.</p>\n<ul class=\"items\" id=\"record-only\">"
        );
        for s in only {
            let _ = writeln!(
                h,
                "<li class=\"item\"><p>{} {}: <span class=\"status\">{}</span></p></li>",
                code(&s.name),
                code(&s.tool),
                s.status
            );
        }
        h.push_str("</ul>\n");
    }
    h.push_str("</section>\n");
}

fn plan_findings(h: &mut String, r: &Review<'_>) {
    let step_names: Vec<&str> = r.ir.steps.iter().map(|s| s.name.as_str()).collect();
    let rest: Vec<&Finding> = r
        .findings
        .iter()
        .filter(|f| f.step.as_deref().is_none_or(|s| !step_names.contains(&s)))
        .collect();
    if rest.is_empty() {
        return;
    }
    h.push_str("<section id=\"plan-findings\" aria-labelledby=\"plan-findings-h\">\n<h2 id=\"plan-findings-h\">About the plan as a whole</h2>\n<ul class=\"findings\">");
    for f in rest {
        h.push_str(&finding_item(f));
    }
    h.push_str("</ul>\n</section>\n");
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn messages_set_backticked_input_as_code() {
        assert_eq!(
            message("step `a<b>` and `c"),
            "step <code>a&lt;b&gt;</code> and `c"
        );
        assert_eq!(message("`x`"), "<code>x</code>");
        assert_eq!(message("plain"), "plain");
    }

    #[test]
    fn escapes_markup_and_quotes() {
        assert_eq!(
            esc("</script><img src=x onerror='a(\"b\")'>&"),
            "&lt;/script&gt;&lt;img src=x onerror=&#39;a(&quot;b&quot;)&#39;&gt;&amp;"
        );
    }
}
