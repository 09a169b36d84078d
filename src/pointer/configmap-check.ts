// A ConfigMap file (what `hotfix pointer render`/`sign` print, YAML or JSON) read the way check-hotfix
// reads the served one: the signature gate with this binary's keys and the node's signing mode, then the
// pointer a node would stage (the signed bytes, or the unsigned map). A refused pointer stages nothing,
// so a node then decides against no pointer. `hotfix explain --pointer CONFIGMAP` decides on the result.
import type { Deps } from '../platform/deps.ts';
import { errorMessage } from '../platform/errors.ts';
import { parseConfigMapPointer } from './configmap-body.ts';
import { emptyPointer, parsePointer, type HotfixPointer } from './document.ts';
import { parseConfigMapText } from './configmap.ts';
import { decidePointer, type SigningMode } from './gate.ts';
import type { WaveContext } from './eligibility.ts';
import { acceptEvidence, EVIDENCE_KEY } from './evidence.ts';
import { ENVELOPE_KEY, nodeSigning } from './node-gate.ts';

export interface ConfigMapGate {
  file: string;
  /** Whether a node would stage it (scope is not matched: no node facts off the node). */
  accepted: boolean;
  /** `accepted`, or check-hotfix's outcome for the refusal (unsigned, signatureInvalid, expired, ...). */
  outcome: string;
  reason?: string;
  signed: boolean;
  serial?: number;
  mode: string;
}

/** Whether a file's text is a ConfigMap document rather than a pointer file. */
export function isConfigMapText(text: string): boolean {
  return /(^|\n)\s*kind\s*:\s*["']?ConfigMap\b/.test(text) || /"kind"\s*:\s*"ConfigMap"/.test(text);
}

export async function pointerFromConfigMap(
  deps: Pick<Deps, 'log' | 'env' | 'clock'>,
  text: string,
  file: string,
  /** `hotfix explain --mode`: the fleet's mode instead of this machine's. */
  mode?: SigningMode,
): Promise<{ pointer: HotfixPointer; gate: ConfigMapGate; wave?: Pick<WaveContext, 'evidence'> }> {
  const doc = await parseConfigMapText(text, file);
  const signing = { ...nodeSigning(deps), ...(mode ? { mode } : {}) };
  const envelope = doc.data[ENVELOPE_KEY];
  const verdict = decidePointer(envelope === undefined ? {} : { envelope }, {
    mode: signing.mode,
    keys: signing.keys,
    facts: undefined,
    minSerial: 0,
    now: deps.clock.now(),
  });
  const gate = { file, signed: envelope !== undefined, mode: signing.mode };
  if (!verdict.accepted) {
    const outcome = verdict.outcome === 'invalidPayload' ? 'failed' : verdict.outcome;
    const serial = verdict.pointer ? { serial: verdict.pointer.serial } : {};
    return { pointer: emptyPointer(), gate: { ...gate, accepted: false, outcome, reason: verdict.reason, ...serial } };
  }
  try {
    const pointer = verdict.signed ? parsePointer(verdict.text, 'signed pointer') : parseConfigMapPointer(JSON.stringify(doc));
    // The ConfigMap's evidence as check-hotfix would stage it: gated steps open with it, as on a node.
    const served = doc.data[EVIDENCE_KEY];
    const accepted =
      served === undefined
        ? undefined
        : acceptEvidence(served, signing.keys, verdict.signed ? verdict.pointer.serial : null, deps.clock.now());
    const evidence = (base: string) =>
      accepted === undefined
        ? { opened: 0, problem: 'the ConfigMap holds no evidence' }
        : 'refused' in accepted
          ? { opened: 0, problem: `its evidence is refused: ${accepted.refused}` }
          : Object.hasOwn(accepted.evidence.bases, base)
            ? { opened: accepted.evidence.bases[base]!.step }
            : { opened: 0, problem: `its evidence names no step of base ${base}` };
    return {
      pointer,
      gate: { ...gate, accepted: true, outcome: 'accepted', ...(verdict.signed ? { serial: verdict.pointer.serial } : {}) },
      wave: { evidence },
    };
  } catch (error) {
    // check-hotfix: a ConfigMap it cannot parse is outcome `failed`, nothing staged.
    return { pointer: emptyPointer(), gate: { ...gate, accepted: false, outcome: 'failed', reason: errorMessage(error) } };
  }
}
