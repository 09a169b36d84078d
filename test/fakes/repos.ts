// Real package repositories on loopback for hotfix tests and demos: build the agent at a version, package
// it (.deb/.rpm, fast zstd mode), publish a signed apt repo (apt-ftparchive + a throwaway gpg key) or an
// rpm repo (createrepo_c), serve it on 127.0.0.1, and prepare a sandbox root (AKS_NODE_ROOT) whose apt /
// dnf configuration points at it, with stub base packages so libc6 / glibc dependencies resolve. Nothing
// here touches the host's package databases (toolchain-measurements 9.3, 9.4; docs/hotfix.md "sandbox").
import { execFileSync } from 'node:child_process';
import { copyFileSync, createReadStream, existsSync, mkdirSync, mkdtempSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { basename, join, normalize, resolve, sep } from 'node:path';
import { buildPackages, type BuiltPackage } from '../../vhd/packaging/build-packages.mjs';

const REPO_ROOT = resolve(import.meta.dirname ?? new URL('.', import.meta.url).pathname, '..', '..');
const run = (program: string, args: string[], options: { cwd?: string; env?: NodeJS.ProcessEnv } = {}) =>
  execFileSync(program, args, { stdio: ['ignore', 'pipe', 'pipe'], maxBuffer: 64 * 1024 * 1024, ...options });

/** Builds the agent stamped `version` into `outDir` (node build.mjs --outdir); returns the executable. */
export function buildAgent(version: string, outDir: string): string {
  execFileSync(process.execPath, [join(REPO_ROOT, 'build.mjs'), '--quiet', '--outdir', outDir], {
    cwd: REPO_ROOT,
    env: { ...process.env, ANC_VERSION: version },
    stdio: ['ignore', 'inherit', 'inherit'],
  });
  return join(outDir, 'aks-node-controller');
}

export interface HotfixPackages {
  version: string;
  bin: string;
  deb: string;
  rpm: string;
  built: BuiltPackage[];
  /** The aks-node-controller-delta packages (with `deltaFrom`). */
  delta?: { deb: string; rpm: string };
}

/**
 * Builds the agent at `version` and packages it (amd64, fast). `bin` skips the build and packages that
 * executable instead; with a different `version` that makes a broken package (metadata says one version,
 * the binary prints another).
 */
export function buildHotfixPackages(version: string, outDir: string, options: { bin?: string; deltaFrom?: string[] } = {}): HotfixPackages {
  mkdirSync(outDir, { recursive: true });
  const bin = options.bin ?? buildAgent(version, join(outDir, `bin-${version}`));
  const built = buildPackages({ bins: { amd64: bin }, outDir, version, fast: true, deltaFrom: options.deltaFrom });
  const file = (format: string, name = 'aks-node-controller') => built.find((b) => b.format === format && b.package === name)?.file;
  const delta = options.deltaFrom ? { deb: file('deb', 'aks-node-controller-delta')!, rpm: file('rpm', 'aks-node-controller-delta')! } : undefined;
  return { version, bin, deb: file('deb')!, rpm: file('rpm')!, built, delta };
}

export interface ServedRepo {
  url: string;
  dir: string;
  /** Paths requested so far (to assert the agent really went to the repo). */
  requests: string[];
  /** apt only: the binary keyring the repo is signed with. */
  keyring?: string;
  close(): Promise<void>;
}

/** A static file server for `dir` on 127.0.0.1 (random port). */
export async function serveDir(dir: string): Promise<Omit<ServedRepo, 'keyring'>> {
  const requests: string[] = [];
  const base = resolve(dir);
  const server = createServer((req, res) => {
    const path = decodeURIComponent((req.url ?? '/').split('?')[0]!);
    requests.push(path);
    const file = normalize(join(base, path));
    if (!(file === base || file.startsWith(base + sep)) || !existsSync(file) || !statSync(file).isFile()) {
      res.writeHead(404).end();
      return;
    }
    res.writeHead(200, { 'content-length': statSync(file).size });
    if (req.method === 'HEAD') res.end();
    else createReadStream(file).pipe(res);
  });
  await new Promise<void>((ok) => server.listen(0, '127.0.0.1', ok));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    dir: base,
    requests,
    close: () => new Promise<void>((ok) => server.close(() => ok())),
  };
}

