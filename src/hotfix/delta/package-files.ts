// Fetching and unpacking the aks-node-controller-delta package from the same verified repository as the
// full package: the .deb by the size and sha256 of the signed Packages index; the .rpm by the primary
// index's sha256 and its own signature (rpmkeys). The package must name itself, our version and our
// architecture; its payload is unpacked in memory with bounds and read file by file.
import { cpioFile, tarFile } from '../../formats/archive.ts';
import { type FastPathContext, timeLeft } from '../repository/context.ts';
import { debPayload } from '../repository/deb-package.ts';
import { integrityError, unavailableError } from '../repository/errors.ts';
import type { Fetcher } from '../repository/fetcher.ts';
import type { DebEntry } from '../repository/packages-index.ts';
import type { RpmEntry } from '../repository/repodata.ts';
import { rpmPayload, verifyRpmSignature } from '../repository/rpm-package.ts';
import { resolveUnder } from '../repository/url-rules.ts';
import { DELTA_PACKAGE_MAX_BYTES, DELTA_PAYLOAD_MAX_BYTES, type PackageFiles } from './delta-path.ts';
import { DELTA_PACKAGE_NAME } from './manifest.ts';

async function fetchDelta(
  ctx: FastPathContext,
  fetcher: Fetcher,
  base: URL,
  href: string,
  entry: { size: number; sha256: string },
): Promise<Buffer> {
  // A larger delta package is authentic but not worth it: the full package is the better download.
  if (entry.size > DELTA_PACKAGE_MAX_BYTES)
    throw unavailableError(`${DELTA_PACKAGE_NAME} is ${entry.size} bytes, above ${DELTA_PACKAGE_MAX_BYTES}`);
  const url = resolveUnder(base, href);
  if (typeof url === 'string') throw integrityError(`delta package location ${url}`);
  ctx.trace.packageBytes = entry.size;
  return fetcher.get(url, DELTA_PACKAGE_MAX_BYTES, { size: entry.size, sha256: entry.sha256 });
}

export function openDebDelta(ctx: FastPathContext, fetcher: Fetcher, base: URL, entry: DebEntry): () => Promise<PackageFiles> {
  return async () => {
    const deb = await fetchDelta(ctx, fetcher, base, entry.filename, entry);
    const identity = { name: DELTA_PACKAGE_NAME, version: ctx.version, arch: ctx.arch.deb };
    const tar = await debPayload(ctx.deps, deb, identity, DELTA_PAYLOAD_MAX_BYTES, {
      scratchDir: ctx.scratch.dir,
      timeoutMs: timeLeft(ctx),
    });
    return (path, maxBytes) => tarFile(tar, `./${path}`, maxBytes);
  };
}

export function openRpmDelta(
  ctx: FastPathContext,
  fetcher: Fetcher,
  base: URL,
  keyFiles: string[],
  entry: RpmEntry,
): () => Promise<PackageFiles> {
  return async () => {
    const rpm = await fetchDelta(ctx, fetcher, base, entry.href, entry);
    await verifyRpmSignature(ctx.deps, ctx.scratch, ctx.scratch.write('delta.rpm', rpm), keyFiles, () => timeLeft(ctx));
    const identity = { name: DELTA_PACKAGE_NAME, version: entry.version, release: entry.release, arch: ctx.arch.rpm };
    const cpio = await rpmPayload(ctx.deps, rpm, identity, DELTA_PAYLOAD_MAX_BYTES, {
      scratchDir: ctx.scratch.dir,
      timeoutMs: timeLeft(ctx),
    });
    return (path, maxBytes) => cpioFile(cpio, `./${path}`, maxBytes);
  };
}
