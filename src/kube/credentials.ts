// Where check-hotfix gets its apiserver address and credentials (spec 6.6, D1): the node config first
// (apiserver name + bootstrap token + the cluster CA file, or the config's kubernetes_ca_cert while that
// file does not exist yet), then bootstrap-kubeconfig, then kubeconfig.
// The first source that yields a server wins. Tokens and private keys stay Secrets (D14). The kubeconfig
// reader (the YAML library, ~1.7 ms to load) loads only when a kubeconfig is read: a node config answers on a boot.
import { loadConfiguration } from '../config/load.ts';
import { readConfigurationFile } from '../config/read.ts';
import type { Deps } from '../platform/deps.ts';
import { AgentError, errorMessage } from '../platform/errors.ts';
import { goTrimSpace } from '../platform/go/strings.ts';
import { Secret } from '../platform/secret.ts';
import { ensurePort } from './address.ts';
import type { KubeconfigFields } from './kubeconfig.ts';

export interface ApiCredentials {
  /** `node config` or the on-node path of the kubeconfig that was used. */
  source: string;
  /** `host:port`. */
  server: string;
  /** PEM bytes of the CA to trust alone; absent = the system roots. */
  ca?: Buffer;
  token?: Secret;
  clientCert?: Buffer;
  clientKey?: Secret;
}

export type CredentialDeps = Pick<Deps, 'fs' | 'paths' | 'log'>;

function kubeError(message: string): AgentError {
  return new AgentError('ANC_KUBE', message);
}

/** `ENOENT: no such file or directory` from a Node fs error, without the (sandboxed) path it names. */
export function ioReason(error: unknown): string {
  const message = errorMessage(error);
  const code = (error as { code?: unknown } | null)?.code;
  return typeof code === 'string' && message.startsWith(code) ? message.split(', ')[0]! : message;
}

export async function resolveCredentials(deps: CredentialDeps): Promise<ApiCredentials> {
  try {
    return nodeConfigCredentials(deps);
  } catch (primary) {
    deps.log.info('primary apiserver creds (node config) unavailable, trying kubeconfig fallback', { error: errorMessage(primary) });
  }
  let last: unknown;
  for (const path of [deps.paths.bootstrapKubeconfig, deps.paths.kubeconfig]) {
    try {
      return await kubeconfigCredentials(deps, path);
    } catch (error) {
      deps.log.info('kubeconfig credentials unusable', { path: deps.paths.strip(path), error: errorMessage(error) });
      last = error;
    }
  }
  throw kubeError(`no usable kubeconfig credentials: ${errorMessage(last)}`);
}

export function nodeConfigCredentials(deps: CredentialDeps): ApiCredentials {
  const path = deps.paths.nodeConfig;
  let text: string;
  try {
    text = readConfigurationFile(deps.fs, path);
  } catch (error) {
    throw kubeError(`reading node config ${deps.paths.strip(path)}: ${ioReason(error)}`);
  }
  const { config, issues } = loadConfiguration(text);
  if (issues.length > 0) {
    // Paths only: issue messages may echo (clipped) values from a file that holds the bootstrap token.
    deps.log.info('node config has problems; continuing with the fields that could be read', { paths: issues.map((i) => i.path) });
  }
  const server = ensurePort(goTrimSpace(config.apiServerConfig?.apiServerName ?? ''), '443');
  if (server === '') throw kubeError('node config has no api_server_config.api_server_name');
  const token = goTrimSpace(config.bootstrappingConfig?.tlsBootstrappingToken ?? '');
  if (token === '') throw kubeError('node config has no bootstrapping_config.tls_bootstrapping_token');
  const caPath = deps.paths.clusterCa;
  let ca: Buffer;
  try {
    ca = deps.fs.readFile(caPath, 'certificate');
  } catch (error) {
    // On a first boot nothing has written ca.crt yet (the provisioning scripts write it later, from this
    // same field): the configuration's own cluster CA stands in (seen in a real VM boot, docs/node.md).
    const inline = goTrimSpace(config.kubernetesCaCert ?? '');
    if ((error as { code?: unknown } | null)?.code !== 'ENOENT' || inline === '') {
      throw kubeError(`reading cluster CA ${deps.paths.strip(caPath)}: ${ioReason(error)}`);
    }
    ca = decodeBase64(inline, 'decoding kubernetes_ca_cert');
    deps.log.info('cluster CA file absent; using the node config kubernetes_ca_cert', { path: deps.paths.strip(caPath) });
  }
  return { source: 'node config', server, ca, token: new Secret(token) };
}

export async function kubeconfigCredentials(deps: CredentialDeps, path: string): Promise<ApiCredentials> {
  let text: string;
  try {
    text = deps.fs.readText(path, 'kubeconfig');
  } catch (error) {
    throw kubeError(`reading kubeconfig ${deps.paths.strip(path)}: ${ioReason(error)}`);
  }
  const { parseKubeconfig } = await import('./kubeconfig.ts');
  return credentialsFromKubeconfig(deps, parseKubeconfig(text), deps.paths.strip(path));
}

/** Inline `*-data` wins over the file path; a relative path is taken from the kubeconfig's directory (kubectl). */
export function credentialsFromKubeconfig(deps: CredentialDeps, fields: KubeconfigFields, source: string): ApiCredentials {
  const creds: ApiCredentials = { source, server: fields.server };
  const dir = source.slice(0, source.lastIndexOf('/') + 1) || '/';
  const load = (data: string | undefined, file: string | undefined, name: string, prefix: string): Buffer | undefined => {
    if (data !== undefined) return decodeBase64(data, `${prefix}decoding ${name}-data`);
    if (file === undefined) return undefined;
    const onNode = file.startsWith('/') ? file : dir + file;
    try {
      return deps.fs.readFile(deps.paths.under(onNode), 'certificate');
    } catch (error) {
      throw kubeError(`${prefix}reading ${name} ${file}: ${ioReason(error)}`);
    }
  };
  const ca = load(fields.caData, fields.caFile, 'certificate-authority', '');
  if (ca) creds.ca = ca;
  if (fields.token) creds.token = fields.token;
  const cert = load(fields.clientCertData, fields.clientCertFile, 'client-certificate', 'loading client certificate: ');
  if (cert) creds.clientCert = cert;
  const key = load(fields.clientKeyData?.reveal(), fields.clientKeyFile, 'client-key', 'loading client key: ');
  if (key) creds.clientKey = new Secret(key.toString('utf8'));
  return creds;
}

/** Go's base64.StdEncoding: standard alphabet, padding required; CR/LF are ignored. */
export function decodeBase64(value: string, what: string): Buffer {
  // `what` reads like `decoding certificate-authority-data`; the value itself is never quoted (D14).
  const compact = value.replace(/[\r\n]/g, '');
  if (compact.length % 4 !== 0 || !/^[A-Za-z0-9+/]*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/.test(compact)) {
    throw kubeError(`${what}: illegal base64 data`);
  }
  return Buffer.from(compact, 'base64');
}
