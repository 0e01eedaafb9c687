/**
 * @file Tree-sitter grammar for the planc plan language
 * @license MIT OR Apache-2.0
 *
 * This grammar follows grammar/planc.ebnf, the syntax contract. Where the
 * two differ, the EBNF wins and this file is the one to fix. Notes on how
 * the EBNF maps onto tree-sitter:
 *
 * - Keywords are contextual. `identifier` is the `word` token, so every
 *   keyword is extracted from it and is a keyword only in a parse state that
 *   asks for that word: `plan`, `date` or `where` can still name an argument,
 *   a binding or a record field. `true`, `false` and `null` are keywords
 *   wherever an expression may stand, as the EBNF says.
 * - DOTTED_NAME, SCOPE and PATH are single tokens (no spaces inside), as in
 *   the EBNF's lexical part.
 * - The EBNF lexer is context free, so `count:5` in an argument list lexes as
 *   one SCOPE token that its parser splits again at the first `:`.
 *   Tree-sitter lexes by context: where an argument or a record entry starts,
 *   SCOPE is not a valid token, so `count:5` lexes as `count`, `:`, `5` and
 *   parses as the ordinary `name: value` form. Both readings give the same
 *   tree; this one keeps the argument name and the value as separate nodes.
 * - A STRING in expression position may interpolate (`"on ${period_end}"`);
 *   in literal position (probe values, ceilings, enum types, a plan's goal)
 *   `${` is plain text. Both are `string` nodes; only the first can contain
 *   `interpolation` children.
 * - `///` doc comments are part of the grammar where the EBNF allows them
 *   (before a declaration, a parameter, a record field or a step). Elsewhere
 *   `///…` is lexed as an ordinary `comment`.
 */

const IDENT = /[A-Za-z_][A-Za-z0-9_]*/;
const DOTTED = /[A-Za-z_][A-Za-z0-9_]*(\.[A-Za-z_][A-Za-z0-9_]*)+/;
// An identifier other than `in`.
const IDENT_NOT_IN = /[A-Za-hj-z_][A-Za-z0-9_]*|i|i[A-Za-mo-z0-9_][A-Za-z0-9_]*|in[A-Za-z0-9_]+/;
// A quoted key of a path, `["Le Marais"]`: a string with its escapes.
const KEY = /\["([^"\\\r\n]|\\[^\r\n])*"\]/;

const CMP_OPS = ['==', '!=', '<', '<=', '>', '>='];

/**
 * One or more `rule`, separated by commas, with an optional trailing comma.
 *
 * @param {RuleOrLiteral} rule
 * @returns {SeqRule}
 */
function commaSep1Trailing(rule) {
  return seq(rule, repeat(seq(',', rule)), optional(','));
}

/**
 * One or more `rule`, separated by commas, no trailing comma.
 *
 * @param {RuleOrLiteral} rule
 * @returns {SeqRule}
 */
function commaSep1(rule) {
  return seq(rule, repeat(seq(',', rule)));
}

/**
 * The probe forms (`len`, `exists`, a comparison, `in`, `contains`,
 * `keys(…) contains`) over a
 * path of the given kind, as hidden rules named `PREFIX_len`, ...: `$`
 * paths in `post` (`_post`), a binding with its fields in `pre` (`_pre`).
 * Either way each form is the same node (`len_probe`, ...): see
 * `probeChoice`.
 */
function probeForms(prefix, subject) {
  return {
    [`${prefix}_len`]: $ => seq(
      'len', '(', field('path', subject($)), ')',
      field('operator', $._cmp_op),
      field('value', $.integer),
    ),
    [`${prefix}_exists`]: $ => seq('exists', '(', field('path', subject($)), ')'),
    [`${prefix}_comparison`]: $ => seq(
      field('path', subject($)),
      field('operator', $._cmp_op),
      field('value', $._literal),
    ),
    [`${prefix}_membership`]: $ => seq(
      field('path', subject($)),
      optional(field('negated', 'not')),
      'in',
      '[',
      optional(commaSep1Trailing(field('value', $._literal))),
      ']',
    ),
    [`${prefix}_contains`]: $ => seq(
      field('path', subject($)),
      'contains',
      field('value', $._literal),
    ),
    [`${prefix}_keys`]: $ => seq(
      'keys', '(', field('path', subject($)), ')',
      'contains',
      field('value', $._literal),
    ),
  };
}

