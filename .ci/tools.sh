#!/usr/bin/env bash
# Outside tools nobody here wrote, end to end against the real binary:
#   - the official TypeScript SDK v2 client (@modelcontextprotocol/client):
#     Agent Skills listed, got, read and verified by its SkillsClient
#     (stdio and HTTP, both eras); subscriptions/listen cancelled over stdio
#     (a listen bound of 2 and 5 listens: each cancel must free its slot,
#     and no answer to a cancelled listen may reach the client) and over HTTP
#     (the open streams counted on /metrics, back to 0); 100,000 files listed
#     completely by listResources() at its defaults (at most 64 pages);
#   - an MCP App (ui://dash/app.html, text/html;profile=mcp-app) served by a
#     provider under schemePrefix "p1": read by the SDK v2 client as
#     exactly ui://, its other URIs prefixed;
#   - supergateway in its default stateless mode (one mcp-wasm process per
#     request): a listing paged across processes, whose cursors must survive;
#   - mcp-remote: the stdio bridge a command-only client uses, in front of
#     serve --http, listing the skills through it;
#   - the official conformance suite's SEP-2640 server scenarios (skills
#     enumeration, manifest, directory: every check passed, no warning), with
#     the suite version .ci/conformance.sh runs;
#   - the MCP Inspector CLI (.ci/lib.sh): its SEP-2640 conformance and digest
#     checks (skills/list --verify) in both eras, and the 100,000 files
#     through its resources/list, which walks every page.
# Versions are pinned by .ci/tools/package-lock.json, installed into
# ~/.cache/mcp-wasm-ci keyed by it. Needs Node >= 22 on PATH (.ci/run).
set -euo pipefail
cd "$(dirname "$0")/.."
. .ci/lib.sh

TOOLS="${HOME}/.cache/mcp-wasm-ci/tools-$(sha256sum .ci/tools/package-lock.json | cut -c1-16)"
if [ ! -d "$TOOLS/node_modules/@modelcontextprotocol/client" ]; then
  mkdir -p "$TOOLS"
  cp .ci/tools/package.json .ci/tools/package-lock.json "$TOOLS/"
  (cd "$TOOLS" && npm ci --no-audit --no-fund >/dev/null)
fi
[ -e .ci/tools/node_modules ] || ln -s "$TOOLS/node_modules" .ci/tools/node_modules
CLIENT=(node .ci/tools/client.mjs)

go build -o build/mcp-wasm ./cmd/mcp-wasm
BIN="$PWD/build/mcp-wasm"
WORK=$(realpath "$(mktemp -d)")
PIDS=()
cleanup() {
  for p in "${PIDS[@]}"; do kill "$p" 2>/dev/null || true; done
  rm -rf "$WORK"
}
trap cleanup EXIT
CACHE="$WORK/cache"
SERVE=("$BIN" serve --cache-dir "$CACHE" --log-level warn)

# start_http NAME ARGS...: serve --http on a free loopback port; sets URL.
start_http() {
  local name=$1; shift
  : >"$WORK/$name.log" # before the server's own redirect, which its fork makes later
  "${SERVE[@]}" --http 127.0.0.1:0 "$@" 2>"$WORK/$name.log" &
  PIDS+=($!)
  for _ in $(seq 600); do
    URL=$(sed -n 's/^mcp-wasm: serving MCP on \(\S*\).*/\1/p' "$WORK/$name.log")
    [ -n "$URL" ] && return
    sleep 0.1
  done
  echo "tools: $name did not start:"; cat "$WORK/$name.log"; exit 1
}

