//! A generator of well-typed plans over a generated catalogue and policy,
//! for the property tests. It builds a plain model first ([`World`],
//! [`Plan`]), then writes that model as `.plan` text and as the JSON plan
//! form, so both front ends read the same plan.
//!
//! Generation draws its choices from a [`Choices`] stream of numbers that
//! proptest generates and shrinks: a shorter stream, or smaller numbers,
//! give a smaller and simpler plan (0 is always the simplest choice), which
//! is how a failing case shrinks.

#![allow(dead_code)]

use std::collections::BTreeSet;
use std::fmt::Write as _;
use std::ops::Range;

/// The stream of choices a plan is built from. When it runs out, every
/// choice is 0.
pub struct Choices<'a> {
    data: &'a [u32],
    at: usize,
}

impl<'a> Choices<'a> {
    pub fn new(data: &'a [u32]) -> Self {
        Choices { data, at: 0 }
    }

    /// A number in `0..n` (0 when `n` is 0).
    pub fn below(&mut self, n: usize) -> usize {
        let v = self.data.get(self.at).copied().unwrap_or(0);
        self.at += 1;
        if n == 0 { 0 } else { v as usize % n }
    }

    /// A number in `lo..=hi`.
    pub fn range(&mut self, lo: usize, hi: usize) -> usize {
        lo + self.below(hi - lo + 1)
    }

    /// True with a chance of about 1 in `n` (never when the stream is
    /// exhausted, since 0 is the simplest choice... unless `n` is 1).
    pub fn one_in(&mut self, n: usize) -> bool {
        self.below(n) == n - 1
    }

    pub fn pick<'t, T>(&mut self, items: &'t [T]) -> Option<&'t T> {
        if items.is_empty() {
            return None;
        }
        items.get(self.below(items.len()))
    }
}

// ---------------------------------------------------------------- the model

/// The types the generated tools use for their parameters.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Ty {
    Str,
    Int,
    Dec,
    Bool,
    Date,
    Datetime,
    /// `"a" | "b"`
    Enum,
    /// `[string]`
    ListStr,
    /// `{ x: int, y: string, when: date }`
    Rec,
}

const PARAM_TYPES: &[Ty] = &[
    Ty::Str,
    Ty::Int,
    Ty::Dec,
    Ty::Bool,
    Ty::Date,
    Ty::Datetime,
    Ty::Enum,
    Ty::ListStr,
    Ty::Rec,
];

impl Ty {
    fn text(self) -> &'static str {
        match self {
            Ty::Str => "string",
            Ty::Int => "int",
            Ty::Dec => "decimal",
            Ty::Bool => "bool",
            Ty::Date => "date",
            Ty::Datetime => "datetime",
            Ty::Enum => "\"a\" | \"b\"",
            Ty::ListStr => "[string]",
            Ty::Rec => "{ x: int, y: string, when: date }",
        }
    }

    fn scalar(self) -> bool {
        !matches!(self, Ty::ListStr | Ty::Rec)
    }
}

/// Every tool returns this record; binds and probes are paths into it.
pub const RESULT_TYPE: &str = "{ s: string, i: int, d: decimal, b: bool, dt: date, e: \"a\" | \"b\", items: [{ id: string }], m: { [string]: decimal } }";

/// The paths a step may bind, with the type of what they name (`None`: the
/// record `{ id: string }`, referred to as `name.id`).
pub const BIND_PATHS: &[(&str, Option<Ty>)] = &[
    ("$.s", Some(Ty::Str)),
    ("$.i", Some(Ty::Int)),
    ("$.d", Some(Ty::Dec)),
    ("$.b", Some(Ty::Bool)),
    ("$.dt", Some(Ty::Date)),
    ("$.e", Some(Ty::Enum)),
    ("$.items[0]", None),
    ("$.items[0].id", Some(Ty::Str)),
    // Keys of a map: quoted where they are not identifiers, escapes and all.
    ("$.m[\"Le Marais\"]", Some(Ty::Dec)),
    ("$.m[\"a\\\"b\\\\c\"]", Some(Ty::Dec)),
    ("$.m.plain", Some(Ty::Dec)),
];

pub const SCOPES: &[&str] = &[
    "crm:read",
    "crm:write",
    "billing:read",
    "billing:write",
    "comms:write",
    "kb:read",
];

#[derive(Clone, Debug)]
pub struct Param {
    pub name: String,
    pub ty: Ty,
    /// `where NAME <= LIMIT` in the policy (numbers only).
    pub ceiling: Option<i64>,
    /// `where NAME in [...]` in the policy (strings without a default):
    /// literals are drawn from it, references get its guard.
    pub allow: Option<Vec<String>>,
    /// `where NAME matches "RE"` in the policy (strings without a default
    /// or an allowlist): an index into [`PATTERNS`]; literals are drawn
    /// from its samples, references get its guard.
    pub pattern: Option<usize>,
    /// `= VALUE` in the declaration (`default` in the JSON schema).
    pub default: Option<Val>,
    /// `where NAME trusted` in the policy: the plan feeds it no binding of
    /// an untrusted tool.
    pub trusted: bool,
    /// `where total NAME <= MAX` in the policy (integers without a
    /// default): the plan's literals add up to at most `MAX`.
    pub total: Option<i64>,
}

