// Issue 40 (Low): help and output flags say what the commands do. -o wide is accepted where a wider view
// exists (status) and suggested in the error elsewhere; group commands have descriptions; a blank line
// before the root's Flags:; fail-open commands list no error exit; sign's pipeline names the program;
// image manifest and sign say which format they print by default.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { runAnc } from '../harness.ts';

const root = mkdtempSync(join(tmpdir(), 'anc-help-drift-'));
test.after(() => rmSync(root, { recursive: true, force: true }));
const run = (args: string[]) => runAnc(args, { root });

test('-o wide: status takes it as --wide; a command without a wider view says so and names those that have one', async () => {
  const wide = await run(['status', '-o', 'wide']);
  const flag = await run(['status', '--wide']);
  assert.is(wide.exitCode, flag.exitCode);
  assert.is(wide.stdout, flag.stdout);
  const version = await run(['version', '-o', 'wide']);
  assert.is(version.exitCode, 1);
  assert.is(
    version.stderr,
    'aks-node-controller: -o wide: version has no wider view; use -o text, -o json or -o yaml\nhint: Commands with a wider view take -o wide (or --wide): status, hotfix rollout status.\n',
  );
  assert.match((await run(['version', '-o', 'xml'])).stderr, '(-o wide where a wider view exists: status)');
});

test('groups are described, not listed as "Commands: ..."; the root help has a blank line before Flags:', async () => {
  const top = (await run(['--help'])).stdout;
  assert.match(
    top,
    '\n  image                  What an image holds: its manifest of scripts, platform and baked agent, and what changed since\n',
  );
  assert.match(top, "for a command's flags, examples and exit codes.\n\nFlags:\n");
  const hotfix = (await run(['hotfix', '--help'])).stdout;
  assert.match(hotfix, "\n  pointer  Render, sign and verify the hotfix pointer (the fleet's anc-hotfix-version ConfigMap)\n");
  assert.match(hotfix, "\n  rollout  Follow a hotfix rollout from the nodes' own reports: status, watch\n");
  for (const text of [top, hotfix]) assert.not.match(text, 'Commands: ');
});

test('fail-open commands: exit 0 always (report-status: 1 only for an unknown flag); no "1 error"', async () => {
  const check = (await run(['check-hotfix', '--help'])).stdout;
  assert.ok(check.endsWith('Exit codes:\n  0  always, once it runs (fail-open: a failure is logged and carried in its event)\n'), check);
  const report = (await run(['report-status', '--help'])).stdout;
  assert.ok(
    report.endsWith(
      'Exit codes:\n  0  always, once it runs (fail-open: a failure is logged and carried in its event)\n  1  usage error only (a flag it does not know): nothing ran\n',
    ),
    report,
  );
});

test("sign's pipeline names the program; image manifest and sign say their default format", async () => {
  const sign = (await run(['hotfix', 'pointer', 'sign', '--help'])).stdout;
  assert.match(sign, '  aks-node-controller hotfix pointer render ... | aks-node-controller hotfix pointer sign --key');
  assert.match(sign, '-o, --output <format>  Output format: yaml (default, the signed ConfigMap; -o text prints the same YAML) or json\n');
  const manifest = (await run(['image', 'manifest', '--help'])).stdout;
  assert.match(
    manifest,
    'Output format: json (default, the manifest; -o text prints the same JSON) or yaml; with --diff: text (default, for people), json or yaml',
  );
  assert.not.match(manifest + sign, 'text (default, for people), json or yaml (for machines)');
});

test('hotfix explain -o json is indented JSON, like every other -o json', async () => {
  const pointer = join(root, 'pointer.json');
  writeFileSync(pointer, '{"hotfixes":{"202604.01":"202604.01.1"}}');
  const r = await run(['hotfix', 'explain', '-o', 'json', '--current-version', '202604.01.0', '--pointer', pointer]);
  assert.is(r.exitCode, 0, r.stderr);
  assert.ok(r.stdout.startsWith('{\n  "summary": '), r.stdout.slice(0, 80));
  assert.is(JSON.parse(r.stdout).resolved, '202604.01.1');
});

test.run();
