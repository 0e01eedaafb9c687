//! The human format: ariadne reports over excerpts of the lines shown.

use std::borrow::Cow;
use std::fmt::Write as _;
use std::ops::Range;

use super::clamp;
use crate::diagnostics::{Diagnostic, Severity};
use crate::source::{FileId, SourceMap, Span};
use crate::syntax::lexicon;

/// An ariadne span: a file and a byte range.
#[derive(Clone, Debug)]
struct AriadneSpan(FileId, Range<usize>);

impl ariadne::Span for AriadneSpan {
    type SourceId = FileId;
    fn source(&self) -> &FileId {
        &self.0
    }
    fn start(&self) -> usize {
        self.1.start
    }
    fn end(&self) -> usize {
        self.1.end
    }
}

/// Serves the files of a [`SourceMap`] to ariadne: as the excerpt the
/// diagnostic being written shows of it (its lines from the first label
/// to the last, a long line cut, a hidden character escaped), or, for a
/// label at the end of a text that ends in a line break (where ariadne
/// places it past the break), as it is, built into ariadne's line index
/// at most once per rendering and served from the map's text, not a copy
/// of it. The report of a long plan indexes no line it does not show
/// (`docs/performance.md`, "Where the memory goes").
struct ExcerptCache<'a> {
    sources: &'a SourceMap,
    whole: Vec<Option<ariadne::Source<Cow<'a, str>>>>,
    excerpts: Vec<(FileId, ariadne::Source<Cow<'a, str>>)>,
}

impl<'a> ariadne::Cache<FileId> for ExcerptCache<'a> {
    type Storage = Cow<'a, str>;

    fn fetch(
        &mut self,
        id: &FileId,
    ) -> Result<&ariadne::Source<Cow<'a, str>>, impl std::fmt::Debug> {
        if let Some(k) = self.excerpts.iter().position(|(f, _)| f == id) {
            return self
                .excerpts
                .get(k)
                .map(|(_, s)| s)
                .ok_or_else(|| format!("no file with id {}", id.0));
        }
        let idx = id.0 as usize;
        if self.whole.len() <= idx {
            self.whole.resize_with(idx + 1, || None);
        }
        let Some(text) = self.sources.get(*id).map(|f| f.text.as_str()) else {
            return Err(format!("no file with id {}", id.0));
        };
        match self.whole.get_mut(idx) {
            Some(slot) => {
                Ok(&*slot.get_or_insert_with(|| ariadne::Source::from(Cow::Borrowed(text))))
            }
            None => Err(format!("no file with id {}", id.0)),
        }
    }

    fn display<'b>(&self, id: &'b FileId) -> Option<impl std::fmt::Display + 'b> {
        Some(self.sources.name(*id).to_string())
    }
}

/// How much of a long line the human report shows on each side of a
/// label's start and end, in bytes (rounded to characters).
const WINDOW: usize = 60;

/// A line longer than this, in bytes, is shown as windows around the
/// labels in it, joined by `…`: a one-line JSON plan of a megabyte is not
/// written out once per diagnostic.
const LONG_LINE: usize = 240;

/// What a diagnostic shows of one file: the lines from its first label to
/// its last, a long line cut to windows around the labels' ends, and every
/// hidden character ([`lexicon::is_hidden`]) written as its
/// escape, so that the terminal shows what the file holds. `at` maps the
/// labels' ends (file offsets) to offsets in `text`.
struct Excerpt {
    text: String,
    at: Vec<(usize, usize)>,
    /// The file's lines the excerpt changed (cut or escaped), 0-based.
    changed: Vec<usize>,
    /// The file's lines before the excerpt's first that `text` does not
    /// start with as empty lines ([`Numbering`]).
    before: usize,
}

