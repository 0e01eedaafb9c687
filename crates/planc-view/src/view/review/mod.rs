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
//!
//! Here: the page's inputs ([`Review`]), its assembly ([`page`]) and the
//! HTML helpers every section uses. The sections: `approval.rs` (the
//! header and what approving means), `cards.rs` (a card per step and the
//! plan's findings), `history.rs` (statuses and the delta); the graph is
//! drawn by `super::svg`. The style is `review.css`.

use std::fmt::Write;

use super::Finding;
use super::graph::{Change, Classes, Graph, Node, reason_name};
use super::svg::{self, Direction};
use crate::diagnostics::Severity;
use crate::ir::{DependencyReason, Effect, OnUnmet, PlanIr, StepIr, Value};
use crate::progress::diff::as_text;
use crate::progress::{PlanDiff, ProgressRecord, Status, StepRecord};

mod approval;
mod cards;
mod history;

use approval::{approve, header, order};
use cards::{plan_findings, steps};
use history::{delta, progress, status_counts, status_text};

/// Text made safe for HTML, in element content and in quoted attribute
/// values alike; a character that shows as nothing or reorders the text
/// around it ([`crate::syntax::lexicon::is_hidden`]) is written as its
/// escape, `\u{202E}`, so that the page shows what runs.
pub fn esc(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&#39;"),
            c if crate::syntax::lexicon::is_hidden(c) => {
                let _ = write!(out, "\\u{{{:04X}}}", u32::from(c));
            }
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
    /// The `planc run` command that runs what the page shows.
    pub command: String,
    /// Each step's argument names in the order the plan writes them, by
    /// the step's index (the IR keeps them sorted); empty when unknown.
    pub arg_order: &'a [Vec<String>],
}

/// What the page of a plan with errors is made from: it says the plan
/// cannot run, lists what the compile found, and offers nothing to
/// approve.
pub struct Refused<'a> {
    /// The plan's name, when the compile got as far as reading it.
    pub name: &'a str,
    /// The plan's file.
    pub source: &'a str,
    pub findings: &'a [Finding],
    pub generator: &'a str,
}

/// The page of a plan with errors.
pub fn refused(r: &Refused<'_>) -> String {
    let errors = r
        .findings
        .iter()
        .filter(|f| f.severity == Severity::Error)
        .count();
    let warnings = r
        .findings
        .iter()
        .filter(|f| f.severity == Severity::Warning)
        .count();
    let mut h = String::with_capacity(8 * 1024);
    head(
        &mut h,
        r.generator,
        &format!(
            "{} (cannot run)",
            if r.name.is_empty() { r.source } else { r.name }
        ),
    );
    h.push_str("<header class=\"top\">\n<p class=\"kicker\">Plan review</p>\n");
    let _ = writeln!(
        h,
        "<h1 id=\"goal\">This plan cannot run</h1>\n<p class=\"meta\">{}{}</p>",
        if r.name.is_empty() {
            String::new()
        } else {
            format!("plan {} · ", code(r.name))
        },
        code(r.source)
    );
    let _ = writeln!(
        h,
        "<div class=\"glance glance-refused\" id=\"glance\"><p class=\"verdict\" id=\"verdict\"><b>Nothing to approve:</b> {} and {} in the plan. It must be corrected and checked again before anyone approves it.</p></div>",
        count(errors, "error", "errors"),
        count(warnings, "warning", "warnings")
    );
    h.push_str("</header>\n<main>\n<section id=\"plan-findings\" aria-labelledby=\"plan-findings-h\">\n<h2 id=\"plan-findings-h\">What is wrong</h2>\n<ul class=\"findings\">");
    for f in r.findings.iter().filter(|f| f.severity != Severity::Note) {
        h.push_str(&finding_item(f));
    }
    h.push_str("</ul>\n</section>\n</main>\n");
    foot(&mut h, r.generator, r.source, None);
    h
}

/// The page's head, up to the opening of its body.
fn head(h: &mut String, generator: &str, title: &str) {
    let _ = write!(
        h,
        "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n\
         <meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n\
         <meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; style-src 'unsafe-inline'\">\n\
         <meta name=\"generator\" content=\"{}\">\n\
         <title>Review: {}</title>\n<style>\n{STYLE}</style>\n</head>\n<body>\n",
        esc(generator),
        esc(title)
    );
}

