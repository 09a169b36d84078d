// Types for build-packages.mjs (imported by test/fakes/repos.ts and bench/hotfix.mjs).
export interface BuiltPackage {
  /** aks-node-controller-delta entries carry the manifest; rawSize/sha256 are then the target's. */
  package: 'aks-node-controller' | 'aks-node-controller-delta';
  manifest?: DeltaManifestJson;
  format: 'deb' | 'rpm';
  arch: 'amd64' | 'arm64';
  version: string;
  file: string;
  size: number;
  rawSize: number;
  sha256: string;
}
export interface BuildPackagesOptions {
  bins: { amd64?: string; arm64?: string };
  outDir: string;
  version?: string;
  /** zstd (release default, -19), xz (-9), fast (zstd -3, tests); `fast: true` = 'fast'. */
  compression?: 'zstd' | 'xz' | 'fast';
  fast?: boolean;
  formats?: Array<'deb' | 'rpm'>;
  epoch?: string;
  /** Base executables (any of the built architectures): also build the delta packages. */
  deltaFrom?: string[];
}
export interface DeltaManifestJson {
  schema: string;
  package: string;
  version: string;
  architecture: string;
  format: string;
  target: { sha256: string; size: number };
  deltas: Array<{ base: { sha256: string; size: number }; file: string; sha256: string; size: number }>;
}
export function buildPackages(options: BuildPackagesOptions): BuiltPackage[];
export function binaryVersion(binary: string): string;
export function defaultEpoch(version: string): string;
export const COMPRESSIONS: Record<'zstd' | 'xz' | 'fast', { deb: string[]; rpm: string }>;
export function checkStampedVersion(bins: { amd64?: string; arm64?: string }, wanted: string): void;
export function lintianErrors(debFile: string): string[];
