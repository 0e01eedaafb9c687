//! A syntax tree written in the text form.

use std::fmt::Write as _;

use super::{Result, effect, fail, reference_path, unreadable};
use crate::source::{Span, Spanned};
use crate::syntax::ast::{
    ArgRuleKind, Clause, Doc, Expr, ExprKind, InterpPart, Item, Literal, Module, Name, PlanDecl,
    PolicyDecl, Probe, ProbeKind, Reference, Step, ToolDecl, Type, TypeKind,
};
use crate::syntax::lexicon::{is_ident, is_scope, is_tool_name};
use crate::syntax::literal::{escape_text, string_text};

pub(super) fn to_text(module: &Module) -> Result<String> {
    let mut out = String::new();
    for (i, item) in module.items.iter().enumerate() {
        if i > 0 {
            out.push('\n');
        }
        match item {
            Item::Tool(t) => tool_text(t, &mut out)?,
            Item::Policy(p) => policy_text(p, &mut out)?,
            Item::Plan(p) => plan_text(p, &mut out)?,
            Item::Error(span) => return fail(*span, unreadable("declaration")),
        }
    }
    Ok(out)
}

// ---------------------------------------------------------------- text: names and strings

const INDENT: &str = "    ";

fn indent(out: &mut String, level: usize) {
    for _ in 0..level {
        out.push_str(INDENT);
    }
}

/// Writes `items` with `each`, separated by `sep`.
fn separated<T>(
    items: &[T],
    sep: &str,
    out: &mut String,
    mut each: impl FnMut(&T, &mut String) -> Result<()>,
) -> Result<()> {
    for (i, item) in items.iter().enumerate() {
        if i > 0 {
            out.push_str(sep);
        }
        each(item, out)?;
    }
    Ok(())
}

/// A `WORD N` line (`replans`, `max_steps`) at level 1, when there is one.
fn count_line(word: &str, n: Option<&Spanned<u64>>, out: &mut String) {
    if let Some(n) = n {
        indent(out, 1);
        let _ = writeln!(out, "{word} {}", n.node);
    }
}

/// An identifier, or Err naming `what` cannot be spelt in the text form.
fn ident<'n>(name: &'n Name, what: &str) -> Result<&'n str> {
    if is_ident(&name.node) {
        Ok(&name.node)
    } else {
        fail(
            name.span,
            format!(
                "{what} `{}` cannot be written in the text form, where it must be an identifier \
                 (a letter or `_`, then letters, digits and `_`)",
                name.node
            ),
        )
    }
}

/// A tool name: an identifier, or identifiers joined by dots.
fn tool_name(name: &Name) -> Result<&str> {
    if is_tool_name(&name.node) {
        Ok(&name.node)
    } else {
        fail(
            name.span,
            format!(
                "tool name `{}` cannot be written in the text form, where a tool is named by \
                 identifiers joined with dots (`billing.issue_credit`)",
                name.node
            ),
        )
    }
}

fn literal_text(lit: &Literal, span: Span, out: &mut String) -> Result<()> {
    match lit {
        Literal::String(s) => string_text(s, out),
        Literal::Decimal(t) if !t.contains('.') => {
            return fail(
                span,
                format!(
                    "the decimal `{t}` (a JSON number with an exponent) has no point, and the \
                     text form would read it as an int: write it in the JSON without an \
                     exponent, with the fraction it should keep"
                ),
            );
        }
        Literal::Int(t) | Literal::Decimal(t) | Literal::Date(t) | Literal::Datetime(t) => {
            out.push_str(t)
        }
        Literal::Bool(b) => out.push_str(if *b { "true" } else { "false" }),
        Literal::Null => out.push_str("null"),
    }
    Ok(())
}

fn reference_text(r: &Reference, span: Span, out: &mut String) -> Result<()> {
    ident(&r.name, "binding")?;
    for m in &r.members {
        ident(m, "member")?;
    }
    if r.members.is_empty() && matches!(r.name.node.as_str(), "true" | "false" | "null") {
        return fail(
            span,
            format!(
                "a reference to the binding `{0}` cannot be written in the text form, where \
                 `{0}` is a literal; rename the binding",
                r.name.node
            ),
        );
    }
    out.push_str(&reference_path(r));
    Ok(())
}

