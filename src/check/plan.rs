//! Checking one plan: resolution, types, references, ordering, policy and
//! lints, in passes over the steps that never stop at the first error.

use std::collections::HashMap;
use std::collections::hash_map::Entry;
use std::fmt;

use crate::catalog::{self, Catalog, Tool, Ty, Value};
use crate::diagnostics::{Code, Diagnostic};
use crate::policy::{self, Policy, Rule};
use crate::source::{Span, Spanned};
use crate::suggest;
use crate::syntax::ast::{self, CmpOp, Effect, PathSeg};

use super::graph;
use super::model::*;

/// What a value is, for messages: "argument `facts`", "an element of
/// field `a` of argument `facts`". Spelt out only when a message needs it:
/// most values are fine, and formatting the name of each was a measurable
/// part of checking.
#[derive(Clone, Copy)]
enum What<'a> {
    Plain(&'a str),
    Arg(&'a str),
    Item(&'a What<'a>),
    Field(&'a str, &'a What<'a>),
}

impl fmt::Display for What<'_> {
    /// Recursion as deep as the value's nesting, which the front ends cap.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            What::Plain(s) => f.write_str(s),
            What::Arg(name) => write!(f, "argument `{name}`"),
            What::Item(of) => write!(f, "an element of {of}"),
            What::Field(name, of) => write!(f, "field `{name}` of {of}"),
        }
    }
}

/// What every plan is checked against.
pub(crate) struct Env<'a> {
    /// Spans of syntax errors, sorted.
    pub damage: &'a [Span],
    pub catalog: &'a Catalog,
    pub policy: Option<&'a Policy>,
    pub actor: &'a [String],
    /// How many candidate names "did you mean" may still compare. Each
    /// suggestion costs the number of candidates it looks at; once spent,
    /// diagnostics go without suggestions, so that a plan with a hundred
    /// thousand misspellings stays linear.
    pub suggest_budget: usize,
}

impl Env<'_> {
    /// Whether a syntax error lies inside `span`.
    fn damaged(&self, span: Span) -> bool {
        let from = self
            .damage
            .partition_point(|d| (d.file, d.start) < (span.file, span.start));
        self.damage
            .get(from)
            .is_some_and(|d| d.file == span.file && d.start <= span.end)
    }

    fn nearest<'c>(
        &mut self,
        name: &str,
        candidates: impl ExactSizeIterator<Item = &'c str>,
    ) -> Vec<&'c str> {
        let n = candidates.len();
        if n > self.suggest_budget {
            return Vec::new();
        }
        self.suggest_budget -= n;
        suggest::nearest(name, candidates)
    }
}

/// The suggestion budget of one check: enough for every realistic plan.
pub(crate) const SUGGEST_BUDGET: usize = 500_000;

struct Checker<'a, 'e> {
    env: &'e mut Env<'a>,
    plan: &'a ast::PlanDecl,
    diags: Vec<Diagnostic>,
    step_index: HashMap<&'a str, usize>,
    tools: Vec<Option<&'a Tool>>,
    rules: Vec<Option<&'a Rule>>,
    bindings: Vec<Binding>,
    binding_index: HashMap<&'a str, usize>,
    binding_names: Vec<&'a str>,
    /// A syntax error lies inside the plan.
    plan_damaged: bool,
    /// Per step, indices into `bindings` of its binds.
    step_binds: Vec<Vec<usize>>,
    deps: Vec<Vec<Dependency>>,
}

/// Checks one plan against the environment, returning its model and the
/// diagnostics found inside it (unsorted).
pub(crate) fn check_plan<'a>(
    plan: &'a ast::PlanDecl,
    env: &mut Env<'a>,
) -> (CheckedPlan, Vec<Diagnostic>) {
    let n = plan.steps.len();
    let mut c = Checker {
        env,
        plan,
        diags: Vec::new(),
        step_index: HashMap::with_capacity(n),
        tools: Vec::with_capacity(n),
        rules: Vec::with_capacity(n),
        bindings: Vec::with_capacity(n),
        binding_index: HashMap::with_capacity(n),
        binding_names: Vec::with_capacity(n),
        step_binds: Vec::new(),
        plan_damaged: false,
        deps: vec![Vec::new(); n],
    };
    c.plan_damaged = c.env.damaged(plan.span);
    c.name_steps();
    c.resolve_tools();
    c.step_binds = c.bind_pass();
    let binds = c.step_binds.clone();
    let mut steps: Vec<CheckedStep> = Vec::with_capacity(n);
    for ((i, step), binds) in plan.steps.iter().enumerate().zip(binds) {
        steps.push(c.check_step(i, step, binds));
    }
    c.effect_edges(&steps);
    for (step, deps) in steps.iter_mut().zip(c.deps.iter_mut()) {
        deps.sort_by_key(|d| (d.step, d.reason));
        deps.dedup_by_key(|d| (d.step, d.reason));
        step.depends_on = std::mem::take(deps);
    }
    let schedule = c.order(&steps);
    c.lints(&steps);
    c.budget();

    let mut approvals = Vec::new();
    let mut scopes: Vec<String> = Vec::new();
    for s in &steps {
        if s.authz.approval.is_some() {
            approvals.push(s.index);
        }
        scopes.extend(s.authz.scopes.iter().cloned());
    }
    scopes.sort();
    scopes.dedup();
    let errors = c.diags.iter().filter(|d| d.is_error()).count();
    let model = CheckedPlan {
        name: plan.name.node.clone(),
        name_span: plan.name.span,
        span: plan.span,
        doc: plan.doc.text(),
        goal: plan.goal.as_ref().map(|g| g.node.clone()),
        budget: Budget {
            replans: plan.replans.map(|r| r.node),
            max_steps: plan.max_steps.map(|m| m.node),
        },
        steps,
        bindings: c.bindings,
        schedule,
        approvals,
        scopes,
        policy: c.env.policy.map(|p| p.name.clone()),
        actor: c.env.actor.to_vec(),
        errors,
    };
    (model, c.diags)
}

