#!/usr/bin/env bash
# The MCP Inspector CLI (@modelcontextprotocol/inspector 2.x, an outside
# judge) against `mcp-wasm serve` over stdio, in the legacy and modern eras:
# resources/list, resources/templates/list and resources/read must succeed
# with the expected content, and a read of a missing resource must fail.
# With --resource-tools, tools/list must hold the tools view (its schemas
# portable: --strict) and tools/call must list and read the same resources,
# a missing one being a tool error; without it, tools/list is empty.
# Needs Node >= 22.19 on PATH (.ci/run provides it).
set -euo pipefail
cd "$(dirname "$0")/.."

. .ci/lib.sh
I=$(inspector_bin)

go build -o build/mcp-wasm ./cmd/mcp-wasm
BIN="$PWD/build/mcp-wasm"
DATA=$(realpath "$(mktemp -d)")
trap 'rm -rf "$DATA"' EXIT
U="file://$DATA" # files are named by their real paths
mkdir -p "$DATA/docs"
printf 'hello from the inspector test\n' > "$DATA/hello.txt"
printf '# Guide\n' > "$DATA/docs/guide.md"
printf 'secret' > "$DATA/.hidden"

SERVE=("$BIN" serve --allow-dir "$DATA" --cache-dir "$PWD/build/ci-cache" --log-level warn)
TOOLS=("${SERVE[@]}" --resource-tools)
SRV=("${SERVE[@]}") # the server check runs; check_tools runs TOOLS
fail=0
check() { # era, expected substring, inspector args...
  local era=$1 want=$2; shift 2
  local out
  if ! out=$(timeout 120 "$I" --cli --protocol-era "$era" "$@" --format json -q -- "${SRV[@]}" 2>&1); then
    echo "inspector FAIL ($era $*): $out"; fail=1; return
  fi
  if [[ "$out" != *"$want"* ]]; then
    echo "inspector FAIL ($era $*): output lacks $want: $out"; fail=1; return
  fi
  echo "inspector ok ($era $*)"
}
check_tools() { SRV=("${TOOLS[@]}"); check "$@"; SRV=("${SERVE[@]}"); }

for era in legacy modern; do
  check "$era" "\"uri\":\"$U/docs/guide.md\"" --method resources/list
  check "$era" "\"uriTemplate\":\"$U/{+path}\"" --method resources/templates/list
  check "$era" 'hello from the inspector test' --method resources/read --uri "$U/hello.txt"
  if out=$(timeout 120 "$I" --cli --protocol-era "$era" --method resources/read --uri "$U/.hidden" --format json -q -- "${SERVE[@]}" 2>&1); then
    echo "inspector FAIL ($era): reading a hidden file succeeded: $out"; fail=1
  elif [[ "$out" != *"resource not found"* ]]; then
    echo "inspector FAIL ($era): hidden file read failed the wrong way: $out"; fail=1
  else
    echo "inspector ok ($era hidden file refused: $out)"
  fi
  check "$era" '"tools":[]' --method tools/list
  check_tools "$era" '"name":"read_resource"' --method tools/list --strict
  check_tools "$era" "\"uri\":\"$U/docs/guide.md\"" --method tools/call --tool-name list_resources --tool-arg uriPrefix="$U/docs/"
  check_tools "$era" "\"uriTemplate\":\"$U/{+path}\"" --method tools/call --tool-name list_resource_templates
  check_tools "$era" 'hello from the inspector test' --method tools/call --tool-name read_resource --tool-arg uri="$U/hello.txt"
  if out=$(timeout 120 "$I" --cli --protocol-era "$era" --method tools/call --tool-name read_resource --tool-arg uri="$U/.hidden" --format json -q -- "${TOOLS[@]}" 2>&1); then
    echo "inspector FAIL ($era): reading a hidden file through the tool succeeded: $out"; fail=1
  elif [[ "$out" != *'"isError":true'* || "$out" != *"resource not found: $U/.hidden"* ]]; then
    echo "inspector FAIL ($era): the hidden file read through the tool failed the wrong way: $out"; fail=1
  else
    echo "inspector ok ($era hidden file through the tool: a tool error result)"
  fi
done
if [ "$fail" -ne 0 ]; then
  echo "inspector: FAILED"; exit 1
fi
echo "inspector: all checks passed"
