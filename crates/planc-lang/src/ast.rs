//! The syntax tree, shared by the text and the JSON front ends.
//!
//! Both front ends (`syntax`) produce this tree; everything after them (the
//! catalogue and policy models, the checker, the lowering, the language
//! server) reads only this. It stands below the front ends, as the
//! catalogue model that reads it does: the front ends check literal dates
//! and merge JSON Schema types with the catalogue's `Date` and `Ty`.
//! `syntax::ast` names it too. A path is written as text by `syntax::path`,
//! with the lexicon's rules, so `Path`'s `Display` is there.
//!
//! A part the parser could not read is an `Error` node carrying its span;
//! the diagnostic for it has already been reported, so later passes skip
//! error nodes silently.

use crate::source::{Span, Spanned};

/// The text of a name, a path's field or a literal: up to 23 bytes are
/// kept inline and longer texts are shared, so the tree, the checker's
/// model and the IR copy names without allocating (and free nothing when
/// they drop). It reads as a `&str`.
pub type Str = smol_str::SmolStr;

/// A name as written: an identifier, a dotted tool name, a scope.
pub type Name = Spanned<Str>;

/// One parsed file: its declarations in source order.
#[derive(Clone, Debug, PartialEq, Default)]
pub struct Module {
    pub items: Vec<Item>,
}

impl Module {
    pub fn tools(&self) -> impl Iterator<Item = &ToolDecl> {
        self.items.iter().filter_map(|i| match i {
            Item::Tool(t) => Some(t),
            _ => None,
        })
    }

    pub fn policies(&self) -> impl Iterator<Item = &PolicyDecl> {
        self.items.iter().filter_map(|i| match i {
            Item::Policy(p) => Some(p),
            _ => None,
        })
    }

    pub fn plans(&self) -> impl Iterator<Item = &PlanDecl> {
        self.items.iter().filter_map(|i| match i {
            Item::Plan(p) => Some(p),
            _ => None,
        })
    }
}

#[derive(Clone, Debug, PartialEq)]
pub enum Item {
    Tool(ToolDecl),
    Policy(PolicyDecl),
    Plan(PlanDecl),
    /// A declaration the parser could not read.
    Error(Span),
}

/// The text of the `///` comments before a declaration, one line each,
/// without the slashes and the first space.
#[derive(Clone, Debug, PartialEq, Default)]
pub struct Doc {
    pub lines: Vec<String>,
    pub span: Option<Span>,
}

impl Doc {
    pub fn text(&self) -> String {
        self.lines.join("\n")
    }

    pub fn is_empty(&self) -> bool {
        self.lines.is_empty()
    }
}

// ---------------------------------------------------------------- tools

/// `tool NAME(PARAMS) -> TYPE read|write [idempotent] [untrusted]`
#[derive(Clone, Debug, PartialEq)]
pub struct ToolDecl {
    pub doc: Doc,
    /// A dotted name (`billing.issue_credit`) or a plain one (`get_order`,
    /// as MCP catalogues name tools).
    pub name: Name,
    pub params: Vec<Param>,
    pub result: Type,
    /// `None` when the declaration does not state it: an error in the text
    /// form (the parser reports it); in a JSON catalogue, an entry without
    /// `readOnlyHint` (or an OpenAI function), which counts as `write`
    /// unless the policy states the effect.
    pub effect: Option<Spanned<Effect>>,
    /// `idempotent` in the text form (`true`); `idempotentHint` in a JSON
    /// catalogue (`true` or `false`). `None` when not stated: not
    /// idempotent, unless the policy says so.
    pub idempotent: Option<Spanned<bool>>,
    pub untrusted: Option<Span>,
    /// Where a catalogue entry's schema could not be fully mapped (W0501,
    /// already reported): the tool is imported, but a step calling it is
    /// an error (E0111). Always `None` for a `tool` declaration in text.
    pub degraded: Option<Span>,
    /// Read from a JSON catalogue, a document planc does not own: a
    /// default that is not a value of its parameter's type is W0502 and
    /// ignored (JSON Schema does not require a `default` to be valid
    /// against its schema), where in a `tool` declaration it is an error.
    /// `false` for a `tool` declaration in text.
    pub foreign: bool,
    pub span: Span,
}

