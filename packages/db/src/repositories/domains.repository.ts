import type { DomainChanges, DomainContext, DomainRecord, DomainRepository, IngressNode, RoutedDomain } from '@slipway/core';
import type { Db } from '../client';
import { isUniqueViolation } from './errors';
import { DOMAIN_CONTEXT, ROUTED_WHERE, toContext, toData, toRecord } from './domain-rows';

/** Custom domains, request side: every method takes the workspace (routedOnNode and node serve the sync after a change). */
export class PrismaDomainRepository implements DomainRepository {
  constructor(private readonly db: Db) {}

  async create(input: { workspaceId: string; appId: string; hostname: string; txtValue: string; pendingUntil: Date; nextCheckAt: Date; maxPerApp: number }): Promise<DomainRecord | 'domain_taken' | 'limit_reached'> {
    try {
      return await this.db.$transaction(async (tx) => {
        // A domain of a deleted app or workspace (its teardown not swept yet) frees the name now.
        await tx.domain.deleteMany({
          where: { hostname: input.hostname, OR: [{ app: { deletedAt: { not: null } } }, { workspace: { deletedAt: { not: null } } }] },
        });
        // The app row locked: two concurrent adds cannot both be the 20th.
        await tx.$queryRaw`SELECT id FROM apps WHERE id = ${input.appId}::uuid FOR UPDATE`;
        if ((await tx.domain.count({ where: { appId: input.appId } })) >= input.maxPerApp) return 'limit_reached' as const;
        const { maxPerApp: _max, ...data } = input;
        return toRecord(await tx.domain.create({ data }));
      });
    } catch (e) {
      if (isUniqueViolation(e)) return 'domain_taken';
      throw e;
    }
  }

  async list(scope: { workspaceId: string; appId: string }): Promise<DomainRecord[]> {
    const rows = await this.db.domain.findMany({ where: { workspaceId: scope.workspaceId, appId: scope.appId }, orderBy: { id: 'asc' } });
    return rows.map(toRecord);
  }

  async find(scope: { workspaceId: string; appId: string; domainId: string }): Promise<DomainContext | null> {
    const row = await this.db.domain.findFirst({ where: { id: scope.domainId, workspaceId: scope.workspaceId, appId: scope.appId }, include: DOMAIN_CONTEXT });
    return row ? toContext(row) : null;
  }

  async update(scope: { workspaceId: string; domainId: string }, changes: DomainChanges): Promise<DomainRecord> {
    await this.db.domain.updateMany({ where: { id: scope.domainId, workspaceId: scope.workspaceId }, data: toData(changes) });
    return toRecord(await this.db.domain.findFirstOrThrow({ where: { id: scope.domainId, workspaceId: scope.workspaceId } }));
  }

  async remove(scope: { workspaceId: string; appId: string; domainId: string }): Promise<{ nodeId: string | null } | null> {
    const row = await this.db.domain.findFirst({ where: { id: scope.domainId, workspaceId: scope.workspaceId, appId: scope.appId, app: { deletedAt: null } }, select: { workspace: { select: { nodeId: true } } } });
    if (!row) return null;
    const { count } = await this.db.domain.deleteMany({ where: { id: scope.domainId, workspaceId: scope.workspaceId } });
    return count ? { nodeId: row.workspace.nodeId } : null;
  }

  async removeOfApp(scope: { workspaceId: string; appId: string }): Promise<{ nodeId: string | null; count: number }> {
    const ws = await this.db.workspace.findUnique({ where: { id: scope.workspaceId }, select: { nodeId: true } });
    const { count } = await this.db.domain.deleteMany({ where: { workspaceId: scope.workspaceId, appId: scope.appId } });
    return { nodeId: ws?.nodeId ?? null, count };
  }

  routedOnNode(nodeId: string): Promise<RoutedDomain[]> {
    return routedOnNode(this.db, nodeId);
  }

  node(nodeId: string): Promise<{ id: string; name: string; grpcAddress: string } | null> {
    return this.db.node.findUnique({ where: { id: nodeId }, select: { id: true, name: true, grpcAddress: true } });
  }

  onlineNodes(): Promise<IngressNode[]> {
    return onlineNodes(this.db);
  }
}

/** Online servers, by name: the ones serving ingress (issue 31). */
export function onlineNodes(db: Db): Promise<IngressNode[]> {
  return db.node.findMany({ where: { status: 'online' }, select: { id: true, name: true, grpcAddress: true, publicIpv4: true }, orderBy: { name: 'asc' } });
}

export async function routedOnNode(db: Db, nodeId: string): Promise<RoutedDomain[]> {
  const rows = await db.domain.findMany({ where: ROUTED_WHERE(nodeId), select: { id: true, appId: true, hostname: true }, orderBy: { id: 'asc' } });
  return rows.map((r) => ({ domainId: r.id, appId: r.appId, hostname: r.hostname }));
}
