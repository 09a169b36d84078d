// Reads an image root (or a node, which is the same tree later) into its manifest: the scripts directory
// walked without following a symlink, each regular file hashed; os-release classified the node's way; the
// baked agent's version read from its version marker, never by running it (this binary answers itself
// when it is the baked one). Reads only.
import type { Deps } from '../platform/deps.ts';
import { AgentError, errorMessage } from '../platform/errors.ts';
import type { NodePaths } from '../platform/paths.ts';
import { formatFileMode, type ImageManifest, isAgentOwned, type ManifestFile } from './manifest.ts';
import { classifyOsRelease } from './platform.ts';
import { MARKER_TAIL_MAX, VERSION_MARKER_PREFIX, versionAfterPrefix } from '../platform/version-marker.ts';

type CollectDeps = Pick<Deps, 'fs' | 'execPath' | 'version'>;

const STAMPED = /^\d{6}\.\d{2}\.\d+$/;

function walk(deps: CollectDeps, paths: NodePaths, dir: string, relative: string, out: ManifestFile[]): void {
  let names: string[];
  try {
    names = deps.fs.readdir(dir).sort();
  } catch (error) {
    throw new AgentError('ANC_IO', `image manifest: listing ${paths.strip(dir)}: ${errorMessage(error)}`, { cause: error });
  }
  for (const name of names) {
    const rel = relative === '' ? name : `${relative}/${name}`;
    if (isAgentOwned(rel)) continue;
    const full = `${dir}/${name}`;
    const s = deps.fs.lstat(full);
    if (!s || s.isSymlink) continue;
    if (s.isDirectory) walk(deps, paths, full, rel, out);
    else if (s.isFile) {
      try {
        const { sha256, size } = deps.fs.sha256OfFile(full);
        out.push({ path: paths.strip(full), sha256, mode: formatFileMode(s.mode), size });
      } catch (error) {
        throw new AgentError('ANC_IO', `image manifest: reading ${paths.strip(full)}: ${errorMessage(error)}`, { cause: error });
      }
    }
  }
}

/** Executables larger than this are not scanned (ours is ~115 MB); the version is then unknown. */
const SCAN_MAX_BYTES = 1024 * 1024 * 1024;
const SCAN_CHUNK = 4 * 1024 * 1024;

/**
 * The baked agent's version: ours when we are it, else read from the version marker in its bytes (issue
 * 41 R4-18: an image's executable is never run on the release machine, whatever its architecture), else
 * null. Only a regular file (never a symlink: it could name a device or a secret on the build host); two
 * different marked versions in one file are ambiguous: null.
 */
function bakedVersion(deps: CollectDeps, paths: NodePaths): string | null {
  const baked = paths.bakedBinary;
  if (deps.execPath === baked) return deps.version;
  const s = deps.fs.lstat(baked);
  if (!s?.isFile || s.isSymlink || s.size > SCAN_MAX_BYTES) return null;
  const found = new Set<string>();
  try {
    const reader = deps.fs.openReader(baked);
    try {
      const prefix = Buffer.from(VERSION_MARKER_PREFIX, 'latin1');
      const overlap = prefix.length + MARKER_TAIL_MAX;
      for (let at = 0; at < reader.size && found.size < 2; at += SCAN_CHUNK) {
        const chunk = reader.read(at, Math.min(SCAN_CHUNK + overlap, reader.size - at));
        for (let i = chunk.indexOf(prefix); i !== -1 && i < SCAN_CHUNK; i = chunk.indexOf(prefix, i + 1)) {
          const tail = chunk.subarray(i + prefix.length, i + prefix.length + MARKER_TAIL_MAX).toString('latin1');
          const version = versionAfterPrefix(tail);
          if (version !== undefined && STAMPED.test(version)) found.add(version);
        }
      }
    } finally {
      reader.close();
    }
  } catch {
    return null;
  }
  return found.size === 1 ? [...found][0]! : null;
}

/** `askVersion: false` leaves agentVersion null without running anything (a diff does not need it). */
export async function collectManifest(deps: CollectDeps, paths: NodePaths, options: { askVersion?: boolean } = {}): Promise<ImageManifest> {
  let osRelease = '';
  try {
    osRelease = deps.fs.readText(paths.osRelease, 'osRelease');
  } catch (error) {
    throw new AgentError('ANC_IO', `image manifest: reading ${paths.strip(paths.osRelease)}: ${errorMessage(error)}`, {
      cause: error,
      hint: 'Point --root at the root of the image (the directory holding its etc/ and opt/).',
    });
  }
  const os = classifyOsRelease(osRelease);
  const files: ManifestFile[] = [];
  if (deps.fs.lstat(paths.containersDir)?.isDirectory) walk(deps, paths, paths.containersDir, '', files);
  return {
    schemaVersion: 1,
    agentVersion: options.askVersion === false ? null : bakedVersion(deps, paths),
    platform: { name: os.platform ?? null, id: os.id, versionId: os.versionId, variantId: os.variantId },
    files,
  };
}