impl Excerpt {
    fn of(file: &crate::source::SourceFile, mut ends: Vec<usize>, numbering: Numbering) -> Excerpt {
        ends.sort_unstable();
        ends.dedup();
        let text = file.text.as_str();
        let line_of = |o: usize| {
            (file.line_col(u32::try_from(o).unwrap_or(u32::MAX)).line as usize).saturating_sub(1)
        };
        let first_line = ends.first().map_or(0, |&o| line_of(o));
        let last_line = ends.last().map_or(0, |&o| line_of(o));
        // ariadne draws the margin of the help and the notes as that of
        // the text's first line: two empty lines (or one, for a file's
        // second line) keep it as it is with every line before the
        // excerpt there.
        let pad = match numbering {
            Numbering::Padded => first_line,
            Numbering::Renumbered => first_line.min(2),
        };
        let mut out = Excerpt {
            text: "\n".repeat(pad),
            at: Vec::with_capacity(ends.len()),
            changed: Vec::new(),
            before: first_line - pad,
        };
        let mut next_end = 0;
        for line in first_line..=last_line {
            let start = file.line_start(line);
            let end = file.line_start(line + 1).min(text.len());
            let body = text.get(start..end).unwrap_or_default();
            let body_len = body.trim_end_matches(['\n', '\r']).len();
            let line_end = start + body_len;
            // The parts of the line shown: all of it, or windows around
            // the labels' ends in it (or its start, for a line a label
            // only passes through).
            let mut parts: Vec<(usize, usize)> = Vec::new();
            if body_len <= LONG_LINE {
                parts.push((start, line_end));
            } else {
                let mut marks: Vec<usize> = ends
                    .iter()
                    .copied()
                    .filter(|&o| o >= start && o <= line_end)
                    .collect();
                if marks.is_empty() {
                    marks.push(start);
                }
                for m in marks {
                    let lo = file.floor_boundary(m.saturating_sub(WINDOW).max(start));
                    let hi = file.floor_boundary((m + WINDOW).min(line_end));
                    match parts.last_mut() {
                        Some(last) if lo <= last.1 => last.1 = last.1.max(hi),
                        _ => parts.push((lo, hi)),
                    }
                }
                out.changed.push(line);
            }
            let mut escaped = false;
            let mut pos = start;
            for (k, &(lo, hi)) in parts.iter().enumerate() {
                if lo > pos || (k == 0 && lo > start) {
                    out.text.push('…');
                }
                for (i, c) in text.get(lo..hi).unwrap_or_default().char_indices() {
                    let o = lo + i;
                    while ends.get(next_end).is_some_and(|&e| e <= o) {
                        if let Some(&e) = ends.get(next_end) {
                            out.at.push((e, out.text.len()));
                        }
                        next_end += 1;
                    }
                    if lexicon::is_hidden(c) && !matches!(c, '\t') {
                        let _ = write!(out.text, "\\u{{{:04X}}}", u32::from(c));
                        escaped = true;
                    } else {
                        out.text.push(c);
                    }
                }
                while ends.get(next_end).is_some_and(|&e| e <= hi) {
                    if let Some(&e) = ends.get(next_end) {
                        out.at.push((e, out.text.len()));
                    }
                    next_end += 1;
                }
                pos = hi;
            }
            if pos < line_end {
                out.text.push('…');
            }
            // An end past the shown part of its line (in a line break)
            // lands at the line's end.
            while ends
                .get(next_end)
                .is_some_and(|&e| e < end || line == last_line)
            {
                if let Some(&e) = ends.get(next_end) {
                    out.at.push((e, out.text.len()));
                }
                next_end += 1;
            }
            if escaped && out.changed.last() != Some(&line) {
                out.changed.push(line);
            }
            out.text.push('\n');
        }
        out
    }

    /// The excerpt's offset of a file offset among the labels' ends.
    fn map(&self, o: usize) -> usize {
        self.at.iter().find(|(e, _)| *e == o).map_or(0, |&(_, v)| v)
    }

    /// The 1-based column ariadne counts for an excerpt offset: the
    /// characters of its excerpt line before it, plus one.
    fn column(&self, v: usize) -> usize {
        let head = self.text.get(..v).unwrap_or_default();
        let line_start = head.rfind('\n').map_or(0, |i| i + 1);
        head.get(line_start..).map_or(0, |s| s.chars().count()) + 1
    }
}

/// Renders diagnostics as ariadne reports, with colour or without.
pub fn human(sources: &SourceMap, diagnostics: &[Diagnostic], color: bool) -> String {
    let mut out = Vec::new();
    // Writing into a vector cannot fail.
    let _ = human_to(&mut out, sources, diagnostics, color);
    String::from_utf8_lossy(&out).into_owned()
}

