// OpenPGP verification with the real `gpgv`, the tool apt itself uses: clearsigned InRelease (the
// verified text is what gpgv writes out, never our own reading of the armor) and detached signatures
// (repomd.xml.asc). A signature that is bad, by an unknown key or by an expired/revoked key is an
// integrity failure; a missing gpgv or keyring only makes the fast path unavailable.
import type { Deps } from '../../platform/deps.ts';
import { definedEnv } from '../../platform/deps.ts';
import { describeRun } from '../retry.ts';
import { dearmorPublicKeys, isArmored } from '../../formats/armor.ts';
import { collector } from './decompress.ts';
import { integrityError, unavailableError } from './errors.ts';
import { clearsignedProblem, detachedProblem } from '../../formats/openpgp-shape.ts';
import type { Scratch } from './scratch.ts';

const GPGV_TIMEOUT_MS = 30_000;
/** The verified Release text gpgv writes out is bounded like the InRelease it came from. */
const VERIFIED_TEXT_CAP = 4 * 1024 * 1024;

export interface Keyring {
  /** Where the key came from, for messages. */
  origin: string;
  data: Uint8Array;
}

/** Reads keyring files as given; armored ones are converted for gpgv. */
export function readKeyrings(deps: Deps, files: string[]): Keyring[] {
  return files.map((file) => {
    let data: Uint8Array;
    try {
      data = deps.fs.readFile(file, 'certificate');
    } catch (error) {
      throw unavailableError(`reading keyring ${file}: ${(error as Error).message}`, error);
    }
    return { origin: file, data };
  });
}

function writeKeyrings(scratch: Scratch, keyrings: Keyring[]): string[] {
  if (keyrings.length === 0) throw unavailableError('no keyring to verify the repository signature with');
  return keyrings.map((k, i) => {
    const text = Buffer.from(k.data).toString('latin1');
    const binary = isArmored(k.data) ? dearmorPublicKeys(text) : k.data;
    if (!binary) throw unavailableError(`keyring ${k.origin}: unreadable ASCII armor`);
    return scratch.write(`keyring-${i}.gpg`, binary);
  });
}

/** How long gpgv may take: min(its own bound, what the caller has left). */
export type TimeLeft = () => number;

async function gpgv(deps: Deps, scratch: Scratch, keyrings: Keyring[], args: string[], what: string, timeLeft: TimeLeft): Promise<Buffer> {
  const files = writeKeyrings(scratch, keyrings);
  deps.fs.mkdirp(scratch.file('gnupg'), 0o700);
  // Status lines on stderr; stdout carries the verified text (clearsigned), counted and capped.
  const argv = ['--homedir', scratch.file('gnupg'), '--status-fd', '2', ...files.flatMap((f) => ['--keyring', f]), ...args];
  const timeoutMs = Math.round(Math.min(GPGV_TIMEOUT_MS, timeLeft()));
  if (timeoutMs <= 0) throw unavailableError(`no time left to verify ${what}`);
  const out = collector();
  const result = await deps.proc.run({
    program: 'gpgv',
    args: argv,
    env: definedEnv(deps.env),
    timeoutMs,
    captureLimit: 64 * 1024,
    stdoutSink: out.sink,
    maxStdoutBytes: VERIFIED_TEXT_CAP,
  });
  if (result.spawnError) throw unavailableError(`gpgv: ${describeRun(result, 'gpgv')!.message}`);
  if (result.outputCapped) throw integrityError(`${what}: gpgv wrote more than ${VERIFIED_TEXT_CAP} bytes of signed text`);
  if (result.timedOut) throw unavailableError(`${what}: gpgv gave no answer within ${timeoutMs} ms`);
  const status = result.stderr
    .split('\n')
    .filter((l) => l.startsWith('[GNUPG:] '))
    .map((l) => l.slice(9));
  const has = (token: string) => status.some((l) => l.startsWith(`${token} `) || l === token);
  const refused = ['BADSIG', 'ERRSIG', 'NO_PUBKEY', 'EXPKEYSIG', 'REVKEYSIG', 'EXPSIG'].find(has);
  if (result.exitCode !== 0 || refused || !has('GOODSIG') || !has('VALIDSIG')) {
    const detail = refused ? status.find((l) => l.startsWith(refused)) : (describeRun(result, 'gpgv')?.message ?? 'no good signature');
    const keys = keyrings.map((k) => k.origin).join(', ');
    throw integrityError(`${what}: signature not verified by ${keys} (${detail})`);
  }
  return out.bytes();
}

/** Verifies a clearsigned document; returns exactly the signed text gpgv vouches for. */
export async function verifyClearsigned(
  deps: Deps,
  scratch: Scratch,
  signed: Uint8Array,
  keyrings: Keyring[],
  what: string,
  timeLeft: TimeLeft,
): Promise<string> {
  const problem = clearsignedProblem(Buffer.from(signed).toString('latin1'));
  if (problem) throw integrityError(`${what}: ${problem}`);
  const input = scratch.write('InRelease', signed);
  return (await gpgv(deps, scratch, keyrings, ['--output', '-', input], what, timeLeft)).toString('utf8');
}

/** Verifies a detached signature over `data`. */
export async function verifyDetached(
  deps: Deps,
  scratch: Scratch,
  data: Uint8Array,
  signature: Uint8Array,
  keyrings: Keyring[],
  what: string,
  timeLeft: TimeLeft,
): Promise<void> {
  const problem = detachedProblem(signature);
  if (problem) throw integrityError(`${what}: signature refused before verification: ${problem}`);
  const dataFile = scratch.write('signed-data', data);
  const sigFile = scratch.write('signed-data.asc', signature);
  await gpgv(deps, scratch, keyrings, [sigFile, dataFile], what, timeLeft);
}
