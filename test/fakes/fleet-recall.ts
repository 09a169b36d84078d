// The rehearsal's `--recall` (issue 37 §5): after a good rollout completed, the release engineer recalls the
// hotfix (a pointer that offers nothing for the base and recalls its version, checked against the live one
// with --kubeconfig, signed, published with kubectl). No node reboots: each runs what
// aks-node-controller-report.timer starts (the ExecStart of the installed aks-node-controller-report.service),
// which reads the pointer again and flags the node on its own Node status. Counted from the stand-in's Node
// objects: the nodes that carry AKSNodeControllerRecalled=True.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { runAnc } from '../e2e/harness.ts';
import type { FakeApiServer } from './apiserver.ts';

export const RECALL_CONDITION = 'AKSNodeControllerRecalled';

export interface RecallRun {
  api: FakeApiServer;
  baked: string;
  work: string;
  publisher: string;
  version: string;
  expires: string;
  nodes: Array<{ name: string; root: string }>;
  sign(name: string, args: string[]): Promise<string>;
  publish(file: string): Promise<void>;
  say(text: string): void;
}

/** The timer's command: the service's ExecStart, without the binary (the rehearsal runs the baked agent). */
export function timerCommand(root: string): string[] {
  const unit = readFileSync(join(root, 'etc/systemd/system/aks-node-controller-report.service'), 'utf8');
  const exec = /^ExecStart=(\S+)(.*)$/m.exec(unit);
  if (!exec) throw new Error('aks-node-controller-report.service has no ExecStart');
  return exec[2]!.trim().split(/\s+/).filter(Boolean);
}

/** Nodes whose Node status carries the recall condition with status True. */
export function flaggedNodes(api: FakeApiServer): string[] {
  return [...api.nodes.nodes.entries()]
    .filter(([, node]) =>
      ((node.status as { conditions?: Array<{ type?: string; status?: string }> })?.conditions ?? []).some(
        (c) => c.type === RECALL_CONDITION && c.status === 'True',
      ),
    )
    .map(([name]) => name)
    .sort();
}

export async function rehearseRecall(run: RecallRun): Promise<{ flagged: string[]; message: string | null }> {
  const recall = await run.sign('recall', [
    'hotfix',
    'pointer',
    'render',
    '--recall',
    run.version,
    '--kubeconfig',
    run.publisher,
    '--expires',
    run.expires,
  ]);
  await run.publish(recall);
  run.say(`\nrecall published: ${run.version} (no hotfix offered for its base); no node reboots\n`);
  const args = timerCommand(run.nodes[0]!.root);
  run.say(`the report timer runs on every node: aks-node-controller ${args.join(' ')}\n`);
  for (const node of run.nodes) {
    const out = await runAnc(args, {
      root: node.root,
      bin: run.baked,
      env: { ANC_REPORT_WAIT_SECONDS: '20', ANC_REPORT_POLL_MS: '500' },
    });
    if (out.exitCode !== 0) throw new Error(`${args.join(' ')} on ${node.name} exited ${out.exitCode}: ${out.stderr}`);
  }
  const flagged = flaggedNodes(run.api);
  const first = flagged[0] === undefined ? undefined : run.api.nodes.nodes.get(flagged[0]);
  const condition = ((first?.status as { conditions?: Array<{ type?: string; message?: string }> })?.conditions ?? []).find(
    (c) => c.type === RECALL_CONDITION,
  );
  return { flagged, message: condition?.message ?? null };
}
