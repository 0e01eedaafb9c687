//! A syntax tree written in the JSON form: the kind of document it makes,
//! then plans, catalogues and policies as JSON.

use std::fmt::Write as _;

use super::{Result, effect, fail, reference_path, unreadable};
use crate::source::{Span, Spanned};
use crate::syntax::ast::{
    ArgRuleKind, Clause, CmpOp, Doc, Effect, Expr, ExprKind, InterpPart, Item, Literal, Module,
    Name, Param, Path, PlanDecl, PolicyDecl, PolicyRule, Prim, Probe, ProbeKind, Step, ToolDecl,
    Type, TypeKind,
};
use crate::syntax::json_plan::{escape_interp, probe_kind as pk};
use crate::syntax::lexicon::is_scope;

pub(super) fn to_json(module: &Module) -> Result<String> {
    let doc = match kind(module)? {
        Kind::Plan(p) => plan_json(p)?,
        Kind::Tools(tools) => catalog_json(&tools)?,
        Kind::Policy(p) => policy_json(p)?,
    };
    // Only a number that is not JSON fails here, and `json_number` makes
    // every number JSON.
    match serde_json::to_string_pretty(&doc) {
        Ok(mut out) => {
            out.push('\n');
            Ok(out)
        }
        Err(e) => fail(
            Span::default(),
            format!("the JSON could not be written: {e}"),
        ),
    }
}

// ---------------------------------------------------------------- which document

