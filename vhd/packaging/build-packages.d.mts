// Types for build-packages.mjs (imported by test/fakes/repos.ts and bench/hotfix.mjs).
export interface BuiltPackage {
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
}
export function buildPackages(options: BuildPackagesOptions): BuiltPackage[];
export function binaryVersion(binary: string): string;
export function defaultEpoch(version: string): string;
export const COMPRESSIONS: Record<'zstd' | 'xz' | 'fast', { deb: string[]; rpm: string }>;
export function checkStampedVersion(bins: { amd64?: string; arm64?: string }, wanted: string): void;
export function lintianErrors(debFile: string): string[];
