// From a loaded configuration to a ready ProvisionCommand, through deps: log the load's issues (D7), version
// gate, machine facts, build. The caller (provision/config-file.ts) read and parsed the file once. Throws
// AgentError with the reference's messages (config-contract 4.6).
import { type ConfigIssue, versionProblem } from '../config/load.ts';
import type { Configuration } from '../config/types.ts';
import type { Deps } from '../platform/deps.ts';
import { AgentError } from '../platform/errors.ts';
import { buildProvisionCommand, type ProvisionCommand } from './command.ts';
import { gatherMachineFacts, type FactsOptions } from './facts.ts';

/** D7: unknown fields in one WARN line (paths only), every dropped value in its own WARN line. */
function logIssues(issues: readonly ConfigIssue[], deps: Deps): void {
  const unknown = issues.filter((i) => i.kind === 'unknown-field').map((i) => i.path);
  if (unknown.length > 0) deps.log.warn('ignored unknown fields in the node configuration', { fields: unknown });
  for (const issue of issues) {
    if (issue.kind === 'unknown-field' || issue.kind === 'version') continue;
    deps.log.warn('problem in the node configuration', { field: issue.path, kind: issue.kind, problem: issue.message });
  }
}

export async function prepareProvisionCommand(
  loaded: { config: Configuration; issues: ConfigIssue[] },
  deps: Deps,
  factsOptions: FactsOptions = {},
): Promise<{ command: ProvisionCommand; config: Configuration; issues: ConfigIssue[]; warnings: string[] }> {
  const { config, issues } = loaded;
  logIssues(issues, deps);
  const problem = versionProblem(config);
  if (problem) throw new AgentError('ANC_CONFIG_VERSION', problem);
  if (config.version === 'v0') deps.log.error('v0 version is deprecated, please use v1 instead');
  const facts = await gatherMachineFacts(deps, factsOptions);
  return { command: buildProvisionCommand(config, facts, deps.paths), config, issues, warnings: facts.warnings };
}
