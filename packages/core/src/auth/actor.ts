import type { Role } from '@slipway/contracts';
import type { PrefetchedMembership } from '../ports/repositories';

/**
 * Who is calling: a signed-in user (session cookie) or an API token acting for its creator. `membership` is the
 * caller's membership of the workspace the request names, when it was read together with the credential; the
 * authorization layer then needs no second query.
 */
export type Actor =
  | { readonly kind: 'session'; readonly userId: string; readonly sessionId: string; readonly membership?: PrefetchedMembership }
  | { readonly kind: 'token'; readonly userId: string; readonly tokenId: string; readonly workspaceId: string; readonly membership?: PrefetchedMembership };

/** A workspace row as services see it. */
export interface WorkspaceRecord {
  readonly id: string;
  readonly name: string;
  readonly slug: string;
  readonly planId: string;
  readonly billingStatus: string;
  readonly trialEndsAt: Date;
  readonly graceEndsAt: Date;
  readonly suspendedAt: Date | null;
  readonly extras: { readonly cpuMillis: number; readonly memoryMb: number; readonly members: number };
  readonly nodeId: string | null;
  /** Since when the control plane cannot reach the workspace's server (issue 31); null: reachable (or not read). */
  readonly nodeUnreachableSince?: Date | null;
  readonly createdAt: Date;
}

declare const granted: unique symbol;

/**
 * Proof that `actor` may do something in `workspace` with `role`: only AccessService makes one, after the
 * membership, the token scope, the permission table and the suspension rule were checked. Services that act
 * on a workspace take it in place of a bare actor, so an unauthorized call does not type-check.
 */
export interface WorkspaceAccess {
  readonly actor: Actor;
  readonly role: Role;
  /** The workspace as read when access was granted, in this request. */
  readonly workspace: WorkspaceRecord;
  readonly [granted]: true;
}

export function grantAccess(actor: Actor, role: Role, workspace: WorkspaceRecord): WorkspaceAccess {
  return { actor, role, workspace } as WorkspaceAccess;
}
