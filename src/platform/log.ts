// JSON-lines log per spec 2: one object per line with `time`, `level`, `msg`, then the attributes, written
// to the log file and, for machines (the journal, a pipe), to stderr. Secrets print as their placeholder
// (Secret.toJSON). Read-only commands get a logger without a file (they work as non-root, on a laptop).
import { escapeControls } from './terminal.ts';
import { fs, path } from './builtins.ts';
import { formatLogTime } from './clock.ts';

export type LogLevel = 'INFO' | 'WARN' | 'ERROR';
export type LogAttrs = Record<string, unknown>;

export interface Logger {
  info(msg: string, attrs?: LogAttrs): void;
  warn(msg: string, attrs?: LogAttrs): void;
  error(msg: string, attrs?: LogAttrs): void;
  /**
   * One line for a person at a terminal (what happened, what to do): on stderr when stderr is a
   * terminal, never into the log file or the journal (under systemd nothing changes).
   */
  say(line: string): void;
  /** The file the log goes to ('' when only stderr is used). */
  readonly file: string;
  close(): void;
}

function renderValue(value: unknown): unknown {
  if (value instanceof Error) return value.message;
  if (value === undefined) return null;
  return value;
}

export function renderLogLine(now: Date, level: LogLevel, msg: string, attrs: LogAttrs = {}): string {
  const record: Record<string, unknown> = { time: formatLogTime(now), level, msg };
  for (const [key, value] of Object.entries(attrs)) record[key] = renderValue(value);
  // JSON leaves DEL and C1 raw; the journal and a `cat` of the file must not get them.
  return escapeControls(JSON.stringify(record)) + '\n';
}

export interface LogSinkOptions {
  /** false: no log file at all (read-only commands); `file` is then ''. */
  toFile: boolean;
  /** Echo every line to stderr (the journal under systemd, a pipe, or on request). */
  toStderr: boolean;
  /** stderr is a terminal: `say` lines are for the person there. */
  stderrIsTerminal?: () => boolean;
  logDir: string;
  logFile: string;
  cwd: string;
  now: () => Date;
  writeStderr: (text: string) => void;
}

export class LogSetupError extends Error {}

/**
 * Opens the log as the reference does: mkdir -p the log directory (0755); when that fails, fall back
 * to `aks-node-controller.log` in the working directory. Failing to open the file is fatal (spec 2).
 */
export function openLogger(options: LogSinkOptions): Logger {
  if (!options.toFile) return stderrLogger(options);
  let file = options.logFile;
  try {
    fs.mkdirSync(options.logDir, { recursive: true, mode: 0o755 });
  } catch {
    file = path.resolve(options.cwd, 'aks-node-controller.log');
  }
  try {
    fs.mkdirSync(path.dirname(file), { recursive: true, mode: 0o755 });
  } catch (error) {
    throw new LogSetupError(`failed to create log directory: ${(error as Error).message}`);
  }
  let fd: number;
  try {
    // O_NONBLOCK: a FIFO planted at the log path fails at once (ENXIO) instead of hanging every command.
    const { O_WRONLY, O_APPEND, O_CREAT, O_NONBLOCK } = fs.constants;
    fd = fs.openSync(file, O_WRONLY | O_APPEND | O_CREAT | O_NONBLOCK, 0o644);
  } catch (error) {
    throw new LogSetupError(`failed to open log file: ${(error as Error).message}`);
  }
  const write = (level: LogLevel, msg: string, attrs?: LogAttrs) => {
    const line = renderLogLine(options.now(), level, msg, attrs);
    try {
      fs.writeSync(fd, line);
    } catch {
      // The log must never take the agent down; stderr still gets the line.
    }
    if (options.toStderr) options.writeStderr(line);
  };
  return {
    file,
    say: sayer(options),
    info: (msg, attrs) => write('INFO', msg, attrs),
    warn: (msg, attrs) => write('WARN', msg, attrs),
    error: (msg, attrs) => write('ERROR', msg, attrs),
    close() {
      try {
        fs.closeSync(fd);
      } catch (error) {
        options.writeStderr(`failed to close log file: ${(error as Error).message}\n`);
      }
    },
  };
}

function sayer(options: LogSinkOptions): (line: string) => void {
  // Asked once, at the first line said (the question costs a syscall or two; most runs say nothing).
  let terminal: boolean | undefined;
  return (line) => {
    terminal ??= options.stderrIsTerminal?.() ?? false;
    if (terminal) options.writeStderr(`${line}\n`);
  };
}

function stderrLogger(options: LogSinkOptions): Logger {
  const write = (level: LogLevel, msg: string, attrs?: LogAttrs) => {
    if (options.toStderr) options.writeStderr(renderLogLine(options.now(), level, msg, attrs));
  };
  return {
    file: '',
    say: sayer(options),
    info: (msg, attrs) => write('INFO', msg, attrs),
    warn: (msg, attrs) => write('WARN', msg, attrs),
    error: (msg, attrs) => write('ERROR', msg, attrs),
    close() {},
  };
}

/**
 * When log lines also go to stderr: ANC_LOG_STDERR=1 asks for them, =0 silences them; otherwise the
 * agent's node commands echo them when stderr is not a terminal (systemd's journal, the launcher's
 * pipe), and read-only commands never do (a person or a CI job reads their stderr). The terminal check
 * runs only when it decides something (it loads node:tty).
 */
export function logToStderr(setting: string | undefined, stderrIsTerminal: () => boolean, readOnly: boolean): boolean {
  if (setting === '1') return true;
  if (setting === '0') return false;
  return !readOnly && !stderrIsTerminal();
}
