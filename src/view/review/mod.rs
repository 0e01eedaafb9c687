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

fn scope_list<S: AsRef<str>>(scopes: &[S]) -> String {
    scopes
        .iter()
        .map(|s| code(s.as_ref()))
        .collect::<Vec<_>>()
        .join(" ")
}

fn step_named<'i>(ir: &'i PlanIr, name: &str) -> Option<&'i StepIr> {
    ir.steps.iter().find(|s| s.name == name)
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
