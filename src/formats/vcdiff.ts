// A VCDIFF decoder (RFC 3284) for delta hotfixes: the default code table, the near/same address cache,
// source-segment windows. Pure: the base executable comes in through a positional reader, read only where
// a COPY takes bytes from it (a window naming the whole base as its segment costs nothing by itself), and
// each reconstructed target window goes out through a sink, so only one window (xdelta3 writes 8 MiB) is
// in memory at a time. `checkpoint` runs before every window (the caller's deadline). Also accepted, because the stock encoder (xdelta3) can emit
// them: its application header (skipped) and its per-window Adler-32 (checked). Secondary compression,
// application-defined code tables and VCD_TARGET windows are refused as unsupported.
import { AgentError } from '../platform/errors.ts';
import { defaultCodeTable, type Instruction } from './vcdiff-code-table.ts';

const MAGIC = [0xd6, 0xc3, 0xc4, 0x00];
const HDR_DECOMPRESS = 0x01;
const HDR_CODETABLE = 0x02;
const HDR_APPHEADER = 0x04; // xdelta3 extension
const WIN_SOURCE = 0x01;
const WIN_TARGET = 0x02;
const WIN_ADLER32 = 0x04; // xdelta3 extension
const NEAR_SLOTS = 4;
const SAME_SLOTS = 3;

export interface VcdiffLimits {
  /** The largest target window accepted (bytes). */
  maxWindow: number;
  /** The reconstruction is refused as soon as it would exceed this many bytes. */
  maxTarget: number;
  /** Called before each window; throws to stop (a deadline). */
  checkpoint?: () => void;
}

export interface VcdiffSource {
  readonly size: number;
  /** Copies `length` bytes of the base from `position` into `target` at `offset`. */
  copyTo(target: Uint8Array, offset: number, position: number, length: number): void;
}

/** `malformed`: the delta does not decode; `unsupported`: a VCDIFF feature this decoder leaves out. */
export type VcdiffFault = 'malformed' | 'unsupported' | 'too-large';

export class VcdiffError extends AgentError {
  constructor(
    readonly fault: VcdiffFault,
    message: string,
  ) {
    super('ANC_HOTFIX', `vcdiff: ${message}`, { step: 'deltaDecode' });
  }
}

class Reader {
  pos: number;
  constructor(
    private readonly bytes: Uint8Array,
    start: number,
    readonly end: number,
    private readonly what: string,
  ) {
    this.pos = start;
  }
  byte(): number {
    if (this.pos >= this.end) throw new VcdiffError('malformed', `${this.what} ends early at byte ${this.pos}`);
    return this.bytes[this.pos++]!;
  }
  /** RFC 3284 section 2: base-128, most significant digit first, high bit = more digits follow. */
  int(): number {
    let value = 0;
    for (let i = 0; i < 8; i++) {
      const b = this.byte();
      value = value * 128 + (b & 0x7f);
      if (value > Number.MAX_SAFE_INTEGER / 128) throw new VcdiffError('malformed', `integer too large in ${this.what}`);
      if ((b & 0x80) === 0) return value;
    }
    throw new VcdiffError('malformed', `integer longer than 8 bytes in ${this.what}`);
  }
  take(length: number): Uint8Array {
    if (length > this.end - this.pos)
      throw new VcdiffError('malformed', `${this.what} needs ${length} bytes at ${this.pos}, has ${this.end - this.pos}`);
    this.pos += length;
    return this.bytes.subarray(this.pos - length, this.pos);
  }
  done(): boolean {
    return this.pos >= this.end;
  }
}

/**
 * Decodes `delta` against `source`, handing each target window to `sink` in order (one buffer is reused
 * for every window: the sink consumes it before returning). Returns the target size.
 */
export function decodeVcdiff(delta: Uint8Array, source: VcdiffSource, sink: (window: Uint8Array) => void, limits: VcdiffLimits): number {
  const file = new Reader(delta, 0, delta.length, 'delta');
  readHeader(file);
  let written = 0;
  const space = { buffer: new Uint8Array(0) };
  while (!file.done()) {
    limits.checkpoint?.();
    const window = decodeWindow(file, source, limits, space);
    written += window.length;
    if (written > limits.maxTarget) throw new VcdiffError('too-large', `reconstruction exceeds ${limits.maxTarget} bytes`);
    sink(window);
  }
  return written;
}

function readHeader(file: Reader): void {
  for (const expected of MAGIC) {
    if (file.byte() !== expected) throw new VcdiffError('malformed', 'not a VCDIFF file (bad magic or version)');
  }
  const indicator = file.byte();
  if (indicator & HDR_DECOMPRESS) throw new VcdiffError('unsupported', 'secondary compression (encode with xdelta3 -S none)');
  if (indicator & HDR_CODETABLE) throw new VcdiffError('unsupported', 'application-defined code table');
  if (indicator & ~(HDR_DECOMPRESS | HDR_CODETABLE | HDR_APPHEADER))
    throw new VcdiffError('malformed', `unknown header indicator bits 0x${indicator.toString(16)}`);
  if (indicator & HDR_APPHEADER) file.take(file.int());
}

