// download-hotfix's scripts_version step as `status` reports it (spec 11.2, D19): whether the image's
// nodecustomdata.yml was applied, from the one log line hotfix/node-custom-data.ts writes. Pure.
import type { LogLine } from './boots.ts';

export interface NodeCustomDataStatus {
  outcome: 'applied' | 'skipped' | 'failed';
  scriptsVersion: string;
  reason: string;
  files?: number;
  error?: string;
}

/** The last `node custom data by scripts_version` line (hotfix/node-custom-data.ts). */
export function nodeCustomDataOf(log: LogLine[]): NodeCustomDataStatus | null {
  const line = log.filter((l) => l.msg === 'node custom data by scripts_version').pop();
  if (!line || (line.outcome !== 'applied' && line.outcome !== 'skipped' && line.outcome !== 'failed')) return null;
  return {
    outcome: line.outcome,
    scriptsVersion: String(line.scriptsVersion ?? ''),
    reason: String(line.reason ?? ''),
    ...(Array.isArray(line.files) ? { files: line.files.length } : {}),
    ...(line.error === undefined ? {} : { error: String(line.error) }),
  };
}
