//! The renderers: one per output format, each reading the same
//! [`Diagnostic`]s. `human` uses ariadne (byte-indexed spans, over excerpts
//! of the lines a report shows), `short` uses codespan-reporting's short
//! style (over the source map's own line index), `json` writes the document agent loops
//! read (`docs/json.md`), `sarif` writes SARIF 2.1.0 for code scanning.
//!
//! They stand above the front ends (`syntax`): a hidden character is shown
//! escaped by the lexicon's own test (`syntax::lexicon`), and a JSON file's
//! RFC 6901 pointers come from [`SourceFile::pointer_at`], which parses the
//! file with the JSON parser (`syntax::json`).
//!
//! [`SourceFile::pointer_at`]: crate::source::SourceFile::pointer_at

use std::fmt::Write as _;
use std::ops::Range;

use schemars::JsonSchema;
use serde::Serialize;

use crate::diagnostics::{Code, Diagnostic, Severity, counts, explain};
use crate::source::{FileId, SourceMap, Span};
use crate::syntax::lexicon;

// ---------------------------------------------------------------- human

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

/// Serves the files of a [`SourceMap`] to ariadne: a file as it is,
/// built into ariadne's line index at most once per rendering, unless the
/// diagnostic being written shows an excerpt of it (a long line cut, a
/// hidden character escaped).
struct ExcerptCache<'a> {
    sources: &'a SourceMap,
    whole: Vec<Option<ariadne::Source<String>>>,
    excerpts: Vec<(FileId, ariadne::Source<String>)>,
}

impl ariadne::Cache<FileId> for ExcerptCache<'_> {
    type Storage = String;

    fn fetch(&mut self, id: &FileId) -> Result<&ariadne::Source<String>, impl std::fmt::Debug> {
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
            Some(slot) => Ok(&*slot.get_or_insert_with(|| ariadne::Source::from(text.to_string()))),
            None => Err(format!("no file with id {}", id.0)),
        }
    }

    fn display<'b>(&self, id: &'b FileId) -> Option<impl std::fmt::Display + 'b> {
        Some(self.sources.name(*id).to_string())
    }
}