enum Kind<'m> {
    Plan(&'m PlanDecl),
    Tools(Vec<&'m ToolDecl>),
    Policy(&'m PolicyDecl),
}

fn item_kind(item: &Item) -> (&'static str, Span) {
    match item {
        Item::Tool(t) => ("tool declarations", t.span),
        Item::Policy(p) => ("a policy", p.span),
        Item::Plan(p) => ("a plan", p.span),
        Item::Error(span) => ("an unreadable declaration", *span),
    }
}

/// The one kind of document the module makes; Err when it is empty, holds
/// an unreadable declaration, mixes kinds, or holds two plans or policies.
fn kind(module: &Module) -> Result<Kind<'_>> {
    if let Some(span) = module.items.iter().find_map(|i| match i {
        Item::Error(span) => Some(*span),
        _ => None,
    }) {
        return fail(span, unreadable("declaration"));
    }
    let Some(first) = module.items.first() else {
        return fail(
            Span::default(),
            "the file declares nothing: there is no plan, tool or policy to write as JSON",
        );
    };
    let (first_kind, _) = item_kind(first);
    for item in module.items.iter().skip(1) {
        let (this_kind, span) = item_kind(item);
        if this_kind != first_kind {
            return fail(
                span,
                format!(
                    "this file holds {first_kind} and {this_kind}: the JSON forms keep plans, \
                     tool catalogues and policies in separate documents; move each kind to a \
                     file of its own before converting"
                ),
            );
        }
        match item {
            Item::Plan(_) => {
                return fail(
                    span,
                    "a second plan: a JSON plan document holds one plan; move this plan to a \
                     file of its own before converting",
                );
            }
            Item::Policy(_) => {
                return fail(
                    span,
                    "a second policy: a JSON policy document holds one policy; move this policy \
                     to a file of its own before converting",
                );
            }
            _ => {}
        }
    }
    Ok(match first {
        Item::Plan(p) => Kind::Plan(p),
        Item::Policy(p) => Kind::Policy(p),
        _ => Kind::Tools(module.tools().collect()),
    })
}

// ---------------------------------------------------------------- JSON documents

/// A JSON value as written: numbers as exact text, objects in key order.
enum J {
    Null,
    Bool(bool),
    Num(String),
    Str(String),
    Arr(Vec<J>),
    Obj(Vec<(String, J)>),
}

fn str_j(s: &str) -> J {
    J::Str(s.to_string())
}

fn obj(members: Vec<(&str, J)>) -> J {
    J::Obj(
        members
            .into_iter()
            .map(|(k, v)| (k.to_string(), v))
            .collect(),
    )
}

/// Object members keyed by names that JSON requires to be distinct: Err at
/// the second of two equal names.
struct Keyed {
    members: Vec<(String, J)>,
    what: &'static str,
}

impl Keyed {
    fn new(what: &'static str) -> Keyed {
        Keyed {
            members: Vec::new(),
            what,
        }
    }

    fn push(&mut self, name: &Name, value: J) -> Result<()> {
        if self.members.iter().any(|(k, _)| *k == name.node) {
            return fail(
                name.span,
                format!(
                    "{} `{}` is given twice: JSON would need the key twice, which its readers \
                     reject",
                    self.what, name.node
                ),
            );
        }
        self.members.push((name.node.clone().to_string(), value));
        Ok(())
    }

    fn into_j(self) -> J {
        J::Obj(self.members)
    }
}

/// Written by serde_json's pretty printer (2-space indent, `"key": value`),
/// numbers as their exact text through a raw value.
impl serde::Serialize for J {
    fn serialize<S: serde::Serializer>(&self, ser: S) -> std::result::Result<S::Ok, S::Error> {
        use serde::ser::{Error as _, SerializeMap as _, SerializeSeq as _};
        match self {
            J::Null => ser.serialize_unit(),
            J::Bool(b) => ser.serialize_bool(*b),
            J::Num(n) => serde_json::value::RawValue::from_string(n.clone())
                .map_err(S::Error::custom)?
                .serialize(ser),
            J::Str(s) => ser.serialize_str(s),
            J::Arr(items) => {
                let mut seq = ser.serialize_seq(Some(items.len()))?;
                for item in items {
                    seq.serialize_element(item)?;
                }
                seq.end()
            }
            J::Obj(members) => {
                let mut map = ser.serialize_map(Some(members.len()))?;
                for (key, value) in members {
                    map.serialize_entry(key, value)?;
                }
                map.end()
            }
        }
    }
}

// ---------------------------------------------------------------- values as JSON

/// A number literal's text as a JSON number: the same text, without the
/// leading zeros JSON forbids; a decimal without a point gets `e0`, so
/// that it reads back as a decimal. Err for text that is not a number.
fn json_number(text: &str, decimal: bool, span: Span) -> Result<J> {
    let (sign, digits) = match text.strip_prefix('-') {
        Some(rest) => ("-", rest),
        None => ("", text),
    };
    let (int, frac) = match digits.split_once('.') {
        Some((i, f)) => (i, Some(f)),
        None => (digits, None),
    };
    let all_digits = |s: &str| !s.is_empty() && s.bytes().all(|b| b.is_ascii_digit());
    if !all_digits(int) || frac.is_some_and(|f| !all_digits(f)) || (frac.is_some() && !decimal) {
        return fail(
            span,
            format!("`{text}` is not a number the JSON form can write"),
        );
    }
    let trimmed = int.trim_start_matches('0');
    let int = if trimmed.is_empty() { "0" } else { trimmed };
    Ok(J::Num(match frac {
        Some(f) => format!("{sign}{int}.{f}"),
        None if decimal => format!("{sign}{int}e0"),
        None => format!("{sign}{int}"),
    }))
}

/// A literal where the JSON form reads plain values (probes, ceilings,
/// defaults, goal): strings as they are.
fn literal_json(lit: &Literal, span: Span) -> Result<J> {
    Ok(match lit {
        Literal::String(s) | Literal::Date(s) | Literal::Datetime(s) => str_j(s),
        Literal::Int(t) => json_number(t, false, span)?,
        Literal::Decimal(t) => json_number(t, true, span)?,
        Literal::Bool(b) => J::Bool(*b),
        Literal::Null => J::Null,
    })
}

/// Where a value stands: an argument, whose strings may interpolate and
/// which may name bindings, or a catalogue default, a plain value.
#[derive(Clone, Copy, PartialEq)]
enum Place {
    Arg,
    Default,
}

/// A value: in an argument, strings escape `${` and references are
/// `"${…}"`; in a default, strings are plain and references are refused.
fn value_json(e: &Expr, place: Place) -> Result<J> {
    let each = |e: &Expr| value_json(e, place);
    Ok(match &e.node {
        ExprKind::Literal(Literal::String(s)) if place == Place::Arg => J::Str(escape_interp(s)),
        ExprKind::Literal(l) => literal_json(l, e.span)?,
        ExprKind::List(items) => J::Arr(items.iter().map(each).collect::<Result<_>>()?),
        ExprKind::Record(entries) => {
            let mut o = Keyed::new("record entry");
            for entry in entries {
                o.push(&entry.name, each(&entry.value)?)?;
            }
            o.into_j()
        }
        ExprKind::Ref(r) if place == Place::Arg => J::Str(format!("${{{}}}", reference_path(r))),
        ExprKind::Interp(parts) if place == Place::Arg => J::Str(interp_json(parts, e.span)?),
        ExprKind::Ref(_) | ExprKind::Interp(_) => {
            return fail(
                e.span,
                "a default that names a binding cannot be written in a JSON catalogue, whose \
                 defaults are plain values",
            );
        }
        ExprKind::Error => return fail(e.span, unreadable("value")),
    })
}

/// An interpolated string as the JSON form writes it; Err where JSON would
/// read it otherwise.
fn interp_json(parts: &[InterpPart], span: Span) -> Result<String> {
    let mut out = String::new();
    let mut text = String::new();
    let mut refs = 0;
    for part in parts {
        match part {
            InterpPart::Text(t) => text.push_str(t),
            InterpPart::Ref(r) => {
                if text.ends_with('$') {
                    return fail(
                        r.span,
                        format!(
                            "a literal `$` right before the interpolation `${{{}}}` cannot be \
                             written in JSON, which reads `$${{` as an escaped `${{`; put a \
                             character between them, or move the `$` into the binding's value",
                            reference_path(&r.node)
                        ),
                    );
                }
                out.push_str(&escape_interp(&std::mem::take(&mut text)));
                let _ = write!(out, "${{{}}}", reference_path(&r.node));
                refs += 1;
            }
        }
    }
    out.push_str(&escape_interp(&text));
    if refs == 1
        && let [InterpPart::Ref(r)] = parts
    {
        let path = reference_path(&r.node);
        return fail(
            span,
            format!(
                "the string `\"${{{path}}}\"` is `{path}` written into a string, but JSON reads a \
                 whole string `\"${{{path}}}\"` as the reference itself, with the type of \
                 `{path}`: write `{path}` where its value is meant, or add text around the \
                 interpolation"
            ),
        );
    }
    Ok(out)
}

// ---------------------------------------------------------------- plans as JSON

fn plan_json(p: &PlanDecl) -> Result<J> {
    let mut o = vec![("name", str_j(&p.name.node))];
    if let Some(goal) = &p.goal {
        o.push(("goal", str_j(&goal.node)));
    }
    let mut budget = Vec::new();
    if let Some(r) = &p.replans {
        budget.push(("replans", J::Num(r.node.to_string())));
    }
    if let Some(m) = &p.max_steps {
        budget.push(("max_steps", J::Num(m.node.to_string())));
    }
    if !budget.is_empty() {
        o.push(("budget", obj(budget)));
    }
    let steps = p
        .steps
        .iter()
        .enumerate()
        .map(|(i, s)| step_json(i, s))
        .collect::<Result<_>>()?;
    o.push(("steps", J::Arr(steps)));
    Ok(obj(o))
}

/// A clause JSON can hold once, given a second time.
fn once<T>(slot: &mut Option<T>, value: T, span: Span, clause: &str) -> Result<()> {
    if slot.is_some() {
        return fail(
            span,
            format!(
                "a second `{clause}` clause: a JSON step holds one `{clause}`; keep one of them"
            ),
        );
    }
    *slot = Some(value);
    Ok(())
}

fn step_json(index: usize, s: &Step) -> Result<J> {
    let mut args = Keyed::new("argument");
    for a in &s.args {
        args.push(&a.name, value_json(&a.value, Place::Arg)?)?;
    }
    let mut pres = Vec::new();
    let mut posts = Vec::new();
    let mut binds = Keyed::new("binding");
    let (mut on_unmet, mut retry) = (None, None);
    let mut after = Vec::new();
    for c in &s.clauses {
        match c {
            Clause::Pre(p) => pres.push(probe_json(p)?),
            Clause::Post(p) => posts.push(probe_json(p)?),
            Clause::Bind { name, path, .. } => binds.push(name, J::Str(path.to_string()))?,
            Clause::OnUnmet(o) => once(&mut on_unmet, o.node.as_str(), o.span, "on_unmet")?,
            Clause::Retry(r) => once(&mut retry, r.node, r.span, "retry")?,
            Clause::After { steps, .. } => after.extend(steps.iter().map(|n| str_j(&n.node))),
            Clause::Error(span) => return fail(*span, unreadable("clause")),
        }
    }
    let mut o = vec![
        ("n", J::Num(index.to_string())),
        ("name", str_j(&s.name.node)),
        ("tool", str_j(&s.tool.node)),
        ("args", args.into_j()),
    ];
    let mut clauses: Vec<(&str, J)> = Vec::new();
    for (key, mut probes) in [("pre", pres), ("post", posts)] {
        if probes.len() == 1 {
            clauses.extend(probes.pop().map(|p| (key, p)));
        } else if !probes.is_empty() {
            clauses.push((key, J::Arr(probes)));
        }
    }
    if !binds.members.is_empty() {
        clauses.push(("binds", binds.into_j()));
    }
    if let Some(u) = on_unmet {
        clauses.push(("on_unmet", str_j(u)));
    }
    if let Some(r) = retry {
        clauses.push(("retry", J::Num(r.to_string())));
    }
    if !after.is_empty() {
        clauses.push(("after", J::Arr(after)));
    }
    // The keys in the order of their first clauses: the JSON reader makes
    // clauses in the order of the keys, so a step whose clauses of a kind
    // are together comes back as it was written.
    clauses.sort_by_key(|(key, _)| {
        s.clauses
            .iter()
            .position(|c| clause_key(c) == Some(key))
            .unwrap_or(usize::MAX)
    });
    o.extend(clauses);
    Ok(obj(o))
}

/// The key of a JSON step that holds a clause.
fn clause_key(c: &Clause) -> Option<&'static str> {
    match c {
        Clause::Pre(_) => Some("pre"),
        Clause::Post(_) => Some("post"),
        Clause::Bind { .. } => Some("binds"),
        Clause::OnUnmet(_) => Some("on_unmet"),
        Clause::Retry(_) => Some("retry"),
        Clause::After { steps, .. } if !steps.is_empty() => Some("after"),
        Clause::After { .. } | Clause::Error(_) => None,
    }
}

