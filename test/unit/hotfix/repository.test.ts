// The fast path's pure parts: sources, Release, Packages, repodata, .repo files, URL rules, proxies,
// armor, the archive readers; and the bounded HTTP GET against a real loopback server.
import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { describeFetchError, httpGet } from '../../../src/platform/http.ts';
import { parseDeb822Sources, parseOneLineSources, releaseDirectory } from '../../../src/hotfix/repository/apt-source.ts';
import { arMembers, cpioFile, tarFile } from '../../../src/formats/archive.ts';
import { dearmorPublicKeys } from '../../../src/formats/armor.ts';
import { findDebEntry } from '../../../src/hotfix/repository/packages-index.ts';
import { aptProxy, dnfProxy, parseAptConf } from '../../../src/hotfix/repository/proxy.ts';
import { choosePackagesIndex, parseRelease } from '../../../src/formats/release.ts';
import { findRpmEntry, parseRepomd } from '../../../src/hotfix/repository/repodata.ts';
import { isLocalHost, resolveUnder, urlRuleViolation } from '../../../src/hotfix/repository/url-rules.ts';
import { enabledRepos } from '../../../src/hotfix/repository/yum-repo.ts';
import { collector, decode, decodeBytes, hasInProcessZstd } from '../../../src/hotfix/repository/decompress.ts';
import { cpioExtractor, tarExtractor } from '../../../src/formats/archive-stream.ts';
import { scanIndex } from '../../../src/hotfix/repository/index-scan.ts';
import { clearsignedProblem, detachedProblem } from '../../../src/formats/openpgp-shape.ts';
import { createScratch } from '../../../src/hotfix/repository/scratch.ts';
import { runProcess, which } from '../../../src/platform/proc.ts';
import { fakeDeps } from '../../fakes/deps.ts';
import { debFiller } from '../../fakes/repo-index.ts';

const SHA = 'a'.repeat(64);

test('one-line sources: options, arch filter, signed-by as written, components; deb-src ignored', () => {
  const r = parseOneLineSources(
    '# comment\ndeb-src http://x/ jammy main\ndeb [arch=amd64,arm64 signed-by=/usr/share/keyrings/microsoft-prod.gpg] https://packages.microsoft.com/ubuntu/22.04/prod jammy main\n',
  );
  assert.ok(r.ok);
  assert.equal(r.ok && r.entries, [
    {
      uri: 'https://packages.microsoft.com/ubuntu/22.04/prod',
      suite: 'jammy',
      components: ['main'],
      architectures: ['amd64', 'arm64'],
      signedBy: { files: ['/usr/share/keyrings/microsoft-prod.gpg'] },
      trusted: false,
    },
  ]);
  const trusted = parseOneLineSources('deb [trusted=yes] http://127.0.0.1:8/ ./');
  assert.is(trusted.ok && trusted.entries[0]!.trusted, true);
  assert.equal(parseOneLineSources('deb'), { ok: false, problem: 'unreadable source line "deb"' });
});

test('deb822 sources: multi-value fields, disabled stanzas, embedded key, trailing blank lines', () => {
  const text =
    'Types: deb\nURIs: https://a/ubuntu\nSuites: noble\nComponents: main\nEnabled: no\n\n' +
    'Types: deb deb-src\nURIs: https://packages.microsoft.com/ubuntu/24.04/prod\nSuites: noble\nComponents: main\nArchitectures: amd64\n' +
    'Signed-By:\n -----BEGIN PGP PUBLIC KEY BLOCK-----\n .\n QUJD\n -----END PGP PUBLIC KEY BLOCK-----\n\n\n';
  const r = parseDeb822Sources(text);
  assert.ok(r.ok);
  const entries = r.ok ? r.entries : [];
  assert.is(entries.length, 1);
  assert.is(entries[0]!.uri, 'https://packages.microsoft.com/ubuntu/24.04/prod');
  assert.ok(entries[0]!.signedBy?.embedded?.includes('QUJD'));
  assert.is(releaseDirectory(entries[0]!), 'https://packages.microsoft.com/ubuntu/24.04/prod/dists/noble/');
  assert.is(releaseDirectory({ ...entries[0]!, suite: './', uri: 'http://h/r' }), 'http://h/r/');
});

