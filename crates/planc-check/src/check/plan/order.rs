//! Ordering: `after` edges, the edges between writes, and the schedule in
//! waves (cycles are E0108).

use super::*;

impl<'a> Checker<'a, '_> {
    pub(super) fn after_edge(&mut self, i: usize, target: &ast::Name) {
        match self.step_named(target.node.as_str()) {
            Some(t) => {
                let dep = Dependency {
                    step: t,
                    reason: DepReason::After,
                    span: target.span,
                };
                self.depend(i, dep);
            }
            None if self.plan_damaged => {}
            None => {
                let near = self.env.nearest(
                    &target.node,
                    self.heads.iter().map(|s| s.name.node.as_str()),
                );
                let mut d = Diagnostic::new(
                    Code::E0108,
                    target.span,
                    format!(
                        "`after` names `{}`, which is not a step of this plan",
                        target.node
                    ),
                )
                .with_label("no such step");
                d = policy::add_suggestion(d, &near, target.span);
                self.report(i, d);
            }
        }
    }

    /// Every write step depends on the previous write step in source order.
    /// Read from the tools and the heads, not the models: the steps'
    /// models may be gone ([`check_plan`]).
    pub(super) fn effect_edges(&mut self) {
        let mut last_write: Option<usize> = None;
        for i in 0..self.heads.len() {
            if self.traits(i).map(|t| t.effect_or_write()) != Some(Effect::Write) {
                continue;
            }
            if let Some(w) = last_write {
                let dep = Dependency {
                    step: w,
                    reason: DepReason::Effect,
                    span: self.heads.get(i).map_or(Span::default(), |h| h.name.span),
                };
                self.depend(i, dep);
            }
            last_write = Some(i);
        }
    }

    /// Finds ordering cycles (E0108) and layers the steps into waves.
    /// `deps[i]` is step `i`'s dependencies, sorted and deduplicated.
    pub(super) fn order(&mut self, deps: &[Vec<Dependency>]) -> Option<Vec<Vec<usize>>> {
        // A cycle needs an edge from a step to itself or to a later one
        // (only `after` makes those): when every edge goes to an earlier
        // step, there is none to look for, and the waves take one pass.
        let backward = deps
            .iter()
            .enumerate()
            .all(|(v, s)| s.iter().all(|d| d.step < v));
        if backward {
            return Some(graph::waves_backward(deps.len(), |v| {
                deps.get(v)
                    .into_iter()
                    .flat_map(|s| s.iter().map(|d| &d.step))
            }));
        }
        let succ: Vec<Vec<usize>> = deps
            .iter()
            .map(|s| {
                let mut t: Vec<usize> = s.iter().map(|d| d.step).collect();
                t.dedup();
                t
            })
            .collect();
        let cycles = graph::cyclic_components(&succ);
        if cycles.is_empty() {
            return graph::waves(&succ);
        }
        let mut member = vec![usize::MAX; deps.len()];
        for (k, comp) in cycles.iter().enumerate() {
            for &v in comp {
                if let Some(m) = member.get_mut(v) {
                    *m = k;
                }
            }
        }
        for (k, comp) in cycles.iter().enumerate() {
            // A cycle needs an edge from a step to itself or to a later one,
            // and only `after` makes those.
            let closing = comp.iter().find_map(|&u| {
                deps.get(u).and_then(|s| {
                    s.iter()
                        .find(|d| {
                            d.reason == DepReason::After
                                && d.step >= u
                                && member.get(d.step) == Some(&k)
                        })
                        .map(|d| (u, d.clone()))
                })
            });
            let Some((u, edge)) = closing else { continue };
            let path = graph::path_within(&succ, edge.step, u, |w| member.get(w) == Some(&k))
                .unwrap_or_default();
            let mut names: Vec<&str> = vec![self.step_name(u)];
            names.extend(path.iter().map(|&w| self.step_name(w)));
            let shown = if names.len() > 8 {
                let head: Vec<String> = names.iter().take(6).map(|n| format!("`{n}`")).collect();
                format!("{} → … → `{}`", head.join(" → "), self.step_name(u))
            } else {
                names
                    .iter()
                    .map(|n| format!("`{n}`"))
                    .collect::<Vec<_>>()
                    .join(" → ")
            };
            let mut d = if edge.step == u {
                Diagnostic::new(
                    Code::E0108,
                    edge.span,
                    format!("step `{}` is ordered after itself", self.step_name(u)),
                )
                .with_label("a step cannot wait for itself")
                .with_help(format!(
                    "remove `{}` from the `after` list",
                    self.step_name(u)
                ))
            } else {
                Diagnostic::new(Code::E0108, edge.span, format!("ordering cycle: {shown}"))
                    .with_label(format!(
                        "`{}` waits for `{}`, which waits for `{}`",
                        self.step_name(u),
                        self.step_name(edge.step),
                        self.step_name(u)
                    ))
                    .with_help(format!(
                        "remove `after {}`, or move the steps so that the order they need is the order they are written in",
                        self.step_name(edge.step)
                    ))
            };
            let mut labels = 0usize;
            for pair in path.windows(2) {
                let &[from, to] = pair else { continue };
                let Some(dep) = deps.get(from).and_then(|s| s.iter().find(|d| d.step == to)) else {
                    continue;
                };
                if labels == 6 {
                    d = d.with_note(format!("the cycle has {} steps", names.len() - 1));
                    break;
                }
                let (a, b) = (self.step_name(from), self.step_name(to));
                let text = match dep.reason {
                    DepReason::Data => format!("`{a}` uses a binding of `{b}` here"),
                    DepReason::After => format!("`{a}` is ordered after `{b}` here"),
                    DepReason::Effect => {
                        format!("`{a}` is a write, so it runs after the earlier write `{b}`")
                    }
                };
                d = d.with_secondary(dep.span, text);
                labels += 1;
            }
            self.report(u, d);
        }
        None
    }
}