/// Clamps a span to its file's text and to character boundaries, so that a
/// renderer never slices inside a character or past the end.
fn clamp(sources: &SourceMap, span: Span) -> Range<usize> {
    let Some(file) = sources.get(span.file) else {
        return 0..0;
    };
    let text = &file.text;
    let fix = |mut o: usize| {
        o = o.min(text.len());
        while o > 0 && !text.is_char_boundary(o) {
            o -= 1;
        }
        o
    };
    fix(span.start as usize)..fix(span.end as usize)
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
        let boundary = |mut o: usize| {
            o = o.min(text.len());
            while o > 0 && !text.is_char_boundary(o) {
                o -= 1;
            }
            o
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
                    let lo = boundary(m.saturating_sub(WINDOW).max(start));
                    let hi = boundary((m + WINDOW).min(line_end));
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
        let excerpt = Excerpt::of(source, ends, numbering);
        // A file whose lines shown are unchanged is served whole.
        if !excerpt.changed.is_empty() {
            let text = ariadne::Source::from(excerpt.text.clone())
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
        let offsets: Vec<(&str, usize)> = excerpts
            .iter()
            .filter_map(|(f, e)| Some((sources.get(*f)?.name.as_str(), e.before)))
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
/// Returns `None` for a line of another shape, or a group of a file not in
/// `offsets` named twice.
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

/// The closing line of human output: `2 errors, 1 warning`.
pub fn summary(diagnostics: &[Diagnostic]) -> String {
    let (errors, warnings) = counts(diagnostics);
    let plural = |n: usize, word: &str| {
        if n == 1 {
            format!("{n} {word}")
        } else {
            format!("{n} {word}s")
        }
    };
    format!(
        "{}, {}",
        plural(errors, "error"),
        plural(warnings, "warning")
    )
}

// ---------------------------------------------------------------- short

/// Serves a [`SourceMap`]'s files to codespan-reporting: each file's name,
/// text and the line index it already keeps (built once, on first use), so
/// a report of many diagnostics over one long line does not index the file
/// again for each of them.
struct Files<'a>(&'a SourceMap);

impl<'a> codespan_reporting::files::Files<'a> for Files<'a> {
    type FileId = FileId;
    type Name = &'a str;
    type Source = &'a str;

    fn name(&'a self, id: FileId) -> Result<&'a str, codespan_reporting::files::Error> {
        self.file(id).map(|f| f.name.as_str())
    }

    fn source(&'a self, id: FileId) -> Result<&'a str, codespan_reporting::files::Error> {
        self.file(id).map(|f| f.text.as_str())
    }

    fn line_index(
        &'a self,
        id: FileId,
        byte_index: usize,
    ) -> Result<usize, codespan_reporting::files::Error> {
        let file = self.file(id)?;
        Ok(file.line_index(u32::try_from(byte_index).unwrap_or(u32::MAX)))
    }

    fn line_range(
        &'a self,
        id: FileId,
        line_index: usize,
    ) -> Result<Range<usize>, codespan_reporting::files::Error> {
        let file = self.file(id)?;
        let max = file.line_count().saturating_sub(1);
        if line_index > max {
            return Err(codespan_reporting::files::Error::LineTooLarge {
                given: line_index,
                max,
            });
        }
        Ok(file.line_start(line_index)..file.line_start(line_index + 1))
    }

    /// Characters from the line's start, from the file's table of counts
    /// (the trait's default walks the line byte by byte: 32 s for the
    /// 5,000 diagnostics of a one-line 298 KB plan in a debug build; a
    /// count from the line's start is quadratic in a one-line plan).
    fn column_number(
        &'a self,
        id: FileId,
        line_index: usize,
        byte_index: usize,
    ) -> Result<usize, codespan_reporting::files::Error> {
        let file = self.file(id)?;
        let start = file.line_start(line_index).min(byte_index);
        Ok(file.chars_between(start, byte_index) + 1)
    }
}

impl Files<'_> {
    fn file(
        &self,
        id: FileId,
    ) -> Result<&crate::source::SourceFile, codespan_reporting::files::Error> {
        self.0
            .get(id)
            .ok_or(codespan_reporting::files::Error::FileMissing)
    }
}

/// One line per diagnostic, codespan-reporting's short style:
/// `file:line:col: error[E0106]: message` (the column counts characters
/// from the line's start), hidden characters in the message escaped. A
/// diagnostic whose file the map does not hold is written without a
/// position.
pub fn short(sources: &SourceMap, diagnostics: &[Diagnostic]) -> String {
    use codespan_reporting::diagnostic as cs;
    let files = Files(sources);
    let config = codespan_reporting::term::Config {
        display_style: codespan_reporting::term::DisplayStyle::Short,
        ..Default::default()
    };
    let mut out = String::new();
    for d in diagnostics {
        let severity = match d.severity {
            Severity::Error => cs::Severity::Error,
            Severity::Warning => cs::Severity::Warning,
            Severity::Note => cs::Severity::Note,
        };
        let mut report = cs::Diagnostic::new(severity)
            .with_code(d.code.as_str())
            .with_message(lexicon::show_hidden(&d.message));
        if sources.get(d.span.file).is_some() {
            report = report.with_labels(vec![cs::Label::primary(
                d.span.file,
                clamp(sources, d.span),
            )]);
        }
        if codespan_reporting::term::emit_to_string(&mut out, &config, &files, &report).is_err() {
            // Only a file missing from the map fails, and that was
            // checked: write the line without a position all the same.
            let _ = writeln!(
                out,
                "{}[{}]: {}",
                d.severity.as_str(),
                d.code.as_str(),
                lexicon::show_hidden(&d.message)
            );
        }
    }
    out
}

// ---------------------------------------------------------------- json

/// The JSON document of `--format json` (`docs/json.md`). Its JSON Schema
/// (`schema/diagnostics.schema.json`) is generated from these types.
#[derive(Serialize, JsonSchema)]
pub struct JsonReport<'a> {
    pub diagnostics: Vec<JsonDiagnostic<'a>>,
    pub errors: usize,
    pub warnings: usize,
    /// The `planc.toml` the check used, when it used one.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub config: Option<&'a str>,
    /// The `planc.toml` files the check used, when it used several (plans
    /// of several projects checked at once, each with its own): in the
    /// order of the plans given. `config` is then absent.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub configs: Vec<&'a str>,
}

#[derive(Serialize, JsonSchema)]
pub struct JsonDiagnostic<'a> {
    #[schemars(extend("enum" = ["error", "warning", "note"]))]
    pub severity: &'static str,
    /// A stable code; `planc explain CODE` prints its page.
    #[schemars(extend("pattern" = "^[EWN][0-9]{4}$"))]
    pub code: &'static str,
    pub message: &'a str,
    #[serde(flatten)]
    pub location: JsonLocation<'a>,
    pub pointer: Option<String>,
    pub step: Option<&'a str>,
    pub labels: Vec<JsonLabel<'a>>,
    pub help: Option<&'a str>,
    pub notes: &'a [String],
    pub fixes: Vec<JsonFix<'a>>,
}

