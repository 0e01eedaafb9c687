//! The plan's dependency graph, as `planc graph` prints it: one node per
//! step with its classes (read or write, approval, guard, untrusted input),
//! one edge per ordered pair of steps with its reasons (data, after,
//! effect), and the waves of the schedule. DOT for Graphviz, Mermaid for
//! Markdown pages; both carry every fact as text too (labels and styles
//! that do not need colour).

use std::collections::HashMap;
use std::fmt::Write;

use crate::ir::{DependencyReason, Effect, PlanIr, StepIr};
use crate::progress::{Event, FailureKind, PlanDiff, ProgressRecord, Status};

/// What kind of node a step is. A step is exactly one of read or write,
/// and any of the rest.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Classes {
    pub write: bool,
    /// A person approves it before the run starts.
    pub approval: bool,
    /// The executor checks a ceiling on its arguments before dispatch.
    pub guard: bool,
    /// An argument is fed by data from an untrusted tool.
    pub untrusted: bool,
}

impl Classes {
    pub fn of(step: &StepIr) -> Classes {
        Classes {
            write: step.effect == Effect::Write,
            approval: step.authz.approval.is_some(),
            guard: !step.authz.guards.is_empty(),
            untrusted: !step.untrusted_inputs.is_empty(),
        }
    }

    /// The class names, for labels and CSS classes: `read` or `write`, then
    /// `approval`, `guard`, `untrusted` as they apply.
    pub fn names(self) -> Vec<&'static str> {
        let mut names = vec![if self.write { "write" } else { "read" }];
        if self.approval {
            names.push("approval");
        }
        if self.guard {
            names.push("guard");
        }
        if self.untrusted {
            names.push("untrusted");
        }
        names
    }

    /// The classes as a person reads them: `write · approval`.
    pub fn label(self) -> String {
        self.names()
            .iter()
            .map(|n| {
                if *n == "untrusted" {
                    "untrusted input"
                } else {
                    n
                }
            })
            .collect::<Vec<_>>()
            .join(" · ")
    }
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Node {
    /// The step's position in the plan.
    pub index: usize,
    pub name: String,
    pub tool: String,
    /// Its wave in the schedule, from 0.
    pub wave: usize,
    pub classes: Classes,
    /// Where it stands, from a progress record: the record's status, or
    /// `pending` for a step the record does not know. `None` without a
    /// record.
    pub status: Option<Status>,
    /// In the invalidated subgraph: the step it came through (the invalid
    /// step whose data it reads, or itself for a step the record marks
    /// invalid or failed).
    pub invalidated: Option<String>,
    /// Against an earlier plan: whether it is new or changed.
    pub change: Option<Change>,
    /// The record says the plan this one replaces failed or invalidated
    /// this step, and this plan rewrites it: it will run as written here.
    pub rewritten: bool,
}

/// How a step differs from the earlier plan's step of the same name.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Change {
    Added,
    Changed,
}

impl Change {
    pub fn as_str(self) -> &'static str {
        match self {
            Change::Added => "added",
            Change::Changed => "changed",
        }
    }
}

impl Node {
    /// What the record and the delta say of the step, in words, for a
    /// label: `complete`, `pending · invalidated`, `invalid · changed`;
    /// `None` when there is neither.
    pub fn state(&self) -> Option<String> {
        let mut words: Vec<&str> = Vec::new();
        if self.rewritten {
            words.push("rewritten");
        } else if let Some(s) = self.status {
            words.push(s.as_str());
            if self.invalidated.is_some() && !matches!(s, Status::Invalid | Status::Failed) {
                words.push("invalidated");
            }
        }
        if let Some(c) = self.change {
            words.push(c.as_str());
        }
        (!words.is_empty()).then(|| words.join(" · "))
    }

    /// The CSS classes of the state: `status-complete`, `invalidated`,
    /// `added`, `changed`.
    pub fn state_classes(&self) -> Vec<String> {
        let mut out = Vec::new();
        if self.rewritten {
            out.push("rewritten".to_string());
        } else if let Some(s) = self.status {
            out.push(format!("status-{}", s.as_str()));
        }
        if self.invalidated.is_some() {
            out.push("invalidated".to_string());
        }
        if let Some(c) = self.change {
            out.push(c.as_str().to_string());
        }
        out
    }
}

