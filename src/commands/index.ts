// The command table. Adding a subcommand = one file in commands/ plus one line here.
import type { AnyCommand } from '../cli/command.ts';
import { applyEmbeddedHotfixCommand } from './apply-embedded-hotfix.ts';
import { checkHotfixCommand } from './check-hotfix.ts';
import { completionCommand } from './completion.ts';
import { configDiffCommand } from './config-diff.ts';
import { configHashCommand } from './config-hash.ts';
import { configSchemaCommand } from './config-schema.ts';
import { configValidateCommand } from './config-validate.ts';
import { customDataCommand } from './custom-data.ts';
import { downloadHotfixCommand } from './download-hotfix.ts';
import { hotfixExplainCommand } from './hotfix-explain.ts';
import { hotfixFallbackCommand } from './hotfix-fallback.ts';
import { hotfixPointerRenderCommand } from './hotfix-pointer-render.ts';
import { hotfixPointerSignCommand } from './hotfix-pointer-sign.ts';
import { hotfixPointerVerifyCommand } from './hotfix-pointer-verify.ts';
import { hotfixRolloutStatusCommand } from './hotfix-rollout-status.ts';
import { hotfixRolloutWatchCommand } from './hotfix-rollout-watch.ts';
import { hotfixScriptsCommand } from './hotfix-scripts.ts';
import { imageManifestCommand } from './image-manifest.ts';
import { manpageCommand } from './manpage.ts';
import { provisionCommand } from './provision.ts';
import { provisionWaitCommand } from './provision-wait.ts';
import { reportStatusCommand } from './report-status.ts';
import { statusCommand } from './status.ts';
import { versionCommand } from './version.ts';

export const COMMANDS: readonly AnyCommand[] = [
  provisionCommand,
  provisionWaitCommand,
  versionCommand,
  statusCommand,
  reportStatusCommand,
  downloadHotfixCommand,
  checkHotfixCommand,
  applyEmbeddedHotfixCommand,
  hotfixExplainCommand,
  hotfixFallbackCommand,
  hotfixScriptsCommand,
  hotfixPointerRenderCommand,
  hotfixPointerSignCommand,
  hotfixPointerVerifyCommand,
  imageManifestCommand,
  hotfixRolloutStatusCommand,
  hotfixRolloutWatchCommand,
  configValidateCommand,
  configSchemaCommand,
  configHashCommand,
  configDiffCommand,
  customDataCommand,
  completionCommand,
  manpageCommand,
];
