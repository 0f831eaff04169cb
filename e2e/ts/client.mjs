// client.mjs drives `sextant serve` with the official TypeScript MCP SDK
// client over stdio, the way Node-based agents and editors connect, and
// checks every tool's answers on a copy of github.com/spf13/cobra@v1.10.2.
//
// Usage: node client.mjs SEXTANT_BIN DB_FILE COBRA_ROOT
//
// It prints one line per check and a closing `N passed, M failed`, and
// exits 1 when any check failed. The Go test TestTypeScriptClient (e2e/)
// runs it; `npm ci` in this directory installs the pinned SDK.
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';

const [bin, db, root] = process.argv.slice(2);
if (!bin || !db || !root) {
  console.error('usage: node client.mjs SEXTANT_BIN DB_FILE COBRA_ROOT');
  process.exit(2);
}

const COBRA = 'github.com/spf13/cobra';
const TOOLS = ['find_implementations', 'find_references', 'find_symbol', 'get_callees', 'get_callers', 'get_file_outline', 'get_symbol', 'list_repositories'];
const CALL_TIMEOUT_MS = 120_000;

let passed = 0;
let failed = 0;

/** Fails the current check with a message. */
function assert(cond, message) {
  if (!cond) throw new Error(message);
}

/** Runs one named check, counting it as passed or failed. */
async function check(name, fn) {
  try {
    await fn();
    passed++;
    console.log(`ok   ${name}`);
  } catch (err) {
    failed++;
    console.log(`FAIL ${name}: ${err && err.message ? err.message : err}`);
  }
}

/** Returns the text content of a result. */
function textOf(res) {
  return (res.content ?? []).filter((c) => c.type === 'text').map((c) => c.text).join('');
}

/** Calls a tool that must succeed; checks its text is concise prose. */
async function ok(client, name, args) {
  const res = await client.callTool({ name, arguments: args }, undefined, { timeout: CALL_TIMEOUT_MS });
  const text = textOf(res);
  assert(!res.isError, `${name} ${JSON.stringify(args)} failed: ${text}`);
  assert(res.structuredContent && typeof res.structuredContent === 'object', `${name}: no structuredContent`);
  const trimmed = text.trim();
  assert(trimmed.length > 0, `${name}: empty text content`);
  let isJSON = true;
  try { JSON.parse(trimmed); } catch { isJSON = false; }
  assert(!isJSON && !trimmed.startsWith('{'), `${name}: text content is JSON, want a concise rendering`);
  return { sc: res.structuredContent, text };
}

/** Calls a tool that must fail with code; returns structuredContent.error. */
async function fails(client, name, args, code) {
  const res = await client.callTool({ name, arguments: args }, undefined, { timeout: CALL_TIMEOUT_MS });
  const text = textOf(res);
  assert(res.isError === true, `${name} ${JSON.stringify(args)} succeeded, want ${code}: ${text}`);
  const err = res.structuredContent?.error;
  assert(err, `${name}: isError without structuredContent.error`);
  assert(err.code === code, `${name} ${JSON.stringify(args)}: code ${err.code}, want ${code}: ${err.message}`);
  assert(text.includes(code), `${name}: text does not name ${code}`);
  return err;
}

const transport = new StdioClientTransport({ command: bin, args: ['serve', '--tools', 'all', '--db', db, root], stderr: 'inherit' });
const client = new Client({ name: 'sextant-e2e-ts', version: '0.0.1' });
try {
  await client.connect(transport);
} catch (err) {
  console.log(`FAIL connect: ${err.message}`);
  console.log('0 passed, 1 failed');
  process.exit(1);
}

await check('initialize: server info and instructions', async () => {
  const info = client.getServerVersion();
  assert(info?.name === 'sextant' && info.version, `serverInfo ${JSON.stringify(info)}`);
  const instructions = client.getInstructions() ?? '';
  for (const t of TOOLS) assert(instructions.includes(t), `instructions do not mention ${t}`);
});

