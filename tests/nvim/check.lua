-- Headless Neovim (0.7 or later) as a client of `planc lsp`: opens a plan,
-- waits for the server's diagnostics, writes them to a file one per line
-- (`LINE:COL CODE message`), and exits non-zero when they do not come or
-- lack an expected code.
--
-- Environment: PLANC_BIN (the planc binary), PLANC_PLAN (the plan to open),
-- PLANC_OUT (where to write), PLANC_EXPECT (codes, space-separated),
-- PLANC_TIMEOUT_MS (default 20000).

local bin = os.getenv("PLANC_BIN") or "planc"
local plan = os.getenv("PLANC_PLAN")
local out = os.getenv("PLANC_OUT")
local expect = os.getenv("PLANC_EXPECT") or ""
local timeout_ms = tonumber(os.getenv("PLANC_TIMEOUT_MS") or "20000")

local function fail(msg)
  io.stderr:write("nvim check: " .. msg .. "\n")
  vim.cmd("cquit 1")
end

if not plan or not out then
  return fail("PLANC_PLAN and PLANC_OUT must be set")
end

vim.cmd("edit " .. vim.fn.fnameescape(plan))
local bufnr = vim.api.nvim_get_current_buf()
vim.bo[bufnr].filetype = "planc"

local client_id = vim.lsp.start_client({
  name = "planc",
  cmd = { bin, "lsp" },
  root_dir = vim.fn.fnamemodify(plan, ":p:h"),
})
if not client_id then
  return fail("cannot start `" .. bin .. " lsp`")
end
vim.lsp.buf_attach_client(bufnr, client_id)

local arrived = vim.wait(timeout_ms, function()
  return #vim.diagnostic.get(bufnr) > 0
end, 50)
if not arrived then
  return fail("no diagnostics from the server within " .. timeout_ms .. " ms")
end

local lines, seen = {}, {}
for _, d in ipairs(vim.diagnostic.get(bufnr)) do
  local code = d.code
  if code == nil and d.user_data and d.user_data.lsp then
    code = d.user_data.lsp.code
  end
  code = tostring(code or "?")
  seen[code] = true
  local first = d.message:gsub("\n.*", "")
  table.insert(lines, string.format("%d:%d %s %s", d.lnum + 1, d.col + 1, code, first))
end
table.sort(lines)
vim.fn.writefile(lines, out)

for code in expect:gmatch("%S+") do
  if not seen[code] then
    return fail("expected " .. code .. " among the diagnostics: " .. table.concat(lines, "; "))
  end
end

-- Edits through Neovim's incremental sync (the server asks for it): each
-- change goes as a range in UTF-16 columns, and the diagnostics must follow
-- the buffer. First `4180` becomes `418` (under the ceiling: E0303 goes),
-- then `, extra: 1` is typed after the reason's emoji, whose four bytes are
-- two UTF-16 units (E0102 comes; a range the server misapplied would
-- leave a syntax error instead).
if os.getenv("PLANC_EDIT") then
  local function codes()
    local found = {}
    for _, d in ipairs(vim.diagnostic.get(bufnr)) do
      local code = d.code
      if code == nil and d.user_data and d.user_data.lsp then
        code = d.user_data.lsp.code
      end
      found[tostring(code or "?")] = true
    end
    return found
  end
  local function edit(needle, from, to, with, want, gone, what)
    local lines = vim.api.nvim_buf_get_lines(bufnr, 0, -1, false)
    for i, line in ipairs(lines) do
      local at = line:find(needle, 1, true)
      if at then
        local col = at - 1 + from
        vim.api.nvim_buf_set_text(bufnr, i - 1, col, i - 1, col + (to - from), { with })
        local ok = vim.wait(timeout_ms, function()
          local c = codes()
          return (want == nil or c[want]) and (gone == nil or not c[gone]) and not c["E0002"]
        end, 50)
        if not ok then
          local now = {}
          for code in pairs(codes()) do
            table.insert(now, code)
          end
          table.sort(now)
          return fail(what .. ": the diagnostics did not follow the edit: " .. table.concat(now, " "))
        end
        return true
      end
    end
    return fail(what .. ": `" .. needle .. "` not in the buffer")
  end
  if not edit("4180", 0, 4, "418", "E0105", "E0303", "the credit under the ceiling") then
    return
  end
  if not edit('\240\159\152\128"', 5, 5, ", extra: 1", "E0102", "E0303", "an argument after the emoji") then
    return
  end
  table.insert(lines, "after the edits: E0102 E0105")
  vim.fn.writefile(lines, out)
end

vim.lsp.stop_client(client_id)
vim.wait(2000, function()
  return vim.lsp.get_client_by_id(client_id) == nil
end, 50)
vim.cmd("qall!")
