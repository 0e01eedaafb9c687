//! The authorization policy: which tools an actor may call, with which
//! scopes, under which ceilings, with or without a human's approval.
//!
//! Built from [`ast::PolicyDecl`]s, from `policy` declarations in `.plan`
//! text or the JSON policy form alike. Deny by default: a tool the policy
//! does not name may not be called ([`Policy::rule`] returns `None`),
//! unless the policy has a `*` rule, which gives every catalogue tool no
//! other rule names a rule of its own, built from the `*` rule's clauses.

use crate::FastMap;
use crate::ast::{self, CmpOp, Str};
use crate::catalog::{self, Catalog, Value};
use crate::diagnostics::{Code, Diagnostic};
use crate::source::{Span, Spanned};

mod rules;
pub use rules::{ArgCondition, Condition, admits_in, whole_match};

/// One policy.
#[derive(Clone, Debug)]
pub struct Policy {
    pub name: String,
    pub name_span: Span,
    pub span: Span,
    /// The scopes of the `actor` line, when there is one.
    pub actor: Option<Vec<String>>,
    pub actor_span: Option<Span>,
    /// `max_steps N`: no plan checked under this policy may be longer.
    pub max_steps: Option<Spanned<u64>>,
    /// `replans <= N`: no plan checked under this policy may replan more.
    pub replans: Option<Spanned<u64>>,
    rules: Vec<Rule>,
    by_tool: FastMap<String, usize>,
}

/// What the policy says about one tool.
#[derive(Clone, Debug)]
pub struct Rule {
    pub tool: String,
    pub tool_span: Span,
    pub span: Span,
    /// The scopes the actor must hold, in the order written, without
    /// repeats.
    pub requires: Vec<Spanned<Str>>,
    /// `approval human`: a person approves the step before the run starts.
    pub approval: Option<Span>,
    pub ceilings: Vec<CeilingRule>,
    /// The other rules of the `where` list, over one argument each.
    pub conditions: Vec<ArgCondition>,
    /// `calls <= N`: the most calls of the tool, the record's complete ones
    /// included.
    pub calls: Option<Spanned<u64>>,
    /// `untrusted`: the policy marks the tool's output as outside data.
    pub untrusted: Option<Span>,
    /// `untrusted false`: the policy trusts the tool's output, overriding
    /// the catalogue.
    pub trusted: Option<Span>,
    /// The effect the policy states, for a catalogue that does not.
    pub effect: Option<Spanned<ast::Effect>>,
    /// `idempotent` or `idempotent false`, for a catalogue that does not
    /// say.
    pub idempotent: Option<Spanned<bool>>,
}

/// What a step's tool is, from the catalogue and the policy together: the
/// one place that combines them ([`Traits::of`]). Everything that acts on a
/// tool's effect, idempotence or trust (the lints, `retry`, ordering, the
/// IR, the executor, the planner's schema, hover) reads these.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Traits {
    /// The effect stated by the catalogue, else by the policy; `None` when
    /// neither states it (the tool then counts as a write:
    /// [`Traits::effect_or_write`]).
    pub effect: Option<ast::Effect>,
    /// Idempotent by the catalogue's statement, else by the policy's; not
    /// idempotent when neither says.
    pub idempotent: bool,
    /// Untrusted output: the policy's `untrusted` / `untrusted false`
    /// overrides the catalogue.
    pub untrusted: bool,
}

/// Whether a tool's output is untrusted: the policy's rule for it decides
/// both ways (`untrusted`, `untrusted false`), else the catalogue. A
/// recorded step's tool may have left the catalogue: then only the policy
/// can say.
pub fn untrusted_output(tool: Option<&catalog::Tool>, rule: Option<&Rule>) -> bool {
    match rule {
        Some(r) if r.untrusted.is_some() => true,
        Some(r) if r.trusted.is_some() => false,
        _ => tool.is_some_and(|t| t.untrusted),
    }
}

