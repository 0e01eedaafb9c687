//! Tool catalogues as JSON, read into [`ast::ToolDecl`]s: an MCP
//! `tools/list` result, and OpenAI function tools.
//!
//! Accepted documents:
//! - `{"tools": [TOOL, …], "nextCursor": …}`: an MCP `tools/list` result;
//! - `{"jsonrpc": "2.0", "id": …, "result": {"tools": […]}}`: the whole
//!   JSON-RPC response holding one;
//! - `[TOOL, …]`: a bare array.
//!
//! A TOOL is an MCP tool (`name`, `title`, `description`, `inputSchema`,
//! `outputSchema`, `annotations`), or an OpenAI function tool in the chat
//! shape (`{"type": "function", "function": {name, description,
//! parameters, strict}}`) or the responses shape (`{"type": "function",
//! name, description, parameters, strict}`).
//!
//! JSON Schema maps onto the plan language's types as `docs/catalogs.md`
//! says: `string` (`format: date` is `date`, `format: date-time` is
//! `datetime`), `integer` is `int`, `number` is `decimal`, `boolean` is
//! `bool`, `null`, `array` with `items` is a list, `object` with
//! `properties` is a record (a property not in `required` is optional),
//! `enum` or `const` of strings is an enum, of numbers or booleans a
//! literal union (`1 | 2 | 5`), `type: [..]` and `anyOf`/`oneOf` of several
//! types a union (`string | int`; with `null`, an optional one), and a schema with no
//! type constraint (`{}`) is `any`, as is an `object` that declares no
//! properties (the language has no map type).
//!
//! Keywords that only narrow a value (`minimum`, `maxLength`, `pattern`, …)
//! are accepted but not enforced: the tool validates its own input.
//! Annotations (`title`, `examples`, …) are ignored.
//!
//! The catalogue is not planc's document, so it is read forward-compatibly
//! and degrades per tool, never as a whole:
//! - keys of a tool entry, its `annotations`, the list or the JSON-RPC
//!   response that planc does not use (`execution`, `icons`, …) are ignored;
//! - an unknown JSON Schema keyword is W0502 and ignored, and so is a
//!   constraint planc reads more loosely than written (an array or object
//!   among an enum's values makes it `any`);
//! - a schema planc cannot map (`$ref`, `allOf`, `not`, an ill-typed
//!   keyword, …) is W0501 on the keyword: the tool is imported with `any`
//!   there, and a step that calls it is E0111 (the checker's).
//!
//! A document that is not a tool list at all, or a tool entry without a
//! name, stays E0004.
//!
//! Effects: `readOnlyHint: true` makes a `read` tool, anything else
//! `write` (OpenAI tools have no hints: they are `write`, unless the policy
//! says otherwise); `idempotentHint: true` makes it idempotent;
//! `openWorldHint: true` marks its output untrusted. The protocol defaults
//! `openWorldHint` to true when it is absent; planc marks a tool untrusted
//! only on an explicit `true` (most servers omit the hint, and W0404 on
//! every tool would be noise), and a policy says `untrusted` (or `untrusted
//! false`) where it knows better (docs/threat-model.md). A parameter not in
//! `required` is optional; one with a `default` gets that default, and one
//! whose default is `null` is optional.

use super::ast::{
    Doc, Effect, Expr, Field, Item, Literal, Module, Name, Param, Prim, ToolDecl, Type, TypeKind,
};
use super::json::{Json, Member, Value};
use super::json_plan::plain_expr;
use super::json_reader::Reader;
use crate::diagnostics::{Code, Diagnostic, Severity};
use crate::source::{Span, Spanned};
use crate::suggest;

/// The keys of an MCP tool entry planc knows; the reader ignores others.
pub(crate) const MCP_TOOL_KEYS: &[&str] = &[
    "name",
    "title",
    "description",
    "inputSchema",
    "outputSchema",
    "annotations",
    "_meta",
    "icons",
];
pub(crate) const ANNOTATION_KEYS: &[&str] = &[
    "title",
    "readOnlyHint",
    "destructiveHint",
    "idempotentHint",
    "openWorldHint",
];
pub(crate) const CHAT_KEYS: &[&str] = &["type", "function"];
pub(crate) const FUNCTION_KEYS: &[&str] = &["name", "description", "parameters", "strict"];
pub(crate) const RESPONSES_KEYS: &[&str] = &["type", "name", "description", "parameters", "strict"];
pub(crate) const LIST_KEYS: &[&str] = &["tools", "nextCursor", "_meta"];
pub(crate) const RPC_KEYS: &[&str] = &["jsonrpc", "id", "result"];