await check('tools/list: every tool with schemas and annotations', async () => {
  const { tools } = await client.listTools();
  const names = tools.map((t) => t.name).sort();
  // The server runs with --tools all: every tool this client calls is there.
  for (const want of TOOLS) assert(names.includes(want), `no ${want} in tools ${names}`);
  for (const t of tools) {
    assert(t.outputSchema?.type === 'object', `${t.name}: no object outputSchema`);
    assert(t.inputSchema?.type === 'object', `${t.name}: no object inputSchema`);
    if (!TOOLS.includes(t.name)) continue; // lsp_request and lsp_restart are not read-only
    const a = t.annotations ?? {};
    assert(a.readOnlyHint === true && a.idempotentHint === true && a.openWorldHint === false,
      `${t.name}: annotations ${JSON.stringify(a)}`);
    assert((t.description ?? '').length >= 150, `${t.name}: description too short`);
  }
});

await check('list_repositories: cobra with counts', async () => {
  const { sc, text } = await ok(client, 'list_repositories', {});
  const r = sc.results.find((x) => x.name === COBRA);
  assert(r, `no ${COBRA} in ${JSON.stringify(sc.results)}`);
  assert(r.root === root, `root ${r.root}, want ${root}`);
  assert(r.packages >= 2 && r.files >= 30 && r.symbols >= 500, `counts ${JSON.stringify(r)}`);
  assert(r.fresh === true && sc.fresh === true && sc.snapshot_id > 0, 'not fresh');
  assert(text.includes(COBRA), 'text does not name cobra');
});

await check('find_symbol: exact method', async () => {
  const { sc } = await ok(client, 'find_symbol', { name: 'Execute', kind: 'method', mode: 'exact' });
  assert(sc.results[0]?.qualified_name === 'Command.Execute', `first ${sc.results[0]?.qualified_name}`);
  assert(sc.results.every((r) => r.kind === 'method'), 'a non-method slipped through the kind filter');
});

await check('find_symbol: fuzzy camel-case', async () => {
  const { sc, text } = await ok(client, 'find_symbol', { name: 'AddCmd' });
  assert(sc.results[0]?.qualified_name === 'Command.AddCommand', `first ${sc.results[0]?.qualified_name}`);
  assert(text.includes('Command.AddCommand'), 'text does not show the match');
});

await check('find_symbol: prefix and path filter', async () => {
  const { sc } = await ok(client, 'find_symbol', { name: 'Gen', mode: 'prefix', path: 'doc/', limit: 200 });
  assert(sc.total > 0 && sc.results.every((r) => r.path.startsWith('doc/')), 'path filter leaked');
  assert(sc.results.some((r) => r.qualified_name === 'GenMarkdownTree'), 'GenMarkdownTree missing');
});

await check('find_symbol: paging with cursor', async () => {
  const args = { name: 'Flag', mode: 'substring', limit: 5 };
  const p1 = (await ok(client, 'find_symbol', args)).sc;
  assert(p1.total > 10 && p1.returned === 5 && p1.truncated && p1.next_cursor, `page 1 ${JSON.stringify({ ...p1, results: undefined })}`);
  const p2 = (await ok(client, 'find_symbol', { ...args, cursor: p1.next_cursor })).sc;
  assert(p2.total === p1.total && p2.returned === 5, 'page 2 disagrees on total');
  const keys = new Set(p1.results.map((r) => r.stable_key));
  assert(p2.results.every((r) => !keys.has(r.stable_key)), 'pages overlap');
  await fails(client, 'find_symbol', { ...args, cursor: 'bogus' }, 'CURSOR_INVALID');
});

await check('find_symbol: invalid arguments', async () => {
  const e1 = await fails(client, 'find_symbol', { name: ' Command' }, 'INVALID_ARGUMENT');
  assert(e1.data?.field === 'name', `field ${e1.data?.field}`);
  const e2 = await fails(client, 'find_symbol', { name: 'Command', kind: 'klass' }, 'INVALID_ARGUMENT');
  assert(e2.data?.field === 'kind', `field ${e2.data?.field}`);
});

