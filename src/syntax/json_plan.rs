//! The JSON form of a plan (`docs/json.md`), read into the same syntax tree
//! as the text form: one [`ast::PlanDecl`] in an [`ast::Module`], so every
//! check applies unchanged.
//!
//! ```json
//! {"name": "downgrade", "goal": "…", "budget": {"replans": 2, "max_steps": 10},
//!  "steps": [{"n": 0, "tool": "customer.resolve", "args": {"email": "…"},
//!             "post": {"probe": "result_count", "path": "$.results", "equals": 1},
//!             "binds": {"account_id": "$.results[0].id"}, "on_unmet": "replan",
//!             "retry": 1, "after": [2, "confirm"]}]}
//! ```
//!
//! Decisions:
//! - A step's name is its `name` when present, else `step_N` from its `n`
//!   (or a numeric `id`; a string `id` is a name), else `step_I` from its
//!   index in `steps`. A number in `after` names the step with that number.
//! - Names (plan, step, binding, reference) must be identifiers of the plan
//!   language, so that the text and JSON forms convert into each other.
//! - A whole string `"${name}"` or `"${name.member}"` is a reference, a
//!   string with `${…}` among other text an interpolation; `$${` is a
//!   literal `${`. Probe values, ceilings and the goal are plain text.
//! - Strings that look like dates stay strings: the checker converts them
//!   against the parameter's type. A number with a fraction or an exponent
//!   is a decimal; an exponent is written out exactly (`1.5e3` is `1500`),
//!   never through binary floating point.
//! - Any object with a duplicate key is E0004, and the later member is
//!   ignored. Unknown keys are E0004 with the nearest valid key suggested.
//! - Reading never stops at an error: a step with a problem is reported and
//!   read as far as it goes; its other clauses and the other steps are kept.
//!   A step without a readable `tool` keeps an empty tool name.

use crate::FastMap;

use super::ast::{
    Arg, Clause, CmpOp, Doc, Expr, ExprKind, InterpPart, Item, Literal, Module, Name, OnUnmet,
    Path, PathSeg, PlanDecl, Probe, ProbeKind, RecordEntry, Reference, Step,
};
use super::json::{Json, Value};
use super::json_reader::{Fields, Reader, is_ident};
use crate::diagnostics::{Code, Diagnostic};
use crate::limits;
use crate::source::{Span, Spanned};
use crate::suggest;

pub(crate) const PLAN_KEYS: &[&str] = &["name", "goal", "steps", "budget"];
pub(crate) const BUDGET_KEYS: &[&str] = &["replans", "max_steps"];
pub(crate) const STEP_KEYS: &[&str] = &[
    "n", "id", "name", "tool", "args", "pre", "post", "binds", "on_unmet", "retry", "after",
];
pub(crate) const PROBE_KINDS: &[&str] = &[
    "result_count",
    "field_equals",
    "field_in",
    "field_not_in",
    "field_exists",
    "field_compare",
    "contains",
];
pub(crate) const ON_UNMET: &[&str] = &["replan", "halt", "escalate"];
/// The keys of one element of `binds` written as an array (the form a
/// closed-object schema can describe): `{"name": …, "path": …}`.
pub(crate) const BIND_KEYS: &[&str] = &["name", "path"];

/// Reads a parsed JSON plan document. Never fails: problems are reported and
/// the rest is read.
pub fn read_plan(text: &str, root: &Json<'_>) -> (Module, Vec<Diagnostic>) {
    let mut r = Reader::new(text);
    let plan = plan(&mut r, root);
    let module = Module {
        items: match plan {
            Some(p) => vec![Item::Plan(p)],
            None => vec![Item::Error(root.span)],
        },
    };
    (module, r.diags)
}

fn first_byte(span: Span) -> Span {
    Span {
        end: span.start.saturating_add(1).min(span.end),
        ..span
    }
}

/// An optional plan key given as `null` is the key left out: a strict
/// structured-output schema, where every key must be present, writes an
/// absent budget that way.
fn given<'v, 'a>(f: &Fields<'v, 'a>, key: &str) -> Option<&'v Json<'a>> {
    f.get(key).filter(|v| !matches!(v.value, Value::Null))
}

