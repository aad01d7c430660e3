#!/usr/bin/env bash
# Load test of a fleet (docs/performance.md, "A fleet behind haproxy"):
# CLIENTS concurrent clients (default 200) read resources for DURATION
# (default 30s) from
#   single: one mcp-wasm serve --http, as scripts/loadtest.sh runs it;
#   fleet:  three replicas of the same, with --bus (a redis-server) and one
#           --keys-file, behind haproxy (round robin per request, no affinity).
# Every process runs on this machine's loopback; the settings are
# scripts/loadtest.sh's (rate limit and audit log off). ERAS (default
# "modern legacy"): legacy opens a 2025-11-25 session per client, whose
# requests then land on every replica. Needs redis-server and haproxy
# (apt-get install redis-server haproxy). Reported as scripts/loadtest.sh
# does; the peak RSS is the single process's, or replica 1's.
set -euo pipefail
cd "$(dirname "$0")/.."

CLIENTS=${CLIENTS:-200}
DURATION=${DURATION:-30s}
WARMUP=${WARMUP:-5s}
ERAS=${ERAS:-modern legacy}
OUT=build/fleetload
mkdir -p "$OUT"

go build -trimpath -o build/mcp-wasm ./cmd/mcp-wasm
go build -trimpath -o build/mcp-wasm-load ./cmd/mcp-wasm-load
make -s build/guests/conformance.wasm >/dev/null
LOAD=build/mcp-wasm-load

PIDS=()
trap 'for p in "${PIDS[@]}"; do kill "$p" 2>/dev/null || true; wait "$p" 2>/dev/null || true; done' EXIT

. scripts/lib/fleet.sh

# start NAME COMMAND...: as in scripts/loadtest.sh.
start() {
  local name=$1 url="" pid; shift
  "$@" 2>"$OUT/$name.log" &
  pid=$!
  PIDS+=("$pid")
  url=$(serving_url "$OUT/$name.log" "$pid") || { echo "fleetload: $name did not start"; exit 1; }
  printf -v "URL_$name" '%s' "$url"
  printf -v "PID_$name" '%s' "$pid"
}

SERVE=(build/mcp-wasm serve --http 127.0.0.1:0 --module build/guests/conformance.wasm
  --rate-limit 0 --max-sessions-per-client 0 --audit-log off --log-level warn --cache-dir "$PWD/build/ci-cache")

start_redis "$OUT"
KEYS=$OUT/fleet.keys
fleet_keys "$KEYS"

start single "${SERVE[@]}"
REPLICAS=()
for i in 1 2 3; do
  start "r$i" "${SERVE[@]}" --bus "$REDIS_URL" --keys-file "$KEYS"
  url="URL_r$i"
  REPLICAS+=("${!url}")
done
start_haproxy "$OUT" 4000 "${REPLICAS[@]}"
URL_fleet=$LB_URL
PID_fleet=$PID_r1

reports=()
for era in $ERAS; do
  for name in single fleet; do
    url="URL_$name" pid="PID_$name"
    "$LOAD" run --url "${!url}" --clients "$CLIENTS" --duration "$WARMUP" --era "$era" --label "$name (warm-up)" \
      >"$OUT/$name-$era-warmup.log" || { cat "$OUT/$name-$era-warmup.log"; exit 1; }
    "$LOAD" run --url "${!url}" --clients "$CLIENTS" --duration "$DURATION" --era "$era" \
      --pid "${!pid}" --label "$name" --json "$OUT/$name-$era.json"
    reports+=("$OUT/$name-$era.json")
  done
done

echo
echo "$(nproc) cores, $(go version | cut -d' ' -f3), load average after the runs: $(cut -d' ' -f1-3 /proc/loadavg)"
"$LOAD" table "${reports[@]}"
# Every replica served its share, by its own metrics.
echo
for i in 1 2 3; do
  url="URL_r$i"
  reads=$(curl -fs -H 'Host: localhost' "${!url%/mcp}/metrics" |
    awk '/^mcpwasm_transport_requests_total\{.*method="resources\/read".*outcome="ok"/ {n += $NF} END {printf "%d", n}')
  echo "replica $i: $reads resources/read answered"
  [ "$reads" -gt 0 ] || { echo "fleetload: replica $i served no reads"; exit 1; }
done
