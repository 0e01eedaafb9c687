//! Lints (ambiguous picks, writes without a postcondition, unused bindings,
//! taint) and the budget.

use super::*;

impl<'a> Checker<'a, '_> {
    /// The lints that read a step's tree (ambiguous picks, a write without
    /// a postcondition): run as each step's model is built, while its tree
    /// is alive ([`StepTrees`]).
    pub(super) fn tree_lints(&mut self, step: &ast::Step, s: &CheckedStep) {
        let i = s.index;
        let (Some(tool), Some(traits)) = (self.tool(i), self.traits(i)) else {
            return;
        };
        // A tool whose declaration is damaged (a text `tool` without
        // `read` or `write`, reported there) gets no effect lints.
        let writes = traits.effect_or_write() == Effect::Write && !self.env.damaged(tool.span);
        // W0401: ambiguous picks.
        let pins = Pins::of(&s.posts);
        for b in s.binds.clone() {
            let Some(binding) = self.bindings.get(b) else {
                continue;
            };
            if binding.ty.is_error() && binding.path.iter().any(|p| matches!(p, PathSeg::Index(_)))
            {
                // The path was wrong (reported); say nothing more.
                continue;
            }
            let Some(path) = step
                .binds()
                .find(|(n, _)| n.span == binding.name_span)
                .map(|(_, p)| p)
            else {
                continue;
            };
            for (k, seg) in path.segments.iter().enumerate() {
                let PathSeg::Index(n) = seg.node else {
                    continue;
                };
                let prefix = path.segments.iter().take(k).map(|x| &x.node);
                let pinned = pins
                    .get(prefix.clone())
                    .is_some_and(|(lo, hi)| lo == 1 && hi == 1);
                if pinned && n == 0 {
                    continue;
                }
                let prefix: Vec<PathSeg> = prefix.cloned().collect();
                let list = crate::syntax::path::write(&prefix);
                let mut d = Diagnostic::new(
                    Code::W0401,
                    seg.span,
                    format!(
                        "ambiguous pick: `{}` takes `[{n}]` of `{list}`, a list whose length no `post` pins to 1",
                        binding.name
                    ),
                )
                .with_label("a position in a list is an ordering, not an identity");
                d = if n == 0 {
                    d.with_help(format!(
                        "add `post len({list}) == 1`, so that the step fails (and the plan is repaired) when more than one matches"
                    ))
                } else {
                    d.with_help(format!(
                        "select the element by a key the tool takes as an argument, then add `post len({list}) == 1` and take `[0]`"
                    ))
                };
                if pinned {
                    d.message = format!(
                        "ambiguous pick: `{}` takes `[{n}]` of `{list}`, which its `post` pins to one element, `[0]`",
                        binding.name
                    );
                    d.help = Some(format!("take `[0]`: `{list}` has exactly one element").into());
                }
                self.diags.push(d.in_step(name_in(&self.heads, i).clone()));
            }
        }
        // W0402: a write without a postcondition.
        if writes && step.posts().next().is_none() && !self.env.damaged(s.span) {
            let example = match tool.result.strip_optional() {
                Ty::Record(f) => f.first().map(|f| format!("post exists($.{})", f.name)),
                Ty::List(_) => Some("post len($) >= 1".to_string()),
                _ => None,
            }
            .unwrap_or_else(|| "post exists($)".to_string());
            let help = if traits.effect.is_none() {
                format!(
                    "add a `post` that checks the result, such as `{example}`; the catalogue does not say whether `{}` writes: if it only reads, state its effect, `read`, in the policy's rule for it",
                    tool.name
                )
            } else {
                format!("add a `post` that checks the result, such as `{example}`")
            };
            let d = Diagnostic::new(
                Code::W0402,
                s.name_span,
                format!(
                    "step `{}` writes with `{}` but has no postcondition",
                    s.name, tool.name
                ),
            )
            .with_label("success would be the executor's opinion")
            .with_help(help);
            self.report(i, d);
        }
    }

    pub(super) fn lints(&mut self, steps: &[Box<CheckedStep>]) {
        for s in steps {
            self.step_lints(s);
        }
        self.unused_bindings();
    }

    /// The lints of one checked step: W0404.
    pub(super) fn step_lints(&mut self, s: &CheckedStep) {
        let i = s.index;
        let (Some(tool), Some(traits)) = (self.tool(i), self.traits(i)) else {
            return;
        };
        // A tool whose declaration is damaged (a text `tool` without
        // `read` or `write`, reported there) gets no effect lints.
        let writes = traits.effect_or_write() == Effect::Write && !self.env.damaged(tool.span);
        // W0404: untrusted data into a write.
        if writes {
            for a in &s.args {
                let Some(origin) = &a.untrusted_from else {
                    continue;
                };
                let (otool, secondary) = self.untrusted_source(origin);
                let mut d = Diagnostic::new(
                    Code::W0404,
                    a.value.span,
                    format!(
                        "argument `{}` of the write tool `{}` takes data from the untrusted tool `{otool}`",
                        a.name, tool.name
                    ),
                )
                .with_label("untrusted data")
                .with_help("the plan fixes control flow, not data: write the value into the plan, or have a person review it before this step");
                if let Some((span, label)) = secondary {
                    d = d.with_secondary(span, label);
                }
                self.report(i, d);
            }
        }
    }

    /// W0403: bindings never used (a use may have been lost to a syntax
    /// error), once every step is checked.
    pub(super) fn unused_bindings(&mut self) {
        if self.plan_damaged {
            return;
        }
        let unused: Vec<(usize, Str, Span)> = self
            .bindings
            .iter()
            .filter(|b| b.uses == 0 && !b.ty.is_error())
            .map(|b| (b.step, b.name.clone(), b.name_span))
            .collect();
        for (step, name, span) in unused {
            let d = Diagnostic::new(Code::W0403, span, format!("binding `{name}` is never used"))
                .with_label("bound, never referred to")
                .with_help(format!(
                    "remove this `bind`, or refer to `{name}` in a later step"
                ));
            self.report(step, d);
        }
    }

    // ------------------------------------------------------------ budget

    pub(super) fn budget(&mut self) {
        let n = self.heads.len();
        if let Some(max) = self.plan.max_steps {
            self.over_budget(n, max.node, max.span, "the plan's own budget, `max_steps`");
        }
        if let Some(policy) = self.env.policy
            && let Some(max) = policy.max_steps
        {
            self.over_budget(n, max.node, max.span, &format!("policy `{}`", policy.name));
            if let Some(own) = self.plan.max_steps.filter(|own| own.node > max.node) {
                let d = Diagnostic::new(
                    Code::E0305,
                    own.span,
                    format!(
                        "the plan allows itself {} steps, more than the {} policy `{}` allows",
                        own.node, max.node, policy.name
                    ),
                )
                .with_label("above the policy's limit")
                .with_secondary(
                    max.span,
                    format!("`max_steps {}` of policy `{}`", max.node, policy.name),
                )
                .with_help(format!(
                    "lower the plan's `max_steps` to at most {}",
                    max.node
                ));
                self.diags.push(d);
            }
        }
    }

    pub(super) fn over_budget(&mut self, n: usize, max: u64, span: Span, whose: &str) {
        let Ok(max_n) = usize::try_from(max) else {
            return;
        };
        if n <= max_n {
            return;
        }
        let Some(first_over) = self.heads.get(max_n) else {
            return;
        };
        let d = Diagnostic::new(
            Code::E0305,
            first_over.name.span,
            format!("the plan has {n} steps, more than the {max} that {whose} allows"),
        )
        .with_label(format!("step {} of at most {max}", max_n + 1))
        .with_secondary(span, format!("`max_steps {max}` is declared here"))
        .with_help("split the work into smaller plans, or drop steps the goal does not need");
        self.report(max_n, d);
    }
}