/// [`human`] written to `w` as each report is made, so that the whole
/// report is never held at once. Each report shows excerpts of the lines
/// its labels touch (long lines as windows around the labels), never a
/// file's whole line of any length.
pub fn human_to(
    w: &mut dyn std::io::Write,
    sources: &SourceMap,
    diagnostics: &[Diagnostic],
    color: bool,
) -> std::io::Result<()> {
    let mut cache = ExcerptCache {
        sources,
        whole: Vec::new(),
        excerpts: Vec::new(),
    };
    for d in diagnostics {
        let one = match report(&mut cache, d, color, Numbering::Renumbered) {
            Some(one) => one,
            // The margin was not as expected: the excerpts are numbered
            // by empty lines before them instead.
            None => report(&mut cache, d, color, Numbering::Padded).unwrap_or_default(),
        };
        w.write_all(one.as_bytes())?;
    }
    Ok(())
}

/// How the lines of an excerpt get the file's line numbers in the margin.
/// ariadne numbers a text's lines from 1, and its line offset moves only
/// the header's number, not the margin's.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Numbering {
    /// The excerpt starts with as many empty lines as the file has before
    /// it: right, and as slow as the line is far into the file (ariadne
    /// indexes the empty lines again for each report).
    Padded,
    /// The excerpt starts with at most two empty lines, and [`renumber`]
    /// writes the file's numbers into ariadne's margin; `None` when the
    /// margin is not as [`renumber`] expects.
    Renumbered,
}

/// One diagnostic as an ariadne report.
fn report(
    cache: &mut ExcerptCache<'_>,
    d: &Diagnostic,
    color: bool,
    numbering: Numbering,
) -> Option<String> {
    let sources = cache.sources;
    let kind = match d.severity {
        Severity::Error => ariadne::ReportKind::Error,
        Severity::Warning => ariadne::ReportKind::Warning,
        Severity::Note => ariadne::ReportKind::Advice,
    };
    let config = ariadne::Config::new()
        .with_index_type(ariadne::IndexType::Byte)
        .with_color(color);
    let spans: Vec<(FileId, Range<usize>)> = std::iter::once(d.span)
        .chain(d.labels.iter().map(|l| l.span))
        .map(|s| (s.file, clamp(sources, s)))
        .collect();
    cache.excerpts.clear();
    let mut excerpts: Vec<(FileId, Excerpt)> = Vec::new();
    for (file, _) in &spans {
        if excerpts.iter().any(|(f, _)| f == file) {
            continue;
        }
        let Some(source) = sources.get(*file) else {
            continue;
        };
        let ends: Vec<usize> = spans
            .iter()
            .filter(|(f, _)| f == file)
            .flat_map(|(_, r)| [r.start, r.end])
            .collect();
        // ariadne places the end of a text that ends in a line break on
        // its last line, past the break, where the excerpt has no place:
        // such a file is served whole, unless its lines shown are changed.
        // Any other is served as its excerpt, so that the report of a long
        // plan does not index all its lines (one ariadne line is 32 bytes:
        // the index of a 10,000-step text was the size of the text).
        let at_end = ends.iter().any(|&o| o >= source.text.len());
        let excerpt = Excerpt::of(source, ends, numbering);
        if !excerpt.changed.is_empty() || !at_end {
            let text = ariadne::Source::from(Cow::Owned(excerpt.text.clone()))
                .with_display_line_offset(excerpt.before);
            cache.excerpts.push((*file, text));
            excerpts.push((*file, excerpt));
        }
    }
    let place = |file: FileId, r: &Range<usize>| {
        excerpts
            .iter()
            .find(|(f, _)| *f == file)
            .map_or(r.clone(), |(_, e)| e.map(r.start)..e.map(r.end))
    };
    let (primary_file, primary_range) = spans.first()?;
    let primary = AriadneSpan(*primary_file, place(*primary_file, primary_range));
    let orders = label_orders(d);
    let message = lexicon::show_hidden(&d.message);
    let mut report = ariadne::Report::build(kind, primary.clone())
        .with_config(config)
        .with_code(d.code.as_str())
        .with_message(&message);
    let order = |i: usize| orders.get(i).copied().unwrap_or(i32::MAX);
    let mut label = ariadne::Label::new(primary).with_order(order(0));
    if !d.label.is_empty() {
        label = label.with_message(lexicon::show_hidden(&d.label));
    }
    if color {
        label = label.with_color(match d.severity {
            Severity::Error => ariadne::Color::Red,
            Severity::Warning => ariadne::Color::Yellow,
            Severity::Note => ariadne::Color::Cyan,
        });
    }
    report.add_label(label);
    for (i, (l, (file, range))) in d.labels.iter().zip(spans.iter().skip(1)).enumerate() {
        let mut label = ariadne::Label::new(AriadneSpan(*file, place(*file, range)))
            .with_message(lexicon::show_hidden(&l.message))
            .with_order(order(i + 1));
        if color {
            label = label.with_color(ariadne::Color::Blue);
        }
        report.add_label(label);
    }
    if let Some(help) = &d.help {
        report.set_help(lexicon::show_hidden(help));
    }
    for note in &d.notes {
        report.add_note(lexicon::show_hidden(note));
    }
    let mut one = Vec::new();
    if let Err(e) = report.finish().write(&mut *cache, &mut one) {
        one.extend_from_slice(format!("(could not render this diagnostic: {e})\n").as_bytes());
    }
    let mut one = String::from_utf8_lossy(&one).into_owned();
    if excerpts.iter().any(|(_, e)| e.before > 0) {
        // Every file the report shows, served whole (0) or as an excerpt:
        // two of one name cannot be told apart by their groups' headers.
        let mut files: Vec<FileId> = spans.iter().map(|(f, _)| *f).collect();
        files.sort_unstable();
        files.dedup();
        let offsets: Vec<(&str, usize)> = files
            .iter()
            .filter_map(|f| {
                let before = excerpts
                    .iter()
                    .find(|(e, _)| e == f)
                    .map_or(0, |(_, e)| e.before);
                Some((sources.get(*f)?.name.as_str(), before))
            })
            .collect();
        one = renumber(&one, &offsets)?;
    }
    // A header names the place by the excerpt's column: where a line
    // was cut or escaped, the file's column is put back.
    for (file, range) in &spans {
        let Some((_, e)) = excerpts.iter().find(|(f, _)| f == file) else {
            continue;
        };
        let Some(source) = sources.get(*file) else {
            continue;
        };
        let lc = source.line_col(u32::try_from(range.start).unwrap_or(u32::MAX));
        let line = lc.line as usize;
        if !e.changed.contains(&line.saturating_sub(1)) {
            continue;
        }
        let seen = format!("{}:{line}:{} ", source.name, e.column(e.map(range.start)));
        let truth = format!("{}:{line}:{} ", source.name, lc.column);
        one = one.replacen(&seen, &truth, 1);
    }
    if d.severity == Severity::Note {
        one = call_it_a_note(&one);
    }
    Some(one)
}