# A skills directory: two skills, one under a prefix, with nested files.
SK="$WORK/skills"
mkdir -p "$SK/pdf-processing/templates/regional" "$SK/acme/billing/refunds/examples"
printf -- '---\nname: pdf-processing\ndescription: Extract, fill, and assemble PDF documents\nmetadata:\n  version: "2.1.0"\n---\n\nPick a template from `templates/`.\n' > "$SK/pdf-processing/SKILL.md"
printf 'Invoice {{number}}\n' > "$SK/pdf-processing/templates/invoice.md"
printf 'EU invoice\n' > "$SK/pdf-processing/templates/regional/eu-invoice.md"
printf -- '---\nname: refunds\ndescription: Process customer refund requests per company policy\nlicense: Apache-2.0\n---\n\nSee examples/email.md.\n' > "$SK/acme/billing/refunds/SKILL.md"
printf 'Dear customer,\n' > "$SK/acme/billing/refunds/examples/email.md"

echo "tools: skills through the TypeScript SDK v2 SkillsClient"
start_http skills --skills-dir "$SK"
for era in legacy modern; do
  "${CLIENT[@]}" skills "$era" 2 -- "${SERVE[@]}" --skills-dir "$SK"
  "${CLIENT[@]}" skills "$era" 2 --url "$URL"
done

CONFORMANCE_VERSION=0.2.0-alpha.12 # as .ci/conformance.sh's modern run
CDIR="${HOME}/.cache/mcp-wasm-ci/conformance-$CONFORMANCE_VERSION"
if [ "$(node -p "require('$CDIR/node_modules/@modelcontextprotocol/conformance/package.json').version" 2>/dev/null)" != "$CONFORMANCE_VERSION" ]; then
  mkdir -p "$CDIR"
  (cd "$CDIR" && npm init -y >/dev/null && npm install --no-audit --no-fund "@modelcontextprotocol/conformance@$CONFORMANCE_VERSION" >/dev/null)
fi
for sc in sep-2640-skills-enumeration sep-2640-skills-manifest sep-2640-skills-directory; do
  out=$(timeout 300 node "$CDIR/node_modules/@modelcontextprotocol/conformance/dist/index.js" server --url "$URL" --scenario "$sc" 2>&1) || true
  summary=$(grep -E '^Passed: [0-9]+/[0-9]+, 0 failed, 0 warnings$' <<<"$out" || true)
  if [ -z "$summary" ] || [[ "$summary" == "Passed: 0/"* ]]; then
    echo "tools FAIL: conformance $sc: $out"; exit 1
  fi
  echo "ok conformance $sc: $summary"
done

I=$(inspector_bin)
for era in legacy modern; do
  out=$(timeout 120 "$I" --cli --protocol-era "$era" --method skills/list --verify --format json -q -- "${SERVE[@]}" --skills-dir "$SK")
  if [ "$(grep -c '"conformance":\[\],"frontmatter":\[\]' <<<"$out")" != 2 ] || grep -q '"status":"[^v]' <<<"$out"; then
    echo "tools FAIL: the Inspector's skills/list --verify ($era): $out"; exit 1
  fi
  echo "ok inspector skills/list --verify $era: 2 skills conform, every file verified"
done

echo "tools: listen cancel over stdio and HTTP"
LISTEN_URI="file://$SK/pdf-processing/SKILL.md"
"${CLIENT[@]}" listen modern "$LISTEN_URI" 5 -- "${SERVE[@]}" --allow-dir "$SK" --max-subscriptions 2
start_http listen --allow-dir "$SK" --max-subscriptions 2
"${CLIENT[@]}" listen modern "$LISTEN_URI" 5 --url "$URL"
streams=""
for _ in $(seq 100); do # the last stream ends as its cancel is served
  streams=$(curl -fsS "${URL%/mcp}/metrics" | sed -n 's/^mcpwasm_transport_streams{transport="http"} \([0-9]*\)$/\1/p')
  [ "$streams" = 0 ] && break
  sleep 0.1
done
if [ "$streams" != 0 ]; then
  echo "tools FAIL: $streams HTTP streams still open after every listen was cancelled"; exit 1
fi
echo "ok listen http: mcpwasm_transport_streams back to 0 after 5 cancelled listens"

