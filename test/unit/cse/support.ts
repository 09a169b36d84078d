// Shared helpers for the env tests: load a config through the real loader, build the env with fixed
// machine facts, decode base64 values, and the golden switch (UPDATE_GOLDEN=1 rewrites golden files).
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import * as assert from 'uvu/assert';
import { loadConfiguration } from '../../../src/config/load.ts';
import type { Configuration } from '../../../src/config/types.ts';
import { resolveNodePaths } from '../../../src/platform/paths.ts';
import { reveal, type Secret } from '../../../src/platform/secret.ts';
import { buildCseEnv } from '../../../src/cse/env/index.ts';
import type { MachineFacts } from '../../../src/cse/facts.ts';

export const PATHS = resolveNodePaths('');
export const GOLDEN_DIR = join(process.cwd(), 'test/golden/env');

export interface SpecEnvVar {
  group: string;
  dynamic?: boolean;
  valueForMinimalConfig?: string;
}
export const SPEC = JSON.parse(readFileSync(join(GOLDEN_DIR, 'config-fields-env.json'), 'utf8')) as {
  envVars: Record<string, SpecEnvVar>;
  command: { program: string; args: string[] };
};

/** No containerd found, components.json without GPUContainerImages (the spec's minimal machine). */
export const NO_FACTS: MachineFacts = { containerdVersion: undefined, components: {} };

/** The upstream GPU images used by the spec's verified examples (config-contract 3.3.8). */
export const UPSTREAM_COMPONENTS = {
  GPUContainerImages: [
    { downloadURL: 'mcr.microsoft.com/aks/aks-gpu-cuda-lts:*', gpuVersion: { latestVersion: '580.159.04-20260629214430' } },
    { downloadURL: 'mcr.microsoft.com/aks/aks-gpu-cuda:*', gpuVersion: { latestVersion: '575.1.1-20250101000000' } },
    { downloadURL: 'mcr.microsoft.com/aks/aks-gpu-grid:*', gpuVersion: { latestVersion: '570.211.01-20260522192315' } },
    { downloadURL: 'mcr.microsoft.com/aks/aks-gpu-grid-v20:*', gpuVersion: { latestVersion: '595.58.03-20260609172331' } },
  ],
};

/** Parses JSON text with the real loader and fails the test on any error issue. */
export function cfg(input: string | object): Configuration {
  const text = typeof input === 'string' ? input : JSON.stringify(input);
  const { config, issues } = loadConfiguration(text);
  const errors = issues.filter((i) => i.severity === 'error');
  assert.equal(errors, [], `config did not load cleanly: ${text}`);
  return config;
}

/** The env with secrets revealed (plain strings). */
export function env(config: Configuration | object, facts: MachineFacts = NO_FACTS): Record<string, string> {
  const c = 'version' in config ? (config as Configuration) : cfg(config);
  const raw = buildCseEnv(c, facts, PATHS);
  return Object.fromEntries(Object.entries(raw).map(([k, v]) => [k, reveal(v as string | Secret)]));
}

/** env() of a JSON config with `version: v1` added. */
export function envOf(input: object, facts: MachineFacts = NO_FACTS): Record<string, string> {
  return env(cfg({ version: 'v1', ...input }), facts);
}

export const decode = (b64: string): string => Buffer.from(b64, 'base64').toString('utf8');

/** Compares text with a golden file; UPDATE_GOLDEN=1 (re)writes it instead. */
export function golden(name: string, actual: string): void {
  const file = join(GOLDEN_DIR, name);
  if (process.env.UPDATE_GOLDEN === '1' || !existsSync(file)) {
    if (process.env.UPDATE_GOLDEN !== '1') assert.unreachable(`golden file ${name} is missing; run with UPDATE_GOLDEN=1`);
    mkdirSync(dirname(file), { recursive: true });
    writeFileSync(file, actual);
    return;
  }
  assert.fixture(actual, readFileSync(file, 'utf8'), `golden ${name} differs (UPDATE_GOLDEN=1 to accept)`);
}