impl Traits {
    /// The traits of `tool` under its policy rule, if any. Where both state
    /// an effect or idempotence, the policy's stands, unless it would
    /// loosen an operator's text catalogue (E0310: the catalogue's stands).
    pub fn of(tool: &catalog::Tool, rule: Option<&Rule>) -> Traits {
        // What the policy states stands: a statement that would loosen an
        // operator's text catalogue was refused (E0310) and left out of
        // the rule; the rest makes the tool stricter, or overrides a
        // server's hints.
        let effect = rule
            .and_then(|r| r.effect.as_ref())
            .or(tool.effect.as_ref())
            .map(|e| e.node);
        let idempotent = rule
            .and_then(|r| r.idempotent.as_ref())
            .or(tool.idempotent.as_ref())
            .is_some_and(|i| i.node);
        let untrusted = untrusted_output(Some(tool), rule);
        Traits {
            effect,
            idempotent,
            untrusted,
        }
    }

    /// The effect ordering and the executor use: a tool whose effect
    /// nobody states counts as a write, the conservative choice.
    pub fn effect_or_write(&self) -> ast::Effect {
        ast::Effect::stated_or_write(self.effect)
    }
}

/// `ARG OP LIMIT`: the argument must satisfy the comparison.
#[derive(Clone, Debug)]
pub struct CeilingRule {
    pub arg: Str,
    pub arg_span: Span,
    pub op: CmpOp,
    /// The limit, typed against the argument's parameter when the tool is
    /// in the catalogue. `None` when the limit is ill-typed (reported).
    pub limit: Option<Value>,
    pub limit_span: Span,
    pub span: Span,
}

impl CeilingRule {
    /// `amount_eur <= 500`, as messages show it.
    pub fn text(&self) -> String {
        match &self.limit {
            Some(v) => format!("{} {} {}", self.arg, self.op.as_str(), v.display()),
            None => format!("{} {} …", self.arg, self.op.as_str()),
        }
    }
}

impl Policy {
    /// Builds the policy in force from the policy declarations given. One
    /// policy applies to a check: a second declaration is E0104 and is
    /// ignored. A second rule for the same tool is E0104 too (the first
    /// applies). Ceilings are typed against the catalogue: a ceiling over an
    /// argument the tool lacks is E0102, a limit not of the argument's type
    /// E0201 (E0204 when of the right kind but invalid), an ordering over an
    /// argument that is not a number or a date E0201. Rules for tools the
    /// catalogue does not hold are kept unchecked (a policy may be shared by
    /// several catalogues).
    pub fn build<'a>(
        decls: impl IntoIterator<Item = &'a ast::PolicyDecl>,
        catalog: &Catalog,
        diags: &mut Vec<Diagnostic>,
    ) -> Option<Policy> {
        let mut policy: Option<Policy> = None;
        for decl in decls {
            if let Some(first) = &policy {
                diags.push(
                    Diagnostic::new(
                        Code::E0104,
                        decl.name.span,
                        format!(
                            "more than one policy: `{}` is declared after `{}`",
                            decl.name.node, first.name
                        ),
                    )
                    .with_label("a second policy")
                    .with_secondary(first.name_span, "the policy in force is declared here")
                    .with_help("one policy applies to a check: merge the rules into one policy"),
                );
                continue;
            }
            policy = Some(build_policy(decl, catalog, diags));
        }
        policy
    }

    /// The rule for `tool`: its named rule, else the `*` rule built for it
    /// when the catalogue holds it; `None` when neither covers it (which
    /// denies it).
    pub fn rule(&self, tool: &str) -> Option<&Rule> {
        self.by_tool.get(tool).and_then(|&i| self.rules.get(i))
    }

    /// The rules in force, one per tool: the named rules in the order
    /// written, then the `*` rule's expansion, one rule per catalogue tool
    /// no named rule covers, in catalogue order (its `tool` is the covered
    /// tool, its `tool_span` the `*`). The `*` rule itself is not among
    /// them.
    pub fn rules(&self) -> &[Rule] {
        &self.rules
    }

    /// The tool names the policy has rules for: those of [`Policy::rules`],
    /// the tools the `*` rule covers included.
    pub fn tool_names(&self) -> impl Iterator<Item = &str> {
        self.rules.iter().map(|r| r.tool.as_str())
    }
}

/// Whether an actor holding `held` has `required`. A held scope ending in
/// `*` holds every scope that starts with what comes before the star:
/// `billing:*` holds `billing:write`, and `*` holds everything.
pub fn holds(held: &[String], required: &str) -> bool {
    held.iter().any(|h| match h.strip_suffix('*') {
        Some(prefix) => required.starts_with(prefix),
        None => h == required,
    })
}