/// The bounds the `len` posts of a step put on each path's length:
/// (lowest, highest), by path ([`Few`]: a step has a few posts, searched
/// in order; past [`crate::seen::FEW`] paths a map finds them, so that no plan
/// makes it quadratic).
struct Pins<'p>(Few<&'p [PathSeg], (u64, u64)>);

impl<'p> Pins<'p> {
    fn of(posts: &'p [CheckedProbe]) -> Pins<'p> {
        let mut pins = Few::with_capacity(0);
        for p in posts {
            let ProbeKind::Len { path, op, value } = &p.kind else {
                continue;
            };
            let at = match pins.position(path.as_slice()) {
                Some(at) => at,
                None => pins.push(path.as_slice(), (0, u64::MAX)),
            };
            let Some(e) = pins.value_mut(at) else {
                continue;
            };
            let v = *value;
            match op {
                CmpOp::Eq => {
                    e.0 = e.0.max(v);
                    e.1 = e.1.min(v);
                }
                CmpOp::Ge => e.0 = e.0.max(v),
                CmpOp::Gt => e.0 = e.0.max(v.saturating_add(1)),
                CmpOp::Le => e.1 = e.1.min(v),
                CmpOp::Lt => {
                    if v == 0 {
                        // Nothing satisfies `< 0`: leave it unpinned.
                        e.1 = 0;
                        e.0 = e.0.max(1);
                    } else {
                        e.1 = e.1.min(v - 1);
                    }
                }
                CmpOp::Ne => {}
            }
        }
        Pins(pins)
    }

    /// The bounds on the length of the list at `path`: the segments are
    /// compared as they come while the paths are few, collected into a key
    /// only for the map.
    fn get<'a>(&self, path: impl Iterator<Item = &'a PathSeg> + Clone) -> Option<(u64, u64)> {
        let at = if self.0.indexed() {
            self.0
                .position(path.cloned().collect::<Vec<_>>().as_slice())
        } else {
            self.0
                .entries()
                .iter()
                .position(|(q, _)| q.iter().eq(path.clone()))
        }?;
        self.0.entries().get(at).map(|(_, b)| *b)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn len(path: Vec<PathSeg>, op: CmpOp, value: u64) -> CheckedProbe {
        CheckedProbe {
            kind: ProbeKind::Len { path, op, value },
            span: Span::new(crate::source::FileId(0), 0, 0),
        }
    }

    fn field(name: &str) -> Vec<PathSeg> {
        vec![PathSeg::Field(name.into())]
    }

    #[test]
    fn pins_agree_whether_searched_in_order_or_by_map() {
        // Paths `$.p0`..`$.pN`, each bound twice (`>= 1` and `<= K`), for
        // a few paths (searched in order) and many (a map): the same
        // bounds either way.
        for n in [3, crate::seen::FEW, crate::seen::FEW + 1, 200] {
            let mut posts = Vec::new();
            for k in 0..n {
                posts.push(len(field(&format!("p{k}")), CmpOp::Ge, 1));
            }
            for k in 0..n {
                posts.push(len(field(&format!("p{k}")), CmpOp::Le, k as u64 % 3 + 1));
            }
            let pins = Pins::of(&posts);
            assert_eq!(pins.0.indexed(), n > crate::seen::FEW, "{n} paths");
            for k in 0..n {
                let path = field(&format!("p{k}"));
                assert_eq!(
                    pins.get(path.iter()),
                    Some((1, k as u64 % 3 + 1)),
                    "{n}: p{k}"
                );
            }
            assert_eq!(pins.get(field("other").iter()), None);
            assert_eq!(pins.get([].iter()), None);
        }
    }

    #[test]
    fn many_posts_on_one_step_stay_linear() {
        // A hijacked planner's step with 50,000 `len` posts on distinct
        // paths: the map takes over, and every path is found.
        let posts: Vec<CheckedProbe> = (0..50_000)
            .map(|k| {
                len(
                    vec![PathSeg::Field("a".into()), PathSeg::Index(k)],
                    CmpOp::Eq,
                    1,
                )
            })
            .collect();
        let pins = Pins::of(&posts);
        let probe = [PathSeg::Field("a".into()), PathSeg::Index(49_999)];
        assert_eq!(pins.get(probe.iter()), Some((1, 1)));
    }
}
