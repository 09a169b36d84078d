// What the watch writes into the anc-hotfix-version ConfigMap, and the rules it writes by: the pre-signed
// halt, only when the live pointer is still the one the watch started with (re-read first, then a
// compare-and-swap on the ConfigMap's resourceVersion), and the observer-signed evidence that opens gated
// steps, only onto the serial it was computed for (compare-and-swap too). Never over newer work.
import type { Deps } from '../platform/deps.ts';
import { errorMessage } from '../platform/errors.ts';
import type { ConfigMapDoc } from '../pointer/configmap.ts';
import { planEvidence } from '../pointer/evidence-gate.ts';
import { type FleetState, unverifiedEnvelope } from './read.ts';
import type { StatedView } from './rollout-state.ts';
import type { ApiCredentials } from '../kube/credentials.ts';
import type { TrustedKey } from '../pointer/keys.ts';

export interface EvidenceSigner {
  privateKeyPem: string;
  keyid: string;
  /** The fewest nodes on the hotfix a wave needs before the next gated step opens. */
  minOnHotfix: number;
}

type Say = (line: string) => void;

/** What the writes need of the watch's options (watch.ts WatchOptions). */
interface WriteOptions {
  creds: ApiCredentials;
  halt?: ConfigMapDoc;
  haltName: string;
  evidence?: EvidenceSigner;
  /** The fleet's pointer-signing keys: a live envelope that does not verify with them is no newer work (R4-12). */
  keys?: readonly TrustedKey[];
}

const conflict = (error: unknown) => /returned status 409\b|Conflict/.test(errorMessage(error));

async function readDoc(deps: Deps, options: WriteOptions): Promise<ConfigMapDoc> {
  const { apiGet, HOTFIX_CONFIGMAP_PATH } = await import('../kube/client.ts');
  const { parseConfigMapText } = await import('../pointer/configmap.ts');
  const text = await apiGet(options.creds, HOTFIX_CONFIGMAP_PATH, { userAgent: `aks-node-controller/${deps.version}` });
  return parseConfigMapText(text, 'the cluster ConfigMap');
}

const versionOf = (doc: ConfigMapDoc | undefined) => {
  const v = doc?.metadata.resourceVersion;
  return typeof v === 'string' && v !== '' ? v : undefined;
};

/** Applies the halt over the live pointer the watch started with; 'superseded' when a newer one is live. */
export async function applyHalt(
  deps: Deps,
  options: WriteOptions,
  state: FleetState,
  startSerial: number | undefined,
  haltSerial: number,
  say: Say,
): Promise<'applied' | 'superseded' | 'failed'> {
  const { patchConfigMapData } = await import('../kube/nodes.ts');
  const { HOTFIX_CONFIGMAP_PATH } = await import('../kube/client.ts');
  const { livePayload } = await import('../pointer/live-pointer.ts');
  for (let attempt = 1; attempt <= 3; attempt++) {
    let doc = state.doc;
    try {
      doc = await readDoc(deps, options);
    } catch (error) {
      say(`re-reading the live pointer failed (${errorMessage(error)}): writing over the last one seen, only if it is unchanged`);
    }
    // A forged envelope (ConfigMap write without the signing key) is no newer work: nodes refuse it (R4-12).
    const forged = doc ? await unverifiedEnvelope(doc, options.keys) : undefined;
    if (forged !== undefined) say(`the live pointer does not verify with the fleet's keys (${forged}): the halt replaces it`);
    const live = doc && forged === undefined ? livePayload(doc)?.serial : undefined;
    if (live === haltSerial) {
      say(`halt already live: pointer serial ${haltSerial}`);
      return 'applied';
    }
    if (live !== undefined && live > (startSerial ?? 0)) {
      say(
        `NOT APPLIED: pointer serial ${live} was published after the watch started (serial ${startSerial ?? '-'}); the halt (serial ${haltSerial}) would overwrite it. Render a halt from the live pointer and decide by hand.`,
      );
      return 'superseded';
    }
    const data: Record<string, string | null> = { ...options.halt!.data };
    for (const key of Object.keys(doc?.data ?? {})) if (!(key in data)) data[key] = null;
    try {
      await patchConfigMapData(
        options.creds,
        HOTFIX_CONFIGMAP_PATH,
        data,
        { userAgent: `aks-node-controller/${deps.version}` },
        versionOf(doc),
      );
      say(`halt applied: pointer serial ${haltSerial} is live; nodes that already staged the hotfix keep it`);
      return 'applied';
    } catch (error) {
      if (conflict(error) && attempt < 3) {
        say('the ConfigMap changed while the halt was being applied: reading it again');
        continue;
      }
      say(`could not apply the halt: ${errorMessage(error)}. Apply ${options.haltName} by hand now (kubectl apply -f).`);
      return 'failed';
    }
  }
  return 'failed';
}

