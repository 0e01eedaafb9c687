; Scopes, definitions and references for planc.
;
; A plan is the scope of its steps and of the names its steps bind. Later
; steps refer to a binding by name (an argument, a record entry, a list
; element, an interpolation); `after` refers to a step by name.

(plan_declaration) @local.scope

(step
  name: (identifier) @local.definition)

(bind_clause
  name: (identifier) @local.definition)

(after_clause
  step: (identifier) @local.reference)

(argument
  value: (identifier) @local.reference)

(entry
  value: (identifier) @local.reference)

(list
  (identifier) @local.reference)

(interpolation
  reference: (identifier) @local.reference)