fn expr_text(e: &Expr, out: &mut String) -> Result<()> {
    match &e.node {
        ExprKind::Literal(l) => literal_text(l, e.span, out)?,
        ExprKind::Ref(r) => reference_text(r, e.span, out)?,
        ExprKind::List(items) => {
            out.push('[');
            separated(items, ", ", out, expr_text)?;
            out.push(']');
        }
        ExprKind::Record(entries) if entries.is_empty() => out.push_str("{}"),
        ExprKind::Record(entries) => {
            out.push_str("{ ");
            separated(entries, ", ", out, |entry, out| {
                out.push_str(ident(&entry.name, "record entry")?);
                out.push_str(": ");
                expr_text(&entry.value, out)
            })?;
            out.push_str(" }");
        }
        ExprKind::Interp(parts) => {
            out.push('"');
            for part in parts {
                match part {
                    InterpPart::Text(t) => escape_text(t, out),
                    InterpPart::Ref(r) => {
                        ident(&r.node.name, "binding")?;
                        for m in &r.node.members {
                            ident(m, "member")?;
                        }
                        let _ = write!(out, "${{{}}}", reference_path(&r.node));
                    }
                }
            }
            out.push('"');
        }
        ExprKind::Error => return fail(e.span, unreadable("value")),
    }
    Ok(())
}

/// `///` lines at `level`.
fn doc_text(doc: &Doc, fallback: Span, level: usize, out: &mut String) -> Result<()> {
    for line in &doc.lines {
        if line.chars().any(|c| c.is_control() && c != '\t') {
            return fail(
                doc.span.unwrap_or(fallback),
                "a description holding a control character (other than a tab or a line break) \
                 cannot be a `///` comment",
            );
        }
        indent(out, level);
        if line.is_empty() {
            out.push_str("///\n");
        } else {
            let _ = writeln!(out, "/// {line}");
        }
    }
    Ok(())
}

// ---------------------------------------------------------------- tools as text

fn tool_text(t: &ToolDecl, out: &mut String) -> Result<()> {
    doc_text(&t.doc, t.name.span, 0, out)?;
    let _ = write!(out, "tool {}(", tool_name(&t.name)?);
    let multiline = t.params.iter().any(|p| !p.doc.is_empty());
    for (i, p) in t.params.iter().enumerate() {
        if multiline {
            out.push('\n');
            doc_text(&p.doc, p.name.span, 1, out)?;
            indent(out, 1);
        } else if i > 0 {
            out.push_str(", ");
        }
        let _ = write!(out, "{}: ", ident(&p.name, "parameter")?);
        type_text(&p.ty, 0, false, out)?;
        if let Some(d) = &p.default {
            out.push_str(" = ");
            expr_text(d, out)?;
        }
        if multiline {
            out.push(',');
        }
    }
    if multiline {
        out.push('\n');
    }
    out.push_str(") -> ");
    type_text(&t.result, 0, false, out)?;
    let _ = write!(out, " {}", effect(t).as_str());
    // The text form has no `idempotent false`: not saying it is the same
    // but for a policy's `idempotent`, which E0310 would refuse.
    if t.idempotent.as_ref().is_some_and(|i| i.node) {
        out.push_str(" idempotent");
    }
    if t.untrusted.is_some() {
        out.push_str(" untrusted");
    }
    out.push('\n');
    Ok(())
}

/// A type at nesting `level`; a record one field per line when `wide` or
/// when a field has a doc comment.
fn type_text(t: &Type, level: usize, wide: bool, out: &mut String) -> Result<()> {
    match &t.node {
        TypeKind::Prim(p) => out.push_str(p.as_str()),
        TypeKind::List(inner) => {
            out.push('[');
            type_text(inner, level, false, out)?;
            out.push(']');
        }
        TypeKind::Map(inner) => {
            out.push_str("{ [string]: ");
            type_text(inner, level, false, out)?;
            out.push_str(" }");
        }
        TypeKind::Record(fields) if fields.is_empty() => out.push_str("{}"),
        TypeKind::Record(fields) => {
            let wide = wide || fields.iter().any(|f| !f.doc.is_empty());
            out.push_str(if wide { "{\n" } else { "{ " });
            for (i, f) in fields.iter().enumerate() {
                if wide {
                    doc_text(&f.doc, f.name.span, level + 1, out)?;
                    indent(out, level + 1);
                } else if i > 0 {
                    out.push_str(", ");
                }
                out.push_str(ident(&f.name, "record field")?);
                out.push_str(if f.optional { "?: " } else { ": " });
                type_text(&f.ty, level + 1, false, out)?;
                if wide {
                    out.push_str(",\n");
                }
            }
            if wide {
                indent(out, level);
                out.push('}');
            } else {
                out.push_str(" }");
            }
        }
        TypeKind::Enum(values) => {
            if values.is_empty() {
                return fail(t.span, "an enum with no values has no text form");
            }
            separated(values, " | ", out, |v, out| {
                string_text(&v.node, out);
                Ok(())
            })?;
        }
        TypeKind::Literal(lit) => out.push_str(&lit.display()),
        TypeKind::Union(members) => {
            separated(members, " | ", out, |m, out| type_text(m, level, wide, out))?;
        }
        TypeKind::Optional(inner) => {
            type_text(inner, level, wide, out)?;
            if !matches!(inner.node, TypeKind::Optional(_)) {
                out.push('?');
            }
        }
        TypeKind::Error => return fail(t.span, unreadable("type")),
    }
    Ok(())
}

