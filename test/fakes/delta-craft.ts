// Hand-made delta packages for attack tests: VCDIFF written instruction by instruction (RFC 3284, the
// default code table's explicit-size RUN and COPY-in-VCD_SELF-mode opcodes), and a delta .deb rebuilt
// around a chosen manifest and delta, as a compromised publisher could sign them.
import { createHash } from 'node:crypto';
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';

export const DELTA_DIR = 'usr/lib/aks-node-controller/delta';
const OP_RUN = 0; // RUN, size follows in the instruction section
const OP_COPY_SELF = 19; // COPY mode 0 (VCD_SELF), size follows; address in the address section

/** RFC 3284 section 2 integer: base 128, most significant digit first. */
function int(value: number): number[] {
  const digits = [value % 128];
  for (let v = Math.floor(value / 128); v > 0; v = Math.floor(v / 128)) digits.unshift((v % 128) | 0x80);
  return digits;
}

export type CraftedOp = { run: number; byte: number } | { copy: number; address: number };

export interface CraftedWindow {
  /** The source segment the window names (position, length in the base). */
  segment?: { position: number; length: number };
  ops: CraftedOp[];
}

export function craftVcdiff(windows: CraftedWindow[]): Buffer {
  const out: number[] = [0xd6, 0xc3, 0xc4, 0x00, 0x00];
  const parts: Buffer[] = [Buffer.from(out)];
  for (const w of windows) {
    const data: number[] = [];
    const inst: number[] = [];
    const addr: number[] = [];
    let length = 0;
    for (const op of w.ops) {
      if ('run' in op) {
        inst.push(OP_RUN, ...int(op.run));
        data.push(op.byte);
        length += op.run;
      } else {
        inst.push(OP_COPY_SELF, ...int(op.copy));
        addr.push(...int(op.address));
        length += op.copy;
      }
    }
    const encoding = [...int(length), 0, ...int(data.length), ...int(inst.length), ...int(addr.length), ...data, ...inst, ...addr];
    const head = w.segment ? [0x01, ...int(w.segment.length), ...int(w.segment.position)] : [0x00];
    parts.push(Buffer.from([...head, ...int(encoding.length), ...encoding]));
  }
  return Buffer.concat(parts);
}

const sha = (data: Uint8Array) => createHash('sha256').update(data).digest('hex');

/** Rebuilds a .deb after `change` edited its unpacked tree (a tampered publication, re-signed by the repo). */
export function repackDeb(deb: string, outDir: string, change: (tree: string) => void): string {
  const tree = mkdtempSync(join(tmpdir(), 'anc-repack-'));
  try {
    execFileSync('dpkg-deb', ['-R', deb, tree]);
    change(tree);
    mkdirSync(outDir, { recursive: true });
    const out = join(outDir, basename(deb));
    execFileSync('dpkg-deb', ['--root-owner-group', '-Zgzip', '--build', tree, out], { stdio: 'ignore' });
    return out;
  } finally {
    rmSync(tree, { recursive: true, force: true });
  }
}

/**
 * Rebuilds the delta .deb `deb` with one delta for `base` and a manifest whose target is `target`.
 * Returns the new .deb in `outDir`.
 */
export function craftDeltaDeb(
  deb: string,
  outDir: string,
  delta: Buffer,
  base: { sha256: string; size: number },
  target: { sha256: string; size: number },
  version = '202604.01.1',
): string {
  return repackDeb(deb, outDir, (tree) => {
    const dir = join(tree, DELTA_DIR);
    for (const name of readdirSync(dir)) rmSync(join(dir, name));
    writeFileSync(join(dir, `${base.sha256}.vcdiff`), delta);
    const manifest = {
      schema: 'aks-node-controller-delta/1',
      package: 'aks-node-controller',
      version,
      architecture: 'amd64',
      format: 'vcdiff',
      target,
      deltas: [{ base, file: `${base.sha256}.vcdiff`, sha256: sha(delta), size: delta.length }],
    };
    writeFileSync(join(dir, 'manifest.json'), `${JSON.stringify(manifest)}\n`);
    rmSync(join(tree, 'DEBIAN', 'md5sums'), { force: true });
  });
}