fn build_policy(decl: &ast::PolicyDecl, catalog: &Catalog, diags: &mut Vec<Diagnostic>) -> Policy {
    let mut rules: Vec<Rule> = Vec::with_capacity(decl.rules.len());
    let mut by_tool: FastMap<String, usize> = FastMap::default();
    let mut default: Option<&ast::PolicyRule> = None;
    for r in &decl.rules {
        if r.tool.node.as_str() == DEFAULT_RULE {
            if let Some(first) = default {
                diags.push(
                    Diagnostic::new(
                        Code::E0104,
                        r.tool.span,
                        "the policy has more than one `*` rule",
                    )
                    .with_label("a second rule")
                    .with_secondary(first.tool.span, "the rule in force is here")
                    .with_help("merge the two rules into one line"),
                );
            } else {
                default = Some(r);
            }
            continue;
        }
        if let Some(first) = by_tool
            .get(r.tool.node.as_str())
            .and_then(|&i| rules.get(i))
        {
            diags.push(
                Diagnostic::new(
                    Code::E0104,
                    r.tool.span,
                    format!("the policy has more than one rule for `{}`", r.tool.node),
                )
                .with_label("a second rule")
                .with_secondary(first.tool_span, "the rule in force is here")
                .with_help("merge the two rules into one line"),
            );
            continue;
        }
        let rule = build_rule(r, &r.tool.node, catalog, diags);
        by_tool.insert(rule.tool.clone(), rules.len());
        rules.push(rule);
    }
    if let Some(star) = default {
        expand_default(star, catalog, &mut rules, &mut by_tool, diags);
    }
    Policy {
        name: String::from(decl.name.node.as_str()),
        name_span: decl.name.span,
        span: decl.span,
        actor: decl.actor.as_ref().map(|a| {
            a.node
                .iter()
                .map(|s| String::from(s.node.as_str()))
                .collect()
        }),
        actor_span: decl.actor.as_ref().map(|a| a.span),
        max_steps: decl.max_steps,
        replans: decl.replans,
        rules,
        by_tool,
    }
}

/// The tool of the default rule: `* requires [...]`, JSON `"*"`.
pub const DEFAULT_RULE: &str = "*";

/// Expands the `*` rule into one rule per catalogue tool that no named rule
/// covers, each built against its tool exactly as a named rule is (types,
/// ceilings, trust rules, traits). A clause over an argument a covered tool
/// lacks is an error on the policy, naming that tool. A problem that does not
/// depend on the tool (a pattern that does not compile) is reported once;
/// with no tool to cover, the rule is still built once, unchecked against
/// any tool, so that such problems are reported all the same.
fn expand_default(
    star: &ast::PolicyRule,
    catalog: &Catalog,
    rules: &mut Vec<Rule>,
    by_tool: &mut FastMap<String, usize>,
    diags: &mut Vec<Diagnostic>,
) {
    let mut seen: Vec<Diagnostic> = Vec::new();
    let mut covered = 0usize;
    for tool in catalog.tools() {
        if by_tool.contains_key(tool.name.as_str()) {
            continue;
        }
        covered += 1;
        let mut own = Vec::new();
        let rule = build_rule(star, &tool.name, catalog, &mut own);
        for d in own {
            if seen.contains(&d) {
                continue;
            }
            seen.push(d.clone());
            diags.push(d.with_note(format!(
                "the `*` rule covers `{}`, which no rule of the policy names",
                tool.name
            )));
        }
        by_tool.insert(rule.tool.clone(), rules.len());
        rules.push(rule);
    }
    if covered == 0 {
        let _ = build_rule(star, DEFAULT_RULE, catalog, diags);
    }
}

