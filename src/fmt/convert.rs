//! Conversion between the text and JSON forms (`planc fmt --to json|plan`):
//! a syntax tree, read from either form, written in the other.
//!
//! DESIGN.md §3 and §7: the conversion is lossless "for everything the JSON
//! form can express". What that means here:
//!
//! - **One kind per JSON document.** The JSON forms keep a plan (the JSON
//!   plan shape), a catalogue (an MCP `tools/list` result) and a policy (the
//!   JSON policy shape) apart, and a JSON plan or policy holds one. A `.plan`
//!   file that mixes kinds, or holds two plans or two policies, is refused
//!   at the first declaration that does not fit, rather than guessed at.
//! - **Refused, never changed.** Whatever the JSON form would read back with
//!   another meaning is a [`ConvertError`] naming the construct and its span:
//!   a string that is exactly one interpolation (`"${x}"` is a string in the
//!   text form, the reference itself in JSON), a literal `$` right before an
//!   interpolation (JSON reads `$${` as an escaped `${`), a ceiling other than
//!   `<=` (`max`) or `>=` (`min`), a `len` probe not compared with a count, a
//!   scope the JSON policy reader rejects, a step with two `on_unmet` or
//!   `retry` clauses, names given twice where JSON would need a key twice
//!   (arguments, record entries, binds, parameters, fields, policy rules,
//!   ceilings), and any part the front end could not read.
//! - **Dropped, by design.** Comments are not in the syntax tree. Doc
//!   comments of plans, steps and policies have no place in the JSON plan
//!   and policy shapes, and carry no meaning (the IR holds none), so they
//!   are dropped; the doc comments of tools, parameters and record fields
//!   become `description`s, which convert back.
//! - **Values.** Numbers keep their text, never passing through binary
//!   floating point; only leading zeros (`007`, valid in the text form, not
//!   in JSON) are dropped, which keeps the value. A JSON decimal written with
//!   an exponent reads as a decimal with no point (`1.5e3` is `1500`), which
//!   the text form would read as an int: it goes back to JSON as `1500e0`,
//!   and is refused by [`to_text`]. Dates and datetimes become JSON strings,
//!   which the checker reads against the type expected, as it does for every
//!   JSON plan; where that type is `any`, such a value stays a string (the
//!   JSON form has no date values).
//! - **Grouping.** A JSON step holds its probes in one `post`, its binds in
//!   one `binds` and its `after` steps in one list; a JSON policy rule holds
//!   its `<=` ceilings in `max` and its `>=` ones in `min` (written in the
//!   order their first ceiling comes), so ceilings interleaving the two come
//!   back grouped, which reorders the guards of the IR and nothing else.
//! - **Into text.** Names the text form cannot spell (a tool `get-weather`,
//!   an argument or record key that is not an identifier, a policy rule for
//!   a tool named `actor` or `max_steps`, a bare reference to a binding named
//!   `true`, `false` or `null`) are refused, and so is a `result_count`
//!   probe without `path` (the text form has no `len` without a path). JSON
//!   steps get their names (`step_N` for a numbered step); `after` by number
//!   is already a name in the tree.
//!
//! Recursion over expressions and types is bounded: both front ends cap
//! nesting at [`crate::limits::MAX_DEPTH`] levels before building the tree,
//! and the JSON document built here nests at most a few levels per level of
//! the tree.

use std::fmt::Write as _;

use crate::source::{Span, Spanned};
use crate::syntax::ast::{
    Clause, CmpOp, Doc, Effect, Expr, ExprKind, InterpPart, Item, Literal, Module, Name, Param,
    Path, PlanDecl, PolicyDecl, PolicyRule, Prim, Probe, ProbeKind, Reference, Step, ToolDecl,
    Type, TypeKind,
};
use crate::syntax::json_policy::is_scope;
use crate::syntax::literal::is_ident;

/// Why a module cannot be written in the other form: the construct, at its
/// span.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ConvertError {
    pub span: Span,
    pub message: String,
}

impl std::fmt::Display for ConvertError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.message)
    }
}

impl std::error::Error for ConvertError {}

type Result<T> = std::result::Result<T, ConvertError>;

fn fail<T>(span: Span, message: impl Into<String>) -> Result<T> {
    Err(ConvertError {
        span,
        message: message.into(),
    })
}

