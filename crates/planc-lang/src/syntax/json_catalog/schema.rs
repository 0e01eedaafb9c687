//! JSON Schema as the plan language's types: an input schema's parameters,
//! an object's properties, keywords checked, `type`, `enum`/`const`,
//! `anyOf`/`oneOf`, and the parts a schema is made of: local `$ref`s into
//! the same document (`$defs`, `definitions`, any JSON pointer) and `allOf`.

use super::*;
use crate::syntax::json::{Unresolved, resolve};

/// How many times one `$ref` target may be expanded inside itself: a
/// recursive schema (a tree of comments) is unrolled this deep, and the
/// type there is E0003, never `any`.
pub(crate) const MAX_REF_RECURSION: usize = 4;
/// How many schemas one document may read through its `$ref`s in all: a
/// document whose references branch (eight references to a definition
/// that makes eight references to the next, and so on) stops here with
/// E0003 instead of growing exponentially.
pub(crate) const MAX_EXPANDED_SCHEMAS: usize = 65_536;

/// The document a schema's local `$ref`s point into (a tool's input or
/// output schema: MCP and OpenAI give each its own), and the references
/// being expanded.
pub(super) struct Refs<'v, 'a> {
    root: &'v Json<'a>,
    /// The targets of the `$ref`s being expanded, innermost last.
    chain: Vec<Span>,
    /// Schemas read inside a `$ref`'s target so far.
    expanded: usize,
    /// E0003 is reported once per document; later cuts are silent.
    cut: bool,
    /// The diagnostics reported inside `$ref` targets so far: a target
    /// expanded many times (eight references to a definition whose eight
    /// references are unresolved) reports each of its problems once.
    reported: crate::FastSet<(Code, Span, String)>,
}

impl<'v, 'a> Refs<'v, 'a> {
    pub(super) fn new(root: &'v Json<'a>) -> Refs<'v, 'a> {
        Refs {
            root,
            chain: Vec::new(),
            expanded: 0,
            cut: false,
            reported: crate::FastSet::default(),
        }
    }
}

/// One property of an object schema, before it becomes a parameter or a
/// record field.
pub(super) struct Property {
    doc: Doc,
    name: Name,
    ty: Type,
    required: bool,
    default: Option<Expr>,
    span: Span,
}

/// The parameters of a tool from its input schema, an object schema (or a
/// `$ref` or `allOf` that comes to one).
pub(super) fn params(r: &mut Reader<'_>, s: &Json<'_>) -> Vec<Param> {
    if s.as_object().is_none() {
        r.ill_typed("an input schema", s, "an object schema");
        return Vec::new();
    }
    let cx = &mut Refs::new(s);
    if s.get("$ref").is_some() || s.get("allOf").is_some() {
        return composed_params(r, cx, s);
    }
    if !check_keys(r, s) {
        return Vec::new();
    }
    if let Some(t) = s.get("type")
        && t.as_str() != Some("object")
    {
        not_an_object(r, t.span);
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
    properties(r, cx, s)
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

fn not_an_object(r: &mut Reader<'_>, at: Span) {
    r.report(
        Diagnostic::new(
            Code::E0004,
            at,
            "the parameters of a tool must be an object schema",
        )
        .with_label("expected `\"object\"`"),
    );
}

/// The parameters of an input schema made of parts (`$ref`, `allOf`): the
/// fields of the record the parts come to (a field's `default` is not kept
/// through them: such a parameter is optional).
fn composed_params(r: &mut Reader<'_>, cx: &mut Refs<'_, '_>, s: &Json<'_>) -> Vec<Param> {
    let ty = schema_type_in(r, cx, s, None);
    match ty.node {
        TypeKind::Record(fields) => fields
            .into_iter()
            .map(|f| Param {
                doc: f.doc,
                ty: if f.optional { optional(f.ty) } else { f.ty },
                name: f.name,
                default: None,
                span: f.span,
            })
            .collect(),
        // Already reported (`any` only after an E0004; `Error` after E0003).
        TypeKind::Prim(Prim::Any) | TypeKind::Error => Vec::new(),
        _ => {
            not_an_object(r, s.span);
            Vec::new()
        }
    }
}

/// Wraps a type as optional, unless it already is.
pub(super) fn optional(ty: Type) -> Type {
    match ty.node {
        TypeKind::Optional(_) | TypeKind::Error | TypeKind::Prim(Prim::Null) => ty,
        _ => {
            let span = ty.span;
            Spanned::new(TypeKind::Optional(Box::new(ty)), span)
        }
    }
}

/// W0502: a part of a schema planc reads more loosely than it is written.
pub(super) fn loosely(
    r: &mut Reader<'_>,
    at: Span,
    message: String,
    label: &'static str,
    help: &'static str,
) {
    r.report(
        Diagnostic::new(Code::W0502, at, message)
            .with_label(label)
            .with_help(help),
    );
}

/// Reports the keywords of a schema object that are unsupported (E0004,
/// which the tool's reader turns into W0501) or unknown (W0502, ignored);
/// `false` when the schema cannot be read.
pub(super) fn check_keys(r: &mut Reader<'_>, s: &Json<'_>) -> bool {
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
                "$anchor" | "$dynamicRef" | "$dynamicAnchor" => {
                    "refer with a local `$ref` (`#/$defs/NAME`) instead"
                }
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
pub(super) fn properties(r: &mut Reader<'_>, cx: &mut Refs<'_, '_>, s: &Json<'_>) -> Vec<Property> {
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
            let mut ty = schema_type_in(r, cx, &m.value, None);
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
                name: Spanned::new(Str::from(&*m.key), m.key_text_span()),
                ty,
                required: required.contains(&&*m.key),
                default,
                span: m.span(),
            }
        })
        .collect()
}

