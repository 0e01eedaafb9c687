//! The dependency graph drawn as inline SVG for the review page, laid out
//! here: waves are columns (or, for a narrow screen, rows), the steps of a
//! wave are stacked in it, ordered so that each sits near the steps it
//! waits for. Meaning never rests on colour alone: a write has a heavy
//! border, an approval a double one, an untrusted input a dashed one, and
//! each node names its classes; a data edge is solid, `after` dashed,
//! `effect` dotted.

use std::fmt::Write;

use super::graph::{Edge, Graph, Node, reason_name};
use super::review::esc;
use crate::ir::DependencyReason;

/// The direction waves advance in.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Direction {
    /// Waves are columns, left to right (wide screens, print).
    Across,
    /// Waves are rows, top to bottom (phones).
    Down,
}

/// Width of a character of the monospace font at the node font size, a
/// little generous so that text never runs past its box.
const CHAR_W: f64 = 7.4;
const NODE_H: f64 = 62.0;
/// The height of one more line of a node's label.
const LINE_H: f64 = 15.5;
const MIN_W: f64 = 150.0;
const MAX_CHARS: usize = 30;
const PAD: f64 = 12.0;
/// Space between waves, where the edges run, and between nodes of a wave.
const WAVE_GAP: f64 = 56.0;
const NODE_GAP: f64 = 16.0;
/// Room for the wave captions.
const CAPTION: f64 = 22.0;

/// A placed node: its top-left corner.
#[derive(Clone, Copy)]
struct Placed {
    x: f64,
    y: f64,
}

/// Positions along the waves (`main`) and across them (`cross`), turned
/// into x and y by the direction.
#[derive(Clone, Copy)]
struct Frame {
    direction: Direction,
    /// The node's extent along the main and cross axes.
    node_main: f64,
    node_cross: f64,
    main_step: f64,
    cross_step: f64,
    /// Where the first node across starts (room for lanes before it).
    cross_origin: f64,
}

impl Frame {
    fn point(&self, main: f64, cross: f64) -> (f64, f64) {
        match self.direction {
            Direction::Across => (1.0 + main, CAPTION + cross),
            Direction::Down => (1.0 + cross, CAPTION + main),
        }
    }
}

/// The order of the nodes inside each wave: the first wave in plan order,
/// every later one by the mean position of the nodes it waits for (ties in
/// plan order), which keeps edges short and mostly uncrossed.
fn order(g: &Graph, waves: &[Vec<usize>]) -> Vec<Vec<usize>> {
    let mut position = vec![0.0_f64; g.nodes.len()];
    let mut preds_of: Vec<Vec<usize>> = vec![Vec::new(); g.nodes.len()];
    for e in &g.edges {
        if let Some(p) = preds_of.get_mut(e.to) {
            p.push(e.from);
        }
    }
    let mut ordered: Vec<Vec<usize>> = Vec::with_capacity(waves.len());
    for wave in waves {
        let mut keyed: Vec<(f64, usize)> = wave
            .iter()
            .map(|&i| {
                let preds: Vec<f64> = preds_of
                    .get(i)
                    .map(Vec::as_slice)
                    .unwrap_or_default()
                    .iter()
                    .filter_map(|&p| position.get(p).copied())
                    .collect();
                let key = if preds.is_empty() {
                    f64::MAX
                } else {
                    preds.iter().sum::<f64>() / preds.len() as f64
                };
                (key, i)
            })
            .collect();
        keyed.sort_by(|a, b| a.0.total_cmp(&b.0).then(a.1.cmp(&b.1)));
        let wave_order: Vec<usize> = keyed.into_iter().map(|(_, i)| i).collect();
        for (p, &i) in wave_order.iter().enumerate() {
            if let Some(slot) = position.get_mut(i) {
                *slot = p as f64;
            }
        }
        ordered.push(wave_order);
    }
    ordered
}

/// `text` in lines of at most `max` characters, broken after a `.`, `_`,
/// `-`, `·` or space where one falls in the line, else at `max`: the whole
/// name, never cut.
fn wrap(text: &str, max: usize) -> Vec<String> {
    let max = max.max(1);
    let chars: Vec<char> = text.chars().collect();
    let mut lines = Vec::new();
    let mut start = 0;
    while chars.len() - start > max {
        let window = chars.get(start..start + max).unwrap_or_default();
        let cut = window
            .iter()
            .rposition(|c| matches!(c, '.' | '_' | '-' | '·' | ' '))
            .filter(|&k| k > 0)
            .map_or(max, |k| k + 1);
        lines.push(
            chars
                .get(start..start + cut)
                .unwrap_or_default()
                .iter()
                .collect(),
        );
        start += cut;
    }
    lines.push(chars.get(start..).unwrap_or_default().iter().collect());
    lines
}

