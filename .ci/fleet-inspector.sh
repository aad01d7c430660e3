#!/usr/bin/env bash
# The MCP Inspector CLI (the TypeScript SDK's client, an outside judge)
# against a fleet: three `mcp-wasm serve --http` replicas with a Redis bus
# and one secret, behind haproxy (round robin per request, no affinity),
# all on loopback (docs/scaling.md). Each Inspector call opens a legacy
# session and sends its requests on, so initialize and the call land on
# different replicas: the sealed session id must carry the session over.
# Every replica must have answered some requests (its own metrics), and
# sessions must have been adopted (the replicas' logs).
# Needs Node >= 22.19 on PATH, redis-server and haproxy (.ci/run provides them).
set -euo pipefail
cd "$(dirname "$0")/.."

. .ci/lib.sh
I=$(inspector_bin)

go build -o build/mcp-wasm ./cmd/mcp-wasm
make -s build/guests/conformance.wasm
TMP=$(mktemp -d)
PIDS=()
trap 'for p in "${PIDS[@]}"; do kill "$p" 2>/dev/null || true; wait "$p" 2>/dev/null || true; done; rm -rf "$TMP"' EXIT
. scripts/lib/fleet.sh
start_redis "$TMP"
fleet_keys "$TMP/fleet.keys"
URLS=()
for i in 1 2 3; do
  build/mcp-wasm serve --http 127.0.0.1:0 --module build/guests/conformance.wasm --cache-dir "$PWD/build/ci-cache" \
    --log-level info --audit-log off --bus "$REDIS_URL" --keys-file "$TMP/fleet.keys" 2>"$TMP/r$i.log" &
  PIDS+=("$!")
  URLS+=("$(serving_url "$TMP/r$i.log" "$!")") || { echo "fleet-inspector: replica $i did not start"; exit 1; }
done
start_haproxy "$TMP" 2000 "${URLS[@]}"
URL=$LB_URL

fail=0
check() { # era, expected substring, inspector args...
  local era=$1 want=$2 out; shift 2
  if ! out=$(timeout 120 "$I" --cli "$URL" --transport http --protocol-era "$era" "$@" -q --format json 2>&1); then
    echo "fleet-inspector FAIL ($era $*): $out"; fail=1; return
  fi
  if [[ "$out" != *"$want"* ]]; then
    echo "fleet-inspector FAIL ($era $*): want $want: $out"; fail=1; return
  fi
  echo "fleet-inspector ok ($era $*: $want)"
}
for round in 1 2 3; do
  for era in legacy modern; do
    check "$era" '"uri":"test://watched-resource"' --method resources/list
    check "$era" 'This is the content of the static text resource.' --method resources/read --uri test://static-text
    check "$era" 'Data for ID: 123' --method resources/read --uri test://template/123/data
  done
done
for i in 1 2 3; do
  served=$(curl -fs -H 'Host: localhost' "${URLS[$((i-1))]%/mcp}/metrics" |
    awk '/^mcpwasm_transport_requests_total\{.*outcome="ok"/ {n += $NF} END {printf "%d", n}')
  if [ "$served" -gt 0 ]; then
    echo "fleet-inspector ok (replica $i answered $served requests)"
  else
    echo "fleet-inspector FAIL: replica $i answered no request: the balancer did not spread them"; fail=1
  fi
done
adopted=$(cat "$TMP"/r?.log | grep -c 'session adopted' || true)
if [ "$adopted" -gt 0 ]; then
  echo "fleet-inspector ok ($adopted legacy sessions served by replicas that did not initialize them)"
else
  echo "fleet-inspector FAIL: no session was adopted: the legacy calls never crossed replicas"; fail=1
fi
exit "$fail"