/// `from` must finish before `to` starts, for these reasons (sorted, at
/// least one).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Edge {
    pub from: usize,
    pub to: usize,
    pub reasons: Vec<DependencyReason>,
}

impl Edge {
    /// The reason that decides how the edge is drawn: data over after over
    /// effect.
    pub fn main_reason(&self) -> DependencyReason {
        self.reasons
            .first()
            .copied()
            .unwrap_or(DependencyReason::Data)
    }

    /// `data`, or `data, after`.
    pub fn label(&self) -> String {
        self.reasons
            .iter()
            .map(|r| reason_name(*r))
            .collect::<Vec<_>>()
            .join(", ")
    }
}

pub fn reason_name(r: DependencyReason) -> &'static str {
    match r {
        DependencyReason::Data => "data",
        DependencyReason::After => "after",
        DependencyReason::Effect => "effect",
    }
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Graph {
    pub name: String,
    pub goal: Option<String>,
    /// In source order: `nodes[i].index == i`.
    pub nodes: Vec<Node>,
    /// Sorted by target, then source.
    pub edges: Vec<Edge>,
    /// Node indices per wave, in the schedule's order.
    pub waves: Vec<Vec<usize>>,
    /// How many `after` and write-order edges are left out because other
    /// edges already order their steps (a transitive reduction of them).
    pub implied: usize,
    /// How many edges are left out past [`MAX_EDGES`].
    pub cut: usize,
}

/// The most edges a graph draws: past it, a drawing costs more than it
/// shows. Every step's card still lists what it waits for.
pub const MAX_EDGES: usize = 5_000;

/// Up to this many steps, the `after` and write-order edges implied by
/// others are found exactly (ancestor sets of `n` bits per step: 8 MiB at
/// most); past it, those implied through one step in between.
const EXACT_REDUCTION_STEPS: usize = 8_192;

/// Which edges (sorted by target, then source) are orderings that other
/// edges already imply: an edge whose reasons are `after` or `effect` only,
/// from a step that another predecessor of its target already waits for.
/// Data edges are always kept: they say where a value comes from.
fn implied_orderings(n: usize, edges: &[Edge], wave_of: &[usize]) -> Vec<bool> {
    let mut preds: Vec<Vec<usize>> = vec![Vec::new(); n];
    for e in edges {
        if let Some(p) = preds.get_mut(e.to) {
            p.push(e.from);
        }
    }
    let ordering_only = |e: &Edge| !e.reasons.contains(&DependencyReason::Data);
    let mut out = vec![false; edges.len()];
    if n <= EXACT_REDUCTION_STEPS {
        // Ancestors of each step, wave by wave: every edge goes from an
        // earlier wave of the schedule to a later one.
        let words = n.div_ceil(64);
        let mut anc: Vec<u64> = vec![0; n * words];
        let mut order: Vec<usize> = (0..n).collect();
        order.sort_by_key(|&v| wave_of.get(v).copied().unwrap_or(0));
        for &v in &order {
            for &p in preds.get(v).map(Vec::as_slice).unwrap_or_default() {
                let (lo, hi) = (v * words, p * words);
                for w in 0..words {
                    let bits = anc.get(hi + w).copied().unwrap_or(0)
                        | if w == p / 64 { 1u64 << (p % 64) } else { 0 };
                    if let Some(slot) = anc.get_mut(lo + w) {
                        *slot |= bits;
                    }
                }
            }
        }
        let has = |v: usize, u: usize| {
            anc.get(v * words + u / 64)
                .is_some_and(|b| b & (1u64 << (u % 64)) != 0)
        };
        for (k, e) in edges.iter().enumerate() {
            let others = preds.get(e.to).map(Vec::as_slice).unwrap_or_default();
            if ordering_only(e)
                && others.iter().any(|&w| w != e.from && has(w, e.from))
                && let Some(slot) = out.get_mut(k)
            {
                *slot = true;
            }
        }
    } else {
        // Through one step in between, within a budget of comparisons.
        let direct: std::collections::HashSet<(usize, usize)> =
            edges.iter().map(|e| (e.from, e.to)).collect();
        let mut budget: usize = 50_000_000;
        for (k, e) in edges.iter().enumerate() {
            if !ordering_only(e) || budget == 0 {
                continue;
            }
            let others = preds.get(e.to).map(Vec::as_slice).unwrap_or_default();
            budget = budget.saturating_sub(others.len());
            if others
                .iter()
                .any(|&w| w != e.from && direct.contains(&(e.from, w)))
                && let Some(slot) = out.get_mut(k)
            {
                *slot = true;
            }
        }
    }
    out
}