fn probe_json(p: &Probe) -> Result<J> {
    let path_j = |path: &Path| J::Str(path.to_string());
    Ok(match &p.kind {
        ProbeKind::Len { path, op, value } => count_probe(Some(path_j(path)), op, value)?,
        ProbeKind::CountDefault { op, value } => count_probe(None, op, value)?,
        ProbeKind::Compare { path, op, value } if op.node == CmpOp::Eq => obj(vec![
            ("probe", str_j(pk::FIELD_EQUALS)),
            ("path", path_j(path)),
            ("value", literal_json(&value.node, value.span)?),
        ]),
        ProbeKind::Compare { path, op, value } => obj(vec![
            ("probe", str_j(pk::FIELD_COMPARE)),
            ("path", path_j(path)),
            ("op", str_j(op.node.as_str())),
            ("value", literal_json(&value.node, value.span)?),
        ]),
        ProbeKind::In {
            path,
            negated,
            values,
        } => obj(vec![
            (
                "probe",
                str_j(if *negated {
                    pk::FIELD_NOT_IN
                } else {
                    pk::FIELD_IN
                }),
            ),
            ("path", path_j(path)),
            (
                "values",
                J::Arr(
                    values
                        .iter()
                        .map(|v| literal_json(&v.node, v.span))
                        .collect::<Result<_>>()?,
                ),
            ),
        ]),
        ProbeKind::Contains { path, value } => obj(vec![
            ("probe", str_j(pk::CONTAINS)),
            ("path", path_j(path)),
            ("value", literal_json(&value.node, value.span)?),
        ]),
        ProbeKind::KeysContain { path, value } => obj(vec![
            ("probe", str_j(pk::KEYS_CONTAIN)),
            ("path", path_j(path)),
            ("value", literal_json(&value.node, value.span)?),
        ]),
        ProbeKind::Exists { path } => obj(vec![
            ("probe", str_j(pk::FIELD_EXISTS)),
            ("path", path_j(path)),
        ]),
        ProbeKind::Error => return fail(p.span, unreadable("probe")),
    })
}

