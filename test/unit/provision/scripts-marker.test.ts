// What provision tells the launcher's fallback table: the scripts-started marker is written the moment
// before the scripts run (never on a dry run or an early failure), and under ANC_LAUNCHER_FALLBACK=baked
// an early failure leaves the status files to the baked run. A dry run emits no events (D9).
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import type { RunResult } from '../../../src/platform/proc.ts';
import { provision } from '../../../src/provision/run.ts';
import { fakeDeps, type FakeDeps } from '../../fakes/deps.ts';

const result = (exitCode: number): RunResult => ({ exitCode, signal: null, stdout: '', stderr: '', timedOut: false });

function nbcNode(options: { fallback?: boolean; scriptsExit?: number } = {}): {
  d: FakeDeps;
  nbc: string;
  markerSeenByScripts: () => boolean;
} {
  let seen = false;
  const d = fakeDeps({
    env: options.fallback ? { ANC_LAUNCHER_FALLBACK: 'baked' } : {},
    run: () => {
      seen = existsSync(d.paths.scriptsStartedMarker);
      return result(options.scriptsExit ?? 0);
    },
  });
  const nbc = d.paths.under('/nbc.sh');
  mkdirSync(dirname(d.paths.provisionComplete), { recursive: true });
  writeFileSync(nbc, 'exit 0\n');
  return { d, nbc, markerSeenByScripts: () => seen };
}

test('the marker exists when the scripts start, and holds the agent version', async () => {
  const { d, nbc, markerSeenByScripts } = nbcNode();
  try {
    assert.is((await provision({ nbcCmd: nbc, dryRun: false, showSecrets: false }, d)).exitCode, 0);
    assert.ok(markerSeenByScripts());
    assert.match(readFileSync(d.paths.scriptsStartedMarker, 'utf8'), /^202604\.01\.0 \d{4}-/);
  } finally {
    d.cleanup();
  }
});

test('early failure (bad flags / missing nbc file): no marker; status written unless the launcher falls back', async () => {
  for (const fallback of [false, true]) {
    const { d } = nbcNode({ fallback });
    try {
      const out = await provision({ nbcCmd: d.paths.under('/missing.sh'), dryRun: false, showSecrets: false }, d);
      assert.is(out.exitCode, 1);
      assert.not.ok(existsSync(d.paths.scriptsStartedMarker));
      assert.is(existsSync(d.paths.provisionComplete), !fallback, `provision.complete with fallback=${fallback}`);
      assert.is(existsSync(d.paths.provisionJson), !fallback);
      assert.is(
        d.logs.some((l) => l.msg.includes('the launcher falls back to the baked agent')),
        fallback,
      );
      assert.match(d.emitted.at(-1)!.message, 'aks-node-controller exited with error');
    } finally {
      d.cleanup();
    }
  }
});

test('a script failure under the fallback launcher still writes the status (it is final)', async () => {
  const { d, nbc } = nbcNode({ fallback: true, scriptsExit: 7 });
  try {
    assert.is((await provision({ nbcCmd: nbc, dryRun: false, showSecrets: false }, d)).exitCode, 7);
    assert.ok(existsSync(d.paths.scriptsStartedMarker));
    assert.is(JSON.parse(readFileSync(d.paths.provisionJson, 'utf8')).ExitCode, '7');
    assert.ok(existsSync(d.paths.provisionComplete));
  } finally {
    d.cleanup();
  }
});

test('an unwritable marker stops provisioning before the scripts (no marker, no scripts)', async () => {
  const { d, nbc } = nbcNode();
  try {
    mkdirSync(d.paths.scriptsStartedMarker, { recursive: true }); // a directory: the rename onto it fails
    const out = await provision({ nbcCmd: nbc, dryRun: false, showSecrets: false }, d);
    assert.is(out.exitCode, 1);
    assert.is(d.runs.length, 0, 'scripts never started');
    assert.match(JSON.parse(readFileSync(d.paths.provisionJson, 'utf8')).Error, 'writing the scripts-started marker');
  } finally {
    d.cleanup();
  }
});

test('dry run: no marker, no events, no status (D9)', async () => {
  const { d, nbc } = nbcNode();
  try {
    assert.is((await provision({ nbcCmd: nbc, dryRun: true, showSecrets: false }, d)).exitCode, 0);
    assert.equal(d.emitted, []);
    assert.not.ok(existsSync(d.paths.scriptsStartedMarker));
    const failed = await provision({ nbcCmd: d.paths.under('/missing.sh'), dryRun: true, showSecrets: false }, d);
    assert.is(failed.exitCode, 1);
    assert.equal(d.emitted, []);
    assert.not.ok(existsSync(d.paths.provisionJson));
  } finally {
    d.cleanup();
  }
});

test.run();
