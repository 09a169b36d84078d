// Real package repositories on loopback for hotfix tests and demos: build the agent at a version, package
// it (.deb/.rpm, fast zstd mode), publish a signed apt repo (apt-ftparchive + a throwaway gpg key) or an
// rpm repo (createrepo_c), serve it on 127.0.0.1, and prepare a sandbox root (AKS_NODE_ROOT) whose apt /
// dnf configuration points at it, with stub base packages so libc6 / glibc dependencies resolve. Nothing
// here touches the host's package databases (toolchain-measurements 9.3, 9.4; docs/hotfix.md "sandbox").
import { execFileSync } from 'node:child_process';
import { copyFileSync, createReadStream, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { createHash } from 'node:crypto';
import { gunzipSync, gzipSync } from 'node:zlib';
import { basename, dirname, join, normalize, resolve, sep } from 'node:path';
import { buildPackages, type BuiltPackage } from '../../vhd/packaging/build-packages.mjs';
import { createSigningKey, debFiller, releaseText, rpmFiller, type ReleaseOptions, type SigningKey } from './repo-index.ts';

const REPO_ROOT = resolve(import.meta.dirname ?? new URL('.', import.meta.url).pathname, '..', '..');
const run = (program: string, args: string[], options: { cwd?: string; env?: NodeJS.ProcessEnv } = {}) =>
  execFileSync(program, args, { stdio: ['ignore', 'pipe', 'pipe'], maxBuffer: 64 * 1024 * 1024, ...options });

/** Builds the agent stamped `version` into `outDir` (node build.mjs --outdir [extraArgs]); returns the executable. */
export function buildAgent(version: string, outDir: string, extraArgs: string[] = []): string {
  execFileSync(process.execPath, [join(REPO_ROOT, 'build.mjs'), '--quiet', '--outdir', outDir, ...extraArgs], {
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
export function buildHotfixPackages(
  version: string,
  outDir: string,
  options: { bin?: string; deltaFrom?: string[]; formats?: Array<'deb' | 'rpm'>; arch?: 'amd64' | 'arm64' } = {},
): HotfixPackages {
  mkdirSync(outDir, { recursive: true });
  const bin = options.bin ?? buildAgent(version, join(outDir, `bin-${version}`));
  const built = buildPackages({
    // `arch` (default amd64) names the architecture of `bin`: the packages and the delta are for it.
    bins: { [options.arch ?? 'amd64']: bin },
    outDir,
    version,
    fast: true,
    deltaFrom: options.deltaFrom,
    formats: options.formats,
  });
  const file = (format: string, name = 'aks-node-controller') => built.find((b) => b.format === format && b.package === name)?.file;
  const delta = options.deltaFrom
    ? { deb: file('deb', 'aks-node-controller-delta')!, rpm: file('rpm', 'aks-node-controller-delta')! }
    : undefined;
  return { version, bin, deb: file('deb')!, rpm: file('rpm')!, built, delta };
}

export type Override = (req: IncomingMessage, res: ServerResponse) => void;

export interface ServedRepo {
  url: string;
  dir: string;
  /** Paths requested so far (to assert the agent really went to the repo). */
  requests: string[];
  /** Body bytes sent so far. */
  bytesServed: { count: number };
  /** Request path -> handler replacing the static answer (attacks: redirects, hangs, oversized bodies). */
  overrides: Map<string, Override>;
  /** The binary keyring the repo is signed with (apt's signed-by); `key` signs it. */
  keyring?: string;
  key?: SigningKey;
  /** Rewrites the index and its signed metadata (new Date, Valid-Until, another key). */
  publish?(options?: PublishOptions): void;
  /** apt only: the suite (and component) of the source line (`./` for a flat repo). */
  aptSuite?: { suite: string; components: string };
  close(): Promise<void>;
}

export interface PublishOptions extends ReleaseOptions {
  signWith?: SigningKey;
}

/** A static file server for `dir` on 127.0.0.1 (random port). */
export async function serveDir(dir: string): Promise<ServedRepo> {
  const requests: string[] = [];
  const bytesServed = { count: 0 };
  const overrides = new Map<string, Override>();
  const base = resolve(dir);
  const sockets = new Set<import('node:net').Socket>();
  const server = createServer((req, res) => {
    const path = decodeURIComponent((req.url ?? '/').split('?')[0]!);
    requests.push(path);
    const override = overrides.get(path);
    if (override) return override(req, res);
    const file = normalize(join(base, path));
    if (!(file === base || file.startsWith(base + sep)) || !existsSync(file) || !statSync(file).isFile()) {
      res.writeHead(404).end();
      return;
    }
    res.writeHead(200, { 'content-length': statSync(file).size });
    if (req.method === 'HEAD') return void res.end();
    bytesServed.count += statSync(file).size;
    createReadStream(file).pipe(res);
  });
  server.on('connection', (socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });
  await new Promise<void>((ok) => server.listen(0, '127.0.0.1', ok));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    dir: base,
    requests,
    bytesServed,
    overrides,
    close: () =>
      new Promise<void>((ok) => {
        for (const socket of sockets) socket.destroy();
        server.close(() => ok());
      }),
  };
}

export interface RepoOptions {
  /** `standard` (default): dists/<suite>/<component>/binary-<arch>/ + pool/, as the Microsoft repo; `flat`: one directory. */
  layout?: 'standard' | 'flat';
  /** Other package entries in the index (default: thousands, like the Microsoft repo). */
  filler?: number;
  key?: SigningKey;
  /** apt only: the architecture of the index (binary-<arch>/, default amd64). */
  arch?: 'amd64' | 'arm64';
}

export const APT_SUITE = 'stable';
export const APT_COMPONENT = 'main';

const PUBLISH_HOTFIX_INDEX = resolve(
  import.meta.dirname ?? new URL('.', import.meta.url).pathname,
  '../../vhd/packaging/publish-hotfix-index.sh',
);

/** docs/hotfix.md "The hotfix index": what the release engineer runs after publishing the packages. */
export function publishHotfixIndex(
  repo: ServedRepo,
  kind: 'apt' | 'rpm',
  signWith = repo.key!,
  repositoryPath = new URL(repo.url).pathname,
): void {
  const args = kind === 'apt' ? ['apt', repo.dir, APT_SUITE] : ['rpm', repo.dir];
  execFileSync(PUBLISH_HOTFIX_INDEX, args, {
    env: { ...process.env, GNUPGHOME: signWith.home, ANC_REPOSITORY_PATH: repositoryPath },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
}

/** Publishes the .deb files as a gpg-signed apt repo (standard layout unless told) and serves it. */
export async function startAptRepo(dir: string, debs: string[] = [], options: RepoOptions = {}): Promise<ServedRepo> {
  const layout = options.layout ?? 'standard';
  const pool = layout === 'flat' ? '.' : 'pool/main/a/aks-node-controller';
  mkdirSync(join(dir, pool), { recursive: true });
  for (const deb of debs) copyFileSync(deb, join(dir, pool, basename(deb)));
  const key = options.key ?? createSigningKey(dirname(resolve(dir)), `${basename(dir)}-key`);
  const arch = options.arch ?? 'amd64';
  const filler = debFiller(arch, options.filler);
  const ours = run('apt-ftparchive', ['packages', layout === 'flat' ? '.' : 'pool'], { cwd: dir }).toString();
  const indexDir = layout === 'flat' ? '' : `dists/${APT_SUITE}/${APT_COMPONENT}/binary-${arch}/`;
  const releaseDir = layout === 'flat' ? dir : join(dir, 'dists', APT_SUITE);
  const publish = (publishOptions: PublishOptions = {}) => {
    mkdirSync(join(dir, indexDir), { recursive: true });
    writeFileSync(join(dir, indexDir, 'Packages'), `${filler}\n${ours}`);
    run('gzip', ['-9kfn', 'Packages'], { cwd: join(dir, indexDir) });
    run('xz', ['-kf', 'Packages'], { cwd: join(dir, indexDir) });
    const rel = layout === 'flat' ? '' : `${APT_COMPONENT}/binary-${arch}/`;
    const files = ['Packages', 'Packages.gz', 'Packages.xz'].map((f) => `${rel}${f}`);
    writeFileSync(join(releaseDir, 'Release'), releaseText(releaseDir, files, APT_SUITE, APT_COMPONENT, arch, publishOptions));
    const signer = publishOptions.signWith ?? key;
    signer.clearsign(join(releaseDir, 'Release'), join(releaseDir, 'InRelease'));
    signer.detachSign(join(releaseDir, 'Release'), join(releaseDir, 'Release.gpg'));
  };
  publish();
  const served = await serveDir(dir);
  return {
    ...served,
    keyring: key.keyring,
    key,
    publish,
    aptSuite: layout === 'flat' ? { suite: './', components: '' } : { suite: APT_SUITE, components: APT_COMPONENT },
    close: async () => {
      await served.close();
      if (!options.key) key.close();
    },
  };
}

/** Publishes the .rpm files (signed with rpmsign) as a createrepo_c repo with a signed repomd.xml and serves it. */
export async function startRpmRepo(dir: string, rpms: string[] = [], options: RepoOptions = {}): Promise<ServedRepo> {
  mkdirSync(join(dir, 'Packages'), { recursive: true });
  const key = options.key ?? createSigningKey(dirname(resolve(dir)), `${basename(dir)}-key`);
  for (const rpm of rpms) {
    const copy = join(dir, 'Packages', basename(rpm));
    copyFileSync(rpm, copy);
    run('rpmsign', [
      '--addsign',
      '--define',
      '__gpg /usr/bin/gpg',
      '--define',
      `_gpg_path ${key.home}`,
      '--define',
      '_gpg_name repo@example.invalid',
      copy,
    ]);
  }
  const filler = rpmFiller('x86_64', options.filler);
  const publish = (publishOptions: PublishOptions = {}) => {
    rmSync(join(dir, 'repodata'), { recursive: true, force: true });
    run('createrepo_c', [
      '-q',
      '--general-compress-type=gz',
      '--revision',
      String(Math.floor((publishOptions.date ?? new Date()).getTime() / 1000)),
      dir,
    ]);
    injectRpmFiller(dir, filler, options.filler);
    (publishOptions.signWith ?? key).detachSign(join(dir, 'repodata/repomd.xml'), join(dir, 'repodata/repomd.xml.asc'));
  };
  publish();
  const served = await serveDir(dir);
  return {
    ...served,
    keyring: key.armored,
    key,
    publish,
    close: async () => {
      await served.close();
      if (!options.key) key.close();
    },
  };
}

/** Adds the synthetic entries to createrepo_c's primary.xml.gz and updates repomd.xml to match. */
function injectRpmFiller(dir: string, filler: string, count = 6000): void {
  const repodata = join(dir, 'repodata');
  const repomdFile = join(repodata, 'repomd.xml');
  let repomd = readFileSync(repomdFile, 'utf8');
  const block = /<data type="primary">[\s\S]*?<\/data>/.exec(repomd)![0];
  const href = /<location href="([^"]+)"/.exec(block)![1]!;
  const xml = gunzipSync(readFileSync(join(dir, href)))
    .toString('utf8')
    .replace(/packages="(\d+)"/, (_m, n) => `packages="${Number(n) + count}"`)
    .replace('</metadata>', `${filler}</metadata>`);
  const packed = gzipSync(xml, { level: 6 });
  rmSync(join(dir, href));
  const digest = createHash('sha256').update(packed).digest('hex');
  const newHref = `repodata/${digest}-primary.xml.gz`;
  writeFileSync(join(dir, newHref), packed);
  const openDigest = createHash('sha256').update(xml).digest('hex');
  const updated = block
    .replace(/<checksum type="sha256">[0-9a-f]+<\/checksum>/, `<checksum type="sha256">${digest}</checksum>`)
    .replace(/<open-checksum type="sha256">[0-9a-f]+<\/open-checksum>/, `<open-checksum type="sha256">${openDigest}</open-checksum>`)
    .replace(/<location href="[^"]+"\/>/, `<location href="${newHref}"/>`)
    .replace(/<size>\d+<\/size>/, `<size>${packed.length}</size>`)
    .replace(/<open-size>\d+<\/open-size>/, `<open-size>${Buffer.byteLength(xml)}</open-size>`);
  repomd = repomd.replace(block, updated);
  writeFileSync(repomdFile, repomd);
}

function write(root: string, path: string, content: string): string {
  const full = join(root, path);
  mkdirSync(join(full, '..'), { recursive: true });
  writeFileSync(full, content);
  return full;
}

/** The base-image stand-in for apt: a dpkg status declaring libc6 installed. */
const DPKG_STATUS_STUB =
  [
    'Package: libc6',
    'Status: install ok installed',
    'Priority: required',
    'Section: libs',
    'Installed-Size: 1',
    'Maintainer: stub <stub@example.invalid>',
    'Architecture: amd64',
    'Multi-Arch: same',
    'Version: 2.36-9',
    'Description: stand-in for the base image C library',
    '',
  ].join('\n') + '\n';

/**
 * Makes `root` an Ubuntu-like sandbox for download-hotfix over apt: /etc/os-release, an apt.conf that
 * keeps apt and dpkg inside the root (the agent passes it as APT_CONFIG), a stub dpkg status, and
 * microsoft-prod.list pointing at the repo. `source: 'sources'` writes the deb822 form instead.
 */
export function prepareAptRoot(root: string, repo: ServedRepo, options: { source?: 'list' | 'sources' | 'none' } = {}): void {
  write(root, '/etc/os-release', 'NAME="Ubuntu"\nVERSION_ID="22.04"\nID=ubuntu\nID_LIKE=debian\n');
  for (const d of [
    '/var/lib/dpkg/updates',
    '/var/lib/dpkg/info',
    '/var/lib/dpkg/triggers',
    '/var/lib/apt/lists/partial',
    '/var/cache/apt/archives/partial',
    '/var/log/apt',
    '/etc/apt/apt.conf.d',
    '/etc/apt/preferences.d',
    '/etc/apt/sources.list.d',
  ]) {
    mkdirSync(join(root, d), { recursive: true });
  }
  write(root, '/var/lib/dpkg/status', DPKG_STATUS_STUB);
  write(root, '/var/lib/dpkg/available', '');
  write(root, '/var/lib/dpkg/info/libc6:amd64.list', '');
  write(
    root,
    '/etc/apt/apt.conf',
    [
      `Dir "${root}/";`,
      `Dir::State::status "${root}/var/lib/dpkg/status";`,
      'APT::Architecture "amd64";',
      'APT::Sandbox::User "root";',
      'Acquire::Languages "none";',
      `DPkg::Options { "--root=${root}"; "--admindir=${root}/var/lib/dpkg"; "--force-script-chrootless"; "--log=${root}/var/log/dpkg.log"; };`,
      'DPkg::Use-Pty "false";',
      '',
    ].join('\n'),
  );
  const key = repo.keyring ? `signed-by=${repo.keyring}` : 'trusted=yes';
  const { suite, components } = repo.aptSuite ?? { suite: './', components: '' };
  if (options.source === 'sources') {
    const fields = [
      `Types: deb`,
      `URIs: ${repo.url}/`,
      `Suites: ${suite}`,
      ...(components ? [`Components: ${components}`] : []),
      repo.keyring ? `Signed-By: ${repo.keyring}` : 'Trusted: yes',
    ];
    write(root, '/etc/apt/sources.list.d/microsoft-prod.sources', `${fields.join('\n')}\n`);
  } else if (options.source !== 'none') {
    write(
      root,
      '/etc/apt/sources.list.d/microsoft-prod.list',
      `deb [arch=amd64 ${key}] ${repo.url}/ ${suite}${components ? ` ${components}` : ''}\n`,
    );
  }
}

/** A noarch rpm providing glibc: the base-image stand-in for dnf (built once per directory). */
export function buildBaseStubRpm(outDir: string): string {
  const out = join(outDir, 'base-os-stub-1.0-1.noarch.rpm');
  if (existsSync(out)) return out;
  const top = mkdtempSync(join(tmpdir(), 'anc-stubrpm-'));
  try {
    const spec = write(
      top,
      'stub.spec',
      [
        'Name: base-os-stub',
        'Version: 1.0',
        'Release: 1',
        'Summary: stand-in for the base image',
        'License: MIT',
        'BuildArch: noarch',
        'Provides: glibc = 2.38-1',
        '',
        '%description',
        'Provides what the base image would.',
        '',
        '%files',
        '',
      ].join('\n'),
    );
    mkdirSync(outDir, { recursive: true });
    run('rpmbuild', [
      '-bb',
      '--quiet',
      '--define',
      `_topdir ${top}`,
      '--define',
      `_rpmdir ${outDir}`,
      '--define',
      '_build_name_fmt %{NAME}-%{VERSION}-%{RELEASE}.%{ARCH}.rpm',
      spec,
    ]);
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
  const check = repo.keyring ? `gpgcheck=1\nrepo_gpgcheck=0\ngpgkey=file://${repo.keyring}` : 'gpgcheck=0';
  write(
    root,
    '/etc/yum.repos.d/microsoft-prod.repo',
    `[microsoft-prod]\nname=loopback test repo\nbaseurl=${repo.url}/\nenabled=1\n${check}\nmetadata_expire=0\n`,
  );
  mkdirSync(join(root, 'var/lib/rpm'), { recursive: true });
  run('rpm', ['--root', root, '--initdb']);
  run('rpm', ['--root', root, '-i', '--nodeps', '--ignorearch', stubRpm]);
}
