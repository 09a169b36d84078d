// The agent's stdout and stderr. In the compiled binary the first touch of process.stdout or
// process.stderr builds the runtime's Node stream, about 8 ms on every node boot (bench/startup.mjs);
// finished text needs none of it. Whole stdout lines go out through console.log (the runtime's own
// synchronous print, the cheapest there is: no module to load; one string argument is printed as is),
// anything else, stderr included, with synchronous write(2) calls on descriptors 1 and 2. A reader that
// went away (EPIPE, `| head`) ends our writing but not the command: the exit code stays. Output that must never block the event loop (a child's output copied while its timeout runs)
// goes through the stream, which queues; so does everything after it, and after a write that would block
// (EAGAIN on a descriptor someone left non-blocking), so the order of the bytes never changes.
import { fs } from './builtins.ts';
import { escapeControls } from './terminal.ts';

export interface OutputStream {
  write(text: string | Uint8Array): void;
}

export interface AgentOutput extends OutputStream {
  /** Writes without ever blocking: through the queueing stream from here on. */
  writeQueued(bytes: Uint8Array): void;
}

export interface FdOutputIo {
  /** Prints one line: the text and a newline (stdout only: on a terminal bun prints console.error in red). */
  printLine?(text: string): void;
  writeSync(fd: number, bytes: Uint8Array): number;
  /** The runtime's stream for the same descriptor, built on first need. */
  stream(): { write(bytes: Uint8Array): unknown };
}

const realIo = (fd: 1 | 2): FdOutputIo => ({
  // stderr goes through the write(2) loop below, not console.error: on a terminal bun prints that in red.
  ...(fd === 1 ? { printLine: (text: string) => console.log(text) } : {}),
  writeSync: (target, bytes) => fs.writeSync(target, bytes),
  stream() {
    const stream = fd === 1 ? process.stdout : process.stderr;
    stream.on('error', () => stream.destroy());
    return stream;
  },
});

export function fdOutput(fd: 1 | 2, io: FdOutputIo = realIo(fd)): AgentOutput {
  const state: { closed: boolean; queue?: { write(bytes: Uint8Array): unknown } } = { closed: false };
  const writeQueued = (bytes: Uint8Array) => {
    state.queue ??= io.stream();
    state.queue.write(bytes);
  };
  return {
    writeQueued,
    write(raw) {
      if (state.closed) return;
      // The text-output edge: strings never carry a raw control character (terminal.ts); bytes pass as they are.
      const text = typeof raw === 'string' ? escapeControls(raw) : raw;
      if (!state.queue && io.printLine && typeof text === 'string' && text.endsWith('\n')) return io.printLine(text.slice(0, -1));
      let bytes = typeof text === 'string' ? Buffer.from(text) : text;
      if (state.queue) return writeQueued(bytes);
      while (bytes.length > 0) {
        try {
          bytes = bytes.subarray(io.writeSync(fd, bytes));
        } catch (error) {
          const code = (error as NodeJS.ErrnoException).code;
          if (code === 'EINTR') continue;
          if (code === 'EAGAIN') writeQueued(bytes);
          else state.closed = true; // EPIPE, EBADF: nobody reads what we would write
          return;
        }
      }
    },
  };
}

/** The process's stdout and stderr (main, the log and the process runner share them). */
export const stdout: AgentOutput = fdOutput(1);
export const stderr: AgentOutput = fdOutput(2);
