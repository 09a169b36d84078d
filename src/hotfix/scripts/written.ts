// Which changed scripts a script hotfix wrote (for `image manifest --diff` and `status`): the record names
// each destination and the bytes the payload put there; a file holding other bytes was not ours.
import type { Deps } from '../../platform/deps.ts';
import { readRecord } from './backup.ts';

export function hotfixExplainer(deps: Pick<Deps, 'fs' | 'paths'>): (path: string, sha256: string) => string | undefined {
  let record: ReturnType<typeof readRecord>;
  try {
    record = readRecord(deps);
  } catch {
    record = undefined;
  }
  const written = new Map((record?.entries ?? []).map((e) => [e.destination, e.newSha256]));
  return (path, sha256) => (record && written.get(path) === sha256 ? `hotfix ${record.label}` : undefined);
}