/// A `result_count` probe: `equals` for `==`, else `op` and `value`.
fn count_probe(path: Option<J>, op: &Spanned<CmpOp>, value: &Spanned<Literal>) -> Result<J> {
    let count = match &value.node {
        Literal::Int(t) => match json_number(t, false, value.span)? {
            J::Num(n) if n.parse::<u64>().is_ok() => Some(J::Num(n)),
            _ => None,
        },
        _ => None,
    };
    let Some(count) = count else {
        return fail(
            value.span,
            format!(
                "`len` compared with `{}` cannot be written as a JSON `result_count` probe, \
                 which compares with a count: a whole number from 0",
                value.node.display()
            ),
        );
    };
    let mut o = vec![("probe", str_j(pk::RESULT_COUNT))];
    o.extend(path.map(|p| ("path", p)));
    if op.node == CmpOp::Eq {
        o.push(("equals", count));
    } else {
        o.push(("op", str_j(op.node.as_str())));
        o.push(("value", count));
    }
    Ok(obj(o))
}

// ---------------------------------------------------------------- catalogues as JSON

fn catalog_json(tools: &[&ToolDecl]) -> Result<J> {
    let tools = tools.iter().map(|t| tool_json(t)).collect::<Result<_>>()?;
    Ok(obj(vec![("tools", J::Arr(tools))]))
}

