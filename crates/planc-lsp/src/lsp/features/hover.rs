//! Hover: a tool's signature, traits and policy, a parameter, a step, a
//! binding.

use lsp_types as lsp;

use super::at;
use crate::catalog::Tool;
use crate::check::{CheckedPlan, DepReason};
use crate::lsp::analysis::{Analysis, Occ, Sym};
use crate::lsp::{Failure, Server, convert};
use crate::policy::Traits;
use crate::progress::JsonValue;
use crate::source::{SourceFile, Span};
use crate::syntax::ast::{self, PathSeg};

pub fn hover(s: &Server<'_>, p: lsp::HoverParams) -> Result<Option<lsp::Hover>, Failure> {
    let Some((a, file, offset)) = at(s, &p.text_document_position_params) else {
        return Ok(None);
    };
    let kind = if s.caps.markdown {
        lsp::MarkupKind::Markdown
    } else {
        lsp::MarkupKind::PlainText
    };
    // A probe's path: the type at it (its root binding's hover is part of
    // it, for `pre`).
    if let Some((span, value)) = hover_probe_path(a, file, offset) {
        return Ok(Some(lsp::Hover {
            contents: lsp::HoverContents::Markup(lsp::MarkupContent { kind, value }),
            range: Some(convert::range(file, span)),
        }));
    }
    let Some(occ) = a.occ_at(a.doc, offset) else {
        return Ok(None);
    };
    let text = match &occ.sym {
        Sym::Tool(name) => a
            .outcome
            .checked
            .catalog
            .get(name)
            .map(|t| hover_tool(a, t)),
        Sym::Param { tool, param } => hover_param(a, occ, tool, param),
        Sym::Step { plan, name } => a.plan(*plan).and_then(|p| hover_step(a, p, name)),
        Sym::Binding { plan, name } => a.plan(*plan).and_then(|p| hover_binding(p, name)),
    };
    let Some(value) = text else {
        return Ok(None);
    };
    Ok(Some(lsp::Hover {
        contents: lsp::HoverContents::Markup(lsp::MarkupContent { kind, value }),
        range: Some(convert::range(file, occ.span)),
    }))
}

/// The path of a `pre` or `post` probe under the cursor, with the type
/// at it: in the tool's result for `post` (`$.status`), in the binding's
/// value for `pre` (`settings.region`), and the recorded value when the
/// binding's step is reused or the name is a recorded artifact.
fn hover_probe_path(a: &Analysis, file: &SourceFile, offset: usize) -> Option<(Span, String)> {
    let within = |span: Span| span.start as usize <= offset && offset <= span.end as usize;
    let module = a.doc_module()?;
    let (decl, step) = module.items.iter().find_map(|item| match item {
        ast::Item::Plan(p) => p.steps.iter().find(|s| within(s.span)).map(|s| (p, s)),
        _ => None,
    })?;
    let (probe, pre) = step.clauses.iter().find_map(|c| match c {
        ast::Clause::Pre(p) if p.path().is_some_and(|p| within(p.span)) => Some((p, true)),
        ast::Clause::Post(p) if p.path().is_some_and(|p| within(p.span)) => Some((p, false)),
        _ => None,
    })?;
    let path = probe.path()?;
    let segs: Vec<PathSeg> = path.segments.iter().map(|s| s.node.clone()).collect();
    let shown = file.slice(path.span);
    let plan = a
        .outcome
        .checked
        .plans
        .iter()
        .find(|p| p.name_span == decl.name.span)?;
    let mut out = Vec::new();
    if pre {
        let root = path.root.as_ref()?;
        match plan.bindings.iter().find(|b| b.name == root.node) {
            Some(b) => {
                let ty = b.ty.at_path(&segs)?;
                out.push(code_block(&format!("{shown}: {ty}")));
                let by = plan.steps.get(b.step)?;
                out.push(format!(
                    "tested before the step is dispatched; `{}` is bound by step `{}` from `{}`",
                    b.name,
                    by.name,
                    b.path_text()
                ));
                let reused = plan
                    .replan
                    .as_ref()
                    .and_then(|r| r.reuse.get(b.step)?.as_ref());
                if let Some(v) =
                    reused.and_then(|binds| recorded_at(binds.get(b.name.as_str())?, &segs))
                {
                    out.push(format!(
                        "step `{}` is reused: recorded `{}`",
                        by.name,
                        v.to_json_string()
                    ));
                }
            }
            None => {
                let recorded = plan.replan.as_ref()?.artifacts_in.get(root.node.as_str())?;
                let v = recorded_at(recorded, &segs)?;
                out.push(code_block(&format!("{shown} = {}", v.to_json_string())));
                out.push(format!(
                    "tested before the step is dispatched; `{}` is a recorded artifact",
                    root.node
                ));
            }
        }
    } else {
        let tool = a.outcome.checked.catalog.get(&step.tool.node)?;
        let ty = tool.result.at_path(&segs)?;
        out.push(code_block(&format!("{shown}: {ty}")));
        out.push(format!(
            "tested after the call, in the result of `{}`",
            tool.name
        ));
    }
    Some((path.span, out.join("\n\n")))
}

