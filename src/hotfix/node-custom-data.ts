// download-hotfix's first step at the reference's HEAD (spec 11.2, PR #8876; D19): apply the image's
// /opt/azure/containers/nodecustomdata.yml when the pointer's scripts_version is a same-base, strictly
// higher patch of this agent. Fail-open: a refused or failed apply is logged and gets its event, and the
// binary hotfix goes on. `status` and the Node report read the one log line written here.
import type { Deps } from '../platform/deps.ts';
import { errorMessage } from '../platform/errors.ts';
import type { HotfixPointer } from '../pointer/document.ts';
import { decideScriptsVersion } from '../pointer/scripts-version.ts';

/** The log line `status` reads (status/collect.ts). */
export const NODE_CUSTOM_DATA_LOG = 'node custom data by scripts_version';

export type NodeCustomDataOutcome = 'applied' | 'skipped' | 'failed';

export async function applyNodeCustomDataStep(deps: Deps, pointer: HotfixPointer): Promise<NodeCustomDataOutcome> {
  const decision = decideScriptsVersion(pointer, deps.version);
  const base = { scriptsVersion: decision.scriptsVersion, reason: decision.reason, path: deps.paths.nodeCustomData };
  if (!decision.apply) {
    deps.log.info(NODE_CUSTOM_DATA_LOG, { outcome: 'skipped', ...base, ...(decision.detail ? { detail: decision.detail } : {}) });
    return 'skipped';
  }
  const start = deps.clock.now();
  const parts = [`scriptsVersion=${decision.scriptsVersion}`, `current=${deps.version}`];
  try {
    const { applyNodeCustomData } = await import('../customdata/node-custom-data.ts');
    const written = applyNodeCustomData(deps);
    deps.log.info(NODE_CUSTOM_DATA_LOG, { outcome: 'applied', ...base, files: written });
    deps.events.emit({
      task: 'NodeCustomData',
      message: ['outcome=applied', ...parts, `files=${written.length}`].join(' '),
      level: 'Informational',
      start,
      end: deps.clock.now(),
    });
    return 'applied';
  } catch (error) {
    const text = errorMessage(error);
    deps.log.error(NODE_CUSTOM_DATA_LOG, { outcome: 'failed', ...base, error: text });
    deps.log.say(
      `download-hotfix: nodecustomdata.yml for scripts_version ${decision.scriptsVersion} not applied: ${text}; the binary hotfix goes on`,
    );
    deps.events.emit({
      task: 'NodeCustomData',
      message: ['outcome=failed', ...parts, `error=${text}`].join(' '),
      level: 'Error',
      start,
      end: deps.clock.now(),
    });
    return 'failed';
  }
}
