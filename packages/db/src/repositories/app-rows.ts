// Rows of apps and deployments as the core's records, shared by the request-side repositories and the job-side stores.
import type { AppRecord, AppStateChange, AppStatus, AppWithDeployment, DeploymentRecord, DeploymentStatus, StatusDetail } from '@slipway/core';
import type { Db } from '../client';
import { Prisma } from '../generated/client';
import type { Deployment as DeploymentRow, App as AppRow } from '../generated/client';

export const isUniqueViolation = (e: unknown) => e instanceof Prisma.PrismaClientKnownRequestError && e.code === 'P2002';

export const toDeploymentRecord = (d: DeploymentRow): DeploymentRecord => ({
  id: d.id,
  workspaceId: d.workspaceId,
  appId: d.appId,
  number: d.number,
  status: d.status as DeploymentStatus,
  source: d.source as DeploymentRecord['source'],
  image: d.image,
  imageId: d.imageId,
  imageRef: d.imageRef,
  commitSha: d.commitSha,
  commit: (d.commitInfo as DeploymentRecord['commit']) ?? null,
  rollbackOfId: d.rollbackOfId,
  failureReason: d.failureReason,
  imageAvailable: d.imageAvailable,
  containerId: d.containerId,
  hostPort: d.hostPort,
  cpuMillis: d.cpuMillis,
  memoryMb: d.memoryMb,
  port: d.port,
  triggeredBy: d.triggeredById ? { id: d.triggeredById, name: d.triggeredByName } : null,
  createdAt: d.createdAt,
  startedAt: d.startedAt,
  finishedAt: d.finishedAt,
});

export const toAppRecord = (a: AppRow): AppRecord => ({
  id: a.id,
  workspaceId: a.workspaceId,
  name: a.name,
  slug: a.slug,
  kind: a.kind as AppRecord['kind'],
  source: a.source as AppRecord['source'],
  image: a.image,
  port: a.port,
  healthPath: a.healthPath,
  buildCommand: a.buildCommand,
  startCommand: a.startCommand,
  rootDirectory: a.rootDirectory,
  cpuMillis: a.cpuMillis,
  memoryMb: a.memoryMb,
  diskMb: a.diskMb,
  subdomain: a.subdomain,
  folderUsedMb: a.folderUsedMb,
  folderMeasuredAt: a.folderMeasuredAt,
  github: (a.github as Record<string, unknown> | null) ?? null,
  status: a.status as AppStatus,
  desiredState: a.desiredState as AppRecord['desiredState'],
  generation: a.generation,
  statusDetail: (a.statusDetail as StatusDetail) ?? null,
  currentDeploymentId: a.currentDeploymentId,
  runningSince: a.runningSince,
  createdAt: a.createdAt,
  updatedAt: a.updatedAt,
});

/** Apps with their current deployment, read in two indexed queries (the pointer is not a foreign key). */
export async function withDeployments(db: Db, apps: AppRow[]): Promise<AppWithDeployment[]> {
  const ids = apps.map((a) => a.currentDeploymentId).filter((x): x is string => x !== null);
  const rows = ids.length ? await db.deployment.findMany({ where: { id: { in: ids } } }) : [];
  const byId = new Map(rows.map((d) => [d.id, toDeploymentRecord(d)]));
  return apps.map((a) => ({ ...toAppRecord(a), currentDeployment: a.currentDeploymentId ? (byId.get(a.currentDeploymentId) ?? null) : null }));
}

/** The columns an app state change writes. */
export function appStateData(state: AppStateChange): Prisma.AppUpdateManyMutationInput {
  const data: Prisma.AppUpdateManyMutationInput = {};
  if (state.status !== undefined) data.status = state.status;
  if (state.desiredState !== undefined) data.desiredState = state.desiredState;
  if (state.statusDetail !== undefined) data.statusDetail = state.statusDetail === null ? Prisma.DbNull : (state.statusDetail as Prisma.InputJsonValue);
  if (state.runningSince !== undefined) data.runningSince = state.runningSince;
  return data;
}
