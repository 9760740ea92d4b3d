import { AppError, type ErrorCode } from '../errors';

/**
 * A deployment's failureReason is a sentence about the app a user can act on; what the engine, the agent's transport
 * or a library said goes to the deployment log (and the agent's log), never here. Pure: failure-reason.spec.ts.
 */

// Codes whose message the agent or a service wrote for the user (failure-reasons.ts and readiness on the agent, the
// services): kept as they are.
const WRITTEN_FOR_USERS = new Set<ErrorCode>([
  'rollout_failed',
  'build_failed',
  'image_unavailable',
  'no_image_built',
  'validation_failed',
  'not_found',
  'quota_exceeded',
  // GitHub as a source (issue 16): what the platform's App can no longer do, and why.
  'github_access_lost',
  'github_not_configured',
  'github_unavailable',
]);

// `internal` carries the agent's sentence for a step the engine refused, or (from the transport) an engine's or
// library's text: the latter never reaches a user.
const FOREIGN = /\(HTTP code \d+\)|^\d+ [A-Z_]+:|ECONNREFUSED|ETIMEDOUT|ENOTFOUND|OCI runtime|container_linux|is ambiguous|address pool|dial tcp|\bstalled\b|Prisma|P\d{4}\b/i;

export const NODE_UNREACHABLE_REASON = "The workspace's server could not be reached; deploy again once it is back (the operator has been told)";
export const PLATFORM_ERROR_REASON = 'The deployment failed because of an error on the platform; deploy again, and see the deployment log for details';
export const INTERRUPTED_REASON = 'The deployment stopped before it finished (its worker was interrupted); deploy again';

/** The first line of an error's message when it was written for users; otherwise a sentence that says what to do. */
export function failureReasonOf(e: unknown): string {
  if (e instanceof AppError) {
    if (e.code === 'node_unavailable') return NODE_UNREACHABLE_REASON;
    const first = e.message.split('\n')[0] ?? '';
    if (first && (WRITTEN_FOR_USERS.has(e.code) || (e.code === 'internal' && !FOREIGN.test(first)))) return first;
  }
  return PLATFORM_ERROR_REASON;
}
