import type { GithubDeliveryRecord, GithubDeliveryRepository, GithubInstallationRecord, GithubInstallationRepository } from '@slipway/core';
import type { Db } from '../client';
import { Prisma } from '../generated/client';
import type { GithubInstallation as InstallationRow } from '../generated/client';
import { isUniqueViolation } from './app-rows';

const toInstallation = (r: InstallationRow): GithubInstallationRecord => ({
  installationId: Number(r.installationId),
  workspaceId: r.workspaceId,
  accountLogin: r.accountLogin,
  accountType: r.accountType,
  suspended: r.suspended,
  createdAt: r.createdAt,
});

/** GitHub App installations linked to workspaces (issue 16): reads take the workspace. */
export class PrismaGithubInstallationRepository implements GithubInstallationRepository {
  constructor(private readonly db: Db) {}

  async link(input: Omit<GithubInstallationRecord, 'createdAt'>): Promise<GithubInstallationRecord | 'taken'> {
    const id = BigInt(input.installationId);
    const data = { accountLogin: input.accountLogin, accountType: input.accountType, suspended: input.suspended };
    // Linked again to the same workspace: refreshed. Held by another workspace: refused (the row is not touched).
    const updated = await this.db.githubInstallation.updateManyAndReturn({ where: { installationId: id, workspaceId: input.workspaceId }, data });
    if (updated[0]) return toInstallation(updated[0]);
    try {
      return toInstallation(await this.db.githubInstallation.create({ data: { installationId: id, workspaceId: input.workspaceId, ...data } }));
    } catch (e) {
      if (isUniqueViolation(e)) return 'taken';
      throw e;
    }
  }

  async list(scope: { workspaceId: string }): Promise<GithubInstallationRecord[]> {
    return (await this.db.githubInstallation.findMany({ where: { workspaceId: scope.workspaceId }, orderBy: { createdAt: 'asc' } })).map(toInstallation);
  }

  async find(scope: { workspaceId: string; installationId: number }): Promise<GithubInstallationRecord | null> {
    if (!Number.isSafeInteger(scope.installationId) || scope.installationId < 1) return null;
    const r = await this.db.githubInstallation.findFirst({ where: { installationId: BigInt(scope.installationId), workspaceId: scope.workspaceId } });
    return r ? toInstallation(r) : null;
  }
}

/** Webhook deliveries by `X-GitHub-Delivery`: the primary key makes a redelivery a no-op. */
export class PrismaGithubDeliveryRepository implements GithubDeliveryRepository {
  constructor(private readonly db: Db) {}

  async record(id: string, event: string, payload: unknown): Promise<'recorded' | 'retaken' | 'duplicate'> {
    const json = payload as Prisma.InputJsonValue;
    try {
      await this.db.githubDelivery.create({ data: { id, event, payload: json } });
      return 'recorded';
    } catch (e) {
      if (!isUniqueViolation(e)) throw e;
      // A delivery whose job failed for good is taken again when GitHub redelivers it (conditional: one taker).
      const retaken = await this.db.githubDelivery.updateMany({ where: { id, status: 'failed' }, data: { status: 'queued', event, payload: json, result: null, handledAt: null } });
      return retaken.count === 1 ? 'retaken' : 'duplicate';
    }
  }

  async get(id: string): Promise<GithubDeliveryRecord | null> {
    const r = await this.db.githubDelivery.findUnique({ where: { id } });
    return r ? { id: r.id, event: r.event, payload: r.payload, status: r.status as GithubDeliveryRecord['status'] } : null;
  }

  async finish(id: string, status: 'done' | 'failed', result: string): Promise<void> {
    await this.db.githubDelivery.updateMany({ where: { id }, data: { status, result: result.slice(0, 2000), payload: Prisma.DbNull, handledAt: new Date() } });
  }

  async forget(id: string): Promise<void> {
    await this.db.githubDelivery.deleteMany({ where: { id, status: 'queued' } });
  }

  async prune(before: Date): Promise<number> {
    return (await this.db.githubDelivery.deleteMany({ where: { receivedAt: { lt: before }, status: { not: 'queued' } } })).count;
  }
}