impl Graph {
    /// The graph of a compiled plan. Names the IR does not define (which
    /// valid IR never has) are left out rather than guessed.
    pub fn of(ir: &PlanIr) -> Graph {
        let mut index: HashMap<&str, usize> = HashMap::with_capacity(ir.steps.len());
        for (i, s) in ir.steps.iter().enumerate() {
            index.entry(&*s.name).or_insert(i);
        }
        let index_of = |name: &str| index.get(name).copied();
        let waves: Vec<Vec<usize>> = ir
            .schedule
            .iter()
            .map(|wave| wave.iter().filter_map(|n| index_of(n)).collect())
            .collect();
        let mut wave_of = vec![0; ir.steps.len()];
        for (w, wave) in waves.iter().enumerate() {
            for &i in wave {
                if let Some(slot) = wave_of.get_mut(i) {
                    *slot = w;
                }
            }
        }
        let nodes = ir
            .steps
            .iter()
            .enumerate()
            .map(|(i, s)| Node {
                index: i,
                name: s.name.clone().to_string(),
                tool: s.tool.clone().to_string(),
                wave: wave_of.get(i).copied().unwrap_or(0),
                classes: Classes::of(s),
                status: None,
                invalidated: None,
                change: None,
                rewritten: false,
            })
            .collect();
        let mut edges: Vec<Edge> = Vec::new();
        let mut at: HashMap<(usize, usize), usize> = HashMap::new();
        for (to, step) in ir.steps.iter().enumerate() {
            for dep in &step.depends_on {
                let Some(from) = index_of(&dep.step) else {
                    continue;
                };
                match at.get(&(from, to)).and_then(|&k| edges.get_mut(k)) {
                    Some(e) => {
                        if !e.reasons.contains(&dep.reason) {
                            e.reasons.push(dep.reason);
                            e.reasons.sort();
                        }
                    }
                    None => {
                        at.insert((from, to), edges.len());
                        edges.push(Edge {
                            from,
                            to,
                            reasons: vec![dep.reason],
                        });
                    }
                }
            }
        }
        edges.sort_by_key(|e| (e.to, e.from));
        let implied = implied_orderings(ir.steps.len(), &edges, &wave_of);
        let before = edges.len();
        let mut k = 0;
        edges.retain(|_| {
            let keep = !implied.get(k).copied().unwrap_or(false);
            k += 1;
            keep
        });
        let implied = before - edges.len();
        let cut = edges.len().saturating_sub(MAX_EDGES);
        edges.truncate(MAX_EDGES);
        Graph {
            name: ir.name.clone().to_string(),
            goal: ir.goal.clone(),
            nodes,
            edges,
            waves,
            implied,
            cut,
        }
    }

    /// What the graph leaves out, in words, or `None` when it draws every
    /// edge.
    pub fn left_out(&self) -> Option<String> {
        let mut parts = Vec::new();
        if self.implied > 0 {
            parts.push(format!(
                "{} `after` or write-order {} that other edges already imply",
                self.implied,
                if self.implied == 1 { "edge" } else { "edges" }
            ));
        }
        if self.cut > 0 {
            parts.push(format!(
                "{} more {} past the first {MAX_EDGES} (each step's card lists what it waits for)",
                self.cut,
                if self.cut == 1 { "edge" } else { "edges" }
            ));
        }
        (!parts.is_empty()).then(|| format!("not drawn: {}", parts.join("; ")))
    }

    fn node(&self, i: usize) -> Option<&Node> {
        self.nodes.get(i)
    }

