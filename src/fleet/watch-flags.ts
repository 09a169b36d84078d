// `hotfix rollout watch` flags -> checked values: durations (90, 90s, 15m, 1h), counts, the observer key.
// Pure but for reading the key file through Deps.
import type { Deps } from '../platform/deps.ts';
import { AgentError } from '../platform/errors.ts';
import { REPORT_TIMEOUT_MS } from './targets.ts';
import type { EvidenceSigner } from './watch-writes.ts';

export interface WatchFlags {
  kubeconfig?: string;
  context?: string;
  pageSize?: string;
  haltWith?: string;
  maxFailed?: string;
  interval?: string;
  untilComplete?: boolean;
  mode?: string;
  keys?: string;
  reportTimeout?: string;
  blindTimeout?: string;
  timeout?: string;
  expect?: string;
  observe?: boolean;
  evidenceKey?: string;
  evidenceKeyId?: string;
  evidenceMin?: string;
}

const HELP = { hint: 'Run `aks-node-controller hotfix rollout watch --help`; docs/operators.md "Watching a rollout".' };
const usage = (message: string) => new AgentError('ANC_USAGE', message, HELP);

/** `90`, `90s`, `15m`, `1h` -> ms; undefined when absent. */
export function durationMs(flag: string, text: string | undefined): number | undefined {
  if (text === undefined) return undefined;
  const m = /^(\d+(?:\.\d+)?)(s|m|h)?$/.exec(text.trim());
  const ms = m ? Number(m[1]) * { s: 1000, m: 60_000, h: 3_600_000 }[(m[2] ?? 's') as 's' | 'm' | 'h'] : Number.NaN;
  if (!(ms > 0) || ms > 30 * 86_400_000)
    throw usage(`${flag} ${JSON.stringify(text)}: expected a duration above 0, e.g. 90s, 15m or 1h (a bare number is seconds)`);
  return ms;
}

export function countFlag(flag: string, text: string | undefined, min: number): number | undefined {
  if (text === undefined) return undefined;
  if (!/^\d{1,6}$/.test(text) || Number(text) < min) throw usage(`${flag} ${JSON.stringify(text)}: expected an integer >= ${min}`);
  return Number(text);
}

export interface Timing {
  intervalMs: number;
  reportTimeoutMs: number;
  blindTimeoutMs: number;
  timeoutMs?: number;
  expect?: number;
  /** Nodes per page of the list (default 500). */
  pageSize?: number;
}

export function watchTiming(flags: WatchFlags): Timing {
  const reportTimeoutMs = durationMs('--report-timeout', flags.reportTimeout) ?? REPORT_TIMEOUT_MS;
  const timeoutMs = durationMs('--timeout', flags.timeout);
  const expect = countFlag('--expect', flags.expect, 1);
  const pageSize = countFlag('--page-size', flags.pageSize, 1);
  if (pageSize !== undefined && pageSize > 10_000)
    throw usage(`--page-size ${JSON.stringify(flags.pageSize)}: expected a whole number from 1 to 10000`);
  return {
    intervalMs: durationMs('--interval', flags.interval) ?? 30_000,
    reportTimeoutMs,
    // A watch that cannot see halts: by default after as long as a node may stay silent.
    blindTimeoutMs: durationMs('--blind-timeout', flags.blindTimeout) ?? reportTimeoutMs,
    ...(timeoutMs === undefined ? {} : { timeoutMs }),
    ...(expect === undefined ? {} : { expect }),
    ...(pageSize === undefined ? {} : { pageSize }),
  };
}

export function evidenceSigner(deps: Deps, flags: WatchFlags): EvidenceSigner | undefined {
  if (flags.evidenceKey === undefined) {
    if (flags.evidenceKeyId !== undefined || flags.evidenceMin !== undefined)
      throw usage('--evidence-key-id and --evidence-min need --evidence-key FILE (the observer key)');
    return undefined;
  }
  if (flags.observe) throw usage('--observe only reads: it signs no evidence (leave out --evidence-key)');
  if (flags.evidenceKeyId === undefined)
    throw usage('--evidence-key needs --evidence-key-id ID (the observer key id baked into the nodes)');
  let privateKeyPem: string;
  try {
    privateKeyPem = deps.fs.readText(flags.evidenceKey, 'config');
  } catch (error) {
    throw usage(`--evidence-key ${flags.evidenceKey}: cannot read it (${(error as { code?: string }).code ?? 'unreadable'})`);
  }
  return {
    privateKeyPem,
    keyid: flags.evidenceKeyId,
    minOnHotfix: countFlag('--evidence-min', flags.evidenceMin, 1) ?? 1,
  };
}

/** --max-failed N or P%: halt when failures among the nodes that took the hotfix exceed it. */
export function parseMaxFailed(text: string): { count: number } | { percent: number } | undefined {
  const m = /^(\d+(?:\.\d+)?)(%?)$/.exec(text.trim());
  if (!m) return undefined;
  const value = Number(m[1]);
  if (m[2] === '%') return value <= 100 ? { percent: value } : undefined;
  return Number.isInteger(value) ? { count: value } : undefined;
}
