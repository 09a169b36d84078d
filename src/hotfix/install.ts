// Package installation for download-hotfix (spec 6.4, D5). The argv builders here are pure and produce
// EXACTLY the reference commands; every builder that takes a version refuses anything that is not
// YYYYMM.DD.PATCH[-REV] before a single argument exists.
//
// Sandbox seam (AKS_NODE_ROOT set, deps.paths.root non-empty): the package managers must never touch the
// host. apt/dpkg keep the reference argv and are pointed at the sandbox through their environment:
// DPKG_ROOT / DPKG_ADMINDIR (honoured by dpkg when no --root/--admindir is given) and APT_CONFIG (the
// agent's own APT_CONFIG if set, else <root>/etc/apt/apt.conf, which must exist: it carries Dir, the dpkg
// status file and DPkg::Options --root/--admindir); `dpkg --configure -a` also gets `--log=<root>/...`,
// since dpkg's log has no environment switch. dnf/tdnf get `--installroot=<root>` and
// `--setopt=reposdir=<root>/etc/yum.repos.d` appended only when sandboxed. Unsandboxed, argv and the
// child environment are exactly the reference's.
import { AgentError } from '../platform/errors.ts';
import { parseOsReleaseId } from '../platform/os-release.ts';
import { NODE_PATHS, type NodePaths } from '../platform/paths.ts';
import { isSafeHotfixVersion } from '../pointer/version.ts';

export type PackageManager = 'apt-get' | 'dnf' | 'tdnf';

export interface PmCommand {
  /** The executable (`env` for the apt/dpkg steps, as in the reference). */
  program: string;
  args: string[];
  /** Prefix for the step's error (`apt-get update failed`), '' when the error is not wrapped. */
  step: string;
}

function installError(message: string, cause?: unknown): AgentError {
  return new AgentError('ANC_HOTFIX', message, { step: 'installFailed', ...(cause === undefined ? {} : { cause }) });
}

/** Spec 6.4 OS detection from the os-release text; `hasDnf` says whether `dnf` is on PATH. */
export function packageManagerFor(osReleaseText: string, hasDnf: boolean): PackageManager {
  const id = parseOsReleaseId(osReleaseText);
  if (id === undefined) throw installError(`ID not found in ${NODE_PATHS.osRelease}`);
  if (id === 'ubuntu') return 'apt-get';
  if (id === 'azurelinux' || id === 'mariner') return hasDnf ? 'dnf' : 'tdnf';
  throw installError(`unsupported OS: ${id}`);
}

/**
 * The Microsoft repo source file (spec 6.4): `.list` preferred, else deb822 `.sources`. `exists` follows
 * the FileSystem.stat contract: false for not-exist, throws for any other stat error.
 */
export function chooseAptSource(dir: string, exists: (path: string) => boolean): string {
  const list = `${dir}/microsoft-prod.list`;
  const sources = `${dir}/microsoft-prod.sources`;
  for (const candidate of [list, sources]) {
    let found: boolean;
    try {
      found = exists(candidate);
    } catch (error) {
      throw installError(`checking ${candidate}: ${error instanceof Error ? error.message : String(error)}`, error);
    }
    if (found) return candidate;
  }
  throw installError(`neither ${list} nor ${sources} exists`);
}

function requireSafe(version: string): void {
  if (!isSafeHotfixVersion(version)) {
    throw new AgentError('ANC_HOTFIX', `refusing hotfix version ${JSON.stringify(version)}: not YYYYMM.DD.PATCH[-REV]`, {
      step: 'invalidVersion',
    });
  }
}

const NONINTERACTIVE = 'DEBIAN_FRONTEND=noninteractive';

export function dpkgConfigureCommand(paths?: NodePaths): PmCommand {
  const args = [NONINTERACTIVE, 'dpkg', '--configure', '-a', '--force-confdef', '--force-confold'];
  // dpkg's own log has no environment switch: sandboxed, it goes under the root too.
  if (paths?.root) args.push(`--log=${paths.dpkgLog}`);
  return { program: 'env', args, step: 'dpkg --configure -a failed' };
}

export function aptUpdateCommand(sourceFile: string): PmCommand {
  return {
    program: 'env',
    args: [
      NONINTERACTIVE,
      'apt-get',
      'update',
      '-o',
      'Dpkg::Options::=--force-confold',
      '-o',
      `Dir::Etc::sourcelist=${sourceFile}`,
      '-o',
      'Dir::Etc::sourceparts=-',
    ],
    step: 'apt-get update failed',
  };
}

export function aptInstallCommand(version: string): PmCommand {
  requireSafe(version);
  return {
    program: 'env',
    args: [
      NONINTERACTIVE,
      'apt-get',
      'install',
      '-y',
      '--allow-downgrades',
      '-o',
      'Dpkg::Options::=--force-confold',
      `aks-node-controller=${version}*`,
    ],
    step: 'apt-get install failed',
  };
}

/** `<dnf|tdnf> install -y --refresh --allowerasing aks-node-controller-<v>` (+ sandbox options). */
export function rpmInstallCommand(pm: 'dnf' | 'tdnf', version: string, paths?: NodePaths): PmCommand {
  requireSafe(version);
  const args = ['install', '-y', '--refresh', '--allowerasing', `aks-node-controller-${version}`];
  if (paths?.root) args.push(`--installroot=${paths.root}`, `--setopt=reposdir=${paths.yumReposDir}`);
  return { program: pm, args, step: '' };
}

/** The commands of one installation, in order. */
export function installPlan(pm: PackageManager, version: string, aptSource: string, paths: NodePaths): PmCommand[] {
  requireSafe(version);
  if (pm === 'apt-get') return [dpkgConfigureCommand(paths), aptUpdateCommand(aptSource), aptInstallCommand(version)];
  return [rpmInstallCommand(pm, version, paths)];
}

/**
 * Environment additions that keep apt/dpkg inside the sandbox root (see the header). Empty when not
 * sandboxed or for dnf/tdnf (their sandboxing is in argv).
 */
export function sandboxEnv(pm: PackageManager, paths: NodePaths, aptConfig: string | undefined): Record<string, string> {
  if (!paths.root || pm !== 'apt-get') return {};
  return { DPKG_ROOT: paths.root, DPKG_ADMINDIR: paths.dpkgAdminDir, APT_CONFIG: aptConfig || paths.aptConfig };
}
