// The CLI wiring (12.3 "cli wiring returns exit code 0 even on fetch failure", "defaults to the ConfigMap
// fetcher"): run(argv, deps) in-process with the real kube fetch and an empty node.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { run } from '../../../../src/commands/cli.ts';
import { COMMANDS } from '../../../../src/commands/index.ts';
import { fakeDeps } from '../../../fakes/deps.ts';

test('check-hotfix on an empty node: real fetch path, exit 0, one failed event, nothing staged', async () => {
  const deps = fakeDeps();
  const code = await run(['check-hotfix'], deps, COMMANDS);
  assert.is(code, 0);
  assert.is(deps.emitted.length, 1);
  assert.is(deps.emitted[0]!.task, 'CheckHotfix');
  assert.is(deps.emitted[0]!.level, 'Error');
  assert.match(
    deps.emitted[0]!.message,
    /^check-hotfix outcome=failed error=configmap fetch failed and no cold-start pointer present: no usable kubeconfig credentials: /,
  );
  assert.ok(deps.logs.some((l) => l.msg === 'primary apiserver creds (node config) unavailable, trying kubeconfig fallback'));
  assert.is(deps.fs.exists(deps.paths.hotfixPointer), false);
  assert.equal(deps.out, []);
  deps.cleanup();
});

test('check-hotfix with extra positional arguments still exits 0', async () => {
  const deps = fakeDeps();
  assert.is(await run(['check-hotfix', 'one', 'two'], deps, COMMANDS), 0);
  assert.ok(deps.logs.some((l) => l.level === 'WARN' && l.msg === 'ignoring unexpected check-hotfix arguments'));
  deps.cleanup();
});

test.run();