/// Builds `r` as the rule of `tool_name`: the rule's own tool, or, for the
/// `*` rule, each catalogue tool it covers.
fn build_rule(
    r: &ast::PolicyRule,
    tool_name: &str,
    catalog: &Catalog,
    diags: &mut Vec<Diagnostic>,
) -> Rule {
    let tool = catalog.get(tool_name);
    if tool.is_none() && tool_name != DEFAULT_RULE {
        // A rule for a tool this catalogue lacks is allowed (a policy may be
        // shared by several catalogues), but one a letter away from a tool
        // it has is most likely that tool's rule, misspelt: the tool would
        // be denied, or worse, governed by nothing the author meant.
        let near = crate::suggest::nearest(&r.tool.node, catalog.names());
        if !near.is_empty() {
            let d = Diagnostic::new(
                Code::W0407,
                r.tool.span,
                format!(
                    "the policy has a rule for `{}`, which is not in the catalogue",
                    r.tool.node
                ),
            )
            .with_label("no tool of this name");
            diags.push(add_suggestion(d, &near, r.tool.span));
        }
    }
    let mut requires: Vec<Spanned<Str>> = Vec::with_capacity(r.requires.len());
    for s in &r.requires {
        if !requires.iter().any(|q| q.node == s.node) {
            requires.push(s.clone());
        }
    }
    let mut ceilings = Vec::with_capacity(r.ceilings.len());
    for c in &r.ceilings {
        ceilings.push(build_ceiling(c, tool_name, tool, diags));
    }
    let conditions = r
        .arg_rules
        .iter()
        .filter_map(|a| rules::build(a, tool_name, tool, diags))
        .collect();
    let mut effect = r.effect;
    let mut idempotent = r.idempotent;
    // The operator's policy outranks a server's hints: a policy may always
    // make a tool stricter (a write, not idempotent), and overrides an MCP
    // or OpenAI catalogue's hints both ways. Only loosening what an
    // operator's own text catalogue states is refused (E0310).
    if let Some(tool) = tool.filter(|t| !t.hinted) {
        if let (Some(ours), Some(theirs)) = (effect, tool.effect)
            && ours.node == ast::Effect::Read
            && theirs.node == ast::Effect::Write
        {
            diags.push(disagreement(
                tool_name,
                ours.span,
                &format!("a `{}` tool", ours.node.as_str()),
                theirs.span,
                &format!("a `{}` tool", theirs.node.as_str()),
            ));
            effect = None;
        }
        if let (Some(ours), Some(theirs)) = (idempotent, tool.idempotent)
            && ours.node
            && !theirs.node
        {
            let says = |b: bool| if b { "idempotent" } else { "not idempotent" };
            diags.push(disagreement(
                tool_name,
                ours.span,
                says(ours.node),
                theirs.span,
                says(theirs.node),
            ));
            idempotent = None;
        }
    }
    Rule {
        tool: String::from(tool_name),
        tool_span: r.tool.span,
        span: r.span,
        requires,
        approval: r.approval.map(|a| a.span),
        ceilings,
        conditions,
        calls: r.calls,
        untrusted: r.untrusted,
        trusted: r.trusted,
        effect,
        idempotent,
    }
}

/// E0310: the policy loosens an effect or idempotence an operator's text
/// catalogue states (a `read` for a `write` tool, `idempotent` for one that
/// is not); the catalogue's statement stands. Making a tool stricter, or
/// overriding a server's hints, is not refused.
fn disagreement(tool: &str, at: Span, ours: &str, decl: Span, theirs: &str) -> Diagnostic {
    Diagnostic::new(
        Code::E0310,
        at,
        format!("the policy says `{tool}` is {ours}, but the catalogue says it is {theirs}"),
    )
    .with_label("contradicts the catalogue")
    .with_secondary(decl, "the catalogue states it here")
    .with_help(
        "remove this from the policy's rule: a policy may make a tool stricter, or override a server's hints, but not loosen what the operator's own catalogue states",
    )
}