test('Release: dates, Valid-Until, SHA256 table; index choice prefers what unpacks cheapest', () => {
  const text = `Origin: x\nDate: Sat, 01 Nov 2026 10:00:00 UTC\nValid-Until: Sat, 08 Nov 2026 10:00:00 UTC\nSHA256:\n ${SHA} 100 main/binary-amd64/Packages\n ${SHA} 30 main/binary-amd64/Packages.gz\n ${SHA} 25 main/binary-amd64/Packages.xz\n`;
  const r = parseRelease(text);
  assert.ok(typeof r !== 'string');
  if (typeof r === 'string') return;
  assert.is(r.date?.toISOString(), '2026-11-01T10:00:00.000Z');
  assert.is(r.validUntil?.toISOString(), '2026-11-08T10:00:00.000Z');
  assert.equal(r.sha256.get('main/binary-amd64/Packages.gz'), { size: 30, sha256: SHA });
  assert.equal(choosePackagesIndex(r, 'main/binary-amd64/Packages', true), { path: 'main/binary-amd64/Packages.gz', compression: 'gz' });
  assert.is(choosePackagesIndex(r, 'contrib/binary-amd64/Packages', true), undefined);
  assert.is(parseRelease('Date: yesterday\n'), 'unreadable Date "yesterday"');
});

test('Packages: exact version (revision included) and architecture among thousands of entries', () => {
  const ours = (v: string, arch = 'amd64') =>
    `Package: aks-node-controller\nVersion: ${v}\nArchitecture: ${arch}\nFilename: pool/a_${v}_${arch}.deb\nSize: 42\nSHA256: ${SHA}\n`;
  const index = `${debFiller('amd64')}\n${ours('202604.01.1', 'arm64')}\n${ours('202604.01.1-2')}\n${ours('202604.01.1')}\n`;
  assert.equal(findDebEntry(index, '202604.01.1', 'amd64'), {
    version: '202604.01.1',
    architecture: 'amd64',
    filename: 'pool/a_202604.01.1_amd64.deb',
    size: 42,
    sha256: SHA,
  });
  assert.is((findDebEntry(index, '202604.01.1-2', 'amd64') as { filename: string }).filename, 'pool/a_202604.01.1-2_amd64.deb');
  assert.match(findDebEntry(index, '202604.01.3', 'amd64') as string, 'aks-node-controller 202604.01.3 for amd64 is not in the index');
  assert.match(
    findDebEntry(`Package: aks-node-controller\nVersion: 1\nArchitecture: amd64\n`, '1', 'amd64') as string,
    'lacks Filename, Size or SHA256',
  );
});

test('repomd + primary: sha256-pinned primary, exact version/release/arch, highest release without revision', () => {
  const repomd = `<repomd><revision>1790000000</revision><data type="other"><checksum type="sha256">${'b'.repeat(64)}</checksum></data><data type="primary">\n<checksum type="sha256">${SHA}</checksum><location href="repodata/x-primary.xml.zst"/><size>77</size></data></repomd>`;
  assert.equal(parseRepomd(repomd), { revision: 1790000000, primary: { href: 'repodata/x-primary.xml.zst', sha256: SHA, size: 77 } });
  assert.is(
    parseRepomd(repomd.replace('type="sha256">a', 'type="sha1">a')),
    'repomd.xml primary entry lacks a sha256 checksum or location',
  );
  const pkg = (rel: string, arch = 'x86_64') =>
    `<package type="rpm"><name>aks-node-controller</name><arch>${arch}</arch><version epoch="0" ver="202604.01.1" rel="${rel}"/><checksum type="sha256" pkgid="YES">${SHA}</checksum><size package="9" installed="1" archive="1"/><location href="Packages/a-${rel}.${arch}.rpm"/></package>`;
  const primary = `<metadata>${pkg('1')}${pkg('10')}${pkg('2')}${pkg('3', 'aarch64')}</metadata>`;
  assert.is((findRpmEntry(primary, '202604.01.1', 'x86_64') as { release: string }).release, '10');
  assert.is((findRpmEntry(primary, '202604.01.1-2', 'x86_64') as { href: string }).href, 'Packages/a-2.x86_64.rpm');
  assert.match(findRpmEntry(primary, '202604.01.1-3', 'x86_64') as string, 'is not in the primary index');
});

