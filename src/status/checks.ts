// What a boot needs before the agent provisions, read from the node's files: the node configuration (the
// custom data), the boothook's features file, the hostname the launcher waits for, and the scripts-started
// marker. `status` names what is missing instead of calling a node that never began "in progress".
import type { Deps } from '../platform/deps.ts';

export interface BootCheck {
  name: 'node configuration' | 'features file' | 'hostname' | 'scripts started';
  ok: boolean;
  detail: string;
}

export interface BootChecks {
  configArrived: boolean;
  /** undefined when /etc/hostname cannot be read: the launcher then waits too. */
  hostnameMatches: boolean;
  hostnameDetail: string;
  scriptsStarted: boolean;
  checks: BootCheck[];
}

type CheckDeps = Pick<Deps, 'fs' | 'paths' | 'hostname'>;

/** The launcher's comparison: the running hostname against the first 256 bytes of /etc/hostname, trailing newlines cut. */
function hostnameCheck(deps: CheckDeps): { ok: boolean; detail: string } {
  const file = deps.paths.strip(deps.paths.hostnameFile);
  const running = deps.hostname();
  let expected = '';
  try {
    if (deps.fs.stat(deps.paths.hostnameFile)?.isFile)
      expected = deps.fs.readText(deps.paths.hostnameFile, 'status').slice(0, 256).replace(/\n+$/, '');
  } catch {
    expected = '';
  }
  if (expected === '') return { ok: false, detail: `${file} is missing or empty: the launcher waits for cloud-init to set the hostname` };
  if (expected !== running)
    return {
      ok: false,
      detail: `the running hostname is "${running}" but ${file} says "${expected}": the launcher waits until they match`,
    };
  return { ok: true, detail: `"${running}" matches ${file}` };
}

export function bootChecks(deps: CheckDeps): BootChecks {
  const where = (path: string) => deps.paths.strip(path);
  const configArrived = deps.fs.exists(deps.paths.nodeConfig) || deps.fs.exists(deps.paths.nbcCmd);
  const features = deps.fs.exists(deps.paths.enabledFeatures);
  const scriptsStarted = deps.fs.exists(deps.paths.scriptsStartedMarker);
  const hostname = hostnameCheck(deps);
  return {
    configArrived,
    hostnameMatches: hostname.ok,
    hostnameDetail: hostname.detail,
    scriptsStarted,
    checks: [
      {
        name: 'node configuration',
        ok: configArrived,
        detail: configArrived
          ? `present (${where(deps.paths.nodeConfig)})`
          : `missing: neither ${where(deps.paths.nodeConfig)} nor ${where(deps.paths.nbcCmd)}; the custom data never arrived`,
      },
      {
        name: 'features file',
        ok: features,
        detail: features
          ? `present (${where(deps.paths.enabledFeatures)})`
          : `missing: the boothook did not write ${where(deps.paths.enabledFeatures)}`,
      },
      { name: 'hostname', ok: hostname.ok, detail: hostname.detail },
      {
        name: 'scripts started',
        ok: scriptsStarted,
        detail: scriptsStarted ? 'yes (the provisioning scripts were started)' : 'no (the provisioning scripts have not been started)',
      },
    ],
  };
}

/** `1 h 27 min ago`, `3 min 5 s ago`, `12 s ago` from an event time (node-local `YYYY-MM-DD HH:MM:SS.mmm`). */
export function agoText(eventTime: string, now: Date): string {
  const then = Date.parse(eventTime.replace(' ', 'T'));
  if (!Number.isFinite(then)) return 'at an unknown time';
  const s = Math.max(0, Math.floor((now.getTime() - then) / 1000));
  const h = Math.floor(s / 3600);
  const m = Math.floor((s % 3600) / 60);
  if (h > 0) return `${h} h ${m} min ago`;
  if (m > 0) return `${m} min ${s % 60} s ago`;
  return `${s} s ago`;
}