fn tool_json(t: &ToolDecl) -> Result<J> {
    let mut o = vec![("name", str_j(&t.name.node))];
    if !t.doc.is_empty() {
        o.push(("description", J::Str(t.doc.text())));
    }
    o.push(("inputSchema", params_schema(&t.params)?));
    o.push(("outputSchema", J::Obj(schema(&t.result)?)));
    // The hints the declaration states, and no others: an unstated one is
    // the policy's to state.
    let mut hints = Vec::new();
    if t.effect.is_some() {
        hints.push(("readOnlyHint", J::Bool(effect(t) == Effect::Read)));
    }
    if let Some(i) = &t.idempotent {
        hints.push(("idempotentHint", J::Bool(i.node)));
    }
    hints.push(("openWorldHint", J::Bool(t.untrusted.is_some())));
    o.push(("annotations", obj(hints)));
    Ok(obj(o))
}

/// A property's schema: its description, then its type.
fn property(doc: &Doc, ty: &Type) -> Result<Vec<(String, J)>> {
    let mut s = Vec::new();
    if !doc.is_empty() {
        s.push(("description".to_string(), J::Str(doc.text())));
    }
    s.extend(schema(ty)?);
    Ok(s)
}

/// The input schema: an object schema, a parameter required unless it has
/// a default or its type may be left out (`T?`, `null`: the catalogue's
/// rule, [`crate::catalog::Ty::may_be_left_out`]).
fn params_schema(params: &[Param]) -> Result<J> {
    let mut props = Keyed::new("parameter");
    let mut required = Vec::new();
    for p in params {
        let mut s = property(&p.doc, &p.ty)?;
        if let Some(d) = &p.default {
            s.push(("default".to_string(), value_json(d, Place::Default)?));
        } else if !crate::catalog::Ty::from_ast(&p.ty).may_be_left_out() {
            required.push(str_j(&p.name.node));
        }
        props.push(&p.name, J::Obj(s))?;
    }
    Ok(obj(vec![
        ("type", str_j("object")),
        ("properties", props.into_j()),
        ("required", J::Arr(required)),
    ]))
}