/// A module (as read from either form) written in the JSON form: a plan as
/// the JSON plan shape, a catalogue (tool declarations) as an MCP
/// `tools/list` result with JSON Schema types, a policy as the JSON policy
/// shape; pretty-printed with a 2-space indent, keys in the order of the
/// design's examples. Err when the module holds something the JSON form
/// cannot express, or mixes kinds (see the module's documentation).
pub fn to_json(module: &Module) -> Result<String> {
    let doc = match kind(module)? {
        Kind::Plan(p) => plan_json(p)?,
        Kind::Tools(tools) => catalog_json(&tools)?,
        Kind::Policy(p) => policy_json(p)?,
    };
    let mut out = String::new();
    write_json(&doc, 0, &mut out);
    out.push('\n');
    Ok(out)
}

/// A module written in the text form: valid planc syntax, 4-space indent,
/// one step, clause and policy rule per line. Err when it holds what the
/// text form cannot spell (see the module's documentation).
pub fn to_text(module: &Module) -> Result<String> {
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

fn unreadable(what: &str) -> String {
    format!("this {what} could not be read: fix its errors before converting the file")
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
        self.members.push((name.node.clone(), value));
        Ok(())
    }

    fn into_j(self) -> J {
        J::Obj(self.members)
    }
}

fn write_json(v: &J, indent: usize, out: &mut String) {
    let pad = |out: &mut String, n: usize| out.extend(std::iter::repeat_n(' ', n));
    match v {
        J::Null => out.push_str("null"),
        J::Bool(b) => out.push_str(if *b { "true" } else { "false" }),
        J::Num(n) => out.push_str(n),
        J::Str(s) => json_string(s, out),
        J::Arr(items) if items.is_empty() => out.push_str("[]"),
        J::Obj(members) if members.is_empty() => out.push_str("{}"),
        J::Arr(items) => {
            out.push('[');
            for (i, item) in items.iter().enumerate() {
                out.push_str(if i == 0 { "\n" } else { ",\n" });
                pad(out, indent + 2);
                write_json(item, indent + 2, out);
            }
            out.push('\n');
            pad(out, indent);
            out.push(']');
        }
        J::Obj(members) => {
            out.push('{');
            for (i, (key, value)) in members.iter().enumerate() {
                out.push_str(if i == 0 { "\n" } else { ",\n" });
                pad(out, indent + 2);
                json_string(key, out);
                out.push_str(": ");
                write_json(value, indent + 2, out);
            }
            out.push('\n');
            pad(out, indent);
            out.push('}');
        }
    }
}

/// A JSON string literal (RFC 8259): quotes, backslashes and control
/// characters escaped.
fn json_string(s: &str, out: &mut String) {
    out.push('"');
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            c if u32::from(c) < 0x20 || c == '\u{7f}' => {
                let _ = write!(out, "\\u{:04x}", u32::from(c));
            }
            c => out.push(c),
        }
    }
    out.push('"');
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

/// Text in an argument string: `${` escaped as `$${`, which the JSON plan
/// reader turns back into `${`.
fn escape_interp(s: &str) -> String {
    s.replace("${", "$${")
}

