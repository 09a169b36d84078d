// The few kubeconfig fields check-hotfix reads (spec 6.6): the FIRST cluster (current-context and
// contexts are ignored, like the reference) and the first user. Operator commands select a context as
// kubectl does (kubeconfig-contexts.ts) and take the same fields from it. Pure: text in, fields out; credentials.ts
// loads the referenced files and decodes the inline *-data values.
import { AgentError, errorMessage } from '../platform/errors.ts';
import { goTrimSpace } from '../platform/go/strings.ts';
import { Secret } from '../platform/secret.ts';
import { stripScheme } from './address.ts';
import { parseYaml, type YamlValue } from './kubeconfig-yaml.ts';

export interface KubeconfigFields {
  /** `server` with the scheme and trailing slashes removed. */
  server: string;
  caData?: string;
  caFile?: string;
  token?: Secret;
  clientCertData?: string;
  clientCertFile?: string;
  /** Base64 of a private key: a secret (D14). */
  clientKeyData?: Secret;
  clientKeyFile?: string;
}

export type YamlMap = { [key: string]: YamlValue };

function kubeError(message: string): AgentError {
  return new AgentError('ANC_KUBE', message);
}

export function isMap(value: YamlValue | undefined): value is YamlMap {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** A trimmed string field; '' and null count as absent. Non-string values are a shape error. */
function text(map: YamlMap, key: string, where: string): string | undefined {
  const value = map[key];
  if (value === undefined || value === null) return undefined;
  if (typeof value !== 'string') throw kubeError(`parsing kubeconfig YAML: ${where}.${key} is not a string`);
  const trimmed = goTrimSpace(value);
  return trimmed === '' ? undefined : trimmed;
}

export function list(doc: YamlMap, key: string): YamlValue[] {
  const value = doc[key];
  if (value === undefined || value === null) return [];
  if (!Array.isArray(value)) throw kubeError(`parsing kubeconfig YAML: ${key} is not a list`);
  return value;
}

/** `entries[0][field]` as a mapping (an absent one is empty). */
function firstEntry(items: YamlValue[], field: string, where: string): YamlMap {
  const entry = items[0];
  if (!isMap(entry)) throw kubeError(`parsing kubeconfig YAML: ${where}[0] is not a mapping`);
  const inner = entry[field];
  if (inner === undefined || inner === null) return {};
  if (!isMap(inner)) throw kubeError(`parsing kubeconfig YAML: ${where}[0].${field} is not a mapping`);
  return inner;
}

export function parseKubeconfig(source: string): KubeconfigFields {
  const doc = parseKubeconfigDoc(source);
  const clusters = list(doc, 'clusters');
  if (clusters.length === 0) throw kubeError('kubeconfig has no clusters');
  const users = list(doc, 'users');
  return fieldsFrom(firstEntry(clusters, 'cluster', 'clusters'), users.length > 0 ? firstEntry(users, 'user', 'users') : undefined);
}

/** The document as a mapping (an empty file is an empty mapping); YAML errors name a line, never the text. */
export function parseKubeconfigDoc(source: string): YamlMap {
  let doc: YamlValue;
  try {
    doc = parseYaml(source);
  } catch (error) {
    throw kubeError(`parsing kubeconfig YAML: ${errorMessage(error)}`);
  }
  if (doc === null) doc = {};
  if (!isMap(doc)) throw kubeError('parsing kubeconfig YAML: the document is not a mapping');
  return doc;
}

/** The fields of one cluster entry and one user entry (either from any file of a merged kubeconfig). */
export function fieldsFrom(cluster: YamlMap, user: YamlMap | undefined): KubeconfigFields {
  const server = stripScheme(text(cluster, 'server', 'cluster') ?? '');
  if (server === '') throw kubeError('kubeconfig cluster has no server');
  const fields: KubeconfigFields = { server };
  assign(fields, 'caData', text(cluster, 'certificate-authority-data', 'cluster'));
  assign(fields, 'caFile', text(cluster, 'certificate-authority', 'cluster'));
  if (user !== undefined) {
    const token = text(user, 'token', 'user');
    if (token !== undefined) fields.token = new Secret(token);
    assign(fields, 'clientCertData', text(user, 'client-certificate-data', 'user'));
    assign(fields, 'clientCertFile', text(user, 'client-certificate', 'user'));
    const keyData = text(user, 'client-key-data', 'user');
    if (keyData !== undefined) fields.clientKeyData = new Secret(keyData);
    assign(fields, 'clientKeyFile', text(user, 'client-key', 'user'));
  }
  return fields;
}

function assign(
  fields: KubeconfigFields,
  key: 'caData' | 'caFile' | 'clientCertData' | 'clientCertFile' | 'clientKeyFile',
  value: string | undefined,
): void {
  if (value !== undefined) fields[key] = value;
}
