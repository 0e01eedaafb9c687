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
    Path, PathSeg, PlanDecl, Probe, ProbeKind, RecordEntry, Reference, Step, Str,
};
use super::json::{Json, Value};
use super::json_reader::{Fields, Reader, whole_number};
use super::lexicon::{self, is_ident};
use crate::diagnostics::{Code, Diagnostic};
use crate::limits;
use crate::source::{Span, Spanned};
use crate::suggest;

mod expr;
mod paths;
mod probes;

pub use expr::escape_interp;
pub(crate) use expr::plain_expr;
use expr::*;
use paths::*;
pub use paths::{BINDING_PATH_PATTERN, PATH_PATTERN, REFERENCE_PATTERN};
#[doc(hidden)]
pub use probes::PROBE_ANY_KEYS;
use probes::*;
pub use probes::{
    CONTAINS_KEYS, FIELD_COMPARE_KEYS, FIELD_EQUALS_KEYS, FIELD_EXISTS_KEYS, FIELD_IN_KEYS, OPS,
    RESULT_COUNT_KEYS, literal, probe_keys,
};
pub use probes::{expand_exponent, number_literal};

pub const PLAN_KEYS: &[&str] = &["name", "goal", "steps", "budget"];
pub const BUDGET_KEYS: &[&str] = &["replans", "max_steps"];
pub const STEP_KEYS: &[&str] = &[
    "n", "id", "name", "tool", "args", "pre", "post", "binds", "on_unmet", "retry", "after",
];
/// The kinds of probe of the JSON form, as `"probe": KIND` names them.
pub mod probe_kind {
    pub const RESULT_COUNT: &str = "result_count";
    pub const FIELD_EQUALS: &str = "field_equals";
    pub const FIELD_IN: &str = "field_in";
    pub const FIELD_NOT_IN: &str = "field_not_in";
    pub const FIELD_EXISTS: &str = "field_exists";
    pub const FIELD_COMPARE: &str = "field_compare";
    pub const CONTAINS: &str = "contains";
    pub const KEYS_CONTAIN: &str = "keys_contain";
}
/// Every [`probe_kind`], in the order the schemas and completion list them.
pub const PROBE_KINDS: &[&str] = &[
    probe_kind::RESULT_COUNT,
    probe_kind::FIELD_EQUALS,
    probe_kind::FIELD_IN,
    probe_kind::FIELD_NOT_IN,
    probe_kind::FIELD_EXISTS,
    probe_kind::FIELD_COMPARE,
    probe_kind::CONTAINS,
    probe_kind::KEYS_CONTAIN,
];
/// The keys of one element of `binds` written as an array (the form a
/// closed-object schema can describe): `{"name": …, "path": …}`.
pub const BIND_KEYS: &[&str] = &["name", "path"];

/// Reads a parsed JSON plan document whose tree is whole. Never fails:
/// problems are reported and the rest is read.
pub fn read_plan(text: &str, root: &Json<'_>) -> (Module, Vec<Diagnostic>) {
    Steps::new(text).finish(root)
}

/// Reads a plan's steps one at a time, as the JSON parser reaches them
/// (`syntax::read_json_plan`, through `json::parse_streaming`), or from a
/// whole tree ([`read_plan`]); [`Steps::finish`] reads the rest of the plan
/// from the root object. A step's name and number are known when it is
/// read; a number in `after` may name a later step, so those are resolved
/// at the end.
pub(crate) struct Steps<'t> {
    r: Reader<'t>,
    steps: Vec<Step>,
    /// Which step each number names (the first step with it).
    by_number: FastMap<u64, usize>,
    /// `after` items given as a number: (index in `steps`, clause index,
    /// item index, the number), resolved by [`Steps::finish`].
    numbered_afters: Vec<(usize, usize, usize, u64)>,
    /// How many elements `steps` had, and the first one over the limit.
    count: usize,
    first_over: Option<Span>,
    /// The steps came from the parser; the tree's `steps` is empty.
    pub streamed: bool,
    /// Where the first element of `steps` begins (`syntax::room_for`).
    first_at: Option<usize>,
    /// Each step cut down to its skeleton as soon as it is read
    /// ([`Step::skeleton`], `syntax::read_json_plan_skeletal`).
    pub skeletal: bool,
}

