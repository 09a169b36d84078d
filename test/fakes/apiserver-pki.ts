// Test PKI for the apiserver stand-in, made with openssl at test time (EC P-256: fast): a cluster CA, a
// server certificate for 127.0.0.1 + localhost, the same server name under a wrong name, an expired server
// certificate, a client certificate (CN system:node:<name>, O system:nodes) and an unrelated "wrong" CA.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export interface Pem {
  cert: string;
  key: string;
  certFile: string;
  keyFile: string;
}

export interface TestPki {
  dir: string;
  /** CN of the client certificate (`system:node:<name>`). */
  clientUser: string;
  ca: Pem;
  server: Pem;
  wrongName: Pem;
  expired: Pem;
  client: Pem;
  /** A CA that signed nothing the server presents. */
  otherCa: Pem;
  /** A client certificate signed by the other CA (the server must not accept it). */
  foreignClient: Pem;
}

function openssl(dir: string, args: string[]): void {
  execFileSync('openssl', args, { cwd: dir, stdio: ['ignore', 'ignore', 'pipe'] });
}

function load(dir: string, name: string): Pem {
  const certFile = join(dir, `${name}.crt`);
  const keyFile = join(dir, `${name}.key`);
  return { cert: readFileSync(certFile, 'utf8'), key: readFileSync(keyFile, 'utf8'), certFile, keyFile };
}

function makeCa(dir: string, name: string, cn: string): void {
  openssl(dir, ['ecparam', '-name', 'prime256v1', '-genkey', '-noout', '-out', `${name}.key`]);
  openssl(dir, [
    'req',
    '-x509',
    '-new',
    '-key',
    `${name}.key`,
    '-subj',
    `/CN=${cn}`,
    '-days',
    '3',
    '-addext',
    'basicConstraints=critical,CA:TRUE',
    '-addext',
    'keyUsage=critical,keyCertSign,cRLSign',
    '-out',
    `${name}.crt`,
  ]);
}

function makeLeaf(dir: string, name: string, ca: string, subject: string, extensions: string, days: string): void {
  openssl(dir, ['ecparam', '-name', 'prime256v1', '-genkey', '-noout', '-out', `${name}.key`]);
  openssl(dir, ['req', '-new', '-key', `${name}.key`, '-subj', subject, '-out', `${name}.csr`]);
  writeFileSync(join(dir, `${name}.ext`), extensions);
  // `-days -1` makes a certificate whose notAfter is already in the past (the expired case).
  openssl(dir, [
    'x509',
    '-req',
    '-in',
    `${name}.csr`,
    '-CA',
    `${ca}.crt`,
    '-CAkey',
    `${ca}.key`,
    '-CAcreateserial',
    '-days',
    days,
    '-extfile',
    `${name}.ext`,
    '-out',
    `${name}.crt`,
  ]);
}

const SERVER_EXT = 'basicConstraints=CA:FALSE\nkeyUsage=critical,digitalSignature\nextendedKeyUsage=serverAuth\n';
const CLIENT_EXT = 'basicConstraints=CA:FALSE\nkeyUsage=critical,digitalSignature\nextendedKeyUsage=clientAuth\n';

const cache = new Map<string, TestPki>();

/** Generates (once per process and node name) the whole PKI in a temp directory. */
export function makeTestPki(nodeName = 'aks-test-node'): TestPki {
  const cached = cache.get(nodeName);
  if (cached) return cached;
  const dir = mkdtempSync(join(tmpdir(), 'anc-pki-'));
  process.on('exit', () => rmSync(dir, { recursive: true, force: true }));
  makeCa(dir, 'ca', 'anc-test-cluster-ca');
  makeCa(dir, 'other-ca', 'anc-unrelated-ca');
  // 10.0.2.100: the apiserver's address inside the real-boot VM (test/fakes/vm-node.ts), forwarded to loopback.
  makeLeaf(dir, 'server', 'ca', '/CN=kube-apiserver', `${SERVER_EXT}subjectAltName=IP:127.0.0.1,IP:::1,DNS:localhost,IP:10.0.2.100\n`, '2');
  makeLeaf(dir, 'wrong-name', 'ca', '/CN=kube-apiserver', `${SERVER_EXT}subjectAltName=DNS:wrong-name.example.invalid\n`, '2');
  makeLeaf(dir, 'expired', 'ca', '/CN=kube-apiserver', `${SERVER_EXT}subjectAltName=IP:127.0.0.1,DNS:localhost\n`, '-1');
  makeLeaf(dir, 'client', 'ca', `/O=system:nodes/CN=system:node:${nodeName}`, CLIENT_EXT, '2');
  makeLeaf(dir, 'foreign-client', 'other-ca', `/O=system:nodes/CN=system:node:${nodeName}`, CLIENT_EXT, '2');
  const pki: TestPki = {
    dir,
    clientUser: `system:node:${nodeName}`,
    ca: load(dir, 'ca'),
    server: load(dir, 'server'),
    wrongName: load(dir, 'wrong-name'),
    expired: load(dir, 'expired'),
    client: load(dir, 'client'),
    otherCa: load(dir, 'other-ca'),
    foreignClient: load(dir, 'foreign-client'),
  };
  cache.set(nodeName, pki);
  return pki;
}

/** A client certificate for node `name` (CN system:node:<name>, O system:nodes) signed by the PKI's CA. */
export function issueNodeCert(pki: TestPki, name: string): Pem {
  const file = `node-${name.replace(/[^a-z0-9.-]/g, '_')}`;
  makeLeaf(pki.dir, file, 'ca', `/O=system:nodes/CN=system:node:${name}`, CLIENT_EXT, '2');
  return load(pki.dir, file);
}