pub(super) fn doc_of(r: &mut Reader<'_>, schema: &Json<'_>) -> Doc {
    doc(r, schema.get("description"))
}

/// The type of a schema planc could not map: `any`, after the E0004 that
/// the tool's reader turns into W0501.
pub(super) fn unmapped(span: Span) -> Type {
    any(span)
}

pub(super) fn any(span: Span) -> Type {
    Spanned::new(TypeKind::Prim(Prim::Any), span)
}

/// A JSON Schema document (a tool's output schema) as a type of the plan
/// language; `any` after an E0004 when it is outside the subset that maps.
pub(super) fn schema_type(r: &mut Reader<'_>, s: &Json<'_>) -> Type {
    schema_type_in(r, &mut Refs::new(s), s, None)
}

/// A schema inside the document of `cx`, with the `type` of an enclosing
/// `anyOf`/`oneOf` for an alternative that names none.
pub(super) fn schema_type_in(
    r: &mut Reader<'_>,
    cx: &mut Refs<'_, '_>,
    s: &Json<'_>,
    outer: Option<&str>,
) -> Type {
    let span = s.span;
    match &s.value {
        Value::Bool(true) => return any(span),
        Value::Object(_) => {}
        _ => {
            r.ill_typed("a schema", s, "an object");
            return unmapped(span);
        }
    }
    if !cx.chain.is_empty()
        && let Some(over) = count_read(r, cx, span)
    {
        return over;
    }
    if !check_keys(r, s) {
        return unmapped(span);
    }
    // The parts a value must match all of: the `$ref`'s target, each schema
    // of `allOf`, and the keywords written beside them.
    let mut parts = Vec::new();
    let mut at = span;
    if let Some(m) = member(s, "$ref") {
        at = m.key_span;
        parts.push(reference(r, cx, m, outer));
    }
    if let Some(all) = member(s, "allOf") {
        at = all.key_span;
        let Some(items) = all.value.as_array() else {
            r.ill_typed("`allOf`", &all.value, "an array of schemas");
            return unmapped(span);
        };
        if items.is_empty() {
            r.report(
                Diagnostic::new(Code::E0004, all.value.span, "an empty `allOf`")
                    .with_label("no schemas"),
            );
            return unmapped(span);
        }
        parts.extend(items.iter().map(|i| schema_type_in(r, cx, i, outer)));
    }
    if parts.is_empty() {
        return own_type(r, cx, s, outer);
    }
    let beside = s.as_object().is_some_and(|ms| {
        ms.iter()
            .any(|m| MAPPED.contains(&&*m.key) && !PARTS.contains(&&*m.key))
    });
    if beside {
        parts.push(own_type(r, cx, s, outer));
    }
    meet_all(r, parts, at, span)
}

