//! What approving the plan means: the header (goal, budget, actor and
//! scopes), the approvals and what each covers, the guards, the writes in
//! their order.

use super::*;

pub(super) fn header(h: &mut String, r: &Review<'_>, named: &Named<'_>, graph: &Graph) {
    let ir = r.ir;
    let writes = ir.each_step().filter(|s| s.effect == Effect::Write).count();
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
    glance(h, r, named);
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

/// The plan's fingerprint, for the header (`planc run` refuses to run a
/// plan or an IR whose fingerprint differs from the one approved).
fn fingerprint(ir: &PlanIr) -> Option<&str> {
    Some(ir.fingerprint.as_str()).filter(|f| !f.is_empty())
}

/// The header's first block, read at a glance: the verdict with the
/// counts of errors, warnings and untrusted flows; for a replan, what
/// changed, with reused steps apart from those that will run; one line per
/// write (the call, the limits that bound it, the approval); the
/// fingerprint and the exact `planc run` command.
fn glance(h: &mut String, r: &Review<'_>, named: &Named<'_>) {
    let ir = r.ir;
    let of = |sev: Severity| r.findings.iter().filter(|f| f.severity == sev).count();
    let (errors, warnings) = (of(Severity::Error), of(Severity::Warning));
    let flows: usize = ir.steps.iter().map(|s| s.untrusted_inputs.len()).sum();
    h.push_str("<div class=\"glance\" id=\"glance\">\n");
    let _ = writeln!(
        h,
        "<p class=\"verdict\" id=\"verdict\"><b>{}</b> <span class=\"counts\"><span id=\"count-errors\">{}</span> · <span id=\"count-warnings\">{}</span> · <span id=\"count-untrusted\">{}</span></span></p>",
        if warnings > 0 || flows > 0 {
            "Ready for review: read the warnings before you approve."
        } else {
            "Ready for review."
        },
        count(errors, "error", "errors"),
        count(warnings, "warning", "warnings"),
        count(flows, "untrusted flow", "untrusted flows"),
    );
    if let Some(a) = r.against {
        let d = a.diff;
        h.push_str("<h2 class=\"glance-h\">What changed from the plan it replaces</h2>\n<ul class=\"changes\" id=\"glance-changes\">");
        for name in &d.added {
            let tool = named
                .get(name.as_str())
                .copied()
                .map(|s| format!(" {}", code(&s.tool)))
                .unwrap_or_default();
            let _ = write!(
                h,
                "<li class=\"change-added\"><span class=\"mark\" aria-label=\"added\">+</span> {}{tool} added</li>",
                code(name)
            );
        }
        for c in &d.changed {
            let fields: Vec<String> = c.fields.iter().map(|f| code(&f.field)).collect();
            let _ = write!(
                h,
                "<li class=\"change-changed\"><span class=\"mark\" aria-label=\"changed\">~</span> {} changed: {}</li>",
                code(&c.step),
                fields.join(", ")
            );
        }
        for name in &d.removed {
            let _ = write!(
                h,
                "<li class=\"change-removed\"><span class=\"mark\" aria-label=\"removed\">-</span> {} removed</li>",
                code(name)
            );
        }
        if d.added.is_empty() && d.changed.is_empty() && d.removed.is_empty() {
            h.push_str("<li>no step added, changed or removed</li>");
        }
        h.push_str("</ul>\n");
    }
    if ir.progress.is_some() || r.against.is_some() {
        let reused = ir.steps.iter().filter(|s| s.reuse == Some(true)).count();
        let _ = writeln!(
            h,
            "<p id=\"glance-runs\"><b>{} will run</b>; {} from the earlier run, not run again.</p>",
            count(ir.steps.len() - reused, "step", "steps"),
            if reused == 1 {
                "1 is reused".to_string()
            } else {
                format!("{reused} are reused")
            }
        );
    }
    let writes: Vec<&StepIr> = ir
        .each_step()
        .filter(|s| s.effect == Effect::Write && s.reuse != Some(true))
        .collect();
    let _ = writeln!(
        h,
        "<h2 class=\"glance-h\">{}</h2>",
        match writes.len() {
            0 => "It changes nothing: every step only reads".to_string(),
            1 => "What it changes: 1 write".to_string(),
            n => format!("What it changes: {n} writes, in this order"),
        }
    );
    if !writes.is_empty() {
        h.push_str("<ul class=\"glance-writes\" id=\"glance-writes\">");
        for step in writes {
            let args: Vec<String> = args_as_written(r, step)
                .iter()
                .map(|(name, value)| {
                    format!(
                        "<span class=\"arg\">{}</span>",
                        esc(&format!("{name}: {value}"))
                    )
                })
                .collect();
            let limits = if step.authz.guards.is_empty() {
                "no limit checked at run time".to_string()
            } else {
                format!("limits {}", guard_list(step))
            };
            let approval = if step.authz.approval.is_some() {
                "<b>needs your approval</b>"
            } else {
                "no approval asked"
            };
            let _ = write!(
                h,
                "<li><a href=\"#{}\"><code class=\"tool\">{}</code></a><span class=\"args\">({})</span> <span class=\"bounds\">— {limits}; {approval}</span></li>",
                card_id(step),
                esc(&step.tool),
                args.join(", ")
            );
        }
        h.push_str("</ul>\n");
    }
    h.push_str("<dl class=\"run\">");
    if let Some(f) = fingerprint(ir) {
        let _ = write!(
            h,
            "<div><dt>Fingerprint</dt><dd><code id=\"fingerprint\">{}</code></dd></div>",
            esc(f)
        );
    }
    let _ = write!(
        h,
        "<div><dt>To run exactly this</dt><dd><pre class=\"command\" id=\"run-command\">{}</pre></dd></div>",
        esc(&r.command)
    );
    h.push_str("</dl>\n</div>\n");
}

pub(super) fn approve(h: &mut String, r: &Review<'_>, named: &Named<'_>) {
    let ir = r.ir;
    h.push_str("<section id=\"approve\" aria-labelledby=\"approve-h\">\n<h2 id=\"approve-h\">What approving this plan means</h2>\n");
    let writes: Vec<&StepIr> = ir
        .each_step()
        .filter(|s| s.effect == Effect::Write)
        .collect();
    let reads = ir.steps.len() - writes.len();
    let _ = writeln!(
        h,
        "<p class=\"lead\">The run takes these {} exactly as written: the tools, the arguments, \
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
        h.push_str("<p>A person must approve these before the run starts. Your approval covers each call exactly as shown; a value bound at run time is whatever the step named produces, within any guard below.</p>\n<ul class=\"items\" id=\"approvals\">\n");
        for name in &ir.approvals {
            let Some(step) = named.get(name.as_str()).copied() else {
                continue;
            };
            let _ = write!(
                h,
                "<li class=\"item\"><p>{} {}</p><pre class=\"call\">{}</pre>",
                step_link(step),
                tags(Classes::of(step)),
                call(r, step)
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
        .each_step()
        .flat_map(|s| s.authz.guards.iter().map(move |g| (s, g)))
        .collect();
    let _ = writeln!(
        h,
        "<h3>The run checks {} before it calls a tool</h3>",
        count(guards.len(), "limit", "limits")
    );
    if guards.is_empty() {
        h.push_str("<p>No ceiling depends on a value known only at run time: every limit of the policy was checked against the plan itself.</p>\n");
    } else {
        h.push_str("<p>These limits come from the policy, over values the plan does not know yet. Each is checked once the value is known; a step that fails its limit is not called.</p>\n\
                    <table class=\"guards\" id=\"guards\"><thead><tr><th scope=\"col\">Step</th><th scope=\"col\">Limit</th><th scope=\"col\">Value comes from</th></tr></thead><tbody>\n");
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
                call(r, step),
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
        .each_step()
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

pub(super) fn order(h: &mut String, graph: &Graph) {
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
    if let Some(note) = svg::left_out(graph) {
        let _ = writeln!(
            h,
            "<p class=\"small\" id=\"left-out\">{}.</p>",
            message(&note)
        );
    }
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