/** Publishes the .deb files into `dir` as a flat, gpg-signed apt repo and serves it. */
export async function startAptRepo(dir: string, debs: string[] = []): Promise<ServedRepo> {
  mkdirSync(dir, { recursive: true });
  for (const deb of debs) copyFileSync(deb, join(dir, basename(deb)));
  writeFileSync(join(dir, 'Packages'), run('apt-ftparchive', ['packages', '.'], { cwd: dir }));
  run('gzip', ['-9kfn', 'Packages'], { cwd: dir });
  const release = run('apt-ftparchive', ['-o', 'APT::FTPArchive::Release::Origin=aks-local', '-o', 'APT::FTPArchive::Release::Suite=stable', 'release', '.'], { cwd: dir });
  writeFileSync(join(dir, 'Release'), release);
  const gnupg = mkdtempSync(join(tmpdir(), 'anc-gpg-'));
  const env = { ...process.env, GNUPGHOME: gnupg };
  try {
    run('gpg', ['--batch', '--passphrase', '', '--quick-gen-key', 'AKS test repo <repo@example.invalid>', 'ed25519', 'sign', '1d'], { env });
    run('gpg', ['--batch', '--yes', '--clearsign', '-o', 'InRelease', 'Release'], { cwd: dir, env });
    run('gpg', ['--batch', '--yes', '-abs', '-o', 'Release.gpg', 'Release'], { cwd: dir, env });
    const keyring = join(dir, '..', `${basename(dir)}-keyring.gpg`);
    writeFileSync(keyring, run('gpg', ['--export'], { env }));
    return { ...(await serveDir(dir)), keyring };
  } finally {
    run('gpgconf', ['--kill', 'all'], { env });
    rmSync(gnupg, { recursive: true, force: true });
  }
}

/** Publishes the .rpm files into `dir` (createrepo_c) and serves it. */
export async function startRpmRepo(dir: string, rpms: string[] = []): Promise<ServedRepo> {
  mkdirSync(dir, { recursive: true });
  for (const rpm of rpms) copyFileSync(rpm, join(dir, basename(rpm)));
  run('createrepo_c', ['-q', dir]);
  return serveDir(dir);
}

function write(root: string, path: string, content: string): string {
  const full = join(root, path);
  mkdirSync(join(full, '..'), { recursive: true });
  writeFileSync(full, content);
  return full;
}

/** The base-image stand-in for apt: a dpkg status declaring libc6 installed. */
const DPKG_STATUS_STUB = [
  'Package: libc6', 'Status: install ok installed', 'Priority: required', 'Section: libs', 'Installed-Size: 1',
  'Maintainer: stub <stub@example.invalid>', 'Architecture: amd64', 'Multi-Arch: same', 'Version: 2.36-9',
  'Description: stand-in for the base image C library', '',
].join('\n') + '\n';

/**
 * Makes `root` an Ubuntu-like sandbox for download-hotfix over apt: /etc/os-release, an apt.conf that
 * keeps apt and dpkg inside the root (the agent passes it as APT_CONFIG), a stub dpkg status, and
 * microsoft-prod.list pointing at the repo. `source: 'sources'` writes the deb822 form instead.
 */