#[derive(Clone, Debug, PartialEq)]
pub struct Param {
    pub doc: Doc,
    pub name: Name,
    pub ty: Type,
    pub default: Option<Expr>,
    pub span: Span,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Effect {
    Read,
    Write,
}

impl Effect {
    /// The effect of a tool: the one stated, or, when nobody states one, a
    /// write (the conservative choice).
    pub fn stated_or_write(stated: Option<Effect>) -> Effect {
        stated.unwrap_or(Effect::Write)
    }

    /// Whether calling a tool of this effect again would repeat what an
    /// earlier call did: a write that is not `idempotent`.
    pub fn repeats(self, idempotent: bool) -> bool {
        self == Effect::Write && !idempotent
    }

    pub fn as_str(self) -> &'static str {
        match self {
            Effect::Read => "read",
            Effect::Write => "write",
        }
    }
}

// ---------------------------------------------------------------- types

pub type Type = Spanned<TypeKind>;

#[derive(Clone, Debug, PartialEq)]
pub enum TypeKind {
    Prim(Prim),
    /// `[T]`
    List(Box<Type>),
    /// `{ name: T, opt?: T }`
    Record(Vec<Field>),
    /// `{[string]: T}`: a map from string keys to values of `T`.
    Map(Box<Type>),
    /// `"a" | "b"`: a string restricted to these values.
    Enum(Vec<Spanned<Str>>),
    /// `1`, `2.5`, `true`: a number or boolean literal as a type, the one
    /// value it names (only `Int`, `Decimal` and `Bool` literals).
    Literal(Literal),
    /// `string | int`, `1 | 2 | 5`: a value of any of the members, at
    /// least two, in the order written. A member written as a string is an
    /// `Enum` of that one value.
    Union(Vec<Type>),
    /// `T?`: `T` or `null`.
    Optional(Box<Type>),
    Error,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Prim {
    String,
    Int,
    Decimal,
    Bool,
    Date,
    Datetime,
    Null,
    Any,
}

impl Prim {
    pub const ALL: [Prim; 8] = [
        Prim::String,
        Prim::Int,
        Prim::Decimal,
        Prim::Bool,
        Prim::Date,
        Prim::Datetime,
        Prim::Null,
        Prim::Any,
    ];

    pub fn as_str(self) -> &'static str {
        match self {
            Prim::String => "string",
            Prim::Int => "int",
            Prim::Decimal => "decimal",
            Prim::Bool => "bool",
            Prim::Date => "date",
            Prim::Datetime => "datetime",
            Prim::Null => "null",
            Prim::Any => "any",
        }
    }

    pub fn from_name(s: &str) -> Option<Prim> {
        Prim::ALL.into_iter().find(|p| p.as_str() == s)
    }
}

#[derive(Clone, Debug, PartialEq)]
pub struct Field {
    pub doc: Doc,
    pub name: Name,
    pub optional: bool,
    pub ty: Type,
    pub span: Span,
}

// ---------------------------------------------------------------- policies

/// `policy NAME { actor [...]  max_steps N  RULE* }`
#[derive(Clone, Debug, PartialEq)]
pub struct PolicyDecl {
    pub doc: Doc,
    pub name: Name,
    /// The `actor [scope, …]` line: the scopes the acting agent holds.
    pub actor: Option<Spanned<Vec<Name>>>,
    /// `max_steps N`: no plan checked under this policy may be longer.
    pub max_steps: Option<Spanned<u64>>,
    /// `replans <= N`: the most replans of any plan the policy governs (the
    /// stricter of this and the plan's own `replans` holds).
    pub replans: Option<Spanned<u64>>,
    pub rules: Vec<PolicyRule>,
    pub span: Span,
}

