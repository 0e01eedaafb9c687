//! The review page: one self-contained HTML file for the person who
//! approves a plan. It says what the plan is for, under which budget, actor
//! and scopes; what approving it means (the approvals and what each covers,
//! the guards the executor enforces, the writes in their order); the
//! dependency graph as inline SVG; and a card per step with its call,
//! postconditions, binds and the compile's findings.
//!
//! The plan is written by a planner that may be hostile: every piece of it
//! reaches the page through [`esc`], the page loads nothing (a content
//! security policy forbids it) and runs no script. Status and class are
//! said in words and shapes, never by colour alone; the page reflows to a
//! phone's width and prints on A4.

use std::fmt::Write;

use super::Finding;
use super::graph::{Classes, Graph, Node, reason_name};
use super::svg::{self, Direction};
use crate::diagnostics::Severity;
use crate::ir::{DependencyReason, Effect, OnUnmet, PlanIr, StepIr, Value};

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
    let graph = Graph::of(ir);
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
    h.push_str("<li><span class=\"key key-read\"></span> read</li><li><span class=\"key key-write\"></span> write (heavy border)</li><li><span class=\"key key-approval\"></span> needs approval (double border)</li><li><span class=\"key key-untrusted\"></span> untrusted input (dashed)</li></ul>\n");
    let none = |_: &Node| None;
    let _ = writeln!(
        h,
        "<div class=\"dag-frame dag-frame-across\">{}</div>\n<div class=\"dag-frame dag-frame-down\">{}</div>",
        svg::draw(graph, Direction::Across, "dag-across", &none),
        svg::draw(graph, Direction::Down, "dag-down", &none)
    );
    h.push_str("</section>\n");
}

fn steps(h: &mut String, r: &Review<'_>, graph: &Graph) {
    let ir = r.ir;
    h.push_str("<section id=\"steps\" aria-labelledby=\"steps-h\">\n<h2 id=\"steps-h\">Steps</h2>\n<div class=\"cards\">\n");
    for step in &ir.steps {
        let classes = Classes::of(step);
        let wave = graph.nodes.get(step.index).map(|n| n.wave + 1).unwrap_or(0);
        let _ = writeln!(
            h,
            "<article class=\"card {}\" id=\"{}\" data-step=\"{}\">",
            classes.names().join(" "),
            card_id(step),
            esc(&step.name)
        );
        let _ = writeln!(
            h,
            "<header><h3><span class=\"num\">{}.</span> <code>{}</code></h3>{}</header>",
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
