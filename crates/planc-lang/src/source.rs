//! Source files, spans and positions.
//!
//! Every location in planc is a [`Span`]: a file and a half-open byte range.
//! Line and column numbers (1-based, counted in Unicode scalar values for the
//! terminal and in UTF-16 code units for the editor) are derived from a
//! [`SourceFile`]'s line index only when a diagnostic is rendered.

use std::fmt;
use std::sync::{Arc, OnceLock};

/// Identifies one file of a [`SourceMap`]. Index into the map.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Default)]
pub struct FileId(pub u32);

/// A half-open byte range `start..end` inside one file.
#[derive(Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Default)]
pub struct Span {
    pub file: FileId,
    pub start: u32,
    pub end: u32,
}

impl Span {
    pub fn new(file: FileId, start: usize, end: usize) -> Span {
        Span {
            file,
            start: clamp_u32(start),
            end: clamp_u32(end.max(start)),
        }
    }

    /// An empty span at `offset`.
    pub fn point(file: FileId, offset: usize) -> Span {
        Span::new(file, offset, offset)
    }

    /// The smallest span covering both. Both must be in the same file; if they
    /// are not, `self` is returned unchanged.
    pub fn to(self, other: Span) -> Span {
        if self.file != other.file {
            return self;
        }
        Span {
            file: self.file,
            start: self.start.min(other.start),
            end: self.end.max(other.end),
        }
    }

    pub fn len(self) -> usize {
        (self.end - self.start) as usize
    }

    pub fn is_empty(self) -> bool {
        self.start == self.end
    }

    pub fn range(self) -> std::ops::Range<usize> {
        self.start as usize..self.end as usize
    }

    pub fn contains(self, other: Span) -> bool {
        self.file == other.file && self.start <= other.start && other.end <= self.end
    }
}

impl fmt::Debug for Span {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}@{}..{}", self.file.0, self.start, self.end)
    }
}

fn clamp_u32(n: usize) -> u32 {
    u32::try_from(n).unwrap_or(u32::MAX)
}

/// A value with the span it was read from. The span takes no part in
/// equality: two trees that differ only in positions compare equal.
#[derive(Clone, Copy)]
pub struct Spanned<T> {
    pub node: T,
    pub span: Span,
}

impl<T> Spanned<T> {
    pub fn new(node: T, span: Span) -> Spanned<T> {
        Spanned { node, span }
    }

    pub fn map<U>(self, f: impl FnOnce(T) -> U) -> Spanned<U> {
        Spanned {
            node: f(self.node),
            span: self.span,
        }
    }

    pub fn as_ref(&self) -> Spanned<&T> {
        Spanned {
            node: &self.node,
            span: self.span,
        }
    }
}

impl<T: PartialEq> PartialEq for Spanned<T> {
    fn eq(&self, other: &Self) -> bool {
        self.node == other.node
    }
}

impl<T: Eq> Eq for Spanned<T> {}

impl<T: fmt::Debug> fmt::Debug for Spanned<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{:?} @ {:?}", self.node, self.span)
    }
}

impl<T> std::ops::Deref for Spanned<T> {
    type Target = T;
    fn deref(&self) -> &T {
        &self.node
    }
}

/// What a file holds, which decides the front end that reads it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SourceKind {
    /// `.plan` text: tool, policy and plan declarations.
    Text,
    /// A JSON document: a plan, a catalogue or a policy.
    Json,
}

impl SourceKind {
    /// The kind a file name implies (`.json` is JSON, anything else text).
    pub fn from_name(name: &str) -> SourceKind {
        if name.to_ascii_lowercase().ends_with(".json") {
            SourceKind::Json
        } else {
            SourceKind::Text
        }
    }

    /// The kind that text implies, for input without a name (stdin): a
    /// document whose first non-blank character is `{` or `[` is JSON.
    pub fn sniff(text: &str) -> SourceKind {
        match text
            .trim_start_matches(['\u{feff}', ' ', '\t', '\r', '\n'])
            .chars()
            .next()
        {
            Some('{') | Some('[') => SourceKind::Json,
            _ => SourceKind::Text,
        }
    }
}

/// Where [`SourceFile::line_col_forward`] last counted to: an offset, its
/// 0-based line and where that line starts. The default is the text's
/// start.
#[derive(Clone, Copy, Debug, Default)]
pub struct LineCursor {
    offset: usize,
    line: usize,
    line_start: usize,
}

/// A 1-based line and column.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Default)]
pub struct LineCol {
    pub line: u32,
    pub column: u32,
}

/// The characters of `s` and their UTF-16 units, in one pass.
fn chars_and_units(s: &str) -> (usize, usize) {
    s.chars()
        .fold((0, 0), |(n, u), c| (n + 1, u + c.len_utf16()))
}