fn plan(r: &mut Reader<'_>, root: &Json<'_>) -> Option<PlanDecl> {
    let f = r.fields(root, "a plan", PLAN_KEYS)?;
    let name = match given(&f, "name") {
        Some(v) => ident(r, "name", v, "a plan name"),
        None => None,
    }
    .unwrap_or_else(|| Spanned::new("plan".to_string(), first_byte(root.span)));
    let goal = f.get("goal").and_then(|v| {
        r.string("goal", v)
            .map(|s| Spanned::new(s.to_string(), v.span))
    });
    let (mut replans, mut max_steps) = (None, None);
    if let Some(b) = given(&f, "budget")
        && let Some(bf) = r.fields(b, "`budget`", BUDGET_KEYS)
    {
        replans = given(&bf, "replans")
            .and_then(|v| r.count("replans", v).map(|n| Spanned::new(n, v.span)));
        max_steps = given(&bf, "max_steps")
            .and_then(|v| r.count("max_steps", v).map(|n| Spanned::new(n, v.span)));
    }
    let mut steps = Vec::new();
    match f.get("steps") {
        None => r.missing_key(root.span, "steps", "a plan"),
        Some(v) => match v.as_array() {
            None => r.ill_typed("`steps`", v, "an array of steps"),
            Some(items) => {
                if items.len() > limits::MAX_STEPS
                    && let Some(extra) = items.get(limits::MAX_STEPS)
                {
                    r.report(Diagnostic::new(
                        Code::E0003,
                        extra.span,
                        format!(
                            "plan of {} steps, over the limit of {} steps",
                            items.len(),
                            limits::MAX_STEPS
                        ),
                    ));
                }
                let items = items.get(..limits::MAX_STEPS).unwrap_or(items);
                let StepNames { names, by_number } = step_names(items);
                r.step_names = names;
                steps.reserve_exact(items.len());
                for (i, item) in items.iter().enumerate() {
                    r.step = Some(i);
                    if let Some(s) = step(r, item, &by_number) {
                        steps.push(s);
                    }
                    r.step = None;
                }
            }
        },
    }
    Some(PlanDecl {
        doc: Doc::default(),
        name,
        goal,
        replans,
        max_steps,
        steps,
        span: root.span,
    })
}

/// The name of every step, and which step each number names, read before
/// the steps so that `after` can name a later step by number.
struct StepNames {
    names: Vec<String>,
    by_number: FastMap<u64, usize>,
}

