import type { DeploymentStatus } from '@slipway/contracts';

/**
 * The one table of allowed deployment moves. `building → building` and `deploying → deploying` are a retried job
 * picking its row up again (the agent does each operation id once). Every move is a conditional update
 * (`UPDATE … WHERE status IN (sources)`), so a cancel racing a worker loses or wins cleanly.
 */
export const DEPLOYMENT_TRANSITIONS: Record<DeploymentStatus, readonly DeploymentStatus[]> = {
  queued: ['building', 'cancelled', 'failed'],
  building: ['building', 'deploying', 'cancelled', 'failed'],
  deploying: ['deploying', 'live', 'failed'],
  live: ['superseded'],
  superseded: [],
  failed: [],
  cancelled: [],
};

export function canMoveDeployment(from: DeploymentStatus, to: DeploymentStatus): boolean {
  return DEPLOYMENT_TRANSITIONS[from].includes(to);
}

/** The statuses a deployment may be in for a move to `to` (the WHERE of the conditional update). */
export function deploymentSources(to: DeploymentStatus): DeploymentStatus[] {
  return (Object.keys(DEPLOYMENT_TRANSITIONS) as DeploymentStatus[]).filter((from) => canMoveDeployment(from, to));
}

/** Finished: nothing more happens to it (live is finished too: it is in use, not in progress). */
export const isDeploymentFinished = (s: DeploymentStatus): boolean => !['queued', 'building', 'deploying'].includes(s);

/** Cancel is allowed while nothing has been rolled out yet. */
export const CANCELLABLE: readonly DeploymentStatus[] = ['queued', 'building'];