// ---------------------------------------------------------------- policies as text

fn scope_text(s: &Name) -> Result<&str> {
    if is_scope(&s.node) {
        Ok(&s.node)
    } else {
        fail(
            s.span,
            format!("scope `{}` cannot be written in the text form", s.node),
        )
    }
}

fn scope_list(scopes: &[Name], out: &mut String) -> Result<()> {
    out.push('[');
    separated(scopes, ", ", out, |s, out| {
        out.push_str(scope_text(s)?);
        Ok(())
    })?;
    out.push(']');
    Ok(())
}

/// The doc comment and `KEYWORD NAME` of a policy or a plan.
fn head(doc: &Doc, keyword: &str, name: &Name, out: &mut String) -> Result<()> {
    doc_text(doc, name.span, 0, out)?;
    let name = ident(name, &format!("{keyword} name"))?;
    let _ = write!(out, "{keyword} {name}");
    Ok(())
}

fn policy_text(p: &PolicyDecl, out: &mut String) -> Result<()> {
    head(&p.doc, "policy", &p.name, out)?;
    out.push_str(" {\n");
    if let Some(actor) = &p.actor {
        indent(out, 1);
        out.push_str("actor ");
        scope_list(&actor.node, out)?;
        out.push('\n');
    }
    count_line("max_steps", p.max_steps.as_ref(), out);
    if let Some(n) = &p.replans {
        indent(out, 1);
        let _ = writeln!(out, "replans <= {}", n.node);
    }
    if (p.actor.is_some() || p.max_steps.is_some() || p.replans.is_some()) && !p.rules.is_empty() {
        out.push('\n');
    }
    for r in &p.rules {
        // `*`: the default rule, written as it is in both forms.
        let tool = if r.tool.node.as_str() == "*" {
            "*"
        } else {
            tool_name(&r.tool)?
        };
        if matches!(tool, "actor" | "max_steps") {
            return fail(
                r.tool.span,
                format!(
                    "a policy rule for a tool named `{tool}` cannot be written in the text form, \
                     where `{tool}` starts a policy line of its own"
                ),
            );
        }
        indent(out, 1);
        out.push_str(tool);
        // Always written, as the JSON form always holds `scopes`: a rule
        // with no `requires` means `requires []`.
        out.push_str(" requires ");
        scope_list(&r.requires, out)?;
        if r.approval.is_some() {
            out.push_str(" approval human");
        }
        for (i, c) in r.ceilings.iter().enumerate() {
            out.push_str(if i == 0 { " where " } else { ", " });
            let _ = write!(
                out,
                "{} {} ",
                ident(&c.arg, "ceiling argument")?,
                c.op.node.as_str()
            );
            literal_text(&c.limit.node, c.limit.span, out)?;
        }
        let mut first = r.ceilings.is_empty();
        let mut sep = |out: &mut String| {
            out.push_str(if first { " where " } else { ", " });
            first = false;
        };
        for a in &r.arg_rules {
            sep(out);
            let arg = ident(&a.arg, "rule argument")?;
            match &a.kind {
                ArgRuleKind::In { values, .. } => {
                    let _ = write!(out, "{arg} {} [", a.kind.keyword());
                    for (i, v) in values.iter().enumerate() {
                        if i > 0 {
                            out.push_str(", ");
                        }
                        literal_text(&v.node, v.span, out)?;
                    }
                    out.push(']');
                }
                ArgRuleKind::Matches(p) => {
                    let _ = write!(out, "{arg} matches ");
                    string_text(&p.node, out);
                }
                ArgRuleKind::Trusted => {
                    let _ = write!(out, "{arg} trusted");
                }
                ArgRuleKind::Total { max, per } => {
                    let _ = write!(out, "total {arg} <= ");
                    literal_text(&max.node, max.span, out)?;
                    if let Some(p) = per {
                        let _ = write!(out, " per {}", ident(p, "rule argument")?);
                    }
                }
            }
        }
        if let Some(n) = &r.calls {
            sep(out);
            let _ = write!(out, "calls <= {}", n.node);
        }
        if r.untrusted.is_some() {
            out.push_str(" untrusted");
        } else if r.trusted.is_some() {
            out.push_str(" untrusted false");
        }
        if let Some(e) = &r.effect {
            let _ = write!(out, " effect {}", e.node.as_str());
        }
        match r.idempotent.as_ref().map(|i| i.node) {
            Some(true) => out.push_str(" idempotent"),
            Some(false) => out.push_str(" idempotent false"),
            None => {}
        }
        out.push('\n');
    }
    out.push_str("}\n");
    Ok(())
}

