// A "typical fix" for delta measurements: the agent built from a copy of this source tree with one log
// message changed (the size of change a hotfix usually carries), stamped with the hotfix version. Built
// the same way as buildAgent (build.mjs, the lockfile-pinned bun runtimes through a node_modules link).
import { execFileSync } from 'node:child_process';
import { cpSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';

const REPO_ROOT = resolve(import.meta.dirname ?? new URL('.', import.meta.url).pathname, '..', '..');
export const FIX = { file: 'src/hotfix/download.ts', from: "'downloaded ANC hotfix'", to: "'downloaded the ANC hotfix'" };

/** Builds the agent with FIX applied, stamped `version`, into `outDir` (build.mjs extraArgs too); returns the executable. */
export function buildTypicalFix(version: string, outDir: string, extraArgs: string[] = []): string {
  const tree = mkdtempSync(join(tmpdir(), 'anc-typical-fix-'));
  try {
    for (const entry of ['src', 'scripts', 'build.mjs', 'package.json', 'tsconfig.json'])
      cpSync(join(REPO_ROOT, entry), join(tree, entry), { recursive: true });
    symlinkSync(join(REPO_ROOT, 'node_modules'), join(tree, 'node_modules'));
    const file = join(tree, FIX.file);
    const text = readFileSync(file, 'utf8');
    if (!text.includes(FIX.from)) throw new Error(`typical fix: ${FIX.file} no longer contains ${FIX.from}`);
    writeFileSync(file, text.replace(FIX.from, FIX.to));
    execFileSync(process.execPath, [join(tree, 'build.mjs'), '--quiet', '--outdir', outDir, ...extraArgs], {
      cwd: tree,
      env: { ...process.env, ANC_VERSION: version },
      stdio: ['ignore', 'inherit', 'inherit'],
    });
    return join(outDir, 'aks-node-controller');
  } finally {
    rmSync(tree, { recursive: true, force: true });
  }
}
