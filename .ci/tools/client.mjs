// The official TypeScript SDK v2 client (@modelcontextprotocol/client, an
// outside judge) against mcp-wasm, driven by .ci/tools.sh.
//
//   node client.mjs CHECK ERA [CHECK ARGS] (--url URL | -- COMMAND ARGS...)
//
// ERA is legacy or modern (2026-07-28). CHECK is one of:
//   list N         listResources() at the client's defaults (64 pages at most)
//                  returns exactly N resources, each URI once;
//   skills DIR     SkillsClient lists, gets and reads (verifying size, digest
//                  and frontmatter) every skill, and reads a directory; DIR is
//                  the expected skill count;
//   listen URI N   N times: listen to URI, close (notifications/cancelled);
//                  no answer to a cancelled listen may reach the client, and
//                  the server must accept the next listen (its bound is set
//                  below N by the caller);
//   read URI TYPE  resources/read of URI returns it with mimeType TYPE, and
//                  resources/list lists it so.
// Prints one "ok ..." line, or the failure, and exits non-zero on failure.
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { SkillsClient } from '@modelcontextprotocol/client/ext/skills';

const [check, era, ...rest] = process.argv.slice(2);
let url;
let command = [];
let args = rest;
if (args.includes('--url')) {
  const i = args.indexOf('--url');
  url = args[i + 1];
  args = args.slice(0, i);
} else if (args.includes('--')) {
  const i = args.indexOf('--');
  command = args.slice(i + 1);
  args = args.slice(0, i);
}

const errors = [];
const client = new Client(
  { name: 'mcp-wasm-ci', version: '1' },
  { versionNegotiation: { mode: era === 'modern' ? { pin: '2026-07-28' } : 'legacy' } },
);
client.onerror = (e) => errors.push(String(e?.message ?? e));

function fail(msg) {
  console.error(`FAIL ${check} ${era}: ${msg}`);
  process.exit(1);
}

const transport = url
  ? new StreamableHTTPClientTransport(new URL(url))
  : new StdioClientTransport({ command: command[0], args: command.slice(1), stderr: 'inherit' });
await client.connect(transport);

try {
  if (check === 'list') {
    const want = Number(args[0]);
    const { resources } = await client.listResources();
    const uris = new Set(resources.map((r) => r.uri));
    if (resources.length !== want || uris.size !== want) {
      fail(`listResources() returned ${resources.length} resources (${uris.size} distinct), want ${want}`);
    }
    console.log(`ok list ${era}: ${want} resources through listResources() at its defaults`);
  } else if (check === 'skills') {
    const want = Number(args[0]);
    const skills = new SkillsClient(client);
    if (!skills.supported || !skills.directoryRead) fail('the server does not declare the skills extension with directoryRead');
    const listing = await skills.list();
    if (listing.skills.length !== want) fail(`skills/list gave ${listing.skills.length} skills, want ${want}`);
    if (era === 'modern' && (listing.ttlMs === undefined || listing.cacheScope === undefined)) fail('no ttlMs/cacheScope on 2026-07-28');
    let files = 0;
    for (const entry of listing.skills) {
      const { skill } = await skills.get(entry.uri);
      for (const r of skill.resources) {
        const f = await skills.read(skill, r.uri);
        if (!f.verified) fail(`${r.uri} not verified`);
        files++;
      }
    }
    const root = listing.skills[0].uri.replace(/\/SKILL\.md$/, '');
    const dir = await skills.readDirectory(root);
    if (!dir.resources.some((r) => r.uri === listing.skills[0].uri)) fail(`directory ${root} lacks its SKILL.md`);
    const index = await client.readResource({ uri: 'skill://index.json' });
    const parsed = JSON.parse(index.contents[0].text);
    if (parsed.skills.length !== want) fail(`skill://index.json lists ${parsed.skills.length} skills, want ${want}`);
    console.log(`ok skills ${era}: ${want} skills listed, got and ${files} files read and verified; ${dir.resources.length} entries in ${root}`);
  } else if (check === 'listen') {
    const [uri, n] = [args[0], Number(args[1])];
    for (let i = 0; i < n; i++) {
      const sub = await client.listen({ resourceSubscriptions: [uri] });
      await sub.close();
    }
    await client.listResources(); // a round trip after the last cancel
    const stray = errors.filter((e) => /unknown message ID|unknown request/i.test(e));
    if (stray.length > 0) fail(`the server answered cancelled listens: ${stray.join('; ')}`);
    console.log(`ok listen ${era}: ${n} listens opened and cancelled, none answered after its cancel`);
  } else if (check === 'read') {
    const [uri, type] = args;
    const res = await client.readResource({ uri });
    const c = res.contents[0];
    if (c.uri !== uri || c.mimeType !== type) fail(`read ${uri}: got ${c.uri} ${c.mimeType}`);
    const { resources } = await client.listResources();
    const listed = resources.map((r) => `${r.uri} ${r.mimeType ?? ''}`).sort();
    if (!listed.includes(`${uri} ${type}`)) fail(`${uri} is not listed as ${type}: ${listed.join(', ')}`);
    console.log(`ok read ${era}: ${uri} as ${type}, listed beside ${listed.filter((l) => !l.startsWith(uri)).join(', ')}`);
  } else {
    fail(`unknown check ${check}`);
  }
} catch (e) {
  fail(e?.stack ?? String(e));
} finally {
  await client.close();
}
