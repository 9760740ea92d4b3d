import type { DomainChanges, DomainContext, DomainJobStore, DomainRecord, IngressNode, RoutedDomain } from '@slipway/core';
import type { Db } from '../client';
import { DOMAIN_CONTEXT, toContext, toData, toRecord } from '../repositories/domain-rows';
import { onlineNodes, routedOnNode } from '../repositories/domains.repository';

/** Custom domains, job side: keyed by the domain id the re-check job holds, or by node for the sweep. */
export class PrismaDomainJobStore implements DomainJobStore {
  constructor(private readonly db: Db) {}

  async get(domainId: string): Promise<DomainContext | null> {
    const row = await this.db.domain.findUnique({ where: { id: domainId }, include: DOMAIN_CONTEXT });
    return row ? toContext(row) : null;
  }

  async update(domainId: string, changes: DomainChanges): Promise<DomainRecord> {
    return toRecord(await this.db.domain.update({ where: { id: domainId }, data: toData(changes) }));
  }

  async due(now: Date, limit: number): Promise<string[]> {
    const rows = await this.db.domain.findMany({
      where: { nextCheckAt: { lte: now }, app: { deletedAt: null }, workspace: { deletedAt: null } },
      orderBy: { nextCheckAt: 'asc' },
      take: limit,
      select: { id: true },
    });
    return rows.map((r) => r.id);
  }

  async removeOfDeletedApps(): Promise<string[]> {
    const rows = await this.db.domain.findMany({
      where: { OR: [{ app: { deletedAt: { not: null } } }, { workspace: { deletedAt: { not: null } } }] },
      select: { id: true },
    });
    if (rows.length) await this.db.domain.deleteMany({ where: { id: { in: rows.map((r) => r.id) } } });
    return rows.map((r) => r.id);
  }

  routedOnNode(nodeId: string): Promise<RoutedDomain[]> {
    return routedOnNode(this.db, nodeId);
  }

  onlineNodes(): Promise<IngressNode[]> {
    return onlineNodes(this.db);
  }

  async verifiedOnNode(nodeId: string): Promise<DomainRecord[]> {
    const rows = await this.db.domain.findMany({ where: { status: 'verified', app: { deletedAt: null }, workspace: { nodeId } } });
    return rows.map(toRecord);
  }
}