/// ariadne's report with the margin's line numbers of each excerpt moved
/// by the lines of its file before it (`offsets`: the file's name as the
/// report's group headers show it, and that count), and the margin widened
/// to the widest number, so that the report reads as if the excerpt had
/// been numbered as the file is ([`Numbering::Padded`] gives the same
/// bytes, more slowly; a test compares them).
///
/// The report's lines after its first each start with the margin:
/// a group's header `   ╭─[ name:line:col ]` (`├─[` for the next
/// groups), a numbered line ` 12 │ …`, other lines ` ` and spaces, the
/// last `───╯`; with colour, the margin is wrapped in one escape sequence.
/// Returns `None` for a line of another shape, or a group whose name
/// `offsets` holds twice (two files of one name).
fn renumber(report: &str, offsets: &[(&str, usize)]) -> Option<String> {
    let mut lines = report.split_inclusive('\n');
    let head = lines.next()?;
    let lines: Vec<&str> = lines.collect();
    // ariadne's width: its first group's header is indented by it plus 2.
    let first = lines.first()?;
    let fake_width = (first.len() - first.trim_start_matches(' ').len()).checked_sub(2)?;
    // Each line's shape, and the true width.
    let mut shapes: Vec<Margin> = Vec::with_capacity(lines.len());
    let mut offset = 0;
    let mut widest = 0;
    for line in &lines {
        let shape = Margin::of(line)?;
        match shape {
            Margin::Group(ref name) => {
                offset = match offsets.iter().filter(|(n, _)| n == name).count() {
                    0 => 0,
                    1 => offsets.iter().find(|(n, _)| n == name).map(|&(_, o)| o)?,
                    _ => return None,
                };
            }
            Margin::Numbered { number, .. } => widest = widest.max(number.checked_add(offset)?),
            Margin::Plain { .. } | Margin::Bottom { .. } => {}
        }
        shapes.push(shape.with_offset(offset));
    }
    let width = widest.to_string().len().max(fake_width);
    let wider = width - fake_width;
    let mut out = String::with_capacity(report.len() + wider * lines.len());
    out.push_str(head);
    for (line, shape) in lines.iter().zip(shapes) {
        match shape {
            Margin::Numbered {
                field,
                number,
                offset,
            } => {
                out.push_str(line.get(..field.start)?);
                let _ = write!(out, "{:>width$}", number + offset);
                out.push_str(line.get(field.end..)?);
            }
            Margin::Bottom { at } => {
                out.push_str(line.get(..at)?);
                out.extend(std::iter::repeat_n('─', wider));
                out.push_str(line.get(at..)?);
            }
            Margin::Plain { at } => {
                out.push_str(line.get(..at)?);
                out.extend(std::iter::repeat_n(' ', wider));
                out.push_str(line.get(at..)?);
            }
            Margin::Group(_) => {
                out.extend(std::iter::repeat_n(' ', wider));
                out.push_str(line);
            }
        }
    }
    Some(out)
}