impl<'t> Steps<'t> {
    pub fn new(text: &'t str) -> Steps<'t> {
        Steps {
            r: Reader::new(text),
            steps: Vec::new(),
            by_number: FastMap::default(),
            numbered_afters: Vec::new(),
            count: 0,
            first_over: None,
            streamed: false,
            first_at: None,
            skeletal: false,
        }
    }

    /// Reads the next element of `steps`.
    pub fn read(&mut self, item: &Json<'_>) {
        let i = self.count;
        self.count += 1;
        if i >= limits::MAX_STEPS {
            if i == limits::MAX_STEPS {
                self.first_over = Some(item.span);
            }
            return;
        }
        let (name, number) = identity(item, i);
        if let Some(n) = number {
            self.by_number.entry(n).or_insert(i);
        }
        self.r.step_names.push(name);
        self.r.step = Some(i);
        let at = self.steps.len();
        if let Some(mut s) = step(&mut self.r, item, at, &mut self.numbered_afters) {
            if self.skeletal {
                // A numbered `after` is named at the end by its clause's
                // index, which the cut moves: to its index among the
                // clauses the skeleton keeps.
                for entry in self.numbered_afters.iter_mut().filter(|e| e.0 == at) {
                    entry.1 = s
                        .clauses
                        .iter()
                        .take(entry.1)
                        .filter(|c| Step::kept_by_skeleton(c))
                        .count();
                }
                s.skeleton();
            }
            let from = *self.first_at.get_or_insert(item.span.start as usize);
            super::room_for(
                &mut self.steps,
                1,
                from,
                item.span.end as usize,
                self.r.text.len(),
            );
            self.steps.push(s);
        }
        self.r.step = None;
    }

    /// Reads the plan around the steps: its name, goal and budget, and the
    /// steps themselves when the tree holds them (not streamed).
    pub fn finish(mut self, root: &Json<'_>) -> (Module, Vec<Diagnostic>) {
        let plan = self.plan(root);
        let module = Module {
            items: match plan {
                Some(p) => vec![Item::Plan(p)],
                None => vec![Item::Error(root.span)],
            },
        };
        (module, self.r.diags)
    }

    fn plan(&mut self, root: &Json<'_>) -> Option<PlanDecl> {
        let r = &mut self.r;
        let f = r.fields(root, "a plan", PLAN_KEYS)?;
        let name = match given(&f, "name") {
            Some(v) => ident(r, "name", v, "a plan name"),
            None => None,
        }
        .unwrap_or_else(|| Spanned::new(Str::new("plan"), first_byte(root.span)));
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
        match f.get("steps") {
            None => r.missing_key(root.span, "steps", "a plan"),
            Some(v) => match v.as_array() {
                None => r.ill_typed("`steps`", v, "an array of steps"),
                Some(items) if !self.streamed => {
                    self.steps.reserve_exact(items.len().min(limits::MAX_STEPS));
                    for item in items {
                        self.read(item);
                    }
                }
                // Streamed: the steps vector grew as predicted, a little over.
                Some(_) => self.steps.shrink_to_fit(),
            },
        }
        if let Some(at) = self.first_over
            && let Some(d) = limits::too_many_steps(self.count, at)
        {
            self.r.report(d);
        }
        self.resolve_numbered_afters();
        Some(PlanDecl {
            doc: Doc::default(),
            name,
            goal,
            replans,
            max_steps,
            steps: std::mem::take(&mut self.steps),
            span: root.span,
        })
    }

    /// Names the step each number in an `after` names: the first step with
    /// that number, or `step_N` when none has it (the checker reports it).
    fn resolve_numbered_afters(&mut self) {
        for &(s, c, a, k) in &self.numbered_afters {
            let target = self
                .by_number
                .get(&k)
                .and_then(|&i| self.r.step_names.get(i))
                .cloned()
                .unwrap_or_else(|| smol_str::format_smolstr!("step_{k}"));
            if let Some(Clause::After { steps, .. }) = self
                .steps
                .get_mut(s)
                .and_then(|step| step.clauses.get_mut(c))
                && let Some(name) = steps.get_mut(a)
            {
                name.node = target;
            }
        }
    }
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

/// The name of the step at index `i` of `steps`, and the number it goes
/// by in `after` (its `n`, a numeric `id`, else its index when it has
/// neither key).
fn identity(item: &Json<'_>, i: usize) -> (Str, Option<u64>) {
    let number = ["n", "id"]
        .iter()
        .find_map(|k| match item.get(k).map(|v| &v.value) {
            Some(Value::Number(n)) => whole_number(n),
            _ => None,
        });
    let named = ["name", "id"]
        .iter()
        .find_map(|k| item.get(k).and_then(Json::as_str).filter(|s| is_ident(s)));
    let number = number.or_else(|| {
        let explicit = ["n", "id"].iter().any(|k| item.get(k).is_some());
        (!explicit).then_some(i as u64)
    });
    let name = match (named, number) {
        (Some(s), _) => Str::from(s),
        (None, Some(n)) => smol_str::format_smolstr!("step_{n}"),
        (None, None) => smol_str::format_smolstr!("step_{i}"),
    };
    (name, number)
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
    Some(Spanned::new(Str::new(s), v.text_span()))
}

/// Reads one step, the `at`-th of the plan's step vector; a number in its
/// `after` is noted in `numbered_afters` and named later.
fn step(
    r: &mut Reader<'_>,
    item: &Json<'_>,
    at: usize,
    numbered_afters: &mut Vec<(usize, usize, usize, u64)>,
) -> Option<Step> {
    let f = r.fields(item, "a step", STEP_KEYS)?;
    let name = step_name(r, item, &f);
    let tool = match f.get("tool") {
        Some(v) => r
            .string("tool", v)
            .map(|s| Spanned::new(Str::from(s), v.text_span())),
        None => {
            r.missing_key(item.span, "tool", "a step");
            None
        }
    }
    .unwrap_or_else(|| Spanned::new(Str::default(), first_byte(item.span)));
    let mut args = Vec::new();
    if let Some(v) = f.get("args") {
        match v.as_object() {
            None => r.ill_typed("`args`", v, "an object"),
            Some(members) => {
                args.reserve_exact(members.len());
                for m in r.unique(members) {
                    args.push(Arg {
                        name: Spanned::new(Str::from(&*m.key), m.key_text_span()),
                        value: expr(r, &m.value),
                        span: m.span(),
                    });
                }
            }
        }
    }
    let mut clauses = Vec::with_capacity(clause_count(&f));
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
                        None => r.report(bad_word(v, s, "`on_unmet`", &lexicon::ON_UNMET)),
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
                        Value::Number(n) => match whole_number(n) {
                            Some(k) => {
                                numbered_afters.push((at, clauses.len(), steps.len(), k));
                                steps.push(Spanned::new(Str::default(), a.span));
                            }
                            None => r.ill_typed("a step in `after`", a, "a step number or name"),
                        },
                        Value::String(s) if is_ident(s) => {
                            steps.push(Spanned::new(Str::from(&**s), a.text_span()))
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

/// The step at `span` of `text` (the plan's whole JSON text), named
/// `name`, read again: a step a skeletal reading cut down
/// (`syntax::read_json_plan_skeletal`), as the first reading read it.
/// The names of its numbered `after`s, which the first reading gave once
/// every step's number was known, are those of `afters` (the skeleton's
/// `after` clauses). `None` unless it reads without a diagnostic and its
/// `after`s are those of `afters`.
pub fn read_step_again(text: &str, span: Span, name: &Str, afters: &[Clause]) -> Option<Step> {
    // Inside the root object and its `steps` array.
    let item = super::json::parse_value_at(text, span, 2)?;
    let mut r = Reader::new(text);
    r.step_names.push(name.clone());
    r.step = Some(0);
    let mut numbered = Vec::new();
    let mut step = step(&mut r, &item, 0, &mut numbered)?;
    if !r.diags.is_empty() {
        return None;
    }
    let mut afters = afters.iter().filter_map(|c| match c {
        Clause::After { steps, .. } => Some(steps),
        _ => None,
    });
    for c in &mut step.clauses {
        if let Clause::After { steps, .. } = c {
            let named = afters.next()?;
            if named.len() != steps.len()
                || named
                    .iter()
                    .zip(steps.iter())
                    .any(|(n, s)| n.span != s.span)
            {
                return None;
            }
            steps.clone_from(named);
        }
    }
    afters.next().is_none().then_some(step)
}

/// How many clauses a step's members give, so that its clause vector is
/// allocated once at its size (a step lives as long as the compilation; a
/// vector grown by pushes keeps room for four).
fn clause_count(f: &Fields<'_, '_>) -> usize {
    f.present()
        .map(|m| match (&*m.key, &m.value.value) {
            ("pre" | "post", Value::Array(items)) => items.len(),
            ("binds", Value::Array(items)) => items.len(),
            ("binds", Value::Object(members)) => members.len(),
            ("pre" | "post" | "on_unmet" | "retry" | "after", _) => 1,
            _ => 0,
        })
        .sum()
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
                Value::Number(n) => whole_number(n).is_some(),
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
                name: Spanned::new(Str::from(&*m.key), m.key_text_span()),
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

/// Every key list of this module, for a test that they fit the reader.
#[doc(hidden)]
pub const SHAPES: &[&[&str]] = &[
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

    /// Every JSON plan of the repository that reads without a diagnostic,
    /// read as skeletons and each step again from its span
    /// (`read_step_again`), gives the steps a whole reading gives.
    #[test]
    fn every_json_plan_reads_again_as_it_reads_whole() {
        use crate::source::FileId;
        use crate::syntax::{read_json_plan, read_json_plan_skeletal, test_texts::json_files};
        let file = FileId(3);
        let mut read = 0;
        for text in json_files() {
            let Some(skeletal) = read_json_plan_skeletal(file, &text) else {
                continue;
            };
            read += 1;
            let (whole, diags) = read_json_plan(file, &text);
            assert!(diags.is_empty(), "{text}");
            let steps: Vec<&super::Step> = whole.plans().flat_map(|p| &p.steps).collect();
            let skeletons: Vec<&super::Step> = skeletal.plans().flat_map(|p| &p.steps).collect();
            assert_eq!(skeletons.len(), steps.len(), "{text}");
            for (skeleton, step) in skeletons.into_iter().zip(steps) {
                let again = super::read_step_again(
                    &text,
                    skeleton.span,
                    &skeleton.name.node,
                    &skeleton.clauses,
                );
                assert_eq!(again.as_ref(), Some(step), "{text}");
            }
        }
        // The JSON plans among the fixtures and examples (most JSON files
        // are catalogues, policies, records and plans with errors).
        assert!(read > 30, "{read}");
    }
}
