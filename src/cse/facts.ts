// Machine facts: the two inputs of the env besides the config (config-contract 3.5), gathered once and
// only through deps: the `containerd --version` output and the VHD's components.json.
import type { Deps } from '../platform/deps.ts';
import { AgentError } from '../platform/errors.ts';
import { goJsonSyntaxError } from '../platform/go/json-syntax.ts';
import { goPlain, goUnmarshal } from '../platform/go/unmarshal.ts';
import { goText } from '../platform/go/utf8.ts';
import { COMPONENTS_GO_TYPE, parseGpuComponents } from './env/gpu-components.ts';
import { pathError } from '../platform/os-error.ts';
import { containerdVersionFromOutput } from './semver.ts';

/** Where a dry run finds the image's component table (a real provision always reads the image's own). */
export interface FactsOptions {
  dryRun?: boolean;
  /** `provision --dry-run --components FILE`: this table instead of the image's. */
  componentsFile?: string;
}

export interface MachineFacts {
  /** The detected containerd version (`1.7.22`), or undefined when none could be found. */
  containerdVersion: string | undefined;
  /** components.json as the reference's structs decoded it (plain data: every declared field). */
  components: unknown;
}

/** Bound on the version probe; the reference has none, but a hung binary must not stall provisioning. */
const CONTAINERD_PROBE_TIMEOUT_MS = 30_000;

/** `containerd --version` looked up on the agent's PATH; any failure means "no version". */
export async function detectContainerdVersion(deps: Deps): Promise<string | undefined> {
  const program = deps.proc.which('containerd', deps.env.PATH);
  if (!program) return undefined;
  try {
    const env: Record<string, string> = {};
    for (const [k, v] of Object.entries(deps.env)) if (v !== undefined) env[k] = v;
    const result = await deps.proc.run({ program, args: ['--version'], env, timeoutMs: CONTAINERD_PROBE_TIMEOUT_MS });
    if (result.exitCode !== 0) return undefined;
    return containerdVersionFromOutput(result.stdout) || undefined;
  } catch {
    return undefined;
  }
}

/** Reads and parses components.json; missing or malformed -> ANC_COMPONENTS with the reference message. */
export function loadComponents(deps: Deps, path = deps.paths.componentsJson): unknown {
  let bytes: Buffer;
  try {
    bytes = deps.fs.readFile(path, 'manifest');
  } catch (error) {
    // os.ReadFile's *PathError: the open fails (missing, denied), or the read does (a directory, N12).
    const op = (error as { code?: unknown } | null)?.code === 'EISDIR' ? 'read' : 'open';
    throw new AgentError('ANC_COMPONENTS', `failed to load GPU config: read ${path}: ${pathError(op, path, error)}`, {
      cause: error,
    });
  }
  // Go encoding/json into the reference's structs: its syntax check on the bytes first, in its words
  // (N12: one character quoted at most, never the file), then the decode (platform/go/unmarshal), where a
  // wrong type in any declared field fails the load, as it refuses to provision.
  const syntax = goJsonSyntaxError(bytes);
  const decoded = syntax === undefined ? goUnmarshal(goText(bytes), COMPONENTS_GO_TYPE) : undefined; // N7: Go's invalid-byte rule
  const detail = syntax ?? decoded?.error?.message;
  if (detail !== undefined || decoded === undefined) {
    throw new AgentError('ANC_COMPONENTS', `failed to load GPU config: parse ${path}: failed to unmarshal components.json: ${detail}`);
  }
  const components = goPlain(decoded.value, COMPONENTS_GO_TYPE);
  parseGpuComponents(components, path);
  return components;
}

/** The facts, and what a person should know about them (a dry run without the image's component table). */
export async function gatherMachineFacts(deps: Deps, options: FactsOptions = {}): Promise<MachineFacts & { warnings: string[] }> {
  const warnings: string[] = [];
  let components: unknown;
  if (options.componentsFile !== undefined) components = loadComponents(deps, options.componentsFile);
  else if (options.dryRun && !deps.fs.exists(deps.paths.componentsJson)) {
    // Off the node (a laptop, CI): the command is still worth seeing. A real provision fails here, as the
    // reference does, because the GPU driver fields would be wrong.
    components = {};
    warnings.push(
      `${deps.paths.componentsJson} not found: the GPU driver variables are empty in this dry run (a real provision fails without it); pass --components FILE for the image's table`,
    );
  } else components = loadComponents(deps);
  const containerdVersion = await detectContainerdVersion(deps);
  return { containerdVersion, components, warnings };
}