test('.repo files: enabled repos, variables substituted, gpgcheck default from [main], unknown variable refused', () => {
  const text =
    '[main]\ngpgcheck=1\n[ms]\nname=x\nbaseurl=https://packages.microsoft.com/azurelinux/$releasever/prod/base/$basearch\ngpgkey=file:///etc/pki/rpm-gpg/MICROSOFT-RPM-GPG-KEY\n[off]\nbaseurl=https://x/\nenabled=0\n';
  assert.equal(enabledRepos(text, { releasever: '3.0', basearch: 'x86_64', arch: 'x86_64' }, true), [
    {
      id: 'ms',
      baseurl: 'https://packages.microsoft.com/azurelinux/3.0/prod/base/x86_64',
      gpgkeys: ['file:///etc/pki/rpm-gpg/MICROSOFT-RPM-GPG-KEY'],
      gpgcheck: true,
      proxy: undefined,
    },
  ]);
  assert.match(enabledRepos('[r]\nbaseurl=https://x/$infra/\n', {}, true) as string, 'unknown variable');
});

test('URL rules: HTTPS or local plain HTTP, same origin, under the base, no escaping paths', () => {
  for (const host of [
    '127.0.0.1',
    'localhost',
    '10.1.2.3',
    '172.31.0.1',
    '192.168.1.1',
    '169.254.169.254',
    '[::1]',
    '[fe80::1]',
    '[fd00::1]',
  ]) {
    assert.ok(isLocalHost(host), host);
  }
  for (const host of ['8.8.8.8', '172.32.0.1', 'packages.microsoft.com', '[2001:db8::1]']) assert.not.ok(isLocalHost(host), host);
  const base = new URL('https://packages.microsoft.com/ubuntu/22.04/prod/');
  assert.is(urlRuleViolation(base, new URL('https://packages.microsoft.com/ubuntu/22.04/prod/pool/main/a.deb')), undefined);
  assert.match(urlRuleViolation(base, new URL('https://evil.example/ubuntu/22.04/prod/a.deb'))!, 'leaves the repository origin');
  assert.match(
    urlRuleViolation(base, new URL('https://packages.microsoft.com/ubuntu/24.04/prod/a.deb'))!,
    'is not under the repository base',
  );
  assert.match(urlRuleViolation(new URL('http://example.com/r/'), new URL('http://example.com/r/a'))!, 'plain HTTP to a public host');
  assert.is(urlRuleViolation(new URL('http://127.0.0.1:8080/r/'), new URL('http://127.0.0.1:8080/r/a')), undefined);
  assert.match(resolveUnder(base, '../../24.04/prod/a.deb') as string, 'escapes the repository');
  assert.match(resolveUnder(base, 'pool/%2e%2e/x') as string, 'escapes the repository');
  assert.match(resolveUnder(base, 'https://evil.example/a.deb') as string, 'is not a relative path');
  assert.is(String(resolveUnder(base, './pool/a+b_1.0.deb')), 'https://packages.microsoft.com/ubuntu/22.04/prod/pool/a%2Bb_1.0.deb');
});