fn step_names(items: &[Json<'_>]) -> StepNames {
    let mut names = Vec::with_capacity(items.len());
    let mut by_number = FastMap::default();
    for (i, item) in items.iter().enumerate() {
        let number = ["n", "id"]
            .iter()
            .find_map(|k| match item.get(k).map(|v| &v.value) {
                Some(Value::Number(n)) => n.parse::<u64>().ok(),
                _ => None,
            });
        let named = ["name", "id"]
            .iter()
            .find_map(|k| item.get(k).and_then(Json::as_str).filter(|s| is_ident(s)));
        let number = number.or_else(|| {
            let explicit = ["n", "id"].iter().any(|k| item.get(k).is_some());
            (!explicit).then_some(i as u64)
        });
        if let Some(n) = number {
            by_number.entry(n).or_insert(i);
        }
        names.push(match (named, number) {
            (Some(s), _) => s.to_string(),
            (None, Some(n)) => format!("step_{n}"),
            (None, None) => format!("step_{i}"),
        });
    }
    StepNames { names, by_number }
}

/// A string value that must be an identifier, as a name spanning its text.
fn ident(r: &mut Reader<'_>, key: &str, v: &Json<'_>, what: &str) -> Option<Name> {
    let s = r.string(key, v)?;
    if !is_ident(s) {
        r.report(
            Diagnostic::new(
                Code::E0004,
                v.span,
                format!("{what} must be an identifier, found `{s}`"),
            )
            .with_label("not an identifier")
            .with_help("an identifier is a letter or `_`, then letters, digits and `_`"),
        );
        return None;
    }
    Some(Spanned::new(s.to_string(), v.text_span()))
}

fn step(r: &mut Reader<'_>, item: &Json<'_>, by_number: &FastMap<u64, usize>) -> Option<Step> {
    let f = r.fields(item, "a step", STEP_KEYS)?;
    let name = step_name(r, item, &f);
    let tool = match f.get("tool") {
        Some(v) => r
            .string("tool", v)
            .map(|s| Spanned::new(s.to_string(), v.text_span())),
        None => {
            r.missing_key(item.span, "tool", "a step");
            None
        }
    }
    .unwrap_or_else(|| Spanned::new(String::new(), first_byte(item.span)));
    let mut args = Vec::new();
    if let Some(v) = f.get("args") {
        match v.as_object() {
            None => r.ill_typed("`args`", v, "an object"),
            Some(members) => {
                for m in r.unique(members) {
                    args.push(Arg {
                        name: Spanned::new(m.key.to_string(), m.key_text_span()),
                        value: expr(r, &m.value),
                        span: m.span(),
                    });
                }
            }
        }
    }
    let mut clauses = Vec::with_capacity(item.as_object().map_or(0, <[_]>::len));
    for m in f.in_order() {
        let v = &m.value;
        match &*m.key {
            "pre" | "post" => {
                let pre = &*m.key == "pre";
                let one = std::slice::from_ref(v);
                for p in v.as_array().unwrap_or(one) {
                    let p = probe(r, p, pre);
                    clauses.push(if pre { Clause::Pre(p) } else { Clause::Post(p) });
                }
            }
            "binds" => binds(r, v, &mut clauses),
            "on_unmet" => {
                if let Some(s) = r.string("on_unmet", v) {
                    match OnUnmet::from_name(s) {
                        Some(o) => clauses.push(Clause::OnUnmet(Spanned::new(o, v.span))),
                        None => r.report(bad_word(v, s, "`on_unmet`", ON_UNMET)),
                    }
                }
            }
            "retry" => {
                if let Some(n) = r.count("retry", v) {
                    clauses.push(Clause::Retry(Spanned::new(n, v.span)));
                }
            }
            "after" => {
                let one = std::slice::from_ref(v);
                let items = v.as_array().unwrap_or(one);
                let mut steps = Vec::with_capacity(items.len());
                for a in items {
                    match &a.value {
                        Value::Number(n) => match n.parse::<u64>() {
                            Ok(k) => {
                                let target = by_number
                                    .get(&k)
                                    .and_then(|&i| r.step_names.get(i))
                                    .cloned()
                                    .unwrap_or_else(|| format!("step_{k}"));
                                steps.push(Spanned::new(target, a.span));
                            }
                            Err(_) => r.ill_typed("a step in `after`", a, "a step number or name"),
                        },
                        Value::String(s) if is_ident(s) => {
                            steps.push(Spanned::new(s.to_string(), a.text_span()))
                        }
                        _ => r.ill_typed("a step in `after`", a, "a step number or name"),
                    }
                }
                clauses.push(Clause::After {
                    steps,
                    span: v.span,
                });
            }
            _ => {}
        }
    }
    Some(Step {
        doc: Doc::default(),
        name,
        tool,
        args,
        json_args: Some(f.get("args").map_or(item.span, |v| v.span)),
        clauses,
        span: item.span,
    })
}

/// Checks the keys that name a step, and returns the name with the span of
/// the key that gave it.
fn step_name(r: &mut Reader<'_>, item: &Json<'_>, f: &Fields<'_, '_>) -> Name {
    let name = r
        .step
        .and_then(|i| r.step_names.get(i))
        .cloned()
        .unwrap_or_default();
    let mut span = None;
    if let Some(v) = f.get("name")
        && ident(r, "name", v, "a step name").is_some()
    {
        span = Some(v.text_span());
    }
    if let (Some(_), Some(id)) = (f.member("n"), f.member("id")) {
        r.report(
            Diagnostic::new(Code::E0004, id.key_span, "a step has both `n` and `id`")
                .with_label("second step number")
                .with_help("keep one of them"),
        );
    }
    for key in ["n", "id"] {
        if let Some(v) = f.get(key) {
            let ok = match &v.value {
                Value::Number(n) => n.parse::<u64>().is_ok(),
                Value::String(s) if key == "id" => is_ident(s),
                _ => false,
            };
            if !ok {
                let expected = if key == "id" {
                    "a non-negative integer or an identifier"
                } else {
                    "a non-negative integer"
                };
                r.ill_typed(&format!("`{key}`"), v, expected);
            } else if span.is_none() {
                span = Some(v.text_span());
            }
        }
    }
    Spanned::new(name, span.unwrap_or_else(|| first_byte(item.span)))
}

/// `binds`: an object of names and paths, or an array of `{"name",
/// "path"}` objects.
fn binds(r: &mut Reader<'_>, v: &Json<'_>, clauses: &mut Vec<Clause>) {
    if let Some(items) = v.as_array() {
        for item in items {
            let Some(f) = r.fields(item, "a bind", BIND_KEYS) else {
                continue;
            };
            let (Some(n), Some(p)) = (f.get("name"), f.get("path")) else {
                let key = if f.get("name").is_none() {
                    "name"
                } else {
                    "path"
                };
                r.missing_key(item.span, key, "a bind");
                continue;
            };
            let Some(name) = ident(r, "name", n, "a binding name") else {
                continue;
            };
            if let Some(path) = path(r, "a bind path", p) {
                clauses.push(Clause::Bind {
                    name,
                    path,
                    span: item.span,
                });
            }
        }
        return;
    }
    let Some(members) = v.as_object() else {
        r.ill_typed(
            "`binds`",
            v,
            "an object of names and paths, or an array of `{\"name\", \"path\"}` objects",
        );
        return;
    };
    for m in r.unique(members) {
        if !is_ident(&m.key) {
            r.report(
                Diagnostic::new(
                    Code::E0004,
                    m.key_span,
                    format!("a binding name must be an identifier, found `{}`", m.key),
                )
                .with_label("not an identifier")
                .with_help("an identifier is a letter or `_`, then letters, digits and `_`"),
            );
            continue;
        }
        if let Some(path) = path(r, "a bind path", &m.value) {
            clauses.push(Clause::Bind {
                name: Spanned::new(m.key.to_string(), m.key_text_span()),
                path,
                span: m.span(),
            });
        }
    }
}

/// An E0004 for a string that is not one of `words`, with the nearest one.
fn bad_word(v: &Json<'_>, s: &str, what: &str, words: &[&str]) -> Diagnostic {
    let near = suggest::nearest(s, words.iter().copied());
    let list: Vec<String> = words.iter().map(|w| format!("`{w}`")).collect();
    let mut d = Diagnostic::new(
        Code::E0004,
        v.span,
        format!("{what} must be one of {}, found `{s}`", list.join(", ")),
    )
    .with_label("unknown value");
    if let Some(help) = suggest::did_you_mean(&near) {
        d = d.with_help(help);
    }
    if let [one] = near.as_slice() {
        d = d.with_fix(format!("replace with `{one}`"), v.text_span(), *one);
    }
    d
}

// ------------------------------------------------------------------ paths

/// What [`path`] reads, as a JSON Schema `pattern`: `$`, then `.field` and
/// `[N]` segments.
pub const PATH_PATTERN: &str = r"^\$(\.[A-Za-z_][A-Za-z0-9_]*|\[[0-9]+\])*$";
/// A `pre` probe's path: a binding name and its fields (what
/// `binding_path` reads).
pub const BINDING_PATH_PATTERN: &str = r"^[A-Za-z_][A-Za-z0-9_]*(\.[A-Za-z_][A-Za-z0-9_]*)*$";

/// A whole-string reference (`"${name}"`, `"${name.member}"`) as a JSON
/// Schema `pattern`: what [`string_expr`] reads as one reference.
pub const REFERENCE_PATTERN: &str = r"^\$\{[A-Za-z_][A-Za-z0-9_]*(\.[A-Za-z_][A-Za-z0-9_]*)*\}$";

/// Reads a path string (`$.results[0].id`) with a span for every segment.
pub(crate) fn path(r: &mut Reader<'_>, what: &str, v: &Json<'_>) -> Option<Path> {
    let Value::String(s) = &v.value else {
        r.ill_typed(what, v, "a path string such as `$.results[0].id`");
        return None;
    };
    let b = s.as_bytes();
    if b.first() != Some(&b'$') {
        let mut d = Diagnostic::new(Code::E0002, v.text_span(), format!("invalid path `{s}`"))
            .with_label("a path starts with `$`");
        if !s.is_empty() {
            let fixed = if s.starts_with('[') || s.starts_with('.') {
                format!("${s}")
            } else {
                format!("$.{s}")
            };
            d = d.with_help(format!("did you mean `{fixed}`?")).with_fix(
                format!("replace with `{fixed}`"),
                v.text_span(),
                fixed,
            );
        }
        r.report(d);
        return None;
    }
    let mut segments = Vec::new();
    let mut i = 1;
    while i < b.len() {
        let start = i;
        let bad = |r: &mut Reader<'_>, at: usize, msg: &str| {
            let end = (at + 1).min(b.len()).max(at);
            let end = (end..=b.len())
                .find(|e| s.is_char_boundary(*e))
                .unwrap_or(b.len());
            r.report(
                Diagnostic::new(
                    Code::E0002,
                    r.sub_span(v, at, end),
                    format!("invalid path `{s}`"),
                )
                .with_label(msg.to_string())
                .with_help("a path is `$` followed by `.field` and `[index]` segments"),
            );
        };
        match b.get(i) {
            Some(b'.') => {
                i += 1;
                let name_start = i;
                while let Some(c) = b.get(i) {
                    if c.is_ascii_alphanumeric() || *c == b'_' {
                        i += 1;
                    } else {
                        break;
                    }
                }
                let name = s.get(name_start..i).unwrap_or("");
                if !is_ident(name) {
                    bad(r, name_start, "expected a field name");
                    return None;
                }
                segments.push(Spanned::new(
                    PathSeg::Field(name.to_string()),
                    r.sub_span(v, start, i),
                ));
            }
            Some(b'[') => {
                i += 1;
                let digits = i;
                while let Some(b'0'..=b'9') = b.get(i) {
                    i += 1;
                }
                let index = s.get(digits..i).and_then(|d| d.parse::<u64>().ok());
                let Some(index) = index else {
                    bad(r, digits, "expected an index");
                    return None;
                };
                if b.get(i) != Some(&b']') {
                    bad(r, i, "expected `]`");
                    return None;
                }
                i += 1;
                segments.push(Spanned::new(PathSeg::Index(index), r.sub_span(v, start, i)));
            }
            _ => {
                bad(r, i, "expected `.` or `[`");
                return None;
            }
        }
    }
    Some(Path {
        root: None,
        segments,
        span: v.text_span(),
    })
}

