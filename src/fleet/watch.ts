// `hotfix rollout watch`: polls the nodes' reports and, when the failures among the nodes that took the
// hotfix cross --max-failed, applies the pre-signed halt FILE to the anc-hotfix-version ConfigMap (a JSON
// merge patch of its data), prints what it saw and exits WATCH_HALTED. One line per decision, for the
// release record. Before the first poll it checks that FILE verifies in the fleet's signing mode and
// that its serial is above the live pointer's: a halt that nodes would refuse is worse than none. The
// Nodes come from a source that lists once and then follows the apiserver's watch (node-source.ts).
import type { ApiCredentials } from '../kube/credentials.ts';
import type { Deps } from '../platform/deps.ts';
import { AgentError, errorMessage } from '../platform/errors.ts';
import type { ConfigMapDoc } from '../pointer/configmap.ts';
import type { SigningMode } from '../pointer/gate.ts';
import type { TrustedKey } from '../pointer/keys.ts';
import { firstRead, openNodeSource } from './node-source.ts';
import { readLive } from './read.ts';
import { crossesThreshold, rolloutView, type RolloutView } from './rollout.ts';
import { rolloutText } from './rollout-text.ts';

export const WATCH_HALTED = 3;

export interface WatchOptions {
  creds: ApiCredentials;
  halt: ConfigMapDoc;
  haltName: string;
  mode: SigningMode;
  keys: readonly TrustedKey[];
  max: { count: number } | { percent: number };
  intervalMs: number;
  untilComplete: boolean;
  json: boolean;
  /** Nodes per page of the list (default 500). */
  pageSize?: number;
}

const maxText = (max: WatchOptions['max']) => ('count' in max ? `${max.count}` : `${max.percent}%`);

/** The halt must verify as the nodes would verify it, above the live serial. Returns the halt's serial. */
export async function checkHalt(deps: Deps, options: WatchOptions, liveSerial: number | undefined): Promise<number> {
  const { verifyConfigMap } = await import('../pointer/verify.ts');
  const { livePayload } = await import('../pointer/live-pointer.ts');
  const fail = (why: string): never => {
    throw new AgentError('ANC_USAGE', `--halt-with ${options.haltName}: ${why}`, {
      hint: 'Render it with `hotfix pointer render --halt --kubeconfig FILE`, sign it, and start the watch again.',
    });
  };
  const serial = livePayload(options.halt)?.serial;
  if (serial === undefined) return fail('it holds no pointer payload with a serial');
  const floor = liveSerial ?? 0;
  if (serial <= floor)
    return fail(`its serial ${serial} is not above the live pointer's serial ${floor}: nodes would refuse it as a rollback`);
  const report = verifyConfigMap(options.halt, {
    mode: options.mode,
    keys: options.keys,
    facts: undefined,
    minSerial: floor,
    now: deps.clock.now(),
  });
  if (!report.accepted) fail(`nodes in mode ${options.mode} would refuse it (${report.outcome}: ${report.reason ?? ''})`);
  return serial;
}

function complete(view: RolloutView): boolean {
  return view.nodes.length > 0 && view.groups.every((g) => g.notInWave === 0 && g.notReported === 0 && g.nextWaveAt === null);
}

export async function runWatch(deps: Deps, options: WatchOptions): Promise<{ exitCode: number; stdout: string }> {
  const say = (line: string) => deps.stdout.write(`${deps.clock.now().toISOString()} ${line}\n`);
  const source = await firstRead(
    () => openNodeSource(deps, options.creds, { ...(options.pageSize ? { pageSize: options.pageSize } : {}), say }),
    say,
  );
  try {
    return await judge(deps, options, source, say);
  } finally {
    source.close();
  }
}

async function judge(
  deps: Deps,
  options: WatchOptions,
  source: import('./node-source.ts').NodeSource,
  say: (line: string) => void,
): Promise<{ exitCode: number; stdout: string }> {
  const { patchConfigMapData } = await import('../kube/nodes.ts');
  const { HOTFIX_CONFIGMAP_PATH } = await import('../kube/client.ts');
  const readFleet = async () => ({ nodes: source.nodes(), ...(await readLive(deps, options.creds, options.keys)) });
  const first = await firstRead(readFleet, say);
  const haltSerial = await checkHalt(deps, options, first.live?.serial);
  say(
    `watch started: halt ${options.haltName} (serial ${haltSerial}, verified for mode ${options.mode}) when failures among nodes that took the hotfix exceed ${maxText(options.max)}; polling every ${options.intervalMs / 1000} s`,
  );
  if (first.live?.unverified !== undefined)
    say(
      `live pointer UNVERIFIED: its signature does not verify with the fleet's keys (${first.live.unverified}); nodes refuse it, so its serial is not the halt's floor`,
    );
  let state = first;
  while (true) {
    const view = rolloutView(state.nodes, state.live, deps.clock.now());
    const t = view.totals;
    const counts = `nodes=${t.nodes} reported=${t.reported} tookHotfix=${t.tookHotfix} failed=${t.failedAmongTook} (max ${maxText(options.max)})`;
    if (crossesThreshold(view, options.max)) {
      say(`${counts} -> HALT: applying ${options.haltName} (serial ${haltSerial})`);
      const data: Record<string, string | null> = { ...options.halt.data };
      for (const key of Object.keys(state.doc?.data ?? {})) if (!(key in data)) data[key] = null;
      await patchConfigMapData(options.creds, HOTFIX_CONFIGMAP_PATH, data, { userAgent: `aks-node-controller/${deps.version}` });
      say(`halt applied: pointer serial ${haltSerial} is live; nodes that already staged the hotfix keep it`);
      const seen = options.json ? `${JSON.stringify({ halted: true, haltSerial, ...view })}\n` : rolloutText(view);
      return { exitCode: WATCH_HALTED, stdout: seen };
    }
    if (options.untilComplete && complete(view)) {
      say(`${counts} -> complete: every node reported on its wave, no wave left to start`);
      return { exitCode: 0, stdout: options.json ? `${JSON.stringify({ halted: false, ...view })}\n` : rolloutText(view) };
    }
    say(`${counts} -> continue`);
    await deps.clock.sleep(options.intervalMs);
    try {
      state = await readFleet();
    } catch (error) {
      // One failed poll is not a verdict: say so and poll again.
      say(`poll failed: ${errorMessage(error)} -> continue`);
    }
  }
}
