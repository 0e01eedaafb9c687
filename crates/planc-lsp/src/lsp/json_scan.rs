//! A tolerant scan of a JSON document for completion. While the user types,
//! the document is rarely valid JSON, so the parser's tree (and the plan
//! read from it) cannot be trusted to hold what is being written. This scan
//! reads any text: it tracks the open objects and arrays, the key each value
//! belongs to and the members of every object, and records where the cursor
//! is (in a key or a value, inside a string or a bare word). It goes on past
//! the cursor, so that a member written after it (a step's `tool` after its
//! `args`) is known too.
//!
//! Tolerance: a string ends at its closing quote or at the end of its line
//! (JSON strings hold no raw line breaks); a closer closes the innermost
//! open container of its kind and whatever is open inside it, and is
//! ignored when there is none; a missing comma or colon is assumed. Strings
//! are kept as written, escapes and all.

/// An open or closed container.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    Object,
    Array,
}

/// Where a container stands in its parent.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Slot {
    /// The document itself (or a value with no open container around it).
    Root,
    /// The value of this key of the parent object.
    Key(String),
    /// This element of the parent array.
    Index(usize),
}

/// A scalar value: a string's text between the quotes, or a bare word
/// (number, `true`, anything else).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Scalar {
    Str(String),
    Bare(String),
}

/// A member of an object.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Member {
    pub key: String,
    /// The byte offset of the key's text (after its quote).
    pub at: usize,
    /// The value when it is a scalar; `None` for a container or no value.
    pub value: Option<Scalar>,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Frame {
    pub kind: Kind,
    pub parent: Option<usize>,
    pub slot: Slot,
    /// The object's members in order (none for an array).
    pub members: Vec<Member>,
}

impl Frame {
    /// The scalar value of `key`, if a string.
    pub fn str(&self, key: &str) -> Option<&str> {
        self.members.iter().find_map(|m| match &m.value {
            Some(Scalar::Str(s)) if m.key == key => Some(s.as_str()),
            _ => None,
        })
    }

    /// The scalar value of `key`, string or bare.
    pub fn scalar(&self, key: &str) -> Option<&Scalar> {
        self.members
            .iter()
            .find(|m| m.key == key)
            .and_then(|m| m.value.as_ref())
    }
}

/// What the cursor is writing.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Role {
    /// A key of the innermost object.
    Key,
    /// A value: of this key of the innermost object (`None` when the key
    /// is missing), or an element of the innermost array.
    Value(Option<String>),
    /// Nothing can be written here (after a key, before its colon).
    None,
}

/// Where the cursor is.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Cursor {
    /// The containers open at the cursor, outermost first (frame indices).
    pub stack: Vec<usize>,
    pub role: Role,
    /// Inside a string: the offset of its text (after the quote).
    pub string: Option<usize>,
    /// The offset of the bare word the cursor is in, or of the cursor.
    pub word: usize,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Scan {
    pub frames: Vec<Frame>,
    pub cursor: Cursor,
}