/// The page's footer and end.
fn foot(h: &mut String, generator: &str, source: &str, ir_version: Option<&str>) {
    let _ = write!(
        h,
        "<footer><p>Made by {} from <code>{}</code>{}. This page loads nothing and runs no script.</p></footer>\n\
         </body>\n</html>\n",
        esc(generator),
        esc(source),
        ir_version
            .map(|v| format!(" (IR {})", esc(v)))
            .unwrap_or_default()
    );
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

/// Text set as code. A line break may fall after a `.` or a `/` of a
/// path, a tool name or a file (`<wbr>`), never inside a name.
fn code(s: &str) -> String {
    let mut out = String::with_capacity(s.len() + 16);
    out.push_str("<code>");
    for part in s.split_inclusive(['.', '/']) {
        out.push_str(&esc(part));
        if part.ends_with(['.', '/']) && part.len() < s.len() {
            out.push_str("<wbr>");
        }
    }
    out.push_str("</code>");
    out
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

/// A step's arguments in the order the plan writes them (the IR keeps
/// them sorted by name); any the plan's order does not name follow in the
/// IR's order.
fn args_as_written<'s>(r: &Review<'_>, step: &'s StepIr) -> Vec<(&'s str, &'s Value)> {
    let order = r
        .arg_order
        .get(step.index)
        .map(Vec::as_slice)
        .unwrap_or_default();
    let mut out: Vec<(&str, &Value)> = Vec::with_capacity(step.args.len());
    for name in order {
        if let Some((k, v)) = step.args.iter().find(|(k, _)| **k == **name)
            && !out.iter().any(|(n, _)| *n == &**k)
        {
            out.push((k, v));
        }
    }
    for (k, v) in step.args.iter() {
        if !out.iter().any(|(n, _)| *n == &**k) {
            out.push((k, v));
        }
    }
    out
}

/// The call as the text form writes it, as HTML for a `pre.call`: one
/// argument a line when there are several, in the order written; each
/// argument a block that wraps at its spaces with a hanging indent, never
/// inside a name or a token.
fn call(r: &Review<'_>, step: &StepIr) -> String {
    let args: Vec<String> = args_as_written(r, step)
        .iter()
        .map(|(name, value)| format!("{name}: {value}"))
        .collect();
    let one_line = format!("{}({})", step.tool, args.join(", "));
    if args.len() <= 1 && one_line.chars().count() <= 60 {
        format!("<span class=\"ln\">{}</span>", esc(&one_line))
    } else {
        let mut s = format!("<span class=\"ln\">{}(</span>\n", esc(&step.tool));
        for a in &args {
            let _ = writeln!(s, "<span class=\"ln arg\">    {},</span>", esc(a));
        }
        s.push_str("<span class=\"ln\">)</span>");
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
    // A note's help speaks to the plan's author about the IR: the note
    // itself says what a reviewer needs.
    if let Some(help) = f.help.as_ref().filter(|_| f.severity != Severity::Note) {
        let _ = write!(s, "<p class=\"help\">help: {}</p>", message(help));
    }
    for n in f.notes.iter().filter(|_| f.severity != Severity::Note) {
        let _ = write!(s, "<p class=\"help\">{}</p>", message(n));
    }
    let _ = write!(s, "<p class=\"at\">{}</p></li>", esc(&f.at));
    s
}

/// The plan's steps by name ([`PlanIr::steps_by_name`]), built once per
/// page for every section that links or looks a step up.
type Named<'a> = planc_lang::FastMap<&'a str, &'a StepIr>;

pub fn page(r: &Review<'_>) -> String {
    let ir = r.ir;
    let named = ir.steps_by_name();
    let mut graph = Graph::of(ir);
    if let Some(p) = r.progress {
        graph.mark_progress(ir, p.record);
    }
    if let Some(a) = r.against {
        graph.mark_delta(a.diff);
    }
    let mut h = String::with_capacity(32 * 1024);
    let title = ir.goal.as_deref().unwrap_or(&ir.name);
    head(&mut h, r.generator, title);
    header(&mut h, r, &named, &graph);
    h.push_str("<main>\n");
    if let Some(a) = r.against {
        delta(&mut h, r, &named, a);
    }
    approve(&mut h, r, &named);
    if let Some(p) = r.progress {
        progress(&mut h, r, p, &graph);
    }
    order(&mut h, &graph);
    steps(&mut h, r, &named, &graph);
    plan_findings(&mut h, r, &named);
    h.push_str("</main>\n");
    foot(&mut h, r.generator, &ir.source, Some(&ir.ir_version));
    h
}

/// A step's guards, each as its limit in plan syntax, as HTML.
fn guard_list(step: &StepIr) -> String {
    step.authz
        .guards
        .iter()
        .map(|g| code(&g.to_string()))
        .collect::<Vec<_>>()
        .join(", ")
}

fn scope_list<S: AsRef<str>>(scopes: &[S]) -> String {
    scopes
        .iter()
        .map(|s| code(s.as_ref()))
        .collect::<Vec<_>>()
        .join(" ")
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