/// A `pre` probe's path: a binding name and its fields, `settings.region`,
/// never `$`.
fn binding_path(r: &mut Reader<'_>, v: &Json<'_>) -> Option<Path> {
    let Value::String(s) = &v.value else {
        r.ill_typed(
            "`path`",
            v,
            "a binding name with its fields, such as `settings.region`",
        );
        return None;
    };
    match reference(r, v, s, 0) {
        Some(reference) => Some(Path {
            root: Some(reference.name),
            segments: reference
                .members
                .into_iter()
                .map(|m| Spanned::new(PathSeg::Field(m.node), m.span))
                .collect(),
            span: v.text_span(),
        }),
        None => {
            let label = if s.starts_with('$') {
                "a `pre` path starts with a binding name, not `$`"
            } else {
                "not a binding name with its fields"
            };
            r.report(
                Diagnostic::new(Code::E0002, v.text_span(), format!("invalid path `{s}`"))
                    .with_label(label)
                    .with_help("a `pre` probe tests an artifact: its path is a binding name followed by `.field` segments, such as `settings.region`"),
            );
            None
        }
    }
}

// ------------------------------------------------------------------ probes

pub(crate) const RESULT_COUNT_KEYS: &[&str] = &["probe", "path", "equals", "op", "value"];
pub(crate) const FIELD_EQUALS_KEYS: &[&str] = &["probe", "path", "value"];
pub(crate) const CONTAINS_KEYS: &[&str] = &["probe", "path", "value"];
pub(crate) const FIELD_IN_KEYS: &[&str] = &["probe", "path", "values"];
pub(crate) const FIELD_EXISTS_KEYS: &[&str] = &["probe", "path"];
pub(crate) const FIELD_COMPARE_KEYS: &[&str] = &["probe", "path", "op", "value"];
pub(crate) const PROBE_ANY_KEYS: &[&str] = &["probe", "path", "equals", "op", "value", "values"];
pub(crate) const OPS: &[&str] = &["==", "!=", "<", "<=", ">", ">="];

