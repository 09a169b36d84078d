// While the provisioning scripts run, SIGTERM / SIGINT / SIGHUP sent to the agent are forwarded to the
// scripts' whole process group (through the runner's abort signal: SIGTERM, then SIGKILL after the
// runner's grace period) instead of killing the agent and orphaning the group. The agent then records
// the signalled child like any other (provision.json ExitCode "-1", exit 255), so provision-wait
// never hangs. Reached through Deps (`deps.withTerminationSignals`), so tests can run without it.

const FORWARDED = ['SIGTERM', 'SIGINT', 'SIGHUP'] as const;

export async function forwardingTerminationSignals<T>(
  onSignal: (signal: string) => void,
  body: (abort: AbortSignal) => Promise<T>,
): Promise<T> {
  const controller = new AbortController();
  const handler = (signal: string) => {
    onSignal(signal);
    controller.abort();
  };
  for (const signal of FORWARDED) process.on(signal, handler);
  try {
    return await body(controller.signal);
  } finally {
    for (const signal of FORWARDED) process.off(signal, handler);
  }
}