let commandKey = '';
await check('get_symbol: type with fields and methods', async () => {
  const { sc, text } = await ok(client, 'get_symbol', { qualified_name: 'cobra.Command' });
  const d = sc.results;
  assert(d.kind === 'type' && d.path === 'command.go' && d.package_path === COBRA, `detail ${JSON.stringify(d).slice(0, 200)}`);
  assert(d.fields?.some((f) => f.name === 'Use'), 'field Use missing');
  assert(d.methods?.some((m) => m.name === 'Execute'), 'method Execute missing');
  assert(text.includes('Command'), 'text does not name Command');
  commandKey = d.stable_key;
});

await check('get_symbol: every selector reaches the same symbol', async () => {
  for (const args of [
    { stable_key: commandKey },
    { qualified_name: 'github.com/spf13/cobra.Command' },
    { file: 'command.go', name: 'Command' },
  ]) {
    const { sc } = await ok(client, 'get_symbol', args);
    assert(sc.results.stable_key === commandKey, `${JSON.stringify(args)} gave ${sc.results.qualified_name}`);
  }
  const { sc } = await ok(client, 'get_symbol', { qualified_name: 'Command.Execute' });
  assert(sc.results.kind === 'method' && sc.results.receiver === '*Command', `Command.Execute ${JSON.stringify(sc.results).slice(0, 200)}`);
});

await check('get_symbol: SYMBOL_NOT_FOUND with suggestions', async () => {
  const e = await fails(client, 'get_symbol', { qualified_name: 'Comand' }, 'SYMBOL_NOT_FOUND');
  assert(e.data?.suggestions?.[0]?.startsWith('Command '), `suggestions ${JSON.stringify(e.data?.suggestions)}`);
  const e2 = await fails(client, 'get_symbol', { file: 'command.go', name: 'flag.FlagSet' }, 'SYMBOL_NOT_FOUND');
  assert(e2.message.includes('outside'), `message ${e2.message}`);
});

await check('get_symbol: AMBIGUOUS_SYMBOL with candidates', async () => {
  const e = await fails(client, 'get_symbol', { qualified_name: 'emptyRun' }, 'AMBIGUOUS_SYMBOL');
  assert((e.data?.candidates ?? []).length === 2, `candidates ${JSON.stringify(e.data?.candidates)}`);
});

await check('get_file_outline: file with nested members', async () => {
  const { sc, text } = await ok(client, 'get_file_outline', { path: 'command.go' });
  const f = sc.results[0];
  assert(f.path === 'command.go' && f.package === 'cobra', `file ${f.path} ${f.package}`);
  const cmd = f.entries.find((e) => e.name === 'Command');
  assert(cmd?.kind === 'type', 'no Command type');
  assert(cmd.members.some((m) => m.name === 'Use' && m.kind === 'field'), 'field Use not nested');
  assert(cmd.members.some((m) => m.name === 'Execute' && m.kind === 'method'), 'method Execute not nested');
  assert(text.includes('type Command'), 'text does not show Command');
});

await check('get_file_outline: directory', async () => {
  const { sc } = await ok(client, 'get_file_outline', { path: 'doc' });
  assert(sc.results.length >= 5 && sc.results.every((f) => f.path.startsWith('doc/')), `files ${sc.results.map((f) => f.path)}`);
});

await check('get_file_outline: path errors', async () => {
  await fails(client, 'get_file_outline', { path: '../x' }, 'OUTSIDE_ROOTS');
  await fails(client, 'get_file_outline', { path: '/etc/passwd' }, 'OUTSIDE_ROOTS');
  await fails(client, 'get_file_outline', { path: 'nope.go' }, 'FILE_NOT_FOUND');
  await fails(client, 'get_file_outline', { path: 'command.go', repository: 'nobody' }, 'REPOSITORY_NOT_FOUND');
});