fn plural(n: usize, one: &str, many: &str) -> String {
    if n == 1 {
        one.to_string()
    } else {
        many.to_string()
    }
}

/// `a`, `a` and `b`, `a`, `b` and `c`: names in backticks.
fn list_names<S: AsRef<str>>(names: &[S]) -> String {
    let quoted: Vec<String> = names.iter().map(|n| format!("`{}`", n.as_ref())).collect();
    match quoted.split_last() {
        None => String::new(),
        Some((last, [])) => last.clone(),
        Some((last, init)) => format!("{} and {last}", init.join(", ")),
    }
}

fn path_text(segs: &[PathSeg]) -> String {
    let mut s = String::from("$");
    for seg in segs {
        match seg {
            PathSeg::Field(f) => {
                s.push('.');
                s.push_str(f);
            }
            PathSeg::Index(i) => s.push_str(&format!("[{i}]")),
        }
    }
    s
}

impl<'a> Checker<'a, '_> {
    fn step_name(&self, i: usize) -> &'a str {
        self.plan
            .steps
            .get(i)
            .map(|s| s.name.node.as_str())
            .unwrap_or("")
    }

    fn report(&mut self, i: usize, d: Diagnostic) {
        let name = self.step_name(i);
        self.diags.push(d.in_step(name));
    }

    fn tool(&self, i: usize) -> Option<&'a Tool> {
        self.tools.get(i).copied().flatten()
    }

    // ------------------------------------------------------------ names

    fn name_steps(&mut self) {
        for (i, step) in self.plan.steps.iter().enumerate() {
            match self.step_index.entry(step.name.node.as_str()) {
                Entry::Vacant(e) => {
                    e.insert(i);
                }
                Entry::Occupied(e) => {
                    let first = *e.get();
                    let first_span = self
                        .plan
                        .steps
                        .get(first)
                        .map_or(step.name.span, |s| s.name.span);
                    let d = Diagnostic::new(
                        Code::E0104,
                        step.name.span,
                        format!("step name `{}` is used more than once", step.name.node),
                    )
                    .with_label("used again here")
                    .with_secondary(first_span, "first used here")
                    .with_help(
                        "step names identify steps across replans: give each step its own name",
                    );
                    self.report(i, d);
                }
            }
        }
    }

    fn resolve_tools(&mut self) {
        for (i, step) in self.plan.steps.iter().enumerate() {
            let tool = self.env.catalog.get(&step.tool.node);
            // An empty name is an error node: the front end could not read
            // the tool (a JSON step without `tool`) and has said so.
            if tool.is_none() && !step.tool.node.is_empty() {
                let catalog = self.env.catalog;
                let near = self.env.nearest(
                    &step.tool.node,
                    catalog.tools().iter().map(|t| t.name.as_str()),
                );
                let mut d = Diagnostic::new(
                    Code::E0101,
                    step.tool.span,
                    format!("unknown tool `{}`", step.tool.node),
                )
                .with_label("not in the catalogue");
                if catalog.is_empty() {
                    d = d.with_help("no tool catalogue is loaded: declare tools with `tool`, or pass a catalogue");
                } else {
                    d = policy::add_suggestion(d, &near, step.tool.span);
                    if near.is_empty() {
                        d = d.with_help("the plan may call only the tools of the catalogue");
                    }
                }
                self.report(i, d);
            }
            self.tools.push(tool);
            let rule = match (tool, self.env.policy) {
                (Some(t), Some(p)) => p.rule(&t.name),
                _ => None,
            };
            self.rules.push(rule);
        }
    }

    /// Whether step `i`'s tool output is untrusted, by the catalogue or by
    /// the policy.
    fn untrusted_tool(&self, i: usize) -> bool {
        self.tool(i).is_some_and(|t| t.untrusted)
            || self
                .rules
                .get(i)
                .copied()
                .flatten()
                .is_some_and(|r| r.untrusted.is_some())
    }

    // ------------------------------------------------------------ binds

    /// Types every `bind` against its tool's result and registers it, so
    /// that references can name bindings of later steps in their errors.
    fn bind_pass(&mut self) -> Vec<Vec<usize>> {
        let mut out = Vec::with_capacity(self.plan.steps.len());
        for (i, step) in self.plan.steps.iter().enumerate() {
            let mut mine = Vec::new();
            for (name, path) in step.binds() {
                let ty = match self.tool(i) {
                    Some(t) => self.type_path(i, &t.result, path, t),
                    None => Ty::Error,
                };
                let idx = self.bindings.len();
                self.bindings.push(Binding {
                    name: name.node.clone(),
                    name_span: name.span,
                    step: i,
                    path: path.segments.iter().map(|s| s.node.clone()).collect(),
                    path_text: path.to_string(),
                    path_span: path.span,
                    ty,
                    // Trust is the catalogue's and the policy's call: the
                    // output of a trusted tool is trusted whatever went in.
                    untrusted_from: self.untrusted_tool(i).then_some(i),
                    uses: 0,
                });
                mine.push(idx);
                match self.binding_index.entry(name.node.as_str()) {
                    Entry::Vacant(e) => {
                        e.insert(idx);
                        self.binding_names.push(name.node.as_str());
                    }
                    Entry::Occupied(e) => {
                        let first = *e.get();
                        let (first_span, first_step) = self
                            .bindings
                            .get(first)
                            .map_or((name.span, i), |b| (b.name_span, b.step));
                        let d = Diagnostic::new(
                            Code::E0104,
                            name.span,
                            format!("`{}` is bound more than once", name.node),
                        )
                        .with_label("bound again here")
                        .with_secondary(
                            first_span,
                            format!("first bound here, by step `{}`", self.step_name(first_step)),
                        )
                        .with_help("a binding names one value: give this one another name");
                        self.report(i, d);
                        // The duplicate is not referred to: do not report it unused.
                        if let Some(b) = self.bindings.get_mut(idx) {
                            b.uses = 1;
                        }
                    }
                }
            }
            out.push(mine);
        }
        out
    }

    /// The type at `path` in `root` (a tool's result), or the error type
    /// after reporting E0202.
    fn type_path(&mut self, i: usize, root: &Ty, path: &ast::Path, tool: &Tool) -> Ty {
        let mut cur = root.clone();
        let mut optional = false;
        let mut prefix = String::from("$");
        for seg in &path.segments {
            if let Ty::Optional(inner) = &cur {
                optional = true;
                cur = (**inner).clone();
            }
            match (&seg.node, &cur) {
                (_, Ty::Error) => return Ty::Error,
                (_, Ty::Any) => return Ty::Any,
                (PathSeg::Field(f), Ty::Record(fields)) => {
                    match fields.iter().find(|x| &x.name == f) {
                        Some(field) => {
                            optional |= field.optional;
                            cur = field.ty.clone();
                        }
                        None => {
                            let names: Vec<&str> = fields.iter().map(|x| x.name.as_str()).collect();
                            let near = self.env.nearest(f, names.iter().copied());
                            let mut d = Diagnostic::new(
                                Code::E0202,
                                seg.span,
                                format!(
                                    "`{prefix}` has no field `{f}` in the result of `{}`",
                                    tool.name
                                ),
                            )
                            .with_label("no such field")
                            .with_secondary(
                                tool.name_span,
                                format!("`{}` returns `{}`", tool.name, tool.result),
                            );
                            d = match suggest::did_you_mean(&near) {
                                Some(help) => {
                                    let fixed =
                                        near.first().map(|b| format!(".{b}")).unwrap_or_default();
                                    d.with_help(help).with_fix(
                                        format!("replace with `{fixed}`"),
                                        seg.span,
                                        fixed,
                                    )
                                }
                                None => d.with_help(format!(
                                    "`{prefix}` has the fields {}",
                                    list_names(&names)
                                )),
                            };
                            self.report(i, d);
                            return Ty::Error;
                        }
                    }
                }
                (PathSeg::Field(f), other) => {
                    let d = Diagnostic::new(
                        Code::E0202,
                        seg.span,
                        format!("`{prefix}` is `{other}`, which has no field `{f}`"),
                    )
                    .with_label("not a record")
                    .with_secondary(
                        tool.name_span,
                        format!("`{}` returns `{}`", tool.name, tool.result),
                    );
                    self.report(i, d);
                    return Ty::Error;
                }
                (PathSeg::Index(_), Ty::List(inner)) => cur = (**inner).clone(),
                (PathSeg::Index(n), other) => {
                    let d = Diagnostic::new(
                        Code::E0202,
                        seg.span,
                        format!("`{prefix}` is `{other}`, not a list: it has no element `[{n}]`"),
                    )
                    .with_label("not a list")
                    .with_help(format!("remove `[{n}]`: `{prefix}` is a single value"))
                    .with_secondary(
                        tool.name_span,
                        format!("`{}` returns `{}`", tool.name, tool.result),
                    );
                    self.report(i, d);
                    return Ty::Error;
                }
            }
            match &seg.node {
                PathSeg::Field(f) => {
                    prefix.push('.');
                    prefix.push_str(f);
                }
                PathSeg::Index(n) => prefix.push_str(&format!("[{n}]")),
            }
        }
        if optional { Ty::optional(cur) } else { cur }
    }

    // ------------------------------------------------------------ steps

    fn check_step(&mut self, i: usize, step: &'a ast::Step, binds: Vec<usize>) -> CheckedStep {
        let tool = self.tool(i);
        let args = self.check_args(i, step, tool);
        let mut posts = Vec::new();
        let mut on_unmet: Option<&Spanned<ast::OnUnmet>> = None;
        let mut retry: Option<&Spanned<u64>> = None;
        for clause in &step.clauses {
            match clause {
                ast::Clause::Post(p) => {
                    if let Some(probe) = self.check_probe(i, p, tool) {
                        posts.push(probe);
                    }
                }
                ast::Clause::OnUnmet(o) => {
                    if let Some(first) = on_unmet {
                        self.duplicate_clause(i, "on_unmet", o.span, first.span);
                    } else {
                        on_unmet = Some(o);
                    }
                }
                ast::Clause::Retry(r) => {
                    if let Some(first) = retry {
                        self.duplicate_clause(i, "retry", r.span, first.span);
                        continue;
                    }
                    retry = Some(r);
                    if let Some(t) = tool.filter(|t| !t.idempotent) {
                        let d = Diagnostic::new(
                            Code::E0304,
                            r.span,
                            format!("`retry` on `{}`, which is not idempotent", t.name),
                        )
                        .with_label("a repeat could act twice")
                        .with_secondary(t.name_span, format!("`{}` is declared here without `idempotent`", t.name))
                        .with_help(
                            "remove `retry`: a tool that is not idempotent may have acted before it failed; let `on_unmet` decide",
                        );
                        self.report(i, d);
                    }
                }
                ast::Clause::After { steps, .. } => {
                    for target in steps {
                        self.after_edge(i, target);
                    }
                }
                ast::Clause::Bind { .. } | ast::Clause::Error(_) => {}
            }
        }
        let authz = match tool {
            Some(t) => self.check_policy(i, step, t, &args),
            None => Authz::default(),
        };
        let untrusted_inputs = args
            .iter()
            .filter(|a| a.untrusted_from.is_some())
            .map(|a| a.name.clone())
            .collect();
        CheckedStep {
            index: i,
            name: step.name.node.clone(),
            name_span: step.name.span,
            span: step.span,
            doc: step.doc.text(),
            tool_name: step.tool.node.clone(),
            tool_span: step.tool.span,
            tool: tool.map(|t| ResolvedTool {
                name: t.name.clone(),
                effect: t.effect_or_write(),
                idempotent: t.idempotent,
                untrusted: self.untrusted_tool(i),
                decl_span: t.span,
            }),
            args,
            binds,
            posts,
            on_unmet: on_unmet.map_or(ast::OnUnmet::Replan, |o| o.node),
            retry: retry.map(|r| r.node),
            depends_on: Vec::new(),
            authz,
            untrusted_inputs,
        }
    }

    fn duplicate_clause(&mut self, i: usize, what: &str, span: Span, first: Span) {
        let d = Diagnostic::new(
            Code::E0104,
            span,
            format!("the step has more than one `{what}`"),
        )
        .with_label("given again here")
        .with_secondary(first, "first given here")
        .with_help(format!("keep one `{what}`"));
        self.report(i, d);
    }

    fn after_edge(&mut self, i: usize, target: &ast::Name) {
        match self.step_index.get(target.node.as_str()) {
            Some(&t) => {
                let dep = Dependency {
                    step: t,
                    step_name: target.node.clone(),
                    reason: DepReason::After,
                    span: target.span,
                };
                if let Some(d) = self.deps.get_mut(i) {
                    d.push(dep);
                }
            }
            None if self.plan_damaged => {}
            None => {
                let plan = self.plan;
                let near = self.env.nearest(
                    &target.node,
                    plan.steps.iter().map(|s| s.name.node.as_str()),
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

    // ------------------------------------------------------------ arguments

    fn check_args(
        &mut self,
        i: usize,
        step: &'a ast::Step,
        tool: Option<&'a Tool>,
    ) -> Vec<CheckedArg> {
        let mut out: Vec<CheckedArg> = Vec::with_capacity(step.args.len());
        let mut seen: HashMap<&str, Span> = HashMap::with_capacity(step.args.len());
        for arg in &step.args {
            if let Some(first) = seen.get(arg.name.node.as_str()) {
                let d = Diagnostic::new(
                    Code::E0104,
                    arg.name.span,
                    format!("argument `{}` is given more than once", arg.name.node),
                )
                .with_label("given again here")
                .with_secondary(*first, "first given here")
                .with_help("give each argument once");
                self.report(i, d);
                // Still resolve its references: their errors are their own.
                self.check_expr(i, &arg.value, &Ty::Error, What::Plain(&arg.name.node));
                continue;
            }
            seen.insert(&arg.name.node, arg.name.span);
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
            let value = self.check_expr(i, &arg.value, &expected, What::Arg(&arg.name.node));
            let untrusted_from = self.taint_of(&value);
            out.push(CheckedArg {
                name: arg.name.node.clone(),
                name_span: arg.name.span,
                param_ty: if param.is_some() { expected } else { Ty::Any },
                value,
                from_default: false,
                untrusted_from,
            });
        }
        if let Some(t) = tool {
            let mut missing: Vec<&catalog::Param> = Vec::new();
            for p in &t.params {
                if seen.contains_key(p.name.as_str()) {
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
                let shown: Vec<String> = missing
                    .iter()
                    .map(|p| format!("{}: {}", p.name, p.ty))
                    .collect();
                let mut d = Diagnostic::new(
                    Code::E0103,
                    step.tool.span,
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

    /// The untrusted step a value's data comes from, if any.
    fn taint_of(&self, value: &TypedValue) -> Option<usize> {
        value.references().iter().find_map(|r| {
            self.bindings
                .get(r.binding_index)
                .and_then(|b| b.untrusted_from)
        })
    }

    /// Checks an expression against the type it must have and classifies
    /// it. `what` names it for messages ("argument `facts`").
    fn check_expr(
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
                                b.path_text,
                                b.ty
                            ),
                        );
                    }
                    if let (Ty::Optional(inner), false) = (&ty, expected.accepts_null()) {
                        if inner.assignable_to(expected) {
                            d = d.with_help(format!(
                                "`{shown}` may be null: add `post exists(...)` for it and bind a field that is always present, or change the parameter to `{expected}?`"
                            ));
                        }
                    }
                    self.report(i, d);
                    return TypedValue {
                        kind: ValueKind::Ref(rv),
                        ty: Ty::Error,
                        span: expr.span,
                    };
                }
                TypedValue {
                    kind: ValueKind::Ref(rv),
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

    fn check_record(
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
        let open = matches!(expected.strip_optional(), Ty::Any | Ty::Error);
        let mut failed = false;
        if fields.is_none() && !open {
            let d = Diagnostic::new(
                Code::E0201,
                expr.span,
                format!("{what} expects `{expected}`, found a record"),
            )
            .with_label(format!("expected `{expected}`"));
            self.report(i, d);
            failed = true;
        }
        let mut seen: HashMap<&str, Span> = HashMap::with_capacity(entries.len());
        let mut values = Vec::with_capacity(entries.len());
        let mut tys = Vec::with_capacity(entries.len());
        for e in entries {
            if let Some(first) = seen.get(e.name.node.as_str()) {
                let d = Diagnostic::new(
                    Code::E0104,
                    e.name.span,
                    format!("field `{}` is given more than once", e.name.node),
                )
                .with_label("given again here")
                .with_secondary(*first, "first given here");
                self.report(i, d);
                self.check_expr(i, &e.value, &Ty::Error, What::Plain(""));
                continue;
            }
            seen.insert(&e.name.node, e.name.span);
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
                        self.report(i, d);
                        failed = true;
                        Ty::Error
                    }
                },
                None if open => expected.strip_optional().clone(),
                None => Ty::Error,
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
                .filter(|f| {
                    !f.optional && !f.ty.accepts_null() && !seen.contains_key(f.name.as_str())
                })
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
    fn resolve_ref(&mut self, i: usize, r: &ast::Reference, span: Span) -> Option<(RefValue, Ty)> {
        let name = r.name.node.as_str();
        let Some(&b) = self.binding_index.get(name) else {
            self.unknown_binding(i, r);
            return None;
        };
        let (b_step, b_ty, b_span) = {
            let binding = self.bindings.get_mut(b)?;
            binding.uses += 1;
            (binding.step, binding.ty.clone(), binding.name_span)
        };
        let binder = self.step_name(b_step);
        let here = self.step_name(i);
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
        if let Some(deps) = self.deps.get_mut(i) {
            deps.push(Dependency {
                step: b_step,
                step_name: binder.to_string(),
                reason: DepReason::Data,
                span: r.name.span,
            });
        }
        let mut ty = b_ty;
        let mut optional = false;
        let mut shown = name.to_string();
        for m in &r.members {
            if let Ty::Optional(inner) = &ty {
                optional = true;
                ty = (**inner).clone();
            }
            match &ty {
                Ty::Error | Ty::Any => break,
                Ty::Record(fields) => match fields.iter().find(|f| f.name == m.node) {
                    Some(f) => {
                        optional |= f.optional;
                        ty = f.ty.clone();
                    }
                    None => {
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
                    let d = Diagnostic::new(
                        Code::E0202,
                        m.span,
                        format!("`{shown}` is `{other}`, which has no field `{}`", m.node),
                    )
                    .with_label("not a record")
                    .with_secondary(
                        b_span,
                        format!("`{name}` is bound here, by step `{binder}`"),
                    );
                    self.report(i, d);
                    ty = Ty::Error;
                    break;
                }
            }
            shown.push('.');
            shown.push_str(&m.node);
        }
        if optional {
            ty = Ty::optional(ty);
        }
        Some((
            RefValue {
                binding: name.to_string(),
                binding_index: b,
                step: b_step,
                step_name: binder.to_string(),
                members: r.members.iter().map(|m| m.node.clone()).collect(),
                span,
            },
            ty,
        ))
    }

    fn unknown_binding(&mut self, i: usize, r: &ast::Reference) {
        if self.plan_damaged {
            // The bind may have been lost to a syntax error.
            return;
        }
        let name = r.name.node.as_str();
        let near = self.env.nearest(name, self.binding_names.iter().copied());
        let mut d = Diagnostic::new(Code::E0105, r.name.span, format!("no step binds `{name}`"))
            .with_label("not bound by any step");
        if let Some(&s) = self.step_index.get(name) {
            let bound: Vec<&str> = self
                .step_binds
                .get(s)
                .map(Vec::as_slice)
                .unwrap_or(&[])
                .iter()
                .filter_map(|&b| self.bindings.get(b))
                .map(|b| b.name.as_str())
                .collect();
            d = d.with_secondary(
                self.plan
                    .steps
                    .get(s)
                    .map_or(r.name.span, |st| st.name.span),
                format!("`{name}` is a step, not a binding"),
            );
            d = d.with_help(if bound.is_empty() {
                format!("step `{name}` binds nothing: add `bind {name}_value = $...` to it and refer to that")
            } else {
                format!("refer to a name step `{name}` binds: {}", list_names(&bound))
            });
        } else {
            d = policy::add_suggestion(d, &near, r.name.span);
            if near.is_empty() {
                d = d.with_help("a reference names a binding of an earlier step: add `bind NAME = $...` to the step that produces the value");
            }
        }
        self.report(i, d);
    }

    // ------------------------------------------------------------ probes

    fn check_probe(
        &mut self,
        i: usize,
        probe: &ast::Probe,
        tool: Option<&'a Tool>,
    ) -> Option<CheckedProbe> {
        let kind = match &probe.kind {
            ast::ProbeKind::Error => return None,
            ast::ProbeKind::Len { path, op, value } => {
                let ty = self.probe_path(i, path, tool);
                let segs: Vec<PathSeg> = path.segments.iter().map(|s| s.node.clone()).collect();
                self.len_probe(i, segs, &path.to_string(), path.span, &ty, op, value)?
            }
            ast::ProbeKind::CountDefault { op, value } => {
                let t = tool?;
                let (segs, ty) = match t.result.strip_optional() {
                    Ty::Error | Ty::Any => return None,
                    Ty::List(_) => (Vec::new(), t.result.clone()),
                    Ty::Record(fields) => {
                        let lists: Vec<&catalog::FieldTy> = fields
                            .iter()
                            .filter(|f| matches!(f.ty.strip_optional(), Ty::List(_)))
                            .collect();
                        match lists.as_slice() {
                            [one] => (vec![PathSeg::Field(one.name.clone())], one.ty.clone()),
                            _ => {
                                let names: Vec<&str> =
                                    lists.iter().map(|f| f.name.as_str()).collect();
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
                                    None => {
                                        "count a list: give the probe the `path` of one".to_string()
                                    }
                                });
                                self.report(i, d);
                                return None;
                            }
                        }
                    }
                    other => {
                        let d = Diagnostic::new(
                            Code::E0203,
                            probe.span,
                            format!(
                                "`result_count` counts a list, but `{}` returns `{other}`",
                                t.name
                            ),
                        )
                        .with_label("nothing to count")
                        .with_secondary(t.name_span, format!("`{}` is declared here", t.name));
                        self.report(i, d);
                        return None;
                    }
                };
                let text = path_text(&segs);
                self.len_probe(i, segs, &text, probe.span, &ty, op, value)?
            }
            ast::ProbeKind::Compare { path, op, value } => {
                let ty = self.probe_path(i, path, tool);
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
                let v = self.probe_literal(i, value, &ty, path)?;
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
                    path: path.segments.iter().map(|s| s.node.clone()).collect(),
                    op: op.node,
                    value: v,
                }
            }
            ast::ProbeKind::In {
                path,
                negated,
                values,
            } => {
                let ty = self.probe_path(i, path, tool);
                let mut out = Vec::with_capacity(values.len());
                let mut ok = true;
                for v in values {
                    match self.probe_literal(i, v, &ty, path) {
                        Some(x) => out.push(x),
                        None => ok = false,
                    }
                }
                if !ok {
                    return None;
                }
                ProbeKind::In {
                    path: path.segments.iter().map(|s| s.node.clone()).collect(),
                    negated: *negated,
                    values: out,
                }
            }
            ast::ProbeKind::Exists { path } => {
                self.probe_path(i, path, tool);
                ProbeKind::Exists {
                    path: path.segments.iter().map(|s| s.node.clone()).collect(),
                }
            }
        };
        Some(CheckedProbe {
            kind,
            span: probe.span,
        })
    }

    fn probe_path(&mut self, i: usize, path: &ast::Path, tool: Option<&'a Tool>) -> Ty {
        match tool {
            Some(t) => self.type_path(i, &t.result, path, t),
            None => Ty::Error,
        }
    }

    #[allow(clippy::too_many_arguments)]
    fn len_probe(
        &mut self,
        i: usize,
        segs: Vec<PathSeg>,
        shown: &str,
        span: Span,
        ty: &Ty,
        op: &Spanned<CmpOp>,
        value: &Spanned<ast::Literal>,
    ) -> Option<ProbeKind> {
        let mut ok = true;
        if !matches!(ty.strip_optional(), Ty::List(_) | Ty::Any | Ty::Error) {
            let d = Diagnostic::new(
                Code::E0203,
                span,
                format!("`len` counts the elements of a list, but `{shown}` is `{ty}`"),
            )
            .with_label("not a list")
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

    fn probe_literal(
        &mut self,
        i: usize,
        value: &Spanned<ast::Literal>,
        ty: &Ty,
        path: &ast::Path,
    ) -> Option<Value> {
        match catalog::value::literal_value(&value.node, ty) {
            Ok((v, _)) => Some(v),
            Err(e) => {
                let what = format!("`{path}`");
                let mut d = catalog::literal_error(&e, &value.node, ty, value.span, &what);
                if matches!(
                    e,
                    catalog::LiteralError::Mismatch | catalog::LiteralError::NotInEnum
                ) {
                    d.code = Code::E0203;
                    d.severity = Code::E0203.severity();
                    d.message = match e {
                        catalog::LiteralError::NotInEnum => {
                            format!("`{path}` is never `{}`: it is `{ty}`", value.node.display())
                        }
                        _ => format!(
                            "`{path}` is `{ty}`, but the probe compares it with {} `{}`",
                            value.node.kind_name(),
                            value.node.display()
                        ),
                    };
                    if d.help.is_none() {
                        d.help = Some(format!("compare `{path}` with a value of type `{ty}`"));
                    }
                }
                self.report(i, d);
                None
            }
        }
    }

    // ------------------------------------------------------------ policy

    fn check_policy(
        &mut self,
        i: usize,
        step: &ast::Step,
        tool: &Tool,
        args: &[CheckedArg],
    ) -> Authz {
        let mut authz = Authz::default();
        let Some(policy) = self.env.policy else {
            let d = Diagnostic::new(
                Code::E0301,
                step.tool.span,
                format!("`{}` is not permitted: no policy is in force", tool.name),
            )
            .with_label("denied by default")
            .with_help("declare a `policy` that names the tools this actor may call (or pass one); without a policy every tool is denied");
            self.report(i, d);
            return authz;
        };
        let Some(rule) = policy.rule(&tool.name) else {
            let rules: Vec<&str> = policy.tool_names().collect();
            let near = self.env.nearest(&tool.name, rules.iter().copied());
            let mut d = Diagnostic::new(
                Code::E0301,
                step.tool.span,
                format!(
                    "`{}` is not permitted by policy `{}`",
                    tool.name, policy.name
                ),
            )
            .with_label("the policy does not name this tool")
            .with_secondary(
                policy.name_span,
                format!("policy `{}` is declared here", policy.name),
            );
            match near.first().and_then(|n| policy.rule(n)) {
                Some(r) if self.env.catalog.get(&r.tool).is_none() => {
                    d = d
                        .with_secondary(
                            r.tool_span,
                            format!("the policy names `{}`, which no tool is called", r.tool),
                        )
                        .with_help(format!(
                            "if the rule for `{}` is meant for this tool, correct its name to `{}`",
                            r.tool, tool.name
                        ));
                }
                _ => {
                    d = d.with_help(format!(
                        "a tool the policy does not name is denied: add a rule for `{}` to policy `{}`, or use a permitted tool",
                        tool.name, policy.name
                    ));
                }
            }
            self.report(i, d);
            return authz;
        };
        authz.scopes = rule.requires.iter().map(|s| s.node.clone()).collect();
        let missing: Vec<&Spanned<String>> = rule
            .requires
            .iter()
            .filter(|s| !policy::holds(self.env.actor, &s.node))
            .collect();
        authz.permitted = missing.is_empty();
        if !missing.is_empty() {
            let names: Vec<&str> = missing.iter().map(|s| s.node.as_str()).collect();
            let mut d = Diagnostic::new(
                Code::E0302,
                step.tool.span,
                format!(
                    "the actor lacks {} {}, which `{}` requires",
                    plural(names.len(), "scope", "scopes"),
                    list_names(&names),
                    tool.name
                ),
            )
            .with_label(format!("needs {}", list_names(&names)));
            for s in &missing {
                d = d.with_secondary(
                    s.span,
                    format!("`{}` is required here, by policy `{}`", s.node, policy.name),
                );
            }
            d = d.with_note(if self.env.actor.is_empty() {
                "the actor holds no scopes".to_string()
            } else {
                format!("the actor holds {}", list_names(self.env.actor))
            });
            d = d.with_help(format!(
                "run the plan as an actor that holds {}, or use a tool this actor may call",
                list_names(&names)
            ));
            self.report(i, d);
        }
        if let Some(span) = rule.approval {
            authz.approval = Some(ast::Approval::Human);
            let d = Diagnostic::new(
                Code::N0301,
                step.tool.span,
                format!("step `{}` needs a person's approval before the run starts", step.name.node),
            )
            .with_label("approval human")
            .with_secondary(span, format!("required here, by policy `{}`", policy.name))
            .with_note("the IR lists the step under `approvals`: a reviewer approves the plan, not the steps one by one");
            self.report(i, d);
        }
        for c in &rule.ceilings {
            let Some(limit) = &c.limit else { continue };
            let Some(arg) = args.iter().find(|a| a.name == c.arg) else {
                continue;
            };
            if arg.value.ty.is_error() || matches!(arg.value.kind, ValueKind::Error) {
                continue;
            }
            let origin = format!("policy `{}`", policy.name);
            match &arg.value.kind {
                ValueKind::Literal(v) => {
                    if v.satisfies(c.op, limit) == Some(false) {
                        self.ceiling_breach(i, step, arg, v, c, &origin);
                    }
                }
                _ if provably_within(&arg.value.ty, c.op, limit) => {}
                _ => {
                    authz.guards.push(Guard {
                        arg: c.arg.clone(),
                        op: c.op,
                        limit: limit.clone(),
                        ceiling_span: c.span,
                    });
                    let refs = arg.value.references();
                    let from = match refs.first() {
                        Some(r) => format!(
                            "its value comes from `{}`, bound by step `{}`",
                            r.binding, r.step_name
                        ),
                        None => "its value is not a single literal".to_string(),
                    };
                    let d = Diagnostic::new(
                        Code::N0302,
                        arg.value.span,
                        format!(
                            "the ceiling `{}` over `{}` is enforced at dispatch: {from}",
                            c.text(),
                            c.arg
                        ),
                    )
                    .with_label("checked by a guard after binding")
                    .with_secondary(c.span, format!("ceiling declared here, in {origin}"))
                    .with_note("the IR carries the guard; the executor refuses the call when the bound value breaks it");
                    self.report(i, d);
                }
            }
        }
        authz
    }

    fn ceiling_breach(
        &mut self,
        i: usize,
        step: &ast::Step,
        arg: &CheckedArg,
        v: &Value,
        c: &policy::CeilingRule,
        origin: &str,
    ) {
        let above = matches!(c.op, CmpOp::Le | CmpOp::Lt);
        let verb = if above { "exceeds" } else { "breaks" };
        let (span, label) = if arg.from_default {
            (
                step.tool.span,
                format!(
                    "the default `{}` = `{}` is used here",
                    arg.name,
                    v.display()
                ),
            )
        } else {
            (
                arg.value.span,
                if above {
                    "above the ceiling".to_string()
                } else {
                    "outside the ceiling".to_string()
                },
            )
        };
        let mut d = Diagnostic::new(
            Code::E0303,
            span,
            format!(
                "`{}` = `{}` {verb} the ceiling `{}` of {origin}",
                arg.name,
                v.display(),
                c.text()
            ),
        )
        .with_label(label)
        .with_secondary(c.span, format!("ceiling declared here, in {origin}"));
        if arg.from_default {
            d = d.with_secondary(arg.value.span, "the default is declared here");
        }
        d = d.with_help(match &c.limit {
            Some(l) if above => format!(
                "the policy allows at most `{}` here: a larger value needs a change of policy, not of plan",
                l.display()
            ),
            _ => "change the value to one the policy allows".to_string(),
        });
        self.report(i, d);
    }

    // ------------------------------------------------------------ ordering

    /// Every write step depends on the previous write step in source order.
    fn effect_edges(&mut self, steps: &[CheckedStep]) {
        let mut last_write: Option<usize> = None;
        for s in steps {
            let Some(tool) = &s.tool else { continue };
            if tool.effect != Effect::Write {
                continue;
            }
            if let Some(w) = last_write {
                let dep = Dependency {
                    step: w,
                    step_name: self.step_name(w).to_string(),
                    reason: DepReason::Effect,
                    span: s.name_span,
                };
                if let Some(d) = self.deps.get_mut(s.index) {
                    d.push(dep);
                }
            }
            last_write = Some(s.index);
        }
    }

    /// Finds ordering cycles (E0108) and layers the steps into waves.
    fn order(&mut self, steps: &[CheckedStep]) -> Option<Vec<Vec<usize>>> {
        let succ: Vec<Vec<usize>> = steps
            .iter()
            .map(|s| {
                let mut t: Vec<usize> = s.depends_on.iter().map(|d| d.step).collect();
                t.dedup();
                t
            })
            .collect();
        let cycles = graph::cyclic_components(&succ);
        if cycles.is_empty() {
            return graph::waves(&succ);
        }
        let mut member = vec![usize::MAX; steps.len()];
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
                steps.get(u).and_then(|s| {
                    s.depends_on
                        .iter()
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
                        edge.step_name,
                        self.step_name(u)
                    ))
                    .with_help(format!(
                        "remove `after {}`, or move the steps so that the order they need is the order they are written in",
                        edge.step_name
                    ))
            };
            let mut labels = 0usize;
            for pair in path.windows(2) {
                let &[from, to] = pair else { continue };
                let Some(dep) = steps
                    .get(from)
                    .and_then(|s| s.depends_on.iter().find(|d| d.step == to))
                else {
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

    // ------------------------------------------------------------ lints

    fn lints(&mut self, steps: &[CheckedStep]) {
        for s in steps {
            let i = s.index;
            let Some(tool) = self.tool(i) else { continue };
            let step = self.plan.steps.get(i);
            // W0401: ambiguous picks.
            let pins = len_bounds(&s.posts);
            for &b in &s.binds {
                let Some(binding) = self.bindings.get(b) else {
                    continue;
                };
                if binding.ty.is_error()
                    && binding.path.iter().any(|p| matches!(p, PathSeg::Index(_)))
                {
                    // The path was wrong (reported); say nothing more.
                    continue;
                }
                let Some(path) = step.and_then(|st| {
                    st.binds()
                        .find(|(n, _)| n.span == binding.name_span)
                        .map(|(_, p)| p)
                }) else {
                    continue;
                };
                for (k, seg) in path.segments.iter().enumerate() {
                    let PathSeg::Index(n) = seg.node else {
                        continue;
                    };
                    let prefix: Vec<PathSeg> = path
                        .segments
                        .iter()
                        .take(k)
                        .map(|x| x.node.clone())
                        .collect();
                    let pinned = pins
                        .get(&prefix)
                        .is_some_and(|&(lo, hi)| lo == 1 && hi == 1);
                    if pinned && n == 0 {
                        continue;
                    }
                    let list = path_text(&prefix);
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
                        d.help = Some(format!("take `[0]`: `{list}` has exactly one element"));
                    }
                    let name = self.step_name(i);
                    self.diags.push(d.in_step(name));
                }
            }
            // W0402: a write without a postcondition.
            if tool.effect == Some(Effect::Write)
                && step.is_some_and(|st| st.posts().next().is_none())
                && !self.env.damaged(s.span)
            {
                let example = match tool.result.strip_optional() {
                    Ty::Record(f) => f.first().map(|f| format!("post exists($.{})", f.name)),
                    Ty::List(_) => Some("post len($) >= 1".to_string()),
                    _ => None,
                }
                .unwrap_or_else(|| "post exists($)".to_string());
                let d = Diagnostic::new(
                    Code::W0402,
                    s.name_span,
                    format!(
                        "step `{}` writes with `{}` but has no postcondition",
                        s.name, tool.name
                    ),
                )
                .with_label("success would be the executor's opinion")
                .with_help(format!(
                    "add a `post` that checks the result, such as `{example}`"
                ));
                self.report(i, d);
            }
            // W0404: untrusted data into a write.
            if tool.effect == Some(Effect::Write) {
                for a in &s.args {
                    let Some(origin) = a.untrusted_from else {
                        continue;
                    };
                    let (oname, otool, ospan) = match self.plan.steps.get(origin) {
                        Some(o) => (o.name.node.as_str(), o.tool.node.as_str(), o.tool.span),
                        None => continue,
                    };
                    let d = Diagnostic::new(
                        Code::W0404,
                        a.value.span,
                        format!(
                            "argument `{}` of the write tool `{}` takes data from the untrusted tool `{otool}`",
                            a.name, tool.name
                        ),
                    )
                    .with_label("untrusted data")
                    .with_secondary(ospan, format!("step `{oname}` calls `{otool}`, whose output is untrusted"))
                    .with_help("the plan fixes control flow, not data: write the value into the plan, or have a person review it before this step");
                    self.report(i, d);
                }
            }
        }
        // W0403: bindings never used (a use may have been lost to a syntax
        // error).
        if self.plan_damaged {
            return;
        }
        let unused: Vec<(usize, String, Span)> = self
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

    fn budget(&mut self) {
        let n = self.plan.steps.len();
        if let Some(max) = self.plan.max_steps {
            self.over_budget(n, max.node, max.span, "the plan's own budget, `max_steps`");
        }
        if let Some(policy) = self.env.policy {
            if let Some(max) = policy.max_steps {
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
    }

    fn over_budget(&mut self, n: usize, max: u64, span: Span, whose: &str) {
        let Ok(max_n) = usize::try_from(max) else {
            return;
        };
        if n <= max_n {
            return;
        }
        let Some(first_over) = self.plan.steps.get(max_n) else {
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

/// `facts.plan` as written.
fn reference_text(r: &ast::Reference) -> String {
    let mut s = r.name.node.clone();
    for m in &r.members {
        s.push('.');
        s.push_str(&m.node);
    }
    s
}

/// Whether every value of `ty` satisfies `OP limit`, so that no guard is
/// needed: an enum whose every value does.
fn provably_within(ty: &Ty, op: CmpOp, limit: &Value) -> bool {
    match ty {
        Ty::Enum(values) => values
            .iter()
            .all(|v| Value::String(v.clone()).satisfies(op, limit) == Some(true)),
        _ => false,
    }
}

/// The bounds the `len` posts put on each path's length: (lowest, highest).
fn len_bounds(posts: &[CheckedProbe]) -> HashMap<Vec<PathSeg>, (u64, u64)> {
    let mut out: HashMap<Vec<PathSeg>, (u64, u64)> = HashMap::new();
    for p in posts {
        let ProbeKind::Len { path, op, value } = &p.kind else {
            continue;
        };
        let e = out.entry(path.clone()).or_insert((0, u64::MAX));
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
    out
}