/// The keywords [`schema_type_in`] reads as parts of a schema rather than
/// as its own type.
const PARTS: &[&str] = &["$ref", "allOf", "$defs", "definitions"];

fn member<'v, 'a>(s: &'v Json<'a>, key: &str) -> Option<&'v Member<'a>> {
    s.as_object()?.iter().find(|m| m.key == key)
}

/// The type of a local `$ref`'s target (`#` and an RFC 6901 pointer into
/// the document): W0501 on the `$ref` when it is not local or does not
/// resolve, E0003 past the recursion or expansion limit.
fn reference(
    r: &mut Reader<'_>,
    cx: &mut Refs<'_, '_>,
    m: &Member<'_>,
    outer: Option<&str>,
) -> Type {
    let span = m.value.span;
    let target = m.value.as_str();
    let pointer = target.and_then(|t| t.strip_prefix('#'));
    let root = cx.root;
    let resolved = pointer.map(|p| resolve(root, p));
    // A reference that does not resolve, read inside an expansion, counts
    // as a schema read: unresolved ones at the leaves of an exploding
    // document are bounded as the schemas are (a resolved one counts as its
    // target is read).
    if !cx.chain.is_empty()
        && !matches!(resolved, Some(Ok(_)))
        && let Some(over) = count_read(r, cx, span)
    {
        return over;
    }
    let Some(target) = target else {
        r.ill_typed("`$ref`", &m.value, "a string");
        return unmapped(span);
    };
    let (Some(pointer), Some(resolved)) = (pointer, resolved) else {
        r.report(
            Diagnostic::new(
                Code::E0004,
                m.key_span,
                format!("`$ref` to `{target}` is not local: only `#/…` references are mapped"),
            )
            .with_label("points outside this schema")
            .with_help("put the referenced schema under `$defs` and refer to `#/$defs/NAME`"),
        );
        return unmapped(span);
    };
    let found = match resolved {
        Ok(found) => found,
        Err(why) => {
            let (message, help) = match why {
                Unresolved::NotAPointer => (
                    format!("`$ref` `{target}` is not a JSON pointer (`#/…`)"),
                    "anchors are not mapped: refer with a pointer such as `#/$defs/NAME`"
                        .to_string(),
                ),
                Unresolved::BadEscape { .. } => (
                    format!("`$ref` `{target}` has a `~` that is neither `~0` nor `~1`"),
                    "in a JSON pointer `~` is written `~0` and `/` is written `~1`".to_string(),
                ),
                Unresolved::Missing { at, key } => {
                    let parent = pointer
                        .split('/')
                        .take(at + 1)
                        .collect::<Vec<_>>()
                        .join("/");
                    let near = resolve(root, &parent)
                        .ok()
                        .and_then(Json::as_object)
                        .map(|ms| suggest::nearest(&key, ms.iter().map(|m| &*m.key)))
                        .unwrap_or_default();
                    let help = suggest::did_you_mean(&near).unwrap_or_else(|| {
                        "the reference must name a schema of this tool's own schema document".into()
                    });
                    (
                        format!("`$ref` `{target}` does not resolve: no `{key}` at `#{parent}`"),
                        help,
                    )
                }
            };
            r.report(
                Diagnostic::new(Code::E0004, span, message)
                    .with_label("unresolved reference")
                    .with_help(help),
            );
            return unmapped(span);
        }
    };
    let depth = cx.chain.iter().filter(|s| **s == found.span).count();
    if depth >= MAX_REF_RECURSION {
        return cut(
            r,
            cx,
            m.key_span,
            format!("`{target}` refers to itself more than {MAX_REF_RECURSION} levels deep"),
        );
    }
    let before = r.diags.len();
    cx.chain.push(found.span);
    let ty = schema_type_in(r, cx, found, outer);
    cx.chain.pop();
    if cx.chain.is_empty() {
        // Back at the document: what the expansion reported, each once in
        // the document.
        let mut expansion = r.diags.split_off(before.min(r.diags.len()));
        expansion.retain(|d| cx.reported.insert((d.code, d.span, d.message.clone())));
        r.diags.append(&mut expansion);
    }
    // The type is the target's, pointed at from where it is used.
    Spanned::new(ty.node, span)
}

