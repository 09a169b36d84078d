// `hotfix rollout watch`: polls the nodes' reports and, when the failures among the nodes that took the
// hotfix plus the silent ones cross --max-failed, applies the pre-signed halt FILE to the anc-hotfix-version
// ConfigMap (compare-and-swap on its resourceVersion, never over a newer serial), prints what it saw and
// exits WATCH_HALTED. With an observer key it writes the evidence that opens gated steps (watch-evidence.ts).
// A watch that cannot see halts: a Node list unreadable for longer than the blind timeout applies the halt
// too. One line per decision, for the release record. `--observe` only reads.
import type { ApiCredentials } from '../kube/credentials.ts';
import type { Deps } from '../platform/deps.ts';
import { AgentError, errorMessage } from '../platform/errors.ts';
import type { ConfigMapDoc } from '../pointer/configmap.ts';
import type { SigningMode } from '../pointer/gate.ts';
import type { TrustedKey } from '../pointer/keys.ts';
import { firstRead, type NodeSource, openNodeSource } from './node-source.ts';
import { type FleetState, readLive } from './read.ts';
import { crossesThreshold } from './rollout.ts';
import { seenKey } from './targets.ts';
import { fleetView, type StatedView } from './rollout-state.ts';
import { rolloutText } from './rollout-text.ts';
import { applyHalt, type EvidenceSigner, writeEvidence } from './watch-writes.ts';

export const WATCH_HALTED = 3;
/** The Node list stayed unreadable past the blind timeout: the halt was applied (or tried). */
export const WATCH_BLIND = 4;
/** A newer pointer than the one the watch started with is live: nothing was written over it. */
export const WATCH_SUPERSEDED = 5;
/** --timeout passed before the rollout completed or halted. */
export const WATCH_TIMED_OUT = 6;
/** Interrupted (Ctrl-C, SIGTERM): the rollout is unguarded from now on. */
export const WATCH_INTERRUPTED = 130;

export interface WatchOptions {
  creds: ApiCredentials;
  /** Absent with --observe. */
  halt?: ConfigMapDoc;
  haltName: string;
  mode: SigningMode;
  keys: readonly TrustedKey[];
  max: { count: number } | { percent: number };
  intervalMs: number;
  untilComplete: boolean;
  json: boolean;
  reportTimeoutMs: number;
  blindTimeoutMs: number;
  /** The whole watch's bound (undefined: none). */
  timeoutMs?: number;
  expect?: number;
  evidence?: EvidenceSigner;
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
      hint: 'Render it with `hotfix pointer render --halt --kubeconfig FILE`, sign it, and start the watch again (or watch a halted rollout with --observe).',
    });
  };
  const serial = livePayload(options.halt!)?.serial;
  if (serial === undefined) return fail('it holds no pointer payload with a serial');
  const floor = liveSerial ?? 0;
  if (serial <= floor)
    return fail(`its serial ${serial} is not above the live pointer's serial ${floor}: nodes would refuse it as a rollback`);
  const report = verifyConfigMap(options.halt!, {
    mode: options.mode,
    keys: options.keys,
    facts: undefined,
    minSerial: floor,
    now: deps.clock.now(),
  });
  if (!report.accepted) fail(`nodes in mode ${options.mode} would refuse it (${report.outcome}: ${report.reason ?? ''})`);
  return serial;
}

function complete(view: StatedView, expect: number): boolean {
  return view.nodes.length >= Math.max(1, expect) && view.state === 'complete' && view.totals.timedOut === 0;
}

/** What a Ctrl-C leaves behind, in one line: a gated rollout stalls, an ungated one widens on the clock. */
function unguardedLine(state: FleetState): string {
  const waves = Object.values(state.live?.rollout ?? {});
  const gated = waves.some((w) => w.schedule?.some((s) => s.gated));
  const scheduled = waves.some((w) => w.schedule && !w.schedule.some((s) => s.gated));
  const what = gated
    ? 'its gated steps stay closed once the evidence written so far expires (within two step intervals): the rollout stalls, it does not widen'
    : scheduled
      ? 'its schedule is NOT gated and keeps widening on the clock to 100% with nobody watching'
      : 'nothing halts it if nodes fail';
  return `watch interrupted: the rollout is now unguarded; ${what}. Restart the watch (or apply the halt by hand).`;
}

