// What a boot needs before the agent provisions, read from the node's files: the node configuration (the
// custom data), the boothook's features file, the hostname the launcher waits for, and the scripts-started
// marker. `status` names what is missing instead of calling a node that never began "in progress".
import { readConfigurationFile } from '../config/read.ts';
import type { Deps } from '../platform/deps.ts';

/**
 * A word for each state that is true of it: `ok`; `missing` (needed and absent); `waiting` (the launcher
 * waits for it, as for the hostname); `not yet` (a later step that has not happened); `not needed`.
 */
export type CheckState = 'ok' | 'missing' | 'waiting' | 'not yet' | 'not needed';

export interface BootCheck {
  name: 'node configuration' | 'features file' | 'hostname' | 'scripts started';
  ok: boolean;
  state: CheckState;
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

/**
 * Whether the node configuration asks for feature flags: the boothook writes the features file only
 * then. undefined when the configuration cannot be read or parsed (an nbc-cmd node, a non-root reader).
 */
function wantsFeatures(deps: CheckDeps): boolean | undefined {
  try {
    if (!deps.fs.exists(deps.paths.nodeConfig)) return undefined;
    // Read as every configuration reader reads it (config/read.ts: strict UTF-8); a BOM is the loader's to warn about.
    const doc = JSON.parse(readConfigurationFile(deps.fs, deps.paths.nodeConfig).replace(/^\uFEFF+/, '')) as Record<string, unknown>;
    const flags = doc.enabledFeatures ?? doc.enabled_features;
    return typeof flags === 'object' && flags !== null && Object.keys(flags).length > 0;
  } catch {
    return undefined;
  }
}

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
  const featuresFile = where(deps.paths.enabledFeatures);
  const wanted = features ? true : wantsFeatures(deps);
  const featuresCheck: BootCheck = features
    ? { name: 'features file', ok: true, state: 'ok', detail: `present (${featuresFile})` }
    : wanted === false
      ? {
          name: 'features file',
          ok: true,
          state: 'not needed',
          detail: `the configuration sets no enabledFeatures, so the boothook writes no ${featuresFile}`,
        }
      : wanted === true
        ? {
            name: 'features file',
            ok: false,
            state: 'missing',
            detail: `the configuration sets enabledFeatures but the boothook did not write ${featuresFile}`,
          }
        : {
            name: 'features file',
            ok: true,
            state: 'not needed',
            detail: `absent: ${featuresFile} is written only when the configuration sets enabledFeatures`,
          };
  return {
    configArrived,
    hostnameMatches: hostname.ok,
    hostnameDetail: hostname.detail,
    scriptsStarted,
    checks: [
      {
        name: 'node configuration',
        ok: configArrived,
        state: configArrived ? 'ok' : 'missing',
        detail: configArrived
          ? `present (${where(deps.paths.nodeConfig)})`
          : `missing: neither ${where(deps.paths.nodeConfig)} nor ${where(deps.paths.nbcCmd)}; the custom data never arrived`,
      },
      configArrived
        ? featuresCheck
        : { ...featuresCheck, state: 'not yet', ok: false, detail: `absent (${featuresFile}): no configuration yet` },
      { name: 'hostname', ok: hostname.ok, state: hostname.ok ? 'ok' : 'waiting', detail: hostname.detail },
      {
        name: 'scripts started',
        ok: scriptsStarted,
        state: scriptsStarted ? 'ok' : 'not yet',
        detail: scriptsStarted ? 'yes (the provisioning scripts were started)' : 'no (the provisioning scripts have not been started)',
      },
    ],
  };
}

/** `1 h 27 min`, `3 min 5 s`, `12 s`: a span of whole seconds. */
export function spanText(ms: number): string {
  const s = Math.max(0, Math.floor(ms / 1000));
  const h = Math.floor(s / 3600);
  const m = Math.floor((s % 3600) / 60);
  if (h > 0) return `${h} h ${m} min`;
  if (m > 0) return `${m} min ${s % 60} s`;
  return `${s} s`;
}

/** `1 h 27 min ago` from an instant (unix ms), the same in every time zone. */
export function agoText(at: number | null, now: Date): string {
  return at === null ? 'at an unknown time' : `${spanText(now.getTime() - at)} ago`;
}

/** Why nothing provisioned yet, from the first missing prerequisite. */
export function notStartedSummary(boot: BootChecks, anything: boolean): string {
  if (!boot.configArrived) return 'provisioning has not started: the custom data never arrived (no node configuration)';
  if (!boot.hostnameMatches) return `provisioning has not started: the launcher waits for the hostname (${boot.hostnameDetail})`;
  return anything
    ? 'provisioning has not started: the configuration is there but the agent did not run provision (journalctl -u aks-node-controller)'
    : 'provisioning has not started (no status files, events or log)';
}