/// The keys of a probe of `kind`; every probe key when the kind is not
/// known (the language server's completion offers these).
pub(crate) fn probe_keys(kind: Option<&str>) -> &'static [&'static str] {
    match kind {
        Some("result_count") => RESULT_COUNT_KEYS,
        Some("field_equals") => FIELD_EQUALS_KEYS,
        Some("field_in" | "field_not_in") => FIELD_IN_KEYS,
        Some("field_exists") => FIELD_EXISTS_KEYS,
        Some("field_compare") => FIELD_COMPARE_KEYS,
        Some("contains") => CONTAINS_KEYS,
        _ => PROBE_ANY_KEYS,
    }
}

/// Every key list of this module, for a test that they fit the reader.
#[cfg(test)]
pub(crate) const SHAPES: &[&[&str]] = &[
    PLAN_KEYS,
    BUDGET_KEYS,
    STEP_KEYS,
    BIND_KEYS,
    RESULT_COUNT_KEYS,
    FIELD_EQUALS_KEYS,
    FIELD_IN_KEYS,
    FIELD_EXISTS_KEYS,
    FIELD_COMPARE_KEYS,
    CONTAINS_KEYS,
    PROBE_ANY_KEYS,
];

/// A probe of `post` (`$` paths), or of `pre` (paths rooted at a binding).
fn probe(r: &mut Reader<'_>, v: &Json<'_>, pre: bool) -> Probe {
    let kind = probe_kind(r, v, pre).unwrap_or(ProbeKind::Error);
    Probe { kind, span: v.span }
}

