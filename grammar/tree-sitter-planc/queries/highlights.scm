; Highlights for planc.
;
; Every node gets at most one capture: editors disagree on whether the first
; or the last matching pattern wins (tree-sitter-highlight and Helix take the
; first, Neovim the last), so no two patterns here overlap.

; ------------------------------------------------------------ comments

(comment) @comment

(doc_comment) @comment.documentation

; ------------------------------------------------------------ keywords

[
  "tool"
  "policy"
  "plan"
  "step"
] @keyword

[
  "actor"
  "max_steps"
  "replans"
  "requires"
  "approval"
  "where"
  "pre"
  "post"
  "bind"
  "on_unmet"
  "retry"
  "after"
  "total"
  "calls"
  "per"
] @keyword

[
  "in"
  "not"
  "contains"
  "matches"
] @keyword.operator

(trusted_rule "trusted" @keyword.modifier)

(tool_attribute) @keyword.modifier

(untrusted_clause) @keyword.modifier

(idempotent_clause) @keyword.modifier

(effect_clause) @keyword.modifier

(approval_clause
  approver: _ @constant.builtin)

(on_unmet_clause
  action: _ @constant.builtin)

; ------------------------------------------------------------ types

(primitive_type) @type.builtin

; ------------------------------------------------------------ declarations and names

(tool_declaration
  name: [
    (identifier)
    (dotted_name)
  ] @function)

(policy_rule
  tool: [
    (identifier)
    (dotted_name)
  ] @function)

(policy_rule
  tool: (default_tool) @function)

(step
  tool: [
    (identifier)
    (dotted_name)
  ] @function.call)

(policy_declaration
  name: (identifier) @module)

(plan_declaration
  name: (identifier) @module)

(step
  name: (identifier) @label)

(after_clause
  step: (identifier) @label)

(parameter
  name: (identifier) @variable.parameter)

(argument
  name: (identifier) @variable.parameter)

(ceiling
  argument: (identifier) @variable.parameter)

(record_field
  name: (identifier) @property)

(entry
  key: (identifier) @property)

(bind_clause
  name: (identifier) @variable)

; References: a binding, then member names.
(argument
  value: [
    (identifier)
    (dotted_name)
  ] @variable)

(entry
  value: [
    (identifier)
    (dotted_name)
  ] @variable)

(list
  [
    (identifier)
    (dotted_name)
  ] @variable)

(parameter
  default: [
    (identifier)
    (dotted_name)
  ] @variable)

(interpolation
  reference: _ @variable)

; ------------------------------------------------------------ probes

[
  "len"
  "exists"
  "keys"
] @function.builtin

(path) @string.special.path

(scope) @string.special.symbol

; ------------------------------------------------------------ literals

; Escapes and interpolations are children of the string: their captures nest
; inside the string's.
(string) @string

(escape_sequence) @string.escape

(interpolation
  [
    "${"
    "}"
  ] @punctuation.special)

(integer) @number

(decimal) @number.float

(date) @number.date

(datetime) @number.date

(boolean) @boolean

(null) @constant.builtin

; ------------------------------------------------------------ operators and punctuation

[
  "=="
  "!="
  "<"
  "<="
  ">"
  ">="
  "="
  "->"
  "|"
  "?"
] @operator

[
  "("
  ")"
  "["
  "]"
] @punctuation.bracket

; Braces one parent at a time: the `}` closing an interpolation is
; @punctuation.special, and a node must not match two patterns.
(record_type
  [
    "{"
    "}"
  ] @punctuation.bracket)

(record
  [
    "{"
    "}"
  ] @punctuation.bracket)

(policy_declaration
  [
    "{"
    "}"
  ] @punctuation.bracket)

(plan_declaration
  [
    "{"
    "}"
  ] @punctuation.bracket)

(step_body
  [
    "{"
    "}"
  ] @punctuation.bracket)

[
  ","
  ":"
] @punctuation.delimiter