fn build_ceiling(
    c: &ast::Ceiling,
    tool_name: &str,
    tool: Option<&catalog::Tool>,
    diags: &mut Vec<Diagnostic>,
) -> CeilingRule {
    let mut rule = CeilingRule {
        arg: c.arg.node.clone(),
        arg_span: c.arg.span,
        op: c.op.node,
        limit: None,
        limit_span: c.limit.span,
        span: c.span,
    };
    let ordering = matches!(c.op.node, CmpOp::Lt | CmpOp::Le | CmpOp::Gt | CmpOp::Ge);
    let Some(tool) = tool else {
        // The tool is not in this catalogue: the limit is kept as written,
        // but an ordering still needs a limit that orders.
        rule.limit = catalog::value::natural_value(&c.limit.node)
            .ok()
            .filter(|v| !ordering || orders(v, c, diags));
        return rule;
    };
    let Some(param) = tool.param(&c.arg.node) else {
        diags.push(no_such_argument("ceiling", &c.arg, tool_name, tool));
        return rule;
    };
    if ordering && !param.ty.is_ordered() {
        diags.push(
            Diagnostic::new(
                Code::E0201,
                c.op.span,
                format!(
                    "`{}` orders values, but `{}` is `{}`, not a number or a date",
                    c.op.node.as_str(),
                    c.arg.node,
                    param.ty
                ),
            )
            .with_label("an ordering")
            .with_secondary(
                param.name_span,
                format!("`{}` is declared here", c.arg.node),
            )
            .with_help(
                "use `==` or `!=` for this argument, or put the ceiling on a number or a date",
            ),
        );
        return rule;
    }
    match catalog::value::literal_value(&c.limit.node, &param.ty) {
        // An `any` parameter takes the limit as written: an ordering needs
        // one that orders (a limit written `"500"` would compare with no
        // number, and let every one through).
        Ok((v, _)) if ordering && !orders(&v, c, diags) => {}
        Ok((v, _)) => rule.limit = Some(v),
        Err(e) => {
            let what = format!("the ceiling over `{}`", c.arg.node);
            diags.push(
                catalog::literal_error(&e, &c.limit.node, &param.ty, c.limit.span, &what)
                    .with_secondary(
                        param.name_span,
                        format!("`{}` is declared here", c.arg.node),
                    ),
            );
        }
    }
    rule
}

/// Whether an ordering ceiling's limit is a number, a date or a datetime;
/// reports E0201 on the policy when it is not.
fn orders(v: &Value, c: &ast::Ceiling, diags: &mut Vec<Diagnostic>) -> bool {
    if matches!(
        v,
        Value::Int(_) | Value::Decimal(_) | Value::Date(_) | Value::Datetime(_)
    ) {
        return true;
    }
    let mut d = Diagnostic::new(
        Code::E0201,
        c.limit.span,
        format!(
            "the ceiling `{} {} {}` orders against {} `{}`, not a number or a date",
            c.arg.node,
            c.op.node.as_str(),
            v.display(),
            c.limit.node.kind_name(),
            c.limit.node.display()
        ),
    )
    .with_label("not a number or a date");
    d = match v {
        Value::String(s) if catalog::value::parse_decimal(s).is_ok() => d
            .with_help(format!(
                "write the limit as a number, without quotes: `{s}`; a quoted limit compares with no number"
            ))
            .with_fix("write the number unquoted", c.limit.span, s.clone()),
        _ => d.with_help("an ordering (`<`, `<=`, `>`, `>=`) needs a number, a date or a datetime as its limit"),
    };
    diags.push(d);
    false
}

/// E0102 on the policy: a ceiling or a rule (`what`) over an argument the
/// tool does not have.
fn no_such_argument(
    what: &str,
    arg: &ast::Name,
    tool_name: &str,
    tool: &catalog::Tool,
) -> Diagnostic {
    let near = crate::suggest::nearest(&arg.node, tool.params.iter().map(|p| p.name.as_str()));
    let d = Diagnostic::new(
        Code::E0102,
        arg.span,
        format!(
            "the {what} names `{}`, which is not an argument of `{tool_name}`",
            arg.node
        ),
    )
    .with_label("no such argument")
    .with_secondary(tool.name_span, format!("`{tool_name}` is declared here"));
    if near.is_empty() {
        let all: Vec<String> = tool
            .params
            .iter()
            .map(|p| format!("`{}`", p.name))
            .collect();
        return d.with_help(if all.is_empty() {
            format!("`{tool_name}` takes no arguments")
        } else {
            format!("`{tool_name}` takes {}", all.join(", "))
        });
    }
    add_suggestion(d, &near, arg.span)
}

/// Adds "did you mean" help and a replacing fix for the best candidate.
pub fn add_suggestion(mut d: Diagnostic, near: &[&str], span: Span) -> Diagnostic {
    if let Some(help) = crate::suggest::did_you_mean(near) {
        d = d.with_help(help);
    }
    if let Some(best) = near.first() {
        d = d.with_fix(format!("replace with `{best}`"), span, *best);
    }
    d
}

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]
mod tests {
    use super::*;
    use crate::source::FileId;

    /// Builds the policy of `text` (tools and a policy) against its tools.
    fn build(text: &str) -> (Option<Policy>, Vec<Diagnostic>) {
        let (m, d) = crate::syntax::parse_text(FileId(0), text);
        assert!(d.is_empty(), "{d:#?}");
        let mut diags = Vec::new();
        let catalog = Catalog::build(m.tools(), &mut diags);
        let policy = Policy::build(m.policies(), &catalog, &mut diags);
        (policy, diags)
    }