/// The margin of one line of an ariadne report, after its first
/// ([`renumber`]).
#[derive(Debug)]
enum Margin {
    /// A group's header, with the file's name.
    Group(String),
    /// A source line: `field` is where its right-aligned number is
    /// written, `offset` the lines of its file before its excerpt.
    Numbered {
        field: Range<usize>,
        number: usize,
        offset: usize,
    },
    /// The report's last line, of `─` from `at`.
    Bottom { at: usize },
    /// Any other line: spaces from `at` (after the escape sequence that
    /// colours the margin, if any).
    Plain { at: usize },
}

impl Margin {
    fn of(line: &str) -> Option<Margin> {
        /// The end of an escape sequence (`ESC [ … m`) at `at`, else `at`.
        fn past_escape(line: &str, at: usize) -> usize {
            let rest = line.get(at..).unwrap_or_default();
            if !rest.starts_with("\u{1b}[") {
                return at;
            }
            rest.find('m').map_or(at, |m| at + m + 1)
        }
        let plain = strip_escapes(line);
        let body = plain.trim_start_matches(' ');
        if let Some(header) = body
            .strip_prefix("╭─[")
            .or_else(|| body.strip_prefix("├─["))
        {
            // ` name:line:col ]`: the name may hold colons.
            let inner = header.trim_end().strip_suffix(']')?.trim();
            let mut parts = inner.rsplitn(3, ':');
            let (_col, _line, name) = (parts.next()?, parts.next()?, parts.next()?);
            return Some(Margin::Group(name.to_string()));
        }
        if body.starts_with('─') {
            return Some(Margin::Bottom {
                at: past_escape(line, 0),
            });
        }
        if !line.starts_with(' ') {
            return None;
        }
        let start = past_escape(line, 1);
        let rest = line.get(start..)?;
        let digits_at = rest.len() - rest.trim_start_matches(' ').len();
        let digits = rest
            .get(digits_at..)?
            .bytes()
            .take_while(u8::is_ascii_digit)
            .count();
        if digits > 0 && rest.get(digits_at + digits..)?.starts_with(" │") {
            let number = rest.get(digits_at..digits_at + digits)?.parse().ok()?;
            return Some(Margin::Numbered {
                field: start..start + digits_at + digits,
                number,
                offset: 0,
            });
        }
        Some(Margin::Plain { at: start })
    }

    fn with_offset(self, offset: usize) -> Margin {
        match self {
            Margin::Numbered { field, number, .. } => Margin::Numbered {
                field,
                number,
                offset,
            },
            other => other,
        }
    }
}

/// `text` without its escape sequences (`ESC [ … m`).
fn strip_escapes(text: &str) -> std::borrow::Cow<'_, str> {
    if !text.contains('\u{1b}') {
        return std::borrow::Cow::Borrowed(text);
    }
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(at) = rest.find('\u{1b}') {
        out.push_str(rest.get(..at).unwrap_or_default());
        let tail = rest.get(at..).unwrap_or_default();
        rest = tail
            .find('m')
            .and_then(|m| tail.get(m + 1..))
            .unwrap_or_default();
    }
    out.push_str(rest);
    std::borrow::Cow::Owned(out)
}

