// Rollout control (D12), the library entry a TypeScript control plane imports (bundled by
// scripts/build-lib.mjs to dist/lib/rollout.mjs) and the logic behind `config hash` / `config diff`.
//
// Model: the ROLLOUT hash covers what the customer asked for (fields classified `rollout` in
// classification.ts); the PAYLOAD hash covers everything the node receives. Both are sha256 of canonical
// JSON (canonical.ts). A change of the rollout hash rolls nodes; a change of the payload hash alone is
// management drift: new nodes get the new payload, existing nodes stay, and the control plane raises
// ConfigUpdatePending / ManagementConfigDrift. Pure: no I/O, no node: imports (sha256 is built in).
import { canonicalConfiguration, canonicalMessageJson, fieldKey, PRESENCE_SIGNIFICANT } from './canonical.ts';
import { FIELD_CLASSES, fieldClass } from './classification.ts';
import type { FieldClass } from './classification.ts';
import { MESSAGES } from './types.ts';
import type { Configuration, FieldInfo, MessageName } from './types.ts';

export { canonicalConfiguration, canonicalJson } from './canonical.ts';
export { FIELD_CLASSES } from './classification.ts';
/** The tolerant parser (D7) every consumer should use to turn JSON text into a Configuration. */
export { loadConfiguration } from './load.ts';
export type { ConfigIssue, LoadResult } from './load.ts';
export type { FieldClass } from './classification.ts';
export type { Configuration } from './types.ts';

type Obj = Record<string, unknown>;

export type RolloutDecision = 'rollout' | 'management-drift' | 'none';

export interface ConfigHashes {
  /** sha256 (hex) of the canonical rollout subset: customer intent only. */
  rolloutHash: string;
  /** sha256 (hex) of the whole canonical configuration: everything the node receives. */
  payloadHash: string;
}

export interface RolloutCondition {
  type: 'ConfigUpdatePending';
  reason: 'ManagementConfigDrift';
}

export interface ConfigDiff {
  decision: RolloutDecision;
  /** Changed customer-intent paths (json names, map keys as `["key"]`), sorted. Never values. */
  rolloutFields: string[];
  /** Changed platform-managed paths, sorted. Never values (tokens rotate here). */
  payloadFields: string[];
  /** Present only for `management-drift`. */
  condition?: RolloutCondition;
}

// ---- sha256 (FIPS 180-4), small and dependency-free so the library runs on any JS platform ----------
const K = Uint32Array.from(
  '428a2f98 71374491 b5c0fbcf e9b5dba5 3956c25b 59f111f1 923f82a4 ab1c5ed5 d807aa98 12835b01 243185be 550c7dc3 72be5d74 80deb1fe 9bdc06a7 c19bf174 e49b69c1 efbe4786 0fc19dc6 240ca1cc 2de92c6f 4a7484aa 5cb0a9dc 76f988da 983e5152 a831c66d b00327c8 bf597fc7 c6e00bf3 d5a79147 06ca6351 14292967 27b70a85 2e1b2138 4d2c6dfc 53380d13 650a7354 766a0abb 81c2c92e 92722c85 a2bfe8a1 a81a664b c24b8b70 c76c51a3 d192e819 d6990624 f40e3585 106aa070 19a4c116 1e376c08 2748774c 34b0bcb5 391c0cb3 4ed8aa4a 5b9cca4f 682e6ff3 748f82ee 78a5636f 84c87814 8cc70208 90befffa a4506ceb bef9a3f7 c67178f2'
    .split(' ')
    .map((h) => parseInt(h, 16)),
);

