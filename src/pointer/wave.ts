// Staged hotfix waves (docs/hotfix.md "waves"): a node takes its base's hotfix only when its seed, derived
// from the VM identity (SMBIOS product UUID) and the wave's salt, falls under percent/100. No clock, no
// randomness: the same node, salt and percent always decide the same way, raising the percent only adds
// nodes (the seed does not move) and a new salt reshuffles them.
import { sha256Hex } from '../platform/hash.ts';
import { errorMessage } from '../platform/errors.ts';
import type { FileSystem } from '../platform/fs.ts';
import type { RolloutEntry } from './document.ts';
import { joinStep, nextStep, openPercent, percentAt } from './schedule.ts';

export interface WaveDecision {
  /** The wave's share of nodes, 0..100 (100 when the pointer has no entry for the base). */
  percent: number;
  salt: string;
  /** The node's position in [0, 1) for this salt; null when the identity is missing or unusable. */
  seed: number | null;
  /** percent / 100: the node is in the wave when seed < cutoff (always at 100). */
  cutoff: number;
  inWave: boolean;
  /** `full` (100%: every node), `inWave`, `notInWave`. */
  reason: 'full' | 'inWave' | 'notInWave';
  /** With a schedule: when this node joins (null: never, or no usable identity) and the next step's time. */
  joinsAt?: string | null;
  nextStepAt?: string | null;
  /** A gated step's time came and no fresh evidence opens it: which (1-based), its percent, since when, why. */
  awaitingEvidence?: { step: number; percent: number; since: string; problem: string; clockPercent: number };
}

/** Product UUID as compared: trimmed, lowercase, 8-4-4-4-12 hex; unset (all 0 / all f) counts as missing. */
export function normaliseProductUuid(text: string | undefined): string | undefined {
  const uuid = (text ?? '').trim().toLowerCase();
  if (!/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/.test(uuid)) return undefined;
  if (/^[0-]+$/.test(uuid) || /^[f-]+$/.test(uuid)) return undefined;
  return uuid;
}

/** The first 53 bits of sha256(salt + ":" + uuid) as a fraction in [0, 1) (exact in a double). */
export function waveSeed(uuid: string, salt: string): number {
  const digest = Buffer.from(sha256Hex(`${salt}:${uuid}`), 'hex');
  return Number(digest.readBigUInt64BE(0) >> 11n) / 2 ** 53;
}

/**
 * The wave decision for one base's entry (undefined = no entry = 100%) and a normalised identity. With a
 * schedule, the percent is the one in force at `now` (the node's clock; schedule.ts).
 */
export function decideWave(
  entry: RolloutEntry | undefined,
  uuid: string | undefined,
  now: Date = new Date(0),
  /** The gated step the node's fresh evidence opens (evidence.ts), and why none when 0. */
  evidence: { opened: number; problem?: string } = { opened: 0, problem: 'no evidence is staged' },
): WaveDecision {
  const schedule = entry?.schedule;
  const gated = schedule?.some((s) => s.gated) ? openPercent(schedule, now, evidence.opened) : undefined;
  const percent = gated ? gated.percent : schedule ? percentAt(schedule, now) : (entry?.percent ?? 100);
  const waiting = gated?.awaiting === undefined ? undefined : schedule![gated.awaiting]!;
  const awaitingEvidence = waiting && {
    awaitingEvidence: {
      step: gated!.awaiting! + 1,
      percent: waiting.percent,
      since: waiting.at,
      problem: evidence.problem ?? `the evidence opens steps up to ${evidence.opened} only`,
      // What the clock alone would open: a node under it waits for evidence, not for its wave.
      clockPercent: percentAt(schedule!, now),
    },
  };
  const salt = entry?.salt ?? '';
  const seed = uuid === undefined ? null : waveSeed(uuid, salt);
  const cutoff = percent / 100;
  const timing = schedule ? { joinsAt: joinStep(schedule, seed)?.at ?? null, nextStepAt: nextStep(schedule, now)?.at ?? null } : {};
  if (percent >= 100) return { percent, salt, seed, cutoff, inWave: true, reason: 'full', ...timing };
  const inWave = seed !== null && seed < cutoff;
  return { percent, salt, seed, cutoff, inWave, reason: inWave ? 'inWave' : 'notInWave', ...timing, ...awaitingEvidence };
}

/** Reads the node identity; a missing or unreadable file is not an error (fail-safe: outside partial waves). */
export function readProductUuid(fs: FileSystem, path: string): { uuid?: string; problem?: string } {
  let text: string;
  try {
    text = fs.readText(path, 'state');
  } catch (error) {
    const code = (error as { code?: unknown } | null)?.code;
    return { problem: `reading ${path}: ${typeof code === 'string' ? code : errorMessage(error)}` };
  }
  const uuid = normaliseProductUuid(text);
  return uuid === undefined ? { problem: `${path} does not hold a usable product UUID` } : { uuid };
}
