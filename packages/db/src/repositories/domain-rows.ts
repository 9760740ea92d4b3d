// The shape both sides read a domain in: the row, its app, and the server its workspace is placed on.
import type { CertificateState, DomainChanges, DomainContext, DomainRecord, DomainStatusValue, StoredCheck } from '@slipway/core';
import { Prisma } from '../generated/client';

export const DOMAIN_CONTEXT = {
  app: { select: { kind: true, subdomain: true, deletedAt: true, desiredState: true } },
  workspace: { select: { node: { select: { id: true, name: true, grpcAddress: true, publicIpv4: true } } } },
} as const;

type Row = Prisma.DomainGetPayload<object>;
type ContextRow = Prisma.DomainGetPayload<{ include: typeof DOMAIN_CONTEXT }>;

export function toRecord(r: Row): DomainRecord {
  return {
    id: r.id,
    workspaceId: r.workspaceId,
    appId: r.appId,
    hostname: r.hostname,
    status: r.status as DomainStatusValue,
    txtValue: r.txtValue,
    check: (r.check as StoredCheck | null) ?? null,
    failures: r.failures,
    pendingUntil: r.pendingUntil,
    nextCheckAt: r.nextCheckAt,
    verifiedAt: r.verifiedAt,
    certificate: (r.certificate as CertificateState | null) ?? null,
    createdAt: r.createdAt,
  };
}

export function toContext(r: ContextRow): DomainContext {
  return {
    ...toRecord(r),
    app: { kind: r.app.kind, subdomain: r.app.subdomain, deleted: r.app.deletedAt !== null, desiredState: r.app.desiredState },
    node: r.workspace.node,
  };
}

export function toData(c: DomainChanges): Prisma.DomainUpdateManyMutationInput {
  const data: Prisma.DomainUpdateManyMutationInput = {};
  if (c.status !== undefined) data.status = c.status;
  if (c.check !== undefined) data.check = c.check as unknown as Prisma.InputJsonValue;
  if (c.failures !== undefined) data.failures = c.failures;
  if (c.nextCheckAt !== undefined) data.nextCheckAt = c.nextCheckAt;
  if (c.verifiedAt !== undefined) data.verifiedAt = c.verifiedAt;
  if (c.certificate !== undefined) data.certificate = c.certificate === null ? Prisma.DbNull : (c.certificate as unknown as Prisma.InputJsonValue);
  return data;
}

/** Verified domains of live web apps meant to run, on the node: what its Caddy routes. */
export const ROUTED_WHERE = (nodeId: string): Prisma.DomainWhereInput => ({
  status: 'verified',
  app: { deletedAt: null, kind: 'web' },
  workspace: { nodeId, deletedAt: null },
});