/// Every key list of this module, for a test that they fit the reader.
#[cfg(test)]
pub(crate) const SHAPES: &[&[&str]] = &[
    MCP_TOOL_KEYS,
    ANNOTATION_KEYS,
    CHAT_KEYS,
    FUNCTION_KEYS,
    RESPONSES_KEYS,
    LIST_KEYS,
    RPC_KEYS,
];

/// Keywords read into the type.
pub(crate) const MAPPED: &[&str] = &[
    "type",
    "format",
    "items",
    "prefixItems",
    "properties",
    "required",
    "enum",
    "const",
    "anyOf",
    "oneOf",
    "additionalProperties",
];
/// Keywords that describe without constraining: ignored.
pub(crate) const ANNOTATIONS: &[&str] = &[
    "title",
    "description",
    "examples",
    "default",
    "$comment",
    "$schema",
    "$id",
    "deprecated",
    "readOnly",
    "writeOnly",
    "nullable",
];
/// Keywords that narrow a value the type already describes: accepted, not
/// enforced by planc.
pub(crate) const NARROWING: &[&str] = &[
    "minimum",
    "maximum",
    "exclusiveMinimum",
    "exclusiveMaximum",
    "multipleOf",
    "minLength",
    "maxLength",
    "pattern",
    "minItems",
    "maxItems",
    "uniqueItems",
    "minProperties",
    "maxProperties",
    "contentEncoding",
    "contentMediaType",
    "additionalItems",
    "contains",
    "minContains",
    "maxContains",
    "propertyNames",
    "unevaluatedProperties",
    "unevaluatedItems",
    "dependentRequired",
];
/// Keywords of JSON Schema that the types cannot express: the schema
/// degrades to `any` (W0501).
const UNSUPPORTED: &[&str] = &[
    "$ref",
    "$defs",
    "definitions",
    "$anchor",
    "$dynamicRef",
    "$dynamicAnchor",
    "allOf",
    "not",
    "if",
    "then",
    "else",
    "patternProperties",
    "dependentSchemas",
    "dependencies",
];
pub(crate) const TYPE_NAMES: &[&str] = &[
    "string", "integer", "number", "boolean", "null", "array", "object",
];

/// Reads a parsed catalogue document. Never fails.
pub fn read_catalog(text: &str, root: &Json<'_>) -> (Module, Vec<Diagnostic>) {
    let mut r = Reader::new(text);
    let mut items = Vec::new();
    if let Some(tools) = tool_list(&mut r, root) {
        for t in tools {
            match tool(&mut r, t) {
                Some(decl) => items.push(Item::Tool(decl)),
                None => items.push(Item::Error(t.span)),
            }
        }
    }
    (Module { items }, r.diags)
}