function decodeWindow(file: Reader, source: VcdiffSource, limits: VcdiffLimits, space: { buffer: Uint8Array }): Uint8Array {
  const indicator = file.byte();
  if (indicator & WIN_TARGET) throw new VcdiffError('unsupported', 'VCD_TARGET windows');
  if (indicator & ~(WIN_SOURCE | WIN_ADLER32))
    throw new VcdiffError('malformed', `unknown window indicator bits 0x${indicator.toString(16)}`);
  const segment: Segment = { source, position: 0, length: 0 };
  if (indicator & WIN_SOURCE) {
    segment.length = file.int();
    segment.position = file.int();
    if (segment.position + segment.length > source.size) {
      throw new VcdiffError('malformed', `source segment [${segment.position}, +${segment.length}) outside the ${source.size}-byte base`);
    }
  }
  const encodingBytes = file.take(file.int());
  const encoding = new Reader(encodingBytes, 0, encodingBytes.length, 'window');
  const body = decodeEncoding(encoding, indicator);
  if (body.targetLength > limits.maxWindow)
    throw new VcdiffError('too-large', `target window of ${body.targetLength} bytes exceeds ${limits.maxWindow}`);
  if (space.buffer.length < body.targetLength) space.buffer = new Uint8Array(body.targetLength);
  const target = runInstructions(body, segment, space.buffer.subarray(0, body.targetLength));
  if (body.adler32 !== undefined && adler32(target) !== body.adler32) throw new VcdiffError('malformed', 'window Adler-32 mismatch');
  return target;
}

/** The window's source segment: read lazily, only what COPY instructions take from it. */
interface Segment {
  source: VcdiffSource;
  position: number;
  length: number;
}

interface WindowBody {
  targetLength: number;
  data: Reader;
  inst: Reader;
  addr: Reader;
  adler32?: number;
}

function decodeEncoding(r: Reader, windowIndicator: number): WindowBody {
  const targetLength = r.int();
  const deltaIndicator = r.byte();
  if (deltaIndicator !== 0) throw new VcdiffError('unsupported', 'compressed data/instruction/address sections');
  const lengths = [r.int(), r.int(), r.int()] as const;
  let adler: number | undefined;
  if (windowIndicator & WIN_ADLER32) {
    const b = r.take(4);
    adler = ((b[0]! << 24) | (b[1]! << 16) | (b[2]! << 8) | b[3]!) >>> 0;
  }
  const [data, inst, addr] = lengths.map(
    (length, i) => new Reader(r.take(length), 0, length, ['data section', 'instruction section', 'address section'][i]!),
  ) as [Reader, Reader, Reader];
  return { targetLength, data, inst, addr, adler32: adler };
}

function runInstructions(body: WindowBody, segment: Segment, target: Uint8Array): Uint8Array {
  const table = defaultCodeTable();
  const cache = { near: new Array<number>(NEAR_SLOTS).fill(0), nextSlot: 0, same: new Array<number>(SAME_SLOTS * 256).fill(0) };
  let t = 0;
  const execute = (op: Instruction) => {
    const size = op.size === 0 ? body.inst.int() : op.size;
    if (size > target.length - t) throw new VcdiffError('malformed', `instruction writes past the ${target.length}-byte target window`);
    if (op.type === 'add') {
      target.set(body.data.take(size), t);
    } else if (op.type === 'run') {
      target.fill(body.data.byte(), t, t + size);
    } else {
      const here = segment.length + t;
      const address = decodeAddress(body.addr, op.mode, here, cache);
      if (address >= here) throw new VcdiffError('malformed', `COPY address ${address} not before ${here}`);
      copy(target, t, segment, address, size);
    }
    t += size;
  };
  while (!body.inst.done()) {
    const entry = table[body.inst.byte()]!;
    if (entry[0]) execute(entry[0]);
    if (entry[1]) execute(entry[1]);
  }
  if (t !== target.length) throw new VcdiffError('malformed', `window produced ${t} of ${target.length} bytes`);
  return target;
}

interface AddressCache {
  near: number[];
  nextSlot: number;
  same: number[];
}

/** RFC 3284 section 5.3: VCD_SELF, VCD_HERE, near modes, same modes; then the cache update. */
function decodeAddress(addr: Reader, mode: number, here: number, cache: AddressCache): number {
  let address: number;
  if (mode === 0) address = addr.int();
  else if (mode === 1) address = here - addr.int();
  else if (mode < 2 + NEAR_SLOTS) address = cache.near[mode - 2]! + addr.int();
  else address = cache.same[(mode - 2 - NEAR_SLOTS) * 256 + addr.byte()]!;
  cache.near[cache.nextSlot] = address;
  cache.nextSlot = (cache.nextSlot + 1) % NEAR_SLOTS;
  cache.same[address % (SAME_SLOTS * 256)] = address;
  return address;
}

/** COPY from the combined space (source segment, then the target window so far); overlaps repeat. */
function copy(target: Uint8Array, t: number, segment: Segment, address: number, size: number): void {
  const s = segment.length;
  if (address + size <= s) {
    segment.source.copyTo(target, t, segment.position + address, size);
  } else if (address >= s && address - s + size <= t) {
    target.copyWithin(t, address - s, address - s + size);
  } else {
    let i = 0;
    if (address < s) {
      segment.source.copyTo(target, t, segment.position + address, s - address);
      i = s - address;
    }
    for (; i < size; i++) target[t + i] = target[address + i - s]!;
  }
}

function adler32(bytes: Uint8Array): number {
  let a = 1;
  let b = 0;
  for (let i = 0; i < bytes.length; ) {
    const end = Math.min(bytes.length, i + 5552);
    for (; i < end; i++) {
      a += bytes[i]!;
      b += a;
    }
    a %= 65521;
    b %= 65521;
  }
  return ((b << 16) | a) >>> 0;
}