// ---------------------------------------------------------------- plans as text

fn plan_text(p: &PlanDecl, out: &mut String) -> Result<()> {
    head(&p.doc, "plan", &p.name, out)?;
    if let Some(goal) = &p.goal {
        out.push(' ');
        string_text(&goal.node, out);
    }
    out.push_str(" {\n");
    count_line("replans", p.replans.as_ref(), out);
    count_line("max_steps", p.max_steps.as_ref(), out);
    for (i, s) in p.steps.iter().enumerate() {
        if i > 0 || p.replans.is_some() || p.max_steps.is_some() {
            out.push('\n');
        }
        step_text(s, out)?;
    }
    out.push_str("}\n");
    Ok(())
}

fn step_text(s: &Step, out: &mut String) -> Result<()> {
    doc_text(&s.doc, s.name.span, 1, out)?;
    indent(out, 1);
    if s.tool.node.is_empty() {
        return fail(s.span, "this step names no tool");
    }
    let _ = write!(
        out,
        "step {} = {}(",
        ident(&s.name, "step name")?,
        tool_name(&s.tool)?
    );
    separated(&s.args, ", ", out, |a, out| {
        let _ = write!(out, "{}: ", ident(&a.name, "argument")?);
        expr_text(&a.value, out)
    })?;
    out.push(')');
    let written: Vec<&Clause> = s
        .clauses
        .iter()
        .filter(|c| !matches!(c, Clause::After { steps, .. } if steps.is_empty()))
        .collect();
    if written.is_empty() {
        out.push('\n');
        return Ok(());
    }
    out.push_str(" {\n");
    for c in written {
        indent(out, 2);
        match c {
            Clause::Pre(p) => {
                out.push_str("pre ");
                probe_text(p, out)?;
            }
            Clause::Post(p) => {
                out.push_str("post ");
                probe_text(p, out)?;
            }
            Clause::Bind { name, path, .. } => {
                let _ = write!(out, "bind {} = {path}", ident(name, "binding")?);
            }
            Clause::OnUnmet(o) => {
                let _ = write!(out, "on_unmet {}", o.node.as_str());
            }
            Clause::Retry(r) => {
                let _ = write!(out, "retry {}", r.node);
            }
            Clause::After { steps, .. } => {
                out.push_str("after ");
                separated(steps, ", ", out, |n, out| {
                    out.push_str(ident(n, "step name")?);
                    Ok(())
                })?;
            }
            Clause::Error(span) => return fail(*span, unreadable("clause")),
        }
        out.push('\n');
    }
    indent(out, 1);
    out.push_str("}\n");
    Ok(())
}

fn probe_text(p: &Probe, out: &mut String) -> Result<()> {
    match &p.kind {
        ProbeKind::Len { path, op, value } => {
            let _ = write!(out, "len({path}) {} ", op.node.as_str());
            literal_text(&value.node, value.span, out)?;
        }
        ProbeKind::Compare { path, op, value } => {
            let _ = write!(out, "{path} {} ", op.node.as_str());
            literal_text(&value.node, value.span, out)?;
        }
        ProbeKind::In {
            path,
            negated,
            values,
        } => {
            let _ = write!(out, "{path} {}in [", if *negated { "not " } else { "" });
            separated(values, ", ", out, |v, out| {
                literal_text(&v.node, v.span, out)
            })?;
            out.push(']');
        }
        ProbeKind::Contains { path, value } => {
            let _ = write!(out, "{path} contains ");
            literal_text(&value.node, value.span, out)?;
        }
        ProbeKind::KeysContain { path, value } => {
            let _ = write!(out, "keys({path}) contains ");
            literal_text(&value.node, value.span, out)?;
        }
        ProbeKind::Exists { path } => {
            let _ = write!(out, "exists({path})");
        }
        ProbeKind::CountDefault { .. } => {
            return fail(
                p.span,
                "a `result_count` probe without `path` has no text form: the text form's \
                 `len(PATH)` names the list it counts; add the `path` of that list",
            );
        }
        ProbeKind::Error => return fail(p.span, unreadable("probe")),
    }
    Ok(())
}
