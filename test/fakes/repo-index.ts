// Realistic repository metadata for the loopback repos (test/fakes/repos.ts): thousands of other package
// entries beside ours, as packages.microsoft.com serves them, so metadata costs what it costs; the
// Debian Release file with controllable Date / Valid-Until; throwaway OpenPGP signing keys.
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const run = (program: string, args: string[], options: { cwd?: string; env?: NodeJS.ProcessEnv } = {}) =>
  execFileSync(program, args, { stdio: ['ignore', 'pipe', 'pipe'], maxBuffer: 256 * 1024 * 1024, ...options });

export const FILLER_ENTRIES = 6000;
const NAMES = [
  'azure-cli',
  'moby-engine',
  'moby-cli',
  'moby-containerd',
  'moby-runc',
  'blobfuse2',
  'powershell',
  'dotnet-runtime-8.0',
  'aspnetcore-runtime-8.0',
  'msodbcsql18',
  'mssql-tools18',
  'azcmagent',
  'kubectl',
  'kubelet',
  'containerd',
  'nvidia-container-toolkit',
  'walinuxagent',
  'azure-vm-utils',
  'mdatp',
  'omi',
  'scx',
  'defender-iot-micro-agent',
  'intune-portal',
  'code',
  'edge',
];

const sha = (algo: string, text: string) => createHash(algo).update(text).digest('hex');

/** One synthetic entry (name cycles through real Microsoft package names, many versions of each). */
function fillerName(i: number): { name: string; version: string } {
  const name = NAMES[i % NAMES.length]!;
  return { name, version: `${1 + (i % 7)}.${Math.floor(i / NAMES.length) % 40}.${i % 13}-${1 + (i % 3)}` };
}

/** Debian Packages stanzas for FILLER_ENTRIES other packages (plus older aks-node-controller builds). */
export function debFiller(arch: string, count = FILLER_ENTRIES): string {
  const out: string[] = [];
  for (let i = 0; i < count; i++) {
    const { name, version } =
      i % 500 === 7 ? { name: 'aks-node-controller', version: `202603.${String(10 + (i % 17)).padStart(2, '0')}.${i % 5}` } : fillerName(i);
    const file = `pool/main/${name[0]}/${name}/${name}_${version}_${arch}.deb`;
    out.push(
      [
        `Package: ${name}`,
        `Version: ${version}`,
        `Architecture: ${arch}`,
        'Maintainer: Microsoft Corporation <packages@microsoft.com>',
        `Installed-Size: ${1000 + ((i * 37) % 90000)}`,
        'Depends: libc6 (>= 2.17), libssl3 (>= 3.0.0), ca-certificates',
        `Filename: ${file}`,
        `Size: ${50_000 + ((i * 7919) % 9_000_000)}`,
        `MD5sum: ${sha('md5', file)}`,
        `SHA1: ${sha('sha1', file)}`,
        `SHA256: ${sha('sha256', file)}`,
        `SHA512: ${sha('sha512', file)}`,
        'Section: utils',
        'Priority: optional',
        'Homepage: https://github.com/microsoft',
        `Description: ${name} ${version} (synthetic index entry)`,
        ` Stand-in for one of the thousands of entries of the Microsoft repository.`,
        '',
      ].join('\n'),
    );
  }
  return out.join('\n');
}

/** rpm primary.xml <package> blocks for FILLER_ENTRIES other packages. */
export function rpmFiller(arch: string, count = FILLER_ENTRIES): string {
  const out: string[] = [];
  for (let i = 0; i < count; i++) {
    const { name, version } = fillerName(i);
    const [ver, rel] = version.split('-');
    const href = `Packages/${name[0]}/${name}-${ver}-${rel}.${arch}.rpm`;
    out.push(`<package type="rpm">
  <name>${name}</name>
  <arch>${arch}</arch>
  <version epoch="0" ver="${ver}" rel="${rel}"/>
  <checksum type="sha256" pkgid="YES">${sha('sha256', href)}</checksum>
  <summary>${name} (synthetic index entry)</summary>
  <description>Stand-in for one of the thousands of entries of the Microsoft repository.</description>
  <packager>Microsoft Corporation</packager>
  <url>https://github.com/microsoft</url>
  <time file="1700000000" build="1700000000"/>
  <size package="${50_000 + ((i * 7919) % 9_000_000)}" installed="${100_000 + i}" archive="${100_500 + i}"/>
  <location href="${href}"/>
  <format>
    <rpm:license>MIT</rpm:license>
    <rpm:vendor>Microsoft Corporation</rpm:vendor>
    <rpm:group>Unspecified</rpm:group>
    <rpm:buildhost>reproducible</rpm:buildhost>
    <rpm:sourcerpm>${name}-${ver}-${rel}.src.rpm</rpm:sourcerpm>
    <rpm:header-range start="4504" end="9000"/>
    <rpm:provides>
      <rpm:entry name="${name}" flags="EQ" epoch="0" ver="${ver}" rel="${rel}"/>
    </rpm:provides>
  </format>
</package>
`);
  }
  return out.join('');
}