/// The bytes between two entries of a file's table of character counts
/// (`SourceFile::counts`): a column costs at most this much counting.
const COUNT_BLOCK: usize = 4096;

/// One file's name, text and line index (built the first time a position
/// is asked for).
#[derive(Clone, Debug)]
pub struct SourceFile {
    pub id: FileId,
    /// The name shown in diagnostics: the path as the user gave it, or
    /// `<stdin>`.
    pub name: String,
    pub text: String,
    pub kind: SourceKind,
    /// Where each line starts: built from the text the first time a line or
    /// column is asked for, so a check that renders nothing never scans it.
    line_starts: OnceLock<Vec<u32>>,
    /// How many characters and UTF-16 units come before each block of
    /// [`COUNT_BLOCK`] bytes (`None` for an ASCII text, where both are the
    /// byte offset): a column is counted from the nearest block, not from
    /// its line's start, which in a one-line JSON plan is the whole text
    /// before it. Built the first time a column is asked for.
    counts: OnceLock<Option<Vec<(u32, u32)>>>,
    /// For JSON files: where each value is and how to spell its RFC 6901
    /// pointer. Built from the text the first time a diagnostic asks for a
    /// pointer, so a check that renders none never pays for it.
    pointers: OnceLock<PointerTable>,
}

impl SourceFile {
    pub fn new(
        id: FileId,
        name: impl Into<String>,
        text: impl Into<String>,
        kind: SourceKind,
    ) -> SourceFile {
        SourceFile {
            id,
            name: name.into(),
            text: text.into(),
            kind,
            line_starts: OnceLock::new(),
            counts: OnceLock::new(),
            pointers: OnceLock::new(),
        }
    }

    /// Replaces the text, forgetting what was counted of the old one.
    pub fn set_text(&mut self, text: String) {
        self.text = text;
        self.line_starts = OnceLock::new();
        self.counts = OnceLock::new();
        self.pointers = OnceLock::new();
    }

    /// How many characters the text has from byte `start` to byte `end`
    /// (each taken back to a character boundary), without counting from
    /// the start of a long line.
    pub fn chars_between(&self, start: usize, end: usize) -> usize {
        let (a, b) = (self.floor_boundary(start), self.floor_boundary(end));
        self.counted_before(b)
            .0
            .saturating_sub(self.counted_before(a).0)
    }

    /// Characters and UTF-16 units in the text before byte `o`, a
    /// character boundary.
    fn counted_before(&self, o: usize) -> (usize, usize) {
        let counts = self.counts.get_or_init(|| {
            if self.text.is_ascii() {
                return None;
            }
            let mut out = Vec::with_capacity(self.text.len() / COUNT_BLOCK + 1);
            let (mut chars, mut units, mut from) = (0usize, 0usize, 0usize);
            out.push((0, 0));
            let mut block = COUNT_BLOCK;
            while block <= self.text.len() {
                let to = self.floor_boundary(block);
                let (c, u) = chars_and_units(self.text.get(from..to).unwrap_or_default());
                chars += c;
                units += u;
                out.push((clamp_u32(chars), clamp_u32(units)));
                from = to;
                block += COUNT_BLOCK;
            }
            Some(out)
        });
        let Some(counts) = counts else {
            return (o, o);
        };
        let k = o / COUNT_BLOCK;
        let base = self.floor_boundary(k * COUNT_BLOCK);
        let (chars, units) = counts.get(k).copied().unwrap_or((0, 0));
        let (c, u) = chars_and_units(self.text.get(base..o).unwrap_or_default());
        (chars as usize + c, units as usize + u)
    }

    /// The nearest character boundary at or before byte `o`, within the
    /// text.
    pub fn floor_boundary(&self, o: usize) -> usize {
        let mut o = o.min(self.text.len());
        while o > 0 && !self.text.is_char_boundary(o) {
            o -= 1;
        }
        o
    }

