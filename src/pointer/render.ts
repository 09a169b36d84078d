// `hotfix pointer render` flags -> the signed-pointer payload fields, with every check an operator
// should hear about before anything is published. Pure.
import { AgentError } from '../platform/errors.ts';
import { expectedBinaryVersion, HOTFIX_BASE, SAFE_HOTFIX_VERSION } from './version.ts';
import { parseRfc3339, SCOPE_KEYS, type PointerFields, type RolloutWave, type SignedPointer } from './payload.ts';
import { parseScheduleFlag, percentAt } from './schedule.ts';

export interface RenderFlags {
  hotfix: readonly string[];
  rollout: readonly string[];
  /** BASE=PERCENT@TIME,... (schedule.ts); the wave's salt is the hotfix version. */
  schedule?: readonly string[];
  serial: string | undefined;
  expires: string | undefined;
  scope: readonly string[];
  /** Versions nodes must give up (`--recall V`, repeatable). */
  recall?: readonly string[];
}

function usage(message: string, hint = 'Run `aks-node-controller hotfix pointer render --help` for the flags.'): AgentError {
  return new AgentError('ANC_USAGE', message, { hint });
}

function define<T>(out: Record<string, T>, key: string, value: T): void {
  Object.defineProperty(out, key, { value, enumerable: true, writable: true, configurable: true });
}

export function pointerFieldsFromFlags(flags: RenderFlags, now: Date): PointerFields {
  const hotfixes: Record<string, string> = {};
  for (const entry of flags.hotfix) {
    const [base, version] = splitOnce(entry, '=');
    if (!HOTFIX_BASE.test(base) || version === undefined || !SAFE_HOTFIX_VERSION.test(version))
      throw usage(`--hotfix ${JSON.stringify(entry)}: expected BASE=VERSION, e.g. 202604.01=202604.01.1`);
    if (!version.startsWith(`${base}.`)) throw usage(`--hotfix ${entry}: version ${version} is not a patch of base ${base}`);
    if (Object.hasOwn(hotfixes, base)) throw usage(`--hotfix: base ${base} is given twice`);
    define(hotfixes, base, version);
  }
  const rollout: Record<string, RolloutWave> = {};
  for (const entry of flags.rollout) {
    const [base, rest] = splitOnce(entry, '=');
    const [percentText, salt] = rest === undefined ? ['', undefined] : splitOnce(rest, ':');
    const percent = Number(percentText);
    if (!HOTFIX_BASE.test(base) || !/^\d{1,3}(\.\d+)?$/.test(percentText) || percent > 100 || salt === undefined || salt === '') {
      throw usage(`--rollout ${JSON.stringify(entry)}: expected BASE=PERCENT:SALT with PERCENT 0..100, e.g. 202604.01=10:wave-2026-11`);
    }
    if (!Object.hasOwn(hotfixes, base)) throw usage(`--rollout ${entry}: base ${base} has no --hotfix`);
    if (Object.hasOwn(rollout, base)) throw usage(`--rollout: base ${base} is given twice`);
    define(rollout, base, { percent, salt });
  }
  for (const entry of flags.schedule ?? []) {
    const parsed = parseScheduleFlag(entry);
    const where = `--schedule ${JSON.stringify(entry.slice(0, 200))}`;
    if ('error' in parsed)
      throw usage(`${where}: ${parsed.error}, e.g. 202604.01=1@2026-12-01T00:00Z,10@2026-12-02T00:00Z,100@2026-12-04T00:00Z`);
    if (!Object.hasOwn(hotfixes, parsed.base)) throw usage(`${where}: base ${parsed.base} has no --hotfix`);
    if (Object.hasOwn(rollout, parsed.base)) throw usage(`${where}: base ${parsed.base} already has a --rollout or --schedule`);
    // percent 0 is what an agent that predates schedules reads: none of the wave until it is upgraded.
    define(rollout, parsed.base, { percent: 0, salt: hotfixes[parsed.base]!, schedule: parsed.steps });
  }
  if (flags.serial === undefined)
    throw usage(
      '--serial is missing: give the pointer a serial higher than every one published before (or --kubeconfig to propose the next)',
    );
  const serialText = flags.serial;
  const serial = Number(serialText);
  if (!/^\d+$/.test(serialText) || !Number.isSafeInteger(serial) || serial < 1) {
    throw usage(`--serial ${JSON.stringify(serialText)}: expected an integer >= 1, higher than every serial published before`);
  }
  if (flags.expires === undefined)
    throw usage('--expires is missing: give the time the pointer expires, RFC 3339, e.g. 2026-12-31T00:00:00Z');
  const expires = flags.expires;
  const expiresAt = parseRfc3339(expires);
  if (!expiresAt)
    throw usage(
      `--expires ${JSON.stringify(expires)}: expected a valid RFC 3339 time (a real calendar date and time with its zone), e.g. 2026-12-31T00:00:00Z`,
    );
  if (expiresAt.getTime() <= now.getTime()) throw usage(`--expires ${expires} is already past (now ${now.toISOString()})`);
  const scope: Record<string, string[]> = {};
  for (const entry of flags.scope) {
    const [key, value] = splitOnce(entry, '=');
    if (!(SCOPE_KEYS as readonly string[]).includes(key) || value === undefined || value.trim() === '') {
      throw usage(`--scope ${JSON.stringify(entry)}: expected KEY=VALUE with KEY one of ${SCOPE_KEYS.join(', ')}`);
    }
    if (!Object.hasOwn(scope, key)) define(scope, key, []);
    if (!scope[key]!.includes(value.trim())) scope[key]!.push(value.trim());
  }
  const recall: string[] = [];
  for (const version of flags.recall ?? []) {
    if (!SAFE_HOTFIX_VERSION.test(version)) throw usage(`--recall ${JSON.stringify(version)}: expected a hotfix version, e.g. 202604.01.1`);
    refuseRecallOfShipped(version, hotfixes);
    if (!recall.includes(version)) recall.push(version);
  }
  return {
    serial,
    expires,
    scope,
    hotfixes,
    ...(Object.keys(rollout).length > 0 ? { rollout } : {}),
    ...(recall.length > 0 ? { recall } : {}),
  };
}

