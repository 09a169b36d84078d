// Rebuilds the hotfix executable from our own base executable and a VCDIFF delta, streaming: one window
// in memory, the base read only where the delta copies from it, the output hashed as it is written to an
// exclusively created file that is removed on any failure. Three bounds stop a hostile or broken delta:
// the manifest's target size (the output never grows past it), the time left (checked before every
// window and every CHECK_EVERY base reads), and the reads of the base (MAX_BASE_PASSES times its size,
// MAX_BASE_READS reads). Integrity failures (a delta or a result that does not match the manifest) are
// final; anything else makes the delta path unavailable and the caller falls back to the full package.
import type { Deps } from '../../platform/deps.ts';
import { AgentError, errorMessage, isAgentError } from '../../platform/errors.ts';
import type { PositionalReader, WrittenFile } from '../../platform/file-stream.ts';
import { sha256Hex } from '../../platform/hash.ts';
import { INTEGRITY_STEP } from '../repository/errors.ts';
import { DELTA_UNAVAILABLE_STEP, type DeltaEntry, type DeltaManifest } from './manifest.ts';
import { decodeVcdiff, VcdiffError, type VcdiffSource } from '../../formats/vcdiff.ts';

/** xdelta3 writes 8 MiB target windows (its -W maximum is 16 MiB); this bounds one window in memory. */
export const MAX_WINDOW_BYTES = 16 * 1024 * 1024;
/** How many times over the base may be read (a real delta reads each part of it about once). */
export const MAX_BASE_PASSES = 4;
/** How many separate reads of the base (COPY instructions) a delta may make (a typical fix: 20-25 thousand). */
export const MAX_BASE_READS = 1024 * 1024;
/** Base reads between two looks at the clock inside one window. */
const CHECK_EVERY = 1024;

export function deltaIntegrityError(message: string, cause?: unknown): AgentError {
  return new AgentError('ANC_HOTFIX', `delta hotfix: ${message}`, { step: INTEGRITY_STEP, cause });
}

export function deltaUnavailableError(message: string, cause?: unknown): AgentError {
  return new AgentError('ANC_HOTFIX', `delta hotfix: ${message}`, { step: DELTA_UNAVAILABLE_STEP, cause });
}

/** Checks the delta against its manifest entry (size, then sha256): a mismatch is an integrity failure. */
export function checkDelta(entry: DeltaEntry, delta: Uint8Array): void {
  if (delta.length !== entry.size) throw deltaIntegrityError(`${entry.file} is ${delta.length} bytes, the manifest says ${entry.size}`);
  const digest = sha256Hex(delta);
  if (digest !== entry.sha256) throw deltaIntegrityError(`${entry.file} has sha256 ${digest}, the manifest says ${entry.sha256}`);
}

/**
 * Writes the reconstruction of manifest.target from `baseFile` + `delta` to `outFile` and proves it
 * matches the manifest's size and sha256. The file is created 0600 and gets `mode` only once verified,
 * so a partial reconstruction is never executable; on any failure it is removed.
 */
export function reconstructTarget(
  deps: Deps,
  manifest: DeltaManifest,
  entry: DeltaEntry,
  delta: Uint8Array,
  baseFile: string,
  outFile: string,
  mode: number,
  timeLeft: () => number = () => Number.POSITIVE_INFINITY,
): WrittenFile {
  checkDelta(entry, delta);
  const reader = attempt(() => deps.fs.openReader(baseFile), `reading the base executable ${baseFile}`);
  const writer = attempt(
    // No fsync: the candidate is synced while the health gate runs it (repository/candidate.ts).
    () => deps.fs.createHashingWriter(outFile, 0o600, { durable: false }),
    `creating ${outFile}`,
    () => reader.close(),
  );
  try {
    const checkpoint = () => {
      if (timeLeft() <= 0) throw deltaUnavailableError(`no time left to reconstruct (stopped after ${writer.size()} bytes)`);
    };
    const source = countedSource(reader, MAX_BASE_PASSES * reader.size + MAX_WINDOW_BYTES, checkpoint);
    decodeVcdiff(delta, source, (window) => writer.write(window), {
      maxWindow: MAX_WINDOW_BYTES,
      maxTarget: manifest.target.size,
      checkpoint,
    });
    const written = writer.close();
    if (written.size !== manifest.target.size || written.sha256 !== manifest.target.sha256) {
      throw deltaIntegrityError(
        `the reconstruction (${written.size} bytes, sha256 ${written.sha256}) does not match the manifest's target (${manifest.target.size} bytes, sha256 ${manifest.target.sha256})`,
      );
    }
    deps.fs.chmod(outFile, mode);
    return written;
  } catch (error) {
    writer.discard();
    throw classify(error);
  } finally {
    reader.close();
  }
}

/**
 * The base as a VcdiffSource: every COPY is one positional read straight into the target window, so the
 * base is read exactly as often as the delta copies from it (a typical fix: 20-25 thousand reads, the
 * base about once over, 40-85 ms). A block cache read 1 MiB to serve a 16-byte copy and, on a delta
 * with scattered copies, went over the bound below. Every byte read is counted; past `maxRead` the delta is
 * given up (deltaUnavailable: the full package is the better download), and so it is past MAX_BASE_READS
 * reads (each a system call: a hostile delta of tiny copies would otherwise burn CPU until the deadline).
 * The time left is checked every CHECK_EVERY reads too, not only between windows.
 */
function countedSource(reader: PositionalReader, maxRead: number, checkpoint: () => void): VcdiffSource {
  let bytesRead = 0;
  let reads = 0;
  return {
    size: reader.size,
    copyTo(target, offset, position, length) {
      bytesRead += length;
      if (bytesRead > maxRead) {
        throw deltaUnavailableError(`the delta reads the base more than ${MAX_BASE_PASSES} times over (${bytesRead} bytes)`);
      }
      if (++reads > MAX_BASE_READS) throw deltaUnavailableError(`the delta reads the base in more than ${MAX_BASE_READS} pieces`);
      if (reads % CHECK_EVERY === 0) checkpoint();
      reader.readInto(target, offset, position, length);
    },
  };
}

function attempt<T>(step: () => T, what: string, undo?: () => void): T {
  try {
    return step();
  } catch (error) {
    undo?.();
    throw deltaUnavailableError(`${what}: ${errorMessage(error)}`, error);
  }
}

function classify(error: unknown): unknown {
  if (error instanceof VcdiffError) {
    // Growing past the manifest's size is a reconstruction that cannot match: integrity. A delta that
    // matched its digest but does not decode is a publishing fault the full package does not share.
    return error.fault === 'too-large' ? deltaIntegrityError(error.message, error) : deltaUnavailableError(error.message, error);
  }
  if (isAgentError(error)) return error;
  return deltaUnavailableError(`writing the reconstruction: ${errorMessage(error)}`, error);
}
