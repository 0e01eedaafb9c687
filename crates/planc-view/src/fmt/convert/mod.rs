//! Conversion between the text and JSON forms (`planc fmt --to json|plan`):
//! a syntax tree, read from either form, written in the other.
//!
//! The conversion is lossless "for everything the JSON
//! form can express". What that means here:
//!
//! - **One kind per JSON document.** The JSON forms keep a plan (the JSON
//!   plan shape), a catalogue (an MCP `tools/list` result) and a policy (the
//!   JSON policy shape) apart, and a JSON plan or policy holds one. A `.plan`
//!   file that mixes kinds, or holds two plans or two policies, is refused
//!   at the first declaration that does not fit, rather than guessed at.
//! - **Refused, never changed.** Whatever the JSON form would read back with
//!   another meaning is a diagnostic (E0701; E0702 into text) at its span:
//!   a string that is exactly one interpolation (`"${x}"` is a string in the
//!   text form, the reference itself in JSON), a literal `$` right before an
//!   interpolation (JSON reads `$${` as an escaped `${`), a ceiling other than
//!   `<=` (`max`) or `>=` (`min`), a `len` probe not compared with a count, a
//!   scope the JSON policy reader rejects, a step with two `on_unmet` or
//!   `retry` clauses, names given twice where JSON would need a key twice
//!   (arguments, record entries, binds, parameters, fields, policy rules,
//!   ceilings), and any part the front end could not read.
//! - **Left out, and said so.** Comments are not in the syntax tree. Doc
//!   comments of plans, steps and policies have no place in the JSON plan
//!   and policy shapes, and carry no meaning (the IR holds none), so they
//!   are left out; [`left_out_of_json`] says where, and `planc fmt --to
//!   json` prints a note of them on stderr. The doc comments of tools,
//!   parameters and record fields become `description`s, which convert
//!   back.
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
//!   probe without `path` (the text form has no `len` without a path)
//!   unless the catalogue makes it explicit first ([`make_explicit`], which
//!   also turns a date string for a `date` parameter back into a date
//!   literal; `planc fmt --to plan` reads the catalogue of the `planc.toml`
//!   found from the file). JSON steps get their names (`step_N` for a
//!   numbered step); `after` by number is already a name in the tree.
//!   Calls, parameters and records come out on one line (unless a doc
//!   comment needs lines of their own), and the layout breaks those wider
//!   than its width, as `planc fmt` does; a policy rule always says
//!   `requires`, as a JSON rule always holds `scopes`.
//! - **Order.** A JSON step's clause keys are written in the order of each
//!   kind's first clause, and read back in the order of the keys.
//!
//! Recursion over expressions and types is bounded: both front ends cap
//! nesting at [`planc_lang::limits::MAX_DEPTH`] levels before building the tree,
//! and the JSON document built here nests at most a few levels per level of
//! the tree.

//!
//! `json.rs` writes a tree in the JSON form, `text.rs` in the text form.

mod json;
mod text;

use crate::diagnostics::{Code, Diagnostic};
use crate::source::{FileId, SourceMap, Span, Spanned};
use crate::syntax::ast::{Effect, Module, Reference, ToolDecl};

/// Why a module cannot be written in the other form: the construct, at its
/// span. It becomes a [`Diagnostic`] of the direction's code (E0701 into
/// JSON, E0702 into text) at the module's edge.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(super) struct Refusal {
    span: Span,
    message: String,
}

impl Refusal {
    fn diagnostic(self, code: Code) -> Diagnostic {
        let (label, help) = if code == Code::E0701 {
            (
                "the JSON form cannot hold this",
                "write it in a way the JSON form holds (see `planc explain E0701`), or keep the \
                 file in the text form",
            )
        } else {
            (
                "the text form cannot spell this",
                "change it in the JSON document (see `planc explain E0702`), or keep the file in \
                 the JSON form",
            )
        };
        Diagnostic::new(code, self.span, self.message)
            .with_label(label)
            .with_help(help)
    }
}

pub(super) type Result<T> = std::result::Result<T, Refusal>;

pub(super) fn fail<T>(span: Span, message: impl Into<String>) -> Result<T> {
    Err(Refusal {
        span,
        message: message.into(),
    })
}

/// What the JSON form of a text module cannot carry, where it starts (byte
/// offsets into `text`, in order): every plain `//` comment, and the doc
/// comments of plans, steps and policies (those of tools, parameters and
/// fields become `description`s). `planc fmt --to json` says so rather
/// than drop them silently.
pub fn left_out_of_json(text: &str, module: &Module) -> Vec<u32> {
    use crate::syntax::ast::Item;
    // Offsets fit in a u32: source files are capped far below 4 GiB.
    let mut at: Vec<u32> = crate::fmt::layout::comment_offsets(text)
        .into_iter()
        .map(|o| u32::try_from(o).unwrap_or(u32::MAX))
        .collect();
    let mut doc = |d: &crate::syntax::ast::Doc| {
        if let Some(span) = d.span.filter(|_| !d.is_empty()) {
            at.push(span.start);
        }
    };
    for item in &module.items {
        match item {
            Item::Plan(p) => {
                doc(&p.doc);
                p.steps.iter().for_each(|s| doc(&s.doc));
            }
            Item::Policy(p) => doc(&p.doc),
            Item::Tool(_) | Item::Error(_) => {}
        }
    }
    at.sort_unstable();
    at
}

