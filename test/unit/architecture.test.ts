// Architecture rules of ARCHITECTURE.md / STYLE.md, checked with regexes over the sources.
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';

const SRC = join(process.cwd(), 'src');

function walk(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    return statSync(path).isDirectory() ? walk(path) : path.endsWith('.ts') ? [path] : [];
  });
}

const files = walk(SRC).map((path) => ({ rel: relative(SRC, path), text: readFileSync(path, 'utf8') }));
const generated = (rel: string) => rel.includes('/generated/');
/** Every relative import of a file (type-only too), as paths under src/. */
const importsOf = (rel: string, text: string) =>
  [...text.matchAll(/(?:^(?:import|export)\s[^;]*?from\s+|import\()'(\.{1,2}\/[^']+)'/gm)].map((m) => join(dirname(rel), m[1]!));
const runtimeImports = (text: string) => [...text.matchAll(/^import\s+(?!type\b)[^;]*?from\s+'([^']+)'/gm)].map((m) => m[1]!);

test('no plain Error throws and no process.exit in src/', () => {
  for (const { rel, text } of files) {
    assert.not.match(text, /throw new Error\(/, `${rel} throws a plain Error (use AgentError)`);
    assert.not.match(text, /process\.exit\(/, `${rel} calls process.exit (set process.exitCode)`);
  }
});

test('no top-level let; process.env and process.argv only in main.ts and platform/', () => {
  for (const { rel, text } of files) {
    assert.not.match(text, /^let /m, `${rel} has a top-level let`);
    if (rel === 'main.ts' || rel.startsWith('platform/')) continue;
    assert.not.match(text, /process\.(env|argv)\b/, `${rel} reads process.env/argv`);
  }
});

test('pure modules import no I/O (config/, cse/env/, cse/templates/, pointer rules, delta decoding)', () => {
  const pure = (rel: string) =>
    rel.startsWith('config/') ||
    rel.startsWith('cse/env/') ||
    rel.startsWith('cse/templates/') ||
    [
      'pointer/version.ts',
      'pointer/resolve.ts',
      'pointer/document.ts',
      'hotfix/delta/vcdiff.ts',
      'hotfix/delta/vcdiff-code-table.ts',
      'hotfix/delta/manifest.ts',
    ].includes(rel);
  const allowedPlatform = /platform\/(errors|secret|paths|json|json-scan|go\/\w+)\.ts$/;
  for (const { rel, text } of files.filter((f) => pure(f.rel))) {
    for (const spec of runtimeImports(text)) {
      assert.not.ok(spec.startsWith('node:'), `${rel} imports ${spec}`);
      if (spec.includes('platform/')) assert.ok(allowedPlatform.test(spec), `${rel} imports runtime module ${spec}`);
      assert.not.ok(/\/(commands|kube)\//.test(spec), `${rel} imports ${spec}`);
    }
  }
});

test('commands are thin: <= 120 lines, no node: imports, satisfies Command', () => {
  for (const { rel, text } of files.filter((f) => f.rel.startsWith('commands/'))) {
    assert.ok(text.split('\n').length <= 120, `${rel} has more than 120 lines`);
    assert.not.ok(
      runtimeImports(text).some((s) => s.startsWith('node:')),
      `${rel} imports a node: module`,
    );
    if (!['commands/index.ts', 'commands/cli.ts', 'commands/config-input.ts'].includes(rel)) {
      assert.match(text, /satisfies Command</, `${rel} does not end in satisfies Command<...>`);
    }
  }
});

test('main.ts is wiring only (<= 80 lines, imports commands/ and platform/{deps,errors,stdio})', () => {
  const main = files.find((f) => f.rel === 'main.ts')!;
  assert.ok(main.text.split('\n').length <= 80);
  for (const spec of runtimeImports(main.text)) {
    assert.ok(/^\.\/commands\/|^\.\/platform\/(deps|errors|stdio)\.ts$/.test(spec), `main.ts imports ${spec}`);
  }
});

test('file budgets: <= 300 lines each (generated code excepted), median under 100', () => {
  const sizes = files.filter((f) => !generated(f.rel)).map((f) => ({ rel: f.rel, lines: f.text.split('\n').length }));
  const over = sizes.filter((s) => s.lines > 300).map((s) => `${s.rel} (${s.lines})`);
  assert.equal(over, [], `files over budget: ${over.join(', ')}`);
  const sorted = sizes.map((s) => s.lines).sort((a, b) => a - b);
  assert.ok(sorted[Math.floor(sorted.length / 2)]! < 100, `median ${sorted[Math.floor(sorted.length / 2)]}`);
});

test('no grab-bag folders (utils, helpers, common)', () => {
  for (const { rel } of files) assert.not.match(rel, /(^|\/)(utils|helpers|common)\//, rel);
});

test('on-node paths are spelled only in platform/paths.ts', () => {
  const onNode =
    /\/(opt\/azure|var\/log\/azure|var\/lib\/(kubelet|dpkg)|etc\/kubernetes|etc\/os-release|etc\/apt|etc\/yum\.repos\.d|usr\/bin\/aks-node-controller)/;
  for (const { rel, text } of files) {
    if (rel === 'platform/paths.ts' || rel.startsWith('cse/templates/') || generated(rel)) continue;
    // Code only: comments may cite the contract's paths.
    const code = text
      .split('\n')
      .filter((line) => !/^\s*(\/\/|\*|\/\*)/.test(line))
      .join('\n');
    assert.not.match(code, onNode, `${rel} spells an on-node path (use platform/paths.ts)`);
  }
});

// The rooms of the README's layout drawing, floor by floor from the top: a file imports its own room or a
// room on a lower floor, never one beside it or above it.
const FLOORS: readonly (readonly string[])[] = [
  ['main.ts'],
  ['commands'],
  ['cli'],
  ['fleet'],
  ['status'],
  ['provision'],
  ['hotfix'],
  ['pointer'],
  ['cse', 'customdata', 'kube', 'image'],
  ['config', 'formats'],
  ['platform'],
];
const roomOf = (rel: string) => rel.split('/')[0]!;
const floorOf = (room: string) => FLOORS.findIndex((floor) => floor.includes(room));

test('rooms: src/ holds exactly the drawn rooms; hotfix/ is delivery with repository/, delta/, switch/', () => {
  const rooms = [...new Set(files.map((f) => roomOf(f.rel)))].sort();
  assert.equal(rooms, FLOORS.flat().sort());
  for (const sub of ['repository', 'delta', 'switch'])
    assert.ok(
      files.some((f) => f.rel.startsWith(`hotfix/${sub}/`)),
      `hotfix/${sub}/`,
    );
  const misplaced = files.filter((f) => /^hotfix\/.*(pointer|resolve|explain|check|eligibility)/.test(f.rel)).map((f) => f.rel);
  assert.equal(misplaced, [], 'what a node should run lives in pointer/, not hotfix/');
});

test('rooms: no folder under src/ holds more than 25% of the lines (generated code aside)', () => {
  const lines = new Map<string, number>();
  for (const f of files.filter((f) => !generated(f.rel)))
    lines.set(roomOf(f.rel), (lines.get(roomOf(f.rel)) ?? 0) + f.text.split('\n').length);
  const total = [...lines.values()].reduce((a, b) => a + b, 0);
  for (const [room, n] of lines)
    assert.ok(n / total <= 0.25, `${room}/ holds ${((100 * n) / total).toFixed(1)}% of src/ (${n} of ${total} lines)`);
});

test('rooms: imports only run down the floors (type imports too)', () => {
  const upward: string[] = [];
  for (const { rel, text } of files) {
    for (const target of importsOf(rel, text)) {
      const [from, to] = [roomOf(rel), roomOf(target)];
      if (from !== to && floorOf(to) <= floorOf(from)) upward.push(`${rel} -> ${target}`);
    }
  }
  assert.equal(upward, []);
});

test('no two files import each other, directly or through a ring (src/ and vhd/packaging, type imports too)', () => {
  const graph = new Map(files.map(({ rel, text }) => [rel, importsOf(rel, text)]));
  const packaging = join(process.cwd(), 'vhd/packaging');
  for (const name of readdirSync(packaging).filter((n) => n.endsWith('.mjs'))) {
    const text = readFileSync(join(packaging, name), 'utf8');
    graph.set(
      `vhd:${name}`,
      importsOf(name, text).map((t) => `vhd:${t}`),
    );
  }
  const rings: string[][] = [];
  const state = new Map<string, 'open' | 'done'>();
  const path: string[] = [];
  const visit = (node: string) => {
    if (state.get(node) === 'done') return;
    if (state.get(node) === 'open') {
      rings.push([...path.slice(path.indexOf(node)), node]);
      return;
    }
    state.set(node, 'open');
    path.push(node);
    for (const next of graph.get(node) ?? []) if (graph.has(next)) visit(next);
    path.pop();
    state.set(node, 'done');
  };
  for (const node of graph.keys()) visit(node);
  assert.equal(
    rings.map((r) => r.join(' -> ')),
    [],
  );
});

test('one decision: pointer/decide.ts alone combines resolve, quarantine and waves; download, status and explain ask it', () => {
  const callers = (name: string) =>
    files
      .filter((f) => new RegExp(`\\b${name}\\(`).test(f.text))
      .map((f) => f.rel)
      .sort();
  assert.equal(callers('decideHotfix'), ['pointer/decide.ts', 'pointer/resolve.ts']);
  assert.equal(callers('nodeEligibility'), ['pointer/decide.ts', 'pointer/eligibility.ts']);
  for (const rel of ['hotfix/download.ts', 'status/collect.ts', 'pointer/explain.ts']) {
    const text = files.find((f) => f.rel === rel)!.text;
    assert.match(text, /decideFromPointerFile\(|decideForNode\(/, `${rel} does not ask the one decision`);
  }
});

test.run();