fn reference_path(r: &Reference) -> String {
    let mut s = r.name.node.clone();
    for m in &r.members {
        s.push('.');
        s.push_str(&m.node);
    }
    s
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
    let mut posts = Vec::new();
    let mut binds = Keyed::new("binding");
    let (mut on_unmet, mut retry) = (None, None);
    let mut after = Vec::new();
    for c in &s.clauses {
        match c {
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
    if posts.len() == 1 {
        o.extend(posts.pop().map(|p| ("post", p)));
    } else if !posts.is_empty() {
        o.push(("post", J::Arr(posts)));
    }
    if !binds.members.is_empty() {
        o.push(("binds", binds.into_j()));
    }
    if let Some(u) = on_unmet {
        o.push(("on_unmet", str_j(u)));
    }
    if let Some(r) = retry {
        o.push(("retry", J::Num(r.to_string())));
    }
    if !after.is_empty() {
        o.push(("after", J::Arr(after)));
    }
    Ok(obj(o))
}

fn probe_json(p: &Probe) -> Result<J> {
    let path_j = |path: &Path| J::Str(path.to_string());
    Ok(match &p.kind {
        ProbeKind::Len { path, op, value } => count_probe(Some(path_j(path)), op, value)?,
        ProbeKind::CountDefault { op, value } => count_probe(None, op, value)?,
        ProbeKind::Compare { path, op, value } if op.node == CmpOp::Eq => obj(vec![
            ("probe", str_j("field_equals")),
            ("path", path_j(path)),
            ("value", literal_json(&value.node, value.span)?),
        ]),
        ProbeKind::Compare { path, op, value } => obj(vec![
            ("probe", str_j("field_compare")),
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
                str_j(if *negated { "field_not_in" } else { "field_in" }),
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
        ProbeKind::Exists { path } => obj(vec![
            ("probe", str_j("field_exists")),
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
    let mut o = vec![("probe", str_j("result_count"))];
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

/// A tool's effect, which the parser may have found missing.
fn effect(t: &ToolDecl) -> Result<Effect> {
    match &t.effect {
        Some(e) => Ok(e.node),
        None => fail(
            t.span,
            format!(
                "tool `{}` declares no effect, `read` or `write`",
                t.name.node
            ),
        ),
    }
}

fn tool_json(t: &ToolDecl) -> Result<J> {
    let effect = effect(t)?;
    let mut o = vec![("name", str_j(&t.name.node))];
    if !t.doc.is_empty() {
        o.push(("description", J::Str(t.doc.text())));
    }
    o.push(("inputSchema", params_schema(&t.params)?));
    o.push(("outputSchema", J::Obj(schema(&t.result)?)));
    o.push((
        "annotations",
        obj(vec![
            ("readOnlyHint", J::Bool(effect == Effect::Read)),
            ("idempotentHint", J::Bool(t.idempotent.is_some())),
            ("openWorldHint", J::Bool(t.untrusted.is_some())),
        ]),
    ));
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
        TypeKind::Optional(inner) => {
            // `T?` is `"type": [T, "null"]`; `any?` and `null?` are `any`
            // and `null` already (the catalogue model says so too).
            let mut s = schema(inner)?;
            for (key, value) in &mut s {
                if key == "type"
                    && let J::Str(name) = value
                    && name != "null"
                {
                    *value = J::Arr(vec![J::Str(std::mem::take(name)), str_j("null")]);
                }
            }
            s
        }
        TypeKind::Error => return fail(t.span, unreadable("type")),
    })
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
    if r.approval.is_some() {
        o.push(("approval", str_j("human")));
    }
    if r.untrusted.is_some() {
        o.push(("untrusted", J::Bool(true)));
    }
    Ok(obj(o))
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
    if name.node.split('.').all(is_ident) {
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

/// A string's text between quotes, escaped for the text form: every
/// character it has an escape for, `\$` before `{` (so that no `${` is an
/// interpolation), and other control characters as `\u{…}`.
fn escape_text(s: &str, out: &mut String) {
    let mut chars = s.chars().peekable();
    while let Some(c) = chars.next() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\t' => out.push_str("\\t"),
            '\r' => out.push_str("\\r"),
            '\0' => out.push_str("\\0"),
            '$' if chars.peek() == Some(&'{') => out.push_str("\\$"),
            c if c.is_control() || matches!(c, '\u{2028}' | '\u{2029}') => {
                let _ = write!(out, "\\u{{{:x}}}", u32::from(c));
            }
            c => out.push(c),
        }
    }
}

fn string_text(s: &str, out: &mut String) {
    out.push('"');
    escape_text(s, out);
    out.push('"');
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
    let wide = matches!(&t.result.node, TypeKind::Record(f) if f.len() > 1);
    type_text(&t.result, 0, wide, out)?;
    let effect = effect(t)?;
    let _ = write!(out, " {}", effect.as_str());
    if t.idempotent.is_some() {
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
    let mut parts = s.node.split(':');
    let ok = parts.next().is_some_and(is_ident)
        && parts.all(|p| {
            !p.is_empty()
                && p.chars()
                    .all(|c| c.is_ascii_alphanumeric() || matches!(c, '_' | '*' | '-' | '.' | '+'))
        });
    if ok {
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
    if (p.actor.is_some() || p.max_steps.is_some()) && !p.rules.is_empty() {
        out.push('\n');
    }
    for r in &p.rules {
        let tool = tool_name(&r.tool)?;
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
        if !r.requires.is_empty() {
            out.push_str(" requires ");
            scope_list(&r.requires, out)?;
        }
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
        if r.untrusted.is_some() {
            out.push_str(" untrusted");
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
