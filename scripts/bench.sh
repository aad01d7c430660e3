#!/usr/bin/env bash
# Reproduces the micro-benchmarks in docs/performance.md: the runtime's
# per-call overhead, instantiation and loading, strict decoding, and reads
# end to end over stdio (wasm vs native). Needs clang + wasi-libc for the C
# guest (see docs/development.md). Prints benchstat-friendly lines to stdout.
set -euo pipefail
cd "$(dirname "$0")/.."
COUNT=${COUNT:-5}
echo "# $(go version); $(nproc) cores; load average: $(cut -d' ' -f1-3 /proc/loadavg)"
go test ./abi -run XXX -bench . -benchmem -count "$COUNT"
go test ./runtime -run XXX -bench BenchmarkCall -benchmem -count "$COUNT"
go test ./runtime -run XXX -bench 'BenchmarkInstantiate|BenchmarkLoad' -benchmem -count 3 -benchtime 20x
# Preemption: guest export time with wazero's check, the instrumentation and
# none; cost per checkpoint; deadline to stop; the structural pass, the
# rewrite and cold loads with and without it.
go test ./runtime -run XXX -bench 'BenchmarkPreempt' -count 6 -benchtime 3000x
go test ./runtime/internal/wasmbin -run XXX -bench 'BenchmarkCheckpoint' -count 5 -benchtime 16777216x
go test ./runtime/internal/wasmbin -run XXX -bench 'BenchmarkParse|BenchmarkInstrument' -benchmem -count "$COUNT" -benchtime 20x
go test ./runtime -run XXX -bench 'BenchmarkDeadlineOverrun' -benchtime 20x
go test ./runtime -run XXX -bench 'BenchmarkCompile' -count 2 -benchtime 3x
go test ./cmd/mcp-wasm -run XXX -bench ReadStdio -benchmem -count "$COUNT"
# The catalog in every SDK (needs Rust and AssemblyScript too, see docs/writing-providers.md).
go test ./guests/catalog -run XXX -bench Catalog -benchmem -count "$COUNT"
