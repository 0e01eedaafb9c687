//! The tool catalogue: the closed set of tools a plan may call, with typed
//! parameters, result types and effects.
//!
//! Built from [`ast::ToolDecl`]s, whichever front end produced them: `tool`
//! declarations in `.plan` text, or MCP / OpenAI tool lists read by the JSON
//! front end. The model knows nothing of surface syntax; it keeps spans only
//! so that diagnostics can point at declarations ("declared here").

pub mod types;
pub mod value;

use crate::FastMap;
use crate::ast::{self, Str};
use crate::diagnostics::{Code, Diagnostic, Severity};
use crate::seen::Seen;
use crate::source::{Span, Spanned};

pub use types::{Counted, FieldTy, PathStep, Ty};
pub use value::{Date, Datetime, LiteralError, Value};

/// One tool of the catalogue.
#[derive(Clone, Debug)]
pub struct Tool {
    pub name: Str,
    /// The name in its declaration.
    pub name_span: Span,
    /// The whole declaration.
    pub span: Span,
    pub doc: String,
    pub params: Vec<Param>,
    pub result: Ty,
    /// The effect the catalogue states, where it states it. `None` when it
    /// does not (a JSON entry without `readOnlyHint`, an OpenAI function; a
    /// text declaration without one is an error the parser reported): the
    /// policy may state it, else the tool counts as a write. What a step
    /// gets is [`crate::policy::Traits`], never this alone.
    pub effect: Option<Spanned<ast::Effect>>,
    /// Whether the catalogue states the tool idempotent (`true`) or not
    /// (`false`, `idempotentHint: false`); `None` when it says nothing.
    pub idempotent: Option<Spanned<bool>>,
    /// `untrusted` in the catalogue: the tool's output is outside data.
    pub untrusted: bool,
    /// The effect and idempotence are a server's hints (an MCP or OpenAI
    /// catalogue entry), not an operator's statement: the policy overrides
    /// them both ways ([`crate::policy::Traits::of`]).
    pub hinted: bool,
    /// Where its catalogue entry holds a schema planc could not map (the
    /// W0501 warning): a step that calls the tool is an error (E0111).
    pub degraded: Option<Span>,
}

impl Tool {
    pub fn param(&self, name: &str) -> Option<&Param> {
        self.params.iter().find(|p| p.name == name)
    }

    /// `name(a: T, b: U = 1) -> R read idempotent`, as hover shows it: what
    /// the catalogue states.
    pub fn signature(&self) -> String {
        self.signature_parts().0
    }

    /// [`Tool::signature`], with the byte range of each parameter in it.
    pub fn signature_parts(&self) -> (String, Vec<std::ops::Range<usize>>) {
        let mut s = format!("{}(", self.name);
        let mut ranges = Vec::with_capacity(self.params.len());
        for (i, p) in self.params.iter().enumerate() {
            if i > 0 {
                s.push_str(", ");
            }
            let start = s.len();
            s.push_str(&match &p.default {
                Some(d) => format!("{}: {} = {}", p.name, p.ty, d.display()),
                None => format!("{}: {}", p.name, p.ty),
            });
            ranges.push(start..s.len());
        }
        s.push_str(&format!(") -> {}", self.result));
        if let Some(e) = &self.effect {
            s.push(' ');
            s.push_str(e.node.as_str());
        }
        if self.idempotent.as_ref().is_some_and(|i| i.node) {
            s.push_str(" idempotent");
        }
        if self.untrusted {
            s.push_str(" untrusted");
        }
        (s, ranges)
    }
}

/// One parameter of a tool.
#[derive(Clone, Debug)]
pub struct Param {
    pub name: Str,
    pub name_span: Span,
    pub ty: Ty,
    /// The default value, checked against the type. `None` when there is
    /// none, or when the default was ill-typed (reported).
    pub default: Option<Value>,
    /// The default's span, for labels.
    pub default_span: Option<Span>,
    pub doc: String,
}

