// What services need of storage. packages/db implements these over Prisma; services never see SQL.
// Tenant-owned data is addressed with its workspaceId in every signature. The exceptions are the credential
// lookups (a session or token is found by the hash of the value the client sent, before any workspace is known).
import type { Role } from '@slipway/contracts';
import type { WorkspaceRecord } from '../auth/actor';

export interface UserRecord {
  id: string;
  email: string;
  name: string;
  passwordHash: string;
  createdAt: Date;
}

export interface UserRepository {
  /** null when the email is taken. */
  create(input: { email: string; name: string; passwordHash: string }): Promise<UserRecord | null>;
  findByEmail(email: string): Promise<UserRecord | null>;
  findById(userId: string): Promise<UserRecord | null>;
}

/** The caller's membership of one workspace, read together with the credential (null: not a member, or deleted). */
export interface PrefetchedMembership {
  workspaceId: string;
  workspace: WorkspaceWithRole | null;
}

export interface ActiveSession {
  id: string;
  userId: string;
  lastSeenAt: Date;
  /** Present when a workspace id was given. */
  membership?: PrefetchedMembership;
}

export interface ActiveApiToken {
  id: string;
  workspaceId: string;
  userId: string;
  lastUsedAt: Date | null;
  membership: PrefetchedMembership;
}

export interface SessionRepository {
  create(input: { userId: string; tokenHash: Buffer; expiresAt: Date; ip: string | null; userAgent: string | null }): Promise<{ id: string }>;
  /**
   * The session with this hash that is neither revoked nor expired at `now`; with `workspaceId`, also the user's
   * membership of that workspace, in the same statement (one round trip per authenticated request).
   */
  findActive(tokenHash: Buffer, now: Date, workspaceId?: string): Promise<ActiveSession | null>;
  touch(sessionId: string, now: Date): Promise<void>;
  revoke(sessionId: string, now: Date): Promise<void>;
}

export interface ApiTokenRecord {
  id: string;
  workspaceId: string;
  name: string;
  prefix: string;
  createdBy: { id: string; name: string };
  createdAt: Date;
  expiresAt: Date | null;
  lastUsedAt: Date | null;
}

export interface ApiTokenRepository {
  create(input: {
    workspaceId: string;
    createdById: string;
    name: string;
    tokenHash: Buffer;
    prefix: string;
    expiresAt: Date | null;
  }): Promise<ApiTokenRecord>;
  /**
   * The token with this hash that is not revoked, not expired at `now`, whose workspace is not deleted and whose
   * creator is still a member there, with that membership.
   */
  findActive(tokenHash: Buffer, now: Date): Promise<ActiveApiToken | null>;
  touch(scope: { workspaceId: string; tokenId: string }, now: Date): Promise<void>;
  /** Tokens not revoked, oldest first; only those of `createdById` when given. */
  list(scope: { workspaceId: string; createdById?: string }): Promise<ApiTokenRecord[]>;
  /** false when no such unrevoked token (of `createdById`, when given) exists. */
  revoke(scope: { workspaceId: string; tokenId: string; createdById?: string }, now: Date): Promise<boolean>;
}

export interface WorkspaceWithRole extends WorkspaceRecord {
  role: Role;
}

export interface NodeCapacity {
  id: string;
  name: string;
  cpuMillis: number;
  memoryMb: number;
  reservedCpuMillis: number;
  reservedMemoryMb: number;
  /** Cordoned by an operator: no new workspace goes there. */
  cordoned?: boolean;
  /** Its data disk at the last health check (MB); null before the first report. */
  disk?: { freeMb: number; reserveMb: number } | null;
}

export interface NewWorkspace {
  name: string;
  slug: string;
  ownerId: string;
  planId: string;
  trialEndsAt: Date;
  graceEndsAt: Date;
  nodeId: string;
  createdAt: Date;
}

export interface WorkspaceRepository {
  /** Workspaces (not deleted) where the user is a member, oldest first. */
  listForUser(userId: string): Promise<WorkspaceWithRole[]>;
  /** The workspace (not deleted) and the user's role there; null when either is missing. */
  findForMember(scope: { workspaceId: string; userId: string }): Promise<WorkspaceWithRole | null>;
  /** Inserts the workspace and the owner's membership together; null when the slug is taken. */
  create(input: NewWorkspace): Promise<WorkspaceRecord | null>;
  /** null when the workspace is gone; 'slug_taken' when the slug is. */
  update(scope: { workspaceId: string }, changes: { name?: string; slug?: string }): Promise<WorkspaceRecord | 'slug_taken' | null>;
  /**
   * Sets deletedAt and records the teardown Operation in one transaction (conditional on the workspace not being
   * deleted yet); null when it was already deleted.
   */
  markDeleted(scope: { workspaceId: string }, operation: { kind: string }, now: Date): Promise<{ operationId: string } | null>;
  /** Online nodes with the vCPU and memory reserved by the workspaces placed on them (each workspace at least its plan's first app), cordon and disk. */
  onlineNodes(): Promise<NodeCapacity[]>;
  /** Sets suspendedAt on every live, unsuspended workspace whose grace ended and whose billing is not active. */
  suspendExpired(now: Date): Promise<string[]>;
}