/// The most steps the drawing places: the waves from the first until one
/// would pass it. Past it, a drawing is a wall no one reads; the cards
/// below still show every step.
pub const MAX_NODES: usize = 400;

/// The most waves an edge is routed around: one that spans more is drawn
/// as a single curve, so that its cost does not grow with the plan.
const MAX_ROUTED_WAVES: usize = 12;

/// The waves the drawing shows (a prefix of the graph's), and how many
/// steps it leaves out.
fn shown_waves(g: &Graph) -> (Vec<Vec<usize>>, usize) {
    let mut shown = Vec::new();
    let mut count = 0;
    for wave in &g.waves {
        if count + wave.len() > MAX_NODES && !shown.is_empty() {
            break;
        }
        let take: Vec<usize> = wave.iter().copied().take(MAX_NODES).collect();
        count += take.len();
        shown.push(take);
    }
    (shown, g.nodes.len().saturating_sub(count))
}

/// What the drawing leaves out, in words, beside what the graph does.
pub fn left_out(g: &Graph) -> Option<String> {
    let (_, hidden) = shown_waves(g);
    let mut parts: Vec<String> = g.left_out().into_iter().collect();
    if hidden > 0 {
        parts.push(format!(
            "the drawing stops at {MAX_NODES} steps: {hidden} more are in the cards below"
        ));
    }
    (!parts.is_empty()).then(|| parts.join("; "))
}

/// Room on each side across the waves, where an edge can pass a column.
const LANE: f64 = NODE_GAP;