impl Param {
    /// A parameter is required unless it has a default or its type is
    /// optional (`T?`, which MCP catalogues produce for properties not in
    /// `required`) or `null`. A parameter of type `any` is required: `any`
    /// says what it accepts, not that it may be left out (`any?` may be).
    pub fn required(&self) -> bool {
        self.default.is_none() && self.default_span.is_none() && !self.ty.may_be_left_out()
    }

    /// Whether a call may leave the parameter out altogether: it is
    /// optional, and has no default or a `null` one (such an argument is
    /// left out of the IR's call, `docs/ir.md`). Any other default is
    /// passed as declared.
    pub fn left_out_of_calls(&self) -> bool {
        !self.required() && matches!(self.default, None | Some(Value::Null))
    }
}

/// The catalogue: tools by name.
#[derive(Clone, Debug, Default)]
pub struct Catalog {
    tools: Vec<Tool>,
    by_name: FastMap<Str, usize>,
}

impl Catalog {
    /// Builds the catalogue from tool declarations, reporting into `diags`:
    /// a tool declared twice (E0104, the first declaration wins), a parameter
    /// or record field declared twice (E0104), an enum value listed twice
    /// (E0104), and a default value that is not of its parameter's type
    /// (E0201, or E0204 for a literal of the right kind that is invalid).
    pub fn build<'a>(
        decls: impl IntoIterator<Item = &'a ast::ToolDecl>,
        diags: &mut Vec<Diagnostic>,
    ) -> Catalog {
        let mut catalog = Catalog::default();
        for decl in decls {
            if let Some(&first) = catalog.by_name.get(&decl.name.node) {
                let first_span = catalog
                    .tools
                    .get(first)
                    .map(|t| t.name_span)
                    .unwrap_or(decl.name.span);
                diags.push(
                    Diagnostic::new(
                        Code::E0104,
                        decl.name.span,
                        format!("tool `{}` is declared more than once", decl.name.node),
                    )
                    .with_label("declared again here")
                    .with_secondary(first_span, "first declared here")
                    .with_help("remove one of the declarations, or rename one of the tools"),
                );
                continue;
            }
            let tool = build_tool(decl, diags);
            catalog
                .by_name
                .insert(tool.name.clone(), catalog.tools.len());
            catalog.tools.push(tool);
        }
        catalog
    }

    pub fn get(&self, name: &str) -> Option<&Tool> {
        self.by_name.get(name).and_then(|&i| self.tools.get(i))
    }

    pub fn tools(&self) -> &[Tool] {
        &self.tools
    }

    pub fn len(&self) -> usize {
        self.tools.len()
    }

    pub fn is_empty(&self) -> bool {
        self.tools.is_empty()
    }

    pub fn names(&self) -> impl Iterator<Item = &str> {
        self.tools.iter().map(|t| t.name.as_str())
    }
}

fn build_tool(decl: &ast::ToolDecl, diags: &mut Vec<Diagnostic>) -> Tool {
    let mut params: Vec<Param> = Vec::with_capacity(decl.params.len());
    for p in &decl.params {
        check_type_decl(&p.ty, diags);
        if let Some(first) = params.iter().find(|q| q.name == p.name.node) {
            diags.push(
                Diagnostic::new(
                    Code::E0104,
                    p.name.span,
                    format!("parameter `{}` is declared more than once", p.name.node),
                )
                .with_label("declared again here")
                .with_secondary(first.name_span, "first declared here"),
            );
            continue;
        }
        let ty = Ty::from_ast(&p.ty);
        let mark = diags.len();
        let default = p
            .default
            .as_ref()
            .and_then(|d| check_default(d, &p.name.node, &ty, diags));
        if decl.foreign
            && let Some(found) = diags.get_mut(mark..)
        {
            ignore_default(found, &decl.name.node, &p.name.node);
        }
        params.push(Param {
            name: p.name.node.clone(),
            name_span: p.name.span,
            ty,
            default,
            default_span: p.default.as_ref().map(|d| d.span),
            doc: p.doc.text(),
        });
    }
    check_type_decl(&decl.result, diags);
    Tool {
        name: decl.name.node.clone(),
        name_span: decl.name.span,
        span: decl.span,
        doc: decl.doc.text(),
        params,
        result: Ty::from_ast(&decl.result),
        effect: decl.effect,
        idempotent: decl.idempotent,
        untrusted: decl.untrusted.is_some(),
        hinted: decl.foreign,
        degraded: decl.degraded,
    }
}