await check('find_references: uses grouped by file, paged with an exact total', async () => {
  const { sc, text } = await ok(client, 'find_references', { qualified_name: 'Command.Execute' });
  assert(sc.symbol?.qualified_name === 'Command.Execute', `symbol ${JSON.stringify(sc.symbol)}`);
  const rows = sc.results.flatMap((f) => f.references.map((r) => ({ path: f.path, ...r })));
  assert(sc.total > 0 && rows.length === sc.returned, `total ${sc.total}, returned ${sc.returned}, rows ${rows.length}`);
  assert(rows.every((r) => r.line > 0 && r.column > 0 && r.kind && r.text.includes('Execute')), 'incomplete row');
  assert(new Set(sc.results.map((f) => f.path)).size === sc.results.length, 'a file grouped twice');
  assert(['complete', 'lower_bound'].includes(sc.completeness), `completeness ${sc.completeness}`);
  assert(text.includes(sc.results[0].path), 'text does not name the first file');
  const p1 = (await ok(client, 'find_references', { qualified_name: 'Command', limit: 3 })).sc;
  assert(p1.returned === 3 && p1.truncated && p1.next_cursor, 'no second page');
  const p2 = (await ok(client, 'find_references', { qualified_name: 'Command', limit: 3, cursor: p1.next_cursor })).sc;
  assert(p2.total === p1.total, 'total changed between pages');
  await fails(client, 'find_references', { qualified_name: 'Command', kind: 'calls' }, 'INVALID_ARGUMENT');
  await fails(client, 'find_references', { qualified_name: 'Comand' }, 'SYMBOL_NOT_FOUND');
});

await check('get_callers and get_callees: edges with coverage, via and sites', async () => {
  const { sc } = await ok(client, 'get_callers', { qualified_name: 'Command.ExecuteC' });
  const e = sc.results.find((r) => r.qualified_name === 'Command.Execute');
  assert(e && e.coverage === 'exact' && e.via === 'static' && e.sites.length > 0, `callers ${JSON.stringify(sc.results).slice(0, 300)}`);
  assert(sc.completeness === 'lower_bound' && sc.blind_spots.length > 0, `completeness ${sc.completeness}`);
  const callees = (await ok(client, 'get_callees', { qualified_name: 'Command.ExecuteC', depth: 2 })).sc;
  assert(callees.results.some((r) => r.depth === 2), 'no second level');
  await fails(client, 'get_callers', { qualified_name: 'Command' }, 'NOT_A_FUNCTION');
  await fails(client, 'get_callees', { qualified_name: 'Command.Execute', depth: 9 }, 'INVALID_ARGUMENT');
});

await check('find_implementations: both directions, and an empty answer that is complete', async () => {
  const { sc } = await ok(client, 'find_implementations', { qualified_name: 'SliceValue' });
  assert(sc.direction === 'implementations' && sc.results.some((r) => r.qualified_name === 'customMultiString'), JSON.stringify(sc));
  const none = (await ok(client, 'find_implementations', { qualified_name: 'SliceValue', include_tests: false })).sc;
  assert(none.total === 0 && none.results.length === 0 && none.completeness === 'complete', JSON.stringify(none));
  await fails(client, 'find_implementations', { qualified_name: 'Command.Use' }, 'INVALID_ARGUMENT');
});

await client.close();

// The default profile, as an agent in a stock setup sees it: every tool it
// lists is called once, with the argument an agent would plausibly send
// first. A tool the server does not list is skipped only when optional.
const DEFAULT_TOOLS = ['check_file', 'explain_effects', 'explain_type', 'find_implementations', 'find_references',
  'find_symbol', 'get_callees', 'get_callers', 'get_context_for_symbol', 'get_file_outline',
  'get_repository_overview', 'get_symbol', 'infer_type', 'read_source', 'search_code'];