/// The SVG of the graph. `id` prefixes the ids inside it (markers), so two
/// drawings can share a page. A node's state (its status in a record, the
/// invalidated subgraph, added or changed) is a word on its last line and
/// a class for the style.
pub fn draw(g: &Graph, direction: Direction, id: &str) -> String {
    let (shown, _) = shown_waves(g);
    let waves = order(g, &shown);
    let mut drawn = vec![false; g.nodes.len()];
    for &i in waves.iter().flatten() {
        if let Some(slot) = drawn.get_mut(i) {
            *slot = true;
        }
    }
    let is_drawn = |i: usize| drawn.get(i).copied().unwrap_or(false);
    // The tags line is set smaller: its characters count for less.
    let longest = g
        .nodes
        .iter()
        .filter(|n| is_drawn(n.index))
        .flat_map(|n| {
            let tags = tags_line(n);
            [
                n.name.chars().count(),
                n.tool.chars().count() + 1,
                (tags.chars().count() * 7).div_ceil(8),
            ]
        })
        .max()
        .unwrap_or(0)
        .min(MAX_CHARS);
    let node_w = (longest as f64 * CHAR_W + 2.0 * PAD).max(MIN_W);
    let chars = ((node_w - 2.0 * PAD) / CHAR_W).floor() as usize;
    // Every node as tall as the one with the most lines: names and tools
    // wrap, never cut.
    let lines = g
        .nodes
        .iter()
        .filter(|n| is_drawn(n.index))
        .map(|n| {
            wrap(&n.name, chars).len()
                + wrap(&n.tool, chars).len()
                + wrap(&tags_line(n), chars + 4).len()
        })
        .max()
        .unwrap_or(3)
        .max(3);
    let node_h = NODE_H + (lines - 3) as f64 * LINE_H;
    let (node_main, node_cross) = match direction {
        Direction::Across => (node_w, node_h),
        Direction::Down => (node_h, node_w),
    };
    let frame = Frame {
        direction,
        node_main,
        node_cross,
        main_step: node_main + WAVE_GAP,
        cross_step: node_cross + NODE_GAP,
        cross_origin: LANE,
    };
    let tallest = waves.iter().map(Vec::len).max().unwrap_or(0) as f64;
    let cross_total = (tallest * frame.cross_step - NODE_GAP).max(0.0);

    // Each node's top-left corner as (main, cross).
    let mut placed: Vec<Option<Placed>> = vec![None; g.nodes.len()];
    for (w, wave) in waves.iter().enumerate() {
        let len = wave.len() as f64 * frame.cross_step - NODE_GAP;
        let start = frame.cross_origin + (cross_total - len) / 2.0;
        for (k, &i) in wave.iter().enumerate() {
            if let Some(slot) = placed.get_mut(i) {
                *slot = Some(Placed {
                    x: w as f64 * frame.main_step,
                    y: start + k as f64 * frame.cross_step,
                });
            }
        }
    }
    let main_total = (waves.len() as f64 * frame.main_step - WAVE_GAP).max(node_main);
    let cross_full = cross_total + 2.0 * LANE;
    let (width, height) = match direction {
        Direction::Across => (main_total + 2.0, CAPTION + cross_full + 2.0),
        Direction::Down => (cross_full + 2.0, CAPTION + main_total + 2.0),
    };

    let mut out = String::new();
    let _ = write!(
        out,
        "<svg class=\"dag dag-{}\" xmlns=\"http://www.w3.org/2000/svg\" viewBox=\"0 0 {width:.0} {height:.0}\" \
         width=\"{width:.0}\" role=\"img\" aria-labelledby=\"{id}-title\">\
         <title id=\"{id}-title\">{}</title>",
        match direction {
            Direction::Across => "across",
            Direction::Down => "down",
        },
        esc(&format!(
            "the steps of plan {} in {} waves",
            g.name,
            g.waves.len()
        ))
    );
    let _ = write!(
        out,
        "<defs><marker id=\"{id}-arrow\" viewBox=\"0 0 10 10\" refX=\"9\" refY=\"5\" \
         markerWidth=\"7\" markerHeight=\"7\" orient=\"auto-start-reverse\">\
         <path d=\"M0,0 L10,5 L0,10 z\" class=\"arrow\"/></marker></defs>"
    );

    for w in 0..waves.len() {
        let main = w as f64 * frame.main_step;
        let (x, y, anchor) = match direction {
            Direction::Across => (1.0 + main + node_w / 2.0, 14.0, "middle"),
            Direction::Down => (1.0, CAPTION + main - 6.0, "start"),
        };
        let _ = write!(
            out,
            "<text class=\"wave-caption\" x=\"{x:.1}\" y=\"{y:.1}\" text-anchor=\"{anchor}\">wave {}</text>",
            w + 1
        );
    }

    // Edges under the nodes.
    for e in g
        .edges
        .iter()
        .filter(|e| is_drawn(e.from) && is_drawn(e.to))
    {
        let path = route(e, g, &waves, &placed, &frame);
        if path.is_empty() {
            continue;
        }
        let name = |i: usize| g.nodes.get(i).map(|n| n.name.as_str()).unwrap_or_default();
        let _ = write!(
            out,
            "<path class=\"edge edge-{}{}\" d=\"{path}\" marker-end=\"url(#{id}-arrow)\">\
             <title>{}</title></path>",
            reason_name(e.main_reason()),
            if g.invalidated_edge(e) {
                " edge-invalidated"
            } else {
                ""
            },
            esc(&format!(
                "{} waits for {} ({})",
                name(e.to),
                name(e.from),
                e.label()
            ))
        );
    }

    for n in &g.nodes {
        let Some(Some(p)) = placed.get(n.index) else {
            continue;
        };
        let (x, y) = frame.point(p.x, p.y);
        node(&mut out, n, x, y, (node_w, node_h), chars);
    }
    out.push_str("</svg>");
    out
}

/// The path of an edge, in SVG path syntax. Between neighbouring waves it
/// is one curve; past a wave in between, it runs along that wave's column
/// through the gap nearest its straight line, so that it never passes
/// behind a node.
fn route(
    e: &Edge,
    g: &Graph,
    waves: &[Vec<usize>],
    placed: &[Option<Placed>],
    f: &Frame,
) -> String {
    let (Some(Some(a)), Some(Some(b))) = (placed.get(e.from), placed.get(e.to)) else {
        return String::new();
    };
    let (Some(wa), Some(wb)) = (g.nodes.get(e.from), g.nodes.get(e.to)) else {
        return String::new();
    };
    let start = (a.x + f.node_main, a.y + f.node_cross / 2.0);
    let end = (b.x - 1.0, b.y + f.node_cross / 2.0);
    // Points (main, cross), joined by curves where the edge crosses a gap
    // between waves and by straight runs along a column.
    let mut points = vec![start];
    let routed = if wb.wave.saturating_sub(wa.wave) > MAX_ROUTED_WAVES {
        0..0
    } else {
        (wa.wave + 1)..wb.wave
    };
    for w in routed {
        let column = w as f64 * f.main_step;
        let t = (column + f.node_main / 2.0 - start.0) / (end.0 - start.0).max(1.0);
        let wanted = start.1 + t * (end.1 - start.1);
        let lane = lane(
            waves.get(w).map(Vec::as_slice).unwrap_or_default(),
            placed,
            f,
            wanted,
        );
        points.push((column, lane));
        points.push((column + f.node_main, lane));
    }
    points.push(end);

    let mut d = String::new();
    let pt = |main: f64, cross: f64| {
        let (x, y) = f.point(main, cross);
        format!("{x:.1},{y:.1}")
    };
    let _ = write!(d, "M{}", pt(start.0, start.1));
    // Segments alternate: a curve across a gap, a run along a column, ...
    for (k, pair) in points.windows(2).enumerate() {
        let [(m1, c1), (m2, c2)] = pair else { continue };
        if k % 2 == 1 {
            let _ = write!(d, " L{}", pt(*m2, *c2));
        } else {
            let dm = ((m2 - m1) / 2.0).max(12.0);
            let _ = write!(
                d,
                " C{} {} {}",
                pt(m1 + dm, *c1),
                pt(m2 - dm, *c2),
                pt(*m2, *c2)
            );
        }
    }
    d
}