/// The array of tools, wherever the document keeps it.
fn tool_list<'v, 'a>(r: &mut Reader<'_>, root: &'v Json<'a>) -> Option<&'v [Json<'a>]> {
    if let Some(items) = root.as_array() {
        return Some(items);
    }
    let list = if root.get("result").is_some() {
        let f = r.fields_open(root, "a JSON-RPC response", RPC_KEYS)?;
        f.get("result")?
    } else {
        root
    };
    let what = if std::ptr::eq(list, root) {
        "a tool catalogue"
    } else {
        "`result`"
    };
    let f = r.fields_open(list, what, LIST_KEYS)?;
    match f.get("tools") {
        None => {
            r.missing_key(list.span, "tools", what);
            None
        }
        Some(t) => match t.as_array() {
            Some(items) => Some(items),
            None => {
                r.ill_typed("`tools`", t, "an array of tools");
                None
            }
        },
    }
}

fn tool(r: &mut Reader<'_>, t: &Json<'_>) -> Option<ToolDecl> {
    if t.as_object().is_none() {
        r.ill_typed("a tool", t, "an object");
        return None;
    }
    match t.get("type") {
        None => mcp_tool(r, t),
        Some(ty) => {
            let kind = r.string("type", ty)?;
            if kind != "function" {
                r.report(
                    Diagnostic::new(
                        Code::E0004,
                        ty.span,
                        format!("only function tools can be read, found a `{kind}` tool"),
                    )
                    .with_label("not `function`")
                    .with_help(
                        "built-in tools of a model provider have no schema to check plans against",
                    ),
                );
                return None;
            }
            if t.get("function").is_some() {
                let f = r.fields_open(t, "a function tool", CHAT_KEYS)?;
                let inner = f.get("function")?;
                let g = r.fields_open(inner, "`function`", FUNCTION_KEYS)?;
                openai_tool(
                    r,
                    t,
                    &g.get("name"),
                    g.get("description"),
                    g.get("parameters"),
                    inner,
                )
            } else {
                let f = r.fields_open(t, "a function tool", RESPONSES_KEYS)?;
                openai_tool(
                    r,
                    t,
                    &f.get("name"),
                    f.get("description"),
                    f.get("parameters"),
                    t,
                )
            }
        }
    }
}

fn tool_name(r: &mut Reader<'_>, holder: &Json<'_>, v: &Option<&Json<'_>>) -> Option<Name> {
    let Some(v) = v else {
        r.missing_key(holder.span, "name", "a tool");
        return None;
    };
    let s = r.string("name", v)?;
    if s.is_empty() {
        r.report(
            Diagnostic::new(Code::E0004, v.span, "a tool name cannot be empty")
                .with_label("empty name"),
        );
        return None;
    }
    Some(Spanned::new(s.to_string(), v.text_span()))
}

fn doc(r: &mut Reader<'_>, v: Option<&Json<'_>>) -> Doc {
    match v.and_then(|v| r.string("description", v).map(|s| (s.to_string(), v.span))) {
        Some((s, span)) => Doc {
            lines: s.lines().map(str::to_string).collect(),
            span: Some(span),
        },
        None => Doc::default(),
    }
}

/// Turns what went wrong in a tool's entry since `mark` (E0004) into
/// W0501 warnings: the tool is imported as far as it maps, and a step that
/// calls it is refused by the checker (E0111). Returns where the first
/// problem is, which that error points at.
fn degrade(r: &mut Reader<'_>, mark: usize, tool: &str) -> Option<Span> {
    let mut first = None;
    for d in r.diags.iter_mut().skip(mark) {
        if d.code != Code::E0004 {
            continue;
        }
        d.code = Code::W0501;
        d.severity = Severity::Warning;
        d.message = format!("tool `{tool}`: {}", d.message);
        d.notes.push(format!(
            "`{tool}` is imported with `any` here; a step that calls it is an error until its schema is fixed"
        ));
        first = first.or(Some(d.span));
    }
    first
}

fn mcp_tool(r: &mut Reader<'_>, t: &Json<'_>) -> Option<ToolDecl> {
    let f = r.fields_open(t, "a tool", MCP_TOOL_KEYS)?;
    let name = tool_name(r, t, &f.get("name"))?;
    let mark = r.diags.len();
    let doc = doc(r, f.get("description"));
    let params = f
        .get("inputSchema")
        .map(|s| params(r, s))
        .unwrap_or_default();
    let result = match f.get("outputSchema") {
        Some(s) => schema_type(r, s),
        None => Spanned::new(TypeKind::Prim(Prim::Any), name.span),
    };
    let mut effect = Spanned::new(Effect::Write, name.span);
    let (mut idempotent, mut untrusted) = (None, None);
    if let Some(a) = f.get("annotations")
        && let Some(af) = r.fields_open(a, "`annotations`", ANNOTATION_KEYS)
    {
        let hint = |r: &mut Reader<'_>, key: &str| {
            af.get(key)
                .and_then(|v| r.boolean(key, v).map(|b| (b, v.span)))
        };
        if let Some((read_only, span)) = hint(r, "readOnlyHint") {
            effect = Spanned::new(
                if read_only {
                    Effect::Read
                } else {
                    Effect::Write
                },
                span,
            );
        }
        idempotent = hint(r, "idempotentHint").and_then(|(b, s)| b.then_some(s));
        untrusted = hint(r, "openWorldHint").and_then(|(b, s)| b.then_some(s));
    }
    let degraded = degrade(r, mark, &name.node);
    Some(ToolDecl {
        doc,
        name,
        params,
        result,
        effect: Some(effect),
        idempotent,
        untrusted,
        degraded,
        span: t.span,
    })
}

fn openai_tool(
    r: &mut Reader<'_>,
    t: &Json<'_>,
    name: &Option<&Json<'_>>,
    description: Option<&Json<'_>>,
    parameters: Option<&Json<'_>>,
    holder: &Json<'_>,
) -> Option<ToolDecl> {
    let name = tool_name(r, holder, name)?;
    let mark = r.diags.len();
    let doc = doc(r, description);
    let params = parameters.map(|s| params(r, s)).unwrap_or_default();
    let degraded = degrade(r, mark, &name.node);
    Some(ToolDecl {
        doc,
        result: Spanned::new(TypeKind::Prim(Prim::Any), name.span),
        effect: Some(Spanned::new(Effect::Write, name.span)),
        name,
        params,
        idempotent: None,
        untrusted: None,
        degraded,
        span: t.span,
    })
}

