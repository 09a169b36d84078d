// The sandboxed first boot (`npm run demo`) as a test: every step of the boot asserted on the real
// binaries, the real launcher, a real HTTPS apiserver stand-in and a real apt repository on loopback.
import { existsSync, readFileSync } from 'node:fs';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { BAKED_VERSION, HOTFIX_VERSION, sandboxedFirstBoot, type BootResult } from '../../fakes/boot.ts';
import { DEFAULT_TOKEN } from '../../fakes/apiserver.ts';

let boot: BootResult;
const HOST_DIRS = ['/var/log/azure', '/opt/azure', '/etc/kubernetes', '/var/lib/kubelet'];
let hostBefore: boolean[];

test.before(async () => {
  hostBefore = HOST_DIRS.map((d) => existsSync(d));
  boot = await sandboxedFirstBoot();
});

test('the boot stayed in its sandbox: no node directory appeared on the host', () => {
  assert.equal(
    HOST_DIRS.map((d) => existsSync(d)),
    hostBefore,
  );
});

test('the launcher ran check-hotfix, download-hotfix, chose the hotfix binary and provisioned', () => {
  const out = boot.launcher.stdout;
  assert.is(boot.launcher.exitCode, 0, boot.launcher.stdout + boot.launcher.stderr);
  const order = [
    'ENABLE_PROVISIONING_HOTFIX=true; running check-hotfix',
    'ANC check-hotfix completed',
    'running download-hotfix',
    'ANC download-hotfix completed',
    'Using hotfix binary: ',
    'Launching aks-node-controller with config ',
    'aks-node-controller completed successfully',
  ].map((text) => out.indexOf(text));
  assert.ok(
    order.every((i) => i >= 0),
    `launcher steps missing: ${out}`,
  );
  assert.equal(
    [...order].sort((a, b) => a - b),
    order,
    'launcher steps in order',
  );
});

test('check-hotfix read the ConfigMap and staged the pointer', () => {
  assert.equal(JSON.parse(boot.stagedPointer).hotfixes, { '202604.01': HOTFIX_VERSION });
  const check = boot.events.filter((e) => e.TaskName === 'AKS.AKSNodeController.CheckHotfix');
  assert.is(check.length, 1);
  assert.is(check[0]!.EventLevel, 'Informational');
  assert.match(check[0]!.Message!, /^check-hotfix outcome=configMapRead/);
});

test('download-hotfix rebuilt the hotfix from the delta package and staged a binary that reports the new version', () => {
  assert.not.match(boot.launcher.stdout, /Setting up aks-node-controller/, 'no package manager ran');
  assert.is(boot.hotfixVersion, HOTFIX_VERSION);
  const download = boot.events.find((e) => e.TaskName === 'AKS.AKSNodeController.DownloadHotfix');
  assert.ok(download);
  assert.match(
    download!.Message!,
    new RegExp(`outcome=staged current=${BAKED_VERSION.replace(/\./g, '\\.')} target=\\S+ path=delta fetchedBytes=\\d+`),
  );
  // The delta package is kilobytes; the signed metadata (a realistic index) is the rest of fetchedBytes.
  const fetched = Number(/fetchedBytes=(\d+)/.exec(download!.Message!)![1]);
  const delta = Number(/packageBytes=(\d+)/.exec(download!.Message!)![1]);
  assert.ok(delta > 0 && delta < 200 * 1024, `delta package ${delta} bytes`);
  assert.ok(fetched > delta && fetched < 10 * 1024 * 1024, `fetched ${fetched} bytes`);
});

test('provision ran the stand-in scripts and provision-wait printed their status', () => {
  const provision = boot.events.filter((e) => e.TaskName === 'AKS.AKSNodeController.Provision');
  assert.equal(
    provision.map((e) => e.Message!.split(' | ')[0]),
    ['Starting', 'Completed'],
  );
  assert.is(boot.provisionWait.exitCode, 0, boot.provisionWait.stderr);
  const status = JSON.parse(boot.provisionWait.stdout);
  assert.is(status.ExitCode, '0');
  assert.ok(boot.provisionWait.stdout.endsWith('\n'));
});

test('no bootstrap token in the log, the events or any output of the boot', () => {
  const everything = [
    readFileSync(boot.logFile, 'utf8'),
    JSON.stringify(boot.events),
    boot.launcher.stdout,
    boot.launcher.stderr,
    boot.provisionWait.stdout,
    boot.provisionWait.stderr,
  ].join('\n');
  assert.not.ok(everything.includes(DEFAULT_TOKEN.split('.')[1]!), 'token secret found in boot output');
});

test('every step of the timeline has a duration and the boot stays bounded', () => {
  for (const step of boot.steps) assert.ok(step.durationMs >= 0 && step.outcome.length > 0, step.name);
  const last = boot.steps.reduce((max, s) => Math.max(max, s.atMs + s.durationMs), 0);
  // A sanity bound with generous slack (the builds inside it share a loaded machine); speed is bench/'s job.
  assert.ok(last < 180_000, `boot took ${last} ms`);
});

test.after(() => boot?.cleanup());
test.run();