function splitOnce(text: string, separator: string): [string, string | undefined] {
  const at = text.indexOf(separator);
  return at < 0 ? [text, undefined] : [text.slice(0, at), text.slice(at + 1)];
}

/**
 * A recall of a patch-0 version (the image's own agent: nodes cannot give it up, and `rollout status` would
 * send healthy baked nodes to a reimage) or of the version this pointer ships for its base (the package
 * revision does not make 202604.01.1-1 another version than 202604.01.1).
 */
function refuseRecallOfShipped(version: string, hotfixes: Record<string, string>): void {
  const base = version.split('.').slice(0, 2).join('.');
  if (/^\d{6}\.\d{2}\.0(-\d+)?$/.test(version))
    throw usage(
      `--recall ${version}: ${expectedBinaryVersion(version)} is the agent baked into image ${base} (patch 0): a node cannot give up its image's own agent`,
      'Recall the hotfix version that is bad (YYYYMM.DD.N with N >= 1); to stop a rollout, withdraw it (`render --halt --withdraw`).',
    );
  const shipped = Object.hasOwn(hotfixes, base) ? hotfixes[base]! : undefined;
  if (shipped !== undefined && expectedBinaryVersion(shipped) === expectedBinaryVersion(version))
    throw usage(
      `--recall ${version}: this pointer ships ${shipped} for image ${base}, the same version (a package revision is not another version)`,
      'Ship a fixed version with --hotfix, or leave the base out to offer nothing, and recall the bad one.',
    );
}

/** A serial this far above the live one is refused without --force: nodes never go back below a serial they took. */
export const SERIAL_JUMP_LIMIT = 1000;

export interface SlipChecks {
  now: Date;
  /** --backdate: a schedule whose steps are all past is meant. */
  backdate: boolean;
  /** --force: a recall the live pointer never offered, a serial jump above SERIAL_JUMP_LIMIT. */
  force: boolean;
  /** With --kubeconfig/--context: the live pointer (undefined fields: the cluster has none, or it carries none). */
  live?: { serial?: number; hotfixes: readonly string[]; recall: readonly string[] };
}

