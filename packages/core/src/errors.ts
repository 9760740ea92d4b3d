/**
 * The one error type services throw. The HTTP layer maps `code` to a status in one table
 * (apps/api/src/http/error-status.ts); the gRPC layer maps it to gRPC codes in another.
 */
export const ERROR_CODES = [
  'invalid_json',
  'validation_failed',
  'invalid_path',
  'invalid_cursor',
  'unauthorized',
  'session_required',
  'invalid_credentials',
  'forbidden',
  'owner_required',
  'csrf_rejected',
  'workspace_suspended',
  'not_found',
  'quota_exceeded',
  'app_not_deployed',
  'image_unavailable',
  'deployment_not_cancellable',
  /** Agent → worker only: a rollout whose container never answered (the deployment fails with the reason). */
  'rollout_failed',
  /** Agent → worker only: an upload that could not be built (the deployment fails with the reason). */
  'build_failed',
  'no_image_built',
  'source_mismatch',
  'destination_exists',
  'folder_not_empty',
  'app_not_web',
  'domain_taken',
  /** A hostname a custom domain cannot have (details[0].reason says which rule). */
  'invalid_hostname',
  'name_taken',
  'email_taken',
  'already_member',
  'last_owner',
  'backup_rate_limited',
  'too_many_attempts',
  'payload_too_large',
  /** A write past the app's project folder limit (its disk size): the old file stays. */
  'disk_quota_exceeded',
  'unsupported_media_type',
  'not_a_file',
  'not_a_folder',
  'node_unavailable',
  'no_capacity',
  'node_unreachable',
  /** The server's free disk is below its reserve: new builds, deployments and uploads wait; running apps run on. */
  'server_disk_low',
  /** A dependency of the control plane (PostgreSQL, Redis) is not reachable right now: try again shortly. */
  'service_unavailable',
  'internal',
  // GitHub as a source (issue 16).
  /** No GitHub App is configured on this platform (503). */
  'github_not_configured',
  /** The app's installation or repository access is gone (409): reinstall or grant the repository again. */
  'github_access_lost',
  /** A webhook delivery whose X-Hub-Signature-256 does not match (401). */
  'invalid_signature',
  /** The install flow's `state` is forged, malformed or expired (400). */
  'github_state_invalid',
  /** The installation is not linked to this workspace, or GitHub does not know it (404). */
  'github_installation_not_found',
  /** The installation is linked to another workspace (409). */
  'github_installation_taken',
  'github_repository_not_found',
  'github_branch_not_found',
  'github_commit_not_found',
  /** GitHub did not answer, or answered an error the platform cannot act on (503). */
  'github_unavailable',
  /** Databases (issue 12): an engine whose image this platform cannot run now (503). */
  'engine_unavailable',
  /** Databases: a resize, rotation, backup or restore already running on this database (409). */
  'database_busy',
  /** Databases: an operation not allowed in the database's current state (409). */
  'invalid_state',
] as const;

export type ErrorCode = (typeof ERROR_CODES)[number];

export interface ErrorDetail {
  [key: string]: unknown;
}

export class AppError extends Error {
  constructor(
    readonly code: ErrorCode,
    message: string,
    readonly details?: ErrorDetail[],
    /** Seconds, for 429 answers. */
    readonly retryAfter?: number,
  ) {
    super(message);
    this.name = 'AppError';
  }
}

export const notFound = (what = 'resource') => new AppError('not_found', `The ${what} was not found`);
