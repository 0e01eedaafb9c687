//! The page against a record and an earlier plan: statuses and the
//! invalidated subgraph (`--progress`), the delta (`--against`).

use super::*;

/// `3 complete, 2 pending`: how many of the plan's steps have each
/// status, what has run first.
pub(super) fn status_counts(graph: &Graph) -> String {
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
pub(super) fn failure_text(step: &StepRecord) -> Option<String> {
    let f = step.failure.as_ref()?;
    let mut s = esc(f.kind.as_str());
    if let Some(c) = &f.code {
        let _ = write!(s, " {}", code(c));
    }
    if let Some(e) = &f.expected {
        let _ = write!(s, "; expected {}", code(&plan_syntax(e)));
    }
    if let Some(o) = &f.observed {
        let _ = write!(s, "; observed {}", code(&plan_syntax(o)));
    }
    Some(s)
}

/// A recorded condition or value as a plan writes it: a probe as its
/// `pre` or `post` line (`schema_tables contains "users"`), a guard as its
/// limit, any other value as its JSON (which a plan writes the same way).
fn plan_syntax(v: &crate::progress::types::JsonValue) -> String {
    let Ok(text) = serde_json::to_string(v) else {
        return String::new();
    };
    if let Ok(p) = serde_json::from_str::<crate::ir::Probe>(&text) {
        return p.to_string();
    }
    if let Ok(p) = serde_json::from_str::<crate::ir::PreProbe>(&text) {
        return p.to_string();
    }
    if let Ok(g) = serde_json::from_str::<crate::ir::Guard>(&text) {
        return g.to_string();
    }
    text
}

/// A step's status as its card says it: the word, the attempts, why it
/// did not complete, and how it came into the invalidated subgraph.
pub(super) fn status_text(n: &Node, recorded: Option<&StepRecord>) -> String {
    let status = n.status.unwrap_or(Status::Pending);
    if n.rewritten {
        let mut s = "<span class=\"status\">rewritten</span>: was invalid in the plan it replaces, rewritten here; it runs as this plan writes it".to_string();
        if let Some(f) = recorded.and_then(failure_text) {
            let _ = write!(s, " (it had stopped with {f})");
        }
        return s;
    }
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
        if matches!(status, Status::Invalid | Status::Failed) {
            s.push_str("; the invalidated subgraph starts here");
            if *cause != n.name {
                let _ = write!(s, " (what it checked came from {})", code(cause));
            }
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
pub(super) fn delta(h: &mut String, r: &Review<'_>, now: &Named<'_>, a: Against<'_>) {
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
    let completed: planc_lang::FastSet<&str> = d.completed.iter().map(String::as_str).collect();
    let had_completed = |name: &str| completed.contains(name);
    let before = a.old.steps_by_name();
    if !d.added.is_empty() {
        let _ = writeln!(
            h,
            "<h3>{} added</h3>\n<ul class=\"items\" id=\"delta-added\">",
            count(d.added.len(), "step", "steps")
        );
        for name in &d.added {
            let Some(step) = now.get(name.as_str()).copied() else {
                continue;
            };
            let _ = writeln!(
                h,
                "<li class=\"item\"><p>{} {}</p><pre class=\"call\">{}</pre></li>",
                step_link(step),
                tags(Classes::of(step)),
                call(r, step)
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
            let was = before
                .get(name.as_str())
                .copied()
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
            let link = now
                .get(c.step.as_str())
                .copied()
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
                    now.get(n.as_str())
                        .copied()
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
pub(super) fn progress(h: &mut String, r: &Review<'_>, p: Recorded<'_>, graph: &Graph) {
    let record = p.record;
    let recorded = record.steps_by_name();
    h.push_str("<section id=\"progress\" aria-labelledby=\"progress-h\">\n<h2 id=\"progress-h\">Where the run stands</h2>\n");
    let of_plan = if record.plan == r.ir.name {
        String::new()
    } else {
        format!(
            ", the run of plan {}, which this plan replaces",
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
            status_text(n, recorded.get(n.name.as_str()).copied())
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
            let root = matches!(n.status, Some(Status::Invalid | Status::Failed));
            let why = match &n.invalidated {
                Some(c) if !root => format!("reads data from {}", code(c)),
                _ => {
                    let status = n.status.unwrap_or(Status::Pending);
                    match recorded.get(n.name.as_str()).and_then(|s| failure_text(s)) {
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

    let in_plan = r.ir.steps_by_name();
    let only: Vec<&StepRecord> = record
        .steps
        .iter()
        .filter(|s| !in_plan.contains_key(s.name.as_str()))
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
                crate::view::graph::run_status(s)
            );
        }
        h.push_str("</ul>\n");
    }
    h.push_str("</section>\n");
}
