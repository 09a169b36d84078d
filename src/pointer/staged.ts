// Whether the launcher would run the staged hotfix binary: the launcher's own acceptance rules
// (vhd/aks-node-controller-launcher.sh, hotfix_binary_usable), in the same order, so `status` and
// `hotfix explain` never call a refused hotfix the running one. test/e2e/status/staged-acceptance.test.ts
// runs the launcher on the same files and checks that both agree, case by case.
//
// The launcher's last rule (the candidate answers `version` within 10 s) runs the candidate; read-only
// commands do not run it, and say so.
import type { Deps } from '../platform/deps.ts';

export type StagedVerdict =
  | { staged: false }
  | { staged: true; accepted: true; path: string }
  | { staged: true; accepted: false; path: string; reason: string };

/** Bytes 0-5 (ELF magic, class, byte order) and 18-19 (e_machine) as hex: what the launcher compares. */
export function executableFormat(head: Uint8Array): string {
  // As `od -N6` and `od -j18 -N2` print them: a shorter file gives fewer bytes, never an error.
  const hex = (bytes: Uint8Array) => Array.from(bytes, (b) => b.toString(16).padStart(2, '0')).join('');
  return hex(head.subarray(0, 6)) + hex(head.subarray(18, 20));
}

const MACHINES: Record<string, string> = { '3e00': 'x86-64', b700: 'arm64 (aarch64)', '0300': 'x86 (32-bit)', '2800': 'arm (32-bit)' };

/** `ELF x86-64`, `not ELF`: a format in words. */
export function formatWords(format: string): string {
  if (!format.startsWith('7f454c46')) return 'not an ELF executable';
  if (format.length < 16) return 'ELF, cut short';
  return `ELF ${MACHINES[format.slice(-4)] ?? `machine 0x${format.slice(-2)}${format.slice(-4, -2)}`}`;
}

type StagedDeps = Pick<Deps, 'fs' | 'paths'>;

function head(deps: StagedDeps, path: string): Uint8Array {
  try {
    const reader = deps.fs.openReader(path);
    try {
      return reader.read(0, Math.min(20, reader.size));
    } finally {
      reader.close();
    }
  } catch {
    return new Uint8Array();
  }
}

const runnable = (stat: ReturnType<StagedDeps['fs']['stat']>) => stat?.isFile === true && (stat.mode & 0o111) !== 0;

/** The launcher's verdict on the staged hotfix binary, without running it. */
export function stagedHotfixVerdict(deps: StagedDeps): StagedVerdict {
  const path = deps.paths.hotfixBinary;
  const stat = deps.fs.stat(path);
  if (stat === undefined) return { staged: false };
  const refuse = (reason: string): StagedVerdict => ({ staged: true, accepted: false, path, reason });
  if (!runnable(stat)) return refuse(stat.isFile ? 'it is not executable (no x bit)' : 'it is not a regular file');
  if (stat.size === 0) return refuse('it is empty (0 bytes)');
  const format = executableFormat(head(deps, path));
  const baked = deps.fs.stat(deps.paths.bakedBinary);
  if (runnable(baked) && baked!.size > 0) {
    const bakedFormat = executableFormat(head(deps, deps.paths.bakedBinary));
    if (format !== bakedFormat)
      return refuse(`it is not an executable for this machine (${formatWords(format)}; the baked agent is ${formatWords(bakedFormat)})`);
  } else if (!format.startsWith('7f454c46')) {
    return refuse(`it is not an ELF executable (${formatWords(format)})`);
  }
  return { staged: true, accepted: true, path };
}