    /// Takes the line index of `old`, the text this one was made from by
    /// `edit`, when `old` has built it: the lines that start before the
    /// edit start where they did, those the new bytes begin are found in
    /// them, and the later ones move by the change of length; an edit that
    /// does not fit the two texts takes nothing. The language server's
    /// path: an edit of a 4,000-line document reads its new bytes, not the
    /// whole text again.
    pub fn take_lines_from(&mut self, old: &SourceFile, edit: &Edit) {
        let Some(starts) = old.line_starts.get() else {
            return;
        };
        let fits = edit.start <= edit.old_end
            && edit.start <= edit.new_end
            && edit.old_end <= old.text.len()
            && edit.new_end <= self.text.len()
            && old.text.len() - edit.old_end == self.text.len() - edit.new_end;
        if !fits || self.line_starts.get().is_some() {
            return;
        }
        // A line starts after a newline: one before the edit's start is
        // kept, one in the replaced bytes is gone, one after them moved.
        let kept = starts.partition_point(|&s| s as usize <= edit.start);
        let new = self
            .text
            .as_bytes()
            .get(edit.start..edit.new_end)
            .unwrap_or_default();
        let mut lines = Vec::with_capacity(starts.len() + 1);
        lines.extend_from_slice(starts.get(..kept).unwrap_or_default());
        lines.extend(memchr::memchr_iter(b'\n', new).map(|i| clamp_u32(edit.start + i + 1)));
        lines.extend(
            starts
                .get(kept..)
                .unwrap_or_default()
                .iter()
                .filter(|&&s| s as usize > edit.old_end)
                .map(|&s| clamp_u32(s as usize - edit.old_end + edit.new_end)),
        );
        let _ = self.line_starts.set(lines);
    }

    /// Where each line starts, built on the first call.
    fn line_starts(&self) -> &[u32] {
        self.line_starts.get_or_init(|| {
            // memchr scans a word or a vector register at a time, not a byte.
            let text = self.text.as_bytes();
            let mut starts = Vec::with_capacity(text.len() / 32 + 1);
            starts.push(0u32);
            starts.extend(memchr::memchr_iter(b'\n', text).map(|i| clamp_u32(i + 1)));
            starts
        })
    }

    /// The index of the line holding byte `offset` (0-based).
    pub fn line_index(&self, offset: u32) -> usize {
        match self.line_starts().binary_search(&offset) {
            Ok(i) => i,
            Err(i) => i.saturating_sub(1),
        }
    }

    /// The byte offset where 0-based line `line` starts.
    pub fn line_start(&self, line: usize) -> usize {
        self.line_starts()
            .get(line)
            .map(|&s| s as usize)
            .unwrap_or(self.text.len())
    }

    /// The number of lines (a file ending in a newline has an empty last line).
    pub fn line_count(&self) -> usize {
        self.line_starts().len()
    }

    /// Clamps `offset` into the text and back onto a character boundary.
    fn clamp(&self, offset: u32) -> usize {
        self.floor_boundary(offset as usize)
    }

    /// 1-based line and column of a byte offset; the column counts Unicode
    /// scalar values, as a terminal user counts characters. A byte-order
    /// mark at the start of the text is not a column (editors hide it);
    /// offsets still count its three bytes.
    pub fn line_col(&self, offset: u32) -> LineCol {
        let o = self.clamp(offset);
        let line = self.line_index(clamp_u32(o));
        let start = self.line_start(line).min(o);
        let mut column = self.counted_before(o).0 - self.counted_before(start).0;
        if start == 0 && o > 0 && self.text.starts_with('\u{feff}') {
            column -= 1;
        }
        LineCol {
            line: clamp_u32(line + 1),
            column: clamp_u32(column + 1),
        }
    }

    /// [`SourceFile::line_col`] of offsets that come in order (the steps of
    /// a plan, lowered one after the other), counted forward from the last
    /// one `cursor` saw, without the file's table of line starts (4 bytes
    /// a line, and what its growth leaves to the allocator). An offset
    /// before the last is counted by [`SourceFile::line_col`].
    pub fn line_col_forward(&self, cursor: &mut LineCursor, offset: u32) -> LineCol {
        let o = self.clamp(offset);
        if o < cursor.offset {
            return self.line_col(offset);
        }
        let passed = self
            .text
            .as_bytes()
            .get(cursor.offset..o)
            .unwrap_or_default();
        for at in memchr::memchr_iter(b'\n', passed) {
            cursor.line += 1;
            cursor.line_start = cursor.offset + at + 1;
        }
        cursor.offset = o;
        let start = cursor.line_start.min(o);
        let mut column = self.text.get(start..o).map_or(0, |t| t.chars().count());
        if start == 0 && o > 0 && self.text.starts_with('\u{feff}') {
            column -= 1;
        }
        LineCol {
            line: clamp_u32(cursor.line + 1),
            column: clamp_u32(column + 1),
        }
    }

    /// 0-based line and UTF-16 column of a byte offset, as the Language
    /// Server Protocol counts them.
    pub fn utf16_position(&self, offset: u32) -> (u32, u32) {
        let o = self.clamp(offset);
        let line = self.line_index(clamp_u32(o));
        let start = self.line_start(line).min(o);
        let column = self.counted_before(o).1 - self.counted_before(start).1;
        (clamp_u32(line), clamp_u32(column))
    }

