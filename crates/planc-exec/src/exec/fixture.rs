//! The `fixture:FILE` backend: recorded tool responses, for tests, dry runs
//! and replay (`docs/executors.md`). The file is a JSON list of
//! `{"tool", "args"?, "result"}` or `{"tool", "args"?, "error": {"code",
//! "retryable", "message"?}}`, consumed in order per tool: a call gets the
//! tool's first unconsumed entry that matches it. An entry with `args`
//! matches only a call with exactly those arguments (numbers compared by
//! value); one without matches any call of the tool. A call no entry
//! matches gets a `fixture_exhausted` error, so a call the recording did
//! not foresee shows in the trace instead of being answered by accident.
//!
//! Steps running together may call the backend at once (`parallel`); when
//! two of them call the same tool, entries with `args` say which response
//! is whose.

use std::collections::{BTreeMap, VecDeque};
use std::sync::Mutex;

use super::data::{Data, describe, line_col};
use super::{Backend, Call, ToolError};
use crate::FileId;
use crate::syntax::json::{self, Json};

#[derive(Clone, Debug)]
struct Entry {
    args: Option<Data>,
    answer: Result<Data, ToolError>,
}

/// Recorded responses, by tool, in order.
#[derive(Debug)]
pub struct Fixture {
    queues: Mutex<BTreeMap<String, VecDeque<Entry>>>,
}

/// One problem with a fixture file: where (line, column, JSON pointer) and
/// what.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct FixtureError {
    pub line: usize,
    pub column: usize,
    /// RFC 6901 pointer to the offending value (`/2/error/code`).
    pub pointer: String,
    pub message: String,
}

impl std::fmt::Display for FixtureError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let at = if self.pointer.is_empty() {
            "the document".to_string()
        } else {
            format!("`{}`", self.pointer)
        };
        write!(f, "{}:{}: {at}: {}", self.line, self.column, self.message)
    }
}

const ENTRY_KEYS: &[&str] = &["tool", "args", "result", "error"];
const ERROR_KEYS: &[&str] = &["code", "retryable", "message"];

impl Fixture {
    /// Reads a fixture file's text; every problem found is returned, each
    /// with its position and pointer.
    pub fn parse(text: &str) -> Result<Fixture, Vec<FixtureError>> {
        let root = json::parse(FileId::default(), text).map_err(|d| {
            vec![FixtureError {
                line: 1,
                column: 1,
                pointer: String::new(),
                message: format!("not JSON: {}", describe(text, &d)),
            }]
        })?;
        let mut errors = Vec::new();
        let mut err = |at: &Json<'_>, pointer: String, message: String| {
            let (line, column) = line_col(text, at.span.start as usize);
            errors.push(FixtureError {
                line,
                column,
                pointer,
                message,
            });
        };
        let mut queues: BTreeMap<String, VecDeque<Entry>> = BTreeMap::new();
        let Some(items) = root.as_array() else {
            err(
                &root,
                String::new(),
                format!(
                    "expected a list of recorded responses, found {}",
                    root.kind_name()
                ),
            );
            return Err(errors);
        };
        for (n, item) in items.iter().enumerate() {
            let at = format!("/{n}");
            let Some(members) = item.as_object() else {
                err(
                    item,
                    at,
                    format!("expected an object, found {}", item.kind_name()),
                );
                continue;
            };
            for m in members {
                if !ENTRY_KEYS.contains(&m.key.as_ref()) {
                    err(
                        &m.value,
                        format!("{at}/{}", escape(&m.key)),
                        format!(
                            "unknown key `{}`; an entry has `tool`, `args`, and `result` or `error`",
                            m.key
                        ),
                    );
                }
            }
            let tool = match item.get("tool") {
                Some(t) => match t.as_str() {
                    Some(s) if !s.is_empty() => Some(s.to_string()),
                    _ => {
                        err(
                            t,
                            format!("{at}/tool"),
                            format!("expected a tool name, found {}", t.kind_name()),
                        );
                        None
                    }
                },
                None => {
                    err(item, at.clone(), "missing `tool`".into());
                    None
                }
            };
            let args = match item.get("args") {
                Some(a) if a.as_object().is_some() => Some(Data::from_json(a)),
                Some(a) => {
                    err(
                        a,
                        format!("{at}/args"),
                        format!("expected an object of arguments, found {}", a.kind_name()),
                    );
                    None
                }
                None => None,
            };
            let answer = match (item.get("result"), item.get("error")) {
                (Some(r), None) => Some(Ok(Data::from_json(r))),
                (None, Some(e)) => read_error(e, &format!("{at}/error"), &mut err).map(Err),
                (Some(_), Some(e)) => {
                    err(
                        e,
                        format!("{at}/error"),
                        "an entry has `result` or `error`, not both".into(),
                    );
                    None
                }
                (None, None) => {
                    err(
                        item,
                        at.clone(),
                        "missing `result` (or `error` for a failed call)".into(),
                    );
                    None
                }
            };
            if let (Some(tool), Some(answer)) = (tool, answer) {
                queues
                    .entry(tool)
                    .or_default()
                    .push_back(Entry { args, answer });
            }
        }
        if errors.is_empty() {
            Ok(Fixture {
                queues: Mutex::new(queues),
            })
        } else {
            Err(errors)
        }
    }
}

