//! JSON Schema as the plan language's types: an input schema's parameters,
//! an object's properties, keywords checked, `type`, `enum`/`const` and
//! `anyOf`/`oneOf`.

use super::*;

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

/// The parameters of a tool from its input schema, an object schema.
pub(super) fn params(r: &mut Reader<'_>, s: &Json<'_>) -> Vec<Param> {
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
pub(super) fn loosely(r: &mut Reader<'_>, at: Span, message: String, label: &str, help: &str) {
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
pub(super) fn properties(r: &mut Reader<'_>, s: &Json<'_>) -> Vec<Property> {
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

/// A JSON Schema as a type of the plan language; `any` after an E0004 when
/// it is outside the subset that maps.
pub(super) fn schema_type(r: &mut Reader<'_>, s: &Json<'_>) -> Type {
    schema_type_as(r, s, None)
}

/// [`schema_type`], with the `type` of an enclosing `anyOf`/`oneOf` for an
/// alternative that names none.
pub(super) fn schema_type_as(r: &mut Reader<'_>, s: &Json<'_>, outer: Option<&str>) -> Type {
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

/// A schema with no `type`: an enum, a record, a list, a formatted string,
/// or `any` when nothing constrains it.
pub(super) fn untyped(r: &mut Reader<'_>, s: &Json<'_>) -> Type {
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

pub(super) fn typed(r: &mut Reader<'_>, s: &Json<'_>, name: &str) -> Type {
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
pub(super) fn union(r: &mut Reader<'_>, s: &Json<'_>, key: &str, alts: &Json<'_>) -> Type {
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