/// Counts one schema read inside an expansion, at `span`; the cut (E0003)
/// past [`MAX_EXPANDED_SCHEMAS`].
fn count_read(r: &mut Reader<'_>, cx: &mut Refs<'_, '_>, span: Span) -> Option<Type> {
    if cx.expanded >= MAX_EXPANDED_SCHEMAS {
        return Some(cut(
            r,
            cx,
            span,
            format!("its references expand to more than {MAX_EXPANDED_SCHEMAS} schemas"),
        ));
    }
    cx.expanded += 1;
    None
}

/// E0003 at `at` (once per document), and the error type there: a schema
/// too large to expand is refused, never read as `any`.
fn cut(r: &mut Reader<'_>, cx: &mut Refs<'_, '_>, at: Span, why: String) -> Type {
    if !cx.cut {
        cx.cut = true;
        r.report(
            Diagnostic::new(Code::E0003, at, format!("a schema not expanded further: {why}"))
                .with_label("too deep to represent")
                .with_help("planc's types are finite: a recursive or exploding schema is refused rather than read as `any`"),
        );
    }
    Spanned::new(TypeKind::Error, at)
}

/// One type that every part describes (`allOf`, or a `$ref` with keywords
/// beside it): records merged field by field (a field required by one part
/// is required), `any` giving way to the other part, an enum narrowing a
/// string. Parts that describe different kinds of value are E0004 at `at`.
fn meet_all(r: &mut Reader<'_>, parts: Vec<Type>, at: Span, span: Span) -> Type {
    let mut it = parts.into_iter();
    let Some(mut acc) = it.next() else {
        return any(span);
    };
    for part in it {
        acc = match meet(acc, part) {
            Ok(t) => t,
            Err((a, b)) => {
                r.report(
                    Diagnostic::new(
                        Code::E0004,
                        at,
                        format!("the parts of this schema cannot be merged into one type: `{a}` and `{b}`"),
                    )
                    .with_label("parts of different kinds")
                    .with_help("`allOf` and `$ref` beside other keywords are mapped when every part is an object schema, or all but one say nothing of the type"),
                );
                return unmapped(span);
            }
        };
    }
    Spanned::new(acc.node, span)
}

/// [`meet_all`] of two types; the two, written as planc types, when they
/// cannot be merged.
fn meet(a: Type, b: Type) -> Result<Type, (String, String)> {
    use TypeKind as K;
    let (sa, sb) = (a.span, b.span);
    let conflict = |x: &Type, y: &Type| {
        (
            crate::catalog::Ty::from_ast(x).to_string(),
            crate::catalog::Ty::from_ast(y).to_string(),
        )
    };
    if same_type(&a, &b) {
        return Ok(a);
    }
    match (a.node, b.node) {
        (K::Error, _) | (_, K::Error) => Ok(Spanned::new(K::Error, sa)),
        (K::Prim(Prim::Any), y) => Ok(Spanned::new(y, sb)),
        (x, K::Prim(Prim::Any)) => Ok(Spanned::new(x, sa)),
        (K::Optional(x), K::Optional(y)) => Ok(optional(meet(*x, *y)?)),
        (K::Optional(x), y) => meet(*x, Spanned::new(y, sb)),
        (x, K::Optional(y)) => meet(Spanned::new(x, sa), *y),
        (K::Enum(x), K::Prim(Prim::String)) | (K::Prim(Prim::String), K::Enum(x)) => {
            Ok(Spanned::new(K::Enum(x), sa))
        }
        (K::Map(x), K::Map(y)) => Ok(Spanned::new(K::Map(Box::new(meet(*x, *y)?)), sa)),
        (K::Record(mut xs), K::Record(ys)) => {
            for y in ys {
                match xs.iter().position(|x| x.name.node == y.name.node) {
                    None => xs.push(y),
                    Some(i) => {
                        let Some(x) = xs.get_mut(i) else { continue };
                        let ty = std::mem::replace(&mut x.ty, any(sa));
                        x.ty = meet(ty, y.ty)?;
                        x.optional = x.optional && y.optional;
                        if x.doc.lines.is_empty() {
                            x.doc = y.doc;
                        }
                    }
                }
            }
            Ok(Spanned::new(K::Record(xs), sa))
        }
        (x, y) => Err(conflict(&Spanned::new(x, sa), &Spanned::new(y, sb))),
    }
}

