// Which kubeconfig files an operator command reads, in kubectl's order: --kubeconfig FILE (that file
// alone; missing is an error), else every file of $KUBECONFIG (':'-separated; missing ones are skipped
// as kubectl skips them, but not all of them), else ~/.kube/config. Then kubeconfig-contexts.ts merges
// them and picks --context or current-context. Relative names are taken from the working directory.
import type { Deps } from '../platform/deps.ts';
import { AgentError } from '../platform/errors.ts';
import { credentialsFromKubeconfig, ioReason, type ApiCredentials } from './credentials.ts';
import type { KubeconfigText } from './kubeconfig-contexts.ts';

/** What the operator gave on the command line: --kubeconfig and --context (both optional). */
export interface KubeTarget {
  kubeconfig?: string | undefined;
  context?: string | undefined;
}

export type KubeconfigDeps = Pick<Deps, 'fs' | 'paths' | 'log' | 'env' | 'cwd'>;

const HINT = 'Pass --kubeconfig FILE, set KUBECONFIG, or write ~/.kube/config (`az aks get-credentials`).';

function missing(error: unknown): boolean {
  return (error as { code?: unknown } | null)?.code === 'ENOENT';
}

/** The files to merge, read; a missing explicit file (or every listed file missing) says so. */
export function readKubeconfigFiles(deps: KubeconfigDeps, given: string | undefined): KubeconfigText[] {
  const absolute = (path: string) => (path.startsWith('/') ? path : `${deps.cwd}/${path}`);
  const read = (path: string): string => deps.fs.readText(absolute(path), 'kubeconfig');
  const fail = (message: string, error?: unknown) =>
    new AgentError('ANC_KUBE', error === undefined ? message : `${message}: ${ioReason(error)}`, { hint: HINT });
  if (given !== undefined) {
    try {
      return [{ path: absolute(given), text: read(given) }];
    } catch (error) {
      throw fail(
        missing(error) ? `kubeconfig ${given} (--kubeconfig) does not exist` : `reading kubeconfig ${given}`,
        missing(error) ? undefined : error,
      );
    }
  }
  const list = (deps.env.KUBECONFIG ?? '').split(':').filter(Boolean);
  if (list.length > 0) {
    const files: KubeconfigText[] = [];
    for (const path of [...new Set(list.map(absolute))]) {
      try {
        files.push({ path, text: read(path) });
      } catch (error) {
        if (!missing(error)) throw fail(`reading kubeconfig ${path} (from $KUBECONFIG)`, error);
      }
    }
    if (files.length === 0) throw fail(`none of the files in $KUBECONFIG exists (${list.join(', ')})`);
    return files;
  }
  const home = deps.env.HOME ?? '';
  const path = `${home === '' ? '' : home.replace(/\/+$/, '')}/.kube/config`;
  try {
    return [{ path, text: read(path) }];
  } catch (error) {
    throw missing(error)
      ? fail(`no kubeconfig: ${path} does not exist and neither --kubeconfig nor $KUBECONFIG is set`)
      : fail(`reading kubeconfig ${path}`, error);
  }
}

/** The credentials of the selected context (--context, else current-context) of the merged files. */
export async function operatorKubeconfig(deps: KubeconfigDeps, target: KubeTarget): Promise<ApiCredentials> {
  const files = readKubeconfigFiles(deps, target.kubeconfig);
  const { selectContext } = await import('./kubeconfig-contexts.ts');
  const selected = selectContext(files, target.context);
  return credentialsFromKubeconfig(deps, selected.fields, `${selected.file} (context ${selected.context})`);
}