fn probe_kind(r: &mut Reader<'_>, v: &Json<'_>, pre: bool) -> Option<ProbeKind> {
    if v.as_object().is_none() {
        r.ill_typed("a probe", v, "an object with a `probe` key");
        return None;
    }
    let Some(kv) = v.get("probe") else {
        r.missing_key(v.span, "probe", "a probe");
        // Still report unknown keys against every probe key.
        r.fields(v, "a probe", PROBE_ANY_KEYS);
        return None;
    };
    let kind = r.string("probe", kv)?;
    let (keys, what) = match kind {
        "result_count" => (RESULT_COUNT_KEYS, "a `result_count` probe"),
        "field_equals" => (FIELD_EQUALS_KEYS, "a `field_equals` probe"),
        "field_in" => (FIELD_IN_KEYS, "a `field_in` probe"),
        "field_not_in" => (FIELD_IN_KEYS, "a `field_not_in` probe"),
        "field_exists" => (FIELD_EXISTS_KEYS, "a `field_exists` probe"),
        "field_compare" => (FIELD_COMPARE_KEYS, "a `field_compare` probe"),
        "contains" => (CONTAINS_KEYS, "a `contains` probe"),
        other => {
            r.report(bad_word(kv, other, "`probe`", PROBE_KINDS));
            return None;
        }
    };
    let f = r.fields(v, what, keys)?;
    let path = match f.get("path") {
        Some(p) if pre => Some(binding_path(r, p)?),
        Some(p) => Some(path(r, "`path`", p)?),
        None if kind == "result_count" && !pre => None,
        None => {
            r.missing_key(v.span, "path", what);
            return None;
        }
    };
    match kind {
        "result_count" => {
            let (op, value) = match (f.member("equals"), f.get("op"), f.get("value")) {
                (Some(eq), None, None) => (
                    Spanned::new(CmpOp::Eq, eq.key_text_span()),
                    count_literal(r, "equals", &eq.value)?,
                ),
                (Some(eq), _, _) => {
                    r.report(
                        Diagnostic::new(
                            Code::E0004,
                            eq.key_span,
                            "a `result_count` probe has `equals` and also `op` or `value`",
                        )
                        .with_label("`equals` here")
                        .with_help("write either `equals`, or `op` and `value`"),
                    );
                    return None;
                }
                (None, op, value) => {
                    let op = op_of(r, v, what, op);
                    let value = match value {
                        Some(val) => count_literal(r, "value", val),
                        None => {
                            r.missing_key(v.span, "equals", what);
                            None
                        }
                    };
                    (op?, value?)
                }
            };
            Some(match path {
                Some(path) => ProbeKind::Len { path, op, value },
                None => ProbeKind::CountDefault { op, value },
            })
        }
        "field_equals" | "field_compare" => {
            let op = if kind == "field_equals" {
                f.member("value")
                    .map(|m| Spanned::new(CmpOp::Eq, m.key_text_span()))
            } else {
                op_of(r, v, what, f.get("op"))
            };
            let value = match f.get("value") {
                Some(val) => literal(r, "`value`", val),
                None => {
                    r.missing_key(v.span, "value", what);
                    None
                }
            };
            Some(ProbeKind::Compare {
                path: path?,
                op: op?,
                value: value?,
            })
        }
        "contains" => {
            let value = match f.get("value") {
                Some(val) => literal(r, "`value`", val),
                None => {
                    r.missing_key(v.span, "value", what);
                    None
                }
            };
            Some(ProbeKind::Contains {
                path: path?,
                value: value?,
            })
        }
        "field_in" | "field_not_in" => {
            let Some(vals) = f.get("values") else {
                r.missing_key(v.span, "values", what);
                return None;
            };
            let Some(items) = vals.as_array() else {
                r.ill_typed("`values`", vals, "an array of literals");
                return None;
            };
            let mut values = Vec::with_capacity(items.len());
            let mut ok = true;
            for item in items {
                match literal(r, "an element of `values`", item) {
                    Some(l) => values.push(l),
                    None => ok = false,
                }
            }
            ok.then_some(ProbeKind::In {
                path: path?,
                negated: kind == "field_not_in",
                values,
            })
        }
        _ => Some(ProbeKind::Exists { path: path? }),
    }
}

fn op_of(
    r: &mut Reader<'_>,
    probe: &Json<'_>,
    what: &str,
    op: Option<&Json<'_>>,
) -> Option<Spanned<CmpOp>> {
    let Some(op) = op else {
        r.missing_key(probe.span, "op", what);
        return None;
    };
    let s = r.string("op", op)?;
    match CmpOp::from_symbol(s) {
        Some(c) => Some(Spanned::new(c, op.text_span())),
        None => {
            let mut d = bad_word(op, s, "`op`", OPS);
            let alias = match s {
                "=" | "eq" | "equals" => Some("=="),
                "ne" | "<>" | "neq" => Some("!="),
                "lt" => Some("<"),
                "le" | "lte" | "=<" => Some("<="),
                "gt" => Some(">"),
                "ge" | "gte" | "=>" => Some(">="),
                _ => None,
            };
            if let Some(a) = alias
                && d.fixes.is_empty()
            {
                d = d.with_help(format!("did you mean `{a}`?")).with_fix(
                    format!("replace with `{a}`"),
                    op.text_span(),
                    a,
                );
            }
            r.report(d);
            None
        }
    }
}

/// The count a `result_count` probe compares with: a non-negative integer.
fn count_literal(r: &mut Reader<'_>, key: &str, v: &Json<'_>) -> Option<Spanned<Literal>> {
    r.count(key, v)?;
    match v.value {
        Value::Number(n) => Some(Spanned::new(Literal::Int(n.to_string()), v.span)),
        _ => None,
    }
}

