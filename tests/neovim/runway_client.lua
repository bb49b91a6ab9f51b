-- The README's Neovim recipe ("Attach the language server to an editor"), as a user puts it
-- in init.lua: one shared client for every runway buffer (Neovim 0.7 has no vim.lsp.start).
-- Only `cmd` differs: the test passes the server command (JSON) in RUNWAY_NVIM_CMD.
local server_cmd = vim.fn.json_decode(vim.env.RUNWAY_NVIM_CMD)

local runway_client = nil
vim.api.nvim_create_autocmd({ "BufReadPost", "BufNewFile" }, {
  pattern = { "runway.yaml", "runway.yml" },
  callback = function(args)
    if runway_client == nil or vim.lsp.get_client_by_id(runway_client) == nil then
      runway_client = vim.lsp.start_client({
        name = "runway",
        cmd = server_cmd,
        root_dir = vim.fn.getcwd(),
        -- optional, see Settings below: price a single `size:` in production in inlay hints
        settings = { runway = { inlayHints = { environment = "production" } } },
      })
    end
    vim.lsp.buf_attach_client(args.buf, runway_client)
  end,
})