/** sha256 of a string's UTF-8 bytes, lowercase hex. */
export function sha256Hex(text: string): string {
  const bytes = new TextEncoder().encode(text);
  const padded = new Uint8Array(Math.ceil((bytes.length + 9) / 64) * 64);
  padded.set(bytes);
  padded[bytes.length] = 0x80;
  const view = new DataView(padded.buffer);
  view.setUint32(padded.length - 8, Math.floor(bytes.length / 0x20000000));
  view.setUint32(padded.length - 4, (bytes.length * 8) >>> 0);
  const h = Uint32Array.from([0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a, 0x510e527f, 0x9b05688c, 0x1f83d9ab, 0x5be0cd19]);
  const w = new Uint32Array(64);
  const rotr = (x: number, n: number) => (x >>> n) | (x << (32 - n));
  for (let off = 0; off < padded.length; off += 64) {
    for (let i = 0; i < 16; i++) w[i] = view.getUint32(off + i * 4);
    for (let i = 16; i < 64; i++) {
      const a = w[i - 15]!,
        b = w[i - 2]!;
      const s0 = rotr(a, 7) ^ rotr(a, 18) ^ (a >>> 3);
      const s1 = rotr(b, 17) ^ rotr(b, 19) ^ (b >>> 10);
      w[i] = (w[i - 16]! + s0 + w[i - 7]! + s1) >>> 0;
    }
    let a = h[0]!,
      b = h[1]!,
      c = h[2]!,
      d = h[3]!,
      e = h[4]!,
      f = h[5]!,
      g = h[6]!,
      k = h[7]!;
    for (let i = 0; i < 64; i++) {
      const t1 = (k + (rotr(e, 6) ^ rotr(e, 11) ^ rotr(e, 25)) + ((e & f) ^ (~e & g)) + K[i]! + w[i]!) >>> 0;
      const t2 = ((rotr(a, 2) ^ rotr(a, 13) ^ rotr(a, 22)) + ((a & b) ^ (a & c) ^ (b & c))) >>> 0;
      k = g;
      g = f;
      f = e;
      e = (d + t1) >>> 0;
      d = c;
      c = b;
      b = a;
      a = (t1 + t2) >>> 0;
    }
    [a, b, c, d, e, f, g, k].forEach((v, i) => (h[i] = (h[i]! + v) >>> 0));
  }
  return [...h].map((v) => v.toString(16).padStart(8, '0')).join('');
}

// ---- projection onto one class ----------------------------------------------------------------------
/** The canonical message restricted to fields of `cls`. Containers without presence meaning vanish when
 *  nothing of `cls` is left in them; presence-significant ones and map-of-message entries stay. */
function project(message: MessageName, obj: Obj, cls: FieldClass): Obj {
  const out: Obj = {};
  for (const field of MESSAGES[message].fields) {
    const v = obj[field.json];
    if (v === undefined) continue;
    const key = fieldKey(message, field);
    const mine = fieldClass(key) === cls;
    if (field.repeated) {
      // A repeated message (KubeletTaint) goes whole, like a repeated scalar: its row decides.
      if (mine) out[field.json] = v;
    } else if (field.message) {
      if (PRESENCE_SIGNIFICANT.has(key) && !mine) continue;
      const sub = project(field.message, v as Obj, cls);
      if (Object.keys(sub).length > 0 || PRESENCE_SIGNIFICANT.has(key)) out[field.json] = sub;
    } else if (field.mapValueMessage) {
      if (!mine) continue;
      const m: Obj = {};
      for (const [k, ev] of Object.entries(v as Obj)) m[k] = project(field.mapValueMessage, ev as Obj, cls);
      out[field.json] = m;
    } else if (mine) out[field.json] = v;
  }
  return out;
}

function hashesOfCanonical(canonical: Obj): ConfigHashes {
  return {
    rolloutHash: sha256Hex(canonicalMessageJson('Configuration', project('Configuration', canonical, 'rollout'))),
    payloadHash: sha256Hex(canonicalMessageJson('Configuration', canonical)),
  };
}

/** Both hashes of a configuration (a `Configuration` as returned by `loadConfiguration`). */
export function configHashes(config: Configuration): ConfigHashes {
  return hashesOfCanonical(canonicalConfiguration(config) as Obj);
}

/** sha256 hex over the customer-intent subset. Equal hashes: no node needs to be rolled. */
export function rolloutHash(config: Configuration): string {
  return configHashes(config).rolloutHash;
}

/** sha256 hex over everything the node receives. Equal hashes: new nodes would get identical bytes. */
export function payloadHash(config: Configuration): string {
  return configHashes(config).payloadHash;
}

// ---- diff -------------------------------------------------------------------------------------------
interface Change {
  path: string;
  key: string;
}

const entryPath = (path: string, k: string) => `${path}[${JSON.stringify(k)}]`;
const same = (a: unknown, b: unknown) => Object.is(a, b) || JSON.stringify(a) === JSON.stringify(b);

