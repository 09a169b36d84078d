// What build.mjs stamped into the bundle besides the version: the git commit and the commit's time (the
// build time of a reproducible build: the same commit gives the same bytes). `unknown` from source.
import { processIdentity } from './boot.ts';
import type { FileSystem } from './fs.ts';
import type { NodePaths } from './paths.ts';

declare const __ANC_COMMIT__: string | undefined;
declare const __ANC_BUILD_TIME__: string | undefined;

export const BUILD_COMMIT: string = typeof __ANC_COMMIT__ === 'string' ? __ANC_COMMIT__ : 'unknown';
export const BUILD_TIME: string = typeof __ANC_BUILD_TIME__ === 'string' ? __ANC_BUILD_TIME__ : 'unknown';

/** The runtime the executable carries (bun when compiled, node when run from source). */
export function runtimeVersion(): string {
  const versions = process.versions as Record<string, string | undefined>;
  return versions.bun ? `bun ${versions.bun}` : `node ${process.versions.node}`;
}

/** The target the executable was built for, `<os>-<arch>` as Go names them (linux-amd64, darwin-arm64). */
export function buildTarget(): string {
  const arch = process.arch === 'x64' ? 'amd64' : process.arch;
  return `${process.platform}-${arch}`;
}

/** `hotfix` when running from the staged hotfix path, else `baked` (the image's own binary). */
export function binaryKind(execPath: string, hotfixBinary: string): 'baked' | 'hotfix' {
  return execPath === hotfixBinary ? 'hotfix' : 'baked';
}

/**
 * Attributes of every command's start log line: its event task, which build runs and from where. `status`
 * reads them to say which build wrote each event (events themselves carry only the reference's bytes), and
 * the boot id, pid and pid start time to tell whether the run still lives (platform/boot.ts).
 */
export function startAttrs(
  deps: {
    version: string;
    execPath: string;
    fs: Pick<FileSystem, 'readText'>;
    paths: Pick<NodePaths, 'hotfixBinary' | 'bootId' | 'procDir'>;
  },
  task: string,
): Record<string, string> {
  return {
    task,
    version: deps.version,
    binary: binaryKind(deps.execPath, deps.paths.hotfixBinary),
    ...processIdentity(deps, process.pid),
  };
}