// ------------------------------------------------------------------ schemas

/// One property of an object schema, before it becomes a parameter or a
/// record field.
struct Property {
    doc: Doc,
    name: Name,
    ty: Type,
    required: bool,
    default: Option<Expr>,
    span: Span,
}

/// The parameters of a tool from its input schema, an object schema.
fn params(r: &mut Reader<'_>, s: &Json<'_>) -> Vec<Param> {
    if s.as_object().is_none() {
        r.ill_typed("an input schema", s, "an object schema");
        return Vec::new();
    }
    if !check_keys(r, s) {
        return Vec::new();
    }
    if let Some(t) = s.get("type")
        && t.as_str() != Some("object")
    {
        r.report(
            Diagnostic::new(
                Code::E0004,
                t.span,
                "the parameters of a tool must be an object schema",
            )
            .with_label("expected `\"object\"`"),
        );
        return Vec::new();
    }
    for key in [
        "anyOf",
        "oneOf",
        "enum",
        "const",
        "items",
        "prefixItems",
        "format",
    ] {
        if let Some(m) = s
            .as_object()
            .and_then(|ms| ms.iter().find(|m| m.key == key))
        {
            r.report(
                Diagnostic::new(
                    Code::E0004,
                    m.key_span,
                    format!("`{key}` is not supported in the parameters of a tool"),
                )
                .with_label("unsupported here")
                .with_help("the parameters of a tool are an object schema with `properties` and `required`"),
            );
            return Vec::new();
        }
    }
    properties(r, s)
        .into_iter()
        .map(|p| {
            let ty = if !p.required && p.default.is_none() {
                optional(p.ty)
            } else {
                p.ty
            };
            Param {
                doc: p.doc,
                name: p.name,
                ty,
                default: p.default,
                span: p.span,
            }
        })
        .collect()
}

/// Wraps a type as optional, unless it already is.
fn optional(ty: Type) -> Type {
    match ty.node {
        TypeKind::Optional(_) | TypeKind::Error | TypeKind::Prim(Prim::Null) => ty,
        _ => {
            let span = ty.span;
            Spanned::new(TypeKind::Optional(Box::new(ty)), span)
        }
    }
}

/// W0502: a part of a schema planc reads more loosely than it is written.
fn loosely(r: &mut Reader<'_>, at: Span, message: String, label: &str, help: &str) {
    r.report(
        Diagnostic::new(Code::W0502, at, message)
            .with_label(label)
            .with_help(help),
    );
}

/// Reports the keywords of a schema object that are unsupported (E0004,
/// which the tool's reader turns into W0501) or unknown (W0502, ignored);
/// `false` when the schema cannot be read.
fn check_keys(r: &mut Reader<'_>, s: &Json<'_>) -> bool {
    let Some(members) = s.as_object() else {
        return true;
    };
    let mut ok = true;
    let mut seen: Vec<&Member<'_>> = Vec::with_capacity(members.len());
    for m in members {
        let key = &*m.key;
        if let Some(first) = seen.iter().find(|o| o.key == key) {
            let first = first.key_span;
            r.duplicate_key(m, first);
            ok = false;
            continue;
        }
        seen.push(m);
        if MAPPED.contains(&key)
            || ANNOTATIONS.contains(&key)
            || NARROWING.contains(&key)
            || key.starts_with("x-")
        {
            continue;
        }
        if UNSUPPORTED.contains(&key) {
            ok = false;
            let help = match key {
                "$ref" | "$defs" | "definitions" => "write the referenced schema inline",
                "allOf" => "merge the schemas into one object schema",
                "patternProperties" => "name the properties in `properties`",
                _ => "the catalogue supports the JSON Schema subset that maps onto planc's types",
            };
            r.report(
                Diagnostic::new(
                    Code::E0004,
                    m.key_span,
                    format!("JSON Schema keyword `{key}` is not supported"),
                )
                .with_label("unsupported keyword")
                .with_help(help),
            );
        } else {
            let known = MAPPED
                .iter()
                .chain(ANNOTATIONS)
                .chain(NARROWING)
                .chain(UNSUPPORTED)
                .copied();
            let near = suggest::nearest(key, known);
            let mut d = Diagnostic::new(
                Code::W0502,
                m.key_span,
                format!("unknown JSON Schema keyword `{key}` is ignored"),
            )
            .with_label("unknown keyword");
            if let Some(help) = suggest::did_you_mean(&near) {
                d = d.with_help(help);
            }
            if let [one] = near.as_slice() {
                d = d.with_fix(format!("replace with `{one}`"), m.key_text_span(), *one);
            }
            r.report(d);
        }
    }
    ok
}

