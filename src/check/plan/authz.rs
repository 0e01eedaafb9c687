//! Authorization: the policy's rule for each step, its scopes, approval and
//! ceilings (errors over literals, guards over references).

use super::*;

impl<'a> Checker<'a, '_> {
    pub(super) fn check_policy(
        &mut self,
        i: usize,
        step: &ast::Step,
        tool: &Tool,
        args: &[CheckedArg],
    ) -> Authz {
        let mut authz = Authz::default();
        let Some(policy) = self.env.policy else {
            let d = Diagnostic::new(
                Code::E0301,
                step.tool.span,
                format!("`{}` is not permitted: no policy is in force", tool.name),
            )
            .with_label("denied by default")
            .with_help("declare a `policy` that names the tools this actor may call (or pass one); without a policy every tool is denied");
            self.report(i, d);
            return authz;
        };
        let Some(rule) = policy.rule(&tool.name) else {
            let rules: Vec<&str> = policy.tool_names().collect();
            let near = self.env.nearest(&tool.name, rules.iter().copied());
            let mut d = Diagnostic::new(
                Code::E0301,
                step.tool.span,
                format!(
                    "`{}` is not permitted by policy `{}`",
                    tool.name, policy.name
                ),
            )
            .with_label("the policy does not name this tool")
            .with_secondary(
                policy.name_span,
                format!("policy `{}` is declared here", policy.name),
            );
            match near.first().and_then(|n| policy.rule(n)) {
                Some(r) if self.env.catalog.get(&r.tool).is_none() => {
                    d = d
                        .with_secondary(
                            r.tool_span,
                            format!("the policy names `{}`, which no tool is called", r.tool),
                        )
                        .with_help(format!(
                            "if the rule for `{}` is meant for this tool, correct its name to `{}`",
                            r.tool, tool.name
                        ));
                }
                _ => {
                    d = d.with_help(format!(
                        "a tool the policy does not name is denied: add a rule for `{}` to policy `{}`, or use a permitted tool",
                        tool.name, policy.name
                    ));
                }
            }
            self.report(i, d);
            return authz;
        };
        authz.scopes = rule.requires.iter().map(|s| s.node.clone()).collect();
        let missing: Vec<&Spanned<String>> = rule
            .requires
            .iter()
            .filter(|s| !policy::holds(self.env.actor, &s.node))
            .collect();
        authz.permitted = missing.is_empty();
        if !missing.is_empty() {
            let names: Vec<&str> = missing.iter().map(|s| s.node.as_str()).collect();
            let mut d = Diagnostic::new(
                Code::E0302,
                step.tool.span,
                format!(
                    "the actor lacks {} {}, which `{}` requires",
                    plural(names.len(), "scope", "scopes"),
                    list_names(&names),
                    tool.name
                ),
            )
            .with_label(format!("needs {}", list_names(&names)));
            for s in &missing {
                d = d.with_secondary(
                    s.span,
                    format!("`{}` is required here, by policy `{}`", s.node, policy.name),
                );
            }
            d = d.with_note(if self.env.actor.is_empty() {
                "the actor holds no scopes".to_string()
            } else {
                format!("the actor holds {}", list_names(self.env.actor))
            });
            d = d.with_help(format!(
                "run the plan as an actor that holds {}, or use a tool this actor may call",
                list_names(&names)
            ));
            self.report(i, d);
        }
        if let Some(span) = rule.approval {
            authz.approval = Some(ast::Approval::Human);
            let d = Diagnostic::new(
                Code::N0301,
                step.tool.span,
                format!("step `{}` needs a person's approval before the run starts", step.name.node),
            )
            .with_label("approval human")
            .with_secondary(span, format!("required here, by policy `{}`", policy.name))
            .with_note("the IR lists the step under `approvals`: a reviewer approves the plan, not the steps one by one");
            self.report(i, d);
        }
        for c in &rule.ceilings {
            let Some(limit) = &c.limit else { continue };
            let Some(arg) = args.iter().find(|a| a.name == c.arg) else {
                continue;
            };
            if arg.value.ty.is_error() || matches!(arg.value.kind, ValueKind::Error) {
                continue;
            }
            let origin = format!("policy `{}`", policy.name);
            match &arg.value.kind {
                ValueKind::Literal(v) => {
                    if v.satisfies(c.op, limit) == Some(false) {
                        self.ceiling_breach(i, step, arg, v, c, &origin);
                    }
                }
                _ if provably_within(&arg.value.ty, c.op, limit) => {}
                _ => {
                    authz.guards.push(Guard {
                        arg: c.arg.clone(),
                        op: c.op,
                        limit: limit.clone(),
                        ceiling_span: c.span,
                    });
                    let refs = arg.value.references();
                    let from = match refs.first() {
                        Some(r) => format!(
                            "its value comes from `{}`, bound by step `{}`",
                            r.binding, r.step_name
                        ),
                        None => "its value is not a single literal".to_string(),
                    };
                    let d = Diagnostic::new(
                        Code::N0302,
                        arg.value.span,
                        format!(
                            "the ceiling `{}` over `{}` is enforced at dispatch: {from}",
                            c.text(),
                            c.arg
                        ),
                    )
                    .with_label("checked by a guard after binding")
                    .with_secondary(c.span, format!("ceiling declared here, in {origin}"))
                    .with_note("the IR carries the guard; the executor refuses the call when the bound value breaks it");
                    self.report(i, d);
                }
            }
        }
        authz
    }

    pub(super) fn ceiling_breach(
        &mut self,
        i: usize,
        step: &ast::Step,
        arg: &CheckedArg,
        v: &Value,
        c: &policy::CeilingRule,
        origin: &str,
    ) {
        let above = matches!(c.op, CmpOp::Le | CmpOp::Lt);
        let verb = if above { "exceeds" } else { "breaks" };
        let (span, label) = if arg.from_default {
            (
                step.tool.span,
                format!(
                    "the default `{}` = `{}` is used here",
                    arg.name,
                    v.display()
                ),
            )
        } else {
            (
                arg.value.span,
                if above {
                    "above the ceiling".to_string()
                } else {
                    "outside the ceiling".to_string()
                },
            )
        };
        let mut d = Diagnostic::new(
            Code::E0303,
            span,
            format!(
                "`{}` = `{}` {verb} the ceiling `{}` of {origin}",
                arg.name,
                v.display(),
                c.text()
            ),
        )
        .with_label(label)
        .with_secondary(c.span, format!("ceiling declared here, in {origin}"));
        if arg.from_default {
            d = d.with_secondary(arg.value.span, "the default is declared here");
        }
        d = d.with_help(match &c.limit {
            Some(l) if above => format!(
                "the policy allows at most `{}` here: a larger value needs a change of policy, not of plan",
                l.display()
            ),
            _ => "change the value to one the policy allows".to_string(),
        });
        self.report(i, d);
    }
}

/// Whether every value of `ty` satisfies `OP limit`, so that no guard is
/// needed: an enum whose every value does.
fn provably_within(ty: &Ty, op: CmpOp, limit: &Value) -> bool {
    match ty {
        Ty::Enum(values) => values
            .iter()
            .all(|v| Value::String(v.clone()).satisfies(op, limit) == Some(true)),
        _ => false,
    }
}