impl Scan {
    /// The frames open at the cursor, outermost first.
    pub fn open(&self) -> Vec<&Frame> {
        self.cursor
            .stack
            .iter()
            .filter_map(|&i| self.frames.get(i))
            .collect()
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum State {
    /// A key may start (after `{` or `,`).
    Key,
    /// A key was read; a colon is due.
    Colon,
    /// A value may start (after `:`, `[` or `,` in an array).
    Value,
    /// A value was read; a comma or closer is due.
    After,
}

struct Open {
    frame: usize,
    state: State,
    /// The key whose value comes next, and its member's index.
    key: Option<(String, usize)>,
    /// An array's element count so far (its commas).
    index: usize,
}

struct Scanner {
    frames: Vec<Frame>,
    open: Vec<Open>,
}

fn is_space(b: u8) -> bool {
    matches!(b, b' ' | b'\t' | b'\n' | b'\r')
}

fn is_delimiter(b: u8) -> bool {
    is_space(b) || matches!(b, b'{' | b'}' | b'[' | b']' | b':' | b',' | b'"')
}

/// Scans `text` with the cursor at byte `offset` (clamped to the text).
pub fn scan(text: &str, offset: usize) -> Scan {
    let offset = offset.min(text.len());
    let b = text.as_bytes();
    let mut s = Scanner {
        frames: Vec::new(),
        open: Vec::new(),
    };
    let mut cursor: Option<Cursor> = None;
    let mut i = 0;
    while let Some(&c) = b.get(i) {
        if cursor.is_none() && i >= offset {
            cursor = Some(s.cursor(None, None, offset));
        }
        match c {
            b'"' => {
                let from = i + 1;
                let mut j = from;
                let mut closed = false;
                while let Some(&d) = b.get(j) {
                    match d {
                        b'\\' => j += 2,
                        b'"' => {
                            closed = true;
                            break;
                        }
                        b'\n' | b'\r' => break,
                        _ => j += 1,
                    }
                }
                let end = j.min(b.len());
                if cursor.is_none() && offset >= from && offset <= end {
                    cursor = Some(s.cursor(Some(from), None, offset));
                }
                let body = text.get(from..end).unwrap_or("");
                s.scalar(from, Scalar::Str(body.to_string()));
                i = if closed { end + 1 } else { end };
            }
            b'{' | b'[' => {
                s.push(if c == b'{' { Kind::Object } else { Kind::Array });
                i += 1;
            }
            b'}' | b']' => {
                s.close(if c == b'}' { Kind::Object } else { Kind::Array });
                i += 1;
            }
            b':' => {
                if let Some(o) = s.open.last_mut() {
                    o.state = State::Value;
                }
                i += 1;
            }
            b',' => {
                if let Some(o) = s.open.last_mut() {
                    match s.frames.get(o.frame).map(|f| f.kind) {
                        Some(Kind::Array) => {
                            o.index += 1;
                            o.state = State::Value;
                        }
                        _ => {
                            o.key = None;
                            o.state = State::Key;
                        }
                    }
                }
                i += 1;
            }
            _ if is_space(c) => i += 1,
            _ => {
                let mut j = i + 1;
                while b.get(j).is_some_and(|&d| !is_delimiter(d)) {
                    j += 1;
                }
                if cursor.is_none() && offset > i && offset <= j {
                    cursor = Some(s.cursor(None, Some(i), offset));
                }
                let word = text.get(i..j).unwrap_or("");
                s.scalar(i, Scalar::Bare(word.to_string()));
                i = j;
            }
        }
    }
    let cursor = cursor.unwrap_or_else(|| s.cursor(None, None, offset));
    Scan {
        frames: s.frames,
        cursor,
    }
}

impl Scanner {
    fn kind(&self, o: &Open) -> Option<Kind> {
        self.frames.get(o.frame).map(|f| f.kind)
    }

    /// The cursor at `offset`, inside the string whose text starts at
    /// `string` or the bare word starting at `word`, if any.
    fn cursor(&self, string: Option<usize>, word: Option<usize>, offset: usize) -> Cursor {
        // A string or word where a comma or colon is missing starts a key;
        // with nothing typed yet, nothing is written there.
        let typing = string.is_some() || word.is_some();
        let role = match self.open.last() {
            None => Role::None,
            Some(o) => match (self.kind(o), o.state) {
                (Some(Kind::Array), _) => Role::Value(None),
                (_, State::Value) => Role::Value(o.key.as_ref().map(|k| k.0.clone())),
                (_, State::Key) => Role::Key,
                (_, State::Colon | State::After) if typing => Role::Key,
                (_, State::Colon | State::After) => Role::None,
            },
        };
        Cursor {
            stack: self.open.iter().map(|o| o.frame).collect(),
            role,
            string,
            word: word.unwrap_or(offset),
        }
    }

    /// A string or bare word at `at`: a key or a value by the state.
    fn scalar(&mut self, at: usize, v: Scalar) {
        let Some(o) = self.open.last_mut() else {
            return;
        };
        let Some(frame) = self.frames.get_mut(o.frame) else {
            return;
        };
        match (frame.kind, o.state) {
            (Kind::Array, _) => o.state = State::After,
            (Kind::Object, State::Value) => {
                if let Some((_, m)) = &o.key
                    && let Some(member) = frame.members.get_mut(*m)
                {
                    member.value = Some(v);
                }
                o.state = State::After;
            }
            (Kind::Object, _) => {
                let key = match v {
                    Scalar::Str(s) | Scalar::Bare(s) => s,
                };
                o.key = Some((key.clone(), frame.members.len()));
                frame.members.push(Member {
                    key,
                    at,
                    value: None,
                });
                o.state = State::Colon;
            }
        }
    }

    fn push(&mut self, kind: Kind) {
        let (parent, slot) = match self.open.last_mut() {
            None => (None, Slot::Root),
            Some(o) => {
                let slot = match (self.frames.get(o.frame).map(|f| f.kind), &o.key) {
                    (Some(Kind::Array), _) => Slot::Index(o.index),
                    (_, Some((k, _))) if o.state == State::Value => Slot::Key(k.clone()),
                    _ => Slot::Root,
                };
                o.state = State::After;
                (Some(o.frame), slot)
            }
        };
        self.frames.push(Frame {
            kind,
            parent,
            slot,
            members: Vec::new(),
        });
        self.open.push(Open {
            frame: self.frames.len() - 1,
            state: match kind {
                Kind::Object => State::Key,
                Kind::Array => State::Value,
            },
            key: None,
            index: 0,
        });
    }

    fn close(&mut self, kind: Kind) {
        if let Some(at) = self.open.iter().rposition(|o| self.kind(o) == Some(kind)) {
            self.open.truncate(at);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn at(text: &str) -> Scan {
        let offset = text.find('|').unwrap_or(text.len());
        scan(&text.replacen('|', "", 1), offset)
    }

    fn slots(s: &Scan) -> Vec<Slot> {
        s.open().iter().map(|f| f.slot.clone()).collect()
    }

    #[test]
    fn keys_values_and_strings() {
        let s = at(r#"{"steps": [{"n": 0}, {"args": {"a": "x|"}, "tool": "t.u"}]}"#);
        assert_eq!(
            slots(&s),
            [
                Slot::Root,
                Slot::Key("steps".into()),
                Slot::Index(1),
                Slot::Key("args".into())
            ]
        );
        assert_eq!(s.cursor.role, Role::Value(Some("a".into())));
        assert_eq!(
            s.cursor.string,
            Some(r#"{"steps": [{"n": 0}, {"args": {"a": ""#.len())
        );
        // The member after the cursor is read.
        let step = s.open()[2];
        assert_eq!(step.str("tool"), Some("t.u"));

        let s = at(r#"{"steps": [{"|"#);
        assert_eq!(s.cursor.role, Role::Key);
        assert!(s.cursor.string.is_some());
        let s = at(r#"{"steps": [{"tool": |"#);
        assert_eq!(s.cursor.role, Role::Value(Some("tool".into())));
        assert_eq!(s.cursor.string, None);
        let s = at(r#"{"a": tr|ue}"#);
        assert_eq!(s.cursor.word, 6);
        let s = at(r#"{"a" | }"#);
        assert_eq!(s.cursor.role, Role::None);
    }

    #[test]
    fn escapes_line_ends_and_stray_closers() {
        let s = at("{\"a\": \"x\\\"}\", \"b\": [|");
        assert_eq!(slots(&s), [Slot::Root, Slot::Key("b".into())]);
        // An unclosed string ends at its line.
        let s = at("{\"a\": \"x\n, \"b\": {|");
        assert_eq!(slots(&s), [Slot::Root, Slot::Key("b".into())]);
        let s = at("]]}} {\"a\": [1, {|");
        assert_eq!(s.open().len(), 3);
        assert_eq!(s.open()[2].slot, Slot::Index(1));
        assert_eq!(at("").cursor.role, Role::None);
        assert_eq!(at("\"\\").cursor.role, Role::None);
    }
}
