// `config validate`: loading problems (load.ts) plus semantic rules, collected all at once.
//
// Semantic rules are small Rule values (RULES). The only ones today are the producer-side required
// fields of nodeconfigutils.Validate (reference-agent 9). ANC itself never enforces them (a node
// provisions without them, with empty env values), so a missing one is a WARNING; `--strict` turns every
// warning (unknown fields, unknown enum names, missing required fields, v0, BOM) into an error.
// `version` is not a rule: the loader's version gate already reports it as an error.
import { loadConfiguration } from './load.ts';
import type { ConfigIssue } from './load.ts';
import type { Configuration } from './types.ts';

export interface ValidationIssue extends Omit<ConfigIssue, 'kind'> {
  kind: ConfigIssue['kind'] | 'missing-field';
}

export interface Rule {
  id: string;
  description: string;
  check(config: Configuration): ValidationIssue[];
}

export interface ValidationReport {
  valid: boolean;
  strict: boolean;
  errors: ValidationIssue[];
  warnings: ValidationIssue[];
}

function requiredField(path: string, protoPath: string, get: (c: Configuration) => string | undefined): Rule {
  return {
    id: `required:${protoPath}`,
    description: `${protoPath} must be a non-empty string (nodeconfigutils.Validate)`,
    check(config) {
      if ((get(config) ?? '') !== '') return [];
      return [
        {
          path,
          severity: 'warning',
          kind: 'missing-field',
          message: `required field ${protoPath} is missing (the node provisions without it, but the producer-side validation rejects it)`,
          expected: 'a non-empty string',
          found: 'nothing',
        },
      ];
    },
  };
}

/** The semantic rules, in report order. */
export const RULES: readonly Rule[] = [
  requiredField('$.authConfig.subscriptionId', 'auth_config.subscription_id', (c) => c.authConfig?.subscriptionId),
  requiredField('$.clusterConfig.resourceGroup', 'cluster_config.resource_group', (c) => c.clusterConfig?.resourceGroup),
  requiredField('$.clusterConfig.location', 'cluster_config.location', (c) => c.clusterConfig?.location),
  requiredField(
    '$.clusterConfig.clusterNetworkConfig.vnetName',
    'cluster_config.cluster_network_config.vnet_name',
    (c) => c.clusterConfig?.clusterNetworkConfig?.vnetName,
  ),
  requiredField(
    '$.clusterConfig.clusterNetworkConfig.routeTable',
    'cluster_config.cluster_network_config.route_table',
    (c) => c.clusterConfig?.clusterNetworkConfig?.routeTable,
  ),
  requiredField('$.apiServerConfig.apiServerName', 'api_server_config.api_server_name', (c) => c.apiServerConfig?.apiServerName),
];

/** Every rule's findings for a configuration (already loaded). */
export function checkRules(config: Configuration, rules: readonly Rule[] = RULES): ValidationIssue[] {
  return rules.flatMap((rule) => rule.check(config));
}

/** Loads a document and runs every rule; `strict` promotes warnings to errors. */
export function validateConfigurationText(text: string, options: { strict?: boolean } = {}): ValidationReport {
  const strict = options.strict === true;
  const loaded = loadConfiguration(text);
  // A document that does not parse has no missing fields to speak of: the syntax error is the one problem
  // (its message says where), and the version check names the absent version instead of an empty one.
  const unparsed = loaded.issues.some((i) => i.path === '$' && i.message.startsWith('invalid JSON'));
  const issues = loaded.issues.map((i) =>
    i.path === '$.version' && i.message === 'unsupported version: '
      ? { ...i, message: `version is missing${unparsed ? ' (the document did not parse)' : ''}: expected "v1" (or "v0")` }
      : i,
  );
  const rules = unparsed ? [] : checkRules(loaded.config);
  const all: ValidationIssue[] = [...issues, ...rules];
  const errors = all.filter((i) => i.severity === 'error' || strict).map((i) => ({ ...i, severity: 'error' as const }));
  const warnings = strict ? [] : all.filter((i) => i.severity === 'warning');
  return { valid: errors.length === 0, strict, errors, warnings };
}

function plural(n: number, word: string): string {
  return `${n} ${word}${n === 1 ? '' : 's'}`;
}

function issueLines(issue: ValidationIssue): string {
  return `${issue.severity}: ${issue.path}: ${issue.message}\n`;
}

/** Human report: a summary line, then one line per problem (errors first). */
export function formatReport(file: string, report: ValidationReport): string {
  const head = `${file}: ${report.valid ? 'valid' : 'INVALID'} (${plural(report.errors.length, 'error')}, ${plural(report.warnings.length, 'warning')}${report.strict ? ', strict' : ''})\n`;
  return head + report.errors.map(issueLines).join('') + report.warnings.map(issueLines).join('');
}

/** Machine report for `--json`. */
export function jsonReport(file: string, report: ValidationReport): string {
  return `${JSON.stringify({ file, valid: report.valid, strict: report.strict, errors: report.errors, warnings: report.warnings }, null, 2)}\n`;
}
