-- Drives a real Neovim (0.7+) against runway-lsp; run by tests/e2e/test_neovim.py as
--   nvim --headless --clean -i NONE -n -c "luafile tests/neovim/e2e.lua"
-- with RUNWAY_NVIM_CONFIG naming a JSON file (paths, positions, the output file) and
-- RUNWAY_NVIM_CMD the server command (read by runway_client.lua, the README's recipe).
--
-- It only drives the editor and records what the editor saw, as JSON: the Python test makes
-- every assertion. Each step runs under pcall, so one failing step is recorded (errors[step])
-- and the next ones still run; the script always writes its results and quits. Waits are
-- "until" waits (vim.wait with a condition) bounded by config.wait_ms, never sleeps.

local config = vim.fn.json_decode(table.concat(vim.fn.readfile(vim.env.RUNWAY_NVIM_CONFIG), "\n"))
local here = vim.fn.fnamemodify(debug.getinfo(1, "S").source:sub(2), ":p:h") .. "/"
local WAIT = config.wait_ms

local out = { errors = {}, nvim_version = tostring(vim.version().major) .. "." .. tostring(vim.version().minor) .. "." .. tostring(vim.version().patch) }

local function write_out()
  local f = assert(io.open(config.out, "w"))
  f:write(vim.fn.json_encode(out))
  f:close()
end

out.seconds = {} -- how long each step took: for reading a slow run, never asserted

local function step(name, fn)
  local started = vim.loop.hrtime()
  local ok, err = pcall(fn)
  out.seconds[name] = (vim.loop.hrtime() - started) / 1e9
  if not ok then
    out.errors[name] = tostring(err)
  end
end

local function runway_client()
  for _, client in ipairs(vim.lsp.get_active_clients()) do
    if client.name == "runway" then
      return client
    end
  end
  return nil
end

local function uri(bufnr)
  return vim.uri_from_bufnr(bufnr)
end

-- vim.diagnostic entries as plain data (0-based lines; columns in bytes, as Neovim keeps them).
local function diagnostics_of(bufnr)
  local list = {}
  for _, d in ipairs(vim.diagnostic.get(bufnr)) do
    table.insert(list, {
      lnum = d.lnum, col = d.col, end_lnum = d.end_lnum, end_col = d.end_col,
      code = d.code, severity = d.severity, source = d.source, message = d.message,
    })
  end
  return list
end

local function has_code(bufnr, code)
  for _, d in ipairs(vim.diagnostic.get(bufnr)) do
    if d.code == code then
      return true
    end
  end
  return false
end

-- One request through the editor; returns the runway client's result (or raises its error).
local function request(bufnr, method, params)
  local responses, err = vim.lsp.buf_request_sync(bufnr, method, params, WAIT)
  if responses == nil then
    error(method .. ": no answer (" .. tostring(err) .. ")")
  end
  local client = runway_client()
  local response = responses[client.id]
  if response == nil then
    error(method .. ": the runway client did not answer")
  end
  if response.err ~= nil then
    error(method .. ": " .. vim.inspect(response.err))
  end
  return response.result
end

local function open(path)
  vim.cmd("edit " .. vim.fn.fnameescape(path))
  return vim.api.nvim_get_current_buf()
end

local function save(bufnr)
  vim.api.nvim_buf_call(bufnr, function()
    vim.cmd("silent write")
  end)
end

-- How many publishDiagnostics each URI received (Neovim's own handler still runs).
local published = {}
local publish_handler = vim.lsp.handlers["textDocument/publishDiagnostics"]
vim.lsp.handlers["textDocument/publishDiagnostics"] = function(err, result, ctx, config)
  if result and result.uri then
    published[result.uri] = (published[result.uri] or 0) + 1
  end
  return publish_handler(err, result, ctx, config)
end

local function main()
  vim.o.hidden = true -- keep edited buffers loaded while another one is shown
  dofile(here .. "runway_client.lua")

  -- 1. Diagnostics of the root runway, pushed by the server after didOpen.
  local root = open(config.root)
  step("diagnostics", function()
    out.diagnostics_arrived = vim.wait(WAIT, function()
      return has_code(root, "RW140")
    end, 20)
    out.attached = #vim.tbl_keys(vim.lsp.buf_get_clients(root)) > 0
    out.diagnostics = diagnostics_of(root)
    local client = runway_client()
    out.offset_encoding = client.offset_encoding
    out.client_id = client.id
    out.server_pid = client.rpc and client.rpc.pid or vim.NIL
  end)

  -- 2. Hover on a resource name: its cost in every environment.
  step("hover", function()
    local result = request(root, "textDocument/hover", { textDocument = { uri = uri(root) }, position = config.hover })
    out.hover = result.contents
  end)

  -- 3. Code lenses of the root runway.
  step("code_lens", function()
    local lenses = {}
    for _, lens in ipairs(request(root, "textDocument/codeLens", { textDocument = { uri = uri(root) } }) or {}) do
      table.insert(lenses, { line = lens.range.start.line, title = lens.command and lens.command.title or vim.NIL })
    end
    out.code_lenses = lenses
  end)

  -- 3b. Inlay hints: a single size is priced in the environment of the `runway` settings
  -- that runway_client.lua passes to start_client (Neovim 0.7 answers workspace/configuration
  -- from them; it never sends them by itself).
  step("inlay_hints", function()
    local params = { textDocument = { uri = uri(root) }, range = { start = { line = 0, character = 0 }, ["end"] = { line = 10000, character = 0 } } }
    local hints = {}
    for _, hint in ipairs(request(root, "textDocument/inlayHint", params) or {}) do
      table.insert(hints, { line = hint.position.line, label = hint.label })
    end
    out.inlay_hints = hints
  end)

  -- 4. Completion at a size value.
  step("completion", function()
    local result = request(root, "textDocument/completion", { textDocument = { uri = uri(root) }, position = config.completion })
    local items = result.items or result
    local list = {}
    for _, item in ipairs(items) do
      table.insert(list, { label = item.label, detail = item.detail, sortText = item.sortText, textEdit = item.textEdit })
    end
    out.completion = list
  end)

  -- 5. A quick fix in a broken copy: the client's own diagnostics go back in the context, as
  --    vim.lsp.buf.code_action() sends them; the preferred action's edit is applied and saved.
  step("quick_fix", function()
    local broken = open(config.broken)
    out.broken_same_client = vim.lsp.buf_get_clients(broken)[out.client_id] ~= nil
    out.fix_diagnostic_arrived = vim.wait(WAIT, function()
      return has_code(broken, config.fix_code)
    end, 20)
    local target = nil
    for _, d in ipairs(vim.diagnostic.get(broken)) do
      if d.code == config.fix_code then
        target = d
      end
    end
    local context = vim.lsp.diagnostic.get_line_diagnostics(broken, target.lnum, nil, out.client_id)
    local params = {
      textDocument = { uri = uri(broken) },
      range = { start = { line = target.lnum, character = target.col }, ["end"] = { line = target.end_lnum, character = target.end_col } },
      context = { diagnostics = context },
    }
    local actions = request(broken, "textDocument/codeAction", params) or {}
    local chosen = nil
    out.code_actions = {}
    for _, action in ipairs(actions) do
      table.insert(out.code_actions, { title = action.title, kind = action.kind, isPreferred = action.isPreferred or false })
      if chosen == nil and action.isPreferred then
        chosen = action
      end
    end
    out.applied_action = chosen.title
    local published_before = published[uri(broken)] or 0
    vim.lsp.util.apply_workspace_edit(chosen.edit, runway_client().offset_encoding)
    save(broken)
    out.fix_diagnostic_cleared = vim.wait(WAIT, function()
      return (published[uri(broken)] or 0) > published_before and not has_code(broken, config.fix_code)
    end, 20)
    out.broken_diagnostics = diagnostics_of(broken)
  end)

  -- 6. Rename a resource across the root and its members; apply, save every buffer, and wait
  --    until the group's diagnostics are back to the example's one real error.
  step("rename", function()
    local position = config.rename.position
    local prepared = request(root, "textDocument/prepareRename", { textDocument = { uri = uri(root) }, position = position })
    out.prepare_rename = prepared
    local edit = request(root, "textDocument/rename", { textDocument = { uri = uri(root) }, position = position, newName = config.rename.new_name })
    local files = {}
    for file_uri, _ in pairs(edit.changes or {}) do
      table.insert(files, file_uri)
    end
    for _, change in ipairs(edit.documentChanges or {}) do
      table.insert(files, change.textDocument.uri)
    end
    table.sort(files)
    out.rename_files = files
    local published_before = published[uri(root)] or 0
    vim.lsp.util.apply_workspace_edit(edit, runway_client().offset_encoding)
    local buffers = {}
    for _, file_uri in ipairs(files) do
      table.insert(buffers, vim.uri_to_bufnr(file_uri))
    end
    -- Members first, the root last: when the server hears of the root's save, every file
    -- of the group is already on disk (a member buffer may not be attached to the client).
    out.rename_attached = {}
    for _, b in ipairs(buffers) do
      out.rename_attached[uri(b)] = vim.lsp.buf_get_clients(b)[out.client_id] ~= nil
      if b ~= root then
        save(b)
      end
    end
    save(root)
    -- Settled: the server published the root again after the edit, and no file of the group
    -- has a diagnostic but the example's RW140.
    out.rename_settled = vim.wait(WAIT, function()
      if (published[uri(root)] or 0) <= published_before then
        return false
      end
      for _, b in ipairs(buffers) do
        for _, d in ipairs(vim.diagnostic.get(b)) do
          if d.code ~= "RW140" then
            return false
          end
        end
      end
      return has_code(root, "RW140")
    end, 20)
    local after = {}
    for _, b in ipairs(buffers) do
      after[uri(b)] = diagnostics_of(b)
    end
    out.rename_diagnostics = after
  end)

  -- 7. Stop the client (shutdown + exit): the server process must end.
  step("stop", function()
    local client = runway_client()
    local id = client.id
    vim.lsp.stop_client(id)
    out.stopped = vim.wait(WAIT, function()
      return vim.lsp.get_client_by_id(id) == nil
    end, 20)
  end)
end

step("main", main)
write_out()
vim.cmd("qall!")