/// A type as JSON Schema members, in the subset the catalogue reader maps
/// back onto the same type.
fn schema(t: &Type) -> Result<Vec<(String, J)>> {
    let ty = |name: &str| vec![("type".to_string(), str_j(name))];
    Ok(match &t.node {
        TypeKind::Prim(p) => match p {
            Prim::String => ty("string"),
            Prim::Int => ty("integer"),
            Prim::Decimal => ty("number"),
            Prim::Bool => ty("boolean"),
            Prim::Null => ty("null"),
            Prim::Date | Prim::Datetime => {
                let mut s = ty("string");
                let format = if *p == Prim::Date {
                    "date"
                } else {
                    "date-time"
                };
                s.push(("format".to_string(), str_j(format)));
                s
            }
            // `{}`: no constraint.
            Prim::Any => Vec::new(),
        },
        TypeKind::List(inner) => {
            let mut s = ty("array");
            s.push(("items".to_string(), J::Obj(schema(inner)?)));
            s
        }
        TypeKind::Map(inner) => {
            let mut s = ty("object");
            s.push(("additionalProperties".to_string(), J::Obj(schema(inner)?)));
            s
        }
        TypeKind::Record(fields) => {
            let mut props = Keyed::new("record field");
            let mut required = Vec::new();
            for f in fields {
                props.push(&f.name, J::Obj(property(&f.doc, &f.ty)?))?;
                if !f.optional {
                    required.push(str_j(&f.name.node));
                }
            }
            let mut s = ty("object");
            s.push(("properties".to_string(), props.into_j()));
            s.push(("required".to_string(), J::Arr(required)));
            s
        }
        TypeKind::Enum(values) => {
            let mut s = ty("string");
            s.push((
                "enum".to_string(),
                J::Arr(values.iter().map(|v| str_j(&v.node)).collect()),
            ));
            s
        }
        TypeKind::Literal(lit) => {
            vec![("enum".to_string(), J::Arr(vec![literal_json(lit, t.span)?]))]
        }
        TypeKind::Union(members) => match literal_members(members, t.span)? {
            // A union of literals is one `enum`; any other union is `anyOf`.
            Some(values) => vec![("enum".to_string(), J::Arr(values))],
            None => {
                let alts: Result<Vec<J>> = members.iter().map(|m| schema(m).map(J::Obj)).collect();
                vec![("anyOf".to_string(), J::Arr(alts?))]
            }
        },
        TypeKind::Optional(inner) => {
            // `T?` is `"type": [T, "null"]` (a union adds `null` to its
            // `enum` or its `anyOf`); `any?` and `null?` are `any` and
            // `null` already (the catalogue model says so too).
            let mut s = schema(inner)?;
            for (key, value) in &mut s {
                match (key.as_str(), &mut *value) {
                    ("type", J::Str(name)) if name != "null" => {
                        let name = std::mem::take(name);
                        *value = J::Arr(vec![J::Str(name), str_j("null")]);
                    }
                    ("enum", J::Arr(values))
                        if matches!(inner.node, TypeKind::Union(_) | TypeKind::Literal(_)) =>
                    {
                        values.push(J::Null);
                    }
                    ("anyOf", J::Arr(alts)) => {
                        alts.push(J::Obj(ty("null")));
                    }
                    _ => {}
                }
            }
            s
        }
        TypeKind::Error => return fail(t.span, unreadable("type")),
    })
}

/// The values of a union whose members are all literals (strings,
/// numbers, booleans), as JSON; `None` for any other union.
fn literal_members(members: &[Type], span: Span) -> Result<Option<Vec<J>>> {
    let mut out = Vec::new();
    for m in members {
        match &m.node {
            TypeKind::Enum(values) => out.extend(values.iter().map(|v| str_j(&v.node))),
            TypeKind::Literal(lit) => out.push(literal_json(lit, span)?),
            _ => return Ok(None),
        }
    }
    Ok(Some(out))
}

// ---------------------------------------------------------------- policies as JSON

fn policy_json(p: &PolicyDecl) -> Result<J> {
    let mut o = vec![("name", str_j(&p.name.node))];
    if let Some(actor) = &p.actor {
        o.push(("actor", obj(vec![("scopes", scopes_json(&actor.node)?)])));
    }
    let mut tools = Keyed::new("policy rule for tool");
    for r in &p.rules {
        tools.push(&r.tool, rule_json(r)?)?;
    }
    o.push(("tools", tools.into_j()));
    if let Some(m) = &p.max_steps {
        o.push(("max_steps", J::Num(m.node.to_string())));
    }
    if let Some(m) = &p.replans {
        o.push(("replans", J::Num(m.node.to_string())));
    }
    Ok(obj(o))
}

fn scopes_json(scopes: &[Name]) -> Result<J> {
    let mut out = Vec::with_capacity(scopes.len());
    for s in scopes {
        if !is_scope(&s.node) {
            return fail(
                s.span,
                format!(
                    "scope `{}` cannot be written in a JSON policy, whose scopes are an \
                     identifier and `:`-separated parts of letters, digits, `_`, `*`, `-` and `.`",
                    s.node
                ),
            );
        }
        out.push(str_j(&s.node));
    }
    Ok(J::Arr(out))
}

