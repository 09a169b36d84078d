#!/usr/bin/env node
// check-hotfix whole-command time on the compiled binary against the loopback apiserver stand-in:
// medians of a successful read (token and client-certificate credentials, next to `version` for the
// start-up share), then one run per fault of the e2e matrix with its outcome and time, and the worst
// case. Prints a markdown table; asserts nothing.
//
//   npm run bench:check-hotfix [-- --runs N] [-- --signing]      (ANC_BIN=<binary> to measure another build)
// The last section compares an unsigned with a signed pointer (its own build with a test key set).
// Needs tsm (the stand-in is TypeScript): the npm script passes `--loader tsm`.
import { execFileSync } from 'node:child_process';
import { createServer } from 'node:net';
import { existsSync, mkdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';

const args = process.argv.slice(2);
const runs = Number(args[args.indexOf('--runs') + 1]) || 20;
if (!process.env.ANC_BIN) {
  const bin = join(process.cwd(), 'dist', 'aks-node-controller');
  if (!existsSync(bin)) execFileSync(process.execPath, ['build.mjs', '--quiet'], { stdio: 'inherit' });
  process.env.ANC_BIN = bin;
}
const { startFakeApiServer, status, kubeconfigFor, DEFAULT_TOKEN } = await import('../test/fakes/apiserver.ts');
const { makeTestPki } = await import('../test/fakes/apiserver-pki.ts');
const node = await import('../test/e2e/check-hotfix/node.ts');
const { runAnc } = await import('../test/e2e/harness.ts');

const CM = { [node.CM_KEY]: node.SERVED() };
const median = (v) => {
  const s = [...v].sort((a, b) => a - b);
  const m = Math.floor(s.length / 2);
  return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2;
};
const pct = (v, p) => [...v].sort((a, b) => a - b)[Math.min(v.length - 1, Math.floor(v.length * p))];

async function once(serverOptions, setup, mutate) {
  const api = serverOptions === null ? null : await startFakeApiServer({ configMaps: CM, ...serverOptions });
  try {
    const sb = api ? node.nodeFor(api, typeof setup === 'function' ? setup(api) : setup) : node.prepareNode(setup);
    mutate?.(sb, api);
    return await node.runCheck(sb);
  } finally {
    await api?.close();
  }
}

async function samples(label, serverOptions, setup) {
  const times = [];
  for (let i = 0; i < runs + 2; i++) {
    const run = await once(serverOptions, setup);
    if (run.outcome !== 'configMapRead') throw new Error(`${label}: outcome ${run.outcome} ${run.error}`);
    if (i >= 2) times.push(run.durationMs);
  }
  return { label, median: median(times), p90: pct(times, 0.9), min: Math.min(...times) };
}

async function versionSamples() {
  const times = [];
  const sb = node.prepareNode({ pointer: null, ca: null });
  for (let i = 0; i < runs + 2; i++) {
    const r = await runAnc(['version'], { root: sb.root });
    if (i >= 2) times.push(r.durationMs);
  }
  sb.cleanup();
  return { label: '`version` (start-up only, for reference)', median: median(times), p90: pct(times, 0.9), min: Math.min(...times) };
}

const hotfixes = { [node.ANC_VERSION.base]: node.ANC_VERSION.target };
const answer = (fn) => ({ override: (req, res) => (req.url?.includes('/configmaps/') ? (fn(res), true) : false) });
const FAULTS = [
  ['wrong CA', {}, { ca: makeTestPki().otherCa.cert }],
  ['hostname mismatch', { cert: 'wrong-name' }, {}],
  ['expired certificate', { cert: 'expired' }, {}],
  ['no CA file (no kubeconfig)', {}, { ca: null }],
  ['plain HTTP server', { plainHttp: true }, {}],
  ['401', {}, { token: 'wrongtoken.0000000000000000' }],
  ['403', { tokens: { [DEFAULT_TOKEN]: { user: 'u', canRead: false } } }, {}],
  ['404', { configMaps: {} }, {}],
  ['404 + cold-start pointer', { configMaps: {} }, { extra: { hotfixes } }],
  ['500', answer((res) => status(res, 500, 'InternalError', 'x')), {}],
  ['503', answer((res) => status(res, 503, 'ServiceUnavailable', 'x')), {}],
  ['connection refused', 'refused', {}],
  ['accept and hang (TCP, no TLS)', 'silent', {}],
  ['TLS then no answer', { override: () => true }, {}],
  [
    'slow body (1 byte / 400 ms)',
    answer((res) => {
      res.writeHead(200);
      const t = setInterval(() => res.write(' '), 400);
      res.on('close', () => clearInterval(t));
    }),
    {},
  ],
  [
    'truncated body',
    answer((res) => {
      res.writeHead(200, { 'Content-Length': '1000' });
      res.write('{"data":');
      setTimeout(() => res.socket?.destroy(), 50);
    }),
    {},
  ],
  [
    '10 MiB body',
    answer((res) => {
      res.writeHead(200);
      res.on('error', () => {});
      res.end(Buffer.alloc(10 * 1024 * 1024, 0x20));
    }),
    {},
  ],
  [
    'invalid JSON',
    answer((res) => {
      res.writeHead(200);
      res.end('{"data":{');
    }),
    {},
  ],
  ['`data` not an object', { configMaps: { [node.CM_KEY]: 'x' } }, {}],
  ['two keys, no hotfixes.json', { configMaps: { [node.CM_KEY]: { a: '{}', b: '{}' } } }, {}],
  ['empty value', { configMaps: { [node.CM_KEY]: { 'hotfixes.json': ' ' } } }, {}],
  ['legacy-only `version`', { configMaps: { [node.CM_KEY]: { 'hotfixes.json': `{"version":"${node.ANC_VERSION.target}"}` } } }, {}],
  ['non-string map value', { configMaps: { [node.CM_KEY]: { 'hotfixes.json': 5 } } }, {}],
  [
    'unreadable node config (a directory)',
    {},
    {},
    (sb) => {
      rmSync(sb.path(node.NODE_CONFIG));
      mkdirSync(sb.path(node.NODE_CONFIG));
    },
  ],
  ['read-only pointer file (0444)', {}, { pointerMode: 0o444 }],
  ['kubeconfig only: token', {}, (api) => ({ server: undefined, ca: null, kubeconfig: kubeconfigFor(api, { token: DEFAULT_TOKEN }) })],
  [
    'kubeconfig only: client certificate',
    {},
    (api) => ({ server: undefined, ca: null, kubeconfig: kubeconfigFor(api, { clientCert: true }) }),
  ],
];

async function fault([name, server, setup, mutate]) {
  if (server === 'refused' || server === 'silent') {
    const held = [];
    const s = createServer((c) => held.push(c));
    await new Promise((r) => s.listen(0, '127.0.0.1', r));
    const port = s.address().port;
    if (server === 'refused') await new Promise((r) => s.close(r));
    const run = await node.runCheck(node.prepareNode({ server: `127.0.0.1:${port}`, ...setup }));
    held.forEach((c) => c.destroy());
    if (server === 'silent') await new Promise((r) => s.close(r));
    return { name, run };
  }
  return { name, run: await once(server, setup, mutate) };
}

// `--signing` runs only the pointer-signing section below.
if (!args.includes('--signing')) {
  const rows = [
    await versionSamples(),
    await samples('successful read, node-config token', {}, {}),
    await samples('successful read, kubeconfig client certificate', {}, (api) => ({
      server: undefined,
      ca: null,
      kubeconfig: kubeconfigFor(api, { clientCert: true }),
    })),
  ];
  process.stdout.write(`check-hotfix on ${process.env.ANC_BIN} (${node.ANC_VERSION.full}), ${runs} runs each\n\n`);
  process.stdout.write('| case | median ms | p90 ms | min ms |\n|---|---:|---:|---:|\n');
  for (const r of rows) process.stdout.write(`| ${r.label} | ${r.median.toFixed(1)} | ${r.p90.toFixed(1)} | ${r.min.toFixed(1)} |\n`);
  process.stdout.write(
    `\nfault matrix (one run each)\n\n| fault | outcome | exit | ms | event error (URL = the ConfigMap URL; first 140 chars) |\n|---|---|---:|---:|---|\n`,
  );
  let worst = { name: '', ms: 0 };
  for (const f of FAULTS) {
    const { name, run } = await fault(f);
    if (run.durationMs > worst.ms) worst = { name, ms: run.durationMs };
    const error = run.error
      .replace(/https:\/\/127\.0\.0\.1:\d+\/api\/v1\/namespaces\/kube-system\/configmaps\/anc-hotfix-version/g, 'URL')
      .replace('configmap fetch failed and no cold-start pointer present: ', '(no fallback) ')
      .replace(/\|/g, '\\|')
      .slice(0, 140);
    process.stdout.write(`| ${name} | ${run.outcome} | ${run.exitCode} | ${run.durationMs} | ${error} |\n`);
  }
  process.stdout.write(`\nworst case: ${worst.ms} ms (${worst.name}); bound: 12000 ms\n`);
}

// Pointer signing (docs/pointer-signing.md): the same successful read with an unsigned ConfigMap and with
// a signed one, on one binary built with a test key set (interleaved, so load hits both alike), and the
// verification alone in-process (envelope parse + Ed25519 verify + payload checks).
{
  const { generateKeyPairSync } = await import('node:crypto');
  const { mkdtempSync, writeFileSync } = await import('node:fs');
  const { tmpdir } = await import('node:os');
  const { decidePointer } = await import('../src/pointer/gate.ts');
  const { signPayload } = await import('../src/pointer/signature.ts');
  const { serializeEnvelope, POINTER_PAYLOAD_TYPE } = await import('../src/pointer/dsse.ts');
  const { renderSignedPointer } = await import('../src/pointer/payload.ts');
  const dir = mkdtempSync(join(tmpdir(), 'anc-bench-keys-'));
  const pair = generateKeyPairSync('ed25519');
  const keys = [{ keyid: 'bench', algorithm: 'ed25519', publicKey: String(pair.publicKey.export({ type: 'spki', format: 'pem' })) }];
  writeFileSync(join(dir, 'keys.json'), JSON.stringify({ keys }));
  execFileSync(process.execPath, ['build.mjs', '--quiet', '--outdir', dir, '--pointer-keys', join(dir, 'keys.json')], { stdio: 'inherit' });
  const bin = join(dir, 'aks-node-controller');
  const text = renderSignedPointer({ serial: 1, expires: '2099-01-01T00:00:00Z', scope: {}, hotfixes });
  const payload = Buffer.from(text);
  const { sig } = signPayload(payload, String(pair.privateKey.export({ type: 'pkcs8', format: 'pem' })), 'bench');
  const envelope = serializeEnvelope({ payloadType: POINTER_PAYLOAD_TYPE, payload, signatures: [{ keyid: 'bench', sig }] });
  const variants = [
    ['unsigned ConfigMap (mode unsigned-allowed)', { 'hotfixes.json': JSON.stringify({ hotfixes }) }, {}],
    [
      'signed ConfigMap (mode enforce)',
      { 'hotfixes.json': text, 'pointer.dsse.json': envelope },
      { ANC_HOTFIX_POINTER_SIGNING: 'enforce' },
    ],
  ];
  const times = variants.map(() => []);
  const gate = variants.map(() => []);
  const { readFileSync } = await import('node:fs');
  for (let i = 0; i < runs + 2; i++) {
    for (const [v, [label, data, env]] of variants.entries()) {
      const api = await startFakeApiServer({ configMaps: { [node.CM_KEY]: data } });
      try {
        const run = await node.runCheck(node.nodeFor(api), { bin, env });
        if (run.outcome !== 'configMapRead') throw new Error(`${label}: outcome ${run.outcome} ${run.error}`);
        if (i >= 2) times[v].push(run.durationMs);
        const line = readFileSync(run.sb.path(node.LOG), 'utf8')
          .split('\n')
          .find((l) => l.includes('"gateMs"'));
        if (i >= 2 && line) gate[v].push(JSON.parse(line).gateMs);
      } finally {
        await api.close();
      }
    }
  }
  process.stdout.write(
    `\npointer signing on the check-hotfix path (${runs} runs each, interleaved)\n\n| case | whole command, median ms | p90 ms | signing gate in the binary (log gateMs), median ms |\n|---|---:|---:|---:|\n`,
  );
  for (const [v, [label]] of variants.entries())
    process.stdout.write(
      `| ${label} | ${median(times[v]).toFixed(1)} | ${pct(times[v], 0.9).toFixed(1)} | ${median(gate[v]).toFixed(2)} |\n`,
    );
  process.stdout.write(
    `| difference of the medians | ${(median(times[1]) - median(times[0])).toFixed(1)} | | ${(median(gate[1]) - median(gate[0])).toFixed(2)} |\n`,
  );
  const context = { mode: 'enforce', keys, facts: {}, minSerial: 0, now: new Date() };
  const verifyTimes = [];
  for (let i = 0; i < 200; i++) {
    const t0 = performance.now();
    if (!decidePointer({ envelope }, context).accepted) throw new Error('verification failed');
    verifyTimes.push(performance.now() - t0);
  }
  process.stdout.write(
    `\nverification alone (in-process under node, 200 runs): median ${median(verifyTimes.slice(20)).toFixed(3)} ms, first ${verifyTimes[0].toFixed(3)} ms\n`,
  );
}
