//! A card per step (its call, pre/post, binds, findings) and the findings
//! of the plan as a whole.

use super::*;

pub(super) fn steps(h: &mut String, r: &Review<'_>, named: &Named<'_>, graph: &Graph) {
    let ir = r.ir;
    let recorded = r.progress.map(|p| p.record.steps_by_name());
    let mut findings: planc_lang::FastMap<&str, Vec<&Finding>> = planc_lang::FastMap::default();
    for f in r.findings {
        if let Some(step) = f.step.as_deref() {
            findings.entry(step).or_default().push(f);
        }
    }
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
        let _ = writeln!(h, "<pre class=\"call\">{}</pre>", call(r, step));
        h.push_str("<dl class=\"props\">\n");
        let waits = if step.depends_on.is_empty() {
            "nothing".to_string()
        } else {
            step.depends_on
                .iter()
                .map(|d| {
                    let link = named
                        .get(d.step.as_str())
                        .copied()
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
        if let (Some(recorded), Some(n)) = (&recorded, node) {
            let _ = writeln!(
                h,
                "<div class=\"status-row\"><dt>Status</dt><dd>{}</dd></div>",
                status_text(n, recorded.get(step.name.as_str()).copied())
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
                "<div><dt>Limits checked at run time</dt><dd>{}</dd></div>",
                guard_list(step)
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
        if let Some(mine) = findings.get(step.name.as_str()) {
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

pub(super) fn plan_findings(h: &mut String, r: &Review<'_>, step_names: &Named<'_>) {
    let rest: Vec<&Finding> = r
        .findings
        .iter()
        .filter(|f| {
            f.step
                .as_deref()
                .is_none_or(|s| !step_names.contains_key(s))
        })
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