function diffMessage(message: MessageName, a: Obj, b: Obj, prefix: string, out: Change[]): void {
  for (const field of MESSAGES[message].fields) {
    const va = a[field.json];
    const vb = b[field.json];
    if (va === undefined && vb === undefined) continue;
    const key = fieldKey(message, field);
    const path = prefix ? `${prefix}.${field.json}` : field.json;
    if (field.message && !field.repeated) {
      if (PRESENCE_SIGNIFICANT.has(key) && (va === undefined) !== (vb === undefined)) out.push({ path, key });
      diffMessage(field.message, (va ?? {}) as Obj, (vb ?? {}) as Obj, path, out);
    } else if (field.map) {
      const ma = (va ?? {}) as Obj;
      const mb = (vb ?? {}) as Obj;
      for (const k of new Set([...Object.keys(ma), ...Object.keys(mb)])) {
        const ea = ma[k];
        const eb = mb[k];
        if (!field.mapValueMessage) {
          if (!same(ea, eb)) out.push({ path: entryPath(path, k), key });
          continue;
        }
        if ((ea === undefined) !== (eb === undefined)) out.push({ path: entryPath(path, k), key });
        diffMessage(field.mapValueMessage, (ea ?? {}) as Obj, (eb ?? {}) as Obj, entryPath(path, k), out);
      }
    } else if (!same(va, vb)) out.push({ path, key });
  }
}

/**
 * Classifies the change from `before` to `after`: `rollout` when the rollout hash differs (the changed
 * customer-intent paths are listed), `management-drift` when only the payload hash differs (carries the
 * ConfigUpdatePending / ManagementConfigDrift condition), `none` when the payloads are identical.
 */
export function diffConfigurations(before: Configuration, after: Configuration): ConfigDiff {
  const ca = canonicalConfiguration(before) as Obj;
  const cb = canonicalConfiguration(after) as Obj;
  const ha = hashesOfCanonical(ca);
  const hb = hashesOfCanonical(cb);
  const changes: Change[] = [];
  diffMessage('Configuration', ca, cb, '', changes);
  const pick = (cls: FieldClass) => [...new Set(changes.filter((c) => fieldClass(c.key) === cls).map((c) => c.path))].sort();
  const decision: RolloutDecision =
    ha.rolloutHash !== hb.rolloutHash ? 'rollout' : ha.payloadHash !== hb.payloadHash ? 'management-drift' : 'none';
  const result: ConfigDiff = { decision, rolloutFields: pick('rollout'), payloadFields: pick('payload-only') };
  if (decision === 'management-drift') result.condition = { type: 'ConfigUpdatePending', reason: 'ManagementConfigDrift' };
  return result;
}

// ---- classifyField ----------------------------------------------------------------------------------
/**
 * Class of a field given either as a table key (`KubeletConfig.kubelet_flags`) or as a path from the
 * root in json or proto spelling (`kubeletConfig.kubeletFlags`, `$.kubelet_config.kubelet_flags`,
 * `localDnsProfile.vnetDnsOverrides["."].queryLogging`, `...vnetDnsOverrides.*.queryLogging`).
 * Returns undefined for a path that names no catalogue field.
 */
export function classifyField(path: string): FieldClass | undefined {
  if (Object.hasOwn(FIELD_CLASSES, path)) return fieldClass(path);
  const segments = path
    .replace(/^\$\.?/, '')
    .replace(/\[(?:"(?:[^"\\]|\\.)*"|\d+)\]/g, '.*')
    .split('.');
  let message: MessageName | undefined = 'Configuration';
  let found: FieldClass | undefined;
  for (let i = 0; i < segments.length; i++) {
    const seg = segments[i]!;
    if (!message) return seg === '*' && i === segments.length - 1 ? found : undefined;
    const field: FieldInfo | undefined = MESSAGES[message].fields.find((f) => f.json === seg || f.proto === seg);
    if (!field) return undefined;
    found = fieldClass(fieldKey(message, field));
    message = field.message;
    if (field.repeated && segments[i + 1] === '*') i++;
    if (field.map) {
      if (segments[i + 1] === '*') i++;
      message = field.mapValueMessage;
    }
  }
  return found;
}