/// The recorded value at a path's segments.
fn recorded_at<'v>(value: &'v JsonValue, segs: &[PathSeg]) -> Option<&'v JsonValue> {
    segs.iter().try_fold(value, |v, seg| match (seg, v) {
        (PathSeg::Field(f), _) => v.get(f),
        (PathSeg::Index(n), JsonValue::Array(items)) => items.get(usize::try_from(*n).ok()?),
        (PathSeg::Index(_), _) => None,
    })
}

fn code_block(text: &str) -> String {
    format!("```planc\n{text}\n```")
}

/// The tool's effect, idempotence and trust under the policy in force
/// ([`Traits`]), saying which the policy states.
pub(crate) fn tool_traits(a: &Analysis, t: &Tool) -> String {
    let rule = a
        .outcome
        .checked
        .policy
        .as_ref()
        .and_then(|p| p.rule(&t.name));
    let traits = Traits::of(t, rule);
    let by_policy = |catalogue_says: bool| {
        if !catalogue_says && rule.is_some() {
            " (by the policy)"
        } else {
            ""
        }
    };
    let mut parts = vec![match traits.effect {
        Some(e) => format!("`{}`{}", e.as_str(), by_policy(t.effect.is_some())),
        None => format!(
            "no declared effect (treated as `{}`)",
            crate::syntax::ast::Effect::stated_or_write(None).as_str()
        ),
    }];
    parts.push(if traits.idempotent {
        format!("idempotent{}", by_policy(t.idempotent.is_some()))
    } else {
        "not idempotent".to_string()
    });
    if traits.untrusted {
        parts.push("untrusted output".to_string());
    }
    parts.join(" · ")
}

fn hover_tool(a: &Analysis, t: &Tool) -> String {
    let mut out = vec![
        code_block(&format!("tool {}", t.signature())),
        tool_traits(a, t),
    ];
    if !t.doc.is_empty() {
        out.push(t.doc.clone());
    }
    out.push(policy_line(a, &t.name));
    out.join("\n\n")
}

/// What the policy in force says about a tool.
fn policy_line(a: &Analysis, tool: &str) -> String {
    let Some(policy) = &a.outcome.checked.policy else {
        return "no policy applies: every tool is denied".to_string();
    };
    let Some(rule) = policy.rule(tool) else {
        return format!("not permitted by policy `{}`", policy.name);
    };
    let mut parts = Vec::new();
    let scopes: Vec<String> = rule
        .requires
        .iter()
        .map(|s| format!("`{}`", s.node))
        .collect();
    parts.push(if scopes.is_empty() {
        "requires no scope".to_string()
    } else {
        format!("requires {}", scopes.join(", "))
    });
    for c in &rule.ceilings {
        parts.push(format!("ceiling `{}`", c.text()));
    }
    if rule.approval.is_some() {
        parts.push("needs human approval".to_string());
    }
    if rule.untrusted.is_some() {
        parts.push("output untrusted by the policy".to_string());
    }
    format!("policy `{}`: {}", policy.name, parts.join("; "))
}

