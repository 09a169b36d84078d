// `hotfix pointer verify`: the node's exact decision (gate.ts, and check.ts's own ConfigMap parsing for
// an unsigned pointer) on a ConfigMap from a file or a cluster, as a report for people or machines.
import { loadConfiguration } from '../config/load.ts';
import { AgentError, errorMessage } from '../platform/errors.ts';
import { parseConfigMapPointer } from './configmap-body.ts';
import { POINTER_KEY, type ConfigMapDoc } from './configmap.ts';
import { decidePointer, type GateContext, type Rejection } from './gate.ts';
import { ENVELOPE_KEY } from './node-gate.ts';
import { describeScope, nodeFacts, type NodeFacts } from './scope.ts';
import { type RolloutWave, SCOPE_KEYS, type ScopeKey } from './payload.ts';
import { scheduleJson } from './schedule.ts';

export interface VerifyReport {
  accepted: boolean;
  outcome: 'accepted' | Exclude<Rejection, 'invalidPayload'> | 'failed';
  reason?: string;
  mode: GateContext['mode'];
  signed: boolean;
  keyid?: string;
  serial?: number;
  minSerial: number;
  expires?: string;
  scope?: Record<string, string[]>;
  /** False when no node facts were given: the scope was shown, not matched. */
  scopeChecked: boolean;
  hotfixes?: Record<string, string>;
  rollout?: Record<string, { percent: number; salt: string; schedule?: Array<{ at: string; percent: number }> }>;
  recall?: string[];
  warnings: string[];
  /** Which key set the signature was checked against (this binary's baked keys, or --keys FILE). */
  keySet?: string;
  /** A remedy that replaces the outcome's usual one (an empty key set: the binary, not the signature). */
  hint?: string;
}

/** Node facts from `--node-config FILE` text and/or `--node KEY=VALUE` flags; undefined when neither. */
export function factsFromFlags(nodeConfigText: string | undefined, pairs: readonly string[]): NodeFacts | undefined {
  if (nodeConfigText === undefined && pairs.length === 0) return undefined;
  const facts: NodeFacts = nodeConfigText === undefined ? {} : nodeFacts(loadConfiguration(nodeConfigText).config);
  for (const pair of pairs) {
    const at = pair.indexOf('=');
    const key = pair.slice(0, at);
    if (at < 1 || !(SCOPE_KEYS as readonly string[]).includes(key)) {
      throw new AgentError('ANC_USAGE', `--node ${JSON.stringify(pair)}: expected KEY=VALUE with KEY one of ${SCOPE_KEYS.join(', ')}`);
    }
    facts[key as ScopeKey] = pair.slice(at + 1);
  }
  return facts;
}

const ORDER = [
  'accepted',
  'outcome',
  'reason',
  'signed',
  'keyid',
  'serial',
  'minSerial',
  'expires',
  'scope',
  'scopeChecked',
  'hotfixes',
  'rollout',
  'recall',
  'mode',
  'keySet',
  'warnings',
  'hint',
] as const;

/** The verdict first, whatever order the fields were gathered in (JSON and YAML read top-down). */
export function verifyConfigMap(doc: ConfigMapDoc, context: GateContext): VerifyReport {
  const report = verifyUnordered(doc, context) as unknown as Record<string, unknown>;
  return Object.fromEntries(ORDER.filter((k) => report[k] !== undefined).map((k) => [k, report[k]])) as unknown as VerifyReport;
}

function verifyUnordered(doc: ConfigMapDoc, context: GateContext): VerifyReport {
  const base = { mode: context.mode, minSerial: context.minSerial, scopeChecked: context.facts !== undefined, warnings: [] as string[] };
  const envelope = doc.data[ENVELOPE_KEY];
  if (envelope === undefined) {
    try {
      parseConfigMapPointer(JSON.stringify(doc));
    } catch (error) {
      return { ...base, accepted: false, outcome: 'failed', reason: errorMessage(error), signed: false };
    }
  }
  const verdict = decidePointer(envelope === undefined ? {} : { envelope }, context);
  if (!verdict.accepted) {
    const p = verdict.pointer;
    const outcome = verdict.outcome === 'invalidPayload' ? ('failed' as const) : verdict.outcome;
    return {
      ...base,
      accepted: false,
      outcome,
      reason: verdict.reason,
      signed: envelope !== undefined,
      ...(verdict.keyid ? { keyid: verdict.keyid } : {}),
      ...(p ? details(p) : {}),
    };
  }
  if (!verdict.signed) {
    return {
      ...base,
      accepted: true,
      outcome: 'accepted',
      reason: 'unsigned pointer, allowed by mode unsigned-allowed',
      signed: false,
      warnings: ['unsigned: nodes in mode enforce refuse this pointer'],
    };
  }
  const warnings: string[] = [];
  if (!verdict.scopeChecked && Object.keys(verdict.pointer.scope).length > 0)
    warnings.push('scope not checked: pass --node-config FILE or --node KEY=VALUE to match it against a node');
  const copy = doc.data[POINTER_KEY];
  if (copy !== undefined && copy !== verdict.text)
    warnings.push(`data.${POINTER_KEY} differs from the signed payload: agents older than pointer signing read the unsigned copy`);
  return { ...base, accepted: true, outcome: 'accepted', signed: true, keyid: verdict.keyid, ...details(verdict.pointer), warnings };
}

