import { githubSettingsOf, type GithubAppRow, type GithubJobStore } from '@slipway/core';
import type { Db } from '../client';
import { Prisma } from '../generated/client';

/**
 * GitHub, job side (issue 16): the apps a delivery concerns, across workspaces, found by the repository id or the
 * installation id in their `github` settings; the access flags the installation events set and clear.
 */
export class PrismaGithubJobStore implements GithubJobStore {
  constructor(private readonly db: Db) {}

  /** A suspended workspace takes no mutation (403 through the API): a push does not deploy there either. */
  appsOfRepository(repoId: number): Promise<GithubAppRow[]> {
    return this.apps({ path: ['repoId'], equals: repoId }, { deletedAt: null, suspendedAt: null });
  }

  appsOfInstallation(installationId: number): Promise<GithubAppRow[]> {
    return this.apps({ path: ['installationId'], equals: installationId }, { deletedAt: null });
  }

  async setAccessLost(appIds: string[], reason: string | null): Promise<void> {
    if (!appIds.length) return;
    // jsonb || jsonb: the other settings stay as they are.
    const patch = JSON.stringify({ accessLost: reason !== null, accessLostReason: reason });
    await this.db.$executeRaw`UPDATE apps SET github = github || ${patch}::jsonb, updated_at = now() WHERE id = ANY(${appIds}::uuid[]) AND github IS NOT NULL`;
  }

  async setInstallationSuspended(installationId: number, suspended: boolean): Promise<void> {
    await this.db.githubInstallation.updateMany({ where: { installationId: BigInt(installationId) }, data: { suspended } });
  }

  async removeInstallation(installationId: number): Promise<void> {
    await this.db.githubInstallation.deleteMany({ where: { installationId: BigInt(installationId) } });
  }

  async queuedDeployments(appId: string): Promise<{ id: string; number: number }[]> {
    return this.db.deployment.findMany({ where: { appId, status: 'queued', source: 'github', triggeredById: null }, select: { id: true, number: true } });
  }

  private async apps(filter: Prisma.JsonFilter<'App'>, workspace: Prisma.WorkspaceWhereInput): Promise<GithubAppRow[]> {
    const rows = await this.db.app.findMany({
      where: { source: 'github', deletedAt: null, github: filter, workspace },
      select: { id: true, workspaceId: true, cpuMillis: true, memoryMb: true, port: true, github: true },
      orderBy: { id: 'asc' },
    });
    return rows.map((r) => ({ id: r.id, workspaceId: r.workspaceId, cpuMillis: r.cpuMillis, memoryMb: r.memoryMb, port: r.port, github: githubSettingsOf(r.github as Record<string, unknown>)! }));
  }
}