/// A scalar in literal position (probe values, ceilings): strings are plain
/// text, with no references. `what` names the value in messages ("`value`").
pub(crate) fn literal(r: &mut Reader<'_>, what: &str, v: &Json<'_>) -> Option<Spanned<Literal>> {
    let lit = match &v.value {
        Value::Null => Literal::Null,
        Value::Bool(b) => Literal::Bool(*b),
        Value::String(s) => Literal::String(s.to_string()),
        Value::Number(n) => number(r, n, v)?,
        Value::Array(_) | Value::Object(_) => {
            r.ill_typed(what, v, "a string, number, boolean or `null`");
            return None;
        }
    };
    Some(Spanned::new(lit, v.span))
}

/// A JSON number as an exact literal: an integer when it has neither a
/// fraction nor an exponent, else a decimal with any exponent written out.
fn number(r: &mut Reader<'_>, n: &str, v: &Json<'_>) -> Option<Literal> {
    match number_literal(n) {
        Some(lit) => Some(lit),
        None => {
            r.report(
                Diagnostic::new(
                    Code::E0002,
                    v.span,
                    format!("number `{n}` is too large or too small to write out exactly"),
                )
                .with_label("exponent out of range")
                .with_help("write the number without an exponent"),
            );
            None
        }
    }
}

/// The longest decimal an exponent may expand to.
const MAX_EXPANDED_DIGITS: usize = 1000;

/// A JSON number's text as an exact literal: an integer when it has neither
/// a fraction nor an exponent, else a decimal with any exponent written out;
/// `None` when the exponent is too large to write out.
pub fn number_literal(n: &str) -> Option<Literal> {
    if !n.bytes().any(|b| matches!(b, b'.' | b'e' | b'E')) {
        return Some(Literal::Int(n.to_string()));
    }
    expand_exponent(n).map(Literal::Decimal)
}

/// `-1.25e2` as `-125`, `5e-3` as `0.005`: exact, by moving the point. A
/// number without an exponent is returned as written. `None` when the
/// result would be longer than [`MAX_EXPANDED_DIGITS`].
pub fn expand_exponent(n: &str) -> Option<String> {
    let Some(epos) = n.find(['e', 'E']) else {
        return Some(n.to_string());
    };
    let (mantissa, exp) = (n.get(..epos)?, n.get(epos + 1..)?);
    let exp: i64 = exp.trim_start_matches('+').parse().ok()?;
    let (neg, mantissa) = match mantissa.strip_prefix('-') {
        Some(m) => (true, m),
        None => (false, mantissa),
    };
    let (int, frac) = mantissa.split_once('.').unwrap_or((mantissa, ""));
    let digits: String = format!("{int}{frac}");
    let point = i64::try_from(int.len()).ok()?.checked_add(exp)?;
    let len = i64::try_from(digits.len()).ok()?;
    if point > MAX_EXPANDED_DIGITS as i64 || point < -(MAX_EXPANDED_DIGITS as i64) {
        return None;
    }
    let (int_part, frac_part) = if point <= 0 {
        let zeros = "0".repeat(usize::try_from(-point).ok()?);
        ("0".to_string(), format!("{zeros}{digits}"))
    } else if point >= len {
        let zeros = "0".repeat(usize::try_from(point - len).ok()?);
        (format!("{digits}{zeros}"), String::new())
    } else {
        let p = usize::try_from(point).ok()?;
        (digits.get(..p)?.to_string(), digits.get(p..)?.to_string())
    };
    let int_part = int_part.trim_start_matches('0');
    let int_part = if int_part.is_empty() { "0" } else { int_part };
    let frac_part = frac_part.trim_end_matches('0');
    let sign = if neg { "-" } else { "" };
    Some(if frac_part.is_empty() {
        format!("{sign}{int_part}")
    } else {
        format!("{sign}{int_part}.{frac_part}")
    })
}

// ------------------------------------------------------------------ expressions

/// An argument value: literals, lists, records, references and
/// interpolated strings.
fn expr(r: &mut Reader<'_>, v: &Json<'_>) -> Expr {
    let kind = match &v.value {
        Value::String(s) if s.contains('$') => string_expr(r, v, s),
        Value::Array(items) => ExprKind::List(items.iter().map(|i| expr(r, i)).collect()),
        Value::Object(members) => {
            let mut entries = Vec::with_capacity(members.len());
            for m in r.unique(members) {
                entries.push(RecordEntry {
                    name: Spanned::new(m.key.to_string(), m.key_text_span()),
                    value: expr(r, &m.value),
                });
            }
            ExprKind::Record(entries)
        }
        _ => match literal(r, "a value", v) {
            Some(l) => ExprKind::Literal(l.node),
            None => ExprKind::Error,
        },
    };
    Spanned::new(kind, v.span)
}

/// Plain text as an argument string spells it: `${` escaped as `$${`,
/// which [`string_expr`] turns back into `${`.
pub fn escape_text(s: &str) -> String {
    s.replace("${", "$${")
}

