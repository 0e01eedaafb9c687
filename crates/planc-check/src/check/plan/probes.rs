//! Probes: the `post` clauses typed against the tool's result, and the
//! `pre` clauses typed against the artifacts they refer to.

use super::*;

impl<'a> Checker<'a, '_> {
    pub(super) fn check_probe(
        &mut self,
        i: usize,
        probe: &ast::Probe,
        tool: Option<&'a Tool>,
    ) -> Option<CheckedProbe> {
        let kind = match &probe.kind {
            ast::ProbeKind::Error => return None,
            ast::ProbeKind::CountDefault { op, value } => {
                let t = tool?;
                let (segs, ty) = match t.result.counted() {
                    catalog::Counted::Unknown => return None,
                    catalog::Counted::Itself => (Vec::new(), t.result.clone()),
                    catalog::Counted::Field(one) => {
                        (vec![PathSeg::Field(one.name.clone())], one.ty.clone())
                    }
                    catalog::Counted::Ambiguous(lists) => {
                        let names: Vec<&str> = lists.iter().map(|f| f.name.as_str()).collect();
                        let why = if names.is_empty() {
                            format!("the result of `{}` has no list field to count", t.name)
                        } else {
                            format!(
                                "the result of `{}` has {} list fields, {}",
                                t.name,
                                names.len(),
                                list_names(&names)
                            )
                        };
                        let mut d = Diagnostic::new(
                            Code::E0203,
                            probe.span,
                            format!("`result_count` without a `path` is ambiguous: {why}"),
                        )
                        .with_label("which list?")
                        .with_secondary(
                            t.name_span,
                            format!("`{}` returns `{}`", t.name, t.result),
                        );
                        d = d.with_help(match names.first() {
                            Some(n) => {
                                format!("give the probe a `path`, such as `\"$.{n}\"`")
                            }
                            None => "count a list: give the probe the `path` of one".to_string(),
                        });
                        self.report(i, d);
                        return None;
                    }
                    catalog::Counted::Nothing => {
                        let d = Diagnostic::new(
                            Code::E0203,
                            probe.span,
                            format!(
                                "`result_count` counts a list, but `{}` returns `{}`",
                                t.name,
                                t.result.strip_optional()
                            ),
                        )
                        .with_label("nothing to count")
                        .with_secondary(t.name_span, format!("`{}` is declared here", t.name));
                        self.report(i, d);
                        return None;
                    }
                };
                let text = crate::syntax::path::write(&segs);
                self.len_probe(i, segs, &text, probe.span, &ty, op, value)?
            }
            ast::ProbeKind::Len { path, .. }
            | ast::ProbeKind::Compare { path, .. }
            | ast::ProbeKind::In { path, .. }
            | ast::ProbeKind::Contains { path, .. }
            | ast::ProbeKind::KeysContain { path, .. }
            | ast::ProbeKind::Exists { path } => {
                let ty = self.probe_path(i, path, tool);
                let segs: Vec<PathSeg> = path.segments.iter().map(|s| s.node.clone()).collect();
                self.probe_test(i, &probe.kind, path, &ty, segs)?
            }
        };
        Some(CheckedProbe {
            kind,
            span: probe.span,
        })
    }

    /// A `pre` probe: its path is a reference to an artifact (E0105–E0107,
    /// E0202 as for any reference, and a `data` edge to its producer), then
    /// any index segments (`tags[0].name`), and the probe is typed against
    /// the type the path reaches. A recorded artifact of a replan is
    /// decided now instead ([`Checker::recorded_pre`]): no probe is kept.
    pub(super) fn check_pre(&mut self, i: usize, probe: &ast::Probe) -> Option<CheckedPre> {
        let path = probe.path()?;
        // Both front ends read a `pre` path as a binding, its fields and
        // its indexes.
        let (reference, rest) = path.pre_parts()?;
        if self.is_recorded(&reference) {
            self.recorded_pre(i, probe, path, &reference, rest);
            return None;
        }
        let (subject, ty) = self.resolve_ref(i, &reference, path.span)?;
        let ty = if rest.is_empty() {
            ty
        } else {
            let mut root = subject.binding.to_string();
            for m in &subject.members {
                root.push('.');
                root.push_str(m);
            }
            let binder = name_in(&self.heads, subject.step).clone();
            let says = || {
                let label = format!("`{root}` is `{ty}`, bound by step `{binder}`");
                (String::new(), label)
            };
            let origin = PathOrigin {
                root: &root,
                span: self
                    .bindings
                    .get(subject.binding_index)
                    .map_or(path.span, |b| b.name_span),
                says: &says,
            };
            self.type_segments(i, &ty, rest, &origin)
        };
        let kind = self.probe_test(i, &probe.kind, path, &ty, Vec::new())?;
        Some(CheckedPre {
            subject,
            at: rest.iter().map(|s| s.node.clone()).collect(),
            kind,
            span: probe.span,
        })
    }

    /// The test of a probe whose path is `path`, of type `ty`; `segs` is the
    /// path the normalised probe keeps.
    pub(super) fn probe_test(
        &mut self,
        i: usize,
        kind: &ast::ProbeKind,
        path: &ast::Path,
        ty: &Ty,
        segs: Vec<PathSeg>,
    ) -> Option<ProbeKind> {
        Some(match kind {
            ast::ProbeKind::Error | ast::ProbeKind::CountDefault { .. } => return None,
            ast::ProbeKind::Len { op, value, .. } => {
                self.len_probe(i, segs, path, path.span, ty, op, value)?
            }
            ast::ProbeKind::Compare { op, value, .. } => {
                let ordering = matches!(op.node, CmpOp::Lt | CmpOp::Le | CmpOp::Gt | CmpOp::Ge);
                if ordering && !ty.is_ordered() {
                    let d = Diagnostic::new(
                        Code::E0203,
                        op.span,
                        format!(
                            "`{}` orders numbers and dates, but `{path}` is `{ty}`",
                            op.node.as_str()
                        ),
                    )
                    .with_label("an ordering")
                    .with_secondary(path.span, format!("`{ty}`"))
                    .with_help("compare with `==`, `!=` or `in` instead");
                    self.report(i, d);
                    return None;
                }
                let v = self.probe_literal(i, value, ty, What::Path(path))?;
                if ordering && v == Value::Null {
                    let d = Diagnostic::new(Code::E0203, value.span, "`null` cannot be ordered")
                        .with_label("not a number or a date")
                        .with_help(
                            "test for null with `== null`, or for presence with `exists(...)`",
                        );
                    self.report(i, d);
                    return None;
                }
                ProbeKind::Compare {
                    path: segs,
                    op: op.node,
                    value: v,
                }
            }
            ast::ProbeKind::In {
                negated, values, ..
            } => {
                let mut out = Vec::with_capacity(values.len());
                let mut ok = true;
                for v in values {
                    match self.probe_literal(i, v, ty, What::Path(path)) {
                        Some(x) => out.push(x),
                        None => ok = false,
                    }
                }
                if !ok {
                    return None;
                }
                ProbeKind::In {
                    path: segs,
                    negated: *negated,
                    values: out,
                }
            }
            ast::ProbeKind::Contains { value, .. } => {
                let item = match ty.strip_optional() {
                    Ty::List(item) => (**item).clone(),
                    Ty::Any => Ty::Any,
                    Ty::Error => Ty::Error,
                    other => {
                        let d = Diagnostic::new(
                            Code::E0203,
                            path.span,
                            format!("`contains` looks in a list, but `{path}` is `{other}`"),
                        )
                        .with_label("not a list")
                        .with_help(format!(
                            "compare `{path}` with `==`, or test it with `in [...]`"
                        ));
                        self.report(i, d);
                        return None;
                    }
                };
                let v = self.probe_literal(i, value, &item, What::Item(&What::Path(path)))?;
                ProbeKind::Contains {
                    path: segs,
                    value: v,
                }
            }
            ast::ProbeKind::KeysContain { value, .. } => {
                if !matches!(ty.strip_optional(), Ty::Map(_) | Ty::Any | Ty::Error) {
                    let d = Diagnostic::new(
                        Code::E0203,
                        path.span,
                        format!("`keys` lists the keys of a map, but `{path}` is `{ty}`"),
                    )
                    .with_label("not a map")
                    .with_help(match ty.strip_optional() {
                        Ty::Record(_) => "a record's fields are known: test one with `exists(...)`",
                        _ => "test a map (`{ [string]: T }`), or compare the value with `==`",
                    });
                    self.report(i, d);
                    return None;
                }
                let key = self.probe_literal(i, value, &Ty::String, What::Key(path))?;
                let Value::String(key) = key else {
                    return None;
                };
                ProbeKind::KeysContain { path: segs, key }
            }
            ast::ProbeKind::Exists { .. } => ProbeKind::Exists { path: segs },
        })
    }

    pub(super) fn probe_path(&mut self, i: usize, path: &ast::Path, tool: Option<&'a Tool>) -> Ty {
        match tool {
            Some(t) => self.type_path(i, &t.result, path, t),
            None => Ty::Error,
        }
    }

    #[allow(clippy::too_many_arguments)]
    pub(super) fn len_probe(
        &mut self,
        i: usize,
        segs: Vec<PathSeg>,
        shown: &dyn fmt::Display,
        span: Span,
        ty: &Ty,
        op: &Spanned<CmpOp>,
        value: &Spanned<ast::Literal>,
    ) -> Option<ProbeKind> {
        let mut ok = true;
        if !matches!(
            ty.strip_optional(),
            Ty::List(_) | Ty::Map(_) | Ty::Any | Ty::Error
        ) {
            let d = Diagnostic::new(
                Code::E0203,
                span,
                format!(
                    "`len` counts the elements of a list or the keys of a map, but `{shown}` is `{ty}`"
                ),
            )
            .with_label("not a list or a map")
            .with_help(
                "use `exists(...)` to test that a value is present, or compare it with `==`",
            );
            self.report(i, d);
            ok = false;
        }
        let n = match &value.node {
            ast::Literal::Int(t) => t.parse::<u64>().ok(),
            _ => None,
        };
        if n.is_none() {
            let d = Diagnostic::new(
                Code::E0203,
                value.span,
                format!(
                    "`len` is compared with a count, found {} `{}`",
                    value.node.kind_name(),
                    value.node.display()
                ),
            )
            .with_label("not a whole number")
            .with_help("compare the length with a whole number, such as `len($.results) == 1`");
            self.report(i, d);
            ok = false;
        }
        match (ok, n) {
            (true, Some(value)) => Some(ProbeKind::Len {
                path: segs,
                op: op.node,
                value,
            }),
            _ => None,
        }
    }

    pub(super) fn probe_literal(
        &mut self,
        i: usize,
        value: &Spanned<ast::Literal>,
        ty: &Ty,
        what: What<'_>,
    ) -> Option<Value> {
        match catalog::value::literal_value(&value.node, ty) {
            Ok((v, _)) => Some(v),
            Err(e) => {
                let what = what.to_string();
                let mut d = catalog::literal_error(&e, &value.node, ty, value.span, &what);
                if matches!(
                    e,
                    catalog::LiteralError::Mismatch | catalog::LiteralError::NotInEnum
                ) {
                    d.code = Code::E0203;
                    d.severity = Code::E0203.severity();
                    d.message = match e {
                        catalog::LiteralError::NotInEnum => {
                            format!("{what} is never `{}`: it is `{ty}`", value.node.display())
                        }
                        _ => format!(
                            "{what} is `{ty}`, but the probe compares it with {} `{}`",
                            value.node.kind_name(),
                            value.node.display()
                        ),
                    };
                    if d.help.is_none() {
                        d.help = Some(format!("compare {what} with a value of type `{ty}`").into());
                    }
                }
                self.report(i, d);
                None
            }
        }
    }
}