/// The properties of an object schema, with `required` applied.
fn properties(r: &mut Reader<'_>, s: &Json<'_>) -> Vec<Property> {
    if let Some(ap) = s.get("additionalProperties")
        && !matches!(ap.value, Value::Bool(_))
    {
        loosely(
            r,
            ap.span,
            "extra properties are not typed: an `additionalProperties` schema is ignored".into(),
            "a schema for extra properties",
            "planc records have named fields only: a field outside `properties` is refused",
        );
    }
    let props: Vec<&Member<'_>> = match s.get("properties") {
        None => Vec::new(),
        Some(p) => match p.as_object() {
            Some(ms) => r.unique(ms).collect(),
            None => {
                r.ill_typed("`properties`", p, "an object of schemas");
                Vec::new()
            }
        },
    };
    let mut required: Vec<&str> = Vec::new();
    if let Some(req) = s.get("required") {
        match req.as_array() {
            None => r.ill_typed("`required`", req, "an array of property names"),
            Some(items) => {
                for item in items {
                    let Some(name) = item.as_str() else {
                        r.ill_typed("an element of `required`", item, "a property name");
                        continue;
                    };
                    if !props.iter().any(|m| m.key == name) {
                        let near = suggest::nearest(name, props.iter().map(|m| &*m.key));
                        let mut d = Diagnostic::new(
                            Code::E0004,
                            item.span,
                            format!("`{name}` is required but is not a property"),
                        )
                        .with_label("not in `properties`");
                        if let Some(help) = suggest::did_you_mean(&near) {
                            d = d.with_help(help);
                        }
                        if let [one] = near.as_slice() {
                            d = d.with_fix(format!("replace with `{one}`"), item.text_span(), *one);
                        }
                        r.report(d);
                    }
                    required.push(name);
                }
            }
        }
    }
    props
        .into_iter()
        .map(|m| {
            let mut ty = schema_type(r, &m.value);
            let doc = doc_of(r, &m.value);
            let default = match m.value.get("default") {
                // `= None`: the parameter may be left out or given `null`.
                Some(d) if matches!(d.value, Value::Null) => {
                    ty = optional(ty);
                    Some(plain_expr(r, d))
                }
                Some(d) => Some(plain_expr(r, d)),
                None => None,
            };
            Property {
                doc,
                name: Spanned::new(m.key.to_string(), m.key_text_span()),
                ty,
                required: required.contains(&&*m.key),
                default,
                span: m.span(),
            }
        })
        .collect()
}

fn doc_of(r: &mut Reader<'_>, schema: &Json<'_>) -> Doc {
    doc(r, schema.get("description"))
}

/// The type of a schema planc could not map: `any`, after the E0004 that
/// the tool's reader turns into W0501.
fn unmapped(span: Span) -> Type {
    any(span)
}

fn any(span: Span) -> Type {
    Spanned::new(TypeKind::Prim(Prim::Any), span)
}

/// A JSON Schema as a type of the plan language; `any` after an E0004 when
/// it is outside the subset that maps.
fn schema_type(r: &mut Reader<'_>, s: &Json<'_>) -> Type {
    schema_type_as(r, s, None)
}

