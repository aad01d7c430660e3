#!/usr/bin/env bash
# The MCP Inspector CLI (@modelcontextprotocol/inspector 2.x, an outside
# judge) against `mcp-wasm serve` over stdio, in the legacy and modern eras:
# resources/list, resources/templates/list and resources/read must succeed
# with the expected content, and a read of a missing resource must fail.
# Needs Node >= 22.19 on PATH (.ci/run provides it).
set -euo pipefail
cd "$(dirname "$0")/.."

. .ci/lib.sh
I=$(inspector_bin)

go build -o build/mcp-wasm ./cmd/mcp-wasm
BIN="$PWD/build/mcp-wasm"
DATA=$(mktemp -d)
trap 'rm -rf "$DATA"' EXIT
mkdir -p "$DATA/docs"
printf 'hello from the inspector test\n' > "$DATA/hello.txt"
printf '# Guide\n' > "$DATA/docs/guide.md"
printf 'secret' > "$DATA/.hidden"

SERVE=("$BIN" serve --allow-dir "$DATA" --cache-dir "$PWD/build/ci-cache" --log-level warn)
fail=0
check() { # era, expected substring, inspector args...
  local era=$1 want=$2; shift 2
  local out
  if ! out=$(timeout 120 "$I" --cli --protocol-era "$era" "$@" --format json -q -- "${SERVE[@]}" 2>&1); then
    echo "inspector FAIL ($era $*): $out"; fail=1; return
  fi
  if [[ "$out" != *"$want"* ]]; then
    echo "inspector FAIL ($era $*): output lacks $want: $out"; fail=1; return
  fi
  echo "inspector ok ($era $*)"
}

for era in legacy modern; do
  check "$era" '"uri":"file:///docs/guide.md"' --method resources/list
  check "$era" '"uriTemplate":"file:///{+path}"' --method resources/templates/list
  check "$era" 'hello from the inspector test' --method resources/read --uri file:///hello.txt
  if out=$(timeout 120 "$I" --cli --protocol-era "$era" --method resources/read --uri file:///.hidden --format json -q -- "${SERVE[@]}" 2>&1); then
    echo "inspector FAIL ($era): reading a hidden file succeeded: $out"; fail=1
  elif [[ "$out" != *"resource not found"* ]]; then
    echo "inspector FAIL ($era): hidden file read failed the wrong way: $out"; fail=1
  else
    echo "inspector ok ($era hidden file refused: $out)"
  fi
done
if [ "$fail" -ne 0 ]; then
  echo "inspector: FAILED"; exit 1
fi
echo "inspector: all checks passed"