    /// Marks each node with its status in `record` and the invalidated
    /// subgraph: every step the record marks `invalid` or `failed`, and
    /// every step that reads their data, transitively, as
    /// [`crate::progress::invalidate`] decides it for that event (a failed
    /// precondition's cause is the producer of what it read).
    pub fn mark_progress(&mut self, ir: &PlanIr, record: &ProgressRecord) {
        let recorded = record.steps_by_name();
        for n in &mut self.nodes {
            n.status = Some(
                recorded
                    .get(n.name.as_str())
                    .map_or(Status::Pending, |s| run_status(s)),
            );
        }
        for root in record
            .steps
            .iter()
            .filter(|s| matches!(run_status(s), Status::Invalid | Status::Failed))
        {
            let event = match root.failure.as_ref().map(|f| f.kind) {
                Some(FailureKind::PreconditionUnmet) => Event::Precondition(root.name.clone()),
                _ => Event::Failed(root.name.clone()),
            };
            let Ok(inv) = crate::progress::invalidate(ir, record, &event) else {
                continue;
            };
            for change in inv.steps.iter().filter(|c| c.after == Status::Invalid) {
                let Some(cause) = &change.cause else { continue };
                // A step the record marks invalid is its own cause only
                // until another root's invalidation reaches it.
                if let Some(n) = self.nodes.iter_mut().find(|n| n.name == change.name)
                    && (n.invalidated.is_none() || n.invalidated.as_ref() == Some(&n.name))
                {
                    n.invalidated = Some(cause.clone());
                }
            }
        }
    }

    /// Marks the nodes the delta from an earlier plan adds or changes. A
    /// changed step the record has as invalid or failed is rewritten: the
    /// run's truth is that it runs as this plan writes it, not that it is
    /// invalid.
    pub fn mark_delta(&mut self, delta: &PlanDiff) {
        let added: planc_lang::FastSet<&str> = delta.added.iter().map(String::as_str).collect();
        let changed: planc_lang::FastSet<&str> =
            delta.changed.iter().map(|c| c.step.as_str()).collect();
        for n in &mut self.nodes {
            if added.contains(n.name.as_str()) {
                n.change = Some(Change::Added);
            } else if changed.contains(n.name.as_str()) {
                n.change = Some(Change::Changed);
                if matches!(n.status, Some(Status::Invalid | Status::Failed)) {
                    n.rewritten = true;
                    n.status = Some(Status::Pending);
                    n.invalidated = None;
                }
            }
        }
    }

    /// Whether an edge joins two steps of the invalidated subgraph along
    /// data: the way the invalidation travelled.
    pub fn invalidated_edge(&self, e: &Edge) -> bool {
        let inside = |i: usize| self.node(i).is_some_and(|n| n.invalidated.is_some());
        inside(e.from) && inside(e.to) && e.reasons.contains(&DependencyReason::Data)
    }
}

/// A recorded step's status as the run left it: a step with a recorded
/// failure (a precondition that did not hold leaves its step `pending`
/// with a `failure`) stopped the run there, and is invalid until a repair
/// rewrites it.
pub fn run_status(step: &crate::progress::StepRecord) -> Status {
    if step.status == Status::Pending && step.failure.is_some() {
        Status::Invalid
    } else {
        step.status
    }
}

// ---------------------------------------------------------------- DOT

/// The fill of a complete step and the line colour of the invalidated
/// subgraph, in both graph languages. Each only repeats what the node's
/// label says in words.
const COMPLETE_FILL: &str = "#eef2f5";
const INVALIDATED: &str = "#b42318";

/// A DOT string: quotes and backslashes escaped, line breaks as `\n`, so
/// that no name or goal can end it.
fn quoted(s: &str) -> String {
    let mut out = String::with_capacity(s.len() + 2);
    out.push('"');
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\r' => {}
            c if c.is_control() => out.push(' '),
            c => out.push(c),
        }
    }
    out.push('"');
    out
}

/// Lines joined with DOT's centred line break, each line escaped.
fn dot_lines(lines: &[&str]) -> String {
    let escaped: Vec<String> = lines
        .iter()
        .map(|l| {
            let s = quoted(&l.replace('\n', " "));
            s.get(1..s.len().saturating_sub(1))
                .unwrap_or_default()
                .to_string()
        })
        .collect();
    format!("\"{}\"", escaped.join("\\n"))
}