/// A string that may hold `${…}` references.
fn string_expr(r: &mut Reader<'_>, v: &Json<'_>, s: &str) -> ExprKind {
    let b = s.as_bytes();
    let mut parts: Vec<InterpPart> = Vec::new();
    let mut text = String::new();
    let mut i = 0;
    let mut plain = 0; // start of the text not yet copied
    while let Some(&c) = b.get(i) {
        if c != b'$' {
            i += 1;
            continue;
        }
        if b.get(i + 1) == Some(&b'$') && b.get(i + 2) == Some(&b'{') {
            // `$${` is a literal `${`.
            text.push_str(s.get(plain..i).unwrap_or(""));
            text.push_str("${");
            i += 3;
            plain = i;
            continue;
        }
        if b.get(i + 1) != Some(&b'{') {
            i += 1;
            continue;
        }
        text.push_str(s.get(plain..i).unwrap_or(""));
        let open = i;
        let Some(close) = s.get(open..).and_then(|t| t.find('}')).map(|k| open + k) else {
            r.report(
                Diagnostic::new(
                    Code::E0002,
                    r.sub_span(v, open, s.len()),
                    "unclosed `${` in a string",
                )
                .with_label("no `}` after this")
                .with_help("close the reference with `}`, or write `$${` for a literal `${`"),
            );
            return ExprKind::Error;
        };
        let inner = s.get(open + 2..close).unwrap_or("");
        let Some(reference) = reference(r, v, inner, open + 2) else {
            r.report(
                Diagnostic::new(
                    Code::E0002,
                    r.sub_span(v, open, close + 1),
                    format!("invalid reference `${{{inner}}}`"),
                )
                .with_label("expected a binding name, with optional `.member`s")
                .with_help("write `${name}` or `${name.member}`, or `$${` for a literal `${`"),
            );
            return ExprKind::Error;
        };
        if !text.is_empty() {
            parts.push(InterpPart::Text(std::mem::take(&mut text)));
        }
        parts.push(InterpPart::Ref(Spanned::new(
            reference,
            r.sub_span(v, open, close + 1),
        )));
        i = close + 1;
        plain = i;
    }
    text.push_str(s.get(plain..).unwrap_or(""));
    if !text.is_empty() {
        parts.push(InterpPart::Text(text));
    }
    match parts.as_slice() {
        [] => ExprKind::Literal(Literal::String(String::new())),
        [InterpPart::Text(t)] => ExprKind::Literal(Literal::String(t.clone())),
        [InterpPart::Ref(rf)] => ExprKind::Ref(rf.node.clone()),
        _ => ExprKind::Interp(parts),
    }
}

/// A JSON value as an expression with no references: the default of a
/// catalogue parameter. Strings are plain text.
pub(crate) fn plain_expr(r: &mut Reader<'_>, v: &Json<'_>) -> Expr {
    let kind = match &v.value {
        Value::Array(items) => ExprKind::List(items.iter().map(|i| plain_expr(r, i)).collect()),
        Value::Object(members) => ExprKind::Record(
            r.unique(members)
                .map(|m| RecordEntry {
                    name: Spanned::new(m.key.to_string(), m.key_text_span()),
                    value: plain_expr(r, &m.value),
                })
                .collect(),
        ),
        _ => match literal(r, "a default", v) {
            Some(l) => ExprKind::Literal(l.node),
            None => ExprKind::Error,
        },
    };
    Spanned::new(kind, v.span)
}

/// `name.member.member` at byte `at` of the string `v`.
fn reference(r: &Reader<'_>, v: &Json<'_>, inner: &str, at: usize) -> Option<Reference> {
    let mut names = Vec::new();
    let mut offset = at;
    for part in inner.split('.') {
        if !is_ident(part) {
            return None;
        }
        names.push(Spanned::new(
            part.to_string(),
            r.sub_span(v, offset, offset + part.len()),
        ));
        offset += part.len() + 1;
    }
    let mut names = names.into_iter();
    let name = names.next()?;
    Some(Reference {
        name,
        members: names.collect(),
    })
}

#[cfg(test)]
mod tests {
    use super::expand_exponent;

    #[test]
    fn exponents_expand_exactly() {
        let e = |s: &str| expand_exponent(s).unwrap_or_default();
        assert_eq!(e("1e3"), "1000");
        assert_eq!(e("-1.25e2"), "-125");
        assert_eq!(e("1.5E+1"), "15");
        assert_eq!(e("5e-3"), "0.005");
        assert_eq!(e("12.5e-1"), "1.25");
        assert_eq!(e("0.0e5"), "0");
        assert_eq!(e("123e-5"), "0.00123");
        assert_eq!(e("1.5"), "1.5");
        assert_eq!(expand_exponent("1e1001"), None);
        assert_eq!(expand_exponent("1e-99999999999999999999"), None);
    }
}
