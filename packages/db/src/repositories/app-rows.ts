// Rows of apps and deployments as the core's records, shared by the request-side repositories and the job-side stores.
import type { AppRecord, AppStateChange, AppStatus, AppWithDeployment, DeploymentRecord, DeploymentStatus, StatusDetail } from '@slipway/core';
import type { Db } from '../client';
import type { SqlPool } from '../sql-pool';
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

// The apps' and deployments' columns under the generated client's field names (what toAppRecord and
// toDeploymentRecord take): typed against the generated rows, so a column added to the schema fails the type check here
// until it is read too.
const APP_COLUMNS: { [K in keyof AppRow]-?: string } = {
  id: 'id', workspaceId: 'workspace_id', name: 'name', slug: 'slug', kind: 'kind', source: 'source', image: 'image', port: 'port',
  healthPath: 'health_path', buildCommand: 'build_command', startCommand: 'start_command', rootDirectory: 'root_directory',
  cpuMillis: 'cpu_millis', memoryMb: 'memory_mb', diskMb: 'disk_mb', subdomain: 'subdomain', folderUsedMb: 'folder_used_mb',
  folderMeasuredAt: 'folder_measured_at', github: 'github', status: 'status', desiredState: 'desired_state', generation: 'generation',
  statusDetail: 'status_detail', runningSince: 'running_since', nextDeploymentNumber: 'next_deployment_number',
  currentDeploymentId: 'current_deployment_id', deletedAt: 'deleted_at', createdAt: 'created_at', updatedAt: 'updated_at',
};
const DEPLOYMENT_COLUMNS: { [K in keyof DeploymentRow]-?: string } = {
  id: 'id', workspaceId: 'workspace_id', appId: 'app_id', number: 'number', status: 'status', source: 'source', image: 'image',
  imageId: 'image_id', imageRef: 'image_ref', commitSha: 'commit_sha', commitInfo: 'commit_info', rollbackOfId: 'rollback_of_id',
  failureReason: 'failure_reason', imageAvailable: 'image_available', containerId: 'container_id', hostPort: 'host_port',
  cpuMillis: 'cpu_millis', memoryMb: 'memory_mb', port: 'port', triggeredById: 'triggered_by_id', triggeredByName: 'triggered_by_name',
  createdAt: 'created_at', startedAt: 'started_at', finishedAt: 'finished_at',
};
const selectAs = (table: string, columns: Record<string, string>, prefix: string) =>
  Object.entries(columns).map(([field, column]) => `${table}.${column} AS "${prefix}${field}"`).join(', ');
const APPS_WITH_CURRENT = `SELECT ${selectAs('a', APP_COLUMNS, '')}, ${selectAs('d', DEPLOYMENT_COLUMNS, 'd.')}
  FROM apps a LEFT JOIN deployments d ON d.id = a.current_deployment_id`;

/**
 * A workspace's live apps with their current deployment in one prepared statement (issue 34: the app reads are the
 * platform's hottest; two Prisma queries per read before), oldest first; with `appId`, that app alone.
 */
export async function readAppsWithCurrent(sql: SqlPool, scope: { workspaceId: string; appId?: string }): Promise<AppWithDeployment[]> {
  const { rows } = scope.appId
    ? await sql.query<Record<string, unknown>>({ name: 'app_with_current', text: `${APPS_WITH_CURRENT} WHERE a.id = $1 AND a.workspace_id = $2 AND a.deleted_at IS NULL`, values: [scope.appId, scope.workspaceId] })
    : await sql.query<Record<string, unknown>>({ name: 'apps_with_current', text: `${APPS_WITH_CURRENT} WHERE a.workspace_id = $1 AND a.deleted_at IS NULL ORDER BY a.id`, values: [scope.workspaceId] });
  return rows.map((row) => {
    const app: Record<string, unknown> = {};
    const current: Record<string, unknown> = {};
    for (const [key, value] of Object.entries(row)) {
      if (key.startsWith('d.')) current[key.slice(2)] = value;
      else app[key] = value;
    }
    return { ...toAppRecord(app as AppRow), currentDeployment: current.id ? toDeploymentRecord(current as DeploymentRow) : null };
  });
}

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