const FIRST_CALLS = [
  { name: 'get_repository_overview', args: {}, want: (sc) => sc.entry_points.some((p) => p.path === COBRA) },
  { name: 'find_symbol', args: { name: 'Command' }, want: (sc) => sc.results[0]?.qualified_name === 'Command' },
  { name: 'get_symbol', args: { qualified_name: 'cobra.Command' }, want: (sc) => sc.results.kind === 'type' },
  { name: 'get_file_outline', args: { path: 'command.go' }, want: (sc) => sc.results[0]?.path === 'command.go' },
  { name: 'read_source', args: { qualified_name: 'Command.Execute' }, want: (sc) => sc.results.some((r) => r.source.includes('func (c *Command) Execute')) },
  { name: 'search_code', args: { question: 'generate shell completion' }, want: (sc) => sc.results.length > 0 },
  { name: 'get_context_for_symbol', args: { qualified_name: 'Command.Execute' }, want: (sc) => sc.summary.includes('Execute') },
  { name: 'find_references', args: { qualified_name: 'Command.AddCommand' }, want: (sc) => sc.total > 0 },
  { name: 'get_callers', args: { qualified_name: 'Command.ExecuteC' }, want: (sc) => sc.results.some((r) => r.qualified_name === 'Command.Execute') },
  { name: 'get_callees', args: { qualified_name: 'Command.ExecuteC' }, want: (sc) => sc.results.length > 0 },
  { name: 'find_implementations', args: { qualified_name: 'SliceValue' }, want: (sc) => sc.total > 0 },
  { name: 'explain_effects', args: { qualified_name: 'Command.Execute' }, want: (sc) => sc.analysed === true },
  // Methods come most used from outside the type first, a page at a time.
  { name: 'explain_type', args: { qualified_name: 'cobra.Command' }, want: (sc) => sc.results.kind === 'struct' && sc.results.methods.some((m) => m.name === 'Flags') },
  { name: 'infer_type', args: { file: 'command.go', line: 0, column: 6 }, want: (sc) => sc.results.token === 'Command' },
  { name: 'check_file', args: { file: 'command.go' }, want: (sc) => Array.isArray(sc.results) },
  { name: 'get_impact', args: { qualified_name: 'Command.Execute' }, optional: true },
];

const stock = new Client({ name: 'sextant-e2e-ts-default', version: '0.0.1' });
try {
  await stock.connect(new StdioClientTransport({ command: bin, args: ['serve', '--db', db, root], stderr: 'inherit' }));
} catch (err) {
  console.log(`FAIL connect (default profile): ${err.message}`);
  console.log(`${passed} passed, ${failed + 1} failed`);
  process.exit(1);
}

let listed = [];
await check('default profile: one tool per kind of question', async () => {
  listed = (await stock.listTools()).tools.map((t) => t.name).sort();
  const want = [...DEFAULT_TOOLS, ...FIRST_CALLS.filter((c) => c.optional && listed.includes(c.name)).map((c) => c.name)].sort();
  assert(JSON.stringify(listed) === JSON.stringify(want), `tools ${listed}, want ${want}`);
  for (const name of listed) assert(FIRST_CALLS.some((c) => c.name === name), `no first call for ${name}`);
  const instructions = stock.getInstructions() ?? '';
  const first = instructions.indexOf('get_repository_overview');
  assert(first >= 0 && first < instructions.indexOf('find_symbol'), 'instructions do not route to get_repository_overview first');
});

// The line of type Command, for the position tool's first call.
const outline = (await stock.callTool({ name: 'get_file_outline', arguments: { path: 'command.go' } })).structuredContent;
const commandLine = outline?.results?.[0]?.entries?.find((e) => e.name === 'Command')?.start_line ?? 1;

for (const c of FIRST_CALLS) {
  if (c.optional && !listed.includes(c.name)) continue;
  const args = c.name === 'infer_type' ? { ...c.args, line: commandLine } : c.args;
  await check(`default profile: ${c.name} ${JSON.stringify(args)}`, async () => {
    const { sc } = await ok(stock, c.name, args);
    if (c.want) assert(c.want(sc), `unexpected answer: ${JSON.stringify(sc).slice(0, 300)}`);
  });
}
await stock.close();

console.log(`${passed} passed, ${failed} failed`);
process.exit(failed > 0 ? 1 : 0);
