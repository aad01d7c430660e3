#!/usr/bin/env bash
# Load test of docs/performance.md ("Load test"): CLIENTS concurrent
# clients (default 200) read resources for DURATION (default 60s) from
#   wasm:   mcp-wasm serve --http, serving build/guests/conformance.wasm;
#   native: the same provider logic (guests/conformance/fixtures) compiled
#           into the server (mcp-wasm-load serve-native).
# Both listen on 127.0.0.1, with the rate limit and the audit log off and
# every other setting at its default. ROUNDS (default 2) alternate wasm and
# native runs; each run follows a WARMUP (default 5s, not counted). Reported: reads/s, p50/p90/p99/max
# latency, errors (the run fails unless zero) and the server's peak RSS
# (VmHWM, over its whole life). Results: build/loadtest/*.json and a
# markdown table on stdout. ERA=legacy uses 2025-11-25 sessions instead of
# the stateless 2026-07-28 wire. SERVER_GOGC, when set, is the GOGC both
# servers run with (the generator keeps its own): it replaces the
# collector's headroom tuner by a plain percentage (docs/performance.md,
# "Throughput against memory"). Linux only (/proc).
set -euo pipefail
cd "$(dirname "$0")/.."

CLIENTS=${CLIENTS:-200}
DURATION=${DURATION:-60s}
WARMUP=${WARMUP:-5s}
ERA=${ERA:-modern}
ROUNDS=${ROUNDS:-2}
OUT=build/loadtest
mkdir -p "$OUT"

go build -trimpath -o build/mcp-wasm ./cmd/mcp-wasm
go build -trimpath -o build/mcp-wasm-load ./cmd/mcp-wasm-load
make -s build/guests/conformance.wasm >/dev/null
LOAD=build/mcp-wasm-load

PIDS=()
trap 'for p in "${PIDS[@]}"; do kill "$p" 2>/dev/null || true; wait "$p" 2>/dev/null || true; done' EXIT

# start NAME COMMAND...: starts a server, waits for its URL on stderr, and
# records its URL and PID in URL_NAME and PID_NAME.
start() {
  local name=$1 url="" pid; shift
  env ${SERVER_GOGC:+GOGC=$SERVER_GOGC} "$@" 2>"$OUT/$name.log" &
  pid=$!
  PIDS+=("$pid")
  for _ in $(seq 1 600); do
    url=$(sed -n 's/.*serving MCP on \(http:[^ ]*\).*/\1/p' "$OUT/$name.log" | head -1)
    [ -n "$url" ] && break
    kill -0 "$pid" 2>/dev/null || { echo "loadtest: $name exited:"; cat "$OUT/$name.log"; exit 1; }
    sleep 0.2
  done
  [ -n "$url" ] || { echo "loadtest: $name did not start"; exit 1; }
  printf -v "URL_$name" '%s' "$url"
  printf -v "PID_$name" '%s' "$pid"
}

# measure NAME ROUND: warm-up, then the measured run against server NAME.
measure() {
  local url="URL_$1" pid="PID_$1"
  "$LOAD" run --url "${!url}" --clients "$CLIENTS" --duration "$WARMUP" --era "$ERA" --label "$1 (warm-up)" >/dev/null
  "$LOAD" run --url "${!url}" --clients "$CLIENTS" --duration "$DURATION" --era "$ERA" \
    --pid "${!pid}" --label "$1 #$2" --json "$OUT/$1-$ERA-$2.json"
}

# Both servers run for the whole test; only one is loaded at a time, and
# the rounds alternate so that a change in background load on the machine
# hits both alike.
start wasm build/mcp-wasm serve --http 127.0.0.1:0 --module build/guests/conformance.wasm \
  --rate-limit 0 --max-sessions-per-client 0 --audit-log off --log-level warn --cache-dir "$PWD/build/ci-cache"
start native "$LOAD" serve-native --http 127.0.0.1:0
reports=()
for round in $(seq 1 "$ROUNDS"); do
  measure wasm "$round"
  measure native "$round"
  reports+=("$OUT/wasm-$ERA-$round.json" "$OUT/native-$ERA-$round.json")
done

echo
echo "$(nproc) cores, $(go version | cut -d' ' -f3), load average after the runs: $(cut -d' ' -f1-3 /proc/loadavg)"
"$LOAD" table "${reports[@]}"