/** The slips `render` refuses before anything is signed (issue 37 section 4). */
export function refuseSlips(fields: PointerFields, checks: SlipChecks): void {
  for (const [base, wave] of Object.entries(fields.rollout ?? {})) {
    const last = wave.schedule?.[wave.schedule.length - 1];
    if (last && !checks.backdate && last.atMs <= checks.now.getTime())
      throw usage(
        `--schedule ${base}: every step is already past (the last, ${last.percent}% at ${last.at}; now ${checks.now.toISOString()}): the wave would open at ${last.percent}% at once`,
        'Give step times in the future, or pass --backdate when an immediate wave is meant.',
      );
  }
  const live = checks.live;
  if (!live || checks.force) return;
  if (live.serial !== undefined && fields.serial > live.serial + SERIAL_JUMP_LIMIT)
    throw usage(
      `--serial ${fields.serial} is ${fields.serial - live.serial} above the live pointer's serial ${live.serial}: a node that takes it refuses every later pointer with a lower serial, for good (at 2^53-1, every later pointer)`,
      `Use --serial ${live.serial + 1} (or leave --serial out), or pass --force when the jump is meant.`,
    );
  const offered = new Set([...live.hotfixes, ...live.recall].map(expectedBinaryVersion));
  for (const version of fields.recall ?? [])
    if (!offered.has(expectedBinaryVersion(version)))
      throw usage(
        `--recall ${version}: the live pointer${live.serial === undefined ? '' : ` (serial ${live.serial})`} never offered it (it offers ${live.hotfixes.join(', ') || 'nothing'}${live.recall.length > 0 ? `, recalls ${live.recall.join(', ')}` : ''}): a mistyped recall recalls nothing`,
        'Check the version against `hotfix rollout status`, or pass --force to recall a version an earlier pointer offered.',
      );
}

/** `-o text`: what the pointer asks of which nodes, for people (the manifest is the YAML default). */
export function pointerSummary(fields: PointerFields, now?: Date): string {
  const lines = ['hotfix pointer (ConfigMap kube-system/anc-hotfix-version, unsigned):'];
  for (const [base, version] of Object.entries(fields.hotfixes)) {
    const wave = fields.rollout?.[base];
    if (wave?.schedule) {
      lines.push(`  image ${base}: take ${version} on a schedule (wave ${wave.salt}):`);
      for (const step of wave.schedule)
        lines.push(
          `    ${String(step.percent).padStart(3)}% of nodes from ${step.at}${now && step.atMs <= now.getTime() ? ' (past)' : ''}`,
        );
    } else lines.push(`  image ${base}: take ${version}${wave ? ` on ${wave.percent}% of nodes (wave ${wave.salt})` : ' on every node'}`);
  }
  for (const version of fields.recall ?? [])
    lines.push(`  recall   ${version}: every node gives it up (baked agent and scripts); provisioned nodes are flagged to reimage`);
  const scope = Object.entries(fields.scope).map(([key, values]) => `${key} ${values.join(', ')}`);
  lines.push(
    `  serial   ${fields.serial}`,
    `  expires  ${fields.expires}`,
    `  scope    ${scope.length > 0 ? scope.join('; ') : 'every node'}`,
  );
  lines.push('', 'Print the manifest without -o (YAML) or with -o json; sign it with `hotfix pointer sign`.');
  return `${lines.join('\n')}\n`;
}

/**
 * `render --halt`: the live pointer made into a halting one. Serial + 1 (or `serial` when given), every
 * scheduled wave frozen at the percent in force at `at` (a plain percent; old and new agents read it
 * alike), or every base withdrawn to 0% with `withdraw`. A node that already staged the hotfix keeps it.
 */
export function haltFields(
  live: SignedPointer,
  options: { serial?: number; at: Date; withdraw: boolean; expires?: string },
): PointerFields {
  const rollout: Record<string, RolloutWave> = {};
  for (const [base, wave] of Object.entries(live.rollout ?? {})) {
    const percent = options.withdraw ? 0 : wave.schedule ? percentAt(wave.schedule, options.at) : wave.percent;
    define(rollout, base, { percent, salt: wave.salt });
  }
  if (options.withdraw)
    for (const [base, version] of Object.entries(live.hotfixes))
      if (!Object.hasOwn(rollout, base)) define(rollout, base, { percent: 0, salt: version });
  return {
    serial: options.serial ?? live.serial + 1,
    expires: options.expires ?? live.expires,
    scope: live.scope,
    hotfixes: live.hotfixes,
    ...(Object.keys(rollout).length > 0 ? { rollout } : {}),
    // A halt never lifts a recall.
    ...(live.recall && live.recall.length > 0 ? { recall: live.recall } : {}),
    halted: options.at.toISOString().replace(/\.\d{3}Z$/, 'Z'),
  };
}
