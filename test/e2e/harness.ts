// Drives the compiled binary in a sandbox root (AKS_NODE_ROOT), the way every e2e test does.
import { spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';

export const BIN = process.env.ANC_BIN ?? resolve('dist/aks-node-controller');

export interface Sandbox {
  root: string;
  /** Absolute path inside the sandbox for an on-node path such as /opt/azure/containers/x. */
  path(onNodePath: string): string;
  write(onNodePath: string, content: string | Uint8Array, mode?: number): string;
  read(onNodePath: string): string;
  /** Guest-agent events written so far, parsed, in file-name (time) order. */
  events(): Array<Record<string, string>>;
  cleanup(): void;
}

export function makeSandbox(prefix = 'anc-e2e-'): Sandbox {
  const root = mkdtempSync(join(tmpdir(), prefix));
  const path = (p: string) => join(root, p);
  return {
    root,
    path,
    write(p, content, mode = 0o644) {
      mkdirSync(dirname(path(p)), { recursive: true });
      writeFileSync(path(p), content, { mode });
      return path(p);
    },
    read: (p) => readFileSync(path(p), 'utf8'),
    events() {
      const dir = path('/var/log/azure/Microsoft.Azure.Extensions.CustomScript/events');
      let names: string[] = [];
      try {
        names = readdirSync(dir).filter((n) => n.endsWith('.json'));
      } catch {
        return [];
      }
      names.sort((a, b) => (BigInt(a.slice(0, -5)) < BigInt(b.slice(0, -5)) ? -1 : 1));
      return names.map((n) => JSON.parse(readFileSync(join(dir, n), 'utf8')));
    },
    cleanup: () => rmSync(root, { recursive: true, force: true }),
  };
}

export interface RunOptions {
  root?: string;
  env?: Record<string, string | undefined>;
  cwd?: string;
  timeoutMs?: number;
  bin?: string;
}

export interface RunOutcome {
  exitCode: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
  durationMs: number;
}

/** A minimal, explicit environment: PATH plus the sandbox root plus what the test adds. */
export function baseEnv(root?: string): Record<string, string> {
  const env: Record<string, string> = { PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: process.env.HOME ?? '/root', TZ: 'UTC' };
  if (root) env.AKS_NODE_ROOT = root;
  return env;
}

export function runAnc(args: string[], options: RunOptions = {}): Promise<RunOutcome> {
  const env = { ...baseEnv(options.root) };
  for (const [k, v] of Object.entries(options.env ?? {})) {
    if (v === undefined) delete env[k];
    else env[k] = v;
  }
  const started = Date.now();
  return new Promise((resolvePromise, reject) => {
    const child = spawn(options.bin ?? BIN, args, { env, cwd: options.cwd ?? options.root, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (c) => (stdout += c));
    child.stderr.on('data', (c) => (stderr += c));
    const timer = setTimeout(() => child.kill('SIGKILL'), options.timeoutMs ?? 60_000);
    child.on('error', reject);
    child.on('close', (exitCode, signal) => {
      clearTimeout(timer);
      resolvePromise({ exitCode, signal, stdout, stderr, durationMs: Date.now() - started });
    });
  });
}
