// The operator commands' kubeconfig, as kubectl reads it: several files (--kubeconfig, or every file of
// $KUBECONFIG, or ~/.kube/config) merged with client-go's rules, then ONE context (--context, else
// current-context) naming a cluster and a user. Merge rules: clusters, users and contexts are maps by
// name, and the first file that defines a name wins (entries are never merged field by field); the first
// file that sets current-context wins. A relative certificate or key path is taken from the directory of
// the file that defined its entry. Pure: texts in, fields out; kubeconfig-load.ts reads the files.
import { AgentError } from '../platform/errors.ts';
import { fieldsFrom, isMap, list, parseKubeconfigDoc, type KubeconfigFields, type YamlMap } from './kubeconfig.ts';

export interface KubeconfigText {
  /** The file's path as the operator named it (messages) and as a directory for relative paths. */
  path: string;
  text: string;
}

export interface SelectedContext {
  context: string;
  cluster: string;
  user: string;
  /** The file the context came from. */
  file: string;
  fields: KubeconfigFields;
}

interface Named {
  entry: YamlMap;
  file: string;
}

const kubeError = (message: string, hint?: string) => new AgentError('ANC_KUBE', message, hint === undefined ? {} : { hint });

const quote = (name: string) => JSON.stringify(name.slice(0, 128));

/** clusters / users / contexts of one file into `into` (first name wins across files). */
function collect(doc: YamlMap, key: 'clusters' | 'users' | 'contexts', inner: string, file: string, into: Map<string, Named>): void {
  for (const [i, item] of list(doc, key).entries()) {
    if (!isMap(item) || typeof item.name !== 'string' || item.name === '') throw kubeError(`kubeconfig ${file}: ${key}[${i}] has no name`);
    const value = item[inner];
    if (value !== undefined && value !== null && !isMap(value))
      throw kubeError(`kubeconfig ${file}: ${key}[${i}].${inner} is not a mapping`);
    if (!into.has(item.name)) into.set(item.name, { entry: isMap(value) ? value : {}, file });
  }
}

const dirOf = (file: string) => file.slice(0, file.lastIndexOf('/') + 1) || './';
const absolute = (path: string | undefined, file: string) => (path === undefined || path.startsWith('/') ? path : dirOf(file) + path);

/** Merges the files (in order) and selects `contextFlag`, else current-context. */
export function selectContext(files: readonly KubeconfigText[], contextFlag?: string): SelectedContext {
  const clusters = new Map<string, Named>();
  const users = new Map<string, Named>();
  const contexts = new Map<string, Named>();
  let current: string | undefined;
  for (const { path, text } of files) {
    let doc: YamlMap;
    try {
      doc = parseKubeconfigDoc(text);
      collect(doc, 'clusters', 'cluster', path, clusters);
      collect(doc, 'users', 'user', path, users);
      collect(doc, 'contexts', 'context', path, contexts);
    } catch (error) {
      const message = (error as Error).message;
      throw message.startsWith(`kubeconfig ${path}`) ? error : kubeError(`kubeconfig ${path}: ${message}`);
    }
    const cc = doc['current-context'];
    if (current === undefined && typeof cc === 'string' && cc.trim() !== '') current = cc.trim();
  }
  const names = [...contexts.keys()];
  const known = names.length === 0 ? 'it defines no contexts' : `contexts: ${names.map(quote).join(', ')}`;
  const where = files.map((f) => f.path).join(', ');
  const name = contextFlag ?? current;
  if (name === undefined)
    throw kubeError(`kubeconfig ${where} sets no current-context (${known})`, 'Pass --context NAME, or `kubectl config use-context NAME`.');
  const context = contexts.get(name);
  if (!context)
    throw kubeError(
      `context ${quote(name)}${contextFlag === undefined ? ' (current-context)' : ''} is not in kubeconfig ${where} (${known})`,
      'Pass --context with one of the names listed (`kubectl config get-contexts`).',
    );
  const clusterName = typeof context.entry.cluster === 'string' ? context.entry.cluster : '';
  const cluster = clusters.get(clusterName);
  if (!cluster) throw kubeError(`context ${quote(name)} names cluster ${quote(clusterName)}, which kubeconfig ${where} does not define`);
  const userName = typeof context.entry.user === 'string' ? context.entry.user : '';
  const user = userName === '' ? undefined : users.get(userName);
  if (userName !== '' && !user)
    throw kubeError(`context ${quote(name)} names user ${quote(userName)}, which kubeconfig ${where} does not define`);
  let fields: KubeconfigFields;
  try {
    fields = fieldsFrom(cluster.entry, user?.entry);
  } catch (error) {
    throw kubeError(`kubeconfig ${cluster.file}, context ${quote(name)}: ${(error as Error).message}`);
  }
  const caFile = absolute(fields.caFile, cluster.file);
  const certFile = user && absolute(fields.clientCertFile, user.file);
  const keyFile = user && absolute(fields.clientKeyFile, user.file);
  return {
    context: name,
    cluster: clusterName,
    user: userName,
    file: context.file,
    fields: {
      ...fields,
      ...(caFile === undefined ? {} : { caFile }),
      ...(certFile === undefined ? {} : { clientCertFile: certFile }),
      ...(keyFile === undefined ? {} : { clientKeyFile: keyFile }),
    },
  };
}