function details(p: {
  serial: number;
  expires: string;
  scope: Record<string, string[]>;
  hotfixes: Record<string, string>;
  rollout?: Record<string, RolloutWave>;
  recall?: string[];
}) {
  // A schedule as signed ({at, percent}), not as parsed.
  const rollout = p.rollout
    ? Object.fromEntries(
        Object.entries(p.rollout).map(([b, w]) => [
          b,
          { percent: w.percent, salt: w.salt, ...(w.schedule ? { schedule: scheduleJson(w.schedule) } : {}) },
        ]),
      )
    : undefined;
  return {
    serial: p.serial,
    expires: p.expires,
    scope: p.scope,
    hotfixes: p.hotfixes,
    ...(rollout ? { rollout } : {}),
    ...(p.recall ? { recall: p.recall } : {}),
  };
}

const HINTS: Record<VerifyReport['outcome'], string> = {
  accepted: '',
  unsigned: 'sign it: aks-node-controller hotfix pointer sign --key KEY.pem --key-id ID FILE',
  signatureInvalid:
    'sign the ConfigMap again with a key the nodes trust (version -o json lists pointerKeyIds); never edit a signed ConfigMap by hand',
  expired: 'render it again with a later --expires and a higher --serial, sign and publish',
  rolledBack: 'render it again with a --serial higher than every serial published before',
  outOfScope: 'render it with a --scope that covers these nodes (or none, for every node)',
  failed: 'render it with `hotfix pointer render` and sign it again',
};

/** One base's wave for people: each step `percent @ time` in order, which is in force at `now`, the salt apart. */
function waveText(
  base: string,
  w: { percent: number; salt: string; schedule?: Array<{ at: string; percent: number }> },
  now?: Date,
): string {
  const salt = `; salt ${JSON.stringify(w.salt)}`;
  if (!w.schedule) return `${base}: ${w.percent}%${salt}`;
  const t = now?.getTime();
  const current = t === undefined ? -2 : w.schedule.findLastIndex((s) => Date.parse(s.at) <= t);
  const steps = w.schedule.map((s, i) => `${s.percent}% @ ${s.at}${i === current ? ' (in force now)' : ''}`).join(', ');
  return `${base}: ${steps}${current === -1 ? ` (none in force yet: 0% until ${w.schedule[0]!.at})` : ''}${salt}`;
}

export function verifyText(report: VerifyReport, now?: Date): string {
  const lines: string[] = [];
  if (report.accepted)
    lines.push(`accepted: outcome=accepted${report.signed ? ` (signed by key ${report.keyid}, serial ${report.serial})` : ' (unsigned)'}`);
  else lines.push(`rejected: outcome=${report.outcome}`, `reason: ${report.reason}`);
  lines.push(`mode: ${report.mode}; serial floor: ${report.minSerial}`);
  if (report.keySet) lines.push(`keys: ${report.keySet}`);
  if (report.expires) lines.push(`expires: ${report.expires}`);
  if (report.scope) lines.push(`scope: ${describeScope(report.scope)}${report.scopeChecked ? '' : ' (not matched against a node)'}`);
  if (report.hotfixes)
    lines.push(
      `hotfixes: ${
        Object.entries(report.hotfixes)
          .map(([b, v]) => `${b}=${v}`)
          .join(' ') || '(none)'
      }`,
    );
  if (report.rollout) lines.push(...Object.entries(report.rollout).map(([b, w]) => `rollout: ${waveText(b, w, now)}`));
  if (report.recall) lines.push(`recall: ${report.recall.join(' ')} (nodes that staged these return to the baked agent)`);
  for (const w of report.warnings) lines.push(`warning: ${w}`);
  if (!report.accepted || report.hint) lines.push(`hint: ${report.hint ?? HINTS[report.outcome]}`);
  return `${lines.join('\n')}\n`;
}
