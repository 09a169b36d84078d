// One writer at a time on the provisioning scripts and their record (issue 41 R4-8): provision's apply,
// restore and stale-file cleanup, apply-embedded-hotfix, hotfix fallback and the recall's restore all take
// this lock first. It is a flock(2) lock held by a flock(1) child reading our stdin pipe: when we exit or
// are killed, the pipe closes, the child ends and the kernel releases the lock, so a dead holder never
// blocks the next writer. Node has no flock of its own; flock(1) is util-linux, on every node image.
import { fs, path } from './builtins.ts';
import type { Deps } from './deps.ts';
import { AgentError } from './errors.ts';

/** How long a second writer waits before it refuses (the launcher's steps all finish well within it). */
export const SCRIPTS_LOCK_WAIT_MS = 60_000;
const HOLDER_MAX = 256;

export interface HeldLock {
  /** Releases the lock (idempotent); resolves once the kernel has released it. */
  release(): Promise<void>;
}

type LockDeps = Pick<Deps, 'paths' | 'env' | 'log' | 'clock'>;

/** The bound: ANC_SCRIPTS_LOCK_WAIT_SECONDS (tests, operators), else 60 s. */
function waitMs(deps: LockDeps): number {
  const raw = deps.env.ANC_SCRIPTS_LOCK_WAIT_SECONDS;
  return raw !== undefined && /^[0-9]{1,4}$/.test(raw) ? Number(raw) * 1000 : SCRIPTS_LOCK_WAIT_MS;
}

/** Who holds it, as the holder wrote it (bounded, printable characters only), for the refusal. */
function holder(file: string): string {
  try {
    const fd = fs.openSync(file, fs.constants.O_RDONLY | fs.constants.O_NOFOLLOW | fs.constants.O_NONBLOCK);
    try {
      const buf = Buffer.alloc(HOLDER_MAX);
      const n = fs.readSync(fd, buf, 0, HOLDER_MAX, 0);
      const text = buf
        .subarray(0, n)
        .toString('utf8')
        .replace(/[^\x20-\x7e]+/g, ' ')
        .trim();
      return text === '' ? 'another aks-node-controller command' : text;
    } finally {
      fs.closeSync(fd);
    }
  } catch {
    return 'another aks-node-controller command';
  }
}

/**
 * Takes the scripts lock for `command`, waiting within the bound; past it, throws ANC_SCRIPTS_LOCKED naming
 * the holder. Nothing is written under the scripts before this resolves.
 */
export async function takeScriptsLock(deps: LockDeps, command: string): Promise<HeldLock> {
  const file = deps.paths.scriptsLock;
  const bound = waitMs(deps);
  const seconds = Math.max(0, Math.ceil(bound / 1000));
  const started = Date.now();
  fs.mkdirSync(path.dirname(file), { recursive: true });
  const child = process
    .getBuiltinModule('node:child_process')
    .spawn('flock', ['-w', String(seconds), '-E', '75', '-o', file, '-c', 'echo held; exec cat >/dev/null'], {
      stdio: ['pipe', 'pipe', 'pipe'],
      env: { PATH: deps.env.PATH ?? '/usr/sbin:/usr/bin:/sbin:/bin' },
    });
  const exited = new Promise<number | null>((resolve) => {
    child.on('error', () => resolve(null));
    child.on('close', (code) => resolve(code));
  });
  let stderrText = '';
  child.stderr!.on('data', (chunk: Buffer) => {
    if (stderrText.length < 1024) stderrText += chunk.toString('utf8');
  });
  const acquired = await new Promise<boolean>((resolve) => {
    child.stdout!.once('data', () => resolve(true));
    void exited.then(() => resolve(false));
  });
  if (!acquired) {
    const code = await exited;
    // A development machine without util-linux (macOS): nothing to serialize against there. A node always has it.
    if (code === null && process.platform !== 'linux') return { release: async () => {} };
    if (code === 75) {
      const who = holder(file);
      throw new AgentError(
        'ANC_SCRIPTS_LOCKED',
        `${command}: the provisioning scripts are being written by ${who} (lock ${file}, waited ${seconds} s); nothing was changed`,
      );
    }
    throw new AgentError(
      'ANC_SCRIPTS_LOCKED',
      `${command}: cannot take the scripts lock ${file} with flock(1): ${stderrText.trim() || `exit status ${code ?? 'none (not started)'}`}; nothing was changed`,
    );
  }
  const waited = Date.now() - started;
  try {
    // Informational only (the lock is the flock, not this text): who to name to a waiter.
    fs.writeFileSync(file, `${command} (pid ${process.pid}) since ${deps.clock.now().toISOString()}\n`);
  } catch {}
  if (waited >= 1000) deps.log.info('took the scripts lock after waiting', { command, waitedMs: waited });
  let released: Promise<void> | undefined;
  return {
    release() {
      released ??= (async () => {
        child.stdin!.end();
        await exited;
      })();
      return released;
    },
  };
}

/** Runs `body` holding the scripts lock; released however it ends. */
export async function withScriptsLock<T>(deps: LockDeps, command: string, body: () => T | Promise<T>): Promise<T> {
  const lock = await takeScriptsLock(deps, command);
  try {
    return await body();
  } finally {
    await lock.release();
  }
}
