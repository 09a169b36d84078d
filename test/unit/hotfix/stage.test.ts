import { mkdirSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { hotfixExplainCommand } from '../../../src/commands/hotfix-explain.ts';
import { copyBinaryAlongside } from '../../../src/hotfix/stage.ts';
import { AgentError } from '../../../src/platform/errors.ts';
import { fakeDeps } from '../../fakes/deps.ts';

function put(path: string, content: string, mode = 0o644): void {
  mkdirSync(dirname(path), { recursive: true });
  writeFileSync(path, content, { mode });
}
const temps = (dir: string) => readdirSync(dir).filter((n) => n.startsWith('.aks-node-controller-update-'));

// TestCopyBinaryAlongside (spec 12.2)
test('copies hotfix alongside and preserves VHD binary permissions', () => {
  const d = fakeDeps();
  try {
    put(d.paths.packageBinary, 'NEW', 0o644);
    put(d.paths.bakedBinary, 'VHD', 0o755);
    put(d.paths.hotfixBinary, 'OLD HOTFIX', 0o600);
    copyBinaryAlongside(d, d.paths.packageBinary, d.paths.hotfixBinary, d.paths.bakedBinary);
    assert.is(readFileSync(d.paths.hotfixBinary, 'utf8'), 'NEW');
    assert.is(statSync(d.paths.hotfixBinary).mode & 0o777, 0o755);
    assert.is(readFileSync(d.paths.bakedBinary, 'utf8'), 'VHD');
    assert.equal(temps(dirname(d.paths.hotfixBinary)), []);
  } finally {
    d.cleanup();
  }
});
test('returns error when src missing', () => {
  const d = fakeDeps();
  try {
    put(d.paths.bakedBinary, 'VHD', 0o755);
    const err = (() => {
      try {
        copyBinaryAlongside(d, d.paths.packageBinary, d.paths.hotfixBinary, d.paths.bakedBinary);
      } catch (e) {
        return e;
      }
    })();
    assert.ok(err instanceof AgentError);
    assert.match(err.message, `stage hotfix binary: reading ${d.paths.packageBinary}`);
    assert.is(err.step, 'stageFailed');
  } finally {
    d.cleanup();
  }
});
test('returns error when refPath missing and cleans up temp', () => {
  const d = fakeDeps();
  try {
    put(d.paths.packageBinary, 'NEW');
    mkdirSync(dirname(d.paths.hotfixBinary), { recursive: true });
    const err = (() => {
      try {
        copyBinaryAlongside(d, d.paths.packageBinary, d.paths.hotfixBinary, d.paths.bakedBinary);
      } catch (e) {
        return e;
      }
    })();
    assert.ok(err instanceof AgentError);
    assert.match(err.message, `stat ${d.paths.bakedBinary}`);
    assert.equal(temps(dirname(d.paths.hotfixBinary)), []);
    assert.is(d.fs.exists(d.paths.hotfixBinary), false);
  } finally {
    d.cleanup();
  }
});

// hotfix explain
test('explain: defaults to own version and the on-node pointer', async () => {
  const d = fakeDeps({ version: '202604.01.0' });
  try {
    put(d.paths.hotfixPointer, '{"hotfixes":{"202604.01":"202604.01.1"}}');
    const r = await hotfixExplainCommand.run({ args: [], options: { output: 'json' } }, d);
    assert.is(r.exitCode, 0);
    const wave = { percent: 100, seed: null, cutoff: 1, inWave: true };
    const { identityProblem, ...out } = JSON.parse(r.stdout!);
    assert.equal(out, {
      summary: 'This node takes hotfix 202604.01.1: the pointer asks for it for base 202604.01, a higher patch of 202604.01.0.',
      current: '202604.01.0',
      base: '202604.01',
      resolved: '202604.01.1',
      upgrade: true,
      reason: 'upgrade',
      ...wave,
      quarantine: null,
      binary: 'baked',
      binaryPath: d.paths.bakedBinary,
      checkHotfix: null,
      // No baked agent in this root: decided for this binary's version, and said so.
      decidedFor: {
        source: 'this binary',
        note: "no baked agent at /opt/azure/containers/aks-node-controller: decided for this binary's version",
      },
    });
    assert.match(identityProblem, 'product_uuid');
    const text = await hotfixExplainCommand.run({ args: [], options: {} }, d);
    assert.match(
      text.stdout!,
      /^This node takes hotfix 202604\.01\.1: .*\n\ncurrent: 202604\.01\.0\nbase: 202604\.01\nresolved: 202604\.01\.1\nupgrade: true\nreason: upgrade\n/,
    );
  } finally {
    d.cleanup();
  }
});
test('explain: --current-version and a relative --pointer', async () => {
  const d = fakeDeps();
  try {
    put(`${d.cwd}/p.json`, '{"version":"202604.01.1"}');
    const r = await hotfixExplainCommand.run(
      { args: [], options: { currentVersion: ['202604.01.0'], pointer: 'p.json', output: 'json' } },
      d,
    );
    const { current, base, resolved, upgrade, reason } = JSON.parse(r.stdout!);
    assert.equal(
      { current, base, resolved, upgrade, reason },
      { current: '202604.01.0', base: '202604.01', resolved: '202604.01.1', upgrade: true, reason: 'upgrade' },
    );
    // Not an image version: refused, not decided for.
    try {
      await hotfixExplainCommand.run({ args: [], options: { currentVersion: ['dev'], pointer: 'p.json', output: 'json' } }, d);
      assert.unreachable('dev was accepted');
    } catch (error) {
      assert.match(String(error), '--current-version "dev" is not an image version YYYYMM.DD.PATCH');
    }
    const none = await hotfixExplainCommand.run({ args: [], options: { pointer: '/nonexistent/x.json', output: 'json' } }, d);
    assert.is(JSON.parse(none.stdout!).reason, 'no-request');
  } finally {
    d.cleanup();
  }
});

test.run();