#[derive(Serialize, JsonSchema)]
pub struct JsonLocation<'a> {
    pub file: &'a str,
    pub line: u32,
    pub column: u32,
    pub end_line: u32,
    pub end_column: u32,
    pub span: JsonSpan,
}

#[derive(Serialize, JsonSchema)]
pub struct JsonSpan {
    pub start: u32,
    pub end: u32,
}

#[derive(Serialize, JsonSchema)]
pub struct JsonLabel<'a> {
    pub message: &'a str,
    #[serde(flatten)]
    pub location: JsonLocation<'a>,
    pub pointer: Option<String>,
}

#[derive(Serialize, JsonSchema)]
pub struct JsonFix<'a> {
    pub title: &'a str,
    pub replacement: &'a str,
    #[serde(flatten)]
    pub location: JsonLocation<'a>,
}

fn location(sources: &SourceMap, span: Span) -> JsonLocation<'_> {
    let (start, end) = match sources.get(span.file) {
        Some(f) => (f.line_col(span.start), f.line_col(span.end)),
        None => Default::default(),
    };
    JsonLocation {
        file: sources.name(span.file),
        line: start.line,
        column: start.column,
        end_line: end.line,
        end_column: end.column,
        span: JsonSpan {
            start: span.start,
            end: span.end,
        },
    }
}

fn pointer(sources: &SourceMap, span: Span) -> Option<String> {
    sources.get(span.file).and_then(|f| f.pointer_at(span))
}

/// Builds the JSON document (not yet serialised).
pub fn json_report<'a>(sources: &'a SourceMap, diagnostics: &'a [Diagnostic]) -> JsonReport<'a> {
    let (errors, warnings) = counts(diagnostics);
    JsonReport {
        diagnostics: diagnostics
            .iter()
            .map(|d| JsonDiagnostic {
                severity: d.severity.as_str(),
                code: d.code.as_str(),
                message: &d.message,
                location: location(sources, d.span),
                pointer: pointer(sources, d.span),
                step: d.step.as_deref(),
                labels: d
                    .labels
                    .iter()
                    .map(|l| JsonLabel {
                        message: &l.message,
                        location: location(sources, l.span),
                        pointer: pointer(sources, l.span),
                    })
                    .collect(),
                help: d.help.as_deref(),
                notes: &d.notes,
                fixes: d
                    .fixes
                    .iter()
                    .map(|f| JsonFix {
                        title: &f.title,
                        replacement: &f.replacement,
                        location: location(sources, f.span),
                    })
                    .collect(),
            })
            .collect(),
        errors,
        warnings,
        config: None,
        configs: Vec::new(),
    }
}

/// The JSON document as pretty-printed text, ending in a newline.
pub fn json(sources: &SourceMap, diagnostics: &[Diagnostic]) -> String {
    json_with_configs(sources, diagnostics, &[])
}

/// [`json`], naming the `planc.toml` files the check used: `config` when
/// it used one, `configs` when several, neither when none.
pub fn json_with_configs(
    sources: &SourceMap,
    diagnostics: &[Diagnostic],
    configs: &[&str],
) -> String {
    let mut report = json_report(sources, diagnostics);
    match configs {
        [one] => report.config = Some(one),
        _ => report.configs = configs.to_vec(),
    }
    match serde_json::to_string_pretty(&report) {
        Ok(mut s) => {
            s.push('\n');
            s
        }
        // Serialising plain structs of strings and numbers cannot fail; if
        // it ever did, say so in the format the reader expects.
        Err(e) => format!(
            "{{\"diagnostics\": [], \"errors\": 1, \"warnings\": 0, \"internal_error\": {:?}}}\n",
            e.to_string()
        ),
    }
}