export function prepareAptRoot(root: string, repo: ServedRepo, options: { source?: 'list' | 'sources' | 'none' } = {}): void {
  write(root, '/etc/os-release', 'NAME="Ubuntu"\nVERSION_ID="22.04"\nID=ubuntu\nID_LIKE=debian\n');
  for (const d of ['/var/lib/dpkg/updates', '/var/lib/dpkg/info', '/var/lib/dpkg/triggers', '/var/lib/apt/lists/partial',
    '/var/cache/apt/archives/partial', '/var/log/apt', '/etc/apt/apt.conf.d', '/etc/apt/preferences.d', '/etc/apt/sources.list.d']) {
    mkdirSync(join(root, d), { recursive: true });
  }
  write(root, '/var/lib/dpkg/status', DPKG_STATUS_STUB);
  write(root, '/var/lib/dpkg/available', '');
  write(root, '/var/lib/dpkg/info/libc6:amd64.list', '');
  write(root, '/etc/apt/apt.conf', [
    `Dir "${root}/";`,
    `Dir::State::status "${root}/var/lib/dpkg/status";`,
    'APT::Architecture "amd64";',
    'APT::Sandbox::User "root";',
    'Acquire::Languages "none";',
    `DPkg::Options { "--root=${root}"; "--admindir=${root}/var/lib/dpkg"; "--force-script-chrootless"; "--log=${root}/var/log/dpkg.log"; };`,
    'DPkg::Use-Pty "false";',
    '',
  ].join('\n'));
  const key = repo.keyring ? `signed-by=${repo.keyring}` : 'trusted=yes';
  if (options.source === 'sources') {
    write(root, '/etc/apt/sources.list.d/microsoft-prod.sources', `Types: deb\nURIs: ${repo.url}/\nSuites: ./\n${repo.keyring ? `Signed-By: ${repo.keyring}` : 'Trusted: yes'}\n`);
  } else if (options.source !== 'none') {
    write(root, '/etc/apt/sources.list.d/microsoft-prod.list', `deb [arch=amd64 ${key}] ${repo.url}/ ./\n`);
  }
}

/** A noarch rpm providing glibc: the base-image stand-in for dnf (built once per directory). */
export function buildBaseStubRpm(outDir: string): string {
  const out = join(outDir, 'base-os-stub-1.0-1.noarch.rpm');
  if (existsSync(out)) return out;
  const top = mkdtempSync(join(tmpdir(), 'anc-stubrpm-'));
  try {
    const spec = write(top, 'stub.spec', [
      'Name: base-os-stub', 'Version: 1.0', 'Release: 1', 'Summary: stand-in for the base image', 'License: MIT',
      'BuildArch: noarch', 'Provides: glibc = 2.38-1', '', '%description', 'Provides what the base image would.', '', '%files', '',
    ].join('\n'));
    mkdirSync(outDir, { recursive: true });
    run('rpmbuild', ['-bb', '--quiet', '--define', `_topdir ${top}`, '--define', `_rpmdir ${outDir}`,
      '--define', '_build_name_fmt %{NAME}-%{VERSION}-%{RELEASE}.%{ARCH}.rpm', spec]);
    return out;
  } finally {
    rmSync(top, { recursive: true, force: true });
  }
}

/**
 * Makes `root` an Azure-Linux-like sandbox for download-hotfix over dnf: /etc/os-release, a repo file in
 * <root>/etc/yum.repos.d (the agent passes --installroot and reposdir when sandboxed), a dnf.conf, and
 * the glibc stub installed into the root's rpm database.
 */
export function prepareRpmRoot(root: string, repo: ServedRepo, stubRpm: string): void {
  write(root, '/etc/os-release', 'NAME="Microsoft Azure Linux"\nVERSION_ID="3.0"\nID=azurelinux\n');
  write(root, '/etc/dnf/dnf.conf', `[main]\ngpgcheck=0\ninstall_weak_deps=False\nkeepcache=False\ncachedir=${root}/var/cache/dnf\n`);
  write(root, '/etc/yum.repos.d/microsoft-prod.repo', `[microsoft-prod]\nname=loopback test repo\nbaseurl=${repo.url}/\nenabled=1\ngpgcheck=0\nmetadata_expire=0\n`);
  mkdirSync(join(root, 'var/lib/rpm'), { recursive: true });
  run('rpm', ['--root', root, '--initdb']);
  run('rpm', ['--root', root, '-i', '--nodeps', '--ignorearch', stubRpm]);
}