    /// The byte offset of a 0-based line and UTF-16 column. Positions past
    /// the end of a line clamp to the line's end, past the last line to the
    /// end of the text.
    pub fn offset_of_utf16(&self, line: u32, column: u32) -> usize {
        let line = line as usize;
        if line >= self.line_starts().len() {
            return self.text.len();
        }
        let start = self.line_start(line);
        let end = self.line_start(line + 1);
        let text = self.text.get(start..end).unwrap_or("");
        let mut units = 0usize;
        for (i, c) in text.char_indices() {
            if units >= column as usize || c == '\n' {
                return start + i;
            }
            units += c.len_utf16();
        }
        end
    }

    /// The file's pointer table, built by `build` on the first call. Only
    /// the JSON parser builds one: `SourceFile::pointer_at`, which parses
    /// the text, is `syntax::json`'s (`syntax/json/pointer.rs`), so the
    /// source map stays below the front ends.
    pub(crate) fn pointers(&self, build: impl FnOnce() -> PointerTable) -> &PointerTable {
        self.pointers.get_or_init(build)
    }

    pub fn slice(&self, span: Span) -> &str {
        self.text.get(span.range()).unwrap_or("")
    }
}

/// What an edit changed in a file: the bytes `old[start..old_end]` became
/// `new[start..new_end]`, found as the longest unchanged start and then
/// the longest unchanged end of the rest. Several changes at once make
/// one edit from the first to the last.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Edit {
    pub file: FileId,
    pub start: usize,
    pub old_end: usize,
    pub new_end: usize,
}

impl Edit {
    /// The edit that turned `old` into `new`, the texts of `file`.
    pub fn between(file: FileId, old: &str, new: &str) -> Edit {
        let (old_b, new_b) = (old.as_bytes(), new.as_bytes());
        let start = common_prefix(old_b, new_b);
        let suffix = common_suffix(
            old_b.get(start..).unwrap_or_default(),
            new_b.get(start..).unwrap_or_default(),
        );
        Edit {
            file,
            start,
            old_end: old_b.len() - suffix,
            new_end: new_b.len() - suffix,
        }
    }

    /// Whether nothing changed.
    pub fn is_none(&self) -> bool {
        self.start == self.old_end && self.start == self.new_end
    }

    /// Where `span`, a span of the old texts, is in the new ones: the same
    /// in another file or before the edit, moved by the change of length
    /// after it; `None` when it touches what changed: it overlaps the
    /// replaced bytes or only abuts them (a token that ends where text was
    /// inserted may have grown by it).
    pub fn map(&self, span: Span) -> Option<Span> {
        if span.file != self.file {
            return Some(span);
        }
        let (s, e) = (span.start as usize, span.end as usize);
        if e < self.start {
            return Some(span);
        }
        if s <= self.old_end {
            return None;
        }
        let moved = |at: u32| clamp_u32(at as usize - self.old_end + self.new_end);
        Some(Span {
            start: moved(span.start),
            end: moved(span.end),
            ..span
        })
    }
}

/// The block [`common_prefix`] and [`common_suffix`] compare at a time,
/// which the compiler turns into vector compares: an edit reads a 150 KB
/// document's ends in a few thousand instructions, not a byte loop.
const BLOCK: usize = 32;

/// How many bytes `a` and `b` share at their start.
fn common_prefix(a: &[u8], b: &[u8]) -> usize {
    let at = BLOCK * equal_blocks(a.chunks_exact(BLOCK).zip(b.chunks_exact(BLOCK)));
    let (a, b) = (
        a.get(at..).unwrap_or_default(),
        b.get(at..).unwrap_or_default(),
    );
    at + equal_blocks(a.iter().zip(b))
}

/// How many bytes `a` and `b` share at their end.
fn common_suffix(a: &[u8], b: &[u8]) -> usize {
    let at = BLOCK * equal_blocks(a.rchunks_exact(BLOCK).zip(b.rchunks_exact(BLOCK)));
    let a = a.get(..a.len() - at).unwrap_or_default();
    let b = b.get(..b.len() - at).unwrap_or_default();
    at + equal_blocks(a.iter().rev().zip(b.iter().rev()))
}

/// How many pairs are equal before the first that is not.
fn equal_blocks<T: PartialEq>(pairs: impl Iterator<Item = (T, T)>) -> usize {
    pairs.take_while(|(x, y)| x == y).count()
}

/// All the files one compilation reads. The library never touches the file
/// system: callers add text they have read themselves.
///
/// The files are shared: cloning a map copies one pointer per file, not
/// the texts, so a [`crate::Compiler`] hands its catalogue and policy files
/// to every check without copying them.
#[derive(Clone, Debug, Default)]
pub struct SourceMap {
    files: Vec<Arc<SourceFile>>,
}

impl SourceMap {
    pub fn new() -> SourceMap {
        SourceMap::default()
    }

