// A script hotfix for tests and the demo: the image's provision_start.sh has a bug (it exits
// ERR_KUBELET_START_FAIL), the payload carries the fixed script plus a changed helper, an entry the
// image does not have (replace-only: skipped) and a Mariner-only entry. Written in the reference
// generator's layout (manifest.json + payloads/) and built into the agent with build.mjs --scripts.
import { spawnSync } from 'node:child_process';
import { linkSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { standInProvisionScript, type StandInOptions, writeStandInProvisionScripts } from './node-image.ts';
import { buildAgent } from './repos.ts';

export const BUG = {
  exitCode: 34,
  name: 'ERR_KUBELET_START_FAIL',
  note: 'kubelet: unknown flag --node-labels-typo (the baked script bug)',
};
/** The baked image's scripts: the buggy start script and a helper. */
export const BAKED_START = standInProvisionScript({ exitCode: BUG.exitCode, sleepSeconds: 1, note: BUG.note });
export const FIXED_START = standInProvisionScript({ exitCode: 0, sleepSeconds: 1, note: 'kubelet flags fixed by script hotfix' });
export const FIXED_HELPER = '#!/bin/bash\n# stand-in helper, fixed by the script hotfix\nhelper_fixed=1\n';
export const SCRIPT_LABEL = 'cse-fix-2026.11';

export interface PayloadEntry {
  source: string;
  payload: string;
  destination: string;
  mode: string;
  platforms: string[];
  content: string;
}

export function fixEntries(): PayloadEntry[] {
  const c = '/opt/azure/containers';
  return [
    {
      source: 'cse_start.sh',
      payload: 'payloads/provision_start.sh',
      destination: `${c}/provision_start.sh`,
      mode: '0755',
      platforms: ['ubuntu', 'mariner'],
      content: FIXED_START,
    },
    {
      source: 'cse_helpers.sh',
      payload: 'payloads/provision_source.sh',
      destination: `${c}/provision_source.sh`,
      mode: '0644',
      platforms: ['ubuntu'],
      content: FIXED_HELPER,
    },
    {
      source: 'cse_new.sh',
      payload: 'payloads/not-on-this-image.sh',
      destination: `${c}/not-on-this-image.sh`,
      mode: '0755',
      platforms: ['ubuntu'],
      content: 'echo new\n',
    },
    {
      source: 'cse_helpers_mariner.sh',
      payload: 'payloads/mariner/provision_source.sh',
      destination: `${c}/provision_source.sh`,
      mode: '0644',
      platforms: ['mariner'],
      content: '# mariner helper\n',
    },
  ];
}

/** Writes manifest.json + payloads/ into `dir`; `manifest` overrides the manifest's text (bad inputs). */
export function writePayloadDir(dir: string, entries: PayloadEntry[] = fixEntries(), manifest?: string): string {
  for (const e of entries) {
    mkdirSync(join(dir, e.payload, '..'), { recursive: true });
    writeFileSync(join(dir, e.payload), e.content);
  }
  const doc = { schema_version: 1, entries: entries.map(({ content: _c, ...rest }) => rest) };
  writeFileSync(join(dir, 'manifest.json'), manifest ?? JSON.stringify(doc, null, 2));
  return dir;
}

/** The agent at `version` carrying the fix (build.mjs --scripts); `extra`: --image-manifest and the like. */
export function buildScriptFix(version: string, outDir: string, entries: PayloadEntry[] = fixEntries(), extra: string[] = []): string {
  const dir = writePayloadDir(join(outDir, 'payload'), entries);
  return buildAgent(version, join(outDir, 'bin'), ['--scripts', dir, '--scripts-label', SCRIPT_LABEL, ...extra]);
}

/** The fix pinned to its images (issue 29): only entries that exist on the Ubuntu image, for Ubuntu. */
export function pinnedFixEntries(): PayloadEntry[] {
  return fixEntries()
    .slice(0, 2)
    .map((e) => ({ ...e, platforms: ['ubuntu'] }));
}

/**
 * An image as the sandboxed boot builds it (the stand-in scripts, Ubuntu 22.04, the baked agent linked in)
 * and its manifest from `image manifest --root`, the image build's last step. Returns the manifest file.
 */
export function imageManifestFor(
  bakedBin: string,
  dir: string,
  standIn: StandInOptions = { exitCode: BUG.exitCode, note: BUG.note },
  osRelease = 'NAME="Ubuntu"\nVERSION_ID="22.04"\nID=ubuntu\nID_LIKE=debian\n',
): string {
  const root = join(dir, 'image');
  mkdirSync(join(root, 'etc'), { recursive: true });
  writeFileSync(join(root, 'etc/os-release'), osRelease);
  writeStandInProvisionScripts(root, { sleepSeconds: 1, ...standIn });
  linkSync(bakedBin, join(root, 'opt/azure/containers/aks-node-controller'));
  const r = spawnSync(bakedBin, ['image', 'manifest', '--root', root, '-o', 'json'], {
    encoding: 'utf8',
    env: { PATH: process.env.PATH ?? '/usr/bin:/bin' },
  });
  if (r.status !== 0) throw new Error(`image manifest failed (${r.status}): ${r.stderr}`);
  const file = join(dir, 'image-manifest.json');
  writeFileSync(file, r.stdout);
  return file;
}
