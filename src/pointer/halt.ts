// `hotfix pointer render --halt`: the live pointer (the cluster's, or a ConfigMap file) rendered as a
// halting one (render.ts haltFields), ready to sign now and keep for the day a wave goes wrong.
import type { Deps } from '../platform/deps.ts';
import { AgentError } from '../platform/errors.ts';
import type { ConfigMapDoc } from './configmap.ts';

export interface HaltFlags {
  hotfix?: string[];
  rollout?: string[];
  schedule?: string[];
  scope?: string[];
  withdraw?: boolean;
  /** --from FILE: its name, and its text read by the command. */
  from?: string;
  fromText?: string;
  at?: string;
  serial?: string;
  expires?: string;
  kubeconfig?: string;
  context?: string;
  force?: boolean;
}

/** `--halt`: the live pointer (cluster or file) with its waves frozen (or withdrawn) and the next serial. */
export async function renderHalt(options: HaltFlags, deps: Deps, format: 'json' | 'yaml') {
  const fail = (message: string): never => {
    throw new AgentError('ANC_USAGE', message, { hint: 'hotfix pointer render --halt [--withdraw] (--kubeconfig FILE | --from FILE)' });
  };
  if ((options.hotfix ?? []).length + (options.rollout ?? []).length + (options.schedule ?? []).length + (options.scope ?? []).length > 0)
    fail("--halt keeps the live pointer's hotfixes, waves and scope: leave out --hotfix, --rollout, --schedule and --scope");
  if ((options.kubeconfig === undefined && options.context === undefined) === (options.from === undefined))
    fail('--halt needs the live pointer: --kubeconfig FILE or --from FILE');
  const { parseRfc3339 } = await import('./time.ts');
  const at = options.at === undefined ? deps.clock.now() : parseRfc3339(options.at);
  if (!at) return fail(`--at ${JSON.stringify(options.at)} is not an RFC 3339 time`);
  const { livePayload, readLivePointer } = await import('./live-pointer.ts');
  const { parseConfigMapText, configMapFor, formatConfigMap } = await import('./configmap.ts');
  let doc: ConfigMapDoc | undefined;
  if (options.from !== undefined) {
    doc = await parseConfigMapText(options.fromText ?? '', options.from);
  } else doc = (await readLivePointer(deps, options))?.doc;
  if (!doc) return fail('the cluster has no anc-hotfix-version ConfigMap: there is nothing to halt');
  const live = livePayload(doc);
  if (!live) return fail('the live ConfigMap holds no signed-pointer payload (render it with `hotfix pointer render` first)');
  let serial: number | undefined;
  if (options.serial !== undefined) {
    serial = Number(options.serial);
    if (!/^\d+$/.test(options.serial) || !Number.isSafeInteger(serial) || serial <= live.serial)
      fail(`--serial ${options.serial} must be an integer above the live pointer's serial ${live.serial}`);
  }
  const { haltFields } = await import('./render.ts');
  const { renderSignedPointer } = await import('./payload.ts');
  const fields = haltFields(live, {
    at,
    withdraw: options.withdraw === true,
    ...(serial === undefined ? {} : { serial }),
    ...(options.expires === undefined ? {} : { expires: options.expires }),
  });
  // A halt that leaves every base at 100% halts nothing: refused (the watch would say "halt applied").
  const percents = Object.keys(fields.hotfixes).map((base) => fields.rollout?.[base]?.percent ?? 100);
  if (percents.length > 0 && percents.every((p) => p >= 100))
    throw new AgentError('ANC_USAGE', `--halt: every wave is at 100% as of ${at.toISOString()}: a halt frozen at 100% halts nothing`, {
      hint: 'Pass --withdraw (every wave to 0%; nodes that staged the hotfix keep it), or --at a time before the wave reached 100%.',
    });
  const { SERIAL_JUMP_LIMIT } = await import('./render.ts');
  if (!options.force && fields.serial > live.serial + SERIAL_JUMP_LIMIT)
    fail(
      `--serial ${fields.serial} is ${fields.serial - live.serial} above the live pointer's serial ${live.serial}: nodes that take it refuse every later pointer below it (pass --force when meant)`,
    );
  const waves = Object.entries(fields.rollout ?? {})
    .map(([base, w]) => `${base} at ${w.percent}%`)
    .join(', ');
  const note = `halting pointer: serial ${fields.serial} (live ${live.serial}); ${waves || 'no waves'}${options.withdraw ? ' (withdrawn)' : ` (frozen as of ${at.toISOString()})`}; nodes that already staged the hotfix keep it`;
  return { exitCode: 0, stdout: await formatConfigMap(configMapFor(renderSignedPointer(fields)), format), stderr: `${note}\n` };
}