/// Where across a wave an edge can pass: `wanted` itself when no node of
/// the wave is in the way, else the middle of the nearest gap (before the
/// first node, between two, or after the last).
fn lane(wave: &[usize], placed: &[Option<Placed>], f: &Frame, wanted: f64) -> f64 {
    let spans: Vec<(f64, f64)> = wave
        .iter()
        .filter_map(|&i| placed.get(i).copied().flatten())
        .map(|p| (p.y, p.y + f.node_cross))
        .collect();
    let margin = 6.0;
    if spans
        .iter()
        .all(|&(lo, hi)| wanted < lo - margin || wanted > hi + margin)
    {
        return wanted;
    }
    let mut candidates = Vec::with_capacity(spans.len() + 1);
    if let Some(&(lo, _)) = spans.first() {
        candidates.push(lo - NODE_GAP / 2.0);
    }
    for pair in spans.windows(2) {
        if let [(_, hi), (lo, _)] = pair {
            candidates.push((hi + lo) / 2.0);
        }
    }
    if let Some(&(_, hi)) = spans.last() {
        candidates.push(hi + NODE_GAP / 2.0);
    }
    candidates
        .into_iter()
        .min_by(|a, b| (a - wanted).abs().total_cmp(&(b - wanted).abs()))
        .unwrap_or(wanted)
}

fn node(out: &mut String, n: &Node, x: f64, y: f64, (node_w, node_h): (f64, f64), chars: usize) {
    let mut classes = n.classes.names().join(" ");
    for c in n.state_classes() {
        classes.push(' ');
        classes.push_str(&c);
    }
    let _ = write!(
        out,
        "<g class=\"node {classes}\" transform=\"translate({x:.1},{y:.1})\"><title>{}</title>",
        esc(&format!(
            "step {}: {} ({}){}",
            n.name,
            n.tool,
            n.classes.label(),
            n.state().map(|s| format!("; {s}")).unwrap_or_default()
        ))
    );
    let _ = write!(
        out,
        "<rect class=\"box\" width=\"{node_w:.1}\" height=\"{node_h:.1}\" rx=\"6\"/>"
    );
    if n.classes.approval {
        let _ = write!(
            out,
            "<rect class=\"inner\" x=\"4\" y=\"4\" width=\"{:.1}\" height=\"{:.1}\" rx=\"3\"/>",
            node_w - 8.0,
            node_h - 8.0
        );
    }
    let mut y = 21.0;
    for (class, text, width) in [
        ("name", n.name.as_str(), chars),
        ("tool", n.tool.as_str(), chars),
        ("tags", tags_line(n).as_str(), chars + 4),
    ] {
        for line in wrap(text, width) {
            let _ = write!(
                out,
                "<text class=\"{class}\" x=\"{PAD}\" y=\"{y:.1}\">{}</text>",
                esc(&line)
            );
            y += LINE_H;
        }
    }
    out.push_str("</g>");
}

/// The node's last line: its state, if any, and its classes, short.
fn tags_line(n: &Node) -> String {
    let classes = n.classes.names().join(" · ");
    match n.state() {
        Some(s) => format!("{s} · {classes}"),
        None => classes,
    }
}

/// A short sample of each edge style, for the legend.
pub fn edge_sample(reason: DependencyReason) -> String {
    format!(
        "<svg class=\"sample\" viewBox=\"0 0 36 10\" width=\"36\" height=\"10\" aria-hidden=\"true\">\
         <path class=\"edge edge-{}\" d=\"M1,5 L35,5\"/></svg>",
        reason_name(reason)
    )
}
