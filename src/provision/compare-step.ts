// The I/O half of compareEnvs (spec 4.7): best effort after the NBC script ran. Builds the config-based
// command only for its environment, reads the NBC file, logs and emits CompareEnvs with key names only.
import { definedEnv, type Deps } from '../platform/deps.ts';
import { errorMessage } from '../platform/errors.ts';
import { compareMessage, cseSpecific, diffEnvs, parseEnvVarsFromNBCCmdContent } from './compare-envs.ts';
import { prepareConfig } from './config-file.ts';
import { readNbcText } from './nbc.ts';

export async function compareEnvsStep(deps: Deps, configPath: string, nbcFile: string): Promise<void> {
  deps.log.info('ProvisionConfig and NBCCmd both provided, comparing envs');
  try {
    const { mergeEnv } = await import('../cse/command.ts');
    const prepared = await prepareConfig(deps, configPath);
    const processEnv = definedEnv(deps.env);
    const pc = cseSpecific(mergeEnv(processEnv, prepared.command.cseEnv), processEnv);
    const nbc = parseEnvVarsFromNBCCmdContent(readNbcText(deps, nbcFile));
    const diffs = diffEnvs(pc, nbc);
    if (diffs.length === 0) deps.log.info('env compare: no differences found between provision-config and nbc-cmd');
    else deps.log.info('env compare: differences found', { count: diffs.length, differences: diffs });
    const now = deps.clock.now();
    deps.events.emit({ task: 'CompareEnvs', message: compareMessage(diffs), level: 'Informational', start: now, end: now });
  } catch (error) {
    // Never blocks provisioning: the NBC run already decided the outcome.
    deps.log.error('env compare failed', { error: errorMessage(error) });
  }
}
