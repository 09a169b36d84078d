// The world as the commands see it: one Deps object built in main and passed down (STYLE 7).
// Tests build their own with fakes; nothing below main reads process.env or process.argv.
import { markedVersion } from './version-marker.ts';
import { createRealClock, type Clock } from './clock.ts';
import { createEventSink, type EventSink } from './events.ts';
import { createRealFileSystem, type FileSystem } from './fs.ts';
import { createHttpClient, type HttpClient } from './http.ts';
import { logToStderr, openLogger, type Logger } from './log.ts';
import { resolveNodePaths, type NodePaths } from './paths.ts';
import { createRealProcessRunner, type ProcessRunner } from './proc.ts';
import { fs } from './builtins.ts';
import { forwardingTerminationSignals } from './signals.ts';
import { type OutputStream, stderr, stdout } from './stdio.ts';

export type { OutputStream };

export interface Deps {
  /** The stamped build version (D13), `dev` for unstamped development runs. */
  version: string;
  paths: NodePaths;
  /** The agent's own environment (read-only; children get an explicit copy). */
  env: Readonly<Record<string, string | undefined>>;
  /** Absolute path of the running executable. */
  execPath: string;
  cwd: string;
  fs: FileSystem;
  proc: ProcessRunner;
  /** Bounded HTTP GET (the hotfix repository fast path). */
  http: HttpClient;
  clock: Clock;
  log: Logger;
  events: EventSink;
  stdout: OutputStream;
  stderr: OutputStream;
  /** The running machine's hostname (what the launcher compares with /etc/hostname). */
  hostname(): string;
  /** Columns of the terminal stdout is, or undefined when stdout is not a terminal (text then is not cut). */
  terminalColumns(): number | undefined;
  /** All of stdin as text (a `-` file argument). */
  readStdin(): Buffer;
  /** Runs `body` with SIGTERM/SIGINT/SIGHUP turned into an abort of its signal (provision forwards them). */
  withTerminationSignals: typeof forwardingTerminationSignals;
}

/** The environment as a plain map without unset entries, for handing to a child process. */
export function definedEnv(env: Readonly<Record<string, string | undefined>>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [key, value] of Object.entries(env)) if (value !== undefined) out[key] = value;
  return out;
}

declare const __ANC_VERSION__: string | undefined;

/**
 * The version build.mjs stamped, read from the version marker (what `image manifest` finds in the bytes, so
 * both always agree), else the plain define, else `dev` when running from source.
 */
export const BUILD_VERSION: string = markedVersion() ?? (typeof __ANC_VERSION__ === 'string' ? __ANC_VERSION__ : 'dev');

export interface RealDepsOptions {
  /** A read-only command: no node log file, no events, log lines on stderr only on request. */
  readOnly: boolean;
}

/**
 * Whether stderr is a terminal. A pipe, socket or file (the journal, the launcher) is never one, and
 * fstat says so without loading node:tty (which loads the runtime's whole net stack, ~2 ms of a boot
 * command); only a character device is asked the real question.
 */
function stderrIsTerminal(): boolean {
  return isCharacterDevice(2) && process.getBuiltinModule('node:tty').isatty(2);
}

function isCharacterDevice(fd: number): boolean {
  try {
    return fs.fstatSync(fd).isCharacterDevice();
  } catch {
    return false;
  }
}

export function createRealDeps(options: RealDepsOptions = { readOnly: false }): Deps {
  const env = process.env;
  const paths = resolveNodePaths(env.AKS_NODE_ROOT);
  const clock = createRealClock();
  const log = openLogger({
    toFile: !options.readOnly,
    toStderr: logToStderr(env.ANC_LOG_STDERR, stderrIsTerminal, options.readOnly),
    stderrIsTerminal,
    logDir: paths.logDir,
    logFile: paths.logFile,
    cwd: process.cwd(),
    now: () => clock.now(),
    writeStderr: (text) => stderr.write(text),
  });
  return {
    version: BUILD_VERSION,
    paths,
    env,
    execPath: process.execPath,
    cwd: process.cwd(),
    fs: createRealFileSystem(),
    proc: createRealProcessRunner(),
    http: createHttpClient(),
    clock,
    log,
    events: options.readOnly ? { emit() {} } : createEventSink(paths.eventsDir, clock, log),
    stdout,
    stderr,
    hostname: () => process.getBuiltinModule('node:os').hostname(),
    terminalColumns: () => (isCharacterDevice(1) ? process.stdout.columns : undefined),
    readStdin: () => fs.readFileSync(0),
    withTerminationSignals: forwardingTerminationSignals,
  };
}
