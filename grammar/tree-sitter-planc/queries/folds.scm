; Folding ranges for planc (Neovim's `foldexpr=v:lua.vim.treesitter.foldexpr()`).

[
  (tool_declaration)
  (policy_declaration)
  (plan_declaration)
  (step)
  (step_body)
  (parameter_list)
  (argument_list)
  (record_type)
  (record)
  (list)
] @fold