export interface ReleaseOptions {
  date?: Date;
  validUntil?: Date;
}

/** A Release file over `files` (paths relative to `dir`), as the Debian repository format defines it. */
export function releaseText(
  dir: string,
  files: string[],
  suite: string,
  components: string,
  arches: string,
  options: ReleaseOptions = {},
): string {
  const date = options.date ?? new Date();
  const lines = ['Origin: aks-local', 'Label: aks-local', `Suite: ${suite}`, `Codename: ${suite}`, `Date: ${date.toUTCString()}`];
  if (options.validUntil) lines.push(`Valid-Until: ${options.validUntil.toUTCString()}`);
  lines.push(`Architectures: ${arches}`, `Components: ${components}`, 'Description: loopback test repository', 'SHA256:');
  for (const file of files) {
    const data = readFileSync(join(dir, file));
    lines.push(` ${createHash('sha256').update(data).digest('hex')} ${String(statSync(join(dir, file)).size).padStart(16)} ${file}`);
  }
  return lines.join('\n') + '\n';
}

export interface SigningKey {
  home: string;
  /** Binary keyring (what apt's signed-by usually names). */
  keyring: string;
  /** ASCII-armored public key (what dnf's gpgkey names). */
  armored: string;
  clearsign(input: string, output: string): void;
  detachSign(input: string, output: string): void;
  close(): void;
}

/** A throwaway signing key (RSA: what the Microsoft repositories use, and what every rpm version reads). */
export function createSigningKey(outDir: string, name: string): SigningKey {
  const home = mkdtempSync(join(tmpdir(), 'anc-gpg-'));
  const env = { ...process.env, GNUPGHOME: home };
  run('gpg', ['--batch', '--passphrase', '', '--quick-gen-key', `${name} <repo@example.invalid>`, 'rsa2048', 'sign', '1y'], { env });
  const keyring = join(outDir, `${name}.gpg`);
  const armored = join(outDir, `${name}.asc`);
  writeFileSync(keyring, run('gpg', ['--export'], { env }));
  writeFileSync(armored, run('gpg', ['--armor', '--export'], { env }));
  return {
    home,
    keyring,
    armored,
    clearsign: (input, output) =>
      void run('gpg', ['--batch', '--yes', '--digest-algo', 'SHA256', '--clearsign', '-o', output, input], { env }),
    detachSign: (input, output) => void run('gpg', ['--batch', '--yes', '--armor', '--detach-sign', '-o', output, input], { env }),
    close() {
      run('gpgconf', ['--kill', 'all'], { env });
      rmSync(home, { recursive: true, force: true });
    },
  };
}

/** A signer whose signatures carry both keys' (a key rotation): one clearsigned text, two signature packets. */
export function createRotationSigner(first: SigningKey, second: SigningKey): SigningKey {
  const home = mkdtempSync(join(tmpdir(), 'anc-gpg-rotation-'));
  const env = { ...process.env, GNUPGHOME: home };
  const fingerprints: string[] = [];
  for (const key of [first, second]) {
    const secret = run('gpg', ['--batch', '--pinentry-mode', 'loopback', '--passphrase', '', '--export-secret-keys'], {
      env: { ...process.env, GNUPGHOME: key.home },
    });
    execFileSync('gpg', ['--batch', '--import'], { input: secret, env, stdio: ['pipe', 'pipe', 'pipe'] });
    const colons = run('gpg', ['--with-colons', '--list-secret-keys'], { env: { ...process.env, GNUPGHOME: key.home } }).toString();
    fingerprints.push(/^fpr:+([0-9A-F]+):/m.exec(colons)![1]!);
  }
  const users = fingerprints.flatMap((f) => ['-u', f]);
  return {
    home,
    keyring: first.keyring,
    armored: first.armored,
    clearsign: (input, output) =>
      void run('gpg', ['--batch', '--yes', '--digest-algo', 'SHA256', ...users, '--clearsign', '-o', output, input], { env }),
    detachSign: (input, output) =>
      void run('gpg', ['--batch', '--yes', ...users, '--armor', '--detach-sign', '-o', output, input], { env }),
    close() {
      run('gpgconf', ['--kill', 'all'], { env });
      rmSync(home, { recursive: true, force: true });
    },
  };
}