/// `TOOL requires [scope, …] approval human where ARG <= LIMIT, …`
#[derive(Clone, Debug, PartialEq)]
pub struct PolicyRule {
    pub tool: Name,
    pub requires: Vec<Name>,
    pub approval: Option<Spanned<Approval>>,
    pub ceilings: Vec<Ceiling>,
    /// The other rules of the `where` list, over one argument each: `in`,
    /// `not in`, `matches`, `trusted`, `total` (`docs/language.md`).
    pub arg_rules: Vec<ArgRule>,
    /// `calls <= N` in the `where` list: the most calls of the tool.
    pub calls: Option<Spanned<u64>>,
    /// `untrusted`: the policy marks this tool's output as untrusted data.
    pub untrusted: Option<Span>,
    /// `untrusted false`: the policy trusts this tool's output, whatever the
    /// catalogue says (an MCP server's `openWorldHint`).
    pub trusted: Option<Span>,
    /// `read` or `write`: the tool's effect, for a catalogue that does not
    /// state it (an error where the catalogue states another).
    pub effect: Option<Spanned<Effect>>,
    /// `idempotent` (`true`) or `idempotent false`, for a catalogue that
    /// does not state it.
    pub idempotent: Option<Spanned<bool>>,
    pub span: Span,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Approval {
    Human,
}

/// `ARG OP LIMIT` in a `where` clause, e.g. `amount_eur <= 500`.
#[derive(Clone, Debug, PartialEq)]
pub struct Ceiling {
    pub arg: Name,
    pub op: Spanned<CmpOp>,
    pub limit: Spanned<Literal>,
    pub span: Span,
}

/// A rule over one argument in a `where` list other than a comparison:
/// `recipient in ["DE89…"]`, `url matches "^https://…"`, `recipient
/// trusted`, `total amount <= 1000 per recipient`.
#[derive(Clone, Debug, PartialEq)]
pub struct ArgRule {
    pub arg: Name,
    pub kind: ArgRuleKind,
    pub span: Span,
}

#[derive(Clone, Debug, PartialEq)]
pub enum ArgRuleKind {
    /// `ARG in [LIT, …]`, or `ARG not in [LIT, …]` when `negated`; `list`
    /// is the bracketed list's span.
    In {
        negated: bool,
        values: Vec<Spanned<Literal>>,
        list: Span,
    },
    /// `ARG matches "RE"`: the whole value matches.
    Matches(Spanned<Str>),
    /// `ARG trusted`: no part of the value is untrusted.
    Trusted,
    /// `total ARG <= N [per ARG2]`: the sum over every call of the tool.
    Total {
        max: Spanned<Literal>,
        per: Option<Name>,
    },
}

impl ArgRuleKind {
    /// The rule's keyword, as the text form writes it.
    pub fn keyword(&self) -> &'static str {
        match self {
            ArgRuleKind::In { negated: false, .. } => "in",
            ArgRuleKind::In { negated: true, .. } => "not in",
            ArgRuleKind::Matches(_) => "matches",
            ArgRuleKind::Trusted => "trusted",
            ArgRuleKind::Total { .. } => "total",
        }
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum CmpOp {
    Eq,
    Ne,
    Lt,
    Le,
    Gt,
    Ge,
}

impl CmpOp {
    pub fn as_str(self) -> &'static str {
        match self {
            CmpOp::Eq => "==",
            CmpOp::Ne => "!=",
            CmpOp::Lt => "<",
            CmpOp::Le => "<=",
            CmpOp::Gt => ">",
            CmpOp::Ge => ">=",
        }
    }

    pub fn from_symbol(s: &str) -> Option<CmpOp> {
        Some(match s {
            "==" => CmpOp::Eq,
            "!=" => CmpOp::Ne,
            "<" => CmpOp::Lt,
            "<=" => CmpOp::Le,
            ">" => CmpOp::Gt,
            ">=" => CmpOp::Ge,
            _ => return None,
        })
    }
}

// ---------------------------------------------------------------- plans

/// `plan NAME "goal" { replans N  max_steps N  STEP* }`
#[derive(Clone, Debug, PartialEq)]
pub struct PlanDecl {
    pub doc: Doc,
    pub name: Name,
    pub goal: Option<Spanned<String>>,
    pub replans: Option<Spanned<u64>>,
    pub max_steps: Option<Spanned<u64>>,
    pub steps: Vec<Step>,
    pub span: Span,
}

/// `step NAME = TOOL(ARG: EXPR, …) { CLAUSE* }`
#[derive(Clone, Debug, PartialEq)]
pub struct Step {
    pub doc: Doc,
    pub name: Name,
    pub tool: Name,
    pub args: Vec<Arg>,
    /// In a JSON plan, the step's `args` object (the step object when it has
    /// none): where a missing argument is reported. `None` in text.
    pub json_args: Option<Span>,
    pub clauses: Vec<Clause>,
    pub span: Span,
}

impl Step {
    /// Cuts the step down to what a check reads of every step before it
    /// checks any: its name, tool, span and `bind` clauses; and its `after`
    /// clauses, whose numbered steps a JSON plan names only once every step
    /// is read. The rest (its doc, arguments and other clauses) is read
    /// again from its span when the step is checked
    /// (`syntax::parse_text_skeletal`, `syntax::read_json_plan_skeletal`).
    pub fn skeleton(&mut self) {
        self.doc = Doc::default();
        self.args = Vec::new();
        self.clauses.retain(Step::kept_by_skeleton);
        self.clauses.shrink_to_fit();
    }

