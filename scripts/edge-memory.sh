#!/usr/bin/env bash
# Memory at the edge, docs/performance.md ("Memory under load"): for each
# provider, `mcp-wasm serve --http` is started and left IDLE (default 50s:
# past the default idle timeout of 30 s and the pass that follows it), its
# VmRSS read (idle); then CLIENTS (default 64) clients read for DURATION
# (default 15s), the server's VmHWM is its peak and its smaps_rollup is
# kept; then it idles IDLE again and VmRSS is read (after). The native
# anchors (mcp-wasm-load serve-native: the conformance fixtures, and with
# --files the Go files provider) run the same way. Every read is checked
# and the run fails on any error. Needs the guests: `make guests`.
#
#   PROVIDERS: default go catalog-c catalog-go catalog-rust catalog-as
#              native-go native-files (all by default)
# Results: build/edge-memory/*.json, *.smaps, *.metrics and a table on
# stdout. Linux only (/proc).
set -euo pipefail
cd "$(dirname "$0")/.."

CLIENTS=${CLIENTS:-64}
DURATION=${DURATION:-15s}
IDLE=${IDLE:-50}
PROVIDERS=${PROVIDERS:-native-files default native-go go catalog-c catalog-go catalog-rust catalog-as}
OUT=build/edge-memory
mkdir -p "$OUT"

go build -trimpath -o build/mcp-wasm ./cmd/mcp-wasm
go build -trimpath -o build/mcp-wasm-load ./cmd/mcp-wasm-load
LOAD=build/mcp-wasm-load
for p in $PROVIDERS; do
  case $p in
    go) make -s build/guests/conformance.wasm >/dev/null ;;
    catalog-*) [ -f "build/guests/$p.wasm" ] || { echo "edge-memory: build/guests/$p.wasm missing: run make guests"; exit 1; } ;;
  esac
done

PID=""
cache=$(mktemp -d)
data=$(mktemp -d)
cleanup() { [ -n "$PID" ] && { kill "$PID" 2>/dev/null || true; wait "$PID" 2>/dev/null || true; }; rm -rf "$cache" "$data"; }
trap cleanup EXIT
# The default provider's tree: 200 files of 4 KiB (as scripts/cgroup-load.sh).
for i in $(seq 1 200); do head -c 4096 /dev/urandom | base64 >"$data/f$i.txt"; done
files=() catalog=()
for i in 1 2 3 4; do files+=(--uri "file://$data/f$i.txt"); done
for id in kib logo apple banana; do catalog+=(--uri "catalog:///items/$id"); done
WASM=(build/mcp-wasm serve --http 127.0.0.1:0 --rate-limit 0 --max-sessions-per-client 0 --audit-log off --log-level warn --cache-dir "$cache")

rss() { awk "/^$1:/{print \$2}" "/proc/$PID/status"; }
mib() { echo "scale=1; $1 / 1024" | bc; }

rows=()
for p in $PROVIDERS; do
  uris=()
  case $p in
    default) cmd=("${WASM[@]}" --allow-dir "$data") uris=("${files[@]}") ;;
    go) cmd=("${WASM[@]}" --module build/guests/conformance.wasm) ;;
    catalog-*) cmd=("${WASM[@]}" --module "build/guests/$p.wasm") uris=("${catalog[@]}") ;;
    native-go) cmd=("$LOAD" serve-native --http 127.0.0.1:0) ;;
    native-files) cmd=("$LOAD" serve-native --http 127.0.0.1:0 --files "$data") uris=("${files[@]}") ;;
    *) echo "edge-memory: unknown provider $p"; exit 2 ;;
  esac
  # Fill the compilation cache first, so that the server starts as a
  # restart does (its compile worker is another process in any case).
  case $p in
    default) build/mcp-wasm compile --cache-dir "$cache" --log-level warn ;;
    go) build/mcp-wasm compile --cache-dir "$cache" --log-level warn build/guests/conformance.wasm ;;
    catalog-*) build/mcp-wasm compile --cache-dir "$cache" --log-level warn "build/guests/$p.wasm" ;;
  esac
  : >"$OUT/$p.log" # emptied here, not in the background child: the wait below must not read the last run's URL
  "${cmd[@]}" 2>"$OUT/$p.log" &
  PID=$!
  url=""
  for _ in $(seq 1 600); do
    url=$(sed -n 's/.*serving MCP on \(http:[^ ]*\).*/\1/p' "$OUT/$p.log" | head -1)
    [ -n "$url" ] && break
    kill -0 "$PID" 2>/dev/null || { echo "edge-memory: $p exited:"; cat "$OUT/$p.log"; exit 1; }
    sleep 0.2
  done
  [ -n "$url" ] || { echo "edge-memory: $p did not start"; exit 1; }
  start=$(rss VmRSS)
  sleep "$IDLE"
  idle=$(rss VmRSS)
  "$LOAD" run --url "$url" --clients "$CLIENTS" --duration "$DURATION" --pid "$PID" \
    --label "$p" --json "$OUT/$p.json" "${uris[@]}" >"$OUT/$p.run"
  peak=$(rss VmHWM) loaded=$(rss VmRSS)
  cp "/proc/$PID/smaps_rollup" "$OUT/$p.smaps"
  curl -s "${url%/mcp}/metrics" >"$OUT/$p.metrics" || true
  sleep "$IDLE"
  after=$(rss VmRSS)
  reads=$(sed -n 's/.*s: \([0-9]*\) reads (\([0-9]*\)\/s), \([0-9]*\) errors.*/\1 reads, \2\/s, \3 errors/p' "$OUT/$p.run")
  inst=$(sed -n 's/^mcpwasm_provider_instantiations_total{[^}]*} //p' "$OUT/$p.metrics" | head -1)
  rows+=("| $p | $(mib "$start") | $(mib "$idle") | $(mib "$peak") | $(mib "$loaded") | $(mib "$after") | ${inst:--} | $reads |")
  kill "$PID"; wait "$PID" 2>/dev/null || true; PID=""
done

echo
echo "$(nproc) cores, $(go version | cut -d' ' -f3), $CLIENTS clients for $DURATION, idle ${IDLE}s, load average $(cut -d' ' -f1-3 /proc/loadavg)"
echo
echo "| server | RSS at start MiB | idle MiB | peak (VmHWM) MiB | end of load MiB | idle after MiB | instances made | reads |"
echo "|---|---:|---:|---:|---:|---:|---:|---|"
printf '%s\n' "${rows[@]}"
