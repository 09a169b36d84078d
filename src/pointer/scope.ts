// Scope: which nodes a signed pointer is for, matched against what the node knows from its own
// configuration. Every key in the scope must match (values: any one of them, case-insensitively, as
// Azure names are); `{}` is every node. A key this agent does not know, or a fact the node does not
// have, is out of scope: a node never guesses that a pointer is meant for it. Pure.
import type { Configuration } from '../config/types.ts';
import { SCOPE_KEYS, type ScopeKey } from './payload.ts';

export type NodeFacts = Partial<Record<ScopeKey, string>>;

/** The facts a scope is matched against, from the node configuration (docs/pointer-signing.md). */
export function nodeFacts(config: Configuration): NodeFacts {
  const facts: NodeFacts = {};
  const set = (key: ScopeKey, value: string | undefined) => {
    const trimmed = (value ?? '').trim();
    if (trimmed !== '') facts[key] = trimmed;
  };
  // The apiserver name identifies the cluster; a port or scheme in it is not part of the name.
  set(
    'cluster',
    (config.apiServerConfig?.apiServerName ?? '')
      .replace(/^https?:\/\//i, '')
      .replace(/:\d+\/?$/, '')
      .replace(/\/$/, ''),
  );
  set('region', config.clusterConfig?.location);
  set('subscription', config.authConfig?.subscriptionId);
  set('resourceGroup', config.clusterConfig?.resourceGroup);
  return facts;
}

/** undefined when the node is in scope; otherwise why not. */
export function outOfScopeReason(scope: Record<string, string[]>, facts: NodeFacts): string | undefined {
  for (const [key, allowed] of Object.entries(scope)) {
    if (!(SCOPE_KEYS as readonly string[]).includes(key)) return `scope key "${key}" is unknown to this agent`;
    const fact = facts[key as ScopeKey];
    if (fact === undefined) return `scope names ${key} but this node's configuration has no ${key}`;
    if (!allowed.some((v) => v.toLowerCase() === fact.toLowerCase()))
      return `this node's ${key} "${fact}" is not in the scope (${allowed.join(', ') || 'empty list'})`;
  }
  return undefined;
}

/** `region=eastus,westus cluster=x` for messages; `every node` for `{}`. */
export function describeScope(scope: Record<string, string[]>): string {
  const parts = Object.entries(scope).map(([k, v]) => `${k}=${v.join(',')}`);
  return parts.length === 0 ? 'every node' : parts.join(' ');
}
