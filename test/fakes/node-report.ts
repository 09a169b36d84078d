// A node's report as the fleet tests put it on a Node object (report-status's shape: docs/operators.md
// "What a node writes"): by default a node on base 202604.01 that was offered 202604.01.1 and provisioned
// on the baked agent; a test names only what it changes. And the annotation that carries it.
import type { FakeApiServer } from './apiserver.ts';

export const REPORT_ANNOTATION = 'kubernetes.azure.com/aks-node-controller-status';
export const BASE = '202604.01';
export const BAKED = '202604.01.0';
export const HOTFIX = '202604.01.1';

export interface ReportFields {
  /** `hotfix.path`; `hotfix` also makes the node run the hotfix (`running`, `binary`). */
  path?: string;
  running?: string;
  bootId?: string;
  time?: string;
  platform?: string;
  base?: unknown;
  requested?: string;
  decision?: string;
  quarantine?: unknown;
  wave?: unknown;
  serial?: number;
  signed?: boolean;
  exitCode?: number;
  /** `provision.name` (default: ERR_SUCCESS, or ERR_KUBELET_START_FAIL for a non-zero exit). */
  name?: string;
}

export function nodeReport(f: ReportFields = {}) {
  const code = f.exitCode ?? 0;
  const onHotfix = f.path === 'hotfix';
  return {
    schemaVersion: 1,
    bootId: f.bootId ?? 'boot-1',
    time: f.time ?? '2026-11-27T05:00:00Z',
    platform: f.platform ?? 'ubuntu-22.04/amd64',
    baked: BAKED,
    running: f.running ?? (onHotfix ? HOTFIX : BAKED),
    binary: onHotfix ? 'hotfix' : 'baked',
    hotfix: {
      base: f.base ?? BASE,
      requested: f.requested ?? HOTFIX,
      decision: f.decision ?? 'upgrade',
      path: f.path ?? 'baked',
      quarantine: f.quarantine ?? null,
      wave: f.wave ?? null,
    },
    scripts: { ran: 'baked', label: null, replaced: 0 },
    pointer: { serial: f.serial ?? 5, signed: f.signed ?? true },
    provision: {
      state: code === 0 ? 'succeeded' : 'failed',
      exitCode: code,
      name: f.name ?? (code === 0 ? 'ERR_SUCCESS' : 'ERR_KUBELET_START_FAIL'),
    },
  };
}

/** The report's annotation text. */
export const reportText = (f: ReportFields = {}) => JSON.stringify(nodeReport(f));

/**
 * Sets the Node `name`'s annotations in the stand-in to just the report `text` (none when undefined),
 * registering the Node first if it is new, as a change the apiserver's watch reports.
 */
export function annotateNode(api: FakeApiServer, name: string, text: string | undefined, bootId = 'boot-1'): void {
  if (!api.nodes.nodes.has(name)) api.nodes.register(name, { bootId });
  const meta = api.nodes.nodes.get(name)!.metadata as { annotations: Record<string, string> };
  meta.annotations = text === undefined ? {} : { [REPORT_ANNOTATION]: text };
  api.nodes.touch(name);
}
