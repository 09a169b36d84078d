// What one fast-path run carries through its steps: deps, the scratch directory, the resolved version,
// the node's architecture names, the overall deadline, the fast path's own time budget and the trace
// that becomes the telemetry tokens.
import type { Deps } from '../../platform/deps.ts';
import type { BackgroundDigest } from '../../platform/file-stream.ts';
import type { Deadline } from '../retry.ts';
import type { Trace } from './fetcher.ts';
import type { Scratch } from './scratch.ts';

/**
 * The hotfix index (docs/hotfix.md): a small signed repository of only our packages, in this directory
 * beside the apt release directory's indices (`dists/<suite>/aks-node-controller/`) or the rpm
 * repository's repodata (`<baseurl>/aks-node-controller/repodata/`).
 */
export const HOTFIX_INDEX_DIR = 'aks-node-controller';

/** A repository's place as its index binds it: the URL path of its root, without a trailing slash ('/' for the root). */
export function repositoryPath(url: string): string {
  const path = new URL(url).pathname.replace(/\/+$/, '');
  return path === '' ? '/' : path;
}

/**
 * Whether a hotfix index's binding names the repository at `sourceUrl` (R4-20). A binding is the
 * repository's URL path (`/ubuntu/22.04/prod`), which binds the place but not the host, so that one
 * repository served by several hosts (mirrors, a CDN) keeps one index; or, when the publisher binds the
 * origin too, a full `https://host[:port]/path`, which only that origin's source accepts. With a path-only
 * binding, two repositories must never share both a signing key and a path (docs/hotfix.md "The binding").
 */
export function bindingNames(bound: string | undefined, sourceUrl: string): boolean {
  if (bound === undefined) return false;
  if (!/^https?:\/\//i.test(bound)) return bound === repositoryPath(sourceUrl);
  try {
    const b = new URL(bound);
    const s = new URL(sourceUrl);
    return b.origin === s.origin && repositoryPath(b.href) === repositoryPath(s.href);
  } catch {
    return false;
  }
}

export interface FastPathContext {
  deps: Deps;
  scratch: Scratch;
  version: string;
  arch: { deb: string; rpm: string };
  deadline: Deadline;
  /** Epoch ms by which the fast path must have answered (leaves the rest of D4 to the fallback). */
  budgetEnd: number;
  trace: Trace;
  /** Our own executable's sha256 (which delta is ours), hashed in the background from the start. */
  baseDigest?: BackgroundDigest;
}

/** The node architecture in Debian and RPM spelling (the agent is compiled per architecture). */
export function nodeArch(arch: string = process.arch): { deb: string; rpm: string } | undefined {
  if (arch === 'x64') return { deb: 'amd64', rpm: 'x86_64' };
  if (arch === 'arm64') return { deb: 'arm64', rpm: 'aarch64' };
  return undefined;
}

/**
 * Runs one stage and adds its duration in ms to the trace (stages may repeat: durations add up). The
 * stage's token takes its place when it starts, so stages that run side by side keep one order.
 */
export async function timed<T>(ctx: FastPathContext, stage: string, step: () => Promise<T> | T): Promise<T> {
  const started = ctx.deps.clock.now().getTime();
  ctx.trace.stages[stage] ??= 0;
  try {
    return await step();
  } finally {
    ctx.trace.stages[stage] = (ctx.trace.stages[stage] ?? 0) + (ctx.deps.clock.now().getTime() - started);
  }
}

/** What a step may still take: the fast path's budget and the whole command's deadline, whichever ends first. */
export function timeLeft(ctx: FastPathContext): number {
  return Math.min(ctx.budgetEnd - ctx.deps.clock.now().getTime(), ctx.deadline.remainingMs());
}

/** A child's bound: min(its own bound, what is left); nothing starts once no time is left. */
export function childBound(ctx: FastPathContext, ownMs: number): number {
  return Math.max(0, Math.min(ownMs, timeLeft(ctx)));
}
