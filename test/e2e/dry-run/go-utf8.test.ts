// Issue 32, N7: components.json is read as the reference reads it, with Go's encoding/json: every invalid
// UTF-8 byte is one U+FFFD (a WHATWG decoder would give one per cut sequence). Raw bytes on disk, the GPU
// variables of a dry run out.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { makeSandbox, runAnc } from '../harness.ts';

const F = '\ufffd';
const CONFIG = { version: 'v1', vmSize: 'Standard_NV36ads_A10_v5', gpuConfig: { enableNvidia: true } };

test('components.json with cut UTF-8 sequences: one U+FFFD per invalid byte in the GPU variables', async () => {
  const box = makeSandbox('anc-e2e-go-utf8-');
  try {
    // latestVersion "570<E2 82>.211<F0 9F 98>-2026<ED A0 80>": a cut 3-byte, a cut 4-byte, an encoded surrogate.
    const raw = Buffer.concat([
      Buffer.from('{"GPUContainerImages":[{"downloadURL":"mcr.microsoft.com/aks/aks-gpu-grid:*","gpuVersion":{"latestVersion":"570'),
      Buffer.from([0xe2, 0x82]),
      Buffer.from('.211'),
      Buffer.from([0xf0, 0x9f, 0x98]),
      Buffer.from('-2026'),
      Buffer.from([0xed, 0xa0, 0x80]),
      Buffer.from('"}}]}'),
    ]);
    box.write('/opt/azure/components.json', raw);
    const file = box.write('/opt/azure/containers/aks-node-controller-config.json', JSON.stringify(CONFIG));
    const r = await runAnc(['provision', '--dry-run', `--provision-config=${file}`], { root: box.root });
    assert.is(r.exitCode, 0, r.stderr);
    const env = (JSON.parse(r.stdout) as { env: Record<string, string> }).env;
    assert.is(env.GPU_DRIVER_TYPE, 'grid');
    assert.is(env.GPU_DRIVER_VERSION, `570${F}${F}.211${F}${F}${F}`);
    assert.is(env.GPU_IMAGE_SHA, `2026${F}${F}${F}`);
    // The same bytes through --components (the laptop path) read the same.
    const table = box.write('/laptop/components.json', raw);
    const laptop = await runAnc(['provision', '--dry-run', '--components', table, `--provision-config=${file}`], { root: box.root });
    assert.is(laptop.stdout, r.stdout);
  } finally {
    box.cleanup();
  }
});

test('provision-wait reads provision.json as Go does: one U+FFFD per invalid byte in the error it reports', async () => {
  const box = makeSandbox('anc-e2e-go-utf8-wait-');
  try {
    box.write(
      '/var/log/azure/aks/provision.json',
      Buffer.concat([Buffer.from('{"ExitCode":"50","Error":"x'), Buffer.from([0xf0, 0x9f, 0x98]), Buffer.from('y","Output":""}')]),
    );
    box.write('/opt/azure/containers/provision.complete', '');
    const r = await runAnc(['provision-wait', '--timeout', '5'], { root: box.root });
    assert.is(r.exitCode, 1);
    assert.match(r.stderr + r.stdout, `error=x${F}${F}${F}y`);
  } finally {
    box.cleanup();
  }
});

test.run();
