// report-status: this boot's outcome on the node's own Node object (annotation + version label), with the
// kubelet's credentials. Run by aks-node-controller-report.service after kubelet. Always exit 0
// (fail-open): fleet/send.ts logs why a report could not be written and emits a ReportStatus event.
import type { Command } from '../cli/command.ts';

export const reportStatusCommand = {
  name: 'report-status',
  description: "Write this boot's provisioning report on the node's own Node object (fail-open, always exits 0)",
  options: [
    {
      flag: '--refresh-pointer',
      description: "First read the cluster's hotfix pointer again (check-hotfix: bounded, no download), so a recall reaches this node",
      boolean: true,
    },
  ],
  failOpen: true,
  details:
    'Writes the annotation kubernetes.azure.com/aks-node-controller-status (compact JSON: versions, binary, hotfix path,\n' +
    'quarantine, scripts, pointer serial, provisioning exit code) and the label kubernetes.azure.com/aks-node-controller-version,\n' +
    "by JSON merge patch with kubelet's kubeconfig. Waits at most ANC_REPORT_WAIT_SECONDS (600) for the Node object,\n" +
    'each request at most ANC_REPORT_REQUEST_TIMEOUT_MS (10000). A node still running a version the pointer recalls gets\n' +
    'the condition AKSNodeControllerRecalled (True, RecalledVersion) on its own status; it is removed once it no longer does.',
  examples: [
    ['report-status --refresh-pointer', 'what aks-node-controller-report.service runs at every boot and every 15 minutes (its timer)'],
  ],
  async run({ options }, deps) {
    if (options.refreshPointer) await (await import('../fleet/refresh.ts')).refreshPointer(deps);
    const { runReportStatus } = await import('../fleet/send.ts');
    return { exitCode: await runReportStatus(deps) };
  },
} satisfies Command<{ refreshPointer?: boolean }>;