/// A note is called a note in the terminal as in every other format.
/// Ariadne calls its kind of report "Advice", and colours a kind of one's
/// own even without colour; the header's word is replaced instead: the first
/// `] Advice:` of the report's first line, which holds the code and the
/// kind.
fn call_it_a_note(report: &str) -> String {
    let first_line = report.find('\n').unwrap_or(report.len());
    match report.get(..first_line).and_then(|l| l.find("] Advice:")) {
        Some(at) => format!(
            "{}] Note:{}",
            report.get(..at).unwrap_or_default(),
            report.get(at + "] Advice:".len()..).unwrap_or_default()
        ),
        None => report.to_string(),
    }
}

/// The order ariadne draws a diagnostic's labels in: the primary label
/// (index 0) and the secondary ones (index 1 on), by position, the primary's
/// file first. Ariadne starts a new section whenever a label lies above the
/// one drawn before it, and heads every section of the primary's file with
/// the primary position; in position order, each file is one section, and
/// its header names the place its first line shows.
fn label_orders(d: &Diagnostic) -> Vec<i32> {
    let spans: Vec<Span> = std::iter::once(d.span)
        .chain(d.labels.iter().map(|l| l.span))
        .collect();
    let mut by_place: Vec<usize> = (0..spans.len()).collect();
    by_place.sort_by_key(|&i| {
        spans
            .get(i)
            .map(|s| (s.file != d.span.file, s.file, s.start, s.end, i))
    });
    let mut orders = vec![0; spans.len()];
    for (rank, &i) in by_place.iter().enumerate() {
        if let Some(slot) = orders.get_mut(i) {
            *slot = i32::try_from(rank).unwrap_or(i32::MAX);
        }
    }
    orders
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::diagnostics::Code;

    /// A file of `lines` lines, long ones (cut to windows), short ones and
    /// ones with a hidden character (escaped), from the seed.
    fn generated_file(seed: &mut u64, lines: usize) -> String {
        let mut text = String::new();
        for i in 0..lines {
            match next(seed) % 4 {
                0 => {
                    let _ = write!(text, "{{\"n\": {i}, \"name\": \"step_{i}\", \"args\": {{");
                    for k in 0..(20 + next(seed) % 20) {
                        let _ = write!(text, "\"a{k}\": \"value {k} of {i}\", ");
                    }
                    text.push_str("\"z\": 1}}");
                }
                1 => {
                    let _ = write!(text, "step s{i} = tool.x(a: \"\u{2069}{i}\")");
                }
                _ => {
                    let _ = write!(text, "step s{i} = tool.x(a: {i})");
                }
            }
            text.push('\n');
        }
        text
    }

    fn next(seed: &mut u64) -> usize {
        *seed ^= *seed << 13;
        *seed ^= *seed >> 7;
        *seed ^= *seed << 17;
        (*seed >> 16) as usize
    }

    /// A span of `text` from a random line, within it or to a later line.
    fn generated_span(seed: &mut u64, file: FileId, text: &str) -> Span {
        let starts: Vec<usize> = std::iter::once(0)
            .chain(text.match_indices('\n').map(|(i, _)| i + 1))
            .filter(|&i| i < text.len())
            .collect();
        let line = next(seed) % starts.len();
        let start = starts[line];
        let end_line = if next(seed).is_multiple_of(5) {
            (line + 1 + next(seed) % 3).min(starts.len() - 1)
        } else {
            line
        };
        let end_of = |l: usize| starts.get(l + 1).map_or(text.len(), |&s| s - 1);
        let from = start + next(seed) % (end_of(line) - start).max(1);
        let to = if end_line == line {
            (from + 1 + next(seed) % 8).min(end_of(line))
        } else {
            starts[end_line] + next(seed) % (end_of(end_line) - starts[end_line]).max(1)
        };
        Span::new(file, from, to.max(from))
    }

    /// Excerpts numbered by [`renumber`] read exactly as excerpts numbered
    /// by empty lines before them, with colour and without, in one file or
    /// two, near every change of the numbers' width.
    #[test]
    fn renumbered_excerpts_read_as_padded_ones() {
        let mut seed = 0x9e37_79b9_7f4a_7c15_u64;
        let mut renumbered = 0;
        for &lines in &[
            1, 9, 10, 11, 12, 99, 100, 101, 102, 998, 999, 1000, 1001, 10_005,
        ] {
            let mut sources = SourceMap::new();
            let a = sources.add("plans/a:b.plan", generated_file(&mut seed, lines));
            let b = sources.add("tools.json", generated_file(&mut seed, 1 + lines / 3));
            let files = [
                (a, sources.get(a).unwrap().text.clone()),
                (b, sources.get(b).unwrap().text.clone()),
            ];
            for _ in 0..if lines > 5000 { 6 } else { 40 } {
                let (file, text) = &files[usize::from(next(&mut seed).is_multiple_of(4))];
                let mut d =
                    Diagnostic::new(Code::E0101, generated_span(&mut seed, *file, text), "m")
                        .with_label("here");
                d.severity =
                    [Severity::Error, Severity::Warning, Severity::Note][next(&mut seed) % 3];
                for k in 0..next(&mut seed) % 4 {
                    let (file, text) = &files[next(&mut seed) % 2];
                    d = d.with_secondary(
                        generated_span(&mut seed, *file, text),
                        format!("label {k}"),
                    );
                }
                if next(&mut seed).is_multiple_of(2) {
                    d = d.with_help("help").with_note("a note\nof two lines");
                }
                let mut cache = ExcerptCache {
                    sources: &sources,
                    whole: Vec::new(),
                    excerpts: Vec::new(),
                };
                for color in [false, true] {
                    let new = report(&mut cache, &d, color, Numbering::Renumbered);
                    if cache
                        .excerpts
                        .iter()
                        .any(|(_, s)| s.display_line_offset() > 0)
                    {
                        renumbered += 1;
                    }
                    let old = report(&mut cache, &d, color, Numbering::Padded);
                    assert!(
                        new.is_some(),
                        "not renumbered:\n{}",
                        old.unwrap_or_default()
                    );
                    assert_eq!(new, old, "{lines} lines, colour {color}");
                }
            }
        }
        // The comparison met excerpts far into their files.
        assert!(renumbered > 100, "{renumbered}");
    }

    /// Two files of one name cannot be told apart by the report's group
    /// headers: the report is numbered by padding, and reads the same.
    #[test]
    fn files_of_one_name_are_numbered_by_padding() {
        let mut seed = 7_u64;
        let mut sources = SourceMap::new();
        let long = sources.add("same.json", generated_file(&mut seed, 60));
        let short = sources.add("same.json", "a\nbb\nccc\n");
        // Line 41 of the first file, a long or escaped one.
        let text = sources.get(long).unwrap().text.clone();
        let starts: Vec<usize> = text.match_indices('\n').map(|(i, _)| i + 1).collect();
        let at = (40..59)
            .map(|l| starts[l - 1])
            .find(|&s| text[s..].split('\n').next().unwrap().len() > LONG_LINE)
            .expect("a long line");
        let d = Diagnostic::new(Code::E0101, Span::new(long, at + 3, at + 9), "m")
            .with_label("here")
            .with_secondary(Span::new(short, 2, 4), "there");
        let mut cache = ExcerptCache {
            sources: &sources,
            whole: Vec::new(),
            excerpts: Vec::new(),
        };
        assert_eq!(report(&mut cache, &d, false, Numbering::Renumbered), None);
        let padded = report(&mut cache, &d, false, Numbering::Padded).unwrap();
        assert_eq!(human(&sources, std::slice::from_ref(&d), false), padded);
        assert!(padded.contains(" 2 │ bb"), "{padded}");
    }

    /// A margin of another shape, or two groups of one name, is left to
    /// the padded numbering.
    #[test]
    fn renumber_refuses_what_it_does_not_know() {
        let report = "[E0101] Error: m\n   ╭─[ a.plan:5:1 ]\n   │\n 2 │ x\n───╯\n";
        assert_eq!(
            renumber(report, &[("a.plan", 3)]).as_deref(),
            Some("[E0101] Error: m\n   ╭─[ a.plan:5:1 ]\n   │\n 5 │ x\n───╯\n")
        );
        assert_eq!(
            renumber(report, &[("a.plan", 98)]).as_deref(),
            Some("[E0101] Error: m\n     ╭─[ a.plan:5:1 ]\n     │\n 100 │ x\n─────╯\n")
        );
        assert!(renumber("[E0101] Error: m\nno margin\n", &[("a.plan", 3)]).is_none());
        assert!(renumber(report, &[("a.plan", 3), ("a.plan", 4)]).is_none());
    }
}
