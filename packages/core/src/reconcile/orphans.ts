import { LABELS, type ManagedContainer } from '../ports/agents';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** The workspace ids the containers claim, to look their rows up in one query. */
export function claimedWorkspaceIds(containers: readonly ManagedContainer[]): string[] {
  return [...new Set(containers.map((c) => c.labels[LABELS.workspace]).filter((id): id is string => !!id && UUID.test(id)))];
}

/**
 * Containers whose owner row is gone: they carry a workspace label naming a workspace that does not
 * exist. A container whose label is missing or malformed is left alone: it cannot be judged, so it is
 * not touched. (Apps, deployments and databases join this rule as their tables arrive.)
 */
export function findOrphans(containers: readonly ManagedContainer[], existingWorkspaceIds: ReadonlySet<string>): ManagedContainer[] {
  return containers.filter((c) => {
    const ws = c.labels[LABELS.workspace];
    return !!ws && UUID.test(ws) && !existingWorkspaceIds.has(ws.toLowerCase());
  });
}