export interface MemberRecord {
  userId: string;
  email: string;
  name: string;
  role: Role;
  createdAt: Date;
}

/** The plan limits, the workspace's extras and what is used, read under the workspace's row lock. */
export interface QuotaState {
  /** diskMb null: a plan version from before disk was a plan resource (no disk limit). */
  plan: { cpuMillis: number; memoryMb: number; maxMembers: number; diskMb: number | null };
  extras: { cpuMillis: number; memoryMb: number; members: number };
  usage: { cpuMillis: number; memoryMb: number; diskMb: number; members: number };
}

export interface MemberRepository {
  list(scope: { workspaceId: string }): Promise<MemberRecord[]>;
  find(scope: { workspaceId: string; userId: string }): Promise<MemberRecord | null>;
  /**
   * In one transaction holding the workspace's row lock: calls `decide` with the quota state (it throws to refuse),
   * then inserts. 'already_member' when the user is one.
   */
  add(scope: { workspaceId: string; userId: string; role: Role }, decide: (state: QuotaState) => void): Promise<MemberRecord | 'already_member'>;
  /**
   * Under the workspace's row lock: calls `decide` with the member's current role and the number of owners, then
   * changes the role. null when the user is not a member.
   */
  changeRole(
    scope: { workspaceId: string; userId: string; role: Role },
    decide: (state: { current: Role; owners: number }) => void,
  ): Promise<MemberRecord | null>;
  /** Like changeRole, then deletes the membership and revokes the member's tokens in the workspace. */
  remove(scope: { workspaceId: string; userId: string }, decide: (state: { current: Role; owners: number }) => void, now: Date): Promise<boolean>;
}

export interface ReservationRequest {
  resourceType: string;
  resourceId: string;
  cpuMillis: number;
  memoryMb: number;
  diskMb: number;
}

export interface ReservationRepository {
  /**
   * In one transaction holding the workspace's row lock: reads the quota state (usage without this resource's own
   * reservation, so a resize counts only the new size), calls `decide` (it throws to refuse), then inserts or
   * updates the reservation of `resourceId`. Concurrent calls for one workspace run one after the other.
   */
  reserve(scope: { workspaceId: string }, request: ReservationRequest, decide: (state: QuotaState) => void): Promise<void>;
  /** false when the resource held nothing. */
  release(scope: { workspaceId: string; resourceId: string }): Promise<boolean>;
  /** Limits, extras and usage, without a lock (for display). */
  state(scope: { workspaceId: string }): Promise<QuotaState>;
}

export interface PlanRecord {
  id: string;
  slug: string;
  version: number;
  name: string;
  kind: 'trial' | 'paid';
  priceCents: number;
  currency: string;
  cpuMillis: number;
  memoryMb: number;
  maxMembers: number;
  /** null: a version from before disk was a plan resource (no disk limit). */
  diskMb: number | null;
  minimums: unknown;
}

export type PlanEntry = Omit<PlanRecord, 'id'>;

export interface PlanRepository {
  /** Inserts the (slug, version) pairs not yet present, then returns the stored rows of every pair given. */
  insertMissing(entries: PlanEntry[]): Promise<PlanRecord[]>;
  findById(planId: string): Promise<PlanRecord | null>;
  /** The newest version of the plan with this slug. */
  newest(slug: string): Promise<PlanRecord | null>;
  /** The newest version of each paid plan. */
  catalog(): Promise<PlanRecord[]>;
}

/** Job side (the `workspace.teardown` job): only the worker composes it. */
export interface TeardownStore {
  /** Whether the workspace exists and is marked deleted (teardown never touches a live workspace). */
  isDeleted(scope: { workspaceId: string }): Promise<boolean>;
  /** Every app the workspace ever had (deleted ones included): the server finds their images, routes and folders by id. */
  appIds(scope: { workspaceId: string }): Promise<string[]>;
  /**
   * Marks the workspace's apps deleted (their subdomains free again) and deletes its tokens, memberships and
   * reservations, in one transaction; counts what went.
   */
  purge(scope: { workspaceId: string }, now: Date): Promise<{ apps: number; tokens: number; memberships: number; reservations: number }>;
}
