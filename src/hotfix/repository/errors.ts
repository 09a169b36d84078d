// The fast path's two kinds of failure (docs/hotfix.md "failure tree"). An integrity failure is final:
// nothing is staged and apt/dnf are NOT tried, since they would fetch the same bytes without our checks.
// Anything else (repository unreachable, a tool missing, a format we do not read, the package not in the
// index) means "this path cannot answer": download-hotfix falls back to the package manager.
import { AgentError, isAgentError } from '../../platform/errors.ts';

export const INTEGRITY_STEP = 'integrityFailed';
const UNAVAILABLE_STEP = 'repositoryUnavailable';

export function integrityError(message: string, cause?: unknown): AgentError {
  return new AgentError('ANC_HOTFIX', `repository fast path: ${message}`, { step: INTEGRITY_STEP, cause });
}

export function unavailableError(message: string, cause?: unknown): AgentError {
  return new AgentError('ANC_HOTFIX', `repository fast path: ${message}`, { step: UNAVAILABLE_STEP, cause });
}

export function isUnavailable(error: unknown): error is AgentError {
  return isAgentError(error) && error.step === UNAVAILABLE_STEP;
}
