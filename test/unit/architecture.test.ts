// Architecture rules of ARCHITECTURE.md / STYLE.md, checked with regexes over the sources.
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
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

test('pure modules import no I/O (config/, provision/env/, provision/templates/, hotfix rules)', () => {
  const pure = (rel: string) =>
    rel.startsWith('config/') ||
    rel.startsWith('provision/env/') ||
    rel.startsWith('provision/templates/') ||
    [
      'hotfix/version.ts',
      'hotfix/resolve.ts',
      'hotfix/pointer.ts',
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
    if (!['commands/command.ts', 'commands/index.ts', 'commands/cli.ts', 'commands/argv.ts', 'commands/config-input.ts'].includes(rel)) {
      assert.match(text, /satisfies Command</, `${rel} does not end in satisfies Command<...>`);
    }
  }
});

test('main.ts is wiring only (<= 80 lines, imports commands/ and platform/{deps,errors})', () => {
  const main = files.find((f) => f.rel === 'main.ts')!;
  assert.ok(main.text.split('\n').length <= 80);
  for (const spec of runtimeImports(main.text)) {
    assert.ok(/^\.\/commands\/|^\.\/platform\/(deps|errors)\.ts$/.test(spec), `main.ts imports ${spec}`);
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
    if (rel === 'platform/paths.ts' || rel.startsWith('provision/templates/') || generated(rel)) continue;
    // Code only: comments may cite the contract's paths.
    const code = text
      .split('\n')
      .filter((line) => !/^\s*(\/\/|\*|\/\*)/.test(line))
      .join('\n');
    assert.not.match(code, onNode, `${rel} spells an on-node path (use platform/paths.ts)`);
  }
});

test.run();