/// A module (as read from either form) written in the JSON form: a plan as
/// the JSON plan shape, a catalogue (tool declarations) as an MCP
/// `tools/list` result with JSON Schema types, a policy as the JSON policy
/// shape; pretty-printed with a 2-space indent, keys in the order of the
/// examples in docs/json.md. Err (E0701) when the module holds something
/// the JSON form cannot express, or mixes kinds (see the module's
/// documentation).
pub fn to_json(module: &Module) -> std::result::Result<String, Box<Diagnostic>> {
    json::to_json(module).map_err(|r| Box::new(r.diagnostic(Code::E0701)))
}

/// A module written in the text form: valid planc syntax, 4-space indent,
/// one step, clause and policy rule per line, not yet laid out. Err (E0702)
/// when it holds what the text form cannot spell (see the module's
/// documentation).
pub fn to_text(module: &Module) -> std::result::Result<String, Box<Diagnostic>> {
    text::to_text(module).map_err(|r| Box::new(r.diagnostic(Code::E0702)))
}

/// The form a file is converted to.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Form {
    /// The text form, laid out as `planc fmt` lays it out.
    Plan,
    /// The JSON form of what the file holds.
    Json,
}

/// A file converted: its syntax tree, and the text in the other form.
pub struct Converted {
    pub module: Module,
    pub text: String,
}

/// `planc fmt --to FORM`: file `file` of `sources` read in its form (a JSON
/// document as a plan, a catalogue or a policy, told apart by its keys) and
/// written in `form` (into text, made explicit with `catalog` when there is
/// one, and laid out). Err with the diagnostics that stop it: the front
/// end's errors, or the construct the other form cannot hold (E0701,
/// E0702).
pub fn convert(
    sources: &mut SourceMap,
    file: FileId,
    form: Form,
    catalog: Option<&crate::catalog::Catalog>,
) -> std::result::Result<Converted, Vec<Diagnostic>> {
    let (mut module, diagnostics) = crate::driver::parse(sources, file, crate::driver::Role::Plan);
    if diagnostics.iter().any(Diagnostic::is_error) {
        return Err(diagnostics);
    }
    let text = match form {
        Form::Json => to_json(&module),
        Form::Plan => {
            if let Some(catalog) = catalog {
                make_explicit(&mut module, catalog);
            }
            // Laid out as `planc fmt` would, when the layout takes it.
            to_text(&module).map(|t| crate::fmt::layout::layout(&t).unwrap_or(t))
        }
    }
    .map_err(|d| vec![*d])?;
    Ok(Converted { module, text })
}

pub(super) fn unreadable(what: &str) -> String {
    format!("this {what} could not be read: fix its errors before converting the file")
}

pub(super) fn reference_path(r: &Reference) -> String {
    let mut s = r.name.node.to_string();
    for m in &r.members {
        s.push('.');
        s.push_str(&m.node);
    }
    s.to_string()
}

/// A tool's effect as the text form must state it: a JSON catalogue's
/// entry without `readOnlyHint` (an OpenAI function) counts as `write`, and
/// is written so.
pub(super) fn effect(t: &ToolDecl) -> Effect {
    Effect::stated_or_write(t.effect.as_ref().map(|e| e.node))
}

/// Makes explicit, with the catalogue, what a JSON plan leaves to it, so
/// that the text form says the same: a string given for a `date` or
/// `datetime` parameter that is one becomes a date literal (the JSON form
/// has no date values), and a `result_count` probe without `path` gets the
/// path of the list it counts (the text form's `len(PATH)` names it), as
/// the checker decides it ([`crate::catalog::Ty::counted`]). Steps calling
/// a tool the catalogue lacks are left as they are.
pub fn make_explicit(module: &mut Module, catalog: &crate::catalog::Catalog) {
    use crate::catalog::{Counted, Ty};
    use crate::syntax::ast::{Clause, ExprKind, Item, Literal, Path, PathSeg, ProbeKind};
    for item in &mut module.items {
        let Item::Plan(plan) = item else { continue };
        for step in &mut plan.steps {
            let Some(tool) = catalog.get(&step.tool.node) else {
                continue;
            };
            for arg in &mut step.args {
                let Some(param) = tool.param(&arg.name.node) else {
                    continue;
                };
                if let ExprKind::Literal(Literal::String(s)) = &arg.value.node {
                    let literal = match param.ty.strip_optional() {
                        Ty::Date if crate::catalog::Date::parse(s).is_some() => {
                            Some(Literal::Date(s.clone()))
                        }
                        Ty::Datetime if crate::catalog::Datetime::parse(s).is_some() => {
                            Some(Literal::Datetime(s.clone()))
                        }
                        _ => None,
                    };
                    if let Some(literal) = literal {
                        arg.value.node = ExprKind::Literal(literal);
                    }
                }
            }
            for clause in &mut step.clauses {
                let Clause::Post(probe) = clause else {
                    continue;
                };
                let ProbeKind::CountDefault { op, value } = &probe.kind else {
                    continue;
                };
                let segments = match tool.result.counted() {
                    Counted::Itself => Vec::new(),
                    Counted::Field(f) => {
                        vec![Spanned::new(PathSeg::Field(f.name.clone()), probe.span)]
                    }
                    Counted::Ambiguous(_) | Counted::Nothing | Counted::Unknown => continue,
                };
                probe.kind = ProbeKind::Len {
                    path: Path {
                        root: None,
                        segments,
                        span: probe.span,
                    },
                    op: *op,
                    value: value.clone(),
                };
            }
        }
    }
}
