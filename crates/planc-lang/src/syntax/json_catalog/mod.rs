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
//! types a union (`string | int`; with `null`, an optional one), a local
//! `$ref` (into `$defs`, `definitions` or any JSON pointer of the same
//! schema document) is the type of its target, `allOf` the parts merged
//! (object schemas field by field), and a schema with no type constraint
//! (`{}`) is `any`, as is an `object` that declares no properties (the
//! language has no map type).
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
//! Effects: `readOnlyHint: true` makes a `read` tool, `false` a `write`
//! one; without the hint (and in OpenAI tools, which have none) the entry
//! does not state the effect: the tool counts as `write` unless the policy
//! states its effect. `idempotentHint` states whether the tool is
//! idempotent (not, when absent, unless the policy says so);
//! `openWorldHint: true` marks its output untrusted. The protocol defaults
//! `openWorldHint` to true when it is absent; planc marks a tool untrusted
//! only on an explicit `true` (most servers omit the hint, and W0404 on
//! every tool would be noise), and a policy says `untrusted` (or `untrusted
//! false`) where it knows better (docs/threat-model.md). A parameter not in
//! `required` is optional; one with a `default` gets that default, and one
//! whose default is `null` is optional.

use super::ast::{
    Doc, Effect, Expr, Field, Item, Literal, Module, Name, Param, Prim, Str, ToolDecl, Type,
    TypeKind,
};
use super::json::{Json, Member, Value};
use super::json_plan::plain_expr;
use super::json_reader::Reader;
use crate::diagnostics::{Code, Diagnostic, Severity};
use crate::source::{Span, Spanned};
use crate::suggest;

mod join;
mod schema;

use join::*;
use schema::*;

/// The keys of an MCP tool entry planc knows; the reader ignores others.
pub const MCP_TOOL_KEYS: &[&str] = &[
    "name",
    "title",
    "description",
    "inputSchema",
    "outputSchema",
    "annotations",
    "_meta",
    "icons",
];
pub const ANNOTATION_KEYS: &[&str] = &[
    "title",
    "readOnlyHint",
    "destructiveHint",
    "idempotentHint",
    "openWorldHint",
];
pub const CHAT_KEYS: &[&str] = &["type", "function"];
pub const FUNCTION_KEYS: &[&str] = &["name", "description", "parameters", "strict"];
pub const RESPONSES_KEYS: &[&str] = &["type", "name", "description", "parameters", "strict"];
pub const LIST_KEYS: &[&str] = &["tools", "nextCursor", "_meta"];
pub const RPC_KEYS: &[&str] = &["jsonrpc", "id", "result"];

/// Every key list of this module, for a test that they fit the reader.
#[doc(hidden)]
pub const SHAPES: &[&[&str]] = &[
    MCP_TOOL_KEYS,
    ANNOTATION_KEYS,
    CHAT_KEYS,
    FUNCTION_KEYS,
    RESPONSES_KEYS,
    LIST_KEYS,
    RPC_KEYS,
];

/// Keywords read into the type.
pub const MAPPED: &[&str] = &[
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
    // The parts a schema is made of: a local reference, the schemas it may
    // point into (read when referenced), and a conjunction.
    "$ref",
    "$defs",
    "definitions",
    "allOf",
];
/// Keywords that describe without constraining: ignored.
pub const ANNOTATIONS: &[&str] = &[
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
    // OpenAPI's (pydantic writes it on tagged unions): the `const` of the
    // tag in each alternative already tells them apart.
    "discriminator",
];
/// Keywords that narrow a value the type already describes: accepted, not
/// enforced by planc.
pub const NARROWING: &[&str] = &[
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
    "$anchor",
    "$dynamicRef",
    "$dynamicAnchor",
    "not",
    "if",
    "then",
    "else",
    "patternProperties",
    "dependentSchemas",
    "dependencies",
];
pub const TYPE_NAMES: &[&str] = &[
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
    // What is shown must be what is called: a name that holds a character
    // shown as nothing, or one that reorders the text, is refused
    // (`docs/catalogs.md`).
    if let Some(c) = s.chars().find(|&c| crate::syntax::lexicon::is_hidden(c)) {
        r.report(
            Diagnostic::new(
                Code::E0004,
                v.span,
                format!(
                    "the tool name `{}` holds {}, which shows as nothing or reorders the text",
                    crate::syntax::lexicon::show_hidden(s),
                    crate::syntax::lexicon::show_hidden(&c.to_string())
                ),
            )
            .with_label("hidden character")
            .with_help(
                "name the tool with visible characters only: a name is called as it is written",
            ),
        );
        return None;
    }
    Some(Spanned::new(Str::new(s), v.text_span()))
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
        ).into());
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
    let (mut effect, mut idempotent, mut untrusted) = (None, None, None);
    if let Some(a) = f.get("annotations")
        && let Some(af) = r.fields_open(a, "`annotations`", ANNOTATION_KEYS)
    {
        let hint = |r: &mut Reader<'_>, key: &str| {
            af.get(key)
                .and_then(|v| r.boolean(key, v).map(|b| Spanned::new(b, v.span)))
        };
        effect = hint(r, "readOnlyHint").map(|h| {
            let e = if h.node { Effect::Read } else { Effect::Write };
            Spanned::new(e, h.span)
        });
        idempotent = hint(r, "idempotentHint");
        untrusted = hint(r, "openWorldHint").and_then(|h| h.node.then_some(h.span));
    }
    let degraded = degrade(r, mark, &name.node);
    Some(ToolDecl {
        doc,
        name,
        params,
        result,
        effect,
        idempotent,
        untrusted,
        degraded,
        foreign: true,
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
        effect: None,
        name,
        params,
        idempotent: None,
        untrusted: None,
        degraded,
        foreign: true,
        span: t.span,
    })
}
