// A sandboxed node that has provisioned and joined: provision.json, kubelet's kubeconfig with a node
// client certificate for the apiserver stand-in, its flags (--hostname-override) and a boot id.
import { issueNodeCert } from '../../fakes/apiserver-pki.ts';
import type { FakeApiServer } from '../../fakes/apiserver.ts';
import { makeSandbox, type Sandbox } from '../harness.ts';

export interface JoinedNode {
  box: Sandbox;
  name: string;
}

/** `certFor` names the certificate's node (another name than `name` = credentials of another node). */
export function joinedNode(
  api: FakeApiServer,
  name: string,
  options: { certFor?: string; bootId?: string; exitCode?: number; server?: string } = {},
): JoinedNode {
  const box = makeSandbox('anc-fleet-');
  const cert = issueNodeCert(api.pki, options.certFor ?? name);
  box.write('/etc/kubernetes/certs/ca.crt', api.pki.ca.cert);
  box.write('/var/lib/kubelet/pki/kubelet-client-current.pem', `${cert.cert}${cert.key}`, 0o600);
  box.write(
    '/var/lib/kubelet/kubeconfig',
    [
      'apiVersion: v1',
      'kind: Config',
      'clusters:',
      '- cluster:',
      '    certificate-authority: /etc/kubernetes/certs/ca.crt',
      `    server: ${options.server ?? api.url}`,
      '  name: localcluster',
      'contexts:',
      '- context:',
      '    cluster: localcluster',
      '    user: client',
      '  name: localclustercontext',
      'current-context: localclustercontext',
      'users:',
      '- name: client',
      '  user:',
      '    client-certificate: /var/lib/kubelet/pki/kubelet-client-current.pem',
      '    client-key: /var/lib/kubelet/pki/kubelet-client-current.pem',
      '',
    ].join('\n'),
    0o600,
  );
  box.write('/etc/default/kubelet', `KUBELET_FLAGS=--node-ip=10.224.0.4 --hostname-override=${name} --max-pods=110\n`);
  box.write('/proc/sys/kernel/random/boot_id', `${options.bootId ?? 'boot-1'}\n`);
  box.write('/etc/os-release', 'ID=ubuntu\nVERSION_ID="22.04"\n');
  const code = options.exitCode ?? 0;
  box.write('/var/log/azure/aks/provision.json', JSON.stringify({ ExitCode: String(code), Output: '', Error: '', ExecDuration: '12' }));
  box.write('/opt/azure/containers/provision.complete', '');
  return { box, name };
}

export function fastBounds(waitSeconds = 5): Record<string, string> {
  return { ANC_REPORT_WAIT_SECONDS: String(waitSeconds), ANC_REPORT_REQUEST_TIMEOUT_MS: '1000', ANC_REPORT_POLL_MS: '200' };
}
