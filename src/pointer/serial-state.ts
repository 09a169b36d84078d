// Anti-rollback state: the highest signed-pointer serial this node accepted, in a small JSON file beside
// the pointer (platform/paths.ts `hotfixPointerSerial`). Missing = a fresh node (floor 0, or what its own
// custom data carried, see node-gate.ts). A file that cannot be read or parsed is reported and counts as
// missing: only root can damage it, and refusing every pointer forever would be the worse failure.
import type { Deps } from '../platform/deps.ts';
import { AgentError, errorMessage } from '../platform/errors.ts';
import { readStateFile } from '../config/json-offset.ts';

export interface SerialState {
  serial: number;
  keyid: string;
  acceptedAt: string;
  /** sha256 of the payload accepted at `serial` (absent in state files written before it was kept). */
  payloadSha256?: string;
}

type StateDeps = Pick<Deps, 'fs' | 'paths' | 'log'>;

export function readSerialState(deps: StateDeps): SerialState | undefined {
  const path = deps.paths.hotfixPointerSerial;
  try {
    const doc = readStateFile(deps.fs, path) as Partial<SerialState> | null | undefined;
    if (doc === undefined) return undefined;
    if (typeof doc?.serial !== 'number' || !Number.isSafeInteger(doc.serial) || doc.serial < 0)
      throw new AgentError('ANC_HOTFIX', 'no integer "serial"');
    const digest = typeof doc.payloadSha256 === 'string' && /^[0-9a-f]{64}$/.test(doc.payloadSha256) ? doc.payloadSha256 : undefined;
    return {
      serial: doc.serial,
      keyid: String(doc.keyid ?? ''),
      acceptedAt: String(doc.acceptedAt ?? ''),
      ...(digest ? { payloadSha256: digest } : {}),
    };
  } catch (error) {
    deps.log.warn('hotfix pointer serial state is unreadable; treating this node as fresh', {
      path: deps.paths.strip(path),
      error: errorMessage(error),
    });
    return undefined;
  }
}

/** Raises the stored serial (never lowers it), with its payload's digest; atomic, 0644. */
export function recordSerial(deps: StateDeps, state: SerialState): void {
  const path = deps.paths.hotfixPointerSerial;
  const previous = readSerialState(deps);
  if (previous && previous.serial > state.serial) return;
  // The same serial again: only an older state file without the digest gains it.
  if (previous && previous.serial === state.serial && previous.payloadSha256 !== undefined) return;
  const dir = path.slice(0, path.lastIndexOf('/')) || '/';
  if (!deps.fs.exists(dir)) deps.fs.mkdirp(dir, 0o755);
  deps.fs.atomicWrite(path, JSON.stringify(state), { mode: 0o644, tempPrefix: '.aks-node-controller-hotfix-serial-' });
}