/// The type a schema's own keywords describe (everything but its parts).
fn own_type(r: &mut Reader<'_>, cx: &mut Refs<'_, '_>, s: &Json<'_>, outer: Option<&str>) -> Type {
    let span = s.span;
    for key in ["anyOf", "oneOf"] {
        if let Some(alts) = s.get(key) {
            return union(r, cx, s, key, alts);
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
        [] => untyped(r, cx, s),
        [(name, _)] => typed(r, cx, s, name),
        [_, (_, second), ..] => {
            let tys: Vec<Type> = non_null.iter().map(|(n, _)| typed(r, cx, s, n)).collect();
            join(r, tys, *second, span)
        }
    };
    if nullable { optional(base) } else { base }
}

/// A schema with no `type`: an enum, a record, a list, a formatted string,
/// or `any` when nothing constrains it.
pub(super) fn untyped(r: &mut Reader<'_>, cx: &mut Refs<'_, '_>, s: &Json<'_>) -> Type {
    if let Some(e) = s.get("enum") {
        let Some(items) = e.as_array() else {
            r.ill_typed("`enum`", e, "an array of values");
            return unmapped(s.span);
        };
        return literal_set(r, s, e, items, None);
    }
    if s.get("properties").is_some() || map_values(s).is_some() {
        return typed(r, cx, s, "object");
    }
    if s.get("items").is_some() || s.get("prefixItems").is_some() {
        return typed(r, cx, s, "array");
    }
    if s.get("format").is_some() {
        return typed(r, cx, s, "string");
    }
    any(s.span)
}

pub(super) fn typed(r: &mut Reader<'_>, cx: &mut Refs<'_, '_>, s: &Json<'_>, name: &str) -> Type {
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
                        let tys: Vec<Type> = schemas
                            .iter()
                            .map(|i| schema_type_in(r, cx, i, None))
                            .collect();
                        join(r, tys, t.span, t.span)
                    }
                    None => {
                        r.ill_typed("`prefixItems`", t, "an array of schemas");
                        unmapped(t.span)
                    }
                },
                (None, Some(items)) => schema_type_in(r, cx, items, None),
                (None, None) => any(span),
            };
            Spanned::new(TypeKind::List(Box::new(elem)), span)
        }
        _ => {
            // "object"
            if s.get("properties").is_none() {
                // `additionalProperties: SCHEMA` alone: a map. With
                // `properties` too, a record of those (`properties`
                // reports the rest as read loosely, W0502).
                return match map_values(s) {
                    Some(values) => {
                        let inner = schema_type_in(r, cx, values, None);
                        Spanned::new(TypeKind::Map(Box::new(inner)), span)
                    }
                    None => any(span),
                };
            }
            let fields = properties(r, cx, s)
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

/// The schema of a map's values: `additionalProperties` when it is a
/// schema (not `true` or `false`).
fn map_values<'v, 'a>(s: &'v Json<'a>) -> Option<&'v Json<'a>> {
    s.get("additionalProperties")
        .filter(|ap| !matches!(ap.value, Value::Bool(_)))
}

/// `enum` or `const`: a string enum, a literal type for a number or a
/// boolean, their union for several (`1 | 2 | 5`, `"auto" | 0`). Arrays and
/// objects among the values are read as `any` with a W0502, and so is a
/// number no exact decimal holds (read as its number type).
pub(super) fn literal_set(
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
            Value::String(v) => strings.push(Spanned::new(Str::from(&**v), item.span)),
            Value::Null => nullable = true,
            Value::Bool(b) => others.push(Spanned::new(
                TypeKind::Literal(Literal::Bool(*b)),
                item.span,
            )),
            Value::Number(n) => {
                let int = n.bytes().all(|c| c.is_ascii_digit() || c == b'-');
                let lit = if int {
                    Literal::Int(Str::new(n))
                } else {
                    Literal::Decimal(Str::new(n))
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
pub(super) fn union(
    r: &mut Reader<'_>,
    cx: &mut Refs<'_, '_>,
    s: &Json<'_>,
    key: &str,
    alts: &Json<'_>,
) -> Type {
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
    let tys: Vec<Type> = items
        .iter()
        .map(|a| schema_type_in(r, cx, a, outer))
        .collect();
    join(r, tys, alts.span, span)
}