fn hover_param(a: &Analysis, occ: &Occ, tool: &str, param: &str) -> Option<String> {
    let t = a.outcome.checked.catalog.get(tool)?;
    let p = t.param(param)?;
    let mut out = vec![code_block(&format!("{}: {}", p.name, p.ty))];
    let mut facts = vec![format!("parameter of `{}`", t.name)];
    match &p.default {
        Some(d) => facts.push(format!("default `{}`", d.display())),
        None if p.required() => facts.push("required".to_string()),
        None => facts.push("optional".to_string()),
    }
    out.push(facts.join(" · "));
    if !p.doc.is_empty() {
        out.push(p.doc.clone());
    }
    if let Some(rule) = a
        .outcome
        .checked
        .policy
        .as_ref()
        .and_then(|pol| pol.rule(tool))
    {
        for c in rule.ceilings.iter().filter(|c| c.arg == param) {
            out.push(format!("ceiling `{}` (policy)", c.text()));
        }
        for c in rule.conditions.iter().filter(|c| c.arg == param) {
            out.push(format!("rule `{}` (policy): {}", c.text(), c.admits_text()));
        }
    }
    // The value written in the step, when it is a reference.
    if let Some((pi, si)) = occ.step
        && let Some(step) = a.plan(pi).and_then(|p| p.steps.get(si))
        && let Some(arg) = step.arg(param)
        && !arg.value.is_constant()
        && !arg.value.ty.is_error()
    {
        out.push(format!("the value written has type `{}`", arg.value.ty));
    }
    Some(out.join("\n\n"))
}

fn hover_step(a: &Analysis, plan: &CheckedPlan, name: &str) -> Option<String> {
    let step = plan.steps.iter().find(|s| s.name == name)?;
    let mut out = vec![code_block(&format!(
        "step {} = {}",
        step.name, step.tool_name
    ))];
    if let Some(t) = a.outcome.checked.catalog.get(&step.tool_name) {
        out.push(tool_traits(a, t));
    }
    if !step.doc.is_empty() {
        out.push(step.doc.clone());
    }
    let binds: Vec<String> = step
        .binds
        .clone()
        .filter_map(|b| plan.bindings.get(b))
        .map(|b| format!("`{}`", b.name))
        .collect();
    if !binds.is_empty() {
        out.push(format!("binds {}", binds.join(", ")));
    }
    let deps: Vec<String> = step
        .depends_on
        .iter()
        .map(|d| {
            let why = match d.reason {
                DepReason::Data => "data",
                DepReason::After => "after",
                DepReason::Effect => "write order",
            };
            format!("`{}` ({why})", plan.step_name(d.step))
        })
        .collect();
    if !deps.is_empty() {
        out.push(format!("runs after {}", deps.join(", ")));
    }
    if step.authz.approval.is_some() {
        out.push("needs human approval before the run".to_string());
    }
    for g in &step.authz.guards {
        out.push(format!("guard at dispatch: `{}`", g.text()));
    }
    for a in &step.authz.aggregates {
        let per = a
            .per
            .as_ref()
            .map(|p| format!(" per {p}"))
            .unwrap_or_default();
        out.push(format!(
            "total at dispatch: `total {} <= {}{per}`",
            a.arg,
            a.max.display()
        ));
    }
    Some(out.join("\n\n"))
}

fn hover_binding(plan: &CheckedPlan, name: &str) -> Option<String> {
    let b = plan.bindings.iter().find(|b| b.name == name)?;
    let step = plan.steps.get(b.step)?;
    let mut out = vec![
        code_block(&format!("bind {}: {}", b.name, b.ty)),
        format!(
            "bound by step `{}` from `{}`, used {} time{}",
            step.name,
            b.path_text(),
            b.uses,
            if b.uses == 1 { "" } else { "s" }
        ),
    ];
    if let Some(from) = b.untrusted_from.and_then(|i| plan.steps.get(i)) {
        out.push(format!(
            "untrusted data: it comes from the output of step `{}` (`{}`)",
            from.name, from.tool_name
        ));
    }
    Some(out.join("\n\n"))
}
