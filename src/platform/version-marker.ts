// The version marker (issue 41 R4-18): build.mjs writes `ANC_VERSION_MARKER=<version>;` into the bundle, and
// so into the executable's bytes, and `version` prints the version taken from that same string. A reader
// (`image manifest --root`, on a release machine of any architecture) finds it by scanning the file, and
// never runs an image's executable. Keep the prefix in step with build.mjs.
export const VERSION_MARKER_PREFIX = 'ANC_VERSION_MARKER=';
/** What may follow the prefix: a stamped version (D13) and the terminator. */
const MARKED = /^(\d{6}\.\d{2}\.\d{1,9});/;
/** The longest marker after its prefix: 6 + 1 + 2 + 1 + 9 digits and `;`. */
export const MARKER_TAIL_MAX = 20;

declare const __ANC_VERSION_MARKER__: string | undefined;

/** The version in a marker's tail (the bytes after the prefix), or undefined. */
export function versionAfterPrefix(tail: string): string | undefined {
  return MARKED.exec(tail)?.[1];
}

/** This build's version by its marker; undefined when running from source. */
export function markedVersion(): string | undefined {
  if (typeof __ANC_VERSION_MARKER__ !== 'string' || !__ANC_VERSION_MARKER__.startsWith(VERSION_MARKER_PREFIX)) return undefined;
  return versionAfterPrefix(__ANC_VERSION_MARKER__.slice(VERSION_MARKER_PREFIX.length));
}
