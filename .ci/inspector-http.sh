#!/usr/bin/env bash
# The MCP Inspector CLI (@modelcontextprotocol/inspector 2.x, an outside
# judge) against `mcp-wasm serve --http` on loopback, serving the
# conformance fixture provider, in the legacy, modern and auto eras:
# resources/list, resources/templates/list and resources/read (text, a
# template, a PNG blob written out byte for byte) must succeed with the
# expected content, 2026-07-28 results must carry the cache hints and legacy
# ones must not, and a read of a missing resource must fail. The server runs
# with --resource-tools: tools/list must hold the tools view (its schemas
# portable: --strict), and tools/call must list, read (text, and the PNG as
# image content) and complete the same resources, a missing one being a tool
# error.
# Needs Node >= 22.19 on PATH (.ci/run provides it).
set -euo pipefail
cd "$(dirname "$0")/.."

. .ci/lib.sh
I=$(inspector_bin)

go build -o build/mcp-wasm ./cmd/mcp-wasm
make -s build/guests/conformance.wasm
TMP=$(mktemp -d)
build/mcp-wasm serve --http 127.0.0.1:0 --module build/guests/conformance.wasm --resource-tools \
  --cache-dir "$PWD/build/ci-cache" --log-level warn --audit-log off 2>"$TMP/serve.log" &
SERVER=$!
trap 'kill "$SERVER" 2>/dev/null; wait "$SERVER" 2>/dev/null || true; rm -rf "$TMP"' EXIT
URL=""
for _ in $(seq 1 600); do
  URL=$(sed -n 's/.*mcp-wasm: serving MCP on \(http:[^ ]*\).*/\1/p' "$TMP/serve.log" | head -1)
  [ -n "$URL" ] && break
  kill -0 "$SERVER" 2>/dev/null || { echo "inspector-http: serve exited:"; cat "$TMP/serve.log"; exit 1; }
  sleep 0.2
done
[ -n "$URL" ] || { echo "inspector-http: serve did not start in 120s"; cat "$TMP/serve.log"; exit 1; }

fail=0
inspect() { # era, inspector args...
  local era=$1; shift
  timeout 120 "$I" --cli "$URL" --transport http --protocol-era "$era" "$@" -q
}
check() { # era, expected substring, unexpected substring ("" for none), inspector args...
  local era=$1 want=$2 unwanted=$3; shift 3
  local out
  if ! out=$(inspect "$era" "$@" --format json 2>&1); then
    echo "inspector-http FAIL ($era $*): $out"; fail=1; return
  fi
  if [[ "$out" != *"$want"* ]] || { [ -n "$unwanted" ] && [[ "$out" == *"$unwanted"* ]]; }; then
    echo "inspector-http FAIL ($era $*): want $want${unwanted:+, not $unwanted}: $out"; fail=1; return
  fi
  echo "inspector-http ok ($era $*: $want)"
}

for era in legacy modern auto; do
  hints='"ttlMs"' nohints=''
  if [ "$era" = legacy ]; then hints='"contents"' nohints='"ttlMs"'; fi
  check "$era" '"uri":"test://watched-resource"' "" --method resources/list
  check "$era" '"uriTemplate":"test://template/{id}/data"' "" --method resources/templates/list
  check "$era" 'This is the content of the static text resource.' "$nohints" --method resources/read --uri test://static-text
  check "$era" "$hints" "$nohints" --method resources/read --uri test://static-text
  check "$era" 'Data for ID: 123' "" --method resources/read --uri test://template/123/data
  if inspect "$era" --method resources/read --uri test://static-binary --output "$TMP/$era.png" --output-format raw >/dev/null 2>&1 &&
    cmp -s "$TMP/$era.png" guests/conformance/fixtures/pixel.png; then
    echo "inspector-http ok ($era static-binary: the PNG arrives byte for byte)"
  else
    echo "inspector-http FAIL ($era): test://static-binary did not arrive as guests/conformance/fixtures/pixel.png"; fail=1
  fi
  if out=$(inspect "$era" --method resources/read --uri test://nonexistent-resource-for-conformance-testing --format json 2>&1); then
    echo "inspector-http FAIL ($era): reading a missing resource succeeded: $out"; fail=1
  elif [[ "$out" != *"resource not found"* ]]; then
    echo "inspector-http FAIL ($era): a missing resource failed the wrong way: $out"; fail=1
  else
    echo "inspector-http ok ($era missing resource refused)"
  fi
  call() { check "$era" "$1" "" --method tools/call --tool-name "${@:2}"; }
  check "$era" '"name":"complete_resource_argument"' "" --method tools/list --strict
  call '"uri":"test://watched-resource"' list_resources
  call '"uriTemplate":"test://template/{id}/data"' list_resource_templates
  call 'This is the content of the static text resource.' read_resource --tool-arg uri=test://static-text
  call '"type":"image","data":"iVBORw0KGgo' read_resource --tool-arg uri=test://static-binary
  call 'Data for ID: 123' read_resource --tool-arg uri=test://template/123/data
  call '"values":["123"' complete_resource_argument --tool-arg 'uriTemplate=test://template/{id}/data' --tool-arg argument=id --tool-arg value=12
  if out=$(inspect "$era" --method tools/call --tool-name read_resource --tool-arg uri=test://nonexistent-resource-for-conformance-testing --format json 2>&1); then
    echo "inspector-http FAIL ($era): reading a missing resource through the tool succeeded: $out"; fail=1
  elif [[ "$out" != *'"isError":true'* || "$out" != *"resource not found: test://nonexistent"* ]]; then
    echo "inspector-http FAIL ($era): a missing resource through the tool failed the wrong way: $out"; fail=1
  else
    echo "inspector-http ok ($era missing resource through the tool: a tool error result)"
  fi
done
if [ "$fail" -ne 0 ]; then
  echo "inspector-http: FAILED; server log:"; cat "$TMP/serve.log"; exit 1
fi
echo "inspector-http: all checks passed"
