import { AppError } from '../errors';
import { authorize, can, PERMISSIONS, ROLES, type Permission } from './permissions';

const outcome = (role: (typeof ROLES)[number], p: Permission, suspended = false): string => {
  try {
    authorize(role, p, suspended);
    return 'ok';
  } catch (e) {
    return (e as AppError).code;
  }
};

/** What a viewer gets: reads (and the file list) only; deleting the workspace is an owner's. */
const viewerOutcome = (p: Permission) => (p.endsWith('.read') || p === 'files.list' ? 'ok' : p === 'workspace.delete' ? 'owner_required' : 'forbidden');
const adminOutcome = (p: Permission) => (p === 'workspace.delete' ? 'owner_required' : 'ok');

describe('the permission table', () => {
  it('gives owners everything and viewers reads only', () => {
    for (const p of Object.keys(PERMISSIONS) as Permission[]) {
      expect(outcome('owner', p)).toBe('ok');
      expect(`${p}: ${outcome('viewer', p)}`).toBe(`${p}: ${viewerOutcome(p)}`);
    }
  });

  it('lets admins do all but delete the workspace', () => {
    for (const p of Object.keys(PERMISSIONS) as Permission[]) {
      expect(`${p}: ${outcome('admin', p)}`).toBe(`${p}: ${adminOutcome(p)}`);
    }
  });

  it('keeps developers to apps, deployments, files, databases, domains and their tokens', () => {
    const denied = Object.keys(PERMISSIONS).filter((p) => outcome('developer', p as Permission) !== 'ok').sort();
    expect(denied).toEqual(['backups.destinations.write', 'billing.manage', 'members.write', 'workspace.delete', 'workspace.update']);
    expect(can('developer', 'tokens.create')).toBe(true);
    expect(can('viewer', 'files.download')).toBe(false);
    expect(can('viewer', 'databases.credentials')).toBe(false);
  });

  it('refuses mutations in a suspended workspace but not reads, deletion, billing or revoking tokens', () => {
    expect(outcome('owner', 'workspace.update', true)).toBe('workspace_suspended');
    expect(outcome('owner', 'apps.write', true)).toBe('workspace_suspended');
    expect(outcome('owner', 'members.write', true)).toBe('workspace_suspended');
    expect(outcome('owner', 'workspace.read', true)).toBe('ok');
    expect(outcome('owner', 'workspace.delete', true)).toBe('ok');
    expect(outcome('admin', 'billing.manage', true)).toBe('ok');
    expect(outcome('developer', 'tokens.revoke', true)).toBe('ok');
  });

  it('answers a role refusal before a suspension', () => {
    expect(outcome('viewer', 'workspace.update', true)).toBe('forbidden');
  });
});