/// [`schema_type`], with the `type` of an enclosing `anyOf`/`oneOf` for an
/// alternative that names none.
fn schema_type_as(r: &mut Reader<'_>, s: &Json<'_>, outer: Option<&str>) -> Type {
    let span = s.span;
    match &s.value {
        Value::Bool(true) => return any(span),
        Value::Object(_) => {}
        _ => {
            r.ill_typed("a schema", s, "an object");
            return unmapped(span);
        }
    }
    if !check_keys(r, s) {
        return unmapped(span);
    }
    for key in ["anyOf", "oneOf"] {
        if let Some(alts) = s.get(key) {
            return union(r, s, key, alts);
        }
    }
    if let Some(c) = s.get("const") {
        let one = std::slice::from_ref(c);
        return literal_set(r, s, c, one, outer);
    }
    let types: Vec<(&str, Span)> = match s.get("type") {
        None => outer.map(|o| vec![(o, span)]).unwrap_or_default(),
        Some(t) => match &t.value {
            Value::String(name) => vec![(&**name, t.span)],
            Value::Array(items) => {
                let mut names = Vec::with_capacity(items.len());
                for i in items {
                    match i.as_str() {
                        Some(n) => names.push((n, i.span)),
                        None => {
                            r.ill_typed("an element of `type`", i, "a type name");
                            return unmapped(span);
                        }
                    }
                }
                names
            }
            _ => {
                r.ill_typed("`type`", t, "a type name or an array of them");
                return unmapped(span);
            }
        },
    };
    for (name, at) in &types {
        if !TYPE_NAMES.contains(name) {
            let near = suggest::nearest(name, TYPE_NAMES.iter().copied());
            let mut d = Diagnostic::new(
                Code::E0004,
                *at,
                format!("unknown JSON Schema type `{name}`"),
            )
            .with_label("unknown type");
            if let Some(help) = suggest::did_you_mean(&near) {
                d = d.with_help(help);
            }
            r.report(d);
            return unmapped(span);
        }
    }
    let nullable = types.iter().any(|(n, _)| *n == "null");
    let non_null: Vec<&(&str, Span)> = types.iter().filter(|(n, _)| *n != "null").collect();
    let base = match non_null.as_slice() {
        [] if nullable => return Spanned::new(TypeKind::Prim(Prim::Null), span),
        [] => untyped(r, s),
        [(name, _)] => typed(r, s, name),
        [_, (_, second), ..] => {
            let tys: Vec<Type> = non_null.iter().map(|(n, _)| typed(r, s, n)).collect();
            join(r, tys, *second, span)
        }
    };
    if nullable { optional(base) } else { base }
}

/// One type for several: their union, with alternatives that agree joined
/// (enums merged, a string or `decimal` absorbing an enum or an `int`, a
/// literal absorbed by its own type, records merged field by field, lists
/// element by element), `null` making it optional and `any` swallowing
/// the rest.
fn join(r: &mut Reader<'_>, tys: Vec<Type>, at: Span, span: Span) -> Type {
    let mut nullable = false;
    let mut out: Vec<Type> = Vec::new();
    let mut todo = tys;
    todo.reverse();
    while let Some(ty) = todo.pop() {
        match ty.node {
            TypeKind::Optional(inner) => {
                nullable = true;
                todo.push(*inner);
            }
            TypeKind::Prim(Prim::Null) => nullable = true,
            TypeKind::Prim(Prim::Any) => return any(span),
            TypeKind::Union(members) => todo.extend(members.into_iter().rev()),
            node => merge_into(r, &mut out, Spanned::new(node, ty.span), at, span),
        }
    }
    let one = match out.len() {
        0 if nullable => return Spanned::new(TypeKind::Prim(Prim::Null), span),
        0 => return any(span),
        1 => out
            .pop()
            .map(|t| Spanned::new(t.node, span))
            .unwrap_or_else(|| any(span)),
        _ => Spanned::new(TypeKind::Union(out), span),
    };
    if nullable { optional(one) } else { one }
}

/// Adds the alternative `b` to the members `out`: joined with the first
/// member it agrees with, else a member of its own.
fn merge_into(r: &mut Reader<'_>, out: &mut Vec<Type>, b: Type, at: Span, span: Span) {
    for slot in out.iter_mut() {
        let a = std::mem::replace(slot, any(span));
        let joined = match (a.node, b.node.clone()) {
            (x, y)
                if same_type(
                    &Spanned::new(x.clone(), span),
                    &Spanned::new(y.clone(), span),
                ) =>
            {
                Some(x)
            }
            (TypeKind::Enum(mut x), TypeKind::Enum(y)) => {
                x.extend(
                    y.into_iter()
                        .filter(|v| !x.iter().any(|w| w.node == v.node))
                        .collect::<Vec<_>>(),
                );
                Some(TypeKind::Enum(x))
            }
            (TypeKind::Enum(_), TypeKind::Prim(Prim::String))
            | (TypeKind::Prim(Prim::String), TypeKind::Enum(_)) => {
                Some(TypeKind::Prim(Prim::String))
            }
            (TypeKind::Record(x), TypeKind::Record(y)) => {
                Some(join_records(r, x, y, at, span).node)
            }
            (TypeKind::List(x), TypeKind::List(y)) => {
                let elem = join(r, vec![*x, *y], at, span);
                Some(TypeKind::List(Box::new(elem)))
            }
            (TypeKind::Prim(Prim::Int), TypeKind::Prim(Prim::Decimal))
            | (TypeKind::Prim(Prim::Decimal), TypeKind::Prim(Prim::Int)) => {
                Some(TypeKind::Prim(Prim::Decimal))
            }
            (TypeKind::Literal(l), TypeKind::Prim(p))
            | (TypeKind::Prim(p), TypeKind::Literal(l))
                if literal_of(&l, p) =>
            {
                Some(TypeKind::Prim(p))
            }
            (x, _) => {
                *slot = Spanned::new(x, a.span);
                None
            }
        };
        if let Some(node) = joined {
            *slot = Spanned::new(node, span);
            return;
        }
    }
    out.push(b);
}

