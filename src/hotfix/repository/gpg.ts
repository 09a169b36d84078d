// OpenPGP verification with the real `gpgv`, the tool apt itself uses: clearsigned InRelease (the
// verified text is what gpgv writes out, never our own reading of the armor) and detached signatures
// (repomd.xml.asc). A signature that is bad or by an expired/revoked key is an integrity failure, and so is
// a document no trusted key signed; a second signature by a key this node lacks (a key rotation) is not.
// A missing gpgv or keyring only makes the fast path unavailable.
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
    fifoDir: scratch.dir,
    maxStdoutBytes: VERIFIED_TEXT_CAP,
  });
  if (result.spawnError) throw unavailableError(`gpgv: ${describeRun(result, 'gpgv')!.message}`);
  if (result.outputCapped) throw integrityError(`${what}: gpgv wrote more than ${VERIFIED_TEXT_CAP} bytes of signed text`);
  if (result.timedOut) throw unavailableError(`${what}: gpgv gave no answer within ${timeoutMs} ms`);
  const status = result.stderr
    .split('\n')
    .filter((l) => l.startsWith('[GNUPG:] '))
    .map((l) => l.slice(9));
  const refusal = judgeSignatures(status, result.exitCode);
  if (refusal) {
    const detail = refusal === 'no good signature' ? (describeRun(result, 'gpgv')?.message ?? refusal) : refusal;
    const keys = keyrings.map((k) => k.origin).join(', ');
    throw integrityError(`${what}: signature not verified by ${keys} (${detail})`);
  }
  return out.bytes();
}

/**
 * gpgv's status lines -> undefined when the bytes are vouched for, else why not. As apt does during a key
 * rotation: a document may carry several signatures, and it is accepted when one is good and valid by a
 * trusted key and every other one is good too or only by a key this node does not have (ERRSIG +
 * NO_PUBKEY, gpgv exit 2). Any bad, expired, revoked or otherwise unverifiable signature refuses it, and
 * so does more than one signed text: every signature then covers the one text gpgv writes out.
 */
export function judgeSignatures(status: string[], exitCode: number | null): string | undefined {
  const groups: string[][] = [];
  for (const line of status) {
    if (line.startsWith('NEWSIG')) groups.push([]);
    else groups.at(-1)?.push(line);
  }
  const has = (lines: string[], token: string) => lines.find((l) => l.startsWith(`${token} `) || l === token);
  if (status.filter((l) => l.startsWith('PLAINTEXT ')).length > 1) return 'more than one signed text';
  let good = 0;
  for (const lines of groups) {
    const refused = ['BADSIG', 'EXPKEYSIG', 'REVKEYSIG', 'EXPSIG'].map((t) => has(lines, t)).find(Boolean);
    if (refused) return refused;
    if (has(lines, 'GOODSIG') && has(lines, 'VALIDSIG')) good++;
    else if (!has(lines, 'NO_PUBKEY')) return has(lines, 'ERRSIG') ?? 'a signature gpgv did not judge';
  }
  // Exit 2 is gpgv's "some signature could not be checked": only the unknown keys tolerated above.
  const exitOk = exitCode === 0 || (exitCode === 2 && good < groups.length);
  if (good === 0) return groups.map((lines) => has(lines, 'NO_PUBKEY')).find(Boolean) ?? 'no good signature';
  return exitOk ? undefined : `gpgv exited with status ${exitCode}`;
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