export async function runWatch(deps: Deps, options: WatchOptions): Promise<{ exitCode: number; stdout: string }> {
  const say = (line: string) => deps.stdout.write(`${deps.clock.now().toISOString()} ${line}\n`);
  // The Nodes come from a source that lists once and then follows the apiserver's watch (node-source.ts).
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
  source: NodeSource,
  say: (line: string) => void,
): Promise<{ exitCode: number; stdout: string }> {
  const started = deps.clock.now().getTime();
  // While the source is blind (stream lost, relist not done) nodes() throws: a failed poll, never a stale list.
  const readFleet = async (): Promise<FleetState> => ({ nodes: source.nodes(), ...(await readLive(deps, options.creds, options.keys)) });
  const first = await firstRead(readFleet, say);
  const startSerial = first.live?.serial;
  const haltSerial = options.halt ? await checkHalt(deps, options, startSerial) : undefined;
  const expect = options.expect ?? first.nodes.length;
  const firstSeen = new Map<string, number>();
  const silence = { reportTimeoutMs: options.reportTimeoutMs, since: started, expect, firstSeen };
  say(
    options.halt
      ? `watch started: halt ${options.haltName} (serial ${haltSerial}, verified for mode ${options.mode}) when failures among nodes that took the hotfix, plus nodes silent past ${options.reportTimeoutMs / 1000} s, exceed ${maxText(options.max)}; expecting ${expect} node(s); polling every ${options.intervalMs / 1000} s${options.evidence ? `; signing evidence for gated steps with observer key ${options.evidence.keyid}` : ''}`
      : `watch started (--observe, read-only): pointer serial ${startSerial ?? '-'}; expecting ${expect} node(s); polling every ${options.intervalMs / 1000} s`,
  );
  if (first.live?.unverified !== undefined)
    say(
      `live pointer UNVERIFIED: its signature does not verify with the fleet's keys (${first.live.unverified}); nodes refuse it, so its serial is not the halt's floor`,
    );
  const out = (view: StatedView, extra: Record<string, unknown>) =>
    options.json ? `${JSON.stringify({ ...extra, ...view })}\n` : rolloutText(view);
  let state: FleetState = first;
  let lastSeen = started;
  let view: StatedView | undefined;
  const loop = async (abort: AbortSignal): Promise<{ exitCode: number; stdout: string }> => {
    let fresh = true;
    while (true) {
      if (abort.aborted) return { exitCode: WATCH_INTERRUPTED, stdout: view ? out(view, { halted: false, interrupted: true }) : '' };
      const now = deps.clock.now();
      if (fresh) {
        for (const n of state.nodes) if (!firstSeen.has(seenKey(n.name, n.bootId))) firstSeen.set(seenKey(n.name, n.bootId), now.getTime());
        view = fleetView(state.nodes, state.live, now, silence);
        const t = view.totals;
        const counts = `nodes=${t.nodes}/${expect} reported=${t.reported} tookHotfix=${t.tookHotfix} failed=${t.failedAmongTook} timedOut=${t.timedOut}${t.unreadable ? ` unreadable=${t.unreadable}` : ''}${t.untargeted ? ` untargeted=${t.untargeted}` : ''} (max ${maxText(options.max)}) state=${view.state}`;
        const liveSerial = state.live?.serial;
        if (options.halt && liveSerial !== undefined && liveSerial !== haltSerial && liveSerial > (startSerial ?? 0)) {
          say(
            `${counts} -> STOP: pointer serial ${liveSerial} was published after the watch started (serial ${startSerial ?? '-'}); the halt (serial ${haltSerial}) would overwrite it, so nothing is written`,
          );
          return { exitCode: WATCH_SUPERSEDED, stdout: out(view, { halted: false, superseded: liveSerial }) };
        }
        if (options.halt && crossesThreshold(view, options.max)) {
          say(`${counts} -> HALT: applying ${options.haltName} (serial ${haltSerial})`);
          return halt(view, WATCH_HALTED);
        }
        if (options.halt && options.evidence && state.doc) await writeEvidence(deps, options, state, view, say);
        if (options.untilComplete && complete(view, expect)) {
          say(`${counts} -> complete: every expected node reported on its wave, no wave left to start`);
          return { exitCode: 0, stdout: out(view, { halted: false }) };
        }
        say(`${counts} -> continue`);
      }
      if (options.timeoutMs !== undefined && now.getTime() - started > options.timeoutMs) {
        say(
          `--timeout ${options.timeoutMs / 1000} s passed: the watch stops; the rollout is ${view?.state ?? 'unknown'} and unguarded from now`,
        );
        return { exitCode: WATCH_TIMED_OUT, stdout: view ? out(view, { halted: false, timedOut: true }) : '' };
      }
      await Promise.race([deps.clock.sleep(options.intervalMs), new Promise((r) => abort.addEventListener('abort', r, { once: true }))]);
      if (abort.aborted) continue;
      try {
        state = await readFleet();
        lastSeen = deps.clock.now().getTime();
        fresh = true;
      } catch (error) {
        fresh = false;
        const blindMs = deps.clock.now().getTime() - lastSeen;
        const why = `poll failed: ${errorMessage(error)}; blind for ${Math.round(blindMs / 1000)} s`;
        if (blindMs <= options.blindTimeoutMs) {
          say(`${why} -> a watch that cannot see halts after ${options.blindTimeoutMs / 1000} s`);
          continue;
        }
        if (!options.halt) {
          say(`${why} -> BLIND: the rollout is unguarded (--observe applies nothing)`);
          return { exitCode: WATCH_BLIND, stdout: '' };
        }
        say(`${why} -> BLIND HALT: a watch that cannot see halts; applying ${options.haltName} (serial ${haltSerial})`);
        return halt(view, WATCH_BLIND);
      }
    }
  };
  const halt = async (seen: StatedView | undefined, code: number) => {
    const applied = await applyHalt(deps, options, state, startSerial, haltSerial!, say);
    if (applied === 'superseded') return { exitCode: WATCH_SUPERSEDED, stdout: seen ? out(seen, { halted: false }) : '' };
    // The table after the halt: re-read, so it shows the halted state (the last one seen if blind).
    let after = seen;
    try {
      const now = await readFleet();
      after = fleetView(now.nodes, now.live, deps.clock.now(), silence);
    } catch {
      // blind: the last view is all there is
    }
    return {
      exitCode: applied === 'applied' ? code : WATCH_BLIND,
      stdout: after ? out(after, { halted: applied === 'applied', haltSerial }) : '',
    };
  };
  return deps.withTerminationSignals(() => say(unguardedLine(state)), loop);
}
