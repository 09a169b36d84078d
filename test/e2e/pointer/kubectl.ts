// The real kubectl, run against the apiserver stand-in with a given kubeconfig; its cache and HOME stay in
// the test's work directory so nothing is written to the machine's own home.
import { spawn } from 'node:child_process';
import { join } from 'node:path';

export const KUBECTL = process.env.KUBECTL ?? '/usr/bin/kubectl';

export interface KubectlRun {
  code: number | null;
  stdout: string;
  stderr: string;
}

export function runKubectl(kubeconfig: string, work: string, args: string[]): Promise<KubectlRun> {
  return new Promise((resolve, reject) => {
    const child = spawn(KUBECTL, ['--kubeconfig', kubeconfig, '--cache-dir', join(work, 'kcache'), '--request-timeout', '10s', ...args], {
      stdio: ['ignore', 'pipe', 'pipe'],
      env: { PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: work },
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (c) => (stdout += c));
    child.stderr.on('data', (c) => (stderr += c));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });
}
