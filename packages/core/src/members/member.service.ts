import type { AddMemberRequest, Member, Role, UpdateMemberRequest } from '@slipway/contracts';
import type { WorkspaceAccess } from '../auth/actor';
import { normalizeEmail } from '../auth/auth.service';
import { AppError } from '../errors';
import type { Clock } from '../ports/clock';
import type { MemberRecord, MemberRepository, UserRepository } from '../ports/repositories';
import { assertMemberFits } from '../quota/quota';

export const toMember = (m: MemberRecord): Member => ({
  userId: m.userId,
  email: m.email,
  name: m.name,
  role: m.role,
  createdAt: m.createdAt.toISOString(),
});

/**
 * Rules an admin meets that an owner does not: only owners make, change or remove owners.
 * Throws 403 owner_required; returns when allowed.
 */
export function assertMayTouchRole(actorRole: Role, targetCurrent: Role | null, targetNext: Role | null): void {
  if (actorRole === 'owner') return;
  if (targetCurrent === 'owner' || targetNext === 'owner') {
    throw new AppError('owner_required', 'Only an owner may add, change or remove owners');
  }
}

/** Throws 409 last_owner when the change would leave the workspace without an owner. */
export function assertOwnerRemains(current: Role, next: Role | null, owners: number): void {
  if (current === 'owner' && next !== 'owner' && owners <= 1) {
    throw new AppError('last_owner', 'The last owner cannot be removed or demoted; make someone else owner first');
  }
}

/** Members and roles. The permission `members.write` (owner, admin) is checked by the authorization layer. */
export class MemberService {
  constructor(private readonly deps: { members: MemberRepository; users: UserRepository; clock: Clock }) {}

  async list(access: WorkspaceAccess): Promise<Member[]> {
    return (await this.deps.members.list({ workspaceId: access.workspace.id })).map(toMember);
  }

  /** Adds an existing user; counts against maxMembers in the same transaction as the insert. */
  async add(access: WorkspaceAccess, input: AddMemberRequest): Promise<Member> {
    assertMayTouchRole(access.role, null, input.role);
    const user = await this.deps.users.findByEmail(normalizeEmail(input.email));
    if (!user) throw new AppError('not_found', 'No account has this email; ask the person to sign up first');
    const added = await this.deps.members.add({ workspaceId: access.workspace.id, userId: user.id, role: input.role }, assertMemberFits);
    if (added === 'already_member') throw new AppError('already_member', 'This user is already a member of the workspace');
    return toMember(added);
  }

  async update(access: WorkspaceAccess, userId: string, input: UpdateMemberRequest): Promise<Member> {
    const updated = await this.deps.members.changeRole({ workspaceId: access.workspace.id, userId, role: input.role }, ({ current, owners }) => {
      assertMayTouchRole(access.role, current, input.role);
      assertOwnerRemains(current, input.role, owners);
    });
    if (!updated) throw new AppError('not_found', 'The member was not found');
    return toMember(updated);
  }

  /** Removes the member and revokes their tokens in this workspace. */
  async remove(access: WorkspaceAccess, userId: string): Promise<void> {
    const removed = await this.deps.members.remove(
      { workspaceId: access.workspace.id, userId },
      ({ current, owners }) => {
        assertMayTouchRole(access.role, current, null);
        assertOwnerRemains(current, null, owners);
      },
      this.deps.clock(),
    );
    if (!removed) throw new AppError('not_found', 'The member was not found');
  }
}
