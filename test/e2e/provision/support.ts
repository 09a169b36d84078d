// Shared setup for the provisioning runtime e2e tests: a sandbox node with components.json, stand-in
// provisioning scripts, configs holding marker secrets, and a parallel provision-wait.
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import * as assert from 'uvu/assert';
import { BIN, baseEnv, makeSandbox, runAnc, type RunOutcome, type Sandbox } from '../harness.ts';

export const PROVISION_JSON = '/var/log/azure/aks/provision.json';
export const PROVISION_COMPLETE = '/opt/azure/containers/provision.complete';
export const START_SCRIPT = '/opt/azure/containers/provision_start.sh';
export const LOG = '/var/log/azure/aks-node-controller.log';
export const EVENTS_DIR = '/var/log/azure/Microsoft.Azure.Extensions.CustomScript/events';

/** Marker secrets: none of these may appear in any output of any run (D14). */
export const SECRETS = {
  token: 'tok3n.MARKERSECRETBOOTSTRAP',
  spSecret: 'MARKER-SP-SECRET-b64ZZZ',
  clientKey: 'MARKERCLIENTKEYPEMDATA',
  realmPassword: 'MARKER-REALM-PASSWORD-42',
};

export function configWithSecrets(extra: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    version: 'v1',
    bootstrappingConfig: { tlsBootstrappingToken: SECRETS.token },
    authConfig: { servicePrincipalSecret: SECRETS.spSecret },
    kubeletConfig: { kubeletClientKey: SECRETS.clientKey },
    customSearchDomainConfig: { domainName: 'corp.example', realmUser: 'joiner', realmPassword: SECRETS.realmPassword },
    ...extra,
  };
}

/** The cse_start.sh contract in miniature: status files under the sandbox root, then the exit code. */
export function successScript(): string {
  return `#!/bin/bash
echo "provisioning stand-in on stdout"
echo "provisioning stand-in on stderr" >&2
mkdir -p "$AKS_NODE_ROOT/var/log/azure/aks"
printf '%s' '{"ExitCode":"0","Output":"done","Error":"","ExecDuration":"1"}' > "$AKS_NODE_ROOT/var/log/azure/aks/provision.json"
touch "$AKS_NODE_ROOT/opt/azure/containers/provision.complete"
exit 0
`;
}

export function failingScript(code: number): string {
  return `#!/bin/bash\necho "step output"\necho "step failed" >&2\nexit ${code}\n`;
}

/** Fails like the real script does: its own provision.json first (no sentinel), then the code. */
export function selfReportingFailure(code: number): string {
  return `#!/bin/bash
mkdir -p "$AKS_NODE_ROOT/var/log/azure/aks"
printf '%s' '{"ExitCode":"${code}","Output":"script said why","Error":""}' > "$AKS_NODE_ROOT/var/log/azure/aks/provision.json"
exit ${code}
`;
}

export interface Node extends Sandbox {
  configPath: string;
}

/** A sandbox with components.json, the start script and (optionally) a config file. */
export function makeNode(script: string, config: unknown = configWithSecrets()): Node {
  const sandbox = makeSandbox('anc-prov-');
  sandbox.write('/opt/azure/components.json', '{}');
  sandbox.write(START_SCRIPT, script, 0o755);
  const configPath = sandbox.write(
    '/opt/azure/containers/aks-node-controller-config.json',
    typeof config === 'string' ? config : JSON.stringify(config),
    0o600,
  );
  return { ...sandbox, configPath };
}

export function provisionJson(node: Sandbox): string | undefined {
  const file = node.path(PROVISION_JSON);
  return existsSync(file) ? readFileSync(file, 'utf8') : undefined;
}

export function mode(node: Sandbox, onNodePath: string): number {
  return statSync(node.path(onNodePath)).mode & 0o777;
}

/** Starts provision-wait in the background; resolves with its outcome. */
export function startWait(node: Sandbox, args: string[] = []): Promise<RunOutcome> {
  return runAnc(['provision-wait', ...args], { root: node.root, timeoutMs: 30_000 });
}

/** Spawns the binary directly (for signal tests). */
export function spawnAnc(args: string[], root: string): ChildProcess {
  return spawn(BIN, args, { env: baseEnv(root), cwd: root, stdio: ['ignore', 'pipe', 'pipe'] });
}

/** Every byte the agent produced for a sandbox: stdout/stderr of the runs plus the files it writes. */
export function everything(node: Sandbox, runs: RunOutcome[]): string {
  const parts = runs.flatMap((r) => [r.stdout, r.stderr]);
  for (const file of [LOG, PROVISION_JSON]) if (existsSync(node.path(file))) parts.push(readFileSync(node.path(file), 'utf8'));
  const dir = node.path(EVENTS_DIR);
  if (existsSync(dir)) for (const name of readdirSync(dir)) parts.push(readFileSync(join(dir, name), 'utf8'));
  return parts.join('\n');
}

export function assertNoSecrets(text: string, extra: string[] = []): void {
  for (const secret of [...Object.values(SECRETS), ...extra]) {
    assert.not.ok(text.includes(secret), `secret marker ${secret} leaked`);
  }
}

export function eventMessages(node: Sandbox): string[] {
  return node.events().map((e) => `${e.TaskName}|${e.EventLevel}|${e.Message!.split(' | startTime=')[0]}`);
}

export const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
