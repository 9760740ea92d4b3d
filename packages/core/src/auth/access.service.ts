import { AppError } from '../errors';
import type { WorkspaceRepository } from '../ports/repositories';
import { grantAccess, type Actor, type WorkspaceAccess } from './actor';
import { authorize, type Permission } from './permissions';

/**
 * The authorization layer: every workspace route passes through `resolve` before its service runs. A workspace
 * the caller cannot see (missing, deleted, not a member, or a token of another workspace) is 404 `not_found`,
 * never 403, so existence never leaks. Then the permission table and the suspension rule apply.
 */
export class AccessService {
  constructor(private readonly workspaces: WorkspaceRepository) {}

  async resolve(actor: Actor, workspaceId: string, permission: Permission): Promise<WorkspaceAccess> {
    if (actor.kind === 'token' && actor.workspaceId !== workspaceId) throw notFoundWorkspace();
    const found =
      actor.membership?.workspaceId === workspaceId
        ? actor.membership.workspace
        : await this.workspaces.findForMember({ workspaceId, userId: actor.userId });
    if (!found) throw notFoundWorkspace();
    const { role, ...workspace } = found;
    authorize(role, permission, workspace.suspendedAt !== null);
    return grantAccess(actor, role, workspace);
  }
}

const notFoundWorkspace = () => new AppError('not_found', 'The workspace was not found');