/// Reports duplicate record fields and enum values inside a declared type,
/// and a type nested deeper than [`crate::limits::MAX_DEPTH`] (E0003 at the
/// type: [`Ty::from_ast`] could not represent it, and a type lost to `any`
/// would let a reference into it pass without a guard). The depth counts
/// each list, optional and record field, as [`Ty::from_ast`] does, so a
/// JSON Schema `["array", "null"]` level counts twice. Walks with an
/// explicit stack: the depth is the input's.
fn check_type_decl(ty: &ast::Type, diags: &mut Vec<Diagnostic>) {
    let mut stack: Vec<(&ast::Type, usize)> = vec![(ty, 0)];
    while let Some((t, depth)) = stack.pop() {
        if depth > crate::limits::MAX_DEPTH {
            diags.push(
                Diagnostic::new(
                    Code::E0003,
                    t.span,
                    format!(
                        "this type is nested more than {} levels deep",
                        crate::limits::MAX_DEPTH
                    ),
                )
                .with_label("too deep to represent")
                .with_help("flatten the type: planc refuses a type it cannot represent rather than reading it as `any`"),
            );
            continue;
        }
        match &t.node {
            ast::TypeKind::List(inner)
            | ast::TypeKind::Map(inner)
            | ast::TypeKind::Optional(inner) => {
                stack.push((inner, depth + 1));
            }
            ast::TypeKind::Record(fields) => {
                let mut seen = Seen::new(fields.len());
                for f in fields {
                    if let Some(first) = seen.first(&f.name.node, f.name.span) {
                        diags.push(
                            Diagnostic::new(
                                Code::E0104,
                                f.name.span,
                                format!("field `{}` is declared more than once", f.name.node),
                            )
                            .with_label("declared again here")
                            .with_secondary(first, "first declared here"),
                        );
                    }
                    stack.push((&f.ty, depth + 1));
                }
            }
            ast::TypeKind::Enum(values) => {
                let mut seen = Seen::new(values.len());
                for v in values {
                    if let Some(first) = seen.first(&v.node, v.span) {
                        diags.push(
                            Diagnostic::new(
                                Code::E0104,
                                v.span,
                                format!("enum value {:?} is listed more than once", v.node),
                            )
                            .with_label("listed again here")
                            .with_secondary(first, "first listed here"),
                        );
                    }
                }
            }
            ast::TypeKind::Union(members) => {
                for m in members {
                    stack.push((m, depth + 1));
                }
            }
            ast::TypeKind::Literal(lit) => {
                if Ty::literal_value(lit).is_none() {
                    diags.push(
                        Diagnostic::new(
                            Code::E0204,
                            t.span,
                            format!("`{}` is not a number planc can hold exactly", lit.display()),
                        )
                        .with_label("too many digits")
                        .with_help(
                            "an exact decimal holds 28 significant digits: write a shorter number",
                        ),
                    );
                }
            }
            ast::TypeKind::Prim(_) | ast::TypeKind::Error => {}
        }
    }
}

/// In a JSON catalogue, a default that is not a value of its parameter's
/// type is not an error: JSON Schema only recommends that a `default` be
/// valid against its schema, and the catalogue is not planc's document
/// (one sloppy default must not cost the plans that never call the tool).
/// What [`check_default`] reported becomes W0502: the default is ignored,
/// the parameter stays optional (the tool fills in its own default), and an
/// argument given for it is still checked against the type.
fn ignore_default(found: &mut [Diagnostic], tool: &str, param: &str) {
    for d in found {
        d.code = Code::W0502;
        d.severity = Severity::Warning;
        d.message = format!("tool `{tool}`: {}; the default is ignored", d.message);
        d.help = Some(format!(
            "write a default of the parameter's type, or leave it out: `{param}` may still be left out of a step, and an argument given for it is checked against its type"
        ).into());
        d.fixes.clear();
    }
}

