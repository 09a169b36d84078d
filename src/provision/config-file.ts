// Guards in front of the configuration loader: the provision config must be a regular, readable,
// non-empty UTF-8 text file of at most MAX_CONFIG_BYTES that parses as JSON. Each failure is one clear
// AgentError naming the file; nothing larger than the limit is ever read into memory.
import type { Deps } from '../platform/deps.ts';
import { AgentError } from '../platform/errors.ts';
import { pathError } from '../platform/path-error.ts';
import { configText } from '../config/read.ts';

/**
 * 4 MiB. A real node configuration is tens of kilobytes; everything it carries ends up in the scripts'
 * environment, which Linux caps far below this (E2BIG), so a larger file can never provision anyway.
 */
export const MAX_CONFIG_BYTES = 4 * 1024 * 1024;

function unreadable(path: string, op: string, error: unknown): AgentError {
  return new AgentError('ANC_CONFIG_UNREADABLE', `open provision file ${path}: ${pathError(op, path, error)}`, { cause: error });
}

/** Reads the config text after the size/type checks; throws AgentError with the file named. */
export function readConfigText(deps: Pick<Deps, 'fs'>, path: string): string {
  let stat;
  try {
    stat = deps.fs.stat(path);
  } catch (error) {
    throw unreadable(path, 'stat', error);
  }
  if (stat === undefined) throw unreadable(path, 'open', { code: 'ENOENT' });
  if (!stat.isFile) throw new AgentError('ANC_CONFIG_UNREADABLE', `provision config ${path} must be a regular file`);
  if (stat.size > MAX_CONFIG_BYTES) {
    throw new AgentError(
      'ANC_CONFIG_INVALID',
      `provision config ${path} is too large: ${stat.size} bytes (limit ${MAX_CONFIG_BYTES} bytes)`,
    );
  }
  let data: Uint8Array;
  try {
    data = deps.fs.readFile(path, 'config');
  } catch (error) {
    throw unreadable(path, 'open', error);
  }
  return decodeConfigText(path, data);
}

/** Rejects empty and binary content (NUL bytes, invalid UTF-8: config/read.ts) naming the file. */
export function decodeConfigText(path: string, data: Uint8Array): string {
  if (data.length > MAX_CONFIG_BYTES) {
    throw new AgentError(
      'ANC_CONFIG_INVALID',
      `provision config ${path} is too large: ${data.length} bytes (limit ${MAX_CONFIG_BYTES} bytes)`,
    );
  }
  // The same bytes-to-text step as every other command (BOMs kept for the loader to judge).
  const text = configText(data, `provision config ${path}`);
  if (text.replace(/^\uFEFF/, '').trim() === '') throw new AgentError('ANC_CONFIG_INVALID', `provision config ${path} is empty`);
  return text;
}

/**
 * The guarded pipeline, reading and parsing the file once: file checks, one tolerant load (D7) whose strict
 * syntax check refuses a truncated file (it must fail, not provision with whatever was read before the cut),
 * then the CSE builder's prepare (version gate, facts, build) on that loaded configuration.
 */
export async function prepareConfig(deps: Deps, path: string, factsOptions: import('../cse/facts.ts').FactsOptions = {}) {
  const text = readConfigText(deps, path);
  const { loadConfiguration } = await import('../config/load.ts');
  const loaded = loadConfiguration(text);
  const syntax = loaded.issues.find((i) => i.kind === 'syntax' && i.severity === 'error');
  if (syntax) throw new AgentError('ANC_CONFIG_INVALID', `provision config ${path} is not valid JSON: ${syntax.message}`);
  const { prepareProvisionCommand } = await import('../cse/prepare.ts');
  return prepareProvisionCommand(loaded, deps, factsOptions);
}