    /// Whether [`Step::skeleton`] keeps `clause`.
    pub fn kept_by_skeleton(clause: &Clause) -> bool {
        matches!(clause, Clause::Bind { .. } | Clause::After { .. })
    }

    pub fn binds(&self) -> impl Iterator<Item = (&Name, &Path)> {
        Clause::binds(&self.clauses)
    }

    pub fn pres(&self) -> impl Iterator<Item = &Probe> {
        self.clauses.iter().filter_map(|c| match c {
            Clause::Pre(p) => Some(p),
            _ => None,
        })
    }

    pub fn posts(&self) -> impl Iterator<Item = &Probe> {
        self.clauses.iter().filter_map(|c| match c {
            Clause::Post(p) => Some(p),
            _ => None,
        })
    }

    pub fn afters(&self) -> impl Iterator<Item = &Name> {
        self.clauses.iter().flat_map(|c| match c {
            Clause::After { steps, .. } => steps.as_slice(),
            _ => &[],
        })
    }
}

#[derive(Clone, Debug, PartialEq)]
pub struct Arg {
    pub name: Name,
    pub value: Expr,
    pub span: Span,
}

#[derive(Clone, Debug, PartialEq)]
pub enum Clause {
    /// `pre PROBE`: its paths are rooted at a binding, never `$`.
    Pre(Probe),
    /// `post PROBE`
    Post(Probe),
    /// `bind NAME = PATH`
    Bind { name: Name, path: Path, span: Span },
    /// `on_unmet replan|halt|escalate`
    OnUnmet(Spanned<OnUnmet>),
    /// `retry N`
    Retry(Spanned<u64>),
    /// `after STEP, …`
    After { steps: Vec<Name>, span: Span },
    /// A clause the parser could not read.
    Error(Span),
}

impl Clause {
    /// The binds among `clauses`: each one's name and path.
    pub fn binds(clauses: &[Clause]) -> impl Iterator<Item = (&Name, &Path)> {
        clauses.iter().filter_map(|c| match c {
            Clause::Bind { name, path, .. } => Some((name, path)),
            _ => None,
        })
    }

