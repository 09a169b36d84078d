// End-to-end cases as folders (STYLE 11): test/e2e/cases/<name>/ holds
//   args.json            the argv, a JSON array; `$ROOT` is the sandbox root
//   files/               optional: copied into the sandbox root before the run (an on-node tree)
//   expected/exit-code   the exit status
//   expected/stdout      optional: stdout with the root replaced by `$ROOT` and the version by `$VERSION`
//   expected/files/      optional: files that must exist in the sandbox afterwards, byte for byte
// Adding a case means adding a folder. ANC_CASES=<prefix> runs a subset; UPDATE_GOLDEN=1 rewrites
// expected/exit-code and expected/stdout from the actual run (review the diff).
import { cpSync, existsSync, mkdirSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { makeSandbox, runAnc } from './harness.ts';

const CASES = join(process.cwd(), 'test', 'e2e', 'cases');
const update = process.env.UPDATE_GOLDEN === '1';
const only = process.env.ANC_CASES ?? '';

function walk(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    return statSync(path).isDirectory() ? walk(path) : [path];
  });
}

const version = async (root: string) => (await runAnc(['version'], { root })).stdout.trim();

for (const name of readdirSync(CASES).sort()) {
  if (!name.startsWith(only)) continue;
  const dir = join(CASES, name);
  test(name, async () => {
    const sandbox = makeSandbox(`anc-case-${name}-`);
    try {
      if (existsSync(join(dir, 'files'))) cpSync(join(dir, 'files'), sandbox.root, { recursive: true });
      const args = (JSON.parse(readFileSync(join(dir, 'args.json'), 'utf8')) as string[]).map((a) => a.split('$ROOT').join(sandbox.root));
      const r = await runAnc(args, { root: sandbox.root, env: { PATH: '/usr/sbin:/usr/bin:/sbin:/bin' } });
      const stdout = r.stdout
        .split(sandbox.root)
        .join('$ROOT')
        .split(await version(sandbox.root))
        .join('$VERSION');
      const expected = join(dir, 'expected');
      if (update) {
        mkdirSync(expected, { recursive: true });
        writeFileSync(join(expected, 'exit-code'), `${r.exitCode}\n`);
        if (stdout !== '' || existsSync(join(expected, 'stdout'))) writeFileSync(join(expected, 'stdout'), stdout);
      }
      assert.is(r.exitCode, Number(readFileSync(join(expected, 'exit-code'), 'utf8')), `exit code (stderr: ${r.stderr})`);
      if (existsSync(join(expected, 'stdout'))) assert.fixture(stdout, readFileSync(join(expected, 'stdout'), 'utf8'));
      const files = join(expected, 'files');
      for (const file of existsSync(files) ? walk(files) : []) {
        const onNode = '/' + relative(files, file);
        assert.ok(existsSync(sandbox.path(onNode)), `${onNode} was not written`);
        assert.fixture(sandbox.read(onNode), readFileSync(file, 'utf8'), onNode);
      }
    } finally {
      sandbox.cleanup();
    }
  });
}

test.run();
