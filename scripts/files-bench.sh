#!/usr/bin/env bash
# The default provider against a native server, side by side
# (docs/performance.md, "The default provider against native"): the same
# directory served over stdio by
#   wasm:       mcp-wasm serve --allow-dir DIR (the embedded default
#               provider; --read-cache 0, and again with the cache on for
#               read1k);
#   native:     mcp-wasm-load serve-files-native --dir DIR (the Go files
#               provider compiled natively into the same MCP server, with
#               the same garbage-collector settings);
# to an official go-sdk client reading sequentially. Each round (ROUNDS,
# default 11) runs every server once, in an order that rotates from round
# to round; CPU (every thread's schedstat) and wall time per operation are
# medians, and the ratios are the median and quartiles of each round's
# ratio to the native server in the same round; idle RSS is read after a
# warm-up round. ONLY picks scenarios (read1k,read64k,read1m,list1k,list10k,
# list100k); SCALE multiplies the reads per round. Linux only (/proc).
set -euo pipefail
cd "$(dirname "$0")/.."

go build -trimpath -o build/mcp-wasm ./cmd/mcp-wasm
go build -trimpath -o build/mcp-wasm-load ./cmd/mcp-wasm-load
args=(files --bin build/mcp-wasm --rounds "${ROUNDS:-11}" --scale "${SCALE:-1}")
if [[ -n "${ONLY:-}" ]]; then args+=(--only "$ONLY"); fi
exec build/mcp-wasm-load "${args[@]}"