    pub fn span(&self) -> Span {
        match self {
            Clause::Pre(p) | Clause::Post(p) => p.span,
            Clause::Bind { span, .. } | Clause::After { span, .. } | Clause::Error(span) => *span,
            Clause::OnUnmet(s) => s.span,
            Clause::Retry(s) => s.span,
        }
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum OnUnmet {
    Replan,
    Halt,
    Escalate,
}

impl OnUnmet {
    pub fn as_str(self) -> &'static str {
        match self {
            OnUnmet::Replan => "replan",
            OnUnmet::Halt => "halt",
            OnUnmet::Escalate => "escalate",
        }
    }

    pub fn from_name(s: &str) -> Option<OnUnmet> {
        Some(match s {
            "replan" => OnUnmet::Replan,
            "halt" => OnUnmet::Halt,
            "escalate" => OnUnmet::Escalate,
            _ => return None,
        })
    }
}

// ---------------------------------------------------------------- paths and probes

/// `$.results[0].id`: a path into a tool's result; or, in a `pre` probe,
/// `settings.region`: a path into a binding, `root` naming it.
#[derive(Clone, Debug, PartialEq)]
pub struct Path {
    /// The binding a `pre` path starts at; `None` for `$`.
    pub root: Option<Name>,
    pub segments: Vec<Spanned<PathSeg>>,
    pub span: Span,
}

#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum PathSeg {
    Field(Str),
    Index(u64),
}

impl Path {
    /// A `pre` path as the reference it starts with (its root binding and
    /// the field segments before the first index, as members) and the
    /// segments from the first index on (`tags[0].name`: `tags` and
    /// `[0].name`). `None` for a `$` path.
    pub fn pre_parts(&self) -> Option<(Reference, &[Spanned<PathSeg>])> {
        let name = self.root.clone()?;
        let k = self
            .segments
            .iter()
            .position(|s| matches!(s.node, PathSeg::Index(_)))
            .unwrap_or(self.segments.len());
        let (fields, rest) = self.segments.split_at(k);
        let members = fields
            .iter()
            .filter_map(|s| match &s.node {
                PathSeg::Field(f) => Some(Spanned::new(f.clone(), s.span)),
                PathSeg::Index(_) => None,
            })
            .collect();
        Some((Reference { name, members }, rest))
    }
}

#[derive(Clone, Debug, PartialEq)]
pub struct Probe {
    pub kind: ProbeKind,
    pub span: Span,
}

impl Probe {
    /// The path the probe tests; `None` for a JSON count without one, or
    /// a probe the front end could not read.
    pub fn path(&self) -> Option<&Path> {
        match &self.kind {
            ProbeKind::Len { path, .. }
            | ProbeKind::Compare { path, .. }
            | ProbeKind::In { path, .. }
            | ProbeKind::Contains { path, .. }
            | ProbeKind::KeysContain { path, .. }
            | ProbeKind::Exists { path } => Some(path),
            ProbeKind::CountDefault { .. } | ProbeKind::Error => None,
        }
    }
}

#[derive(Clone, Debug, PartialEq)]
pub enum ProbeKind {
    /// `len(PATH) OP N`
    Len {
        path: Path,
        op: Spanned<CmpOp>,
        value: Spanned<Literal>,
    },
    /// `PATH OP LITERAL`
    Compare {
        path: Path,
        op: Spanned<CmpOp>,
        value: Spanned<Literal>,
    },
    /// `PATH in [LITERAL, …]`, or `not in` when `negated`.
    In {
        path: Path,
        negated: bool,
        values: Vec<Spanned<Literal>>,
    },
    /// `PATH contains LITERAL`: the list at the path holds the value.
    Contains {
        path: Path,
        value: Spanned<Literal>,
    },
    /// `keys(PATH) contains LITERAL`: the map at the path has the key.
    KeysContain {
        path: Path,
        value: Spanned<Literal>,
    },
    /// `exists(PATH)`
    Exists {
        path: Path,
    },
    /// A JSON `result_count` probe without a `path`: the checker decides
    /// which list it counts (the result itself, or its one list field).
    CountDefault {
        op: Spanned<CmpOp>,
        value: Spanned<Literal>,
    },
    Error,
}

// ---------------------------------------------------------------- expressions

pub type Expr = Spanned<ExprKind>;

#[derive(Clone, Debug, PartialEq)]
pub enum ExprKind {
    Literal(Literal),
    /// A binding, with optional member access: `period_end`, `facts.plan`.
    Ref(Reference),
    List(Vec<Expr>),
    Record(Vec<RecordEntry>),
    /// `"renews on ${period_end}"`: a string built from text and references.
    Interp(Vec<InterpPart>),
    Error,
}

#[derive(Clone, Debug, PartialEq)]
pub struct Reference {
    pub name: Name,
    pub members: Vec<Name>,
}

#[derive(Clone, Debug, PartialEq)]
pub struct RecordEntry {
    pub name: Name,
    pub value: Expr,
}

#[derive(Clone, Debug, PartialEq)]
pub enum InterpPart {
    Text(Str),
    Ref(Spanned<Reference>),
}

/// A literal value. Numbers and dates keep their exact source text; the
/// checker turns them into exact values (never binary floating point).
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum Literal {
    String(Str),
    Int(Str),
    Decimal(Str),
    Bool(bool),
    Null,
    /// `2026-03-04`, already validated as a calendar date by the front end
    /// that read it from a bare literal.
    Date(Str),
    /// `2026-03-04T10:00:00Z`
    Datetime(Str),
}

impl Literal {
    /// How the literal reads in a message: strings quoted, the rest as written.
    pub fn display(&self) -> String {
        match self {
            Literal::String(s) => format!("{s:?}"),
            Literal::Int(t) | Literal::Decimal(t) | Literal::Date(t) | Literal::Datetime(t) => {
                t.to_string()
            }
            Literal::Bool(b) => b.to_string(),
            Literal::Null => "null".to_string(),
        }
    }

    /// A short name of the literal's kind, for messages.
    pub fn kind_name(&self) -> &'static str {
        match self {
            Literal::String(_) => "string",
            Literal::Int(_) => "int",
            Literal::Decimal(_) => "decimal",
            Literal::Bool(_) => "bool",
            Literal::Null => "null",
            Literal::Date(_) => "date",
            Literal::Datetime(_) => "datetime",
        }
    }
}