// ---------------------------------------------------------------- sarif

/// A file's place in a SARIF log (`project::artifact_uri` in planc-check makes one).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ArtifactUri {
    /// Relative to `%SRCROOT%`.
    UnderRoot(String),
    /// A `file:` URI, for a file outside the root.
    Absolute(String),
}

/// Percent-encodes a path for a URI: letters, digits, `/ - . _ ~` stay, and
/// a drive letter's colon (`C:` after a leading `/`); every other byte is
/// `%XX`.
pub fn encode_uri_path(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let bytes = text.as_bytes();
    for (i, &b) in bytes.iter().enumerate() {
        let drive_colon = b == b':'
            && i == 2
            && bytes.first() == Some(&b'/')
            && bytes.get(1).is_some_and(u8::is_ascii_alphabetic);
        if b.is_ascii_alphanumeric() || matches!(b, b'/' | b'-' | b'.' | b'_' | b'~') || drive_colon
        {
            out.push(char::from(b));
        } else {
            out.push_str(&format!("%{b:02X}"));
        }
    }
    out
}

/// How a SARIF log names files and what it holds: the shell knows where
/// the files are on disk (see `project::artifact_uri`); the renderer does no
/// IO.
#[derive(Clone, Debug, Default)]
pub struct SarifOptions {
    /// The `file:` URI (ending in `/`) of the folder `%SRCROOT%` stands
    /// for, written into the log as its `originalUriBaseIds`.
    pub root_uri: Option<String>,
    /// Each file's place; a file not listed is named as it was given,
    /// percent-encoded, with no base.
    pub uris: Vec<(FileId, ArtifactUri)>,
    /// Notes (N-codes) are left out unless asked for: code scanning shows
    /// every result as an alert, and a note is not one.
    pub include_notes: bool,
}

/// The base every relative URI of planc's SARIF logs resolves against.
pub const SARIF_SRCROOT: &str = "%SRCROOT%";

