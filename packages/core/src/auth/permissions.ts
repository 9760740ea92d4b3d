import type { Role } from '@slipway/contracts';
import { AppError } from '../errors';

export const ROLES: readonly Role[] = ['owner', 'admin', 'developer', 'viewer'];

interface Rule {
  /** Roles allowed to do it. */
  readonly roles: readonly Role[];
  /** A mutation is refused with 403 workspace_suspended once the workspace is suspended. */
  readonly mutation: boolean;
  /** The code of a refusal on role grounds (default `forbidden`). */
  readonly denial?: 'owner_required';
}

const ALL = ROLES;
const OWNER_ADMIN: readonly Role[] = ['owner', 'admin'];
const BUILDERS: readonly Role[] = ['owner', 'admin', 'developer'];

/**
 * The permission table of API-DECISIONS ("Roles and members"). Every workspace route names one of these in the
 * operation table (packages/contracts) and the authorization layer (AccessService) checks it before the route runs.
 * owner: everything. admin: everything but deleting the workspace and changing owners (that rule lives in
 * MemberService, which sees the target's role). developer: apps, deployments, files, databases, domains and their
 * own tokens; not members, others' tokens, or billing. viewer: read only, no secret values, no file downloads, no
 * database credentials.
 */
export const PERMISSIONS = {
  'workspace.read': { roles: ALL, mutation: false },
  'workspace.update': { roles: OWNER_ADMIN, mutation: true },
  // Allowed while suspended: deleting is how an owner leaves for good.
  'workspace.delete': { roles: ['owner'], mutation: false, denial: 'owner_required' },
  'plan.read': { roles: ALL, mutation: false },
  // Allowed while suspended: paying is how a suspension ends.
  'billing.manage': { roles: OWNER_ADMIN, mutation: false },
  'members.read': { roles: ALL, mutation: false },
  'members.write': { roles: OWNER_ADMIN, mutation: true },
  'tokens.read': { roles: ALL, mutation: false },
  'tokens.create': { roles: BUILDERS, mutation: true },
  // Allowed while suspended: revoking a credential is never blocked.
  'tokens.revoke': { roles: BUILDERS, mutation: false },
  'apps.read': { roles: ALL, mutation: false },
  'apps.write': { roles: BUILDERS, mutation: true },
  'deployments.write': { roles: BUILDERS, mutation: true },
  'env.read': { roles: ALL, mutation: false },
  'env.write': { roles: BUILDERS, mutation: true },
  'files.list': { roles: ALL, mutation: false },
  'files.download': { roles: BUILDERS, mutation: false },
  'files.write': { roles: BUILDERS, mutation: true },
  'databases.read': { roles: ALL, mutation: false },
  'databases.write': { roles: BUILDERS, mutation: true },
  'databases.credentials': { roles: BUILDERS, mutation: false },
  // Backup destinations hold storage credentials (issue 33): owners and admins change them; everyone sees them without secrets.
  'backups.destinations.read': { roles: ALL, mutation: false },
  'backups.destinations.write': { roles: OWNER_ADMIN, mutation: true },
  'domains.read': { roles: ALL, mutation: false },
  'domains.write': { roles: BUILDERS, mutation: true },
} as const satisfies Record<string, Rule>;

export type Permission = keyof typeof PERMISSIONS;

export const isPermission = (p: string): p is Permission => Object.hasOwn(PERMISSIONS, p);

/** Throws the AppError a request with `role` gets for `permission`; returns when it is allowed. */
export function authorize(role: Role, permission: Permission, suspended: boolean): void {
  const rule: Rule = PERMISSIONS[permission];
  if (!rule.roles.includes(role)) {
    if (rule.denial === 'owner_required') throw new AppError('owner_required', 'Only an owner of the workspace may do this');
    throw new AppError('forbidden', `The ${role} role may not do this`);
  }
  if (suspended && rule.mutation) {
    throw new AppError('workspace_suspended', 'The workspace is suspended: its grace period ended without a paid plan');
  }
}

/** Whether `role` may do `permission` (ignoring suspension), for services that filter rather than refuse. */
export const can = (role: Role, permission: Permission): boolean => (PERMISSIONS[permission].roles as readonly Role[]).includes(role);