    /// Adds a file, its kind chosen from its name.
    pub fn add(&mut self, name: impl Into<String>, text: impl Into<String>) -> FileId {
        let name = name.into();
        let kind = SourceKind::from_name(&name);
        self.add_with_kind(name, text, kind)
    }

    pub fn add_with_kind(
        &mut self,
        name: impl Into<String>,
        text: impl Into<String>,
        kind: SourceKind,
    ) -> FileId {
        let id = FileId(clamp_u32(self.files.len()));
        self.files
            .push(Arc::new(SourceFile::new(id, name, text, kind)));
        id
    }

    pub fn get(&self, id: FileId) -> Option<&SourceFile> {
        self.files.get(id.0 as usize).map(|f| &**f)
    }

    /// A file to change; one shared with a clone of the map is copied
    /// first (only a freshly added file is changed in practice).
    pub fn get_mut(&mut self, id: FileId) -> Option<&mut SourceFile> {
        self.files.get_mut(id.0 as usize).map(Arc::make_mut)
    }

    pub fn files(&self) -> impl Iterator<Item = &SourceFile> {
        self.files.iter().map(|f| &**f)
    }

    pub fn name(&self, id: FileId) -> &str {
        self.get(id).map(|f| f.name.as_str()).unwrap_or("<unknown>")
    }
}

/// The values of a JSON document, for the RFC 6901 pointer of a span. One
/// entry per value in document order (so sorted by start, a container before
/// what it holds), each with its parent and its last reference token; a
/// pointer is spelt out only when a diagnostic asks for it, so reading a
/// document allocates nothing per value for it.
#[derive(Clone, Debug, Default)]
pub struct PointerTable {
    entries: Vec<PointerEntry>,
    /// Keys that are not spelt as they read in the source (they have
    /// escapes).
    keys: Vec<String>,
}

#[derive(Clone, Copy, Debug)]
struct PointerEntry {
    /// The value's span; for an object member, from its key to the end of
    /// its value, so that a diagnostic on a key gets the member's pointer.
    span: Span,
    /// The index of the containing value's entry (the root is its own).
    parent: u32,
    token: PointerToken,
}

#[derive(Clone, Copy, Debug)]
enum PointerToken {
    Root,
    Index(u32),
    /// A key spelt in the source as it reads: the span of its text.
    Source {
        start: u32,
        end: u32,
    },
    /// A key with escapes: its index in `keys`.
    Decoded(u32),
}

impl PointerTable {
    /// Adds the root value; returns its entry index.
    pub fn root(&mut self, span: Span) -> u32 {
        self.push(span, None, PointerToken::Root)
    }

    /// Adds the `index`th item of the array at entry `parent`.
    pub fn item(&mut self, span: Span, parent: u32, index: usize) -> u32 {
        self.push(span, Some(parent), PointerToken::Index(clamp_u32(index)))
    }

    /// Adds a member of the object at entry `parent`: `key` is the decoded
    /// key, `key_text` the span of its text in the source (no quotes).
    pub fn member(
        &mut self,
        span: Span,
        parent: u32,
        key: &str,
        key_text: Span,
        source: &str,
    ) -> u32 {
        let token = if source.get(key_text.range()) == Some(key) {
            PointerToken::Source {
                start: key_text.start,
                end: key_text.end,
            }
        } else {
            self.keys.push(key.to_string());
            PointerToken::Decoded(clamp_u32(self.keys.len() - 1))
        };
        self.push(span, Some(parent), token)
    }

    fn push(&mut self, span: Span, parent: Option<u32>, token: PointerToken) -> u32 {
        let index = clamp_u32(self.entries.len());
        self.entries.push(PointerEntry {
            span,
            parent: parent.unwrap_or(index),
            token,
        });
        index
    }

    /// The number of values.
    pub fn len(&self) -> usize {
        self.entries.len()
    }

    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }

    /// Every value's span and pointer, in document order.
    pub fn all(&self, source: &str) -> Vec<(Span, String)> {
        (0..self.entries.len())
            .filter_map(|i| Some((self.entries.get(i)?.span, self.spell(source, i))))
            .collect()
    }

    /// The pointer of the innermost value containing `span`.
    pub fn pointer_at(&self, source: &str, span: Span) -> Option<String> {
        // Entries are sorted by start; the innermost container of `span` is
        // the last entry starting at or before it that also ends after it.
        let upto = self.entries.partition_point(|e| e.span.start <= span.start);
        let i = (0..upto)
            .rev()
            .find(|&i| self.entries.get(i).is_some_and(|e| e.span.end >= span.end))?;
        Some(self.spell(source, i))
    }

    /// The pointer of entry `i`: its tokens from the root down, each with
    /// `~` as `~0` and `/` as `~1`.
    fn spell(&self, source: &str, i: usize) -> String {
        let mut chain = Vec::new();
        let mut at = i;
        // Parents come before their children, so the walk ends; the bound
        // keeps it finite whatever the table holds.
        while let Some(e) = self.entries.get(at) {
            if chain.len() > self.entries.len() {
                break;
            }
            match e.token {
                PointerToken::Root => break,
                token => chain.push(token),
            }
            at = e.parent as usize;
        }
        let mut out = String::new();
        for token in chain.iter().rev() {
            out.push('/');
            match *token {
                PointerToken::Root => {}
                PointerToken::Index(n) => {
                    use std::fmt::Write;
                    let _ = write!(out, "{n}");
                }
                PointerToken::Source { start, end } => push_pointer_token(
                    &mut out,
                    source.get(start as usize..end as usize).unwrap_or(""),
                ),
                PointerToken::Decoded(k) => push_pointer_token(
                    &mut out,
                    self.keys.get(k as usize).map_or("", String::as_str),
                ),
            }
        }
        out
    }
}

