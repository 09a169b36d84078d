// The manifest of an `aks-node-controller-delta` package (docs/hotfix.md "Delta packages"): which target
// executable the deltas rebuild (sha256 + size) and one VCDIFF delta per known base executable, named by
// the base's sha256. Pure: bytes in, a checked manifest or a DeltaManifestError out.
import { AgentError } from '../../platform/errors.ts';
import { INTEGRITY_STEP } from '../repository/errors.ts';

/** A delta step that cannot answer: the node falls back to the full package. */
export const DELTA_UNAVAILABLE_STEP = 'deltaUnavailable';

export const DELTA_PACKAGE_NAME = 'aks-node-controller-delta';
export const MANIFEST_SCHEMA = 'aks-node-controller-delta/1';
/** Where the package puts its files (the manifest and `<base sha256>.vcdiff` beside it). */
export const DELTA_DIR = 'usr/lib/aks-node-controller/delta';
export const MANIFEST_PATH = `${DELTA_DIR}/manifest.json`;
export const MANIFEST_MAX_BYTES = 256 * 1024;
export const MAX_DELTAS = 256;
/** The largest executable a delta may rebuild: the full package's bound on its executable. */
export const MAX_TARGET_BYTES = 512 * 1024 * 1024;

const SHA256_RE = /^[0-9a-f]{64}$/;

export interface FileDigest {
  /** Lowercase hex. */
  sha256: string;
  size: number;
}

export interface DeltaEntry {
  base: FileDigest;
  /** `<base sha256>.vcdiff`, inside DELTA_DIR. */
  file: string;
  /** The delta file itself. */
  sha256: string;
  size: number;
}

export interface DeltaManifest {
  schema: typeof MANIFEST_SCHEMA;
  package: string;
  version: string;
  architecture: string;
  format: 'vcdiff';
  target: FileDigest;
  deltas: DeltaEntry[];
}

/** `unsupported`: a newer schema or another format (the node falls back); `invalid`: a broken manifest. */
export class DeltaManifestError extends AgentError {
  constructor(
    readonly kind: 'invalid' | 'unsupported',
    message: string,
  ) {
    super('ANC_HOTFIX', `delta manifest: ${message}`, { step: kind === 'invalid' ? INTEGRITY_STEP : DELTA_UNAVAILABLE_STEP });
  }
}

const invalid = (message: string): never => {
  throw new DeltaManifestError('invalid', message);
};

function record(value: unknown, where: string): Record<string, unknown> {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) invalid(`${where} must be an object`);
  return value as Record<string, unknown>;
}

function text(obj: Record<string, unknown>, key: string, where: string): string {
  const value = obj[key];
  if (typeof value !== 'string' || value === '') invalid(`${where}.${key} must be a non-empty string`);
  return value as string;
}

function sha(obj: Record<string, unknown>, key: string, where: string): string {
  const value = text(obj, key, where);
  if (!SHA256_RE.test(value)) invalid(`${where}.${key} must be 64 lowercase hex digits, got ${JSON.stringify(value)}`);
  return value;
}

function size(obj: Record<string, unknown>, key: string, where: string): number {
  const value = obj[key];
  if (typeof value !== 'number' || !Number.isSafeInteger(value) || value <= 0) invalid(`${where}.${key} must be a positive integer`);
  return value as number;
}

const digest = (value: unknown, where: string): FileDigest => {
  const obj = record(value, where);
  return { sha256: sha(obj, 'sha256', where), size: size(obj, 'size', where) };
};

function entry(value: unknown, where: string): DeltaEntry {
  const obj = record(value, where);
  const base = digest(obj.base, `${where}.base`);
  const file = text(obj, 'file', where);
  if (file !== `${base.sha256}.vcdiff`) invalid(`${where}.file must be "${base.sha256}.vcdiff", got ${JSON.stringify(file)}`);
  return { base, file, sha256: sha(obj, 'sha256', where), size: size(obj, 'size', where) };
}

/** Parses and checks a manifest for `version`/`architecture`; the package name must be ours. */
export function parseDeltaManifest(bytes: Uint8Array, expected: { version: string; architecture: string }): DeltaManifest {
  if (bytes.length > MANIFEST_MAX_BYTES) invalid(`${bytes.length} bytes, above the ${MANIFEST_MAX_BYTES}-byte limit`);
  let json: unknown;
  try {
    json = JSON.parse(new TextDecoder('utf-8', { fatal: true }).decode(bytes));
  } catch (error) {
    invalid(`not UTF-8 JSON (${(error as Error).message})`);
  }
  const obj = record(json, 'manifest');
  if (obj.schema !== MANIFEST_SCHEMA) {
    throw new DeltaManifestError('unsupported', `schema ${JSON.stringify(obj.schema)} is not ${MANIFEST_SCHEMA}`);
  }
  if (obj.format !== 'vcdiff') throw new DeltaManifestError('unsupported', `format ${JSON.stringify(obj.format)} is not "vcdiff"`);
  const manifest: DeltaManifest = {
    schema: MANIFEST_SCHEMA,
    package: text(obj, 'package', 'manifest'),
    version: text(obj, 'version', 'manifest'),
    architecture: text(obj, 'architecture', 'manifest'),
    format: 'vcdiff',
    target: digest(obj.target, 'manifest.target'),
    deltas: [],
  };
  if (manifest.target.size > MAX_TARGET_BYTES) invalid(`target.size ${manifest.target.size} is above the ${MAX_TARGET_BYTES}-byte limit`);
  if (manifest.package !== 'aks-node-controller') invalid(`package is ${JSON.stringify(manifest.package)}, expected "aks-node-controller"`);
  if (manifest.version !== expected.version) invalid(`version ${manifest.version} is not the resolved ${expected.version}`);
  if (manifest.architecture !== expected.architecture) invalid(`architecture ${manifest.architecture} is not ${expected.architecture}`);
  if (!Array.isArray(obj.deltas)) invalid('manifest.deltas must be an array');
  const deltas = obj.deltas as unknown[];
  if (deltas.length > MAX_DELTAS) invalid(`${deltas.length} deltas, above the limit of ${MAX_DELTAS}`);
  const seen = new Set<string>();
  deltas.forEach((value, i) => {
    const e = entry(value, `manifest.deltas[${i}]`);
    if (seen.has(e.base.sha256)) invalid(`base ${e.base.sha256} listed twice`);
    seen.add(e.base.sha256);
    manifest.deltas.push(e);
  });
  return manifest;
}

/** The entry for a base executable's sha256, if the package carries one. */
export function deltaFor(manifest: DeltaManifest, baseSha256: string): DeltaEntry | undefined {
  return manifest.deltas.find((e) => e.base.sha256 === baseSha256);
}
