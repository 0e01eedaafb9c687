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
//! JSON Schema maps onto the plan language's types: `string` (`format:
//! date` is `date`, `format: date-time` is `datetime`), `integer` is `int`,
//! `number` is `decimal`, `boolean` is `bool`, `null`, `array` with `items`
//! is a list, `object` with `properties` is a record (a property not in
//! `required` is optional), `enum` or `const` of strings is an enum, `type:
//! [T, "null"]` and `anyOf`/`oneOf` of one type and `null` are optional, and a
//! schema with no type constraint (`{}`) is `any`, as is an `object` that
//! declares no properties (the language has no map type).
//!
//! Keywords that only narrow a value (`minimum`, `maxLength`, `pattern`, …)
//! are accepted but not enforced: the tool validates its own input.
//! Annotations (`title`, `examples`, …) are ignored. Every other keyword
//! (`$ref`, `allOf`, `oneOf` of several types, `patternProperties`, an
//! `additionalProperties` schema, numeric enums, …) is E0004 pointing at it:
//! planc never widens what it cannot read into a silent `any`.
//!
//! Effects: `readOnlyHint: true` makes a `read` tool, anything else
//! `write` (OpenAI tools have no hints: they are `write`);
//! `idempotentHint: true` makes it idempotent; `openWorldHint: true` marks
//! its output untrusted. The protocol defaults `openWorldHint` to true when
//! it is absent; planc marks a tool untrusted only on an explicit `true`
//! (most servers omit the hint, and W0404 on every tool would be noise), and
//! a policy says `untrusted` (or `untrusted false`) where it knows better
//! (docs/threat-model.md). A parameter not in `required` is optional; one with
//! a `default` gets that default.