    const TOOLS: &str = "tool a.pay(amount: int) -> { id: string } write\n\
        tool a.look(id: string) -> { id: string } read\n\
        tool a.send(amount: int, to: string) -> { id: string } write\n";

    #[test]
    fn the_default_rule_covers_each_unnamed_tool_and_no_other() {
        let (p, d) = build(&format!(
            "{TOOLS}policy p {{\n a.look requires [r]\n * requires [w] approval human where amount <= 5\n}}"
        ));
        assert!(d.is_empty(), "{d:#?}");
        let p = p.unwrap();
        let names: Vec<&str> = p.tool_names().collect();
        assert_eq!(names, vec!["a.look", "a.pay", "a.send"]);
        let look = p.rule("a.look").unwrap();
        assert!(look.ceilings.is_empty() && look.approval.is_none());
        for t in ["a.pay", "a.send"] {
            let r = p.rule(t).unwrap();
            assert_eq!(r.tool, t);
            assert!(r.approval.is_some());
            assert_eq!(r.ceilings.len(), 1);
            assert_eq!(r.ceilings[0].limit, Some(Value::Int(5)));
        }
        assert!(p.rule("*").is_none() && p.rule("a.other").is_none());
    }

    #[test]
    fn without_a_default_rule_an_unnamed_tool_is_denied() {
        let (p, d) = build(&format!("{TOOLS}policy p {{\n a.look requires [r]\n}}"));
        assert!(d.is_empty(), "{d:#?}");
        let p = p.unwrap();
        assert!(p.rule("a.pay").is_none() && p.rule("a.send").is_none());
    }

    #[test]
    fn a_second_default_rule_is_e0104_and_the_first_applies() {
        let (p, d) = build(&format!(
            "{TOOLS}policy p {{\n a.look requires [r]\n * requires [w]\n * requires [x]\n}}"
        ));
        let codes: Vec<Code> = d.iter().map(|d| d.code).collect();
        assert_eq!(codes, vec![Code::E0104]);
        let p = p.unwrap();
        assert_eq!(p.rule("a.pay").unwrap().requires[0].node, "w");
    }

    #[test]
    fn a_default_clause_over_a_missing_argument_names_the_tool() {
        let (_, d) = build(&format!(
            "{TOOLS}policy p {{\n * requires [w] where to == \"x\"\n}}"
        ));
        let got: Vec<(Code, bool)> = d
            .iter()
            .map(|d| (d.code, d.message.contains("`a.pay`")))
            .collect();
        // `a.pay` and `a.look` lack `to`; `a.send` has it.
        assert_eq!(got, vec![(Code::E0102, true), (Code::E0102, false)]);
        assert!(d[1].message.contains("`a.look`"));
        assert!(d[1].notes.iter().any(|n| n.contains("covers `a.look`")));
    }

    #[test]
    fn the_default_rule_is_no_near_name_and_is_checked_against_each_tool() {
        let (_, d) = build(&format!(
            "{TOOLS}policy p {{\n * requires [w] where amount <= \"5\"\n}}"
        ));
        let codes: Vec<Code> = d.iter().map(|d| d.code).collect();
        // `a.look` lacks `amount` (E0102); the quoted limit is E0201 for each
        // of the two tools with an `amount` (each pointing at its own
        // declaration).
        assert!(!codes.contains(&Code::W0407), "{d:#?}");
        assert_eq!(codes, vec![Code::E0201, Code::E0102, Code::E0201], "{d:#?}");
        // A mistake that does not depend on the tool is reported once.
        let (_, d) = build(&format!(
            "{TOOLS}policy p {{\n * requires [w] where to matches \"(\"\n}}"
        ));
        let codes: Vec<Code> = d.iter().map(|d| d.code).collect();
        assert_eq!(
            codes.iter().filter(|c| **c == Code::E0002).count(),
            1,
            "{d:#?}"
        );
        // With no tool to cover, the rule is still checked.
        let (_, d) = build("policy p {\n * requires [w] where amount <= \"5\"\n}");
        let codes: Vec<Code> = d.iter().map(|d| d.code).collect();
        assert_eq!(codes, vec![Code::E0201]);
    }
}
