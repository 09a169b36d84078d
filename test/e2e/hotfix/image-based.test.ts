// Immutable images refuse self-update (spec 11.3, D20): on Azure Linux with VARIANT_ID azurecontainerlinux
// or osguard, download-hotfix installs nothing by any path. The package managers on PATH record every call
// and a loopback repository records every request, so "nothing" is observed, not assumed; a plain Azure
// Linux node (the control) reaches the fast path and the package manager. status and hotfix explain say the same.
import { execFileSync } from 'node:child_process';
import { chmodSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { BIN, makeSandbox, runAnc, type Sandbox } from '../harness.ts';

const VERSION = execFileSync(BIN, ['version'], { encoding: 'utf8' }).trim();
const [major, minor, patch] = VERSION.split('.');
const BASE = `${major}.${minor}`;
const TARGET = `${BASE}.${Number(patch) + 1}`;
const REFUSAL = (variant: string) =>
  `PMC package-based ANC self-update is not supported on image-based OS "azurelinux" variant "${variant}"`;

const requests: string[] = [];
const ctx = {} as { server: Server; port: number };

test.before(async () => {
  ctx.server = createServer((req, res) => {
    requests.push(req.url ?? '');
    res.statusCode = 404;
    res.end();
  });
  await new Promise<void>((resolve) => ctx.server.listen(0, '127.0.0.1', resolve));
  ctx.port = (ctx.server.address() as AddressInfo).port;
});

test.after(() => new Promise<void>((resolve) => ctx.server.close(() => resolve())));

function node(osRelease: string): { sb: Sandbox; calls: () => string; path: string } {
  const sb = makeSandbox('anc-imagebased-');
  sb.write('/etc/os-release', osRelease);
  sb.write('/opt/azure/containers/aks-node-controller-hotfix.json', JSON.stringify({ hotfixes: { [BASE]: TARGET } }), 0o600);
  sb.write(
    '/etc/yum.repos.d/microsoft-prod.repo',
    `[packages-microsoft-com-prod]\nname=prod\nbaseurl=http://127.0.0.1:${ctx.port}/repo/\nenabled=1\ngpgcheck=1\n`,
  );
  // Every package tool the agent could reach records its call and fails.
  const bin = join(sb.root, 'fake-bin');
  mkdirSync(bin, { recursive: true });
  const record = join(sb.root, 'calls.log');
  for (const tool of ['dnf', 'tdnf', 'apt-get', 'apt', 'dpkg', 'rpm', 'rpm2cpio', 'yum', 'curl', 'wget']) {
    writeFileSync(join(bin, tool), `#!/bin/sh\necho "${tool} $*" >> "${record}"\nexit 1\n`);
    chmodSync(join(bin, tool), 0o755);
  }
  return { sb, calls: () => (existsSync(record) ? readFileSync(record, 'utf8') : ''), path: `${bin}:/usr/bin:/bin` };
}

for (const variant of ['azurecontainerlinux', 'osguard']) {
  test(`VARIANT_ID=${variant}: no package manager, no repository request, no delta, by any method; exit 0`, async () => {
    const n = node(`NAME="Microsoft Azure Linux"\nID=azurelinux\nVERSION_ID="3.0"\nVARIANT_ID="${variant}"\n`);
    try {
      for (const method of ['auto', 'repository', 'package-manager']) {
        requests.length = 0;
        const r = await runAnc(['download-hotfix', '--method', method], { root: n.sb.root, env: { PATH: n.path, ANC_LOG_STDERR: '1' } });
        assert.is(r.exitCode, 0, r.stderr);
        assert.is(n.calls(), '', `${method}: a package tool was called`);
        assert.equal(requests, [], `${method}: the repository was asked`);
        assert.not.match(r.stderr, /repository fast path|fetching|delta/, `${method}: a download path was tried`);
        assert.not.ok(existsSync(n.sb.path('/opt/azure/containers/aks-node-controller-hotfix')));
        const event = n.sb
          .events()
          .filter((e) => e.TaskName === 'AKS.AKSNodeController.DownloadHotfix')
          .pop()!;
        assert.match(event.Message!, `outcome=imageBased current=${VERSION} target=${TARGET} reason=${REFUSAL(variant)} `);
        assert.is(event.EventLevel, 'Informational');
      }
      const explain = JSON.parse(
        (await runAnc(['hotfix', 'explain', '-o', 'json', '--current-version', VERSION], { root: n.sb.root })).stdout,
      );
      assert.equal([explain.upgrade, explain.reason, explain.detail], [false, 'imageBased', REFUSAL(variant)]);
      assert.match(explain.summary, `This node stays on ${VERSION}: ${REFUSAL(variant)}`);
      const status = await runAnc(['status'], { root: n.sb.root });
      assert.match(status.stdout, `(imageBased: ${REFUSAL(variant)})`);
    } finally {
      n.sb.cleanup();
    }
  });
}

test('control: plain Azure Linux (no VARIANT_ID) reaches the repository and then the package manager', async () => {
  const n = node('ID=azurelinux\nVERSION_ID="3.0"\n');
  try {
    requests.length = 0;
    const r = await runAnc(['download-hotfix'], { root: n.sb.root, env: { PATH: n.path, ANC_LOG_STDERR: '1' } });
    // The fast path looked at the repository (it needs a file:// key to go further) before the package manager ran.
    assert.match(r.stderr, /"msg":"repository fast path unavailable, falling back to the package manager"/);
    assert.match(n.calls(), /^(dnf|tdnf) /m);
    assert.match(n.sb.events().pop()!.Message!, /^outcome=installFailed /);
    assert.ok(r.exitCode !== null);
  } finally {
    n.sb.cleanup();
  }
});

test.run();