echo "tools: 100,000 files"
BIG="$WORK/big"
mkdir -p "$BIG"
(cd "$BIG" && for d in $(seq -w 0 99); do mkdir "d$d" && (cd "d$d" && touch $(seq -f "f%04g" 0 999)); done)
n=$(find "$BIG" -type f | wc -l)
[ "$n" = 100000 ] || { echo "tools FAIL: made $n files"; exit 1; }
"${CLIENT[@]}" list modern 100000 -- "${SERVE[@]}" --allow-dir "$BIG"
"${CLIENT[@]}" list legacy 100000 -- "${SERVE[@]}" --allow-dir "$BIG"
for era in legacy modern; do
  n=$(timeout 300 "$I" --cli --protocol-era "$era" --method resources/list --format json -q -- "${SERVE[@]}" --allow-dir "$BIG" | grep -o '"uri":"file://[^"]*"' | sort -u | wc -l)
  [ "$n" = 100000 ] || { echo "tools FAIL: the Inspector's resources/list ($era) gave $n distinct URIs, want 100000"; exit 1; }
  echo "ok inspector resources/list $era: 100000 resources"
done

echo "tools: a ui:// resource through a prefixed provider"
# The puppet test guest answers each operation with the JSON its config
# grant holds (cmd/mcp-wasm/testdata/puppet.wasm, guesttext_test.go).
APP_MIME='text/html;profile=mcp-app'
cat > "$WORK/apps.json" <<JSON
{"providers": [{"module": "$PWD/cmd/mcp-wasm/testdata/puppet.wasm", "name": "apps", "schemePrefix": "p1", "grants": {"config": {
  "describe": "{\"name\":\"puppet\",\"version\":\"1.0.0\",\"uriSpace\":[{\"scheme\":\"x\"},{\"scheme\":\"ui\",\"authority\":\"dash\"}],\"operations\":[\"list\",\"templates\",\"read\",\"complete\",\"changes\"]}",
  "list": "{\"resources\":[{\"uri\":\"x:///a\",\"name\":\"a\"},{\"uri\":\"ui://dash/app.html\",\"name\":\"app\",\"mimeType\":\"$APP_MIME\"}]}",
  "templates": "{\"resourceTemplates\":[]}",
  "read": "{\"contents\":[{\"uri\":\"ui://dash/app.html\",\"mimeType\":\"$APP_MIME\",\"text\":\"<!doctype html><p>app</p>\"}]}",
  "complete": "{\"values\":[]}",
  "changes": "{}"}}}]}
JSON
for era in legacy modern; do
  "${CLIENT[@]}" read "$era" ui://dash/app.html "$APP_MIME" -- "${SERVE[@]}" --config "$WORK/apps.json"
done

echo "tools: supergateway, stateless: a listing paged across processes"
SG="$TOOLS/node_modules/.bin/supergateway"
PORT=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
"$SG" --stdio "${SERVE[*]} --allow-dir $SK --page-size 2" --outputTransport streamableHttp --port "$PORT" --logLevel info >"$WORK/sg.log" 2>&1 &
PIDS+=($!)
for _ in $(seq 300); do
  curl -s -o /dev/null "http://127.0.0.1:$PORT/mcp" && break
  sleep 0.1
done
"${CLIENT[@]}" list legacy 5 --url "http://127.0.0.1:$PORT/mcp"
spawned=$(grep -c 'Child (auto-initialize)' "$WORK/sg.log" || true)
if [ "$spawned" -lt 3 ]; then # pages 2 and 3, and the initialized notification, each in a new process
  echo "tools FAIL: supergateway started $spawned processes: not its stateless mode"; cat "$WORK/sg.log"; exit 1
fi
echo "ok supergateway: 5 resources in 3 pages of 2, across $spawned mcp-wasm processes"

echo "tools: mcp-remote in front of serve --http"
start_http remote --skills-dir "$SK"
"${CLIENT[@]}" skills legacy 2 -- bash -c 'exec "$0" "$@" 2>>"'"$WORK/remote-bridge.log"'"' \
  "$TOOLS/node_modules/.bin/mcp-remote" "$URL" --transport http-only

echo "tools: all checks passed"