/// Whether the literal `l` is a value of the primitive type `p`.
fn literal_of(l: &Literal, p: Prim) -> bool {
    matches!(
        (l, p),
        (Literal::Bool(_), Prim::Bool)
            | (Literal::Int(_), Prim::Int | Prim::Decimal)
            | (Literal::Decimal(_), Prim::Decimal)
    )
}

/// Two alternative records as one: a field of both has both types joined,
/// a field of only one is optional.
fn join_records(r: &mut Reader<'_>, a: Vec<Field>, b: Vec<Field>, at: Span, span: Span) -> Type {
    let mut out: Vec<Field> = Vec::with_capacity(a.len().max(b.len()));
    let mut rest = b;
    for f in a {
        match rest.iter().position(|g| g.name.node == f.name.node) {
            Some(i) => {
                let g = rest.remove(i);
                let ty = join(r, vec![f.ty, g.ty], at, f.span);
                out.push(Field {
                    optional: f.optional || g.optional,
                    ty,
                    ..f
                });
            }
            None => out.push(Field {
                optional: true,
                ..f
            }),
        }
    }
    out.extend(rest.into_iter().map(|g| Field {
        optional: true,
        ..g
    }));
    Spanned::new(TypeKind::Record(out), span)
}

/// Whether two types are the same, spans aside.
fn same_type(a: &Type, b: &Type) -> bool {
    crate::catalog::Ty::from_ast(a) == crate::catalog::Ty::from_ast(b)
}

/// A schema with no `type`: an enum, a record, a list, a formatted string,
/// or `any` when nothing constrains it.
fn untyped(r: &mut Reader<'_>, s: &Json<'_>) -> Type {
    if let Some(e) = s.get("enum") {
        let Some(items) = e.as_array() else {
            r.ill_typed("`enum`", e, "an array of values");
            return unmapped(s.span);
        };
        return literal_set(r, s, e, items, None);
    }
    if s.get("properties").is_some() {
        return typed(r, s, "object");
    }
    if s.get("items").is_some() || s.get("prefixItems").is_some() {
        return typed(r, s, "array");
    }
    if s.get("format").is_some() {
        return typed(r, s, "string");
    }
    any(s.span)
}

fn typed(r: &mut Reader<'_>, s: &Json<'_>, name: &str) -> Type {
    let span = s.span;
    if let Some(e) = s.get("enum") {
        let Some(items) = e.as_array() else {
            r.ill_typed("`enum`", e, "an array of values");
            return unmapped(span);
        };
        return literal_set(r, s, e, items, Some(name));
    }
    let prim = |p| Spanned::new(TypeKind::Prim(p), span);
    match name {
        "string" => match s.get("format").map(|f| (f, f.as_str())) {
            Some((_, Some("date"))) => prim(Prim::Date),
            Some((_, Some("date-time"))) => prim(Prim::Datetime),
            Some((f, None)) => {
                r.ill_typed("`format`", f, "a string");
                unmapped(span)
            }
            _ => prim(Prim::String),
        },
        "integer" => prim(Prim::Int),
        "number" => prim(Prim::Decimal),
        "boolean" => prim(Prim::Bool),
        "null" => prim(Prim::Null),
        "array" => {
            let tuple = match (s.get("prefixItems"), s.get("items")) {
                (Some(p), _) => Some(p),
                (None, Some(items)) if items.as_array().is_some() => Some(items),
                _ => None,
            };
            let elem = match (tuple, s.get("items")) {
                (Some(t), _) => match t.as_array() {
                    Some(schemas) => {
                        let tys: Vec<Type> = schemas.iter().map(|i| schema_type(r, i)).collect();
                        join(r, tys, t.span, t.span)
                    }
                    None => {
                        r.ill_typed("`prefixItems`", t, "an array of schemas");
                        unmapped(t.span)
                    }
                },
                (None, Some(items)) => schema_type(r, items),
                (None, None) => any(span),
            };
            Spanned::new(TypeKind::List(Box::new(elem)), span)
        }
        _ => {
            // "object"
            if s.get("properties").is_none() {
                return any(span);
            }
            let fields = properties(r, s)
                .into_iter()
                .map(|p| Field {
                    doc: p.doc,
                    name: p.name,
                    optional: !p.required,
                    ty: p.ty,
                    span: p.span,
                })
                .collect();
            Spanned::new(TypeKind::Record(fields), span)
        }
    }
}