test('proxy: apt flat and nested syntax, per-host DIRECT, environment fallback; dnf proxy and _none_', () => {
  assert.equal(
    [...parseAptConf('Acquire { http { Proxy "http://p:3128"; }; };\n// c\nAcquire::https::Proxy "http://s:3128";')],
    [
      ['acquire::http::proxy', 'http://p:3128'],
      ['acquire::https::proxy', 'http://s:3128'],
    ],
  );
  const url = new URL('https://packages.microsoft.com/x/');
  assert.is(aptProxy(['Acquire::https::Proxy "http://s:3128";'], url, {}), 'http://s:3128');
  assert.is(
    aptProxy(['Acquire::https::Proxy "http://s:3128";', 'Acquire::https::Proxy::packages.microsoft.com "DIRECT";'], url, {}),
    undefined,
  );
  assert.is(aptProxy([], url, { https_proxy: 'http://env:1' }), 'http://env:1');
  assert.is(dnfProxy(undefined, 'http://main:1', url, {}), 'http://main:1');
  assert.is(dnfProxy('_none_', 'http://main:1', url, { https_proxy: 'http://env:1' }), undefined);
});

test('armor: dearmors concatenated public key blocks (gpg --export --armor round trip)', () => {
  const home = mkdtempSync(join(tmpdir(), 'anc-unit-gpg-'));
  try {
    const env = { ...process.env, GNUPGHOME: home };
    execFileSync('gpg', ['--batch', '--passphrase', '', '--quick-gen-key', 'unit <u@example.invalid>', 'ed25519', 'sign', '1d'], {
      env,
      stdio: 'ignore',
    });
    const binary = execFileSync('gpg', ['--export'], { env });
    const armored = execFileSync('gpg', ['--armor', '--export'], { env }).toString();
    assert.equal(dearmorPublicKeys(armored), binary);
    assert.equal(dearmorPublicKeys(armored + armored), Buffer.concat([binary, binary]));
    execFileSync('gpgconf', ['--kill', 'all'], { env });
  } finally {
    rmSync(home, { recursive: true, force: true });
  }
});

