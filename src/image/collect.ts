// Reads an image root (or a node, which is the same tree later) into its manifest: the scripts directory
// walked without following a symlink, each regular file hashed; os-release classified the node's way; the
// baked agent asked for its version (this binary answers itself when it is the baked one). Reads only.
import type { Deps } from '../platform/deps.ts';
import { definedEnv } from '../platform/deps.ts';
import { AgentError, errorMessage } from '../platform/errors.ts';
import type { NodePaths } from '../platform/paths.ts';
import { formatFileMode, type ImageManifest, isAgentOwned, type ManifestFile } from './manifest.ts';
import { classifyOsRelease } from './platform.ts';

type CollectDeps = Pick<Deps, 'fs' | 'proc' | 'env' | 'execPath' | 'version'>;

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

/** The baked agent's version: ours when we are it, else its bounded `version` answer, else null. */
async function bakedVersion(deps: CollectDeps, paths: NodePaths): Promise<string | null> {
  const baked = paths.bakedBinary;
  if (deps.execPath === baked) return deps.version;
  if (!deps.fs.lstat(baked)?.isFile) return null;
  try {
    const env = { ...definedEnv(deps.env), AKS_NODE_ROOT: paths.root || '/' };
    const run = await deps.proc.run({ program: baked, args: ['version'], env, timeoutMs: 10_000, captureLimit: 4096 });
    const version = run.stdout.trim();
    return run.exitCode === 0 && STAMPED.test(version) ? version : null;
  } catch {
    return null;
  }
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
    agentVersion: options.askVersion === false ? null : await bakedVersion(deps, paths),
    platform: { name: os.platform ?? null, id: os.id, versionId: os.versionId, variantId: os.variantId },
    files,
  };
}