/// `enum` or `const`: a string enum, a literal type for a number or a
/// boolean, their union for several (`1 | 2 | 5`, `"auto" | 0`). Arrays and
/// objects among the values are read as `any` with a W0502, and so is a
/// number no exact decimal holds (read as its number type).
fn literal_set(
    r: &mut Reader<'_>,
    s: &Json<'_>,
    e: &Json<'_>,
    items: &[Json<'_>],
    name: Option<&str>,
) -> Type {
    let span = s.span;
    let what = if items.len() == 1 { "const" } else { "enum" };
    let mut strings = Vec::with_capacity(items.len());
    let mut others: Vec<Type> = Vec::new();
    let mut nullable = false;
    for item in items {
        match &item.value {
            Value::String(v) => strings.push(Spanned::new(v.to_string(), item.span)),
            Value::Null => nullable = true,
            Value::Bool(b) => others.push(Spanned::new(
                TypeKind::Literal(Literal::Bool(*b)),
                item.span,
            )),
            Value::Number(n) => {
                let int = n.bytes().all(|c| c.is_ascii_digit() || c == b'-');
                let lit = if int {
                    Literal::Int(n.to_string())
                } else {
                    Literal::Decimal(n.to_string())
                };
                if crate::catalog::Ty::literal_value(&lit).is_some() {
                    others.push(Spanned::new(TypeKind::Literal(lit), item.span));
                } else {
                    loosely(
                        r,
                        item.span,
                        format!(
                            "the {what} value `{n}` has more digits than an exact decimal holds: read as `decimal`"
                        ),
                        "not enforced",
                        "planc compares numbers exactly and never rounds: any number is accepted here",
                    );
                    others.push(Spanned::new(TypeKind::Prim(Prim::Decimal), item.span));
                }
            }
            Value::Array(_) | Value::Object(_) => {
                loosely(
                    r,
                    item.span,
                    format!("an array or object in an {what} is read as `any`"),
                    "not enforced",
                    "planc's literal types are strings, numbers and booleans: a value of any type is accepted here",
                );
                return any(span);
            }
        }
    }
    if strings.is_empty() && others.is_empty() && !nullable {
        r.report(
            Diagnostic::new(Code::E0004, e.span, "an enum needs at least one value")
                .with_label("no values"),
        );
        return unmapped(span);
    }
    if !strings.is_empty()
        && let Some(n) = name.filter(|n| *n != "string")
    {
        let at = s.get("type").map(|t| t.span).unwrap_or(e.span);
        r.report(
            Diagnostic::new(
                Code::E0004,
                at,
                format!("an enum of strings cannot have type `{n}`"),
            )
            .with_label("not `string`"),
        );
        return unmapped(span);
    }
    let mut tys = Vec::with_capacity(others.len() + 2);
    if !strings.is_empty() {
        tys.push(Spanned::new(TypeKind::Enum(strings), span));
    }
    tys.extend(others);
    if nullable {
        tys.push(Spanned::new(TypeKind::Prim(Prim::Null), span));
    }
    join(r, tys, e.span, span)
}

/// `anyOf`/`oneOf`: the alternatives joined into one type (`null` making it
/// optional); a `type` beside them applies to each alternative that names
/// none.
fn union(r: &mut Reader<'_>, s: &Json<'_>, key: &str, alts: &Json<'_>) -> Type {
    let span = s.span;
    let Some(items) = alts.as_array() else {
        r.ill_typed(&format!("`{key}`"), alts, "an array of schemas");
        return unmapped(span);
    };
    for other in ["properties", "items", "enum"] {
        if let Some(m) = s
            .as_object()
            .and_then(|ms| ms.iter().find(|m| m.key == other))
        {
            r.report(
                Diagnostic::new(
                    Code::E0004,
                    m.key_span,
                    format!("`{other}` beside `{key}` is not supported"),
                )
                .with_label("move this into the alternatives"),
            );
            return unmapped(span);
        }
    }
    if items.is_empty() {
        r.report(
            Diagnostic::new(Code::E0004, alts.span, format!("an empty `{key}`"))
                .with_label("no schemas"),
        );
        return unmapped(span);
    }
    let outer = s.get("type").and_then(Json::as_str);
    let tys: Vec<Type> = items.iter().map(|a| schema_type_as(r, a, outer)).collect();
    join(r, tys, alts.span, span)
}
