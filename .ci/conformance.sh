#!/usr/bin/env bash
# The official MCP conformance suite (@modelcontextprotocol/conformance, an
# outside judge) against `mcp-wasm serve --http` on loopback, serving the
# conformance fixture provider (guests/conformance):
#   - 0.1.16, default suite, legacy wire (initialize handshake, sessions);
#   - 0.2.0-alpha.12 --requirements 2026-07-28, stateless wire.
# Each run has a committed expected-failure baseline in .ci/conformance/;
# a failure outside it, or a listed scenario that passes, fails the run.
# This script also refuses a baseline listing anything but tools, prompts,
# elicitation, sampling or tasks scenarios (plus server-stateless), and
# fails unless server-stateless's only failing checks are the four the
# suite can run only through diagnostic tools.
# Needs Node >= 22 on PATH (.ci/run provides it). Results: build/conformance/.
set -euo pipefail
cd "$(dirname "$0")/.."

LEGACY_VERSION=0.1.16
MODERN_VERSION=0.2.0-alpha.12
OUT="$PWD/build/conformance"
# The server-stateless checks the suite can only run through diagnostic
# tools (reported "Not testable"); see .ci/conformance/modern.yml.
UNTESTABLE="sep-2575-server-rejects-undeclared-capability sep-2575-missing-capability-http-400 sep-2575-http-server-no-independent-requests-on-stream sep-2575-server-no-log-without-loglevel"

node_major=$(node -p 'process.versions.node.split(".")[0]' 2>/dev/null || echo 0)
if [ "$node_major" -lt 22 ]; then
  echo "conformance: needs Node >= 22 on PATH (found ${node_major}): run .ci/run, which installs it"; exit 1
fi

# install VERSION: the suite's entry point, installed once per version.
install() {
  local dir="${HOME}/.cache/mcp-wasm-ci/conformance-$1"
  local pkg="$dir/node_modules/@modelcontextprotocol/conformance"
  if [ "$(node -p "require('$pkg/package.json').version" 2>/dev/null)" != "$1" ]; then
    mkdir -p "$dir"
    (cd "$dir" && npm init -y >/dev/null && npm install --no-audit --no-fund "@modelcontextprotocol/conformance@$1" >/dev/null)
  fi
  echo "$pkg/dist/index.js"
}

# check_baseline FILE: every listed scenario is about a feature mcp-wasm
# does not offer.
check_baseline() {
  local s bad=0
  for s in $(sed -n 's/^  - \([a-z0-9-]*\).*/\1/p' "$1"); do
    case "$s" in
      tools-*|prompts-*|elicitation-*|sampling-*|tasks-*|input-required-result-*|server-stateless) ;;
      *) echo "conformance: $1 lists $s, which is not about tools, prompts, elicitation, sampling or tasks: make it pass instead"; bad=1 ;;
    esac
  done
  return "$bad"
}

LEGACY=$(install "$LEGACY_VERSION")
MODERN=$(install "$MODERN_VERSION")
check_baseline .ci/conformance/legacy.yml
check_baseline .ci/conformance/modern.yml

go build -o build/mcp-wasm ./cmd/mcp-wasm
make -s build/guests/conformance.wasm
rm -rf "$OUT" && mkdir -p "$OUT"

# Serve on a free loopback port with default flags, as a user would; the URL
# is printed on stderr once listening. (The suite is one local client sending
# hundreds of requests a second: on a loopback bind the per-client limits are
# off by default, since every local client has the same address.)
build/mcp-wasm serve --http 127.0.0.1:0 --module build/guests/conformance.wasm \
  --cache-dir "$PWD/build/ci-cache" --log-level warn --audit-log off 2>"$OUT/serve.log" &
SERVER=$!
trap 'kill "$SERVER" 2>/dev/null; wait "$SERVER" 2>/dev/null || true' EXIT
url=""
for _ in $(seq 1 600); do
  url=$(sed -n 's/.*mcp-wasm: serving MCP on \(http:[^ ]*\).*/\1/p' "$OUT/serve.log" | head -1)
  [ -n "$url" ] && break
  kill -0 "$SERVER" 2>/dev/null || { echo "conformance: serve exited:"; cat "$OUT/serve.log"; exit 1; }
  sleep 0.2
done
[ -n "$url" ] || { echo "conformance: serve did not start in 120s:"; cat "$OUT/serve.log"; exit 1; }
port=${url##*:}; port=${port%%/*}
node -e "fetch('http://127.0.0.1:$port/readyz').then(r => process.exit(r.ok ? 0 : 1), () => process.exit(1))" \
  || { echo "conformance: /readyz is not ready"; cat "$OUT/serve.log"; exit 1; }
# A localhost URL: the DNS-rebinding scenario checks localhost is accepted.
URL="http://localhost:$port/mcp"

# run NAME ENTRY ARGS...: one suite run; its full output goes to a file.
run() {
  local name=$1 entry=$2; shift 2
  if timeout 900 node "$entry" server --url "$URL" -o "$OUT/$name" "$@" >"$OUT/$name.txt" 2>&1; then
    echo "conformance $name: baseline check passed (every failure is an expected one)"
  else
    echo "conformance $name: FAILED; the suite's report ($OUT/$name.txt):"
    sed -n '/=== SUMMARY ===/,$p' "$OUT/$name.txt" | grep -v '^✓'
    return 1
  fi
}

fail=0
run "$LEGACY_VERSION" "$LEGACY" --expected-failures .ci/conformance/legacy.yml || fail=1
run "$MODERN_VERSION" "$MODERN" --requirements 2026-07-28 --expected-failures .ci/conformance/modern.yml || fail=1

# server-stateless may fail only the checks that need diagnostic tools, and
# only because they could not be run.
if ! node - "$OUT/$MODERN_VERSION" "$UNTESTABLE" <<'EOF'
const fs = require('fs'), path = require('path');
const [dir, allowed] = process.argv.slice(2);
const ok = new Set(allowed.split(' '));
const runs = fs.readdirSync(dir).filter(d => d.startsWith('server-server-stateless-'));
if (runs.length !== 1) { console.log(`conformance: want one server-stateless result in ${dir}, found ${runs.length}`); process.exit(1); }
const checks = JSON.parse(fs.readFileSync(path.join(dir, runs[0], 'checks.json'), 'utf8'));
let bad = 0, passed = 0;
for (const c of checks) {
  if (c.status === 'SUCCESS') { passed++; continue; }
  if (c.status === 'SKIPPED' || c.status === 'INFO') continue;
  if (ok.has(c.id) && /^Not testable/.test(c.errorMessage || '')) continue;
  console.log(`conformance: server-stateless check ${c.id} ${c.status}: ${c.errorMessage || ''}`); bad = 1;
}
console.log(`conformance: server-stateless: ${passed} checks pass; only the diagnostic-tool checks are not testable`);
process.exit(bad);
EOF
then fail=1; fi

if [ "$fail" -ne 0 ]; then
  echo "conformance: FAILED (server log: $OUT/serve.log)"; exit 1
fi
echo "conformance: both suites pass within their baselines"
