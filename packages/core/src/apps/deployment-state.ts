import type { DeploymentStatus } from '@slipway/contracts';
import { stateTable } from '../state-table';

/**
 * The one table of allowed deployment moves. `building → building` and `deploying → deploying` are a retried job
 * picking its row up again (the agent does each operation id once). Every move is a conditional update
 * (`UPDATE … WHERE status IN (sources)`), so a cancel racing a worker loses or wins cleanly.
 */
export const DEPLOYMENT_TRANSITIONS: Record<DeploymentStatus, readonly DeploymentStatus[]> = {
  // queued → superseded: a newer push of a GitHub app came before this one started (issue 16).
  queued: ['building', 'cancelled', 'failed', 'superseded'],
  building: ['building', 'deploying', 'cancelled', 'failed'],
  // deploying → superseded: a later deployment of the app went live first (the last requested wins, no rollout).
  deploying: ['deploying', 'live', 'superseded', 'failed'],
  live: ['superseded', 'crashed'],
  // Still the app's current deployment (its container restarts with backoff) until another goes live.
  // crashed → crashed: a release that failed inside its settle window gets the reason of that failure (decision 0038).
  crashed: ['crashed', 'superseded'],
  // superseded → live: the release kept warm behind a new one serves again when the new one fails inside its settle
  // window (decision 0038; DeploymentJobStore.revert).
  superseded: ['live'],
  failed: [],
  cancelled: [],
};

/** `deploymentSources(to)`: the statuses a deployment may be in for a move to `to` (the WHERE of the conditional update). */
export const { canMove: canMoveDeployment, sourcesOf: deploymentSources } = stateTable(DEPLOYMENT_TRANSITIONS);

/** Finished: nothing more happens to it (live is finished too: it is in use, not in progress). */
export const isDeploymentFinished = (s: DeploymentStatus): boolean => !['queued', 'building', 'deploying'].includes(s);

/** The current deployment is in use (routed, started, stopped) while live, and still when it crashed after going live. */
export const IN_USE: readonly DeploymentStatus[] = ['live', 'crashed'];
export const isInUse = (s: DeploymentStatus | undefined): boolean => s !== undefined && IN_USE.includes(s);

/** Cancel is allowed while nothing has been rolled out yet. */
export const CANCELLABLE: readonly DeploymentStatus[] = ['queued', 'building'];
