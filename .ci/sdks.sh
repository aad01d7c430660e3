#!/usr/bin/env bash
# Every SDK's example provider, as an author ships it: `mcp-wasm check`
# passes on it, and `serve` answers an MCP client's read of it over stdio.
# Run by .ci/run after `make build guests`. (`make check` also runs
# TestWritingAProvider, which builds a `mcp-wasm new` project in every
# language and checks and serves it.)
set -euo pipefail
cd "$(dirname "$0")/.."

for g in catalog-go catalog-c catalog-rust catalog-as; do
  echo "ci: check and serve build/guests/$g.wasm"
  build/mcp-wasm check build/guests/$g.wasm >/tmp/ci-check-$g.txt || { cat /tmp/ci-check-$g.txt; exit 1; }
  tail -1 /tmp/ci-check-$g.txt
  got=$(printf '%s\n' \
    '{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"ci","version":"1"}}}' \
    '{"jsonrpc":"2.0","method":"notifications/initialized"}' \
    '{"jsonrpc":"2.0","id":2,"method":"resources/read","params":{"uri":"catalog:///items/apple"}}' |
    timeout 120 build/mcp-wasm serve --log-level warn --module build/guests/$g.wasm | tail -1)
  want='{"jsonrpc":"2.0","id":2,"result":{"contents":[{"uri":"catalog:///items/apple","mimeType":"text/plain","text":"Apples are crisp.\n"}]}}'
  if [ "$got" != "$want" ]; then
    echo "ci: serve $g answered: $got" >&2
    exit 1
  fi
done