fn read_error(
    e: &Json<'_>,
    at: &str,
    err: &mut impl FnMut(&Json<'_>, String, String),
) -> Option<ToolError> {
    let Some(members) = e.as_object() else {
        err(
            e,
            at.to_string(),
            format!(
                "expected an object with `code` and `retryable`, found {}",
                e.kind_name()
            ),
        );
        return None;
    };
    for m in members {
        if !ERROR_KEYS.contains(&m.key.as_ref()) {
            err(
                &m.value,
                format!("{at}/{}", escape(&m.key)),
                format!(
                    "unknown key `{}`; an error has `code`, `retryable` and `message`",
                    m.key
                ),
            );
        }
    }
    let code = match e.get("code") {
        Some(c) => match c.as_str() {
            Some(s) => Some(s.to_string()),
            None => {
                err(
                    c,
                    format!("{at}/code"),
                    format!("expected a string, found {}", c.kind_name()),
                );
                None
            }
        },
        None => {
            err(e, at.to_string(), "missing `code`".into());
            None
        }
    };
    let retryable = match e.get("retryable") {
        Some(Json {
            value: json::Value::Bool(b),
            ..
        }) => Some(*b),
        Some(r) => {
            err(
                r,
                format!("{at}/retryable"),
                format!("expected `true` or `false`, found {}", r.kind_name()),
            );
            None
        }
        None => {
            err(e, at.to_string(), "missing `retryable`".into());
            None
        }
    };
    let message = match e.get("message") {
        Some(m) => match m.as_str() {
            Some(s) => s.to_string(),
            None => {
                err(
                    m,
                    format!("{at}/message"),
                    format!("expected a string, found {}", m.kind_name()),
                );
                return None;
            }
        },
        None => String::new(),
    };
    let (code, retryable) = (code?, retryable?);
    let message = if message.is_empty() {
        format!("the tool failed with `{code}`")
    } else {
        message
    };
    Some(ToolError {
        code,
        message,
        retryable,
    })
}

/// RFC 6901: `~` is `~0`, `/` is `~1`.
fn escape(key: &str) -> String {
    let mut token = String::with_capacity(key.len());
    crate::source::push_pointer_token(&mut token, key);
    token
}

impl Fixture {
    /// The answer to a call of `tool` with `args` (a JSON object): the
    /// tool's first unconsumed entry whose `args`, when given, are the
    /// same (numbers by value, exactly), consumed. The Python package's
    /// `planc.fixture.Recorded` answers through this, so both read and
    /// match a fixture file alike.
    pub fn answer(&self, tool: &str, args: &Data) -> Result<Data, ToolError> {
        let Ok(mut queues) = self.queues.lock() else {
            return Err(ToolError {
                code: "fixture_poisoned".into(),
                message: "the fixture backend failed earlier".into(),
                retryable: false,
            });
        };
        let queue = queues.get_mut(tool);
        let found = queue.and_then(|q| {
            let at = q
                .iter()
                .position(|e| e.args.as_ref().is_none_or(|a| a.same(args)))?;
            q.remove(at)
        });
        match found {
            Some(entry) => entry.answer,
            None => Err(ToolError {
                code: "fixture_exhausted".into(),
                message: format!(
                    "the fixture has no response left for `{tool}` with arguments {}",
                    args.to_json_string()
                ),
                retryable: false,
            }),
        }
    }

    /// The tools the file has entries for (consumed or not), sorted.
    pub fn tools(&self) -> Vec<String> {
        self.queues
            .lock()
            .map(|q| q.keys().cloned().collect())
            .unwrap_or_default()
    }
}

impl Backend for Fixture {
    fn call(&self, call: &Call<'_>) -> Result<Data, ToolError> {
        self.answer(call.tool(), &call.args_data())
    }

    fn parallel(&self) -> bool {
        true
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn malformed_files_are_reported_with_pointers() {
        let errs = Fixture::parse(
            r#"[
  {"tool": "a.b", "result": 1},
  {"tool": 3, "result": 1},
  {"tool": "x", "error": {"code": "e"}},
  {"tool": "x", "result": 1, "error": {"code": "e", "retryable": true}},
  {"tool": "x", "extra": 1, "result": 2},
  {"tool": "x"},
  {"tool": "x", "args": [], "result": 1},
  {"tool": "x", "error": {"code": 1, "retryable": "yes"}}
]"#,
        )
        .unwrap_err();
        let shown: Vec<String> = errs.iter().map(ToString::to_string).collect();
        assert_eq!(
            shown,
            [
                "3:12: `/1/tool`: expected a tool name, found a number",
                "4:26: `/2/error`: missing `retryable`",
                "5:39: `/3/error`: an entry has `result` or `error`, not both",
                "6:26: `/4/extra`: unknown key `extra`; an entry has `tool`, `args`, and `result` or `error`",
                "7:3: `/5`: missing `result` (or `error` for a failed call)",
                "8:25: `/6/args`: expected an object of arguments, found an array",
                "9:35: `/7/error/code`: expected a string, found a number",
                "9:51: `/7/error/retryable`: expected `true` or `false`, found a string",
            ]
        );
        assert!(Fixture::parse("{}").is_err());
        assert!(Fixture::parse("[").is_err());
        assert!(Fixture::parse("[]").is_ok());
    }
}
