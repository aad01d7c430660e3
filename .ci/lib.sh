# Shared by the .ci scripts; source it after cd to the repository root.

# inspector_bin installs the pinned MCP Inspector into ~/.cache (once) and
# prints the path of its CLI. Needs Node >= 22.19 on PATH.
inspector_bin() {
  local version=2.12.0
  local dir="${HOME}/.cache/mcp-wasm-ci/inspector-${version}"
  if [ ! -x "$dir/node_modules/.bin/mcp-inspector" ]; then
    mkdir -p "$dir"
    (cd "$dir" && npm init -y >/dev/null && npm install --no-audit --no-fund "@modelcontextprotocol/inspector@${version}" >/dev/null)
  fi
  echo "$dir/node_modules/.bin/mcp-inspector"
}
