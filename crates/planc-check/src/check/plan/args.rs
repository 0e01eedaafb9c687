//! Arguments: each value checked against its parameter's type, references
//! resolved to the bindings they name, taint followed.

use super::*;

impl<'a> Checker<'a, '_> {
    pub(super) fn check_args(
        &mut self,
        i: usize,
        step: &ast::Step,
        tool: Option<&'a Tool>,
    ) -> Vec<CheckedArg> {
        let mut out: Vec<CheckedArg> = Vec::with_capacity(step.args.len());
        let mut seen = Seen::new(step.args.len());
        // Parameters an unknown argument's E0102 already suggests: that one
        // message says what is missing, so no E0103 repeats it.
        let mut suggested: Vec<String> = Vec::new();
        for arg in &step.args {
            if let Some(first) = seen.first(&arg.name.node, arg.name.span) {
                let d = Diagnostic::new(
                    Code::E0104,
                    arg.name.span,
                    format!("argument `{}` is given more than once", arg.name.node),
                )
                .with_label("given again here")
                .with_secondary(first, "first given here")
                .with_help("give each argument once");
                self.report(i, d);
                // Still resolve its references: their errors are their own.
                self.check_expr(i, &arg.value, &Ty::Error, What::Plain(&arg.name.node));
                continue;
            }
            let param = tool.and_then(|t| t.param(&arg.name.node));
            let expected = match (tool, param) {
                (Some(t), None) => {
                    let given: Vec<&str> = step.args.iter().map(|a| a.name.node.as_str()).collect();
                    let free: Vec<&str> = t
                        .params
                        .iter()
                        .map(|p| p.name.as_str())
                        .filter(|p| !given.contains(p))
                        .collect();
                    let near = self.env.nearest(&arg.name.node, free.iter().copied());
                    if let Some(best) = near.first() {
                        suggested.push((*best).to_string());
                    }
                    let mut d = Diagnostic::new(
                        Code::E0102,
                        arg.name.span,
                        format!("`{}` has no argument `{}`", t.name, arg.name.node),
                    )
                    .with_label("unknown argument")
                    .with_secondary(t.name_span, format!("`{}` is declared here", t.name));
                    d = policy::add_suggestion(d, &near, arg.name.span);
                    if near.is_empty() {
                        let all: Vec<&str> = t.params.iter().map(|p| p.name.as_str()).collect();
                        d = d.with_help(if all.is_empty() {
                            format!("`{}` takes no arguments", t.name)
                        } else {
                            format!("`{}` takes {}", t.name, list_names(&all))
                        });
                    }
                    self.report(i, d);
                    Ty::Error
                }
                (Some(_), Some(p)) => p.ty.clone(),
                (None, _) => Ty::Error,
            };
            self.recorded_taint = None;
            let value = self.check_expr(i, &arg.value, &expected, What::Arg(&arg.name.node));
            let mut untrusted_from = self.taint_of(&value).or(self.recorded_taint.take());
            if untrusted_from.is_none() {
                untrusted_from = self.laundered(i, &arg.name.node, &value);
            }
            let checked = CheckedArg {
                name: arg.name.node.clone(),
                name_span: arg.name.span,
                param_ty: if param.is_some() { expected } else { Ty::Any },
                value,
                from_default: false,
                untrusted_from,
            };
            if checked.checked_at_dispatch() {
                let d = checked_at_dispatch(&checked, &step.tool.node, &self.heads);
                self.report(i, d);
            }
            out.push(checked);
        }
        if let Some(t) = tool {
            let mut missing: Vec<&catalog::Param> = Vec::new();
            for p in &t.params {
                if seen.contains(&p.name) || suggested.iter().any(|s| *s == p.name) {
                    continue;
                }
                if p.required() {
                    missing.push(p);
                } else if let (Some(v), Some(span)) = (&p.default, p.default_span) {
                    out.push(CheckedArg {
                        name: p.name.clone(),
                        name_span: p.name_span,
                        param_ty: p.ty.clone(),
                        value: TypedValue {
                            kind: ValueKind::Literal(v.clone()),
                            ty: v.natural_type(),
                            span,
                        },
                        from_default: true,
                        untrusted_from: None,
                    });
                }
            }
            if !missing.is_empty() && !self.env.damaged(step.span) {
                let names: Vec<&str> = missing.iter().map(|p| p.name.as_str()).collect();
                // A JSON plan is told where its `args` object is, and what
                // to write there in JSON.
                let shown: Vec<String> = missing
                    .iter()
                    .map(|p| match step.json_args {
                        Some(_) => format!("\"{}\": {}", p.name, p.ty.json_placeholder()),
                        None => format!("{}: {}", p.name, p.ty),
                    })
                    .collect();
                let mut d = Diagnostic::new(
                    Code::E0103,
                    step.json_args.unwrap_or(step.tool.span),
                    format!(
                        "missing {} {} of `{}`",
                        plural(names.len(), "argument", "arguments"),
                        list_names(&names),
                        t.name
                    ),
                )
                .with_label(format!("missing {}", list_names(&shown)))
                .with_help(format!(
                    "every argument without a default must be given: add {}",
                    list_names(&shown)
                ));
                for p in &missing {
                    d = d.with_secondary(p.name_span, format!("`{}` is declared here", p.name));
                }
                self.report(i, d);
            }
        }
        out
    }

    /// The untrusted step a value's data comes from through the plan's
    /// bindings, if any (a recorded artifact's taint is
    /// [`Checker::recorded_taint`]).
    ///
    /// The first such reference in source order decides. Most values are a
    /// literal, one reference or one string: those are looked at in place;
    /// a list or a record collects its references.
    pub(super) fn taint_of(&self, value: &TypedValue) -> Option<Untrusted> {
        let untrusted = |r: &RefValue| {
            self.bindings
                .get(r.binding_index)
                .and_then(|b| b.untrusted_from)
        };
        match &value.kind {
            ValueKind::Literal(_) | ValueKind::Error => None,
            ValueKind::Ref(r) => untrusted(r).map(Untrusted::Step),
            ValueKind::Interp(parts) => {
                // The earliest untrusted reference; of two at one offset,
                // the first listed (as a stable sort by offset keeps them).
                let mut first: Option<(u32, usize)> = None;
                for p in parts {
                    let InterpPiece::Ref { reference: r, .. } = p else {
                        continue;
                    };
                    if let Some(step) = untrusted(r)
                        && first.is_none_or(|(at, _)| r.span.start < at)
                    {
                        first = Some((r.span.start, step));
                    }
                }
                first.map(|(_, step)| Untrusted::Step(step))
            }
            ValueKind::List(_) | ValueKind::Record(_) => value
                .references()
                .iter()
                .find_map(|r| untrusted(r))
                .map(Untrusted::Step),
        }
    }

    /// Checks an expression against the type it must have and classifies
    /// it. `what` names it for messages ("argument `facts`").
    pub(super) fn check_expr(
        &mut self,
        i: usize,
        expr: &ast::Expr,
        expected: &Ty,
        what: What<'_>,
    ) -> TypedValue {
        let error = |span| TypedValue {
            kind: ValueKind::Error,
            ty: Ty::Error,
            span,
        };
        match &expr.node {
            ast::ExprKind::Error => error(expr.span),
            ast::ExprKind::Literal(lit) => match catalog::value::literal_value(lit, expected) {
                Ok((v, ty)) => TypedValue {
                    kind: ValueKind::Literal(v),
                    ty,
                    span: expr.span,
                },
                Err(e) => {
                    let d = catalog::literal_error(&e, lit, expected, expr.span, &what.to_string());
                    self.report(i, d);
                    error(expr.span)
                }
            },
            ast::ExprKind::Ref(r) => {
                if let Some(recorded) = self.recorded_ref(i, r, expr.span, expected, what) {
                    return recorded;
                }
                let Some((rv, ty)) = self.resolve_ref(i, r, expr.span) else {
                    return error(expr.span);
                };
                if !ty.assignable_to(expected) {
                    let binding = self.bindings.get(rv.binding_index);
                    let shown = reference_text(r);
                    let mut d = Diagnostic::new(
                        Code::E0201,
                        expr.span,
                        format!("{what} expects `{expected}`, found `{shown}` of type `{ty}`"),
                    )
                    .with_label(format!("`{ty}`, expected `{expected}`"))
                    .with_help(format!(
                        "pass a value of type `{expected}`: another binding, a member of this one, or a literal"
                    ));
                    if let Some(b) = binding {
                        d = d.with_secondary(
                            b.path_span,
                            format!(
                                "`{}` is bound here, by step `{}`, to `{}` of type `{}`",
                                b.name,
                                self.step_name(b.step),
                                b.path_text(),
                                b.ty
                            ),
                        );
                    }
                    if let (Ty::Optional(inner), false) = (&ty, expected.accepts_null())
                        && inner.assignable_to(expected)
                    {
                        d = d.with_help(format!(
                                "`{shown}` may be null: add `post exists(...)` for it and bind a field that is always present, or change the parameter to `{expected}?`"
                            ));
                    }
                    self.report(i, d);
                    return TypedValue {
                        kind: ValueKind::Ref(Box::new(rv)),
                        ty: Ty::Error,
                        span: expr.span,
                    };
                }
                TypedValue {
                    kind: ValueKind::Ref(Box::new(rv)),
                    ty,
                    span: expr.span,
                }
            }
            ast::ExprKind::List(items) => {
                let inner = match expected.strip_optional() {
                    Ty::List(t) => Some((**t).clone()),
                    Ty::Any => Some(Ty::Any),
                    Ty::Error => Some(Ty::Error),
                    _ => None,
                };
                let elem = match &inner {
                    Some(t) => t.clone(),
                    None => {
                        let d = Diagnostic::new(
                            Code::E0201,
                            expr.span,
                            format!("{what} expects `{expected}`, found a list"),
                        )
                        .with_label(format!("expected `{expected}`"));
                        self.report(i, d);
                        Ty::Error
                    }
                };
                let what_item = What::Item(&what);
                let values: Vec<TypedValue> = items
                    .iter()
                    .map(|x| self.check_expr(i, x, &elem, what_item))
                    .collect();
                TypedValue {
                    kind: ValueKind::List(values),
                    ty: if inner.is_some() {
                        Ty::List(std::sync::Arc::new(elem))
                    } else {
                        Ty::Error
                    },
                    span: expr.span,
                }
            }
            ast::ExprKind::Record(entries) => self.check_record(i, expr, entries, expected, what),
            ast::ExprKind::Interp(parts) => {
                let mut pieces = Vec::with_capacity(parts.len());
                let mut failed = false;
                for part in parts {
                    match part {
                        ast::InterpPart::Text(t) => pieces.push(InterpPiece::Text(t.clone())),
                        ast::InterpPart::Ref(r) if self.is_recorded(&r.node) => {
                            match self.recorded_text(i, &r.node, r.span) {
                                Some(text) => pieces.push(InterpPiece::Text(text.into())),
                                None => failed = true,
                            }
                        }
                        ast::InterpPart::Ref(r) => match self.resolve_ref(i, &r.node, r.span) {
                            Some((rv, ty)) => {
                                if !ty.is_scalar() {
                                    let d = Diagnostic::new(
                                        Code::E0201,
                                        r.span,
                                        format!(
                                            "`{}` is `{ty}`, which cannot be written into a string",
                                            reference_text(&r.node)
                                        ),
                                    )
                                    .with_label("not a single value")
                                    .with_help("interpolate a field that holds a string, number, date or boolean");
                                    self.report(i, d);
                                    failed = true;
                                }
                                pieces.push(InterpPiece::Ref { reference: rv, ty });
                            }
                            None => failed = true,
                        },
                    }
                }
                if !Ty::String.assignable_to(expected) {
                    let d = Diagnostic::new(
                        Code::E0201,
                        expr.span,
                        format!("{what} expects `{expected}`, found an interpolated string"),
                    )
                    .with_label(format!("a string, expected `{expected}`"));
                    self.report(i, d);
                    failed = true;
                }
                TypedValue {
                    kind: ValueKind::Interp(pieces),
                    ty: if failed { Ty::Error } else { Ty::String },
                    span: expr.span,
                }
            }
        }
    }

    pub(super) fn check_record(
        &mut self,
        i: usize,
        expr: &ast::Expr,
        entries: &[ast::RecordEntry],
        expected: &Ty,
        what: What<'_>,
    ) -> TypedValue {
        let fields: Option<&[catalog::FieldTy]> = match expected.strip_optional() {
            Ty::Record(f) => Some(f),
            _ => None,
        };
        // A record written where a map is expected: each entry a key.
        let map_values: Option<&Ty> = match expected.strip_optional() {
            Ty::Map(v) => Some(v),
            _ => None,
        };
        let open = matches!(expected.strip_optional(), Ty::Any | Ty::Error);
        let mut failed = false;
        if fields.is_none() && map_values.is_none() && !open {
            let d = Diagnostic::new(
                Code::E0201,
                expr.span,
                format!("{what} expects `{expected}`, found a record"),
            )
            .with_label(format!("expected `{expected}`"));
            self.report(i, d);
            failed = true;
        }
        let mut seen = Seen::new(entries.len());
        let mut values = Vec::with_capacity(entries.len());
        let mut tys = Vec::with_capacity(entries.len());
        for e in entries {
            if let Some(first) = seen.first(&e.name.node, e.name.span) {
                let d = Diagnostic::new(
                    Code::E0104,
                    e.name.span,
                    format!("field `{}` is given more than once", e.name.node),
                )
                .with_label("given again here")
                .with_secondary(first, "first given here");
                self.report(i, d);
                self.check_expr(i, &e.value, &Ty::Error, What::Plain(""));
                continue;
            }
            let field_ty = match fields {
                Some(fs) => match fs.iter().find(|f| f.name == e.name.node) {
                    Some(f) if f.optional => Ty::optional(f.ty.clone()),
                    Some(f) => f.ty.clone(),
                    None => {
                        let free: Vec<&str> = fs
                            .iter()
                            .map(|f| f.name.as_str())
                            .filter(|n| !entries.iter().any(|x| x.name.node == *n))
                            .collect();
                        let near = self.env.nearest(&e.name.node, free.iter().copied());
                        let mut d = Diagnostic::new(
                            Code::E0201,
                            e.name.span,
                            format!(
                                "{what} has no field `{}`: it expects `{expected}`",
                                e.name.node
                            ),
                        )
                        .with_label("unknown field");
                        d = policy::add_suggestion(d, &near, e.name.span);
                        if near.is_empty() {
                            d = d.with_help(if free.is_empty() {
                                "remove this field: every field of the record is given".to_string()
                            } else {
                                let names: Vec<String> =
                                    free.iter().map(|n| format!("`{n}`")).collect();
                                format!(
                                    "remove it, or give a field the record has: {}",
                                    names.join(", ")
                                )
                            });
                        }
                        self.report(i, d);
                        failed = true;
                        Ty::Error
                    }
                },
                None if open => expected.strip_optional().clone(),
                None => map_values.cloned().unwrap_or(Ty::Error),
            };
            let v = self.check_expr(i, &e.value, &field_ty, What::Field(&e.name.node, &what));
            tys.push(catalog::FieldTy {
                name: e.name.node.clone(),
                optional: false,
                ty: v.ty.clone(),
            });
            values.push((e.name.node.clone(), v));
        }
        if let Some(fs) = fields {
            let missing: Vec<String> = fs
                .iter()
                .filter(|f| !f.optional && !f.ty.accepts_null() && !seen.contains(&f.name))
                .map(|f| format!("{}: {}", f.name, f.ty))
                .collect();
            if !missing.is_empty() {
                let d = Diagnostic::new(
                    Code::E0201,
                    expr.span,
                    format!(
                        "{what} is missing {} {}",
                        plural(missing.len(), "field", "fields"),
                        list_names(&missing)
                    ),
                )
                .with_label(format!("expected `{expected}`"))
                .with_help(format!("add {}", list_names(&missing)));
                self.report(i, d);
                failed = true;
            }
        }
        TypedValue {
            kind: ValueKind::Record(values),
            ty: if failed {
                Ty::Error
            } else {
                Ty::Record(tys.into())
            },
            span: expr.span,
        }
    }

    /// Resolves a reference from step `i`: the binding must be bound by an
    /// earlier step. Records the use and the data edge. `None` after an
    /// error (reported) or when the binding's type is unknown is not an
    /// error: that gives `Some` with the error type.
    pub(super) fn resolve_ref(
        &mut self,
        i: usize,
        r: &ast::Reference,
        span: Span,
    ) -> Option<(RefValue, Ty)> {
        let name = r.name.node.as_str();
        let Some(b) = self.binding_named(name) else {
            self.unknown_binding(i, r);
            return None;
        };
        let (b_step, b_ty, b_span) = {
            let binding = self.bindings.get(b)?;
            (binding.step, binding.ty.clone(), binding.name_span)
        };
        self.use_binding(b);
        // Shared, not borrowed: the names are read across the reports
        // below (a `Str` clone copies at most 24 bytes).
        let binder = name_in(&self.heads, b_step).clone();
        let here = name_in(&self.heads, i).clone();
        if b_step == i {
            let d = Diagnostic::new(
                Code::E0107,
                r.name.span,
                format!("step `{here}` refers to `{name}`, which it binds itself"),
            )
            .with_label("its own binding")
            .with_secondary(b_span, format!("`{name}` is bound here, from the result of this same step"))
            .with_help("a binding exists only after its step has run: take the value from an earlier step, or write it as a literal");
            self.report(i, d);
            return None;
        }
        if b_step > i {
            let d = Diagnostic::new(
                Code::E0106,
                r.name.span,
                format!("`{name}` is bound by step `{binder}`, which comes after step `{here}`"),
            )
            .with_label("used before it is bound")
            .with_secondary(
                b_span,
                format!("`{name}` is bound here, by step `{binder}`, which comes after this one"),
            )
            .with_help(format!("move step `{binder}` before step `{here}`"));
            self.report(i, d);
            return None;
        }
        self.depend(
            i,
            Dependency {
                step: b_step,
                reason: DepReason::Data,
                span: r.name.span,
            },
        );
        let mut ty = b_ty;
        let mut optional = false;
        // The reference up to the member being read, for a report: written
        // only when there is one.
        let shown = |upto: usize| {
            let mut shown = name.to_string();
            for m in r.members.iter().take(upto) {
                let _ =
                    crate::syntax::path::write_segment(&mut shown, &PathSeg::Field(m.node.clone()));
            }
            shown
        };
        for (k, m) in r.members.iter().enumerate() {
            if let Ty::Optional(inner) = &ty {
                optional = true;
                ty = (**inner).clone();
            }
            match &ty {
                Ty::Error | Ty::Any => break,
                // A key of a map: its value, or a failure at run time when
                // the map lacks it (`docs/language.md`).
                Ty::Map(values) => ty = (**values).clone(),
                Ty::Record(fields) => match fields.iter().find(|f| f.name == m.node) {
                    Some(f) => {
                        optional |= f.optional;
                        ty = f.ty.clone();
                    }
                    None => {
                        let shown = shown(k);
                        let names: Vec<&str> = fields.iter().map(|f| f.name.as_str()).collect();
                        let near = self.env.nearest(&m.node, names.iter().copied());
                        let mut d = Diagnostic::new(
                            Code::E0202,
                            m.span,
                            format!("`{shown}` has no field `{}`", m.node),
                        )
                        .with_label("no such field")
                        .with_secondary(
                            b_span,
                            format!("`{name}` is bound here, by step `{binder}`"),
                        );
                        d = policy::add_suggestion(d, &near, m.span);
                        if near.is_empty() {
                            d = d.with_help(format!("`{shown}` is `{ty}`"));
                        }
                        self.report(i, d);
                        ty = Ty::Error;
                        break;
                    }
                },
                other => {
                    let shown = shown(k);
                    let d = Diagnostic::new(
                        Code::E0202,
                        m.span,
                        format!("`{shown}` is `{other}`, which has no field `{}`", m.node),
                    )
                    .with_label("not a record")
                    .with_help(super::not_a_record_help(other, &shown))
                    .with_secondary(
                        b_span,
                        format!("`{name}` is bound here, by step `{binder}`"),
                    );
                    self.report(i, d);
                    ty = Ty::Error;
                    break;
                }
            }
        }
        if optional {
            ty = Ty::optional(ty);
        }
        Some((
            RefValue {
                binding: Str::new(name),
                binding_index: b,
                step: b_step,
                members: r.members.iter().map(|m| m.node.clone()).collect(),
                span,
            },
            ty,
        ))
    }

    pub(super) fn unknown_binding(&mut self, i: usize, r: &ast::Reference) {
        if self.plan_damaged {
            // The bind may have been lost to a syntax error.
            return;
        }
        let name = r.name.node.as_str();
        let near = self
            .env
            .nearest(name, self.binding_names.iter().map(Str::as_str));
        let mut d = Diagnostic::new(Code::E0105, r.name.span, format!("no step binds `{name}`"))
            .with_label("not bound by any step");
        if let Some(s) = self.step_named(name) {
            let bound: Vec<&str> = self
                .bindings
                .get(binds_of(&self.bindings, s))
                .unwrap_or(&[])
                .iter()
                .map(|b| b.name.as_str())
                .collect();
            d = d.with_secondary(
                self.heads.get(s).map_or(r.name.span, |st| st.name.span),
                format!("`{name}` is a step, not a binding"),
            );
            d = d.with_help(if bound.is_empty() {
                format!("step `{name}` binds nothing: add `bind {name}_value = $...` to it and refer to that")
            } else {
                format!("refer to a name step `{name}` binds: {}", list_names(&bound))
            });
        } else {
            // The binding it most likely meant is not "never used": its
            // W0403 would be a second message for this one mistake.
            if let Some(b) = near.first().and_then(|n| self.binding_named(n)) {
                count_use(&mut self.bindings, &mut self.uses_log, b);
            }
            d = policy::add_suggestion(d, &near, r.name.span);
            if near.is_empty() {
                d = d.with_help("a reference names a binding of an earlier step: add `bind NAME = $...` to the step that produces the value");
            }
        }
        self.report(i, d);
    }
}

/// `facts.plan` as written.
pub(super) fn reference_text(r: &ast::Reference) -> String {
    let mut s = String::from(r.name.node.as_str());
    for m in &r.members {
        s.push('.');
        s.push_str(&m.node);
    }
    s
}

/// N0307: an argument fed by a value of no declared type, whose parameter
/// has one: the IR carries the parameter's type (`arg_types`) and the
/// executor checks the resolved value against it before the call.
fn checked_at_dispatch(arg: &CheckedArg, tool: &str, heads: &[StepHead]) -> Diagnostic {
    let from = match arg.value.references().first() {
        Some(r) => format!(
            "`{}`, bound by step `{}`, has no declared type",
            r.binding,
            name_in(heads, r.step)
        ),
        None => "its value has no declared type".to_string(),
    };
    Diagnostic::new(
        Code::N0307,
        arg.value.span,
        format!("the type of `{}` is checked at dispatch: {from}", arg.name),
    )
    .with_label(format!("checked to be `{}` before the call", arg.param_ty))
    .with_note(format!(
        "the executor refuses to call `{tool}` with a value that is not `{}` (`result_type`); \
         a tool that declares its result type lets the check happen at compile time",
        arg.param_ty
    ))
}