/// The graph in Graphviz's DOT language: waves as clusters laid out left to
/// right; a read is a rounded box, a write a bold box, an approval has a
/// double border, an untrusted input a dashed one; a data edge is solid,
/// `after` dashed, `effect` dotted, each labelled with its reasons. Every
/// node says its classes in its label, and carries them in `class` for SVG
/// output. With a record, a label's last line is the step's status (a
/// complete step is filled, the invalidated subgraph drawn heavy); against
/// an earlier plan, `added` or `changed` (an added step has diagonals).
pub fn dot(g: &Graph) -> String {
    let mut out = String::new();
    let _ = writeln!(out, "digraph {} {{", quoted(&g.name));
    if let Some(goal) = &g.goal {
        let _ = writeln!(out, "  label={};", quoted(goal));
        out.push_str("  labelloc=t;\n");
    }
    if let Some(note) = g.left_out() {
        let _ = writeln!(out, "  // {note}");
    }
    out.push_str("  rankdir=LR;\n");
    out.push_str("  fontname=\"Helvetica\";\n");
    out.push_str("  node [shape=box, fontname=\"Helvetica\", fontsize=11];\n");
    out.push_str("  edge [fontname=\"Helvetica\", fontsize=9];\n");
    for (w, wave) in g.waves.iter().enumerate() {
        let _ = writeln!(out, "  subgraph cluster_wave_{w} {{");
        let _ = writeln!(out, "    label={};", quoted(&format!("wave {}", w + 1)));
        out.push_str("    style=dashed;\n    color=gray60;\n");
        for &i in wave {
            if let Some(n) = g.node(i) {
                let _ = writeln!(out, "    {};", quoted(&n.name));
            }
        }
        out.push_str("  }\n");
    }
    for n in &g.nodes {
        let c = n.classes;
        let mut style = vec![if c.write { "bold" } else { "rounded" }];
        if c.untrusted {
            style.push("dashed");
        }
        let classes = c.label();
        let state = n.state();
        let mut lines = vec![n.name.as_str(), n.tool.as_str(), classes.as_str()];
        if let Some(state) = &state {
            lines.push(state);
        }
        if n.status == Some(Status::Complete) {
            style.push("filled");
        }
        if n.change == Some(Change::Added) {
            style.push("diagonals");
        }
        let mut class_names: Vec<String> = c.names().iter().map(|s| s.to_string()).collect();
        class_names.extend(n.state_classes());
        let mut attrs = vec![
            format!("label={}", dot_lines(&lines)),
            format!("style={}", quoted(&style.join(","))),
            format!("class={}", quoted(&class_names.join(" "))),
        ];
        if c.approval {
            attrs.push("peripheries=2".to_string());
        }
        if n.status == Some(Status::Complete) {
            attrs.push(format!("fillcolor={}", quoted(COMPLETE_FILL)));
        }
        if n.invalidated.is_some() {
            attrs.push(format!("color={}, penwidth=2.5", quoted(INVALIDATED)));
        }
        let _ = writeln!(out, "  {} [{}];", quoted(&n.name), attrs.join(", "));
    }
    for e in &g.edges {
        let (Some(from), Some(to)) = (g.node(e.from), g.node(e.to)) else {
            continue;
        };
        let style = match e.main_reason() {
            crate::ir::DependencyReason::Data => "solid",
            crate::ir::DependencyReason::After => "dashed",
            crate::ir::DependencyReason::Effect => "dotted",
        };
        let invalidated = if g.invalidated_edge(e) {
            format!(", color={}, penwidth=2", quoted(INVALIDATED))
        } else {
            String::new()
        };
        let _ = writeln!(
            out,
            "  {} -> {} [label={}, style={style}{invalidated}];",
            quoted(&from.name),
            quoted(&to.name),
            quoted(&e.label())
        );
    }
    out.push_str("}\n");
    out
}

// ---------------------------------------------------------------- Mermaid

/// Text for a Mermaid label in double quotes: every character that Mermaid
/// or the HTML it renders to would read as markup becomes an entity code
/// (`#34;`), so a label is only ever text; `%` too, so that no `%%{...}%%`
/// directive can hide in it, and `\`, so that it is also a YAML string.
fn mermaid_text(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        match c {
            '"' | '#' | '&' | '<' | '>' | '`' | '[' | ']' | '{' | '}' | '(' | ')' | '|' | ';'
            | '%' | '\\' => {
                let _ = write!(out, "#{};", u32::from(c));
            }
            '\n' | '\r' => out.push(' '),
            c if c.is_control() => out.push(' '),
            c => out.push(c),
        }
    }
    out
}

