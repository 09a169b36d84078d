// The report unit as vhd/install.sh installs it: enabled for every boot, ordered after provisioning and
// kubelet, running the baked binary's report-status; systemd itself checks it (systemd-analyze verify).
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync, readlinkSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { installImage } from '../../fakes/node-image.ts';
import { BIN, makeSandbox } from '../harness.ts';

test('aks-node-controller-report.service: installed, enabled, after kubelet, verified by systemd', () => {
  const box = makeSandbox('anc-report-unit-');
  try {
    installImage(box.root, BIN);
    const unit = join(box.root, 'etc/systemd/system/aks-node-controller-report.service');
    const text = readFileSync(unit, 'utf8').split('\n');
    for (const line of [
      'After=network-online.target aks-node-controller.service kubelet.service',
      'Type=oneshot',
      'ExecStart=/opt/azure/containers/aks-node-controller report-status --refresh-pointer',
      'WantedBy=multi-user.target',
    ])
      assert.ok(text.includes(line), line);
    assert.is(
      readlinkSync(join(box.root, 'etc/systemd/system/multi-user.target.wants/aks-node-controller-report.service')),
      '/etc/systemd/system/aks-node-controller-report.service',
    );
    const ok = spawnSync('systemd-analyze', ['verify', `--root=${box.root}`, 'aks-node-controller-report.service'], { encoding: 'utf8' });
    assert.is(ok.status, 0, ok.stderr);
    assert.is(ok.stderr.trim(), '', 'no warnings');
    // The check is real: without the binary in the image it fails.
    rmSync(join(box.root, 'opt/azure/containers/aks-node-controller'));
    assert.ok(!existsSync(join(box.root, 'opt/azure/containers/aks-node-controller')));
    const broken = spawnSync('systemd-analyze', ['verify', `--root=${box.root}`, 'aks-node-controller-report.service'], {
      encoding: 'utf8',
    });
    assert.is.not(broken.status, 0);
  } finally {
    box.cleanup();
  }
});

test('aks-node-controller-report.timer: every 15 minutes with a randomized delay, enabled, verified by systemd', () => {
  const box = makeSandbox('anc-report-timer-');
  try {
    installImage(box.root, BIN);
    const text = readFileSync(join(box.root, 'etc/systemd/system/aks-node-controller-report.timer'), 'utf8').split('\n');
    for (const line of [
      'OnBootSec=15min',
      'OnUnitInactiveSec=15min',
      'RandomizedDelaySec=5min',
      'Unit=aks-node-controller-report.service',
      'WantedBy=timers.target',
    ])
      assert.ok(text.includes(line), line);
    assert.is(
      readlinkSync(join(box.root, 'etc/systemd/system/timers.target.wants/aks-node-controller-report.timer')),
      '/etc/systemd/system/aks-node-controller-report.timer',
    );
    const ok = spawnSync('systemd-analyze', ['verify', `--root=${box.root}`, 'aks-node-controller-report.timer'], { encoding: 'utf8' });
    assert.is(ok.status, 0, ok.stderr);
    assert.is(ok.stderr.trim(), '', 'no warnings');
    // The check is real: a timer without its time settings is refused.
    const timer = join(box.root, 'etc/systemd/system/aks-node-controller-report.timer');
    writeFileSync(timer, readFileSync(timer, 'utf8').replace(/^On\w+Sec=.*$/gm, ''));
    const broken = spawnSync('systemd-analyze', ['verify', `--root=${box.root}`, 'aks-node-controller-report.timer'], { encoding: 'utf8' });
    assert.is.not(broken.status, 0, broken.stderr);
  } finally {
    box.cleanup();
  }
});

test.run();
