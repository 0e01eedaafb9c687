//! The words of the plan language in one place: what an identifier is, the
//! keywords each place of the grammar expects, and the words with a fixed
//! meaning in values. Every keyword is contextual (`docs/language.md`):
//! these lists say where a word is a keyword, never that it cannot be a
//! name. The parser, the JSON readers, the converter between the two forms
//! and the language server's completion all read them here.

/// Whether `s` is an identifier of the plan language: an ASCII letter or
/// `_`, then ASCII letters, digits and `_`. Names of plans, steps,
/// bindings, parameters and fields are identifiers in both forms.
pub fn is_ident(s: &str) -> bool {
    let mut bytes = s.bytes();
    matches!(bytes.next(), Some(b) if b.is_ascii_alphabetic() || b == b'_')
        && bytes.all(is_ident_byte)
}

/// Whether `b` may continue an identifier (after its first byte).
pub fn is_ident_byte(b: u8) -> bool {
    b.is_ascii_alphanumeric() || b == b'_'
}

/// [`is_ident`] as a JSON Schema `pattern` (an ECMA-262 regular
/// expression), for the schemas of the JSON forms.
pub const IDENT_PATTERN: &str = "^[A-Za-z_][A-Za-z0-9_]*$";

/// Whether `s` is a scope as both forms spell it: an identifier, then
/// parts of letters, digits, `_`, `*`, `-`, `.` and `+` after each `:`
/// (`billing:write`, `crm:*`, `admin`).
pub fn is_scope(s: &str) -> bool {
    let mut parts = s.split(':');
    parts.next().is_some_and(is_ident)
        && parts.all(|p| {
            !p.is_empty()
                && p.bytes()
                    .all(|c| is_ident_byte(c) || matches!(c, b'*' | b'-' | b'.' | b'+'))
        })
}

/// [`is_scope`] as a JSON Schema `pattern`.
pub const SCOPE_PATTERN: &str = r"^[A-Za-z_][A-Za-z0-9_]*(:[A-Za-z0-9_*.+\-]+)*$";

/// Whether `s` is a tool name as the text form writes it: identifiers
/// joined by dots (`billing.issue_credit`, or a plain `get_order`).
pub fn is_tool_name(s: &str) -> bool {
    s.split('.').all(is_ident)
}

/// Whether `c` shows as nothing, or changes how the text around it is
/// shown, while it stays in the value a tool receives: a control character
/// other than tab and line breaks, or a format character (Unicode's `Cf`,
/// with the bidirectional embeddings, overrides and isolates U+202A–202E
/// and U+2066–2069, the zero-width U+200B–200F and U+2060–2064, the byte
/// order mark U+FEFF, the line and paragraph separators U+2028 and U+2029, the soft hyphen, the tag characters), or a filler
/// that draws blank (U+115F, U+1160, U+3164, U+FFA0, U+034F). The review
/// page and the human and short reports write such a character as its
/// escape (`\u{202E}`), and `planc check` warns about one in a plan
/// (W0408). Identifiers are ASCII ([`is_ident`]), so no name holds one.
pub fn is_hidden(c: char) -> bool {
    if c.is_ascii() {
        return c.is_ascii_control() && !matches!(c, '\t' | '\n' | '\r');
    }
    matches!(
        u32::from(c),
        0x80..=0x9F
            | 0xAD
            | 0x34F
            | 0x600..=0x605
            | 0x61C
            | 0x6DD
            | 0x70F
            | 0x890..=0x891
            | 0x8E2
            | 0x115F..=0x1160
            | 0x17B4..=0x17B5
            | 0x180B..=0x180F
            | 0x200B..=0x200F
            | 0x202A..=0x202E
            | 0x2028..=0x2029
            | 0x2060..=0x2064
            | 0x2066..=0x206F
            | 0x3164
            | 0xFE00..=0xFE0F
            | 0xFEFF
            | 0xFFA0
            | 0xFFF9..=0xFFFB
            | 0x110BD
            | 0x110CD
            | 0x13430..=0x1343F
            | 0x1BCA0..=0x1BCA3
            | 0x1D173..=0x1D17A
            | 0xE0000..=0xE0FFF
    )
}

/// `s` with every [`is_hidden`] character written as its escape
/// (`\u{202E}`), or `s` itself when it has none.
pub fn show_hidden(s: &str) -> std::borrow::Cow<'_, str> {
    if !s.chars().any(is_hidden) {
        return std::borrow::Cow::Borrowed(s);
    }
    let mut out = String::with_capacity(s.len() + 16);
    for c in s.chars() {
        if is_hidden(c) {
            out.push_str(&format!("\\u{{{:04X}}}", u32::from(c)));
        } else {
            out.push(c);
        }
    }
    std::borrow::Cow::Owned(out)
}

/// The words that start a declaration.
pub const DECLARATIONS: [&str; 3] = ["tool", "policy", "plan"];

/// The words that start an item of a plan.
pub const PLAN_ITEMS: [&str; 3] = ["step", "replans", "max_steps"];

/// The words that start an item of a policy other than a rule
/// (`replans <= N`).
pub const POLICY_ITEMS: [&str; 3] = ["actor", "max_steps", "replans"];

/// The clause keywords of a step.
pub const CLAUSES: [&str; 6] = ["pre", "post", "bind", "on_unmet", "retry", "after"];

/// The clause keywords of a policy rule.
pub const RULE_CLAUSES: [&str; 6] = [
    "requires",
    "approval",
    "where",
    "untrusted",
    "effect",
    "idempotent",
];

/// The words of a rule's `where` list beyond ceilings (`docs/language.md`,
/// "Rules"): `ARG in [...]`, `ARG not in [...]`, `ARG matches "RE"`, `ARG
/// trusted`, `total ARG <= N per ARG2`, `calls <= N`.
pub const WHERE_WORDS: [&str; 7] = ["in", "not", "matches", "trusted", "total", "per", "calls"];

/// The attributes of a tool declaration.
pub const TOOL_ATTRS: [&str; 4] = ["read", "write", "idempotent", "untrusted"];

/// What a step does when a condition is not met (`on_unmet`), in both forms.
pub const ON_UNMET: [&str; 3] = ["replan", "halt", "escalate"];

/// The approver `approval` names.
pub const APPROVER: &str = "human";

/// The words that start a probe in the text form (`len($.x) == 1`,
/// `keys($.x) contains "k"`, `exists($.x)`), each before the one path it
/// holds in parentheses; `in` and `contains` come after a path.
pub const PROBE_WORDS: [&str; 3] = ["len", "keys", "exists"];

/// The words with a fixed meaning in values: `true`, `false` and `null`
/// are literals wherever a value is read, never references.
pub const VALUE_WORDS: [&str; 3] = ["true", "false", "null"];

/// Words a policy rule's tool may not be named: a clause or an item keyword
/// standing where a rule starts is a clause gone astray.
pub const RESERVED_IN_POLICY: [&str; 10] = [
    "requires",
    "approval",
    "where",
    "untrusted",
    "effect",
    "idempotent",
    APPROVER,
    "actor",
    "max_steps",
    "replans",
];

/// The keywords the parser expects by name, to suggest the nearest to a
/// misspelt one.
pub const KEYWORDS: [&str; 16] = [
    "tool", "policy", "plan", "step", "pre", "post", "bind", "on_unmet", "retry", "after",
    "requires", "approval", "where", APPROVER, "in", "contains",
];
