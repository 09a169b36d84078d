// The pointer the cluster serves now (the anc-hotfix-version ConfigMap read through a kubeconfig): what
// publishing must not go behind. Its signed serial and payload digest are what the nodes that took it
// recorded; `hotfix pointer verify FILE --kubeconfig` and `render --kubeconfig` start from them.
import type { KubeTarget } from '../kube/kubeconfig-load.ts';
import type { Deps } from '../platform/deps.ts';
import { AgentError, errorMessage } from '../platform/errors.ts';
import { parseConfigMapText, POINTER_KEY, type ConfigMapDoc } from './configmap.ts';
import { parseEnvelope } from './dsse.ts';
import { payloadSha256 } from './gate.ts';
import { ENVELOPE_KEY } from './node-gate.ts';
import { parseSignedPointer, type SignedPointer } from './payload.ts';

export interface LivePointer {
  doc: ConfigMapDoc;
  /** The signed payload's serial and sha256; undefined for an unsigned pointer or an unreadable envelope. */
  signed?: { serial: number; payloadSha256: string };
  /** The highest serial in it: the signed one, else that of a rendered but unsigned payload copy. */
  serial?: number;
}

/** undefined when the cluster has no anc-hotfix-version ConfigMap yet (404). */
export async function readLivePointer(deps: Deps, target: KubeTarget): Promise<LivePointer | undefined> {
  const { operatorKubeconfig } = await import('../kube/kubeconfig-load.ts');
  const { apiGet, HOTFIX_CONFIGMAP_PATH } = await import('../kube/client.ts');
  const creds = await operatorKubeconfig(deps, target);
  let text: string;
  try {
    text = await apiGet(creds, HOTFIX_CONFIGMAP_PATH, {
      userAgent: `aks-node-controller/${deps.version}`,
    });
  } catch (error) {
    if (/returned status 404 /.test(errorMessage(error))) return undefined;
    throw error;
  }
  const doc = await parseConfigMapText(text, 'the cluster ConfigMap');
  const envelope = doc.data[ENVELOPE_KEY];
  if (envelope === undefined) return { doc, ...renderedSerial(doc) };
  try {
    // The signature is the nodes' business (they verified it before recording the serial); publishing
    // only needs to know which serial and bytes are out there.
    const payload = parseEnvelope(envelope).payload;
    const serial = parseSignedPointer(payload).serial;
    return { doc, signed: { serial, payloadSha256: payloadSha256(payload) }, serial };
  } catch {
    return { doc, ...renderedSerial(doc) };
  }
}

function renderedSerial(doc: ConfigMapDoc): { serial?: number } {
  const copy = doc.data[POINTER_KEY];
  if (copy === undefined) return {};
  try {
    return { serial: parseSignedPointer(Buffer.from(copy, 'utf8')).serial };
  } catch {
    return {};
  }
}

/** The live pointer's payload: the signed bytes of the envelope, else the rendered copy; undefined when neither reads. */
export function livePayload(doc: ConfigMapDoc): SignedPointer | undefined {
  const envelope = doc.data[ENVELOPE_KEY];
  try {
    if (envelope !== undefined) return parseSignedPointer(parseEnvelope(envelope).payload);
  } catch {
    // fall back to the copy
  }
  const copy = doc.data[POINTER_KEY];
  try {
    return copy === undefined ? undefined : parseSignedPointer(Buffer.from(copy, 'utf8'));
  } catch {
    return undefined;
  }
}

/** --serial as given, or with --kubeconfig the one after the live pointer's (said on stderr). */
export async function serialFor(
  options: { kubeconfig?: string; context?: string; serial?: string },
  deps: Deps,
): Promise<{ serial: string | undefined; note?: string; live?: LivePointer | undefined }> {
  if (options.kubeconfig === undefined && options.context === undefined) return { serial: options.serial };
  const live = await readLivePointer(deps, options);
  const current = live?.serial ?? 0;
  const where =
    live === undefined
      ? 'the cluster has no anc-hotfix-version ConfigMap yet'
      : live.serial === undefined
        ? "the cluster's pointer carries no serial"
        : `the cluster's pointer has serial ${current}`;
  if (options.serial === undefined) return { serial: String(current + 1), note: `serial ${current + 1}: ${where}`, live };
  if (/^\d+$/.test(options.serial) && Number(options.serial) <= current) {
    throw new AgentError(
      'ANC_USAGE',
      `--serial ${options.serial} is not higher than ${current}: ${where}; nodes that took it refuse this one`,
      {
        hint: `Use --serial ${current + 1} (or leave --serial out and the next one is proposed).`,
      },
    );
  }
  return { serial: options.serial, live };
}
