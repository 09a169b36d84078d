// The script payload embedded by `build.mjs --scripts DIR` (a define holding the normalized JSON text;
// a build without --scripts has none and stays byte-identical). Decoded and checked on first use only.
import { AgentError } from '../../platform/errors.ts';
import { sha256Hex } from '../../platform/hash.ts';
import { embeddedPayloadProblems, type ScriptPayload, SCRIPT_PLATFORMS } from './format.ts';

declare const __ANC_SCRIPT_PAYLOAD__: string | undefined;

export interface EmbeddedPayload {
  payload: ScriptPayload;
  /** sha256 of the embedded JSON text: names the payload in the record, events and `version -o json`. */
  digest: string;
}

/** The embedded JSON text, or undefined for a build without --scripts. */
export function embeddedPayloadText(): string | undefined {
  return typeof __ANC_SCRIPT_PAYLOAD__ === 'string' ? __ANC_SCRIPT_PAYLOAD__ : undefined;
}

/** Decodes and checks a payload text with the build's own rules; an AgentError lists every problem. */
export function decodePayload(text: string): EmbeddedPayload {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    throw new AgentError('ANC_SCRIPT_HOTFIX', `embedded script payload is not JSON: ${(error as Error).message}`);
  }
  const problems = embeddedPayloadProblems(value, sha256Hex);
  if (problems.length > 0) throw new AgentError('ANC_SCRIPT_HOTFIX', `embedded script payload refused: ${problems.join('; ')}`);
  return { payload: value as ScriptPayload, digest: sha256Hex(text) };
}

export function embeddedPayload(text = embeddedPayloadText()): EmbeddedPayload | undefined {
  return text === undefined ? undefined : decodePayload(text);
}

/**
 * What `version -o json` lists: label, platforms, entry count, digest (null without a payload), and each
 * entry's pin: the bytes it replaces (null: built without image manifests, replace-only), the images it
 * was checked against and the platforms left unchecked.
 */
export function describePayload(embedded: EmbeddedPayload | undefined) {
  if (!embedded) return null;
  const { payload, digest } = embedded;
  const platforms = SCRIPT_PLATFORMS.filter((p) => payload.entries.some((e) => e.platforms.includes(p)));
  return {
    label: payload.label,
    platforms,
    entries: payload.entries.length,
    digest: `sha256:${digest}`,
    pins: payload.entries.map((e) => ({
      destination: e.destination,
      platforms: e.platforms,
      mode: e.mode,
      sha256: e.sha256,
      replaces: e.replaces ?? null,
    })),
    checkedAgainst: payload.images ?? [],
    uncheckedPlatforms: payload.images ? (payload.uncheckedPlatforms ?? []) : platforms,
  };
}

/** describePayload of this executable's own payload; a payload that fails its checks says why. */
export function describeEmbedded(): ReturnType<typeof describePayload> | { error: string } {
  try {
    return describePayload(embeddedPayload());
  } catch (error) {
    return { error: (error as Error).message };
  }
}