#[derive(Clone, Debug)]
pub struct Tool {
    pub name: String,
    pub params: Vec<Param>,
    pub write: bool,
    pub idempotent: bool,
    pub untrusted: bool,
    pub scopes: Vec<String>,
    pub approval: bool,
    /// `where calls <= N` in the policy: the plan calls the tool at most
    /// `N` times.
    pub calls: Option<usize>,
}

/// The catalogue, the policy and the actor.
#[derive(Clone, Debug)]
pub struct World {
    pub tools: Vec<Tool>,
    pub actor: Vec<String>,
}

#[derive(Clone, Debug, PartialEq)]
pub enum Piece {
    Text(String),
    Ref(String),
}

#[derive(Clone, Debug, PartialEq)]
pub enum Val {
    Str(String),
    Int(i64),
    /// Hundredths: 1250 is `12.50`.
    Dec(i64),
    Bool(bool),
    Date(String),
    Datetime(String),
    Enum(&'static str),
    List(Vec<Val>),
    Rec(Vec<(String, Val)>),
    /// A binding, and a member of it.
    Ref(String, Option<String>),
    Interp(Vec<Piece>),
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Op {
    Eq,
    Ne,
    Lt,
    Le,
    Gt,
    Ge,
}

const OPS: &[Op] = &[Op::Eq, Op::Ne, Op::Lt, Op::Le, Op::Gt, Op::Ge];

impl Op {
    fn text(self) -> &'static str {
        match self {
            Op::Eq => "==",
            Op::Ne => "!=",
            Op::Lt => "<",
            Op::Le => "<=",
            Op::Gt => ">",
            Op::Ge => ">=",
        }
    }
}

#[derive(Clone, Debug, PartialEq)]
pub enum Probe {
    Len(Op, u32),
    Compare(&'static str, Op, Val),
    In(&'static str, Vec<Val>, bool),
    Exists(&'static str),
}

#[derive(Clone, Debug)]
pub struct Bind {
    pub name: String,
    pub path: &'static str,
    pub ty: Option<Ty>,
}

#[derive(Clone, Debug)]
pub struct Step {
    pub name: String,
    pub tool: String,
    /// Index into the world's tools (`None` once a mutation names an
    /// unknown tool).
    pub tool_index: Option<usize>,
    pub args: Vec<(String, Val)>,
    pub binds: Vec<Bind>,
    pub posts: Vec<Probe>,
    pub on_unmet: Option<&'static str>,
    pub retry: Option<u32>,
    pub after: Vec<String>,
}

#[derive(Clone, Debug)]
pub struct Plan {
    pub name: String,
    pub goal: Option<String>,
    pub replans: Option<u32>,
    pub max_steps: Option<u32>,
    pub steps: Vec<Step>,
}

// ---------------------------------------------------------------- generation

/// The strings an allowlist is drawn from: empty, accented, a quote and a
/// backslash to escape.
const ALLOWED: &[&str] = &["a", "b é", "", "q\"u", "t\\b", "acc_4711"];

/// The patterns a policy may hold, each with strings it matches as a
/// whole: a quote and a backslash to escape in both forms, a non-ASCII
/// letter, an alternation that only matches whole.
pub const PATTERNS: &[(&str, &[&str])] = &[
    ("acc_[0-9]+", &["acc_4711", "acc_1"]),
    ("q\"u|t\\\\b", &["q\"u", "t\\b"]),
    ("[a-z]+ é", &["b é", "ab é"]),
    ("a|ab", &["a", "ab"]),
];

impl Param {
    /// The literals a plan may pass: the allowlist, or the pattern's
    /// samples.
    pub fn literals(&self) -> Option<Vec<String>> {
        if let Some(values) = &self.allow {
            return Some(values.clone());
        }
        let (_, samples) = PATTERNS.get(self.pattern?)?;
        Some(samples.iter().map(|s| (*s).to_string()).collect())
    }

    /// The pattern's regular expression, if the policy holds one.
    pub fn regex(&self) -> Option<&'static str> {
        PATTERNS.get(self.pattern?).map(|(re, _)| *re)
    }
}

pub fn world(c: &mut Choices<'_>) -> World {
    let n = c.range(1, 5);
    let mut tools = Vec::with_capacity(n);
    for t in 0..n {
        let mut params = Vec::new();
        for p in 0..c.range(0, 4) {
            let ty = *c.pick(PARAM_TYPES).unwrap_or(&Ty::Str);
            let ceiling = match ty {
                Ty::Int | Ty::Dec if !c.one_in(3) => Some(c.range(1, 1000) as i64),
                _ => None,
            };
            let default = if c.one_in(3) {
                match ty {
                    Ty::Str => Some(Val::Str(
                        (0..c.range(0, 4))
                            .map(|_| ['a', 'b', ' ', 'é'][c.below(4)])
                            .collect(),
                    )),
                    Ty::Int => Some(Val::Int(c.range(0, ceiling.unwrap_or(50) as usize) as i64)),
                    Ty::Bool => Some(Val::Bool(c.one_in(2))),
                    Ty::Enum => Some(Val::Enum("b")),
                    _ => None,
                }
            } else {
                None
            };
            // An allowlist over a string with no default, whose values
            // need escaping in both forms.
            let allow = (ty == Ty::Str && default.is_none() && c.one_in(3)).then(|| {
                let mut values: Vec<String> = Vec::new();
                for _ in 0..c.range(1, 3) {
                    let v = (*c.pick(ALLOWED).unwrap_or(&"a")).to_string();
                    if !values.contains(&v) {
                        values.push(v);
                    }
                }
                values
            });
            let pattern = (ty == Ty::Str && default.is_none() && allow.is_none() && c.one_in(3))
                .then(|| c.below(PATTERNS.len()));
            let trusted = c.one_in(4);
            let total = (ty == Ty::Int && default.is_none() && c.one_in(3))
                .then(|| c.range(0, 2000) as i64);
            params.push(Param {
                name: format!("p{p}"),
                ty,
                ceiling,
                allow,
                pattern,
                default,
                trusted,
                total,
            });
        }
        let mut scopes: BTreeSet<String> = BTreeSet::new();
        for _ in 0..c.range(1, 2) {
            scopes.insert((*c.pick(SCOPES).unwrap_or(&"kb:read")).to_string());
        }
        let write = c.one_in(2);
        tools.push(Tool {
            name: format!("t{t}.op"),
            params,
            write,
            idempotent: !write || c.one_in(3),
            untrusted: !write && c.one_in(4),
            scopes: scopes.into_iter().collect(),
            approval: c.one_in(4),
            calls: c.one_in(4).then(|| c.range(1, 3)),
        });
    }
    let mut actor: BTreeSet<String> = tools.iter().flat_map(|t| t.scopes.clone()).collect();
    if c.one_in(2) {
        actor.insert("extra:scope".to_string());
    }
    World {
        tools,
        actor: actor.into_iter().collect(),
    }
}

/// Text without `$` (so that an interpolation's text never ends in `$`,
/// which the JSON form cannot write before a `${`: see the report).
fn plain_text(c: &mut Choices<'_>, len: usize) -> String {
    const ALPHABET: &[char] = &[
        'a', 'b', 'z', 'A', '0', '9', ' ', '_', '-', '.', ',', ':', '{', '}', '"', '\\', 'é', '€',
        '\t', '\n', '/',
    ];
    (0..c.range(0, len))
        .map(|_| *c.pick(ALPHABET).unwrap_or(&'a'))
        .collect()
}

/// Any text, `$` and `${` included: a string literal must keep them.
fn any_text(c: &mut Choices<'_>) -> String {
    let mut s = plain_text(c, 6);
    if c.one_in(3) {
        s.push_str(c.pick(&["${", "$", "$${", "${x}", "\\${"]).unwrap_or(&"$"));
        s.push_str(&plain_text(c, 3));
    }
    s
}

fn date(c: &mut Choices<'_>) -> String {
    format!(
        "20{:02}-{:02}-{:02}",
        c.range(0, 99),
        c.range(1, 12),
        c.range(1, 28)
    )
}

/// The bindings of earlier steps: name, type, and whether an untrusted
/// tool bound it.
type Scope = Vec<(String, Option<Ty>, bool)>;

/// A value of type `ty`: a literal (within `ceiling`, from `allow`) or
/// references to `scope`, none to an untrusted binding when `trusted`.
fn value(
    c: &mut Choices<'_>,
    ty: Ty,
    ceiling: Option<i64>,
    allow: Option<&[String]>,
    scope: &Scope,
    trusted: bool,
) -> Val {
    // A reference to an earlier binding of the same type, sometimes.
    let refs: Vec<Val> = scope
        .iter()
        .filter(|(_, _, untrusted)| !(trusted && *untrusted))
        .filter_map(|(name, t, _)| match (t, ty) {
            (Some(t), _) if *t == ty => Some(Val::Ref(name.clone(), None)),
            (None, Ty::Str) => Some(Val::Ref(name.clone(), Some("id".to_string()))),
            _ => None,
        })
        .collect();
    if !refs.is_empty()
        && c.one_in(3)
        && let Some(r) = c.pick(&refs)
    {
        return r.clone();
    }
    match ty {
        Ty::Str => {
            let scalars: Vec<&String> = scope
                .iter()
                .filter(|(_, t, untrusted)| t.is_some_and(Ty::scalar) && !(trusted && *untrusted))
                .map(|(n, _, _)| n)
                .collect();
            if !scalars.is_empty() && c.one_in(3) {
                let mut parts = Vec::new();
                for _ in 0..c.range(1, 3) {
                    if c.one_in(2) {
                        parts.push(Piece::Text(plain_text(c, 5)));
                    }
                    if let Some(n) = c.pick(&scalars) {
                        parts.push(Piece::Ref((*n).clone()));
                    }
                }
                // Adjacent text pieces would merge: keep the model canonical.
                parts.retain(|p| !matches!(p, Piece::Text(t) if t.is_empty()));
                // A string that is one whole `${name}` is a reference in
                // the JSON form, not an interpolation: give it some text.
                if parts.len() == 1 {
                    parts.push(Piece::Text(" ".to_string()));
                }
                if parts.iter().any(|p| matches!(p, Piece::Ref(_))) {
                    return Val::Interp(parts);
                }
            }
            match allow {
                Some(values) => Val::Str(c.pick(values).cloned().unwrap_or_default()),
                None => Val::Str(any_text(c)),
            }
        }
        Ty::Int => Val::Int(c.range(0, ceiling.unwrap_or(100_000) as usize) as i64),
        Ty::Dec => Val::Dec(c.range(0, (ceiling.unwrap_or(100_000) * 100) as usize) as i64),
        Ty::Bool => Val::Bool(c.one_in(2)),
        Ty::Date => Val::Date(date(c)),
        Ty::Datetime => Val::Datetime(format!(
            "{}T{:02}:{:02}:{:02}{}",
            date(c),
            c.range(0, 23),
            c.range(0, 59),
            c.range(0, 59),
            ["Z", "+01:00", "-05:30", ".5Z"][c.below(4)]
        )),
        Ty::Enum => Val::Enum(if c.one_in(2) { "b" } else { "a" }),
        Ty::ListStr => Val::List(
            (0..c.range(0, 3))
                .map(|_| value(c, Ty::Str, None, None, scope, trusted))
                .collect(),
        ),
        Ty::Rec => Val::Rec(vec![
            (
                "x".to_string(),
                value(c, Ty::Int, None, None, scope, trusted),
            ),
            (
                "y".to_string(),
                value(c, Ty::Str, None, None, scope, trusted),
            ),
            (
                "when".to_string(),
                value(c, Ty::Date, None, None, scope, trusted),
            ),
        ]),
    }
}

fn probe(c: &mut Choices<'_>) -> Probe {
    match c.below(8) {
        0 => Probe::Exists(c.pick(&["$.s", "$.items", "$.dt"]).unwrap_or(&"$.s")),
        1 => Probe::Len(*c.pick(OPS).unwrap_or(&Op::Ge), c.range(0, 3) as u32),
        2 => Probe::Compare(
            "$.i",
            *c.pick(OPS).unwrap_or(&Op::Eq),
            Val::Int(c.range(0, 50) as i64),
        ),
        3 => Probe::Compare(
            "$.d",
            *c.pick(OPS).unwrap_or(&Op::Eq),
            Val::Dec(c.range(0, 5000) as i64),
        ),
        4 => Probe::Compare("$.dt", *c.pick(OPS).unwrap_or(&Op::Eq), Val::Date(date(c))),
        5 => Probe::Compare(
            "$.s",
            *c.pick(&[Op::Eq, Op::Ne]).unwrap_or(&Op::Eq),
            Val::Str(["ok", "done", ""][c.below(3)].to_string()),
        ),
        6 => Probe::Compare(
            "$.b",
            *c.pick(&[Op::Eq, Op::Ne]).unwrap_or(&Op::Eq),
            Val::Bool(c.one_in(2)),
        ),
        _ => {
            let values = match c.below(3) {
                0 => vec![Val::Enum("a")],
                1 => vec![Val::Enum("b")],
                _ => vec![Val::Enum("a"), Val::Enum("b")],
            };
            Probe::In("$.e", values, c.one_in(2))
        }
    }
}

pub fn plan(c: &mut Choices<'_>, world: &World) -> Plan {
    let n = c.range(1, 8);
    let mut steps: Vec<Step> = Vec::with_capacity(n);
    let mut scope: Scope = Vec::new();
    // Per tool, its calls so far and what is left of each total.
    let mut calls = vec![0usize; world.tools.len()];
    let mut left: Vec<Vec<Option<i64>>> = world
        .tools
        .iter()
        .map(|t| t.params.iter().map(|p| p.total).collect())
        .collect();
    for i in 0..n {
        // A tool whose `calls` are spent gives way to the next one.
        let first = c.below(world.tools.len());
        let Some(t) = (0..world.tools.len())
            .map(|k| (first + k) % world.tools.len())
            .find(|&k| {
                world.tools[k]
                    .calls
                    .is_none_or(|max| calls.get(k).is_some_and(|&n| n < max))
            })
        else {
            break;
        };
        let Some(tool) = world.tools.get(t) else {
            break;
        };
        calls[t] += 1;
        let mut args = Vec::new();
        for (k, p) in tool.params.iter().enumerate() {
            // An argument with a default is sometimes left out.
            if p.default.is_some() && c.one_in(2) {
                continue;
            }
            let budget = left[t][k];
            let ceiling = match (p.ceiling, budget) {
                (Some(a), Some(b)) => Some(a.min(b)),
                (a, b) => a.or(b),
            };
            let value = value(c, p.ty, ceiling, p.literals().as_deref(), &scope, p.trusted);
            if let (Some(b), Val::Int(v)) = (budget, &value) {
                left[t][k] = Some(b - v);
            }
            args.push((p.name.clone(), value));
        }
        let mut binds = Vec::new();
        for k in 0..c.range(0, 2) {
            let (path, ty) = *c.pick(BIND_PATHS).unwrap_or(&("$.s", Some(Ty::Str)));
            binds.push(Bind {
                name: format!("b{i}_{k}"),
                path,
                ty,
            });
        }
        let posts = (0..c.range(0, 2)).map(|_| probe(c)).collect();
        let on_unmet = match c.below(4) {
            1 => Some("replan"),
            2 => Some("halt"),
            3 => Some("escalate"),
            _ => None,
        };
        let retry = (tool.idempotent && c.one_in(3)).then(|| c.range(0, 3) as u32);
        let mut after = BTreeSet::new();
        if i > 0 && c.one_in(3) {
            after.insert(c.below(i));
        }
        steps.push(Step {
            name: format!("s{i}"),
            tool: tool.name.clone(),
            tool_index: Some(t),
            args,
            binds: binds.clone(),
            posts,
            on_unmet,
            retry,
            after: after.into_iter().map(|j| format!("s{j}")).collect(),
        });
        scope.extend(binds.into_iter().map(|b| (b.name, b.ty, tool.untrusted)));
    }
    Plan {
        name: "gen".to_string(),
        goal: c
            .one_in(2)
            .then(|| plain_text(c, 12).replace(['"', '\\', '\n', '\t'], "")),
        replans: c.one_in(2).then(|| c.range(0, 5) as u32),
        max_steps: c.one_in(2).then(|| (n + c.range(0, 3)) as u32),
        steps,
    }
}

// ---------------------------------------------------------------- text form

/// Escapes a string for a `.plan` string literal: `$` is always escaped,
/// so `${` is never an interpolation.
pub fn text_string(s: &str) -> String {
    let mut out = String::from("\"");
    for ch in s.chars() {
        match ch {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\t' => out.push_str("\\t"),
            '$' => out.push_str("\\$"),
            c => out.push(c),
        }
    }
    out.push('"');
    out
}

fn dec_text(hundredths: i64) -> String {
    format!("{}.{:02}", hundredths / 100, hundredths % 100)
}

fn text_value(v: &Val, out: &mut String) {
    match v {
        Val::Str(s) => out.push_str(&text_string(s)),
        Val::Int(i) => out.push_str(&i.to_string()),
        Val::Dec(d) => out.push_str(&dec_text(*d)),
        Val::Bool(b) => out.push_str(if *b { "true" } else { "false" }),
        Val::Date(d) | Val::Datetime(d) => out.push_str(d),
        Val::Enum(e) => out.push_str(&text_string(e)),
        Val::List(items) => {
            out.push('[');
            for (k, item) in items.iter().enumerate() {
                if k > 0 {
                    out.push_str(", ");
                }
                text_value(item, out);
            }
            out.push(']');
        }
        Val::Rec(fields) => {
            out.push_str("{ ");
            for (k, (name, item)) in fields.iter().enumerate() {
                if k > 0 {
                    out.push_str(", ");
                }
                out.push_str(name);
                out.push_str(": ");
                text_value(item, out);
            }
            out.push_str(" }");
        }
        Val::Ref(name, member) => {
            out.push_str(name);
            if let Some(m) = member {
                out.push('.');
                out.push_str(m);
            }
        }
        Val::Interp(parts) => {
            out.push('"');
            for p in parts {
                match p {
                    Piece::Text(t) => {
                        let quoted = text_string(t);
                        out.push_str(quoted.get(1..quoted.len() - 1).unwrap_or(""));
                    }
                    Piece::Ref(r) => {
                        let _ = write!(out, "${{{r}}}");
                    }
                }
            }
            out.push('"');
        }
    }
}

pub fn tools_text(world: &World) -> String {
    let mut out = String::new();
    for t in &world.tools {
        let params: Vec<String> = t
            .params
            .iter()
            .map(|p| match &p.default {
                Some(d) => {
                    let mut v = String::new();
                    text_value(d, &mut v);
                    format!("{}: {} = {v}", p.name, p.ty.text())
                }
                None => format!("{}: {}", p.name, p.ty.text()),
            })
            .collect();
        let _ = writeln!(
            out,
            "tool {}({}) -> {} {}{}{}",
            t.name,
            params.join(", "),
            RESULT_TYPE,
            if t.write { "write" } else { "read" },
            if t.idempotent { " idempotent" } else { "" },
            if t.untrusted { " untrusted" } else { "" },
        );
    }
    out
}

pub fn policy_text(world: &World) -> String {
    let mut out = format!("policy gen {{\n    actor [{}]\n", world.actor.join(", "));
    for t in &world.tools {
        let _ = write!(out, "    {} requires [{}]", t.name, t.scopes.join(", "));
        if t.approval {
            out.push_str(" approval human");
        }
        let mut ceilings: Vec<String> = t
            .params
            .iter()
            .filter_map(|p| p.ceiling.map(|l| format!("{} <= {l}", p.name)))
            .collect();
        for p in &t.params {
            if let Some(values) = &p.allow {
                let quoted: Vec<String> = values
                    .iter()
                    .map(|v| serde_json::to_string(v).unwrap_or_default())
                    .collect();
                ceilings.push(format!("{} in [{}]", p.name, quoted.join(", ")));
            }
            if let Some(re) = p.regex() {
                let quoted = serde_json::to_string(re).unwrap_or_default();
                ceilings.push(format!("{} matches {quoted}", p.name));
            }
            if p.trusted {
                ceilings.push(format!("{} trusted", p.name));
            }
            if let Some(max) = p.total {
                ceilings.push(format!("total {} <= {max}", p.name));
            }
        }
        if let Some(max) = t.calls {
            ceilings.push(format!("calls <= {max}"));
        }
        if !ceilings.is_empty() {
            let _ = write!(out, " where {}", ceilings.join(", "));
        }
        out.push('\n');
    }
    out.push_str("}\n");
    out
}

/// Where parts of a step landed in the text, for pinning spans.
#[derive(Clone, Debug, Default)]
pub struct StepSpans {
    pub tool: Range<usize>,
    pub args: Vec<(String, Range<usize>)>,
}

fn probe_text(p: &Probe, out: &mut String) {
    match p {
        Probe::Len(op, n) => {
            let _ = write!(out, "len($.items) {} {n}", op.text());
        }
        Probe::Compare(path, op, v) => {
            let _ = write!(out, "{path} {} ", op.text());
            text_value(v, out);
        }
        Probe::In(path, values, negated) => {
            let _ = write!(out, "{path} {}in [", if *negated { "not " } else { "" });
            for (k, v) in values.iter().enumerate() {
                if k > 0 {
                    out.push_str(", ");
                }
                text_value(v, out);
            }
            out.push(']');
        }
        Probe::Exists(path) => {
            let _ = write!(out, "exists({path})");
        }
    }
}

/// The plan as `.plan` text, and where each step's tool and arguments are.
pub fn plan_text(plan: &Plan) -> (String, Vec<StepSpans>) {
    let mut out = format!("plan {}", plan.name);
    if let Some(g) = &plan.goal {
        out.push(' ');
        out.push_str(&text_string(g));
    }
    out.push_str(" {\n");
    if let Some(r) = plan.replans {
        let _ = writeln!(out, "    replans {r}");
    }
    if let Some(m) = plan.max_steps {
        let _ = writeln!(out, "    max_steps {m}");
    }
    let mut spans = Vec::with_capacity(plan.steps.len());
    for s in &plan.steps {
        let mut sp = StepSpans::default();
        let _ = write!(out, "    step {} = ", s.name);
        let start = out.len();
        out.push_str(&s.tool);
        sp.tool = start..out.len();
        out.push('(');
        for (k, (name, v)) in s.args.iter().enumerate() {
            if k > 0 {
                out.push_str(", ");
            }
            let _ = write!(out, "{name}: ");
            let start = out.len();
            text_value(v, &mut out);
            sp.args.push((name.clone(), start..out.len()));
        }
        out.push_str(") {\n");
        for p in &s.posts {
            out.push_str("        post ");
            probe_text(p, &mut out);
            out.push('\n');
        }
        for b in &s.binds {
            let _ = writeln!(out, "        bind {} = {}", b.name, b.path);
        }
        if let Some(o) = s.on_unmet {
            let _ = writeln!(out, "        on_unmet {o}");
        }
        if let Some(r) = s.retry {
            let _ = writeln!(out, "        retry {r}");
        }
        if !s.after.is_empty() {
            let _ = writeln!(out, "        after {}", s.after.join(", "));
        }
        out.push_str("    }\n");
        spans.push(sp);
    }
    out.push_str("}\n");
    (out, spans)
}

// ---------------------------------------------------------------- JSON form

/// A JSON string literal whose text is `s`: `${` is escaped as `$${`.
fn json_plain(s: &str) -> serde_json::Value {
    serde_json::Value::String(s.replace("${", "$${"))
}

/// A decimal as a marker string, replaced by the bare number once the
/// document is written ([`plan_json`]): serde_json would read `12.50`
/// through `f64` and write `12.5`, losing the scale the text form keeps.
fn json_number(text: &str) -> serde_json::Value {
    serde_json::Value::String(format!("{DEC_OPEN}{text}{DEC_CLOSE}"))
}

const DEC_OPEN: &str = "@@dec:";
const DEC_CLOSE: &str = "@@";

fn json_value(v: &Val) -> serde_json::Value {
    use serde_json::Value as J;
    match v {
        Val::Str(s) => json_plain(s),
        Val::Int(i) => J::from(*i),
        Val::Dec(d) => json_number(&dec_text(*d)),
        Val::Bool(b) => J::Bool(*b),
        Val::Date(d) | Val::Datetime(d) => J::String(d.clone()),
        Val::Enum(e) => J::String((*e).to_string()),
        Val::List(items) => J::Array(items.iter().map(json_value).collect()),
        Val::Rec(fields) => J::Object(
            fields
                .iter()
                .map(|(k, v)| (k.clone(), json_value(v)))
                .collect(),
        ),
        Val::Ref(name, member) => J::String(match member {
            Some(m) => format!("${{{name}.{m}}}"),
            None => format!("${{{name}}}"),
        }),
        Val::Interp(parts) => {
            let mut s = String::new();
            for p in parts {
                match p {
                    Piece::Text(t) => s.push_str(&t.replace("${", "$${")),
                    Piece::Ref(r) => {
                        let _ = write!(s, "${{{r}}}");
                    }
                }
            }
            J::String(s)
        }
    }
}

/// A probe literal: plain text, never a reference.
fn json_literal(v: &Val) -> serde_json::Value {
    match v {
        Val::Str(s) => serde_json::Value::String(s.clone()),
        other => json_value(other),
    }
}

fn json_probe(p: &Probe) -> serde_json::Value {
    use serde_json::json;
    match p {
        Probe::Len(Op::Eq, n) => {
            json!({"probe": "result_count", "path": "$.items", "equals": n})
        }
        Probe::Len(op, n) => {
            json!({"probe": "result_count", "path": "$.items", "op": op.text(), "value": n})
        }
        Probe::Compare(path, Op::Eq, v) => {
            json!({"probe": "field_equals", "path": path, "value": json_literal(v)})
        }
        Probe::Compare(path, op, v) => {
            json!({"probe": "field_compare", "path": path, "op": op.text(), "value": json_literal(v)})
        }
        Probe::In(path, values, negated) => json!({
            "probe": if *negated { "field_not_in" } else { "field_in" },
            "path": path,
            "values": values.iter().map(json_literal).collect::<Vec<_>>(),
        }),
        Probe::Exists(path) => json!({"probe": "field_exists", "path": path}),
    }
}

/// The plan in the JSON plan form.
pub fn plan_json(plan: &Plan) -> String {
    use serde_json::{Map, Value as J};
    let mut root = Map::new();
    root.insert("name".into(), J::String(plan.name.clone()));
    if let Some(g) = &plan.goal {
        root.insert("goal".into(), J::String(g.clone()));
    }
    if plan.replans.is_some() || plan.max_steps.is_some() {
        let mut b = Map::new();
        if let Some(r) = plan.replans {
            b.insert("replans".into(), J::from(r));
        }
        if let Some(m) = plan.max_steps {
            b.insert("max_steps".into(), J::from(m));
        }
        root.insert("budget".into(), J::Object(b));
    }
    let steps = plan
        .steps
        .iter()
        .enumerate()
        .map(|(i, s)| {
            let mut o = Map::new();
            o.insert("n".into(), J::from(i));
            o.insert("name".into(), J::String(s.name.clone()));
            o.insert("tool".into(), J::String(s.tool.clone()));
            o.insert(
                "args".into(),
                J::Object(
                    s.args
                        .iter()
                        .map(|(k, v)| (k.clone(), json_value(v)))
                        .collect(),
                ),
            );
            if !s.posts.is_empty() {
                let posts: Vec<J> = s.posts.iter().map(json_probe).collect();
                let post = if posts.len() == 1 {
                    posts.into_iter().next().unwrap_or(J::Null)
                } else {
                    J::Array(posts)
                };
                o.insert("post".into(), post);
            }
            if !s.binds.is_empty() {
                o.insert(
                    "binds".into(),
                    J::Object(
                        s.binds
                            .iter()
                            .map(|b| (b.name.clone(), J::String(b.path.to_string())))
                            .collect(),
                    ),
                );
            }
            if let Some(u) = s.on_unmet {
                o.insert("on_unmet".into(), J::String(u.to_string()));
            }
            if let Some(r) = s.retry {
                o.insert("retry".into(), J::from(r));
            }
            if !s.after.is_empty() {
                o.insert(
                    "after".into(),
                    J::Array(s.after.iter().map(|a| J::String(a.clone())).collect()),
                );
            }
            J::Object(o)
        })
        .collect();
    root.insert("steps".into(), J::Array(steps));
    serde_json::to_string_pretty(&J::Object(root))
        .unwrap_or_default()
        .replace(&format!("\"{DEC_OPEN}"), "")
        .replace(&format!("{DEC_CLOSE}\""), "")
}

// ---------------------------------------------------------------- JSON catalogue and policy

fn schema(ty: Ty) -> serde_json::Value {
    use serde_json::json;
    match ty {
        Ty::Str => json!({"type": "string"}),
        Ty::Int => json!({"type": "integer"}),
        Ty::Dec => json!({"type": "number"}),
        Ty::Bool => json!({"type": "boolean"}),
        Ty::Date => json!({"type": "string", "format": "date"}),
        Ty::Datetime => json!({"type": "string", "format": "date-time"}),
        Ty::Enum => json!({"type": "string", "enum": ["a", "b"]}),
        Ty::ListStr => json!({"type": "array", "items": {"type": "string"}}),
        Ty::Rec => json!({
            "type": "object",
            "properties": {
                "x": {"type": "integer"},
                "y": {"type": "string"},
                "when": {"type": "string", "format": "date"}
            },
            "required": ["x", "y", "when"]
        }),
    }
}

/// The catalogue as an MCP `tools/list` result: the same tools as
/// [`tools_text`].
pub fn tools_json(world: &World) -> String {
    use serde_json::json;
    let result = json!({
        "type": "object",
        "properties": {
            "s": schema(Ty::Str),
            "i": schema(Ty::Int),
            "d": schema(Ty::Dec),
            "b": schema(Ty::Bool),
            "dt": schema(Ty::Date),
            "e": schema(Ty::Enum),
            "items": {"type": "array", "items": {
                "type": "object",
                "properties": {"id": {"type": "string"}},
                "required": ["id"]
            }},
            "m": {"type": "object", "additionalProperties": schema(Ty::Dec)}
        },
        "required": ["s", "i", "d", "b", "dt", "e", "items", "m"]
    });
    let tools: Vec<serde_json::Value> = world
        .tools
        .iter()
        .map(|t| {
            let properties: serde_json::Map<String, serde_json::Value> = t
                .params
                .iter()
                .map(|p| {
                    let mut s = schema(p.ty);
                    if let Some(d) = &p.default {
                        s["default"] = json_literal(d);
                    }
                    (p.name.clone(), s)
                })
                .collect();
            let required: Vec<&str> = t
                .params
                .iter()
                .filter(|p| p.default.is_none())
                .map(|p| p.name.as_str())
                .collect();
            json!({
                "name": t.name,
                "inputSchema": {"type": "object", "properties": properties, "required": required},
                "outputSchema": result,
                "annotations": {
                    "readOnlyHint": !t.write,
                    "idempotentHint": t.idempotent,
                    "openWorldHint": t.untrusted
                }
            })
        })
        .collect();
    serde_json::to_string_pretty(&json!({ "tools": tools })).unwrap_or_default()
}

/// The policy in its JSON form: the same rules as [`policy_text`].
pub fn policy_json(world: &World) -> String {
    use serde_json::json;
    let tools: serde_json::Map<String, serde_json::Value> = world
        .tools
        .iter()
        .map(|t| {
            let mut rule = json!({ "scopes": t.scopes });
            // One member per rule kind: each parameter it holds of, by name.
            let per_param = |f: &dyn Fn(&Param) -> Option<serde_json::Value>| {
                let m: serde_json::Map<String, serde_json::Value> = t
                    .params
                    .iter()
                    .filter_map(|p| f(p).map(|v| (p.name.clone(), v)))
                    .collect();
                (!m.is_empty()).then_some(serde_json::Value::Object(m))
            };
            if let Some(max) = per_param(&|p| p.ceiling.map(|l| json!(l))) {
                rule["max"] = max;
            }
            if let Some(allow) = per_param(&|p| p.allow.as_ref().map(|v| json!(v))) {
                rule["in"] = allow;
            }
            if let Some(patterns) = per_param(&|p| p.regex().map(|re| json!(re))) {
                rule["matches"] = patterns;
            }
            let trusted: Vec<&str> = t
                .params
                .iter()
                .filter(|p| p.trusted)
                .map(|p| p.name.as_str())
                .collect();
            if !trusted.is_empty() {
                rule["trusted"] = json!(trusted);
            }
            if let Some(totals) = per_param(&|p| p.total.map(|max| json!({ "max": max }))) {
                rule["total"] = totals;
            }
            if let Some(max) = t.calls {
                rule["calls"] = json!(max);
            }
            if t.approval {
                rule["approval"] = json!("human");
            }
            (t.name.clone(), rule)
        })
        .collect();
    serde_json::to_string_pretty(&json!({
        "name": "gen",
        "actor": { "scopes": world.actor },
        "tools": tools
    }))
    .unwrap_or_default()
}

// ------------------------------------------------------- hostile plans

/// The catalogue and policy of `fuzz/fixtures/`: ceilings over an `any`
/// parameter (`billing.refund`'s `amount`), an optional one (`fee`), and a
/// string one a binding of enum type may feed (`billing.change_plan`'s
/// `plan`), with a date ceiling over a defaulted parameter.
pub const HOSTILE_TOOLS: &str = include_str!("../../fuzz/fixtures/tools.plan");
pub const HOSTILE_POLICY: &str = include_str!("../../fuzz/fixtures/policy.plan");

/// Bindings the hostile plan's first step makes, of the result of
/// `shop.quote`: a decimal, an enum, an `any`, an optional decimal, a list.
const HOSTILE_BINDS: [&str; 5] = ["total", "tier", "note", "maybe", "lines"];

/// A value a hostile planner might put under a ceiling: within, above,
/// of another kind (a numeral in a string, a boolean, `null`, a date, a
/// list), or a reference to a binding of any of the quote's types.
fn hostile_value(c: &mut Choices<'_>) -> Option<String> {
    Some(match c.below(13) {
        0 => format!("{}", c.below(501)),
        1 => format!("{}", 501 + c.below(10_000)),
        2 => format!("\"{}\"", c.below(10_000)),
        3 => "true".to_string(),
        4 => "null".to_string(),
        5 => "2026-03-04".to_string(),
        6 => format!("[{}]", c.below(1000)),
        7 => "500.0000000000000001".to_string(),
        8 => "\"enterprise\"".to_string(),
        9 => "\"starter\"".to_string(),
        10 => return None,
        _ => HOSTILE_BINDS[c.below(HOSTILE_BINDS.len())].to_string(),
    })
}

/// A plan file against [`HOSTILE_TOOLS`]: a quote binding values of every
/// type, then calls whose ceilinged arguments are [`hostile_value`]s (an
/// argument left out when the value is `None`). With `declare`, the file
/// also declares a tool or a policy of the planner's own.
pub fn hostile_plan(c: &mut Choices<'_>, declare: bool) -> String {
    let mut out = String::new();
    if declare {
        out.push_str(match c.below(3) {
            0 => "tool billing.refund(order_id: string, amount: any, fee: any) -> { refund_id: string } read idempotent\n\n",
            1 => "policy mine {\n    actor [billing:write]\n    billing.refund requires [billing:write]\n}\n\n",
            _ => "tool kb.wipe(all: bool) -> { ok: bool } read\n\n",
        });
    }
    out.push_str("plan hostile \"g\" {\n");
    out.push_str("    step quote = shop.quote(order_id: \"o\") {\n        post exists($.total)\n");
    for b in HOSTILE_BINDS {
        out.push_str(&format!("        bind {b} = $.{b}\n"));
    }
    out.push_str("    }\n");
    for i in 0..c.range(1, 4) {
        let mut args = vec!["order_id: \"o\"".to_string()];
        let (tool, names): (&str, &[&str]) = if c.one_in(3) {
            ("billing.change_plan", &["plan", "effective"])
        } else {
            ("billing.refund", &["amount", "fee"])
        };
        if tool == "billing.change_plan" {
            args = vec!["account_id: \"a\"".to_string()];
        }
        for n in names {
            if let Some(v) = hostile_value(c) {
                args.push(format!("{n}: {v}"));
            }
        }
        out.push_str(&format!(
            "    step s{i} = {tool}({}) {{\n        post exists($)\n    }}\n",
            args.join(", ")
        ));
    }
    out.push_str("}\n");
    out
}

/// [`HOSTILE_POLICY`] with one clause broken the way a careless author
/// breaks it (a keyword followed by the wrong word, brackets forgotten, a
/// `where` with no comparison, a limit in quotes), or `None` for a choice
/// that leaves it intact.
pub fn malformed_policy(c: &mut Choices<'_>) -> Option<String> {
    let (from, to): (&str, &str) = match c.below(7) {
        0 => ("approval human", "approval Human"),
        1 => ("approval human", "approval"),
        2 => (
            "requires [billing:write] where",
            "requires billing:write where",
        ),
        3 => ("where amount <= 500, fee <= 20", "where amount"),
        4 => ("amount <= 500", "amount <= \"500\""),
        5 => ("where plan != \"enterprise\"", "where \"enterprise\""),
        _ => return None,
    };
    Some(HOSTILE_POLICY.replacen(from, to, 1))
}