/// The graph as a Mermaid flowchart: waves as subgraphs left to right; a
/// read is a rounded node, a write a square one, a step needing approval
/// has double side bars, an untrusted input a dashed border, a write a
/// heavy one; every node's label says its classes (`write · approval`)
/// and, with a record or an earlier plan, its state (`complete`,
/// `invalid · changed`); edges are solid for data (heavy inside the
/// invalidated subgraph), dotted for `after` and `effect`, labelled with
/// their reasons. Node ids are
/// `s0`, `s1`, ... so that no step name needs escaping outside a label.
pub fn mermaid(g: &Graph) -> String {
    let mut out = String::new();
    if let Some(goal) = &g.goal {
        // Mermaid decodes no entity code in a title, so a goal with markup
        // shows its codes there: readable, and inert.
        let _ = writeln!(out, "---\ntitle: \"{}\"\n---", mermaid_text(goal));
    }
    out.push_str("flowchart LR\n");
    if let Some(note) = g.left_out() {
        let _ = writeln!(out, "  %% {note}");
    }
    for (w, wave) in g.waves.iter().enumerate() {
        let _ = writeln!(out, "  subgraph wave{w}[\"wave {}\"]", w + 1);
        out.push_str("    direction TB\n");
        for &i in wave {
            let Some(n) = g.node(i) else { continue };
            let mut label = format!(
                "<b>{}</b><br/>{}<br/><i>{}</i>",
                mermaid_text(&n.name),
                mermaid_text(&n.tool),
                mermaid_text(&n.classes.label())
            );
            if let Some(state) = n.state() {
                let _ = write!(label, "<br/><b>{}</b>", mermaid_text(&state));
            }
            let (open, close) = match (n.classes.write, n.classes.approval) {
                (_, true) => ("[[", "]]"),
                (true, false) => ("[", "]"),
                (false, false) => ("(", ")"),
            };
            let _ = writeln!(out, "    s{i}{open}\"{label}\"{close}");
        }
        out.push_str("  end\n");
    }
    for e in &g.edges {
        let arrow = match e.main_reason() {
            crate::ir::DependencyReason::Data if g.invalidated_edge(e) => "==>",
            crate::ir::DependencyReason::Data => "-->",
            _ => "-.->",
        };
        let _ = writeln!(
            out,
            "  s{} {arrow}|\"{}\"| s{}",
            e.from,
            mermaid_text(&e.label()),
            e.to
        );
    }
    out.push_str("  classDef write stroke-width:3px\n");
    out.push_str("  classDef untrusted stroke-dasharray:2 2\n");
    // The states' classes are defined only when some node has them, so a
    // graph without a record is as before.
    let is_complete: fn(&Node) -> bool = |n| n.status == Some(Status::Complete);
    let is_invalidated: fn(&Node) -> bool = |n| n.invalidated.is_some();
    for (class, style, has) in [
        ("complete", format!("fill:{COMPLETE_FILL}"), is_complete),
        (
            "invalidated",
            format!("stroke:{INVALIDATED},stroke-width:4px"),
            is_invalidated,
        ),
    ] {
        if g.nodes.iter().any(has) {
            let _ = writeln!(out, "  classDef {class} {style}");
        }
    }
    let is_write: fn(&Node) -> bool = |n| n.classes.write;
    let is_untrusted: fn(&Node) -> bool = |n| n.classes.untrusted;
    for (class, has) in [
        ("write", is_write),
        ("untrusted", is_untrusted),
        ("complete", is_complete),
        ("invalidated", is_invalidated),
    ] {
        let members: Vec<String> = g
            .nodes
            .iter()
            .filter(|n| has(n))
            .map(|n| format!("s{}", n.index))
            .collect();
        if !members.is_empty() {
            let _ = writeln!(out, "  class {} {class}", members.join(","));
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn dot_strings_cannot_be_ended_by_their_text() {
        assert_eq!(quoted(r#"a"b\c"#), r#""a\"b\\c""#);
        assert_eq!(quoted("x\ny"), r#""x\ny""#);
        assert_eq!(dot_lines(&["a\"", "b"]), r#""a\"\nb""#);
    }

    #[test]
    fn mermaid_labels_are_text_only() {
        assert_eq!(
            mermaid_text("</b><img onerror=x>\"#%%{init}%%\\"),
            "#60;/b#62;#60;img onerror=x#62;#34;#35;#37;#37;#123;init#125;#37;#37;#92;"
        );
    }
}