/// The rules of a `where` list beyond ceilings, each kind under its key
/// (`docs/json.md`), in the order of each kind's first rule.
fn arg_rules_json(r: &PolicyRule, o: &mut Vec<(&'static str, J)>) -> Result<()> {
    let mut groups: Vec<(&'static str, Keyed)> = Vec::new();
    let mut trusted: Option<Vec<J>> = None;
    let mut order: Vec<&'static str> = Vec::new();
    for a in &r.arg_rules {
        let key = match &a.kind {
            ArgRuleKind::In { negated: false, .. } => "in",
            ArgRuleKind::In { negated: true, .. } => "not_in",
            ArgRuleKind::Matches(_) => "matches",
            ArgRuleKind::Trusted => "trusted",
            ArgRuleKind::Total { .. } => "total",
        };
        if !order.contains(&key) {
            order.push(key);
        }
        let value = match &a.kind {
            ArgRuleKind::In { values, .. } => {
                let mut items = Vec::with_capacity(values.len());
                for v in values {
                    items.push(literal_json(&v.node, v.span)?);
                }
                J::Arr(items)
            }
            ArgRuleKind::Matches(p) => str_j(&p.node),
            ArgRuleKind::Trusted => {
                let list = trusted.get_or_insert_with(Vec::new);
                list.push(str_j(&a.arg.node));
                continue;
            }
            ArgRuleKind::Total { max, per } => obj(vec![
                ("max", literal_json(&max.node, max.span)?),
                ("per", per.as_ref().map_or(J::Null, |p| str_j(&p.node))),
            ]),
        };
        match groups.iter_mut().find(|(k, _)| *k == key) {
            Some((_, g)) => g.push(&a.arg, value)?,
            None => {
                let mut g = Keyed::new("rule over");
                g.push(&a.arg, value)?;
                groups.push((key, g));
            }
        }
    }
    for key in order {
        if key == "trusted" {
            if let Some(list) = trusted.take() {
                o.push(("trusted", J::Arr(list)));
            }
        } else if let Some(at) = groups.iter().position(|(k, _)| *k == key) {
            let (k, g) = groups.swap_remove(at);
            o.push((k, g.into_j()));
        }
    }
    if let Some(n) = &r.calls {
        o.push(("calls", J::Num(n.node.to_string())));
    }
    Ok(())
}

fn rule_json(r: &PolicyRule) -> Result<J> {
    let mut o = vec![("scopes", scopes_json(&r.requires)?)];
    let (mut max, mut min) = (Keyed::new("ceiling over"), Keyed::new("ceiling over"));
    for c in &r.ceilings {
        let limit = literal_json(&c.limit.node, c.limit.span)?;
        match c.op.node {
            CmpOp::Le => max.push(&c.arg, limit)?,
            CmpOp::Ge => min.push(&c.arg, limit)?,
            other => {
                return fail(
                    c.op.span,
                    format!(
                        "the ceiling `{} {} {}` cannot be written in a JSON policy, which has \
                         `max` (`<=`) and `min` (`>=`) ceilings only",
                        c.arg.node,
                        other.as_str(),
                        c.limit.node.display()
                    ),
                );
            }
        }
    }
    let (max, min) = (
        (!max.members.is_empty()).then(|| ("max", max.into_j())),
        (!min.members.is_empty()).then(|| ("min", min.into_j())),
    );
    // `max` and `min` in the order of their first ceilings.
    if r.ceilings.first().is_some_and(|c| c.op.node == CmpOp::Ge) {
        o.extend(min.into_iter().chain(max));
    } else {
        o.extend(max.into_iter().chain(min));
    }
    arg_rules_json(r, &mut o)?;
    if r.approval.is_some() {
        o.push(("approval", str_j("human")));
    }
    if r.untrusted.is_some() {
        o.push(("untrusted", J::Bool(true)));
    } else if r.trusted.is_some() {
        o.push(("untrusted", J::Bool(false)));
    }
    if let Some(e) = &r.effect {
        o.push(("effect", str_j(e.node.as_str())));
    }
    if let Some(i) = &r.idempotent {
        o.push(("idempotent", J::Bool(i.node)));
    }
    Ok(obj(o))
}
