// A script hotfix for tests and the demo: the image's provision_start.sh has a bug (it exits
// ERR_KUBELET_START_FAIL), the payload carries the fixed script plus a changed helper, an entry the
// image does not have (replace-only: skipped) and a Mariner-only entry. Written in the reference
// generator's layout (manifest.json + payloads/) and built into the agent with build.mjs --scripts.
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { standInProvisionScript } from './node-image.ts';
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

/** The agent at `version` carrying the fix (build.mjs --scripts). */
export function buildScriptFix(version: string, outDir: string, entries: PayloadEntry[] = fixEntries()): string {
  const dir = writePayloadDir(join(outDir, 'payload'), entries);
  return buildAgent(version, join(outDir, 'bin'), ['--scripts', dir, '--scripts-label', SCRIPT_LABEL]);
}