/// Reads an RFC 6901 reference token back into its key: `~1` is `/`, `~0`
/// is `~` (in that order, so `~01` is `~1`); `None` for a `~` followed by
/// anything else, which no writer of pointers produces.
pub fn pointer_token_key(token: &str) -> Option<std::borrow::Cow<'_, str>> {
    if !token.contains('~') {
        return Some(std::borrow::Cow::Borrowed(token));
    }
    let mut out = String::with_capacity(token.len());
    let mut chars = token.chars();
    while let Some(c) = chars.next() {
        match c {
            '~' => match chars.next() {
                Some('0') => out.push('~'),
                Some('1') => out.push('/'),
                _ => return None,
            },
            c => out.push(c),
        }
    }
    Some(std::borrow::Cow::Owned(out))
}

/// Appends a key as an RFC 6901 reference token: `~` as `~0`, `/` as `~1`
/// ([`pointer_token_key`] reads it back).
pub fn push_pointer_token(buf: &mut String, key: &str) {
    for c in key.chars() {
        match c {
            '~' => buf.push_str("~0"),
            '/' => buf.push_str("~1"),
            c => buf.push(c),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lines_counted_forward_are_the_tables() {
        let texts = [
            "",
            "plan p {\n  step a = x.y()\n}\n",
            "\u{feff}plan é {\r\n  step ü = x.y(n: \"日本\")\r\n\n}",
            "\n\n\nab\u{1F600}c\nd",
        ];
        for text in texts {
            let file = SourceFile::new(
                FileId(0),
                "t".to_string(),
                text.to_string(),
                SourceKind::Text,
            );
            // Every offset in order, then every second one, then a step
            // back (counted from the table).
            for step in [1, 2, 5] {
                let mut cursor = LineCursor::default();
                for o in (0..=text.len() + 2).step_by(step) {
                    let o = u32::try_from(o).unwrap();
                    assert_eq!(
                        file.line_col_forward(&mut cursor, o),
                        file.line_col(o),
                        "{text:?} {o}"
                    );
                }
                assert_eq!(file.line_col_forward(&mut cursor, 1), file.line_col(1));
            }
        }
    }

    #[test]
    fn shared_ends_are_found_block_by_block_as_byte_by_byte() {
        // Lengths around the block's, with the first difference at every
        // position, from either end.
        let naive_prefix = |a: &[u8], b: &[u8]| a.iter().zip(b).take_while(|(x, y)| x == y).count();
        let naive_suffix = |a: &[u8], b: &[u8]| {
            a.iter()
                .rev()
                .zip(b.iter().rev())
                .take_while(|(x, y)| x == y)
                .count()
        };
        for len in [0, 1, 31, 32, 33, 63, 64, 65, 100] {
            let a: Vec<u8> = (0..len).map(|i| b'a' + (i % 26) as u8).collect();
            for extra in [0, 1, 40] {
                let mut longer = a.clone();
                longer.extend(std::iter::repeat_n(b'z', extra));
                assert_eq!(common_prefix(&a, &longer), naive_prefix(&a, &longer));
                let mut before = vec![b'z'; extra];
                before.extend(&a);
                assert_eq!(common_suffix(&a, &before), naive_suffix(&a, &before));
                for at in 0..len {
                    let mut b = longer.clone();
                    b[at] = b'#';
                    assert_eq!(common_prefix(&a, &b), at);
                    assert_eq!(common_prefix(&a, &b), naive_prefix(&a, &b));
                    let mut b = before.clone();
                    b[extra + at] = b'#';
                    assert_eq!(common_suffix(&a, &b), len - at - 1);
                    assert_eq!(common_suffix(&a, &b), naive_suffix(&a, &b));
                }
            }
        }
    }

    #[test]
    fn an_edit_is_the_changed_bytes_and_moves_what_follows() {
        let f = FileId(3);
        let sp = |start: u32, end: u32| Span {
            file: f,
            start,
            end,
        };
        // "abcdef" to "abXYef": `cd` became `XY`.
        let e = Edit::between(f, "abcdef", "abXYef");
        assert_eq!((e.start, e.old_end, e.new_end), (2, 4, 4));
        // "abcdef" to "abef": `cd` went; "ab" to "abcd": `cd` came.
        let gone = Edit::between(f, "abcdef", "abef");
        assert_eq!((gone.start, gone.old_end, gone.new_end), (2, 4, 2));
        let came = Edit::between(f, "ab", "abcd");
        assert_eq!((came.start, came.old_end, came.new_end), (2, 2, 4));
        assert!(Edit::between(f, "same", "same").is_none());
        // Before the edit: unchanged; after it: moved; touching or across it
        // (abutting included: a token ending there may have grown): none.
        assert_eq!(gone.map(sp(0, 1)), Some(sp(0, 1)));
        assert_eq!(gone.map(sp(5, 6)), Some(sp(3, 4)));
        assert_eq!(came.map(sp(3, 5)), Some(sp(5, 7)));
        for touching in [sp(0, 2), sp(1, 3), sp(2, 4), sp(3, 3), sp(4, 5), sp(0, 6)] {
            assert_eq!(gone.map(touching), None, "{touching:?}");
        }
        assert_eq!(came.map(sp(0, 2)), None);
        assert_eq!(came.map(sp(2, 2)), None);
        // Another file's spans are never moved.
        let other = Span {
            file: FileId(4),
            start: 2,
            end: 4,
        };
        assert_eq!(gone.map(other), Some(other));
    }

    /// The line index taken from the text before an edit is the one the
    /// edited text builds: random replacements of random ranges by texts
    /// with and without newlines, at the ends, across lines, CRLF
    /// included; and an edit that does not fit takes nothing.
    #[test]
    fn a_line_index_taken_across_an_edit_is_the_one_built() {
        const PIECES: &[&str] = &[
            "",
            "\n",
            "a",
            "\n\n",
            "x\ny",
            "\r\n",
            "step s = t()\n",
            "é\n",
        ];
        let mut rng = crate::syntax::test_texts::Rng(0x2545_f491_4f6c_dd1d);
        let mut below = |n: usize| rng.below(n);
        let f = FileId(0);
        let mut text = String::from("plan p {\n  step a = t()\n\n}\n");
        for _ in 0..2000 {
            let old = SourceFile::new(f, "", text.clone(), SourceKind::Text);
            let _ = old.line_count();
            let at = (0..=below(text.len() + 1))
                .rev()
                .find(|&i| text.is_char_boundary(i))
                .unwrap_or(0);
            let end = (at..=(at + below(8)).min(text.len()))
                .rev()
                .find(|&i| text.is_char_boundary(i))
                .unwrap_or(at);
            let mut new_text = text.clone();
            new_text.replace_range(at..end, PIECES[below(PIECES.len())]);
            let edit = Edit::between(f, &text, &new_text);
            let mut new = SourceFile::new(f, "", new_text.clone(), SourceKind::Text);
            new.take_lines_from(&old, &edit);
            let built = SourceFile::new(f, "", new_text.clone(), SourceKind::Text);
            assert_eq!(
                new.line_starts.get().map(Vec::as_slice),
                Some(built.line_starts()),
                "{text:?} to {new_text:?}"
            );
            // An edit of other texts is not taken.
            let mut unfit = SourceFile::new(f, "", format!("{new_text}\n"), SourceKind::Text);
            unfit.take_lines_from(&old, &edit);
            assert!(unfit.line_starts.get().is_none());
            text = if new_text.len() > 400 {
                String::from("a\nb\n")
            } else {
                new_text
            };
        }
    }

    #[test]
    fn pointer_tokens_round_trip() {
        for key in ["a", "a/b", "m~n", "~1", "~01/", ""] {
            let mut token = String::new();
            push_pointer_token(&mut token, key);
            assert_eq!(pointer_token_key(&token).as_deref(), Some(key), "{token}");
        }
        assert_eq!(pointer_token_key("~01").as_deref(), Some("~1"));
        assert_eq!(pointer_token_key("a~2"), None);
        assert_eq!(pointer_token_key("a~"), None);
    }

    #[test]
    fn line_col_counts_characters() {
        let f = SourceFile::new(FileId(0), "a", "ab\nçd€x\n", SourceKind::Text);
        assert_eq!(f.line_col(0), LineCol { line: 1, column: 1 });
        assert_eq!(f.line_col(3), LineCol { line: 2, column: 1 });
        // `x` is after `ç` (2 bytes), `d`, `€` (3 bytes).
        assert_eq!(f.line_col(9), LineCol { line: 2, column: 4 });
        assert_eq!(f.line_col(1000), LineCol { line: 3, column: 1 });
    }

    #[test]
    fn a_leading_byte_order_mark_is_not_a_column() {
        let f = SourceFile::new(FileId(0), "a", "\u{feff}ab\n\u{feff}c", SourceKind::Text);
        assert_eq!(f.line_col(3), LineCol { line: 1, column: 1 });
        assert_eq!(f.line_col(4), LineCol { line: 1, column: 2 });
        // Only at the start of the text: elsewhere it is a character.
        assert_eq!(f.line_col(9), LineCol { line: 2, column: 2 });
    }

    /// Columns from the table of counts equal columns counted from the
    /// line's start, across block boundaries, in long lines and short,
    /// with characters of one to four bytes and a byte-order mark.
    #[test]
    fn counted_columns_equal_columns_counted_from_the_line_start() {
        let naive = |text: &str, o: usize| {
            let start = text
                .get(..o)
                .and_then(|t| t.rfind('\n'))
                .map_or(0, |i| i + 1);
            let part = text.get(start..o).unwrap_or_default();
            let chars = if start == 0 {
                part.strip_prefix('\u{feff}')
                    .unwrap_or(part)
                    .chars()
                    .count()
            } else {
                part.chars().count()
            };
            (chars, part.chars().map(char::len_utf16).sum::<usize>())
        };
        let pieces = ["a", "é", "€", "😀", "\n", "{\"k\": 1}", "\t"];
        let mut seed = 7u64;
        for (n, bom) in [(20_000, false), (9_000, true), (300, false)] {
            let mut text = String::from(if bom { "\u{feff}" } else { "" });
            let mut long_line = n > 5_000;
            while text.len() < n {
                seed = seed
                    .wrapping_mul(6364136223846793005)
                    .wrapping_add(1442695040888963407);
                let piece = pieces[(seed >> 33) as usize % pieces.len()];
                if piece == "\n" && long_line {
                    // The first text is one line, as a planner writes JSON.
                    continue;
                }
                text.push_str(piece);
                long_line = long_line && n == 20_000;
            }
            let file = SourceFile::new(FileId(0), "t", text.clone(), SourceKind::Json);
            let mut o = 0;
            while o <= text.len() {
                if text.is_char_boundary(o) {
                    let (chars, units) = naive(&text, o);
                    let lc = file.line_col(u32::try_from(o).unwrap());
                    assert_eq!(lc.column as usize, chars + 1, "column at {o}");
                    assert_eq!(
                        file.utf16_position(u32::try_from(o).unwrap()).1 as usize,
                        units,
                        "utf-16 at {o}"
                    );
                    let start = file.line_start(file.line_index(u32::try_from(o).unwrap()));
                    let plain = text.get(start..o).unwrap().chars().count();
                    assert_eq!(file.chars_between(start, o), plain, "characters at {o}");
                }
                o += 1;
            }
        }
        // ASCII: the byte offset, without a table.
        let ascii = SourceFile::new(FileId(0), "a", "ab\ncd".to_string(), SourceKind::Text);
        assert_eq!(ascii.line_col(4), LineCol { line: 2, column: 2 });
        assert_eq!(ascii.utf16_position(4), (1, 1));
    }

    #[test]
    fn utf16_round_trip() {
        let f = SourceFile::new(FileId(0), "a", "x\n😀y\n", SourceKind::Text);
        // `y` is after an astral character: two UTF-16 units.
        assert_eq!(f.utf16_position(6), (1, 2));
        assert_eq!(f.offset_of_utf16(1, 2), 6);
        assert_eq!(f.offset_of_utf16(1, 99), 7);
        assert_eq!(f.offset_of_utf16(9, 0), f.text.len());
    }

    #[test]
    fn innermost_pointer() {
        let text = r#"{"a": [1, 2], "x/\u0079": 3}"#;
        let f = SourceFile::new(FileId(0), "a.json", text, SourceKind::Json);
        let s = |a, b| Span::new(FileId(0), a, b);
        assert_eq!(f.pointer_at(s(10, 11)).as_deref(), Some("/a/1"));
        assert_eq!(f.pointer_at(s(8, 9)).as_deref(), Some("/a"));
        assert_eq!(f.pointer_at(s(0, 1)).as_deref(), Some(""));
        assert_eq!(f.pointer_at(s(26, 27)).as_deref(), Some("/x~1y"));
    }

    #[test]
    fn spanned_equality_ignores_span() {
        let a = Spanned::new(1, Span::new(FileId(0), 0, 1));
        let b = Spanned::new(1, Span::new(FileId(1), 5, 9));
        assert_eq!(a, b);
    }
}
