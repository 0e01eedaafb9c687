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
/// `exists($.x)`); `in` and `contains` come after its path.
pub const PROBE_WORDS: [&str; 2] = ["len", "exists"];

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