use super::ast::{
    Doc, Effect, Expr, Field, Item, Module, Name, Param, Prim, ToolDecl, Type, TypeKind,
};
use super::json::{Json, Member, Value};
use super::json_plan::plain_expr;
use super::json_reader::Reader;
use crate::diagnostics::{Code, Diagnostic};
use crate::source::{Span, Spanned};
use crate::suggest;

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
];
/// Keywords of JSON Schema that the types cannot express.
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
    "propertyNames",
    "unevaluatedProperties",
    "unevaluatedItems",
    "dependentSchemas",
    "dependentRequired",
    "dependencies",
    "prefixItems",
    "additionalItems",
    "contains",
    "minContains",
    "maxContains",
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
        let f = r.fields(root, "a JSON-RPC response", RPC_KEYS)?;
        f.get("result")?
    } else {
        root
    };
    let what = if std::ptr::eq(list, root) {
        "a tool catalogue"
    } else {
        "`result`"
    };
    let f = r.fields(list, what, LIST_KEYS)?;
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
                let f = r.fields(t, "a function tool", CHAT_KEYS)?;
                let inner = f.get("function")?;
                let g = r.fields(inner, "`function`", FUNCTION_KEYS)?;
                openai_tool(
                    r,
                    t,
                    &g.get("name"),
                    g.get("description"),
                    g.get("parameters"),
                    inner,
                )
            } else {
                let f = r.fields(t, "a function tool", RESPONSES_KEYS)?;
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

fn mcp_tool(r: &mut Reader<'_>, t: &Json<'_>) -> Option<ToolDecl> {
    let f = r.fields(t, "a tool", MCP_TOOL_KEYS)?;
    let name = tool_name(r, t, &f.get("name"))?;
    let doc = doc(r, f.get("description"));
    let params = match f.get("inputSchema") {
        Some(s) => params(r, s),
        None => {
            r.missing_key(t.span, "inputSchema", "a tool");
            Vec::new()
        }
    };
    let result = match f.get("outputSchema") {
        Some(s) => schema_type(r, s),
        None => Spanned::new(TypeKind::Prim(Prim::Any), name.span),
    };
    let mut effect = Spanned::new(Effect::Write, name.span);
    let (mut idempotent, mut untrusted) = (None, None);
    if let Some(a) = f.get("annotations")
        && let Some(af) = r.fields(a, "`annotations`", ANNOTATION_KEYS)
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
        let _ = hint(r, "destructiveHint");
        if let Some(v) = af.get("title") {
            r.string("title", v);
        }
    }
    Some(ToolDecl {
        doc,
        name,
        params,
        result,
        effect: Some(effect),
        idempotent,
        untrusted,
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
    let doc = doc(r, description);
    let params = parameters.map(|s| params(r, s)).unwrap_or_default();
    Some(ToolDecl {
        doc,
        result: Spanned::new(TypeKind::Prim(Prim::Any), name.span),
        effect: Some(Spanned::new(Effect::Write, name.span)),
        name,
        params,
        idempotent: None,
        untrusted: None,
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
    for key in ["anyOf", "oneOf", "enum", "const", "items", "format"] {
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
        TypeKind::Optional(_)
        | TypeKind::Error
        | TypeKind::Prim(Prim::Any)
        | TypeKind::Prim(Prim::Null) => ty,
        _ => {
            let span = ty.span;
            Spanned::new(TypeKind::Optional(Box::new(ty)), span)
        }
    }
}

/// Reports the keywords of a schema object that are unsupported or unknown;
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
        if MAPPED.contains(&key) || ANNOTATIONS.contains(&key) || NARROWING.contains(&key) {
            continue;
        }
        ok = false;
        if UNSUPPORTED.contains(&key) {
            let help = match key {
                "$ref" | "$defs" | "definitions" => "write the referenced schema inline",
                "allOf" => "merge the schemas into one object schema",
                "patternProperties" | "propertyNames" => "name the properties in `properties`",
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
                Code::E0004,
                m.key_span,
                format!("unknown JSON Schema keyword `{key}`"),
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
        r.report(
            Diagnostic::new(
                Code::E0004,
                ap.span,
                "an `additionalProperties` schema is not supported",
            )
            .with_label("a schema for extra properties")
            .with_help("planc records have named fields only: list the properties, or write `true` or `false`"),
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
            let ty = schema_type(r, &m.value);
            let doc = doc_of(r, &m.value);
            let default = m.value.get("default").map(|d| plain_expr(r, d));
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

fn error_type(span: Span) -> Type {
    Spanned::new(TypeKind::Error, span)
}

/// A JSON Schema as a type of the plan language; `TypeKind::Error` after an
/// E0004 when it is outside the subset that maps.
fn schema_type(r: &mut Reader<'_>, s: &Json<'_>) -> Type {
    let span = s.span;
    match &s.value {
        Value::Bool(true) => return Spanned::new(TypeKind::Prim(Prim::Any), span),
        Value::Object(_) => {}
        _ => {
            r.ill_typed("a schema", s, "an object");
            return error_type(span);
        }
    }
    if !check_keys(r, s) {
        return error_type(span);
    }
    for key in ["anyOf", "oneOf"] {
        if let Some(alts) = s.get(key) {
            return union(r, s, key, alts);
        }
    }
    if let Some(c) = s.get("const") {
        return match c.as_str() {
            Some(v) => Spanned::new(
                TypeKind::Enum(vec![Spanned::new(v.to_string(), c.span)]),
                span,
            ),
            None => {
                r.report(
                    Diagnostic::new(Code::E0004, c.span, "only a string `const` is supported")
                        .with_label(format!("{} here", c.kind_name()))
                        .with_help("planc's enums are sets of strings"),
                );
                error_type(span)
            }
        };
    }
    let types: Vec<(&str, Span)> = match s.get("type") {
        None => Vec::new(),
        Some(t) => match &t.value {
            Value::String(name) => vec![(&**name, t.span)],
            Value::Array(items) => {
                let mut names = Vec::with_capacity(items.len());
                for i in items {
                    match i.as_str() {
                        Some(n) => names.push((n, i.span)),
                        None => {
                            r.ill_typed("an element of `type`", i, "a type name");
                            return error_type(span);
                        }
                    }
                }
                names
            }
            _ => {
                r.ill_typed("`type`", t, "a type name or an array of them");
                return error_type(span);
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
            return error_type(span);
        }
    }
    let nullable = types.iter().any(|(n, _)| *n == "null");
    let non_null: Vec<&(&str, Span)> = types.iter().filter(|(n, _)| *n != "null").collect();
    let base = match non_null.as_slice() {
        [] if nullable => return Spanned::new(TypeKind::Prim(Prim::Null), span),
        [] => untyped(r, s),
        [(name, _)] => typed(r, s, name),
        [_, (_, second), ..] => {
            r.report(
                Diagnostic::new(
                    Code::E0004,
                    *second,
                    "a union of several types is not supported",
                )
                .with_label("second type")
                .with_help("planc types are one type, optionally with `null`"),
            );
            return error_type(span);
        }
    };
    if nullable { optional(base) } else { base }
}

/// A schema with no `type`: an enum, a record, a list, or `any` when nothing
/// constrains it.
fn untyped(r: &mut Reader<'_>, s: &Json<'_>) -> Type {
    if s.get("enum").is_some() {
        return typed(r, s, "string");
    }
    if s.get("properties").is_some() {
        return typed(r, s, "object");
    }
    if s.get("items").is_some() {
        return typed(r, s, "array");
    }
    if let Some(f) = s.get("format") {
        r.report(
            Diagnostic::new(Code::E0004, f.span, "`format` without `type`")
                .with_label("format of what?")
                .with_help("add `\"type\": \"string\"`"),
        );
        return error_type(s.span);
    }
    Spanned::new(TypeKind::Prim(Prim::Any), s.span)
}

fn typed(r: &mut Reader<'_>, s: &Json<'_>, name: &str) -> Type {
    let span = s.span;
    if let Some(e) = s.get("enum") {
        return enum_type(r, s, e, name);
    }
    let prim = |p| Spanned::new(TypeKind::Prim(p), span);
    match name {
        "string" => match s.get("format").map(|f| (f, f.as_str())) {
            Some((_, Some("date"))) => prim(Prim::Date),
            Some((_, Some("date-time"))) => prim(Prim::Datetime),
            Some((f, None)) => {
                r.ill_typed("`format`", f, "a string");
                error_type(span)
            }
            _ => prim(Prim::String),
        },
        "integer" => prim(Prim::Int),
        "number" => prim(Prim::Decimal),
        "boolean" => prim(Prim::Bool),
        "null" => prim(Prim::Null),
        "array" => match s.get("items") {
            None => Spanned::new(
                TypeKind::List(Box::new(Spanned::new(TypeKind::Prim(Prim::Any), span))),
                span,
            ),
            Some(items) if items.as_array().is_some() => {
                r.report(
                    Diagnostic::new(Code::E0004, items.span, "tuple `items` is not supported")
                        .with_label("an array of schemas")
                        .with_help("planc lists hold one type: give `items` one schema"),
                );
                error_type(span)
            }
            Some(items) => Spanned::new(TypeKind::List(Box::new(schema_type(r, items))), span),
        },
        _ => {
            // "object"
            if s.get("properties").is_none() {
                if let Some(ap) = s.get("additionalProperties")
                    && !matches!(ap.value, Value::Bool(_))
                {
                    properties(r, s);
                    return error_type(span);
                }
                return Spanned::new(TypeKind::Prim(Prim::Any), span);
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

fn enum_type(r: &mut Reader<'_>, s: &Json<'_>, e: &Json<'_>, name: &str) -> Type {
    let span = s.span;
    let Some(items) = e.as_array() else {
        r.ill_typed("`enum`", e, "an array of strings");
        return error_type(span);
    };
    if name != "string" {
        let at = s.get("type").map(|t| t.span).unwrap_or(e.span);
        r.report(
            Diagnostic::new(
                Code::E0004,
                at,
                format!("an enum of type `{name}` is not supported"),
            )
            .with_label("not a string enum")
            .with_help("planc's enums are sets of strings"),
        );
        return error_type(span);
    }
    let mut values = Vec::with_capacity(items.len());
    let mut nullable = false;
    for item in items {
        match &item.value {
            Value::String(v) => values.push(Spanned::new(v.to_string(), item.span)),
            Value::Null => nullable = true,
            _ => {
                r.report(
                    Diagnostic::new(
                        Code::E0004,
                        item.span,
                        format!("an enum value must be a string, found {}", item.kind_name()),
                    )
                    .with_label("not a string")
                    .with_help("planc's enums are sets of strings: numeric and boolean enums are not supported"),
                );
                return error_type(span);
            }
        }
    }
    if values.is_empty() {
        r.report(
            Diagnostic::new(Code::E0004, e.span, "an enum needs at least one string")
                .with_label("no strings"),
        );
        return error_type(span);
    }
    let ty = Spanned::new(TypeKind::Enum(values), span);
    if nullable { optional(ty) } else { ty }
}

/// `anyOf`/`oneOf`: one schema, optionally with `{"type": "null"}`.
fn union(r: &mut Reader<'_>, s: &Json<'_>, key: &str, alts: &Json<'_>) -> Type {
    let span = s.span;
    let Some(items) = alts.as_array() else {
        r.ill_typed(&format!("`{key}`"), alts, "an array of schemas");
        return error_type(span);
    };
    for other in ["type", "properties", "items", "enum"] {
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
            return error_type(span);
        }
    }
    let is_null = |v: &Json<'_>| {
        v.as_object().is_some_and(|ms| {
            ms.iter()
                .all(|m| m.key != "type" || m.value.as_str() == Some("null"))
        }) && v.get("type").and_then(Json::as_str) == Some("null")
    };
    let nullable = items.iter().any(is_null);
    let others: Vec<&Json<'_>> = items.iter().filter(|v| !is_null(v)).collect();
    match others.as_slice() {
        [] if nullable => Spanned::new(TypeKind::Prim(Prim::Null), span),
        [one] => {
            let ty = schema_type(r, one);
            if nullable {
                Spanned::new(optional(ty).node, span)
            } else {
                ty
            }
        }
        [] => {
            r.report(
                Diagnostic::new(Code::E0004, alts.span, format!("an empty `{key}`"))
                    .with_label("no schemas"),
            );
            error_type(span)
        }
        [_, second, ..] => {
            r.report(
                Diagnostic::new(
                    Code::E0004,
                    second.span,
                    format!("`{key}` with several non-null schemas is not supported"),
                )
                .with_label("second alternative")
                .with_help("planc types are one type, optionally with `null`"),
            );
            error_type(span)
        }
    }
}
