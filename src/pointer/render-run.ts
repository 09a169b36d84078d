// `hotfix pointer render` without --halt: flags -> fields (render.ts), the slips refused before anything is
// signed (with --kubeconfig/--context, against the live pointer), then the manifest or the summary.
import type { Deps } from '../platform/deps.ts';
import type { RenderFlags } from './render.ts';

export interface RenderRun {
  hotfix?: string[] | undefined;
  rollout?: string[] | undefined;
  schedule?: string[] | undefined;
  scope?: string[] | undefined;
  recall?: string[] | undefined;
  expires?: string | undefined;
  serial?: string | undefined;
  kubeconfig?: string | undefined;
  context?: string | undefined;
  force?: boolean | undefined;
  backdate?: boolean | undefined;
}

export async function renderPointer(options: RenderRun, deps: Deps, format: 'json' | 'yaml' | 'text') {
  const { pointerFieldsFromFlags, pointerSummary, refuseSlips } = await import('./render.ts');
  const { renderSignedPointer } = await import('./payload.ts');
  const { configMapFor, formatConfigMap } = await import('./configmap.ts');
  const { livePayload, serialFor } = await import('./live-pointer.ts');
  const { serial, note, live } = await serialFor(options, deps);
  const now = deps.clock.now();
  const flags: RenderFlags = {
    hotfix: options.hotfix ?? [],
    rollout: options.rollout ?? [],
    schedule: options.schedule ?? [],
    scope: options.scope ?? [],
    recall: options.recall ?? [],
    serial,
    expires: options.expires,
  };
  const fields = pointerFieldsFromFlags(flags, now);
  const reads = options.kubeconfig !== undefined || options.context !== undefined;
  const payload = live === undefined ? undefined : livePayload(live.doc);
  refuseSlips(fields, {
    now,
    backdate: options.backdate === true,
    force: options.force === true,
    ...(reads
      ? {
          live: {
            ...(live?.serial === undefined ? {} : { serial: live.serial }),
            hotfixes: Object.values(payload?.hotfixes ?? {}),
            recall: payload?.recall ?? [],
          },
        }
      : {}),
  });
  const stdout = format === 'text' ? pointerSummary(fields, now) : await formatConfigMap(configMapFor(renderSignedPointer(fields)), format);
  const warning = (await import('./expiry.ts')).expiryWarning(fields.expires, now);
  const stderr = [note, warning && `warning: ${warning}`].filter(Boolean).join('\n');
  return { exitCode: 0, stdout, ...(stderr ? { stderr: `${stderr}\n` } : {}) };
}
