// check-hotfix's side of pointer signing: gathers what the decision needs on a node (the mode from
// enabled_features.sh via the launcher, the baked keys, the node's facts, its serial floor, the clock),
// decides with gate.ts, logs it, and after staging records the accepted serial.
//
// Serial floor on a node = max(the state file, the serial of the node's own custom-data pointer when that
// one verifies). A fresh node has no state file, so its floor is only what its custom data carried.
import { loadConfiguration } from '../config/load.ts';
import { readConfigurationFile, withoutBom } from '../config/read.ts';
import type { Deps } from '../platform/deps.ts';
import { errorMessage } from '../platform/errors.ts';
import { decidePointer, signingMode, type GateInput, type SigningMode, type Verdict } from './gate.ts';
import { bakedKeys, type TrustedKey } from './keys.ts';
import { nodeFacts, type NodeFacts } from './scope.ts';
import { readSerialState, recordSerial } from './serial-state.ts';

/** ConfigMap data key of the DSSE envelope, beside `hotfixes.json` (the unsigned copy for older agents). */
export const ENVELOPE_KEY = 'pointer.dsse.json';
/** Top-level node-config key of the cold-start envelope, beside `hotfixes`. */
export const NODE_CONFIG_ENVELOPE_KEY = 'hotfixPointerEnvelope';

export type GateDeps = Pick<Deps, 'fs' | 'paths' | 'log' | 'clock'>;

export interface NodeSigning {
  mode: SigningMode;
  keys: readonly TrustedKey[];
}

/** The mode from the environment (ANC_HOTFIX_POINTER_SIGNING) and the baked key set. */
export function nodeSigning(deps: Pick<Deps, 'log' | 'env'>): NodeSigning {
  const { mode, warning } = signingMode(deps.env.ANC_HOTFIX_POINTER_SIGNING);
  if (warning) deps.log.warn(warning);
  let keys: TrustedKey[] = [];
  try {
    keys = bakedKeys();
  } catch (error) {
    deps.log.error('baked pointer keys are unusable; no signature can verify', { error: errorMessage(error) });
  }
  return { mode, keys };
}

interface NodeConfigView {
  facts: NodeFacts;
  envelope?: unknown;
}

/** The node config as plain JSON for the cold-start envelope, and through the loader for the facts. */
function readNodeConfig(deps: GateDeps): NodeConfigView {
  let text: string;
  try {
    text = readConfigurationFile(deps.fs, deps.paths.nodeConfig);
  } catch {
    return { facts: {} };
  }
  const facts = nodeFacts(loadConfiguration(text).config);
  try {
    const doc = JSON.parse(withoutBom(text)) as Record<string, unknown> | null;
    const envelope = doc && typeof doc === 'object' ? doc[NODE_CONFIG_ENVELOPE_KEY] : undefined;
    return envelope === undefined || envelope === null ? { facts } : { facts, envelope };
  } catch {
    return { facts };
  }
}

export interface NodeVerdict {
  verdict: Verdict;
  /** Call after the pointer was staged: raises the serial floor for a signed pointer. */
  commit(): void;
}

export function gateOnNode(deps: GateDeps, signing: NodeSigning, input: GateInput, source: 'configMap' | 'customData'): NodeVerdict {
  const started = performance.now();
  const node = readNodeConfig(deps);
  const state = readSerialState(deps);
  let minSerial = state?.serial ?? 0;
  let floorPayloadSha256 = state?.payloadSha256;
  if (source === 'configMap' && input.envelope !== undefined && node.envelope !== undefined) {
    // The node's own custom data counts as accepted (only when it verifies): a fresh node's floor.
    const own = decidePointer(
      { envelope: node.envelope },
      { mode: 'enforce', keys: signing.keys, facts: undefined, minSerial: 0, now: new Date(0) },
    );
    // Only a recorded acceptance carries a digest; a floor raised by the custom data checks the serial only.
    if (own.accepted && own.signed && own.pointer.serial > minSerial) {
      minSerial = own.pointer.serial;
      floorPayloadSha256 = undefined;
    }
  }
  const verdict = decidePointer(input, {
    mode: signing.mode,
    keys: signing.keys,
    facts: node.facts,
    minSerial,
    ...(floorPayloadSha256 === undefined ? {} : { floorPayloadSha256 }),
    now: deps.clock.now(),
  });
  // The whole gate (state file, node config, envelope, Ed25519, payload checks), for bench/check-hotfix.mjs.
  const gateMs = Math.round((performance.now() - started) * 100) / 100;
  logVerdict(deps, verdict, signing.mode, source, gateMs);
  return {
    verdict,
    commit() {
      if (!verdict.accepted || !verdict.signed) return;
      try {
        recordSerial(deps, {
          serial: verdict.pointer.serial,
          keyid: verdict.keyid,
          acceptedAt: deps.clock.now().toISOString(),
          payloadSha256: verdict.payloadSha256,
        });
      } catch (error) {
        deps.log.warn('could not record the accepted pointer serial (anti-rollback floor unchanged)', { error: errorMessage(error) });
      }
    },
  };
}

function logVerdict(deps: GateDeps, verdict: Verdict, mode: SigningMode, source: string, gateMs: number): void {
  if (!verdict.accepted) {
    deps.log.warn(`hotfix pointer rejected: outcome=${verdict.outcome}; nothing staged`, {
      outcome: verdict.outcome,
      reason: verdict.reason,
      source,
      mode,
      gateMs,
      ...(verdict.keyid ? { keyid: verdict.keyid } : {}),
    });
  } else if (verdict.signed) {
    deps.log.info('hotfix pointer signature verified', {
      source,
      keyid: verdict.keyid,
      serial: verdict.pointer.serial,
      expires: verdict.pointer.expires,
      gateMs,
    });
  } else {
    deps.log.info('hotfix pointer is unsigned; accepted in mode unsigned-allowed', { source, mode, gateMs });
  }
}