/// A default must be a literal of the parameter's type.
fn check_default(
    expr: &ast::Expr,
    param: &str,
    ty: &Ty,
    diags: &mut Vec<Diagnostic>,
) -> Option<Value> {
    let lit = match &expr.node {
        ast::ExprKind::Literal(lit) => lit,
        ast::ExprKind::Error => return None,
        ast::ExprKind::List(_) | ast::ExprKind::Record(_) => {
            check_composite_default(expr, param, ty, diags);
            return None;
        }
        _ => {
            diags.push(
                Diagnostic::new(
                    Code::E0201,
                    expr.span,
                    format!("the default of `{param}` must be a literal of type `{ty}`"),
                )
                .with_label("not a literal")
                .with_help("a default is fixed in the catalogue: write a single value such as a string, number or date"),
            );
            return None;
        }
    };
    match value::literal_value(lit, ty) {
        Ok((v, _)) => Some(v),
        Err(e) => {
            diags.push(literal_error(
                &e,
                lit,
                ty,
                expr.span,
                &format!("the default of `{param}`"),
            ));
            None
        }
    }
}

/// A list or record default (`[]`, `["a"]`, `{}`): each literal in it
/// checked against the type at its place. The value is not kept (a
/// [`Value`] is a scalar): the parameter is optional, and the tool fills
/// the default in. Walks with an explicit stack: the depth is the input's.
fn check_composite_default(expr: &ast::Expr, param: &str, ty: &Ty, diags: &mut Vec<Diagnostic>) {
    let what = format!("the default of `{param}`");
    let mismatch = |span: Span, ty: &Ty, found: &str| {
        Diagnostic::new(
            Code::E0201,
            span,
            format!("{what} expects `{ty}`, found {found}"),
        )
        .with_label(format!("expected `{ty}`"))
    };
    let mut stack: Vec<(&ast::Expr, Ty)> = vec![(expr, ty.clone())];
    while let Some((e, ty)) = stack.pop() {
        let open = matches!(ty.strip_optional(), Ty::Any | Ty::Error);
        match &e.node {
            ast::ExprKind::Error => {}
            ast::ExprKind::Literal(lit) => {
                if let Err(err) = value::literal_value(lit, &ty) {
                    diags.push(literal_error(&err, lit, &ty, e.span, &what));
                }
            }
            ast::ExprKind::List(items) => match ty.strip_optional() {
                Ty::List(inner) => stack.extend(items.iter().map(|x| (x, (**inner).clone()))),
                _ if open => stack.extend(items.iter().map(|x| (x, Ty::Any))),
                _ => diags.push(mismatch(e.span, &ty, "a list")),
            },
            ast::ExprKind::Record(entries) => match ty.strip_optional() {
                Ty::Record(fields) => {
                    for entry in entries {
                        match fields.iter().find(|f| f.name == entry.name.node) {
                            Some(f) if f.optional => {
                                stack.push((&entry.value, Ty::optional(f.ty.clone())));
                            }
                            Some(f) => stack.push((&entry.value, f.ty.clone())),
                            None => diags.push(
                                mismatch(
                                    entry.name.span,
                                    &ty,
                                    &format!("a field `{}`", entry.name.node),
                                )
                                .with_label("unknown field"),
                            ),
                        }
                    }
                    let missing: Vec<&str> = fields
                        .iter()
                        .filter(|f| !f.optional && !f.ty.accepts_null())
                        .filter(|f| !entries.iter().any(|x| x.name.node == f.name))
                        .map(|f| f.name.as_str())
                        .collect();
                    if !missing.is_empty() {
                        diags.push(
                            mismatch(e.span, &ty, "a record without some of its fields")
                                .with_help(format!("add {}", missing.join(", "))),
                        );
                    }
                }
                Ty::Map(values) => {
                    stack.extend(entries.iter().map(|x| (&x.value, (**values).clone())));
                }
                _ if open => stack.extend(entries.iter().map(|x| (&x.value, Ty::Any))),
                _ => diags.push(mismatch(e.span, &ty, "a record")),
            },
            ast::ExprKind::Ref(_) | ast::ExprKind::Interp(_) => diags.push(
                mismatch(e.span, &ty, "a reference")
                    .with_label("not a literal")
                    .with_help("a default is fixed in the catalogue: write literal values only"),
            ),
        }
    }
}

