// One error type for the whole agent (STYLE 8): a stable code, the exit code it maps to, a hint for the
// operator and the cause. Created where the fault is seen, printed once by main.

export const ERROR_CODES = {
  ANC_USAGE: { exitCode: 1, hint: 'Run `aks-node-controller --help` to see the commands and their flags.' },
  ANC_CONFIG_MISSING_FLAGS: { exitCode: 1, hint: 'Pass --provision-config=<file> and/or --nbc-cmd=<file>.' },
  ANC_CONFIG_UNREADABLE: { exitCode: 1, hint: 'Check that the file exists, is a regular file and is readable by root.' },
  ANC_CONFIG_INVALID: { exitCode: 1, hint: 'Run `aks-node-controller config validate <file>` to list every problem with its JSON path.' },
  ANC_CONFIG_VERSION: { exitCode: 1, hint: 'Set "version" to "v1" in the node configuration.' },
  ANC_COMPONENTS: { exitCode: 1, hint: 'The image must carry a valid components.json (the GPU driver metadata of the VHD).' },
  ANC_NBC_CMD: { exitCode: 1, hint: 'The --nbc-cmd file must be an existing regular file.' },
  ANC_NODE_CUSTOM_DATA: { exitCode: 1, hint: 'Fix the write_files entries of the node custom data file.' },
  ANC_PROVISION_WAIT: { exitCode: 1, hint: 'Read provision.json and the provisioning log for the failing step.' },
  ANC_TIMEOUT: { exitCode: 1, hint: 'Raise the timeout or look at why the step is slow.' },
  ANC_HOTFIX: { exitCode: 1, hint: 'The baked binary stays in charge; see the log for the failing step.' },
  ANC_SCRIPT_HOTFIX: {
    exitCode: 1,
    hint: 'The script payload was not applied (nothing half-applied stays); the launcher falls back to the baked agent and its scripts. See docs/hotfix.md "script payload".',
  },
  ANC_SCRIPTS_UNRESTORABLE: {
    exitCode: 241,
    hint: "The image's own provisioning scripts could not be put back after a script hotfix, so provisioning did not start (never over a half-hotfixed mix). Run `aks-node-controller status`; reimage the node.",
  },
  ANC_SCRIPTS_LOCKED: {
    exitCode: 1,
    hint: 'Another aks-node-controller command is writing the provisioning scripts (the lock names it); run this again when it has finished. Nothing was changed.',
  },
  ANC_KUBE: { exitCode: 1, hint: 'Check the apiserver address, the cluster CA and the credentials.' },
  ANC_IO: { exitCode: 1, hint: 'Check permissions and free space under the node root.' },
  ANC_CUSTOM_DATA: {
    exitCode: 1,
    hint: 'Pass custom data rendered by `aks-node-controller custom-data` (base64 or decoded; mime, cloud-config or ignition).',
  },
  ANC_INTERNAL: { exitCode: 1, hint: 'This is a bug in aks-node-controller; please report it with the log file.' },
} as const satisfies Record<string, { exitCode: number; hint: string }>;

export type ErrorCode = keyof typeof ERROR_CODES;

export interface AgentErrorOptions {
  cause?: unknown;
  /** Overrides the code's default exit code (a child's exit status, for example). */
  exitCode?: number;
  hint?: string;
  step?: string;
}

export class AgentError extends Error {
  readonly code: ErrorCode;
  readonly exitCode: number;
  readonly hint: string;
  readonly step: string | undefined;

  constructor(code: ErrorCode, message: string, options: AgentErrorOptions = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = 'AgentError';
    this.code = code;
    this.exitCode = options.exitCode ?? ERROR_CODES[code].exitCode;
    this.hint = options.hint ?? ERROR_CODES[code].hint;
    this.step = options.step;
  }
}

export function isAgentError(value: unknown): value is AgentError {
  return value instanceof AgentError;
}

/** The message of anything thrown, without a stack trace. */
export function errorMessage(value: unknown): string {
  if (value instanceof Error) return value.message;
  return String(value);
}

/** Exit code for anything thrown: an AgentError knows its own, everything else is 1 (spec 1.4). */
export function toExitCode(value: unknown): number {
  return isAgentError(value) ? value.exitCode : 1;
}

/** Longest argument or excerpt an error message echoes. */
export const ECHO_LIMIT = 200;

/** `text` when short, else its first ECHO_LIMIT characters and how much was left out. */
export function clip(text: string, limit = ECHO_LIMIT): string {
  if (text.length <= limit) return text;
  return `${text.slice(0, limit)}... (${text.length - limit} more characters)`;
}

/**
 * An error text with every unbroken run longer than ECHO_LIMIT clipped: arguments, paths and excerpts
 * an error echoes stay readable, a 100 KB argument does not come back in full.
 */
export function clipEchoes(text: string): string {
  return text.replace(new RegExp(`\\S{${ECHO_LIMIT + 1},}`, 'g'), (run) => clip(run));
}
