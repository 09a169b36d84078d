// Golden env per scenario: test/golden/env/scenarios/<name>.config.json -> <name>.env.json (the D9 dry-run
// view, secrets redacted). Adding a scenario = adding a config file (plus UPDATE_GOLDEN=1 once).
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { buildProvisionCommand, dryRunView } from '../../../src/cse/command.ts';
import type { MachineFacts } from '../../../src/cse/facts.ts';
import { GOLDEN_DIR, NO_FACTS, PATHS, UPSTREAM_COMPONENTS, cfg, golden } from './support.ts';

const DIR = join(GOLDEN_DIR, 'scenarios');
/** Machine facts per scenario (default: no containerd, no GPU images). */
const FACTS: Record<string, MachineFacts> = {
  'kitchen-sink': { containerdVersion: '1.7.22', components: UPSTREAM_COMPONENTS },
  'gpu-containerd-v2': { containerdVersion: '2.3.2', components: UPSTREAM_COMPONENTS },
};

const names = readdirSync(DIR)
  .filter((f) => f.endsWith('.config.json'))
  .map((f) => f.slice(0, -'.config.json'.length));

test('scenario folder is not empty', () => {
  assert.ok(names.length >= 5);
});

for (const name of names) {
  test(`scenario ${name}`, () => {
    const config = cfg(readFileSync(join(DIR, `${name}.config.json`), 'utf8'));
    const view = dryRunView(buildProvisionCommand(config, FACTS[name] ?? NO_FACTS, PATHS), { showSecrets: false });
    golden(`scenarios/${name}.env.json`, JSON.stringify(view, null, 2) + '\n');
  });
}

test.run();