/// SARIF 2.1.0, fit for code scanning: one run of the `planc` tool, a rule
/// per code (its title, the explain page as help, and as `helpUri` when
/// the crate names its repository, which is also the `informationUri`), a
/// result per diagnostic with its place relative to `%SRCROOT%`, its fixes,
/// and a `partialFingerprints` entry that survives edits elsewhere in the
/// file.
pub fn sarif(sources: &SourceMap, diagnostics: &[Diagnostic], options: &SarifOptions) -> String {
    use serde_json::{Value, json};
    // Both addresses are optional in SARIF: without a repository address
    // in Cargo.toml there is none to give, rather than one leading nowhere.
    let repository = Some(env!("CARGO_PKG_REPOSITORY")).filter(|r| !r.is_empty());
    let diagnostics: Vec<&Diagnostic> = diagnostics
        .iter()
        .filter(|d| options.include_notes || d.severity != Severity::Note)
        .collect();
    let mut codes: Vec<Code> = diagnostics.iter().map(|d| d.code).collect();
    codes.sort();
    codes.dedup();
    let rules: Vec<Value> = codes
        .iter()
        .map(|c| {
            let page = explain::page(*c);
            let mut rule = json!({
                "id": c.as_str(),
                "name": c.as_str(),
                "shortDescription": {"text": c.title()},
                "help": {"text": page, "markdown": page},
                "defaultConfiguration": {"level": c.severity().as_str()},
            });
            if let (Some(repository), Some(rule)) = (repository, rule.as_object_mut()) {
                rule.insert(
                    "helpUri".into(),
                    json!(format!(
                        "{repository}/blob/main/docs/explain/{}.md",
                        c.as_str()
                    )),
                );
            }
            rule
        })
        .collect();
    let artifact = |file: FileId| -> Value {
        match options.uris.iter().find(|(id, _)| *id == file) {
            Some((_, ArtifactUri::UnderRoot(uri))) => {
                json!({"uri": uri, "uriBaseId": SARIF_SRCROOT})
            }
            Some((_, ArtifactUri::Absolute(uri))) => json!({"uri": uri}),
            None => json!({"uri": encode_uri_path(sources.name(file))}),
        }
    };
    let region = |span: Span| -> Value {
        let (start, end) = match sources.get(span.file) {
            Some(f) => (f.line_col(span.start), f.line_col(span.end)),
            None => Default::default(),
        };
        json!({
            "startLine": start.line,
            "startColumn": start.column,
            "endLine": end.line,
            "endColumn": end.column,
            "byteOffset": span.start,
            "byteLength": span.len(),
        })
    };
    let location = |span: Span, message: Option<&str>, id: Option<usize>| -> Value {
        let mut loc = serde_json::Map::new();
        if let Some(id) = id {
            loc.insert("id".into(), json!(id));
        }
        loc.insert(
            "physicalLocation".into(),
            json!({
                "artifactLocation": artifact(span.file),
                "region": region(span),
            }),
        );
        if let Some(m) = message {
            loc.insert("message".into(), json!({"text": m}));
        }
        Value::Object(loc)
    };
    let results: Vec<Value> = diagnostics
        .iter()
        .map(|d| {
            let text = d.full_message();
            let mut r = serde_json::Map::new();
            r.insert("ruleId".into(), json!(d.code.as_str()));
            r.insert(
                "ruleIndex".into(),
                json!(codes.iter().position(|c| *c == d.code).unwrap_or(0)),
            );
            r.insert("level".into(), json!(d.severity.as_str()));
            r.insert("message".into(), json!({"text": text}));
            r.insert("locations".into(), json!([location(d.span, None, None)]));
            if !d.labels.is_empty() {
                let related: Vec<Value> = d
                    .labels
                    .iter()
                    .enumerate()
                    .map(|(i, l)| location(l.span, Some(&l.message), Some(i)))
                    .collect();
                r.insert("relatedLocations".into(), Value::Array(related));
            }
            r.insert(
                "partialFingerprints".into(),
                json!({"plancResult/v1": fingerprint(sources, d)}),
            );
            if !d.fixes.is_empty() {
                let fixes: Vec<Value> = d
                    .fixes
                    .iter()
                    .map(|f| {
                        json!({
                            "description": {"text": f.title},
                            "artifactChanges": [{
                                "artifactLocation": artifact(f.span.file),
                                "replacements": [{
                                    "deletedRegion": region(f.span),
                                    "insertedContent": {"text": f.replacement},
                                }],
                            }],
                        })
                    })
                    .collect();
                r.insert("fixes".into(), Value::Array(fixes));
            }
            let mut props = serde_json::Map::new();
            if let Some(step) = &d.step {
                props.insert("step".into(), json!(step));
            }
            if let Some(p) = pointer(sources, d.span) {
                props.insert("pointer".into(), json!(p));
            }
            if !props.is_empty() {
                r.insert("properties".into(), Value::Object(props));
            }
            Value::Object(r)
        })
        .collect();
    let mut run = serde_json::Map::new();
    let mut driver = json!({
        "name": "planc",
        "version": env!("CARGO_PKG_VERSION"),
        "rules": rules,
    });
    if let (Some(repository), Some(d)) = (repository, driver.as_object_mut()) {
        d.insert("informationUri".into(), json!(repository));
    }
    run.insert("tool".into(), json!({ "driver": driver }));
    if let Some(root) = &options.root_uri {
        run.insert(
            "originalUriBaseIds".into(),
            json!({SARIF_SRCROOT: {"uri": root}}),
        );
    }
    run.insert("columnKind".into(), json!("unicodeCodePoints"));
    run.insert("results".into(), Value::Array(results));
    let doc = json!({
        "$schema": "https://json.schemastore.org/sarif-2.1.0.json",
        "version": "2.1.0",
        "runs": [Value::Object(run)],
    });
    let mut s = serde_json::to_string_pretty(&doc).unwrap_or_default();
    s.push('\n');
    s
}