/// The diagnostic for a literal that is not a value of `expected`: E0201
/// for a literal of another kind, E0204 for one of the right kind that is
/// invalid (outside the enum, not a calendar date, not exact). `what` names
/// the place ("argument `amount_eur`", "the default of `limit`").
pub fn literal_error(
    err: &LiteralError,
    lit: &ast::Literal,
    expected: &Ty,
    span: Span,
    what: &str,
) -> Diagnostic {
    let shown = lit.display();
    match err {
        LiteralError::Mismatch => Diagnostic::new(
            Code::E0201,
            span,
            format!(
                "{what} expects `{expected}`, found {} `{shown}`",
                lit.kind_name()
            ),
        )
        .with_label(format!("expected `{expected}`"))
        .with_help(format!("write a value of type `{expected}` here")),
        LiteralError::NotInEnum => {
            let values: Vec<&str> = expected
                .strip_optional()
                .members()
                .iter()
                .flat_map(|m| match m {
                    Ty::Enum(vs) => vs.iter().map(Str::as_str).collect(),
                    _ => Vec::new(),
                })
                .collect();
            let near = match lit {
                ast::Literal::String(s) => crate::suggest::nearest(s, values.iter().copied()),
                _ => Vec::new(),
            };
            let quoted: Vec<String> = near.iter().map(|v| format!("{v:?}")).collect();
            let quoted: Vec<&str> = quoted.iter().map(String::as_str).collect();
            let d = Diagnostic::new(
                Code::E0204,
                span,
                format!("`{shown}` is not one of the values {what} accepts"),
            )
            .with_label(format!("expected `{expected}`"));
            match (crate::suggest::did_you_mean(&quoted), quoted.first()) {
                (Some(help), Some(best)) => {
                    d.with_help(help)
                        .with_fix(format!("replace with `{best}`"), span, *best)
                }
                _ => {
                    let all = expected.literal_values();
                    if all.len() > values.len() {
                        d.with_help(format!("the values are {}", shown_values(&all)))
                    } else {
                        d.with_help(format!("the values are {}", enum_values(&values)))
                    }
                }
            }
        }
        LiteralError::BadDate => Diagnostic::new(
            Code::E0204,
            span,
            format!("`{shown}` is not a calendar date, as {what} requires"),
        )
        .with_label("not a date")
        .with_help("write a real date as `YYYY-MM-DD`, such as `2026-03-04`"),
        LiteralError::BadDatetime => Diagnostic::new(
            Code::E0204,
            span,
            format!("`{shown}` is not a datetime, as {what} requires"),
        )
        .with_label("not a datetime")
        .with_help("write an RFC 3339 datetime with an offset, such as `2026-03-04T10:00:00Z`"),
        LiteralError::InexactDecimal => Diagnostic::new(
            Code::E0204,
            span,
            format!("`{shown}` has more digits than an exact decimal holds"),
        )
        .with_label("would have to be rounded")
        .with_help("a decimal holds at most 28 significant digits; planc never rounds a literal"),
        LiteralError::IntOverflow => Diagnostic::new(
            Code::E0204,
            span,
            format!("`{shown}` is outside the range of `int`"),
        )
        .with_label("too large for a 64-bit integer"),
    }
}

/// `1`, `2` and `"x"`: a literal union's values, already as a message
/// shows each, for a message.
fn shown_values(values: &[String]) -> String {
    let ticked: Vec<String> = values.iter().map(|v| format!("`{v}`")).collect();
    match ticked.split_last() {
        None => "none".to_string(),
        Some((last, [])) => last.clone(),
        Some((last, init)) => format!("{} and {last}", init.join(", ")),
    }
}

/// `"a"`, `"b"` and `"c"`: an enum's values for a message.
pub fn enum_values(values: &[&str]) -> String {
    let quoted: Vec<String> = values.iter().map(|v| format!("`{v:?}`")).collect();
    match quoted.split_last() {
        None => "none".to_string(),
        Some((last, [])) => last.clone(),
        Some((last, init)) => format!("{} and {last}", init.join(", ")),
    }
}