/** The probe forms of `probeForms(prefix, ...)`, each as its probe node. */
function probeChoice($, prefix) {
  return choice(
    alias($[`${prefix}_len`], $.len_probe),
    alias($[`${prefix}_exists`], $.exists_probe),
    alias($[`${prefix}_comparison`], $.comparison_probe),
    alias($[`${prefix}_membership`], $.membership_probe),
    alias($[`${prefix}_contains`], $.contains_probe),
    alias($[`${prefix}_keys`], $.keys_probe),
  );
}

module.exports = grammar({
  name: 'planc',

  word: $ => $.identifier,

  // `"a" | "b"` continues an enum or ends one union member: the parser
  // tries both, and the dynamic precedence keeps an all-string enum whole.
  conflicts: $ => [[$.enum_type]],

  // Whitespace is exactly space, tab, CR and LF (planc.ebnf, top comment).
  extras: $ => [/[ \t\r\n]/, $.comment],

  supertypes: $ => [
    $._item,
    $._type,
    $._expression,
    $._pre_probe,
    $._post_probe,
    $._clause,
    $._rule_clause,
  ],

  rules: {
    // ------------------------------------------------------------ files

    source_file: $ => repeat($._item),

    _item: $ => choice(
      $.tool_declaration,
      $.policy_declaration,
      $.plan_declaration,
    ),

    // One or more `///` lines. A single hidden rule shared by every construct
    // that takes docs, so that a doc before `tool`, `policy` or `plan` needs
    // no lookahead past the docs.
    _docs: $ => repeat1(field('doc', $.doc_comment)),

    // ------------------------------------------------------------ tools

    tool_declaration: $ => seq(
      optional($._docs),
      'tool',
      field('name', $._tool_name),
      field('parameters', $.parameter_list),
      '->',
      field('result', $._type),
      repeat(field('attribute', $.tool_attribute)),
    ),

    _tool_name: $ => choice($.dotted_name, $.identifier),

    parameter_list: $ => seq(
      '(',
      optional(commaSep1Trailing($.parameter)),
      ')',
    ),

    parameter: $ => seq(
      optional($._docs),
      field('name', $.identifier),
      ':',
      field('type', $._type),
      optional(seq('=', field('default', $._expression))),
    ),

    // Exactly one of read/write, each attribute at most once: the checker
    // says so, the grammar accepts any sequence (as the EBNF does).
    tool_attribute: _ => choice('read', 'write', 'idempotent', 'untrusted'),

    // ------------------------------------------------------------ types

    _type: $ => choice($._type_atom, $.union_type, $.optional_type),

    // `T?`: T or null; after a union, the whole union.
    optional_type: $ => seq(field('type', choice($._type_atom, $.union_type)), '?'),

    // `string | int`, `1 | 2 | 5`, `true | "auto"`. Members that are all
    // strings are one `enum_type` instead (the dynamic precedence picks it).
    union_type: $ => prec.dynamic(-10, prec.left(seq(
      field('member', $._type_atom),
      repeat1(seq('|', field('member', $._type_atom))),
    ))),

    _type_atom: $ => choice(
      $.primitive_type,
      $.list_type,
      $.map_type,
      $.record_type,
      $.enum_type,
      $.literal_type,
    ),

    // A number or boolean as a type: the one value it names.
    literal_type: $ => choice($.integer, $.decimal, $.boolean),

    primitive_type: _ => choice(
      'string', 'int', 'decimal', 'bool', 'date', 'datetime', 'null', 'any',
    ),

    list_type: $ => seq('[', field('element', $._type), ']'),

    // `{ [string]: T }`: string keys, each to a value of T.
    map_type: $ => seq(
      '{', '[', 'string', ']', ':', field('value', $._type), optional(','), '}',
    ),

    record_type: $ => seq(
      '{',
      optional(commaSep1Trailing($.record_field)),
      '}',
    ),

    // `name?: T` is an optional field.
    record_field: $ => seq(
      optional($._docs),
      field('name', $.identifier),
      optional(field('optional', '?')),
      ':',
      field('type', $._type),
    ),

    // `"a" | "b"`: no interpolation inside.
    enum_type: $ => prec.dynamic(1, seq(
      field('value', alias($._plain_string, $.string)),
      repeat(seq('|', field('value', alias($._plain_string, $.string)))),
    )),

    // ------------------------------------------------------------ policies

    policy_declaration: $ => seq(
      optional($._docs),
      'policy',
      field('name', $.identifier),
      '{',
      repeat(choice($.actor_declaration, $.max_steps_budget, $.policy_replans, $.policy_rule)),
      '}',
    ),

    actor_declaration: $ => seq('actor', field('scopes', $.scope_list)),

    // The most replans of any plan the policy governs.
    policy_replans: $ => seq('replans', '<=', field('value', $.integer)),

    policy_rule: $ => seq(
      field('tool', choice($._tool_name, $.default_tool)),
      repeat($._rule_clause),
    ),

    // `*`: the default rule, for every catalogue tool no other rule names.
    default_tool: _ => '*',

    _rule_clause: $ => choice(
      $.requires_clause,
      $.approval_clause,
      $.where_clause,
      $.untrusted_clause,
      $.effect_clause,
      $.idempotent_clause,
    ),

    requires_clause: $ => seq('requires', field('scopes', $.scope_list)),

    approval_clause: _ => seq('approval', field('approver', 'human')),

    where_clause: $ => seq('where', commaSep1($._where_item)),

    // `total` and `calls` alone are argument names (planc.ebnf `where_item`).
    _where_item: $ => choice(
      $.ceiling,
      $.total_rule,
      $.calls_rule,
      $.list_rule,
      $.pattern_rule,
      $.trusted_rule,
    ),

    // The sum of the argument over every call of the tool.
    total_rule: $ => prec(1, seq(
      'total',
      field('argument', $.identifier),
      '<=',
      field('value', $._literal),
      optional(seq('per', field('per', $.identifier))),
    )),

    // The most calls of the tool.
    calls_rule: $ => prec(1, seq('calls', '<=', field('value', $.integer))),

    // An allowlist, or with `not` a denylist.
    list_rule: $ => seq(
      field('argument', $.identifier),
      optional(field('negated', 'not')),
      'in',
      '[',
      optional(commaSep1Trailing(field('value', $._literal))),
      ']',
    ),

    // The whole value matches the pattern (Rust `regex` syntax).
    pattern_rule: $ => seq(
      field('argument', $.identifier),
      'matches',
      field('pattern', alias($._plain_string, $.string)),
    ),

    // No part of the value comes from untrusted data.
    trusted_rule: $ => seq(field('argument', $.identifier), 'trusted'),

    // The policy distrusts the tool's output.
    untrusted_clause: _ => seq('untrusted', optional(choice('true', 'false'))),

    // The tool's effect and idempotence, where the catalogue leaves them
    // unsaid.
    effect_clause: _ => seq('effect', field('effect', choice('read', 'write'))),

    idempotent_clause: _ => seq('idempotent', optional(choice('true', 'false'))),

    scope_list: $ => seq(
      '[',
      optional(commaSep1Trailing(choice(
        $.scope,
        alias($.identifier, $.scope),
      ))),
      ']',
    ),

    // `total` and `calls` name arguments too, where no rule reads them:
    // `total <= 5` is a ceiling, `calls <= 3` the calls rule.
    ceiling: $ => seq(
      field('argument', choice(
        $.identifier,
        alias(choice('total', 'calls'), $.identifier),
      )),
      field('operator', $._cmp_op),
      field('value', $._literal),
    ),

    // ------------------------------------------------------------ plans

    plan_declaration: $ => seq(
      optional($._docs),
      'plan',
      field('name', $.identifier),
      // The goal takes no interpolation.
      optional(field('goal', alias($._plain_string, $.string))),
      '{',
      repeat(choice($.replans_budget, $.max_steps_budget, $.step)),
      '}',
    ),

    replans_budget: $ => seq('replans', field('value', $.integer)),

    max_steps_budget: $ => seq('max_steps', field('value', $.integer)),

    step: $ => seq(
      optional($._docs),
      'step',
      field('name', $.identifier),
      '=',
      field('tool', $._tool_name),
      field('arguments', $.argument_list),
      optional(field('body', $.step_body)),
    ),

    argument_list: $ => seq(
      '(',
      optional(commaSep1Trailing($.argument)),
      ')',
    ),

    // Also covers the EBNF's SCOPE form (`count:5`, `as_of:2026-03-04`): see
    // the note at the top of this file.
    argument: $ => seq(
      field('name', $.identifier),
      ':',
      field('value', $._expression),
    ),

    step_body: $ => seq('{', repeat($._clause), '}'),

    _clause: $ => choice(
      $.pre_clause,
      $.post_clause,
      $.bind_clause,
      $.on_unmet_clause,
      $.retry_clause,
      $.after_clause,
    ),

    // A `pre` probe's path is a binding with its fields, never `$`
    // (planc.ebnf `pre_probe`); a `post` probe's is a `$` path (`probe`).
    pre_clause: $ => seq('pre', field('probe', $._pre_probe)),

    post_clause: $ => seq('post', field('probe', $._post_probe)),

    bind_clause: $ => seq(
      'bind',
      field('name', $.identifier),
      '=',
      field('path', $.path),
    ),

    on_unmet_clause: _ => seq(
      'on_unmet',
      field('action', choice('replan', 'halt', 'escalate')),
    ),

    retry_clause: $ => seq('retry', field('count', $.integer)),

    after_clause: $ => seq('after', commaSep1(field('step', $.identifier))),

    // ------------------------------------------------------------ probes

    _pre_probe: $ => probeChoice($, '_pre'),

    _post_probe: $ => probeChoice($, '_post'),

    ...probeForms('_pre', $ => $._subject),

    ...probeForms('_post', $ => $.path),

    // A binding with its fields (`settings.region`): a `pre` probe's path.
    _subject: $ => choice($.identifier, $.dotted_name, $.indexed_name),

    _cmp_op: _ => choice(...CMP_OPS),

    // ------------------------------------------------------------ expressions

    _expression: $ => choice(
      $.string,
      $.integer,
      $.decimal,
      $.date,
      $.datetime,
      $.boolean,
      $.null,
      // A reference: a binding, then member names.
      $.identifier,
      $.dotted_name,
      $.list,
      $.record,
    ),

    list: $ => seq('[', optional(commaSep1Trailing($._expression)), ']'),

    record: $ => seq('{', optional(commaSep1Trailing($.entry)), '}'),

    // Also covers the SCOPE form, as `argument` does.
    entry: $ => seq(
      field('key', $.identifier),
      ':',
      field('value', $._expression),
    ),

    // A STRING here is plain text: `${` is kept as written.
    _literal: $ => choice(
      alias($._plain_string, $.string),
      $.integer,
      $.decimal,
      $.date,
      $.datetime,
      $.boolean,
      $.null,
    ),

    boolean: _ => choice('true', 'false'),

    null: _ => 'null',

    // ------------------------------------------------------------ strings

    // A string that may interpolate references.
    string: $ => seq(
      '"',
      repeat(choice(
        $.string_content,
        alias($._dollar, $.string_content),
        $.escape_sequence,
        $.interpolation,
      )),
      token.immediate('"'),
    ),

    // A string whose `${` is plain text.
    _plain_string: $ => seq(
      '"',
      repeat(choice(
        alias($._plain_string_content, $.string_content),
        $.escape_sequence,
      )),
      token.immediate('"'),
    ),

    // prec(1): inside a string, `//` is text, not the start of a comment.
    string_content: _ => token.immediate(prec(1, /[^"\\$\n]+/)),

    // A `$` not followed by `{`: a separate token, so that `${` (longer, same
    // precedence) wins where it applies.
    _dollar: _ => token.immediate('$'),

    _plain_string_content: _ => token.immediate(prec(1, /[^"\\\n]+/)),

    // `\"` `\\` `\n` `\t` `\r` `\0` `\$`, and `\u{…}` with 1 to 6 hex digits.
    escape_sequence: _ => token.immediate(seq(
      '\\',
      choice(/["\\ntr0$]/, /u\{[0-9a-fA-F]{1,6}\}/),
    )),

    // `${name}` or `${name.member}`, no spaces inside.
    interpolation: $ => seq(
      token.immediate('${'),
      field('reference', choice(
        alias(token.immediate(DOTTED), $.dotted_name),
        alias(token.immediate(IDENT), $.identifier),
      )),
      token.immediate('}'),
    ),

    // ------------------------------------------------------------ tokens

    identifier: _ => IDENT,

    // `billing.issue_credit`, `facts.plan`: no spaces around the dots.
    dotted_name: _ => token(DOTTED),

    // `tags[0].name`, `accounts[2]`, `ratings["Le Marais"]`: a binding with
    // fields, indexes and keys, in a `pre` probe; no spaces.
    // A name `in` right before its `[` is the word `in` and a list
    // (`x in["a"]`), as planc's lexer reads it.
    indexed_name: _ => token(seq(
      choice(
        seq(IDENT_NOT_IN, repeat(seq('.', IDENT))),
        seq('in', repeat1(seq('.', IDENT))),
      ),
      choice(/\[[0-9]+\]/, KEY),
      repeat(choice(seq('.', IDENT), /\[[0-9]+\]/, KEY)),
    )),

    // `billing:write`, `crm:*`, `files:read:v1.2-x`: no spaces.
    scope: _ => token(seq(IDENT, repeat1(seq(':', /[A-Za-z0-9_*.\-]+/)))),

    // `$`, `$.results[0].id`, `$.ratings["Le Marais"]`: no spaces.
    path: _ => token(seq(
      '$',
      repeat(choice(seq('.', IDENT), /\[[0-9]+\]/, KEY)),
    )),

    integer: _ => token(/-?[0-9]+/),

    decimal: _ => token(/-?[0-9]+\.[0-9]+/),

    date: _ => token(/[0-9]{4}-[0-9]{2}-[0-9]{2}/),

    datetime: _ => token(seq(
      /[0-9]{4}-[0-9]{2}-[0-9]{2}[Tt][0-9]{2}:[0-9]{2}:[0-9]{2}/,
      optional(/\.[0-9]+/),
      choice('Z', 'z', /[+-][0-9]{2}:[0-9]{2}/),
    )),

    // `///` attaches to what follows; it wins over `//` where the grammar
    // accepts a doc comment, and is an ordinary comment elsewhere.
    // `////` is a plain comment, as in Rust, so a doc comment's text may
    // not start with `/`; a bare `///` is a plain comment here too.
    doc_comment: _ => token(prec(2, /\/\/\/[^\/\n][^\n]*/)),

    comment: _ => token(prec(-1, seq('//', /[^\n]*/))),
  },
});