/// A result's fingerprint for code scanning, which matches alerts across
/// runs by it: the code, the step, the message and the text under the
/// primary span, hashed (64-bit FNV-1a, hex). Neither the line nor the file
/// name takes part, so an edit above the result or a moved file keeps its
/// alert.
fn fingerprint(sources: &SourceMap, d: &Diagnostic) -> String {
    let under = sources
        .get(d.span.file)
        .map(|f| f.slice(d.span))
        .unwrap_or_default();
    let mut hash: u64 = 0xcbf2_9ce4_8422_2325;
    let parts = [
        d.code.as_str(),
        d.step.as_deref().unwrap_or(""),
        d.message.as_str(),
        under,
    ];
    for part in parts {
        for b in part.bytes().chain(std::iter::once(0)) {
            hash ^= u64::from(b);
            hash = hash.wrapping_mul(0x0100_0000_01b3);
        }
    }
    format!("{hash:016x}")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sample() -> (SourceMap, Vec<Diagnostic>) {
        let mut sources = SourceMap::new();
        let f = sources.add("plan.plan", "step a = x.y(n: 1)\nstep b = x.z(m: «é»)\n");
        let d = Diagnostic::new(Code::E0101, Span::new(f, 9, 12), "unknown tool `x.y`")
            .with_label("not in the catalogue")
            .with_secondary(Span::new(f, 28, 31), "also here")
            .with_help("did you mean `x.z`?")
            .in_step("a");
        (sources, vec![d])
    }

    #[test]
    fn short_is_one_line_with_position() {
        let (sources, diags) = sample();
        assert_eq!(
            short(&sources, &diags),
            "plan.plan:1:10: error[E0101]: unknown tool `x.y`\n"
        );
    }

    #[test]
    fn json_has_positions_step_and_help() {
        let (sources, diags) = sample();
        let v: serde_json::Value = serde_json::from_str(&json(&sources, &diags)).unwrap();
        let d = &v["diagnostics"][0];
        assert_eq!(d["code"], "E0101");
        assert_eq!(d["line"], 1);
        assert_eq!(d["column"], 10);
        assert_eq!(d["end_column"], 13);
        assert_eq!(d["span"]["start"], 9);
        assert_eq!(d["step"], "a");
        assert_eq!(d["help"], "did you mean `x.z`?");
        assert_eq!(d["labels"][0]["line"], 2);
        assert_eq!(v["errors"], 1);
    }

    #[test]
    fn human_shows_code_message_and_labels() {
        let (sources, diags) = sample();
        let out = human(&sources, &diags, false);
        assert!(out.contains("[E0101] Error: unknown tool `x.y`"), "{out}");
        assert!(out.contains("not in the catalogue"), "{out}");
        assert!(out.contains("also here"), "{out}");
        assert!(out.contains("did you mean `x.z`?"), "{out}");
    }

    #[test]
    fn spans_inside_characters_do_not_panic() {
        let (sources, _) = sample();
        let f = FileId(0);
        // From the middle of line 2 to far past the end of the text.
        let d = vec![Diagnostic::new(Code::E0001, Span::new(f, 29, 1000), "m")];
        assert!(human(&sources, &d, false).contains("[E0001] Error: m"));
        assert_eq!(short(&sources, &d), "plan.plan:2:11: error[E0001]: m\n");
        let v: serde_json::Value = serde_json::from_str(&json(&sources, &d)).unwrap();
        assert_eq!(v["diagnostics"][0]["line"], 2);
        assert_eq!(v["diagnostics"][0]["column"], 11);
    }

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

    #[test]
    fn short_without_a_file_still_has_the_message() {
        let (sources, _) = sample();
        let d = vec![Diagnostic::new(
            Code::E0001,
            Span::new(FileId(7), 0, 1),
            "m",
        )];
        assert_eq!(short(&sources, &d), "error[E0001]: m\n");
    }

    #[test]
    fn sarif_has_rules_results_and_related_locations() {
        let (sources, diags) = sample();
        let v: serde_json::Value =
            serde_json::from_str(&sarif(&sources, &diags, &Default::default())).unwrap();
        assert_eq!(v["version"], "2.1.0");
        let run = &v["runs"][0];
        assert_eq!(run["tool"]["driver"]["name"], "planc");
        assert_eq!(run["tool"]["driver"]["rules"][0]["id"], "E0101");
        let r = &run["results"][0];
        assert_eq!(r["ruleId"], "E0101");
        assert_eq!(r["ruleIndex"], 0);
        assert_eq!(r["level"], "error");
        let region = &r["locations"][0]["physicalLocation"]["region"];
        assert_eq!(region["startLine"], 1);
        assert_eq!(region["startColumn"], 10);
        assert_eq!(
            r["locations"][0]["physicalLocation"]["artifactLocation"]["uri"],
            "plan.plan"
        );
        assert_eq!(r["relatedLocations"][0]["message"]["text"], "also here");
        assert_eq!(r["properties"]["step"], "a");
    }
}