/** Signs and writes the evidence the healthy waves earned, onto the serial it was computed for. */
export async function writeEvidence(deps: Deps, options: WriteOptions, state: FleetState, view: StatedView, say: Say): Promise<void> {
  const serial = state.live?.serial;
  const signer = options.evidence!;
  if (serial === undefined || state.live?.halted !== undefined) return;
  const now = deps.clock.now();
  const bases: Record<
    string,
    { step: number; percent: number; counts: { nodes: number; onHotfix: number; required: number; failed: number; timedOut: number } }
  > = {};
  let write = false;
  let expiresMs = Number.POSITIVE_INFINITY;
  for (const [base, wave] of Object.entries(state.live?.rollout ?? {})) {
    if (!wave.schedule) continue;
    const groups = view.groups.filter((g) => g.base === base);
    const counts = {
      nodes: groups.reduce((n, g) => n + g.nodes, 0),
      onHotfix: groups.reduce((n, g) => n + g.onHotfix, 0),
      failed: view.totals.failedAmongTook,
      timedOut: view.totals.timedOut,
    };
    const plan = planEvidence(wave.schedule, state.live?.evidence?.[base], serial, now, counts, signer.minOnHotfix);
    if (!plan || plan.step === 0) continue;
    bases[base] = { step: plan.step, percent: plan.percent, counts: { ...counts, required: plan.required } };
    write ||= plan.write;
    expiresMs = Math.min(expiresMs, plan.expiresMs);
  }
  if (!write) return;
  const { signEvidence, EVIDENCE_KEY } = await import('../pointer/evidence.ts');
  const iso = (ms: number) => new Date(ms).toISOString().replace(/\.\d{3}Z$/, 'Z');
  const evidence = { schemaVersion: 1 as const, serial, time: iso(now.getTime()), expires: iso(expiresMs), bases };
  const text = signEvidence(evidence, signer.privateKeyPem, signer.keyid);
  const opened = Object.entries(bases)
    .map(
      ([b, e]) =>
        `${b} step ${e.step} (${e.percent}%): ${e.counts.onHotfix} of ${e.counts.nodes} on the hotfix (needed ${e.counts.required})`,
    )
    .join('; ');
  const { patchConfigMapData } = await import('../kube/nodes.ts');
  const { HOTFIX_CONFIGMAP_PATH } = await import('../kube/client.ts');
  try {
    await patchConfigMapData(
      options.creds,
      HOTFIX_CONFIGMAP_PATH,
      { [EVIDENCE_KEY]: text },
      { userAgent: `aks-node-controller/${deps.version}` },
      versionOf(state.doc),
    );
    say(`evidence written for pointer serial ${serial}: ${opened}; expires ${evidence.expires}`);
  } catch (error) {
    say(
      conflict(error)
        ? 'evidence not written: the ConfigMap changed since it was read (compare-and-swap); it is computed again at the next poll'
        : `evidence not written: ${errorMessage(error)}`,
    );
  }
}