test('archives: ar members, tar (prefix/./ names, size bound, type check), cpio newc; the same as streams', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'anc-unit-ar-'));
  try {
    writeFileSync(join(dir, 'debian-binary'), '2.0\n');
    execFileSync(
      'sh',
      [
        '-c',
        'mkdir -p t/usr/bin && printf hello > t/usr/bin/aks-node-controller && ln -s x t/usr/bin/link && tar -C t -cf data.tar ./usr && ar q x.deb debian-binary data.tar 2>/dev/null',
      ],
      { cwd: dir },
    );
    const members = arMembers(readFileSync(join(dir, 'x.deb')));
    assert.equal(Array.isArray(members) && members.map((m) => m.name), ['debian-binary', 'data.tar']);
    const tar = readFileSync(join(dir, 'data.tar'));
    assert.equal(tarFile(tar, './usr/bin/aks-node-controller', 100), Buffer.from('hello'));
    assert.match(tarFile(tar, './usr/bin/aks-node-controller', 3) as string, 'above the 3-byte limit');
    assert.match(tarFile(tar, './usr/bin/link', 100) as string, 'is not a regular file');
    assert.match(tarFile(tar, './usr/bin/other', 100) as string, 'is not in the package');
    execFileSync('sh', ['-c', 'cd t && find . | cpio --quiet -o -H newc > ../p.cpio'], { cwd: dir });
    assert.equal(cpioFile(readFileSync(join(dir, 'p.cpio')), './usr/bin/aks-node-controller', 100), Buffer.from('hello'));
    assert.is(arMembers(gzipSync('x')), 'not an ar archive');
    // The same members as streams, fed in awkward pieces (a header split across chunks) through one
    // reused buffer, as a decoder's FIFO delivers them: the parser keeps only copies.
    const streamed = async (make: typeof tarExtractor, bytes: Buffer, wanted: string, max: number) => {
      const parts: Buffer[] = [];
      const x = make(wanted, max, { write: (c) => void parts.push(Buffer.from(c)) });
      const reused = Buffer.alloc(97);
      for (let at = 0; at < bytes.length; at += 97) {
        const n = bytes.copy(reused, 0, at, at + 97);
        x.sink.write(reused.subarray(0, n));
        reused.fill(0xee);
      }
      x.sink.end?.();
      return x.problem() ?? Buffer.concat(parts).toString();
    };
    assert.is(await streamed(tarExtractor, tar, './usr/bin/aks-node-controller', 100), 'hello');
    assert.match(await streamed(tarExtractor, tar, './usr/bin/aks-node-controller', 3), 'above the 3-byte limit');
    assert.match(await streamed(tarExtractor, tar, './usr/bin/link', 100), 'is not a regular file');
    assert.match(await streamed(tarExtractor, tar, './usr/bin/other', 100), 'is not in the package');
    assert.match(await streamed(tarExtractor, tar.subarray(0, 700), './usr/bin/other', 100), 'truncated');
    assert.is(await streamed(cpioExtractor, readFileSync(join(dir, 'p.cpio')), './usr/bin/aks-node-controller', 100), 'hello');
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('index scan keeps only our records, across chunk boundaries; OpenPGP shape checks refuse non-signatures', async () => {
  const scan = scanIndex('Packages', '\n\n', 'Package: aks-node-controller');
  const text = `${debFiller('amd64', 300)}\nPackage: aks-node-controller\nVersion: 1\n\nPackage: other\nVersion: 2\n`;
  const reused = Buffer.alloc(1000);
  for (let at = 0; at < text.length; at += 1000) {
    scan.sink.write(reused.subarray(0, reused.write(text.slice(at, at + 1000), 'latin1')));
    reused.fill(0xee);
  }
  scan.sink.end?.();
  assert.ok(scan.kept().includes('Package: aks-node-controller\nVersion: 1\n'));
  assert.not.ok(scan.kept().includes('Package: other'));
  // Every possible cut (separators straddling chunks included): one byte at a time, and 3 at a time.
  for (const step of [1, 3]) {
    const fine = scanIndex('Packages', '\n\n', 'Package: aks-node-controller');
    for (let at = 0; at < text.length; at += step) fine.sink.write(Buffer.from(text.slice(at, at + step)));
    fine.sink.end?.();
    assert.is(fine.kept(), scan.kept(), `chunks of ${step}`);
  }
  assert.match(clearsignedProblem('-----BEGIN PGP MESSAGE-----\n\nowGbwMvMwCE')!, 'not a clearsigned document');
  // A compressed-data packet (tag 8, new format) where a signature belongs.
  assert.match(detachedProblem(Buffer.from([0xc8, 0x03, 0x01, 0x02, 0x03]))!, 'packet of type 8');
  assert.match(detachedProblem(Buffer.from([0xa3, 0x01, 0x78]))!, 'indeterminate-length');
  assert.is(detachedProblem(Buffer.from([0xc2, 0x02, 0x04, 0x00])), undefined);
});

test('httpGet: byte cap, redirects asked for, status and hang reported (not thrown)', async () => {
  const server = createServer((req, res) => {
    if (req.url === '/big') return void res.end(Buffer.alloc(5000));
    if (req.url === '/redirect') return void res.writeHead(302, { location: '/ok' }).end();
    if (req.url === '/ok') return void res.end('fine');
    if (req.url === '/hang') return;
    res.writeHead(404).end();
  });
  await new Promise<void>((ok) => server.listen(0, '127.0.0.1', ok));
  const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const get = (path: string, allow = true, timeoutMs = 5000) =>
    httpGet(new URL(path, base), { maxBytes: 1000, timeoutMs, allowRedirect: () => allow });
  try {
    const big = await get('/big');
    assert.equal([big.ok, !big.ok && big.kind], [false, 'too-large']);
    const followed = await get('/redirect');
    assert.ok(followed.ok && followed.body.toString() === 'fine' && followed.url.pathname === '/ok');
    const refused = await get('/redirect', false);
    assert.equal(!refused.ok && refused.kind, 'redirect');
    const missing = await get('/nope');
    assert.equal(!missing.ok && [missing.kind, missing.message.endsWith('HTTP 404')], ['status', true]);
    const hang = await get('/hang', true, 300);
    assert.equal(!hang.ok && hang.kind, 'timeout');
  } finally {
    server.closeAllConnections();
    server.close();
  }
});

test('decode: gzip in-process, zstd/xz through the tools (output through a FIFO) under Node 20, output bounded', async () => {
  const d = fakeDeps({ run: runProcess, which });
  const scratch = createScratch(d);
  try {
    const text = Buffer.from('index '.repeat(10_000));
    const input = scratch.write('in', text);
    execFileSync('sh', ['-c', 'zstd -q -19 -k -f "$1" -o "$1.zst" && xz -k -f "$1"', 'sh', input]);
    assert.is(hasInProcessZstd(), false, 'Node 20 has no zstd in node:zlib (bun has)');
    const bytes = (compression: 'gz' | 'zst' | 'xz', packed: Uint8Array, maxBytes: number, what = 'x') =>
      decodeBytes(d, { compression, bytes: packed, maxBytes, what, scratchDir: scratch.dir, timeoutMs: 10_000 });
    assert.equal(await bytes('gz', gzipSync(text), 1e6), text);
    assert.equal(await bytes('zst', readFileSync(`${input}.zst`), 1e6), text);
    assert.equal(await bytes('xz', readFileSync(`${input}.xz`), 1e6), text);
    for (const kind of ['gz', 'zst', 'xz'] as const) {
      const packed = kind === 'gz' ? gzipSync(text) : readFileSync(`${input}.${kind}`);
      await bytes(kind, packed, 1000, 'Packages').then(
        () => assert.unreachable(`${kind}: bound not enforced`),
        (e: Error & { step?: string }) =>
          assert.equal([e.step, /unpacks to more than the 1000-byte limit/.test(e.message)], ['integrityFailed', true]),
      );
    }
    // A file range: read in place by the tool (stdin positioned at the member), cut by head -c when more
    // bytes follow it (a .deb member and its ar padding); uncompressed, copied through one buffer.
    const fromFile = async (compression: 'zst' | 'xz' | 'gz' | 'none', file: string, offset: number, length: number) => {
      const out = collector();
      const input = { file, offset, length };
      await decode(d, { compression, input, sink: out.sink, scratchDir: scratch.dir, maxBytes: 2e6, what: 'data.tar', timeoutMs: 10_000 });
      return out.bytes();
    };
    for (const kind of ['zst', 'xz'] as const) {
      const packed = readFileSync(`${input}.${kind}`);
      const padded = scratch.write(`padded.${kind}`, Buffer.concat([Buffer.from('ar header'), packed, Buffer.from('\n')]));
      const atEnd = scratch.write(`end.${kind}`, Buffer.concat([Buffer.from('ar header'), packed]));
      assert.equal(await fromFile(kind, padded, 9, packed.length), text, `${kind} range followed by padding`);
      assert.equal(await fromFile(kind, atEnd, 9, packed.length), text, `${kind} range at the end of the file`);
    }
    // A large gzip file (a whole Packages.gz) goes through the gzip tool as well.
    const large = Buffer.from(randomBytes(400 * 1024).toString('hex'));
    const largeGz = gzipSync(large);
    assert.ok(largeGz.length >= 256 * 1024, 'large enough for the tool');
    assert.equal(await fromFile('gz', scratch.write('Packages.gz', largeGz), 0, largeGz.length), large);
    assert.equal(
      await fromFile('none', scratch.write('plain', Buffer.concat([Buffer.from('x'), text, Buffer.from('y')])), 1, text.length),
      text,
    );
    // Nothing of the FIFOs is left in the scratch directory.
    assert.equal(
      readdirSync(scratch.dir).filter((f) => f.endsWith('.fifo')),
      [],
    );
  } finally {
    scratch.remove();
    d.cleanup();
  }
});

test('a fetch error through an authenticated proxy never carries its password (raw or %-decoded)', () => {
  const proxy = 'http://fleet:s3cret%21pass@10.0.0.9:3128';
  const error = new Error('Unable to connect to proxy http://fleet:s3cret%21pass@10.0.0.9:3128', {
    cause: new Error('ECONNREFUSED while using s3cret!pass'),
  });
  const text = describeFetchError(error, proxy);
  assert.not.match(text, 's3cret');
  assert.match(text, '10.0.0.9:3128');
  assert.is(describeFetchError(new Error('plain'), undefined), 'plain');
});

test.run();
