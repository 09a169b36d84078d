// The check-hotfix total bound (12 s in production, shortened here): when it passes first the outcome is
// `failed`, exit 0, one event, and an answer (or a failure) that arrives later stages nothing.
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { CHECK_TOTAL_BOUND_MS, runCheckHotfix } from '../../../../src/pointer/check.ts';
import { fakeDeps } from '../../../fakes/deps.ts';

const SERVED = JSON.stringify({ data: { 'hotfixes.json': '{"hotfixes":{"202604.01":"202604.01.1"}}' } });
const later = <T>(ms: number, value: () => T) => new Promise<T>((resolve) => setTimeout(() => resolve(value()), ms));

test('the production bound is 12 s', () => {
  assert.is(CHECK_TOTAL_BOUND_MS, 12_000);
});

test('a fetch that never settles: failed at the bound, exit 0, one event', async () => {
  const deps = fakeDeps({ version: '202604.01.0' });
  try {
    const started = Date.now();
    const code = await runCheckHotfix(deps, { args: [], fetchConfigMap: () => new Promise<string>(() => {}), totalBoundMs: 200 });
    assert.is(code, 0);
    assert.ok(Date.now() - started < 2_000);
    assert.is(deps.emitted.length, 1);
    assert.is(deps.emitted[0]!.message, 'check-hotfix outcome=failed error=check-hotfix did not finish within 0.2 s');
  } finally {
    deps.cleanup();
  }
});

test('an answer or a failure after the bound stages nothing (no late pointer, no late cold start)', async () => {
  for (const fetch of [() => later(300, () => SERVED), () => later(300, () => Promise.reject(new Error('late failure')))]) {
    const deps = fakeDeps({ version: '202604.01.0' });
    try {
      // A cold-start pointer is there: a late failure would otherwise stage it.
      mkdirSync(dirname(deps.paths.nodeConfig), { recursive: true });
      writeFileSync(deps.paths.nodeConfig, '{"version":"v1","hotfixes":{"202604.01":"202604.01.1"}}');
      await runCheckHotfix(deps, { args: [], fetchConfigMap: fetch as () => Promise<string>, totalBoundMs: 100 });
      await later(500, () => undefined);
      assert.not.ok(existsSync(deps.paths.hotfixPointer), 'nothing staged after the report');
      assert.is(deps.emitted.length, 1);
    } finally {
      deps.cleanup();
    }
  }
});

test.run();
